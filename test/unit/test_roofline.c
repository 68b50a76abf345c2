/* Unit tests of lib/roofline.c on the numbers of the reference's roofline
 * tests: a mix op on 910B4 (one cube block, two vector blocks), the same
 * counts as one 310P AI Core block, the GM/L2 and pipe peaks, and the
 * advice sequence.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "unit.h"

/* |got - want| within a relative 1e-6 (the reference's test tolerance is
 * looser; these are single-precision results printed to 6-9 digits). */
static int near(double got, double want)
{
	double tol = fabs(want) * 1e-6 + 1e-7;
	if (fabs(got - want) > tol) {
		printf("  got %.9g, want %.9g\n", got, want);
		return 0;
	}
	return 1;
}

static const unsigned cube_kv[][2] = { { 73, 98400 }, { 74, 500 }, { 49, 31558 }, { 50, 30932 }, { 518, 0 },
	                               { 33, 9999 } };
static const unsigned vec_kv[][2] = { { 75, 10240 }, { 76, 0 },     { 77, 0 },       { 174, 100 },
	                              { 78, 0 },     { 186, 100 },   { 79, 136 },     { 61, 40964 },
	                              { 62, 40960 }, { 67, 20480 },  { 68, 20480 },   { 1280, 1280 },
	                              { 1282, 1282 }, { 1284, 1284 } };

static void fill(struct pmu_counts *c, const unsigned (*kv)[2], size_t n)
{
	pmu_counts_init(c);
	for (size_t i = 0; i < n; i++)
		pmu_counts_set(c, kv[i][0], kv[i][1]);
}

static const struct roof_line *find(const struct roofline *r, const char *title, const char *bw_name)
{
	for (unsigned i = 0; i < r->ntitle; i++)
		if (!strcmp(r->title[i].title, title))
			for (unsigned j = 0; j < r->title[i].n; j++)
				if (!strcmp(r->title[i].line[j].bw_name, bw_name))
					return &r->title[i].line[j];
	printf("  no line %s / %s\n", title, bw_name);
	return NULL;
}

static void test_mix(void)
{
	static struct roofline r;
	struct pmu_counts cube, vec;
	const struct roof_line *l;
	fill(&cube, cube_kv, sizeof cube_kv / sizeof cube_kv[0]);
	fill(&vec, vec_kv, sizeof vec_kv / sizeof vec_kv[0]);
	roof_init(&r, BOARD_A2, "Ascend910B4", 0, 1650, 20, 120);
	roof_add(&r, BOARD_CUBE, &cube);
	roof_add(&r, BOARD_VECTOR, &vec);
	roof_add(&r, BOARD_VECTOR, &vec);
	CHECK(pmu_counts_get(&r.sum, 73) == 98400);
	CHECK(pmu_counts_get(&r.sum, 75) == 20480);
	CHECK(pmu_counts_get(&r.sum, 79) == 272);
	roof_build(&r, 1, 1);
	CHECK(r.cube.ops == 163823616);
	CHECK(!strcmp(r.cube.name, "Cube_INT(100%)"));
	CHECK(near(r.cube.peak, 540.671997));
	CHECK(r.vec.ops == 1351424);
	CHECK_MSG(!strcmp(r.vec.name, "Vec_FP16_32(0.945537%),Vec_FP32(96.822998%),Vec_MISC(1.285930%),"
	                              "Vec_S16(0.945537%)"),
	          "vector name %s", r.vec.name);
	CHECK(near(r.vec.peak, 4.21681));

	l = find(&r, "Memory Unit(Cube)", "L1 Read + Write");
	CHECK(l && near(l->bw, 15.366822) && near(l->x, 10.2406149) && near(l->y, 1.36519682));
	l = find(&r, "Memory Unit(Vector)", "UB Read + Write");
	CHECK(l && near(l->bw, 30.733645) && near(l->x, 0.03221967) && near(l->y, 0.01126187));
	l = find(&r, "GM/L2", "L2 Read + Write");
	CHECK(l && near(l->bw, 4.0) && near(l->x, 55.949966) && near(l->y, 1.37645864));
	CHECK(!strcmp(r.title[r.ntitle - 1].title, "GM/L2"));
	CHECK(near(r.title[r.ntitle - 1].prop.peak, 544.888794));
	CHECK(!strcmp(r.title[r.ntitle - 1].prop.name, "Cube_INT(100%) + " "Vec_FP16_32(0.945537%),Vec_FP32(96.822998%),"
	                                                "Vec_MISC(1.285930%),Vec_S16(0.945537%)"));
	/* the titles in the reference's order; lines with no bytes left out,
	 * and titles without lines (no L1 -> GM, L0C or L0A/L0B traffic:
	 * Memory Transfer(Cube)) */
	CHECK(r.ntitle == 6);
	CHECK(!strcmp(r.title[0].title, "Memory Unit(Cube)") && !strcmp(r.title[1].title, "Pipeline(Cube)"));
	CHECK(!strcmp(r.title[2].title, "Memory Unit(Vector)") && !strcmp(r.title[4].title, "Memory Transfer(Vector)"));
	CHECK(r.title[0].n == 3 && r.title[1].n == 2);
	/* names sorted within a title: "L1 Read + Write" < "Read from L1" < "Write to L1" */
	CHECK(!strcmp(r.title[0].line[0].bw_name, "L1 Read + Write"));
	CHECK(!strcmp(r.title[0].line[1].bw_name, "Read from L1"));
	CHECK(!strcmp(r.title[0].line[2].bw_name, "Write to L1"));
	/* GM traffic: the 1282 write misses, 512 bytes each */
	l = find(&r, "GM/L2", "GM Read + Write");
	CHECK(l && l->bytes == 2564 * 512 && near(l->bw, 0.8));
	/* every point far under its roof: latency bound, no pipe known */
	CHECK(!strcmp(r.title[1].line[1].ratio, "0.015207"));
	CHECK(!strcmp(roof_advice(&r), "latency bound:pipeline caused"));
}

static void test_310p(void)
{
	static struct roofline r;
	struct pmu_counts c;
	const struct roof_line *l;
	fill(&c, cube_kv, sizeof cube_kv / sizeof cube_kv[0]);
	for (size_t i = 0; i < sizeof vec_kv / sizeof vec_kv[0]; i++)
		pmu_counts_set(&c, vec_kv[i][0], vec_kv[i][1]);
	pmu_counts_set(&c, 28, 1280);
	pmu_counts_set(&c, 34, 1282);
	pmu_counts_set(&c, 44, 1284);
	roof_init(&r, BOARD_310P, "Ascend310P3", 0, 1650, 20, 120);
	roof_add(&r, BOARD_CUBE, &c);
	roof_build(&r, 1, 1);
	CHECK(r.ntitle == 1 && !strcmp(r.title[0].title, "Memory Unit"));
	l = find(&r, "Memory Unit", "L1 Read + Write");
	CHECK(l && near(l->bw, 23.0502338) && near(l->x, 6.83193159) && near(l->y, 1.37072957));
	CHECK(near(r.title[0].prop.peak, 542.743652));
	l = find(&r, "Memory Unit", "UB Read + Write");
	CHECK(l && near(l->bw, 7.6834111) && near(l->x, 83.6599731));
	l = find(&r, "Memory Unit", "Vector Read UB");
	CHECK(l && near(l->bw, 15.366822) && near(l->x, 501.976166));
	/* the advice is this run's alone (the reference's test sees an
	 * earlier test's "memory bound": its best ratio outlives a run) */
	CHECK(!strcmp(roof_advice(&r), "latency bound:pipeline caused"));
}

static void test_peaks(void)
{
	float p[ROOF_PIPES];
	CHECK(near(roof_gm_peak("Ascend910B1", 0), 1.8) && near(roof_l2_peak("Ascend910B1", 0), 8));
	CHECK(near(roof_gm_peak("Ascend910B1", 1), 1.34) && near(roof_l2_peak("Ascend910B1", 1), 7.4));
	CHECK(near(roof_gm_peak("Ascend910_9391", 0), 1.8));
	CHECK(near(roof_gm_peak("Ascend910B4", 0), 0.8) && near(roof_l2_peak("Ascend910B4-1", 1), 6.3));
	/* "L1 to GM" over one cube core */
	CHECK(near(pmu_peak_bw("Ascend910B1", 1, PATH_L1_TO_GM) * 1 / 1024.0f, 187.72 / 1024));
	CHECK(near(pmu_peak_bw("Ascend910B1", 0, PATH_L1_TO_GM) * 1 / 1024.0f, 199.43 / 1024));

	roof_pipe_peaks("Ascend910B1", 0, 0, 0, 0, 0, p);
	CHECK(near(p[ROOF_MTE1], 324.0) && near(p[ROOF_MTE2], 340.1) && near(p[ROOF_MTE3], 199.43));
	CHECK(near(p[ROOF_MTE2_VEC], 220.06) && near(p[ROOF_MTE3_VEC], 186.8));
	roof_pipe_peaks("Ascend910B2", 0, 0, 0, 0, 0, p);
	CHECK(near(p[ROOF_MTE1], 315.245) && near(p[ROOF_MTE2], 330.91) && near(p[ROOF_MTE3], 193.99));
	CHECK(near(p[ROOF_MTE2_VEC], 214.11) && near(p[ROOF_MTE3_VEC], 181.75));
	roof_pipe_peaks("Ascend910B3", 0, 0, 0, 0, 0, p);
	CHECK(near(p[ROOF_MTE1], 315.245));
	roof_pipe_peaks("Ascend910B4", 0, 0, 0, 0, 0, p);
	CHECK(near(p[ROOF_MTE1], 271.005) && near(p[ROOF_MTE2], 222.17) && near(p[ROOF_MTE3], 189.89));
	CHECK(near(p[ROOF_MTE2_VEC], 195.27) && near(p[ROOF_MTE3_VEC], 176.75));
	/* weighted by the bytes */
	roof_pipe_peaks("Ascend910B1", 0, 100, 300, 100, 700, p);
	CHECK(near(p[ROOF_MTE1], 0.25 * 437.5 + 0.75 * 210.5));
	CHECK(near(p[ROOF_FIXP], 0.125 * 209.32 + 0.875 * 216.88));
	CHECK(near(roof_unit_peak(512, 1650, 20), 15.366822));
}

static void test_advice(void)
{
	static struct roofline r;
	char buf[PMU_VALUE_MAX];
	roof_init(&r, BOARD_A2, "Ascend910B1", 0, 1850, 24, 1);
	roof_analysis(&r, 1, 2, 1.9f, 1.5f, buf);
	CHECK(!strcmp(buf, "0.789474"));
	roof_pipe_ratio(&r, "MTE1", 77);
	roof_pipe_ratio(&r, "MTE2", 78);
	CHECK(!strcmp(roof_advice(&r), "latency bound:pipeline caused"));
	roof_pipe_ratio(&r, "MTE3", 82);
	CHECK(!strcmp(roof_advice(&r), "latency bound:memory caused"));
	roof_pipe_ratio(&r, "Cube", 87);
	CHECK(!strcmp(roof_advice(&r), "latency bound:compute caused"));
	roof_analysis(&r, 1, 2, 3, 1.65f, buf);
	CHECK(!strcmp(roof_advice(&r), "compute bound"));
	roof_analysis(&r, 1, 2, 1.9f, 1.7f, buf);
	CHECK(!strcmp(roof_advice(&r), "memory bound"));
	/* above the peak, at it, no bandwidth, under the slope: NA */
	roof_analysis(&r, 1, 2, 3, 2.5f, buf);
	CHECK(!strcmp(buf, "NA"));
	roof_analysis(&r, 1, 2, 3, 2.00001f, buf);
	CHECK(!strcmp(buf, "NA"));
	roof_analysis(&r, 0, 2, 3, 1, buf);
	CHECK(!strcmp(buf, "NA"));
	roof_analysis(&r, 1, 2, 1, 1.5f, buf);
	CHECK(!strcmp(buf, "NA"));
}

static void test_cube_only(void)
{
	static struct roofline r;
	struct pmu_counts c;
	pmu_counts_init(&c);
	pmu_counts_set(&c, 33, 100);
	pmu_counts_set(&c, 50, 10);
	pmu_counts_set(&c, 1292, 7);
	roof_init(&r, BOARD_A2, "Ascend910B1", 0, 1850, 24, 10);
	roof_add(&r, BOARD_CUBE, &c);
	roof_build(&r, 1, 0);
	CHECK(!strcmp(r.cube.name, "Cube_FP(100%)") && r.cube.ops == 819200);
	/* no vector titles; GM/L2 without traffic is left out */
	for (unsigned i = 0; i < r.ntitle; i++)
		CHECK(strstr(r.title[i].title, "Vector") == NULL && strcmp(r.title[i].title, "GM/L2"));
	CHECK(find(&r, "Pipeline(Cube)", "MTE3") != NULL);
}

int main(void)
{
	test_mix();
	test_310p();
	test_peaks();
	test_advice();
	test_cube_only();
	return unit_done();
}
