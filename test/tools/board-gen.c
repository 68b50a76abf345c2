/* board-gen: write the raw files of an on-board run (optrace-board(5),
 * DEVICEPROF<N>.BIN to OP_BASIC_INFO.TXT) for a chosen chip, block count
 * and loop count with the stand-in's PMU model (test/camodel/devprof.h);
 * or check such a directory with the project's decoders (lib/board.h).
 * A test helper (see README here). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "board.h"
#include "chip.h"
#include "cli.h"
#include "devprof.h"
#include "io.h"
#include "pmu.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: board-gen [--chip CHIP] [--blocks N] [--loops N] [--kind vector|cube|mix]\n"
	        "                 [--replay N] [--op NAME] [--launches M] DIR\n"
	        "       board-gen --check [-v] DIR\n"
	        "Write DeviceProf<N>.bin (every replay, or replay N), duration.bin, L2Cache.bin\n"
	        "(not A5) and op_basic_info.txt into DIR for CHIP (910B, 310P, A5 or a SoC name;\n"
	        "default Ascend910B1): N blocks (default 8) of a kernel of the kind (default\n"
	        "mix; 310P has one AI Core per block) running LOOPS loops (default 1).\n"
	        "--launches M: M launches, in DIR/0/dump ... DIR/<M-1>/dump.\n"
	        "--check reads DIR back and prints one summary line (-v: one line per\n"
	        "record of every replay with its events); exit 3 when something is wrong.\n");
}

/* ---- generating ---- */

struct gen {
	enum board_fmt fmt;
	unsigned subs;        /* per block */
	int mix, cube;
	uint64_t loops;
	unsigned mhz, ts_khz;
};

/* Sub-core i: per loop a vector sub-core moves 16 KiB in and 8 KiB out
 * through UB and runs 32-repeat vector adds, a cube sub-core loads 16 KiB
 * into L1, 8 KiB into each of L0A/L0B, runs a 64-fractal matmul and writes
 * 16 KiB out.  Busy cycles are occupancies as the timing model gives them
 * (README of test/camodel, section 6); the total is their sum (the pipes
 * never overlap), so busy never exceeds it.  Block b runs loops + b % 3. */
static void gen_sub(void *ctx, size_t i, struct dp_sub *s)
{
	const struct gen *g = ctx;
	unsigned b = (unsigned)(i / g->subs), k = (unsigned)(i % g->subs);
	uint64_t n = g->loops + b % 3;
	memset(s, 0, sizeof *s);
	s->block = b;
	s->core_id = g->mix || g->cube || g->fmt == BOARD_310P ? b : b / 2;
	int cube = g->fmt == BOARD_310P ? g->cube || g->mix : g->mix ? k == 0 : g->cube;
	int vec = g->fmt == BOARD_310P ? !g->cube : !cube;
	s->core = g->fmt == BOARD_310P || cube ? BOARD_CUBE : BOARD_VECTOR;
	s->sub_block = g->mix && !cube ? k - 1 : 0;
	if (vec) {
		s->bytes[DP_GM_TO_UB] = n * 16384;
		s->bytes[DP_UB_TO_GM] = n * 8192;
		s->bytes[DP_UB_TO_VEC] = n * 16384;
		s->bytes[DP_VEC_TO_UB] = n * 8192;
		s->instr[DP_MTE2] = 2 * n;
		s->busy[DP_MTE2] = 2 * n * (4 + 8192 / 64);
		s->instr[DP_MTE3] = n;
		s->busy[DP_MTE3] = n * (4 + 8192 / 64);
		s->instr[DP_V] = n;
		s->busy[DP_V] = n * 33;
		s->vec_f32 = n;
	}
	if (cube) {
		s->bytes[DP_GM_TO_L1] += n * 16384;
		s->bytes[DP_L1_TO_L0A] = n * 8192;
		s->bytes[DP_L1_TO_L0B] = n * 8192;
		s->bytes[DP_L0A_TO_CUBE] = n * 8192;
		s->bytes[DP_L0B_TO_CUBE] = n * 8192;
		s->bytes[DP_CUBE_TO_L0C] = n * 16384;
		s->bytes[DP_L0C_TO_GM] = n * 16384;
		s->instr[DP_MTE2] += n;
		s->busy[DP_MTE2] += n * (4 + 16384 / 64);
		s->instr[DP_MTE1] = 2 * n;
		s->busy[DP_MTE1] = 2 * n * (2 + 8192 / 128);
		s->instr[DP_M] = n;
		s->busy[DP_M] = n * 65;
		/* a 64 x 64 x 64 fp32 matmul: 2 x 64^3 operands */
		s->mmad_instr = n;
		s->mmad_ops = n * 2 * 64 * 64 * 64;
		s->instr[DP_FIX] = n;
		s->busy[DP_FIX] = n * (2 + 16384 / 64);
	}
	s->instr[DP_S] = 12 * n;
	s->busy[DP_S] = 12 * n;
	s->ic_req = 4 + n;
	s->ic_miss = 4;
	s->cycles = 100;
	for (int p = 0; p < DP_NPIPE; p++) s->cycles += s->busy[p];
	s->start = 1000 + 100 * (uint64_t)g->ts_khz / (g->mhz * 1000ull);
	s->end = 1000 + s->cycles * (uint64_t)g->ts_khz / (g->mhz * 1000ull) + 1;
}

static int fmt_of_chip(const char *chip, enum board_fmt *fmt, const char **soc)
{
	if (!strcasecmp(chip, "910B")) chip = "Ascend910B1";
	else if (!strcasecmp(chip, "310P")) chip = "Ascend310P3";
	else if (!strcasecmp(chip, "A5")) chip = "Ascend950PR_9599";
	const struct chip *c = chip_find(chip);
	int f = board_fmt_of(c->family);
	if (c->family == CHIP_UNKNOWN || f < 0) return -1;
	*fmt = (enum board_fmt)f;
	*soc = c->soc;
	return 0;
}

static int generate(const char *dir, const char *chip, uint64_t blocks, uint64_t loops, const char *kind,
                    unsigned replay, const char *op, uint64_t launches)
{
	struct gen g = { .loops = loops };
	const char *soc;
	if (fmt_of_chip(chip, &g.fmt, &soc)) cli_die(EXIT_USAGE, "--chip %s: not a chip with an on-board flow", chip);
	if (!strcmp(kind, "mix")) g.mix = 1;
	else if (!strcmp(kind, "cube")) g.cube = 1;
	else if (strcmp(kind, "vector")) cli_die(EXIT_USAGE, "--kind %s: vector, cube or mix", kind);
	if (replay > dp_replays(g.fmt))
		cli_die(EXIT_USAGE, "--replay %u: %s has replays 1..%u", replay, soc, dp_replays(g.fmt));
	if (!blocks || blocks > 0xffff) cli_die(EXIT_USAGE, "--blocks: 1..65535");
	g.subs = dp_subs_per_block(g.fmt, g.mix);
	const struct pmu_defaults *d = pmu_defaults(g.fmt);
	g.mhz = d->aicore_mhz;
	g.ts_khz = d->ts_khz;
	/* the longest sub-core is in one of the first three blocks */
	uint64_t end = 0;
	for (uint64_t i = 0; i < 3 * g.subs && i < blocks * g.subs; i++) {
		struct dp_sub s;
		gen_sub(&g, i, &s);
		if (s.end > end) end = s.end;
	}
	struct dp_run r = {
		.fmt = g.fmt, .soc = soc, .op_name = op, .block_dim = blocks, .device_id = 0, .stream = 1, .task = 1,
		.pid = (long)getpid(), .freq_mhz = g.mhz, .task_type = g.fmt == BOARD_A5 ? (g.mix ? 2u : g.cube ? 0u : 1u) : 0,
		.start = 1000, .end = end + 1, .nsub = blocks * g.subs, .gen = gen_sub,
		.ctx = &g,
	};
	char err[4400];
	if (!launches) {
		if (dp_write(&r, dir, replay, err, sizeof err)) cli_die(EXIT_IO, "%s", err);
		return EXIT_OK;
	}
	/* launch i of the kernel in DIR/<i>/dump, as the capture tool lays them out */
	for (uint64_t i = 0; i < launches; i++) {
		char sub[4200];
		snprintf(sub, sizeof sub, "%s/%llu/dump", dir, (unsigned long long)i);
		r.task = (unsigned)((i + 1) & 0xfff);
		if (dp_write(&r, sub, replay, err, sizeof err)) cli_die(EXIT_IO, "%s", err);
	}
	return EXIT_OK;
}

/* ---- checking ---- */

static const unsigned busy_a2[] = { 8, 9, 10, 12, 13, 73, 770, 771, 0 };
static const unsigned busy_310p[] = { 8, 9, 10, 11, 12, 13, 73, 0 };
static const unsigned busy_a5[] = { 1, 808, 810, 1281, 1282, 1284, 1794, 514, 515, 1812, 0 };

static int is_busy(enum board_fmt fmt, unsigned ev)
{
	const unsigned *l = fmt == BOARD_A5 ? busy_a5 : fmt == BOARD_310P ? busy_310p : busy_a2;
	for (; *l; l++)
		if (*l == ev) return 1;
	return 0;
}

static _Noreturn void bad(const char *file, const struct board_err *e)
{
	char m[256];
	board_err_text(e, m, sizeof m);
	cli_die(EXIT_UNUSABLE, "%s: %s", file, m);
}

static struct rd *open_in(const char *dir, const char *name, char *path, size_t n)
{
	snprintf(path, n, "%s/%s", dir, name);
	struct rd *r = rd_open(path);
	if (!r) cli_die(EXIT_UNUSABLE, "%s: %s", path, strerror(errno));
	return r;
}

static int check(const char *dir, int verbose)
{
	char path[4200];
	struct board_err e;
	struct board_basic bi;
	struct rd *r = open_in(dir, "op_basic_info.txt", path, sizeof path);
	if (board_basic_read(r, &bi, &e)) bad(path, &e);
	rd_close(r);
	const struct chip *c = chip_find(bi.soc);
	int f = board_fmt_of(c->family);
	if (f < 0) cli_die(EXIT_UNUSABLE, "%s: Run Soc Version %s has no on-board flow", path, bi.soc);
	enum board_fmt fmt = (enum board_fmt)f;
	const struct pmu_defaults *d = pmu_defaults(fmt);

	/* duration.bin: a start before an end */
	struct board_span span = { 0, 0 };
	struct board_stamp st;
	uint64_t idx = 0;
	int rc;
	r = open_in(dir, "duration.bin", path, sizeof path);
	while ((rc = board_stamp_next(r, fmt, &idx, &st, &e)) == 1) board_span_add(fmt, &span, &st);
	if (rc < 0) bad(path, &e);
	rd_close(r);
	float us = board_span_us(&span, d->ts_khz);
	if (us <= 0) cli_die(EXIT_UNUSABLE, "%s: no AI Core start before an end", path);

	uint64_t l2[8] = { 0 };
	snprintf(path, sizeof path, "%s/L2Cache.bin", dir);
	if (fmt != BOARD_A5 || access(path, F_OK) == 0) {
		r = open_in(dir, "L2Cache.bin", path, sizeof path);
		if (board_l2_read(r, l2, &e) < 0) bad(path, &e);
		rd_close(r);
	}

	/* the replay files, read in step: record i of every file is the same
	 * (block, sub-core) */
	unsigned k = dp_replays(fmt);
	struct rd *in[16];
	char names[16][4200];
	for (unsigned n = 1; n <= k; n++) {
		char nm[64];
		snprintf(nm, sizeof nm, "DeviceProf%u.bin", n);
		in[n - 1] = open_in(dir, nm, names[n - 1], sizeof names[0]);
	}
	uint64_t recs = 0, ncube = 0, nvec = 0, maxc = 0, pos[16] = { 0 };
	for (;;) {
		struct board_pmu p[16];
		int got = 0;
		for (unsigned n = 0; n < k; n++) {
			rc = board_pmu_next(in[n], fmt, &pos[n], &p[n], &e);
			if (rc < 0) bad(names[n], &e);
			if (n && rc != got) cli_die(EXIT_UNUSABLE, "%s: %s records than %s", names[n],
			                            rc ? "more" : "fewer", names[0]);
			got = rc;
		}
		if (!got) break;
		for (unsigned n = 0; n < k; n++) {
			const struct board_pmu *q = &p[n];
			if (q->core != p[0].core || q->block_id != p[0].block_id || q->sub_block_id != p[0].sub_block_id)
				cli_die(EXIT_UNUSABLE, "%s: record %llu is another sub-core than in %s", names[n],
				        (unsigned long long)recs, names[0]);
			if (q->total_cycles != p[0].total_cycles)
				cli_die(EXIT_UNUSABLE, "%s: record %llu: other cycles than in %s", names[n],
				        (unsigned long long)recs, names[0]);
			if (!q->total_cycles)
				cli_die(EXIT_UNUSABLE, "%s: record %llu: no cycles", names[n], (unsigned long long)recs);
			if (fmt != BOARD_310P && q->start_time >= q->end_time)
				cli_die(EXIT_UNUSABLE, "%s: record %llu: start not before end", names[n], (unsigned long long)recs);
			for (unsigned i = 0; i < q->nslots; i++) {
				unsigned ev = dp_slot_event(fmt, q->core, n + 1, i);
				if (!ev && q->slot[i])
					cli_die(EXIT_UNUSABLE, "%s: record %llu: a count in empty slot %u", names[n],
					        (unsigned long long)recs, i);
				if (is_busy(fmt, ev) && q->slot[i] > q->total_cycles)
					cli_die(EXIT_UNUSABLE, "%s: record %llu: event %u busy %llu of %llu cycles", names[n],
					        (unsigned long long)recs, ev, (unsigned long long)q->slot[i],
					        (unsigned long long)q->total_cycles);
			}
			if (verbose) {
				printf("replay=%u block=%u sub=%u core=%s core_id=%u cycles=%llu", n + 1, q->block_id,
				       q->sub_block_id, q->core == BOARD_CUBE ? "cube" : "vector", q->core_id,
				       (unsigned long long)q->total_cycles);
				for (unsigned i = 0; i < q->nslots; i++) {
					unsigned ev = dp_slot_event(fmt, q->core, n + 1, i);
					if (ev) printf(" %u=%llu", ev, (unsigned long long)q->slot[i]);
				}
				putchar('\n');
			}
		}
		if (p[0].total_cycles > maxc) maxc = p[0].total_cycles;
		if (p[0].core == BOARD_CUBE) ncube++;
		else nvec++;
		recs++;
	}
	for (unsigned n = 0; n < k; n++) rd_close(in[n]);
	/* a mix kernel has a cube and two vector records per block */
	uint64_t want = fmt != BOARD_310P && ncube && nvec ? 3 * bi.block_dim : bi.block_dim;
	if (recs != want || (ncube && nvec && ncube * 2 != nvec))
		cli_die(EXIT_UNUSABLE, "%s: %llu records (%llu cube, %llu vector) for Block Dim %llu", names[0],
		        (unsigned long long)recs, (unsigned long long)ncube, (unsigned long long)nvec,
		        (unsigned long long)bi.block_dim);
	printf("fmt=%s soc=%s op=%s block_dim=%llu replays=%u records=%llu cube=%llu vector=%llu max_cycles=%llu "
	       "duration_us=%f l2=%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
	       fmt == BOARD_A5 ? "A5" : fmt == BOARD_310P ? "310P" : "A2", bi.soc, bi.op_name,
	       (unsigned long long)bi.block_dim, k, (unsigned long long)recs, (unsigned long long)ncube,
	       (unsigned long long)nvec, (unsigned long long)maxc, (double)us, (unsigned long long)l2[0],
	       (unsigned long long)l2[1], (unsigned long long)l2[2], (unsigned long long)l2[3],
	       (unsigned long long)l2[4], (unsigned long long)l2[5], (unsigned long long)l2[6],
	       (unsigned long long)l2[7]);
	if (fflush(stdout) || ferror(stdout)) cli_die(EXIT_IO, "stdout:");
	return EXIT_OK;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "chip", required_argument, NULL, 'c' }, { "blocks", required_argument, NULL, 'b' },
		{ "loops", required_argument, NULL, 'n' }, { "kind", required_argument, NULL, 'k' },
		{ "replay", required_argument, NULL, 'r' }, { "op", required_argument, NULL, 'o' },
		{ "launches", required_argument, NULL, 'l' }, { "check", no_argument, NULL, 'C' }, { "help", no_argument, NULL, 'h' }, { NULL, 0, NULL, 0 },
	};
	const char *chip = "Ascend910B1", *kind = "mix", *op = "board_gen_custom";
	uint64_t blocks = 8, loops = 1, launches = 0;
	unsigned replay = 0;
	int chk = 0, verbose = 0, o;
	cli_init("board-gen");
	while ((o = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (o) {
		case 'c': chip = optarg; break;
		case 'b': blocks = cli_num("--blocks", optarg); break;
		case 'n': loops = cli_num("--loops", optarg); break;
		case 'k': kind = optarg; break;
		case 'r': replay = (unsigned)cli_num("--replay", optarg); break;
		case 'o': op = optarg; break;
		case 'l': launches = cli_num("--launches", optarg); break;
		case 'C': chk = 1; break;
		case 'v': verbose = 1; break;
		case 'h': usage(stdout); return EXIT_OK;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (loops > (1ull << 32)) cli_die(EXIT_USAGE, "--loops: at most 2^32");
	return chk ? check(argv[optind], verbose) : generate(argv[optind], chip, blocks, loops, kind, replay, op, launches);
}
