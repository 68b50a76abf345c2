/* warp-timeline: the A5 SIMT warp timeline of an on-board dump
 * (dump/WarpTimeline.bin; optrace-board(5)) as trace slices, one lane per
 * warp per sub-core, on their own or merged into the launch's trace.json
 * (biu-timeline's), aligned to its earliest event.  See warp-timeline(1). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "dumpdir.h"
#include "chip.h"
#include "cli.h"
#include "io.h"
#include "json.h"
#include "mem.h"
#include "pmu.h"
#include "warp.h"

static const char *out_path = "-", *soc_option, *trace_path;
static unsigned mhz_option;

static const char help[] =
	"usage: warp-timeline [-o FILE] [--trace FILE] [--aicore-freq MHZ] DIR\n"
	"The SIMT warp timeline of the Ascend950 on-board dump directory DIR\n"
	"(WarpTimeline.bin, op_basic_info.txt) as a trace: one slice per warp run.\n"
	"  -o FILE            the trace (default: standard output)\n"
	"  --trace FILE       merge into this trace.json (biu-timeline's), aligned\n"
	"                     to its earliest event (FILE may be the -o FILE)\n"
	"  --soc-version=SOC  the SoC (default: Run Soc Version of op_basic_info.txt)\n"
	"  --aicore-freq=MHZ  the clock of the cycles (default: Current Freq, else 1650)\n"
	"  -q, -v             quieter, more verbose\n"
	"  -h, --help, --version\n"
	"Exit: 0 ok, 1 a cut file (the whole blocks drawn), 2 usage or an operator\n"
	"without SIMT, 3 no usable warp record, 4 I/O error, 130 interrupted.\n";

/* The whole of a file (a trace.json to merge into). */
static char *slurp(const char *path, size_t *len)
{
	struct rd *r = rd_open(path);
	size_t n = 0, cap = 1 << 16, k;
	char *p;
	if (!r)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	p = xmalloc(cap);
	while ((k = rd_read(r, p + n, cap - n - 1)) > 0)
		if ((n += k) + 1 == cap)
			p = xrealloc(p, cap *= 2);
	if (rd_error(r))
		cli_die(EXIT_IO, "%s: cannot read: %s", path, rd_strerror(r));
	rd_close(r);
	p[n] = 0;
	*len = n;
	return p;
}

/* The earliest "ts" of a trace's text, in microseconds x 10^6 (0 when it
 * has none): every "ts": key, whatever object it is in. */
static uint64_t trace_min_ts6(const char *p)
{
	int any = 0;
	double lo = 0;
	while ((p = strstr(p, "\"ts\":"))) {
		char *end;
		double v;
		p += 5;
		while (*p == ' ')
			p++;
		v = strtod(p, &end);
		if (end == p)
			continue;
		if (!any || v < lo)
			lo = v, any = 1;
		p = end;
	}
	return any && lo > 0 ? (uint64_t)(lo * 1e6 + 0.5) : 0;
}

/* Where the traceEvents array of a trace's text closes: its last ']',
 * followed by nothing but the object's '}' and white space.  *empty: the
 * array has no element yet.  NULL when the text is not of that shape. */
static const char *array_end(const char *p, size_t n, int *empty)
{
	const char *e = p + n, *q;
	int brace = 0;
	while (e > p && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\r' || e[-1] == '\t' || (e[-1] == '}' && !brace++)))
		e--;
	if (e == p || e[-1] != ']' || brace != 1)
		return NULL;
	for (q = e - 1; q > p && (q[-1] == ' ' || q[-1] == '\n' || q[-1] == '\r' || q[-1] == '\t'); q--)
		;
	*empty = q > p && q[-1] == '[';
	return e - 1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "trace", required_argument, NULL, 't' },
		{ "soc-version", required_argument, NULL, 's' },
		{ "aicore-freq", required_argument, NULL, 'f' },
		CLI_LONGOPTS_END
	};
	struct board_basic basic;
	struct warp_stats st = { 0 };
	struct warp_slice *v = NULL;
	size_t n = 0, cap = 0, i, nlanes, tlen = 0, cut = 0;
	uint64_t nover = 0, over_block = 0;
	uint32_t over_count = 0;
	uint64_t *shift, align6 = 0;
	size_t *lanes;
	unsigned char blk[WARP_BLOCK_SIZE];
	char *bin, *trace = NULL;
	const char *dir, *close_at = NULL;
	unsigned mhz;
	int c, status = EXIT_OK, empty = 1, rc;
	struct rd *r;
	struct wr *w;

	cli_init("warp-timeline");
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		if (board_opt(c, help, &out_path, &soc_option))
			continue;
		switch (c) {
		case 't': trace_path = optarg; break;
		case 'f': mhz_option = board_clock("--aicore-freq", optarg, 100000, "MHz"); break;
		default: fputs(help, stderr); return EXIT_USAGE;
		}
	}
	if (!(dir = board_dump_operand(argc, argv, optind, help, &basic)))
		return EXIT_USAGE;

	board_chip(dir, soc_option, &basic, BOARD_FAMILY(CHIP_A5), "the warp timeline", "SIMT warps are Ascend950's (A5)");
	if (!basic.has_simt)
		cli_die(EXIT_USAGE, "%s: the warp timeline is not supported on this operator (%s): it has no SIMT "
		        "code (op_basic_info.txt: Has Simt=0): nothing written", dir, basic.op_name);
	mhz = mhz_option ? mhz_option
	      : basic.cur_freq > 0 ? (unsigned)basic.cur_freq : pmu_defaults(BOARD_A5)->aicore_mhz;

	bin = xpath(dir, WARP_FILE);
	board_check_data(bin);
	if (!(r = rd_open(bin)))
		cli_die(EXIT_UNUSABLE, "%s: cannot open (the device wrote no warp timeline):", bin);
	for (;;) {
		size_t k = rd_read(r, blk, sizeof blk);
		if (k < sizeof blk) {
			cut = k;
			break;
		}
		if (warp_block(blk, (uint32_t)st.blocks, &v, &n, &cap, &st) > 0 && !nover++) {
			over_block = st.blocks - 1;
			over_count = (uint32_t)blk[4] | (uint32_t)blk[5] << 8 | (uint32_t)blk[6] << 16 |
			             (uint32_t)blk[7] << 24;
		}
	}
	if (rd_error(r))
		cli_die(EXIT_IO, "%s: cannot read: %s", bin, rd_strerror(r));
	rd_close(r);
	if (nover) {
		cli_warn("%s: %llu blocks claim more than the %u warps a block holds (the first, block %llu at byte %llu: "
		         "warpCount %lu): their %u are read", bin, (unsigned long long)nover, WARP_PER_BLOCK,
		         (unsigned long long)over_block, (unsigned long long)(over_block * WARP_BLOCK_SIZE),
		         (unsigned long)over_count, WARP_PER_BLOCK);
		status = EXIT_PARTIAL;
	}
	if (cut) {
		cli_warn("%s: cut: %zu bytes after %llu whole blocks of %u bytes are left out", bin, cut,
		         (unsigned long long)st.blocks, WARP_BLOCK_SIZE);
		status = EXIT_PARTIAL;
	}
	if (!n)
		cli_die(EXIT_UNUSABLE, "%s: no valid warp record (%llu blocks, %llu without the magic word, %llu warps "
		        "without a start or an end after it): nothing written", bin, (unsigned long long)st.blocks,
		        (unsigned long long)st.bad_magic, (unsigned long long)st.invalid);

	if (trace_path) {
		trace = slurp(trace_path, &tlen);
		if (!(close_at = array_end(trace, tlen, &empty)))
			cli_die(EXIT_UNUSABLE, "%s: not a trace.json of biu-timeline's shape (an object ending in its "
			        "traceEvents array): nothing written", trace_path);
		align6 = trace_min_ts6(trace);
	}
	shift = xreallocarray(NULL, n, sizeof *shift);
	lanes = xreallocarray(NULL, n, sizeof *lanes);
	warp_pid_starts(v, n, shift);
	nlanes = warp_lanes(v, n, lanes);

	if (!(w = wr_open(out_path, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", out_path);
	if (trace)
		wr_put(w, trace, (size_t)(close_at - trace));
	else
		wr_puts(w, "{\"profilingType\":\"op\",\"displayTimeUnit\":\"ns\",\"schemaVersion\":1,\"traceEvents\":[");
	for (i = 0; i < n + nlanes && !cli_interrupted; i++) {
		const struct warp_slice *s = &v[i < n ? i : lanes[i - n]];
		char *p = wr_reserve(w, 400), pid[48];
		size_t pn = warp_pid(s->core_id, s->core_type, pid, sizeof pid);
		char *p0 = p;
		if (!empty)
			*p++ = ',';
		empty = 0;
		*p++ = '\n';
		if (i < n) {
			p += sprintf(p, "{\"name\":\"Warp_%u\",\"cname\":\"thread_state_running\",\"ph\":\"X\",\"ts\":",
			             s->warp);
			p = jw_fixed(p, warp_ts6(s, shift[i], align6, mhz), 6);
			p = JW_LIT(p, ",\"dur\":");
			p = jw_fixed(p, warp_dur6(s, mhz), 6);
			p = JW_LIT(p, ",\"pid\":");
			p = jw_str(p, pid, pn);
			p += sprintf(p, ",\"tid\":\"Warp %u\",\"args\":{\"block_id\":%u,\"core_id\":%u,\"core_type\":%u,"
			             "\"warp_id\":%u}}", s->warp, s->block, s->core_id, s->core_type, s->warp);
		} else {
			p = JW_LIT(p, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":");
			p = jw_str(p, pid, pn);
			p += sprintf(p, ",\"tid\":\"Warp %u\",\"args\":{\"sort_index\":%u}}", s->warp, s->warp);
		}
		wr_commit(w, (size_t)(p - p0));
	}
	if (trace)
		wr_put(w, close_at, tlen - (size_t)(close_at - trace));
	else
		wr_puts(w, "\n]}\n");
	if (cli_interrupted) {
		wr_abort(w);
		cli_die(EXIT_INTR, "interrupted: nothing written");
	}
	/* EPIPE: the reader went away; the run ends as usual, quietly */
	if ((rc = wr_close(w)) && rc != EPIPE) {
		errno = rc;
		cli_die(EXIT_IO, "%s: cannot write:", out_path);
	}
	if (cli_verbosity >= 1 && strcmp(out_path, "-")) {
		size_t subs = 0;
		for (i = 0; i < nlanes; i++)
			subs += !i || v[lanes[i]].core_id != v[lanes[i - 1]].core_id ||
			        v[lanes[i]].core_type != v[lanes[i - 1]].core_type;
		printf("  warps          %s (%zu warp runs on %zu lanes of %zu sub-cores)\n", out_path, n, nlanes, subs);
		cli_flush(stdout);
	}
	if (st.bad_magic && cli_verbosity >= 1)
		cli_note("%s: %llu of %llu blocks without the magic word skipped", bin, (unsigned long long)st.bad_magic,
		         (unsigned long long)st.blocks);
	free(bin);
	free(trace);
	free(v);
	free(shift);
	free(lanes);
	/* A summary that cannot be written is said; the trace is in place,
	 * so the status stands. */
	(void)cli_stdout_done(status);
	return status;
}
