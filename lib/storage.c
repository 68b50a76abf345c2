/* The storage-access view of a 910B/A3 block (see storage.h). */
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
