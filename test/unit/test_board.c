/* Unit tests of lib/board.c: the raw on-board files of the three layouts,
 * made here by small generators (the files of the reference's test data
 * generator: events 1..8, totalCycles 10000/20000/50000, duration stamps
 * 30000 -> 40000 and 60000 -> 70000), the op_basic_info.txt files of its
 * test resources, and malformed input of every kind.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "board.h"
#include "io.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

static void put16(unsigned char *p, size_t off, unsigned v)
{
	p[off] = (unsigned char)v;
	p[off + 1] = (unsigned char)(v >> 8);
}

static void put64(unsigned char *p, size_t off, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[off + (size_t)i] = (unsigned char)(v >> (8 * i));
}

/* An A2 (FFTS) block record: type word, block, sub-block, cycles, the
 * counters first..first+7, start and end system times. */
static void gen_a2_pmu(unsigned char *p, unsigned type_word, unsigned block, unsigned sub, uint64_t cycles,
                       uint64_t first, uint64_t start, uint64_t end)
{
	memset(p, 0, BOARD_PMU_REC_SIZE);
	put16(p, 20, type_word);
	put16(p, 28, sub);
	put16(p, 30, block);
	put64(p, 32, cycles);
	for (int i = 0; i < 8; i++)
		put64(p, 48 + 8 * (size_t)i, first + (uint64_t)i);
	put64(p, 112, start);
	put64(p, 120, end);
}

static void gen_310p_pmu(unsigned char *p, uint64_t cycles, uint64_t first)
{
	memset(p, 0, BOARD_PMU_REC_SIZE);
	put64(p, 16, cycles);
	for (int i = 0; i < 8; i++)
		put64(p, 32 + 8 * (size_t)i, first + (uint64_t)i);
}

static void gen_a5_pmu(unsigned char *p, unsigned func, unsigned type_word, unsigned block, uint64_t cycles,
                       uint64_t first)
{
	memset(p, 0, BOARD_PMU_REC_SIZE);
	put16(p, 0, func);
	put64(p, 8, cycles);
	put16(p, 20, type_word);
	put16(p, 26, block);
	for (int i = 0; i < 10; i++)
		put64(p, 32 + 8 * (size_t)i, first + (uint64_t)i);
}

/* A 64-byte ACSQ (A2) or HWTS (310P) stamp, or a 32-byte A5 one. */
static void gen_stamp(unsigned char *p, size_t size, unsigned word0, uint64_t t)
{
	memset(p, 0, size);
	put16(p, 0, word0);
	put64(p, 8, t);
}

/* A reader over bytes, through a temporary file. */
static struct rd *rd_bytes(const void *p, size_t n)
{
	int fd = io_tmpfd();
	if (fd < 0 || write(fd, p, n) != (ssize_t)n || lseek(fd, 0, SEEK_SET) != 0)
		return NULL;
	return rd_fdopen(fd, "bytes");
}

static void test_a2(void)
{
	unsigned char f[2 * BOARD_PMU_REC_SIZE];
	struct board_pmu r;
	struct board_err e;
	struct rd *rd;
	uint64_t index = 0;
	int n = 0;
	gen_a2_pmu(f, 1, 0, 0, 10000, 1001, 0, 0);
	gen_a2_pmu(f + BOARD_PMU_REC_SIZE, 0, 0, 0, 20000, 1001, 0, 0);
	CHECK(board_pmu_decode(BOARD_A2, f, sizeof f, 0, &r, &e) == 1);
	CHECK(r.total_cycles == 10000);
	CHECK(r.core == BOARD_VECTOR);
	CHECK(r.core_id == 0 && r.block_id == 0 && r.sub_block_id == 0);
	CHECK(r.nslots == 8);
	/* slot 0 holds event 1 of the replay list 1..8 */
	CHECK(r.slot[0] == 1001 && r.slot[7] == 1008);
	CHECK(board_pmu_decode(BOARD_A2, f + BOARD_PMU_REC_SIZE, BOARD_PMU_REC_SIZE, 1, &r, &e) == 1);
	CHECK(r.total_cycles == 20000 && r.core == BOARD_CUBE);

	/* the core id is bits 1..7 of the type word */
	gen_a2_pmu(f, 1 | 13 << 1, 3, 1, 5, 0, 111, 222);
	CHECK(board_pmu_decode(BOARD_A2, f, BOARD_PMU_REC_SIZE, 0, &r, &e) == 1);
	CHECK(r.core == BOARD_VECTOR && r.core_id == 13 && r.block_id == 3 && r.sub_block_id == 1);
	CHECK(r.start_time == 111 && r.end_time == 222);

	/* streaming: two records, then the end */
	gen_a2_pmu(f, 1, 0, 0, 10000, 1001, 0, 0);
	rd = rd_bytes(f, sizeof f);
	CHECK(rd != NULL);
	while (rd && board_pmu_next(rd, BOARD_A2, &index, &r, &e) == 1)
		n++;
	CHECK(n == 2 && index == 2);
	if (rd)
		rd_close(rd);

	/* a file cut inside its second record */
	rd = rd_bytes(f, sizeof f - 5);
	index = 0;
	CHECK(rd && board_pmu_next(rd, BOARD_A2, &index, &r, &e) == 1);
	CHECK(rd && board_pmu_next(rd, BOARD_A2, &index, &r, &e) == -1);
	CHECK(e.code == BOARD_ERR_TRUNCATED && e.index == 1 && e.offset == 128 && e.line == 0);
	{
		char msg[128];
		board_err_text(&e, msg, sizeof msg);
		CHECK_MSG(!strcmp(msg, "PMU record cut short at record 1 (byte 128)"), "message \"%s\"", msg);
	}
	if (rd)
		rd_close(rd);
	/* an empty file has no records */
	rd = rd_bytes("", 0);
	index = 0;
	CHECK(rd && board_pmu_next(rd, BOARD_A2, &index, &r, &e) == 0);
	if (rd)
		rd_close(rd);
}

static void test_310p_a5(void)
{
	unsigned char f[3 * BOARD_PMU_REC_SIZE];
	struct board_pmu r;
	struct board_err e;
	struct rd *rd;
	uint64_t index = 0;

	gen_310p_pmu(f, 50000, 1001);
	CHECK(board_pmu_decode(BOARD_310P, f, BOARD_PMU_REC_SIZE, 0, &r, &e) == 1);
	CHECK(r.total_cycles == 50000 && r.slot[0] == 1001 && r.slot[7] == 1008);
	CHECK(r.core == BOARD_CUBE && r.block_id == 0 && r.nslots == 8);

	gen_a5_pmu(f, BOARD_A5_FUNC_BLOCK_PMU, 0, 0, 50000, 1001);
	CHECK(board_pmu_decode(BOARD_A5, f, BOARD_PMU_REC_SIZE, 0, &r, &e) == 1);
	CHECK(r.total_cycles == 50000 && r.core == BOARD_CUBE && r.nslots == 10);
	CHECK(r.slot[0] == 1001 && r.slot[9] == 1010);
	/* A5: the core id is the high byte of the type word */
	gen_a5_pmu(f, BOARD_A5_FUNC_BLOCK_PMU | 0x400, 1 | 7 << 8, 4, 9, 0);
	CHECK(board_pmu_decode(BOARD_A5, f, BOARD_PMU_REC_SIZE, 0, &r, &e) == 1);
	CHECK(r.core == BOARD_VECTOR && r.core_id == 7 && r.block_id == 4);
	/* other function types are skipped, not errors */
	gen_a5_pmu(f, 0x28, 0, 0, 1, 0);
	CHECK(board_pmu_decode(BOARD_A5, f, BOARD_PMU_REC_SIZE, 0, &r, &e) == 0);
	/* streaming passes over them */
	gen_a5_pmu(f + BOARD_PMU_REC_SIZE, BOARD_A5_FUNC_BLOCK_PMU, 0, 2, 77, 0);
	gen_a5_pmu(f + 2 * BOARD_PMU_REC_SIZE, 0x1, 0, 0, 1, 0);
	rd = rd_bytes(f, sizeof f);
	CHECK(rd && board_pmu_next(rd, BOARD_A5, &index, &r, &e) == 1);
	CHECK(r.block_id == 2 && r.total_cycles == 77 && index == 2);
	CHECK(rd && board_pmu_next(rd, BOARD_A5, &index, &r, &e) == 0);
	CHECK(index == 3);
	if (rd)
		rd_close(rd);
	/* a layout there is none of */
	CHECK(board_pmu_decode((enum board_fmt)7, f, BOARD_PMU_REC_SIZE, 2, &r, &e) == -1);
	CHECK(e.code == BOARD_ERR_TYPE && e.index == 2 && e.offset == 256);
	/* short input to the byte decoder */
	CHECK(board_pmu_decode(BOARD_310P, f, 127, 4, &r, &e) == -1);
	CHECK(e.code == BOARD_ERR_TRUNCATED && e.index == 4 && e.offset == 512);
}

static void test_stream_task(void)
{
	unsigned s, t;
	board_stream_task(5000, 7, &s, &t);
	CHECK(s == 5000 % 2048 && t == 7);
	board_stream_task(0x1000 | 0x2000 | 0x4005, 0x1234, &s, &t);
	CHECK(t == ((0x1234 & 0x1FFF) | (0x7005 & 0xE000)) && s == 0x7005 % 2048);
	board_stream_task(0x2000 | 0x0123, 0x5456, &s, &t);
	CHECK(t == ((0x5456 & 0xF000) | 0x0123) && s == (0x5456 & 0x0FFF));
}

static void test_duration(void)
{
	unsigned char f[128];
	struct board_stamp st;
	struct board_span span = { 0, 0 };
	struct board_err e;
	struct rd *rd;
	uint64_t index = 0;
	char text[64];
	float us;

	/* 910B: ACSQ START at 30000, END at 40000 */
	gen_stamp(f, 64, 0, 30000);
	gen_stamp(f + 64, 64, 1, 40000);
	rd = rd_bytes(f, 128);
	CHECK(rd && board_stamp_next(rd, BOARD_A2, &index, &st, &e) == 1);
	CHECK(st.kind == BOARD_STAMP_START && st.task_type == 0 && st.sys_time == 30000);
	board_span_add(BOARD_A2, &span, &st);
	CHECK(rd && board_stamp_next(rd, BOARD_A2, &index, &st, &e) == 1);
	CHECK(st.kind == BOARD_STAMP_END && st.sys_time == 40000);
	board_span_add(BOARD_A2, &span, &st);
	CHECK(rd && board_stamp_next(rd, BOARD_A2, &index, &st, &e) == 0);
	if (rd)
		rd_close(rd);
	CHECK(span.start == 30000 && span.end == 40000);
	us = board_span_us(&span, 50000);
	snprintf(text, sizeof text, "%f", (double)us);
	CHECK_MSG(!strcmp(text, "200.000000"), "910B Task Duration %s", text);
	/* an AI CPU task (type 1) does not move the span */
	gen_stamp(f, 64, 1 << 10, 99999);
	CHECK(board_stamp_decode(BOARD_A2, f, 64, 2, &st, &e) == 1);
	CHECK(st.task_type == 1);
	board_span_add(BOARD_A2, &span, &st);
	CHECK(span.start == 30000);
	/* function types other than start and end are kept, and ignored */
	gen_stamp(f, 64, 5, 1);
	CHECK(board_stamp_decode(BOARD_A2, f, 64, 0, &st, &e) == 1 && st.kind == BOARD_STAMP_OTHER);
	board_span_add(BOARD_A2, &span, &st);
	CHECK(span.start == 30000 && span.end == 40000);

	/* 310P: HWTS START at 60000, END at 70000, 38400 kHz */
	memset(&span, 0, sizeof span);
	gen_stamp(f, 64, 0, 60000);
	gen_stamp(f + 64, 64, 1, 70000);
	CHECK(board_stamp_decode(BOARD_310P, f, 64, 0, &st, &e) == 1 && st.kind == BOARD_STAMP_START);
	board_span_add(BOARD_310P, &span, &st);
	CHECK(board_stamp_decode(BOARD_310P, f + 64, 64, 1, &st, &e) == 1 && st.kind == BOARD_STAMP_END);
	board_span_add(BOARD_310P, &span, &st);
	CHECK(span.start == 60000 && span.end == 70000);
	us = board_span_us(&span, 38400);
	snprintf(text, sizeof text, "%f", (double)us);
	/* 260.4167 us, as the reference's single precision prints it */
	CHECK_MSG(!strcmp(text, "260.416656"), "310P Task Duration %s", text);
	CHECK(fabs(us - 260.4167) < 1e-3);
	/* HWTS: only the low three bits are the function type */
	gen_stamp(f, 64, 0xF9, 1);
	CHECK(board_stamp_decode(BOARD_310P, f, 64, 0, &st, &e) == 1 && st.kind == BOARD_STAMP_END);

	/* A5: 32-byte stamps, 1 000 000 kHz */
	memset(&span, 0, sizeof span);
	CHECK(board_stamp_size(BOARD_A5) == 32);
	gen_stamp(f, 32, 0, 60000);
	gen_stamp(f + 32, 32, 1 | 2 << 10, 70000); /* a MIX task counts */
	index = 0;
	rd = rd_bytes(f, 64);
	CHECK(rd && board_stamp_next(rd, BOARD_A5, &index, &st, &e) == 1);
	board_span_add(BOARD_A5, &span, &st);
	CHECK(rd && board_stamp_next(rd, BOARD_A5, &index, &st, &e) == 1);
	board_span_add(BOARD_A5, &span, &st);
	if (rd)
		rd_close(rd);
	us = board_span_us(&span, 1000000);
	snprintf(text, sizeof text, "%f", (double)us);
	CHECK_MSG(!strcmp(text, "10.000000"), "A5 Task Duration %s", text);

	/* no end, end before start, no clock: no duration */
	span.end = 0;
	CHECK(board_span_us(&span, 50000) < 0);
	span.end = 10;
	CHECK(board_span_us(&span, 50000) < 0);
	span.end = 70000;
	CHECK(board_span_us(&span, 0) < 0);

	/* a stamp file cut short */
	index = 0;
	rd = rd_bytes(f, 40);
	CHECK(rd && board_stamp_next(rd, BOARD_A5, &index, &st, &e) == 1);
	CHECK(rd && board_stamp_next(rd, BOARD_A5, &index, &st, &e) == -1);
	CHECK(e.code == BOARD_ERR_TRUNCATED && e.index == 1 && e.offset == 32);
	if (rd)
		rd_close(rd);
}

static void test_l2(void)
{
	unsigned char f[BOARD_L2_SIZE + 8];
	uint64_t v[8];
	struct board_err e;
	struct rd *rd;
	memset(f, 0, sizeof f);
	for (int i = 0; i < 8; i++)
		put64(f, 8 + 8 * (size_t)i, 1001 + (uint64_t)i);
	CHECK(board_l2_decode(f, BOARD_L2_SIZE, v, &e) == 1);
	CHECK(v[0] == 1001 && v[4] == 1005 && v[7] == 1008);
	rd = rd_bytes(f, BOARD_L2_SIZE);
	CHECK(rd && board_l2_read(rd, v, &e) == 1 && v[7] == 1008);
	if (rd)
		rd_close(rd);
	/* exactly 72 bytes, no more, no fewer */
	CHECK(board_l2_decode(f, 71, v, &e) == -1 && e.code == BOARD_ERR_SIZE);
	rd = rd_bytes(f, BOARD_L2_SIZE + 8);
	CHECK(rd && board_l2_read(rd, v, &e) == -1 && e.code == BOARD_ERR_SIZE);
	if (rd)
		rd_close(rd);
	rd = rd_bytes(f, 0);
	CHECK(rd && board_l2_read(rd, v, &e) == -1 && e.code == BOARD_ERR_SIZE);
	if (rd)
		rd_close(rd);
}

static void test_basic(void)
{
	/* the reference's three test files (the first two without a final LF) */
	static const char f910b[] = "Op Name=add\nBlock Dim=1\nRun Soc Version=Ascend910B4";
	static const char f310p[] = "Op Name=add\nBlock Dim=3\nRun Soc Version=Ascend310P3";
	static const char fa5[] = "Op Name=add\nBlock Dim=1\nRun Soc Version=Ascend950PR_9589\nDevice Id=0\nPid=0\n"
	                          "Current Freq=N/A\nRated Freq=1650\nIs MC2=0\nIs Lccl=0\nHas Simt=1\n";
	struct board_basic b;
	struct board_err e;
	struct rd *rd;

	board_basic_init(&b);
	CHECK(board_basic_parse(f910b, strlen(f910b), &b, &e) == -1);
	CHECK(e.code == BOARD_ERR_FIELD && !strcmp(e.what, "no Device Id"));
	CHECK(!strcmp(b.op_name, "add") && b.block_dim == 1 && !strcmp(b.soc, "Ascend910B4"));
	CHECK(!b.have_device_id && !b.have_cur_freq);

	board_basic_init(&b);
	CHECK(board_basic_parse(f310p, strlen(f310p), &b, &e) == -1);
	CHECK(b.block_dim == 3 && !strcmp(b.soc, "Ascend310P3"));

	board_basic_init(&b);
	rd = rd_bytes(fa5, strlen(fa5));
	CHECK(rd && board_basic_read(rd, &b, &e) == 0);
	if (rd)
		rd_close(rd);
	CHECK(!strcmp(b.op_name, "add") && b.block_dim == 1 && !strcmp(b.soc, "Ascend950PR_9589"));
	CHECK(b.have_device_id && b.device_id == 0 && !strcmp(b.pid, "0"));
	CHECK(b.cur_freq == -1 && !strcmp(b.cur_freq_text, "N/A"));
	CHECK(b.rated_freq == 1650 && !strcmp(b.rated_freq_text, "1650"));
	CHECK(!b.is_mc2 && !b.is_lccl && b.has_simt);

	/* lines without exactly one '=' are ignored, and CRs dropped */
	board_basic_init(&b);
	{
		static const char f[] = "junk\r\nA=B=C\r\nOp Name=mul\r\nBlock Dim=8\r\nRun Soc Version=Ascend310P3\r\n"
		                        "Device Id=3\r\nIs MC2=1\r\n";
		CHECK(board_basic_parse(f, strlen(f), &b, &e) == 0);
		CHECK(!strcmp(b.op_name, "mul") && b.block_dim == 8 && b.device_id == 3 && b.is_mc2);
	}
	/* a final '=' starts no piece: "Pid=7=" gives 7, "Op Name=" nothing,
	 * "Run Soc Version==" an empty value */
	board_basic_init(&b);
	{
		static const char f[] = "Pid=7=\nOp Name=\nRun Soc Version==\n";
		CHECK(board_basic_parse(f, strlen(f), &b, &e) == -1);
		CHECK(b.have_pid && !strcmp(b.pid, "7") && !b.have_op_name);
		CHECK(b.have_soc && !strcmp(b.soc, ""));
	}
	/* a Device Id that is not a number: the line is named */
	board_basic_init(&b);
	{
		static const char f[] = "Op Name=x\nDevice Id=zero\n";
		CHECK(board_basic_parse(f, strlen(f), &b, &e) == -1);
		CHECK(e.code == BOARD_ERR_FIELD && e.line == 2);
	}
	board_basic_init(&b);
	{
		static const char f[] = "Block Dim=-1\n";
		CHECK(board_basic_parse(f, strlen(f), &b, &e) == -1 && e.line == 1);
	}
	/* a value longer than the struct holds */
	board_basic_init(&b);
	{
		char f[600];
		memcpy(f, "Op Name=", 8);
		memset(f + 8, 'x', 400);
		f[408] = '\n';
		CHECK(board_basic_parse(f, 409, &b, &e) == -1 && e.line == 1);
	}
	/* the other fields missing, in order */
	board_basic_init(&b);
	CHECK(board_basic_parse("", 0, &b, &e) == -1 && !strcmp(e.what, "no Op Name"));
}

static void test_fmt(void)
{
	CHECK(board_fmt_of(CHIP_A2) == BOARD_A2);
	CHECK(board_fmt_of(CHIP_A3) == BOARD_A2);
	CHECK(board_fmt_of(CHIP_310P) == BOARD_310P);
	CHECK(board_fmt_of(CHIP_A5) == BOARD_A5);
	CHECK(board_fmt_of(CHIP_310B) == -1);
}

/* Random bytes, of random lengths, into every decoder: each answers a
 * record, a skip or an error with its description, and nothing else
 * (under the sanitizer build: no read outside the bytes given). */
static void test_random(void)
{
	static const char text[] = "ab=\n1 \rDevice Id=Block Dim=Op Name";
	uint64_t seed = 0x9E3779B97F4A7C15ull;
	int bad = 0;
	for (int round = 0; round < 3000; round++) {
		unsigned char buf[200];
		size_t n;
		struct board_pmu r;
		struct board_stamp st;
		struct board_basic b;
		struct board_err e;
		uint64_t v[8];
		char *copy;
		int rc;
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		n = (size_t)(seed >> 33) % sizeof buf;
		for (size_t i = 0; i < n; i++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* text-like bytes half the time, so '=' and LF turn up */
			buf[i] = (round & 1) ? (unsigned char)text[(seed >> 40) % (sizeof text - 1)] : (unsigned char)(seed >> 56);
		}
		/* exact-size copies, so the sanitizer sees any overread */
		copy = malloc(n ? n : 1);
		memcpy(copy, buf, n);
		for (int fmt = BOARD_A2; fmt <= BOARD_A5; fmt++) {
			rc = board_pmu_decode((enum board_fmt)fmt, copy, n, 0, &r, &e);
			bad += rc < -1 || rc > 1 || (rc < 0 && !e.what) || (rc > 0 && n < BOARD_PMU_REC_SIZE);
			rc = board_stamp_decode((enum board_fmt)fmt, copy, n, 0, &st, &e);
			bad += rc < -1 || rc > 1 || (rc < 0 && !e.what) || (rc > 0 && n < board_stamp_size((enum board_fmt)fmt));
		}
		rc = board_l2_decode(copy, n, v, &e);
		bad += (rc > 0) != (n == BOARD_L2_SIZE);
		board_basic_init(&b);
		rc = board_basic_parse(copy, n, &b, &e);
		bad += (rc != 0 && rc != -1) || (rc < 0 && !e.what);
		free(copy);
	}
	CHECK_MSG(bad == 0, "%d odd answers to random input", bad);
}

int main(void)
{
	test_a2();
	test_310p_a5();
	test_stream_task();
	test_duration();
	test_l2();
	test_basic();
	test_fmt();
	test_random();
	return unit_done();
}
