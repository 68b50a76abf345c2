/* mc2-timeline: the timeline of an MC2 (compute and communication) op's
 * on-board dump (dump/aicpu.bin and duration.bin, 910B and A3;
 * optrace-board(5), AICPU.BIN) as a trace.json of the reference's shape:
 * a lane per communication turn with its six phases, a lane per HCCL
 * plane with its tasks, a lane per stream with the task scheduler's
 * tasks.  See mc2-timeline(1). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aicts.h"
#include "biu.h"
#include "board.h"
#include "dumpdir.h"
#include "chip.h"
#include "cli.h"
#include "codetab.h"
#include "io.h"
#include "json.h"
#include "mc2.h"
#include "mem.h"
#include "pmu.h"

/* Lane sort indexes: the reference's bias plus the lane's id. */
#define SORT_BIAS 10000u

static const char *out_path = "-", *soc_option, *code_path;
static struct codetab codes;

static const char *code_of(const void *ctx, uint64_t pc, size_t *n)
{
	return codetab_json(ctx, pc, n);
}
static unsigned khz_option;

static struct json J;
static struct mc2_turn *turns;
static struct mc2_hccl *tasks;
static size_t nturns, ntasks, capturns, captasks;

static void take_turn(void *ctx, const struct mc2_turn *t)
{
	(void)ctx;
	if (nturns == capturns)
		turns = xreallocarray(turns, capturns = capturns ? 2 * capturns : 16, sizeof *turns);
	turns[nturns++] = *t;
}

static void take_hccl(void *ctx, const struct mc2_hccl *h)
{
	(void)ctx;
	if (ntasks == captasks)
		tasks = xreallocarray(tasks, captasks = captasks ? 2 * captasks : 16, sizeof *tasks);
	tasks[ntasks++] = *h;
}

/* The lanes drawn under one process, by id (a bit per id up to 2^16). */
struct lanes {
	uint64_t bits[65536 / 64];
	unsigned n;
};

static void lane_add(struct lanes *l, unsigned id)
{
	id &= 0xffff;
	if (!(l->bits[id / 64] >> (id % 64) & 1)) {
		l->bits[id / 64] |= 1ULL << (id % 64);
		l->n++;
	}
}

/* "<name>": the event's head up to its tid. */
static char *slice_head(char *p, const char *name, const char *cname, uint64_t ts, uint64_t dur, const char *pid,
                        const char *tid, unsigned id)
{
	p = JW_LIT(p, "{\"name\":");
	p = jw_str(p, name, strlen(name));
	p = JW_LIT(p, ",\"cname\":");
	p = jw_str(p, cname, strlen(cname));
	p = JW_LIT(p, ",\"ph\":\"X\",\"ts\":");
	p = jw_fixed(p, ts, 6);
	p = JW_LIT(p, ",\"dur\":");
	p = jw_fixed(p, dur, 6);
	p = JW_LIT(p, ",\"pid\":");
	p = jw_str(p, pid, strlen(pid));
	p = JW_LIT(p, ",\"tid\":\"");
	p = jw_raw(p, tid, strlen(tid));
	if (id != UINT32_MAX)
		p = jw_uint(p, id);
	*p++ = '"';
	return p;
}

/* "key":"<v>" (the reference's args are strings). */
static char *arg_uint(char *p, const char *key, uint64_t v, int first)
{
	if (!first)
		*p++ = ',';
	p = jw_str(p, key, strlen(key));
	p = JW_LIT(p, ":\"");
	p = jw_uint(p, v);
	*p++ = '"';
	return p;
}

static char *arg_str(char *p, const char *key, const char *v)
{
	*p++ = ',';
	p = jw_str(p, key, strlen(key));
	*p++ = ':';
	return jw_str(p, v, strlen(v));
}

static char *arg_float(char *p, const char *key, double v)
{
	char buf[64];
	int n = snprintf(buf, sizeof buf, "%f", v);
	*p++ = ',';
	p = jw_str(p, key, strlen(key));
	*p++ = ':';
	return jw_str(p, buf, n > 0 && (size_t)n < sizeof buf ? (size_t)n : 0);
}

/* thread_name and thread_sort_index of each lane, by id. */
static void lane_meta(const struct lanes *l, const char *pid, const char *tid)
{
	unsigned id;
	for (id = 0; id < 65536; id++) {
		char *q;
		if (!(l->bits[id / 64] >> (id % 64) & 1))
			continue;
		q = json_value_start(&J, 200);
		q = JW_LIT(q, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":");
		q = jw_str(q, pid, strlen(pid));
		q = JW_LIT(q, ",\"tid\":\"");
		q = jw_raw(q, tid, strlen(tid));
		q = jw_uint(q, id);
		q = JW_LIT(q, "\",\"args\":{\"name\":\"");
		q = jw_raw(q, tid, strlen(tid));
		q = jw_uint(q, id);
		q = JW_LIT(q, "\"}}");
		json_value_done(&J, q);
		q = json_value_start(&J, 200);
		q = JW_LIT(q, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":");
		q = jw_str(q, pid, strlen(pid));
		q = JW_LIT(q, ",\"tid\":\"");
		q = jw_raw(q, tid, strlen(tid));
		q = jw_uint(q, id);
		q = JW_LIT(q, "\",\"args\":{\"sort_index\":");
		q = jw_uint(q, SORT_BIAS + id);
		q = JW_LIT(q, "}}");
		json_value_done(&J, q);
	}
}

static const char help[] =
	"usage: mc2-timeline [-o FILE] [--soc-version=SOC] [--ts-freq=KHZ] DIR\n"
	"Write the timeline of the MC2 op of the on-board dump DIR (aicpu.bin,\n"
	"duration.bin, op_basic_info.txt with Is MC2=1; 910B and A3) as a trace.json:\n"
	"the phases of each communication turn (AI CPU, TURN<n>), the HCCL tasks\n"
	"(HCCL TASK, PLANE<id>) and the task scheduler's tasks (HCCL, STREAM<id>).\n"
	"  -o FILE            the trace (default stdout; replaced only on success)\n"
	"  --soc-version=SOC  the SoC (default: Run Soc Version of op_basic_info.txt)\n"
	"  --ts-freq=KHZ      the task-scheduler clock (default 50000)\n"
	"  --code FILE        code records (src-map) giving the dots' source lines\n"
	"  -q, -v             fewer / more messages\n"
	"  -h, --help, --version\n"
	"Exit: 0 ok, 1 records were bad or missing (the trace has the rest), 2 usage or\n"
	"a chip without MC2, 3 not an MC2 op, no aicpu.bin or nothing to draw, 4 I/O\n"
	"error, 130 interrupted.\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "soc-version", required_argument, NULL, 's' },
		{ "ts-freq", required_argument, NULL, 'f' },
		{ "code", required_argument, NULL, 'C' },
		CLI_LONGOPTS_END
	};
	const struct mc2_sink sink = { take_turn, take_hccl, NULL };
	struct mc2_stats st = { 0 };
	struct mc2_tasks acsq;
	struct board_basic basic;
	struct board_err err;
	struct board_span span = { 0, 0 };
	struct lanes *lanes = xcalloc(3, sizeof *lanes);
	struct aicts_blocks blocks;
	struct aicts_stats ast;
	void *recs = NULL;
	size_t nrecs = 0;
	uint64_t base, slices = 0, hccl_drawn = 0, acsq_drawn = 0, index = 0;
	const struct chip *chip;
	char *path, msg[400], text[160];
	const char *dir;
	unsigned khz;
	size_t i;
	int c, status = EXIT_OK, rc;
	struct rd *r;
	struct wr *W;

	cli_init("mc2-timeline");
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		if (board_opt(c, help, &out_path, &soc_option))
			continue;
		switch (c) {
		case 'C': code_path = optarg; break;
		case 'f': khz_option = board_clock("--ts-freq", optarg, 100000000, "kHz"); break;
		default: fputs(help, stderr); return EXIT_USAGE;
		}
	}
	if (!(dir = board_dump_operand(argc, argv, optind, help, &basic)))
		return EXIT_USAGE;

	chip = board_chip(dir, soc_option, &basic, BOARD_FAMILY(CHIP_A2) | BOARD_FAMILY(CHIP_A3), "the MC2 timeline",
	                  "it is Atlas A2 and A3's (910B, 910_93)");
	if (!basic.is_mc2)
		cli_die(EXIT_UNUSABLE, "%s: %s is not an MC2 op (op_basic_info.txt has no Is MC2=1): no MC2 timeline, "
		        "nothing written", dir, basic.op_name);
	khz = khz_option ? khz_option : pmu_defaults(BOARD_A2)->ts_khz;

	/* The task stamps: the HCCL tasks' times and the base. */
	mc2_tasks_init(&acsq);
	path = xpath(dir, "duration.bin");
	if (!(r = io_is_file(path) ? rd_open(path) : NULL)) {
		cli_warn("%s: none or unreadable: the HCCL tasks have no times, the turns start from the first one", path);
		status = EXIT_PARTIAL;
	} else {
		struct board_stamp s;
		while ((rc = board_stamp_next(r, BOARD_A2, &index, &s, &err)) > 0) {
			board_span_add(BOARD_A2, &span, &s);
			if (s.kind != BOARD_STAMP_OTHER)
				mc2_tasks_stamp(&acsq, s.task_id, s.stream_id, s.task_type, s.kind == BOARD_STAMP_END,
				                s.sys_time);
		}
		if (rc < 0) {
			board_err_text(&err, text, sizeof text);
			cli_warn("%s: %s: the stamps after it are not read", path, text);
			status = EXIT_PARTIAL;
		}
		rd_close(r);
	}
	free(path);
	mc2_tasks_sort(&acsq);

	path = xpath(dir, "aicpu.bin");
	if (!io_is_file(path))
		cli_die(EXIT_UNUSABLE, "%s: none (the device wrote no AI CPU records): nothing written", path);
	board_check_data(path);
	rc = mc2_read_file(path, &sink, &st, msg, sizeof msg);
	if (rc < 0)
		cli_die(rc == -2 ? EXIT_IO : EXIT_UNUSABLE, "%s: %s: nothing written", path, msg);
	if (rc > 0) {
		cli_warn("%s: %s", path, msg);
		status = EXIT_PARTIAL;
	}
	free(path);

	/* The blocks' runs (their lanes, and the dots' bounds). */
	rc = aicts_blocks_read(dir, BOARD_A2, &blocks, msg, sizeof msg);
	if (rc) {
		cli_warn("%s", msg);
		status = EXIT_PARTIAL;
	}

	/* The base: the earliest of the last AI CPU start, the kernel's
	 * start and the blocks' starts; without any, the first turn time. */
	base = acsq.cpu_start;
	if (span.start && span.start < base)
		base = span.start;
	base = aicts_base(&blocks, base);
	if (base == UINT64_MAX) {
		for (i = 0; i < nturns; i++)
			for (c = 0; c <= MC2_NPHASES; c++)
				if (turns[i].t[c] && turns[i].t[c] < base)
					base = turns[i].t[c];
		if (base == UINT64_MAX)
			base = 0;
	}

	if (!(W = wr_open(out_path, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", out_path);
	json_init(&J, W);
	json_trace_begin(&J);

	/* The turns: phase k from t[k] to t[k + 1]. */
	for (i = 0; i < nturns; i++) {
		const struct mc2_turn *t = &turns[i];
		unsigned k;
		lane_add(&lanes[0], t->current_turn);
		for (k = 0; k < MC2_NPHASES; k++) {
			char *p;
			if (t->t[k] < base || t->t[k + 1] <= t->t[k])
				continue;
			p = json_value_start(&J, 400);
			p = slice_head(p, mc2_phase_name(k), mc2_phase_cname(k), mc2_us6(t->t[k] - base, khz),
			               mc2_us6(t->t[k + 1] - t->t[k], khz), "AI CPU", "TURN", t->current_turn);
			p = JW_LIT(p, ",\"args\":{");
			p = arg_uint(p, "stream id", t->stream, 1);
			p = arg_uint(p, "task id", t->task, 0);
			p = JW_LIT(p, "}}");
			json_value_done(&J, p);
			slices++;
		}
	}
	lane_meta(&lanes[0], "AI CPU", "TURN");

	/* The HCCL tasks, timed by their stamps; args in the reference's
	 * (name) order. */
	for (i = 0; i < ntasks; i++) {
		const struct mc2_hccl *h = &tasks[i];
		const struct mc2_task *k = mc2_tasks_find(&acsq, h->task, h->stream);
		const char *colour, *type = mc2_hccl_type(h->item_id, &colour);
		char *p;
		if (!k || !mc2_task_timed(k, base))
			continue;
		lane_add(&lanes[1], h->plane);
		p = json_value_start(&J, 1200);
		p = slice_head(p, type, colour, mc2_us6(k->start - base, khz), mc2_us6(k->end - k->start, khz),
		               "HCCL TASK", "PLANE", h->plane);
		p = JW_LIT(p, ",\"args\":{");
		p = jw_str(p, "bandwidth(GB/s)", 15);
		*p++ = ':';
		{
			char buf[64];
			int n = snprintf(buf, sizeof buf, "%f", mc2_bandwidth(h->size, k->end - k->start, khz));
			p = jw_str(p, buf, n > 0 && (size_t)n < sizeof buf ? (size_t)n : 0);
		}
		p = arg_str(p, "data type", mc2_data_type_name(h->data_type));
		p = arg_uint(p, "dst rank", h->remote_rank, 0);
		p = arg_float(p, "duration estimated(us)", h->duration_est);
		p = arg_str(p, "link type", mc2_link_name(h->link_type));
		p = arg_uint(p, "notify id", h->notify_id, 0);
		p = arg_uint(p, "plane id", h->plane, 0);
		p = arg_uint(p, "size(Byte)", h->size, 0);
		p = arg_uint(p, "src rank", h->local_rank, 0);
		p = arg_uint(p, "stream id", h->stream, 0);
		p = arg_uint(p, "task id", h->task, 0);
		p = arg_str(p, "task type", type);
		p = arg_str(p, "transport type", mc2_transport_name(h->transport));
		p = JW_LIT(p, "}}");
		json_value_done(&J, p);
		hccl_drawn++;
	}
	lane_meta(&lanes[1], "HCCL TASK", "PLANE");

	/* The task scheduler's tasks, by (task, stream): a lane per stream,
	 * AI Core and AI CPU tasks on lanes of their own. */
	for (i = 0; i < acsq.n; i++) {
		const struct mc2_task *k = &acsq.v[i];
		const char *type = mc2_acsq_type_name(k->type);
		char *p;
		if (!type || !mc2_task_timed(k, base))
			continue;
		p = json_value_start(&J, 400);
		if (k->type <= 1) {
			p = slice_head(p, type, biu_colour(k->type), mc2_us6(k->start - base, khz),
			               mc2_us6(k->end - k->start, khz), k->type ? "AI CPU" : "AI CORE", type, UINT32_MAX);
		} else {
			p = slice_head(p, type, biu_colour(k->type), mc2_us6(k->start - base, khz),
			               mc2_us6(k->end - k->start, khz), "HCCL", "STREAM", k->stream);
			lane_add(&lanes[2], k->stream);
		}
		p = JW_LIT(p, ",\"args\":{");
		p = arg_uint(p, "stream id", k->stream, 1);
		p = arg_uint(p, "task id", k->task, 0);
		p = JW_LIT(p, "}}");
		json_value_done(&J, p);
		acsq_drawn++;
	}
	lane_meta(&lanes[2], "HCCL", "STREAM");

	/* The blocks' lanes, the AICore API dots and the user dots of
	 * aic_timestamp.bin (names and block marks are the plain timeline's). */
	path = xpath(dir, "aic_timestamp.bin");
	if (io_is_file(path)) {
		uint64_t dropped;
		board_check_data(path);
		rc = aicts_read(path, AICTS_REC_SIZE, base, &recs, &nrecs, &dropped, msg, sizeof msg);
		if (rc) {
			cli_warn("%s: %s", path, msg);
			status = EXIT_PARTIAL;
		}
		if (nrecs)
			aicts_classify(recs, nrecs, chip->family, aicts_new_format(recs, nrecs, blocks.aic, blocks.aiv));
	}
	free(path);
	{
		struct aicts_run run = { .kind = AICTS_MC2, .min = base, .khz = khz, .blocks = &blocks };
		if (code_path) {
			if (codetab_read(&codes, code_path, msg, sizeof msg)) {
				cli_warn("%s: %s: no source lines", code_path, msg);
				status = EXIT_PARTIAL;
			}
			run.code = code_of;
			run.code_ctx = &codes;
		}
		aicts_emit(&J, &run, recs, nrecs, &ast);
	}
	json_close_all(&J);
	wr_putc(W, '\n');

	if (cli_interrupted) {
		status = EXIT_INTR;
	} else if (!slices && !hccl_drawn && !acsq_drawn && !lanes[0].n && !ast.lanes) {
		wr_abort(W);
		cli_die(EXIT_UNUSABLE, "%s: aicpu.bin holds no communication turn and no timed HCCL task, duration.bin "
		        "no timed task: nothing written", dir);
	}
	/* EPIPE: the reader went away; the run ends as usual, quietly */
	if ((rc = wr_close(W)) && rc != EPIPE) {
		errno = rc;
		cli_die(EXIT_IO, "%s: cannot write:", out_path);
	}
	if (ntasks > hccl_drawn)
		cli_note("%s: %llu of %zu HCCL tasks have no start and end in duration.bin: not drawn", dir,
		         (unsigned long long)(ntasks - hccl_drawn), ntasks);
	if (cli_verbosity >= 1 && strcmp(out_path, "-")) {
		printf("  timeline       %s (MC2: %llu phases of %u turns, %llu HCCL tasks on %u planes, %llu tasks on %u "
		       "streams)\n", out_path, (unsigned long long)slices, lanes[0].n, (unsigned long long)hccl_drawn,
		       lanes[1].n, (unsigned long long)acsq_drawn, lanes[2].n);
		if (ast.lanes)
			printf("  timeline       %s (AI Core: %llu block lanes, %llu AICore API dots, %llu dots)\n", out_path,
			       (unsigned long long)ast.lanes, (unsigned long long)ast.api_dots, (unsigned long long)ast.dots);
		cli_flush(stdout);
	}
	if (cli_verbosity >= 2)
		cli_note("%llu records: %llu turns, %llu HCCL tasks (%llu of group 0 skipped), %llu of another type, "
		         "%llu of another level, %llu bad", (unsigned long long)st.records, (unsigned long long)st.turns,
		         (unsigned long long)st.tasks, (unsigned long long)st.no_group, (unsigned long long)st.other_type,
		         (unsigned long long)st.other_level, (unsigned long long)st.bad);
	if (ast.unpaired || ast.outside)
		cli_note("%s: %llu dots without an end, %llu outside their block's run: not drawn", dir,
		         (unsigned long long)ast.unpaired, (unsigned long long)ast.outside);
	free(recs);
	aicts_blocks_free(&blocks);
	codetab_free(&codes);
	free(turns);
	free(tasks);
	free(lanes);
	mc2_tasks_free(&acsq);
	/* A summary that cannot be written is said; the trace is in place,
	 * so the status stands. */
	(void)cli_stdout_done(status);
	return status;
}
