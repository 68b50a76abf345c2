/* Unit tests of lib/pmu.c: the on-board metric formulas on the numbers of
 * the reference's own unit tests (910B, 310P, A5 and the equation
 * forms of ratio, bandwidth and usage), the per-chip constants, the CSV columns and rows.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "pmu.h"
#include "io.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

/* metric name of x is want */
static int metric_is(const struct pmu_ctx *x, const char *name, const char *want)
{
	char buf[PMU_VALUE_MAX];
	size_t n = pmu_metric(x, name, buf);
	if (n != strlen(buf) || strcmp(buf, want)) {
		printf("  %s = \"%s\", want \"%s\"\n", name, buf, want);
		return 0;
	}
	return 1;
}

static void set_all(struct pmu_counts *c, const unsigned (*kv)[2], size_t n)
{
	pmu_counts_init(c);
	for (size_t i = 0; i < n; i++)
		pmu_counts_set(c, kv[i][0], kv[i][1]);
}

/* The event map of the reference's formula test. */
static const unsigned calc_map[][2] = {
	{ 11, 100 }, { 4, 123 }, { 73, 456 }, { 1, 1000 }, { 8, 500 }, { 76, 100 }, { 77, 200 }, { 174, 300 },
	{ 49, 400 }, { 50, 750 }, { 74, 44 }, { 19, 600 }, { 518, 700 }, { 524, 800 }, { 106, 102 }, { 120, 100 },
	{ 121, 1 }, { 10, 500 },
};

static void test_310p(void)
{
	struct pmu_counts c;
	struct pmu_ctx x;
	set_all(&c, calc_map, sizeof calc_map / sizeof calc_map[0]);
	/* 24 blocks on 8 cores: time factor 3/24 */
	pmu_ctx_init(&x, BOARD_310P, "Ascend310P3", &c, 10000, 1150, 8, 24, 0);
	CHECK(x.tf == 0.125f);
	CHECK(metric_is(&x, "aic_total_cycles", "10000"));
	CHECK(metric_is(&x, "aic_mte1_ratio", "0.010000"));
	CHECK(metric_is(&x, "aic_mte1_instructions", "123"));
	CHECK(metric_is(&x, "aic_vec_fp16_ratio", "0.030000"));
	CHECK(metric_is(&x, "aic_l1_read_bw(GB/s)", "175.476074"));
	CHECK(metric_is(&x, "aic_cube_time(us)", "0.054348"));
	/* no such formula on 310P */
	CHECK(metric_is(&x, "aic_write_cache_hit", "NA"));
	/* 106 counts more than 120 + 121 */
	CHECK(metric_is(&x, "aic_l2_cache_hit_rate(%)", "NA"));
	CHECK(metric_is(&x, "no_such_metric", "NA"));
	/* an event the formula needs is missing */
	CHECK(metric_is(&x, "aic_l0a_read_bw(GB/s)", "NA"));
	pmu_counts_set(&c, 106, 50);
	CHECK(metric_is(&x, "aic_l2_cache_hit_rate(%)", "49.504951"));
}

static void test_910b(void)
{
	struct pmu_counts c;
	struct pmu_ctx x;
	set_all(&c, calc_map, sizeof calc_map / sizeof calc_map[0]);
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B4", &c, 10000, 1650, 20, 1, 0);
	CHECK(metric_is(&x, "L1_to_GM_bw_usage_rate(%)(estimate)", "23.824282"));
	CHECK(metric_is(&x, "GM_to_L1_datas(KB)", "12.500000"));
	CHECK(metric_is(&x, "L1_to_GM_datas(KB)(estimate)", "287.500000"));
	CHECK(metric_is(&x, "L0C_to_L1_datas(KB)", "87.500000"));
	CHECK(metric_is(&x, "L0C_to_GM_datas(KB)", "12.500000"));
	CHECK(metric_is(&x, "GM_to_L1_bw_usage_rate(%)", "0.886015"));
	CHECK(metric_is(&x, "L0C_to_L1_bw_usage_rate(%)", "7.220070"));
	CHECK(metric_is(&x, "L0C_to_GM_bw_usage_rate(%)", "1.031439"));
	/* a difference below zero saturates: NA */
	pmu_counts_set(&c, 524, 100000);
	CHECK(metric_is(&x, "L1_to_GM_datas(KB)(estimate)", "NA"));
	CHECK(metric_is(&x, "L1_to_GM_bw_usage_rate(%)(estimate)", "NA"));
}

static void test_active_bw(void)
{
	struct pmu_counts c;
	struct pmu_ctx x;
	pmu_counts_init(&c);
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B4", &c, 111111, 1650, 20, 1, 0);
	/* (4 * P19 + P518 - P524) * 128 bytes over P13 cycles */
	pmu_counts_set(&c, 19, 999);
	pmu_counts_set(&c, 518, 111);
	pmu_counts_set(&c, 524, 222);
	pmu_counts_set(&c, 13, 999);
	CHECK(metric_is(&x, "aic_mte3_active_bw(GB/s)", "764.926270"));
	pmu_counts_set(&c, 524, 999999);
	pmu_counts_set(&c, 13, 12);
	CHECK(metric_is(&x, "aic_mte3_active_bw(GB/s)", "NA"));
	/* P62 * 128 bytes over P12 cycles */
	pmu_counts_set(&c, 62, 111);
	pmu_counts_set(&c, 12, 222);
	CHECK(metric_is(&x, "aiv_mte2_active_bw(GB/s)", "98.347656"));
	pmu_counts_set(&c, 62, 999);
	pmu_counts_set(&c, 12, 0);
	CHECK(metric_is(&x, "aiv_mte2_active_bw(GB/s)", "NA"));
	/* the pipe bandwidths of the storage-access test that are these
	 * metrics: UB reads/writes of 100 requests in 10 cycles, one L0C read
	 * in one fixpipe cycle */
	pmu_counts_set(&c, 62, 100);
	pmu_counts_set(&c, 12, 10);
	pmu_counts_set(&c, 61, 100);
	pmu_counts_set(&c, 13, 10);
	pmu_counts_set(&c, 524, 1);
	pmu_counts_set(&c, 771, 1);
	CHECK(metric_is(&x, "aiv_mte2_active_bw(GB/s)", "1966.953247"));
	CHECK(metric_is(&x, "aiv_mte3_active_bw(GB/s)", "1966.953247"));
	CHECK(metric_is(&x, "aic_fixpipe_active_bw(GB/s)", "196.695328"));
	/* MTE1 of the mix test: L0A/L0B writes 10 each in 20 cycles, no
	 * GM -> L0A/L0B bytes from the DBI records */
	pmu_counts_set(&c, 28, 10);
	pmu_counts_set(&c, 34, 10);
	pmu_counts_set(&c, 770, 20);
	CHECK(metric_is(&x, "aic_mte1_active_bw(GB/s)", "295.042999"));
	/* the DBI bytes come off the PMU bytes, never below zero */
	x.dbi_gm_to_l0a = 100000;
	x.dbi_gm_to_l0b = 0;
	CHECK(metric_is(&x, "aic_mte1_active_bw(GB/s)", "98.347664"));
	/* MTE2: DBI bytes over P12 cycles */
	x.dbi_gm_to_l0a = 0;
	x.dbi_gm_to_l1 = 1024 * 1024;
	pmu_counts_set(&c, 12, 1650);
	CHECK(metric_is(&x, "aic_mte2_active_bw(GB/s)", "976.562500"));
	/* no clock: NA */
	x.freq = 0;
	CHECK(metric_is(&x, "aic_mte2_active_bw(GB/s)", "NA"));
	CHECK(metric_is(&x, "aic_mte1_time(us)", "0"));
}

static void test_scalar_time(void)
{
	struct pmu_counts c;
	struct pmu_ctx x;
	pmu_counts_init(&c);
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B4", &c, 1000, 1650, 20, 1, 0);
	pmu_counts_set(&c, 9, 100);
	CHECK(metric_is(&x, "aic_scalar_time(us)", "0.060606"));
	pmu_counts_set(&c, 9, 200);
	CHECK(metric_is(&x, "aiv_scalar_time(us)", "0.121212"));
	pmu_counts_set(&c, 1792, 300);
	CHECK(metric_is(&x, "aic_scalar_wait_id0_time(us)", "0.181818"));
}

static void test_mix_duration(void)
{
	struct pmu_counts c;
	struct pmu_ctx x;
	pmu_counts_init(&c);
	pmu_counts_set(&c, 10, 825);
	/* a mix op takes ratios over Task Duration x clock, not the cycles */
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B1", &c, 5000, 1650, 24, 1, 1.5f);
	CHECK(metric_is(&x, "aic_cube_ratio", "0.500000"));
	CHECK(metric_is(&x, "aic_time(us)", "3.030303"));
	pmu_counts_set(&c, 50, 1024);
	pmu_counts_set(&c, 518, 0);
	/* 1024 * 256 bytes in 1.5 us */
	CHECK(metric_is(&x, "aic_l1_write_bw(GB/s)", "162.760422"));
	/* a duration no run has (negative, huge) is no crash */
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B1", &c, 5000, 1650, 24, 1, -1.0f);
	CHECK(metric_is(&x, "aic_cube_ratio", "0.000000"));
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B1", &c, 5000, 1650, 24, 1, 1e30f);
	CHECK(metric_is(&x, "aic_cube_ratio", "0.000000"));
}

static void test_l2_a2(void)
{
	struct pmu_counts c;
	struct pmu_ctx x;
	static const unsigned kv[][2] = { { 1280, 4 }, { 1282, 1 }, { 1283, 0 }, { 1284, 4 }, { 1286, 1 },
		                          { 1287, 0 }, { 1288, 4 }, { 1290, 1 }, { 1291, 0 } };
	set_all(&c, kv, sizeof kv / sizeof kv[0]);
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B1", &c, 100, 1850, 24, 1, 0);
	CHECK(metric_is(&x, "aic_total_hit_rate(%)", "80.000000"));
	CHECK(metric_is(&x, "aiv_write_hit_rate(%)", "80.000000"));
	CHECK(metric_is(&x, "aic_read_hit_rate(%)", "80.000000"));
	CHECK(metric_is(&x, "aiv_r1_read_cache_miss_allocate", "1"));
	/* 100 x hits is not checked for overflow: 100 x 2^62 wraps to 0 */
	pmu_counts_set(&c, 1280, 1ull << 62);
	pmu_counts_set(&c, 1282, 0);
	CHECK(metric_is(&x, "aic_write_hit_rate(%)", "0.000000"));
}

static void test_fops(void)
{
	struct pmu_counts c;
	struct pmu_ctx x;
	static const unsigned kv[][2] = { { 75, 100 }, { 76, 40 }, { 77, 1 }, { 174, 1 }, { 78, 1 }, { 186, 1 },
		                          { 79, 1 }, { 1032, 2 }, { 1033, 1 } };
	set_all(&c, kv, sizeof kv / sizeof kv[0]);
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B1", &c, 100, 1850, 24, 1, 0);
	/* 910B: fp32 less the fp16 lane-128 count: 60*64 + 40*128 + 64+32+64+128+32 */
	CHECK(metric_is(&x, "aiv_vec_fops", "9280"));
	CHECK(metric_is(&x, "aic_cube_fops", "32768"));
	pmu_ctx_init(&x, BOARD_310P, "Ascend310P3", &c, 100, 1060, 10, 1, 0);
	pmu_counts_set(&c, 73, 1);
	pmu_counts_set(&c, 74, 1);
	CHECK(metric_is(&x, "aic_vec_fops", "11680"));
	CHECK(metric_is(&x, "aic_cube_fops", "24576"));
}

static void test_a5(void)
{
	struct pmu_counts c;
	struct pmu_ctx x;
	size_t n;
	const uint16_t *ev = pmu_replay_events(BOARD_A5, BOARD_CUBE, &n);
	pmu_counts_init(&c);
	/* every replay event counts 1, but the first is gone */
	for (size_t i = 1; i < n; i++)
		if (ev[i])
			pmu_counts_set(&c, ev[i], 1);
	pmu_ctx_init(&x, BOARD_A5, "Ascend950PR_9589", &c, 1000, 1000, 32, 1, 1);
	CHECK(metric_is(&x, "aic_total_cycles", "1000"));
	CHECK(metric_is(&x, "aic_cube_total_instr_number", "1"));
	CHECK(metric_is(&x, "aic_time(us)", "1.000000"));
	CHECK(metric_is(&x, "aic_cube_ratio", "0.001000"));
	/* the erased event reads 0 on A5 */
	CHECK(metric_is(&x, "aic_read_close_hit", "0"));
	/* 1 of 1060..1065 hits (1063), 5 present */
	CHECK(metric_is(&x, "aic_read_hit_rate(%)", "20.000000"));
	/* 128 bytes in 1 us: 1.19e-7 GiB times 10^6 */
	CHECK(metric_is(&x, "aic_main_mem_read_bw(GB/s)", "0.119209"));
	CHECK(metric_is(&x, "aic_icache_miss_rate", "1.000000"));
	CHECK(metric_is(&x, "aiv_ub_to_gm_bw(GB/s)", "NA"));
	/* 0.1192 GB/s of the 958x part's 162.77 */
	CHECK(metric_is(&x, "GM_to_L1_bw_usage_rate(%)", "0.073238"));
	x.soc = "Ascend910B1";
	CHECK(metric_is(&x, "GM_to_L1_bw_usage_rate(%)", "NA"));
	x.soc = "Ascend950PR_9589";
	x.have_dbi_ub_to_gm = 1;
	x.dbi_ub_to_gm = 1024;
	CHECK(metric_is(&x, "UB_to_GM_datas(KB)", "1.000000"));
	CHECK(metric_is(&x, "no_such_metric", "NA"));
	/* a count of 2^64 - 1 is a count on A5, not a missing event */
	pmu_counts_set(&c, 52, UINT64_MAX);
	pmu_counts_set(&c, 53, 5);
	CHECK(metric_is(&x, "aic_icache_miss_rate", "0.000000"));
	/* no clock: cycles over 0 */
	x.freq = 0;
	CHECK(metric_is(&x, "aic_time(us)", "NA"));
}

static void test_forms(void)
{
	char buf[PMU_VALUE_MAX];
	pmu_ratio(100, 20, buf);
	CHECK(!strcmp(buf, "5.000000"));
	pmu_ratio(100, 0, buf);
	CHECK(!strcmp(buf, "NA"));
	pmu_bandwidth(10, 10, 100, buf);
	CHECK(!strcmp(buf, "100000000.000000"));
	pmu_bandwidth(10, 0, 100, buf);
	CHECK(!strcmp(buf, "NA"));
	pmu_bw_usage(0.0001f, 1, PATH_GM_TO_L1, "Ascend950PR_9599", 0, buf);
	CHECK_MSG(!strcmp(buf, "56.315811"), "usage %s", buf);
	pmu_bw_usage(0.0001f, 0, PATH_GM_TO_L1, "Ascend950PR_9599", 0, buf);
	CHECK(!strcmp(buf, "NA"));
	pmu_bw_usage(0.0001f, 1, PATH_COUNT, "Ascend950PR_9599", 0, buf);
	CHECK(!strcmp(buf, "NA"));
	/* the 910B1 peaks, with and without the CJ memory */
	CHECK(pmu_peak_bw("Ascend910B1", 1, PATH_GM_TO_L1) == 296.0f);
	CHECK(pmu_peak_bw("Ascend910B1", 1, PATH_MTE_TO_L0A) == 439.32f);
	CHECK(pmu_peak_bw("Ascend910B1", 0, PATH_GM_TO_L1) == 264.0f);
	CHECK(pmu_peak_bw("Ascend910B1", 0, PATH_MTE_TO_L0A) == 437.5f);
	/* unknown SoCs and A3 take 910B1's */
	CHECK(pmu_peak_bw("Ascend910_9391", 0, PATH_L1_TO_GM) == 199.43f);
	CHECK(pmu_peak_bw("nonsense", 0, PATH_L1_TO_GM) == 199.43f);
	CHECK(pmu_peak_bw("Ascend910B4", 0, PATH_L1_TO_GM) == 189.89f);
	CHECK(pmu_peak_bw("Ascend950DT_9581", 0, PATH_GM_TO_L1) == 162.77f);
	/* request sizes and defaults */
	CHECK(pmu_req_bytes(BOARD_A2, REQ_GM_TO_L1) == 256);
	CHECK(pmu_req_bytes(BOARD_A5, REQ_GM_TO_L1) == 128);
	CHECK(pmu_req_bytes(BOARD_310P, REQ_L1_TO_MTE) == 512);
	CHECK(pmu_req_bytes(BOARD_A5, REQ_COUNT) == 0);
	CHECK(pmu_defaults(BOARD_A2)->ts_khz == 50000 && pmu_defaults(BOARD_A2)->aicore_mhz == 1850);
	CHECK(pmu_defaults(BOARD_310P)->ts_khz == 38400 && pmu_defaults(BOARD_310P)->cores == 10);
	CHECK(pmu_defaults(BOARD_A5)->ts_khz == 1000000 && pmu_defaults(BOARD_A5)->cores == 32);
	pmu_fmt_float(0.1001f, buf);
	CHECK(!strcmp(buf, "0.100100"));
}

static void test_lists(void)
{
	size_t n;
	const uint16_t *ev;
	/* the default collection's events, as the reference programs them */
	ev = pmu_replay_events(BOARD_A2, BOARD_CUBE, &n);
	CHECK(n == 80 && ev[2] == 1280);
	ev = pmu_replay_events(BOARD_A2, BOARD_VECTOR, &n);
	CHECK(n == 80 && ev[11] == 1288);
	ev = pmu_replay_events(BOARD_310P, BOARD_CUBE, &n);
	CHECK(n == 56 && ev[55] == 91);
	ev = pmu_replay_events(BOARD_A5, BOARD_VECTOR, &n);
	CHECK(n == 60 && ev[59] == 1468);
	CHECK(pmu_l2_events(BOARD_A2)[4] == 0x9C);
	CHECK(pmu_l2_events(BOARD_310P)[0] == 106);
	CHECK(pmu_group_find("L2Cache") == GRP_L2CACHE);
	CHECK(pmu_group_find("resourceconflictratio") == GRP_CONFLICT);
	CHECK(pmu_group_find("Roofline") == -1);
	CHECK(!strcmp(pmu_group_name(GRP_PIPE), "PipeUtilization"));
}

/* The text a writer function leaves in a temporary file. */
static char *capture(void (*fn)(struct wr *, void *), void *arg)
{
	int fd = io_tmpfd();
	struct wr *w = wr_fdopen(dup(fd), "tmp", 0);
	static char text[4096];
	ssize_t n;
	fn(w, arg);
	wr_close(w);
	n = pread(fd, text, sizeof text - 1, 0);
	close(fd);
	text[n < 0 ? 0 : n] = 0;
	return text;
}

static void write_header(struct wr *w, void *arg)
{
	const char *const *cols = pmu_columns(*(enum board_fmt *)arg, GRP_CONFLICT);
	size_t n = 0;
	while (cols[n])
		n++;
	pmu_csv_line(w, cols, n);
}

static void write_rows(struct wr *w, void *arg)
{
	struct pmu_ctx *x = arg;
	const char *const *cols = pmu_columns(x->fmt, GRP_CONFLICT);
	pmu_csv_row(w, x, cols, BOARD_CUBE, "0", "cube0");
	pmu_csv_row(w, x, cols, BOARD_VECTOR, "0", "vector1");
}

static void test_csv(void)
{
	enum board_fmt fmt = BOARD_A2;
	struct pmu_counts c;
	struct pmu_ctx x;
	const char *text;
	CHECK(!strcmp(capture(write_header, &fmt),
	              "block_id,sub_block_id,aic_time(us),aic_total_cycles,aic_cube_wait_ratio,aic_mte1_wait_ratio,"
	              "aic_mte2_wait_ratio,aic_mte3_wait_ratio,aiv_time(us),aiv_total_cycles,aiv_vec_total_cflt_ratio,"
	              "aiv_vec_bankgroup_cflt_ratio,aiv_vec_bank_cflt_ratio,aiv_vec_resc_cflt_ratio,"
	              "aiv_vec_mte_cflt_ratio,aiv_vec_wait_ratio,aiv_mte2_wait_ratio,aiv_mte3_wait_ratio,\n"));
	fmt = BOARD_310P;
	text = capture(write_header, &fmt);
	CHECK(!strncmp(text, "aic_time(us),aic_total_cycles,aic_cube_wait_ratio,", 50));
	pmu_counts_init(&c);
	pmu_counts_set(&c, 88, 50);
	pmu_counts_set(&c, 100, 10);
	pmu_counts_set(&c, 101, 10);
	pmu_counts_set(&c, 102, 0);
	pmu_counts_set(&c, 103, 5);
	pmu_ctx_init(&x, BOARD_A2, "Ascend910B1", &c, 100, 1000, 24, 1, 0);
	text = capture(write_rows, &x);
	CHECK_MSG(!strcmp(text, "0,cube0,0.100000,100,0.500000,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,NA,\n"
	                        "0,vector1,NA,NA,NA,NA,NA,NA,0.100000,100,0.250000,0.100000,0.100000,0.000000,0.050000,NA,NA,NA,\n"),
	          "rows:\n%s", text);
	CHECK(pmu_column_of(BOARD_A2, "GM_to_UB_datas(KB)", BOARD_VECTOR));
	CHECK(!pmu_column_of(BOARD_A2, "GM_to_UB_datas(KB)", BOARD_CUBE));
	CHECK(pmu_column_of(BOARD_A2, "L0C_to_GM_datas(KB)", BOARD_CUBE));
	CHECK(pmu_column_of(BOARD_A2, "read_main_memory_datas(KB)", BOARD_CUBE));
	CHECK(pmu_column_of(BOARD_A2, "read_main_memory_datas(KB)", BOARD_VECTOR));
	CHECK(!strcmp(pmu_basic_columns(BOARD_310P)[4], "Device Id"));
	CHECK(!strcmp(pmu_basic_columns(BOARD_A5)[4], "Mix Block Dim"));
	CHECK(!strcmp(pmu_pipe_dbi_columns()[1], "aic_mte2_active_bw(GB/s)"));
}

static void test_counts(void)
{
	struct pmu_counts c;
	pmu_counts_init(&c);
	CHECK(pmu_counts_get(&c, 5) == PMU_EMPTY);
	for (unsigned i = 0; i < PMU_EVENTS_MAX; i++)
		CHECK(pmu_counts_set(&c, i + 1, i) == 0);
	CHECK(pmu_counts_set(&c, 9999, 1) == -1);
	CHECK(pmu_counts_set(&c, 3, 77) == 0 && pmu_counts_get(&c, 3) == 77);
	/* a merge keeps the first count */
	CHECK(pmu_counts_merge(&c, 3, 5) == 0 && pmu_counts_get(&c, 3) == 77);
	CHECK(pmu_counts_merge(&c, 9999, 1) == -1);
	pmu_counts_init(&c);
	CHECK(pmu_counts_merge(&c, 4, 5) == 0 && pmu_counts_get(&c, 4) == 5);
	CHECK(!strcmp(pmu_scalar_wait_name(1792), "scalar_wait_id0_time(us)"));
	CHECK(!strcmp(pmu_scalar_wait_name(1787), "scalar_wait_id15_time(us)"));
	CHECK(pmu_scalar_wait_name(1788) == NULL && pmu_scalar_wait_name(1800) == NULL);
}

/* The events of a capture of some groups (application replay): the
 * reference's packing, worked out by hand from the fixed lists. */
static void test_program(void)
{
	uint16_t ev[PMU_EVENTS_MAX];
	static const uint16_t mem_aic[] = { 1292, 1293, 1294, 19, 49, 50, 518, 524, 4, 5, 6, 526, 13, 12, 770, 0 };
	static const uint16_t mem_aiv[] = { 1292, 1293, 1294, 61, 62, 5, 6, 0, 4, 526, 13, 12, 0, 0, 0, 0 };
	static const uint16_t pipe_a5[] = { 1813, 52, 53, 10, 36, 0, 0, 0, 0, 0, 1, 514, 515, 810, 1794, 1812, 0, 0, 0, 0 };
	const uint16_t *fix;
	size_t n, nf;
	n = pmu_program_events(BOARD_A2, BOARD_CUBE, 1u << PMU_SEL_MEMORY, ev, PMU_EVENTS_MAX);
	CHECK(n == 16 && !memcmp(ev, mem_aic, sizeof mem_aic));
	n = pmu_program_events(BOARD_A2, BOARD_VECTOR, 1u << PMU_SEL_MEMORY, ev, PMU_EVENTS_MAX);
	CHECK(n == 16 && !memcmp(ev, mem_aiv, sizeof mem_aiv));
	/* a run that does not fit what is left starts a replay: 7 of them */
	n = pmu_program_events(BOARD_A2, BOARD_CUBE,
	                       1u << PMU_SEL_MEMORY | 1u << PMU_SEL_L0 | 1u << PMU_SEL_PIPE, ev, PMU_EVENTS_MAX);
	CHECK(n == 56 && ev[48] == 13 && ev[49] == 87 && ev[50] == 114 && ev[51] == 9 && ev[55] == 771);
	/* MemoryL0 has no vector events */
	CHECK(pmu_program_events(BOARD_A2, BOARD_VECTOR, 1u << PMU_SEL_L0, ev, PMU_EVENTS_MAX) == 0);
	n = pmu_program_events(BOARD_A5, BOARD_CUBE, 1u << PMU_SEL_PIPE, ev, PMU_EVENTS_MAX);
	CHECK(n == 20 && !memcmp(ev, pipe_a5, sizeof pipe_a5));
	/* every group, and 310P whatever the groups: the fixed list */
	fix = pmu_replay_events(BOARD_A2, BOARD_VECTOR, &nf);
	n = pmu_program_events(BOARD_A2, BOARD_VECTOR, (1u << PMU_SEL_COUNT) - 1, ev, PMU_EVENTS_MAX);
	CHECK(n == nf && !memcmp(ev, fix, nf * sizeof *fix));
	fix = pmu_replay_events(BOARD_310P, BOARD_CUBE, &nf);
	n = pmu_program_events(BOARD_310P, BOARD_CUBE, 1u << PMU_SEL_MEMORY, ev, PMU_EVENTS_MAX);
	CHECK(n == nf && nf == 56 && !memcmp(ev, fix, nf * sizeof *fix));
}

int main(void)
{
	test_program();
	test_310p();
	test_910b();
	test_active_bw();
	test_scalar_time();
	test_mix_duration();
	test_l2_a2();
	test_fops();
	test_a5();
	test_forms();
	test_lists();
	test_csv();
	test_counts();
	return unit_done();
}
