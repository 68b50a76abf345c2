/* instr_metrics.json: the per-instruction metrics, one list per core.
 *
 * From a visualize_data.bin, the INSTR_API block is reshaped as the
 * established tool does: each per-core array of an instruction record
 * (one element per entry of "Cores") becomes one scalar per core, keys
 * lower-cased with spaces as underscores.  The block is instruction-major
 * and the result core-major, so the block is read in passes, each writing
 * the rows of up to CORES_PER_PASS cores into temporary files that are
 * then copied out in order: memory holds one record, never the block.
 *
 * From a record stream, the same table is built as the reference builds
 * INSTR_API (see optrace-vdata(5), VISUALIZE_DATA.BIN, INSTR_API), and as
 * timeline-emit writes it:
 * per pc and core, executions, cycles, max GPRs, process bytes, min
 * vector utilisation, max UB conflicts, scalar-head cycles; trace marks
 * included (pipe USERMARK, their metrics -1), cache misses not (the
 * caller leaves them out). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "rec.h"
#include "tc.h"
#include "text.h"

#define CORES_PER_PASS 64

/* ---- reshaping an INSTR_API block ---- */

struct rsmem {
	size_t key_off, key_n;
	size_t first;               /* its per-core elements in elems, or -1 */
};

struct rs {
	/* pass 0 */
	char **names;               /* Cores, decoded */
	size_t *name_n;
	size_t ncores;
	char *cores_raw, *dtype_raw;
	size_t cores_raw_n, dtype_raw_n;
	int have_cores, bad;
	char why[160];
	uint64_t records;
	/* the unique names, in first appearance order, and their indexes */
	size_t *uniq;               /* index of first appearance */
	size_t nuniq;
	/* a pass */
	size_t u0, u1;              /* unique names [u0, u1) */
	struct wr **tw;
	int *tfd;
	struct jval *elems;         /* elements of one member's array */
	size_t nelems, capelems;
	char *keys;                 /* one record's field names, lower-cased */
	size_t nkeys, capkeys;
	struct rsmem *mem;          /* one record's members */
	size_t capmem;
	size_t *next_same;          /* the next core listed under the same name, or -1 */
	uint64_t *rows;             /* rows written per unique name in this pass */
};

static int rs_stream_key(void *ctx, const struct jval *key)
{
	(void)ctx;
	return jstr_eq(key, "Instructions", 12);
}

static int rs_value0(void *ctx, const struct jval *key, const struct jval *val)
{
	struct rs *r = ctx;
	size_t n;
	const char *raw = jval_raw(val, &n);

	if (jstr_eq(key, "Cores", 5)) {
		const char *p = val->p + 1, *end = val->p + val->n;
		size_t i;
		struct jerr e;
		for (i = 0; i < r->ncores; i++)
			free(r->names[i]);
		r->ncores = 0;
		free(r->cores_raw);
		r->cores_raw = xstrndup(raw, n);
		r->cores_raw_n = n;
		r->have_cores = 1;
		if (val->type != JT_ARR) {
			snprintf(r->why, sizeof r->why, "\"Cores\" is not an array");
			r->bad = 1;
			return 1;
		}
		/* Elements: strings (core names). */
		for (;;) {
			struct jval el;
			while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == ','))
				p++;
			if (p >= end || *p == ']')
				break;
			if (jval_parse(&p, end, &el, 1, &e) != J_OK || el.type != JT_STR) {
				snprintf(r->why, sizeof r->why, "\"Cores\" holds something other than core names");
				r->bad = 1;
				return 1;
			}
			r->names = xrealloc(r->names, (r->ncores + 1) * sizeof *r->names);
			r->name_n = xrealloc(r->name_n, (r->ncores + 1) * sizeof *r->name_n);
			r->names[r->ncores] = xmalloc(el.n + 1);
			r->name_n[r->ncores] = jstr_decode(&el, r->names[r->ncores]);
			r->ncores++;
		}
	} else if (jstr_eq(key, "Instructions Dtype", 18)) {
		free(r->dtype_raw);
		r->dtype_raw = xstrndup(raw, n);
		r->dtype_raw_n = n;
	}
	return 0;
}

static int rs_element0(void *ctx, const struct jval *key, const struct jobj *o, const struct jval *v,
                       uint64_t off)
{
	struct rs *r = ctx;
	(void)v;
	(void)off;
	if (!key) {
		snprintf(r->why, sizeof r->why, "the block is a JSON array, not an object");
		r->bad = 1;
		return 1;
	}
	if (!o) {
		snprintf(r->why, sizeof r->why, "offset %llu: an instruction record that is not an object",
		         (unsigned long long)off);
		r->bad = 1;
		return 1;
	}
	r->records++;
	return 0;
}

/* Split an array value into its elements. */
static void split_array(struct rs *r, const struct jval *a)
{
	const char *p = a->p + 1, *end = a->p + a->n;
	struct jerr e;
	for (;;) {
		while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || *p == ','))
			p++;
		if (p >= end || *p == ']')
			break;
		if (r->nelems == r->capelems) {
			r->capelems = r->capelems ? 2 * r->capelems : 16;
			r->elems = xrealloc(r->elems, r->capelems * sizeof *r->elems);
		}
		if (jval_parse(&p, end, &r->elems[r->nelems], 1, &e) != J_OK)
			break;      /* validated already: cannot happen */
		r->nelems++;
	}
}

/* "Vector Utilization Percentage" -> "vector_utilization_percentage",
 * appended to the record's key text. */
static size_t field_name(struct rs *r, const struct jval *k)
{
	size_t n, i;
	char *b;
	if (r->capkeys < r->nkeys + k->n + 1) {
		r->capkeys = 2 * (r->nkeys + k->n + 1);
		r->keys = xrealloc(r->keys, r->capkeys);
	}
	b = r->keys + r->nkeys;
	n = jstr_decode(k, b);
	for (i = 0; i < n; i++) {
		if (b[i] >= 'A' && b[i] <= 'Z')
			b[i] = (char)(b[i] - 'A' + 'a');
		else if (b[i] == ' ')
			b[i] = '_';
	}
	r->nkeys += n;
	return n;
}

static int rs_element(void *ctx, const struct jval *key, const struct jobj *o, const struct jval *v,
                      uint64_t off)
{
	struct rs *r = ctx;
	size_t u, m;
	(void)key;
	(void)v;
	(void)off;
	/* Once per record: the field names, and the per-core arrays split. */
	r->nelems = 0;
	r->nkeys = 0;
	if (r->capmem < o->n) {
		r->capmem = o->n;
		r->mem = xrealloc(r->mem, r->capmem * sizeof *r->mem);
	}
	for (m = 0; m < o->n; m++) {
		const struct jval *val = &o->m[m].val;
		struct rsmem *rm = &r->mem[m];
		rm->key_off = r->nkeys;
		rm->key_n = field_name(r, &o->m[m].key);
		rm->first = (size_t)-1;
		if (val->type == JT_ARR) {
			size_t first = r->nelems;
			split_array(r, val);
			if (r->nelems - first == r->ncores)
				rm->first = first;
			else
				r->nelems = first;
		}
	}
	for (u = r->u0; u < r->u1; u++) {
		size_t ci;
		struct wr *w = r->tw[u - r->u0];
		for (ci = r->uniq[u]; ci != (size_t)-1; ci = r->next_same[ci]) {
			if (r->rows[u - r->u0]++)
				wr_put(w, ",\n", 2);
			wr_putc(w, '{');
			for (m = 0; m < o->n; m++) {
				const struct rsmem *rm = &r->mem[m];
				const struct jval *val = rm->first != (size_t)-1 ? &r->elems[rm->first + ci] : &o->m[m].val;
				char *start = wr_reserve(w, JW_STR_MAX(rm->key_n) + 2), *p = start;
				size_t rn;
				const char *raw;
				if (m)
					*p++ = ',';
				p = jw_str(p, r->keys + rm->key_off, rm->key_n);
				*p++ = ':';
				wr_commit(w, (size_t)(p - start));
				raw = jval_raw(val, &rn);
				wr_put(w, raw, rn);
			}
			wr_putc(w, '}');
		}
	}
	return 0;
}

static int open_block(const char *path, int blk, struct vdata_r **vr, char *err, size_t errlen)
{
	struct vdata_blk b;
	int i;
	*vr = vdata_ropen(path, err, errlen);
	if (!*vr)
		return -1;
	for (i = 0; i <= blk; i++)
		if (vdata_next(*vr, &b, err, errlen) != 1) {
			vdata_rclose(*vr);
			*vr = NULL;
			return -1;
		}
	return 0;
}

static int scan_block(const char *path, int blk, const struct jhandler *h, struct rs *r, char *err,
                      size_t errlen)
{
	struct vdata_r *vr;
	struct src s = { 0 };
	struct jbuf jb;
	struct jfail f;
	struct vdata_blk b;
	int st, i;

	vr = vdata_ropen(path, err, errlen);
	if (!vr)
		return -1;
	for (i = 0; i <= blk; i++)
		if (vdata_next(vr, &b, err, errlen) != 1) {
			vdata_rclose(vr);
			return -1;
		}
	s.vr = vr;
	s.name = path;
	s.base = b.payload_offset;
	jbuf_init(&jb, &s, 1u << 20, 1u << 30);
	st = jscan(&jb, h, r, &f);
	jbuf_free(&jb);
	vdata_rclose(vr);
	if (st == JS_STOP) {
		snprintf(err, errlen, "%s", r->why[0] ? r->why : "stopped");
		return -1;
	}
	if (st) {
		snprintf(err, errlen, "offset %llu: INSTR_API block: %s", (unsigned long long)(s.base + f.off), f.msg);
		return -1;
	}
	return 0;
}

static void rs_free(struct rs *r)
{
	size_t i;
	for (i = 0; i < r->ncores; i++)
		free(r->names[i]);
	free(r->names);
	free(r->name_n);
	free(r->cores_raw);
	free(r->dtype_raw);
	free(r->uniq);
	free(r->elems);
	free(r->keys);
	free(r->mem);
	free(r->next_same);
}

static int copy_fd(int fd, struct wr *w)
{
	char buf[1 << 16];
	off_t off = 0;
	for (;;) {
		ssize_t k = pread(fd, buf, sizeof buf, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errno;
		if (!k)
			return 0;
		wr_put(w, buf, (size_t)k);
		off += k;
	}
}

int metrics_reshape(const char *path, int blk, struct wr *w, char *err, size_t errlen)
{
	struct rs r;
	struct jhandler h0 = { rs_stream_key, rs_value0, rs_element0 };
	struct jhandler h1 = { rs_stream_key, NULL, rs_element };
	size_t i, u;
	int status = 0;
	struct vdata_r *probe;

	memset(&r, 0, sizeof r);
	if (open_block(path, blk, &probe, err, errlen))
		return -1;
	vdata_rclose(probe);
	if (scan_block(path, blk, &h0, &r, err, errlen)) {
		rs_free(&r);
		return -1;
	}
	/* The unique core names: a name listed twice gets both columns, in
	 * one list (a Python dict keyed by name does that). */
	r.uniq = xmalloc((r.ncores + 1) * sizeof *r.uniq);
	r.next_same = xmalloc((r.ncores + 1) * sizeof *r.next_same);
	for (i = 0; i < r.ncores; i++) {
		r.next_same[i] = (size_t)-1;
		for (u = 0; u < r.nuniq; u++)
			if (r.name_n[r.uniq[u]] == r.name_n[i] && !memcmp(r.names[r.uniq[u]], r.names[i], r.name_n[i]))
				break;
		if (u == r.nuniq) {
			r.uniq[r.nuniq++] = i;
		} else {
			size_t c = r.uniq[u];
			while (r.next_same[c] != (size_t)-1)
				c = r.next_same[c];
			r.next_same[c] = i;
		}
	}

	wr_puts(w, "{\"cores\":");
	if (r.have_cores)
		wr_put(w, r.cores_raw, r.cores_raw_n);
	else
		wr_puts(w, "[]");
	wr_puts(w, ",\n\"instructions\":{");
	for (r.u0 = 0; r.u0 < r.nuniq && !status; r.u0 = r.u1) {
		size_t n;
		r.u1 = r.u0 + CORES_PER_PASS < r.nuniq ? r.u0 + CORES_PER_PASS : r.nuniq;
		n = r.u1 - r.u0;
		r.tw = xcalloc(n, sizeof *r.tw);
		r.tfd = xcalloc(n, sizeof *r.tfd);
		r.rows = xcalloc(n, sizeof *r.rows);
		for (i = 0; i < n; i++) {
			r.tfd[i] = io_tmpfd();
			if (r.tfd[i] < 0) {
				snprintf(err, errlen, "cannot create a temporary file: %s", strerror(errno));
				status = -2;
				n = i;
				break;
			}
			r.tw[i] = wr_fdopen_buf(r.tfd[i], "(temporary file)", 0, 1u << 16);
		}
		if (!status && r.records && scan_block(path, blk, &h1, &r, err, errlen))
			status = -1;
		for (i = 0; i < n; i++) {
			size_t nu = r.u0 + i;
			const char *nm = r.names[r.uniq[nu]];
			size_t nn = r.name_n[r.uniq[nu]];
			char *p;
			int e;
			wr_flush(r.tw[i]);
			e = wr_error(r.tw[i]);
			if (!status && e) {
				snprintf(err, errlen, "temporary file: write error: %s", strerror(e));
				status = -2;
			}
			if (!status) {
				if (nu)
					wr_putc(w, ',');
				wr_putc(w, '\n');
				p = wr_reserve(w, JW_STR_MAX(nn) + 4);
				wr_commit(w, (size_t)(jw_str(p, nm, nn) - p));
				wr_puts(w, ":[");
				if (r.rows[i])
					wr_putc(w, '\n');
				e = copy_fd(r.tfd[i], w);
				if (e) {
					snprintf(err, errlen, "temporary file: read error: %s", strerror(e));
					status = -2;
				}
				wr_putc(w, ']');
			}
			wr_close(r.tw[i]);
			close(r.tfd[i]);
		}
		free(r.tw);
		free(r.tfd);
		free(r.rows);
		r.tw = NULL;
	}
	wr_puts(w, "},\n\"column_types\":");
	if (r.dtype_raw)
		wr_put(w, r.dtype_raw, r.dtype_raw_n);
	else
		wr_puts(w, "{}");
	wr_puts(w, "}\n");
	rs_free(&r);
	return status;
}

/* ---- metrics from instruction records ---- */

struct pcent {
	uint64_t pc, count, cycles;
	int64_t gpr, bytes, ubr, ubw;
	double vec;
	uint64_t icache, ccu;
	int bytes_on;               /* the first execution moved bytes */
	int seen_overhead;
	char *pipe, *name, *source;
	size_t pipe_n, name_n, source_n;  /* source: the "Source" text (see text.h) */
};
struct mcore {
	char *name;
	size_t n;
	struct pcent *v;
	uint32_t nv, capv;
	uint32_t *slot;             /* pc -> index + 1 */
	uint32_t mask;
};

static struct mcore *mc;
static size_t nmc, last_mc = (size_t)-1;
static int any_overhead;
static int p310;                /* the 310P's flag names (set_event, wait_event) */

void metrics_set_chip(int is_310p)
{
	p310 = is_310p;
}

static uint32_t pc_hash(uint64_t pc)
{
	pc ^= pc >> 29;
	pc *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(pc ^ (pc >> 32));
}

static void slot_grow(struct mcore *c)
{
	uint32_t cap = c->slot ? 2 * (c->mask + 1) : 256, i;
	free(c->slot);
	c->slot = xcalloc(cap, sizeof *c->slot);
	c->mask = cap - 1;
	for (i = 0; i < c->nv; i++) {
		uint32_t h = pc_hash(c->v[i].pc) & c->mask;
		while (c->slot[h])
			h = (h + 1) & c->mask;
		c->slot[h] = i + 1;
	}
}

void metrics_take(const char *core, size_t core_n, uint64_t pc, const char *pipe, size_t pipe_n,
                  const char *name, size_t name_n, const char *detail, size_t detail_n,
                  const struct rec *instr, uint64_t start, uint64_t end, int64_t gpr, int64_t bytes, double vec_util,
                  int64_t ub_read, int64_t ub_write, uint64_t icache, uint64_t ccu)
{
	struct mcore *c = NULL;
	struct pcent *e;
	uint32_t h;
	size_t i;

	if (last_mc < nmc && mc[last_mc].n == core_n && !memcmp(mc[last_mc].name, core, core_n)) {
		c = &mc[last_mc];
	} else {
		for (i = 0; i < nmc; i++)
			if (mc[i].n == core_n && !memcmp(mc[i].name, core, core_n))
				break;
		if (i == nmc) {
			mc = xrealloc(mc, (nmc + 1) * sizeof *mc);
			memset(&mc[nmc], 0, sizeof *mc);
			mc[nmc].name = xstrndup(core, core_n);
			mc[nmc].n = core_n;
			nmc++;
		}
		last_mc = i;
		c = &mc[i];
	}
	if (!c->slot || 2 * c->nv >= c->mask)
		slot_grow(c);
	h = pc_hash(pc) & c->mask;
	while (c->slot[h] && c->v[c->slot[h] - 1].pc != pc)
		h = (h + 1) & c->mask;
	if (c->slot[h]) {
		e = &c->v[c->slot[h] - 1];
	} else {
		if (c->nv == c->capv) {
			c->capv = c->capv ? 2 * c->capv : 64;
			c->v = xrealloc(c->v, c->capv * sizeof *c->v);
		}
		e = &c->v[c->nv];
		memset(e, 0, sizeof *e);
		e->pc = pc;
		e->gpr = gpr;
		e->ubr = ub_read;
		e->ubw = ub_write;
		e->vec = vec_util;
		e->bytes_on = bytes > 0;
		e->pipe = xstrndup(pipe, pipe_n);
		e->pipe_n = pipe_n;
		e->name = xstrndup(name, name_n);
		e->name_n = name_n;
		/* The text is made once per address, from the first
		 * execution, as the simulator does. */
		if (instr) {
			e->source = xmalloc(name_n + detail_n + instr->s[IS_PIPE].n + instr->s[IS_PROD].n +
			                    instr->s[IS_CONS].n + instr->s[IS_FLAG].n + 8);
			e->source_n = src_text_rec(e->source, instr, p310);
		} else {
			e->source = xmalloc(name_n + detail_n + 2);
			e->source_n = src_text(e->source, name, name_n, detail, detail_n, p310);
		}
		c->slot[h] = ++c->nv;
	}
	e->count++;
	if (end > start)
		e->cycles += end - start;
	if (gpr > e->gpr)
		e->gpr = gpr;
	if (ub_read > e->ubr)
		e->ubr = ub_read;
	if (ub_write > e->ubw)
		e->ubw = ub_write;
	if (vec_util < e->vec)
		e->vec = vec_util;
	if (e->bytes_on && bytes > 0)
		e->bytes += bytes;
	if (icache != REC_NONE && ccu != REC_NONE) {
		e->seen_overhead = 1;
		if (ccu > icache)
			e->icache += ccu - icache;
		if (start > ccu)
			e->ccu += start - ccu;
		if (e->icache || e->ccu)
			any_overhead = 1;
	}
}

int metrics_have(void)
{
	return nmc > 0;
}

static int pc_str_cmp(const void *a, const void *b)
{
	/* The reference sorts by the address string. */
	char x[24], y[24];
	snprintf(x, sizeof x, "0x%llx", (unsigned long long)*(const uint64_t *)a);
	snprintf(y, sizeof y, "0x%llx", (unsigned long long)*(const uint64_t *)b);
	return strcmp(x, y);
}

static const struct pcent *find(const struct mcore *c, uint64_t pc)
{
	uint32_t h;
	if (!c->slot)
		return NULL;
	h = pc_hash(pc) & c->mask;
	while (c->slot[h]) {
		if (c->v[c->slot[h] - 1].pc == pc)
			return &c->v[c->slot[h] - 1];
		h = (h + 1) & c->mask;
	}
	return NULL;
}

static void put_double(struct wr *w, double v)
{
	char b[DBL_TEXT_MAX];
	/* A float stays a float: -1 is written -1.0, as Python and nlohmann do. */
	wr_put(w, b, dbl_float(b, v));
}

static int mcore_cmp(const void *a, const void *b)
{
	const struct mcore *x = a, *y = b;
	size_t n = x->n < y->n ? x->n : y->n;
	int k = memcmp(x->name, y->name, n);
	return k ? k : (x->n > y->n) - (x->n < y->n);
}

/* raw: the INSTR_API block itself (per-core arrays); else reshaped. */
static void metrics_write_form(struct wr *w, int raw)
{
	uint64_t *pcs = NULL;
	size_t npcs = 0, cap = 0, i, j, ci;
	const struct pcent **who;

	qsort(mc, nmc, sizeof *mc, mcore_cmp);
	for (ci = 0; ci < nmc; ci++)
		for (j = 0; j < mc[ci].nv; j++) {
			if (npcs == cap) {
				cap = cap ? 2 * cap : 256;
				pcs = xrealloc(pcs, cap * sizeof *pcs);
			}
			pcs[npcs++] = mc[ci].v[j].pc;
		}
	qsort(pcs, npcs, sizeof *pcs, pc_str_cmp);
	for (i = j = 0; i < npcs; i++)
		if (!j || pcs[j - 1] != pcs[i])
			pcs[j++] = pcs[i];
	npcs = j;
	who = xmalloc((nmc + 1) * sizeof *who);

	wr_puts(w, raw ? "{\"Cores\":[" : "{\"cores\":[");
	for (ci = 0; ci < nmc; ci++) {
		char *p = wr_reserve(w, JW_STR_MAX(mc[ci].n) + 2);
		char *q = p;
		if (ci)
			*q++ = ',';
		q = jw_str(q, mc[ci].name, mc[ci].n);
		wr_commit(w, (size_t)(q - p));
	}
	wr_puts(w, "],\n");
	if (!raw)
		wr_puts(w, "\"instructions\":{");
	else
		wr_puts(w, "\"Instructions\":[");
	for (ci = 0; ci < (raw ? 1 : nmc); ci++) {
		if (!raw) {
			char *p = wr_reserve(w, JW_STR_MAX(mc[ci].n) + 8), *q = p;
			if (ci)
				*q++ = ',';
			*q++ = '\n';
			q = jw_str(q, mc[ci].name, mc[ci].n);
			*q++ = ':';
			*q++ = '[';
			wr_commit(w, (size_t)(q - p));
		}
		for (i = 0; i < npcs; i++) {
			const struct pcent *e = NULL;
			size_t k, srcn;
			const char *src;
			char *p;
			char addr[24];
			for (k = 0; k < nmc; k++) {
				who[k] = find(&mc[k], pcs[i]);
				if (!e && who[k])
					e = who[k];
			}
			snprintf(addr, sizeof addr, "0x%llx", (unsigned long long)pcs[i]);
			src = e->source;
			srcn = e->source_n;
			wr_puts(w, i ? ",\n{" : "\n{");
#define COL(rawname, keyname) wr_puts(w, raw ? ",\"" rawname "\":" : ",\"" keyname "\":")
#define EACH(expr_have, expr_none)                                        \
	do {                                                                  \
		size_t c_;                                                        \
		if (raw)                                                          \
			wr_putc(w, '[');                                              \
		for (c_ = raw ? 0 : ci; c_ < (raw ? nmc : ci + 1); c_++) {        \
			const struct pcent *x = who[c_];                              \
			if (raw && c_)                                                \
				wr_putc(w, ',');                                          \
			if (x) {                                                      \
				expr_have;                                                \
			} else {                                                      \
				expr_none;                                                \
			}                                                             \
		}                                                                 \
		if (raw)                                                          \
			wr_putc(w, ']');                                              \
	} while (0)
			wr_puts(w, raw ? "\"Address\":\"" : "\"address\":\"");
			wr_puts(w, addr);
			wr_putc(w, '"');
			COL("AscendC Inner Code", "ascendc_inner_code");
			wr_puts(w, "\"\"");
			if (any_overhead) {
				COL("CcuCycles", "ccucycles");
				EACH(wr_printf(w, "%llu", (unsigned long long)x->ccu), wr_putc(w, '0'));
			}
			COL("Cycles", "cycles");
			EACH(wr_printf(w, "%llu", (unsigned long long)x->cycles), wr_putc(w, '0'));
			COL("GPR Count", "gpr_count");
			EACH(wr_printf(w, "%lld", (long long)x->gpr), wr_putc(w, '0'));
			if (any_overhead) {
				COL("ICacheCycles", "icachecycles");
				EACH(wr_printf(w, "%llu", (unsigned long long)x->icache), wr_putc(w, '0'));
			}
			COL("Instructions Executed", "instructions_executed");
			EACH(wr_printf(w, "%llu", (unsigned long long)x->count), wr_putc(w, '0'));
			COL("Pipe", "pipe");
			p = wr_reserve(w, JW_STR_MAX(e->pipe_n));
			wr_commit(w, (size_t)(jw_str(p, e->pipe, e->pipe_n) - p));
			COL("Process Bytes", "process_bytes");
			EACH(wr_printf(w, "%lld", (long long)(x->bytes_on && x->bytes > 0 ? x->bytes : -1)),
			     wr_puts(w, "-1"));
			if (any_overhead) {
				COL("ScalarCycles", "scalarcycles");
				EACH(wr_printf(w, "%llu", (unsigned long long)(x->icache + x->ccu)), wr_putc(w, '0'));
			}
			COL("Source", "source");
			p = wr_reserve(w, JW_STR_MAX(srcn));
			wr_commit(w, (size_t)(jw_str(p, src, srcn) - p));
			COL("UB Read Conflict", "ub_read_conflict");
			EACH(wr_printf(w, "%lld", (long long)x->ubr), wr_puts(w, "-1"));
			COL("UB Write Conflict", "ub_write_conflict");
			EACH(wr_printf(w, "%lld", (long long)x->ubw), wr_puts(w, "-1"));
			COL("Vector Utilization Percentage", "vector_utilization_percentage");
			EACH(put_double(w, x->vec), wr_puts(w, "-1.0"));
			wr_putc(w, '}');
#undef COL
#undef EACH
		}
		if (!raw)
			wr_putc(w, ']');
	}
	wr_puts(w, raw ? "],\n\"Instructions Dtype\":" : "},\n\"column_types\":");
	wr_puts(w, "{\"Instructions\":{\"Address\":3,\"AscendC Inner Code\":3,");
	if (any_overhead)
		wr_puts(w, "\"CcuCycles\":1,");
	wr_puts(w, "\"Cycles\":1,\"GPR Count\":1,");
	if (any_overhead)
		wr_puts(w, "\"ICacheCycles\":1,");
	wr_puts(w, "\"Instructions Executed\":1,\"Pipe\":3,\"Process Bytes\":1,");
	if (any_overhead)
		wr_puts(w, "\"ScalarCycles\":1,");
	wr_puts(w, "\"Source\":3,\"UB Read Conflict\":1,\"UB Write Conflict\":1,"
	           "\"Vector Utilization Percentage\":4}}}\n");
	free(who);
	free(pcs);
}

static int metrics_raw_form;
void metrics_write(struct wr *w)
{
	metrics_write_form(w, metrics_raw_form);
}

void metrics_set_raw(int raw)
{
	metrics_raw_form = raw;
}

void metrics_free(void)
{
	size_t i, j;
	for (i = 0; i < nmc; i++) {
		for (j = 0; j < mc[i].nv; j++) {
			free(mc[i].v[j].pipe);
			free(mc[i].v[j].name);
			free(mc[i].v[j].source);
		}
		free(mc[i].v);
		free(mc[i].slot);
		free(mc[i].name);
	}
	free(mc);
	mc = NULL;
	nmc = 0;
	last_mc = (size_t)-1;
}
