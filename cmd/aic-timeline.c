/* aic-timeline: the AI-Core timeline of an on-board dump (dump/
 * aic_timestamp.bin with the DeviceProf and duration.bin stamps; 910B, A3
 * and A5; optrace-board(5), AIC_TIMESTAMP.BIN) as the reference's
 * trace.json: a lane per block and sub-block with its run, the AI_CORE
 * task, and the kernel's timestamp dots paired start to end (an LCCL
 * op's log dots).  See aic-timeline(1). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aicts.h"
#include "board.h"
#include "chip.h"
#include "cli.h"
#include "codetab.h"
#include "dumpdir.h"
#include "io.h"
#include "json.h"
#include "mem.h"
#include "pmu.h"
#include "rec.h"

static const char help[] =
	"usage: aic-timeline [-o FILE] [--custom-input JSON] [--soc-version=SOC] [--ts-freq=KHZ] DIR\n"
	"Write the AI-Core timeline of the on-board dump DIR (aic_timestamp.bin,\n"
	"DeviceProf<N>.bin, duration.bin, op_basic_info.txt; 910B, A3, A5) as a\n"
	"trace.json: the blocks' runs (BLOCK), the AI Core task (AI CORE) and the\n"
	"kernel's timestamp dots (an LCCL op's log dots).\n"
	"  -o FILE              the trace (default stdout; replaced only on success)\n"
	"  --custom-input JSON  dot names and block marks (mc2_trace_config)\n"
	"  --soc-version=SOC    the SoC (default: Run Soc Version of op_basic_info.txt)\n"
	"  --ts-freq=KHZ        the task-scheduler clock (default: the chip's)\n"
	"  --code FILE          code records (src-map) giving the dots' source lines\n"
	"  --pcs                write the dots' pcs as instruction records instead\n"
	"                       (for src-map; an MC2 op's too)\n"
	"  -q, -v               fewer / more messages\n"
	"  -h, --help, --version\n"
	"Exit: 0 ok, 1 records or names were bad or dropped (the trace has the rest),\n"
	"2 usage or a chip without the timeline, 3 an MC2 op (mc2-timeline), no\n"
	"aic_timestamp.bin or no record at or after the kernel's start, 4 I/O error,\n"
	"130 interrupted.\n";

static const char *code_of(const void *ctx, uint64_t pc, size_t *n)
{
	return codetab_json(ctx, pc, n);
}

static int cmp_u64(const void *pa, const void *pb)
{
	uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
	return a < b ? -1 : a > b;
}

/* --pcs: each pc of the records once, in order, as instruction records
 * for src-map(1). */
static int write_pcs(const char *out_path, const char *soc, const struct aicts_rec *v, size_t n)
{
	struct rec_out o = { 0 };
	struct rec rec;
	uint64_t *pcs = xreallocarray(NULL, n ? n : 1, sizeof *pcs);
	size_t i, k = 0;
	int e;
	for (i = 0; i < n; i++)
		pcs[i] = v[i].pc;
	qsort(pcs, n, sizeof *pcs, cmp_u64);
	o.producer = "aic-timeline";
	if (!(o.w = wr_open(out_path, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", out_path);
	o.mode = cli_out_mode(0, 0, 0, strcmp(out_path, "-") ? -1 : 1);
	rec_out_header(&o, soc, 0, "aic_timestamp.bin");
	rec_init(&rec, K_INSTR);
	for (i = 0; i < n; i++) {
		if (i && pcs[i] == pcs[i - 1])
			continue;
		rec.n[I_PC].u = pcs[i];
		rec.n[I_ID].u = k++;
		rec_text_set(&rec, IS_PIPE, "SCALAR", 6);
		rec_text_set(&rec, IS_NAME, "dot", 3);
		rec_out_put(&o, &rec);
	}
	rec_out_trailer(&o, 0, 0, 0);
	free(pcs);
	if ((e = wr_close(o.w)) && e != EPIPE) {
		errno = e;
		cli_die(EXIT_IO, "%s: cannot write:", out_path);
	}
	return EXIT_OK;
}

/* The custom input, read whole (the reference takes up to 10 MiB). */
#define CUSTOM_MAX (10u << 20)

static void read_names(const char *path, struct aicts_names *names, int *status)
{
	struct rd *r = rd_open(path);
	size_t n = 0, k, cap = 1 << 12;
	unsigned skipped;
	char *text, msg[300];
	if (!r)
		cli_die(EXIT_USAGE, "option --custom-input: %s: cannot open:", path);
	text = xmalloc(cap);
	while ((k = rd_read(r, text + n, cap - n)) > 0) {
		n += k;
		if (n > CUSTOM_MAX)
			cli_die(EXIT_USAGE, "option --custom-input: %s: larger than 10 MiB", path);
		if (n == cap)
			text = xrealloc(text, cap *= 2);
	}
	if (rd_error(r))
		cli_die(EXIT_IO, "option --custom-input: %s: cannot read: %s", path, rd_strerror(r));
	rd_close(r);
	if (aicts_names_parse(names, text, n, &skipped, msg, sizeof msg) < 0) {
		cli_warn("%s: %s: no dot names, block times kept", path, msg);
		*status = EXIT_PARTIAL;
	} else if (skipped) {
		cli_warn("%s: %u entries skipped, the first: %s", path, skipped, msg);
		*status = EXIT_PARTIAL;
	}
	free(text);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "soc-version", required_argument, NULL, 's' },
		{ "ts-freq", required_argument, NULL, 'f' },
		{ "custom-input", required_argument, NULL, 'c' },
		{ "code", required_argument, NULL, 'C' },
		{ "pcs", no_argument, NULL, 'p' },
		CLI_LONGOPTS_END
	};
	const char *out_path = "-", *soc_option = NULL, *custom = NULL, *code_path = NULL, *dir;
	struct codetab codes = { 0 };
	int pcs_only = 0;
	struct aicts_names names;
	struct aicts_blocks blocks;
	struct aicts_stats st;
	struct aicts_run run;
	struct board_basic basic;
	struct board_span span = { 0, 0 };
	struct board_err err;
	const struct chip *chip;
	enum board_fmt fmt;
	unsigned khz = 0;
	uint64_t dropped, index = 0, start;
	void *recs = NULL;
	size_t nrecs;
	char *path, msg[600], text[160];
	int c, rc, status = EXIT_OK;
	struct rd *r;
	struct wr *W;
	struct json J;

	cli_init("aic-timeline");
	aicts_names_init(&names);
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		if (board_opt(c, help, &out_path, &soc_option))
			continue;
		switch (c) {
		case 'c': custom = optarg; break;
		case 'C': code_path = optarg; break;
		case 'p': pcs_only = 1; break;
		case 'f': khz = board_clock("--ts-freq", optarg, 100000000, "kHz"); break;
		default: fputs(help, stderr); return EXIT_USAGE;
		}
	}
	if (!(dir = board_dump_operand(argc, argv, optind, help, &basic)))
		return EXIT_USAGE;
	chip = board_chip(dir, soc_option, &basic, BOARD_FAMILY(CHIP_A2) | BOARD_FAMILY(CHIP_A3) | BOARD_FAMILY(CHIP_A5),
	                  "the AI-Core timeline", "it is 910B, A3 and A5's");
	if (basic.is_mc2 && !pcs_only)
		cli_die(EXIT_UNUSABLE, "%s: %s is an MC2 op (Is MC2=1): its timeline, dots and all, is mc2-timeline's: "
		        "nothing written", dir, basic.op_name);
	if (basic.is_lccl && chip->family == CHIP_A5)
		cli_die(EXIT_USAGE, "%s: an LCCL op's timeline is 910B and A3's only: nothing written", dir);
	fmt = (enum board_fmt)board_fmt_of(chip->family);
	if (!khz)
		khz = pmu_defaults(fmt)->ts_khz;
	if (custom)
		read_names(custom, &names, &status);

	/* The AI Core task's stamps: the span, and on 910B and A3 its start
	 * is the base the blocks' starts may only move earlier. */
	path = xpath(dir, "duration.bin");
	if ((r = io_is_file(path) ? rd_open(path) : NULL)) {
		struct board_stamp s;
		while ((rc = board_stamp_next(r, fmt, &index, &s, &err)) > 0)
			board_span_add(fmt, &span, &s);
		if (rc < 0) {
			board_err_text(&err, text, sizeof text);
			cli_warn("%s: %s: the stamps after it are not read", path, text);
			status = EXIT_PARTIAL;
		}
		rd_close(r);
	} else {
		cli_warn("%s: none or unreadable: no Task Duration (AI_CORE has none)", path);
		status = EXIT_PARTIAL;
	}
	free(path);

	rc = aicts_blocks_read(dir, fmt, &blocks, msg, sizeof msg);
	if (rc < 0)
		cli_die(EXIT_UNUSABLE, "%s: nothing written", msg);
	if (rc > 0) {
		cli_warn("%s", msg);
		status = EXIT_PARTIAL;
	}
	if (!blocks.n) {
		cli_warn("%s: no DeviceProf<N>.bin block record: no block lanes, and every dot is outside a block", dir);
		status = EXIT_PARTIAL;
	}
	start = fmt == BOARD_A2 && span.start ? span.start : UINT64_MAX;
	memset(&run, 0, sizeof run);
	run.kind = basic.is_lccl ? AICTS_LCCL : AICTS_PLAIN;
	if (pcs_only)
		run.kind = AICTS_PLAIN;
	run.min = aicts_base(&blocks, start);
	if (run.min == UINT64_MAX)
		run.min = 0;
	run.task_start = run.kind == AICTS_LCCL && span.start ? span.start : run.min;
	run.task_us = board_span_us(&span, khz);
	run.khz = khz;
	run.blocks = &blocks;
	run.names = &names;

	path = xpath(dir, "aic_timestamp.bin");
	if (!io_is_file(path))
		cli_die(EXIT_UNUSABLE, "%s: none (the device wrote no timestamp dots): nothing written", path);
	board_check_data(path);
	rc = aicts_read(path, run.kind == AICTS_LCCL ? AICTS_LCCL_SIZE : AICTS_REC_SIZE, run.min, &recs, &nrecs,
	                &dropped, msg, sizeof msg);
	if (rc < 0)
		cli_die(rc == -2 ? EXIT_IO : EXIT_UNUSABLE, "%s: %s: nothing written", path, msg);
	if (rc > 0) {
		cli_warn("%s: %s: the whole records before it are used", path, msg);
		status = EXIT_PARTIAL;
	}
	if (!nrecs)
		cli_die(EXIT_UNUSABLE, "%s: no record at or after the kernel's start (%llu before it): nothing written",
		        path, (unsigned long long)dropped);
	if (pcs_only) {
		rc = write_pcs(out_path, chip->soc, recs, nrecs);
		free(recs);
		free(path);
		aicts_blocks_free(&blocks);
		aicts_names_free(&names);
		return rc;
	}
	if (code_path) {
		if (codetab_read(&codes, code_path, msg, sizeof msg)) {
			cli_warn("%s: %s: no source lines", code_path, msg);
			status = EXIT_PARTIAL;
		}
		run.code = code_of;
		run.code_ctx = &codes;
	}
	if (run.kind == AICTS_PLAIN)
		aicts_classify(recs, nrecs, chip->family,
		               aicts_new_format(recs, nrecs, blocks.aic, blocks.aiv));

	if (!(W = wr_open(out_path, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", out_path);
	json_init(&J, W);
	json_trace_begin(&J);
	aicts_emit(&J, &run, recs, nrecs, &st);
	json_close_all(&J);
	wr_putc(W, '\n');
	if (cli_interrupted) {
		wr_abort(W);
		cli_die(EXIT_INTR, "interrupted: nothing written");
	}
	/* EPIPE: the reader went away; the run ends as usual, quietly */
	if ((rc = wr_close(W)) && rc != EPIPE) {
		errno = rc;
		cli_die(EXIT_IO, "%s: cannot write:", out_path);
	}
	if (st.unpaired || st.outside) {
		cli_warn("%s: %llu dots without an end, %llu outside their block's run: not drawn", path,
		         (unsigned long long)st.unpaired, (unsigned long long)st.outside);
		status = EXIT_PARTIAL;
	}
	if (dropped)
		cli_note("%s: %llu records before the kernel's start dropped", path, (unsigned long long)dropped);
	if (cli_verbosity >= 1 && strcmp(out_path, "-")) {
		printf("  timeline       %s (AI Core: %llu block lanes, %llu dots%s)\n", out_path,
		       (unsigned long long)st.lanes, (unsigned long long)(st.dots + st.lccl_dots),
		       run.kind == AICTS_LCCL ? ", LCCL" : "");
		cli_flush(stdout);
	}
	free(path);
	free(recs);
	aicts_blocks_free(&blocks);
	aicts_names_free(&names);
	codetab_free(&codes);
	/* A summary that cannot be written is said; the trace is in place,
	 * so the status stands. */
	(void)cli_stdout_done(status);
	return status;
}
