/* timeline-emit: turn a record stream into the simulator's timelines,
 * CSVs and summary (the reference's simulator/ directory; see
 * optrace-vdata(5)).
 *
 * Records go through three stages, all streaming:
 *   1. each core's instruction records pass through a reorder window that
 *      puts them in (end tick, pc) order, because the reference walks a
 *      core's slices in that order (WAIT clipping, flag pairing, thread
 *      packing) and the stream only comes close to it;
 *   2. a record leaving the window is drawn at once: into the all-cores
 *      trace (trace.c), into its core's own trace (sub.c), into flag
 *      matching (flags.c) and the per-pc and per-pipe counts (stats.c);
 *   3. at the end of input, the windows drain, flags still unpaired are
 *      drawn alone, every JSON document is closed and moved into place,
 *      and the CSVs, the rest of visualize_data.bin (vis.c: the trace was
 *      drawn straight into its first block; then a per-pc table) and the
 *      summary are written from the counts; trace.json (or the traces it
 *      is split into) is made from visualize_data.bin's trace block.
 * Memory is the windows, the unpaired flags, and per-pc / per-pipe
 * counts: never the trace. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chip.h"
#include "cli.h"
#include "emit.h"
#include "filter.h"
#include "io.h"
#include "loss.h"
#include "rec.h"
#include "tick.h"

/* The reorder window.  instr-parse's records lag the newest end tick by a
 * few thousand ticks at most, except pairs held back to the end of a core;
 * 2^17 ticks (71 us at 1850 MHz) covers the first with room.  It is a ring
 * of buckets by end tick, each sorted when it is drawn: O(1) a record, as a
 * heap was not (it was a fifth of the run time).  Counts cap memory when a
 * core runs dense or many cores interleave. */
#define BUCKET_TICKS 64u
#define NBUCKETS 2048u
#define WINDOW_TICKS ((uint64_t)BUCKET_TICKS * NBUCKETS)
#define CORE_PENDING_MAX (1u << 16)
#define PENDING_MAX (1u << 17)

#define EMIT_INITIAL { \
	.opt = { .dir = NULL, .from = 0, .to = UINT64_MAX, .flags = 1 }, \
	.mhz = 1850, \
	.code_json_max = 2, \
}
struct emit emit = EMIT_INITIAL;

static struct wr *trace_w;
static struct wr *json_w;           /* DIR/trace.json, filled at the end */
static struct core **cores;
static size_t ncores, cores_cap;

/* ---- options ---- */

static struct cli_range *core_ids;
static size_t ncore_ids;

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: timeline-emit [options] [FILE...]\n"
	        "Draw instruction records (from instr-parse) as the simulator's timelines.\n"
	        "  -o DIR             write DIR/trace.json (all cores), DIR/<core>/trace.json,\n"
	        "                     DIR/<core>/<core>_instr_exe.csv, <core>_code_exe.csv,\n"
	        "                     DIR/visualize_data.bin (for MindStudio Insight) and\n"
	        "                     print the summary; without -o (or -o -) only the\n"
	        "                     all-cores trace.json, to standard output\n"
	        "  --core-id=LIST     only these cores, by block id: 0|31, 0-2,12-14\n"
	        "  --from=T, --to=T   only events that overlap [from, to]; T in microseconds\n"
	        "                     (12.5) or in ticks with a t suffix (23000t)\n"
	        "  --max-size=SIZE    split a trace larger than SIZE bytes into traces that\n"
	        "                     each open (k, M, G suffixes; default 1G; 0 = never)\n"
	        "  --force            one trace.json however large\n"
	        "  --aic-metrics=LIST the simulator's metrics, comma-separated: PipeUtilization,\n"
	        "                     ResourceConflictRatio (SET/WAIT flags), Overhead (scalar\n"
	        "                     head), PMSampling (MTE bandwidth); default: all but\n"
	        "                     Overhead and PMSampling\n"
	        "  --soc-version=SOC  the SoC, over the stream header's (default: the header's,\n"
	        "                     else %s)\n"
	        "  --report[=N]       print each core's top N (default 10) source lines and\n"
	        "                     instructions by cycles (on stderr without -o DIR)\n"
	        "  -q, -v             fewer / more messages\n"
	        "  -h, --help, --version\n", CHIP_DEFAULT_SOC);
}

static void parse_core_ids(const char *s)
{
	free(core_ids);
	if (cli_core_ids(s, &core_ids, &ncore_ids) < 0)
		cli_die(EXIT_USAGE, "option --core-id: '%s' is not a list of ids and ranges (e.g. 0|31, 0-2,12-14)", s);
}

/* A time bound: microseconds with up to 6 decimals, or ticks ("123t"). */
struct tbound { int set, ticks; uint64_t v; };

static struct tbound parse_time(const char *opt_name, const char *s)
{
	struct tbound b = { 1, 0, 0 };
	const char *p = s;
	uint64_t ip = 0, fp = 0;
	int nd = 0, digits = 0;

	while (*p >= '0' && *p <= '9') {
		if (ip > (UINT64_MAX - 9) / 10)
			goto bad;
		ip = ip * 10 + (unsigned)(*p++ - '0');
		digits++;
	}
	if (*p == 't' && !p[1] && digits) {
		b.ticks = 1;
		b.v = ip;
		return b;
	}
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9') {
			if (nd == 6)
				goto bad;
			fp = fp * 10 + (unsigned)(*p++ - '0');
			nd++;
			digits++;
		}
	}
	if (*p || !digits || ip > UINT64_MAX / 1000000 - 1)
		goto bad;
	while (nd < 6) {
		fp *= 10;
		nd++;
	}
	b.v = ip * 1000000 + fp;
	return b;
bad:
	cli_die(EXIT_USAGE, "option %s: '%s' is not a time (microseconds like 12.5, up to 6 decimals, "
	        "or ticks like 23000t)", opt_name, s);
}

static uint64_t parse_size(const char *s)
{
	const char *p = s;
	uint64_t v = 0, mult = 1;
	if (!*p)
		goto bad;
	while (*p >= '0' && *p <= '9') {
		if (v > (UINT64_MAX - 9) / 10)
			goto bad;
		v = v * 10 + (unsigned)(*p++ - '0');
	}
	if (p == s)
		goto bad;
	switch (*p) {
	case 0: break;
	case 'k': case 'K': mult = 1ull << 10; p++; break;
	case 'm': case 'M': mult = 1ull << 20; p++; break;
	case 'g': case 'G': mult = 1ull << 30; p++; break;
	default: goto bad;
	}
	if (*p == 'B' || *p == 'b')
		p++;
	if (*p || (v && mult > UINT64_MAX / v))
		goto bad;
	return v * mult;
bad:
	cli_die(EXIT_USAGE, "option --max-size: '%s' is not a size (bytes, or with k, M, G)", s);
}

static uint64_t env_size(const char *name, uint64_t dflt)
{
	const char *v = getenv(name);
	char *end;
	unsigned long long x;
	if (!v || !*v)
		return dflt;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end)
		cli_die(EXIT_USAGE, "%s=%s: not a number of bytes", name, v);
	return x;
}

static char notes[4096];
static size_t notes_n;

/* A line for stderr and for the summary. */
static void note_both(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note_both(const char *fmt, ...)
{
	va_list ap;
	char line[1024];
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	cli_warn("%s", line);
	if (notes_n + strlen(line) + 2 < sizeof notes)
		notes_n += (size_t)snprintf(notes + notes_n, sizeof notes - notes_n, "%s\n", line);
	emit.notes = notes;
}

static void mib(char *buf, size_t n, uint64_t bytes)
{
	if (bytes < 1 << 20)
		snprintf(buf, n, "%llu bytes", (unsigned long long)bytes);
	else
		snprintf(buf, n, "%.1f MiB", (double)bytes / (1 << 20));
}

/* --aic-metrics, as the simulator takes it: names separated by commas, any
 * case, empty names dropped; an explicit list turns off what it does not
 * name (so PipeUtilization alone hides the SET/WAIT flags), an empty value
 * keeps the default.  Each name is for some chips only. */
enum { MET_PIPE = 1, MET_RCR = 2, MET_PMS = 4, MET_OVERHEAD = 8 };
static const struct metric {
	const char *name;       /* lower case */
	unsigned bit;
	unsigned families;      /* 1 << enum chip_family */
} metrics[] = {
	{ "pipeutilization", MET_PIPE, ~0u },
	{ "resourceconflictratio", MET_RCR,
	  1u << CHIP_A2 | 1u << CHIP_A3 | 1u << CHIP_310P | 1u << CHIP_A5 },
	{ "pmsampling", MET_PMS, 1u << CHIP_A2 | 1u << CHIP_A3 | 1u << CHIP_A5 },
	{ "overhead", MET_OVERHEAD, 1u << CHIP_A2 | 1u << CHIP_A3 },
};
static const char *const board_metrics[] = {
	"arithmeticutilization", "l2cache", "memory", "memoryl0", "memoryub", "default", "kernelscale",
	"occupancy", "timelinedetail", "roofline", "pipetimeline", "instrtimeline", "pcsampling",
	"basicinfo", "source", "memorydetail",
};
static unsigned metrics_on = MET_PIPE | MET_RCR, metrics_given;

static void parse_metrics(const char *s)
{
	const char *p = s;
	if (strlen(s) > 200)
		cli_die(EXIT_USAGE, "option --aic-metrics: longer than 200 characters");
	if (!*s)
		return;
	metrics_on = 0;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p), i;
		char low[32];
		int known = 0;
		if (n) {
			for (i = 0; i < n && i < sizeof low - 1; i++)
				low[i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] - 'A' + 'a' : p[i]);
			low[i] = 0;
			for (i = 0; n < sizeof low && i < sizeof metrics / sizeof metrics[0]; i++)
				if (!strcmp(low, metrics[i].name)) {
					metrics_on |= metrics[i].bit;
					metrics_given |= metrics[i].bit;
					known = 1;
				}
			for (i = 0; !known && n < sizeof low && i < sizeof board_metrics / sizeof board_metrics[0]; i++)
				if (!strcmp(low, board_metrics[i]))
					cli_die(EXIT_USAGE, "option --aic-metrics: '%.*s' is not a simulator metric (the "
					        "simulator takes PipeUtilization, ResourceConflictRatio, PMSampling, Overhead)",
					        (int)n, p);
			if (!known)
				cli_die(EXIT_USAGE, "option --aic-metrics: unknown metric '%.*s' (the simulator takes "
				        "PipeUtilization, ResourceConflictRatio, PMSampling, Overhead)", (int)n, p);
		}
		p += n;
		if (*p)
			p++;
	}
}

/* Every metric named must be one the chip has, as the simulator checks. */
static const char *metrics_refused(enum chip_family f)
{
	size_t i;
	for (i = 0; i < sizeof metrics / sizeof metrics[0]; i++)
		if ((metrics_given & metrics[i].bit) && !(metrics[i].families >> f & 1))
			return metrics[i].name;
	return NULL;
}

/* ---- cores ---- */

static int logical_names;
static uint64_t arrivals;

void core_lanes(struct core *c)
{
	uint32_t n, cap = c->nlane_alloc, i;
	/* A core's first record may be a mark: no pipe interned yet. */
	lanes_init();
	n = (uint32_t)emit.nlanes;
	if (n <= cap)
		return;
	while (cap < n)
		cap = cap ? 2 * cap : 32;
	c->lane = xrealloc(c->lane, cap * sizeof *c->lane);
	c->pipes = xrealloc(c->pipes, cap * sizeof *c->pipes);
	if (c->out) {
		c->sub = xrealloc(c->sub, cap * sizeof *c->sub);
		c->sub_end = xrealloc(c->sub_end, cap * sizeof *c->sub_end);
	}
	for (i = c->nlane_alloc; i < cap; i++) {
		c->lane[i].end = 0;
		c->lane[i].seen = 0;
		memset(&c->pipes[i], 0, sizeof c->pipes[i]);
		if (c->out) {
			memset(&c->sub[i], 0, sizeof c->sub[i]);
			c->sub_end[i] = 0;
		}
	}
	c->nlane_alloc = cap;
}

/* process_sort_index: 3N+2+M for coreN.veccoreM, 3N+1 for the rest. */
static int sort_index_of(const char *name)
{
	unsigned long n = 0, m = 0;
	const char *v;
	if (strncmp(name, "core", 4))
		return 0;
	n = strtoul(name + 4, NULL, 10);
	v = strstr(name, "veccore");
	if (!v)
		return (int)(3 * n + 1);
	m = strtoul(v + 7, NULL, 10);
	return (int)(3 * n + 2 + m);
}

static int selected(unsigned long long id)
{
	size_t i;
	if (!ncore_ids)
		return 1;
	for (i = 0; i < ncore_ids; i++)
		if (id >= core_ids[i].lo && id <= core_ids[i].hi)
			return 1;
	return 0;
}

/* Instruction and mark records open with the same five core fields. */
_Static_assert((int)I_CORE == (int)M_CORE && (int)I_SUBTYPE == (int)M_SUBTYPE && (int)I_SUBIDX == (int)M_SUBIDX &&
               (int)I_BLOCK == (int)M_BLOCK && (int)I_SUBBLOCK == (int)M_SUBBLOCK, "core fields differ");

static struct core *last;        /* core_for's last answer */

static struct core *core_for(const struct rec *r)
{
	uint32_t phys = (uint32_t)r->n[I_CORE].u, st = (uint32_t)r->n[I_SUBTYPE].u, si = (uint32_t)r->n[I_SUBIDX].u;
	int block = (int32_t)r->n[I_BLOCK].i, subblock = (int32_t)r->n[I_SUBBLOCK].i;
	struct core *c;
	size_t i;

	if (last && last->phys == phys && last->subtype == st && last->subidx == si)
		return last;
	for (i = 0; i < ncores; i++)
		if (cores[i]->phys == phys && cores[i]->subtype == st && cores[i]->subidx == si)
			return last = cores[i];

	c = xcalloc(1, sizeof *c);
	c->phys = phys;
	c->subtype = st;
	c->subidx = si;
	/* Logical names (A2/A3) once the block id is known: the reference
	 * names directories and pids core<block>.veccore<subblock>. */
	if (logical_names && block >= 0 && st == SUB_VEC && subblock >= 0)
		snprintf(c->name, sizeof c->name, "core%d.veccore%d", block, subblock);
	else if (logical_names && block >= 0 && st == SUB_CUBE)
		snprintf(c->name, sizeof c->name, "core%d.cubecore%u", block, si);
	else
		rec_core_name(c->name, phys, st, si);
	for (i = 0; i < ncores; i++)
		if (!strcmp(cores[i]->name, c->name)) {
			char phys_name[48];
			rec_core_name(phys_name, phys, st, si);
			cli_warn("%s: logical name already taken by another core; using the physical name %s",
			         c->name, phys_name);
			memcpy(c->name, phys_name, sizeof phys_name);
			break;
		}
	c->name_n = strlen(c->name);
	c->pid_json_n = (size_t)(jw_str(c->pid_json, c->name, c->name_n) - c->pid_json);
	c->sort_index = sort_index_of(c->name);
	/* --core-id is the logical block id on A2/A3 (0 until a BLOCKID read
	 * is seen, as in the reference), the physical core number elsewhere. */
	c->selected = selected(logical_names ? (unsigned long long)(block >= 0 ? block : 0) : phys);
	c->min_start = UINT64_MAX;
	ival_init(&c->busy, 1024);
	if (ncores == cores_cap) {
		cores_cap = cores_cap ? 2 * cores_cap : 16;
		cores = xrealloc(cores, cores_cap * sizeof *cores);
	}
	cores[ncores++] = c;
	if (c->selected) {
		if (emit.opt.dir) {
			if (stage_check_core(c->name) < 0)
				cli_die(EXIT_IO, "%s/%s: exists and is not a directory (a symbolic link is not followed)",
				        stage_final(), c->name);
			sub_open(c);
		}
		core_lanes(c);
		trace_core_meta(c);
	}
	if (cli_verbosity >= 2)
		cli_note("%s: %s", c->name, c->selected ? "new core" : "new core, not selected");
	return last = c;
}

/* ---- the reorder window ---- */

struct slotrec {
	uint64_t start, end, pc, icache, ccu;
	int64_t bytes;
	double vec;
	int32_t warp, sch, gpr, ubr, ubw;
	int lane;
	uint32_t name_n, detail_n, cap;
	/* After the detail in text, from the record's sync fields: a SET/WAIT
	 * flag's Source text "<pipe> ID:<flag>", or an intra-block flag's
	 * pipe (with its id in sid); 0 bytes when the record has none. */
	uint32_t aux_n;
	unsigned long long sid;
	uint32_t next;              /* the next in its bucket, + 1 */
	uint64_t seq;               /* arrival, to keep ties in order */
	char *text;                 /* name then detail, reused */
};
static struct slotrec *pool;
static uint32_t npool, pool_cap, *free_slots, nfree;
static uint64_t pending, total_late;

static uint32_t slot_get(void)
{
	if (nfree)
		return free_slots[--nfree];
	if (npool == pool_cap) {
		pool_cap = pool_cap ? 2 * pool_cap : 1024;
		pool = xrealloc(pool, pool_cap * sizeof *pool);
		free_slots = xrealloc(free_slots, pool_cap * sizeof *free_slots);
	}
	memset(&pool[npool], 0, sizeof pool[npool]);
	return npool++;
}

/* ---- drawing one record ---- */

static int flag_kind(const char *name, size_t n)
{
	int k;
	/* Every record asks: most names fail on the first byte. */
	if (n < 8 || n > 17 || (name[0] != 'S' && name[0] != 'W' && name[0] != 's' && name[0] != 'w'))
		return -1;
	for (k = 0; k < FN_N; k++)
		if (strlen(flag_names[k]) == n && !memcmp(flag_names[k], name, n))
			return k;
	return -1;
}

static void process(struct core *c, struct slotrec *s)
{
	const char *name = s->text, *detail = s->text + s->name_n;
	size_t nn = s->name_n, dn = s->detail_n;
	int lane = s->lane, fk = flag_kind(name, nn);
	int simt = s->warp != -1 && s->sch != -1, cache = lane == LANE_CACHEMISS;
	int kept = !(s->end < emit.opt.from || s->start > emit.opt.to);
	int bar = nn == 3 && !memcmp(name, "BAR", 3);
	int wlane = simt ? lane_warp(s->warp) : lane, ilane = -1;
	const char *aux = detail + dn;
	struct flag f;

	if (c->processed_any && (s->end < c->last_end || (s->end == c->last_end && s->pc < c->last_pc))) {
		c->late++;
		total_late++;
	} else {
		c->last_end = s->end;
		c->last_pc = s->pc;
	}
	c->processed_any = 1;
	if (fk >= FN_SET_INTRA && s->aux_n)
		ilane = lane_intern(aux, s->aux_n);
	core_lanes(c);

	if (cache) {
		c->ncache++;
	} else if (kept) {
		struct calcv k = { s->bytes, s->vec, s->gpr, s->ubr, s->ubw, s->icache, s->ccu };
		stats_take(c, lane, name, nn, detail, dn, fk >= 0 && fk < FN_SET_INTRA && s->aux_n ? aux : NULL,
		           s->aux_n, s->start, s->end, s->pc, &k, 0);
		c->nsimt += simt;
	}

	memset(&f, 0, sizeof f);
	f.core = c;
	f.start = s->start;
	f.end = s->end;
	f.pc = s->pc;
	f.icache = s->icache;
	f.ccu = s->ccu;
	f.sub_pid = f.sub_tid = f.sub_lane = -1;
	f.name = (unsigned char)(fk < 0 ? 0 : fk);
	f.kept = (unsigned char)kept;

	if (c->out) {
		/* The per-core trace: its own WAIT clipping, by every
		 * instruction of the (remapped) pipe. */
		int sl = cache ? LANE_CACHEMISS : simt ? wlane : sub_lane_of(lane, detail, dn);
		uint64_t ps = s->start, pe = s->end, ts, te;
		const char *cname = simt ? cname_simt(name, nn) : emit.lanes[sl].cname;
		if (!simt && !cache) {
			uint64_t prev = c->sub_end[sl];
			if ((fk == FN_WAIT_FLAG || fk == FN_WAIT_EVENT) && prev && ps < prev - 1 && pe > prev - 1)
				ps = prev - 1;
			if (pe + 1 > prev)
				c->sub_end[sl] = pe + 1;
		}
		if (bar)
			ps = pe >= 1 ? pe - 1 : 0;
		ts = ps;
		te = pe;
		if (fk == FN_SET_FLAG || fk == FN_SET_EVENT) {
			ts = pe >= 1 ? pe - 1 : 0;
			cname = "black";
		} else if (fk == FN_WAIT_FLAG || fk == FN_WAIT_EVENT) {
			cname = "yellow";
		}
		if (kept) {
			/* Scalar head: not on BAR, cache misses, SET flags, warps. */
			int head = !bar && !cache && !simt && fk != FN_SET_FLAG && fk != FN_SET_EVENT;
			/* A SET/WAIT pair needs both threads for its flow: those
			 * slices are drawn at once (warps' slices always are). */
			int hold = !simt && (fk < 0 || fk >= FN_SET_INTRA);
			f.sub_tid = sub_slice(c, sl, name, nn, cname, detail, dn, bar ? s->start : ps, ps, pe, ts, te,
			                      s->pc, s->bytes, s->icache, s->ccu, head, hold);
			f.sub_pid = emit.lanes[sl].sub_pid;
			f.sub_lane = sl;
		}
	}

	if (cache) {
		if (kept)
			trace_slice(c, LANE_CACHEMISS, name, nn, detail, dn, s->start, s->end, s->pc, s->bytes,
			            REC_NONE, REC_NONE, 0);
		return;
	}
	if (fk >= 0 && fk <= FN_WAIT_EVENT) {
		f.lane = lane;
		if (FN_IS_WAIT(fk)) {
			/* WAIT clipping (see optrace-vdata(5), TRACE.JSON (ALL
			 * CORES), Flags): a wait that began before the
			 * pipe's last ordinary slice ended is drawn from there. */
			uint64_t prev = c->lane[lane].end;
			f.begin = s->start;
			if (prev && s->start < prev - 1 && s->end > prev - 1)
				f.begin = prev - 1;
		} else {
			f.begin = s->end >= 1 ? s->end - 1 : 0;
		}
		flags_take(c, &f, detail, dn);
		return;
	}
	if (ilane >= 0) {
		/* Drawn on the pipe its detail names, paired across sub-cores. */
		f.lane = ilane;
		f.begin = s->start;
		flags_intra(c, &f, detail, dn, s->sid);
		return;
	}
	if (s->end + 1 > c->lane[lane].end)
		c->lane[lane].end = s->end + 1;
	if (kept)
		trace_slice(c, wlane, name, nn, detail, dn, s->start, s->end, s->pc, s->bytes, s->icache, s->ccu, simt);
}

static uint32_t *sorted;
static uint32_t sorted_cap;

static int slot_less(uint32_t a, uint32_t b)
{
	return pool[a].end < pool[b].end || (pool[a].end == pool[b].end && pool[a].pc < pool[b].pc);
}

static int slot_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	if (slot_less(a, b))
		return -1;
	if (slot_less(b, a))
		return 1;
	return pool[a].seq < pool[b].seq ? -1 : pool[a].seq > pool[b].seq;
}

/* Draw the oldest bucket in (end, pc) order, equal keys in arrival order,
 * and move the window on. */
static void drain_bucket(struct core *c)
{
	uint32_t b = (uint32_t)(c->base / BUCKET_TICKS % NBUCKETS), n = 0, i, s;

	for (s = c->ring[b]; s; s = pool[s - 1].next) {
		if (n == sorted_cap) {
			sorted_cap = sorted_cap ? 2 * sorted_cap : 256;
			sorted = xrealloc(sorted, sorted_cap * sizeof *sorted);
		}
		sorted[n++] = s - 1;
	}
	/* The bucket is a stack: newest first. */
	for (i = 0; i < n / 2; i++) {
		uint32_t t = sorted[i];
		sorted[i] = sorted[n - 1 - i];
		sorted[n - 1 - i] = t;
	}
	c->ring[b] = 0;
	c->base += BUCKET_TICKS;
	if (!n)
		return;
	if (n <= 32) {
		for (i = 1; i < n; i++) {
			uint32_t v = sorted[i], k = i;
			while (k && slot_less(v, sorted[k - 1])) {
				sorted[k] = sorted[k - 1];
				k--;
			}
			sorted[k] = v;
		}
	} else {
		qsort(sorted, n, sizeof *sorted, slot_cmp);
	}
	c->npend -= n;
	pending -= n;
	for (i = 0; i < n; i++) {
		process(c, &pool[sorted[i]]);
		free_slots[nfree++] = sorted[i];
	}
}

static void drain_all(struct core *c)
{
	while (c->npend)
		drain_bucket(c);
}

/* The sync fields (see optrace-records(5)) of a flag record of kind fk, as
 * process wants them: the bytes sync_aux will write, 0 when the record does
 * not carry what its kind needs.  A SET/WAIT flag of the chip's own names
 * with both pipes and a flag id gets its Source text: the pipe it waits
 * for (a SET's consumer, a WAIT's producer) and " ID:" and the flag id.
 * An intra-block flag with a pipe and a numeric id gets the pipe. */
static size_t sync_aux_len(int fk, const struct rec *r)
{
	const struct rec_text *prod = &r->s[IS_PROD], *cons = &r->s[IS_CONS], *flag = &r->s[IS_FLAG];
	if (fk >= FN_SET_INTRA)
		return prod->n && flag->n && flag->p[0] >= '0' && flag->p[0] <= '9' ? prod->n : 0;
	if (emit.is_310p != (fk == FN_SET_EVENT || fk == FN_WAIT_EVENT) || !prod->n || !cons->n || !flag->n)
		return 0;
	return (FN_IS_WAIT(fk) ? prod->n : cons->n) + 4 + flag->n;
}

/* Write what sync_aux_len counted into buf; returns an intra-block flag's
 * id (its first 10 digits), else 0. */
static unsigned long long sync_aux(int fk, const struct rec *r, char *buf)
{
	const struct rec_text *prod = &r->s[IS_PROD], *flag = &r->s[IS_FLAG];
	const struct rec_text *pipe = FN_IS_WAIT(fk) ? prod : &r->s[IS_CONS];
	unsigned long long v = 0;
	size_t k;
	if (fk >= FN_SET_INTRA) {
		memcpy(buf, prod->p, prod->n);
		for (k = 0; k < 10 && k < flag->n && flag->p[k] >= '0' && flag->p[k] <= '9'; k++)
			v = v * 10 + (unsigned)(flag->p[k] - '0');
		return v;
	}
	memcpy(buf, pipe->p, pipe->n);
	memcpy(buf + pipe->n, " ID:", 4);
	memcpy(buf + pipe->n + 4, flag->p, flag->n);
	return 0;
}

static void take_instr(const struct rec *r)
{
	struct core *c = core_for(r);
	struct slotrec *s;
	uint32_t slot;
	size_t nn = r->s[IS_NAME].n, dn = r->s[IS_DETAIL].n, an = 0;
	uint64_t end = r->n[I_END].u;
	int fk;

	if (!c->selected)
		return;
	fk = flag_kind(r->s[IS_NAME].p, nn);
	/* Without ResourceConflictRatio the simulator flow leaves SET/WAIT
	 * flags out altogether (traces, CSVs, counts). */
	if (!emit.opt.flags && fk >= 0 && fk <= FN_WAIT_EVENT)
		return;
	slot = slot_get();
	s = &pool[slot];
	s->start = r->n[I_START].u;
	s->end = end;
	s->pc = r->n[I_PC].u;
	/* The scalar head is drawn and counted only with Overhead. */
	s->icache = emit.opt.overhead ? r->n[I_ICACHE].u : REC_NONE;
	s->ccu = emit.opt.overhead ? r->n[I_CCU].u : REC_NONE;
	s->bytes = r->n[I_BYTES].i;
	s->vec = r->n[I_VECUTIL].f;
	s->gpr = (int32_t)r->n[I_GPR].i;
	s->ubr = (int32_t)r->n[I_UBREAD].i;
	s->ubw = (int32_t)r->n[I_UBWRITE].i;
	s->warp = (int32_t)r->n[I_WARP].i;
	s->sch = (int32_t)r->n[I_SCH].i;
	s->lane = r->s[IS_PIPE].n ? lane_intern(r->s[IS_PIPE].p, r->s[IS_PIPE].n) : LANE_ALL;
	if (fk >= 0)
		an = sync_aux_len(fk, r);
	if (nn + dn + an > s->cap) {
		/* Slots are reused: this grows only for the longest texts. */
		s->cap = (uint32_t)(nn + dn + an < 128 ? 128 : 2 * (nn + dn + an));
		free(s->text);
		s->text = xmalloc(s->cap);
	}
	/* A record may have neither name nor detail: no text, maybe no buffer. */
	if (nn)
		memcpy(s->text, r->s[IS_NAME].p, nn);
	if (dn)
		memcpy(s->text + nn, r->s[IS_DETAIL].p, dn);
	s->name_n = (uint32_t)nn;
	s->detail_n = (uint32_t)dn;
	s->aux_n = (uint32_t)an;
	if (an)
		s->sid = sync_aux(fk, r, s->text + nn + dn);
	c->active = ++arrivals;
	s->seq = arrivals;

	if (!c->ring) {
		/* The first record opens the window at its top: records that
		 * come after it may still be older by a whole window. */
		c->ring = xcalloc(NBUCKETS, sizeof *c->ring);
		c->base = end / BUCKET_TICKS >= NBUCKETS - 1 ? (end / BUCKET_TICKS - (NBUCKETS - 1)) * BUCKET_TICKS : 0;
	}
	if (end < c->base) {
		/* Its bucket has been drawn: too late for the window. */
		process(c, s);
		free_slots[nfree++] = slot;
		return;
	}
	while (end - c->base >= WINDOW_TICKS) {
		if (!c->npend) {
			/* Nothing held: jump, however far the ticks went. */
			c->base = (end / BUCKET_TICKS - (NBUCKETS - 1)) * BUCKET_TICKS;
			break;
		}
		drain_bucket(c);
	}
	{
		uint32_t b = (uint32_t)(end / BUCKET_TICKS % NBUCKETS);
		s->next = c->ring[b];
		c->ring[b] = slot + 1;
	}
	c->npend++;
	pending++;
	while (c->npend > CORE_PENDING_MAX)
		drain_bucket(c);
	if (pending > PENDING_MAX) {
		/* Too much held over all: the core that has waited longest for
		 * more records is the one least likely to get any. */
		size_t i;
		struct core *old = NULL;
		for (i = 0; i < ncores; i++)
			if (cores[i]->npend && (!old || cores[i]->active < old->active))
				old = cores[i];
		if (old)
			drain_all(old);
	}
}

static void take_mark(const struct rec *r)
{
	struct core *c = core_for(r);
	uint64_t start = r->n[M_START].u, end = r->n[M_END].u;
	const char *name = r->s[MS_NAME].p;
	size_t nn = r->s[MS_NAME].n;

	if (!c->selected)
		return;
	c->nmarks++;
	if (end < emit.opt.from || start > emit.opt.to)
		return;
	stats_take(c, LANE_USERMARK, name, nn, r->s[MS_DETAIL].p, r->s[MS_DETAIL].n, NULL, 0, start, end,
	           r->n[M_STARTPC].u, &calc_none, 1);
	trace_mark(c, name, nn, start, end, r->n[M_STARTPC].u, r->n[M_ENDPC].u);
	if (c->out)
		sub_mark(c, (unsigned)(r->n[M_MARK].u % 10), name, nn, start, end, r->n[M_STARTPC].u,
		         r->n[M_ENDPC].u);
}

/* ---- the run ----
 *
 * The shared record runtime (filter.h, as a sink) reads the inputs,
 * absorbs the headers and trailers and counts bad records; the hooks below
 * are the phases of the run: start (the chip is known: open the outputs),
 * record, drain (the input is over: close every JSON document), finish
 * (move the files into place) and report (the summary and messages). */

static struct tbound from_b, to_b;
static const char *out_arg;         /* -o as given */
static const char *input_name;      /* the one input's name, NULL for several */
static unsigned report_top;
/* The viewers' limits: chrome://tracing reads about 500 MB of JSON,
 * MindStudio Insight 1 GiB (see options for the environment). */
static uint64_t warn_limit, split_limit;
static uint64_t known, unknown, instrs, trace_bytes;
static int trace_sealed;            /* the all-cores document is closed */
static int trace_epipe;             /* its reader went away: a quiet end */

enum { LOSS_BAD };
static const struct loss_kind loss_kinds[] = {
	{ "bad records skipped", 1, 1 },
};

/* A trace on standard output has been streamed as it was drawn: whatever
 * exit ends the run, leave it a whole JSON document. */
static void trace_stdout_close(void *unused)
{
	(void)unused;
	cli_cleanup_remove(trace_stdout_close, NULL);
	if (!trace_sealed) {
		json_close_all(&emit.trace);
		wr_putc(trace_w, '\n');
		trace_sealed = 1;
	}
	wr_close(trace_w);
	trace_w = NULL;
}

/* The file the all-cores trace is drawn into, for messages: with -o DIR
 * it is visualize_data.bin's trace block (written once; trace.json is made
 * from it at the end), else standard output. */
static const char *trace_file(void)
{
	return emit.opt.dir ? "/visualize_data.bin" : "";
}

/* The all-cores trace: the TRACE block of DIR/visualize_data.bin in the
 * staging directory, or standard output. */
static void open_trace(void)
{
	if (emit.opt.dir) {
		char *path;
		if (stage_begin(out_arg, "timeline-emit") < 0)
			cli_die(EXIT_IO, errno == ENOTDIR ? "%s: not a directory" : "%s: cannot create:", out_arg);
		emit.opt.dir = stage_dir();
		/* Both on the exit-time cleanup list until closed (io.c).
		 * trace.json is created now, so that a set that cannot be
		 * made fails before the run, not after it. */
		path = xmalloc(strlen(emit.opt.dir) + 16);
		sprintf(path, "%s/trace.json", emit.opt.dir);
		json_w = wr_open(path, 0);
		int e = errno;
		free(path);
		errno = e;
		if (!json_w)
			cli_die(EXIT_IO, "%s/trace.json: cannot create:", stage_final());
		trace_w = vis_begin();
		if (!trace_w)
			cli_die(EXIT_IO, "%s/visualize_data.bin: cannot create:", stage_final());
	} else {
		trace_w = wr_fdopen(1, "(stdout)", 0);
		if (!trace_w)
			xnomem();
		cli_cleanup_add(trace_stdout_close, NULL);
	}
	json_init(&emit.trace, trace_w);
	trace_begin();
}

/* The clock and chip are known: the stream's header has been read. */
static void run_start(struct filter *f, const struct chip *ch)
{
	if (ch->family != CHIP_UNKNOWN && metrics_refused(ch->family))
		cli_die(EXIT_USAGE, "option --aic-metrics: %s is not available on %s (the stream's chip)",
		        metrics_refused(ch->family), ch->soc);
	/* The header's clock goes with the header's SoC. */
	emit.mhz = !f->soc && f->up.mhz ? f->up.mhz : ch->mhz;
	logical_names = ch->family == CHIP_A2 || ch->family == CHIP_A3;
	emit.is_310p = ch->family == CHIP_310P;
	if (from_b.set)
		emit.opt.from = from_b.ticks ? from_b.v : us6_ticks(from_b.v, emit.mhz, 1);
	if (to_b.set)
		emit.opt.to = to_b.ticks ? to_b.v : us6_ticks(to_b.v, emit.mhz, 0);
	if (cli_verbosity >= 2)
		cli_note("%s, %u MHz%s", ch->soc, emit.mhz, logical_names ? ", logical core names" : "");
	open_trace();
}

/* Every record but headers, trailers and bad ones. */
static int run_record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)line;
	(void)len;
	if (k == DEC_UNKNOWN) {
		unknown++;      /* a sink: kinds it does not know are not its business */
		return 1;
	}
	known++;
	switch (r->sc->kind) {
	case K_INSTR:
		instrs++;
		take_instr(r);
		break;
	case K_MARK:
		take_mark(r);
		break;
	case K_CODE:
		code_take(r);
		break;
	case K_MTEBW:
		/* Buckets are whole microseconds: the window, in ticks,
		 * selects the buckets it overlaps. */
		if (emit.opt.pmsampling && r->n[W_BUCKET].u * emit.mhz + emit.mhz - 1 >= emit.opt.from &&
		    r->n[W_BUCKET].u * emit.mhz <= emit.opt.to)
			trace_mte(r);
		break;
	default:
		break;
	}
	if (wr_error(trace_w))
		f->stop = 1;
	return 1;
}

/* Why the timelines stop short, if they do: every trace says so. */
static void mark_truncated(struct filter *f)
{
	static char why[400];
	const char *r[4];
	int nr = 0, k;
	size_t i, len = 0;
	uint64_t last = 0;

	if (cli_interrupted)
		r[nr++] = "timeline-emit was interrupted (SIGINT/SIGTERM) before the end of its input";
	if (f->up.interrupted)
		r[nr++] = "the producer upstream was interrupted (its trailer says so)";
	if (!f->up.trailer && !cli_interrupted && !f->read_failed)
		r[nr++] = "the input ended without a trailer record (cut short upstream)";
	if (f->read_failed)
		r[nr++] = "a read error ended the input";
	if (!nr)
		return;
	for (k = 0; k < nr; k++)
		len += (size_t)snprintf(why + len, sizeof why - len, "%s%s", k ? "; " : "", r[k]);
	emit.truncated = why;
	trace_truncated(why);
	for (i = 0; i < ncores; i++)
		if (cores[i]->max_end_i > last)
			last = cores[i]->max_end_i;
	for (i = 0; i < ncores; i++)
		if (cores[i]->out)
			sub_truncated(cores[i], why, cores[i]->ninstr ? cores[i]->max_end_i : last);
}

/* The input is over, read to its end or not: draw what the windows hold
 * and the flags that never found a partner, and close every document. */
static void run_drain(struct filter *f)
{
	size_t i;

	if (!known && !f->up.got_header && !f->up.trailer && !cli_interrupted) {
		/* Not one record: an empty input, or not a record stream.
		 * The exit removes what was begun. */
		const char *name = input_name ? input_name : "the input";
		if (f->read_failed)
			exit(EXIT_IO);  /* an I/O error, said already naming the file */
		if (f->ls->count[LOSS_BAD] || unknown)
			cli_die(EXIT_UNUSABLE, "%s: not an optrace record stream (no record of a known kind); "
			        "nothing written", name);
		cli_die(EXIT_UNUSABLE, "%s: no records (an empty input: did the stream upstream fail?); "
		        "nothing written", name);
	}
	if (wr_error(trace_w) == EPIPE) {
		/* The reader of the trace went away: nothing more to do. */
		trace_epipe = 1;
		return;
	}
	if (wr_error(trace_w)) {
		errno = wr_error(trace_w);
		cli_die(EXIT_IO, "%s%s: cannot write:", emit.opt.dir ? stage_final() : "(stdout)", trace_file());
	}
	for (i = 0; i < ncores; i++)
		drain_all(cores[i]);
	for (i = 0; i < ncores; i++)
		flags_finish_core(cores[i]);
	flags_finish_intra();
	mark_truncated(f);
	trace_end();
	wr_putc(trace_w, '\n');
	trace_sealed = 1;
	for (i = 0; i < ncores; i++)
		if (cores[i]->out)
			sub_seal(cores[i]);
	trace_bytes = emit.trace.bytes + 1;
}

/* DIR/trace.json: the len bytes of visualize_data.bin's trace block from
 * off, copied in the kernel where the filesystem can (lib/io.h,
 * wr_copy_from).  0 or an errno. */
static int trace_json_copy(const char *vis, uint64_t off, uint64_t len)
{
	struct wr *w = json_w;
	int fd = open(vis, O_RDONLY | O_CLOEXEC), err;

	json_w = NULL;
	if (fd < 0) {
		err = errno;
		wr_abort(w);
		return err;
	}
	if ((err = wr_copy_from(w, fd, off, len)))
		wr_abort(w);
	else
		err = wr_close(w);
	close(fd);
	return err;
}

/* The all-cores trace.json from visualize_data.bin's trace block, or the
 * traces it is split into. */
static void split_all(uint64_t limit, uint64_t warn, uint64_t bytes)
{
	char *path = xmalloc(strlen(emit.opt.dir) + 64), **names;
	char a[32], b[32];
	size_t n, k;
	int err;

	mib(a, sizeof a, bytes);
	mib(b, sizeof b, limit);
	sprintf(path, "%s/visualize_data.bin", emit.opt.dir);
	if (limit && bytes > limit) {
		wr_abort(json_w);
		json_w = NULL;
		err = split_trace(path, VIS_TRACE_OFF, bytes, emit.opt.dir, 1, limit, &names, &n);
		if (err) {
			errno = err;
			cli_die(EXIT_IO, "%s/trace.json: cannot split:", stage_final());
		}
		note_both("WARNING: trace.json would be %s, past the %s a viewer opens (MindStudio Insight: 1 GiB): "
		          "written as %zu traces instead (--force: one file), by block and time, next to it:", a, b, n);
		for (k = 0; k < n; k++) {
			note_both("  %s", names[k]);
			free(names[k]);
		}
		free(names);
	} else {
		err = trace_json_copy(path, VIS_TRACE_OFF, bytes);
		if (err) {
			errno = err;
			cli_die(EXIT_IO, "%s/trace.json: cannot write:", stage_final());
		}
		if (bytes > warn)
			note_both("WARNING: trace.json is %s: chrome://tracing opens about 500 MB (MindStudio Insight "
			          "and Perfetto open it); narrow it with --core-id or --from/--to", a);
	}
	free(path);
}

/* The per-core traces that are too large, split. */
static void split_cores(uint64_t limit)
{
	char *path = xmalloc(strlen(emit.opt.dir) + 64), **names;
	char a[32];
	size_t n, k;
	int err;
	uint64_t cut;

	for (k = 0; k < ncores; k++) {
		struct core *c = cores[k];
		struct stat st;
		if (!c->out || !limit)
			continue;
		sprintf(path, "%s/%s/trace.json", emit.opt.dir, c->name);
		if (stat(path, &st) < 0 || (uint64_t)st.st_size <= limit)
			continue;
		cut = split_flows_cut();
		{
			char *d = xmalloc(strlen(emit.opt.dir) + c->name_n + 2);
			sprintf(d, "%s/%s", emit.opt.dir, c->name);
			err = split_trace(path, 0, UINT64_MAX, d, 0, limit, &names, &n);
			free(d);
		}
		if (!err) {
			size_t j;
			if (unlink(path) < 0)
				err = errno;
			mib(a, sizeof a, (uint64_t)st.st_size);
			note_both("WARNING: %s/trace.json would be %s: written as %zu traces by time, %s/%s/trace.1.json ...",
			          c->name, a, n, stage_final(), c->name);
			if (split_flows_cut() > cut)
				cli_note("%s: %llu flows left out of its split trace: their SET or WAIT went into an "
				         "earlier part", c->name, (unsigned long long)(split_flows_cut() - cut));
			for (j = 0; j < n; j++)
				free(names[j]);
			free(names);
		}
		if (err) {
			errno = err;
			cli_die(EXIT_IO, "%s/%s/trace.json: cannot split:", stage_final(), c->name);
		}
	}
	free(path);
}

/* Why a core's trace deserves a loud warning, or NULL. */
static const char *warn_core(const struct core *c, char *buf, size_t n)
{
	int k, compute = c->nsimt != 0, other = 0;
	size_t len;
	if (!c->ninstr)
		return "the trace is empty: no instructions";
	for (k = 0; (uint32_t)k < c->nlane_alloc && k < emit.nlanes; k++) {
		if (!c->pipes[k].count)
			continue;
		compute |= emit.lanes[k].compute;
		other |= !emit.lanes[k].scalar;
	}
	if (compute)
		return NULL;
	/* Often the sign of zero-filled inputs to a data-dependent kernel. */
	len = (size_t)snprintf(buf, n, "%s (pipes:", other ? "no CUBE or VECTOR work at all" : "the trace is scalar-only");
	for (k = 0; (uint32_t)k < c->nlane_alloc && k < emit.nlanes; k++)
		if (c->pipes[k].count && len + emit.lanes[k].len + 4 < n)
			len += (size_t)snprintf(buf + len, n - len, " %s", emit.lanes[k].name);
	/* Name the usual cause, so that it is checked first. */
	snprintf(buf + len, n - len, "); the usual cause is zero-filled inputs to a data-dependent kernel (a loop "
	         "count or size read from an input tensor was 0): give the application real input data");
	return buf;
}

/* The input was read: close the trace and, with -o DIR, write the CSVs and
 * visualize_data.bin and move the set into place.  Any failure here ends
 * the run with its message; the exit removes the staging directory. */
static int run_finish(struct filter *f)
{
	size_t i;
	int e;

	if (f->up.interrupted)
		f->problems++;          /* the timelines cover what was read */
	if (!emit.opt.dir)
		cli_cleanup_remove(trace_stdout_close, NULL);
	e = emit.opt.dir ? vis_trace_end(trace_bytes) : wr_close(trace_w);
	trace_w = NULL;
	if (e == EPIPE) {
		trace_epipe = 1;
		return 0;
	}
	if (e) {
		errno = e;
		cli_die(EXIT_IO, "%s%s: cannot write:", emit.opt.dir ? stage_final() : "(stdout)", trace_file());
	}
	if (!emit.opt.dir)
		return 1;
	for (i = 0; i < ncores; i++) {
		struct core *k = cores[i];
		if (!k->out)
			continue;
		e = stats_write_csv(k);
		if (e) {
			errno = e;
			cli_die(EXIT_IO, "%s/%s: cannot write:", stage_final(), k->name);
		}
	}
	{
		/* The rest of visualize_data.bin: written even after SIGINT,
		 * complete for what was read. */
		struct core **sel = xmalloc((ncores + 1) * sizeof *sel);
		size_t n = 0;
		const char *what;
		char *failed;
		for (i = 0; i < ncores; i++)
			if (cores[i]->selected)
				sel[n++] = cores[i];
		e = vis_write(sel, n, &what);
		free(sel);
		if (e) {
			errno = e;
			cli_die(EXIT_IO, "%s/visualize_data.bin: %s:", stage_final(), what);
		}
		split_all(split_limit, warn_limit, trace_bytes);
		for (i = 0; i < ncores; i++) {
			struct core *k = cores[i];
			if (k->out && (e = sub_commit(k))) {
				errno = e;
				cli_die(EXIT_IO, "%s/%s: cannot write:", stage_final(), k->name);
			}
		}
		split_cores(split_limit);
		/* Everything is written: now the set becomes visible. */
		e = stage_commit(&failed);
		if (e) {
			errno = e;
			cli_die(EXIT_IO, "%s: cannot move the outputs into place:", failed);
		}
	}
	return 1;
}

/* The summary (on stdout with -o DIR, else beside the trace), the hotspot
 * report, and what the run has to say about its input. */
static void run_report(struct filter *f)
{
	struct core **sel = xmalloc((ncores + 1) * sizeof *sel);
	size_t n = 0, k;
	FILE *out = emit.opt.dir ? stdout : cli_verbosity >= 1 ? stderr : NULL;
	char buf[512];

	if (!emit.opt.dir && (trace_bytes > warn_limit || (split_limit && trace_bytes > split_limit))) {
		char a[32];
		mib(a, sizeof a, trace_bytes);
		note_both("WARNING: the trace is %s: chrome://tracing opens about 500 MB%s; split it with -o DIR, "
		          "or narrow it with --core-id or --from/--to", a,
		          split_limit && trace_bytes > split_limit ? ", MindStudio Insight 1 GiB" : "");
	}
	for (k = 0; k < ncores; k++)
		if (cores[k]->selected)
			sel[n++] = cores[k];
	if (out) {
		stats_summary(sel, n, out);
		cli_flush(out);
	}
	if (report_top) {
		/* Beside the summary; on stderr when the trace is on stdout. */
		FILE *rf = emit.opt.dir ? stdout : stderr;
		code_report(sel, n, report_top, rf);
		cli_flush(rf);
	}
	for (k = 0; k < n; k++) {
		const char *w = warn_core(sel[k], buf, sizeof buf);
		if (w)
			cli_warn("WARNING: %s: %s", sel[k]->name, w);
	}
	if (!n)
		cli_warn("WARNING: no instructions for any%s core in the input", ncore_ids ? " selected" : "");
	free(sel);

	if (total_late)
		cli_note("%llu records arrived after the reorder window had passed them (still drawn; "
		         "their WAIT clipping and thread may differ from the reference's)",
		         (unsigned long long)total_late);
	if (emit.flags_overflow)
		cli_warn("%llu flags drawn without a partner because over %u of one kind were waiting",
		         (unsigned long long)emit.flags_overflow, 1u << 16);
	loss_report(f->ls);
	if (f->up.interrupted)
		cli_warn("the stream upstream was interrupted: the timelines cover what was read");
	if (cli_verbosity >= 2) {
		cli_note("%llu instruction records read", (unsigned long long)instrs);
		for (k = 0; k < ncores; k++)
			if (cores[k]->selected)
				cli_note("%s: %llu instructions, %llu cache misses, %llu marks, %llu late", cores[k]->name,
				         (unsigned long long)cores[k]->ninstr, (unsigned long long)cores[k]->ncache,
				         (unsigned long long)cores[k]->nmarks, (unsigned long long)cores[k]->late);
	}
}

static void release_all(void)
{
	size_t i;
	for (i = 0; i < ncores; i++) {
		struct core *c = cores[i];
		flagtab_free(&c->flags);
		stats_free(c);
		sub_free(c);
		free(c->ring);
		free(c->lane);
		free(c);
	}
	free(cores);
	cores = NULL;
	ncores = 0;
	for (i = 0; i < npool; i++)
		free(pool[i].text);
	free(pool);
	free(free_slots);
	free(sorted);
	flags_release();
	subs_release();
	lanes_free();
	code_release();
	free(core_ids);
}

void timeline_emit_reset(void)
{
	static const struct emit initial = EMIT_INITIAL;

	release_all();
	cores_cap = 0;
	last = NULL;
	core_ids = NULL;
	ncore_ids = 0;
	trace_w = json_w = NULL;    /* closed, or aborted by the cleanups */
	notes[0] = 0;
	notes_n = 0;
	metrics_on = MET_PIPE | MET_RCR;
	metrics_given = 0;
	logical_names = 0;
	arrivals = 0;
	pool = NULL;
	npool = pool_cap = nfree = 0;
	free_slots = NULL;
	pending = total_late = 0;
	sorted = NULL;
	sorted_cap = 0;
	memset(&from_b, 0, sizeof from_b);
	memset(&to_b, 0, sizeof to_b);
	out_arg = input_name = NULL;
	report_top = 0;
	warn_limit = split_limit = 0;
	known = unknown = instrs = trace_bytes = 0;
	trace_sealed = trace_epipe = 0;
	emit = initial;
	split_release();
	vis_release();
	tick_overflows = 0;
}

/* The command line: timeline-emit's own options here, the common ones
 * (--soc-version, -q, -v, --version) through filter_option.  Returns the
 * index of the first operand. */
static int options(struct filter *f, int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "core-id", required_argument, NULL, 'c' },
		{ "from", required_argument, NULL, 'f' },
		{ "to", required_argument, NULL, 't' },
		{ "max-size", required_argument, NULL, 'm' },
		{ "force", no_argument, NULL, 'F' },
		FILTER_LONGOPT_SOC,
		{ "report", optional_argument, NULL, 'R' },
		{ "aic-metrics", required_argument, NULL, 'A' },
		FILTER_LONGOPTS_END
	};
	int c, force = 0, size_given = 0;

	/* The environment can lower the viewers' limits (tests). */
	warn_limit = env_size("OPTRACE_TRACE_WARN", 500ull << 20);
	split_limit = env_size("OPTRACE_TRACE_LIMIT", 1ull << 30);
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'o': out_arg = optarg; break;
		case 'c': parse_core_ids(optarg); break;
		case 'f': from_b = parse_time("--from", optarg); break;
		case 't': to_b = parse_time("--to", optarg); break;
		case 'm': split_limit = parse_size(optarg); size_given = 1; break;
		case 'F': force = 1; break;
		case 'A': parse_metrics(optarg); break;
		case 'R':
			report_top = optarg ? (unsigned)cli_num("--report", optarg) : 10;
			if (!report_top)
				cli_die(EXIT_USAGE, "option --report: N must be at least 1");
			break;
		default:
			if (!filter_option(f, c, optarg)) {
				usage(stderr);
				exit(EXIT_USAGE);
			}
		}
	}
	if (force && !size_given)
		split_limit = 0;
	emit.opt.flags = (metrics_on & MET_RCR) != 0;
	emit.opt.overhead = (metrics_on & MET_OVERHEAD) != 0;
	emit.opt.pmsampling = (metrics_on & MET_PMS) != 0;
	if (f->soc && metrics_refused(chip_find(f->soc)->family))
		cli_die(EXIT_USAGE, "option --aic-metrics: %s is not available on %s",
		        metrics_refused(chip_find(f->soc)->family), f->soc);
	if (from_b.set && to_b.set && from_b.ticks == to_b.ticks && from_b.v > to_b.v)
		cli_die(EXIT_USAGE, "--from is after --to");
	if (out_arg && strcmp(out_arg, "-"))
		emit.opt.dir = out_arg;
	if (argc - optind <= 1)
		input_name = argc == optind || !strcmp(argv[optind], "-") ? "(stdin)" : argv[optind];
	return optind;
}

int timeline_emit_main(int argc, char **argv)
{
	struct losses ls;
	struct filter f = { 0 };
	int first, status;

	cli_init(argv[0]);
	loss_init(&ls, "timeline-emit", loss_kinds, 1);
	f.tool = "timeline-emit";
	f.ls = &ls;
	f.bad_kind = LOSS_BAD;
	f.sink = 1;
	f.start = run_start;
	f.record = run_record;
	f.drain = run_drain;
	f.finish = run_finish;
	f.report = run_report;

	first = options(&f, argc, argv);
	status = filter_run(&f, argc, argv, first);
	if (trace_epipe)
		status = EXIT_OK;       /* the reader of the trace went away */
	else if (status == EXIT_OK || status == EXIT_PARTIAL)
		status = tick_report(status);
	/* A summary that cannot be written is said; the set is in place
	 * (timeline-emit(1), EXIT STATUS), so the status stands. */
	if (emit.opt.dir)
		(void)cli_stdout_done(status);
	timeline_emit_reset();
	loss_free(&ls);
	return status;
}

#ifndef OPTRACE_FUZZ
int main(int argc, char **argv)
{
	return timeline_emit_main(argc, argv);
}
#endif
