/* Pass 3 of instr-parse: what depends on the whole core (live GPRs,
 * vector-mask state, worked out per pc in (pc, start) order), then the
 * instruction records of the final pairing run and the trace marks. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mem.h"
#include "state.h"
#include "sync.h"

/* Instruction and mark records open with the same five core fields. */
_Static_assert((int)I_CORE == (int)M_CORE && (int)I_SUBTYPE == (int)M_SUBTYPE && (int)I_SUBIDX == (int)M_SUBIDX &&
               (int)I_BLOCK == (int)M_BLOCK && (int)I_SUBBLOCK == (int)M_SUBBLOCK, "core fields differ");

static void set_core(struct rec *r, const struct unit *u)
{
	r->n[I_CORE].u = u->core;
	r->n[I_SUBTYPE].u = u->subtype;
	r->n[I_SUBIDX].u = u->subidx;
	r->n[I_BLOCK].i = u->block;
	r->n[I_SUBBLOCK].i = u->subblock;
}


void emit_pair(struct pairing *pg, struct keyinfo *k, uint64_t key, struct node *p, struct node *e)
{
	size_t dn = p->detail_n;
	struct calc_str name = { p->text, p->name_n }, detail;
	struct pcinfo *pi;
	int fresh, rd, wrc;
	uint64_t pc = pg->ip->by_id ? p->pc : key;

	if (p->tick > e->tick) {
		if (pg->final)
			loss_add(&pg->ip->losses, LOSS_POP_AFTER_EXEC, p->file, p->line, "pop after exec");
		return;
	}
	/* The merged detail: the pop's, plus the SIMT thread count. */
	if (e->threads < 0) {
		detail.p = p->text ? p->text + p->name_n : "";
	} else {
		if (pg->dcap < dn + 32) {
			pg->dcap = 2 * (dn + 32);
			pg->dbuf = xrealloc(pg->dbuf, pg->dcap);
		}
		if (dn)
			memcpy(pg->dbuf, p->text + p->name_n, dn);
		dn += (size_t)sprintf(pg->dbuf + dn, ", [threadNum:%d]", e->threads);
		detail.p = pg->dbuf;
	}
	detail.n = dn;

	if (!pg->final) {
		unsigned written;
		uint64_t val[CALC_VEC_NVARS];
		pi = keytab_get(&pg->pcs, pc, &fresh);
		if (pg->ip->by_id) {
			if (fresh)
				pi->ord = (uint32_t)(pg->pcs.n - 1);
			if (pg->nrows == pg->caprows) {
				pg->caprows = pg->caprows ? 2 * pg->caprows : 1024;
				pg->rows = xreallocarray(pg->rows, pg->caprows, sizeof *pg->rows);
			}
			pg->rows[pg->nrows] = (struct idrow){ key, p->tick, pg->nrows, pi->ord };
			pg->nrows++;
		}
		if (!p->name_n)
			return;         /* text is kept only for state writers */
		/* The state a writer leaves behind in (pc, start) order is the
		 * value of its latest-starting execution. */
		written = calc_vec_writes(pg->ip->family, name, detail, val);
		if (written) {
			int i;
			for (i = 0; i < CALC_VEC_NVARS; i++)
				if ((written >> i) & 1 &&
				    (!((pi->vec_written >> i) & 1) || p->tick >= pi->vec_tick[i])) {
					pi->vec_val[i] = val[i];
					pi->vec_tick[i] = p->tick;
					pi->vec_written |= 1u << i;
				}
		}
		return;
	}

	if (pg->ip->by_id) {
		pi = keytab_find(&pg->pcs, pc);
	} else {
		/* The final run adds no pcinfo: the pointer stays valid. */
		if (!k->pi)
			k->pi = keytab_find(&pg->pcs, pc);
		pi = k->pi;
	}
	{
		struct rec r;
		static const struct rec_schema *instr_schema;
		/* Every field is set below (rec_init's loop costs more). */
		_Static_assert(I_NNUM == 20 && IS_NSTR == 6, "emit_pair must set every instr field");
		if (!instr_schema)
			instr_schema = rec_schema(K_INSTR);
		r.sc = instr_schema;
		set_core(&r, pg->u);
		r.n[I_START].u = p->tick;
		r.n[I_END].u = e->tick;
		r.n[I_PC].u = pc;
		r.n[I_ID].u = pg->ip->by_id ? key : 0;
		r.n[I_WARP].i = p->warp;
		r.n[I_SCH].i = p->sch;
		r.n[I_THREADS].i = e->threads;
		if (pg->ip->by_id)
			r.n[I_GPR].i = pg->row < pg->nrows && pg->rowgpr ? pg->rowgpr[pg->row++] : -1;
		else
			r.n[I_GPR].i = pi->gpr;
		if (pi->c_ver != p->ver || pi->c_threads != e->threads) {
			calc_memo_begin(name, detail);
			pi->c_bytes = calc_process_bytes(pg->ip->family, name, detail);
			pi->c_util = calc_vec_util(pg->ip->family, name, detail, &pi->state_in);
			calc_ub_conflict(pg->ip->family, name, detail, &rd, &wrc);
			calc_memo_end();
			pi->c_rd = rd;
			pi->c_wr = wrc;
			pi->c_sync = (unsigned char)sync_kind(name.p, name.n);
			if (pi->c_sync != SYNC_NONE) {
				struct sync_fields sf;
				sync_parse(detail.p, detail.n, &sf);
				pi->c_prod = sf.prod_n ? (uint32_t)(sf.prod - detail.p) : 0;
				pi->c_prod_n = (uint32_t)sf.prod_n;
				pi->c_cons = sf.cons_n ? (uint32_t)(sf.cons - detail.p) : 0;
				pi->c_cons_n = (uint32_t)sf.cons_n;
				pi->c_flag = sf.flag_n ? (uint32_t)(sf.flag - detail.p) : 0;
				pi->c_flag_n = (uint32_t)sf.flag_n;
			}
			pi->c_ver = p->ver;
			pi->c_threads = e->threads;
		}
		r.n[I_BYTES].i = pi->c_bytes;
		if (pg->ip->family == CALC_310B) {
			/* The reference runs no calculator on 310B: its records
			 * keep what pairing gives them, 0 live registers and 0
			 * bytes (utilisation and conflicts -1, as here). */
			r.n[I_GPR].i = 0;
			r.n[I_BYTES].i = 0;
		}
		r.n[I_VECUTIL].f = pi->c_util;
		r.n[I_UBREAD].i = pi->c_rd;
		r.n[I_UBWRITE].i = pi->c_wr;
		r.n[I_ICACHE].u = REC_NONE;
		r.n[I_CCU].u = REC_NONE;
		rec_text_set(&r, IS_PIPE, p->pipe, p->pipe_n);
		rec_text_set(&r, IS_NAME, name.p, name.n);
		rec_text_set(&r, IS_DETAIL, detail.p, detail.n);
		r.n[I_SYNC].u = pi->c_sync;
		if (pi->c_sync != SYNC_NONE) {
			rec_text_set(&r, IS_PROD, detail.p + pi->c_prod, pi->c_prod_n);
			rec_text_set(&r, IS_CONS, detail.p + pi->c_cons, pi->c_cons_n);
			rec_text_set(&r, IS_FLAG, detail.p + pi->c_flag, pi->c_flag_n);
		} else {
			rec_text_set(&r, IS_PROD, "", 0);
			rec_text_set(&r, IS_CONS, "", 0);
			rec_text_set(&r, IS_FLAG, "", 0);
		}
		rec_out_put(pg->out, &r);
	}
	pg->pairs++;
}


static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static const struct pcregs *regs_of(const struct unit *u, uint64_t pc)
{
	const struct keyinfo *k;
	if (u->ip->by_id)
		return keytab_find(&u->pcregs, pc);
	k = keytab_find(&u->keys, pc);
	return k ? &k->regs : NULL;
}

static int cmp_idrow(const void *a, const void *b)
{
	const struct idrow *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The rows in (id, tick, seq) order: rows itself, or a new array in its
 * place.  Ids are dense (one per instruction of the core) and arrive
 * nearly in order, so a counting sort by id does it in linear time, the
 * rare rows of one id then put in (tick, seq) order in place; ids too
 * sparse for that go through qsort. */
static struct idrow *sort_rows(struct idrow *rows, size_t nr)
{
	uint64_t lo = UINT64_MAX, hi = 0, range;
	uint32_t *at;
	struct idrow *out;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (rows[i].id < lo)
			lo = rows[i].id;
		if (rows[i].id > hi)
			hi = rows[i].id;
	}
	range = nr ? hi - lo + 1 : 0;
	if (nr < 2 || range == 0 || range > 4 * (uint64_t)nr + 1024) {
		if (nr > 1)
			qsort(rows, nr, sizeof *rows, cmp_idrow);
		return rows;
	}
	at = xcalloc((size_t)range + 1, sizeof *at);
	out = xreallocarray(NULL, nr, sizeof *out);
	for (i = 0; i < nr; i++)
		at[rows[i].id - lo + 1]++;
	for (i = 1; i <= range; i++)
		at[i] += at[i - 1];
	/* Stable: the rows of one id stay in seq order. */
	for (i = 0; i < nr; i++)
		out[at[rows[i].id - lo]++] = rows[i];
	for (i = 1; i < nr; i++) {
		size_t j = i;
		struct idrow r = out[i];
		while (j > 0 && out[j - 1].id == r.id && cmp_idrow(&out[j - 1], &r) > 0) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = r;
	}
	free(rows);
	free(at);
	return out;
}

/* Id mode: every record's live-register count, walking the records in
 * id order; regs[] and has[] are those of the sorted distinct pcs[n],
 * sorted_at[] the position there of each pcinfo ord. */
static void gpr_by_id(struct pairing *pg, const uint32_t *sorted_at, const struct calc_regs *regs,
                      const char *has)
{
	size_t i, nr = pg->nrows;
	uint32_t *idx = xreallocarray(NULL, nr + 1, sizeof *idx);
	int *gpr = xreallocarray(NULL, nr + 1, sizeof *gpr);

	pg->rowgpr = xreallocarray(NULL, nr + 1, sizeof *pg->rowgpr);
	pg->rows = sort_rows(pg->rows, nr);
	for (i = 0; i < nr; i++)
		idx[i] = sorted_at[pg->rows[i].ord];
	if (nr && calc_gpr_walk_idx(regs, idx, nr, gpr))
		cli_die(EXIT_IO, "out of memory");
	for (i = 0; i < nr; i++)
		pg->rowgpr[pg->rows[i].seq] = has[idx[i]] ? gpr[i] : -1;
	free(idx);
	free(gpr);
	free(pg->rows);
	pg->rows = NULL;
	pg->row = 0;
}

void whole_core(struct pairing *pg)
{
	size_t i, n = 0;
	uint64_t *pcs = xreallocarray(NULL, pg->pcs.n + 1, sizeof *pcs);
	struct calc_regs *regs = xreallocarray(NULL, pg->pcs.n + 1, sizeof *regs);
	int *gpr = xreallocarray(NULL, pg->pcs.n + 1, sizeof *gpr);
	char *has = xmalloc(pg->pcs.n + 1);
	struct calc_vec_state st;

	for (i = 0; i < pg->pcs.cap; i++) {
		uint64_t pc;
		if (keytab_at(&pg->pcs, i, &pc))
			pcs[n++] = pc;
	}
	qsort(pcs, n, sizeof *pcs, cmp_u64);
	/* Every execution of one pc carries the same registers, so the
	 * reference's walk over all records gives each pc one value: walk the
	 * distinct pcs instead. */
	memset(&st, 0, sizeof st);
	for (i = 0; i < n; i++) {
		struct pcinfo *pi = keytab_find(&pg->pcs, pcs[i]);
		const struct pcregs *pr = regs_of(pg->u, pcs[i]);
		int v;
		has[i] = pr && pr->has;
		if (has[i])
			regs[i] = pr->regs;
		else
			memset(&regs[i], 0, sizeof regs[i]);
		pi->state_in = st;
		for (v = 0; v < CALC_VEC_NVARS; v++)
			if ((pi->vec_written >> v) & 1)
				st.v[v] = pi->vec_val[v];
	}
	if (pg->ip->by_id) {
		uint32_t *sorted_at = xreallocarray(NULL, n + 1, sizeof *sorted_at);
		for (i = 0; i < n; i++)
			sorted_at[((struct pcinfo *)keytab_find(&pg->pcs, pcs[i]))->ord] = (uint32_t)i;
		gpr_by_id(pg, sorted_at, regs, has);
		free(sorted_at);
	}
	else if (n && calc_gpr_walk(regs, n, gpr))
		cli_die(EXIT_IO, "out of memory");
	for (i = 0; i < n; i++) {
		struct pcinfo *pi = keytab_find(&pg->pcs, pcs[i]);
		const struct pcregs *pr = regs_of(pg->u, pcs[i]);
		pi->gpr = pr && pr->has && !pg->ip->by_id ? gpr[i] : -1;
	}
	free(pcs);
	free(regs);
	free(gpr);
	free(has);
}

static void free_tables(struct unit *u)
{
	free_popcaches(&u->keys, 1);
	free_popcaches(&u->pcregs, 0);
	free_rdpc(u);
	keytab_free(&u->keys);
	keytab_free(&u->pcregs);
}

void finish_unit(struct unit *u, struct rec_out *o)
{
	struct ip *ip = u->ip;
	struct pairing pg;
	struct rec rec;
	struct keytab idkeys = { 0 };
	size_t i;
	int m;

	memset(&pg, 0, sizeof pg);
	pg.ip = ip;
	pg.u = u;
	pg.pcs = keytab_make(sizeof(struct pcinfo), 1);
	idkeys = keytab_make(KEYINFO_ID_SIZE, 1);
	pg.keys = ip->by_id ? &idkeys : &u->keys;
	if (!ip->by_id)
		decide_all(&u->keys);
	pg.out = o;
	for (pg.final = can_skip_first_run(&pg); pg.final < 2; pg.final++) {
		if (pg.final)
			whole_core(&pg);
		pair_run(&pg);
		keytab_free(&idkeys);
	}
	spool_free(u->pops);
	spool_free(u->execs);
	u->pops = u->execs = NULL;
	free_tables(u);
	free(pg.dbuf);
	free(pg.rows);
	free(pg.rowgpr);
	keytab_free(&pg.pcs);

	/* Trace marks: closed intervals of valid names. */
	for (m = 0; m < NMARKS; m++) {
		struct markset *ms = &u->marks[m];
		char name[32];
		for (i = 0; i < ms->n; i++) {
			struct interval *iv = &ms->iv[i];
			if (!ms->invalid && iv->end != UINT64_MAX) {
				rec_init(&rec, K_MARK);
				set_core(&rec, u);
				rec.n[M_MARK].u = (uint64_t)m;
				rec.n[M_START].u = iv->start;
				rec.n[M_END].u = iv->end;
				rec.n[M_STARTPC].u = iv->spc;
				rec.n[M_ENDPC].u = iv->epc;
				snprintf(name, sizeof name, "Mark 0x%d", m);
				rec_text_set(&rec, MS_NAME, name, strlen(name));
				rec_text_set(&rec, MS_DETAIL, iv->detail, strlen(iv->detail));
				rec_out_put(o, &rec);
			} else if (!ms->invalid) {
				loss_add(&ip->losses, LOSS_MARK, 0, 0, "unclosed");
			}
			free(iv->detail);
		}
		free(ms->iv);
		ms->iv = NULL;
		ms->n = 0;
	}
	if (ip->verbose) {
		char core[48];
		cli_note("%s: %llu lines, %llu instructions", rec_core_name(core, u->core, u->subtype, u->subidx),
		         (unsigned long long)u->lines, (unsigned long long)pg.pairs);
	}
}

/* Give everything back, so leak checkers see only real leaks. */
void ip_free(struct ip *ip)
{
	size_t i;
	int m;
	for (i = 0; i < ip->nunits; i++) {
		struct unit *u = ip->units[i];
		spool_free(u->pops);
		spool_free(u->execs);
		free_tables(u);
		for (m = 0; m < NMARKS; m++) {
			size_t k;
			if (!u->marks[m].iv)
				continue;
			for (k = 0; k < u->marks[m].n; k++)
				free(u->marks[m].iv[k].detail);
			free(u->marks[m].iv);
		}
		free(u);
	}
	free(ip->units);
	ip->units = NULL;
	ip->nunits = 0;
	ip->last = NULL;
	loss_free(&ip->losses);
	free_nodes(ip);
	free(ip->detail_buf);
	free(ip->ent_buf);
	free(ip->rd_buf);
	spool_release_spares();
}
