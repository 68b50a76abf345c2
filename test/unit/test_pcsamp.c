/* Unit tests of the PC sampling records (lib/pcsamp.c): the cases of
 * optrace-board(5), PCSAMPLING.BIN, with every sum worked out by hand in
 * the comments. */
#include "pcsamp.h"

#include <stdlib.h>
#include <string.h>

#include "unit.h"

static unsigned char *chunk;

static void head(unsigned core, unsigned type, uint32_t valid)
{
	memset(chunk, 0, PCS_CHUNK_SIZE);
	chunk[0] = (unsigned char)core;
	chunk[2] = (unsigned char)type;
	chunk[4] = (unsigned char)valid, chunk[5] = (unsigned char)(valid >> 8);
	chunk[6] = (unsigned char)(valid >> 16), chunk[7] = (unsigned char)(valid >> 24);
}

/* Record i: the 24-bit field, then the nine counters first, first+1, ... */
static void rec(unsigned i, uint32_t field, int first, int step)
{
	unsigned char *r = chunk + PCS_HEAD_SIZE + 16 * i;
	unsigned k;
	r[0] = (unsigned char)field, r[1] = (unsigned char)(field >> 8), r[2] = (unsigned char)(field >> 16);
	for (k = 0; k < PCS_STATES; k++)
		r[3 + k] = (unsigned char)(first + step * (int)k);
}

static const struct pcs_row *row(const struct pcs *s, uint64_t pc)
{
	size_t i;
	for (i = 0; i < s->nrows; i++)
		if (s->rows[i].pc == pc)
			return &s->rows[i];
	return NULL;
}

static int known_set(void *ctx, uint64_t pc)
{
	const uint64_t *v = ctx;
	for (; *v != ~(uint64_t)0; v++)
		if (*v == pc)
			return 1;
	return 0;
}

static void test_pc(void)
{
	CHECK_INT(pcs_pc(5, 0, 0), 0x28);
	/* only bits 26..0 of the start pc count: 0x8000010 -> 0x10 */
	CHECK_INT(pcs_pc(5, 0x8000010, 0), 0x18);
	CHECK_INT(pcs_pc(5, 0x10, 8), 0x10);
	CHECK(pcs_pc(1, 0x10, 0) == (uint64_t)0 - 8);   /* modulo 2^64 */
	CHECK(pcs_pc(0x1FFFFFF, 0, 0) == 0xFFFFFF * 8); /* the field is 24 bits */
	CHECK(!strcmp(pcs_state_name(0), "IBuf_Empty"));
	CHECK(!strcmp(pcs_state_name(7), "Others"));
	CHECK(!strcmp(pcs_state_name(8), "Active"));
}

/* {coreId 0, coreType 1, validLen 48}: (5, 1..9), (8, 2..10), (1, 3..11):
 * pcs 0x28, 0x40, 0x08; top[0] = 1+2+3 = 6, top[7] = 8+9+10 = 27. */
static void test_single_chunk(void)
{
	static const uint64_t known[] = { 0x08, 0x28, 0x40, ~(uint64_t)0 };
	struct pcs s;
	const struct pcs_row *r;
	pcs_init(&s, 0, 0, known_set, (void *)known);
	head(0, 1, 48);
	rec(0, 5, 1, 1);
	rec(1, 8, 2, 1);
	rec(2, 1, 3, 1);
	pcs_chunk(&s, chunk);
	pcs_finish(&s);
	CHECK_INT(s.records, 3);
	CHECK_INT(s.nrows, 3);
	CHECK_INT(s.rows[0].pc, 0x08);   /* by pc */
	CHECK((r = row(&s, 0x28)) && r->n[0] == 1 && r->n[8] == 9);
	CHECK((r = row(&s, 0x40)) && r->n[0] == 2 && r->n[8] == 10);
	CHECK((r = row(&s, 0x08)) && r->n[0] == 3 && r->n[8] == 11);
	CHECK_INT(s.top[0], 6);
	CHECK_INT(s.top[7], 27);
	CHECK_INT(s.dropped, 0);
	pcs_free(&s);
}

/* (5, 1..9) twice more plus (9, ...) of a pc (0x48) that is no
 * instruction: 0x28 sums to 3, 5, ..., 19 (the top-stall example:
 * IBuf_Empty 3 ... Others 17; Active 19 only in all samples); 0x48 is
 * dropped, counted once among the pcs. */
static void test_duplicates(void)
{
	static const uint64_t known[] = { 0x28, ~(uint64_t)0 };
	struct pcs s;
	const struct pcs_row *r;
	unsigned k;
	pcs_init(&s, 0, 0, known_set, (void *)known);
	head(0, 1, 64);
	rec(0, 5, 1, 1);
	rec(1, 9, 7, 0);
	rec(2, 5, 2, 1);
	rec(3, 9, 7, 0);
	pcs_chunk(&s, chunk);
	pcs_finish(&s);
	CHECK_INT(s.nrows, 1);
	CHECK(!row(&s, 0x48));
	r = row(&s, 0x28);
	CHECK(r != NULL);
	for (k = 0; r && k < PCS_STATES; k++)
		CHECK_INT(r->n[k], 3 + 2 * k);
	for (k = 0; k < PCS_STALLS; k++)
		CHECK_INT(s.top[k], 3 + 2 * k);
	CHECK_INT(pcs_stall_sum(r->n), 3 + 5 + 7 + 9 + 11 + 13 + 15 + 17);
	CHECK_INT(pcs_all_sum(r->n), 80 + 19);
	CHECK_INT(s.dropped, 2);
	CHECK_INT(s.ndropped, 1);
	CHECK_INT(s.dropped_pcs[0], 0x48);
	pcs_free(&s);
}

/* The generator's file: field 5 all 0xFF, field 5 all 2, field 8 all 4,
 * field 1 all 9, validLen 88 -> 6 records (the last two zero: pc 0).
 * Every pc kept: 0x28 gets 255+2 = 257 per state; pc 0 gets zeros. A
 * second chunk adds field 8 once more: 0x40 gets 8. */
static void test_generator_file(void)
{
	struct pcs s;
	const struct pcs_row *r;
	pcs_init(&s, 0, 0, NULL, NULL);
	head(0, 2, 88);
	rec(0, 5, 0xFF, 0);
	rec(1, 5, 2, 0);
	rec(2, 8, 4, 0);
	rec(3, 1, 9, 0);
	pcs_chunk(&s, chunk);
	head(1, 1, 16);
	rec(0, 8, 4, 0);
	rec(1, 1, 100, 0);   /* past validLen: not read */
	pcs_chunk(&s, chunk);
	pcs_finish(&s);
	CHECK_INT(s.chunks, 2);
	CHECK_INT(s.records, 7);
	CHECK_INT(s.nrows, 4);
	CHECK((r = row(&s, 0x28)) && r->n[0] == 257 && r->n[8] == 257);
	CHECK((r = row(&s, 0x40)) && r->n[3] == 8);
	CHECK((r = row(&s, 0x08)) && r->n[8] == 9);
	CHECK((r = row(&s, 0)) && pcs_all_sum(r->n) == 0);
	CHECK_INT(s.top[0], 257 + 8 + 9);
	pcs_free(&s);
}

/* validLen 20 is not a multiple of 16: the record at 16 is still read;
 * validLen past the data area stops at its end. */
static void test_valid_len(void)
{
	struct pcs s;
	pcs_init(&s, 0, 0, NULL, NULL);
	head(0, 0, 20);
	rec(0, 5, 1, 0);
	rec(1, 6, 1, 0);
	pcs_chunk(&s, chunk);
	CHECK_INT(s.records, 2);
	head(0, 0, 0xFFFFFFFF);
	pcs_chunk(&s, chunk);
	CHECK_INT(s.records, 2 + PCS_DATA_SIZE / 16);
	pcs_finish(&s);
	CHECK_INT(s.nrows, 3);   /* 0x28, 0x30 and pc 0 of the zero records */
	CHECK_INT(row(&s, 0)->n[0], 0);
	pcs_free(&s);
}

/* Many distinct pcs through the merging of full rows: the sums stay
 * exact. 70000 records over 5000 pcs, each pc 14 times, counter 1. */
static void test_many(void)
{
	struct pcs s;
	unsigned i;
	int ok = 1;
	pcs_init(&s, 0, 0, NULL, NULL);
	head(0, 0, 70000 * 16);
	for (i = 0; i < 70000; i++)
		rec(i, i % 5000, 1, 0);
	pcs_chunk(&s, chunk);
	pcs_finish(&s);
	CHECK_INT(s.nrows, 5000);
	for (i = 0; i < s.nrows; i++)
		ok &= s.rows[i].pc == (uint64_t)i * 8 && s.rows[i].n[4] == 14;
	CHECK(ok);
	CHECK_INT(s.top[4], 70000);
	pcs_free(&s);
}

int main(void)
{
	chunk = malloc(PCS_CHUNK_SIZE);
	test_pc();
	test_single_chunk();
	test_duplicates();
	test_generator_file();
	test_valid_len();
	test_many();
	free(chunk);
	return unit_done();
}
