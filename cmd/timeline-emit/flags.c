/* SET_FLAG / WAIT_FLAG matching and A5 intra-block sync (see optrace-vdata(5),
 * TRACE.JSON (ALL CORES), Flags, and A5 intra-block sync; TRACE.JSON (ONE
 * CORE)).
 *
 * The reference groups a core's flags by detail and pairs the i-th wait
 * with the i-th set of the same detail, in (end, pc) order.  Streaming,
 * that is two FIFO queues per detail of which at most one is non-empty: a
 * flag either meets the oldest waiting partner or waits itself.  The pairs
 * are the reference's; only the numbering of ids follows the stream. */
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "keytab.h"

const char *const flag_names[FN_N] = {
	"SET_FLAG", "WAIT_FLAG", "set_event", "wait_event",
	"SET_INTRA_BLOCK", "WAIT_INTRA_BLOCK", "SET_INTRA_BLOCKI", "WAIT_INTRA_BLOCKI",
};

/* A detail whose flags never find partners would queue without end: past
 * this many the oldest is drawn alone (and counted). */
#define QUEUE_MAX (1u << 16)

static struct flagtab intra;
static uint64_t intra_ids;

static void rehash(struct flagtab *t)
{
	uint32_t i, cap = t->cap ? 2 * t->cap : 16;
	struct flagq *nq = xcalloc(cap, sizeof *nq);
	for (i = 0; i < t->cap; i++) {
		struct flagq *q = &t->q[i];
		uint32_t k;
		if (!q->key)
			continue;
		for (k = q->hash & (cap - 1); nq[k].key; k = (k + 1) & (cap - 1))
			;
		nq[k] = *q;
	}
	free(t->q);
	t->q = nq;
	t->cap = cap;
}

struct flagq *flagtab_get(struct flagtab *t, const char *key, size_t n)
{
	uint32_t h = hash_words(key, n), k;
	if (2 * (t->n + 1) > t->cap)
		rehash(t);
	for (k = h & (t->cap - 1); t->q[k].key; k = (k + 1) & (t->cap - 1)) {
		struct flagq *q = &t->q[k];
		if (q->hash == h && q->keyn == n && !memcmp(q->key, key, n))
			return q;
	}
	t->q[k].key = xmalloc(n + 1);
	memcpy(t->q[k].key, key, n);
	t->q[k].key[n] = 0;
	t->q[k].keyn = (uint32_t)n;
	t->q[k].hash = h;
	t->n++;
	return &t->q[k];
}

static void push(struct flagq *q, const struct flag *f)
{
	if (q->n == q->cap) {
		uint32_t cap = q->cap ? 2 * q->cap : 8, i;
		struct flag *v = xmalloc(cap * sizeof *v);
		for (i = 0; i < q->n; i++)
			v[i] = q->v[(q->head + i) % q->cap];
		free(q->v);
		q->v = v;
		q->head = 0;
		q->cap = cap;
	}
	q->v[(q->head + q->n) % q->cap] = *f;
	q->n++;
}

static struct flag pop(struct flagq *q)
{
	struct flag f = q->v[q->head];
	q->head = (q->head + 1) % q->cap;
	q->n--;
	return f;
}

void flagtab_free(struct flagtab *t)
{
	uint32_t i;
	for (i = 0; i < t->cap; i++) {
		struct flagq *q = &t->q[i];
		if (!q->key)
			continue;
		while (q->n) {
			struct flag f = pop(q);
			free(f.detail);
		}
		free(q->key);
		free(q->v);
	}
	free(t->q);
	memset(t, 0, sizeof *t);
}

/* ---- flags of one core ---- */

static size_t core_id(char *buf, struct core *c)
{
	/* "<core>_<n>", n counting the core's flag ids. */
	memcpy(buf, c->name, c->name_n);
	buf[c->name_n] = '_';
	return c->name_n + 1 + json_fmt_uint(buf + c->name_n + 1, c->flag_ids++);
}

static void pair(struct core *c, const struct flag *set, const struct flag *wait, const char *detail,
                 size_t detail_n)
{
	char id[80];
	size_t n = core_id(id, c);
	if (set->kept)
		trace_flag(set, detail, detail_n, id, n);
	if (wait->kept)
		trace_flag(wait, detail, detail_n, id, n);
	if (set->kept && wait->kept) {
		trace_flow(set, wait, id, n);
		if (c->out && set->sub_pid >= 0 && wait->sub_pid >= 0)
			sub_flow(c, set, wait);
	}
}

static void lone(struct core *c, const struct flag *f, const char *detail, size_t detail_n)
{
	char id[80];
	size_t n = core_id(id, c);
	if (f->kept)
		trace_flag(f, detail, detail_n, id, n);
}

void flags_take(struct core *c, const struct flag *f, const char *detail, size_t detail_n)
{
	struct flagq *q = flagtab_get(&c->flags, detail, detail_n);
	int w = FN_IS_WAIT(f->name);

	if (q->n && q->waits != w) {
		struct flag p = pop(q);
		pair(c, w ? &p : f, w ? f : &p, q->key, q->keyn);
		return;
	}
	if (!q->n)
		q->waits = (unsigned char)w;
	if (q->n == QUEUE_MAX) {
		struct flag old = pop(q);
		lone(c, &old, q->key, q->keyn);
		emit.flags_overflow++;
	}
	push(q, f);
}

static int by_key(const void *a, const void *b)
{
	const struct flagq *x = *(const struct flagq *const *)a, *y = *(const struct flagq *const *)b;
	int d = memcmp(x->key, y->key, x->keyn < y->keyn ? x->keyn : y->keyn);
	return d ? d : (x->keyn > y->keyn) - (x->keyn < y->keyn);
}

/* The queues still holding flags, sorted by key: what never found a
 * partner comes out in the reference's order (its maps are sorted),
 * whatever the hash table's. */
static struct flagq **leftovers(struct flagtab *t, size_t *n)
{
	struct flagq **v = xmalloc((t->n + 1) * sizeof *v);
	uint32_t i;
	*n = 0;
	for (i = 0; i < t->cap; i++)
		if (t->q[i].key && t->q[i].n)
			v[(*n)++] = &t->q[i];
	qsort(v, *n, sizeof *v, by_key);
	return v;
}

void flags_finish_core(struct core *c)
{
	size_t n, i;
	struct flagq **v = leftovers(&c->flags, &n);
	int waits;
	/* Unpaired waits first, then unpaired sets, as the reference. */
	for (waits = 1; waits >= 0; waits--)
		for (i = 0; i < n; i++) {
			struct flagq *q = v[i];
			if (q->waits != waits)
				continue;
			while (q->n) {
				struct flag f = pop(q);
				lone(c, &f, q->key, q->keyn);
			}
		}
	free(v);
	flagtab_free(&c->flags);
}

/* ---- A5 intra-block sync: SET on one sub-core, WAIT on another ----
 * A SET on the cube core is waited for on veccore(id >= 16) with id % 16;
 * a SET on veccore<k> is waited for on the cube core with id + 16k.  Each
 * queue is keyed on the waiting side: (core, sub-core, I or not, id). */

static size_t intra_id(char *buf)
{
	memcpy(buf, "intra_", 6);
	return 6 + json_fmt_uint(buf + 6, intra_ids++);
}

static void intra_lone(struct flag *f)
{
	char id[40];
	size_t n = intra_id(id);
	if (f->kept)
		trace_flag(f, f->detail, f->detail_n, id, n);
	free(f->detail);
	f->detail = NULL;
}

void flags_intra(struct core *c, const struct flag *f, const char *detail, size_t detail_n,
                 unsigned long long sync_id)
{
	const char *dot = memchr(c->name, '.', c->name_n);
	size_t core_n = dot ? (size_t)(dot - c->name) : c->name_n;
	const char *sub = dot ? dot + 1 : "";
	size_t sub_n = dot ? c->name_n - core_n - 1 : 0;
	int w = FN_IS_WAIT(f->name), immediate = f->name >= FN_SET_INTRAI;
	char key[160];
	size_t n = 0;
	unsigned long long id = sync_id;
	struct flagq *q;
	struct flag e = *f;

	memcpy(key, c->name, core_n);
	n = core_n;
	key[n++] = '|';
	if (w) {
		memcpy(key + n, sub, sub_n);
		n += sub_n;
	} else if (memmem(sub, sub_n, "cube", 4)) {
		memcpy(key + n, sync_id >= 16 ? "veccore1" : "veccore0", 8);
		n += 8;
		id = sync_id % 16;
	} else {
		memcpy(key + n, "cubecore0", 9);
		n += 9;
		id = sync_id + (memchr(sub, '0', sub_n) ? 0 : 16);
	}
	key[n++] = '|';
	if (immediate)
		key[n++] = 'I';
	key[n++] = '|';
	n += json_fmt_uint(key + n, id);

	e.detail = xmalloc(detail_n + 1);
	memcpy(e.detail, detail, detail_n);
	e.detail_n = (uint32_t)detail_n;
	q = flagtab_get(&intra, key, n);
	if (q->n && q->waits != w) {
		struct flag p = pop(q);
		struct flag *set = w ? &p : &e, *wait = w ? &e : &p;
		char fid[40];
		size_t fn = intra_id(fid);
		if (set->kept)
			trace_flag(set, set->detail, set->detail_n, fid, fn);
		if (wait->kept)
			trace_flag(wait, wait->detail, wait->detail_n, fid, fn);
		if (set->kept && wait->kept)
			trace_flow(set, wait, fid, fn);
		free(p.detail);
		free(e.detail);
		return;
	}
	if (!q->n)
		q->waits = (unsigned char)w;
	if (q->n == QUEUE_MAX) {
		struct flag old = pop(q);
		intra_lone(&old);
		emit.flags_overflow++;
	}
	push(q, &e);
}

void flags_finish_intra(void)
{
	size_t n, i;
	struct flagq **v = leftovers(&intra, &n);
	int waits;
	/* Unpaired sets first, then unpaired waits, as the reference. */
	for (waits = 0; waits <= 1; waits++)
		for (i = 0; i < n; i++) {
			struct flagq *q = v[i];
			if (q->waits != waits)
				continue;
			while (q->n) {
				struct flag f = pop(q);
				intra_lone(&f);
			}
		}
	free(v);
	flagtab_free(&intra);
}

void flags_release(void)
{
	flagtab_free(&intra);
	intra_ids = 0;
}
