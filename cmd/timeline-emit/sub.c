/* The per-core DIR/<core>/trace.json (see optrace-vdata(5), TRACE.JSON (ONE
 * CORE)): one process per pipe
 * (integer pids), pipe slices packed greedily onto threads.
 *
 * Each core's file is written as its records go by, under a temporary
 * name beside the final one.  A dump may have a hundred or more cores, so
 * only a few files are open at a time: the least recently used one is
 * flushed and closed, and reopened for appending when its core comes back
 * (instr-parse writes core after core, so that is rare).  The files are in
 * the staging directory (stage.c), which any exit before the set is moved
 * in removes: a failed run leaves none of them. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "emit.h"
#include "rec.h"
#include "text.h"

#define SUB_OPEN_MAX 32
#define SUB_BUF (128u << 10)

struct subout {
	char *dir, *tmp, *final;
	const char *core;           /* its name, for messages: DIR/core/trace.json */
	int fd;
	struct wr *w;
	struct json j;
	uint64_t stamp;
};

static struct subout *open_outs[SUB_OPEN_MAX];
static int nopen;
static uint64_t clock_;

static void drop_open(struct subout *o)
{
	int i;
	for (i = 0; i < nopen; i++)
		if (open_outs[i] == o) {
			open_outs[i] = open_outs[--nopen];
			return;
		}
}

static void evict(struct subout *o)
{
	int err = wr_close(o->w);
	o->w = NULL;
	if (close(o->fd) < 0 && !err)
		err = errno;
	o->fd = -1;
	drop_open(o);
	if (err) {
		errno = err;
		cli_die(EXIT_IO, "%s/%s/trace.json: cannot write:", stage_final(), o->core);
	}
}

/* Make o writable: reopen its file, closing the least recently used. */
static struct json *use(struct subout *o)
{
	o->stamp = ++clock_;
	if (o->w)
		return &o->j;
	if (nopen == SUB_OPEN_MAX) {
		int i, lru = 0;
		for (i = 1; i < nopen; i++)
			if (open_outs[i]->stamp < open_outs[lru]->stamp)
				lru = i;
		evict(open_outs[lru]);
	}
	o->fd = open(o->tmp, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (o->fd < 0)
		cli_die(EXIT_IO, "%s/%s/trace.json: cannot reopen:", stage_final(), o->core);
	o->w = wr_fdopen_buf(o->fd, o->final, 0, SUB_BUF);
	if (!o->w)
		xnomem();
	o->j.w = o->w;
	open_outs[nopen++] = o;
	return &o->j;
}

void sub_open(struct core *c)
{
	struct subout *o = xcalloc(1, sizeof *o);
	char *base;
	struct json *j;

	c->out = o;
	o->fd = -1;
	o->core = c->name;
	o->dir = xpath(emit.opt.dir, c->name);
	/* The directory is named by the data: never write through a link. */
	if (io_tree_dir(o->dir) < 0) {
		if (errno == ENOTDIR)
			cli_die(EXIT_IO, "%s/%s: exists and is not a directory (a symbolic link is not followed)",
			        stage_final(), c->name);
		cli_die(EXIT_IO, "%s/%s: cannot create:", stage_final(), c->name);
	}
	o->final = xpath(o->dir, "trace.json");
	base = xpath(o->dir, "trace.json.tmpXXXXXX");
	o->fd = mkstemp(base);
	if (o->fd < 0) {
		int e = errno;
		free(base);
		errno = e;
		cli_die(EXIT_IO, "%s/%s/trace.json: cannot create:", stage_final(), c->name);
	}
	o->tmp = base;
	/* mkstemp makes 0600; give an output file's mode. */
	fchmod(o->fd, io_file_mode());
	close(o->fd);
	o->fd = -1;
	j = use(o);
	json_init(j, o->w);
	json_begin_object(j);
	json_kv_cstr(j, "profilingType", "op");
	json_kv_cstr(j, "displayTimeUnit", "ns");
	json_kv_uint(j, "schemaVersion", 1);
	json_key(j, "traceEvents");
	json_lines_at(j, 2);
	json_begin_array(j);
}

int sub_lane_of(int lane, const char *detail, size_t detail_n)
{
	/* Almost every A2 scalar ALU op writes XD: the reference moves them
	 * to their own lane so SCALAR keeps flags and branches. */
	if (lane == LANE_SCALAR && TEXT_FIND(detail, detail_n, "XD:"))
		return LANE_SCALARLDST;
	return lane;
}

static void meta(struct json *j, const char *what, int pid, int tid, const char *key, const char *s,
                 size_t n, int index)
{
	json_begin_object(j);
	json_kv_cstr(j, "name", what);
	/* Every event has a category (some consumers need one); this is
	 * the one Chrome gives its own metadata. */
	json_kv_cstr(j, "cat", "__metadata");
	json_kv_cstr(j, "ph", "M");
	json_kv_int(j, "pid", pid);
	json_kv_int(j, "tid", tid);
	json_key(j, "args");
	json_begin_object(j);
	if (key)
		json_kv_str(j, key, s, n);
	else
		json_kv_int(j, "sort_index", index);
	json_end_object(j);
	json_end_object(j);
}

static void process_meta(struct json *j, int lane)
{
	meta(j, "process_name", emit.lanes[lane].sub_pid, 0, "name", emit.lanes[lane].name, emit.lanes[lane].len, 0);
	meta(j, "process_sort_index", emit.lanes[lane].sub_pid, 0, NULL, NULL, 0, emit.lanes[lane].sub_pid);
}

static void thread_meta(struct json *j, int lane, int tid, const char *name, size_t n)
{
	meta(j, "thread_name", emit.lanes[lane].sub_pid, tid, "name", name, n, 0);
	meta(j, "thread_sort_index", emit.lanes[lane].sub_pid, tid, NULL, NULL, 0, tid);
}

/* First fit over the lane's threads.  A thread is free for [s, e] when
 * everything on it ended before s: cycles count as occupied inclusively,
 * as in the reference, so two slices on one thread never even touch.
 * In (end, pc) order this is exactly the reference's first-fit; for a
 * record that arrives late it is still safe, only maybe one thread more. */
static int pack(struct core *c, struct json *j, int lane, uint64_t s, uint64_t e)
{
	struct sublane *l = &c->sub[lane];
	uint32_t i;
	char name[96];
	size_t n;

	for (i = 0; i < l->n; i++)
		if (l->thr[i] < s) {
			l->thr[i] = e;
			return (int)i + 1;
		}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 4;
		l->thr = xrealloc(l->thr, l->cap * sizeof *l->thr);
	}
	l->thr[l->n++] = e;
	n = emit.lanes[lane].len < 64 ? emit.lanes[lane].len : 64;
	memcpy(name, emit.lanes[lane].name, n);
	name[n++] = '_';
	n += json_fmt_uint(name + n, l->n);
	thread_meta(j, lane, (int)l->n, name, n);
	return (int)l->n;
}

static void lane_used(struct core *c, struct json *j, int lane)
{
	if (c->sub[lane].used)
		return;
	c->sub[lane].used = 1;
	process_meta(j, lane);
}

static char *args(char *p, uint64_t pc, const char *detail, size_t detail_n, int64_t bytes)
{
	p = JW_LIT(p, ",\"args\":{\"pc_addr\":\"");
	p += fmt_pc(p, pc);
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

#define EV_FIXED 320

static void x_event(struct json *j, int lane, int tid, const char *name, size_t name_n, const char *cname,
                    uint64_t s, uint64_t e, const struct subslice *h, const char *group, size_t group_n)
{
	uint64_t a = us6(s), b = us6(e >= s ? e : s);
	size_t cn = strlen(cname);
	char *p = json_value_start(j, EV_FIXED + emit.code_json_max + JW_STR_MAX(name_n) + cn +
	                                  JW_STR_MAX(h->detail_n) + JW_STR_MAX(group_n) + emit.lanes[lane].json_n);
	p = JW_LIT(p, "{\"name\":");
	p = jw_str(p, name, name_n);
	/* The category is the pipe. */
	p = JW_LIT(p, ",\"cat\":");
	p = jw_raw(p, emit.lanes[lane].json, emit.lanes[lane].json_n);
	p = JW_LIT(p, ",\"cname\":\"");
	p = jw_raw(p, cname, cn);
	p = JW_LIT(p, "\",\"ph\":\"X\",\"ts\":");
	p = jw_fixed(p, a, 6);
	p = JW_LIT(p, ",\"dur\":");
	p = jw_fixed(p, b - a, 6);
	p = JW_LIT(p, ",\"pid\":");
	p = jw_int(p, emit.lanes[lane].sub_pid);
	p = JW_LIT(p, ",\"tid\":");
	p = jw_int(p, tid);
	p = args(p, h->pc, h->detail, h->detail_n, h->bytes);
	if (group) {
		p = JW_LIT(p, ",\"group_id\":");
		p = jw_str(p, group, group_n);
	}
	*p++ = '}';
	json_value_done(j, p);
}

/* Draw a slice on the first thread free for it.  With a scalar head, the
 * head (cache_time: fetch to issue, ccu_time: issue to pop) goes first on
 * the same thread, grouped with it as <pipe><index in the pipe>, and the
 * thread must be free from the fetch on: the reference packs the
 * instruction alone and draws its head over the thread's earlier slices,
 * which Perfetto cannot show. */
static int place(struct core *c, int lane, const struct subslice *h)
{
	struct json *j = use(c->out);
	struct sublane *l = &c->sub[lane];
	uint64_t index = l->placed++, s = h->pack_s;
	char group[96];
	size_t group_n = 0;
	int tid;

	if (h->head) {
		size_t n = emit.lanes[lane].len < 64 ? emit.lanes[lane].len : 64;
		memcpy(group, emit.lanes[lane].name, n);
		group_n = n + json_fmt_uint(group + n, index);
		if (h->icache < s)
			s = h->icache;
	}
	lane_used(c, j, lane);
	tid = pack(c, j, lane, s, h->pack_e >= s ? h->pack_e : s);
	if (h->head) {
		x_event(j, lane, tid, "cache_time", 10, h->cname, h->icache, h->ccu, h, group, group_n);
		x_event(j, lane, tid, "ccu_time", 8, h->cname, h->ccu, h->ccu > h->ts ? h->ccu : h->ts, h, group,
		        group_n);
	}
	x_event(j, lane, tid, h->name, h->name_n, h->cname, h->ts, h->te, h, group_n ? group : NULL, group_n);
	return tid;
}

int sub_slice(struct core *c, int lane, const char *name, size_t name_n, const char *cname,
              const char *detail, size_t detail_n, uint64_t order_s, uint64_t pack_s, uint64_t pack_e,
              uint64_t ts, uint64_t te, uint64_t pc, int64_t bytes, uint64_t icache, uint64_t ccu,
              int head, int may_hold)
{
	struct sublane *l;
	struct subslice now, *h;
	int before;

	if ((uint32_t)lane >= c->nlane_alloc)
		core_lanes(c);
	l = &c->sub[lane];
	/* The reference lists a lane's slices in (end, pc) order but puts a
	 * slice before the previous one when both end on the same tick and
	 * it starts later (then first fit picks threads in that order).  So
	 * the last slice of a lane waits for the next: a flag never waits,
	 * its thread is needed for its flow at once. */
	before = l->prev_set && pack_e == l->prev_e && order_s > l->prev_s;
	l->prev_set = 1;
	l->prev_s = order_s;
	l->prev_e = pack_e;
	h = &now;
	h->cname = cname;
	h->pack_s = pack_s;
	h->pack_e = pack_e;
	h->ts = ts;
	h->te = te;
	h->pc = pc;
	h->bytes = bytes;
	h->icache = icache;
	h->ccu = ccu;
	h->head = head && icache != REC_NONE && ccu != REC_NONE;
	h->name_n = (uint32_t)name_n;
	h->detail_n = (uint32_t)detail_n;
	h->name = name;
	h->detail = detail;
	if (before && l->held)
		return place(c, lane, h);
	if (l->held) {
		place(c, lane, &l->h);
		l->held = 0;
	}
	if (may_hold && !before) {
		struct subslice *k = &l->h;
		char *buf = k->buf;
		uint32_t cap = k->cap;
		if (name_n + detail_n > cap) {
			cap = (uint32_t)(name_n + detail_n < 64 ? 64 : 2 * (name_n + detail_n));
			free(buf);
			buf = xmalloc(cap);
		}
		*k = now;
		k->buf = buf;
		k->cap = cap;
		/* buf is still NULL when both texts are empty. */
		if (name_n)
			memcpy(buf, name, name_n);
		if (detail_n)
			memcpy(buf + name_n, detail, detail_n);
		k->name = buf;
		k->detail = buf + name_n;
		l->held = 1;
		return -1;
	}
	return place(c, lane, h);
}

void sub_flow(struct core *c, const struct flag *set, const struct flag *wait)
{
	struct json *j = use(c->out);
	uint64_t id = c->flows++;
	const struct lane *a = &emit.lanes[set->sub_lane], *b = &emit.lanes[wait->sub_lane];
	/* The arrow leaves the middle of the one-cycle SET slice and ends at
	 * the end of the WAIT slice, as in the reference. */
	uint64_t s0 = us6(set->end >= 1 ? set->end - 1 : 0), s1 = us6(set->end);
	int ph;

	for (ph = 0; ph < 2; ph++) {
		const struct flag *f = ph ? wait : set;
		char *p = json_value_start(j, EV_FIXED + a->json_n + b->json_n);
		p = JW_LIT(p, "{\"name\":\"flow\",\"id\":\"");
		p = jw_uint(p, id);
		p = ph ? JW_LIT(p, "\",\"ph\":\"t\",\"ts\":") : JW_LIT(p, "\",\"ph\":\"s\",\"ts\":");
		p = jw_fixed(p, ph ? us6(wait->end) : s0 + (s1 - s0) / 2, 6);
		/* Integers, like the slices they bind to (the reference writes
		 * strings here, which viewers do not match to the slices). */
		p = JW_LIT(p, ",\"pid\":");
		p = jw_int(p, f->sub_pid);
		p = JW_LIT(p, ",\"tid\":");
		p = jw_int(p, f->sub_tid);
		p = JW_LIT(p, ",\"cat\":");
		p = jw_raw(p, a->json, a->json_n - 1);
		p = JW_LIT(p, "To");
		p = jw_raw(p, b->json + 1, b->json_n - 1);
		*p++ = '}';
		json_value_done(j, p);
	}
}

void sub_mark(struct core *c, unsigned digit, const char *name, size_t name_n, uint64_t start, uint64_t end,
              uint64_t start_pc, uint64_t end_pc)
{
	const struct codeent *sa = emit.ncodes ? code_of(start_pc) : NULL, *sb = emit.ncodes ? code_of(end_pc) : NULL;
	struct json *j = use(c->out);
	uint64_t a = us6(start), b = us6(end >= start ? end : start);

	lane_used(c, j, LANE_USERMARK);
	/* A mark's thread is its number: marks of one number never nest. */
	if (!c->mark_tid_seen[digit]) {
		char tn[16] = "USERMARK_";
		tn[9] = (char)('0' + digit);
		c->mark_tid_seen[digit] = 1;
		thread_meta(j, LANE_USERMARK, (int)digit, tn, 10);
	}
	json_begin_object(j);
	json_kv_str(j, "name", name, name_n);
	json_kv_cstr(j, "cat", emit.lanes[LANE_USERMARK].name);
	json_kv_cstr(j, "cname", emit.lanes[LANE_USERMARK].cname);
	json_kv_cstr(j, "ph", "X");
	json_kv_fixed(j, "ts", a, 6);
	json_kv_fixed(j, "dur", b - a, 6);
	json_kv_int(j, "pid", emit.lanes[LANE_USERMARK].sub_pid);
	json_kv_int(j, "tid", (int)digit);
	json_key(j, "args");
	json_begin_object(j);
	json_key(j, "trace_start");
	if (sa && sb)
		json_raw_value(j, sa->json, sa->json_n);
	else
		json_string(j, "", 0);
	json_key(j, "trace_stop");
	if (sa && sb)
		json_raw_value(j, sb->json, sb->json_n);
	else
		json_string(j, "", 0);
	json_end_object(j);
	json_end_object(j);
}

/* The per-core trace says it stops short too: a named process and, for
 * Perfetto and chrome://tracing, a global instant at its last tick. */
void sub_truncated(struct core *c, const char *why, uint64_t last)
{
	struct json *j = use(c->out);
	char name[512];
	int n = snprintf(name, sizeof name, "TRUNCATED: %s", why);

	meta(j, "process_name", SUB_TRUNCATED_PID, 0, "name", name, (size_t)n, 0);
	meta(j, "process_sort_index", SUB_TRUNCATED_PID, 0, NULL, NULL, 0, -1);
	meta(j, "thread_name", SUB_TRUNCATED_PID, 0, "name", "TRUNCATED", 9, 0);
	meta(j, "thread_sort_index", SUB_TRUNCATED_PID, 0, NULL, NULL, 0, 0);
	json_begin_object(j);
	json_kv_str(j, "name", name, (size_t)n);
	json_kv_cstr(j, "cat", "optrace");
	json_kv_cstr(j, "ph", "i");
	json_kv_cstr(j, "s", "g");
	json_kv_fixed(j, "ts", us6(last), 6);
	json_kv_int(j, "pid", SUB_TRUNCATED_PID);
	json_kv_int(j, "tid", 0);
	json_key(j, "args");
	json_begin_object(j);
	json_kv_cstr(j, "truncated", why);
	json_end_object(j);
	json_end_object(j);
}

void sub_seal(struct core *c)
{
	struct json *j;
	uint32_t i;
	for (i = 0; i < c->nlane_alloc; i++)
		if (c->sub[i].held) {
			place(c, (int)i, &c->sub[i].h);
			c->sub[i].held = 0;
		}
	j = use(c->out);
	json_close_all(j);
	wr_putc(c->out->w, '\n');
}

int sub_commit(struct core *c)
{
	struct subout *o = c->out;
	int err = 0;

	if (o->w) {
		err = wr_close(o->w);
		o->w = NULL;
		drop_open(o);
	} else {
		/* Flushed and closed by eviction: reopen for the fsync. */
		o->fd = open(o->tmp, O_WRONLY | O_CLOEXEC);
		if (o->fd < 0)
			err = errno;
	}
	if (!err && fsync(o->fd) < 0 && errno != EINVAL)
		err = errno;
	if (o->fd >= 0 && close(o->fd) < 0 && !err)
		err = errno;
	o->fd = -1;
	if (!err && rename(o->tmp, o->final) < 0)
		err = errno;
	return err;
}

void sub_free(struct core *c)
{
	struct subout *o = c->out;
	uint32_t i;
	if (o) {
		/* Still open when the run ended before its commit: the
		 * staging directory goes with the exit. */
		if (o->w)
			wr_abort(o->w);
		if (o->fd >= 0)
			close(o->fd);
		free(o->dir);
		free(o->tmp);
		free(o->final);
		free(o);
		c->out = NULL;
	}
	for (i = 0; c->sub && i < c->nlane_alloc; i++) {
		free(c->sub[i].thr);
		free(c->sub[i].h.buf);
	}
	free(c->sub);
	free(c->sub_end);
	c->sub = NULL;
	c->sub_end = NULL;
}

void subs_release(void)
{
	nopen = 0;
	clock_ = 0;
}
