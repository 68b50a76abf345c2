/* libFuzzer target: scalar-merge's merge (cmd/scalar-merge.c, run whole
 * through scalar_merge_main, cmd/scalar-merge/merge.h).
 *
 * The first byte of the input chooses how the rest becomes a record
 * stream and the --window given:
 *   - bit 7 set: the rest is the stream itself (binary or JSON records,
 *     as a tool upstream wrote them);
 *   - else the rest is cut into 6-byte groups, each one record of a
 *     stream built here, after an Ascend910B1 header: a fetch record, a
 *     CCU log line (an issue, another CCU line or a line out of the
 *     grammar), an instruction record (some of them cache misses) or a
 *     record of another kind, of one of a few cores, at a pc of a small
 *     range, its tick moving forward (or, for some, back) from the last;
 *     a trailer ends it unless the first byte says not;
 *   - bits 0-2: --window=1..7 (0: the default).
 * The stream, in a memory file, goes to scalar-merge twice: with binary
 * output (binary records are patched where they lie) and with JSON output
 * (every record decoded), each into a file of a private directory.  Both
 * runs exit with 0 or 1 and give the same instruction records with the
 * same ticks; a CCU tick assigned is not after the instruction's start,
 * an icache tick is before its CCU tick. */
#include <getopt.h>

#include "fuzz.h"
#include "io.h"
#include "merge.h"
#include "rec.h"

struct ticks { uint64_t start, pc, icache, ccu; };

/* The instruction records of the output file: their count, into *v
 * (malloc'ed). */
static size_t read_instrs(const char *path, struct ticks **v)
{
	struct rd *r = rd_open(path);
	struct rec_dec d = { 0 };
	size_t n = 0, cap = 0, len;
	const char *line;

	CHECK(r);
	*v = NULL;
	while ((line = rd_line(r, &len))) {
		struct rec rec;
		const char *why;
		int k = rec_decode(&d, line, len, &rec, &why);
		if (k != DEC_OK || rec.sc->kind != K_INSTR)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			*v = realloc(*v, cap * sizeof **v);
			CHECK(*v);
		}
		(*v)[n].start = rec.n[I_START].u;
		(*v)[n].pc = rec.n[I_PC].u;
		(*v)[n].icache = rec.n[I_ICACHE].u;
		(*v)[n].ccu = rec.n[I_CCU].u;
		n++;
	}
	CHECK(!rd_error(r));
	rd_close(r);
	rec_dec_free(&d);
	return n;
}

/* A stream built from the groups of data. */
static void build(struct wr *w, const uint8_t *p, size_t n, int trailer)
{
	struct rec_out o = { .w = w, .mode = REC_BIN, .producer = "icache-merge" };
	uint64_t tick = 1000;
	char text[96];

	rec_out_header(&o, "Ascend910B1", 1850, "fuzz");
	for (; n >= 6; p += 6, n -= 6) {
		struct rec r;
		uint64_t core = (p[0] >> 2) & 1, sub = (p[0] >> 3) & 3, subidx = p[5] & 1;
		uint64_t pc = 0x1000 + 4 * (uint64_t)(p[1] & 63);
		uint64_t d = (uint64_t)p[2] << 8 | p[3];

		if (p[0] & 0x80)
			tick = tick > d ? tick - d : 0;
		else
			tick += d;
		switch (p[0] & 3) {
		case 0:
			rec_init(&r, K_FETCH);
			r.n[S_CORE].u = core;
			r.n[S_SUBTYPE].u = sub;
			r.n[S_SUBIDX].u = subidx;
			r.n[S_TICK].u = tick;
			r.n[S_PC].u = (p[4] & 0x80) ? UINT64_MAX - (p[1] & 15) : pc;
			break;
		case 1:
			rec_init(&r, K_LINE);
			r.n[L_CORE].u = core;
			r.n[L_SUBTYPE].u = sub;
			r.n[L_SUBIDX].u = subidx;
			r.n[L_LOG].u = LOG_CCU;
			r.n[L_LINE].u = p[4];
			switch (p[4] & 3) {
			case 0:
			case 1:
				snprintf(text, sizeof text, "[info] %llu: is_single_issue instr, pc:0x%llx",
				         (unsigned long long)tick, (unsigned long long)pc);
				break;
			case 2:
				snprintf(text, sizeof text, "[info] %llu: is_single_issue instr, pc:0x",
				         (unsigned long long)tick);
				break;
			default:
				snprintf(text, sizeof text, "[info] %llu: dispatch", (unsigned long long)tick);
			}
			rec_text_set(&r, LS_TEXT, text, strlen(text));
			break;
		case 2:
			rec_init(&r, K_INSTR);
			r.n[I_CORE].u = core;
			r.n[I_SUBTYPE].u = sub;
			r.n[I_SUBIDX].u = subidx;
			r.n[I_START].u = tick;
			r.n[I_END].u = tick + p[4];
			r.n[I_PC].u = pc;
			r.n[I_ICACHE].u = r.n[I_CCU].u = REC_NONE;
			rec_text_set(&r, IS_PIPE, (p[4] & 7) == 7 ? "CACHEMISS" : "SCALAR",
			             (p[4] & 7) == 7 ? 9 : 6);
			rec_text_set(&r, IS_NAME, "MOV", 3);
			break;
		default:
			rec_init(&r, K_MARK);
			r.n[M_CORE].u = core;
			r.n[M_START].u = tick;
			r.n[M_END].u = tick + p[4];
			rec_text_set(&r, MS_NAME, "mark", 4);
		}
		rec_out_put(&o, &r);
	}
	if (trailer)
		rec_out_trailer(&o, 0, 0, 0);
}

static int run(const char *in, const char *out, const char *mode, const char *window)
{
	char *argv[8];
	int argc = 0;

	argv[argc++] = "scalar-merge";
	argv[argc++] = "-q";
	argv[argc++] = (char *)mode;
	if (window)
		argv[argc++] = (char *)window;
	argv[argc++] = "-o";
	argv[argc++] = (char *)out;
	argv[argc++] = (char *)in;
	argv[argc] = NULL;
	optind = 0;
	return scalar_merge_main(argc, argv);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char bin[96], json[96];
	char in[64], window[32];
	struct ticks *a, *b;
	size_t na, nb, i;
	int fd, s1, s2;

	if (!size)
		return 0;
	if (!bin[0]) {
		const char *dir = fuzz_workdir("fuzz_smerge");
		snprintf(bin, sizeof bin, "%s/out.bin", dir);
		snprintf(json, sizeof json, "%s/out.json", dir);
	}
	if (data[0] & 0x80) {
		fd = fuzz_memfd(data + 1, size - 1);
	} else {
		struct wr *w;
		fd = fuzz_memfd("", 0);
		w = wr_fdopen(fd, "(fuzz)", 0);
		CHECK(w);
		build(w, data + 1, size - 1, !(data[0] & 0x40));
		CHECK(wr_close(w) == 0);
	}
	snprintf(in, sizeof in, "/proc/self/fd/%d", fd);
	snprintf(window, sizeof window, "--window=%d", data[0] & 7);

	s1 = run(in, bin, "--bin", data[0] & 7 ? window : NULL);
	s2 = run(in, json, "--json", data[0] & 7 ? window : NULL);
	close(fd);
	CHECK(s1 == 0 || s1 == 1);
	CHECK(s2 == s1);
	na = read_instrs(bin, &a);
	nb = read_instrs(json, &b);
	CHECK(na == nb);
	for (i = 0; i < na; i++) {
		CHECK(a[i].start == b[i].start && a[i].pc == b[i].pc);
		CHECK(a[i].icache == b[i].icache && a[i].ccu == b[i].ccu);
		if (data[0] & 0x80)
			continue;       /* ticks may have come with the records */
		CHECK(a[i].ccu == REC_NONE || a[i].ccu <= a[i].start);
		CHECK(a[i].icache == REC_NONE || (a[i].ccu != REC_NONE && a[i].icache < a[i].ccu));
	}
	free(a);
	free(b);
	unlink(bin);
	unlink(json);
	return 0;
}
