/* Matching two profiles (see prof-diff(1), MATCHING): cores by name,
 * pipes by name, source lines by their text (then by file name and line
 * when the paths differ), instructions by source stack and name (the k-th
 * of a key with the k-th, in pc order), by pc when they have no source. */
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "order.h"
#include "pd.h"

const struct pd_pipe *pd_busiest(const struct pd_core *c)
{
	const struct pd_pipe *best = NULL;
	uint64_t bv = 0;
	size_t i;
	for (i = 0; i < c->npipe; i++) {
		uint64_t v = c->timed ? ival_total(&c->pipe[i].busy) : c->pipe[i].cycles;
		if (!best || v > bv) {
			best = &c->pipe[i];
			bv = v;
		}
	}
	return best;
}

static const struct pd_pipe *pipe_find(const struct pd_core *c, const char *name)
{
	size_t i;
	for (i = 0; i < c->npipe; i++)
		if (!strcmp(c->pipe[i].name, name))
			return &c->pipe[i];
	return NULL;
}

static uint64_t cyc(const struct pd_instr *i)
{
	return i ? i->cycles : 0;
}

static uint64_t lcyc(const struct pd_line *l)
{
	return l ? l->cycles : 0;
}

/* By the size of the change, largest first; ties by the text. */
static int by_change_line(const void *x, const void *y)
{
	const struct pd_line_row *p = x, *q = y;
	double dp = (double)lcyc(p->b) - (double)lcyc(p->a), dq = (double)lcyc(q->b) - (double)lcyc(q->a);
	int c = cmp_f64(__builtin_fabs(dq), __builtin_fabs(dp));
	if (c)
		return c;
	return strcmp(p->a ? p->a->code : p->b->code, q->a ? q->a->code : q->b->code);
}

static int by_change_instr(const void *x, const void *y)
{
	const struct pd_instr_row *p = x, *q = y;
	double dp = (double)cyc(p->b) - (double)cyc(p->a), dq = (double)cyc(q->b) - (double)cyc(q->a);
	int c = cmp_f64(__builtin_fabs(dq), __builtin_fabs(dp));
	if (c)
		return c;
	return cmp_u64(p->a ? p->a->pc : p->b->pc, q->a ? q->a->pc : q->b->pc);
}

/* The matching key of an instruction: its source stack and name, or its
 * pc when it has no stack. */
static int key_cmp(const struct pd_instr *x, const struct pd_instr *y)
{
	int hx = x->stack[0] != 0, hy = y->stack[0] != 0, c;
	if (hx != hy)
		return hx - hy;
	if (!hx)
		return cmp_u64(x->pc, y->pc);
	if ((c = strcmp(x->stack, y->stack)))
		return c;
	return strcmp(x->name, y->name);
}

static int by_key(const void *x, const void *y)
{
	const struct pd_instr *p = *(const struct pd_instr *const *)x, *q = *(const struct pd_instr *const *)y;
	int c = key_cmp(p, q);
	return c ? c : cmp_u64(p->pc, q->pc);
}

static const struct pd_instr **sorted_instrs(const struct pd_core *c)
{
	const struct pd_instr **v = xcalloc(c->ninstr + 1, sizeof *v);
	size_t i;
	for (i = 0; i < c->ninstr; i++)
		v[i] = &c->instr[i];
	qsort(v, c->ninstr, sizeof *v, by_key);
	return v;
}

static void push_instr(struct pd_core_diff *cd, size_t *cap, const struct pd_instr *a, const struct pd_instr *b,
                       int by_pc)
{
	if (cd->ninstr == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		cd->instr = xreallocarray(cd->instr, *cap, sizeof *cd->instr);
	}
	cd->instr[cd->ninstr].a = a;
	cd->instr[cd->ninstr].b = b;
	cd->instr[cd->ninstr].by_pc = by_pc;
	cd->ninstr++;
}

static void match_instrs(struct pd_core_diff *cd)
{
	const struct pd_instr **va = sorted_instrs(cd->a), **vb = sorted_instrs(cd->b);
	size_t i = 0, j = 0, na = cd->a->ninstr, nb = cd->b->ninstr, cap = 0, k, m;
	struct pd_instr_row *tmp;
	size_t nonly_a = 0, nonly_b = 0;
	const struct pd_instr **oa = xcalloc(na + 1, sizeof *oa), **ob = xcalloc(nb + 1, sizeof *ob);
	while (i < na || j < nb) {
		int c = i >= na ? 1 : j >= nb ? -1 : key_cmp(va[i], vb[j]);
		if (c < 0)
			oa[nonly_a++] = va[i++];
		else if (c > 0)
			ob[nonly_b++] = vb[j++];
		else {
			push_instr(cd, &cap, va[i], vb[j], !va[i]->stack[0]);
			i++;
			j++;
		}
	}
	cd->instr_matched = cd->ninstr;
	if (cd->ninstr)
		qsort(cd->instr, cd->ninstr, sizeof *cd->instr, by_change_instr);
	for (k = 0; k < nonly_a; k++)
		push_instr(cd, &cap, oa[k], NULL, 0);
	m = cd->ninstr;
	for (k = 0; k < nonly_b; k++)
		push_instr(cd, &cap, NULL, ob[k], 0);
	/* the unmatched by their cycles, largest first */
	tmp = cd->instr;
	if (tmp) {
		qsort(tmp + cd->instr_matched, m - cd->instr_matched, sizeof *tmp, by_change_instr);
		qsort(tmp + m, cd->ninstr - m, sizeof *tmp, by_change_instr);
	}
	free(oa);
	free(ob);
	free(va);
	free(vb);
}

/* "dir/file.c:12" -> "file.c:12" */
static const char *base_of(const char *code)
{
	const char *s = strrchr(code, '/');
	return s ? s + 1 : code;
}

/* The one line of c whose file name and line are those of code (and which
 * mark[] has not taken), or NULL when none or several are. */
static const struct pd_line *line_by_base(const struct pd_core *c, const char *code, const unsigned char *mark)
{
	const struct pd_line *hit = NULL;
	const char *b = base_of(code);
	size_t i;
	for (i = 0; i < c->nline; i++)
		if (!mark[i] && !strcmp(base_of(c->line[i].code), b)) {
			if (hit)
				return NULL;
			hit = &c->line[i];
		}
	return hit;
}

static void push_line(struct pd_line_row **v, size_t *n, size_t *cap, const struct pd_line *a,
                      const struct pd_line *b, int by_name)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xreallocarray(*v, *cap, sizeof **v);
	}
	(*v)[*n].a = a;
	(*v)[*n].b = b;
	(*v)[*n].by_name = by_name;
	(*n)++;
}

/* Lines of a and b matched: the same text, then the same file name and
 * line where exactly one of each side is left. */
static void match_lines(const struct pd_core *a, const struct pd_core *b, struct pd_line_row **out, size_t *nout,
                        size_t *matched)
{
	unsigned char *ma = xcalloc(a->nline + 1, 1), *mb = xcalloc(b->nline + 1, 1);
	size_t i, n = 0, cap = 0, m;
	struct pd_line_row *v = NULL;
	for (i = 0; i < a->nline; i++) {
		const struct pd_line *l = pd_line_find(b, a->line[i].code);
		if (l) {
			ma[i] = 1;
			mb[l - b->line] = 1;
			push_line(&v, &n, &cap, &a->line[i], l, 0);
		}
	}
	for (i = 0; i < a->nline; i++) {
		const struct pd_line *l;
		if (ma[i] || !(l = line_by_base(b, a->line[i].code, mb)))
			continue;
		/* and a's side is unique too */
		if (line_by_base(a, l->code, ma) != &a->line[i])
			continue;
		ma[i] = 1;
		mb[l - b->line] = 1;
		push_line(&v, &n, &cap, &a->line[i], l, 1);
	}
	*matched = n;
	if (v)
		qsort(v, n, sizeof *v, by_change_line);
	for (i = 0; i < a->nline; i++)
		if (!ma[i])
			push_line(&v, &n, &cap, &a->line[i], NULL, 0);
	m = n;
	for (i = 0; i < b->nline; i++)
		if (!mb[i])
			push_line(&v, &n, &cap, NULL, &b->line[i], 0);
	if (v) {
		qsort(v + *matched, m - *matched, sizeof *v, by_change_line);
		qsort(v + m, n - m, sizeof *v, by_change_line);
	}
	*out = v;
	*nout = n;
	free(ma);
	free(mb);
}

static const struct pd_core *core_find(const struct prof *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->ncore; i++)
		if (!strcmp(p->core[i].name, name))
			return &p->core[i];
	return NULL;
}

static int by_pipe(const void *x, const void *y)
{
	return strcmp(((const struct pd_pipe_row *)x)->name, ((const struct pd_pipe_row *)y)->name);
}

/* Lines summed over the cores of both sides (each side's own core set),
 * keyed by text. */
static void sum_lines(struct pd_diff *d)
{
	struct pd_core sa, sb;
	size_t i, j, matched;
	const struct prof *side[2] = { d->a, d->b };
	struct pd_core *sum[2] = { &sa, &sb };
	int s;
	memset(&sa, 0, sizeof sa);
	memset(&sb, 0, sizeof sb);
	for (s = 0; s < 2; s++) {
		sum[s]->line_ix = keytab_make(sizeof(uint32_t), 0);
		for (i = 0; i < d->ncore; i++) {
			const struct pd_core *c = s ? d->core[i].b : d->core[i].a;
			for (j = 0; j < c->nline; j++) {
				struct pd_line *l = pd_line_get(sum[s], c->line[j].code, strlen(c->line[j].code));
				l->calls += c->line[j].calls;
				l->cycles += c->line[j].cycles;
			}
		}
		(void)side;
	}
	match_lines(&sa, &sb, &d->sum_line, &d->nsum, &matched);
	/* the rows point into sa and sb: keep their lines */
	d->sum_store = xcalloc(sa.nline + sb.nline + 1, sizeof *d->sum_store);
	for (i = 0; i < d->nsum; i++) {
		struct pd_line_row *r = &d->sum_line[i];
		if (r->a) {
			d->sum_store[r->a - sa.line] = *r->a;
			r->a = &d->sum_store[r->a - sa.line];
		}
		if (r->b) {
			d->sum_store[sa.nline + (size_t)(r->b - sb.line)] = *r->b;
			r->b = &d->sum_store[sa.nline + (size_t)(r->b - sb.line)];
		}
	}
	/* sum_store owns the texts now */
	free(sa.line);
	free(sb.line);
	keytab_free(&sa.line_ix);
	keytab_free(&sb.line_ix);
	d->nsum_store = sa.nline + sb.nline;
}

void pd_diff_build(struct pd_diff *d, const struct prof *a, const struct prof *b)
{
	size_t i, j;
	uint64_t sa0 = UINT64_MAX, sa1 = 0, sb0 = UINT64_MAX, sb1 = 0;
	memset(d, 0, sizeof *d);
	d->a = a;
	d->b = b;
	d->core = xcalloc(a->ncore + 1, sizeof *d->core);
	d->only_a = xcalloc(a->ncore + 1, sizeof *d->only_a);
	d->only_b = xcalloc(b->ncore + 1, sizeof *d->only_b);
	d->timed = 1;
	for (i = 0; i < a->ncore; i++) {
		const struct pd_core *cb = core_find(b, a->core[i].name);
		struct pd_core_diff *cd;
		if (!cb) {
			d->only_a[d->nonly_a++] = &a->core[i];
			continue;
		}
		cd = &d->core[d->ncore++];
		cd->a = &a->core[i];
		cd->b = cb;
		cd->pipe = xcalloc(cd->a->npipe + cb->npipe + 1, sizeof *cd->pipe);
		for (j = 0; j < cd->a->npipe; j++) {
			cd->pipe[cd->npipe].name = cd->a->pipe[j].name;
			cd->pipe[cd->npipe].a = &cd->a->pipe[j];
			cd->pipe[cd->npipe++].b = pipe_find(cb, cd->a->pipe[j].name);
		}
		for (j = 0; j < cb->npipe; j++)
			if (!pipe_find(cd->a, cb->pipe[j].name)) {
				cd->pipe[cd->npipe].name = cb->pipe[j].name;
				cd->pipe[cd->npipe++].b = &cb->pipe[j];
			}
		qsort(cd->pipe, cd->npipe, sizeof *cd->pipe, by_pipe);
		match_lines(cd->a, cb, &cd->line, &cd->nline, &cd->line_matched);
		match_instrs(cd);
	}
	for (i = 0; i < b->ncore; i++)
		if (!core_find(a, b->core[i].name))
			d->only_b[d->nonly_b++] = &b->core[i];
	/* the kernel: over every core of each side, common or not */
	for (i = 0; i < a->ncore; i++) {
		const struct pd_core *c = &a->core[i];
		if (!c->timed)
			d->timed = 0;
		sa0 = c->start < sa0 ? c->start : sa0;
		sa1 = c->end > sa1 ? c->end : sa1;
	}
	for (i = 0; i < b->ncore; i++) {
		const struct pd_core *c = &b->core[i];
		if (!c->timed)
			d->timed = 0;
		sb0 = c->start < sb0 ? c->start : sb0;
		sb1 = c->end > sb1 ? c->end : sb1;
	}
	if (!a->ncore || !b->ncore)
		d->timed = 0;
	if (d->timed) {
		d->span_a = sa1 - sa0;
		d->span_b = sb1 - sb0;
	}
	sum_lines(d);
}

void pd_diff_free(struct pd_diff *d)
{
	size_t i;
	for (i = 0; i < d->ncore; i++) {
		free(d->core[i].pipe);
		free(d->core[i].line);
		free(d->core[i].instr);
	}
	for (i = 0; i < d->nsum_store; i++)
		free(d->sum_store[i].code);
	free(d->sum_store);
	free(d->sum_line);
	free(d->core);
	free(d->only_a);
	free(d->only_b);
}
