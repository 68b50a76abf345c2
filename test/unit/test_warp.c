/* Unit tests of the warp timeline records (lib/warp.c): the spec's
 * cases of optrace-board(5), WARPTIMELINE.BIN, at a 1000 MHz clock, so
 * that a cycle is a nanosecond and every expectation is read off the
 * records by eye. */
#include "warp.h"

#include <stdlib.h>
#include <string.h>

#include "unit.h"

static unsigned char blk[4][WARP_BLOCK_SIZE];

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8), p[2] = (unsigned char)(v >> 16),
	p[3] = (unsigned char)(v >> 24);
}

static void put64(unsigned char *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

static void head(unsigned char *b, uint32_t magic, uint32_t count, uint32_t core, uint32_t type)
{
	memset(b, 0, WARP_BLOCK_SIZE);
	put32(b, magic);
	put32(b + 4, count);
	put32(b + 8, core);
	put32(b + 12, type);
}

static void rec(unsigned char *b, unsigned w, uint64_t start, uint64_t end)
{
	put64(b + WARP_HEAD_SIZE + 16 * w, start);
	put64(b + WARP_HEAD_SIZE + 16 * w + 8, end);
}

static struct warp_slice *v;
static size_t n, cap;
static struct warp_stats st;

static void reset(void)
{
	free(v);
	v = NULL;
	n = cap = 0;
	memset(&st, 0, sizeof st);
}

static void test_sizes(void)
{
	/* 16-byte header, 64 records of 16 bytes, 64 bytes of gap. */
	CHECK_INT(WARP_BLOCK_SIZE, 1104);
}

static void test_one_warp(void)
{
	char pid[48];
	uint64_t shift[1];
	size_t idx[1];
	reset();
	head(blk[0], WARP_MAGIC, 1, 0, 0);
	rec(blk[0], 0, 100, 160);
	CHECK_INT(warp_block(blk[0], 0, &v, &n, &cap, &st), 0);
	CHECK_INT(n, 1);
	CHECK_INT(v[0].warp, 0);
	CHECK_INT(v[0].core_id, 0);
	CHECK_INT(v[0].core_type, 0);
	warp_pid(v[0].core_id, v[0].core_type, pid, sizeof pid);
	CHECK(!strcmp(pid, "warp.core0.veccore0"));
	warp_pid_starts(v, n, shift);
	CHECK_INT(warp_ts6(&v[0], shift[0], 0, 1000), 0);          /* ts 0.0 */
	CHECK_INT(warp_dur6(&v[0], 1000), 60000);                  /* dur 0.06 */
	CHECK_INT(warp_lanes(v, n, idx), 1);
}

static void test_eleven_warps(void)
{
	size_t idx[16], k;
	static const unsigned want[] = { 0, 1, 10 };
	unsigned w;
	reset();
	head(blk[0], WARP_MAGIC, 11, 0, 0);
	/* warps 2..9 zero (start 0), 0, 1 and 10 valid */
	rec(blk[0], 0, 100, 160);
	rec(blk[0], 1, 110, 170);
	rec(blk[0], 10, 120, 180);
	rec(blk[0], 5, 200, 200);   /* end <= start: skipped */
	rec(blk[0], 11, 300, 400);  /* past warpCount: never read */
	warp_block(blk[0], 0, &v, &n, &cap, &st);
	CHECK_INT(n, 3);            /* 3 slices + 3 sort entries = 6 events */
	CHECK_INT(st.invalid, 8);
	k = warp_lanes(v, n, idx);
	CHECK_INT(k, 3);
	for (w = 0; w < 3; w++)
		CHECK_INT(v[idx[w]].warp, want[w]);
}

static void test_per_pid_start(void)
{
	uint64_t shift[3];
	reset();
	head(blk[0], WARP_MAGIC, 2, 0, 0);
	rec(blk[0], 0, 300, 360);
	rec(blk[0], 1, 340, 380);
	head(blk[1], WARP_MAGIC, 1, 0, 1);
	rec(blk[1], 0, 100, 180);
	warp_block(blk[0], 0, &v, &n, &cap, &st);
	warp_block(blk[1], 1, &v, &n, &cap, &st);
	CHECK_INT(n, 3);
	warp_pid_starts(v, n, shift);
	CHECK_INT(warp_ts6(&v[0], shift[0], 0, 1000), 0);
	CHECK_INT(warp_ts6(&v[1], shift[1], 0, 1000), 40000);     /* 0.04 */
	CHECK_INT(warp_dur6(&v[0], 1000), 60000);
	CHECK_INT(warp_dur6(&v[1], 1000), 40000);
	CHECK_INT(warp_ts6(&v[2], shift[2], 0, 1000), 0);         /* vec1 on its own */
	CHECK_INT(warp_dur6(&v[2], 1000), 80000);
	CHECK_INT(v[2].block, 1);
	/* aligned to a trace starting at 7.5 us: each pid's first at 7.5 */
	CHECK_INT(warp_ts6(&v[0], shift[0], 7500000, 1000), 7500000);
	CHECK_INT(warp_ts6(&v[2], shift[2], 7500000, 1000), 7500000);
	CHECK_INT(warp_ts6(&v[1], shift[1], 7500000, 1000), 7540000);
}

static void test_cube_and_magic(void)
{
	char pid[48];
	reset();
	head(blk[0], WARP_MAGIC, 1, 0, 2);
	rec(blk[0], 0, 100, 160);
	head(blk[1], 0x12345678, 1, 0, 0);
	rec(blk[1], 0, 100, 160);
	CHECK_INT(warp_block(blk[0], 0, &v, &n, &cap, &st), 0);
	CHECK_INT(warp_block(blk[1], 1, &v, &n, &cap, &st), -1);
	CHECK_INT(n, 1);
	CHECK_INT(st.bad_magic, 1);
	CHECK_INT(st.blocks, 2);
	warp_pid(v[0].core_id, v[0].core_type, pid, sizeof pid);
	CHECK(!strcmp(pid, "warp.core0.cubecore0"));
	warp_pid(3, 7, pid, sizeof pid);
	CHECK(!strcmp(pid, "warp.core3.unknowncore7"));
	warp_pid(12, 1, pid, 8);
	CHECK(!strcmp(pid, "warp.co"));
}

static void test_lane_order(void)
{
	/* pids sort as text: core10 before core2; warps by number within */
	size_t idx[8], k;
	reset();
	head(blk[0], WARP_MAGIC, 3, 2, 0);
	rec(blk[0], 2, 10, 20);
	rec(blk[0], 0, 10, 20);
	head(blk[1], WARP_MAGIC, 2, 10, 0);
	rec(blk[1], 1, 10, 20);
	head(blk[2], WARP_MAGIC, 1, 2, 0);   /* a second block of core 2: warp 0 again */
	rec(blk[2], 0, 30, 40);
	warp_block(blk[0], 0, &v, &n, &cap, &st);
	warp_block(blk[1], 1, &v, &n, &cap, &st);
	warp_block(blk[2], 2, &v, &n, &cap, &st);
	CHECK_INT(n, 4);
	k = warp_lanes(v, n, idx);
	CHECK_INT(k, 3);
	CHECK_INT(v[idx[0]].core_id, 10);
	CHECK_INT(v[idx[1]].core_id, 2);
	CHECK_INT(v[idx[1]].warp, 0);
	CHECK_INT(v[idx[2]].warp, 2);
	reset();
}

int main(void)
{
	test_sizes();
	test_one_warp();
	test_eleven_warps();
	test_per_pid_start();
	test_cube_and_magic();
	test_lane_order();
	return unit_done();
}
