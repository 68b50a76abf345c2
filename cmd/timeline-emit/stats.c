/* Per-core statistics: the <core>_instr_exe.csv rows, and the
 * summary printed at the end (see optrace-vdata(5), CSV FILES and THE
 * SUMMARY).  Memory is per distinct pc and per pipe,
 * never per record. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "rec.h"

/* ---- per pc ---- */

static struct pcstat *pc_get(struct pctab *t, uint64_t pc, int *fresh)
{
	uint32_t *ix;
	if (!t->ix.vsize)
		t->ix = keytab_make(sizeof(uint32_t), 0);
	ix = keytab_get(&t->ix, pc, fresh);
	if (!*fresh)
		return &t->v[*ix];
	*ix = t->n;
	if (t->n == t->cap) {
		uint32_t i;
		t->cap = t->cap ? 2 * t->cap : 64;
		t->v = xrealloc(t->v, t->cap * sizeof *t->v);
		/* The run unions point into their own rows. */
		for (i = 0; i < t->n; i++)
			t->v[i].run.v = t->v[i].runv;   /* (ival_init_buf's) */
	}
	{
		struct pcstat *p = &t->v[t->n++];
		memset(p, 0, sizeof *p);
		p->pc = pc;
		ival_init_buf(&p->run, p->runv, PC_RUN);
		return p;
	}
}

static char *dup_n(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	if (n)
		memcpy(d, s, n);
	d[n] = 0;
	return d;
}

const struct calcv calc_none = { -1, -1.0, -1, -1, -1, REC_NONE, REC_NONE };

void stats_take(struct core *c, int lane, const char *name, size_t name_n, const char *detail,
                size_t detail_n, const char *sync_src, size_t sync_src_n, uint64_t start, uint64_t end,
                uint64_t pc, const struct calcv *k, int is_mark)
{
	int fresh;
	struct pcstat *p = pc_get(&c->pcs, pc, &fresh);
	uint64_t cyc = end > start ? end - start : 0;

	p->count++;
	p->cycles += cyc;
	ival_add(&p->run, start, end);
	/* A mark counts on the source lines of its start pc, as the
	 * reference's per-line table counts it. */
	code_stats(c, pc, &p->code, fresh, start, end, 1);
	if (!is_mark) {
		p->icount++;
		p->icycles += cyc;
	}
	if (k->icache != REC_NONE && k->ccu != REC_NONE) {
		/* Signed, as the reference's int casts of its differences. */
		p->icache_cyc = sat_add_i64(p->icache_cyc, tick_diff(k->ccu, k->icache));
		p->ccu_cyc = sat_add_i64(p->ccu_cyc, tick_diff(start, k->ccu));
	}
	if (fresh) {
		p->bytes = k->bytes;
		p->vec = k->vec;
		p->gpr = k->gpr;
		p->ubr = k->ubr;
		p->ubw = k->ubw;
	} else {
		if (end < p->first_end) {
			/* A late record becomes the first: its bytes lead the sum
			 * (exact unless earlier sums had stopped). */
			int64_t b = p->bytes;
			p->bytes = k->bytes;
			if (k->bytes > 0 && b > 0)
				p->bytes = sat_add_i64(p->bytes, b);
		} else if (p->bytes > 0) {
			p->bytes = sat_add_i64(p->bytes, k->bytes);
		}
		if (k->vec < p->vec)
			p->vec = k->vec;
		if (k->gpr > p->gpr)
			p->gpr = k->gpr;
		if (k->ubr > p->ubr)
			p->ubr = k->ubr;
		if (k->ubw > p->ubw)
			p->ubw = k->ubw;
	}
	/* The row names the pc's earliest-ending record, as the reference's
	 * first element in (end, pc) order. */
	if (fresh || end < p->first_end) {
		free(p->name);
		free(p->detail);
		free(p->sync_src);
		p->name = dup_n(name, name_n);
		p->name_n = name_n;
		p->detail = dup_n(detail, detail_n);
		p->detail_n = detail_n;
		p->sync_src = sync_src ? dup_n(sync_src, sync_src_n) : NULL;
		p->sync_src_n = sync_src_n;
		p->lane = lane;
		p->first_end = end;
	}
	if (is_mark)
		return;
	c->ninstr++;
	if (start < c->min_start)
		c->min_start = start;
	if (end > c->max_end_i)
		c->max_end_i = end;
	ival_add(&c->busy, start, end);
	{
		struct pipestat *ps = &c->pipes[lane];
		ps->count++;
		ps->cycles += cyc;
		if (!ps->busy.max)
			ival_init(&ps->busy, 256);
		ival_add(&ps->busy, start, end);
	}
}

static int by_cycles(const void *a, const void *b)
{
	const struct pcstat *x = *(const struct pcstat *const *)a, *y = *(const struct pcstat *const *)b;
	if (x->cycles != y->cycles)
		return x->cycles > y->cycles ? -1 : 1;
	/* The reference's sort is unstable on ties; pc order is stable. */
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

void csv_put_quoted(struct wr *w, const char *s, size_t n)
{
	const char *q;
	wr_putc(w, '"');
	/* Quotes doubled (RFC 4180); the reference leaves them as they are. */
	while ((q = memchr(s, '"', n))) {
		wr_put(w, s, (size_t)(q - s) + 1);
		wr_putc(w, '"');
		n -= (size_t)(q - s) + 1;
		s = q + 1;
	}
	wr_put(w, s, n);
	wr_putc(w, '"');
}

static int write_file(const char *path, struct core *c, int code)
{
	struct wr *w = wr_open(path, 0);
	uint32_t i;

	if (!w)
		return errno ? errno : EIO;
	if (code) {
		/* Rows only for user lines, when src-map gave the stream code
		 * records (code.c). */
		wr_puts(w, "code,call_count,cycles,running_time(us)\n");
		code_csv_rows(w, c);
		return wr_close(w);
	}
	/* The reference's columns in its order, so positional readers work;
	 * ours (the pc in hex, as the JSON outputs write it) goes last. */
	wr_puts(w, "instr,addr,pipe,call_count,cycles,running_time(us),detail,addr_hex\n");
	{
		struct pcstat **rows = xmalloc((c->pcs.n + 1) * sizeof *rows);
		for (i = 0; i < c->pcs.n; i++)
			rows[i] = &c->pcs.v[i];
		qsort(rows, c->pcs.n, sizeof *rows, by_cycles);
		for (i = 0; i < c->pcs.n; i++) {
			const struct pcstat *p = rows[i];
			char run[TICK_FMT_MAX];
			tick_fmt_centi(run, tick_centi_us(ival_total(&p->run), emit.mhz), 1);
			wr_put(w, p->name, p->name_n);
			wr_printf(w, ",%llu,", (unsigned long long)p->pc);
			wr_put(w, emit.lanes[p->lane].name, emit.lanes[p->lane].len);
			wr_printf(w, ",%llu,%llu,%s,", (unsigned long long)p->count, (unsigned long long)p->cycles, run);
			csv_put_quoted(w, p->detail, p->detail_n);
			wr_printf(w, ",0x%llx\n", (unsigned long long)p->pc);
		}
		free(rows);
	}
	return wr_close(w);
}

int stats_write_csv(struct core *c)
{
	char *path;
	size_t n = strlen(emit.opt.dir) + 2 * c->name_n + 40;
	int err;

	path = xmalloc(n);
	snprintf(path, n, "%s/%s/%s_instr_exe.csv", emit.opt.dir, c->name, c->name);
	err = write_file(path, c, 0);
	if (!err) {
		snprintf(path, n, "%s/%s/%s_code_exe.csv", emit.opt.dir, c->name, c->name);
		err = write_file(path, c, 1);
	}
	free(path);
	return err;
}

/* ---- the summary ---- */

static int by_name(const void *a, const void *b)
{
	const struct core *x = *(const struct core *const *)a, *y = *(const struct core *const *)b;
	return strcmp(x->name, y->name);
}

static int by_lane(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if (emit.lanes[x].sort_index != emit.lanes[y].sort_index)
		return emit.lanes[x].sort_index - emit.lanes[y].sort_index;
	return strcmp(emit.lanes[x].name, emit.lanes[y].name);
}

void stats_summary(struct core **cores, size_t n, FILE *f)
{
	struct core **v = xmalloc((n + 1) * sizeof *v);
	int *order = xmalloc(((size_t)emit.nlanes + 1) * sizeof *order);
	size_t i;

	if (n)
		memcpy(v, cores, n * sizeof *v);
	/* Core names in string order, as the reference prints them. */
	qsort(v, n, sizeof *v, by_name);
	fprintf(f, "Core operator results run in simulator as follow:\n");
	fprintf(f, "%-20s%-20s%s\n", "core_name", "duration_time(us)", "running_time(us)");
	for (i = 0; i < n; i++) {
		const struct core *c = v[i];
		char a[TICK_FMT_MAX], b[TICK_FMT_MAX];
		tick_fmt_centi(a, c->ninstr ? tick_centi_us(c->max_end_i - c->min_start, emit.mhz) : 0, 0);
		tick_fmt_centi(b, tick_centi_us(ival_total(&c->busy), emit.mhz), 0);
		fprintf(f, "%-20s%-20s%s\n", c->name, a, b);
	}
	for (i = 0; i < n; i++) {
		const struct core *c = v[i];
		uint64_t span = c->ninstr ? c->max_end_i - c->min_start : 0;
		int k, m = 0;

		fprintf(f, "\n%s: %llu instructions over %llu cycles\n", c->name, (unsigned long long)c->ninstr,
		        (unsigned long long)span);
		if (!c->ninstr)
			continue;
		for (k = 0; k < emit.nlanes && (uint32_t)k < c->nlane_alloc; k++)
			if (c->pipes[k].count)
				order[m++] = k;
		qsort(order, (size_t)m, sizeof *order, by_lane);
		/* Instructions of one pipe overlap (queued behind each other),
		 * so their summed cycles can pass the core's: both are shown. */
		fprintf(f, "  %-14s%14s%13s%10s%14s\n", "pipe", "summed-cycles", "busy-cycles", "busy(%)",
		        "instructions");
		for (k = 0; k < m; k++) {
			const struct pipestat *ps = &c->pipes[order[k]];
			uint64_t busy = ival_total(&ps->busy);
			char p[32];
			snprintf(p, sizeof p, "%.2f", span ? 100.0 * (double)busy / (double)span : 0.0);
			fprintf(f, "  %-14s%14llu%13llu%10s%14llu\n", emit.lanes[order[k]].name, (unsigned long long)ps->cycles,
			        (unsigned long long)busy, p, (unsigned long long)ps->count);
		}
	}
	if (n)
		fprintf(f, "\nsummed-cycles: the sum of each instruction's end - start (a pipe's instructions overlap,\n"
		        "so it can exceed the core's cycles); busy-cycles: the cycles in which at least one ran\n"
		        "(their union), busy(%%) that over the core's cycles.\n");
	if (emit.truncated)
		fprintf(f, "\nTRUNCATED: %s\n", emit.truncated);
	if (emit.notes)
		fprintf(f, "\n%s", emit.notes);
	free(order);
	free(v);
}

void stats_free(struct core *c)
{
	uint32_t i;
	for (i = 0; i < c->pcs.n; i++) {
		free(c->pcs.v[i].name);
		free(c->pcs.v[i].sync_src);
		free(c->pcs.v[i].detail);
	}
	free(c->pcs.v);
	keytab_free(&c->pcs.ix);
	for (i = 0; i < c->nlane_alloc; i++)
		if (c->pipes)
			ival_free(&c->pipes[i].busy);
	free(c->pipes);
	ival_free(&c->busy);
	code_free_core(c);
}
