#include "pmu.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "chip.h"
#include "io.h"

/* ---- counts ---- */

void pmu_counts_init(struct pmu_counts *c)
{
	c->n = 0;
}

int pmu_counts_set(struct pmu_counts *c, unsigned id, uint64_t val)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->id[i] == id) {
			c->val[i] = val;
			return 0;
		}
	if (c->n == PMU_EVENTS_MAX)
		return -1;
	c->id[c->n] = (uint16_t)id;
	c->val[c->n++] = val;
	return 0;
}

int pmu_counts_merge(struct pmu_counts *c, unsigned id, uint64_t val)
{
	if (pmu_counts_get(c, id) != PMU_EMPTY)
		return 0;
	return pmu_counts_set(c, id, val);
}

uint64_t pmu_counts_get(const struct pmu_counts *c, unsigned id)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->id[i] == id)
			return c->val[i];
	return PMU_EMPTY;
}

/* ---- the reference's saturating integer steps: an overflow gives
 * UINT64_MAX (or 0 where it asks for that), which later steps carry on. */

static uint64_t sat_sub(uint64_t a, uint64_t b)
{
	return a < b ? UINT64_MAX : a - b;
}

static uint64_t sat_sub0(uint64_t a, uint64_t b)
{
	return a < b ? 0 : a - b;
}

/* Sum, stopping at the first saturation as the reference does. */
static uint64_t sat_sum(const uint64_t *v, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++) {
		s = pmu_sat_add(s, v[i]);
		if (s == UINT64_MAX)
			break;
	}
	return s;
}

static int fzero(float v)
{
	return fabsf(v) < FLT_EPSILON;
}

/* The product of floats in order; a float product that does not divide
 * back saturates to FLT_MAX, as the reference's checked multiply. */
static float fmul_all(const float *v, size_t n)
{
	float r = 1.0f;
	for (size_t i = 0; i < n; i++) {
		float p;
		if (fzero(v[i]))
			return 0.0f;
		p = r * v[i];
		if (fabsf(p / r - v[i]) > 0.0001f || isinf(p))
			return FLT_MAX;
		r = p;
	}
	return r;
}

/* ---- number forms ---- */

size_t pmu_fmt_float(float v, char *buf)
{
	int n = snprintf(buf, PMU_VALUE_MAX, "%f", (double)v);
	return n < 0 ? 0 : (size_t)n;
}

size_t pmu_fmt_u64(uint64_t v, char *buf)
{
	int n = snprintf(buf, PMU_VALUE_MAX, "%llu", (unsigned long long)v);
	return n < 0 ? 0 : (size_t)n;
}

static size_t na(char *buf)
{
	memcpy(buf, "NA", 3);
	return 2;
}

static size_t lit(char *buf, const char *s)
{
	size_t n = strlen(s);
	memcpy(buf, s, n + 1);
	return n;
}

/* ---- constants ---- */

#define TIME_CONV 1000u
#define KIB 1024u
#define PERCENT 100u
#define BW_DIV 8589934592ull /* 2^33: bits over a GiB */

static const struct pmu_defaults defaults[] = {
	[BOARD_A2] = { 1850, 50000, 24 },
	[BOARD_310P] = { 1060, 38400, 10 },
	[BOARD_A5] = { 1650, 1000000, 32 },
};

const struct pmu_defaults *pmu_defaults(enum board_fmt fmt)
{
	return &defaults[fmt];
}

static const uint16_t req_910b[REQ_COUNT] = {
	[REQ_MAIN_MEMORY] = 128, [REQ_GM_TO_L1] = 256, [REQ_GM_TO_UB] = 128, [REQ_L0C_TO_L1] = 128,
	[REQ_L0C_TO_GM] = 128, [REQ_L0C_TO_FIXP] = 128, [REQ_UB_TO_GM] = 128, [REQ_UB_TO_MTE] = 128,
	[REQ_UB_TO_VEC] = 256, [REQ_L1_TO_GM] = 128, [REQ_L1_TO_L0A] = 256, [REQ_L1_TO_L0B] = 128,
	[REQ_L1_TO_MTE] = 256, [REQ_MTE_TO_L1] = 256, [REQ_MTE_TO_L0A] = 256, [REQ_MTE_TO_L0B] = 128,
	[REQ_MTE_TO_UB] = 128, [REQ_VEC_TO_UB] = 256, [REQ_FIXP_TO_L1] = 128, [REQ_GM_TO_L0A] = 256,
	[REQ_GM_TO_L0B] = 128,
};

static const uint16_t req_a5[REQ_COUNT] = {
	[REQ_MAIN_MEMORY] = 128, [REQ_CUBE_TO_L0C] = 1024, [REQ_GM_TO_L1] = 128, [REQ_GM_TO_UB] = 128,
	[REQ_L1_TO_L0A] = 256, [REQ_L1_TO_L0B] = 256, [REQ_L1_TO_MTE] = 256, [REQ_L1_TO_UB] = 256,
	[REQ_L0A_TO_CUBE] = 64, [REQ_L0B_TO_CUBE] = 256, [REQ_L0C_TO_CUBE] = 1024, [REQ_L0C_TO_L1] = 128,
	[REQ_L0C_TO_GM] = 128, [REQ_L0C_TO_FIXP] = 128, [REQ_UB_TO_GM] = 128, [REQ_UB_TO_L1] = 128,
	[REQ_UB_TO_MTE] = 128, [REQ_UB_TO_VEC] = 256, [REQ_MTE_TO_UB] = 128, [REQ_MTE_TO_L1] = 256,
	[REQ_VEC_TO_UB] = 256, [REQ_VEC_TO_GM] = 128, [REQ_DCACHE] = 128, [REQ_L0C_TO_UB] = 128,
};

static const uint16_t req_310p[REQ_COUNT] = {
	[REQ_UB_TO_MTE] = 16, [REQ_UB_TO_VEC] = 16, [REQ_L1_TO_MTE] = 512, [REQ_MTE_TO_L1] = 256,
	[REQ_MTE_TO_L0A] = 256, [REQ_MTE_TO_L0B] = 128, [REQ_MTE_TO_UB] = 16, [REQ_VEC_TO_UB] = 16,
};

unsigned pmu_req_bytes(enum board_fmt fmt, enum pmu_req r)
{
	if ((unsigned)r >= REQ_COUNT)
		return 0;
	return fmt == BOARD_A5 ? req_a5[r] : fmt == BOARD_310P ? req_310p[r] : req_910b[r];
}

/* Peak GB/s per core, in enum pmu_path order. */
static const float peak_b1[PATH_COUNT] = { 264, 199.43f, 216.88f, 209.32f, 220.06f, 186.8f, 437.5f, 210.5f, 340.1f };
static const float peak_b1_cj[PATH_COUNT] = { 296, 187.72f, 220.48f, 202.41f, 219.14f, 197.82f, 439.32f, 220.10f,
                                              302.32f };
static const float peak_b2[PATH_COUNT] = { 256.86f, 193.99f, 211.00f, 203.66f, 214.11f, 181.75f, 425.68f, 204.81f,
                                           330.91f };
static const float peak_b2_cj[PATH_COUNT] = { 288.00f, 182.65f, 214.52f, 196.94f, 213.22f, 192.47f, 427.45f,
                                              214.15f, 294.15f };
static const float peak_b4[PATH_COUNT] = { 222, 189.89f, 190.7f, 190.7f, 195.27f, 176.75f, 368.2f, 173.81f, 222.17f };
static const float peak_b4_cj[PATH_COUNT] = { 274, 182.07f, 196.27f, 189.08f, 195.52f, 176.06f, 391.82f, 196.3f,
                                              274 };
static const float peak_959[PATH_COUNT] = {
	[PATH_GM_TO_L1] = 177.57f, [PATH_L1_TO_GM] = 143.79f, [PATH_L0C_TO_L1] = 412.15f, [PATH_L0C_TO_GM] = 142.05f,
	[PATH_GM_TO_UB] = 177.96f, [PATH_UB_TO_GM] = 143.74f, [PATH_L0C_TO_UB] = 206.20f, [PATH_L1_TO_L0A] = 412.10f,
	[PATH_L1_TO_L0B] = 412.11f, [PATH_L1_TO_UB] = 206.18f, [PATH_UB_TO_L1] = 206.18f,
};
static const float peak_958[PATH_COUNT] = {
	[PATH_GM_TO_L1] = 162.77f, [PATH_L1_TO_GM] = 131.81f, [PATH_L0C_TO_L1] = 377.80f, [PATH_L0C_TO_GM] = 130.21f,
	[PATH_GM_TO_UB] = 163.13f, [PATH_UB_TO_GM] = 131.76f, [PATH_L0C_TO_UB] = 189.02f, [PATH_L1_TO_L0A] = 377.76f,
	[PATH_L1_TO_L0B] = 377.77f, [PATH_L1_TO_UB] = 188.99f, [PATH_UB_TO_L1] = 188.99f,
};

/* The peak table of a SoC; the 910B1 one for a SoC without its own. */
static const float *peak_table(const char *soc, int cj)
{
	const struct chip *c = chip_find(soc);
	const char *s = c->soc;
	if (c->family == CHIP_A5)
		return (strstr(s, "_959") || strstr(s, "_95A")) ? peak_959 : peak_958;
	if (!strcmp(s, "Ascend910B2") || !strcmp(s, "Ascend910B2C") || !strcmp(s, "Ascend910B3"))
		return cj ? peak_b2_cj : peak_b2;
	if (!strcmp(s, "Ascend910B4") || !strcmp(s, "Ascend910B4-1"))
		return cj ? peak_b4_cj : peak_b4;
	/* A3 and unknown SoCs take the 910B1 numbers (and the CJ variant
	 * only for 910B1 itself). */
	return cj && !strcmp(s, "Ascend910B1") ? peak_b1_cj : peak_b1;
}

float pmu_peak_bw(const char *soc, int gm_cj, enum pmu_path path)
{
	if ((unsigned)path >= PATH_COUNT)
		return 0;
	return peak_table(soc, gm_cj)[path];
}

/* ---- ratio, bandwidth and data forms ---- */

size_t pmu_ratio(uint64_t a, uint64_t b, char *buf)
{
	if (!b)
		return na(buf);
	return pmu_fmt_float((float)a / (float)b, buf);
}

float pmu_ratio_fp(uint64_t a, uint64_t b)
{
	return b ? (float)a / (float)b : 0.0f;
}

float pmu_bandwidth_fp(float gb, float us, float factor)
{
	if (fzero(us) || gb < 0)
		return 0.0f;
	return gb * factor * TIME_CONV * TIME_CONV / us;
}

size_t pmu_bandwidth(float gb, float us, float factor, char *buf)
{
	if (fzero(us) || gb < 0)
		return na(buf);
	return pmu_fmt_float(pmu_bandwidth_fp(gb, us, factor), buf);
}

float pmu_data_fp(uint64_t count, uint64_t req, int kb)
{
	/* The reference's data count saturates to 0 here, not to the maximum. */
	uint64_t bytes = (count && req && count > UINT64_MAX / req) ? 0 : count * req;
	if (kb)
		return (float)bytes / KIB;
	return (float)bytes / (KIB * KIB * KIB);
}

size_t pmu_bw_usage(float gb, float us, enum pmu_path path, const char *soc, int gm_cj, char *buf)
{
	float peak = pmu_peak_bw(soc, gm_cj, path), bw;
	if (fzero(us) || fzero(peak))
		return na(buf);
	bw = pmu_bandwidth_fp(gb, us, 1.0f);
	if (bw > peak)
		bw = peak;
	return pmu_fmt_float(bw * PERCENT / peak, buf);
}

/* ---- 910B/A3 and 310P: the formula table ---- */

enum fn {
	F_RATIO, F_SUM_RATIO, F_CUBE_RATIO, F_VEC_RATIO, F_PMU_SELF, F_BANDWIDTH, F_PIPE_TIME, F_TOTAL_CYCLES,
	F_TOTAL_TIME, F_PMU_DIV, F_READ_MAIN_MEMORY_BANDWIDTH, F_VEC_FP32_RATIO, F_VEC_FOPS, F_CUBE_FOPS,
	F_TOTAL_HIT_RATE, F_WRITE_HIT_RATE, F_READ_HIT_RATE, F_WRITE_MAIN_MEMORY_DATAS, F_READ_MAIN_MEMORY_DATAS,
	F_GM_TO_L1_DATAS, F_L1_TO_GM_DATAS, F_L0C_TO_L1_DATAS, F_L0C_TO_GM_DATAS, F_GM_TO_UB_DATAS, F_UB_TO_GM_DATAS,
	F_GM_TO_L1_BW_USAGE_RATE, F_L1_TO_GM_BW_USAGE_RATE, F_L0C_TO_L1_BW_USAGE_RATE, F_L0C_TO_GM_BW_USAGE_RATE,
	F_GM_TO_UB_BW_USAGE_RATE, F_UB_TO_GM_BW_USAGE_RATE, F_L2_CACHE_HIT_RATE, F_AIC_MTE1_ACTIVATE_BANDWIDTH,
	F_AIC_MTE2_ACTIVATE_BANDWIDTH, F_AIC_MTE3_ACTIVATE_BANDWIDTH, F_AIV_MTE_ACTIVATE_BANDWIDTH,
};

/* A metric: its kind, the events it reads (all must be present, else NA)
 * and its constant parameters (bytes per request, bits per cycle). */
struct formula {
	const char *name;
	enum fn fn;
	uint16_t ev[9];
	unsigned nev;
	uint16_t par[4];
	unsigned npar;
};

static const struct formula f910b[] = {
	{ "aic_time(us)", F_TOTAL_TIME, { 0 }, 0, { 0 }, 0 },
	{ "aic_total_cycles", F_TOTAL_CYCLES, { 0 }, 0, { 0 }, 0 },
	{ "aic_cube_ratio", F_RATIO, { 10 }, 1, { 0 }, 0 },
	{ "aic_cube_fp16_ratio", F_CUBE_RATIO, { 73,74,10 }, 3, { 0 }, 0 },
	{ "aic_cube_int8_ratio", F_CUBE_RATIO, { 74,73,10 }, 3, { 0 }, 0 },
	{ "aic_cube_fops", F_CUBE_FOPS, { 1032,1033 }, 2, { 0 }, 0 },
	{ "aic_cube_total_instr_number", F_PMU_SELF, { 3 }, 1, { 0 }, 0 },
	{ "aic_cube_fp_instr_number", F_PMU_SELF, { 1032 }, 1, { 0 }, 0 },
	{ "aic_cube_int_instr_number", F_PMU_SELF, { 1033 }, 1, { 0 }, 0 },
	{ "aiv_time(us)", F_TOTAL_TIME, { 0 }, 0, { 0 }, 0 },
	{ "aiv_total_cycles", F_TOTAL_CYCLES, { 0 }, 0, { 0 }, 0 },
	{ "aiv_vec_ratio", F_RATIO, { 8 }, 1, { 0 }, 0 },
	{ "aiv_vec_fp32_ratio", F_VEC_FP32_RATIO, { 8,1,75,76 }, 4, { 0 }, 0 },
	{ "aiv_vec_fp16_ratio", F_VEC_RATIO, { 8,1,76,77,174 }, 5, { 0 }, 0 },
	{ "aiv_vec_int32_ratio", F_VEC_RATIO, { 8,1,78 }, 3, { 0 }, 0 },
	{ "aiv_vec_int16_ratio", F_VEC_RATIO, { 8,1,186 }, 3, { 0 }, 0 },
	{ "aiv_vec_misc_ratio", F_VEC_RATIO, { 8,1,79 }, 3, { 0 }, 0 },
	{ "aiv_vec_fops", F_VEC_FOPS, { 75,76,77,174,78,186,79 }, 7, { 0 }, 0 },
	{ "aic_write_cache_hit", F_PMU_SELF, { 1280 }, 1, { 0 }, 0 },
	{ "aic_write_cache_miss_allocate", F_PMU_SELF, { 1282 }, 1, { 0 }, 0 },
	{ "aic_r0_read_cache_hit", F_PMU_SELF, { 1284 }, 1, { 0 }, 0 },
	{ "aic_r0_read_cache_miss_allocate", F_PMU_SELF, { 1286 }, 1, { 0 }, 0 },
	{ "aic_r1_read_cache_hit", F_PMU_SELF, { 1288 }, 1, { 0 }, 0 },
	{ "aic_r1_read_cache_miss_allocate", F_PMU_SELF, { 1290 }, 1, { 0 }, 0 },
	{ "aic_write_hit_rate(%)", F_WRITE_HIT_RATE, { 1280,1282,1283 }, 3, { 0 }, 0 },
	{ "aic_read_hit_rate(%)", F_READ_HIT_RATE, { 1284,1286,1287,1288,1290,1291 }, 6, { 0 }, 0 },
	{ "aic_total_hit_rate(%)", F_TOTAL_HIT_RATE, { 1280,1282,1283,1284,1286,1287,1288,1290,1291 }, 9, { 0 }, 0 },
	{ "aiv_write_cache_hit", F_PMU_SELF, { 1280 }, 1, { 0 }, 0 },
	{ "aiv_write_cache_miss_allocate", F_PMU_SELF, { 1282 }, 1, { 0 }, 0 },
	{ "aiv_r0_read_cache_hit", F_PMU_SELF, { 1284 }, 1, { 0 }, 0 },
	{ "aiv_r0_read_cache_miss_allocate", F_PMU_SELF, { 1286 }, 1, { 0 }, 0 },
	{ "aiv_r1_read_cache_hit", F_PMU_SELF, { 1288 }, 1, { 0 }, 0 },
	{ "aiv_r1_read_cache_miss_allocate", F_PMU_SELF, { 1290 }, 1, { 0 }, 0 },
	{ "aiv_write_hit_rate(%)", F_WRITE_HIT_RATE, { 1280,1282,1283 }, 3, { 0 }, 0 },
	{ "aiv_read_hit_rate(%)", F_READ_HIT_RATE, { 1284,1286,1287,1288,1290,1291 }, 6, { 0 }, 0 },
	{ "aiv_total_hit_rate(%)", F_TOTAL_HIT_RATE, { 1280,1282,1283,1284,1286,1287,1288,1290,1291 }, 9, { 0 }, 0 },
	{ "aic_l1_read_bw(GB/s)", F_BANDWIDTH, { 49 }, 1, { 128,8 }, 2 },
	{ "aic_l1_write_bw(GB/s)", F_BANDWIDTH, { 50 }, 1, { 256,8 }, 2 },
	{ "aic_main_mem_read_bw(GB/s)", F_READ_MAIN_MEMORY_BANDWIDTH, { 1293,1294 }, 2, { 128,8 }, 2 },
	{ "aic_main_mem_write_bw(GB/s)", F_BANDWIDTH, { 1292 }, 1, { 128,8 }, 2 },
	{ "aic_mte1_instructions", F_PMU_SELF, { 4 }, 1, { 0 }, 0 },
	{ "aic_mte1_ratio", F_RATIO, { 770 }, 1, { 0 }, 0 },
	{ "aic_mte2_instructions", F_PMU_SELF, { 5 }, 1, { 0 }, 0 },
	{ "aic_mte2_ratio", F_RATIO, { 12 }, 1, { 0 }, 0 },
	{ "aic_mte3_instructions", F_PMU_SELF, { 6 }, 1, { 0 }, 0 },
	{ "aic_mte3_ratio", F_RATIO, { 13 }, 1, { 0 }, 0 },
	{ "aiv_ub_to_gm_bw(GB/s)", F_BANDWIDTH, { 61 }, 1, { 128,8 }, 2 },
	{ "aiv_gm_to_ub_bw(GB/s)", F_BANDWIDTH, { 62 }, 1, { 128,8 }, 2 },
	{ "aiv_main_mem_read_bw(GB/s)", F_READ_MAIN_MEMORY_BANDWIDTH, { 1293,1294 }, 2, { 128,8 }, 2 },
	{ "aiv_main_mem_write_bw(GB/s)", F_BANDWIDTH, { 1292 }, 1, { 128,8 }, 2 },
	{ "aiv_mte2_instructions", F_PMU_SELF, { 5 }, 1, { 0 }, 0 },
	{ "aiv_mte2_ratio", F_RATIO, { 12 }, 1, { 0 }, 0 },
	{ "aiv_mte3_instructions", F_PMU_SELF, { 6 }, 1, { 0 }, 0 },
	{ "aiv_mte3_ratio", F_RATIO, { 13 }, 1, { 0 }, 0 },
	{ "read_main_memory_datas(KB)", F_READ_MAIN_MEMORY_DATAS, { 1293,1294 }, 2, { 0 }, 0 },
	{ "write_main_memory_datas(KB)", F_WRITE_MAIN_MEMORY_DATAS, { 1292 }, 1, { 0 }, 0 },
	{ "GM_to_L1_datas(KB)", F_GM_TO_L1_DATAS, { 50,518 }, 2, { 0 }, 0 },
	{ "GM_to_L1_bw_usage_rate(%)", F_GM_TO_L1_BW_USAGE_RATE, { 50,518 }, 2, { 0 }, 0 },
	{ "L1_to_GM_datas(KB)(estimate)", F_L1_TO_GM_DATAS, { 19,518,524 }, 3, { 0 }, 0 },
	{ "L1_to_GM_bw_usage_rate(%)(estimate)", F_L1_TO_GM_BW_USAGE_RATE, { 19,518,524 }, 3, { 0 }, 0 },
	{ "L0C_to_L1_datas(KB)", F_L0C_TO_L1_DATAS, { 518 }, 1, { 0 }, 0 },
	{ "L0C_to_L1_bw_usage_rate(%)", F_L0C_TO_L1_BW_USAGE_RATE, { 518 }, 1, { 0 }, 0 },
	{ "L0C_to_GM_datas(KB)", F_L0C_TO_GM_DATAS, { 518,524 }, 2, { 0 }, 0 },
	{ "L0C_to_GM_bw_usage_rate(%)", F_L0C_TO_GM_BW_USAGE_RATE, { 518,524 }, 2, { 0 }, 0 },
	{ "GM_to_UB_datas(KB)", F_GM_TO_UB_DATAS, { 62 }, 1, { 0 }, 0 },
	{ "GM_to_UB_bw_usage_rate(%)", F_GM_TO_UB_BW_USAGE_RATE, { 62 }, 1, { 0 }, 0 },
	{ "UB_to_GM_datas(KB)", F_UB_TO_GM_DATAS, { 61 }, 1, { 0 }, 0 },
	{ "UB_to_GM_bw_usage_rate(%)", F_UB_TO_GM_BW_USAGE_RATE, { 61 }, 1, { 0 }, 0 },
	{ "aic_l0a_read_bw(GB/s)", F_BANDWIDTH, { 27 }, 1, { 256,16 }, 2 },
	{ "aic_l0a_write_bw(GB/s)", F_BANDWIDTH, { 28 }, 1, { 256,8 }, 2 },
	{ "aic_l0b_read_bw(GB/s)", F_BANDWIDTH, { 33 }, 1, { 256,16 }, 2 },
	{ "aic_l0b_write_bw(GB/s)", F_BANDWIDTH, { 34 }, 1, { 128,8 }, 2 },
	{ "aic_l0c_read_bw_cube(GB/s)", F_BANDWIDTH, { 40 }, 1, { 256,32 }, 2 },
	{ "aic_l0c_write_bw_cube(GB/s)", F_BANDWIDTH, { 42 }, 1, { 256,32 }, 2 },
	{ "aiv_ub_read_bw_vector(GB/s)", F_BANDWIDTH, { 67 }, 1, { 256,8 }, 2 },
	{ "aiv_ub_write_bw_vector(GB/s)", F_BANDWIDTH, { 68 }, 1, { 256,8 }, 2 },
	{ "aiv_ub_read_bw_scalar(GB/s)", F_BANDWIDTH, { 55 }, 1, { 128,1 }, 2 },
	{ "aiv_ub_write_bw_scalar(GB/s)", F_BANDWIDTH, { 56 }, 1, { 128,1 }, 2 },
	{ "aic_cube_time(us)", F_PIPE_TIME, { 10 }, 1, { 0 }, 0 },
	{ "aic_scalar_time(us)", F_PIPE_TIME, { 9 }, 1, { 0 }, 0 },
	{ "aic_scalar_ratio", F_RATIO, { 9 }, 1, { 0 }, 0 },
	{ "aic_mte1_time(us)", F_PIPE_TIME, { 770 }, 1, { 0 }, 0 },
	{ "aic_mte1_active_bw(GB/s)", F_AIC_MTE1_ACTIVATE_BANDWIDTH, { 28,34,770 }, 3, { 256,8,128,8 }, 4 },
	{ "aic_mte2_time(us)", F_PIPE_TIME, { 12 }, 1, { 0 }, 0 },
	{ "aic_mte2_active_bw(GB/s)", F_AIC_MTE2_ACTIVATE_BANDWIDTH, { 12 }, 1, { 0 }, 0 },
	{ "aic_mte3_time(us)", F_PIPE_TIME, { 13 }, 1, { 0 }, 0 },
	{ "aic_mte3_active_bw(GB/s)", F_AIC_MTE3_ACTIVATE_BANDWIDTH, { 19,518,524,13 }, 4, { 128 }, 1 },
	{ "aic_fixpipe_time(us)", F_PIPE_TIME, { 771 }, 1, { 0 }, 0 },
	{ "aic_fixpipe_ratio", F_RATIO, { 771 }, 1, { 0 }, 0 },
	{ "aic_fixpipe_active_bw(GB/s)", F_AIV_MTE_ACTIVATE_BANDWIDTH, { 524,771 }, 2, { 128 }, 1 },
	{ "aic_icache_miss_rate", F_PMU_DIV, { 85,84 }, 2, { 0 }, 0 },
	{ "aic_scalar_single_time(us)", F_PIPE_TIME, { 112 }, 1, { 0 }, 0 },
	{ "aic_scalar_dual_time(us)", F_PIPE_TIME, { 113 }, 1, { 0 }, 0 },
	{ "aic_scalar_mte1_stall_time(us)", F_PIPE_TIME, { 107 }, 1, { 0 }, 0 },
	{ "aic_scalar_mte2_stall_time(us)", F_PIPE_TIME, { 108 }, 1, { 0 }, 0 },
	{ "aic_scalar_mte3_stall_time(us)", F_PIPE_TIME, { 109 }, 1, { 0 }, 0 },
	{ "aic_scalar_cube_stall_time(us)", F_PIPE_TIME, { 110 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_ib_time(us)", F_PIPE_TIME, { 114 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_time(us)", F_PIPE_TIME, { 87 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id0_time(us)", F_PIPE_TIME, { 1792 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id1_time(us)", F_PIPE_TIME, { 1793 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id2_time(us)", F_PIPE_TIME, { 1794 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id3_time(us)", F_PIPE_TIME, { 1795 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id4_time(us)", F_PIPE_TIME, { 1796 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id5_time(us)", F_PIPE_TIME, { 1797 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id6_time(us)", F_PIPE_TIME, { 1798 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id7_time(us)", F_PIPE_TIME, { 1799 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id8_time(us)", F_PIPE_TIME, { 1780 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id9_time(us)", F_PIPE_TIME, { 1781 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id10_time(us)", F_PIPE_TIME, { 1782 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id11_time(us)", F_PIPE_TIME, { 1783 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id12_time(us)", F_PIPE_TIME, { 1784 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id13_time(us)", F_PIPE_TIME, { 1785 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id14_time(us)", F_PIPE_TIME, { 1786 }, 1, { 0 }, 0 },
	{ "aic_scalar_wait_id15_time(us)", F_PIPE_TIME, { 1787 }, 1, { 0 }, 0 },
	{ "aiv_vec_time(us)", F_PIPE_TIME, { 8 }, 1, { 0 }, 0 },
	{ "aiv_scalar_time(us)", F_PIPE_TIME, { 9 }, 1, { 0 }, 0 },
	{ "aiv_scalar_ratio", F_RATIO, { 9 }, 1, { 0 }, 0 },
	{ "aiv_mte2_time(us)", F_PIPE_TIME, { 12 }, 1, { 0 }, 0 },
	{ "aiv_mte2_active_bw(GB/s)", F_AIV_MTE_ACTIVATE_BANDWIDTH, { 62,12 }, 2, { 128 }, 1 },
	{ "aiv_mte3_time(us)", F_PIPE_TIME, { 13 }, 1, { 0 }, 0 },
	{ "aiv_mte3_active_bw(GB/s)", F_AIV_MTE_ACTIVATE_BANDWIDTH, { 61,13 }, 2, { 128 }, 1 },
	{ "aiv_icache_miss_rate", F_PMU_DIV, { 85,84 }, 2, { 0 }, 0 },
	{ "aiv_scalar_single_time(us)", F_PIPE_TIME, { 112 }, 1, { 0 }, 0 },
	{ "aiv_scalar_dual_time(us)", F_PIPE_TIME, { 113 }, 1, { 0 }, 0 },
	{ "aiv_scalar_mte2_stall_time(us)", F_PIPE_TIME, { 108 }, 1, { 0 }, 0 },
	{ "aiv_scalar_mte3_stall_time(us)", F_PIPE_TIME, { 109 }, 1, { 0 }, 0 },
	{ "aiv_scalar_stall_by_ub_time(us)", F_PIPE_TIME, { 106 }, 1, { 0 }, 0 },
	{ "aiv_scalar_vector_stall_time(us)", F_PIPE_TIME, { 111 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_ib_time(us)", F_PIPE_TIME, { 114 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_time(us)", F_PIPE_TIME, { 87 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id0_time(us)", F_PIPE_TIME, { 1792 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id1_time(us)", F_PIPE_TIME, { 1793 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id2_time(us)", F_PIPE_TIME, { 1794 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id3_time(us)", F_PIPE_TIME, { 1795 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id4_time(us)", F_PIPE_TIME, { 1796 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id5_time(us)", F_PIPE_TIME, { 1797 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id6_time(us)", F_PIPE_TIME, { 1798 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id7_time(us)", F_PIPE_TIME, { 1799 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id8_time(us)", F_PIPE_TIME, { 1780 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id9_time(us)", F_PIPE_TIME, { 1781 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id10_time(us)", F_PIPE_TIME, { 1782 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id11_time(us)", F_PIPE_TIME, { 1783 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id12_time(us)", F_PIPE_TIME, { 1784 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id13_time(us)", F_PIPE_TIME, { 1785 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id14_time(us)", F_PIPE_TIME, { 1786 }, 1, { 0 }, 0 },
	{ "aiv_scalar_wait_id15_time(us)", F_PIPE_TIME, { 1787 }, 1, { 0 }, 0 },
	{ "aic_cube_wait_ratio", F_RATIO, { 88 }, 1, { 0 }, 0 },
	{ "aic_mte1_wait_ratio", F_RATIO, { 90 }, 1, { 0 }, 0 },
	{ "aic_mte2_wait_ratio", F_RATIO, { 91 }, 1, { 0 }, 0 },
	{ "aic_mte3_wait_ratio", F_RATIO, { 92 }, 1, { 0 }, 0 },
	{ "aiv_vec_total_cflt_ratio", F_SUM_RATIO, { 100,101,102,103 }, 4, { 0 }, 0 },
	{ "aiv_vec_bankgroup_cflt_ratio", F_RATIO, { 100 }, 1, { 0 }, 0 },
	{ "aiv_vec_bank_cflt_ratio", F_RATIO, { 101 }, 1, { 0 }, 0 },
	{ "aiv_vec_resc_cflt_ratio", F_RATIO, { 102 }, 1, { 0 }, 0 },
	{ "aiv_vec_mte_cflt_ratio", F_RATIO, { 103 }, 1, { 0 }, 0 },
	{ "aiv_vec_wait_ratio", F_RATIO, { 89 }, 1, { 0 }, 0 },
	{ "aiv_mte2_wait_ratio", F_RATIO, { 91 }, 1, { 0 }, 0 },
	{ "aiv_mte3_wait_ratio", F_RATIO, { 92 }, 1, { 0 }, 0 },
	{ NULL, 0, { 0 }, 0, { 0 }, 0 },
};
static const struct formula f310p[] = {
	{ "aic_time(us)", F_TOTAL_TIME, { 0 }, 0, { 0 }, 0 },
	{ "aic_total_cycles", F_TOTAL_CYCLES, { 0 }, 0, { 0 }, 0 },
	{ "aic_cube_ratio", F_RATIO, { 10 }, 1, { 0 }, 0 },
	{ "aic_cube_fp16_ratio", F_CUBE_RATIO, { 73,74,10 }, 3, { 0 }, 0 },
	{ "aic_cube_int8_ratio", F_CUBE_RATIO, { 74,73,10 }, 3, { 0 }, 0 },
	{ "aic_cube_fops", F_CUBE_FOPS, { 73,74 }, 2, { 0 }, 0 },
	{ "aic_cube_total_instr_number", F_PMU_SELF, { 3 }, 1, { 0 }, 0 },
	{ "aic_vec_ratio", F_RATIO, { 8 }, 1, { 0 }, 0 },
	{ "aic_vec_fp32_ratio", F_VEC_RATIO, { 8,1,75 }, 3, { 0 }, 0 },
	{ "aic_vec_fp16_ratio", F_VEC_RATIO, { 8,1,76,77,174 }, 5, { 0 }, 0 },
	{ "aic_vec_int32_ratio", F_VEC_RATIO, { 8,1,78 }, 3, { 0 }, 0 },
	{ "aic_vec_int16_ratio", F_VEC_RATIO, { 8,1,186 }, 3, { 0 }, 0 },
	{ "aic_vec_misc_ratio", F_VEC_RATIO, { 8,1,79 }, 3, { 0 }, 0 },
	{ "aic_vec_fops", F_VEC_FOPS, { 75,76,77,174,78,186,79 }, 7, { 0 }, 0 },
	{ "aic_l2_cache_hit_rate(%)", F_L2_CACHE_HIT_RATE, { 106,120,121 }, 3, { 0 }, 0 },
	{ "aic_l1_read_bw(GB/s)", F_BANDWIDTH, { 49 }, 1, { 512,8 }, 2 },
	{ "aic_l1_write_bw(GB/s)", F_BANDWIDTH, { 50 }, 1, { 256,8 }, 2 },
	{ "aic_ub_to_gm_bw(GB/s)", F_BANDWIDTH, { 61 }, 1, { 16,8 }, 2 },
	{ "aic_gm_to_ub_bw(GB/s)", F_BANDWIDTH, { 62 }, 1, { 16,8 }, 2 },
	{ "aic_main_mem_read_bw(GB/s)", F_BANDWIDTH, { 18 }, 1, { 512,8 }, 2 },
	{ "aic_main_mem_write_bw(GB/s)", F_BANDWIDTH, { 19 }, 1, { 512,8 }, 2 },
	{ "aic_mte1_instructions", F_PMU_SELF, { 4 }, 1, { 0 }, 0 },
	{ "aic_mte1_ratio", F_RATIO, { 11 }, 1, { 0 }, 0 },
	{ "aic_mte2_instructions", F_PMU_SELF, { 5 }, 1, { 0 }, 0 },
	{ "aic_mte2_ratio", F_RATIO, { 12 }, 1, { 0 }, 0 },
	{ "aic_mte3_instructions", F_PMU_SELF, { 6 }, 1, { 0 }, 0 },
	{ "aic_mte3_ratio", F_RATIO, { 13 }, 1, { 0 }, 0 },
	{ "aic_l0a_read_bw(GB/s)", F_BANDWIDTH, { 27 }, 1, { 256,16 }, 2 },
	{ "aic_l0a_write_bw(GB/s)", F_BANDWIDTH, { 28 }, 1, { 256,16 }, 2 },
	{ "aic_l0b_read_bw(GB/s)", F_BANDWIDTH, { 33 }, 1, { 256,16 }, 2 },
	{ "aic_l0b_write_bw(GB/s)", F_BANDWIDTH, { 34 }, 1, { 128,8 }, 2 },
	{ "aic_l0c_read_bw_cube(GB/s)", F_BANDWIDTH, { 40 }, 1, { 256,32 }, 2 },
	{ "aic_l0c_write_bw_cube(GB/s)", F_BANDWIDTH, { 42 }, 1, { 256,32 }, 2 },
	{ "aic_l0c_read_bw(GB/s)", F_BANDWIDTH, { 39 }, 1, { 256,8 }, 2 },
	{ "aic_l0c_write_bw(GB/s)", F_BANDWIDTH, { 41 }, 1, { 256,8 }, 2 },
	{ "aic_ub_read_bw_vector(GB/s)", F_BANDWIDTH, { 67 }, 1, { 32,8 }, 2 },
	{ "aic_ub_write_bw_vector(GB/s)", F_BANDWIDTH, { 68 }, 1, { 32,8 }, 2 },
	{ "aic_ub_read_bw_scalar(GB/s)", F_BANDWIDTH, { 55 }, 1, { 128,1 }, 2 },
	{ "aic_ub_write_bw_scalar(GB/s)", F_BANDWIDTH, { 56 }, 1, { 128,1 }, 2 },
	{ "aic_cube_time(us)", F_PIPE_TIME, { 10 }, 1, { 0 }, 0 },
	{ "aic_scalar_time(us)", F_PIPE_TIME, { 9 }, 1, { 0 }, 0 },
	{ "aic_scalar_ratio", F_RATIO, { 9 }, 1, { 0 }, 0 },
	{ "aic_mte1_time(us)", F_PIPE_TIME, { 11 }, 1, { 0 }, 0 },
	{ "aic_mte2_time(us)", F_PIPE_TIME, { 12 }, 1, { 0 }, 0 },
	{ "aic_mte3_time(us)", F_PIPE_TIME, { 13 }, 1, { 0 }, 0 },
	{ "aic_icache_miss_rate", F_PMU_DIV, { 85,84 }, 2, { 0 }, 0 },
	{ "aic_vec_time(us)", F_PIPE_TIME, { 8 }, 1, { 0 }, 0 },
	{ "aic_cube_wait_ratio", F_RATIO, { 88 }, 1, { 0 }, 0 },
	{ "aic_vec_wait_ratio", F_RATIO, { 89 }, 1, { 0 }, 0 },
	{ "aic_mte1_wait_ratio", F_RATIO, { 90 }, 1, { 0 }, 0 },
	{ "aic_mte2_wait_ratio", F_RATIO, { 91 }, 1, { 0 }, 0 },
	{ "aic_mte3_wait_ratio", F_RATIO, { 92 }, 1, { 0 }, 0 },
	{ "aic_vec_total_cflt_ratio", F_SUM_RATIO, { 100,101,102,103 }, 4, { 0 }, 0 },
	{ "aic_vec_bankgroup_cflt_ratio", F_RATIO, { 100 }, 1, { 0 }, 0 },
	{ "aic_vec_bank_cflt_ratio", F_RATIO, { 101 }, 1, { 0 }, 0 },
	{ "aic_vec_resc_cflt_ratio", F_RATIO, { 102 }, 1, { 0 }, 0 },
	{ "aic_vec_mte_cflt_ratio", F_RATIO, { 103 }, 1, { 0 }, 0 },
	{ NULL, 0, { 0 }, 0, { 0 }, 0 },
};

void pmu_ctx_init(struct pmu_ctx *x, enum board_fmt fmt, const char *soc, const struct pmu_counts *ev,
                  uint64_t cycles, int64_t freq, int64_t core_num, uint64_t block_dim, float duration)
{
	memset(x, 0, sizeof *x);
	x->fmt = fmt;
	x->soc = soc ? soc : "";
	x->ev = ev;
	x->cycles = cycles;
	x->freq = freq;
	x->duration = duration;
	x->tf = 1.0f;
	if (fmt == BOARD_310P && core_num != 0 && block_dim != 0) {
		float bd = (float)block_dim, cores = (float)core_num;
		x->tf = floorf((bd + cores - 1) / cores) / bd;
	}
}

/* The time a block's rates are taken over (us): the op's duration where
 * it applies, else cycles over the clock; 0 when neither is known. */
static float span_us(const struct pmu_ctx *x)
{
	if (!fzero(x->duration))
		return x->duration;
	if (x->freq != 0)
		return (float)x->cycles / (float)x->freq * x->tf;
	return 0.0f;
}

static size_t cal_div(uint64_t a, uint64_t b, char *buf)
{
	return pmu_fmt_float(b ? (float)a / (float)b : 0.0f, buf);
}

/* A float to an integer as a cast does, where a cast is defined. */
static uint64_t f2u(float v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709551616.0f)
		return UINT64_MAX;
	return (uint64_t)v;
}

static size_t cal_ratio(const struct pmu_ctx *x, uint64_t v, char *buf)
{
	uint64_t cyc = x->cycles;
	if (!fzero(x->duration) && !fzero(x->tf)) {
		/* whole microseconds times the clock, over the time factor;
		 * out-of-range floats are clamped rather than converted */
		uint64_t us = f2u(x->duration), mhz = x->freq < 0 ? 0 : (uint64_t)x->freq;
		cyc = f2u((float)pmu_sat_mul(us, mhz) / x->tf);
	}
	return cal_div(v, cyc, buf);
}

static size_t cal_pipe_time(const struct pmu_ctx *x, uint64_t v, char *buf)
{
	if (x->freq == 0 || fzero(x->tf))
		return lit(buf, "0");
	return pmu_fmt_float((float)v / (float)x->freq * x->tf, buf);
}

static float cal_bandwidth_fp(const struct pmu_ctx *x, uint64_t pip, uint64_t scalar, uint64_t v)
{
	float t = span_us(x), f[5] = { (float)v, (float)pip, (float)scalar, (float)TIME_CONV, (float)TIME_CONV };
	if (fzero(t))
		return 0.0f;
	return fmul_all(f, 5) / t / (float)BW_DIV;
}

static size_t cal_datas(uint64_t v, enum pmu_req r, char *buf)
{
	if (v == UINT64_MAX)
		return na(buf);
	return pmu_fmt_float((float)v * (float)req_910b[r] / (float)KIB, buf);
}

static size_t cal_usage(const struct pmu_ctx *x, uint64_t v, enum pmu_req r, enum pmu_path path, char *buf)
{
	float peak, t, bw;
	if (v == UINT64_MAX)
		return na(buf);
	peak = peak_table(x->soc, x->gm_cj)[path];
	t = span_us(x);
	if (fzero(t) || fzero(peak))
		return na(buf);
	bw = (float)v * (float)req_910b[r] * (float)TIME_CONV * (float)TIME_CONV / (float)KIB / (float)KIB /
	     (float)KIB / t;
	if (bw > peak)
		bw = peak;
	return pmu_fmt_float(bw * PERCENT / peak, buf);
}

float pmu_bandwidth_req(const struct pmu_ctx *x, uint64_t pip, uint64_t scalar, uint64_t v)
{
	return cal_bandwidth_fp(x, pip, scalar, v);
}

float pmu_bytes_bw(const struct pmu_ctx *x, uint64_t v, uint64_t bytes)
{
	float t;
	if (v > 0 && bytes > UINT64_MAX / v)
		return (float)v;
	t = span_us(x);
	if (fzero(t))
		return 0.0f;
	return (float)v * (float)bytes / (float)KIB * ((float)TIME_CONV * (float)TIME_CONV / (float)KIB / (float)KIB) / t;
}

size_t pmu_transport_usage(const struct pmu_ctx *x, uint64_t v, enum pmu_req r, enum pmu_path path, char *buf)
{
	return cal_usage(x, v, r, path, buf);
}

/* 4 * P19 + P518 - P524: the estimate of L1 -> GM requests. */
static uint64_t l1_to_gm(uint64_t p19, uint64_t p518, uint64_t p524)
{
	return sat_sub(pmu_sat_add(pmu_sat_mul(4, p19), p518), p524);
}

/* 100 x hits over all; the reference's 100 x hits is not checked, so it
 * wraps as an unsigned product does. */
static size_t cal_hit_rate(const uint64_t *v, size_t nhit, size_t n, char *buf)
{
	uint64_t hit = sat_sum(v, nhit), all = sat_sum(v, n);
	return cal_div(PERCENT * hit, all, buf);
}

static float active_time(const struct pmu_ctx *x, uint64_t cycles)
{
	return x->freq <= 0 ? 0.0f : (float)cycles / (float)x->freq;
}

size_t pmu_pipe_time(const struct pmu_ctx *x, uint64_t v, char *buf)
{
	return cal_pipe_time(x, v, buf);
}

size_t pmu_active_bw(const struct pmu_ctx *x, uint64_t bytes, uint64_t v, uint64_t cycles, char *buf)
{
	float time = active_time(x, cycles), fl;
	if (x->freq <= 0 || fzero(time))
		return na(buf);
	fl = (float)(v * bytes);
	return pmu_fmt_float(fl / time / (float)KIB / (float)KIB / (float)KIB * (float)TIME_CONV * (float)TIME_CONV, buf);
}

static size_t eval(const struct pmu_ctx *x, const struct formula *f, const uint64_t *a, char *buf)
{
	static const uint16_t vec_910b[7] = { 64, 128, 64, 32, 64, 128, 32 };
	static const uint16_t vec_310p[7] = { 64, 128, 64, 32, 16, 32, 16 };
	uint64_t v, t;
	float fl, time;
	switch (f->fn) {
	case F_RATIO:
		return cal_ratio(x, a[0], buf);
	case F_SUM_RATIO:
		return cal_ratio(x, sat_sum(a, f->nev), buf);
	case F_CUBE_RATIO:
		t = pmu_sat_add(a[0], a[1]);
		return cal_ratio(x, t ? pmu_sat_mul(a[0], a[2]) / t : 0, buf);
	case F_VEC_RATIO:
		t = sat_sub(sat_sum(a, f->nev), pmu_sat_add(a[0], a[1]));
		return cal_ratio(x, a[1] ? pmu_sat_mul(a[0], t) / a[1] : 0, buf);
	case F_VEC_FP32_RATIO:
		if (!a[1])
			return lit(buf, "0");
		return cal_ratio(x, pmu_sat_mul(sat_sub(a[2], a[3]), a[0]) / a[1], buf);
	case F_PMU_SELF:
		return pmu_fmt_u64(a[0], buf);
	case F_TOTAL_CYCLES:
		return pmu_fmt_u64(x->cycles, buf);
	case F_TOTAL_TIME:
		return cal_pipe_time(x, x->cycles, buf);
	case F_PIPE_TIME:
		return cal_pipe_time(x, a[0], buf);
	case F_PMU_DIV:
		return cal_div(a[0], a[1], buf);
	case F_BANDWIDTH:
		return pmu_fmt_float(cal_bandwidth_fp(x, a[0], a[1], a[2]), buf);
	case F_READ_MAIN_MEMORY_BANDWIDTH:
		return pmu_fmt_float(cal_bandwidth_fp(x, a[0], a[1], pmu_sat_add(a[2], a[3])), buf);
	case F_VEC_FOPS: {
		const uint16_t *k = x->fmt == BOARD_310P ? vec_310p : vec_910b;
		uint64_t c[7];
		memcpy(c, a, sizeof c);
		/* 910B counts fp16 lane-128 instructions as fp32 ones too. */
		if (!strncmp(x->soc, "Ascend910B", 10))
			c[0] = sat_sub(c[0], c[1]);
		v = 0;
		for (int i = 0; i < 7 && v != UINT64_MAX; i++)
			v = pmu_sat_add(v, pmu_sat_mul(c[i], k[i]));
		return pmu_fmt_u64(v, buf);
	}
	case F_CUBE_FOPS:
		return pmu_fmt_u64(pmu_sat_add(pmu_sat_mul(a[0], 8192), pmu_sat_mul(a[1], 16384)), buf);
	case F_TOTAL_HIT_RATE: {
		/* hits: write, r0, r1; then all nine */
		uint64_t h[9] = { a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8] };
		return cal_hit_rate(h, 3, 9, buf);
	}
	case F_WRITE_HIT_RATE:
		return cal_hit_rate(a, 1, 3, buf);
	case F_READ_HIT_RATE: {
		uint64_t h[6] = { a[0], a[3], a[1], a[4], a[2], a[5] };
		return cal_hit_rate(h, 2, 6, buf);
	}
	case F_WRITE_MAIN_MEMORY_DATAS:
		return cal_datas(a[0], REQ_MAIN_MEMORY, buf);
	case F_READ_MAIN_MEMORY_DATAS:
		return cal_datas(pmu_sat_add(a[0], a[1]), REQ_MAIN_MEMORY, buf);
	case F_GM_TO_L1_DATAS:
		return cal_datas(sat_sub(a[0], a[1]), REQ_GM_TO_L1, buf);
	case F_L1_TO_GM_DATAS:
		return cal_datas(l1_to_gm(a[0], a[1], a[2]), REQ_L1_TO_GM, buf);
	case F_L0C_TO_L1_DATAS:
		return cal_datas(a[0], REQ_L0C_TO_L1, buf);
	case F_L0C_TO_GM_DATAS:
		return cal_datas(sat_sub(a[1], a[0]), REQ_L0C_TO_GM, buf);
	case F_GM_TO_UB_DATAS:
		return cal_datas(a[0], REQ_GM_TO_UB, buf);
	case F_UB_TO_GM_DATAS:
		return cal_datas(a[0], REQ_UB_TO_GM, buf);
	case F_GM_TO_L1_BW_USAGE_RATE:
		return cal_usage(x, sat_sub(a[0], a[1]), REQ_GM_TO_L1, PATH_GM_TO_L1, buf);
	case F_L1_TO_GM_BW_USAGE_RATE:
		return cal_usage(x, l1_to_gm(a[0], a[1], a[2]), REQ_L1_TO_GM, PATH_L1_TO_GM, buf);
	case F_L0C_TO_L1_BW_USAGE_RATE:
		return cal_usage(x, a[0], REQ_L0C_TO_L1, PATH_L0C_TO_L1, buf);
	case F_L0C_TO_GM_BW_USAGE_RATE:
		return cal_usage(x, sat_sub(a[1], a[0]), REQ_L0C_TO_GM, PATH_L0C_TO_GM, buf);
	case F_GM_TO_UB_BW_USAGE_RATE:
		return cal_usage(x, a[0], REQ_GM_TO_UB, PATH_GM_TO_UB, buf);
	case F_UB_TO_GM_BW_USAGE_RATE:
		return cal_usage(x, a[0], REQ_UB_TO_GM, PATH_UB_TO_GM, buf);
	case F_L2_CACHE_HIT_RATE:
		t = pmu_sat_add(a[1], a[2]);
		if (a[0] > t)
			return na(buf);
		return cal_div(PERCENT * a[0], t, buf);
	case F_AIC_MTE1_ACTIVATE_BANDWIDTH: {
		/* par: L0A bytes per request and bits, L0B the same; then the
		 * DBI bytes GM -> L0A, GM -> L0B; then P28, P34, P770.  The
		 * products wrap, as the reference's do. */
		uint64_t l0a = a[6] * a[0] < a[4] ? 0 : a[6] * a[0] - a[4];
		uint64_t l0b = a[7] * a[2] < a[5] ? 0 : a[7] * a[2] - a[5];
		float bits = (float)l0a * (float)a[1] + (float)(l0b * a[3]);
		time = active_time(x, a[8]);
		if (fzero(time))
			return na(buf);
		return pmu_fmt_float(bits / time / (float)BW_DIV * (float)TIME_CONV * (float)TIME_CONV, buf);
	}
	case F_AIC_MTE2_ACTIVATE_BANDWIDTH:
		/* DBI bytes GM -> L0A, GM -> L0B, GM -> L1, then P12 */
		time = active_time(x, a[3]);
		if (fzero(time))
			return na(buf);
		fl = (float)a[0] + (float)a[1] + (float)a[2];
		return pmu_fmt_float(fl / time / (float)KIB / (float)KIB / (float)KIB * (float)TIME_CONV *
		                         (float)TIME_CONV, buf);
	case F_AIC_MTE3_ACTIVATE_BANDWIDTH:
		time = active_time(x, a[4]);
		if (4 * a[1] + a[2] < a[3] || fzero(time))
			return na(buf);
		fl = (float)((4 * a[1] + a[2] - a[3]) * a[0]);
		return pmu_fmt_float(fl / time / (float)KIB / (float)KIB / (float)KIB * (float)TIME_CONV *
		                         (float)TIME_CONV, buf);
	case F_AIV_MTE_ACTIVATE_BANDWIDTH:
		return pmu_active_bw(x, a[0], a[1], a[2], buf);
	}
	return na(buf);
}

static size_t table_metric(const struct pmu_ctx *x, const struct formula *tab, const char *name, char *buf)
{
	uint64_t a[16];
	size_t n = 0;
	const struct formula *f;
	/* The columns of a CSV ask for the same names row after row, from
	 * the same tables: the formula of a name pointer is remembered. */
	static _Thread_local struct {
		const char *name;
		const struct formula *tab, *f;
	} memo[256];
	size_t h = ((uintptr_t)name >> 3 ^ (uintptr_t)name >> 11) & 255;
	if (memo[h].name == name && memo[h].tab == tab) {
		f = memo[h].f;
	} else {
		for (f = tab; f->name && strcmp(f->name, name); f++)
			;
		memo[h].name = name;
		memo[h].tab = tab;
		memo[h].f = f;
	}
	if (!f->name)
		return na(buf);
	for (unsigned i = 0; i < f->npar; i++)
		a[n++] = f->par[i];
	if (f->fn == F_AIC_MTE1_ACTIVATE_BANDWIDTH) {
		a[n++] = x->dbi_gm_to_l0a;
		a[n++] = x->dbi_gm_to_l0b;
	} else if (f->fn == F_AIC_MTE2_ACTIVATE_BANDWIDTH) {
		a[n++] = x->dbi_gm_to_l0a;
		a[n++] = x->dbi_gm_to_l0b;
		a[n++] = x->dbi_gm_to_l1;
	}
	for (unsigned i = 0; i < f->nev; i++) {
		uint64_t v = pmu_counts_get(x->ev, f->ev[i]);
		if (v == PMU_EMPTY)
			return na(buf);
		a[n++] = v;
	}
	return eval(x, f, a, buf);
}

/* ---- A5 ---- */

/* A5 reads a missing event as 0, and a count of PMU_EMPTY as itself. */
static uint64_t p5(const struct pmu_ctx *x, unsigned id)
{
	const struct pmu_counts *c = x->ev;
	for (unsigned i = 0; i < c->n; i++)
		if (c->id[i] == id)
			return c->val[i];
	return 0;
}

/* A5 columns that read one event as a plain count, and the A5 ratios of
 * one event over the block's cycles. */
static const struct { uint16_t ev; const char *name; } a5_count[] = {
	{ 768, "cube_total_instr_number" }, { 789, "cube_fp_instr_number" }, { 790, "cube_int_instr_number" },
	{ 1060, "read_close_hit" }, { 1061, "read_close_miss" }, { 1062, "read_close_victim" },
	{ 1063, "read_far_hit" }, { 1064, "read_far_miss" }, { 1065, "read_far_victim" },
	{ 1066, "write_close_hit" }, { 1067, "write_close_miss" }, { 1068, "write_close_victim" },
	{ 1069, "write_far_hit" }, { 1070, "write_far_miss" }, { 1071, "write_far_victim" },
	{ 1792, "mte1_instructions" }, { 512, "mte2_instructions" }, { 513, "mte3_instructions" },
	{ 0, NULL },
};

static const struct { const char *name; uint16_t ev; } a5_ratio[] = {
	{ "cube_ratio", 810 }, { "cube_fp_ratio", 808 }, { "cube_int_ratio", 809 }, { "vec_ratio", 1281 },
	{ "vec_vf_ratio", 1282 }, { "vec_sfu_ratio", 1283 }, { "vec_simt_vf_ratio", 1284 }, { "mte1_ratio", 1794 },
	{ "mte2_ratio", 514 }, { "mte3_ratio", 515 }, { "scalar_ratio", 1 }, { "fixpipe_ratio", 1812 },
	{ "cube_wait_ratio", 11 }, { "mte1_wait_ratio", 13 }, { "mte2_wait_ratio", 14 }, { "mte3_wait_ratio", 15 },
	{ "vec_stu_cflt_ratio", 1366 }, { "vec_ldu_cflt_ratio", 1344 }, { "vec_wait_ratio", 12 },
	{ NULL, 0 },
};

/* Pipe busy times: one event over the clock. */
static const struct { const char *name; uint16_t ev; } a5_time[] = {
	{ "cube_time(us)", 810 }, { "scalar_time(us)", 1 }, { "mte1_time(us)", 1794 }, { "mte2_time(us)", 514 },
	{ "mte3_time(us)", 515 }, { "fixpipe_time(us)", 1812 }, { "vec_time(us)", 1281 },
	{ NULL, 0 },
};

static size_t a5_hit_rate(const struct pmu_ctx *x, unsigned first, char *buf)
{
	uint64_t v[6];
	for (unsigned i = 0; i < 6; i++)
		v[i] = p5(x, first + i);
	return pmu_fmt_float(pmu_ratio_fp(pmu_sat_add(v[0], v[3]), sat_sum(v, 6)) * PERCENT, buf);
}

/* GM -> UB requests: main-memory reads less the SIMT ones. */
static uint64_t a5_gm_to_ub(const struct pmu_ctx *x)
{
	return sat_sub0(p5(x, 1058), pmu_sat_add(p5(x, 1407), p5(x, 1408)));
}

static float a5_gb(const struct pmu_ctx *x, unsigned ev, enum pmu_req r)
{
	return pmu_data_fp(p5(x, ev), req_a5[r], 0);
}

/* A usage rate of an A5 part; NA for a SoC the A5 peak tables do not
 * name, as the reference gives. */
static size_t a5_usage(float gb, float us, enum pmu_path path, const char *soc, int gm_cj, char *buf)
{
	if (chip_find(soc)->family != CHIP_A5)
		return na(buf);
	return pmu_bw_usage(gb, us, path, soc, gm_cj, buf);
}

static size_t a5_metric(const struct pmu_ctx *x, const char *col, char *buf)
{
	const char *name = col;
	uint64_t f = x->freq <= 0 ? 0 : (uint64_t)x->freq;
	float t = x->duration;
	float ub_gm = (float)x->dbi_ub_to_gm / (float)(KIB * KIB * KIB);
	int aic = !strncmp(col, "aic_", 4), aiv = !strncmp(col, "aiv_", 4);
	if (fzero(t))
		t = f ? (float)x->cycles / (float)f : 0.0f;
	if (aic || aiv)
		name = col + 4;
	if (aic || aiv) {
		for (int i = 0; a5_count[i].name; i++)
			if (!strcmp(name, a5_count[i].name))
				return pmu_fmt_u64(p5(x, a5_count[i].ev), buf);
		for (int i = 0; a5_ratio[i].name; i++)
			if (!strcmp(name, a5_ratio[i].name))
				return pmu_ratio(p5(x, a5_ratio[i].ev), x->cycles, buf);
		for (int i = 0; a5_time[i].name; i++)
			if (!strcmp(name, a5_time[i].name))
				return pmu_ratio(p5(x, a5_time[i].ev), f, buf);
		if (!strcmp(name, "time(us)"))
			return pmu_ratio(x->cycles, f, buf);
		if (!strcmp(name, "total_cycles"))
			return pmu_fmt_u64(x->cycles, buf);
		if (!strcmp(name, "read_hit_rate(%)"))
			return a5_hit_rate(x, 1060, buf);
		if (!strcmp(name, "write_hit_rate(%)"))
			return a5_hit_rate(x, 1066, buf);
		if (!strcmp(name, "main_mem_read_bw(GB/s)"))
			return pmu_bandwidth(a5_gb(x, 1058, REQ_MAIN_MEMORY), t, 1, buf);
		if (!strcmp(name, "main_mem_write_bw(GB/s)"))
			return pmu_bandwidth(a5_gb(x, 1059, REQ_MAIN_MEMORY), t, 1, buf);
		if (!strcmp(name, "icache_miss_rate"))
			return pmu_ratio(p5(x, 53), p5(x, 52), buf);
		if (!strcmp(name, "mte2_active_bw(GB/s)") && aiv)
			return pmu_bandwidth(pmu_data_fp(a5_gm_to_ub(x), req_a5[REQ_GM_TO_UB], 0),
			                     pmu_ratio_fp(p5(x, 514), f), 1, buf);
		if (!strcmp(name, "mte3_active_bw(GB/s)") && aiv) {
			if (!x->have_dbi_ub_to_gm)
				return na(buf);
			return pmu_bandwidth(ub_gm, pmu_ratio_fp(p5(x, 515), f), 1, buf);
		}
		if (!strcmp(name, "vec_sfu_cflt_ratio")) {
			uint64_t v[4] = { p5(x, 1376), p5(x, 1377), p5(x, 1378), p5(x, 1379) };
			return pmu_ratio(sat_sum(v, 4), x->cycles, buf);
		}
	}
	if (!strcmp(col, "aic_l1_read_bw(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 1799, REQ_L1_TO_MTE), t, 1, buf);
	if (!strcmp(col, "aic_l1_write_bw(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 1801, REQ_GM_TO_L1), t, 1, buf);
	if (!strcmp(col, "aiv_ub_to_gm_bw(GB/s)") || !strcmp(col, "aiv_ub_read_bw_gm(GB/s)")) {
		if (!x->have_dbi_ub_to_gm)
			return na(buf);
		return pmu_bandwidth(ub_gm, t, 1, buf);
	}
	if (!strcmp(col, "aiv_gm_to_ub_bw(GB/s)") || !strcmp(col, "aiv_ub_write_bw_gm(GB/s)"))
		return pmu_bandwidth(pmu_data_fp(a5_gm_to_ub(x), req_a5[REQ_GM_TO_UB], 0), t, 1, buf);
	if (!strcmp(col, "read_main_memory_datas(KB)"))
		return pmu_fmt_float(pmu_data_fp(p5(x, 1058), req_a5[REQ_MAIN_MEMORY], 1), buf);
	if (!strcmp(col, "write_main_memory_datas(KB)"))
		return pmu_fmt_float(pmu_data_fp(p5(x, 1059), req_a5[REQ_MAIN_MEMORY], 1), buf);
	if (!strcmp(col, "GM_to_L1_datas(KB)"))
		return pmu_fmt_float(pmu_data_fp(p5(x, 1058), req_a5[REQ_GM_TO_L1], 1), buf);
	if (!strcmp(col, "L0C_to_L1_datas(KB)"))
		return pmu_fmt_float(pmu_data_fp(p5(x, 1806), req_a5[REQ_L0C_TO_L1], 1), buf);
	if (!strcmp(col, "L0C_to_GM_datas(KB)"))
		return pmu_fmt_float(pmu_data_fp(p5(x, 1059), req_a5[REQ_L0C_TO_GM], 1), buf);
	if (!strcmp(col, "GM_to_UB_datas(KB)"))
		return pmu_fmt_float(pmu_data_fp(a5_gm_to_ub(x), req_a5[REQ_GM_TO_UB], 1), buf);
	if (!strcmp(col, "UB_to_GM_datas(KB)")) {
		if (!x->have_dbi_ub_to_gm)
			return na(buf);
		return pmu_fmt_float((float)x->dbi_ub_to_gm / (float)KIB, buf);
	}
	if (!strcmp(col, "GM_to_L1_bw_usage_rate(%)"))
		return a5_usage(a5_gb(x, 1058, REQ_GM_TO_L1), t, PATH_GM_TO_L1, x->soc, 0, buf);
	if (!strcmp(col, "UB_to_GM_bw_usage_rate(%)")) {
		if (!x->have_dbi_ub_to_gm)
			return na(buf);
		return a5_usage(ub_gm, t, PATH_UB_TO_GM, x->soc, 0, buf);
	}
	if (!strcmp(col, "L0C_to_L1_bw_usage_rate(%)"))
		return a5_usage(a5_gb(x, 1806, REQ_L0C_TO_L1), t, PATH_L0C_TO_L1, x->soc, 0, buf);
	if (!strcmp(col, "L0C_to_GM_bw_usage_rate(%)"))
		return a5_usage(a5_gb(x, 1059, REQ_L0C_TO_GM), t, PATH_L0C_TO_GM, x->soc, 0, buf);
	if (!strcmp(col, "GM_to_UB_bw_usage_rate(%)"))
		return a5_usage(pmu_data_fp(a5_gm_to_ub(x), req_a5[REQ_GM_TO_UB], 0), t, PATH_GM_TO_UB, x->soc, 0,
		                    buf);
	if (!strcmp(col, "aic_l0a_read_bw(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 772, REQ_L0A_TO_CUBE), t, 1, buf);
	if (!strcmp(col, "aic_l0a_write_bw(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 1795, REQ_L1_TO_L0A), t, 1, buf);
	if (!strcmp(col, "aic_l0b_read_bw(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 774, REQ_L0B_TO_CUBE), t, 1, buf);
	if (!strcmp(col, "aic_l0b_write_bw(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 1797, REQ_L1_TO_L0B), t, 1, buf);
	if (!strcmp(col, "aic_l0c_read_bw_cube(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 778, REQ_L0C_TO_CUBE), t, 1, buf);
	if (!strcmp(col, "aic_l0c_write_bw_cube(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 776, REQ_CUBE_TO_L0C), t, 1, buf);
	if (!strcmp(col, "aiv_ub_read_bw_vector(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 1393, REQ_UB_TO_VEC), t, 1, buf);
	if (!strcmp(col, "aiv_ub_write_bw_vector(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 1394, REQ_VEC_TO_UB), t, 1, buf);
	if (!strcmp(col, "aic_mte1_active_bw(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 1799, REQ_L1_TO_MTE), pmu_ratio_fp(p5(x, 1794), f), 1, buf);
	if (!strcmp(col, "aic_mte2_active_bw(GB/s)"))
		return pmu_bandwidth(a5_gb(x, 1058, REQ_GM_TO_L1), pmu_ratio_fp(p5(x, 514), f), 1, buf);
	if (!strcmp(col, "aic_mte3_active_bw(GB/s)")) {
		uint64_t ub_l1 = sat_sub0(p5(x, 1801), pmu_sat_add(p5(x, 1806), p5(x, 1058) / 2));
		return pmu_bandwidth(pmu_data_fp(ub_l1, req_a5[REQ_MTE_TO_L1], 0), pmu_ratio_fp(p5(x, 515), f), 1, buf);
	}
	if (!strcmp(col, "aic_fixpipe_active_bw(GB/s)")) {
		uint64_t v[4] = { p5(x, 1804), p5(x, 1806), p5(x, 1815), p5(x, 1059) };
		return pmu_bandwidth(pmu_data_fp(sat_sum(v, 4), req_a5[REQ_L0C_TO_FIXP], 0), pmu_ratio_fp(p5(x, 1812), f),
		                     1, buf);
	}
	return na(buf);
}

size_t pmu_metric(const struct pmu_ctx *x, const char *name, char *buf)
{
	if (x->fmt == BOARD_A5)
		return a5_metric(x, name, buf);
	return table_metric(x, x->fmt == BOARD_310P ? f310p : f910b, name, buf);
}

/* ---- metric groups and CSV columns ---- */

static const char *const cols_arith_a2[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_cube_ratio", "aic_cube_fp16_ratio",
	"aic_cube_int8_ratio", "aic_cube_fops", "aic_cube_total_instr_number",
	"aic_cube_fp_instr_number", "aic_cube_int_instr_number", "aiv_time(us)",
	"aiv_total_cycles", "aiv_vec_ratio", "aiv_vec_fp32_ratio",
	"aiv_vec_fp16_ratio", "aiv_vec_int32_ratio", "aiv_vec_int16_ratio",
	"aiv_vec_misc_ratio", "aiv_vec_fops",
	NULL,
};
static const char *const cols_l2_a2[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_write_cache_hit", "aic_write_cache_miss_allocate",
	"aic_r0_read_cache_hit", "aic_r0_read_cache_miss_allocate", "aic_r1_read_cache_hit",
	"aic_r1_read_cache_miss_allocate", "aic_write_hit_rate(%)", "aic_read_hit_rate(%)",
	"aic_total_hit_rate(%)", "aiv_time(us)", "aiv_total_cycles",
	"aiv_write_cache_hit", "aiv_write_cache_miss_allocate", "aiv_r0_read_cache_hit",
	"aiv_r0_read_cache_miss_allocate", "aiv_r1_read_cache_hit", "aiv_r1_read_cache_miss_allocate",
	"aiv_write_hit_rate(%)", "aiv_read_hit_rate(%)", "aiv_total_hit_rate(%)",
	NULL,
};
static const char *const cols_mem_a2[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_l1_read_bw(GB/s)", "aic_l1_write_bw(GB/s)",
	"aic_main_mem_read_bw(GB/s)", "aic_main_mem_write_bw(GB/s)", "aic_mte1_instructions",
	"aic_mte1_ratio", "aic_mte2_instructions", "aic_mte2_ratio",
	"aic_mte3_instructions", "aic_mte3_ratio", "aiv_time(us)",
	"aiv_total_cycles", "aiv_ub_to_gm_bw(GB/s)", "aiv_gm_to_ub_bw(GB/s)",
	"aiv_main_mem_read_bw(GB/s)", "aiv_main_mem_write_bw(GB/s)", "aiv_mte2_instructions",
	"aiv_mte2_ratio", "aiv_mte3_instructions", "aiv_mte3_ratio",
	"read_main_memory_datas(KB)", "write_main_memory_datas(KB)", "GM_to_L1_datas(KB)",
	"GM_to_L1_bw_usage_rate(%)", "L1_to_GM_datas(KB)(estimate)", "L1_to_GM_bw_usage_rate(%)(estimate)",
	"L0C_to_L1_datas(KB)", "L0C_to_L1_bw_usage_rate(%)", "L0C_to_GM_datas(KB)",
	"L0C_to_GM_bw_usage_rate(%)", "GM_to_UB_datas(KB)", "GM_to_UB_bw_usage_rate(%)",
	"UB_to_GM_datas(KB)", "UB_to_GM_bw_usage_rate(%)",
	NULL,
};
static const char *const cols_l0_a2[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_l0a_read_bw(GB/s)", "aic_l0a_write_bw(GB/s)",
	"aic_l0b_read_bw(GB/s)", "aic_l0b_write_bw(GB/s)", "aic_l0c_read_bw_cube(GB/s)",
	"aic_l0c_write_bw_cube(GB/s)", "aiv_time(us)", "aiv_total_cycles",
	NULL,
};
static const char *const cols_ub_a2[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aiv_time(us)", "aiv_total_cycles",
	"aiv_ub_read_bw_vector(GB/s)", "aiv_ub_write_bw_vector(GB/s)", "aiv_ub_read_bw_scalar(GB/s)",
	"aiv_ub_write_bw_scalar(GB/s)",
	NULL,
};
static const char *const cols_pipe_a2[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_cube_time(us)", "aic_cube_ratio",
	"aic_mte1_time(us)", "aic_mte1_ratio", "aic_mte2_time(us)",
	"aic_mte2_ratio", "aic_mte3_time(us)", "aic_mte3_ratio",
	"aic_mte3_active_bw(GB/s)", "aic_fixpipe_time(us)", "aic_fixpipe_ratio",
	"aic_fixpipe_active_bw(GB/s)", "aic_icache_miss_rate", "aic_scalar_time(us)",
	"aic_scalar_ratio", "aic_scalar_single_time(us)", "aic_scalar_dual_time(us)",
	"aic_scalar_mte1_stall_time(us)", "aic_scalar_mte2_stall_time(us)", "aic_scalar_mte3_stall_time(us)",
	"aic_scalar_cube_stall_time(us)", "aic_scalar_wait_ib_time(us)", "aic_scalar_wait_time(us)",
	"aiv_time(us)", "aiv_total_cycles", "aiv_vec_time(us)",
	"aiv_vec_ratio", "aiv_mte2_time(us)", "aiv_mte2_ratio",
	"aiv_mte2_active_bw(GB/s)", "aiv_mte3_time(us)", "aiv_mte3_ratio",
	"aiv_mte3_active_bw(GB/s)", "aiv_icache_miss_rate", "aiv_scalar_time(us)",
	"aiv_scalar_ratio", "aiv_scalar_single_time(us)", "aiv_scalar_dual_time(us)",
	"aiv_scalar_mte2_stall_time(us)", "aiv_scalar_mte3_stall_time(us)", "aiv_scalar_stall_by_ub_time(us)",
	"aiv_scalar_vector_stall_time(us)", "aiv_scalar_wait_ib_time(us)", "aiv_scalar_wait_time(us)",
	NULL,
};
static const char *const cols_pipe_dbi_a2[] = {
	"aic_mte1_active_bw(GB/s)", "aic_mte2_active_bw(GB/s)",
	NULL,
};
static const char *const cols_rc_a2[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_cube_wait_ratio", "aic_mte1_wait_ratio",
	"aic_mte2_wait_ratio", "aic_mte3_wait_ratio", "aiv_time(us)",
	"aiv_total_cycles", "aiv_vec_total_cflt_ratio", "aiv_vec_bankgroup_cflt_ratio",
	"aiv_vec_bank_cflt_ratio", "aiv_vec_resc_cflt_ratio", "aiv_vec_mte_cflt_ratio",
	"aiv_vec_wait_ratio", "aiv_mte2_wait_ratio", "aiv_mte3_wait_ratio",
	NULL,
};
static const char *const cols_arith_310p[] = {
	"aic_time(us)", "aic_total_cycles", "aic_cube_ratio",
	"aic_cube_fp16_ratio", "aic_cube_int8_ratio", "aic_cube_fops",
	"aic_cube_total_instr_number", "aic_vec_ratio", "aic_vec_fp32_ratio",
	"aic_vec_fp16_ratio", "aic_vec_int32_ratio", "aic_vec_int16_ratio",
	"aic_vec_misc_ratio", "aic_vec_fops",
	NULL,
};
static const char *const cols_l2_310p[] = {
	"aic_l2_cache_hit_rate(%)",
	NULL,
};
static const char *const cols_mem_310p[] = {
	"aic_time(us)", "aic_total_cycles", "aic_l1_read_bw(GB/s)",
	"aic_l1_write_bw(GB/s)", "aic_ub_to_gm_bw(GB/s)", "aic_gm_to_ub_bw(GB/s)",
	"aic_main_mem_read_bw(GB/s)", "aic_main_mem_write_bw(GB/s)", "aic_mte1_instructions",
	"aic_mte1_ratio", "aic_mte2_instructions", "aic_mte2_ratio",
	"aic_mte3_instructions", "aic_mte3_ratio",
	NULL,
};
static const char *const cols_l0_310p[] = {
	"aic_time(us)", "aic_total_cycles", "aic_l0a_read_bw(GB/s)",
	"aic_l0a_write_bw(GB/s)", "aic_l0b_read_bw(GB/s)", "aic_l0b_write_bw(GB/s)",
	"aic_l0c_read_bw_cube(GB/s)", "aic_l0c_write_bw_cube(GB/s)", "aic_l0c_read_bw(GB/s)",
	"aic_l0c_write_bw(GB/s)",
	NULL,
};
static const char *const cols_ub_310p[] = {
	"aic_time(us)", "aic_total_cycles", "aic_ub_read_bw_vector(GB/s)",
	"aic_ub_write_bw_vector(GB/s)", "aic_ub_read_bw_scalar(GB/s)", "aic_ub_write_bw_scalar(GB/s)",
	NULL,
};
static const char *const cols_pipe_310p[] = {
	"aic_time(us)", "aic_total_cycles", "aic_cube_time(us)",
	"aic_cube_ratio", "aic_scalar_time(us)", "aic_scalar_ratio",
	"aic_mte1_time(us)", "aic_mte1_ratio", "aic_mte2_time(us)",
	"aic_mte2_ratio", "aic_mte3_time(us)", "aic_mte3_ratio",
	"aic_icache_miss_rate", "aic_vec_time(us)", "aic_vec_ratio",
	NULL,
};
static const char *const cols_rc_310p[] = {
	"aic_time(us)", "aic_total_cycles", "aic_cube_wait_ratio",
	"aic_vec_wait_ratio", "aic_mte1_wait_ratio", "aic_mte2_wait_ratio",
	"aic_mte3_wait_ratio", "aic_vec_total_cflt_ratio", "aic_vec_bankgroup_cflt_ratio",
	"aic_vec_bank_cflt_ratio", "aic_vec_resc_cflt_ratio", "aic_vec_mte_cflt_ratio",
	NULL,
};
static const char *const cols_arith_a5[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_cube_ratio", "aic_cube_fp_ratio",
	"aic_cube_int_ratio", "aic_cube_total_instr_number", "aic_cube_fp_instr_number",
	"aic_cube_int_instr_number", "aiv_time(us)", "aiv_total_cycles",
	"aiv_vec_ratio", "aiv_vec_vf_ratio", "aiv_vec_sfu_ratio",
	"aiv_vec_simt_vf_ratio",
	NULL,
};
static const char *const cols_l2_a5[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_read_close_hit", "aic_read_close_miss",
	"aic_read_close_victim", "aic_read_far_hit", "aic_read_far_miss",
	"aic_read_far_victim", "aic_read_hit_rate(%)", "aic_write_close_hit",
	"aic_write_close_miss", "aic_write_close_victim", "aic_write_far_hit",
	"aic_write_far_miss", "aic_write_far_victim", "aic_write_hit_rate(%)",
	"aiv_time(us)", "aiv_total_cycles", "aiv_read_close_hit",
	"aiv_read_close_miss", "aiv_read_close_victim", "aiv_read_far_hit",
	"aiv_read_far_miss", "aiv_read_far_victim", "aiv_read_hit_rate(%)",
	"aiv_write_close_hit", "aiv_write_close_miss", "aiv_write_close_victim",
	"aiv_write_far_hit", "aiv_write_far_miss", "aiv_write_far_victim",
	"aiv_write_hit_rate(%)",
	NULL,
};
static const char *const cols_mem_a5[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_l1_read_bw(GB/s)", "aic_l1_write_bw(GB/s)",
	"aic_main_mem_read_bw(GB/s)", "aic_main_mem_write_bw(GB/s)", "aic_mte1_instructions",
	"aic_mte1_ratio", "aic_mte2_instructions", "aic_mte2_ratio",
	"aic_mte3_instructions", "aic_mte3_ratio", "aiv_time(us)",
	"aiv_total_cycles", "aiv_ub_to_gm_bw(GB/s)", "aiv_gm_to_ub_bw(GB/s)",
	"aiv_main_mem_read_bw(GB/s)", "aiv_main_mem_write_bw(GB/s)", "aiv_mte2_instructions",
	"aiv_mte2_ratio", "aiv_mte3_instructions", "aiv_mte3_ratio",
	"read_main_memory_datas(KB)", "write_main_memory_datas(KB)", "GM_to_L1_datas(KB)",
	"GM_to_L1_bw_usage_rate(%)", "L0C_to_L1_datas(KB)", "L0C_to_L1_bw_usage_rate(%)",
	"L0C_to_GM_datas(KB)", "L0C_to_GM_bw_usage_rate(%)", "GM_to_UB_datas(KB)",
	"GM_to_UB_bw_usage_rate(%)", "UB_to_GM_datas(KB)", "UB_to_GM_bw_usage_rate(%)",
	NULL,
};
static const char *const cols_l0_a5[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_l0a_read_bw(GB/s)", "aic_l0a_write_bw(GB/s)",
	"aic_l0b_read_bw(GB/s)", "aic_l0b_write_bw(GB/s)", "aic_l0c_read_bw_cube(GB/s)",
	"aic_l0c_write_bw_cube(GB/s)", "aiv_time(us)", "aiv_total_cycles",
	NULL,
};
static const char *const cols_ub_a5[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aiv_time(us)", "aiv_total_cycles",
	"aiv_ub_read_bw_vector(GB/s)", "aiv_ub_write_bw_vector(GB/s)", "aiv_ub_read_bw_gm(GB/s)",
	"aiv_ub_write_bw_gm(GB/s)",
	NULL,
};
static const char *const cols_pipe_a5[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_cube_time(us)", "aic_cube_ratio",
	"aic_scalar_time(us)", "aic_scalar_ratio", "aic_mte1_time(us)",
	"aic_mte1_ratio", "aic_mte1_active_bw(GB/s)", "aic_mte2_time(us)",
	"aic_mte2_ratio", "aic_mte2_active_bw(GB/s)", "aic_mte3_time(us)",
	"aic_mte3_ratio", "aic_mte3_active_bw(GB/s)", "aic_fixpipe_time(us)",
	"aic_fixpipe_ratio", "aic_fixpipe_active_bw(GB/s)", "aic_icache_miss_rate",
	"aiv_time(us)", "aiv_total_cycles", "aiv_vec_time(us)",
	"aiv_vec_ratio", "aiv_scalar_time(us)", "aiv_scalar_ratio",
	"aiv_mte2_time(us)", "aiv_mte2_ratio", "aiv_mte2_active_bw(GB/s)",
	"aiv_mte3_time(us)", "aiv_mte3_ratio", "aiv_mte3_active_bw(GB/s)",
	"aiv_icache_miss_rate",
	NULL,
};
static const char *const cols_rc_a5[] = {
	"block_id", "sub_block_id", "aic_time(us)",
	"aic_total_cycles", "aic_cube_wait_ratio", "aic_mte1_wait_ratio",
	"aic_mte2_wait_ratio", "aic_mte3_wait_ratio", "aiv_time(us)",
	"aiv_total_cycles", "aiv_vec_stu_cflt_ratio", "aiv_vec_ldu_cflt_ratio",
	"aiv_vec_sfu_cflt_ratio", "aiv_vec_wait_ratio", "aiv_mte2_wait_ratio",
	"aiv_mte3_wait_ratio",
	NULL,
};

static const char *const basic_a2[] = {
	"Op Name", "Op Type", "Task Duration(us)", "Block Dim", "Mix Block Dim", "Device Id", "Pid", "Current Freq",
	"Rated Freq", NULL,
};
static const char *const basic_310p[] = {
	"Op Name", "Op Type", "Task Duration(us)", "Block Dim", "Device Id", "Pid", "Current Freq", "Rated Freq", NULL,
};

static const struct {
	const char *name, *internal;
	const char *const *cols[3]; /* A2, 310P, A5 */
} groups[GRP_COUNT] = {
	[GRP_ARITHMETIC] = { "ArithmeticUtilization", "arithmeticutilization",
	                     { cols_arith_a2, cols_arith_310p, cols_arith_a5 } },
	[GRP_L2CACHE] = { "L2Cache", "l2cache", { cols_l2_a2, cols_l2_310p, cols_l2_a5 } },
	[GRP_MEMORY] = { "Memory", "memory", { cols_mem_a2, cols_mem_310p, cols_mem_a5 } },
	[GRP_MEMORYL0] = { "MemoryL0", "memoryl0", { cols_l0_a2, cols_l0_310p, cols_l0_a5 } },
	[GRP_MEMORYUB] = { "MemoryUB", "memoryub", { cols_ub_a2, cols_ub_310p, cols_ub_a5 } },
	[GRP_PIPE] = { "PipeUtilization", "pipeutilization", { cols_pipe_a2, cols_pipe_310p, cols_pipe_a5 } },
	[GRP_CONFLICT] = { "ResourceConflictRatio", "resourceconflictratio", { cols_rc_a2, cols_rc_310p, cols_rc_a5 } },
};

const char *pmu_group_name(enum pmu_group g)
{
	return (unsigned)g < GRP_COUNT ? groups[g].name : NULL;
}

int pmu_group_find(const char *name)
{
	for (int g = 0; g < GRP_COUNT; g++)
		if (!strcasecmp(name, groups[g].name) || !strcasecmp(name, groups[g].internal))
			return g;
	return -1;
}

const char *const *pmu_columns(enum board_fmt fmt, enum pmu_group g)
{
	if ((unsigned)g >= GRP_COUNT || (unsigned)fmt > BOARD_A5)
		return NULL;
	return groups[g].cols[fmt];
}

const char *const *pmu_pipe_dbi_columns(void)
{
	return cols_pipe_dbi_a2;
}

const char *pmu_scalar_wait_name(unsigned event)
{
	static const char *const names[16] = {
		"scalar_wait_id0_time(us)",  "scalar_wait_id1_time(us)",  "scalar_wait_id2_time(us)",
		"scalar_wait_id3_time(us)",  "scalar_wait_id4_time(us)",  "scalar_wait_id5_time(us)",
		"scalar_wait_id6_time(us)",  "scalar_wait_id7_time(us)",  "scalar_wait_id8_time(us)",
		"scalar_wait_id9_time(us)",  "scalar_wait_id10_time(us)", "scalar_wait_id11_time(us)",
		"scalar_wait_id12_time(us)", "scalar_wait_id13_time(us)", "scalar_wait_id14_time(us)",
		"scalar_wait_id15_time(us)",
	};
	if (event >= 1792 && event <= 1799)
		return names[event - 1792];
	if (event >= 1780 && event <= 1787)
		return names[8 + event - 1780];
	return NULL;
}

const char *const *pmu_basic_columns(enum board_fmt fmt)
{
	return fmt == BOARD_310P ? basic_310p : basic_a2;
}

/* Columns without an aic_/aiv_ prefix: the cube rows' and the vector rows'. */
static const char *const extra_aic[] = {
	"read_main_memory_datas(KB)", "write_main_memory_datas(KB)", "GM_to_L1_datas(KB)", "GM_to_L1_bw_usage_rate(%)",
	"L1_to_GM_datas(KB)(estimate)", "L1_to_GM_bw_usage_rate(%)(estimate)", "L0C_to_L1_datas(KB)",
	"L0C_to_L1_bw_usage_rate(%)", "L0C_to_GM_datas(KB)", "L0C_to_GM_bw_usage_rate(%)", NULL,
};
static const char *const extra_aiv[] = {
	"read_main_memory_datas(KB)", "write_main_memory_datas(KB)", "GM_to_UB_datas(KB)", "GM_to_UB_bw_usage_rate(%)",
	"UB_to_GM_datas(KB)", "UB_to_GM_bw_usage_rate(%)", NULL,
};

static int listed(const char *const *list, const char *s)
{
	for (; *list; list++)
		if (!strcmp(*list, s))
			return 1;
	return 0;
}

int pmu_column_of(enum board_fmt fmt, const char *col, enum board_core core)
{
	if (fmt == BOARD_310P)
		return !strncmp(col, "aic_", 4);
	if (core == BOARD_CUBE)
		return !strncmp(col, "aic_", 4) || listed(extra_aic, col);
	return !strncmp(col, "aiv_", 4) || listed(extra_aiv, col);
}

void pmu_csv_line(struct wr *w, const char *const *fields, size_t n)
{
	/* Every field ends with a comma, the last one too, as the
	 * reference's writer ends them. */
	for (size_t i = 0; i < n; i++) {
		wr_puts(w, fields[i]);
		wr_putc(w, ',');
	}
	wr_putc(w, '\n');
}

void pmu_csv_row(struct wr *w, const struct pmu_ctx *x, const char *const *cols, enum board_core core,
                 const char *block_id, const char *sub_block_id)
{
	char buf[PMU_VALUE_MAX];
	for (; *cols; cols++) {
		if (!strcmp(*cols, "block_id")) {
			wr_puts(w, block_id ? block_id : "");
		} else if (!strcmp(*cols, "sub_block_id")) {
			wr_puts(w, sub_block_id ? sub_block_id : "");
		} else if (pmu_column_of(x->fmt, *cols, core)) {
			pmu_metric(x, *cols, buf);
			wr_puts(w, buf);
		} else {
			wr_puts(w, "NA");   /* the other core kind's column */
		}
		wr_putc(w, ',');
	}
	wr_putc(w, '\n');
}

/* ---- event lists ---- */

/* The full replay lists, file after file (8 slots, 10 on A5). */
static const uint16_t replay_a2_aic[] = {
	1032, 1033, 1280, 1282, 1283, 1292, 0, 0, 1284, 1286, 1287, 1288, 1290, 1291, 1293, 1294,
	19, 49, 50, 518, 524, 0, 0, 0, 3, 4, 5, 6, 526, 0, 0, 0,
	27, 28, 33, 34, 40, 42, 84, 85, 1792, 1793, 1794, 1795, 1796, 1797, 1798, 1799,
	1780, 1781, 1782, 1783, 1784, 1785, 1786, 1787, 106, 107, 108, 109, 110, 111, 112, 113,
	13, 73, 74, 87, 92, 114, 0, 0, 9, 10, 12, 88, 90, 91, 770, 771,
};
static const uint16_t replay_a2_aiv[] = {
	55, 56, 1280, 1282, 1283, 1292, 0, 0, 1284, 1286, 1287, 1288, 1290, 1291, 1293, 1294,
	61, 62, 67, 68, 0, 0, 0, 0, 1, 75, 76, 77, 78, 79, 174, 186,
	5, 6, 100, 101, 102, 103, 184, 185, 1792, 1793, 1794, 1795, 1796, 1797, 1798, 1799,
	1780, 1781, 1782, 1783, 1784, 1785, 1786, 1787, 106, 107, 108, 109, 110, 111, 112, 113,
	4, 84, 85, 526, 13, 87, 92, 114, 8, 9, 12, 770, 771, 89, 90, 91,
};
static const uint16_t replay_310p[] = {
	3, 73, 74, 75, 76, 77, 78, 79, 174, 184, 185, 186, 4, 5, 6, 18,
	19, 44, 49, 50, 61, 62, 27, 28, 33, 34, 39, 40, 41, 42, 55, 56,
	67, 68, 1, 84, 85, 87, 100, 101, 102, 103, 9, 13, 92, 0, 0, 0,
	8, 10, 11, 12, 88, 89, 90, 91,
};
static const uint16_t replay_a5_aic[] = {
	1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067, 1068, 1069,
	1070, 1071, 512, 513, 768, 789, 790, 1792, 1813, 0,
	52, 53, 772, 774, 776, 778, 1058, 1059, 0, 0,
	1795, 1797, 1799, 1801, 1804, 1806, 1815, 0, 0, 0,
	10, 11, 13, 14, 15, 36, 0, 0, 0, 0,
	1, 514, 515, 808, 809, 810, 1794, 1812, 0, 0,
};
static const uint16_t replay_a5_aiv[] = {
	1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067, 1068, 1069,
	1070, 1071, 512, 513, 1344, 1366, 1376, 1377, 1378, 1379,
	52, 53, 516, 518, 1058, 1059, 1391, 1393, 1394, 0,
	1395, 1396, 1397, 1398, 1400, 1404, 1407, 1408, 0, 0,
	10, 12, 14, 15, 0, 0, 0, 0, 0, 0,
	1, 514, 515, 1281, 1282, 1283, 1284, 1466, 1467, 1468,
};

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

const uint16_t *pmu_replay_events(enum board_fmt fmt, enum board_core core, size_t *n)
{
	if (fmt == BOARD_310P) {
		*n = LEN(replay_310p);
		return replay_310p;
	}
	if (fmt == BOARD_A5) {
		*n = core == BOARD_CUBE ? LEN(replay_a5_aic) : LEN(replay_a5_aiv);
		return core == BOARD_CUBE ? replay_a5_aic : replay_a5_aiv;
	}
	*n = core == BOARD_CUBE ? LEN(replay_a2_aic) : LEN(replay_a2_aiv);
	return core == BOARD_CUBE ? replay_a2_aic : replay_a2_aiv;
}

/* Each group's events, per family and core kind, in PMU_SEL_* order: the
 * groups of optrace-board(5), METRIC GROUPS AND THEIR EVENTS.  A list ends
 * at its first 0 (Ascend950's event 0 is left to the rule below). */
#define SEL_MAX 24
static const uint16_t sel_a2_aic[PMU_SEL_COUNT][SEL_MAX] = {
	{ 9, 10, 12, 13, 84, 85, 87, 770, 771, 1792, 1793, 1794, 1795, 1796, 1797, 1798, 1799,
	  1780, 1781, 1782, 1783, 1784, 1785, 1786 },
	{ 3, 10, 73, 74, 1032, 1033 },
	{ 1280, 1282, 1283, 1284, 1286, 1287, 1288, 1290, 1291 },
	{ 4, 5, 6, 12, 13, 19, 49, 50, 518, 524, 526, 770, 1292, 1293, 1294 },
	{ 88, 90, 91, 92 },
	{ 27, 28, 33, 34, 40, 42 },
	{ 0 },
	{ 1280, 1282, 1283, 1284, 1286, 1287, 1288, 1290, 1291, 1292, 1293, 1294 },
	{ 19, 28, 33, 34, 49, 50, 73, 74, 518, 524, 1280, 1282, 1284, 1286, 1288, 1290, 1292, 1293, 1294 },
};
/* The rest of the A2/A3 PipeUtilization lists (longer than a row). */
static const uint16_t sel_a2_aic_pipe_tail[] = { 1787, 107, 108, 109, 110, 112, 113, 114 };
static const uint16_t sel_a2_aiv_pipe_tail[] = { 1787, 106, 108, 109, 111, 112, 113, 114 };
static const uint16_t sel_a2_aiv[PMU_SEL_COUNT][SEL_MAX] = {
	{ 8, 9, 12, 13, 84, 85, 87, 770, 771, 1792, 1793, 1794, 1795, 1796, 1797, 1798, 1799,
	  1780, 1781, 1782, 1783, 1784, 1785, 1786 },
	{ 1, 8, 75, 76, 77, 78, 79, 174, 184, 185, 186 },
	{ 1280, 1282, 1283, 1284, 1286, 1287, 1288, 1290, 1291 },
	{ 4, 5, 6, 12, 13, 61, 62, 526, 1292, 1293, 1294 },
	{ 89, 90, 91, 92, 100, 101, 102, 103 },
	{ 0 },
	{ 55, 56, 67, 68 },
	{ 1280, 1282, 1283, 1284, 1286, 1287, 1288, 1290, 1291, 1292, 1293, 1294 },
	{ 61, 62, 67, 68, 75, 76, 77, 78, 79, 174, 186, 1280, 1282, 1284, 1286, 1288, 1290, 1292, 1293, 1294 },
};
static const uint16_t sel_a5_aic[PMU_SEL_COUNT][SEL_MAX] = {
	{ 1, 10, 36, 52, 53, 514, 515, 810, 1794, 1812, 1813 },
	{ 768, 789, 790, 808, 809, 810 },
	{ 1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067, 1068, 1069, 1070, 1071 },
	{ 512, 513, 514, 515, 1058, 1059, 1792, 1794, 1799, 1801, 1804, 1806, 1815 },
	{ 11, 13, 14, 15 },
	{ 772, 774, 776, 778, 1795, 1797 },
	{ 0 },
	{ 1058, 1059, 1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067, 1068, 1069, 1070, 1071 },
	{ 1058, 1059, 1795, 1797, 1799, 1801, 1804, 1806, 1815, 1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067,
	  1068, 1069, 1070, 1071 },
};
static const uint16_t sel_a5_aiv[PMU_SEL_COUNT][SEL_MAX] = {
	{ 1, 10, 52, 53, 514, 515, 1281 },
	{ 1281, 1282, 1283, 1284 },
	{ 1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067, 1068, 1069, 1070, 1071 },
	{ 512, 513, 514, 515, 516, 518, 1058, 1059, 1391, 1395, 1396, 1397, 1398, 1400, 1404, 1407, 1408 },
	{ 12, 13, 14, 15, 1344, 1366, 1376, 1377, 1378, 1379 },
	{ 0 },
	{ 1058, 1059, 1393, 1394, 1397, 1398, 1407, 1408 },
	{ 1058, 1059, 1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067, 1068, 1069, 1070, 1071, 1466, 1467, 1468 },
	{ 1058, 1059, 1397, 1398, 1407, 1408, 1060, 1061, 1062, 1063, 1064, 1065, 1066, 1067, 1068, 1069, 1070,
	  1071 },
};

size_t pmu_program_events(enum board_fmt fmt, enum board_core core, unsigned mask, uint16_t *out, size_t cap)
{
	size_t nfix, i, n = 0, len = 0, slots = board_pmu_slots(fmt);
	const uint16_t *fix = pmu_replay_events(fmt, fmt == BOARD_310P ? BOARD_CUBE : core, &nfix);
	const uint16_t (*sel)[SEL_MAX];
	uint16_t ev[PMU_EVENTS_MAX];
	size_t at[PMU_EVENTS_MAX];
	int zero = 0;
	if (fmt == BOARD_310P || (mask & ((1u << PMU_SEL_COUNT) - 1)) == (1u << PMU_SEL_COUNT) - 1) {
		n = nfix < cap ? nfix : cap;
		memcpy(out, fix, n * sizeof *out);
		return n - n % slots;
	}
	sel = fmt == BOARD_A5 ? (core == BOARD_CUBE ? sel_a5_aic : sel_a5_aiv)
	                      : (core == BOARD_CUBE ? sel_a2_aic : sel_a2_aiv);
	/* The groups' events, each once, with its place in the fixed list. */
	for (unsigned g = 0; g < PMU_SEL_COUNT; g++) {
		const uint16_t *tail = g == PMU_SEL_PIPE && fmt != BOARD_A5
		                       ? (core == BOARD_CUBE ? sel_a2_aic_pipe_tail : sel_a2_aiv_pipe_tail) : NULL;
		if (!(mask >> g & 1))
			continue;
		/* Ascend950 PipeUtilization counts event 0 as well. */
		zero |= fmt == BOARD_A5 && g == PMU_SEL_PIPE;
		for (i = 0; i < SEL_MAX + (tail ? 8 : 0); i++) {
			uint16_t e = i < SEL_MAX ? sel[g][i] : tail[i - SEL_MAX];
			size_t k, j;
			int dup = 0;
			if (!e) {
				if (i < SEL_MAX && !tail)
					break;
				continue;
			}
			for (k = 0; k < nfix && fix[k] != e; k++)
				;
			for (j = 0; j < n; j++)
				dup |= ev[j] == e;
			if (k == nfix || dup || n == PMU_EVENTS_MAX)
				continue;
			/* sorted by place in the fixed list */
			for (j = n; j > 0 && at[j - 1] > k; j--) {
				ev[j] = ev[j - 1];
				at[j] = at[j - 1];
			}
			ev[j] = e;
			at[j] = k;
			n++;
		}
	}
	/* Events of one fixed replay stay together: a run that does not fit
	 * in what is left of the current replay starts the next one. */
	memset(out, 0, cap * sizeof *out);
	for (i = 0; i < n;) {
		size_t end = i + 1, room;
		while (end < n && at[end] / slots == at[end - 1] / slots)
			end++;
		room = (len + slots - 1) / slots * slots - len;
		if (room < end - i)
			len = (len + slots - 1) / slots * slots;
		while (i < end && len < cap)
			out[len++] = ev[i++];
		i = end;
	}
	len = (len + slots - 1) / slots * slots;
	if (len > cap)
		len = cap - cap % slots;
	if (zero && len) {
		int have = 0;
		for (i = 0; i < len; i++)
			have |= out[i] == 0;
		if (!have && len + slots <= nfix && len + slots <= cap) {
			out[len] = out[len - 1];
			out[len - 1] = 0;
			for (i = len + 1; i < len + slots; i++)
				out[i] = 0;
			len += slots;
		}
	}
	return len;
}

static const uint16_t l2_310p[8] = { 106, 120, 121 };
static const uint16_t l2_a2[8] = { 0xFB, 0xFC, 0xF6, 0xFD, 0x9C, 0x9D, 0x4F, 0x07 };

const uint16_t *pmu_l2_events(enum board_fmt fmt)
{
	return fmt == BOARD_310P ? l2_310p : l2_a2;
}
