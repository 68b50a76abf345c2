/* The all-cores trace.json (see optrace-vdata(5), TRACE.JSON (ALL CORES)):
 * one process per core (pid = core
 * name), one thread per pipe (tid = pipe name), written event by event.
 * Events are written straight into the output buffer (json_value_start):
 * this is the hot path, one or two events per instruction. */
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "rec.h"


/* Room for an event's fixed text: keys, numbers, a pc. */
#define EV_FIXED 320

size_t fmt_pc(char *buf, uint64_t pc)
{
	/* C++ showbase: zero has no 0x. */
	if (pc == 0) {
		buf[0] = '0';
		return 1;
	}
	return (size_t)(jw_hex(buf, pc) - buf);
}

void trace_begin(void)
{
	/* profilingType first: MindStudio Insight sniffs the opening bytes. */
	json_begin_object(&emit.trace);
	json_kv_cstr(&emit.trace, "profilingType", "op");
	json_kv_cstr(&emit.trace, "displayTimeUnit", "ns");
	json_kv_uint(&emit.trace, "schemaVersion", 2);
	json_key(&emit.trace, "traceEvents");
	json_lines_at(&emit.trace, 2);
	json_begin_array(&emit.trace);
}

void trace_end(void)
{
	json_close_all(&emit.trace);
}

static char *pid_tid(char *p, const struct core *c, int lane)
{
	p = JW_LIT(p, ",\"pid\":");
	p = jw_raw(p, c->pid_json, c->pid_json_n);
	p = JW_LIT(p, ",\"tid\":");
	return jw_raw(p, emit.lanes[lane].json, emit.lanes[lane].json_n);
}

static void meta(struct core *c, const char *what, const char *tid, size_t tid_n, int index)
{
	char *p = json_value_start(&emit.trace, EV_FIXED + c->pid_json_n + tid_n);
	p = JW_LIT(p, "{\"name\":\"");
	p = jw_raw(p, what, strlen(what));
	p = JW_LIT(p, "\",\"ph\":\"M\",\"pid\":");
	p = jw_raw(p, c->pid_json, c->pid_json_n);
	p = JW_LIT(p, ",\"tid\":");
	p = jw_raw(p, tid, tid_n);
	p = JW_LIT(p, ",\"args\":{\"sort_index\":");
	p = jw_int(p, index);
	p = JW_LIT(p, "}}");
	json_value_done(&emit.trace, p);
}

void trace_core_meta(struct core *c)
{
	meta(c, "process_sort_index", "\"NA\"", 4, c->sort_index);
}

/* Every lane a core uses gets its sort index once, before its first
 * event; lanes a core never uses get none (the reference lists all 23
 * for every core, which makes viewers draw empty tracks). */
static void lane_meta(struct core *c, int lane)
{
	if ((uint32_t)lane >= c->nlane_alloc)
		core_lanes(c);
	if (c->lane[lane].seen)
		return;
	c->lane[lane].seen = 1;
	meta(c, "thread_sort_index", emit.lanes[lane].json, emit.lanes[lane].json_n, emit.lanes[lane].sort_index);
}

static char *args(char *p, uint64_t pc, const char *detail, size_t detail_n, int64_t bytes)
{
	p = JW_LIT(p, ",\"args\":{\"pc_addr\":\"");
	p += fmt_pc(p, pc);
	/* The pc's source stack from src-map ("" without one, as the
	 * reference); callers reserve code_json_max for it. */
	{
		size_t cn;
		const char *cj = code_json(pc, &cn);
		p = JW_LIT(p, "\",\"code\":");
		p = jw_raw(p, cj, cn);
	}
	p = JW_LIT(p, ",\"detail\":");
	p = jw_str(p, detail, detail_n);
	if (bytes > 0) {
		p = JW_LIT(p, ",\"process_bytes\":\"");
		p = jw_uint(p, (uint64_t)bytes);
		*p++ = '"';
	}
	*p++ = '}';
	return p;
}

static void x_event(struct core *c, int lane, const char *name, size_t name_n, const char *cname,
                    uint64_t s, uint64_t e, uint64_t pc, const char *detail, size_t detail_n,
                    int64_t bytes, const char *group, size_t group_n)
{
	uint64_t ts = us6(s), te = us6(e >= s ? e : s);
	size_t cn = strlen(cname);
	char *p = json_value_start(&emit.trace, EV_FIXED + emit.code_json_max + JW_STR_MAX(name_n) + cn + c->pid_json_n +
	                                       emit.lanes[lane].json_n + JW_STR_MAX(detail_n) + JW_STR_MAX(group_n));
	p = JW_LIT(p, "{\"name\":");
	p = jw_str(p, name, name_n);
	p = JW_LIT(p, ",\"cname\":\"");
	p = jw_raw(p, cname, cn);
	p = JW_LIT(p, "\",\"ph\":\"X\",\"ts\":");
	p = jw_fixed(p, ts, 6);
	/* dur from the rounded ends, so ts + dur is exactly the end's ts. */
	p = JW_LIT(p, ",\"dur\":");
	p = jw_fixed(p, te - ts, 6);
	p = pid_tid(p, c, lane);
	p = args(p, pc, detail, detail_n, bytes);
	if (group) {
		p = JW_LIT(p, ",\"group_id\":");
		p = jw_str(p, group, group_n);
	}
	*p++ = '}';
	json_value_done(&emit.trace, p);
}

/* Scalar head overhead: fetch to issue, issue to pop (see optrace-sidelogs(5),
 * CCU LOG, Scalar head overhead; optrace-vdata(5), TRACE.JSON (ALL CORES),
 * Scalar head). */
static void head_events(struct core *c, int lane, const char *cname, uint64_t icache, uint64_t ccu,
                        uint64_t start, uint64_t pc, const char *detail, size_t detail_n, int64_t bytes,
                        const char *group, size_t group_n)
{
	x_event(c, lane, "cache_time", 10, cname, icache, ccu, pc, detail, detail_n, bytes, group, group_n);
	x_event(c, lane, "ccu_time", 8, cname, ccu, start, pc, detail, detail_n, bytes, group, group_n);
}

void trace_slice(struct core *c, int lane, const char *name, size_t name_n, const char *detail,
                 size_t detail_n, uint64_t start, uint64_t end, uint64_t pc, int64_t bytes,
                 uint64_t icache, uint64_t ccu, int simt)
{
	const char *cname = simt ? cname_simt(name, name_n) : emit.lanes[lane].cname;
	int bar = name_n == 3 && !memcmp(name, "BAR", 3);
	char group[96];
	size_t group_n = 0;

	lane_meta(c, lane);
	if (bar) {
		/* A barrier is drawn as its last cycle. */
		start = end >= 1 ? end - 1 : 0;
	}
	if (lane != LANE_CACHEMISS) {
		/* The reference's group ids number a core's ordinary slices. */
		uint64_t index = c->groups++;
		if (icache != REC_NONE && ccu != REC_NONE && !bar) {
			size_t nn = name_n < sizeof group - 24 ? name_n : sizeof group - 24;
			memcpy(group, name, nn);
			group_n = nn + json_fmt_uint(group + nn, index);
			head_events(c, lane, cname, icache, ccu, start, pc, detail, detail_n, bytes, group, group_n);
		}
	}
	x_event(c, lane, name, name_n, cname, start, end, pc, detail, detail_n, bytes,
	        group_n ? group : NULL, group_n);
}

static const char *flag_cname(const struct flag *f)
{
	if (f->name <= FN_WAIT_EVENT)
		return FN_IS_WAIT(f->name) ? "yellow" : "black";
	/* Intra-block flags take the colour of the pipe they name. */
	return emit.lanes[f->lane].cname;
}

void trace_flag(const struct flag *f, const char *detail, size_t detail_n, const char *id, size_t id_n)
{
	struct core *c = f->core;
	const char *name = flag_names[f->name], *cname = flag_cname(f);
	size_t nn = strlen(name), cn = strlen(cname);
	/* Waits (and intra-block flags) carry the scalar head of their
	 * instruction, grouped under the flag id. */
	int head = f->icache != REC_NONE && f->ccu != REC_NONE && (FN_IS_WAIT(f->name) || f->name >= FN_SET_INTRA);
	/* An intra-block flag's end and scalar head take the colour of its
	 * name, which has none of its own (the reference's colour lookup by
	 * pipe, given the name). */
	const char *ename = f->name >= FN_SET_INTRA ? "thread_state_stopped" : cname;
	size_t en = strlen(ename);
	int ph;

	lane_meta(c, f->lane);
	if (head)
		head_events(c, f->lane, ename, f->icache, f->ccu, f->begin, f->pc, detail, detail_n, -1, id, id_n);
	for (ph = 0; ph < 2; ph++) {
		char *p = json_value_start(&emit.trace, EV_FIXED + emit.code_json_max + nn + cn + c->pid_json_n + emit.lanes[f->lane].json_n +
		                                       JW_STR_MAX(detail_n) + 2 * JW_STR_MAX(id_n));
		p = JW_LIT(p, "{\"name\":\"");
		p = jw_raw(p, name, nn);
		p = JW_LIT(p, "\",\"cname\":\"");
		p = ph ? jw_raw(p, ename, en) : jw_raw(p, cname, cn);
		p = ph ? JW_LIT(p, "\",\"ph\":\"E\",\"ts\":") : JW_LIT(p, "\",\"ph\":\"B\",\"ts\":");
		p = jw_fixed(p, us6(ph ? f->end : f->begin), 6);
		p = pid_tid(p, c, f->lane);
		p = ph ? JW_LIT(p, ",\"args\":{}") : args(p, f->pc, detail, detail_n, -1);
		p = JW_LIT(p, ",\"id\":");
		p = jw_str(p, id, id_n);
		if (head) {
			p = JW_LIT(p, ",\"group_id\":");
			p = jw_str(p, id, id_n);
		}
		*p++ = '}';
		json_value_done(&emit.trace, p);
	}
}

void trace_flow(const struct flag *set, const struct flag *wait, const char *id, size_t id_n)
{
	const struct lane *a = &emit.lanes[set->lane], *b = &emit.lanes[wait->lane];
	int ph;
	for (ph = 0; ph < 2; ph++) {
		const struct flag *f = ph ? wait : set;
		char *p = json_value_start(&emit.trace, EV_FIXED + JW_STR_MAX(id_n) + f->core->pid_json_n +
		                                       emit.lanes[f->lane].json_n + a->json_n + b->json_n);
		p = JW_LIT(p, "{\"name\":\"flow\",\"id\":");
		p = jw_str(p, id, id_n);
		p = ph ? JW_LIT(p, ",\"ph\":\"t\",\"ts\":") : JW_LIT(p, ",\"ph\":\"s\",\"ts\":");
		p = jw_fixed(p, us6(f->end), 6);
		p = pid_tid(p, f->core, f->lane);
		/* "<set pipe>To<wait pipe>", joined from the two quoted names. */
		p = JW_LIT(p, ",\"cat\":");
		p = jw_raw(p, a->json, a->json_n - 1);
		p = JW_LIT(p, "To");
		p = jw_raw(p, b->json + 1, b->json_n - 1);
		*p++ = '}';
		json_value_done(&emit.trace, p);
	}
}

void trace_mark(struct core *c, const char *name, size_t name_n, uint64_t start, uint64_t end,
                uint64_t start_pc, uint64_t end_pc)
{
	uint64_t ts = us6(start), te = us6(end >= start ? end : start);
	const struct codeent *a = emit.ncodes ? code_of(start_pc) : NULL, *b = emit.ncodes ? code_of(end_pc) : NULL;
	char *p;

	lane_meta(c, LANE_USERMARK);
	p = json_value_start(&emit.trace, EV_FIXED + 2 * emit.code_json_max + JW_STR_MAX(name_n) + c->pid_json_n +
	                                 emit.lanes[LANE_USERMARK].json_n);
	p = JW_LIT(p, "{\"name\":");
	p = jw_str(p, name, name_n);
	p = JW_LIT(p, ",\"cname\":\"rail_load\",\"ph\":\"X\",\"ts\":");
	p = jw_fixed(p, ts, 6);
	p = JW_LIT(p, ",\"dur\":");
	p = jw_fixed(p, te - ts, 6);
	p = pid_tid(p, c, LANE_USERMARK);
	/* Source lines of the start and stop marks: only when both pcs
	 * have one, as in the reference. */
	if (a && b) {
		p = JW_LIT(p, ",\"args\":{\"trace_start\":");
		p = jw_raw(p, a->json, a->json_n);
		p = JW_LIT(p, ",\"trace_stop\":");
		p = jw_raw(p, b->json, b->json_n);
		p = JW_LIT(p, "}}");
	} else {
		p = JW_LIT(p, ",\"args\":{\"trace_start\":\"\",\"trace_stop\":\"\"}}");
	}
	json_value_done(&emit.trace, p);
}

/* MTE bandwidth buckets (see optrace-sidelogs(5), MTE LOG, The bandwidth
 * chart; optrace-vdata(5), TRACE.JSON (ALL CORES), MTE bandwidth) as
 * counter events on their own process,
 * written as they arrive.  The producer (mte-parse) already appends the
 * all-zero row after the last bucket. */
void trace_mte(const struct rec *r)
{
	static const char *const series[6] = { "GM_TO_UB", "GM_TO_L1", "GM_TO_TOTAL",
	                                       "UB_TO_GM", "L1_TO_GM", "TOTAL_TO_GM" };
	int i;

	if (!emit.mte_meta_done) {
		/* A sort index on every process, this one after the cores. */
		json_begin_object(&emit.trace);
		json_kv_cstr(&emit.trace, "name", "process_sort_index");
		json_kv_cstr(&emit.trace, "ph", "M");
		json_kv_cstr(&emit.trace, "pid", "MTE Throughput");
		json_kv_cstr(&emit.trace, "tid", "NA");
		json_key(&emit.trace, "args");
		json_begin_object(&emit.trace);
		json_kv_uint(&emit.trace, "sort_index", 1000000);
		json_end_object(&emit.trace);
		json_end_object(&emit.trace);
		emit.mte_meta_done = 1;
	}
	for (i = 0; i < 6; i++) {
		json_begin_object(&emit.trace);
		json_key(&emit.trace, "args");
		json_begin_object(&emit.trace);
		json_key(&emit.trace, "throughput(MB/s)");
		json_double(&emit.trace, r->n[W_GM_TO_UB + i].f);
		json_end_object(&emit.trace);
		json_kv_cstr(&emit.trace, "name", series[i]);
		json_kv_cstr(&emit.trace, "ph", "C");
		json_kv_cstr(&emit.trace, "pid", "MTE Throughput");
		json_kv_uint(&emit.trace, "tid", 0);
		json_kv_uint(&emit.trace, "ts", r->n[W_BUCKET].u);
		json_end_object(&emit.trace);
	}
}

/* A trace that stops short says so where a person and a program look: a
 * process named for it (metadata events are what every viewer, MindStudio
 * Insight included, accepts), sorted before the cores. */
void trace_truncated(const char *why)
{
	char name[512];
	snprintf(name, sizeof name, "TRUNCATED: %s", why);
	json_begin_object(&emit.trace);
	json_kv_cstr(&emit.trace, "name", "process_name");
	json_kv_cstr(&emit.trace, "ph", "M");
	json_kv_cstr(&emit.trace, "pid", "TRUNCATED");
	json_kv_cstr(&emit.trace, "tid", "NA");
	json_key(&emit.trace, "args");
	json_begin_object(&emit.trace);
	json_kv_cstr(&emit.trace, "name", name);
	json_kv_cstr(&emit.trace, "truncated", why);
	json_end_object(&emit.trace);
	json_end_object(&emit.trace);
	json_begin_object(&emit.trace);
	json_kv_cstr(&emit.trace, "name", "process_sort_index");
	json_kv_cstr(&emit.trace, "ph", "M");
	json_kv_cstr(&emit.trace, "pid", "TRUNCATED");
	json_kv_cstr(&emit.trace, "tid", "NA");
	json_key(&emit.trace, "args");
	json_begin_object(&emit.trace);
	json_kv_int(&emit.trace, "sort_index", -1);
	json_end_object(&emit.trace);
	json_end_object(&emit.trace);
}
