#include "roofline.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip.h"

#define TIME_CONV 1000u
#define KIB 1024u

/* The events summed for the roofline, per core kind. */
static const uint16_t cube_ev_a2[] = { 19, 28, 33, 34, 49, 50, 73, 74, 518, 524, 1280, 1282, 1284, 1286, 1288, 1290,
	                               1292, 1293, 1294, 0 };
static const uint16_t vec_ev_a2[] = { 61, 62, 67, 68, 75, 76, 77, 78, 79, 174, 186, 1280, 1282, 1284, 1286, 1288,
	                              1290, 1292, 1293, 1294, 0 };
static const uint16_t ev_310p[] = { 28, 33, 34, 44, 49, 50, 61, 62, 67, 68, 73, 74, 75, 76, 77, 78, 79, 174, 186, 0 };

static int fzero(float v)
{
	return fabsf(v) < FLT_EPSILON;
}

static uint64_t P(const struct roofline *r, unsigned id)
{
	uint64_t v = pmu_counts_get(&r->sum, id);
	return v == PMU_EMPTY ? 0 : v;
}

/* The SoC whose tables the 910B roofline reads: one of the five it knows,
 * else 910B1. */
static const char *roof_soc(const char *soc)
{
	static const char *const known[] = { "Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4",
		                             "Ascend910B4-1" };
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (soc && !strcmp(soc, known[i]))
			return known[i];
	return "Ascend910B1";
}

void roof_init(struct roofline *r, enum board_fmt fmt, const char *soc, int gm_cj, int64_t freq, int64_t cores,
               float duration)
{
	memset(r, 0, sizeof *r);
	r->fmt = fmt;
	r->soc = soc ? soc : "";
	r->gm_cj = gm_cj;
	r->freq = freq;
	r->cores = cores;
	r->duration = duration;
	r->l2_evict = -1;
	pmu_counts_init(&r->sum);
}

void roof_add(struct roofline *r, enum board_core core, const struct pmu_counts *ev)
{
	const uint16_t *list = r->fmt == BOARD_310P ? ev_310p : core == BOARD_CUBE ? cube_ev_a2 : vec_ev_a2;
	for (; *list; list++) {
		uint64_t v = pmu_counts_get(ev, *list);
		if (v == PMU_EMPTY)
			v = 0;
		pmu_counts_set(&r->sum, *list, pmu_sat_add(P(r, *list), v));
	}
}

float roof_unit_peak(unsigned bytes_per_cycle, int64_t freq, int64_t cores)
{
	return (float)bytes_per_cycle * (float)freq * (float)cores * (float)TIME_CONV * (float)TIME_CONV / (float)KIB /
	       (float)KIB / (float)KIB / (float)KIB;
}

void roof_pipe_peaks(const char *soc, int gm_cj, uint64_t l0a, uint64_t l0b, uint64_t l0c_gm, uint64_t l0c_l1,
                     float out[ROOF_PIPES])
{
	float to_l0a = pmu_peak_bw(soc, gm_cj, PATH_MTE_TO_L0A), to_l0b = pmu_peak_bw(soc, gm_cj, PATH_MTE_TO_L0B);
	float c_gm = pmu_peak_bw(soc, gm_cj, PATH_L0C_TO_GM), c_l1 = pmu_peak_bw(soc, gm_cj, PATH_L0C_TO_L1);
	float ra, rb;
	out[ROOF_MTE1] = (to_l0a + to_l0b) / 2;
	out[ROOF_MTE2] = pmu_peak_bw(soc, gm_cj, PATH_MTE2_WRITE);
	out[ROOF_MTE3] = pmu_peak_bw(soc, gm_cj, PATH_L1_TO_GM);
	out[ROOF_FIXP] = (c_l1 + c_gm) / 2;
	out[ROOF_MTE2_VEC] = pmu_peak_bw(soc, gm_cj, PATH_GM_TO_UB);
	out[ROOF_MTE3_VEC] = pmu_peak_bw(soc, gm_cj, PATH_UB_TO_GM);
	ra = (l0a == 0 || l0a + l0b == 0) ? 0.0f : (float)l0a / (float)(l0a + l0b);
	rb = (l0b == 0 || l0a + l0b == 0) ? 0.0f : (float)l0b / (float)(l0a + l0b);
	if (!fzero(ra) || !fzero(rb))
		out[ROOF_MTE1] = to_l0a * ra + to_l0b * rb;
	ra = (l0c_gm == 0 || l0c_gm + l0c_l1 == 0) ? 0.0f : (float)l0c_gm / (float)(l0c_gm + l0c_l1);
	rb = (l0c_l1 == 0 || l0c_gm + l0c_l1 == 0) ? 0.0f : (float)l0c_l1 / (float)(l0c_gm + l0c_l1);
	if (!fzero(ra) || !fzero(rb))
		out[ROOF_FIXP] = c_gm * ra + c_l1 * rb;
}

/* TB/s, in the order Ascend910B1, B2, B3, B4, B4-1. */
static const float gm_peak[5] = { 1.8f, 1.75f, 1.75f, 0.8f, 0.8f };
static const float gm_peak_cj[5] = { 1.34f, 1.3f, 1.3f, 1.25f, 1.25f };
static const float l2_peak[5] = { 8, 7.78f, 7.78f, 4, 4 };
static const float l2_peak_cj[5] = { 7.4f, 7.2f, 7.2f, 6.3f, 6.3f };

static int soc_index(const char *soc)
{
	static const char *const names[5] = { "Ascend910B1", "Ascend910B2", "Ascend910B3", "Ascend910B4",
		                              "Ascend910B4-1" };
	for (int i = 0; i < 5; i++)
		if (soc && !strcmp(soc, names[i]))
			return i;
	return 0;
}

float roof_gm_peak(const char *soc, int gm_cj)
{
	return (gm_cj ? gm_peak_cj : gm_peak)[soc_index(soc)];
}

float roof_l2_peak(const char *soc, int gm_cj)
{
	return (gm_cj ? l2_peak_cj : l2_peak)[soc_index(soc)];
}

size_t roof_analysis(struct roofline *r, float bw, float peak, float x, float y, char *buf)
{
	float attain = x * bw, ratio;
	const char *bound = "memory bound";
	if (y > peak || fzero(bw) || fabsf(y - peak) <= 0.0001f || (x < peak / bw && x * bw < y)) {
		memcpy(buf, "NA", 3);
		return 2;
	}
	if (x > peak / bw) {
		attain = peak;
		bound = "compute bound";
	}
	if (fzero(attain)) {
		memcpy(buf, "NA", 3);
		return 2;
	}
	ratio = y / attain;
	if (ratio > r->best) {
		r->best = ratio;
		r->best_bound = bound;
	}
	return pmu_fmt_float(ratio, buf);
}

void roof_pipe_ratio(struct roofline *r, const char *name, float ratio)
{
	for (unsigned i = 0; i < r->npipe; i++)
		if (!strcmp(r->pipe[i].name, name)) {
			if (ratio > r->pipe[i].ratio)
				r->pipe[i].ratio = ratio;
			return;
		}
	if (r->npipe == sizeof r->pipe / sizeof r->pipe[0])
		return;
	snprintf(r->pipe[r->npipe].name, sizeof r->pipe[0].name, "%s", name);
	r->pipe[r->npipe++].ratio = ratio;
}

/* The reference keeps the pipes in a name-sorted map: on a tie the first
 * name in that order wins. */
static int pipe_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

const char *roof_advice(const struct roofline *r)
{
	float max = -1.0f;
	const char *name = "";
	const char *names[16];
	unsigned n = r->npipe;
	if (r->best > 0.8f)
		return r->best_bound;
	for (unsigned i = 0; i < n; i++)
		names[i] = r->pipe[i].name;
	qsort(names, n, sizeof names[0], pipe_cmp);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < n; j++)
			if (!strcmp(r->pipe[j].name, names[i]) && r->pipe[j].ratio > max) {
				max = r->pipe[j].ratio;
				name = r->pipe[j].name;
			}
	if (max < 80.0f)
		return "latency bound:pipeline caused";
	return strstr(name, "MTE") ? "latency bound:memory caused" : "latency bound:compute caused";
}

/* ---- building the titles ---- */

static void cube_prop(struct roofline *r, int64_t ncube)
{
	uint64_t l0b = P(r, 33);
	struct roof_prop *p = &r->cube;
	if (P(r, 74)) {
		p->ops = pmu_sat_mul(l0b, 16384);
		snprintf(p->name, sizeof p->name, "Cube_INT(100%%)");
	} else {
		p->ops = pmu_sat_mul(l0b, 8192);
		snprintf(p->name, sizeof p->name, "Cube_FP(100%%)");
	}
	if (l0b)
		p->peak = (float)p->ops * (float)r->freq * (float)ncube / (float)l0b / (float)TIME_CONV /
		          (float)TIME_CONV;
}

static void vec_prop(struct roofline *r, int64_t nvec)
{
	/* in name order, as the reference's map lists them */
	static const struct { const char *name; unsigned slot; } classes[] = {
		{ "Vec_FP16_128", 1 }, { "Vec_FP16_32", 3 }, { "Vec_FP16_64", 2 }, { "Vec_FP32", 0 },
		{ "Vec_MISC", 6 },     { "Vec_S16", 5 },     { "Vec_S32", 4 },
	};
	static const uint16_t k_910b[7] = { 64, 128, 64, 32, 64, 128, 32 };
	static const uint16_t k_310p[7] = { 64, 128, 64, 32, 16, 32, 16 };
	const uint16_t *k = r->fmt == BOARD_310P ? k_310p : k_910b;
	uint64_t c[7] = { P(r, 75), P(r, 76), P(r, 77), P(r, 174), P(r, 78), P(r, 186), P(r, 79) };
	uint64_t total = 0;
	struct roof_prop *p = &r->vec;
	size_t len = 0;
	/* 910B counts fp16 lane-128 instructions as fp32 ones too */
	if (r->fmt != BOARD_310P)
		c[0] = c[0] >= c[1] ? c[0] - c[1] : 0;
	p->ops = 0;
	for (int i = 0; i < 7 && p->ops != UINT64_MAX; i++)
		p->ops = pmu_sat_add(p->ops, pmu_sat_mul(c[i], k[i]));
	for (int i = 0; i < 7 && total != UINT64_MAX; i++)
		total = pmu_sat_add(total, c[i]);
	p->name[0] = 0;
	for (size_t i = 0; i < sizeof classes / sizeof classes[0]; i++) {
		uint64_t v = c[classes[i].slot];
		int n;
		if (!v || !total)
			continue;
		n = snprintf(p->name + len, sizeof p->name - len, "%s%s(%f%%)", len ? "," : "", classes[i].name,
		             (double)((float)v * 100u / (float)total));
		if (n > 0 && (size_t)n < sizeof p->name - len)
			len += (size_t)n;
	}
	if (total)
		p->peak = (float)(p->ops * (uint64_t)r->freq * (uint64_t)nvec) / (float)total / (float)TIME_CONV /
		          (float)TIME_CONV;
}

static int line_cmp(const void *a, const void *b)
{
	const struct roof_line *x = a, *y = b;
	return strcmp(x->bw_name, y->bw_name);
}

static struct roof_title *title_new(struct roofline *r, const char *name, const struct roof_prop *prop)
{
	struct roof_title *t = &r->title[r->ntitle];
	memset(t, 0, sizeof *t);
	t->title = name;
	t->prop = *prop;
	return t;
}

static void line_add(struct roof_title *t, const char *name, uint64_t bytes, float bw)
{
	if (!bytes || t->n == ROOF_LINES_MAX)
		return;
	t->line[t->n].bw_name = name;
	t->line[t->n].bytes = bytes;
	t->line[t->n].bw = bw;
	t->n++;
}

/* Points and ratios of a title's lines, then keep it if it has any.
 * sorted: the lines came from a name-keyed table. */
static void title_done(struct roofline *r, struct roof_title *t, int sorted)
{
	float y = 0.0f;
	if (sorted)
		qsort(t->line, t->n, sizeof t->line[0], line_cmp);
	if (!fzero(r->duration))
		y = (float)t->prop.ops / r->duration / (float)TIME_CONV / (float)TIME_CONV;
	for (unsigned i = 0; i < t->n; i++) {
		struct roof_line *l = &t->line[i];
		l->x = (float)t->prop.ops / (float)l->bytes;
		l->y = y;
		roof_analysis(r, l->bw, t->prop.peak, l->x, l->y, l->ratio);
	}
	if (t->n && r->ntitle < ROOF_TITLES_MAX)
		r->ntitle++;
}

/* a, sep, b into dst (ROOF_NAME_MAX), cut short if need be. */
/* a, sep, b; the separator only between two names that are not empty
 * (a cube-only op's GM/L2 name is its cube name alone). */
static void name_join(char *dst, const char *a, const char *sep, const char *b)
{
	size_t n = 0;
	const char *parts[3] = { a, *a && *b ? sep : "", b };
	for (int i = 0; i < 3; i++) {
		size_t k = strlen(parts[i]);
		if (k > ROOF_NAME_MAX - 1 - n)
			k = ROOF_NAME_MAX - 1 - n;
		memcpy(dst + n, parts[i], k);
		n += k;
	}
	dst[n] = 0;
}

/* Both units' operations and peaks, under the name "<cube> + <vec>". */
static struct roof_prop both(const struct roofline *r)
{
	struct roof_prop p;
	p.ops = pmu_sat_add(r->cube.ops, r->vec.ops);
	p.peak = r->cube.peak + r->vec.peak;
	name_join(p.name, r->cube.name, " + ", r->vec.name);
	return p;
}

static void build_310p(struct roofline *r)
{
	struct roof_prop p;
	struct roof_title *t;
	uint64_t to_l1 = pmu_sat_mul(P(r, 50), 256), from_l1 = pmu_sat_mul(P(r, 49), 512);
	uint64_t ub_mte = pmu_sat_mul(P(r, 61), 16), mte_ub = pmu_sat_mul(P(r, 62), 16);
	uint64_t ub_vec = pmu_sat_mul(P(r, 67), 16), vec_ub = pmu_sat_mul(P(r, 68), 16);
	int64_t n = r->cores;
	cube_prop(r, n);
	vec_prop(r, n);
	p = both(r);
	t = title_new(r, "Memory Unit", &p);
	line_add(t, "L1 Read + Write", pmu_sat_add(to_l1, from_l1), roof_unit_peak(768, r->freq, n));
	line_add(t, "Write to L1", to_l1, roof_unit_peak(256, r->freq, n));
	line_add(t, "Read from L1", from_l1, roof_unit_peak(128, r->freq, n));
	line_add(t, "Write to L0A", pmu_sat_mul(P(r, 28), 256), roof_unit_peak(256, r->freq, n));
	line_add(t, "Write to L0B", pmu_sat_mul(P(r, 34), 128), roof_unit_peak(128, r->freq, n));
	line_add(t, "Read from L0C", pmu_sat_mul(P(r, 44), 512), roof_unit_peak(512, r->freq, n));
	line_add(t, "UB Read + Write", pmu_sat_add(pmu_sat_add(pmu_sat_add(ub_mte, mte_ub), ub_vec), vec_ub),
	         roof_unit_peak(256, r->freq, n));
	line_add(t, "Read from UB", ub_mte, roof_unit_peak(128, r->freq, n));
	line_add(t, "Write to UB", mte_ub, roof_unit_peak(128, r->freq, n));
	line_add(t, "Vector Read UB", ub_vec, roof_unit_peak(512, r->freq, n));
	line_add(t, "Vector Write UB", vec_ub, roof_unit_peak(512, r->freq, n));
	title_done(r, t, 1);
}

void roof_build(struct roofline *r, int cube, int vector)
{
	const char *soc = roof_soc(r->soc);
	int64_t ncube = r->cores, nvec = 2 * r->cores;
	float pipe[ROOF_PIPES];
	struct roof_title *t;
	struct roof_prop p;
	uint64_t ub_read_mte = 0, ub_write_mte = 0;
	r->ntitle = 0;
	if (r->fmt == BOARD_310P) {
		build_310p(r);
		return;
	}
	/* the pipe peaks are taken before any bytes are known: the means */
	roof_pipe_peaks(soc, r->gm_cj, 0, 0, 0, 0, pipe);
	if (cube) {
		uint64_t to_l1 = P(r, 50) >= P(r, 518) ? P(r, 50) - P(r, 518) : 0;
		uint64_t mte_l1 = to_l1 * 256, l1_mte = P(r, 49) * 256, fixp_l1 = P(r, 518) * 128;
		uint64_t l0a = P(r, 28) * 256, l0b = P(r, 34) * 128, l0c = P(r, 524) * 128;
		uint64_t l1_req = pmu_sat_add(4 * P(r, 19), P(r, 518)) >= P(r, 524) ? 4 * P(r, 19) - P(r, 524) + P(r, 518) : 0;
		uint64_t l0c_gm_req = P(r, 524) >= P(r, 518) ? P(r, 524) - P(r, 518) : 0;
		uint64_t l1_gm = pmu_sat_mul(l1_req, 128), main_w = pmu_sat_mul(P(r, 1292), 128);
		uint64_t l0c_gm = pmu_sat_mul(l0c_gm_req, 128), mte2;
		/* The reference looks these four up by name to weigh the pipe
		 * peaks before it has computed them, which creates them as 0,
		 * and its later inserts do not replace a name already there: in
		 * its titles the L0A and L0B writes, the FIXP writes to L1 and
		 * the L0C writes to GM are 0 (their lines left out). */
		l0a = l0b = fixp_l1 = l0c_gm = 0;
		cube_prop(r, ncube);
		t = title_new(r, "Memory Unit(Cube)", &r->cube);
		line_add(t, "L1 Read + Write", mte_l1 + l1_mte + fixp_l1, roof_unit_peak(512, r->freq, ncube));
		line_add(t, "Write to L1", mte_l1 + fixp_l1, roof_unit_peak(256, r->freq, ncube));
		line_add(t, "Read from L1", l1_mte, roof_unit_peak(256, r->freq, ncube));
		line_add(t, "Write to L0A", l0a, roof_unit_peak(256, r->freq, ncube));
		line_add(t, "Write to L0B", l0b, roof_unit_peak(128, r->freq, ncube));
		line_add(t, "Read from L0C", l0c, roof_unit_peak(128, r->freq, ncube));
		title_done(r, t, 1);

		mte2 = pmu_sat_add(pmu_sat_add(l0a, l0b), mte_l1);
		t = title_new(r, "Pipeline(Cube)", &r->cube);
		line_add(t, "MTE1", l1_mte >= l1_gm ? l1_mte - l1_gm : 0, pipe[ROOF_MTE1] * (float)ncube / (float)KIB);
		line_add(t, "MTE2", mte2 >= l1_gm ? mte2 - l1_gm : 0, pipe[ROOF_MTE2] * (float)ncube / (float)KIB);
		line_add(t, "MTE3", main_w >= l0c_gm ? main_w - l0c_gm : 0, pipe[ROOF_MTE3] * (float)ncube / (float)KIB);
		line_add(t, "FIXP", l0c, pipe[ROOF_FIXP] * (float)ncube / (float)KIB);
		title_done(r, t, 1);

		t = title_new(r, "Memory Transfer(Cube)", &r->cube);
		line_add(t, "L1 to GM", l1_gm, pmu_peak_bw(soc, r->gm_cj, PATH_L1_TO_GM) * (float)ncube / (float)KIB);
		line_add(t, "L0C to GM", l0c_gm, pmu_peak_bw(soc, r->gm_cj, PATH_L0C_TO_GM) * (float)ncube / (float)KIB);
		line_add(t, "L0C to L1", fixp_l1, pmu_peak_bw(soc, r->gm_cj, PATH_L0C_TO_L1) * (float)ncube / (float)KIB);
		line_add(t, "GM/L1 to L0A", l0a, pmu_peak_bw(soc, r->gm_cj, PATH_MTE_TO_L0A) * (float)ncube / (float)KIB);
		line_add(t, "GM/L1 to L0B", l0b, pmu_peak_bw(soc, r->gm_cj, PATH_MTE_TO_L0B) * (float)ncube / (float)KIB);
		title_done(r, t, 1);
	}
	if (vector) {
		uint64_t ub_vec, vec_ub;
		ub_read_mte = pmu_sat_mul(P(r, 62), 128);
		ub_write_mte = pmu_sat_mul(P(r, 61), 128);
		ub_vec = pmu_sat_mul(P(r, 67), 256);
		vec_ub = pmu_sat_mul(P(r, 68), 256);
		vec_prop(r, nvec);
		t = title_new(r, "Memory Unit(Vector)", &r->vec);
		line_add(t, "UB Read + Write", pmu_sat_add(pmu_sat_add(pmu_sat_add(ub_read_mte, ub_write_mte), ub_vec), vec_ub),
		         roof_unit_peak(512, r->freq, nvec));
		line_add(t, "Read from UB", ub_write_mte, roof_unit_peak(128, r->freq, nvec));
		line_add(t, "Write to UB", ub_read_mte, roof_unit_peak(128, r->freq, nvec));
		line_add(t, "Vector Read UB", ub_vec, roof_unit_peak(512, r->freq, nvec));
		line_add(t, "Vector Write UB", vec_ub, roof_unit_peak(512, r->freq, nvec));
		title_done(r, t, 1);

		t = title_new(r, "Pipeline(Vector)", &r->vec);
		line_add(t, "MTE2", ub_read_mte, pipe[ROOF_MTE2_VEC] * (float)nvec / (float)KIB);
		line_add(t, "MTE3", ub_write_mte, pipe[ROOF_MTE3_VEC] * (float)nvec / (float)KIB);
		title_done(r, t, 0);

		t = title_new(r, "Memory Transfer(Vector)", &r->vec);
		line_add(t, "UB to GM", ub_write_mte, pmu_peak_bw(soc, r->gm_cj, PATH_UB_TO_GM) * (float)nvec / (float)KIB);
		line_add(t, "GM to UB", ub_read_mte, pmu_peak_bw(soc, r->gm_cj, PATH_GM_TO_UB) * (float)nvec / (float)KIB);
		title_done(r, t, 1);
	}
	{
		uint64_t to_l2 = P(r, 1280), from_l2 = pmu_sat_add(P(r, 1284), P(r, 1288));
		uint64_t gm_l2 = pmu_sat_add(P(r, 1286), P(r, 1290)), l2_gm = P(r, 1282), gm, l2;
		if (r->l2_evict >= 0 && (uint64_t)r->l2_evict < l2_gm)
			l2_gm = (uint64_t)r->l2_evict;
		gm = pmu_sat_add(pmu_sat_mul(gm_l2, 128), pmu_sat_mul(l2_gm, 512));
		l2 = pmu_sat_add(pmu_sat_add(pmu_sat_mul(to_l2, 512), pmu_sat_mul(from_l2, 128)), gm);
		p = both(r);
		t = title_new(r, "GM/L2", &p);
		line_add(t, "GM Read + Write", gm, roof_gm_peak(r->soc, r->gm_cj));
		line_add(t, "L2 Read + Write", l2, roof_l2_peak(r->soc, r->gm_cj));
		title_done(r, t, 0);
	}
}
