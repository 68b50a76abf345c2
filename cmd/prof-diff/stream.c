/* Loading a profile from a record stream (see optrace-records(5)): the
 * instr records of instr-parse and what follows it, and the code records
 * of src-map.  The numbers are those the tree of the same stream holds
 * (prof-diff(1), INPUTS): per pc and per user source line the CSVs',
 * times as the core's trace.json draws the slices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io.h"
#include "mem.h"
#include "pd.h"
#include "rec.h"
#include "tick.h"

/* The source stack of a pc: every entry, and the user ones. */
struct stack {
	char *all, *user;
};

/* The core of an instr or a mark record (their first five fields are
 * the same), named as timeline-emit(1) names it. */
static void core_name(const struct rec *r, char *buf)
{
	int64_t block = r->n[I_BLOCK].i, sub = r->n[I_SUBBLOCK].i;
	if (block >= 0 && sub >= 0 && r->n[I_SUBTYPE].u == SUB_VEC)
		snprintf(buf, 48, "core%lld.veccore%lld", (long long)block, (long long)sub);
	else if (block >= 0 && r->n[I_SUBTYPE].u == SUB_CUBE)
		snprintf(buf, 48, "core%lld.cubecore0", (long long)block);
	else
		rec_core_name(buf, r->n[I_CORE].u, r->n[I_SUBTYPE].u, r->n[I_SUBIDX].u);
}

/* The user entries of a code record's stack, each once, joined by LF. */
static char *user_entries(const struct rec *r)
{
	const char *s = r->s[CS_STACK].p, *k = r->s[CS_KINDS].p;
	size_t n = r->s[CS_STACK].n, nk = r->s[CS_KINDS].n, i = 0, e = 0;
	char *out = xmalloc(n + 1);
	size_t on = 0;
	while (i <= n && n) {
		const char *lf = memchr(s + i, '\n', n - i);
		size_t j = lf ? (size_t)(lf - s) : n;
		if (e < nk && k[e] == 'u' && j > i) {
			/* once: an inlined call on its own line counts once */
			int dup = 0;
			size_t a = 0;
			while (a < on) {
				const char *x = memchr(out + a, '\n', on - a);
				size_t b = x ? (size_t)(x - out) : on;
				if (b - a == j - i && !memcmp(out + a, s + i, j - i))
					dup = 1;
				a = b + 1;
			}
			if (!dup) {
				if (on)
					out[on++] = '\n';
				memcpy(out + on, s + i, j - i);
				on += j - i;
			}
		}
		e++;
		i = j + 1;
		if (!lf)
			break;
	}
	out[on] = 0;
	return out;
}

static void add_lines(struct pd_core *c, const char *user, uint64_t cycles)
{
	const char *p = user;
	while (*p) {
		const char *lf = strchr(p, '\n');
		size_t n = lf ? (size_t)(lf - p) : strlen(p);
		struct pd_line *l = pd_line_get(c, p, n);
		l->calls++;
		l->cycles += cycles;
		p += n + (lf != NULL);
	}
}

int pd_load_stream(struct prof *p, const char *path)
{
	struct rd *r = rd_open(path);
	struct rec_dec dec = { 0 };
	struct rec rec;
	struct keytab stacks = keytab_make(sizeof(struct stack), 0);
	const char *line, *why;
	size_t n, i;
	uint64_t nline = 0, ninstr = 0;
	unsigned mhz = 0;
	int trailer = 0;
	if (!r)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	while ((line = rd_line(r, &n))) {
		int st;
		if (cli_interrupted)
			cli_die(EXIT_INTR, "interrupted: nothing written");
		nline++;
		st = rec_decode(&dec, line, n, &rec, &why);
		if (nline == 1 && (st != DEC_OK || rec.sc->kind != K_HEADER)) {
			rd_close(r);
			rec_dec_free(&dec);
			keytab_free(&stacks);
			return 0;
		}
		if (st == DEC_UNKNOWN)
			continue;
		if (st == DEC_BAD) {
			cli_warn_at(path, rd_lineno(r), "bad record: %s", why);
			p->problems++;
			continue;
		}
		switch (rec.sc->kind) {
		case K_HEADER:
			if (!mhz && rec.n[H_MHZ].u && rec.n[H_MHZ].u < 100000)
				mhz = (unsigned)rec.n[H_MHZ].u;
			if (!p->soc[0] && rec.s[HS_SOC].n) {
				free(p->soc);
				p->soc = xstrndup(rec.s[HS_SOC].p, rec.s[HS_SOC].n);
			}
			break;
		case K_TRAILER:
			trailer = 1;
			break;
		case K_CODE: {
			int fresh;
			struct stack *s = keytab_get(&stacks, rec.n[C_PC].u, &fresh);
			if (fresh) {
				s->all = xstrndup(rec.s[CS_STACK].p, rec.s[CS_STACK].n);
				s->user = user_entries(&rec);
				p->code_view = 1;
			}
			break;
		}
		case K_INSTR: {
			char name[48];
			const char *pipe = rec.s[IS_PIPE].p;
			size_t pn = rec.s[IS_PIPE].n;
			uint64_t start = rec.n[I_START].u, end = rec.n[I_END].u, pc = rec.n[I_PC].u;
			uint64_t cyc = end > start ? end - start : 0, ds, de;
			unsigned m = mhz ? mhz : 1850;
			struct pd_core *c;
			struct pd_instr *in;
			const struct stack *s;
			int fresh;
			if (pn == 9 && !memcmp(pipe, "CACHEMISS", 9))
				break;
			ninstr++;
			core_name(&rec, name);
			c = pd_core_get(p, name, strlen(name));
			s = keytab_find(&stacks, pc);
			in = pd_instr_get(c, pc, &fresh);
			if (fresh) {
				in->name = xstrndup(rec.s[IS_NAME].p, rec.s[IS_NAME].n);
				in->pipe = xstrndup(pipe, pn);
				in->stack = xstrdup(s ? s->all : "");
			}
			in->calls++;
			in->cycles += cyc;
			{
				struct pd_pipe *pp = pd_pipe_get(c, pipe, pn);
				pp->count++;
				pp->cycles += cyc;
			}
			if (s)
				add_lines(c, s->user, cyc);
			/* As the core's trace draws it: a SET_FLAG and a BAR
			 * as their last cycle. */
			if ((rec.n[I_SYNC].u == SYNC_SET || rec.n[I_SYNC].u == SYNC_BAR) && end >= 1)
				start = end - 1;
			ds = tick_us6(start, m);
			de = tick_us6(end, m);
			c->timed = 1;
			if (ds < c->start)
				c->start = ds;
			if (de > c->end)
				c->end = de;
			ival_add(&c->run, ds, de);
			ival_add(&pd_pipe_get(c, pipe, pn)->busy, ds, de);
			break;
		}
		case K_MARK: {
			/* a trace mark is a row of the instruction table, at its
			 * start pc, and counts on that pc's lines */
			char name[48];
			uint64_t start = rec.n[M_START].u, end = rec.n[M_END].u, pc = rec.n[M_STARTPC].u;
			uint64_t cyc = end > start ? end - start : 0;
			const struct stack *s = keytab_find(&stacks, pc);
			struct pd_core *c;
			struct pd_instr *in;
			int fresh;
			core_name(&rec, name);
			c = pd_core_get(p, name, strlen(name));
			in = pd_instr_get(c, pc, &fresh);
			if (fresh) {
				in->name = xstrndup(rec.s[MS_NAME].p, rec.s[MS_NAME].n);
				in->pipe = xstrdup("USERMARK");
				in->stack = xstrdup(s ? s->all : "");
			}
			in->calls++;
			in->cycles += cyc;
			if (s)
				add_lines(c, s->user, cyc);
			break;
		}
		default:
			break;
		}
	}
	if (rd_error(r))
		cli_die(EXIT_IO, "%s: %s", path, rd_strerror(r));
	rd_close(r);
	rec_dec_free(&dec);
	for (i = 0; i < stacks.cap; i++) {
		uint64_t k;
		struct stack *s = keytab_at(&stacks, i, &k);
		if (s) {
			free(s->all);
			free(s->user);
		}
	}
	keytab_free(&stacks);
	if (!nline)
		return 0;
	if (!trailer) {
		cli_warn("%s: no trailer record: the stream was cut short", path);
		p->problems++;
	}
	if (!ninstr)
		cli_die(EXIT_UNUSABLE, "%s: no instruction records", path);
	p->mhz = mhz;
	for (i = 0; i < p->ncore; i++)
		if (!p->core[i].timed)
			p->core[i].start = 0;
	return 1;
}
