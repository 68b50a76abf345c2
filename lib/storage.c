/* The storage-access view of a 910B/A3 block (see storage.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage.h"

/* an event's count; 0 when it was not counted, as the reference reads
 * its maps */
static uint64_t get0(const struct pmu_counts *c, unsigned id)
{
	uint64_t v = pmu_counts_get(c, id);
	return v == PMU_EMPTY ? 0 : v;
}

static uint64_t ev(const struct pmu_ctx *x, unsigned id)
{
	return x ? get0(x->ev, id) : 0;
}

/* a - b, ST_NA when negative or either is ST_NA */
static uint64_t sub_na(uint64_t a, uint64_t b)
{
	return a == ST_NA || b == ST_NA || b > a ? ST_NA : a - b;
}

static uint64_t add_na(uint64_t a, uint64_t b)
{
	return a == ST_NA || b == ST_NA || a > ST_NA - b ? ST_NA : a + b;
}

void st_cube_counts(const struct pmu_counts *e, struct st_cube_counts *c)
{
	uint64_t p19 = get0(e, 19), p49 = get0(e, 49), p50 = get0(e, 50), p518 = get0(e, 518), p524 = get0(e, 524);
	uint64_t p19x4 = p19 > ST_NA / 4 ? ST_NA : 4 * p19;
	c->mte_gm_read = sub_na(p50, p518);
	c->l0ab_write = sub_na(add_na(p49, p524), add_na(p19x4, p518));
	c->l1_gm_write = sub_na(add_na(p19x4, p518), p524);
	c->gm_write = sub_na(p524, p518);
}

static const char *const path_names[ST_PATHS] = {
	"GM -> L2", "L2 -> GM", "L2 -> L1", "L1 -> L2", "GM/L1 -> L0A", "GM/L1 -> L0B", "L0A -> Cube",
	"L0B -> Cube", "Cube -> L0C", "L0C -> L1", "L0C -> L2", "L0C -> Cube", "L2 -> UB", "UB -> L2",
	"UB -> Vector", "Vector -> UB", "L2 -> UB", "UB -> L2", "UB -> Vector", "Vector -> UB",
	[ST_GM_TO_L0A] = "GM -> L0A", "GM -> L0B", "L1 -> L0A", "L1 -> L0B"
};

const char *st_path_name(enum st_path p)
{
	return (unsigned)p < ST_PATHS && path_names[p] ? path_names[p] : "?";
}

/* How a path's peak share is rated: the reference's transfer kinds of
 * which it has a request size and a peak; none for the others. */
enum rate { R_NONE, R_GM_TO_L1, R_GM_TO_UB, R_L1_TO_GM };

static void put(struct st_block *o, const struct pmu_ctx *x, enum st_path p, uint64_t req, float bw, enum rate r)
{
	struct st_unit *u = &o->unit[o->nunit++];
	static const struct { enum pmu_req req; enum pmu_path path; } rk[] = {
		[R_GM_TO_L1] = { REQ_GM_TO_L1, PATH_GM_TO_L1 },
		[R_GM_TO_UB] = { REQ_GM_TO_UB, PATH_GM_TO_UB },
		[R_L1_TO_GM] = { REQ_L1_TO_GM, PATH_L1_TO_GM },
	};
	u->path = p;
	u->request = req;
	u->bw = req == ST_NA ? 0.0f : bw;
	if (r == R_NONE || req == ST_NA)
		strcpy(u->peak, "NA");
	else
		pmu_transport_usage(x, req, rk[r].req, rk[r].path, u->peak);
}

/* a request count in GB/s from its size in bytes, 0 for ST_NA */
static float by_bytes(const struct pmu_ctx *x, uint64_t v, uint64_t bytes)
{
	return v == ST_NA ? 0.0f : pmu_bytes_bw(x, v, bytes);
}

static void cube_paths(struct st_block *o, const struct pmu_ctx *x)
{
	struct st_cube_counts c;
	uint64_t p518 = ev(x, 518);
	st_cube_counts(x->ev, &c);
	put(o, x, ST_L2_TO_L1, c.mte_gm_read, by_bytes(x, c.mte_gm_read, 256), R_GM_TO_L1);
	put(o, x, ST_L1_TO_L2, c.l1_gm_write, by_bytes(x, c.l1_gm_write, 128), R_GM_TO_UB);
	put(o, x, ST_TO_L0A, ev(x, 28), pmu_bandwidth_req(x, 256, 8, ev(x, 28)), R_NONE);
	put(o, x, ST_TO_L0B, ev(x, 34), pmu_bandwidth_req(x, 128, 8, ev(x, 34)), R_NONE);
	put(o, x, ST_L0A_TO_CUBE, ev(x, 27), pmu_bandwidth_req(x, 256, 16, ev(x, 27)), R_NONE);
	put(o, x, ST_L0B_TO_CUBE, ev(x, 33), pmu_bandwidth_req(x, 256, 16, ev(x, 33)), R_NONE);
	put(o, x, ST_CUBE_TO_L0C, ev(x, 42), pmu_bandwidth_req(x, 256, 32, ev(x, 42)), R_NONE);
	put(o, x, ST_L0C_TO_L1, p518, by_bytes(x, p518, 128), R_NONE);
	put(o, x, ST_L0C_TO_L2, c.gm_write, by_bytes(x, c.gm_write, 128), R_NONE);
	put(o, x, ST_L0C_TO_CUBE, ev(x, 40), pmu_bandwidth_req(x, 256, 32, ev(x, 40)), R_NONE);
	/* the split of the L0A/L0B loads by source: all from L1 without
	 * memory-detail data */
	put(o, x, ST_GM_TO_L0A, 0, pmu_bandwidth_req(x, 256, 8, 0), R_NONE);
	put(o, x, ST_GM_TO_L0B, 0, pmu_bandwidth_req(x, 128, 8, 0), R_NONE);
	put(o, x, ST_L1_TO_L0A, ev(x, 28), pmu_bandwidth_req(x, 256, 8, ev(x, 28)), R_NONE);
	put(o, x, ST_L1_TO_L0B, ev(x, 34), pmu_bandwidth_req(x, 128, 8, ev(x, 34)), R_NONE);
}

/* A vector sub-core's UB paths from counts s, rated over x's span. */
static void vec_paths(struct st_block *o, const struct pmu_ctx *x, const struct pmu_ctx *s, enum st_path first)
{
	uint64_t rd = ev(s, 62), wr = ev(s, 61), vrd = ev(s, 67), vwr = ev(s, 68);
	put(o, x, first, rd, by_bytes(x, rd, 128), R_L1_TO_GM);
	put(o, x, first + 1, wr, by_bytes(x, wr, 128), R_NONE);
	put(o, x, first + 2, vrd, pmu_bandwidth_req(x, 256, 8, vrd), R_NONE);
	put(o, x, first + 3, vwr, pmu_bandwidth_req(x, 256, 8, vwr), R_NONE);
}

float st_percent(uint64_t a, uint64_t b)
{
	return b == 0 || a > b ? 0.0f : (float)a / (float)b * 100;
}

static void use(struct st_block *o, const char *name, uint64_t cycle, uint64_t total)
{
	struct st_use *u = &o->use[o->nuse++];
	u->name = name;
	u->cycle = cycle;
	u->total = total;
	u->ratio = st_percent(cycle, total);
}

void st_block_910b(struct st_block *o, const char *type, const struct pmu_ctx *x, const struct pmu_ctx *v0,
                   const struct pmu_ctx *v1, int64_t l2_evict)
{
	const struct pmu_ctx *s[3] = { x, v0, v1 };
	uint64_t whit = 0, rhit = 0, wmiss = 0, rmiss = 0, gm_read, gm_write;
	int mix = !strcmp(type, "mix");
	unsigned i;

	memset(o, 0, sizeof *o);
	for (i = 0; i < 3; i++) {
		whit = pmu_sat_add(whit, ev(s[i], 1280));
		rhit = pmu_sat_add(rhit, pmu_sat_add(ev(s[i], 1284), ev(s[i], 1288)));
		wmiss = pmu_sat_add(wmiss, ev(s[i], 1282));
		rmiss = pmu_sat_add(rmiss, pmu_sat_add(ev(s[i], 1286), ev(s[i], 1290)));
	}
	gm_read = rmiss;
	gm_write = wmiss;
	if (l2_evict >= 0 && (uint64_t)l2_evict < gm_write)
		gm_write = (uint64_t)l2_evict;
	o->hit = pmu_sat_add(whit, rhit);
	o->miss = pmu_sat_add(wmiss, rmiss);

	put(o, x, ST_GM_TO_L2, gm_read, pmu_bandwidth_req(x, 128, 8, gm_read), R_NONE);
	put(o, x, ST_L2_TO_GM, gm_write, pmu_bandwidth_req(x, 512, 8, gm_write), R_NONE);
	if (strcmp(type, "vector"))
		cube_paths(o, x);
	if (mix) {
		vec_paths(o, x, v0, ST_L2_TO_UB);
		vec_paths(o, x, v1, ST_L2_TO_UB_1);
	} else if (!strcmp(type, "vector"))
		vec_paths(o, x, x, ST_L2_TO_UB);

	for (i = 1; i < o->nunit; i++) {   /* by path */
		struct st_unit t = o->unit[i];
		unsigned k = i;
		for (; k > 0 && o->unit[k - 1].path > t.path; k--)
			o->unit[k] = o->unit[k - 1];
		o->unit[k] = t;
	}
	if (strcmp(type, "vector"))
		use(o, "Cube", ev(x, 10), x->cycles);
	if (mix) {
		use(o, "Vector", ev(v0, 8), v0 ? v0->cycles : 0);
		use(o, "Vector1", ev(v1, 8), v1 ? v1->cycles : 0);
	} else if (strcmp(type, "cube"))
		use(o, "Vector", ev(x, 8), x->cycles);
}

/* ---- the tables ---- */

static const char *const head_mem[] = { "", "requests", "throughput(GB/s)", NULL };
static const char *const head_peak[] = { "", "requests", "throughput(GB/s)", "peak(%)", NULL };
static const char *const head_cache[] = { "", "hit", "miss", "total", "hit rate(%)", NULL };
static const char *const head_pipe[] = { "", "instructions", "cycle", "wait cycles", "active rate(%)",
                                         "active bw(GB/s)", NULL };
static const char *const head_scalar[] __attribute__((unused)) = { "", "cycle", "time(us)", NULL };

static struct st_table *tab(struct st_tables *t, const char *name, const char *const *head)
{
	struct st_table *tb = &t->t[t->n++];
	tb->name = name;
	tb->head = head;
	tb->nrow = 0;
	return tb;
}

static struct st_row *row(struct st_table *tb, const char *name)
{
	struct st_row *r = &tb->row[tb->nrow++];
	r->name = name;
	r->n = 0;
	return r;
}

static void val_txt(struct st_row *r, const char *s)
{
	snprintf(r->v[r->n++], PMU_VALUE_MAX, "%s", s);
}

static void val_u64(struct st_row *r, uint64_t v)
{
	pmu_fmt_u64(v, r->v[r->n++]);
}

static void val_float(struct st_row *r, float v)
{
	pmu_fmt_float(v, r->v[r->n++]);
}

/* A memory unit's row: its requests and GB/s (NA for ST_NA), and its
 * peak share where the table has the column. */
static void mem_row(struct st_table *tb, const char *name, uint64_t req, float bw, const char *peak)
{
	struct st_row *r = row(tb, name);
	if (req == ST_NA) {
		val_txt(r, "NA");
		val_txt(r, "NA");
	} else {
		val_u64(r, req);
		val_float(r, bw);
	}
	if (tb->head == head_peak)
		val_txt(r, peak ? peak : "NA");
}

/* A cache's row (910B, 310P): NA when the misses are unknown; the total
 * wraps as the reference's unchecked sum does. */
static void cache_row(struct st_table *tb, const char *name, uint64_t hit, uint64_t miss)
{
	struct st_row *r = row(tb, name);
	unsigned k;
	if (miss == ST_NA) {
		for (k = 0; k < 4; k++)
			val_txt(r, "NA");
		return;
	}
	val_u64(r, hit);
	val_u64(r, miss);
	val_u64(r, hit + miss);
	val_float(r, st_percent(hit, hit + miss));
}

static int tab_cmp(const void *a, const void *b)
{
	return strcmp(((const struct st_table *)a)->name, ((const struct st_table *)b)->name);
}

static void tabs_done(struct st_tables *t)
{
	qsort(t->t, t->n, sizeof t->t[0], tab_cmp);
}

/* ---- 310P ---- */

/* An event's count when it is on the block's replay list, else 0 (the
 * reference's view reads the replay files' counts only). */
static uint64_t ev_listed(const struct pmu_ctx *x, unsigned id)
{
	size_t n, k;
	const uint16_t *list = pmu_replay_events(x->fmt, BOARD_CUBE, &n);
	for (k = 0; k < n; k++)
		if (list[k] == id)
			return ev(x, id);
	return 0;
}

/* a - b, UINT64_MAX when negative (the reference's checked difference) */
static uint64_t sub_max(uint64_t a, uint64_t b)
{
	return b > a ? UINT64_MAX : a - b;
}

void st_block_310p(struct st_block *o, struct st_tables *t, const struct pmu_ctx *x)
{
	/* each count with its bus width and lanes */
	enum { GM_RD, GM_WR, L1_RD, MTE_WR, L0A_RD, L0A_CUBE, L0B_RD, L0B_CUBE, L0C_WR, UB_WR, UB_RD, UB_MTE_RD,
	       UB_MTE_WR, UB_VEC_RD, UB_VEC_WR, SC_RD, SC_WR, N };
	static const struct { unsigned ev, pip, lanes; } c[N] = {
		[GM_RD] = { 18, 512, 8 }, [GM_WR] = { 19, 512, 8 }, [L1_RD] = { 50, 256, 8 }, [MTE_WR] = { 49, 512, 8 },
		[L0A_RD] = { 28, 256, 16 }, [L0A_CUBE] = { 27, 256, 16 }, [L0B_RD] = { 34, 128, 8 },
		[L0B_CUBE] = { 33, 256, 16 }, [L0C_WR] = { 42, 256, 32 }, [UB_WR] = { 41, 256, 8 },
		[UB_RD] = { 39, 256, 8 }, [UB_MTE_RD] = { 62, 16, 8 }, [UB_MTE_WR] = { 61, 16, 8 },
		[UB_VEC_RD] = { 67, 32, 8 }, [UB_VEC_WR] = { 68, 32, 8 }, [SC_RD] = { 55, 128, 1 }, [SC_WR] = { 56, 128, 1 },
	};
	static const struct { enum st_path p; int i; } paths[] = {
		{ ST_GM_TO_L2, GM_RD }, { ST_L2_TO_GM, GM_WR }, { ST_L0A_TO_CUBE, L0A_CUBE }, { ST_L0B_TO_CUBE, L0B_CUBE },
		{ ST_CUBE_TO_L0C, L0C_WR }, { ST_UB_TO_L2, UB_MTE_WR }, { ST_UB_TO_VEC, UB_VEC_RD },
		{ ST_VEC_TO_UB, UB_VEC_WR }, { ST_L2_UB_TO_L1, L1_RD }, { ST_L1_TO_L0A_310P, L0A_RD },
		{ ST_L2_L1_TO_L0B, L0B_RD }, { ST_VEC_TO_L0C, UB_WR }, { ST_L0C_TO_VEC, UB_RD },
		{ ST_L2_L1_TO_UB, UB_MTE_RD },
	};
	uint64_t v[N], l2hit = ev_listed(x, 106), l2all = ev_listed(x, 120) + ev_listed(x, 121), ichit;
	uint64_t icmiss = ev(x, 85);
	float bw[N];
	unsigned i;

	memset(o, 0, sizeof *o);
	for (i = 0; i < N; i++) {
		v[i] = ev(x, c[i].ev);
		bw[i] = pmu_bandwidth_req(x, c[i].pip, c[i].lanes, v[i]);
	}
	for (i = 0; i < sizeof paths / sizeof paths[0]; i++)
		put(o, x, paths[i].p, v[paths[i].i], bw[paths[i].i], R_NONE);
	/* the L2 counts (events 106, 120, 121) are L2Cache.bin's, off the
	 * replay list the reference's view reads: 0 there, so the misses
	 * are unknown */
	o->hit = l2hit;
	o->miss = l2all > l2hit ? l2all - l2hit : ST_NA;
	use(o, "Cube", ev(x, 10), x->cycles);
	use(o, "Vector", ev(x, 8), x->cycles);
	if (!t)
		return;

	ichit = sub_max(ev(x, 84), icmiss);
	memset(t, 0, sizeof *t);
	{
		struct st_table *tb = tab(t, "Cache", head_cache);
		cache_row(tb, "L2 Cache Total", o->hit, o->miss);
		cache_row(tb, "iCache Total", ichit, icmiss);
	}
#define MEM(tb, name, i) mem_row(tb, name, v[i], bw[i], NULL)
	{
		struct st_table *tb = tab(t, "Cube", head_mem);
		MEM(tb, "Cube Read L0A", L0A_CUBE);
		MEM(tb, "Cube Read L0B", L0B_CUBE);
		MEM(tb, "Cube Write L0C", L0C_WR);
		tb = tab(t, "GM", head_mem);
		MEM(tb, "Read Main Memory", GM_RD);
		MEM(tb, "Write Main Memory", GM_WR);
		tb = tab(t, "L0A", head_mem);
		MEM(tb, "L0A Read MTE", L0A_RD);
		MEM(tb, "L0A Write Cube", L0A_CUBE);
		MEM(tb, "L0A Read L1", L0A_RD);
		tb = tab(t, "L0B", head_mem);
		MEM(tb, "L0B Read MTE", L0B_RD);
		MEM(tb, "L0B Write Cube", L0B_CUBE);
		MEM(tb, "L0B Read L1", L0B_RD);
		tb = tab(t, "L0C", head_mem);
		MEM(tb, "L0C Read Cube", L0C_WR);
		MEM(tb, "L0C Write UB", UB_WR);
		MEM(tb, "L0C Read UB", UB_RD);
		tb = tab(t, "L1", head_mem);
		MEM(tb, "L1 Read MTE", L1_RD);
		MEM(tb, "L1 Write MTE", MTE_WR);
		MEM(tb, "L1 Read L0A/L0B/UB", L1_RD);
		MEM(tb, "L1 Write GM/UB", MTE_WR);
		tb = tab(t, "UB", head_mem);
		MEM(tb, "UB Read MTE", UB_MTE_RD);
		MEM(tb, "UB Write MTE", UB_MTE_WR);
		MEM(tb, "UB Read GM", UB_MTE_RD);
		MEM(tb, "UB Write GM", UB_MTE_WR);
		MEM(tb, "UB Write Vector", UB_VEC_RD);
		MEM(tb, "UB Read Vector", UB_VEC_WR);
		MEM(tb, "UB Read Scalar", SC_RD);
		MEM(tb, "UB Write Scalar", SC_WR);
		MEM(tb, "UB Write L0C", UB_WR);
		MEM(tb, "UB Read L0C", UB_RD);
		tb = tab(t, "Vector", head_mem);
		MEM(tb, "Vector Write UB", UB_VEC_WR);
		MEM(tb, "Vector Read UB", UB_VEC_RD);
	}
#undef MEM
	{
		/* instructions, cycles, waits; the active rate over the block's
		 * cycles (no bandwidth column on 310P) */
		static const struct { const char *name; unsigned ins, cyc, wait; } p[] = {
			{ "MTE1", 4, 11, 90 }, { "MTE2", 5, 12, 91 }, { "MTE3", 6, 13, 92 }, { "Scalar", 0, 9, 87 },
		};
		struct st_table *tb = tab(t, "Pipe", head_pipe);
		for (i = 0; i < 4; i++) {
			struct st_row *r = row(tb, p[i].name);
			val_u64(r, p[i].ins ? ev(x, p[i].ins) : 0);
			val_u64(r, ev(x, p[i].cyc));
			val_u64(r, ev(x, p[i].wait));
			val_float(r, st_percent(ev(x, p[i].cyc), x->cycles));
		}
	}
	tabs_done(t);
}
void st_block_a5(struct st_block *o, struct st_tables *t, const char *type, const struct pmu_ctx *x,
                 const struct pmu_ctx *v0, const struct pmu_ctx *v1, int has_simt)
{
	(void)o; (void)t; (void)type; (void)x; (void)v0; (void)v1; (void)has_simt;
	memset(o, 0, sizeof *o);
	if (t)
		memset(t, 0, sizeof *t);
}
void st_table_910b(struct st_tables *t, const char *type, const struct pmu_ctx *x, const struct pmu_ctx *v0,
                   const struct pmu_ctx *v1, int64_t l2_evict)
{
	(void)type; (void)x; (void)v0; (void)v1; (void)l2_evict;
	memset(t, 0, sizeof *t);
}
