/* The storage-access view of a 910B/A3 block (see storage.h). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "roofline.h"
#include "storage.h"

static uint64_t evk(const struct pmu_ctx *x, enum board_core core, unsigned id);

/* a - b, UINT64_MAX when negative (the reference's checked difference:
 * an unknown count minus a known one is not unknown there) */
static uint64_t sub_chk(uint64_t a, uint64_t b)
{
	return b > a ? UINT64_MAX : a - b;
}

static void cube_counts(uint64_t p19, uint64_t p49, uint64_t p50, uint64_t p518, uint64_t p524,
                        struct st_cube_counts *c)
{
	uint64_t p19x4 = p19 > ST_NA / 4 ? ST_NA : 4 * p19;
	c->mte_gm_read = sub_chk(p50, p518);
	c->l0ab_write = sub_chk(pmu_sat_add(p49, p524), pmu_sat_add(p19x4, p518));
	c->l1_gm_write = sub_chk(pmu_sat_add(p19x4, p518), p524);
	c->gm_write = sub_chk(p524, p518);
}

/* an event's count; 0 when it was not counted */
static uint64_t get0(const struct pmu_counts *c, unsigned id)
{
	uint64_t v = pmu_counts_get(c, id);
	return v == PMU_EMPTY ? 0 : v;
}

void st_cube_counts(const struct pmu_counts *e, struct st_cube_counts *c)
{
	cube_counts(get0(e, 19), get0(e, 49), get0(e, 50), get0(e, 518), get0(e, 524), c);
}

static const char *const path_names[ST_PATHS] = {
	"GM -> L2", "L2 -> GM", "L2 -> L1", "L1 -> L2", "GM/L1 -> L0A", "GM/L1 -> L0B", "L0A -> Cube",
	"L0B -> Cube", "Cube -> L0C", "L0C -> L1", "L0C -> L2", "L0C -> Cube", "L2 -> UB", "UB -> L2",
	"UB -> Vector", "Vector -> UB", "L2 -> UB", "UB -> L2", "UB -> Vector", "Vector -> UB",
	"L2/UB -> L1", "L1 -> L0A", "L2/L1 -> L0B", "Vector -> L0C", "L0C -> Vector", "L2/L1 -> UB",
	[ST_GM_TO_L0A] = "GM -> L0A", "GM -> L0B", "L1 -> L0A", "L1 -> L0B", "L0C -> FIXP", "FIXP -> L2",
	"FIXP -> L1", "FIXP -> UB", "FIXP -> UB", "L1 -> UB", "L1 -> UB", "UB -> L1", "UB -> L1", "L2 -> DCache",
	"L2 -> DCache", "DCache -> L2", "DCache -> L2", "Vector -> DCache", "Vector -> DCache", "DCache -> Vector",
	"DCache -> Vector"
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
	uint64_t p518 = evk(x, BOARD_CUBE, 518);
	cube_counts(evk(x, BOARD_CUBE, 19), evk(x, BOARD_CUBE, 49), evk(x, BOARD_CUBE, 50), p518, evk(x, BOARD_CUBE, 524), &c);
	put(o, x, ST_L2_TO_L1, c.mte_gm_read, by_bytes(x, c.mte_gm_read, 256), R_GM_TO_L1);
	put(o, x, ST_L1_TO_L2, c.l1_gm_write, by_bytes(x, c.l1_gm_write, 128), R_GM_TO_UB);
	put(o, x, ST_TO_L0A, evk(x, BOARD_CUBE, 28), pmu_bandwidth_req(x, 256, 8, evk(x, BOARD_CUBE, 28)), R_NONE);
	put(o, x, ST_TO_L0B, evk(x, BOARD_CUBE, 34), pmu_bandwidth_req(x, 128, 8, evk(x, BOARD_CUBE, 34)), R_NONE);
	put(o, x, ST_L0A_TO_CUBE, evk(x, BOARD_CUBE, 27), pmu_bandwidth_req(x, 256, 16, evk(x, BOARD_CUBE, 27)), R_NONE);
	put(o, x, ST_L0B_TO_CUBE, evk(x, BOARD_CUBE, 33), pmu_bandwidth_req(x, 256, 16, evk(x, BOARD_CUBE, 33)), R_NONE);
	put(o, x, ST_CUBE_TO_L0C, evk(x, BOARD_CUBE, 42), pmu_bandwidth_req(x, 256, 32, evk(x, BOARD_CUBE, 42)), R_NONE);
	put(o, x, ST_L0C_TO_L1, p518, by_bytes(x, p518, 128), R_NONE);
	put(o, x, ST_L0C_TO_L2, c.gm_write, by_bytes(x, c.gm_write, 128), R_NONE);
	put(o, x, ST_L0C_TO_CUBE, evk(x, BOARD_CUBE, 40), pmu_bandwidth_req(x, 256, 32, evk(x, BOARD_CUBE, 40)), R_NONE);
	/* the split of the L0A/L0B loads by source: all from L1 without
	 * memory-detail data */
	put(o, x, ST_GM_TO_L0A, 0, pmu_bandwidth_req(x, 256, 8, 0), R_NONE);
	put(o, x, ST_GM_TO_L0B, 0, pmu_bandwidth_req(x, 128, 8, 0), R_NONE);
	put(o, x, ST_L1_TO_L0A, evk(x, BOARD_CUBE, 28), pmu_bandwidth_req(x, 256, 8, evk(x, BOARD_CUBE, 28)), R_NONE);
	put(o, x, ST_L1_TO_L0B, evk(x, BOARD_CUBE, 34), pmu_bandwidth_req(x, 128, 8, evk(x, BOARD_CUBE, 34)), R_NONE);
}

/* A vector sub-core's UB paths from counts s, rated over x's span. */
static void vec_paths(struct st_block *o, const struct pmu_ctx *x, const struct pmu_ctx *s, enum st_path first)
{
	uint64_t rd = evk(s, BOARD_VECTOR, 62), wr = evk(s, BOARD_VECTOR, 61), vrd = evk(s, BOARD_VECTOR, 67), vwr = evk(s, BOARD_VECTOR, 68);
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
	const enum board_core kx = strcmp(type, "vector") ? BOARD_CUBE : BOARD_VECTOR;
	const enum board_core k[3] = { kx, BOARD_VECTOR, BOARD_VECTOR };
	uint64_t whit = 0, rhit = 0, wmiss = 0, rmiss = 0, gm_read, gm_write;
	int mix = !strcmp(type, "mix");
	unsigned i;

	memset(o, 0, sizeof *o);
	for (i = 0; i < 3; i++) {
		whit = pmu_sat_add(whit, evk(s[i], k[i], 1280));
		rhit = pmu_sat_add(rhit, pmu_sat_add(evk(s[i], k[i], 1284), evk(s[i], k[i], 1288)));
		wmiss = pmu_sat_add(wmiss, evk(s[i], k[i], 1282));
		rmiss = pmu_sat_add(rmiss, pmu_sat_add(evk(s[i], k[i], 1286), evk(s[i], k[i], 1290)));
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
		use(o, "Cube", evk(x, BOARD_CUBE, 10), x->cycles);
	if (mix) {
		use(o, "Vector", evk(v0, BOARD_VECTOR, 8), v0 ? v0->cycles : 0);
		use(o, "Vector1", evk(v1, BOARD_VECTOR, 8), v1 ? v1->cycles : 0);
	} else if (strcmp(type, "cube"))
		use(o, "Vector", evk(x, BOARD_VECTOR, 8), x->cycles);
}

/* ---- the tables ---- */

static const char *const head_mem[] = { "", "requests", "throughput(GB/s)", NULL };
static const char *const head_peak[] = { "", "requests", "throughput(GB/s)", "peak(%)", NULL };
static const char *const head_cache[] = { "", "hit", "miss", "total", "hit rate(%)", NULL };
static const char *const head_pipe[] = { "", "instructions", "cycle", "wait cycles", "active rate(%)",
                                         "active bw(GB/s)", NULL };
static const char *const head_scalar[] = { "", "cycle", "time(us)", NULL };

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

/* An event's count as the reference's view reads a sub-core's: an event
 * of its kind's replay list with its count (UINT64_MAX when no replay
 * counted it), any other 0; no sub-core, 0. */
static uint64_t evk(const struct pmu_ctx *x, enum board_core core, unsigned id)
{
	size_t n, k;
	const uint16_t *list;
	if (!x || !x->ev)
		return 0;
	list = pmu_replay_events(x->fmt, core, &n);
	for (k = 0; k < n; k++)
		if (list[k] == id)
			return pmu_counts_get(x->ev, id);
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
	uint64_t v[N], l2hit = evk(x, BOARD_CUBE, 106), l2all = evk(x, BOARD_CUBE, 120) + evk(x, BOARD_CUBE, 121), ichit;
	uint64_t icmiss = evk(x, BOARD_CUBE, 85);
	float bw[N];
	unsigned i;

	memset(o, 0, sizeof *o);
	for (i = 0; i < N; i++) {
		v[i] = evk(x, BOARD_CUBE, c[i].ev);
		bw[i] = pmu_bandwidth_req(x, c[i].pip, c[i].lanes, v[i]);
	}
	for (i = 0; i < sizeof paths / sizeof paths[0]; i++)
		put(o, x, paths[i].p, v[paths[i].i], bw[paths[i].i], R_NONE);
	/* the L2 counts (events 106, 120, 121) are L2Cache.bin's, off the
	 * replay list: 0 here, so the misses are unknown */
	o->hit = l2hit;
	o->miss = l2all > l2hit ? l2all - l2hit : ST_NA;
	use(o, "Cube", evk(x, BOARD_CUBE, 10), x->cycles);
	use(o, "Vector", evk(x, BOARD_CUBE, 8), x->cycles);
	if (!t)
		return;

	ichit = sub_max(evk(x, BOARD_CUBE, 84), icmiss);
	memset(t, 0, sizeof *t);
	{
		struct st_table *tb = tab(t, "Cache", head_cache);
		cache_row(tb, "L2 Cache Total", o->hit, o->miss);
		cache_row(tb, "iCache Total", ichit, icmiss);
	}
	{
		/* the memory tables, a row per count (in table order) */
		static const struct { const char *tab, *row; int i; } m[] = {
			{ "Cube", "Cube Read L0A", L0A_CUBE }, { "Cube", "Cube Read L0B", L0B_CUBE },
			{ "Cube", "Cube Write L0C", L0C_WR }, { "GM", "Read Main Memory", GM_RD },
			{ "GM", "Write Main Memory", GM_WR }, { "L0A", "L0A Read MTE", L0A_RD },
			{ "L0A", "L0A Write Cube", L0A_CUBE }, { "L0A", "L0A Read L1", L0A_RD },
			{ "L0B", "L0B Read MTE", L0B_RD }, { "L0B", "L0B Write Cube", L0B_CUBE },
			{ "L0B", "L0B Read L1", L0B_RD }, { "L0C", "L0C Read Cube", L0C_WR }, { "L0C", "L0C Write UB", UB_WR },
			{ "L0C", "L0C Read UB", UB_RD }, { "L1", "L1 Read MTE", L1_RD }, { "L1", "L1 Write MTE", MTE_WR },
			{ "L1", "L1 Read L0A/L0B/UB", L1_RD }, { "L1", "L1 Write GM/UB", MTE_WR },
			{ "UB", "UB Read MTE", UB_MTE_RD }, { "UB", "UB Write MTE", UB_MTE_WR }, { "UB", "UB Read GM", UB_MTE_RD },
			{ "UB", "UB Write GM", UB_MTE_WR }, { "UB", "UB Write Vector", UB_VEC_RD },
			{ "UB", "UB Read Vector", UB_VEC_WR }, { "UB", "UB Read Scalar", SC_RD },
			{ "UB", "UB Write Scalar", SC_WR }, { "UB", "UB Write L0C", UB_WR }, { "UB", "UB Read L0C", UB_RD },
			{ "Vector", "Vector Write UB", UB_VEC_WR }, { "Vector", "Vector Read UB", UB_VEC_RD },
		};
		struct st_table *tb = NULL;
		for (i = 0; i < sizeof m / sizeof m[0]; i++) {
			if (!tb || strcmp(tb->name, m[i].tab))
				tb = tab(t, m[i].tab, head_mem);
			mem_row(tb, m[i].row, v[m[i].i], bw[m[i].i], NULL);
		}
	}
	{
		/* instructions, cycles, waits; the active rate over the block's
		 * cycles (no bandwidth column on 310P) */
		static const struct { const char *name; unsigned ins, cyc, wait; } p[] = {
			{ "MTE1", 4, 11, 90 }, { "MTE2", 5, 12, 91 }, { "MTE3", 6, 13, 92 }, { "Scalar", 0, 9, 87 },
		};
		struct st_table *tb = tab(t, "Pipe", head_pipe);
		for (i = 0; i < 4; i++) {
			struct st_row *r = row(tb, p[i].name);
			val_u64(r, p[i].ins ? evk(x, BOARD_CUBE, p[i].ins) : 0);
			val_u64(r, evk(x, BOARD_CUBE, p[i].cyc));
			val_u64(r, evk(x, BOARD_CUBE, p[i].wait));
			val_float(r, st_percent(evk(x, BOARD_CUBE, p[i].cyc), x->cycles));
		}
	}
	tabs_done(t);
}
/* ---- Ascend950 ---- */

struct mi {                        /* a memory unit's count, GB/s and peak share */
	uint64_t req;
	float bw;
	char peak[PMU_VALUE_MAX];
};
struct ci {                        /* a cache's hits, misses and total */
	uint64_t hit, miss, total;
};
struct pi {                        /* a pipe's instructions, cycles, waits, active bandwidth and rate */
	uint64_t ins, cyc, wait;
	char bw[PMU_VALUE_MAX];
	float rate;
};
struct a5_cube {
	struct ci cache[4];
	struct pi pipe[5];
	struct mi gm[2], cube[4], l0a[3], l0b[3], l0c[6], l1[7], l2[2];
};
struct a5_vec {
	struct ci cache[4];
	struct pi pipe[3];
	struct mi gm[2], ub[9], vec[2], dcache[4], l2[2];
};

/* A count of r's request size over us: its GB/s and, with path (>= 0)
 * and a known count, its share of the path's peak. */
static struct mi a5_mi(const struct pmu_ctx *x, float us, uint64_t v, enum pmu_req r, int path)
{
	struct mi m;
	float gb = pmu_data_fp(v, pmu_req_bytes(BOARD_A5, r), 0);
	m.req = v;
	m.bw = pmu_bandwidth_fp(gb, us, 1.0f);
	if (path >= 0 && v != UINT64_MAX)
		pmu_bw_usage(gb, us, (enum pmu_path)path, x->soc, 0, m.peak);
	else
		strcpy(m.peak, "NA");
	return m;
}

static uint64_t sum_sat(const struct pmu_ctx *x, enum board_core k, const unsigned *id, unsigned n)
{
	uint64_t s = 0;
	while (n--)
		s = pmu_sat_add(s, evk(x, k, *id++));
	return s;
}

static uint64_t sub_0(uint64_t a, uint64_t b)   /* a - b, 0 when negative */
{
	return b > a ? 0 : a - b;
}

static void a5_cache(const struct pmu_ctx *x, enum board_core k, struct ci *c)
{
	static const unsigned wmiss[] = { 1067, 1068, 1070, 1071 }, rmiss[] = { 1061, 1062, 1064, 1065 };
	c[0].hit = pmu_sat_add(evk(x, k, 1066), evk(x, k, 1069));
	c[0].miss = sum_sat(x, k, wmiss, 4);
	c[0].total = pmu_sat_add(c[0].hit, c[0].miss);
	c[1].hit = pmu_sat_add(evk(x, k, 1060), evk(x, k, 1063));
	c[1].miss = sum_sat(x, k, rmiss, 4);
	c[1].total = pmu_sat_add(c[1].hit, c[1].miss);
	c[2].hit = pmu_sat_add(c[0].hit, c[1].hit);
	c[2].miss = pmu_sat_add(c[0].miss, c[1].miss);
	c[2].total = pmu_sat_add(c[0].total, c[1].total);
	c[3].hit = sub_0(evk(x, k, 52), evk(x, k, 53));
	c[3].miss = evk(x, k, 53);
	c[3].total = evk(x, k, 52);
}

/* The pipes' advice: bit k for "MTE1", "MTE2", "MTE2 vector", "MTE3",
 * "MTE3 vector" (the reference's set, in its order). */
static int fzero_st(float v)
{
	return fabsf(v) < FLT_EPSILON;
}


/* bytes over us against the pipe's peak, when the pipe was active: below
 * 0.8 of its active rate sets the pipe's advice bit */
static void a5_advise(unsigned *adv, unsigned bit, float gb, float us, float rate, float peak)
{
	if (adv && !fzero_st(rate) && !fzero_st(peak) && pmu_bandwidth_fp(gb, us, 1.0f) / rate / peak < 0.8f)
		*adv |= 1u << bit;
}

/* a pipe's active bandwidth: gb over its busy time */
static void a5_pipe_bw(const struct pmu_ctx *x, float gb, uint64_t cyc, char *buf)
{
	pmu_bandwidth(gb, x->freq == 0 ? 0.0f : (float)cyc / (float)x->freq, 1.0f, buf);
}

static void a5_pipe(struct pi *p, const struct pmu_ctx *x, enum board_core k, unsigned ins, unsigned cyc, unsigned wait, float gb,
                    int has_bw, uint64_t total)
{
	p->ins = evk(x, k, ins);
	p->cyc = evk(x, k, cyc);
	p->wait = evk(x, k, wait);
	if (has_bw)
		a5_pipe_bw(x, gb, p->cyc, p->bw);
	else
		strcpy(p->bw, "NA");
	p->rate = st_percent(p->cyc, total);
}

static float a5_span(const struct pmu_ctx *x, uint64_t cycles)
{
	if (!fzero_st(x->duration))
		return x->duration;
	return x->freq == 0 ? 0.0f : (float)cycles / (float)x->freq;
}

/* fix_ub: the cube's FIXP -> UB counts for vector0 and vector1 */
static void a5_cube_data(struct a5_cube *d, const struct pmu_ctx *x, unsigned *adv, uint64_t fix_ub[2])
{
	const enum board_core k = BOARD_CUBE;
	static const unsigned fixp[] = { 1804, 1806, 1815, 1059 }, gm_l2[] = { 1061, 1062, 1064, 1065 },
	                      l2_gm[] = { 1062, 1065, 1068, 1071 };
	float us = a5_span(x, x->cycles);
	uint64_t l0c_fixp = sum_sat(x, k, fixp, 4), l0c_ub = pmu_sat_add(evk(x, k, 1804), evk(x, k, 1815));
	uint64_t l1_l0ab = pmu_sat_add(evk(x, k, 1795), evk(x, k, 1797)), l1_ub = sub_0(evk(x, k, 1799), l1_l0ab);
	uint64_t ub_l1 = sub_0(evk(x, k, 1801), pmu_sat_add(evk(x, k, 1806), evk(x, k, 1058) / 2));
	uint64_t mte_l1 = sub_0(evk(x, k, 1801), evk(x, k, 1806));
	float mte1 = pmu_data_fp(evk(x, k, 1799), pmu_req_bytes(BOARD_A5, REQ_L1_TO_MTE), 0);
	float mte2 = pmu_data_fp(evk(x, k, 1058), pmu_req_bytes(BOARD_A5, REQ_GM_TO_L1), 0);
	float mte3 = pmu_data_fp(ub_l1, pmu_req_bytes(BOARD_A5, REQ_MTE_TO_L1), 0);
	float fix = pmu_data_fp(l0c_fixp, pmu_req_bytes(BOARD_A5, REQ_L0C_TO_FIXP), 0);
	float pk1 = pmu_peak_bw(x->soc, 0, PATH_L1_TO_L0A);

	if (pmu_peak_bw(x->soc, 0, PATH_L1_TO_L0B) > pk1)
		pk1 = pmu_peak_bw(x->soc, 0, PATH_L1_TO_L0B);
	if (pmu_peak_bw(x->soc, 0, PATH_L1_TO_UB) > pk1)
		pk1 = pmu_peak_bw(x->soc, 0, PATH_L1_TO_UB);
	fix_ub[0] = evk(x, k, 1804);
	fix_ub[1] = evk(x, k, 1815);
	a5_cache(x, k, d->cache);
	a5_pipe(&d->pipe[0], x, k, 1792, 1794, 13, mte1, 1, x->cycles);
	a5_pipe(&d->pipe[1], x, k, 512, 514, 14, mte2, 1, x->cycles);
	a5_pipe(&d->pipe[2], x, k, 513, 515, 15, mte3, 1, x->cycles);
	a5_pipe(&d->pipe[3], x, k, 1813, 1812, 36, fix, 1, x->cycles);
	a5_pipe(&d->pipe[4], x, k, 0, 1, 10, 0, 0, x->cycles);
	a5_advise(adv, 0, mte1, us, d->pipe[0].rate, pk1);
	a5_advise(adv, 1, mte2, us, d->pipe[1].rate, pmu_peak_bw(x->soc, 0, PATH_GM_TO_L1));
	a5_advise(adv, 3, mte3, us, d->pipe[2].rate, pmu_peak_bw(x->soc, 0, PATH_UB_TO_L1));

	d->gm[0] = a5_mi(x, us, evk(x, k, 1058), REQ_MAIN_MEMORY, -1);
	d->gm[1] = a5_mi(x, us, evk(x, k, 1059), REQ_MAIN_MEMORY, -1);
	d->cube[0] = a5_mi(x, us, evk(x, k, 772), REQ_L0A_TO_CUBE, -1);
	d->cube[1] = a5_mi(x, us, evk(x, k, 774), REQ_L0B_TO_CUBE, -1);
	d->cube[2] = a5_mi(x, us, evk(x, k, 776), REQ_CUBE_TO_L0C, -1);
	d->cube[3] = a5_mi(x, us, evk(x, k, 778), REQ_L0C_TO_CUBE, -1);
	d->l0a[0] = d->l0a[2] = a5_mi(x, us, evk(x, k, 1795), REQ_L1_TO_L0A, PATH_L1_TO_L0A);
	d->l0a[1] = d->cube[0];
	d->l0b[0] = d->l0b[2] = a5_mi(x, us, evk(x, k, 1797), REQ_L1_TO_L0B, PATH_L1_TO_L0B);
	d->l0b[1] = d->cube[1];
	d->l0c[0] = d->cube[2];
	d->l0c[1] = d->cube[3];
	d->l0c[2] = a5_mi(x, us, evk(x, k, 1059), REQ_L0C_TO_GM, PATH_L0C_TO_GM);
	d->l0c[3] = a5_mi(x, us, evk(x, k, 1806), REQ_L0C_TO_L1, PATH_L0C_TO_L1);
	d->l0c[4] = a5_mi(x, us, l0c_fixp, REQ_L0C_TO_FIXP, -1);
	d->l0c[5] = a5_mi(x, us, l0c_ub, REQ_L0C_TO_UB, PATH_L0C_TO_UB);
	d->l1[0] = a5_mi(x, us, mte_l1, REQ_MTE_TO_L1, -1);
	d->l1[1] = a5_mi(x, us, evk(x, k, 1799), REQ_L1_TO_MTE, -1);
	d->l1[2] = a5_mi(x, us, l1_l0ab, REQ_L1_TO_L0B, PATH_L1_TO_L0B);
	d->l1[3] = d->l0c[3];
	d->l1[4] = a5_mi(x, us, evk(x, k, 1058), REQ_GM_TO_L1, PATH_GM_TO_L1);
	d->l1[5] = a5_mi(x, us, l1_ub, REQ_L1_TO_UB, PATH_L1_TO_UB);
	d->l1[6] = a5_mi(x, us, ub_l1, REQ_MTE_TO_L1, -1);
	d->l2[0] = a5_mi(x, us, sum_sat(x, k, gm_l2, 4), REQ_MAIN_MEMORY, -1);
	d->l2[1] = a5_mi(x, us, sum_sat(x, k, l2_gm, 4), REQ_MAIN_MEMORY, -1);
}

/* A vector sub-core; fix_ub: the cube's FIXP -> UB count for it (0 for
 * a vector op).  With SIMT the UB <-> Vector paths are not counted. */
static void a5_vec_data(struct a5_vec *d, const struct pmu_ctx *x, unsigned *adv, uint64_t fix_ub, int has_simt)
{
	const enum board_core k = BOARD_VECTOR;
	static const unsigned d2v[] = { 1395, 1396, 1404 }, v2d[] = { 1397, 1398, 1400, 1404 },
	                      gm_l2[] = { 1061, 1062, 1064, 1065 }, l2_gm[] = { 1062, 1065, 1068, 1071 };
	float us = a5_span(x, x->cycles);
	uint64_t gm_dc = pmu_sat_add(evk(x, k, 1407), evk(x, k, 1408)), gm_ub = sub_0(evk(x, k, 1058), gm_dc);
	uint64_t ub_vec = has_simt ? ST_NA : evk(x, k, 1393), vec_ub = has_simt ? ST_NA : evk(x, k, 1394);
	float mte2 = pmu_data_fp(gm_ub, pmu_req_bytes(BOARD_A5, REQ_GM_TO_UB), 0);

	a5_cache(x, k, d->cache);
	a5_pipe(&d->pipe[0], x, k, 512, 514, 14, mte2, 1, x->cycles);
	/* MTE3's bytes come from the memory-detail records only */
	a5_pipe(&d->pipe[1], x, k, 513, 515, 15, -1.0f, 1, x->cycles);
	a5_pipe(&d->pipe[2], x, k, 0, 1, 10, 0, 0, x->cycles);
	a5_advise(adv, 2, mte2, us, d->pipe[0].rate, pmu_peak_bw(x->soc, 0, PATH_GM_TO_UB));

	d->gm[0] = a5_mi(x, us, evk(x, k, 1058), REQ_MAIN_MEMORY, -1);
	d->gm[1] = a5_mi(x, us, evk(x, k, 1059), REQ_MAIN_MEMORY, -1);
	d->ub[0] = a5_mi(x, us, evk(x, k, 518), REQ_MTE_TO_UB, -1);
	d->ub[1] = a5_mi(x, us, evk(x, k, 516), REQ_UB_TO_MTE, -1);
	d->ub[2] = a5_mi(x, us, gm_ub, REQ_GM_TO_UB, PATH_GM_TO_UB);
	d->ub[3] = a5_mi(x, us, vec_ub, REQ_VEC_TO_UB, -1);
	d->ub[4] = a5_mi(x, us, ub_vec, REQ_UB_TO_VEC, -1);
	d->ub[5] = a5_mi(x, us, fix_ub, REQ_L0C_TO_UB, -1);
	/* L1 -> UB, UB -> L1, UB -> GM: memory-detail records only */
	d->ub[6] = a5_mi(x, us, 0, REQ_L1_TO_UB, -1);
	d->ub[7] = a5_mi(x, us, 0, REQ_UB_TO_L1, -1);
	d->ub[8] = a5_mi(x, us, 0, REQ_UB_TO_GM, -1);
	d->vec[0] = d->ub[3];
	d->vec[1] = d->ub[4];
	d->dcache[0] = a5_mi(x, us, gm_dc, REQ_DCACHE, -1);
	d->dcache[1] = a5_mi(x, us, sum_sat(x, k, v2d, 4), REQ_DCACHE, -1);
	d->dcache[2] = a5_mi(x, us, sum_sat(x, k, d2v, 3), REQ_DCACHE, -1);
	d->dcache[3] = a5_mi(x, us, 0, REQ_DCACHE, -1);
	d->l2[0] = a5_mi(x, us, sum_sat(x, k, gm_l2, 4), REQ_MAIN_MEMORY, -1);
	d->l2[1] = a5_mi(x, us, sum_sat(x, k, l2_gm, 4), REQ_MAIN_MEMORY, -1);
}

static void a5_put(struct st_block *o, enum st_path p, const struct mi *m)
{
	struct st_unit *u = &o->unit[o->nunit++];
	u->path = p;
	u->request = m->req;
	u->bw = m->bw;
	strcpy(u->peak, "NA");
}

static void a5_cache_row(struct st_table *tb, const char *name, const struct ci *c)
{
	struct st_row *r = row(tb, name);
	unsigned k;
	if (c->hit == UINT64_MAX || c->miss == UINT64_MAX || c->total == UINT64_MAX) {
		for (k = 0; k < 4; k++)
			val_txt(r, "NA");
		return;
	}
	val_u64(r, c->hit);
	val_u64(r, c->miss);
	val_u64(r, c->total);
	val_float(r, st_percent(c->hit, c->total));
}

static void a5_mem_rows(struct st_tables *t, const char *name, const char *const *head, const char *const *rows,
                        const struct mi *m, unsigned n)
{
	struct st_table *tb = tab(t, name, head);
	unsigned i;
	for (i = 0; i < n; i++)
		mem_row(tb, rows[i], m[i].req, m[i].bw, m[i].peak);
}

static void a5_pipe_rows(struct st_tables *t, const char *name, const char *const *rows, const struct pi *p,
                         unsigned n)
{
	struct st_table *tb = tab(t, name, head_pipe);
	unsigned i;
	for (i = 0; i < n; i++) {
		struct st_row *r = row(tb, rows[i]);
		int na = p[i].cyc == UINT64_MAX;
		if (p[i].ins == UINT64_MAX)
			val_txt(r, "NA");
		else
			val_u64(r, p[i].ins);
		if (na)
			val_txt(r, "NA");
		else
			val_u64(r, p[i].cyc);
		if (p[i].wait == UINT64_MAX)
			val_txt(r, "NA");
		else
			val_u64(r, p[i].wait);
		if (na) {
			val_txt(r, "NA");
			val_txt(r, "NA");
		} else {
			val_float(r, p[i].rate);
			val_txt(r, p[i].bw);
		}
	}
}

static const char *const a5_gm_rows[] = { "Read Main Memory", "Write Main Memory" };
static const char *const a5_vec_rows[] = { "Vector Write UB", "Vector Read UB" };
static const char *const a5_dc_rows[] = { "DCache Read GM", "DCache Read Vector", "DCache Write Vector" };
static const char *const a5_ub_rows[] = { "UB Read MTE", "UB Write MTE", "UB Read GM", "UB Read Vector",
                                          "UB Write Vector", "UB Read L0C" };
static const char *const a5_cube_pipes[] = { "MTE1", "MTE2", "MTE3", "FIXP", "Scalar" };
static const char *const a5_vec_pipes[] = { "MTE2", "MTE3", "Scalar" };

static void a5_cube_tables(struct st_tables *t, const struct a5_cube *d, int mix)
{
	static const char *const l1[] = { "L1 Read MTE", "L1 Write MTE", "L1 Write L0A/L0B", "L1 Read L0C", "L1 Read GM",
	                                  "L1 Write UB", "L1 Read UB" };
	static const char *const l0a[] = { "L0A Read MTE", "L0A Write Cube", "L0A Read L1/GM" };
	static const char *const l0b[] = { "L0B Read MTE", "L0B Write Cube", "L0B Read L1/GM" };
	static const char *const cube[] = { "Cube Read L0A", "Cube Read L0B", "Cube Write L0C", "Cube Read L0C" };
	static const char *const l0c[] = { "L0C Read Cube", "L0C Write Cube", "L0C Write GM", "L0C Write L1",
	                                   "L0C Write FIXP", "L0C Write UB" };
	a5_mem_rows(t, "L1", head_peak, l1, d->l1, mix ? 7 : 5);
	a5_mem_rows(t, "L0A", head_peak, l0a, d->l0a, 3);
	a5_mem_rows(t, "L0B", head_peak, l0b, d->l0b, 3);
	a5_mem_rows(t, "Cube", head_mem, cube, d->cube, 4);
	a5_mem_rows(t, "L0C", head_peak, l0c, d->l0c, mix ? 6 : 5);
	a5_pipe_rows(t, mix ? "Pipe Cube" : "Pipe", a5_cube_pipes, d->pipe, 5);
	a5_mem_rows(t, mix ? "GM Cube" : "GM", head_mem, a5_gm_rows, d->gm, 2);
}

static void a5_vec_tables(struct st_tables *t, const struct a5_vec *d, int mix, unsigned k)
{
	static const char *const ub[] = { "UB", "UB Core0", "UB Core1" }, *const vec[] = { "Vector", "Vector Core0",
	                                  "Vector Core1" }, *const pipe[] = { "Pipe", "Pipe Vector Core0",
	                                  "Pipe Vector Core1" }, *const gm[] = { "GM", "GM Vector Core0",
	                                  "GM Vector Core1" }, *const dc[] = { "DCache", "DCache Core0", "DCache Core1" };
	unsigned i = mix ? k + 1 : 0;
	a5_mem_rows(t, ub[i], head_peak, a5_ub_rows, d->ub, mix ? 6 : 5);
	a5_mem_rows(t, vec[i], head_mem, a5_vec_rows, d->vec, 2);
	a5_pipe_rows(t, pipe[i], a5_vec_pipes, d->pipe, 3);
	a5_mem_rows(t, gm[i], head_mem, a5_gm_rows, d->gm, 2);
	a5_mem_rows(t, dc[i], head_mem, a5_dc_rows, d->dcache, 3);
}

static void a5_advice(struct st_tables *t, unsigned adv, const char *type)
{
	static const char *const mix[] = { "aicore MTE1 bandwidth utilization lower than 80% when active",
	                                   "aicore MTE2 bandwidth utilization lower than 80% when active",
	                                   "aivector MTE2 bandwidth utilization lower than 80% when active",
	                                   "aicore MTE3 bandwidth utilization lower than 80% when active",
	                                   "aivector MTE3 bandwidth utilization lower than 80% when active" };
	static const char *const plain[] = { "MTE1 bandwidth utilization lower than 80% when active",
	                                     "MTE2 bandwidth utilization lower than 80% when active",
	                                     "MTE2 vector bandwidth utilization lower than 80% when active",
	                                     "MTE3 bandwidth utilization lower than 80% when active",
	                                     "MTE3 vector bandwidth utilization lower than 80% when active" };
	unsigned k;
	int vec = !strcmp(type, "vector");
	for (k = 0; k < 5; k++)
		if (adv & (1u << k))
			/* a vector op's pipes are named without "vector" */
			t->advice[t->nadvice++] = !strcmp(type, "mix") ? mix[k] : vec && k == 2 ? plain[1]
			                          : vec && k == 4 ? plain[3] : plain[k];
}

/* The heat map's paths of a vector op's sub-core or of a mix op's vector
 * sub-core k (its own path numbers). */
static void a5_vec_paths(struct st_block *o, const struct a5_vec *d, int mix, unsigned k)
{
	static const enum st_path p[2][8] = {
		{ ST_L2_TO_UB, ST_UB_TO_L2, ST_UB_TO_VEC, ST_VEC_TO_UB, ST_L2_TO_DCACHE, ST_VEC_TO_DCACHE,
		  ST_DCACHE_TO_VEC, ST_FIXP_TO_UB },
		{ ST_L2_TO_UB_1, ST_UB_TO_L2_1, ST_UB_TO_VEC_1, ST_VEC_TO_UB_1, ST_L2_TO_DCACHE_1,
		  ST_VEC_TO_DCACHE_1, ST_DCACHE_TO_VEC_1, ST_FIXP_TO_UB_1 },
	};
	a5_put(o, p[k][0], &d->ub[2]);
	a5_put(o, p[k][1], &d->gm[1]);
	a5_put(o, p[k][2], &d->ub[4]);
	a5_put(o, p[k][3], &d->ub[3]);
	a5_put(o, p[k][4], &d->dcache[0]);
	a5_put(o, p[k][5], &d->dcache[1]);
	a5_put(o, p[k][6], &d->dcache[2]);
	if (mix)
		a5_put(o, p[k][7], &d->ub[5]);
}

static void sort_units(struct st_block *o)
{
	unsigned i, k;
	for (i = 1; i < o->nunit; i++) {   /* by path */
		struct st_unit t = o->unit[i];
		for (k = i; k > 0 && o->unit[k - 1].path > t.path; k--)
			o->unit[k] = o->unit[k - 1];
		o->unit[k] = t;
	}
}

void st_block_a5(struct st_block *o, struct st_tables *t, const char *type, const struct pmu_ctx *x,
                 const struct pmu_ctx *v0, const struct pmu_ctx *v1, int has_simt, unsigned *adv)
{
	static struct a5_cube c;
	static struct a5_vec v[2];
	const struct pmu_ctx *vx[2] = { v0, v1 };
	struct pmu_ctx none[2];
	struct ci cache[4];
	struct mi l2[2];
	uint64_t fix_ub[2] = { 0, 0 };
	int mix = !strcmp(type, "mix"), vec = !strcmp(type, "vector");
	unsigned k, *a = t ? adv : NULL;

	memset(o, 0, sizeof *o);
	if (vec) {
		a5_vec_data(&v[0], x, a, 0, has_simt);
		memcpy(cache, v[0].cache, sizeof cache);
		memcpy(l2, v[0].l2, sizeof l2);
	} else {
		a5_cube_data(&c, x, a, fix_ub);
		memcpy(cache, c.cache, sizeof cache);
		memcpy(l2, c.l2, sizeof l2);
	}
	if (mix) {
		/* a missing vector sub-core counts nothing */
		for (k = 0; k < 2; k++) {
			if (!vx[k]) {
				none[k] = *x;
				none[k].ev = NULL;
				none[k].cycles = 0;
				vx[k] = &none[k];
			}
			a5_vec_data(&v[k], vx[k], a, fix_ub[k], has_simt);
		}
		/* the op's caches and L2 paths: the three sub-cores' sums */
		for (k = 0; k < 4; k++) {
			cache[k].hit = pmu_sat_add(pmu_sat_add(c.cache[k].hit, v[0].cache[k].hit), v[1].cache[k].hit);
			cache[k].miss = pmu_sat_add(pmu_sat_add(c.cache[k].miss, v[0].cache[k].miss), v[1].cache[k].miss);
			cache[k].total = pmu_sat_add(pmu_sat_add(c.cache[k].total, v[0].cache[k].total),
			                             v[1].cache[k].total);
		}
		for (k = 0; k < 2; k++) {
			l2[k].req = pmu_sat_add(pmu_sat_add(c.l2[k].req, v[0].l2[k].req), v[1].l2[k].req);
			l2[k].bw = c.l2[k].bw + v[0].l2[k].bw + v[1].l2[k].bw;
		}
	}

	a5_put(o, ST_GM_TO_L2, &l2[0]);
	a5_put(o, ST_L2_TO_GM, &l2[1]);
	if (vec)
		a5_vec_paths(o, &v[0], 0, 0);
	else {
		a5_put(o, ST_L2_TO_L1, &c.l1[4]);
		a5_put(o, ST_L1_TO_L0A, &c.l0a[0]);
		a5_put(o, ST_L1_TO_L0B, &c.l0b[0]);
		a5_put(o, ST_L0A_TO_CUBE, &c.l0a[1]);
		a5_put(o, ST_L0B_TO_CUBE, &c.l0b[1]);
		a5_put(o, ST_CUBE_TO_L0C, &c.l0c[0]);
		/* (the reference's L0C -> FIXP path shows the L0C -> UB count) */
		a5_put(o, ST_L0C_TO_FIXP, &c.l0c[5]);
		a5_put(o, ST_FIXP_TO_L1, &c.l0c[3]);
		a5_put(o, ST_FIXP_TO_L2, &c.l0c[2]);
	}
	if (mix) {
		a5_put(o, ST_UB_TO_L1, &c.l1[6]);
		a5_put(o, ST_L1_TO_UB, &c.l1[5]);
		for (k = 0; k < 2; k++)
			a5_vec_paths(o, &v[k], 1, k);
	}
	sort_units(o);
	o->hit = cache[2].hit;
	o->miss = cache[2].miss;
	if (!vec)
		use(o, "Cube", evk(x, BOARD_CUBE, 810), x->cycles);
	if (mix) {
		use(o, "Vector", evk(v0, BOARD_VECTOR, 1281), v0 ? v0->cycles : 0);
		use(o, "Vector1", evk(v1, BOARD_VECTOR, 1281), v1 ? v1->cycles : 0);
	} else if (vec)
		use(o, "Vector", evk(x, BOARD_VECTOR, 1281), x->cycles);
	if (!t)
		return;

	memset(t, 0, sizeof *t);
	{
		static const char *const names[] = { "L2 Cache Write", "L2 Cache Read", "L2 Cache Total", "iCache Total" };
		struct st_table *tb = tab(t, "Cache", head_cache);
		for (k = 0; k < 4; k++)
			a5_cache_row(tb, names[k], &cache[k]);
	}
	if (vec)
		a5_vec_tables(t, &v[0], 0, 0);
	else
		a5_cube_tables(t, &c, mix);
	if (mix)
		for (k = 0; k < 2; k++)
			a5_vec_tables(t, &v[k], 1, k);
	tabs_done(t);
	a5_advice(t, *adv, type);
}

/* ---- 910B/A3: the table ---- */

static const char *const b9_gm_rows[] = { "Read Main Memory", "Write Main Memory" };
static const char *const b9_ub_rows[] = { "UB Read MTE", "UB Write MTE", "UB Read GM", "UB Write GM",
                                          "UB Write Vector", "UB Read Vector", "UB Read Scalar", "UB Write Scalar" };
static const char *const b9_sc_cube[] = { "Scalar Time", "Scalar Single", "Scalar Dual", "Scalar Mte1 Stall",
                                          "Scalar Mte2 Stall", "Scalar Mte3 Stall", "Scalar WAIT IB", "Scalar Wait",
                                          "Scalar Cube Stall" };
static const char *const b9_sc_vec[] = { "Scalar Time", "Scalar Single", "Scalar Dual", "Scalar Mte2 Stall",
                                         "Scalar Mte3 Stall", "Scalar WAIT IB", "Scalar Wait", "Scalar Ub Stall",
                                         "Scalar Vector Stall" };
static const char *const b9_internuclear[] = {
	"Scalar Internuclear ID0", "Scalar Internuclear ID1", "Scalar Internuclear ID2", "Scalar Internuclear ID3",
	"Scalar Internuclear ID4", "Scalar Internuclear ID5", "Scalar Internuclear ID6", "Scalar Internuclear ID7",
	"Scalar Internuclear ID8", "Scalar Internuclear ID9", "Scalar Internuclear ID10", "Scalar Internuclear ID11",
	"Scalar Internuclear ID12", "Scalar Internuclear ID13", "Scalar Internuclear ID14", "Scalar Internuclear ID15",
};

/* a pipe of the advice: its peak share over the block's span and its
 * active rate (both percent-free ratios as the reference weighs them) */
struct b9_adv {
	const char *name;
	float peak, rate;
};

struct b9 {
	const struct pmu_ctx *x;     /* the block (rates, clock) */
	struct st_tables *t;
	unsigned nadv;
	struct b9_adv adv[8];
};

/* A pipe row: rate over cyc, recorded for the advice under key. */
static float b9_pipe_row(struct st_table *tb, const char *name, uint64_t ins, uint64_t cycle, uint64_t wait,
                         const char *bw, uint64_t cyc)
{
	struct st_row *r = row(tb, name);
	float rate = st_percent(cycle, cyc);
	if (ins == UINT64_MAX)
		val_txt(r, "NA");
	else
		val_u64(r, ins);
	if (cycle == UINT64_MAX)
		val_txt(r, "NA");
	else
		val_u64(r, cycle);
	if (wait == UINT64_MAX)
		val_txt(r, "NA");
	else
		val_u64(r, wait);
	if (cycle == UINT64_MAX || cyc == UINT64_MAX)
		val_txt(r, "NA");
	else
		val_float(r, rate);
	val_txt(r, bw);
	return rate;
}

static void b9_scalar_row(struct b9 *b, struct st_table *tb, const char *name, uint64_t v)
{
	struct st_row *r = row(tb, name);
	if (v == UINT64_MAX) {
		val_txt(r, "NA");
		val_txt(r, "NA");
		return;
	}
	val_u64(r, v);
	pmu_pipe_time(b->x, v, r->v[r->n++]);
}

/* a scalar table: its rows' events, then the non-zero inter-core waits */
static void b9_scalar(struct b9 *b, const char *name, const struct pmu_ctx *s, enum board_core k, int cube)
{
	static const unsigned ev_cube[] = { 9, 112, 113, 107, 108, 109, 114, 87, 110 },
	                      ev_vec[] = { 9, 112, 113, 108, 109, 114, 87, 106, 111 };
	struct st_table *tb = tab(b->t, name, head_scalar);
	unsigned i;
	for (i = 0; i < 9; i++)
		b9_scalar_row(b, tb, cube ? b9_sc_cube[i] : b9_sc_vec[i], evk(s, k, cube ? ev_cube[i] : ev_vec[i]));
	for (i = 0; i < 16; i++) {
		uint64_t v = evk(s, k, i < 8 ? 1792 + i : 1780 + i - 8);
		if (v != 0)
			b9_scalar_row(b, tb, b9_internuclear[i], v);
	}
}

/* the cube's MTE3 active bandwidth: the L1 -> GM requests of 128 bytes
 * over the MTE3 busy time, in the reference's single-precision order */
static void b9_mte3_bw(const struct pmu_ctx *x, uint64_t l1_gm, uint64_t cyc, char *buf)
{
	float f;
	if (cyc == 0) {
		strcpy(buf, "NA");
		return;
	}
	f = (float)l1_gm * 128;
	f = f / (float)cyc * (float)x->freq / 1024 / 1024 / 1024 * 1000 * 1000;
	pmu_fmt_float(f, buf);
}

/* a vector sub-core's UB and Vector tables (names by ub, vec) and its
 * MTE2 / MTE3 peak shares against pk2, pk3 */
static void b9_ub(struct b9 *b, const char *ub, const char *vec, const struct pmu_ctx *s, float *thr_rd,
                  float *thr_wr)
{
	const struct pmu_ctx *x = b->x;
	const enum board_core k = BOARD_VECTOR;
	uint64_t rd = evk(s, k, 62), wr = evk(s, k, 61), vrd = evk(s, k, 67), vwr = evk(s, k, 68);
	uint64_t srd = evk(s, k, 55), swr = evk(s, k, 56);
	float brd = pmu_bytes_bw(x, rd, 128), bwr = pmu_bytes_bw(x, wr, 128);
	float bvrd = pmu_bandwidth_req(x, 256, 8, vrd), bvwr = pmu_bandwidth_req(x, 256, 8, vwr);
	char urd[PMU_VALUE_MAX];
	struct st_table *tb = tab(b->t, ub, head_peak);
	pmu_transport_usage(x, rd, REQ_L1_TO_GM, PATH_L1_TO_GM, urd);
	mem_row(tb, b9_ub_rows[0], rd, brd, urd);
	mem_row(tb, b9_ub_rows[1], wr, bwr, "NA");
	mem_row(tb, b9_ub_rows[2], rd, brd, urd);
	mem_row(tb, b9_ub_rows[3], wr, bwr, "NA");
	mem_row(tb, b9_ub_rows[4], vrd, bvrd, "NA");
	mem_row(tb, b9_ub_rows[5], vwr, bvwr, "NA");
	mem_row(tb, b9_ub_rows[6], srd, pmu_bandwidth_req(x, 128, 1, srd), "NA");
	mem_row(tb, b9_ub_rows[7], swr, pmu_bandwidth_req(x, 128, 1, swr), "NA");
	tb = tab(b->t, vec, head_mem);
	mem_row(tb, "Vector Write UB", vwr, bvwr, NULL);
	mem_row(tb, "Vector Read UB", vrd, bvrd, NULL);
	*thr_rd = brd;
	*thr_wr = bwr;
}

static void b9_gm(struct b9 *b, const char *name, const struct pmu_ctx *s, enum board_core k)
{
	uint64_t rd = pmu_sat_add(evk(s, k, 1293), evk(s, k, 1294)), wr = evk(s, k, 1292);
	struct st_table *tb = tab(b->t, name, head_mem);
	mem_row(tb, b9_gm_rows[0], rd, pmu_bandwidth_req(b->x, 128, 8, rd), NULL);
	mem_row(tb, b9_gm_rows[1], wr, pmu_bandwidth_req(b->x, 128, 8, wr), NULL);
}

static void b9_adv(struct b9 *b, const char *name, float peak, float rate)
{
	b->adv[b->nadv].name = name;
	b->adv[b->nadv].peak = peak;
	b->adv[b->nadv++].rate = rate;
}

void st_table_910b(struct st_tables *t, const char *type, const struct pmu_ctx *x, const struct pmu_ctx *v0,
                   const struct pmu_ctx *v1, int64_t l2_evict)
{
	int mix = !strcmp(type, "mix"), vec = !strcmp(type, "vector");
	const enum board_core kx = vec ? BOARD_VECTOR : BOARD_CUBE;
	const struct pmu_ctx *s[3] = { x, v0, v1 };
	const enum board_core ks[3] = { kx, BOARD_VECTOR, BOARD_VECTOR };
	static const unsigned rh_ev[] = { 1284, 1288 }, rm_ev[] = { 1286, 1290 };
	uint64_t ic_all = 0, ic_miss = 0, wh = 0, rh = 0, wm = 0, rm = 0, l2hit, l2miss;
	float pk[ROOF_PIPES];
	struct b9 b;
	char bw[5][PMU_VALUE_MAX];
	unsigned i, j;

	(void)l2_evict;
	memset(t, 0, sizeof *t);
	memset(&b, 0, sizeof b);
	b.x = x;
	b.t = t;
#define C(id) evk(x, kx, id)
	for (i = 0; i < 3; i++) {
		ic_all = pmu_sat_add(ic_all, evk(s[i], ks[i], 84));
		ic_miss = pmu_sat_add(ic_miss, evk(s[i], ks[i], 85));
		wh = pmu_sat_add(wh, evk(s[i], ks[i], 1280));
		wm = pmu_sat_add(wm, evk(s[i], ks[i], 1282));
		for (j = 0; j < 2; j++) {
			rh = pmu_sat_add(rh, evk(s[i], ks[i], rh_ev[j]));
			rm = pmu_sat_add(rm, evk(s[i], ks[i], rm_ev[j]));
		}
	}
	/* (these two sums are 0 when they overflow) */
	l2hit = wh > UINT64_MAX - rh ? 0 : wh + rh;
	l2miss = wm > UINT64_MAX - rm ? 0 : wm + rm;
	{
		struct st_table *tb = tab(t, "Cache", head_cache);
		cache_row(tb, "L2 Cache Write", wh, wm);
		cache_row(tb, "L2 Cache Read", rh, rm);
		cache_row(tb, "L2 Cache Total", l2hit, l2miss);
		cache_row(tb, "iCache Total", sub_max(ic_all, ic_miss), ic_miss);
	}
	roof_pipe_peaks(x->soc, x->gm_cj, C(28) * 256, C(34) * 128, 0, 0, pk);

	if (!vec) {
		/* the cube's memory units */
		uint64_t p19x4 = C(19) * 4;
		uint64_t gm_rd = sub_chk(C(50), C(518));
		uint64_t l0ab = sub_chk(pmu_sat_add(C(49), C(524)), pmu_sat_add(p19x4, C(518)));
		uint64_t l1_gm = sub_chk(pmu_sat_add(p19x4, C(518)), C(524)), gm_wr = sub_chk(C(524), C(518));
		float f_gm_rd = gm_rd == UINT64_MAX ? 0.0f : pmu_bytes_bw(x, gm_rd, 256);
		float f_mte_w = pmu_bandwidth_req(x, 256, 8, C(49));
		float f_l0ab = l0ab == UINT64_MAX ? 0.0f : pmu_bytes_bw(x, l0ab, 256);
		float f_l1l0c = pmu_bytes_bw(x, C(518), 128);
		float f_l1gm = l1_gm == UINT64_MAX ? 0.0f : pmu_bytes_bw(x, l1_gm, 128);
		float f_l0a = pmu_bandwidth_req(x, 256, 8, C(28)), f_l0a_c = pmu_bandwidth_req(x, 256, 16, C(27));
		float f_l0b = pmu_bandwidth_req(x, 128, 8, C(34)), f_l0b_c = pmu_bandwidth_req(x, 256, 16, C(33));
		float f_l0c_w = pmu_bandwidth_req(x, 256, 32, C(42)), f_l0c_r = pmu_bandwidth_req(x, 256, 32, C(40));
		float f_gm_w = gm_wr == UINT64_MAX ? 0.0f : pmu_bytes_bw(x, gm_wr, 128);
		char u_gm_rd[PMU_VALUE_MAX], u_l0ab[PMU_VALUE_MAX], u_l1gm[PMU_VALUE_MAX];
		uint64_t bytes[3];
		struct st_table *tb;
		const char *pn = mix ? "Pipe Cube" : "Pipe";
		static const char *const adv_cube[] = { "aicore MTE1", "aicore MTE2", "aicore MTE3" },
		                         *const adv_plain[] = { "MTE1", "MTE2", "MTE3" };
		float rate[5];

		pmu_transport_usage(x, gm_rd, REQ_GM_TO_L1, PATH_GM_TO_L1, u_gm_rd);
		pmu_transport_usage(x, l0ab, REQ_GM_TO_UB, PATH_GM_TO_UB, u_l0ab);
		pmu_transport_usage(x, l1_gm, REQ_GM_TO_UB, PATH_GM_TO_UB, u_l1gm);
		tb = tab(t, "L1", head_peak);
		mem_row(tb, "L1 Read MTE", gm_rd, f_gm_rd, u_gm_rd);
		mem_row(tb, "L1 Write MTE", C(49), f_mte_w, "NA");
		mem_row(tb, "L1 Write L0A/L0B", l0ab, f_l0ab, u_l0ab);
		mem_row(tb, "L1 Read L0C", C(518), f_l1l0c, "NA");
		mem_row(tb, "L1 Write GM", l1_gm, f_l1gm, u_l1gm);
		mem_row(tb, "L1 Read GM", gm_rd, f_gm_rd, u_gm_rd);
		tb = tab(t, "L0A", head_mem);
		mem_row(tb, "L0A Read MTE", C(28), f_l0a, NULL);
		mem_row(tb, "L0A Write Cube", C(27), f_l0a_c, NULL);
		mem_row(tb, "L0A Read L1/GM", C(28), f_l0a, NULL);
		tb = tab(t, "L0B", head_mem);
		mem_row(tb, "L0B Read MTE", C(34), f_l0b, NULL);
		mem_row(tb, "L0B Write Cube", C(33), f_l0b_c, NULL);
		mem_row(tb, "L0B Read L1/GM", C(34), f_l0b, NULL);
		tb = tab(t, "Cube", head_mem);
		mem_row(tb, "Cube Read L0A", C(27), f_l0a_c, NULL);
		mem_row(tb, "Cube Read L0B", C(33), f_l0b_c, NULL);
		mem_row(tb, "Cube Write L0C", C(42), f_l0c_w, NULL);
		mem_row(tb, "Cube Read L0C", C(40), f_l0c_r, NULL);
		tb = tab(t, "L0C", head_peak);
		mem_row(tb, "L0C Read Cube", C(42), f_l0c_w, "NA");
		mem_row(tb, "L0C Write Cube", C(40), f_l0c_r, "NA");
		mem_row(tb, "L0C Write GM", gm_wr, f_gm_w, "NA");
		mem_row(tb, "L0C Write L1", C(518), f_l1l0c, "NA");

		/* the pipes: a cube op's MTE1 and MTE2 active bandwidths take
		 * the memory-detail bytes (0 without them); a mix op's are NA
		 * without them, as in the reference */
		if (mix) {
			strcpy(bw[0], "NA");
			strcpy(bw[1], "NA");
		} else {
			pmu_metric(x, "aic_mte1_active_bw(GB/s)", bw[0]);
			pmu_metric(x, "aic_mte2_active_bw(GB/s)", bw[1]);
		}
		b9_mte3_bw(x, l1_gm, C(13), bw[2]);
		pmu_active_bw(x, 128, C(524), C(771), bw[3]);
		strcpy(bw[4], "NA");
		tb = tab(t, pn, head_pipe);
		rate[0] = b9_pipe_row(tb, "MTE1", C(4), C(770), C(90), bw[0], x->cycles);
		rate[1] = b9_pipe_row(tb, "MTE2", C(5), C(12), C(91), bw[1], x->cycles);
		rate[2] = b9_pipe_row(tb, "MTE3", C(6), C(13), C(92), bw[2], x->cycles);
		rate[3] = b9_pipe_row(tb, "FIXP", C(526), C(771), 0, bw[3], x->cycles);
		rate[4] = b9_pipe_row(tb, "Scalar", 0, C(9), C(87), bw[4], x->cycles);
		/* bytes of each MTE pipe (unchecked, as the reference's) */
		bytes[0] = C(49) * 256 - l1_gm * 128;
		bytes[1] = C(28) * 256 + C(34) * 128 + gm_rd * 256 - l1_gm * 128;
		bytes[2] = C(1292) * 128 - gm_wr * 128;
		for (i = 0; i < 3; i++)
			b9_adv(&b, mix ? adv_cube[i] : adv_plain[i],
			       pmu_bytes_bw(x, bytes[i], 1) / pk[ROOF_MTE1 + i], rate[i]);
		b9_scalar(&b, mix ? "Scalar Cube" : "Scalar", x, kx, 1);
		b9_gm(&b, mix ? "GM Cube" : "GM", x, kx);
	}
	if (vec) {
		float rd, wr, rate[3];
		struct st_table *tb;
		b9_ub(&b, "UB", "Vector", x, &rd, &wr);
		pmu_active_bw(x, 128, C(62), C(12), bw[1]);
		pmu_active_bw(x, 128, C(61), C(13), bw[2]);
		pmu_active_bw(x, 128, 0, C(771), bw[3]);
		tb = tab(t, "Pipe", head_pipe);
		b9_pipe_row(tb, "MTE1", C(4), C(770), C(90), "NA", x->cycles);
		rate[1] = b9_pipe_row(tb, "MTE2", C(5), C(12), C(91), bw[1], x->cycles);
		rate[2] = b9_pipe_row(tb, "MTE3", C(6), C(13), C(92), bw[2], x->cycles);
		b9_pipe_row(tb, "FIXP", C(526), C(771), 0, bw[3], x->cycles);
		rate[0] = b9_pipe_row(tb, "Scalar", 0, C(9), C(87), "NA", x->cycles);
		(void)rate[0];
		b9_adv(&b, "MTE2", rd / pk[ROOF_MTE2], rate[1]);
		b9_adv(&b, "MTE3", wr / pk[ROOF_MTE3], rate[2]);
		b9_scalar(&b, "Scalar", x, kx, 0);
		b9_gm(&b, "GM", x, kx);
	}
	if (mix) {
		static const char *const ub[] = { "UB Core0", "UB Core1" }, *const vn[] = { "Vector Core0", "Vector Core1" },
		                         *const pn[] = { "Pipe Vector Core0", "Pipe Vector Core1" },
		                         *const sn[] = { "Scalar Vector Core0", "Scalar Vector Core1" },
		                         *const gn[] = { "GM Vector Core0", "GM Vector Core1" };
		for (i = 0; i < 2; i++) {
			const struct pmu_ctx *v = s[1 + i];
			const enum board_core k = BOARD_VECTOR;
			uint64_t cyc = v ? v->cycles : 0;
			float rd, wr, r2, r3;
			struct st_table *tb;
			b9_ub(&b, ub[i], vn[i], v, &rd, &wr);
			/* (the reference rates MTE2 by the UB writes, MTE3 by the reads) */
			pmu_active_bw(x, 128, evk(v, k, 61), evk(v, k, 12), bw[1]);
			pmu_active_bw(x, 128, evk(v, k, 62), evk(v, k, 13), bw[2]);
			tb = tab(t, pn[i], head_pipe);
			r2 = b9_pipe_row(tb, "MTE2", evk(v, k, 5), evk(v, k, 12), evk(v, k, 91), bw[1], cyc);
			r3 = b9_pipe_row(tb, "MTE3", evk(v, k, 6), evk(v, k, 13), evk(v, k, 92), bw[2], cyc);
			b9_pipe_row(tb, "Scalar", 0, evk(v, k, 9), evk(v, k, 87), "NA", cyc);
			b9_adv(&b, "aivector MTE2", rd / pk[ROOF_MTE2_VEC], r2);
			b9_adv(&b, "aivector MTE3", wr / pk[ROOF_MTE3_VEC], r3);
			b9_scalar(&b, sn[i], v, k, 0);
			b9_gm(&b, gn[i], v, k);
		}
	}
#undef C
	tabs_done(t);
	/* advice: a pipe whose share of its peak is under 0.8 of its
	 * active rate, in the reference's key order (the order above) */
	for (i = 0; i < b.nadv; i++) {
		static const char *const text[] = {
			"MTE1 bandwidth utilization lower than 80% when active",
			"MTE2 bandwidth utilization lower than 80% when active",
			"MTE3 bandwidth utilization lower than 80% when active",
			"aicore MTE1 bandwidth utilization lower than 80% when active",
			"aicore MTE2 bandwidth utilization lower than 80% when active",
			"aicore MTE3 bandwidth utilization lower than 80% when active",
			"aivector MTE2 bandwidth utilization lower than 80% when active",
			"aivector MTE3 bandwidth utilization lower than 80% when active",
		};
		const struct b9_adv *a = &b.adv[i];
		if (fzero_st(a->rate) || !(a->peak / a->rate < 0.8f))
			continue;
		for (j = 0; j < sizeof text / sizeof text[0]; j++)
			if (!strncmp(text[j], a->name, strlen(a->name)) && text[j][strlen(a->name)] == ' ')
				t->advice[t->nadvice++] = text[j];
	}
}
