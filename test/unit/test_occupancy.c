/* Unit tests of lib/occupancy.c and the low-frequency rule of lib/board.c:
 * the numbers of the reference's own occupancy tests (a mix block's
 * throughput, cycles and hit rates; two vector blocks of one physical
 * core merged; the advice texts of the z-score rule), the JSON of a
 * block, and the Current Freq / Rated Freq advice.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "occupancy.h"
#include "board.h"
#include "io.h"
#include "json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

static void set_all(struct pmu_counts *c, const unsigned (*kv)[2], size_t n)
{
	pmu_counts_init(c);
	for (size_t i = 0; i < n; i++)
		pmu_counts_set(c, kv[i][0], kv[i][1]);
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const unsigned cube_ev[][2] = {
	{ 1280, 4 }, { 1282, 1 }, { 1284, 4 }, { 1286, 1 }, { 1288, 4 }, { 1290, 1 },
	{ 1292, 100 }, { 1293, 100 }, { 1294, 100 }, { 1283, 0 }, { 1287, 0 }, { 1291, 0 },
};
static const unsigned vec0_ev[][2] = {
	{ 1280, 4 }, { 1282, 1 }, { 1284, 4 }, { 1286, 1 }, { 1288, 4 }, { 1290, 1 },
	{ 1292, 300 }, { 1293, 300 }, { 1294, 300 }, { 1283, 0 }, { 1287, 0 }, { 1291, 0 },
};
static const unsigned vec1_ev[][2] = {
	{ 1280, 3 }, { 1282, 3 }, { 1284, 3 }, { 1286, 3 }, { 1288, 3 }, { 1290, 3 },
	{ 1292, 50 }, { 1293, 50 }, { 1294, 50 }, { 1283, 0 }, { 1287, 0 }, { 1291, 0 },
};

/* The JSON of o as text (NUL-terminated, malloc'ed). */
static char *json_text(const struct occupancy *o, const char *soc)
{
	int fd = io_tmpfd();
	struct wr *w = wr_fdopen(fd, "(test)", 0);
	struct json j;
	char *buf = calloc(1, 1 << 16);
	json_init(&j, w);
	occ_json(&j, o, soc);
	wr_flush(w);
	wr_abort(w);
	if (io_pread_full(fd, buf, (1 << 16) - 1, 0) < 0)
		buf[0] = 0;
	close(fd);
	return buf;
}

static void test_mix_block(void)
{
	struct pmu_counts c, v0, v1;
	struct occupancy o;
	char *js;
	set_all(&c, cube_ev, N(cube_ev));
	set_all(&v0, vec0_ev, N(vec0_ev));
	set_all(&v1, vec1_ev, N(vec1_ev));
	struct occ_in in[3] = {
		{ 0, 1, 25, BOARD_VECTOR, 344, &v1 },
		{ 0, 0, 0, BOARD_CUBE, 234, &c },
		{ 0, 0, 24, BOARD_VECTOR, 135, &v0 },
	};
	CHECK_INT(occ_build(&o, BOARD_A2, "mix", in, 3), 0);
	CHECK_INT(o.ncore, 1);
	CHECK_INT(o.core[0].nsub, 3);
	CHECK(!strcmp(o.core[0].sub[0].type, "cube"));
	CHECK(!strcmp(o.core[0].sub[1].type, "vector") && o.core[0].sub[1].id == 0);
	CHECK(!strcmp(o.core[0].sub[2].type, "vector") && o.core[0].sub[2].id == 1);
	CHECK_INT(o.core[0].sub[0].m.throughput, 38400);
	CHECK_INT(o.core[0].sub[1].m.throughput, 115200);
	CHECK_INT(o.core[0].sub[2].m.throughput, 19200);
	CHECK_INT(o.core[0].sub[0].m.cycles, 234);
	CHECK_INT(o.core[0].sub[1].m.cycles, 135);
	CHECK_INT(o.core[0].sub[2].m.cycles, 344);
	CHECK(o.core[0].sub[0].m.hit_rate == 80.0f);
	CHECK(o.core[0].sub[1].m.hit_rate == 80.0f);
	CHECK(o.core[0].sub[2].m.hit_rate == 50.0f);
	js = json_text(&o, "Ascend910B4");
	/* the two vector sub-cores differ in all three: z = +-1, score 0.73 */
	CHECK_MSG(!strcmp(js, "{\"advice\":\"\\t1) vector1 of core[0] take more time than other vector cores.\\n"
	                      "\\t2) vector0 of core[0] write/read more data than other vector cores.\\n"
	                      "\\t3) vector1 of core[0] cache hit rate lower than other vector cores.\\n\","
	                      "\"op_detail\":[{\"core_detail\":["
	                      "{\"L2cache_hit_rate\":\"80.000000\",\"cycles\":\"234\",\"subcore_id\":\"0\","
	                      "\"subcore_type\":\"cube\",\"throughput\":\"38400\"},"
	                      "{\"L2cache_hit_rate\":\"80.000000\",\"cycles\":\"135\",\"subcore_id\":\"0\","
	                      "\"subcore_type\":\"vector\",\"throughput\":\"115200\"},"
	                      "{\"L2cache_hit_rate\":\"50.000000\",\"cycles\":\"344\",\"subcore_id\":\"1\","
	                      "\"subcore_type\":\"vector\",\"throughput\":\"19200\"}],\"core_id\":0}],"
	                      "\"op_type\":\"mix\",\"soc\":\"Ascend910B4\"}"),
	          "mix JSON: %s", js);
	free(js);
	occ_free(&o);
}

static void test_vector_blocks(void)
{
	struct pmu_counts a, b;
	struct occupancy o;
	set_all(&a, cube_ev, N(cube_ev));       /* the same counts as the cube row above */
	set_all(&b, vec1_ev, N(vec1_ev));
	/* one vector block alone: 38400 bytes, 80 % */
	struct occ_in one[1] = { { 0, 0, 13, BOARD_VECTOR, 200, &a } };
	CHECK_INT(occ_build(&o, BOARD_A2, "vector", one, 1), 0);
	CHECK_INT(o.ncore, 1);
	CHECK(!strcmp(o.core[0].sub[0].type, "vector"));
	CHECK_INT(o.core[0].sub[0].m.throughput, 38400);
	CHECK_INT(o.core[0].sub[0].m.cycles, 200);
	CHECK(o.core[0].sub[0].m.hit_rate == 80.0f);
	occ_free(&o);
	/* two blocks on physical core 13: one core, block 0, cycles and
	 * counts summed (hits 4+3 of each three, misses 1+3) */
	struct occ_in two[2] = { { 1, 0, 13, BOARD_VECTOR, 500, &b }, { 0, 0, 13, BOARD_VECTOR, 200, &a } };
	CHECK_INT(occ_build(&o, BOARD_A2, "vector", two, 2), 0);
	CHECK_INT(o.ncore, 1);
	CHECK_INT(o.core[0].block, 0);
	CHECK_INT(o.core[0].sub[0].m.cycles, 700);
	CHECK_INT(o.core[0].sub[0].m.throughput, (300 + 150) * 128);
	CHECK(o.core[0].sub[0].m.hit_rate == (float)(100u * 21) / 33.0f);
	occ_free(&o);
	/* different cores stay apart */
	two[0].core_id = 14;
	CHECK_INT(occ_build(&o, BOARD_A2, "vector", two, 2), 0);
	CHECK_INT(o.ncore, 2);
	occ_free(&o);
	/* two blocks a core, four blocks: the reference's walk finds block
	 * 3's entry at position 2 (its core's first block id), past the two
	 * kept, and stops there */
	{
		struct occ_in four[4] = {
			{ 0, 0, 0, BOARD_VECTOR, 100, &a }, { 1, 0, 0, BOARD_VECTOR, 200, &a },
			{ 2, 0, 1, BOARD_VECTOR, 300, &a }, { 3, 0, 1, BOARD_VECTOR, 400, &a },
		};
		CHECK_INT(occ_build(&o, BOARD_A2, "vector", four, 4), 0);
		CHECK_INT(o.ncore, 2);
		CHECK_INT(o.core[0].block, 0);
		CHECK_INT(o.core[0].sub[0].m.cycles, 300);
		CHECK_INT(o.core[1].block, 2);
		CHECK_INT(o.core[1].sub[0].m.cycles, 300);
		occ_free(&o);
	}
	/* a missing count reads as UINT64_MAX: the sums saturate */
	pmu_counts_init(&b);
	struct occ_in none[1] = { { 0, 0, 1, BOARD_VECTOR, 9, &b } };
	CHECK_INT(occ_build(&o, BOARD_A2, "vector", none, 1), 0);
	CHECK(o.core[0].sub[0].m.throughput == UINT64_MAX);
	occ_free(&o);
}

static struct occ_named named(const char *name, uint64_t cycles, uint64_t thr, float hit, uint64_t simt)
{
	struct occ_named v;
	memset(&v, 0, sizeof v);
	snprintf(v.name, sizeof v.name, "%s", name);
	v.m.cycles = cycles;
	v.m.throughput = thr;
	v.m.hit_rate = hit;
	if (simt) {
		v.m.has_simt = 1;
		v.m.simt_cycles = 1;
		v.m.simt_instr = simt;
	}
	return v;
}

static void advice_is(const char *op, const struct occ_named *v, size_t n, const char *want)
{
	char *got = occ_advice(op, v, n);
	CHECK_MSG(!strcmp(got, want), "advice \"%s\", want \"%s\"", got, want);
	free(got);
}

static void test_advice(void)
{
	/* the groups with nothing else varying: only one line each */
	struct occ_named cyc[5] = {
		named("0vector0", 100, 5, 1, 0), named("1vector0", 101, 5, 1, 0), named("2vector0", 98, 5, 1, 0),
		named("3vector0", 200, 5, 1, 0), named("4vector0", 113, 5, 1, 0),
	};
	struct occ_named thr[5] = {
		named("0cube0", 5, 1000, 1, 0), named("1cube0", 5, 1082, 1, 0), named("2cube0", 5, 1000, 1, 0),
		named("3cube0", 5, 1279, 1, 0), named("4cube0", 5, 1700, 1, 0),
	};
	struct occ_named hit[4] = {
		named("0vector0", 5, 5, 70, 0), named("0vector1", 5, 5, 72, 0), named("1vector0", 5, 5, 70, 0),
		named("1vector1", 5, 5, 90, 0),
	};
	struct occ_named simt[8];
	for (int i = 0; i < 8; i++) {
		char name[24];
		snprintf(name, sizeof name, "%dvector0", i);
		simt[i] = named(name, 5, 5, 1, i ? 448 : 1792768);
	}
	advice_is("vector", cyc, 5, "\t1) vector1 of core[1] take more time than other vector cores.\n");
	advice_is("cube", thr, 5, "\t1) cube0 of core[4] write/read more data than other cube cores.\n");
	advice_is("mix", hit, 4,
	          "\t1) vector0, vector1 of core[0], vector0 of core[1] cache hit rate lower than other vector cores.\n");
	advice_is("vector", simt, 8, "\t1) vector0 of core[0] execute more instructions than other vector cores.\n");
	/* no variance, no advice; several groups numbered in order */
	advice_is("cube", thr, 1, "");
	thr[4].m.cycles = 50;
	advice_is("cube", thr, 5,
	          "\t1) cube0 of core[4] take more time than other cube cores.\n"
	          "\t2) cube0 of core[4] write/read more data than other cube cores.\n");
	/* names of three digits are not compared */
	struct occ_named big[3] = { named("100cube0", 9, 1, 1, 0), named("1cube0", 1, 1, 1, 0),
		                    named("2cube0", 9, 1, 1, 0) };
	advice_is("cube", big, 3, "\t1) cube0 of core[2] take more time than other cube cores.\n");
}

static void test_a5(void)
{
	static const uint16_t list[] = { 1058, 1059, 1060, 1061, 1063, 1066, 1069, 1071, 1284, 1466, 1467, 1468 };
	uint64_t vals[] = { 10, 20, 6, 2, 1, 1, 0, 2, 40, 100, 20, 0 };
	struct occ_metrics m;
	occ_metrics_of(BOARD_A5, list, vals, N(list), 77, &m);
	CHECK_INT(m.cycles, 77);
	CHECK_INT(m.throughput, 30 * 128);
	CHECK(m.hit_rate == (float)(100u * 8) / 12.0f);
	CHECK(m.has_simt);
	CHECK_INT(m.simt_cycles, 40);
	CHECK_INT(m.simt_instr, 120);
	vals[8] = 0;
	occ_metrics_of(BOARD_A5, list, vals, N(list), 77, &m);
	CHECK(!m.has_simt);
	/* 310P: the reference has no occupancy metrics, all zero */
	occ_metrics_of(BOARD_310P, list, vals, N(list), 77, &m);
	CHECK_INT(m.cycles, 0);
	CHECK_INT(m.throughput, 0);
}

static void basic_of(struct board_basic *b, const char *text)
{
	struct board_err e;
	board_basic_init(b);
	CHECK_INT(board_basic_parse(text, strlen(text), b, &e), 0);
}

static void test_low_freq(void)
{
	struct board_basic b;
	basic_of(&b, "Op Name=x\nBlock Dim=1\nRun Soc Version=Ascend910B4\nDevice Id=0\nCurrent Freq=1500\nRated Freq=1650\n");
	CHECK(board_low_freq(&b));        /* 1500 <= 1567.5 */
	basic_of(&b, "Op Name=x\nBlock Dim=1\nRun Soc Version=Ascend910B4\nDevice Id=0\nCurrent Freq=1600\nRated Freq=1650\n");
	CHECK(!board_low_freq(&b));
	basic_of(&b, "Op Name=x\nBlock Dim=1\nRun Soc Version=Ascend910B4\nDevice Id=0\nCurrent Freq=N/A\nRated Freq=1650\n");
	CHECK(!board_low_freq(&b));
	basic_of(&b, "Op Name=x\nBlock Dim=1\nRun Soc Version=Ascend910B4\nDevice Id=0\nCurrent Freq=1000\n");
	CHECK(!board_low_freq(&b));
	/* at exactly 0.95 the advice is given */
	basic_of(&b, "Op Name=x\nBlock Dim=1\nRun Soc Version=Ascend910B4\nDevice Id=0\nCurrent Freq=95\nRated Freq=100\n");
	CHECK(board_low_freq(&b));
}

int main(void)
{
	test_mix_block();
	test_vector_blocks();
	test_advice();
	test_a5();
	test_low_freq();
	return unit_done();
}
