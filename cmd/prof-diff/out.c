/* What prof-diff writes (see prof-diff(1), OUTPUT): the table for a
 * terminal, the JSON document, the picture. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "cli.h"
#include "json.h"
#include "mem.h"
#include "out.h"
#include "svg.h"

/* ---- numbers ---- */

static double us(uint64_t v)
{
	return (double)v / 1e6;
}

static uint64_t busy(const struct pd_pipe *p)
{
	return p ? ival_total(&p->busy) : 0;
}

static double util(const struct pd_pipe *p, const struct pd_core *c)
{
	return p && c->timed && c->end > c->start ? 100.0 * (double)busy(p) / (double)(c->end - c->start) : 0.0;
}

static void pct_text(char *buf, size_t n, double a, double b)
{
	double p = pd_pct(a, b);
	if (isinf(p))
		snprintf(buf, n, "new");
	else
		snprintf(buf, n, "%+.1f%%", p);
}

/* ---- the on-board metrics ---- */

int pd_col(const struct pd_group *g, const char *name)
{
	size_t i;
	for (i = 0; i < g->ncol; i++)
		if (!strcmp(g->col[i], name))
			return (int)i;
	return -1;
}

void pd_row_key(const struct pd_group *g, size_t r, char *buf, size_t n)
{
	if (g->key_cols == 2)
		snprintf(buf, n, "%s %s", g->row[r][0], g->row[r][1]);
	else if (g->nrow == 1)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "row %zu", r + 1);
}

int pd_row_find(const struct pd_group *g, const char *key)
{
	size_t r;
	char k[256];
	for (r = 0; r < g->nrow; r++) {
		pd_row_key(g, r, k, sizeof k);
		if (!strcmp(k, key))
			return (int)r;
	}
	return -1;
}

int pd_value(const char *s, double *v)
{
	char *e;
	if (!*s || !strcmp(s, "NA") || !strcmp(s, "N/A"))
		return 0;
	*v = strtod(s, &e);
	return *e == 0 && isfinite(*v);
}

double pd_board_duration(const struct prof *p)
{
	const struct pd_group *g = pd_group_find(p, "OpBasicInfo");
	int c = g ? pd_col(g, "Task Duration(us)") : -1;
	double v;
	if (c < 0 || !g->nrow || !pd_value(g->row[0][c], &v))
		return -1;
	return v;
}

/* Every metric both sides have: fn(group, column, row key, a, b) for the
 * numeric ones, texts for others (va/vb NULL when not numbers). */
void pd_board_each(const struct pd_diff *d, void (*fn)(void *, const struct pd_group *, size_t col, const char *key,
                                                       const char *ta, const char *tb, const double *va,
                                                       const double *vb),
                   void *arg)
{
	size_t i, j, r;
	for (i = 0; i < d->a->ngroup; i++) {
		const struct pd_group *ga = &d->a->group[i], *gb = pd_group_find(d->b, ga->name);
		if (!gb)
			continue;
		for (j = ga->key_cols; j < ga->ncol; j++) {
			int cb = pd_col(gb, ga->col[j]);
			if (cb < 0)
				continue;
			for (r = 0; r < ga->nrow; r++) {
				char key[256];
				int rb;
				double va, vb;
				int na, nb;
				pd_row_key(ga, r, key, sizeof key);
				if ((rb = pd_row_find(gb, key)) < 0)
					continue;
				na = pd_value(ga->row[r][j], &va);
				nb = pd_value(gb->row[rb][cb], &vb);
				fn(arg, ga, j, key, ga->row[r][j], gb->row[rb][cb], na ? &va : NULL, nb ? &vb : NULL);
			}
		}
	}
}

/* ---- the table ---- */

static void t_basic(void *arg, const struct pd_group *g, size_t col, const char *key, const char *ta,
                    const char *tb, const double *va, const double *vb)
{
	struct pd_text *t = arg;
	(void)key;
	if (strcmp(g->name, "OpBasicInfo"))
		return;
	if (!strcmp(ta, tb)) {
		fprintf(t->f, "  %-22s %s\n", g->col[col], ta);
	} else if (va && vb) {
		char p[32];
		pct_text(p, sizeof p, *va, *vb);
		fprintf(t->f, "  %-22s %s -> %s  (%+g, %s)\n", g->col[col], ta, tb, *vb - *va, p);
	} else
		fprintf(t->f, "  %-22s %s -> %s\n", g->col[col], ta, tb);
}

static void t_metric(void *arg, const struct pd_group *g, size_t col, const char *key, const char *ta,
                     const char *tb, const double *va, const double *vb)
{
	struct pd_text *t = arg;
	char p[32] = "";
	if (!strcmp(g->name, "OpBasicInfo"))
		return;
	if (!t->all && !strcmp(ta, tb))
		return;
	if (!t->group || strcmp(t->group, g->name)) {
		t->group = g->name;
		fprintf(t->f, "\n%s\n  %-40s %-12s %14s %14s %14s %9s\n", g->name, "metric", "row", "before", "after",
		        "delta", "%");
	}
	if (va && vb) {
		pct_text(p, sizeof p, *va, *vb);
		fprintf(t->f, "  %-40s %-12s %14s %14s %14.6g %9s\n", g->col[col], key, ta, tb, *vb - *va, p);
	} else
		fprintf(t->f, "  %-40s %-12s %14s %14s %14s %9s\n", g->col[col], key, ta, tb, "", "");
	t->shown++;
}

static void t_same(void *arg, const struct pd_group *g, size_t col, const char *key, const char *ta,
                   const char *tb, const double *va, const double *vb)
{
	struct pd_text *t = arg;
	(void)col, (void)key, (void)va, (void)vb;
	if (strcmp(g->name, "OpBasicInfo") && !strcmp(ta, tb))
		t->same++;
}

/* What only one side has: groups, columns, rows (a group's on one line). */
static void t_only_board(FILE *f, const struct prof *x, const struct prof *y, const char *side)
{
	size_t i, j, r;
	for (i = 0; i < x->ngroup; i++) {
		const struct pd_group *gx = &x->group[i], *gy = pd_group_find(y, gx->name);
		const char *sep;
		if (!gy) {
			fprintf(f, "only %s: metric group %s (%zu metrics)\n", side, gx->name, gx->ncol - gx->key_cols);
			continue;
		}
		for (j = gx->key_cols, sep = NULL; j < gx->ncol; j++)
			if (pd_col(gy, gx->col[j]) < 0) {
				fprintf(f, "%s%s", sep ? sep : "", sep ? gx->col[j] : "");
				if (!sep)
					fprintf(f, "only %s: %s columns %s", side, gx->name, gx->col[j]);
				sep = ", ";
			}
		if (sep)
			fputc('\n', f);
		for (r = 0, sep = NULL; r < gx->nrow; r++) {
			char key[256];
			pd_row_key(gx, r, key, sizeof key);
			if (pd_row_find(gy, key) >= 0)
				continue;
			if (!sep)
				fprintf(f, "only %s: %s rows %s", side, gx->name, key);
			else
				fprintf(f, "%s%s", sep, key);
			sep = ", ";
		}
		if (sep)
			fputc('\n', f);
	}
}

static void text_board(const struct pd_diff *d, struct pd_text *t)
{
	double da = pd_board_duration(d->a), db = pd_board_duration(d->b);
	fprintf(t->f, "on-board: %s -> %s\n", d->a->where, d->b->where);
	if (da >= 0 && db >= 0) {
		char p[32];
		pct_text(p, sizeof p, da, db);
		fprintf(t->f, "task duration: %.6g us -> %.6g us  (%+.6g us, %s)%s\n", da, db, db - da, p,
		        db < da ? "  faster" : db > da ? "  slower" : "");
	}
	fprintf(t->f, "\nOpBasicInfo\n");
	pd_board_each(d, t_basic, t);
	pd_board_each(d, t_metric, t);
	pd_board_each(d, t_same, t);
	if (t->same)
		fprintf(t->f, "\n%llu metric values the same on both sides%s\n", (unsigned long long)t->same,
		        t->all ? "" : " (-v lists them)");
	t_only_board(t->f, d->a, d->b, "before");
	t_only_board(t->f, d->b, d->a, "after");
}

static void code_short(char *buf, size_t n, const char *stack)
{
	/* the innermost user entry's file name and line, then the depth */
	const char *lf = strchr(stack, '\n');
	size_t len = lf ? (size_t)(lf - stack) : strlen(stack);
	const char *s = stack, *slash;
	unsigned depth = 1;
	for (slash = s; slash < s + len; slash++)
		if (*slash == '/')
			stack = slash + 1;
	len -= (size_t)(stack - s);
	for (; lf; lf = strchr(lf + 1, '\n'))
		depth++;
	if (!len)
		snprintf(buf, n, "-");
	else if (depth > 1)
		snprintf(buf, n, "%.*s (+%u inlined)", (int)len, stack, depth - 1);
	else
		snprintf(buf, n, "%.*s", (int)len, stack);
}

static void text_core(const struct pd_diff *d, const struct pd_core_diff *cd, struct pd_text *t)
{
	const struct pd_core *a = cd->a, *b = cd->b;
	const struct pd_pipe *ba = pd_busiest(a), *bb = pd_busiest(b);
	size_t i, shown;
	FILE *f = t->f;
	(void)d;
	fprintf(f, "\n%s: pipes\n", a->name);
	fprintf(f, "  %-10s %12s %12s %12s %8s   %10s %10s %10s   %7s %7s %7s\n", "pipe", "cycles", "after", "delta",
	        "%", "busy(us)", "after", "delta", "util%", "after", "delta");
	for (i = 0; i < cd->npipe; i++) {
		const struct pd_pipe_row *r = &cd->pipe[i];
		uint64_t ca = r->a ? r->a->cycles : 0, cb = r->b ? r->b->cycles : 0;
		char p[32];
		pct_text(p, sizeof p, (double)ca, (double)cb);
		fprintf(f, "  %-10s %12llu %12llu %+12lld %8s", r->name, (unsigned long long)ca, (unsigned long long)cb,
		        (long long)(cb - ca), p);
		if (a->timed && b->timed) {
			double ua = util(r->a, a), ub = util(r->b, b);
			fprintf(f, "   %10.6f %10.6f %+10.6f   %7.2f %7.2f %+7.2f", us(busy(r->a)), us(busy(r->b)),
			        us(busy(r->b)) - us(busy(r->a)), ua, ub, ub - ua);
		}
		fprintf(f, "%s\n", !r->a ? "  (only after)" : !r->b ? "  (only before)" : "");
	}
	if (ba && bb) {
		if (strcmp(ba->name, bb->name))
			fprintf(f, "  bottleneck: %s (%.1f%%) -> %s (%.1f%%): changed\n", ba->name, util(ba, a), bb->name,
			        util(bb, b));
		else
			fprintf(f, "  bottleneck: %s (%.1f%% -> %.1f%%)\n", ba->name, util(ba, a), util(bb, b));
	}

	if (cd->nline) {
		fprintf(f, "\n%s: source lines, by the change in cycles (%zu matched", a->name, cd->line_matched);
		if (cd->nline > cd->line_matched)
			fprintf(f, ", %zu not", cd->nline - cd->line_matched);
		fprintf(f, ")\n  %12s %12s %12s %8s %9s %9s %9s  %s\n", "cycles", "after", "delta", "%", "calls",
		        "after", "delta", "line");
		for (i = shown = 0; i < cd->nline && shown < t->top; i++) {
			const struct pd_line_row *r = &cd->line[i];
			uint64_t ca = r->a ? r->a->cycles : 0, cb = r->b ? r->b->cycles : 0;
			uint64_t na = r->a ? r->a->calls : 0, nb = r->b ? r->b->calls : 0;
			char p[32];
			if (i >= cd->line_matched && t->shown_unmatched)
				break;
			pct_text(p, sizeof p, (double)ca, (double)cb);
			fprintf(f, "  %12llu %12llu %+12lld %8s %9llu %9llu %+9lld  %s%s%s\n", (unsigned long long)ca,
			        (unsigned long long)cb, (long long)(cb - ca), p, (unsigned long long)na,
			        (unsigned long long)nb, (long long)(nb - na), r->a ? r->a->code : r->b->code,
			        !r->a ? "  (only after)" : !r->b ? "  (only before)" : "",
			        r->by_name && strcmp(r->a->code, r->b->code) ? "  (by file name)" : "");
			shown++;
		}
		if (cd->nline > shown)
			fprintf(f, "  ... %zu more (--top=N, --json)\n", cd->nline - shown);
	}

	fprintf(f, "\n%s: instructions, by the change in cycles (%zu matched", a->name, cd->instr_matched);
	if (cd->ninstr > cd->instr_matched)
		fprintf(f, ", %zu not", cd->ninstr - cd->instr_matched);
	fprintf(f, ")\n  %12s %12s %12s %8s %9s %9s %9s  %-8s %-16s %-30s %s\n", "cycles", "after", "delta", "%",
	        "calls", "after", "delta", "pipe", "instruction", "line", "pc");
	for (i = shown = 0; i < cd->ninstr && shown < t->top; i++) {
		const struct pd_instr_row *r = &cd->instr[i];
		const struct pd_instr *x = r->a ? r->a : r->b;
		uint64_t ca = r->a ? r->a->cycles : 0, cb = r->b ? r->b->cycles : 0;
		uint64_t na = r->a ? r->a->calls : 0, nb = r->b ? r->b->calls : 0;
		char p[32], code[160], pcs[64];
		pct_text(p, sizeof p, (double)ca, (double)cb);
		code_short(code, sizeof code, x->stack);
		if (r->a && r->b && r->a->pc != r->b->pc)
			snprintf(pcs, sizeof pcs, "0x%llx -> 0x%llx", (unsigned long long)r->a->pc,
			         (unsigned long long)r->b->pc);
		else
			snprintf(pcs, sizeof pcs, "0x%llx%s", (unsigned long long)x->pc,
			         !r->a ? " (only after)" : !r->b ? " (only before)" : "");
		fprintf(f, "  %12llu %12llu %+12lld %8s %9llu %9llu %+9lld  %-8s %-16s %-30s %s\n", (unsigned long long)ca,
		        (unsigned long long)cb, (long long)(cb - ca), p, (unsigned long long)na, (unsigned long long)nb,
		        (long long)(nb - na), x->pipe, x->name, code, pcs);
		shown++;
	}
	if (cd->ninstr > shown)
		fprintf(f, "  ... %zu more (--top=N, --json)\n", cd->ninstr - shown);
	/* the unmatched ones are never left unsaid */
	if (cd->ninstr > cd->instr_matched) {
		size_t oa = 0, ob = 0;
		for (i = cd->instr_matched; i < cd->ninstr; i++)
			cd->instr[i].a ? oa++ : ob++;
		fprintf(f, "  not matched: %zu instruction(s) only before, %zu only after (listed in --json)\n", oa, ob);
	}
}

static void span_line(FILE *f, const char *what, uint64_t a, uint64_t b)
{
	char p[32];
	pct_text(p, sizeof p, (double)a, (double)b);
	fprintf(f, "%-16s %12.6f %12.6f %+12.6f %8s%s\n", what, us(a), us(b), us(b) - us(a), p,
	        b < a ? "  faster" : b > a ? "  slower" : "");
}

void pd_text(const struct pd_diff *d, struct pd_text *t)
{
	size_t i;
	FILE *f = t->f;
	if (d->a->kind == PD_BOARD) {
		text_board(d, t);
		return;
	}
	fprintf(f, "simulator: %s -> %s\n", d->a->where, d->b->where);
	if (strcmp(d->a->soc, d->b->soc))
		fprintf(f, "note: the SoCs differ: %s -> %s\n", d->a->soc[0] ? d->a->soc : "?",
		        d->b->soc[0] ? d->b->soc : "?");
	if (d->timed) {
		fprintf(f, "\n%-16s %12s %12s %12s %8s\n", "(us)", "before", "after", "delta", "%");
		span_line(f, "kernel", d->span_a, d->span_b);
		for (i = 0; i < d->ncore; i++) {
			const struct pd_core *a = d->core[i].a, *b = d->core[i].b;
			char what[64];
			snprintf(what, sizeof what, "%s", a->name);
			span_line(f, what, a->end - a->start, b->end - b->start);
			fprintf(f, "  %-14s %12.6f %12.6f %+12.6f\n", "running", us(ival_total(&a->run)),
			        us(ival_total(&b->run)), us(ival_total(&b->run)) - us(ival_total(&a->run)));
		}
	} else
		fprintf(f, "note: the times are unknown on one side (no trace): cycles only\n");
	{
		uint64_t ca = 0, cb = 0;
		size_t k;
		char p[32];
		for (i = 0; i < d->a->ncore; i++)
			for (k = 0; k < d->a->core[i].npipe; k++)
				ca += d->a->core[i].pipe[k].cycles;
		for (i = 0; i < d->b->ncore; i++)
			for (k = 0; k < d->b->core[i].npipe; k++)
				cb += d->b->core[i].pipe[k].cycles;
		pct_text(p, sizeof p, (double)ca, (double)cb);
		fprintf(f, "cores: %zu -> %zu; instruction cycles (all cores): %llu -> %llu (%+lld, %s)\n", d->a->ncore,
		        d->b->ncore, (unsigned long long)ca, (unsigned long long)cb, (long long)(cb - ca), p);
	}
	for (i = 0; i < d->nonly_a; i++)
		fprintf(f, "only before: core %s\n", d->only_a[i]->name);
	for (i = 0; i < d->nonly_b; i++)
		fprintf(f, "only after: core %s\n", d->only_b[i]->name);
	if (d->a->code_view != d->b->code_view)
		fprintf(f, "note: only the %s has source lines: instructions are matched by pc\n",
		        d->a->code_view ? "before" : "after");
	for (i = 0; i < d->ncore; i++)
		text_core(d, &d->core[i], t);
}

/* ---- JSON ---- */

static void j_us(struct json *j, const char *key, uint64_t a, uint64_t b)
{
	double p = pd_pct((double)a, (double)b);
	json_key(j, key);
	json_begin_object(j);
	json_kv_fixed(j, "before", a, 6);
	json_kv_fixed(j, "after", b, 6);
	json_key(j, "delta");
	{
		char buf[48], *e;
		buf[0] = '-';
		e = jw_fixed(buf + 1, b >= a ? b - a : a - b, 6);
		json_raw_value(j, b >= a ? buf + 1 : buf, (size_t)(e - buf) - (b >= a));
	}
	json_key(j, "pct");
	json_double(j, p);
	json_end_object(j);
}

static void j_count(struct json *j, const char *key, uint64_t a, uint64_t b)
{
	json_key(j, key);
	json_begin_object(j);
	json_kv_uint(j, "before", a);
	json_kv_uint(j, "after", b);
	json_kv_int(j, "delta", (int64_t)(b - a));
	json_key(j, "pct");
	json_double(j, pd_pct((double)a, (double)b));
	json_end_object(j);
}

static void j_dbl(struct json *j, const char *key, double a, double b)
{
	json_key(j, key);
	json_begin_object(j);
	json_key(j, "before");
	json_double(j, a);
	json_key(j, "after");
	json_double(j, b);
	json_key(j, "delta");
	json_double(j, b - a);
	json_end_object(j);
}

static void j_side(struct json *j, const char *key, const struct prof *p)
{
	json_key(j, key);
	json_begin_object(j);
	json_kv_cstr(j, "path", p->arg);
	json_kv_cstr(j, "read", p->where);
	json_kv_cstr(j, "kind", p->kind == PD_SIM ? "simulator" : "board");
	json_key(j, "soc");
	if (p->soc[0])
		json_cstring(j, p->soc);
	else
		json_null(j);
	if (p->kind == PD_SIM)
	{
		json_key(j, "code_view");
		json_bool(j, p->code_view);
	}
	json_end_object(j);
}

static void j_instr(struct json *j, const struct pd_instr_row *r)
{
	const struct pd_instr *x = r->a ? r->a : r->b;
	json_begin_object(j);
	json_kv_cstr(j, "instr", x->name);
	json_kv_cstr(j, "pipe", x->pipe);
	json_key(j, "stack");
	json_begin_array(j);
	{
		const char *s = x->stack;
		while (*s) {
			const char *lf = strchr(s, '\n');
			size_t n = lf ? (size_t)(lf - s) : strlen(s);
			json_string(j, s, n);
			s += n + (lf != NULL);
		}
	}
	json_end_array(j);
	json_key(j, "pc_before");
	if (r->a) {
		char buf[24];
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)r->a->pc);
		json_cstring(j, buf);
	} else
		json_null(j);
	json_key(j, "pc_after");
	if (r->b) {
		char buf[24];
		snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)r->b->pc);
		json_cstring(j, buf);
	} else
		json_null(j);
	if (r->a && r->b)
		json_kv_cstr(j, "matched_by", r->by_pc ? "pc" : "source");
	j_count(j, "cycles", r->a ? r->a->cycles : 0, r->b ? r->b->cycles : 0);
	j_count(j, "calls", r->a ? r->a->calls : 0, r->b ? r->b->calls : 0);
	json_end_object(j);
}

static void j_line(struct json *j, const struct pd_line_row *r)
{
	json_begin_object(j);
	json_kv_cstr(j, "line", r->a ? r->a->code : r->b->code);
	if (r->a && r->b && strcmp(r->a->code, r->b->code))
		json_kv_cstr(j, "line_after", r->b->code);
	j_count(j, "cycles", r->a ? r->a->cycles : 0, r->b ? r->b->cycles : 0);
	j_count(j, "calls", r->a ? r->a->calls : 0, r->b ? r->b->calls : 0);
	json_end_object(j);
}

/* The matched rows (part 0), those only before (1), only after (2). */
static const char *const part_key[2][3] = {
	{ "lines", "lines_only_before", "lines_only_after" },
	{ "instructions", "instructions_only_before", "instructions_only_after" },
};

static int in_part(int part, size_t i, size_t matched, const void *a, const void *b)
{
	return part == 0 ? i < matched : i >= matched && (part == 1 ? !b : !a);
}

static void j_lines(struct json *j, int part, const struct pd_core_diff *cd)
{
	size_t i;
	json_key(j, part_key[0][part]);
	json_begin_array(j);
	for (i = 0; i < cd->nline; i++)
		if (in_part(part, i, cd->line_matched, cd->line[i].a, cd->line[i].b))
			j_line(j, &cd->line[i]);
	json_end_array(j);
}

static void j_instrs(struct json *j, int part, const struct pd_core_diff *cd)
{
	size_t i;
	json_key(j, part_key[1][part]);
	json_begin_array(j);
	for (i = 0; i < cd->ninstr; i++)
		if (in_part(part, i, cd->instr_matched, cd->instr[i].a, cd->instr[i].b))
			j_instr(j, &cd->instr[i]);
	json_end_array(j);
}

static void j_core(struct json *j, const struct pd_core_diff *cd)
{
	const struct pd_core *a = cd->a, *b = cd->b;
	const struct pd_pipe *ba = pd_busiest(a), *bb = pd_busiest(b);
	size_t i;
	json_begin_object(j);
	json_kv_cstr(j, "core", a->name);
	if (a->timed && b->timed) {
		j_us(j, "duration_us", a->end - a->start, b->end - b->start);
		j_us(j, "running_us", ival_total(&a->run), ival_total(&b->run));
	}
	json_key(j, "pipes");
	json_begin_array(j);
	for (i = 0; i < cd->npipe; i++) {
		const struct pd_pipe_row *r = &cd->pipe[i];
		json_begin_object(j);
		json_kv_cstr(j, "pipe", r->name);
		json_kv_cstr(j, "on", !r->a ? "after" : !r->b ? "before" : "both");
		j_count(j, "cycles", r->a ? r->a->cycles : 0, r->b ? r->b->cycles : 0);
		j_count(j, "instructions", r->a ? r->a->count : 0, r->b ? r->b->count : 0);
		if (a->timed && b->timed) {
			j_us(j, "busy_us", busy(r->a), busy(r->b));
			j_dbl(j, "util_pct", util(r->a, a), util(r->b, b));
		}
		json_end_object(j);
	}
	json_end_array(j);
	json_key(j, "bottleneck");
	json_begin_object(j);
	json_key(j, "before");
	ba ? json_cstring(j, ba->name) : json_null(j);
	json_key(j, "after");
	bb ? json_cstring(j, bb->name) : json_null(j);
	json_key(j, "changed");
	json_bool(j, ba && bb && strcmp(ba->name, bb->name));
	json_end_object(j);
	for (i = 0; i < 3; i++)
		j_lines(j, i, cd);
	for (i = 0; i < 3; i++)
		j_instrs(j, i, cd);
	json_end_object(j);
}

struct j_board {
	struct json *j;
	const char *group;
};

static void j_metric(void *arg, const struct pd_group *g, size_t col, const char *key, const char *ta,
                     const char *tb, const double *va, const double *vb)
{
	struct j_board *jb = arg;
	struct json *j = jb->j;
	if (!jb->group || strcmp(jb->group, g->name)) {
		if (jb->group) {
			json_end_array(j);
			json_end_object(j);
		}
		jb->group = g->name;
		json_begin_object(j);
		json_kv_cstr(j, "group", g->name);
		json_key(j, "metrics");
		json_begin_array(j);
	}
	json_begin_object(j);
	json_kv_cstr(j, "metric", g->col[col]);
	json_kv_cstr(j, "row", key);
	json_key(j, "before");
	va ? json_double(j, *va) : json_cstring(j, ta);
	json_key(j, "after");
	vb ? json_double(j, *vb) : json_cstring(j, tb);
	if (va && vb) {
		json_key(j, "delta");
		json_double(j, *vb - *va);
		json_key(j, "pct");
		json_double(j, pd_pct(*va, *vb));
	}
	json_end_object(j);
}

static void j_only_board(struct json *j, const char *key, const struct prof *x, const struct prof *y)
{
	size_t i, k, r;
	json_key(j, key);
	json_begin_array(j);
	for (i = 0; i < x->ngroup; i++) {
		const struct pd_group *gx = &x->group[i], *gy = pd_group_find(y, gx->name);
		char buf[512];
		if (!gy) {
			snprintf(buf, sizeof buf, "group %s", gx->name);
			json_cstring(j, buf);
			continue;
		}
		for (k = gx->key_cols; k < gx->ncol; k++)
			if (pd_col(gy, gx->col[k]) < 0) {
				snprintf(buf, sizeof buf, "%s column %s", gx->name, gx->col[k]);
				json_cstring(j, buf);
			}
		for (r = 0; r < gx->nrow; r++) {
			char rk[256];
			pd_row_key(gx, r, rk, sizeof rk);
			if (pd_row_find(gy, rk) < 0) {
				snprintf(buf, sizeof buf, "%s row %s", gx->name, rk);
				json_cstring(j, buf);
			}
		}
	}
	json_end_array(j);
}

int pd_json(const struct pd_diff *d, const struct pd_gate *g, struct wr *w)
{
	struct json j;
	size_t i;
	json_init(&j, w);
	json_lines_at(&j, 0);
	json_begin_object(&j);
	json_kv_cstr(&j, "producer", "prof-diff (optrace) " OPTRACE_VERSION);
	j_side(&j, "before", d->a);
	j_side(&j, "after", d->b);
	if (d->a->kind == PD_BOARD) {
		struct j_board jb = { &j, NULL };
		double da = pd_board_duration(d->a), db = pd_board_duration(d->b);
		json_kv_cstr(&j, "kind", "board");
		if (da >= 0 && db >= 0)
			j_dbl(&j, "task_duration_us", da, db);
		json_key(&j, "groups");
		json_begin_array(&j);
		pd_board_each(d, j_metric, &jb);
		if (jb.group) {
			json_end_array(&j);
			json_end_object(&j);
		}
		json_end_array(&j);
		j_only_board(&j, "only_before", d->a, d->b);
		j_only_board(&j, "only_after", d->b, d->a);
	} else {
		json_kv_cstr(&j, "kind", "simulator");
		if (d->timed)
			j_us(&j, "kernel_us", d->span_a, d->span_b);
		json_key(&j, "cores");
		json_begin_array(&j);
		for (i = 0; i < d->ncore; i++)
			j_core(&j, &d->core[i]);
		json_end_array(&j);
		json_key(&j, "cores_only_before");
		json_begin_array(&j);
		for (i = 0; i < d->nonly_a; i++)
			json_cstring(&j, d->only_a[i]->name);
		json_end_array(&j);
		json_key(&j, "cores_only_after");
		json_begin_array(&j);
		for (i = 0; i < d->nonly_b; i++)
			json_cstring(&j, d->only_b[i]->name);
		json_end_array(&j);
	}
	json_key(&j, "gate");
	json_begin_object(&j);
	json_key(&j, "failed");
	json_bool(&j, g->failed);
	json_key(&j, "reasons");
	json_begin_array(&j);
	for (i = 0; i < g->nreason; i++)
		json_cstring(&j, g->reason[i]);
	json_end_array(&j);
	json_end_object(&j);
	json_end_object(&j);
	wr_putc(w, '\n');
	return wr_error(w);
}

/* ---- the picture ---- */

#define SVG_W 960.0

struct bar {
	char label[96];
	double a, b;
};

/* A panel of before/after bar pairs: grey before, blue after, values as
 * text; x0..x0+w the bars' room. */
static double bars(struct wr *w, double y, const char *title, const struct bar *v, size_t n, double maxv,
                   const char *unit)
{
	double x0 = 230, bw = SVG_W - x0 - 120;
	size_t i;
	svg_put(w, "<text x=\"20\" y=\"%n\" font-weight=\"bold\" font-size=\"14\">%s</text>\n", y + 14, title);
	y += 24;
	if (maxv <= 0)
		maxv = 1;
	for (i = 0; i < n; i++) {
		double la = bw * v[i].a / maxv, lb = bw * v[i].b / maxv;
		char ta[SVG_NUM_MAX], tb[SVG_NUM_MAX];
		svg_sig(ta, v[i].a, 3);
		svg_sig(tb, v[i].b, 3);
		svg_put(w, "<text x=\"%n\" y=\"%n\" text-anchor=\"end\">%s</text>\n", x0 - 8, y + 14, v[i].label);
		svg_put(w, "<rect class=\"before\" x=\"%n\" y=\"%n\" width=\"%n\" height=\"9\" fill=\"#9e9e9e\"><title>before: %s%s</title></rect>\n",
		        x0, y, la, ta, unit);
		svg_put(w, "<rect class=\"after\" x=\"%n\" y=\"%n\" width=\"%n\" height=\"9\" fill=\"#1f77b4\"><title>after: %s%s</title></rect>\n",
		        x0, y + 10, lb, tb, unit);
		svg_put(w, "<text x=\"%n\" y=\"%n\" font-size=\"10\" fill=\"#555\">%s</text>\n", x0 + la + 4, y + 8, ta);
		svg_put(w, "<text x=\"%n\" y=\"%n\" font-size=\"10\" fill=\"#1f77b4\">%s%s</text>\n", x0 + lb + 4, y + 18,
		        tb, unit);
		y += 24;
	}
	return y + 8;
}

/* Signed bars around a middle axis: red for more (slower), green for
 * less. */
static double deltas(struct wr *w, double y, const char *title, const struct bar *v, size_t n, const char *unit)
{
	double x0 = 330, mid = x0 + (SVG_W - x0 - 40) / 2, half = (SVG_W - x0 - 40) / 2 - 60, maxd = 0;
	size_t i;
	svg_put(w, "<text x=\"20\" y=\"%n\" font-weight=\"bold\" font-size=\"14\">%s</text>\n", y + 14, title);
	y += 24;
	for (i = 0; i < n; i++)
		if (fabs(v[i].b - v[i].a) > maxd)
			maxd = fabs(v[i].b - v[i].a);
	if (maxd <= 0)
		maxd = 1;
	svg_put(w, "<line x1=\"%n\" y1=\"%n\" x2=\"%n\" y2=\"%n\" stroke=\"#444\"/>\n", mid, y - 4, mid, y + 20.0 * (double)n);
	for (i = 0; i < n; i++) {
		double dv = v[i].b - v[i].a, len = half * fabs(dv) / maxd;
		char t[SVG_NUM_MAX], ta[SVG_NUM_MAX], tb[SVG_NUM_MAX];
		svg_sig(t, dv, 3);
		svg_sig(ta, v[i].a, 3);
		svg_sig(tb, v[i].b, 3);
		svg_put(w, "<text x=\"%n\" y=\"%n\" text-anchor=\"end\">%s</text>\n", x0 - 8, y + 12, v[i].label);
		svg_put(w, "<rect class=\"%r\" x=\"%n\" y=\"%n\" width=\"%n\" height=\"14\" fill=\"%r\"><title>%s -> %s%s</title></rect>\n",
		        dv > 0 ? "slower" : "faster", dv > 0 ? mid : mid - len, y, len, dv > 0 ? "#d62728" : "#2ca02c", ta,
		        tb, unit);
		svg_put(w, "<text x=\"%n\" y=\"%n\" font-size=\"10\" text-anchor=\"%r\">%r%s%s</text>\n",
		        dv > 0 ? mid + len + 4 : mid - len - 4, y + 11, dv > 0 ? "start" : "end", dv > 0 ? "+" : "", t, unit);
		y += 20;
	}
	return y + 8;
}

/* "dir/file.c:12" -> "file.c:12" */
static const char *base_name(const char *code)
{
	const char *s = strrchr(code, '/');
	return s ? s + 1 : code;
}

/* The trailing part of a path that fits a label. */
static void label_of(char *buf, size_t n, const char *s)
{
	size_t len = strlen(s);
	if (len < n)
		memcpy(buf, s, len + 1);
	else
		snprintf(buf, n, "...%s", s + len - (n - 4));
}

static void board_pipes(void *arg, const struct pd_group *g, size_t col, const char *key, const char *ta,
                        const char *tb, const double *va, const double *vb)
{
	struct { struct bar *v; size_t n, cap; } *s = arg;
	size_t len = strlen(g->col[col]), i;
	(void)key, (void)ta, (void)tb;
	if (strcmp(g->name, "PipeUtilization") || len < 7 || strcmp(g->col[col] + len - 6, "_ratio") || !va || !vb)
		return;
	/* the mean over the rows that have it */
	for (i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].label, g->col[col]))
			break;
	if (i == s->n) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 16;
			s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
		}
		memset(&s->v[i], 0, sizeof s->v[i]);
		snprintf(s->v[i].label, sizeof s->v[i].label, "%s", g->col[col]);
		s->n++;
	}
	/* a running sum; the count in the label's spare room is not needed:
	 * ratios are plotted as their maximum over the rows */
	if (*va * 100 > s->v[i].a)
		s->v[i].a = *va * 100;
	if (*vb * 100 > s->v[i].b)
		s->v[i].b = *vb * 100;
}

struct top_metric {
	struct bar *v;
	size_t n, cap;
};

static void board_changes(void *arg, const struct pd_group *g, size_t col, const char *key, const char *ta,
                          const char *tb, const double *va, const double *vb)
{
	struct top_metric *s = arg;
	(void)ta, (void)tb;
	if (!va || !vb || *va == *vb || !strcmp(g->name, "OpBasicInfo"))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = xreallocarray(s->v, s->cap, sizeof *s->v);
	}
	snprintf(s->v[s->n].label, sizeof s->v[s->n].label, "%s [%s]", g->col[col], key);
	s->v[s->n].a = *va;
	s->v[s->n].b = *vb;
	s->n++;
}

static int by_rel_change(const void *x, const void *y)
{
	const struct bar *p = x, *q = y;
	double rp = fabs(pd_pct(p->a, p->b)), rq = fabs(pd_pct(q->a, q->b));
	return rp < rq ? 1 : rp > rq ? -1 : strcmp(p->label, q->label);
}

int pd_svg(const struct pd_diff *d, size_t top, struct wr *w)
{
	struct bar *v = NULL;
	size_t nv = 0, i, k, nlines = 0;
	double h = 60, y, maxv = 0;
	char title[512];
	/* the height first: bars are 24 px, delta rows 20 */
	if (d->a->kind == PD_BOARD) {
		struct { struct bar *v; size_t n, cap; } pipes = { 0 };
		struct top_metric ch = { 0 };
		double da = pd_board_duration(d->a), db = pd_board_duration(d->b);
		pd_board_each(d, board_pipes, &pipes);
		pd_board_each(d, board_changes, &ch);
		if (ch.n)
			qsort(ch.v, ch.n, sizeof *ch.v, by_rel_change);
		if (ch.n > top)
			ch.n = top;
		for (i = 0; i < pipes.n; i++)
			if (pipes.v[i].a > maxv || pipes.v[i].b > maxv)
				maxv = fmax(pipes.v[i].a, pipes.v[i].b);
		h += 56 + 24.0 * (double)pipes.n + 40 + 20.0 * (double)ch.n + 60;
		snprintf(title, sizeof title, "prof-diff: task duration %.4g us -> %.4g us", da, db);
		svg_begin(w, SVG_W, h, title);
		svg_text(w, 20, 28, "font-size=\"16\" font-weight=\"bold\"", title);
		y = 44;
		svg_put(w, "<rect x=\"20\" y=\"%n\" width=\"12\" height=\"9\" fill=\"#9e9e9e\"/><text x=\"38\" y=\"%n\">before</text>"
		        "<rect x=\"100\" y=\"%n\" width=\"12\" height=\"9\" fill=\"#1f77b4\"/><text x=\"118\" y=\"%n\">after</text>\n",
		        y, y + 9, y, y + 9);
		y += 16;
		y = bars(w, y, "pipe busy ratio (PipeUtilization, the largest over the rows)", pipes.v, pipes.n, maxv, "%");
		/* relative changes are the picture's second half */
		for (i = 0; i < ch.n; i++) {
			double a = ch.v[i].a;
			ch.v[i].b = a ? 100.0 * (ch.v[i].b - a) / fabs(a) : 0;
			ch.v[i].a = 0;
		}
		deltas(w, y, "largest relative changes of the metrics", ch.v, ch.n, "%");
		svg_end(w);
		free(pipes.v);
		free(ch.v);
		return wr_error(w);
	}
	for (i = 0; i < d->ncore; i++)
		nv += d->core[i].npipe + 1;
	v = xcalloc(nv + d->nsum + 1, sizeof *v);
	nv = 0;
	for (i = 0; i < d->ncore; i++) {
		const struct pd_core *ca = d->core[i].a, *cb = d->core[i].b;
		if (d->timed) {
			struct bar *b = &v[nv++];
			snprintf(b->label, sizeof b->label, "%s (duration)", ca->name);
			b->a = us(ca->end - ca->start);
			b->b = us(cb->end - cb->start);
			maxv = fmax(maxv, fmax(b->a, b->b));
		}
		for (k = 0; k < d->core[i].npipe; k++) {
			const struct pd_pipe_row *r = &d->core[i].pipe[k];
			struct bar *b = &v[nv++];
			snprintf(b->label, sizeof b->label, "%s %s", ca->name, r->name);
			if (d->timed) {
				b->a = us(busy(r->a));
				b->b = us(busy(r->b));
			} else {
				b->a = r->a ? (double)r->a->cycles : 0;
				b->b = r->b ? (double)r->b->cycles : 0;
			}
			maxv = fmax(maxv, fmax(b->a, b->b));
		}
	}
	for (i = 0; i < d->nsum && nlines < top; i++) {
		const struct pd_line_row *r = &d->sum_line[i];
		double a = r->a ? (double)r->a->cycles : 0, b = r->b ? (double)r->b->cycles : 0;
		if (a == b)
			continue;
		label_of(v[nv + nlines].label, 52, base_name(r->a ? r->a->code : r->b->code));
		v[nv + nlines].a = a;
		v[nv + nlines].b = b;
		nlines++;
	}
	h += 56 + 24.0 * (double)nv + 40 + 20.0 * (double)nlines + 40;
	if (d->timed) {
		char p[32];
		pct_text(p, sizeof p, (double)d->span_a, (double)d->span_b);
		snprintf(title, sizeof title, "prof-diff: kernel %.4g us -> %.4g us (%s)", us(d->span_a), us(d->span_b), p);
	} else
		snprintf(title, sizeof title, "prof-diff: %s -> %s", d->a->arg, d->b->arg);
	svg_begin(w, SVG_W, h, title);
	svg_text(w, 20, 28, "font-size=\"16\" font-weight=\"bold\"", title);
	y = 44;
	svg_put(w, "<rect x=\"20\" y=\"%n\" width=\"12\" height=\"9\" fill=\"#9e9e9e\"/><text x=\"38\" y=\"%n\">before</text>"
	        "<rect x=\"100\" y=\"%n\" width=\"12\" height=\"9\" fill=\"#1f77b4\"/><text x=\"118\" y=\"%n\">after</text>\n",
	        y, y + 9, y, y + 9);
	y += 16;
	y = bars(w, y, d->timed ? "each core's duration, and its pipes' busy time (us)" : "pipe cycles per core", v, nv,
	         maxv, d->timed ? " us" : "");
	if (nlines)
		deltas(w, y, "source lines that changed most (cycles, all cores)", v + nv, nlines, "");
	else
		svg_text(w, 20, y + 14, "", d->nsum ? "no source line changed its cycles" : "no source lines (no code view)");
	svg_end(w);
	free(v);
	return wr_error(w);
}
