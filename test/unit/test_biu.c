/* Unit tests of the BIU timeline decoder (lib/biu.c): the records of one
 * chunk in both modes, user trace regions, the end-marker sequence, the
 * region map and tune log lines, and whole files (bad sizes, channels
 * and core types, a cut file).  Every expected number is worked out by
 * hand from the records in the comments. */
#include "biu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define MAXEV 64
static struct biu_event ev[MAXEV];
static size_t nev;

static void take(void *ctx, const struct biu_event *e)
{
	(void)ctx;
	if (nev < MAXEV)
		ev[nev] = *e;
	nev++;
}

/* Records (cycles, biuInfo) as the device writes them, little-endian. */
static size_t recs(unsigned char *out, const unsigned (*r)[2], size_t n)
{
	size_t i;
	for (i = 0; i < n; i++) {
		out[4 * i] = (unsigned char)r[i][0];
		out[4 * i + 1] = (unsigned char)(r[i][0] >> 8);
		out[4 * i + 2] = (unsigned char)r[i][1];
		out[4 * i + 3] = (unsigned char)(r[i][1] >> 8);
	}
	return 4 * n;
}

static struct biu *run(enum biu_mode mode, unsigned ch, const unsigned (*r)[2], size_t n)
{
	unsigned char buf[4 * 64];
	struct biu *b = biu_new(mode, take, NULL);
	nev = 0;
	biu_data(b, ch, buf, recs(buf, r, n));
	return b;
}

#define EV(i, k, p, id_, st, du) \
	do { \
		CHECK_INT(ev[i].kind, k); \
		CHECK_INT(ev[i].pipe, p); \
		CHECK_INT(ev[i].id, id_); \
		CHECK_INT(ev[i].start, st); \
		CHECK_INT(ev[i].dur, du); \
	} while (0)

/* The chunk of spec section "BIU timeline": (10,0xF001) SCALAR busy at
 * cycle 10; (20,0xF000) idle at 30; (30,0x2111) CUBE mark 0x111 = 273 at
 * 60; (40,0xA60C) FIXP mark 0x60C = 1548 at 100; (50,0xA60C) again at
 * 150; (60,0x060D) SCALAR mark 1549 at 210. */
static const unsigned chunk1[][2] = { { 10, 0xF001 }, { 20, 0xF000 }, { 30, 0x2111 },
                                      { 40, 0xA60C }, { 50, 0xA60C }, { 60, 0x060D } };

static void test_pipe_timeline(void)
{
	struct biu *b = run(BIU_PIPE_TIMELINE, 1, chunk1, 6);
	const struct biu_stats *st;
	CHECK_INT(nev, 5);
	EV(0, BIU_EV_BUSY, BIU_SCALAR, BIU_SCALAR, 10, 20);
	EV(1, BIU_EV_MARK, BIU_CUBE, 273, 60, 1);
	EV(2, BIU_EV_MARK, BIU_FIXP, 1548, 100, 1);
	EV(3, BIU_EV_MARK, BIU_FIXP, 1548, 150, 1);
	EV(4, BIU_EV_MARK, BIU_SCALAR, 1549, 210, 1);
	CHECK_INT(biu_cycles(b, 1), 210);
	biu_finish(b);
	st = biu_stats(b);
	/* 1548 has bit 10: a trace start of region 524, started twice (one
	 * overwritten), never ended; 1549 starts region 525 on SCALAR. */
	CHECK_INT(st->loss[1][BIU_FIXP].overwritten, 1);
	CHECK_INT(st->loss[1][BIU_FIXP].open, 1);
	CHECK_INT(st->loss[1][BIU_SCALAR].open, 1);
	CHECK_INT(st->loss[1][BIU_CUBE].open, 0);
	CHECK_INT(st->records, 6);
	CHECK_INT(st->seen, 1u << 1);
	biu_free(b);
}

static void test_instr_timeline(void)
{
	struct biu *b = run(BIU_INSTR_TIMELINE, 1, chunk1, 6);
	/* Only 1548 has bits 9 and 10 (0x600); SCALAR is never drawn. */
	CHECK_INT(nev, 1);
	EV(0, BIU_EV_INSTR, BIU_FIXP, 1548, 100, 50);
	biu_finish(b);
	CHECK_INT(biu_stats(b)->loss[1][BIU_FIXP].pairs, 1);
	CHECK_INT(biu_stats(b)->loss[1][BIU_FIXP].open, 0);
	biu_free(b);
	/* A start never ended is counted open, by id. */
	{
		static const unsigned r[][2] = { { 5, 0x4600 }, { 5, 0x4600 }, { 5, 0x4601 }, { 5, 0x4E05 } };
		uint16_t ids[4];
		b = run(BIU_INSTR_TIMELINE, 0, r, 4);
		biu_finish(b);
		CHECK_INT(nev, 1);
		EV(0, BIU_EV_INSTR, BIU_MTE2, 0x600, 5, 5);
		CHECK_INT(biu_stats(b)->loss[0][BIU_MTE2].open, 2);
		CHECK_INT(biu_open_ids(b, 0, BIU_MTE2, ids, 4), 2);
		CHECK_INT(ids[0], 0x601);
		CHECK_INT(ids[1], 0xE05);
		biu_free(b);
	}
	/* Another ctrl (6) is ignored, cycles and all. */
	{
		static const unsigned r[][2] = { { 7, 0x6123 }, { 3, 0x1600 }, { 4, 0x1600 } };
		b = run(BIU_INSTR_TIMELINE, 0, r, 3);
		CHECK_INT(nev, 1);
		EV(0, BIU_EV_INSTR, BIU_VECTOR, 0x600, 3, 4);
		CHECK_INT(biu_stats(b)->ignored, 1);
		biu_free(b);
	}
}

static void test_regions(void)
{
	const struct biu_stats *st;
	struct biu *b;
	{
		/* start 1029 (0x405: region 5) at 100, end 3077 (0xC05) at 350. */
		static const unsigned r[][2] = { { 100, 0x0405 }, { 250, 0x0C05 } };
		b = run(BIU_PIPE_TIMELINE, 0, r, 2);
		CHECK_INT(nev, 3);
		EV(0, BIU_EV_MARK, BIU_SCALAR, 1029, 100, 1);
		EV(1, BIU_EV_MARK, BIU_SCALAR, 3077, 350, 1);
		EV(2, BIU_EV_REGION, BIU_SCALAR, 5, 100, 250);
		CHECK(!strcmp(biu_colour(5), "thread_state_running"));
		biu_free(b);
	}
	{
		/* 1025@10, 1026@20, 3073@50, 3074@100. */
		static const unsigned r[][2] = { { 10, 0x0401 }, { 10, 0x0402 }, { 30, 0x0C01 }, { 50, 0x0C02 } };
		b = run(BIU_PIPE_TIMELINE, 0, r, 4);
		CHECK_INT(nev, 6);
		EV(3, BIU_EV_REGION, BIU_SCALAR, 1, 10, 40);
		EV(5, BIU_EV_REGION, BIU_SCALAR, 2, 20, 80);
		CHECK(!strcmp(biu_colour(1), "good"));
		CHECK(!strcmp(biu_colour(2), "thread_state_iowait"));
		CHECK(!strcmp(biu_colour(0), "thread_state_runnable"));
		CHECK(!strcmp(biu_colour(3), "thread_state_unknown"));
		CHECK(!strcmp(biu_colour(12 + 3), "thread_state_unknown"));
		biu_finish(b);
		CHECK_INT(biu_stats(b)->loss[0][BIU_SCALAR].pairs, 2);
		biu_free(b);
	}
	{
		/* VECTOR (ctrl 1): 1027 (0x403) at 100, 20 at 150, 3075 at 350;
		 * then an end of region 3 without a start, and 1031 (region 7)
		 * started, never ended. */
		static const unsigned r[][2] = { { 100, 0x1403 }, { 50, 0x1014 }, { 200, 0x1C03 },
		                                 { 10, 0x1C03 }, { 10, 0x1407 } };
		b = run(BIU_PIPE_TIMELINE, 1, r, 5);
		CHECK_INT(nev, 6);
		EV(0, BIU_EV_MARK, BIU_VECTOR, 1027, 100, 1);
		EV(1, BIU_EV_MARK, BIU_VECTOR, 20, 150, 1);
		EV(2, BIU_EV_MARK, BIU_VECTOR, 3075, 350, 1);
		EV(3, BIU_EV_REGION, BIU_VECTOR, 3, 100, 250);
		EV(4, BIU_EV_MARK, BIU_VECTOR, 3075, 360, 1);
		EV(5, BIU_EV_MARK, BIU_VECTOR, 1031, 370, 1);
		biu_finish(b);
		st = biu_stats(b);
		CHECK_INT(st->loss[1][BIU_VECTOR].unpaired, 1);
		CHECK_INT(st->loss[1][BIU_VECTOR].open, 1);
		CHECK_INT(st->loss[1][BIU_VECTOR].pairs, 1);
		biu_free(b);
	}
}

static void test_endmarks(void)
{
	struct biu *b;
	uint64_t start;
	unsigned next;
	{
		/* Two events (the SCALAR busy span and a mark), then 0xD88. */
		static const unsigned r[][2] = { { 1, 0xF001 }, { 1, 0xF000 }, { 1, 0x2111 }, { 1, 0x0D88 } };
		b = run(BIU_PIPE_TIMELINE, 0, r, 4);
		CHECK(biu_endmark(b, 0, &start, &next));
		CHECK_INT(start, 2);
		CHECK_INT(next, 1);
		biu_free(b);
	}
	{
		/* Out of order: 0xD88 then 0xDAA. */
		static const unsigned r[][2] = { { 1, 0x0D88 }, { 1, 0x0DAA } };
		b = run(BIU_PIPE_TIMELINE, 0, r, 2);
		CHECK(!biu_endmark(b, 0, &start, &next));
		biu_finish(b);
		CHECK_INT(nev, 2);           /* both marks kept */
		CHECK_INT(biu_stats(b)->erased, 0);
		biu_free(b);
	}
	{
		/* A non-sequence id ends it: the held marks are data. */
		static const unsigned r[][2] = { { 1, 0x0D88 }, { 1, 0x0D99 }, { 1, 0x0100 } };
		b = run(BIU_PIPE_TIMELINE, 0, r, 3);
		CHECK(!biu_endmark(b, 0, &start, &next));
		CHECK_INT(nev, 3);
		biu_free(b);
	}
	{
		/* The whole sequence after one instruction, then pipe samples and
		 * 0xDFF again: every event from 0xD88 on is dropped at the end,
		 * and the end marks' region ends (bits 10, 11) are no loss. */
		static const unsigned r[][2] = {
			{ 2, 0xF002 }, { 3, 0xF000 }, { 1, 0x0D88 }, { 1, 0x0D99 }, { 1, 0x0DAA }, { 1, 0x0DBB },
			{ 1, 0x0DCC }, { 1, 0x0DDD }, { 1, 0x0DEE }, { 1, 0x0DFF }, { 1, 0xF004 }, { 9, 0xF000 },
			{ 1, 0x0DFF },
		};
		b = run(BIU_PIPE_TIMELINE, 0, r, 13);
		CHECK(biu_endmark(b, 0, &start, &next));
		CHECK_INT(start, 1);
		CHECK_INT(next, 8);
		CHECK_INT(nev, 1);           /* held back */
		EV(0, BIU_EV_BUSY, BIU_VECTOR, BIU_VECTOR, 2, 3);
		biu_finish(b);
		CHECK_INT(nev, 1);
		CHECK_INT(biu_stats(b)->erased, 8 + 1 + 1);
		CHECK_INT(biu_stats(b)->loss[0][BIU_SCALAR].unpaired, 0);
		biu_free(b);
	}
	{
		/* InstrTimeline: an instruction id ends a sequence before it is
		 * paired, so nothing of it is ever dropped. */
		static const unsigned r[][2] = { { 1, 0x0D88 }, { 1, 0x4600 }, { 4, 0x4600 } };
		b = run(BIU_INSTR_TIMELINE, 0, r, 3);
		biu_finish(b);
		CHECK_INT(nev, 1);
		EV(0, BIU_EV_INSTR, BIU_MTE2, 0x600, 2, 4);
		biu_free(b);
	}
}

/* More events after 0xD88 than are held: the sequence is data. */
static void test_hold_over(void)
{
	size_t n = 2 * (BIU_HOLD_MAX + 10) + 1, i;
	unsigned char *buf = malloc(4 * n);
	struct biu *b = biu_new(BIU_PIPE_TIMELINE, take, NULL);
	CHECK(buf != NULL);
	if (!buf)
		return;
	/* (1,0x0D88), then busy/idle samples of VECTOR: one span each pair. */
	buf[0] = 1, buf[1] = 0, buf[2] = 0x88, buf[3] = 0x0D;
	for (i = 1; i < n; i++) {
		buf[4 * i] = 1;
		buf[4 * i + 1] = 0;
		buf[4 * i + 2] = i % 2 ? 0x02 : 0x00;
		buf[4 * i + 3] = 0xF0;
	}
	nev = 0;
	biu_data(b, 3, buf, 4 * n);
	biu_finish(b);
	/* The mark and BIU_HOLD_MAX + 10 spans, none dropped. */
	CHECK_INT(nev, 1 + BIU_HOLD_MAX + 10);
	CHECK_INT(biu_stats(b)->held_over, 1);
	CHECK_INT(biu_stats(b)->erased, 0);
	biu_free(b);
	free(buf);
}

static void test_map(void)
{
	struct biu_map m;
	const struct biu_map_entry *e;
	const char *name;
	size_t len;
	static const char *lines[] = {
		"region_id=100,pipe=FIXP,some_info,pc=0x1000,opcode=add_op",
		"region_id=200,pipe=cube,some_info,pc=0x2000,opcode=mul_op",
		"region_id=300,pipe=invalid,some_info,pc=0x3000,opcode=bad_op",
		"invalid_line",
		"region_id=400,pipe=SCALAR,x,pc=0x4000,opcode=s_op",       /* the map names no SCALAR */
		"region_id=12345,pipe=MTE2,x,pc=0x5000,opcode=long_id",    /* five digits */
		"region_id=5,pipe=MTE2,pc=0x5000,opcode=no_field",          /* nothing between pipe and pc */
		"region_id=6,pipe=mte3,a,pc=0xZZ,b,pc=0x60,opcode=vmul-x.y", /* the second pc field */
	};
	static const int taken[] = { 1, 1, 0, 0, 0, 0, 0, 1 };
	size_t i;
	biu_map_init(&m);
	for (i = 0; i < sizeof lines / sizeof *lines; i++)
		CHECK_MSG(biu_map_line(&m, lines[i], strlen(lines[i]), 0x10000) == taken[i], "line %zu", i);
	CHECK((e = biu_map_get(&m, BIU_FIXP, 100)) != NULL);
	if (e) {
		CHECK_INT(e->pc, 0x11000);
		name = biu_map_name(&m, e, &len);
		CHECK(len == 6 && !memcmp(name, "add_op", 6));
	}
	CHECK((e = biu_map_get(&m, BIU_CUBE, 200)) != NULL);
	if (e) {
		CHECK_INT(e->pc, 0x12000);
		name = biu_map_name(&m, e, &len);
		CHECK(len == 6 && !memcmp(name, "mul_op", 6));
		/* The first opcode asked for gets the first colour. */
		CHECK(!strcmp(biu_map_colour(&m, e), "thread_state_runnable"));
	}
	CHECK((e = biu_map_get(&m, BIU_MTE3, 6)) != NULL);
	if (e) {
		CHECK_INT(e->pc, 0x10060);
		name = biu_map_name(&m, e, &len);
		CHECK(len == 6 && !memcmp(name, "vmul-x", 6));
		CHECK(!strcmp(biu_map_colour(&m, e), "good"));
	}
	CHECK(!strcmp(biu_map_colour(&m, biu_map_get(&m, BIU_CUBE, 200)), "thread_state_runnable"));
	CHECK(biu_map_get(&m, BIU_FIXP, 200) == NULL);
	CHECK_INT(m.entries, 3);
	biu_map_free(&m);
}

static void test_tune(void)
{
	static const char *lines[] = {
		"[INFO] compile ok",
		"TUNE-ERROR: all dfx ids consumed[pipe=mte2]",
		"xx TUNE-ERROR: all dfx ids consumed[pipe=mte3] yy",
		"TUNE-ERROR: all dfx ids consumed[pipe=cube]",
		"TUNE-ERROR: all dfx ids consumed[pipe=scalar]",
		"TUNE-ERROR: something else[pipe=vector]",
	};
	static const int want[] = { -1, BIU_MTE2, BIU_MTE3, BIU_CUBE, -1, -1 };
	unsigned mask = 0;
	char buf[80];
	size_t i;
	for (i = 0; i < sizeof lines / sizeof *lines; i++) {
		int p = biu_tune_line(lines[i], strlen(lines[i]));
		CHECK_MSG(p == want[i], "line %zu: got %d", i, p);
		if (p >= 0)
			mask |= 1u << p;
	}
	biu_tune_pipes(mask, buf, sizeof buf);
	CHECK_MSG(!strcmp(buf, "cube, mte2, mte3"), "got '%s'", buf);
}

static void put_chunk(FILE *f, unsigned core, unsigned type, uint32_t valid, const unsigned (*r)[2], size_t n)
{
	static unsigned char data[BIU_DATA_SIZE];
	unsigned char head[8] = { (unsigned char)core, (unsigned char)(core >> 8), (unsigned char)type,
		                  (unsigned char)(type >> 8), (unsigned char)valid, (unsigned char)(valid >> 8),
		                  (unsigned char)(valid >> 16), (unsigned char)(valid >> 24) };
	memset(data, 0, sizeof data);
	recs(data, r, n);
	fwrite(head, 1, 8, f);
	fwrite(data, 1, sizeof data, f);
}

static void test_files(void)
{
	static const unsigned r[][2] = { { 10, 0x4600 }, { 5, 0x4600 } };
	const char *path;
	char msg[200];
	struct biu *b;
	FILE *f;
	unit_workdir("test_biu");
	path = unit_path("timeline.bin");

	/* Two chunks of channel 4 (core 1 veccore0): cycles run on across
	 * them; a chunk of core type 3 and one of core 6 are skipped; validLen
	 * 6 parses one record; validLen past 2 MiB is cut to it. */
	f = fopen(path, "wb");
	CHECK(f != NULL);
	if (!f)
		return;
	put_chunk(f, 1, 1, 4, r, 2);
	put_chunk(f, 1, 1, 6, r + 1, 1);
	put_chunk(f, 0, 3, 8, r, 2);
	put_chunk(f, 6, 0, 8, r, 2);
	put_chunk(f, 2, 2, 0xFFFFFFFF, r, 2);
	fclose(f);
	b = biu_new(BIU_INSTR_TIMELINE, take, NULL);
	nev = 0;
	msg[0] = 0;
	CHECK_INT(biu_read_file(b, path, msg, sizeof msg), 1);
	CHECK_MSG(!strcmp(msg, "1 chunks claim more than the 2 MiB of records a chunk holds (the first, at byte 8388640: "
	                       "validLen 4294967295): read to 2 MiB"), "got '%s'", msg);
	CHECK_INT(nev, 2);
	EV(0, BIU_EV_INSTR, BIU_MTE2, 0x600, 10, 5);
	CHECK_INT(ev[0].ch, 4);
	CHECK_INT(ev[1].ch, 8);
	CHECK_INT(biu_stats(b)->chunks, 5);
	CHECK_INT(biu_stats(b)->bad_type, 1);
	CHECK_INT(biu_stats(b)->bad_channel, 1);
	CHECK_INT(biu_stats(b)->long_valid, 1);
	CHECK_INT(biu_cycles(b, 4), 15);
	biu_free(b);

	/* Cut inside the second chunk: the first is read, the rest said. */
	f = fopen(path, "wb");
	if (!f)
		return;
	put_chunk(f, 0, 0, 8, r, 2);
	fwrite("abcdefghij", 1, 10, f);
	fclose(f);
	b = biu_new(BIU_INSTR_TIMELINE, take, NULL);
	nev = 0;
	msg[0] = 0;
	CHECK_INT(biu_read_file(b, path, msg, sizeof msg), 1);
	CHECK_INT(nev, 1);
	CHECK_MSG(strstr(msg, "2097170 bytes") && strstr(msg, "last 10 bytes"), "got '%s'", msg);
	biu_free(b);

	/* Smaller than a chunk: nothing read, said. */
	f = fopen(path, "wb");
	if (!f)
		return;
	fwrite("abc", 1, 3, f);
	fclose(f);
	b = biu_new(BIU_INSTR_TIMELINE, take, NULL);
	CHECK_INT(biu_read_file(b, path, msg, sizeof msg), 1);
	CHECK_INT(biu_stats(b)->chunks, 0);
	CHECK_INT(biu_read_file(b, unit_path("none"), msg, sizeof msg), -1);
	CHECK_MSG(strstr(msg, "No such file") != NULL, "got '%s'", msg);
	biu_free(b);

	/* Names and heads. */
	{
		char name[32];
		struct biu_head h = { 5, 2, 0 };
		CHECK_INT(biu_channel(&h), 17);
		h.core_id = 6;
		h.core_type = 0;
		CHECK_INT(biu_channel(&h), -2);
		h.core_type = 3;
		CHECK_INT(biu_channel(&h), -1);
		biu_channel_name(1, name, sizeof name);
		CHECK(!strcmp(name, "core0.veccore0"));
		biu_channel_name(14, name, sizeof name);
		CHECK(!strcmp(name, "core4.veccore1"));
		CHECK(!strcmp(biu_pipe_cname(BIU_MTE2), "yellow"));
		CHECK_INT(biu_ctrl_pipe(0xA), BIU_FIXP);
		CHECK_INT(biu_ctrl_pipe(6), -1);
		CHECK_INT(biu_pipe_find("Mte1", 4, 0), BIU_MTE1);
		CHECK_INT(biu_pipe_find("scalar", 6, 0), -1);
		CHECK_INT(biu_pipe_find("scalar", 6, 1), BIU_SCALAR);
	}
}

int main(void)
{
	test_pipe_timeline();
	test_instr_timeline();
	test_regions();
	test_endmarks();
	test_hold_over();
	test_map();
	test_tune();
	test_files();
	return unit_done();
}
