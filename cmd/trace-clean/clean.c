/* The rebuild (see trace-clean(1), RULES; the output is described in
 * optrace-clean(5), TRACE.CLEAN.JSON), one event at a time.
 *
 * A track is one pipe of one core.  Its kept slices wait in a small
 * min-heap ordered by start until no later input is expected to start
 * before them, then leave in start order.  The input comes in end order,
 * near enough, so a slice is held while it starts within a window of the
 * newest end on its track: four times the longest duration seen, doubled
 * each time a slice comes later than that; at least 64 slices are held,
 * at most 65536.  Leaving, a slice takes the lowest-numbered sub-lane that
 * is free at its start (a tournament tree of sub-lane end keys answers
 * that in O(log sub-lanes); in start order this first-fit gives the fewest
 * sub-lanes, the peak concurrency), is written out, and its start, ts text
 * and sub-lane are appended to the track's anchor list.
 *
 * Anchor lists are in start order by construction.  Full chunks of them
 * go to an unlinked temporary file, each chunk naming where the track's
 * next one goes, so memory stays bounded however long the trace is.
 *
 * Flags are paired per (core, producer pipe, consumer pipe, flag id), the
 * i-th SET by begin time with the i-th WAIT, whatever order they came in:
 * the reference writes a core's flags after its slices, grouped by
 * detail.  So nothing about a flag is kept in memory: SETs and WAITs go
 * to two external sorts (spill.c) by (key, begin), and at the end the two
 * sorted streams are zipped key by key into pairs.  The pairs are sorted
 * by consumer track and WAIT end and anchored on the consumers, one track
 * at a time, in one sequential read of its anchors; then sorted by SET
 * begin (the arrows' order) and anchored on the producers by one cursor
 * per track moving forward, and written out as they come. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rec.h"
#include "sync.h"
#include "tc.h"
#include "text.h"

struct clean_stats cstats;
char clean_error[200];

#define LANE_PENDING_MAX (1u << 16)       /* slices one track may hold back */
#define LANE_HOLD_MIN 64u                 /* ... and holds back at least */
#define WINDOW_DURS 4.0                   /* ... while within this many longest durations */
#define WINDOW_DURS_MAX 256.0
#define PENDING_BYTES_MAX (96u << 20)     /* ... and all tracks together */
#define ANCH_CHUNK 512u                   /* anchor entries per spilled chunk */
#define ANCH_PIECE 64u                    /* ... read back this many at a time */
#define SORT_RUN_BYTES (2u << 20)         /* one in-memory run of a flag or pair sort */
#define SUB_MAX 99999u                    /* sub-lanes of one pipe (tid room) */
#define TID_STRIDE 100000u
#define PID_OTHER 1000000u                /* cores with names not coreN[.subM] */
#define OPEN_FLAGS_MAX 4096u              /* B events of flags waiting for their E */

/* ---- lanes: pipe names, canonical, with what the clean trace does to them ---- */

enum { KEEP, DROP_NOISE, DROP_SCALAR };

struct lanedef {
	char *name;
	size_t n;
	int order;                  /* dataflow position: tid = (order + 1) * TID_STRIDE + sub */
	int drop;
	const char *what;           /* readable purpose, for the thread name */
	const char *cname;
};

static const struct {
	const char *name;
	int order, drop;
	const char *what, *cname;
} known_lanes[] = {
	{ "MTE2", 0, KEEP, "load GM->UB", "thread_state_iowait" },
	{ "MTE1", 1, KEEP, "load L1->L0", "thread_state_iowait" },
	{ "CUBE", 2, KEEP, "matmul", "rail_response" },
	{ "VECTOR", 3, KEEP, "compute", "good" },
	{ "FIXPIPE", 4, KEEP, "quant/out", "yellow" },
	{ "MTE3", 5, KEEP, "store UB->GM", "cq_build_passed" },
	{ "SCALAR", 6, DROP_SCALAR, "setup", "grey" },
	{ "SCALARLDST", 7, DROP_SCALAR, "scalar load/store", "grey" },
	{ "USERMARK", 8, KEEP, "trace marks", "rail_load" },
	{ "CACHEMISS", 9, DROP_NOISE, NULL, "grey" },
	{ "FLOWCTRL", 10, DROP_NOISE, NULL, "grey" },
	{ "ALL", 11, DROP_NOISE, NULL, "grey" },
};
#define ORDER_OTHER 20          /* other lanes: 20.., in order of appearance */
#define ORDER_OTHER_MAX 999
#define ORDER_WARP 1000         /* WARP_<w>: 1000 + w */
#define ORDER_WARP_MAX 9999

static const struct {
	const char *alias, *name;
} lane_alias[] = {
	{ "VEC", "VECTOR" }, { "FIXP", "FIXPIPE" }, { "FIX", "FIXPIPE" },
};

static struct lanedef *lanes;
static int nlanes, lanes_cap, other_order = ORDER_OTHER;
static int *lane_ht;            /* open addressing: lane + 1 */
static uint32_t lane_ht_mask;

static uint32_t hash_bytes(const char *s, size_t n, uint32_t h)
{
	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static void lane_ht_grow(void)
{
	uint32_t cap = lane_ht ? 2 * (lane_ht_mask + 1) : 256, i;
	free(lane_ht);
	lane_ht = xcalloc(cap, sizeof *lane_ht);
	lane_ht_mask = cap - 1;
	for (i = 0; i < (uint32_t)nlanes; i++) {
		uint32_t h = hash_bytes(lanes[i].name, lanes[i].n, 2166136261u) & lane_ht_mask;
		while (lane_ht[h])
			h = (h + 1) & lane_ht_mask;
		lane_ht[h] = (int)i + 1;
	}
}

static int lane_lookup(const char *s, size_t n);

/* The lane of a pipe name as written in a tid or a flag's detail.
 * -1 when there is no room for another (the tid scheme's limit). */
static int lane_of(const char *s, size_t n)
{
	static int last = -1;

	/* Events of one lane come in runs. */
	if (last >= 0 && last < nlanes && lanes[last].n == n && !memcmp(lanes[last].name, s, n))
		return last;
	last = lane_lookup(s, n);
	return last;
}

/* The lane named s, or -1 with *hole its free slot in the table. */
static int lane_probe(const char *s, size_t n, uint32_t *hole)
{
	uint32_t h = hash_bytes(s, n, 2166136261u) & lane_ht_mask;
	while (lane_ht[h]) {
		const struct lanedef *l = &lanes[lane_ht[h] - 1];
		if (l->n == n && !memcmp(l->name, s, n))
			return lane_ht[h] - 1;
		h = (h + 1) & lane_ht_mask;
	}
	*hole = h;
	return -1;
}

static int lane_lookup(const char *s, size_t n)
{
	uint32_t h = 0;
	size_t i;
	int w, found;
	struct lanedef *l;

	if (!lane_ht || 2 * (uint32_t)nlanes >= lane_ht_mask)
		lane_ht_grow();
	/* The table holds names after their alias only, so a name found
	 * there is no alias: the aliases are looked at on a miss. */
	if ((found = lane_probe(s, n, &h)) >= 0)
		return found;
	i = TEXT_LOOKUP(lane_alias, s, n);
	if (i < sizeof lane_alias / sizeof lane_alias[0]) {
		s = lane_alias[i].name;
		n = strlen(s);
		if ((found = lane_probe(s, n, &h)) >= 0)
			return found;
	}
	if (nlanes == lanes_cap) {
		lanes_cap = lanes_cap ? 2 * lanes_cap : 32;
		lanes = xrealloc(lanes, (size_t)lanes_cap * sizeof *lanes);
	}
	l = &lanes[nlanes];
	memset(l, 0, sizeof *l);
	l->name = xstrndup(s, n);
	l->n = n;
	l->cname = "grey";
	l->order = -1;
	i = TEXT_LOOKUP(known_lanes, s, n);
	if (i < sizeof known_lanes / sizeof known_lanes[0]) {
		l->order = known_lanes[i].order;
		l->drop = known_lanes[i].drop;
		l->what = known_lanes[i].what;
		l->cname = known_lanes[i].cname;
	} else if (n <= 9 && warp_parse(s, n, &w) && s[5] != '-' && ORDER_WARP + w <= ORDER_WARP_MAX) {
		/* SIMT warps (up to four digits) sort by number, after the pipes. */
		l->order = ORDER_WARP + w;
		l->cname = "good";
	}
	if (l->order < 0) {
		if (other_order > ORDER_OTHER_MAX) {
			free(l->name);
			return -1;
		}
		l->order = other_order++;
	}
	lane_ht[h] = nlanes + 1;
	return nlanes++;
}

/* ---- cores and tracks ---- */

struct pev {                    /* a slice held back */
	double s, d, key;
	uint64_t seq;
	uint32_t name_n, ts_n, dur_n, args_n;
	unsigned char has_dur, has_args;
	char text[];                /* name, ts, dur, args: raw JSON */
};

#define TS_TEXT 19
struct anchor {                 /* where a slice landed, for the arrows */
	double s;
	uint64_t seq;
	uint32_t sub;
	unsigned char tsn;          /* its ts as written, when short enough */
	char ts[TS_TEXT];
};
struct achunk {                 /* ANCH_CHUNK anchors, as spilled */
	uint64_t next;              /* where the track's next chunk is (file offset, or address) */
	struct anchor a[ANCH_CHUNK];
};

struct core;
struct track {
	struct core *core;
	int lane;
	struct pev **heap;
	uint32_t nheap, capheap;
	double emax, dmax, last_s;
	double mult;                /* the window in longest durations */
	int released;
	double *tree;               /* sub-lane end keys, a min tournament */
	uint32_t leaves, nsub;
	struct achunk *cur;         /* the open chunk */
	uint32_t ncur;
	uint64_t first, next;       /* the first spilled chunk, where the next goes */
	uint64_t nchunks;
	struct anchor *late;        /* slices that left out of start order */
	size_t nlate, caplate;
	uint32_t id;                /* index in tracks[] */
};

struct openflag {
	int lane, kind;
	uint32_t key;
	double begin;
};

struct core {
	char *name;                 /* as the viewer shows it */
	size_t n;
	char *id;                   /* the input's pid text (decoded) */
	size_t id_n;
	uint32_t pid, idx;
	int meta_done;
	struct track **tracks;      /* by lane */
	int ntracks;
	struct openflag *open;
	uint32_t nopen, capopen;
};

static struct core **cores;
static uint32_t ncores, capcores;
static struct track **tracks;   /* every track, by id */
static uint32_t ntracks, captracks;
static int *core_ht;
static uint32_t core_ht_mask;
static struct core *last_core;

static uint32_t core_pid(const char *s, size_t n, uint32_t seq)
{
	/* coreN.cubecoreM, coreN.veccoreM, coreN: cube before vector in a
	 * core, cores in number order (the reference's process order). */
	uint64_t num = 0, sub = 0;
	size_t i = 4, j;
	if (n < 5 || memcmp(s, "core", 4))
		return PID_OTHER + seq;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		if ((num = num * 10 + (uint64_t)(s[i] - '0')) > 99999)
			return PID_OTHER + seq;
	if (i == 4)
		return PID_OTHER + seq;
	if (i == n)
		return (uint32_t)(num * 8 + 1);
	if (s[i] != '.')
		return PID_OTHER + seq;
	i++;
	for (j = i; j < n && (s[j] < '0' || s[j] > '9'); j++)
		;
	if (j == n || n - j > 1)
		return PID_OTHER + seq;
	sub = (uint64_t)(s[j] - '0');
	if (j - i == 8 && !memcmp(s + i, "cubecore", 8) && sub < 2)
		return (uint32_t)(num * 8 + 1 + sub);
	if (j - i == 7 && !memcmp(s + i, "veccore", 7) && sub < 4)
		return (uint32_t)(num * 8 + 3 + sub);
	if (j - i == 7 && !memcmp(s + i, "mixcore", 7) && sub < 1)
		return (uint32_t)(num * 8 + 7);
	return PID_OTHER + seq;
}

static void core_ht_grow(void)
{
	uint32_t cap = core_ht ? 2 * (core_ht_mask + 1) : 64, i;
	free(core_ht);
	core_ht = xcalloc(cap, sizeof *core_ht);
	core_ht_mask = cap - 1;
	for (i = 0; i < ncores; i++) {
		uint32_t h = hash_bytes(cores[i]->id, cores[i]->id_n, 2166136261u) & core_ht_mask;
		while (core_ht[h])
			h = (h + 1) & core_ht_mask;
		core_ht[h] = (int)i + 1;
	}
}

static struct core *core_of(const char *s, size_t n)
{
	uint32_t h;
	struct core *c;

	if (last_core && last_core->id_n == n && !memcmp(last_core->id, s, n))
		return last_core;
	if (!core_ht || 2 * ncores >= core_ht_mask)
		core_ht_grow();
	h = hash_bytes(s, n, 2166136261u) & core_ht_mask;
	while (core_ht[h]) {
		c = cores[core_ht[h] - 1];
		if (c->id_n == n && !memcmp(c->id, s, n))
			return last_core = c;
		h = (h + 1) & core_ht_mask;
	}
	if (ncores == capcores) {
		capcores = capcores ? 2 * capcores : 16;
		cores = xrealloc(cores, capcores * sizeof *cores);
	}
	c = xcalloc(1, sizeof *c);
	c->id = xstrndup(s, n);
	c->id_n = n;
	c->name = c->id;
	c->n = n;
	c->pid = core_pid(s, n, ncores);
	c->idx = ncores;
	cores[ncores] = c;
	core_ht[h] = (int)ncores + 1;
	ncores++;
	return last_core = c;
}

static struct track *track_of(struct core *c, int lane)
{
	struct track *t;
	if (lane >= c->ntracks) {
		int n = nlanes > lane ? nlanes : lane + 1;
		c->tracks = xrealloc(c->tracks, (size_t)n * sizeof *c->tracks);
		memset(c->tracks + c->ntracks, 0, (size_t)(n - c->ntracks) * sizeof *c->tracks);
		c->ntracks = n;
	}
	t = c->tracks[lane];
	if (t)
		return t;
	t = xcalloc(1, sizeof *t);
	t->core = c;
	t->lane = lane;
	t->emax = -INFINITY;
	t->mult = WINDOW_DURS;
	c->tracks[lane] = t;
	if (ntracks == captracks) {
		captracks = captracks ? 2 * captracks : 64;
		tracks = xrealloc(tracks, captracks * sizeof *tracks);
	}
	t->id = ntracks;
	tracks[ntracks++] = t;
	cstats.tracks++;
	return t;
}

/* ---- output ---- */

static struct wr *out;
static struct json J;
static int doc_started;
static char *hdr_type, *hdr_schema;
static size_t hdr_type_n, hdr_schema_n;
static struct clean_opts opts;
static uint64_t seq_next;
static size_t pending_bytes;

int clean_begin(struct wr *w, const struct clean_opts *o)
{
	out = w;
	opts = *o;
	json_init(&J, w);
	memset(&cstats, 0, sizeof cstats);
	return 0;
}

void clean_header(const char *pt, size_t pn, const char *sv, size_t sn)
{
	if (pt && !hdr_type) {
		hdr_type = xstrndup(pt, pn);
		hdr_type_n = pn;
	}
	if (sv && !hdr_schema) {
		hdr_schema = xstrndup(sv, sn);
		hdr_schema_n = sn;
	}
}

void clean_top_value(const struct jval *key, const struct jval *val)
{
	size_t n;
	const char *raw = jval_raw(val, &n);
	if (val->type == JT_OBJ || val->type == JT_ARR)
		return;
	if (jstr_eq(key, "profilingType", 13))
		clean_header(raw, n, NULL, 0);
	else if (jstr_eq(key, "schemaVersion", 13))
		clean_header(NULL, 0, raw, n);
}

static void doc_start(void)
{
	if (doc_started)
		return;
	doc_started = 1;
	/* profilingType first, as in the input (viewers sniff the opening). */
	json_begin_object(&J);
	json_key(&J, "profilingType");
	if (hdr_type)
		json_raw_value(&J, hdr_type, hdr_type_n);
	else
		json_cstring(&J, "op");
	json_kv_cstr(&J, "displayTimeUnit", "ns");
	json_key(&J, "schemaVersion");
	if (hdr_schema)
		json_raw_value(&J, hdr_schema, hdr_schema_n);
	else
		json_uint(&J, 1);
	json_key(&J, "traceEvents");
	json_lines_at(&J, 2);
	json_begin_array(&J);
}

static uint32_t tid_of(const struct track *t, uint32_t sub)
{
	return (uint32_t)(lanes[t->lane].order + 1) * TID_STRIDE + sub;
}

static void meta_event(const char *what, uint32_t pid, int64_t tid, const char *key, const char *s,
                       size_t n, uint64_t num)
{
	char *p = json_value_start(&J, 160 + (s ? JW_STR_MAX(n) : 0));
	p = JW_LIT(p, "{\"name\":\"");
	p = jw_raw(p, what, strlen(what));
	/* chrome://tracing's category of metadata; every event has one, so
	 * that category filters show or hide all of them. */
	p = JW_LIT(p, "\",\"cat\":\"__metadata\",\"ph\":\"M\",\"pid\":");
	p = jw_uint(p, pid);
	if (tid >= 0) {
		p = JW_LIT(p, ",\"tid\":");
		p = jw_uint(p, (uint64_t)tid);
	}
	p = JW_LIT(p, ",\"args\":{\"");
	p = jw_raw(p, key, strlen(key));
	p = JW_LIT(p, "\":");
	p = s ? jw_str(p, s, n) : jw_uint(p, num);
	p = JW_LIT(p, "}}");
	json_value_done(&J, p);
}

static void core_meta(struct core *c)
{
	doc_start();
	c->meta_done = 1;
	cstats.cores++;
	meta_event("process_name", c->pid, -1, "name", c->name, c->n, 0);
	meta_event("process_sort_index", c->pid, -1, "sort_index", NULL, 0, c->pid);
}

static void sub_meta(struct track *t, uint32_t sub)
{
	const struct lanedef *l = &lanes[t->lane];
	char name[256];
	int n;
	uint32_t tid = tid_of(t, sub);

	/* "MTE1#2 (load L1->L0)": the pipe name first, so lanes grep. */
	if (sub)
		n = snprintf(name, sizeof name, "%.*s#%u", (int)(l->n > 200 ? 200 : l->n), l->name, sub);
	else
		n = snprintf(name, sizeof name, "%.*s", (int)(l->n > 200 ? 200 : l->n), l->name);
	if (l->what)
		n += snprintf(name + n, sizeof name - (size_t)n, " (%s)", l->what);
	meta_event("thread_name", t->core->pid, tid, "name", name, (size_t)n, 0);
	meta_event("thread_sort_index", t->core->pid, tid, "sort_index", NULL, 0, tid);
}

static void write_slice(const struct track *t, uint32_t sub, const struct pev *x)
{
	const struct lanedef *l = &lanes[t->lane];
	size_t cn = strlen(l->cname);
	const char *tx = x->text;
	char *p = json_value_start(&J, 160 + cn + JW_STR_MAX(l->n) + x->name_n + x->ts_n + x->dur_n + x->args_n);

	p = JW_LIT(p, "{\"name\":");
	p = jw_raw(p, tx, x->name_n);
	tx += x->name_n;
	/* The category is the lane (the canonical pipe), so one pipe can be
	 * picked out in a viewer's category filter. */
	p = JW_LIT(p, ",\"cat\":");
	p = jw_str(p, l->name, l->n);
	p = JW_LIT(p, ",\"ph\":\"X\",\"pid\":");
	p = jw_uint(p, t->core->pid);
	p = JW_LIT(p, ",\"tid\":");
	p = jw_uint(p, tid_of(t, sub));
	p = JW_LIT(p, ",\"ts\":");
	p = jw_raw(p, tx, x->ts_n);
	tx += x->ts_n;
	p = JW_LIT(p, ",\"cname\":\"");
	p = jw_raw(p, l->cname, cn);
	*p++ = '"';
	if (x->has_dur) {
		p = JW_LIT(p, ",\"dur\":");
		p = jw_raw(p, tx, x->dur_n);
	}
	tx += x->dur_n;
	if (x->has_args) {
		p = JW_LIT(p, ",\"args\":");
		p = jw_raw(p, tx, x->args_n);
	}
	*p++ = '}';
	json_value_done(&J, p);
	cstats.slices_written++;
}

/* ---- sub-lanes ---- */

/* The least x with llround(x * 1000) >= n: where a slice ending at n ns
 * (Perfetto rounds ts and dur to ns separately) lets the next one start. */
static double ns_threshold(long long n)
{
	double x = ((double)n - 0.5) / 1000.0;
	while (llround(x * 1000.0) >= n)
		x = nextafter(x, -INFINITY);
	while (llround(x * 1000.0) < n)
		x = nextafter(x, INFINITY);
	return x;
}

/* When a sub-lane holding [s, s + d] is free again: at its end, or later
 * if Perfetto's ns rounding would make the next slice overlap it. */
static double slice_key(double s, double d)
{
	double e = s + d, sv = s * 1000.0, dv = d * 1000.0, thr;
	if (!(fabs(sv) < 4e18 && fabs(dv) < 4e18))
		return e;
	thr = ns_threshold(llround(sv) + llround(dv));
	return thr > e ? thr : e;
}

static void tree_set(struct track *t, uint32_t k, double key)
{
	uint32_t i = t->leaves + k;
	t->tree[i] = key;
	for (i >>= 1; i; i >>= 1) {
		double a = t->tree[2 * i], b = t->tree[2 * i + 1];
		t->tree[i] = a < b ? a : b;
	}
}

static int tree_add(struct track *t)
{
	if (t->nsub == t->leaves) {
		uint32_t old = t->leaves, cap = old ? 2 * old : 4, i;
		double *nt = xmalloc(2 * (size_t)cap * sizeof *nt);
		for (i = 0; i < 2 * cap; i++)
			nt[i] = INFINITY;
		for (i = 0; i < old; i++)
			nt[cap + i] = t->tree[old + i];
		for (i = cap - 1; i; i--)
			nt[i] = nt[2 * i] < nt[2 * i + 1] ? nt[2 * i] : nt[2 * i + 1];
		free(t->tree);
		t->tree = nt;
		t->leaves = cap;
	}
	return (int)t->nsub++;
}

/* The lowest sub-lane free at s, or nsub when none is. */
static uint32_t tree_first_free(const struct track *t, double s)
{
	uint32_t i = 1;
	if (!t->leaves || t->tree[1] > s)
		return t->nsub;
	while (i < t->leaves)
		i = t->tree[2 * i] <= s ? 2 * i : 2 * i + 1;
	return i - t->leaves;
}

/* ---- anchors ---- */

static int spill_fd = -2;       /* -2: not yet tried, -1: none (keep in memory) */
static uint64_t spill_off;

static uint64_t slot_reserve(void)
{
	uint64_t off = spill_off;
	spill_off += sizeof(struct achunk);
	return off;
}

/* The open chunk is full: to the file, at the place the previous chunk
 * named, naming a place for the next (a hole if there is none).  Without
 * a file the chunks stay in memory, chained the same way. */
static int anchor_flush(struct track *t)
{
	if (spill_fd == -2)
		spill_fd = xs_tmpfd();
	if (spill_fd >= 0) {
		uint64_t at;
		int e;
		if (!t->nchunks)
			t->first = t->next = slot_reserve();
		at = t->next;
		t->next = t->cur->next = slot_reserve();
		e = xs_pwrite(spill_fd, t->cur, sizeof *t->cur, at);
		if (e) {
			snprintf(clean_error, sizeof clean_error, "temporary file: write error: %s", strerror(e));
			return -1;
		}
	} else {
		struct achunk *ch = t->cur;
		ch->next = 0;
		if (!t->nchunks)
			t->first = (uint64_t)(uintptr_t)ch;
		else
			((struct achunk *)(uintptr_t)t->next)->next = (uint64_t)(uintptr_t)ch;
		t->next = (uint64_t)(uintptr_t)ch;
		t->cur = NULL;
	}
	t->nchunks++;
	t->ncur = 0;
	return 0;
}

static int anchor_add(struct track *t, const struct pev *x, uint32_t sub, int late)
{
	struct anchor *a;
	if (late) {
		if (t->nlate == t->caplate) {
			t->caplate = t->caplate ? 2 * t->caplate : 16;
			t->late = xrealloc(t->late, t->caplate * sizeof *t->late);
		}
		a = &t->late[t->nlate++];
	} else {
		if (!t->cur)
			t->cur = xmalloc(sizeof *t->cur);
		a = &t->cur->a[t->ncur++];
	}
	a->s = x->s;
	a->seq = x->seq;
	a->sub = sub;
	a->tsn = x->ts_n <= TS_TEXT ? (unsigned char)x->ts_n : 0;
	memcpy(a->ts, x->text + x->name_n, a->tsn);
	if (!late && t->ncur == ANCH_CHUNK)
		return anchor_flush(t);
	return 0;
}

/* ---- the pending heap ---- */

static int pev_less(const struct pev *a, const struct pev *b)
{
	if (a->s != b->s)
		return a->s < b->s;
	if (a->d != b->d)
		return a->d < b->d;
	return a->seq < b->seq;
}

static void heap_push(struct track *t, struct pev *x)
{
	uint32_t i;
	if (t->nheap == t->capheap) {
		t->capheap = t->capheap ? 2 * t->capheap : 16;
		t->heap = xrealloc(t->heap, t->capheap * sizeof *t->heap);
	}
	i = t->nheap++;
	while (i && pev_less(x, t->heap[(i - 1) / 2])) {
		t->heap[i] = t->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	t->heap[i] = x;
}

static struct pev *heap_pop(struct track *t)
{
	struct pev *top = t->heap[0], *x = t->heap[--t->nheap];
	uint32_t i = 0, n = t->nheap;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && pev_less(t->heap[c + 1], t->heap[c]))
			c++;
		if (!pev_less(t->heap[c], x))
			break;
		t->heap[i] = t->heap[c];
		i = c;
	}
	if (n)
		t->heap[i] = x;
	return top;
}

/* The heap's first slice leaves: a sub-lane, the output, the anchors. */
static int release(struct track *t)
{
	struct pev *x = heap_pop(t);
	uint32_t k;
	int late = 0;

	pending_bytes -= sizeof *x + x->name_n + x->ts_n + x->dur_n + x->args_n;
	if (!t->core->meta_done)
		core_meta(t->core);
	k = tree_first_free(t, x->s);
	if (k == t->nsub) {
		if (t->nsub >= SUB_MAX) {
			snprintf(clean_error, sizeof clean_error,
			         "%s: %s: more than %u overlapping slices on one pipe", t->core->name,
			         lanes[t->lane].name, SUB_MAX);
			free(x);
			return -1;
		}
		tree_add(t);
		sub_meta(t, k);
		if (t->nsub > cstats.max_sub)
			cstats.max_sub = t->nsub;
	}
	tree_set(t, k, x->key);
	if (t->released && x->s < t->last_s) {
		/* Arrived after later slices had left: placed correctly, but
		 * the sub-lane count may exceed the peak concurrency.  The
		 * input is less ordered than thought: hold more back. */
		late = 1;
		cstats.late++;
		if (t->mult < WINDOW_DURS_MAX)
			t->mult *= 2;
	} else {
		t->last_s = x->s;
		t->released = 1;
	}
	write_slice(t, k, x);
	{
		int r = anchor_add(t, x, k, late);
		free(x);
		return r;
	}
}

static int push_slice(struct core *c, int lane, const char *name, size_t name_n, const char *ts,
                      size_t ts_n, double s, const char *dur, size_t dur_n, int has_dur, double d,
                      const char *args, size_t args_n)
{
	struct track *t = track_of(c, lane);
	size_t sz = sizeof(struct pev) + name_n + ts_n + dur_n + args_n;
	struct pev *x = xmalloc(sz);
	char *p = x->text;
	double e;

	x->s = s;
	x->d = d;
	x->key = slice_key(s, d);
	x->seq = seq_next++;
	x->name_n = (uint32_t)name_n;
	x->ts_n = (uint32_t)ts_n;
	x->dur_n = (uint32_t)dur_n;
	x->args_n = (uint32_t)args_n;
	x->has_dur = (unsigned char)has_dur;
	x->has_args = args != NULL;
	memcpy(p, name, name_n);
	memcpy(p += name_n, ts, ts_n);
	memcpy(p += ts_n, dur, dur_n);
	if (args)
		memcpy(p + dur_n, args, args_n);
	heap_push(t, x);
	pending_bytes += sz;
	cstats.kept++;

	e = s + d;
	if (e > t->emax)
		t->emax = e;
	if (d > t->dmax)
		t->dmax = d;
	/* Input comes in end order, roughly: nothing later is expected to
	 * start before emax - mult * dmax, so slices before it leave.  The
	 * caps bound the rest. */
	while (t->nheap) {
		struct pev *top = t->heap[0];
		if ((t->nheap <= LANE_HOLD_MIN || !(top->s < t->emax - t->mult * t->dmax)) &&
		    t->nheap <= LANE_PENDING_MAX && pending_bytes <= PENDING_BYTES_MAX)
			break;
		if (release(t))
			return -1;
	}
	return 0;
}

/* ---- flags ---- */

struct fkey {
	uint32_t core;
	int prod, cons;             /* lanes, -1 when the detail names none */
	char *id;
	size_t id_n;
	char *label;
};
/* A SET or WAIT on its way to be paired. */
struct frec {
	uint32_t key;
	double b, e;                /* begin and end */
	uint64_t seq;               /* input order, for ties */
};
/* A pair on its way to its consumer anchor ... */
struct crec {
	uint32_t track;             /* the consumer's kept track, or NO_TRACK */
	uint32_t key;
	double t_wait, t_set;       /* anchored after the WAIT ended, before the SET began */
	uint64_t seq;               /* the SET's */
};
#define NO_TRACK UINT32_MAX
/* ... and then to its producer anchor, in arrow order. */
struct prec {
	double t_set;
	uint64_t seq;
	double cs;                  /* the consumer anchor's start */
	uint32_t key, csub;
	unsigned char cok, cn;
	char cts[TS_TEXT];          /* ... as written, when short */
};

static struct fkey *fkeys;
static uint32_t nfkeys, capfkeys;
static uint32_t *fkey_ht, fkey_ht_mask;
static struct xsort *fsort[2];  /* SETs, WAITs */

static uint32_t fkey_hash(uint32_t core, int prod, int cons, const char *id, size_t n)
{
	uint32_t h = 2166136261u;
	h = (h ^ core) * 16777619u;
	h = (h ^ (uint32_t)prod) * 16777619u;
	h = (h ^ (uint32_t)cons) * 16777619u;
	return hash_bytes(id, n, h);
}

static void fkey_ht_grow(void)
{
	uint32_t cap = fkey_ht ? 2 * (fkey_ht_mask + 1) : 256, i;
	free(fkey_ht);
	fkey_ht = xcalloc(cap, sizeof *fkey_ht);
	fkey_ht_mask = cap - 1;
	for (i = 0; i < nfkeys; i++) {
		const struct fkey *k = &fkeys[i];
		uint32_t h = fkey_hash(k->core, k->prod, k->cons, k->id, k->id_n) & fkey_ht_mask;
		while (fkey_ht[h])
			h = (h + 1) & fkey_ht_mask;
		fkey_ht[h] = i + 1;
	}
}

/* The key of a flag of core c: its producer and consumer pipes and its
 * id, as the detail or the record gives them. */
static uint32_t flag_key(struct core *c, const struct sync_fields *ft)
{
	const char *prod = ft->prod, *cons = ft->cons, *id = ft->flag;
	size_t prod_n = ft->prod_n, cons_n = ft->cons_n, id_n = ft->flag_n;
	int lp, lc;
	uint32_t h, ci = c->idx;
	struct fkey *k;

	lp = prod_n ? lane_of(prod, prod_n) : -1;
	lc = cons_n ? lane_of(cons, cons_n) : -1;
	if (!id) {
		id = "";
		id_n = 0;
	}
	if (!fkey_ht || 2 * nfkeys >= fkey_ht_mask)
		fkey_ht_grow();
	h = fkey_hash(ci, lp, lc, id, id_n) & fkey_ht_mask;
	while (fkey_ht[h]) {
		k = &fkeys[fkey_ht[h] - 1];
		if (k->core == ci && k->prod == lp && k->cons == lc && k->id_n == id_n && !memcmp(k->id, id, id_n))
			return fkey_ht[h] - 1;
		h = (h + 1) & fkey_ht_mask;
	}
	if (nfkeys == capfkeys) {
		capfkeys = capfkeys ? 2 * capfkeys : 64;
		fkeys = xrealloc(fkeys, capfkeys * sizeof *fkeys);
	}
	k = &fkeys[nfkeys];
	memset(k, 0, sizeof *k);
	k->core = ci;
	k->prod = lp;
	k->cons = lc;
	k->id = xstrndup(id, id_n);
	k->id_n = id_n;
	{
		/* "MTE2->VEC flag0", the established tool's label. */
		size_t ln = (prod_n ? prod_n : 1) + (cons_n ? cons_n : 1) + (id_n ? id_n : 1) + 8;
		k->label = xmalloc(ln);
		snprintf(k->label, ln, "%.*s->%.*s flag%.*s", (int)(prod_n ? prod_n : 1), prod_n ? prod : "?",
		         (int)(cons_n ? cons_n : 1), cons_n ? cons : "?", (int)(id_n ? id_n : 1),
		         id_n ? id : "?");
	}
	fkey_ht[h] = nfkeys + 1;
	return nfkeys++;
}

/* Keys compared in turn, leaving at the first that differs: the results
 * of order.h's cmp_u64 and cmp_f64 (a NaN neither less nor greater),
 * fewer instructions in sorts that call these millions of times. */
#define ORDER_BY(a, b) do { if ((a) < (b)) return -1; if ((a) > (b)) return 1; } while (0)

static int frec_cmp(const void *a, const void *b)
{
	const struct frec *x = a, *y = b;
	ORDER_BY(x->key, y->key);
	ORDER_BY(x->b, y->b);
	ORDER_BY(x->seq, y->seq);
	return 0;
}

/* A whole flag (kind 0 SET, 1 WAIT).  Pairing waits for the end: the
 * i-th SET of a key by begin time goes with its i-th WAIT whatever order
 * the input gave them in, and the pairs are only anchored at the end
 * anyway (the slices they point at may come later).  Meanwhile the flag
 * waits in an external sort, not in memory. */
static void flag_done(uint32_t key, int kind, double begin, double end)
{
	struct frec f;
	cstats.flags++;
	if (!fsort[kind])
		fsort[kind] = xs_new(sizeof f, frec_cmp, SORT_RUN_BYTES / sizeof f);
	memset(&f, 0, sizeof f);
	f.key = key;
	f.b = begin;
	f.e = end;
	f.seq = seq_next++;
	xs_add(fsort[kind], &f);
}

static void flag_open(struct core *c, int lane, int kind, uint32_t key, double begin)
{
	struct openflag *o;
	if (c->nopen == OPEN_FLAGS_MAX) {
		/* Begins that never end: forget the oldest. */
		memmove(c->open, c->open + 1, (c->nopen - 1) * sizeof *c->open);
		c->nopen--;
		cstats.malformed++;
	}
	if (c->nopen == c->capopen) {
		c->capopen = c->capopen ? 2 * c->capopen : 8;
		c->open = xrealloc(c->open, c->capopen * sizeof *c->open);
	}
	o = &c->open[c->nopen++];
	o->lane = lane;
	o->kind = kind;
	o->key = key;
	o->begin = begin;
}

static int flag_close(struct core *c, int lane, int kind, double end)
{
	uint32_t i = c->nopen;
	while (i--) {
		if (c->open[i].lane == lane && c->open[i].kind == kind) {
			struct openflag o = c->open[i];
			memmove(c->open + i, c->open + i + 1, (c->nopen - i - 1) * sizeof *c->open);
			c->nopen--;
			flag_done(o.key, kind, o.begin, end);
			return 0;
		}
	}
	return -1;
}

/* ---- trace.json events ---- */

enum { N_OTHER, N_FLAG_SET, N_FLAG_WAIT, N_SYNC, N_OVERHEAD };

static int name_class(const char *s, size_t n)
{
	static const struct {
		const char *name;
		int cls;
	} names[] = {
		{ "SET_FLAG", N_FLAG_SET }, { "WAIT_FLAG", N_FLAG_WAIT },
		{ "set_event", N_FLAG_SET }, { "wait_event", N_FLAG_WAIT },
		{ "BAR", N_SYNC }, { "SET_INTRA_BLOCK", N_SYNC }, { "SET_INTRA_BLOCKI", N_SYNC },
		{ "WAIT_INTRA_BLOCK", N_SYNC }, { "WAIT_INTRA_BLOCKI", N_SYNC },
		{ "cache_time", N_OVERHEAD }, { "ccu_time", N_OVERHEAD },
	};
	size_t i;
	if (n > 17 || n < 3)
		return N_OTHER;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (strlen(names[i].name) == n && !memcmp(names[i].name, s, n))
			return names[i].cls;
	return N_OTHER;
}

/* The same classes from a record's sync field (see optrace-records(5)). */
static int sync_class(int sync)
{
	switch (sync) {
	case SYNC_SET: return N_FLAG_SET;
	case SYNC_WAIT: return N_FLAG_WAIT;
	case SYNC_SET_INTRA:
	case SYNC_WAIT_INTRA:
	case SYNC_BAR: return N_SYNC;
	default: return N_OTHER;
	}
}

static void malformed(uint64_t off, const char *why)
{
	if (!cstats.malformed++)
		snprintf(cstats.malformed_example, sizeof cstats.malformed_example, "offset %llu: %s",
		         (unsigned long long)off, why);
}

/* A pid or tid as text: a string decoded, a number as written. */
static int id_text(const struct jval *v, char *buf, size_t cap, const char **s, size_t *n)
{
	if (v->type == JT_STR) {
		if (!v->esc) {
			*s = v->p;
			*n = v->n;
			return 0;
		}
		if (v->n > cap)
			return -1;
		*n = jstr_decode(v, buf);
		*s = buf;
		return 0;
	}
	if (v->type == JT_NUM || v->type == JT_NONE) {
		*s = v->p;
		*n = v->type == JT_NONE ? 0 : v->n;
		return 0;
	}
	return -1;
}

static struct jobj args_obj;

/* The detail string of an args object. */
static int args_detail(const struct jval *args, const char **d, size_t *dn, char **tofree)
{
	const char *p = args->p;
	struct jerr e;
	size_t i;

	*d = "";
	*dn = 0;
	*tofree = NULL;
	if (args->type != JT_OBJ || jobj_parse(&p, args->p + args->n, &args_obj, &e) != J_OK)
		return -1;
	for (i = args_obj.n; i-- > 0;) {
		const struct jmem *m = &args_obj.m[i];
		if (jstr_eq(&m->key, "detail", 6) && m->val.type == JT_STR) {
			if (m->val.esc) {
				*tofree = xmalloc(m->val.n + 1);
				*dn = jstr_decode(&m->val, *tofree);
				*d = *tofree;
			} else {
				*d = m->val.p;
				*dn = m->val.n;
			}
			return 0;
		}
	}
	return 0;
}

int clean_trace_event(const struct jobj *o, uint64_t off)
{
	const struct jval *name = NULL, *ph = NULL, *ts = NULL, *dur = NULL, *pid = NULL, *tid = NULL,
	                  *args = NULL;
	static const struct jval none = { "", 0, JT_NONE, 0 };
	char pidbuf[256], tidbuf[256];
	const char *ps, *tsx, *nm;
	size_t pn, tn, nn;
	size_t i;
	int lane, cls;
	char phc;
	double s, d = 0;
	int ok;
	struct core *c;

	cstats.events++;
	if (!o) {
		malformed(off, "an event that is not an object");
		return 0;
	}
	/* Last duplicate wins, as in Python's json. */
	for (i = 0; i < o->n; i++) {
		const struct jmem *m = &o->m[i];
		const struct jval *k = &m->key;
		if (k->esc)
			continue;
		switch (k->n) {
		case 2:
			if (!memcmp(k->p, "ph", 2))
				ph = &m->val;
			else if (!memcmp(k->p, "ts", 2))
				ts = &m->val;
			break;
		case 3:
			if (!memcmp(k->p, "dur", 3))
				dur = &m->val;
			else if (!memcmp(k->p, "pid", 3))
				pid = &m->val;
			else if (!memcmp(k->p, "tid", 3))
				tid = &m->val;
			break;
		case 4:
			if (!memcmp(k->p, "name", 4))
				name = &m->val;
			else if (!memcmp(k->p, "args", 4))
				args = &m->val;
			break;
		}
	}
	if (!ph || ph->type != JT_STR || ph->n != 1 || ph->esc) {
		cstats.dropped_other++;
		return 0;
	}
	phc = ph->p[0];
	if (phc != 'X' && phc != 'B' && phc != 'E') {
		cstats.dropped_other++;
		return 0;
	}
	if (!name || name->type != JT_STR) {
		if (phc == 'X')
			malformed(off, "an X event without a string name");
		else
			cstats.dropped_other++;
		return 0;
	}
	nm = name->p;
	nn = name->n;
	cls = name->esc ? N_OTHER : name_class(nm, nn);
	if ((phc == 'B' || phc == 'E') && cls != N_FLAG_SET && cls != N_FLAG_WAIT) {
		cstats.dropped_other++;
		return 0;
	}
	/* What is dropped anyway is dropped before its numbers are read. */
	if (cls == N_SYNC) {
		cstats.dropped_sync++;
		return 0;
	}
	if (cls == N_OVERHEAD) {
		cstats.dropped_overhead++;
		return 0;
	}
	if (id_text(pid ? pid : &none, pidbuf, sizeof pidbuf, &ps, &pn) ||
	    id_text(tid ? tid : &none, tidbuf, sizeof tidbuf, &tsx, &tn)) {
		malformed(off, "a pid or tid that is neither a string nor a number");
		return 0;
	}
	lane = lane_of(tsx, tn);
	if (lane < 0) {
		snprintf(clean_error, sizeof clean_error, "offset %llu: more than %d distinct lanes",
		         (unsigned long long)off, ORDER_OTHER_MAX - ORDER_OTHER);
		return -1;
	}
	if (cls == N_OTHER &&
	    (lanes[lane].drop == DROP_NOISE || (lanes[lane].drop == DROP_SCALAR && !opts.keep_scalar))) {
		cstats.dropped_lane++;
		cstats.dropped_scalar += lanes[lane].drop == DROP_SCALAR;
		return 0;
	}
	if (!ts || ts->type != JT_NUM) {
		malformed(off, "an event without a numeric ts");
		return 0;
	}
	s = jnum(ts->p, ts->n, &ok);
	if (!ok) {
		malformed(off, "a ts that is not a finite number");
		return 0;
	}
	if (dur && phc == 'X') {
		if (dur->type != JT_NUM) {
			malformed(off, "a dur that is not a number");
			return 0;
		}
		d = jnum(dur->p, dur->n, &ok);
		if (!ok || d < 0) {
			malformed(off, "a dur that is negative or not a finite number");
			return 0;
		}
	}
	c = core_of(ps, pn);

	if (cls == N_FLAG_SET || cls == N_FLAG_WAIT) {
		int kind = cls == N_FLAG_WAIT;
		if (phc == 'E') {
			if (flag_close(c, lane, kind, s))
				cstats.dropped_other++;
			return 0;
		}
		{
			const char *det;
			size_t dn;
			char *tofree;
			uint32_t key;
			struct sync_fields ft;
			/* A trace has no records: its detail text is read by
			 * the rule instr-parse applies to the log. */
			args_detail(args ? args : &none, &det, &dn, &tofree);
			sync_parse(det, dn, &ft);
			key = flag_key(c, &ft);
			free(tofree);
			if (phc == 'B')
				flag_open(c, lane, kind, key, s);
			else
				flag_done(key, kind, s, s + d);
		}
		cstats.dropped_sync++;
		return 0;
	}
	{
		size_t an = 0;
		const char *ar = args ? jval_raw(args, &an) : NULL;
		size_t namen, dn = 0;
		const char *namer = jval_raw(name, &namen), *dr = dur ? dur->p : "";
		if (dur)
			dn = dur->n;
		return push_slice(c, lane, namer, namen, ts->p, ts->n, s, dr, dn, dur != NULL, d, ar, an);
	}
}

/* ---- records ---- */

int clean_record(const struct rinstr *r)
{
	struct core *c = core_of(r->core, r->core_n);
	int lane, cls = r->mark ? N_OTHER : sync_class(r->sync);
	char ts[32], dur[32];
	size_t tsn, dn;
	uint64_t te6 = r->te6 >= r->ts6 ? r->te6 : r->ts6;

	lane = r->pipe_n ? lane_of(r->pipe, r->pipe_n) : lane_of("ALL", 3);
	if (lane < 0) {
		snprintf(clean_error, sizeof clean_error, "more than %d distinct lanes",
		         ORDER_OTHER_MAX - ORDER_OTHER);
		return -1;
	}
	cstats.events++;
	if (cls == N_FLAG_SET || cls == N_FLAG_WAIT) {
		struct sync_fields ft = { r->prod, r->cons, r->flag, r->prod_n, r->cons_n, r->flag_n };
		uint32_t key = flag_key(c, &ft);
		/* As timeline-emit draws them: a SET begins one tick before its
		 * end; the wait's end is its end. */
		if (cls == N_FLAG_SET)
			flag_done(key, 0, (double)r->set6 / 1e6, (double)r->te6 / 1e6);
		else
			flag_done(key, 1, (double)r->ts6 / 1e6, (double)r->te6 / 1e6);
		cstats.dropped_sync++;
		return 0;
	}
	if (cls == N_SYNC) {
		cstats.dropped_sync++;
		return 0;
	}
	if (lanes[lane].drop == DROP_NOISE || (lanes[lane].drop == DROP_SCALAR && !opts.keep_scalar)) {
		cstats.dropped_lane++;
		cstats.dropped_scalar += lanes[lane].drop == DROP_SCALAR;
		return 0;
	}
	tsn = (size_t)(jw_fixed(ts, r->ts6, 6) - ts);
	dn = (size_t)(jw_fixed(dur, te6 - r->ts6, 6) - dur);
	{
		/* The args timeline-emit writes, so both ways give one trace. */
		size_t cap = 96 + JW_STR_MAX(r->detail_n) + JW_STR_MAX(r->name_n);
		char stackbuf[1024], *buf = cap <= sizeof stackbuf ? stackbuf : xmalloc(cap);
		char *p = buf, *name, *args;
		size_t name_n, args_n;
		int k;

		name = p;
		p = jw_str(p, r->name, r->name_n);
		name_n = (size_t)(p - name);
		args = p;
		if (r->mark) {
			p = JW_LIT(p, "{\"trace_start\":\"\",\"trace_stop\":\"\"}");
		} else {
			static const char hex[] = "0123456789abcdef";
			char tmp[20];
			size_t n = 0;
			uint64_t pc = r->pc;
			p = JW_LIT(p, "{\"pc_addr\":\"");
			if (!pc) {
				*p++ = '0';
			} else {
				*p++ = '0';
				*p++ = 'x';
				while (pc) {
					tmp[n++] = hex[pc & 15];
					pc >>= 4;
				}
				while (n)
					*p++ = tmp[--n];
			}
			p = JW_LIT(p, "\",\"code\":\"\",\"detail\":");
			p = jw_str(p, r->detail, r->detail_n);
			if (r->bytes > 0) {
				p = JW_LIT(p, ",\"process_bytes\":\"");
				p = jw_uint(p, (uint64_t)r->bytes);
				*p++ = '"';
			}
			*p++ = '}';
		}
		args_n = (size_t)(p - args);
		k = push_slice(c, lane, name, name_n, ts, tsn, (double)r->ts6 / 1e6, dur, dn, 1,
		               (double)(te6 - r->ts6) / 1e6, args, args_n);
		if (buf != stackbuf)
			free(buf);
		return k;
	}
}

/* ---- the end: release, anchor, close ---- */

/* A reader of a track's anchors in start order (the spilled chunks, the
 * open one, merged with the late ones), grouped by start: what a query
 * at time t gets is the group starting last at or before t (producer) or
 * first at or after t (consumer); among slices starting together, the
 * first of the input (the established tool's stable sort) for a consumer
 * and the last for a producer.  Queries come in time order. */
struct acur {
	const struct track *t;
	uint64_t chunk;             /* spilled chunks passed */
	uint64_t slot;              /* the current one */
	uint32_t pos;               /* its next anchor to read */
	struct anchor *buf;         /* what was read of it (file) */
	const struct anchor *view;  /* buf, or the chunk itself (memory) */
	uint32_t bi, bn;
	int in_cur;                 /* reading the open chunk */
	size_t li;                  /* position in late */
	int started;
	struct anchor nx;           /* the next anchor, when have_nx */
	int have_nx;
	struct anchor best;         /* producer: the group before nx */
	int have_best;
	struct anchor gmin;         /* consumer: the group at or after the last query */
	int have_g;
};

static void acur_start(struct acur *c, const struct track *t)
{
	struct anchor *buf = c->buf;
	memset(c, 0, sizeof *c);
	c->buf = buf;
	c->t = t;
	c->slot = t->first;
}

/* The next anchor of the main list: 1, 0 at its end, -1 on an error. */
static int main_peek(struct acur *c, const struct anchor **a)
{
	const struct track *t = c->t;
	for (;;) {
		uint32_t n;
		int e;
		if (c->in_cur) {
			if (c->pos < t->ncur) {
				*a = &t->cur->a[c->pos];
				return 1;
			}
			return 0;
		}
		if (c->bi < c->bn) {
			*a = &c->view[c->bi];
			return 1;
		}
		if (c->pos == ANCH_CHUNK) {
			/* On to the next chunk, where this one says it is. */
			c->chunk++;
			c->pos = 0;
			if (c->chunk < t->nchunks) {
				if (spill_fd < 0) {
					c->slot = ((const struct achunk *)(uintptr_t)c->slot)->next;
				} else if ((e = xs_pread(spill_fd, &c->slot, sizeof c->slot, c->slot)) != 0) {
					snprintf(clean_error, sizeof clean_error, "temporary file: read error: %s",
					         strerror(e));
					return -1;
				}
			}
		}
		if (c->chunk >= t->nchunks) {
			c->in_cur = 1;
			c->pos = 0;
			continue;
		}
		if (spill_fd < 0) {
			c->view = ((const struct achunk *)(uintptr_t)c->slot)->a;
			c->bi = 0;
			c->bn = ANCH_CHUNK;
			c->pos = ANCH_CHUNK;
			continue;
		}
		if (!c->buf)
			c->buf = xmalloc(ANCH_PIECE * sizeof *c->buf);
		n = ANCH_CHUNK - c->pos < ANCH_PIECE ? ANCH_CHUNK - c->pos : ANCH_PIECE;
		e = xs_pread(spill_fd, c->buf, n * sizeof *c->buf,
		             c->slot + offsetof(struct achunk, a) + c->pos * sizeof *c->buf);
		if (e) {
			snprintf(clean_error, sizeof clean_error, "temporary file: read error: %s", strerror(e));
			return -1;
		}
		c->view = c->buf;
		c->bi = 0;
		c->bn = n;
		c->pos += n;
	}
}

/* The next anchor in start order into c->nx (have_nx 0 at the end): the
 * main list merged with the late ones.  0, or -1 on a read error. */
static int acur_advance(struct acur *c)
{
	const struct anchor *m = NULL;
	int k = main_peek(c, &m);
	const struct anchor *l = c->li < c->t->nlate ? &c->t->late[c->li] : NULL;
	if (k < 0)
		return -1;
	if (!k && !l) {
		c->have_nx = 0;
		return 0;
	}
	c->have_nx = 1;
	if (k && (!l || m->s <= l->s)) {
		c->nx = *m;
		if (c->in_cur)
			c->pos++;
		else
			c->bi++;
	} else {
		c->nx = *l;
		c->li++;
	}
	return 0;
}

static int acur_begin(struct acur *c)
{
	if (c->started)
		return 0;
	c->started = 1;
	return acur_advance(c);
}

/* The producer anchor for a SET beginning at t: 1 found, 0 none, -1 error. */
static int acur_producer(struct acur *c, double t, struct anchor *out)
{
	if (acur_begin(c))
		return -1;
	while (c->have_nx && c->nx.s <= t) {
		double s = c->nx.s;
		struct anchor rmax = c->nx;
		for (;;) {
			if (acur_advance(c))
				return -1;
			if (!c->have_nx || c->nx.s != s)
				break;
			if (c->nx.seq > rmax.seq)
				rmax = c->nx;
		}
		/* Among equal starts the last in input order is the producer. */
		c->best = rmax;
		c->have_best = 1;
	}
	if (!c->have_best)
		return 0;
	*out = c->best;
	return 1;
}

/* The consumer anchor for a WAIT ending at t: 1 found, 0 none, -1 error. */
static int acur_consumer(struct acur *c, double t, struct anchor *out)
{
	if (acur_begin(c))
		return -1;
	for (;;) {
		double s;
		if (c->have_g && c->gmin.s >= t) {
			*out = c->gmin;
			return 1;
		}
		if (!c->have_nx)
			return 0;
		s = c->nx.s;
		c->gmin = c->nx;
		c->have_g = 1;
		for (;;) {
			if (acur_advance(c))
				return -1;
			if (!c->have_nx || c->nx.s != s)
				break;
			if (c->nx.seq < c->gmin.seq)
				c->gmin = c->nx;
		}
	}
}

static int anchor_cmp(const void *a, const void *b)
{
	const struct anchor *x = a, *y = b;
	ORDER_BY(x->s, y->s);
	ORDER_BY(x->seq, y->seq);
	return 0;
}

static int crec_cmp(const void *a, const void *b)
{
	const struct crec *x = a, *y = b;
	ORDER_BY(x->track, y->track);
	/* A query's answer depends on its time alone: no third key. */
	ORDER_BY(x->t_wait, y->t_wait);
	return 0;
}

static int prec_cmp(const void *a, const void *b)
{
	const struct prec *x = a, *y = b;
	ORDER_BY(x->t_set, y->t_set);
	ORDER_BY(x->seq, y->seq);
	return 0;
}

static struct track *kept_track(struct core *c, int lane)
{
	if (lane < 0 || lane >= c->ntracks || !c->tracks[lane])
		return NULL;
	return c->tracks[lane]->nsub ? c->tracks[lane] : NULL;
}

static struct xsort *csort, *psort;
static struct acur *pcur;       /* per track, for the producers */

static int sort_failed(const struct xsort *s)
{
	snprintf(clean_error, sizeof clean_error, "temporary file: %s", strerror(xs_error(s)));
	return -1;
}

/* Zip the sorted SETs and WAITs key by key into pairs, on their way to
 * the consumer anchors. */
static int make_pairs(void)
{
	const struct frec *st, *wt;
	struct crec r;
	int k;

	csort = xs_new(sizeof r, crec_cmp, SORT_RUN_BYTES / sizeof r);
	for (k = 0; k < 2; k++) {
		if (!fsort[k])
			fsort[k] = xs_new(sizeof(struct frec), frec_cmp, 2);
		if (xs_sort(fsort[k]))
			return sort_failed(fsort[k]);
	}
	st = xs_next(fsort[0]);
	wt = xs_next(fsort[1]);
	while (st || wt) {
		const struct fkey *fk;
		struct track *ct;
		if (!wt || (st && st->key < wt->key)) {
			cstats.sets_alone++;
			st = xs_next(fsort[0]);
			continue;
		}
		if (!st || wt->key < st->key) {
			cstats.waits_alone++;
			wt = xs_next(fsort[1]);
			continue;
		}
		fk = &fkeys[st->key];
		ct = kept_track(cores[fk->core], fk->cons);
		memset(&r, 0, sizeof r);
		r.track = ct ? ct->id : NO_TRACK;
		r.key = st->key;
		r.t_set = st->b;        /* anchored before the SET began */
		r.t_wait = wt->e;       /* ... and after the WAIT ended */
		r.seq = st->seq;
		xs_add(csort, &r);
		cstats.pairs++;
		st = xs_next(fsort[0]);
		wt = xs_next(fsort[1]);
	}
	for (k = 0; k < 2; k++) {
		if (xs_error(fsort[k]))
			return sort_failed(fsort[k]);
		xs_free(fsort[k]);
		fsort[k] = NULL;
	}
	return 0;
}

/* The consumer anchors, a track at a time; then on in arrow order. */
static int anchor_consumers(void)
{
	struct acur c = { 0 };
	const struct crec *r;
	struct prec p;
	uint32_t at = NO_TRACK;
	int status = 0;

	psort = xs_new(sizeof p, prec_cmp, SORT_RUN_BYTES / sizeof p);
	if (xs_sort(csort))
		return sort_failed(csort);
	while ((r = xs_next(csort)) != NULL) {
		struct anchor a;
		int k = 0;
		memset(&p, 0, sizeof p);
		p.t_set = r->t_set;
		p.seq = r->seq;
		p.key = r->key;
		if (r->track != NO_TRACK) {
			if (r->track != at) {
				acur_start(&c, tracks[r->track]);
				at = r->track;
			}
			k = acur_consumer(&c, r->t_wait, &a);
			if (k < 0) {
				status = -1;
				break;
			}
		}
		if (k) {
			p.cok = 1;
			p.cs = a.s;
			p.csub = a.sub;
			p.cn = a.tsn;
			memcpy(p.cts, a.ts, a.tsn);
		}
		xs_add(psort, &p);
	}
	free(c.buf);
	if (!status && xs_error(csort))
		status = sort_failed(csort);
	xs_free(csort);
	csort = NULL;
	return status;
}

static void write_flow(const struct fkey *k, struct core *c, uint32_t id, const struct anchor *pa,
                       const struct prec *p)
{
	size_t ln = strlen(k->label);
	int ph;
	for (ph = 0; ph < 2; ph++) {
		char num[DBL_TEXT_MAX];
		size_t nn = ph ? p->cn : pa->tsn;
		/* The slice's own ts text, or the shortest form of its value. */
		if (nn)
			memcpy(num, ph ? p->cts : pa->ts, nn);
		else
			nn = dbl_shortest(num, ph ? p->cs : pa->s);
		char *q = json_value_start(&J, 200 + JW_STR_MAX(ln));
		q = ph ? JW_LIT(q, "{\"ph\":\"f\",\"id\":") : JW_LIT(q, "{\"ph\":\"s\",\"id\":");
		q = jw_uint(q, id);
		q = JW_LIT(q, ",\"cat\":\"sync\"");
		if (ph)
			q = JW_LIT(q, ",\"bp\":\"e\"");
		q = JW_LIT(q, ",\"name\":");
		q = jw_str(q, k->label, ln);
		q = JW_LIT(q, ",\"pid\":");
		q = jw_uint(q, c->pid);
		q = JW_LIT(q, ",\"tid\":");
		q = jw_uint(q, ph ? tid_of(c->tracks[k->cons], p->csub) : tid_of(c->tracks[k->prod], pa->sub));
		q = JW_LIT(q, ",\"ts\":");
		q = jw_raw(q, num, nn);
		*q++ = '}';
		json_value_done(&J, q);
	}
}

/* In arrow order (SET begin, as the established tool numbers them): the
 * producer anchors, by a cursor per track, and out. */
static int anchor_producers(void)
{
	const struct prec *p;
	uint32_t id = 0;
	int status = 0;

	if (xs_sort(psort))
		return sort_failed(psort);
	pcur = xcalloc(ntracks ? ntracks : 1, sizeof *pcur);
	while ((p = xs_next(psort)) != NULL) {
		const struct fkey *k = &fkeys[p->key];
		struct core *c = cores[k->core];
		struct track *pt = kept_track(c, k->prod);
		struct anchor a;
		int pok = 0;
		if (pt) {
			struct acur *cu = &pcur[pt->id];
			if (!cu->t)
				acur_start(cu, pt);
			pok = acur_producer(cu, p->t_set, &a);
			if (pok < 0) {
				status = -1;
				break;
			}
		}
		if (!pok) {
			cstats.no_producer++;
		} else if (!p->cok) {
			cstats.no_consumer++;
		} else {
			write_flow(k, c, ++id, &a, p);
		}
	}
	cstats.arrows = id;
	if (!status && xs_error(psort))
		status = sort_failed(psort);
	return status;
}

int clean_finish(void)
{
	uint32_t i;
	int l;

	/* Every held slice leaves, track by track. */
	for (i = 0; i < ncores; i++)
		for (l = 0; l < cores[i]->ntracks; l++) {
			struct track *t = cores[i]->tracks[l];
			while (t && t->nheap)
				if (release(t))
					return -1;
		}
	for (i = 0; i < ntracks; i++)
		if (tracks[i]->nlate > 1)
			qsort(tracks[i]->late, tracks[i]->nlate, sizeof *tracks[i]->late, anchor_cmp);
	doc_start();
	if (make_pairs() || anchor_consumers() || anchor_producers())
		return -1;
	json_close_all(&J);
	wr_putc(out, '\n');
	return wr_error(out);
}

void clean_abort_close(void)
{
	doc_start();
	json_close_all(&J);
	wr_putc(out, '\n');
}

void clean_free(void)
{
	uint32_t i;
	int l;
	for (i = 0; i < ncores; i++) {
		struct core *c = cores[i];
		for (l = 0; l < c->ntracks; l++) {
			struct track *t = c->tracks[l];
			uint32_t k;
			if (!t)
				continue;
			for (k = 0; k < t->nheap; k++)
				free(t->heap[k]);
			if (spill_fd < 0) {
				/* Chunks kept in memory. */
				uint64_t n, at = t->first;
				for (n = 0; n < t->nchunks; n++) {
					struct achunk *ch = (struct achunk *)(uintptr_t)at;
					at = ch->next;
					free(ch);
				}
			}
			free(t->heap);
			free(t->tree);
			free(t->cur);
			free(t->late);
			free(t);
		}
		free(c->tracks);
		free(c->open);
		free(c->id);
		free(c);
	}
	free(cores);
	free(core_ht);
	free(tracks);
	if (pcur)
		for (i = 0; i < ntracks; i++)
			free(pcur[i].buf);
	free(pcur);
	for (l = 0; l < nlanes; l++)
		free(lanes[l].name);
	free(lanes);
	free(lane_ht);
	for (i = 0; i < nfkeys; i++) {
		free(fkeys[i].id);
		free(fkeys[i].label);
	}
	free(fkeys);
	free(fkey_ht);
	xs_free(fsort[0]);
	xs_free(fsort[1]);
	xs_free(csort);
	xs_free(psort);
	free(hdr_type);
	free(hdr_schema);
	jobj_free(&args_obj);
	if (spill_fd >= 0)
		close(spill_fd);
	/* Back to the state before clean_begin: another document can follow. */
	lanes = NULL;
	nlanes = lanes_cap = 0;
	other_order = ORDER_OTHER;
	lane_ht = NULL;
	lane_ht_mask = 0;
	cores = NULL;
	ncores = capcores = ntracks = captracks = core_ht_mask = 0;
	tracks = NULL;
	core_ht = NULL;
	last_core = NULL;
	doc_started = 0;
	hdr_type = hdr_schema = NULL;
	hdr_type_n = hdr_schema_n = 0;
	seq_next = 0;
	pending_bytes = 0;
	spill_fd = -2;
	spill_off = 0;
	fkeys = NULL;
	nfkeys = capfkeys = fkey_ht_mask = 0;
	fkey_ht = NULL;
	fsort[0] = fsort[1] = csort = psort = NULL;
	memset(&args_obj, 0, sizeof args_obj);
	pcur = NULL;
	clean_error[0] = 0;
}
