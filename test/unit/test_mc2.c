/* Unit tests of the MC2 AI CPU records (lib/mc2.c): the comm-turn and
 * HCCL task records byte by byte, the records skipped (another level or
 * type, group 0, a data length past the record), whole files (a cut last
 * record), the task stamps of duration.bin and the times the timeline
 * draws.  The expected numbers are worked out by hand in the comments,
 * from the reference's own examples (base tick 536000000000, the
 * task-scheduler clock 50000 kHz: a tick is 0.02 us). */
#include "mc2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "unit.h"

#define BASE 536000000000ULL

static void put16(unsigned char *p, uint64_t v) { p[0] = (unsigned char)v; p[1] = (unsigned char)(v >> 8); }
static void put32(unsigned char *p, uint64_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(unsigned char *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }

/* The head of a record: magic 0x5a5a, level, type, thread 7, data length. */
static void head(unsigned char *r, unsigned level, unsigned type, unsigned len)
{
	memset(r, 0, MC2_REC_SIZE);
	put16(r, 0x5a5a);
	put16(r + 2, level);
	put32(r + 4, type);
	put32(r + 8, 7);
	put32(r + 12, len);
	put64(r + 16, 123456);
}

/* A comm turn: seven times from t0 with the gaps d[0..5]. */
static void turn_rec(unsigned char *r, uint64_t t0, const unsigned d[6], unsigned stream, unsigned task,
                     unsigned cur)
{
	unsigned char *p = r + MC2_HEAD_SIZE;
	uint64_t t = t0;
	head(r, 6000, 4, 80);
	for (int i = 0; i < 7; i++) {
		put64(p + 8 * i, t);
		if (i < 6)
			t += d[i];
	}
	put64(p + 56, 4096);
	put32(p + 64, 1);
	put16(p + 68, stream);
	put16(p + 70, task);
	p[72] = 1;
	p[73] = 2;
	p[74] = (unsigned char)cur;
}

/* An HCCL task info at p: item, group, task, stream, plane, data type,
 * link, transport, size. */
static void hccl_info(unsigned char *p, uint64_t item, uint64_t group, unsigned task, unsigned stream, unsigned plane,
                      unsigned dtype, unsigned link, unsigned transport, uint64_t size)
{
	memset(p, 0, MC2_HCCL_SIZE);
	put64(p, item);
	put64(p + 16, group);
	put32(p + 24, 3);      /* local rank */
	put32(p + 28, 5);      /* remote rank */
	put32(p + 32, 8);      /* rank size */
	put64(p + 40, 77);     /* notify id */
	put64(p + 80, size);
	put32(p + 88, task);
	put16(p + 96, stream);
	put16(p + 98, plane);
	p[101] = (unsigned char)dtype;
	p[102] = (unsigned char)link;
	p[103] = (unsigned char)transport;
}

#define MAXGOT 16
static struct mc2_turn turns[MAXGOT];
static struct mc2_hccl tasks[MAXGOT];
static size_t nturns, ntasks;
static void take_turn(void *ctx, const struct mc2_turn *t) { (void)ctx; if (nturns < MAXGOT) turns[nturns] = *t; nturns++; }
static void take_hccl(void *ctx, const struct mc2_hccl *h) { (void)ctx; if (ntasks < MAXGOT) tasks[ntasks] = *h; ntasks++; }
static const struct mc2_sink sink = { take_turn, take_hccl, NULL };

/* The reference's two turns: gaps 1000 2000 3000 3000 4000 5000 from
 * BASE+1000 (stream 60, task 100, turn 0) and 1000 each (61, 101, turn 1). */
static void test_turns(void)
{
	static const unsigned d0[6] = { 1000, 2000, 3000, 3000, 4000, 5000 }, d1[6] = { 1000, 1000, 1000, 1000, 1000, 1000 };
	unsigned char r[MC2_REC_SIZE];
	struct mc2_stats st = { 0 };
	nturns = 0;
	turn_rec(r, BASE + 1000, d0, 60, 100, 0);
	CHECK_INT(mc2_record(r, &sink, &st), 0);
	turn_rec(r, BASE + 1000, d1, 61, 101, 1);
	CHECK_INT(mc2_record(r, &sink, &st), 0);
	CHECK_INT(nturns, 2);
	CHECK_INT(st.turns, 2);
	CHECK_INT(turns[0].t[0], BASE + 1000);
	CHECK_INT(turns[0].t[1], BASE + 2000);
	CHECK_INT(turns[0].t[6], BASE + 19000);
	CHECK_INT(turns[0].stream, 60);
	CHECK_INT(turns[0].task, 100);
	CHECK_INT(turns[0].current_turn, 0);
	CHECK_INT(turns[0].comm_turn, 2);
	CHECK_INT(turns[0].version, 1);
	CHECK_INT(turns[0].data_len, 4096);
	CHECK_INT(turns[0].device_id, 1);
	CHECK_INT(turns[1].current_turn, 1);
	/* StartServer of turn 0: (1000 - 0) ticks = 20 us after the base,
	 * 1000 ticks long = 20 us; Finalize of turn 1: BASE+6000..7000, ts
	 * 120 us, dur 20. */
	CHECK_INT(mc2_us6(turns[0].t[0] - BASE, 50000), 20000000);
	CHECK_INT(mc2_us6(turns[0].t[1] - turns[0].t[0], 50000), 20000000);
	CHECK_INT(mc2_us6(turns[1].t[5] - BASE, 50000), 120000000);
	CHECK_INT(mc2_us6(turns[1].t[6] - turns[1].t[5], 50000), 20000000);
	CHECK(!strcmp(mc2_phase_name(MC2_START_SERVER), "StartServer"));
	CHECK(!strcmp(mc2_phase_name(MC2_FINALIZE), "Finalize"));
	CHECK(!strcmp(mc2_phase_cname(MC2_START_SERVER), "thread_state_iowait"));
	CHECK(!strcmp(mc2_phase_cname(MC2_FINALIZE), "background_memory_dump"));
}

/* The reference's ACSQ map: {task, stream} type start..end (ticks after
 * BASE), as duration.bin stamps. */
static const unsigned acsq[][5] = {
	{ 1, 4, 1, 0, 5000 }, { 2, 3, 0, 100, 4900 }, { 3, 53, 7, 1300, 1400 }, { 4, 53, 7, 1500, 1700 },
	{ 5, 53, 11, 1300, 1800 }, { 6, 53, 11, 2100, 2200 }, { 7, 54, 8, 2000, 3000 }, { 8, 55, 20, 2100, 2400 },
	{ 9, 56, 21, 3000, 3100 },
};

static void stamps(struct mc2_tasks *m)
{
	unsigned char rec[64];
	struct board_stamp s;
	struct board_err err;
	size_t i;
	mc2_tasks_init(m);
	for (i = 0; i < sizeof acsq / sizeof acsq[0]; i++)
		for (int end = 0; end < 2; end++) {
			memset(rec, 0, sizeof rec);
			put16(rec, (unsigned)end | acsq[i][2] << 10);
			put16(rec + 4, acsq[i][1]);
			put16(rec + 6, acsq[i][0]);
			put64(rec + 8, BASE + acsq[i][3 + end]);
			CHECK_INT(board_stamp_decode(BOARD_A2, rec, sizeof rec, 0, &s, &err), 1);
			mc2_tasks_stamp(m, s.task_id, s.stream_id, s.task_type, s.kind == BOARD_STAMP_END, s.sys_time);
		}
	/* {10, 56} of zero times: an end of 0 before its start of 0 */
	mc2_tasks_stamp(m, 10, 56, 0, 1, 0);
	mc2_tasks_stamp(m, 10, 56, 20, 0, 0);
}

static void test_tasks(void)
{
	struct mc2_tasks m;
	const struct mc2_task *k;
	size_t i, timed = 0;
	stamps(&m);
	CHECK_INT(m.n, 10);
	/* the last AI_CPU start: {1, 4} at BASE */
	CHECK_INT(m.cpu_start, BASE);
	k = mc2_tasks_find(&m, 3, 53);
	CHECK(k && k->type == 7 && k->start == BASE + 1300 && k->end == BASE + 1400);
	/* a task id is matched modulo 2^16 */
	CHECK(mc2_tasks_find(&m, 3 + 65536, 53) == k);
	CHECK(mc2_tasks_find(&m, 3, 54) == NULL);
	k = mc2_tasks_find(&m, 10, 56);
	CHECK(k && k->type == 20 && !k->start && !k->end && !mc2_task_timed(k, BASE));
	mc2_tasks_sort(&m);
	for (i = 0; i < m.n; i++) {
		CHECK(i == 0 || m.v[i - 1].task < m.v[i].task);
		timed += mc2_task_timed(&m.v[i], BASE) && mc2_acsq_type_name(m.v[i].type);
	}
	/* 10 tasks, {9,56} of type 21 has no name, {10,56} no times: 8 slices */
	CHECK_INT(timed, 8);
	CHECK(mc2_tasks_find(&m, 8, 55) && mc2_tasks_find(&m, 8, 55)->end == BASE + 2400);
	/* {8,55} C_CORE_SQE: ts (2100) 42 us, dur (300) 6; {7,54} 40 and 20;
	 * {2,3} AI_CORE 2 and 96 */
	CHECK_INT(mc2_us6(2100, 50000), 42000000);
	CHECK_INT(mc2_us6(300, 50000), 6000000);
	CHECK_INT(mc2_us6(1000, 50000), 20000000);
	CHECK_INT(mc2_us6(4800, 50000), 96000000);
	CHECK(!strcmp(mc2_acsq_type_name(20), "C_CORE_SQE"));
	CHECK(!strcmp(mc2_acsq_type_name(7), "NOTIFY_WAIT_SQE"));
	CHECK(mc2_acsq_type_name(21) == NULL);
	/* a start not before the base only */
	CHECK(!mc2_task_timed(mc2_tasks_find(&m, 1, 4), BASE + 1));
	mc2_tasks_free(&m);
}

/* The reference's HCCL task infos, two to a record: hccl_info {3,53}
 * plane 0 INT8 ON_CHIP SDMA; Notify_Record {4,53} plane 1; Notify_Wait
 * {5,53} plane 2; an unknown item of group 0 (skipped); {10,56} plane 0. */
static void test_hccl(void)
{
	unsigned char r[MC2_REC_SIZE];
	struct mc2_stats st = { 0 };
	struct mc2_tasks m;
	const struct mc2_task *k;
	const char *colour;
	ntasks = 0;
	head(r, 6000, 13, 232);
	hccl_info(r + MC2_HEAD_SIZE, 0x0448d1a5ea052639ULL, 9, 3, 53, 0, 0, 0, 0, 1 << 20);
	hccl_info(r + MC2_HEAD_SIZE + MC2_HCCL_SIZE, 0x9eb5886f0b5ef22fULL, 9, 4, 53, 1, 1, 1, 1, 0);
	CHECK_INT(mc2_record(r, &sink, &st), 0);
	head(r, 6000, 13, 232);
	hccl_info(r + MC2_HEAD_SIZE, 0xab44b101f36f4b07ULL, 9, 5, 53, 2, 2, 2, 2, 0);
	hccl_info(r + MC2_HEAD_SIZE + MC2_HCCL_SIZE, 1, 0, 6, 53, 3, 0, 0, 0, 0);
	CHECK_INT(mc2_record(r, &sink, &st), 0);
	head(r, 6000, 13, 232);
	hccl_info(r + MC2_HEAD_SIZE, 2, 0, 6, 53, 3, 0, 0, 0, 0);
	hccl_info(r + MC2_HEAD_SIZE + MC2_HCCL_SIZE, 0, 9, 10, 56, 0, 0, 0, 0, 0);
	CHECK_INT(mc2_record(r, &sink, &st), 0);
	CHECK_INT(ntasks, 4);
	CHECK_INT(st.tasks, 4);
	CHECK_INT(st.no_group, 2);
	CHECK_INT(tasks[0].task, 3);
	CHECK_INT(tasks[0].stream, 53);
	CHECK_INT(tasks[0].plane, 0);
	CHECK_INT(tasks[0].local_rank, 3);
	CHECK_INT(tasks[0].remote_rank, 5);
	CHECK_INT(tasks[0].rank_size, 8);
	CHECK_INT(tasks[0].notify_id, 77);
	CHECK_INT(tasks[0].size, 1 << 20);
	CHECK(!strcmp(mc2_hccl_type(tasks[0].item_id, &colour), "hccl_info"));
	CHECK(!strcmp(colour, "thread_state_runnable"));
	CHECK(!strcmp(mc2_transport_name(tasks[0].transport), "SDMA"));
	CHECK(!strcmp(mc2_data_type_name(tasks[0].data_type), "INT8"));
	CHECK(!strcmp(mc2_link_name(tasks[0].link_type), "ON_CHIP"));
	CHECK(!strcmp(mc2_hccl_type(tasks[1].item_id, NULL), "Notify_Record"));
	CHECK(!strcmp(mc2_transport_name(tasks[1].transport), "RDMA"));
	CHECK(!strcmp(mc2_data_type_name(tasks[1].data_type), "INT16"));
	CHECK(!strcmp(mc2_link_name(tasks[1].link_type), "HCCS"));
	CHECK_INT(tasks[1].plane, 1);
	CHECK(!strcmp(mc2_hccl_type(tasks[2].item_id, NULL), "Notify_Wait"));
	CHECK(!strcmp(mc2_transport_name(2), "LOCAL"));
	CHECK(!strcmp(mc2_link_name(2), "PCIE"));
	CHECK(!strcmp(mc2_hccl_type(0, &colour), "INVALID_TYPE"));
	CHECK(!strcmp(colour, "rail_response"));
	CHECK(!strcmp(mc2_transport_name(3), "INVALID_TYPE"));
	CHECK_INT(tasks[3].task, 10);
	/* timed by the stamps: hccl_info {3,53} 1300..1400 -> ts 26, dur 2;
	 * Notify_Record {4,53} 1500..1700 -> 30, 4; Notify_Wait {5,53}
	 * 1300..1800 -> 26, 10; {10,56} has no times */
	stamps(&m);
	k = mc2_tasks_find(&m, tasks[0].task, tasks[0].stream);
	CHECK(k && mc2_task_timed(k, BASE));
	CHECK_INT(mc2_us6(k->start - BASE, 50000), 26000000);
	CHECK_INT(mc2_us6(k->end - k->start, 50000), 2000000);
	/* 1 MiB in 100 ticks (2 us): 2^20 / 2e-6 s / 2^30 = 488.28125 GB/s */
	CHECK_NEAR(mc2_bandwidth(tasks[0].size, k->end - k->start, 50000), 488.28125, 1e-9);
	CHECK_NEAR(mc2_bandwidth(1, 0, 50000), 0, 0);
	k = mc2_tasks_find(&m, tasks[2].task, tasks[2].stream);
	CHECK(k && mc2_us6(k->start - BASE, 50000) == 26000000 && mc2_us6(k->end - k->start, 50000) == 10000000);
	CHECK(!mc2_task_timed(mc2_tasks_find(&m, 10, 56), BASE));
	mc2_tasks_free(&m);
}

/* Hardware stream ids are decoded as the ACSQ ones are: stream word
 * 0x1035 (bit 12) with task 0x0003 -> stream 0x35 = 53, task 3. */
static void test_hccl_ids(void)
{
	unsigned char p[MC2_HCCL_SIZE];
	struct mc2_hccl h;
	hccl_info(p, 0, 1, 3, 0x1035, 0, 0, 0, 0, 0);
	mc2_hccl_decode(p, &h);
	CHECK_INT(h.stream, 53);
	CHECK_INT(h.task, 3);
}

static void test_skipped(void)
{
	unsigned char r[MC2_REC_SIZE];
	struct mc2_stats st = { 0 };
	static const unsigned d[6] = { 1, 1, 1, 1, 1, 1 };
	nturns = ntasks = 0;
	/* the reference's legacy record: level 6000, type 6 */
	head(r, 6000, 6, 0);
	CHECK_INT(mc2_record(r, &sink, &st), 0);
	/* another level */
	turn_rec(r, 1, d, 1, 1, 0);
	put16(r + 2, 5000);
	CHECK_INT(mc2_record(r, &sink, &st), 0);
	/* data length 233 */
	turn_rec(r, 1, d, 1, 1, 0);
	put32(r + 12, 233);
	CHECK_INT(mc2_record(r, &sink, &st), -1);
	CHECK_INT(nturns + ntasks, 0);
	CHECK_INT(st.records, 3);
	CHECK_INT(st.other_type, 1);
	CHECK_INT(st.other_level, 1);
	CHECK_INT(st.bad, 1);
}

/* Files: three records, the second's data length 300; then the same with
 * 100 bytes of a fourth. */
static void test_file(void)
{
	unsigned char f[4 * MC2_REC_SIZE];
	static const unsigned d[6] = { 10, 10, 10, 10, 10, 10 };
	struct mc2_stats st = { 0 };
	char msg[300];
	unit_workdir("mc2");
	turn_rec(f, 100, d, 1, 2, 0);
	turn_rec(f + MC2_REC_SIZE, 100, d, 1, 2, 1);
	put32(f + MC2_REC_SIZE + 12, 300);
	turn_rec(f + 2 * MC2_REC_SIZE, 100, d, 1, 2, 2);
	memset(f + 3 * MC2_REC_SIZE, 0, MC2_REC_SIZE);
	unit_write_file(unit_path("a.bin"), f, 3 * MC2_REC_SIZE);
	nturns = 0;
	CHECK_INT(mc2_read_file(unit_path("a.bin"), &sink, &st, msg, sizeof msg), 1);
	CHECK_INT(nturns, 2);
	CHECK_INT(turns[1].current_turn, 2);
	CHECK_MSG(strstr(msg, "record 1 (byte 256) has a data length of 300") != NULL, "msg: %s", msg);
	unit_write_file(unit_path("b.bin"), f + 2 * MC2_REC_SIZE, MC2_REC_SIZE + 100);
	memset(&st, 0, sizeof st);
	nturns = 0;
	CHECK_INT(mc2_read_file(unit_path("b.bin"), &sink, &st, msg, sizeof msg), 1);
	CHECK_INT(nturns, 1);
	CHECK_INT(st.records, 1);
	CHECK_MSG(!strcmp(msg, "record 1 (byte 256) cut short: 100 of 256 bytes"), "msg: %s", msg);
	unit_write_file(unit_path("c.bin"), f, 0);
	memset(&st, 0, sizeof st);
	CHECK_INT(mc2_read_file(unit_path("c.bin"), &sink, &st, msg, sizeof msg), 0);
	CHECK_INT(st.records, 0);
	CHECK_INT(mc2_read_file(unit_path("none.bin"), &sink, &st, msg, sizeof msg), -1);
	CHECK_MSG(strstr(msg, "cannot open") != NULL, "msg: %s", msg);
}

int main(void)
{
	test_turns();
	test_tasks();
	test_hccl();
	test_hccl_ids();
	test_skipped();
	test_file();
	return unit_done();
}
