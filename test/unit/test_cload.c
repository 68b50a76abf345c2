/* Unit tests of lib/cload.c: the compute load items of each chip from
 * known counts (sums, the fp32 difference, NA for a missing count, the
 * wait in us, the A5 vector's operand types), the percentages in single
 * precision, the sub-block index rule, and OperandRecord.bin read back
 * from files written here, with the size check.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "cload.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

static void fill(struct pmu_counts *c, const unsigned (*kv)[2], size_t n)
{
	pmu_counts_init(c);
	for (size_t i = 0; i < n; i++)
		pmu_counts_set(c, kv[i][0], kv[i][1]);
}

/* The item named name of unit u, or NULL. */
static const struct cload_item *item(const struct cload_item *it, size_t n, const char *name, enum cload_unit u)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(it[i].name, name) && it[i].unit == u)
			return &it[i];
	printf("  no item %s (unit %d)\n", name, (int)u);
	return NULL;
}

static uint64_t val(const struct cload_item *it, size_t n, const char *name, enum cload_unit u)
{
	const struct cload_item *x = item(it, n, name, u);
	return x ? x->value : 12345;
}

static void test_a2(void)
{
	static const unsigned cube_kv[][2] = { { 73, 900 }, { 74, 100 }, { 88, 50 }, { 3, 7 }, { 1032, 5 }, { 1033, 2 } };
	static const unsigned vec_kv[][2] = { { 8, 400 }, { 1, 30 }, { 78, 4 }, { 75, 20 }, { 76, 6 }, { 77, 1 },
		                              { 174, 2 }, { 186, 3 }, { 79, 9 }, { 184, 10 }, { 185, 11 },
		                              { 100, 1 }, { 101, 2 }, { 102, 3 }, { 103, 4 }, { 89, 3301 } };
	struct pmu_counts c;
	struct cload_item it[CLOAD_ITEMS_MAX];
	size_t n;

	fill(&c, cube_kv, sizeof cube_kv / sizeof cube_kv[0]);
	n = cload_items(BOARD_A2, BOARD_CUBE, &c, 1650, NULL, it);
	CHECK(n == 7);
	CHECK(!strcmp(it[0].name, "Cube All Active") && it[0].unit == CL_PER && it[0].table == 0 && it[0].value == 1000);
	CHECK(!strcmp(it[3].name, "Cube Wait") && it[3].value == 50);
	CHECK(!strcmp(it[4].name, "Cube All Active") && it[4].unit == CL_INSTR && it[4].table == 1 && it[4].value == 7);
	CHECK(val(it, n, "Cube FP", CL_INSTR) == 5 && val(it, n, "Cube INT", CL_INSTR) == 2);
	/* a count missing makes the sum NA */
	pmu_counts_init(&c);
	pmu_counts_set(&c, 73, 900);
	n = cload_items(BOARD_A2, BOARD_CUBE, &c, 1650, NULL, it);
	CHECK(it[0].value == PMU_EMPTY && it[1].value == 900 && it[2].value == PMU_EMPTY);

	fill(&c, vec_kv, sizeof vec_kv / sizeof vec_kv[0]);
	n = cload_items(BOARD_A2, BOARD_VECTOR, &c, 1650, NULL, it);
	CHECK(n == 15);
	CHECK(!strcmp(it[0].name, "Vector All Active") && it[0].unit == CL_PER && it[0].value == 400);
	CHECK(val(it, n, "Vector All Active", CL_INSTR) == 30);
	CHECK(val(it, n, "Vector FP32", CL_INSTR) == 14);       /* 75 - 76 */
	CHECK(val(it, n, "Vector FP16", CL_INSTR) == 9);        /* 76 + 77 + 174 */
	CHECK(val(it, n, "Vector All Block", CL_INSTR) == 10);
	CHECK(val(it, n, "Vector MTE Urgent Request Block", CL_INSTR) == 4);
	CHECK(!strcmp(it[14].name, "Vector Wait") && it[14].unit == CL_US && it[14].value == 2);  /* 3301 / 1650 */
	/* fewer fp32 and fp16 than fp16: 0; one of them missing: NA */
	pmu_counts_set(&c, 76, 25);
	n = cload_items(BOARD_A2, BOARD_VECTOR, &c, 1650, NULL, it);
	CHECK(val(it, n, "Vector FP32", CL_INSTR) == 0);
	pmu_counts_init(&c);
	pmu_counts_set(&c, 75, 20);
	n = cload_items(BOARD_A2, BOARD_VECTOR, &c, 0, NULL, it);
	CHECK(val(it, n, "Vector FP32", CL_INSTR) == PMU_EMPTY);
	CHECK(val(it, n, "Vector Wait", CL_US) == 0);            /* no clock, no count */
}

static void test_310p(void)
{
	static const unsigned kv[][2] = { { 73, 10 }, { 74, 20 }, { 3, 4 }, { 8, 5 }, { 1, 6 } };
	struct pmu_counts c;
	struct cload_item it[CLOAD_ITEMS_MAX];
	size_t n;
	fill(&c, kv, sizeof kv / sizeof kv[0]);
	n = cload_items(BOARD_310P, BOARD_CUBE, &c, 1000, NULL, it);
	/* the AI Core: the cube's items, then the vector's */
	CHECK(n == 22);
	CHECK(!strcmp(it[0].name, "Cube All Active") && it[0].value == 30);
	CHECK(val(it, n, "Cube FP", CL_INSTR) == PMU_EMPTY && val(it, n, "Cube INT", CL_INSTR) == PMU_EMPTY);
	CHECK(!strcmp(it[7].name, "Vector All Active") && it[7].value == 5);
}

static void test_a5(void)
{
	static const unsigned cube_kv[][2] = { { 810, 70 }, { 808, 60 }, { 809, 10 }, { 789, 3 }, { 790, 1 },
		                               { 768, 4 }, { 11, 3299 } };
	static const unsigned vec_kv[][2] = { { 1281, 44 }, { 12, 1650 } };
	struct pmu_counts c;
	struct cload_item it[CLOAD_ITEMS_MAX];
	struct oprec_sum op;
	size_t n;

	fill(&c, cube_kv, sizeof cube_kv / sizeof cube_kv[0]);
	n = cload_items(BOARD_A5, BOARD_CUBE, &c, 1650, NULL, it);
	CHECK(n == 7);
	CHECK(!strcmp(it[3].name, "Cube FP") && it[3].unit == CL_INSTR && it[3].value == 3);
	CHECK(!strcmp(it[5].name, "Cube All Active") && it[5].value == 4);
	CHECK(!strcmp(it[6].name, "Cube Wait") && it[6].value == 1);     /* 3299 / 1650, an integer division */

	fill(&c, vec_kv, sizeof vec_kv / sizeof vec_kv[0]);
	memset(&op, 0, sizeof op);
	op.simd_instr[0] = 2;                /* F16 */
	op.simt_instr[OPREC_F32] = 100;
	op.simt_instr[OPREC_S32] = 28;
	op.simt_ops[OPREC_S32] = 28;
	n = cload_items(BOARD_A5, BOARD_VECTOR, &c, 1650, &op, it);
	/* the types that ran, in type order, then the totals */
	CHECK(n == 6);
	CHECK(!strcmp(it[0].name, "Vector F16") && it[0].value == 2);
	CHECK(!strcmp(it[1].name, "Vector F32") && it[1].value == 100);
	CHECK(!strcmp(it[2].name, "Vector S32") && it[2].value == 28);
	CHECK(!strcmp(it[3].name, "Vector All Active") && it[3].unit == CL_PER && it[3].value == 44);
	CHECK(!strcmp(it[4].name, "Vector All Active") && it[4].unit == CL_INSTR && it[4].value == 130);
	CHECK(!strcmp(it[5].name, "Vector Wait") && it[5].value == 1);
	/* no operand records: the totals only, no instruction */
	n = cload_items(BOARD_A5, BOARD_VECTOR, &c, 1650, NULL, it);
	CHECK(n == 3 && it[1].value == 0);
}

static void test_percent(void)
{
	/* single precision, as the reference: 1002 / 20000 x 100 */
	CHECK(cload_percent(1002, 20000) == 5.009999752044678f);
	CHECK(cload_percent(PMU_EMPTY, 20000) == 0.0f);
	CHECK(cload_percent(3, 0) == 300.0f);
}

static void test_index(void)
{
	CHECK(OPREC_THREAD_BYTES == 856 && OPREC_BLOCK_BYTES == 1754008);
	CHECK(oprec_index(0, BOARD_CUBE, 4, 0) == 14);
	CHECK(oprec_index(1, BOARD_CUBE, 4, 0) == 14);
	CHECK(oprec_index(1, BOARD_VECTOR, 4, 1) == 13);
	CHECK(oprec_index(0, BOARD_VECTOR, 5, 0) == 7);          /* vector 1 of core 2 */
	CHECK(oprec_index(0, BOARD_VECTOR, 4, 0) == 6);
	CHECK(oprec_offset(0, -1, 0) == 8);
	CHECK(oprec_offset(1, 0, 2) == 8 + 1754008 + 856 + 48);
}

static void put_rec(FILE *f, uint64_t off, uint64_t instr, uint64_t ops)
{
	unsigned char b[16];
	for (int i = 0; i < 8; i++) {
		b[i] = (unsigned char)(instr >> (8 * i));
		b[8 + i] = (unsigned char)(ops >> (8 * i));
	}
	fseek(f, (long)off, SEEK_SET);
	fwrite(b, 1, sizeof b, f);
}

static void test_file(void)
{
	char path[] = "/tmp/test_cload.XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w+b");
	struct oprec_sum s;
	const char *why = NULL;
	size_t nb = 9;
	CHECK(f != NULL);
	if (!f)
		return;
	put_rec(f, oprec_offset(0, -1, 3), 5, 50);
	put_rec(f, oprec_offset(1, 0, OPREC_F32), 7, 7);
	put_rec(f, oprec_offset(1, 2047, OPREC_F32), 1, 2);
	put_rec(f, oprec_offset(1, 9, 32), 4, 4);
	fflush(f);
	CHECK(ftruncate(fileno(f), OPREC_HEAD + 2 * OPREC_BLOCK_BYTES) == 0);
	fclose(f);
	f = oprec_open(path, &nb, &why);
	CHECK(f && nb == 2);
	if (f) {
		CHECK(oprec_read(f, &s) == 0 && s.simd_instr[3] == 5 && s.simd_ops[3] == 50 && s.simt_instr[OPREC_F32] == 0);
		CHECK(oprec_read(f, &s) == 0 && s.simt_instr[OPREC_F32] == 8 && s.simt_ops[OPREC_F32] == 9 &&
		      s.simt_instr[32] == 4 && s.simd_instr[3] == 0);
		CHECK(oprec_read(f, &s) == -1);      /* past the end */
		fclose(f);
	}
	/* a size that is no header and whole blocks */
	CHECK(truncate(path, OPREC_HEAD + OPREC_BLOCK_BYTES - 1) == 0);
	CHECK(oprec_open(path, &nb, &why) == NULL && nb == 0 && strstr(why, "1754008"));
	CHECK(truncate(path, 4) == 0);
	CHECK(oprec_open(path, &nb, &why) == NULL);
	CHECK(truncate(path, OPREC_HEAD) == 0);
	f = oprec_open(path, &nb, &why);
	CHECK(f && nb == 0);
	if (f)
		fclose(f);
	unlink(path);
	CHECK(oprec_open(path, &nb, &why) == NULL && !strcmp(why, "cannot open"));
	CHECK(!strcmp(oprec_type_name(0), "F16") && !strcmp(oprec_type_name(32), "ZX32") &&
	      !strcmp(oprec_type_name(23), "S16"));
}

int main(void)
{
	test_a2();
	test_310p();
	test_a5();
	test_percent();
	test_index();
	test_file();
	return unit_done();
}
