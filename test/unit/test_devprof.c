/* Unit tests of the stand-in's on-board writers (test/camodel/devprof.c):
 * every record, stamp and L2 file they make reads back through lib/board.h
 * with the fields and counts that went in; the PMU model's counts against
 * the bytes and cycles of a sub-core; the files of a run in a directory.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "board.h"
#include "cload.h"
#include "devprof.h"
#include "dbi.h"
#include "io.h"
#include "pcsamp.h"
#include "pmu.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

static void sample(struct dp_sub *s, enum board_core core)
{
	memset(s, 0, sizeof *s);
	s->block = 5;
	s->sub_block = core == BOARD_VECTOR ? 1 : 0;
	s->core_id = 2;
	s->core = core;
	s->cycles = 5000;
	s->start = 100;
	s->end = 300;
	s->busy[DP_V] = 1200;
	s->busy[DP_M] = 900;
	s->busy[DP_S] = 40;
	s->busy[DP_MTE2] = 700;
	s->instr[DP_V] = 30;
	s->instr[DP_M] = 7;
	s->bytes[DP_GM_TO_UB] = 65536;
	s->bytes[DP_UB_TO_GM] = 32768 + 1;   /* a part request counts whole */
	s->bytes[DP_GM_TO_L1] = 16384;
}

static void test_records(void)
{
	for (int f = BOARD_A2; f <= BOARD_A5; f++) {
		enum board_fmt fmt = (enum board_fmt)f;
		for (int c = 0; c < 2; c++) {
			enum board_core core = fmt == BOARD_310P ? BOARD_CUBE : (enum board_core)c;
			struct dp_sub s;
			struct board_pmu p;
			struct board_err e;
			uint8_t rec[BOARD_PMU_REC_SIZE];
			sample(&s, core);
			for (unsigned n = 1; n <= dp_replays(fmt); n++) {
				dp_pmu_record(fmt, &s, n, 3, 9, rec);
				CHECK_INT(board_pmu_decode(fmt, rec, sizeof rec, 0, &p, &e), 1);
				CHECK_INT(p.core, core);
				CHECK_INT(p.total_cycles, 5000);
				CHECK_INT(p.nslots, fmt == BOARD_A5 ? 10 : 8);
				if (fmt != BOARD_310P) {   /* the AI Core record has no stream and task */
					CHECK_INT(p.stream_id, 3);
					CHECK_INT(p.task_id, 9);
					CHECK_INT(p.block_id, 5);
					CHECK_INT(p.sub_block_id, s.sub_block);
					CHECK_INT(p.core_id, 2);
					CHECK_INT(p.start_time, 100);
					CHECK_INT(p.end_time, 300);
				}
				for (unsigned i = 0; i < p.nslots; i++)
					CHECK_INT(p.slot[i], dp_event(fmt, &s, dp_slot_event(fmt, core, n, i)));
			}
		}
	}
}

/* The slots hold the replay lists in order, 8 (10) a file. */
static void test_slots(void)
{
	for (int f = BOARD_A2; f <= BOARD_A5; f++) {
		enum board_fmt fmt = (enum board_fmt)f;
		for (int c = 0; c < 2; c++) {
			size_t n, slots = board_pmu_slots(fmt);
			const uint16_t *ev = pmu_replay_events(fmt, (enum board_core)c, &n);
			unsigned bad = 0;
			for (size_t k = 0; k < n; k++)
				bad += dp_slot_event(fmt, (enum board_core)c, (unsigned)(k / slots + 1), (unsigned)(k % slots)) != ev[k];
			CHECK_INT(bad, 0);
			CHECK_INT(dp_slot_event(fmt, (enum board_core)c, dp_replays(fmt) + 1, 0), 0);
		}
	}
	CHECK_INT(dp_replays(BOARD_A2), 10);
	CHECK_INT(dp_replays(BOARD_310P), 7);
	CHECK_INT(dp_replays(BOARD_A5), 6);
	CHECK_INT(dp_slot_event(BOARD_A2, BOARD_CUBE, 10, 7), 771);
	CHECK_INT(dp_slot_event(BOARD_A5, BOARD_VECTOR, 6, 9), 1468);
}

/* Counts: busy cycles as the model's, requests of each family's size. */
static void test_counts(void)
{
	struct dp_sub s;
	sample(&s, BOARD_VECTOR);
	CHECK_INT(dp_event(BOARD_A2, &s, 8), 1200);
	CHECK_INT(dp_event(BOARD_A2, &s, 10), 900);
	CHECK_INT(dp_event(BOARD_A2, &s, 62), 65536 / 128);
	CHECK_INT(dp_event(BOARD_A2, &s, 61), 32768 / 128 + 1);
	CHECK_INT(dp_event(BOARD_A2, &s, 50), 16384 / 256);
	CHECK_INT(dp_event(BOARD_A2, &s, 1293), (65536 + 16384) / 128);
	CHECK_INT(dp_event(BOARD_A2, &s, 1284) + dp_event(BOARD_A2, &s, 1286), dp_event(BOARD_A2, &s, 1293));
	CHECK_INT(dp_event(BOARD_310P, &s, 62), 65536 / 16);
	CHECK_INT(dp_event(BOARD_A5, &s, 1281), 1200);
	CHECK_INT(dp_event(BOARD_A5, &s, 1058), (65536 + 16384) / 128);
	CHECK_INT(dp_event(BOARD_A5, &s, 1060) + dp_event(BOARD_A5, &s, 1061), dp_event(BOARD_A5, &s, 1058));
	CHECK_INT(dp_event(BOARD_A2, &s, 0), 0);
	CHECK_INT(dp_event(BOARD_A2, &s, 1799), 0);
	/* A2's float event counts fp16 too (the compute load's fp32 is
	 * 75 - 76); 310P's only fp32; the waits of cube and vector */
	s.vec_f32 = 9;
	s.vec_f16 = 4;
	s.wait[DP_M] = 77;
	s.wait[DP_V] = 66;
	CHECK_INT(dp_event(BOARD_A2, &s, 75), 13);
	CHECK_INT(dp_event(BOARD_A2, &s, 76), 4);
	CHECK_INT(dp_event(BOARD_310P, &s, 75), 9);
	CHECK_INT(dp_event(BOARD_A2, &s, 88), 77);
	CHECK_INT(dp_event(BOARD_310P, &s, 89), 66);
}

/* A5 OperandRecord.bin: three blocks per block, each row's counts at its
 * index, read back with lib/cload.h. */
static void test_oprec(void)
{
	struct dp_sub s[3];
	uint32_t simt[2 * OPREC_THREADS] = { 0 };
	struct oprec_sum sum;
	char err[512], path[1300];
	const char *why;
	size_t nb;
	sample(&s[0], BOARD_CUBE);
	sample(&s[1], BOARD_VECTOR);
	sample(&s[2], BOARD_VECTOR);
	s[0].block = s[1].block = s[2].block = 1;
	s[1].sub_block = 0;
	s[0].mmad_instr = 3;
	s[0].mmad_ops = 3 * 8192;
	simt[2 * 0] = 5;
	simt[2 * 2047 + 1] = 2;
	s[2].simt_ops = simt;
	struct dp_run r = {
		.fmt = BOARD_A5, .soc = "Ascend950PR_9599", .op_name = "k", .block_dim = 2, .task_type = 2,
		.sub = s, .nsub = 3,
	};
	const char *dir = unit_path("oprec");
	CHECK_INT(dp_write(&r, dir, 1, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/OperandRecord.bin", dir);
	FILE *f = oprec_open(path, &nb, &why);
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(nb, 6);
	for (size_t i = 0; i < nb; i++) {
		CHECK_INT(oprec_read(f, &sum), 0);
		uint64_t all = 0;
		for (unsigned t = 0; t < OPREC_TYPES; t++)
			all += sum.simd_instr[t] + sum.simt_instr[t];
		if (i == 5) {          /* block 1's cube */
			CHECK_INT(sum.simd_instr[OPREC_F32], 3);
			CHECK_INT(sum.simd_ops[OPREC_F32], 3 * 8192);
			CHECK_INT(all, 3);
		} else if (i == 4) {   /* its vector 1 */
			CHECK_INT(sum.simt_instr[OPREC_F32], 5);
			CHECK_INT(sum.simt_instr[OPREC_S32], 2);
			CHECK_INT(sum.simt_ops[OPREC_S32], 2);
			CHECK_INT(all, 7);
		} else
			CHECK_INT(all, 0);
	}
	fclose(f);
	/* other replays and chips: none */
	CHECK_INT(dp_write(&r, unit_path("oprec2"), 2, err, sizeof err), 0);
	CHECK_INT(unit_entries(unit_path("oprec2"), "OperandRecord"), 0);
	r.fmt = BOARD_A2;
	r.soc = "Ascend910B1";
	CHECK_INT(dp_write(&r, unit_path("oprec3"), 0, err, sizeof err), 0);
	CHECK_INT(unit_entries(unit_path("oprec3"), "OperandRecord"), 0);
}

static void test_stamps(void)
{
	for (int f = BOARD_A2; f <= BOARD_A5; f++) {
		enum board_fmt fmt = (enum board_fmt)f;
		uint8_t b[64];
		struct board_stamp st;
		struct board_err e;
		struct board_span sp = { 0, 0 };
		size_t n = dp_stamp(fmt, 0, fmt == BOARD_A5 ? 2 : 0, 1, 4, 60000, b);
		CHECK_INT(n, board_stamp_size(fmt));
		CHECK_INT(board_stamp_decode(fmt, b, n, 0, &st, &e), 1);
		CHECK_INT(st.kind, BOARD_STAMP_START);
		board_span_add(fmt, &sp, &st);
		dp_stamp(fmt, 1, fmt == BOARD_A5 ? 2 : 0, 1, 4, 70000, b);
		CHECK_INT(board_stamp_decode(fmt, b, n, 1, &st, &e), 1);
		CHECK_INT(st.kind, BOARD_STAMP_END);
		CHECK_INT(st.sys_time, 70000);
		board_span_add(fmt, &sp, &st);
		CHECK_INT(sp.start, 60000);
		CHECK_INT(sp.end, 70000);
	}
}

static void test_l2(void)
{
	uint64_t t[DP_NPATH] = { 0 }, v[8];
	uint8_t b[BOARD_L2_SIZE];
	struct board_err e;
	t[DP_GM_TO_UB] = 128 * 100;
	t[DP_UB_TO_GM] = 128 * 40;
	dp_l2(BOARD_310P, t, b);
	CHECK_INT(board_l2_decode(b, sizeof b, v, &e), 1);
	CHECK_INT(v[1], 100);
	CHECK_INT(v[2], 40);
	CHECK(v[0] <= v[1] + v[2]);
	dp_l2(BOARD_A2, t, b);
	CHECK_INT(board_l2_decode(b, sizeof b, v, &e), 1);
	CHECK_INT(v[0], 100);
	CHECK_INT(v[1], 40);
	CHECK(v[4] <= v[1] - v[3]);   /* evictions of the write misses */
}

static void test_write(void)
{
	struct dp_sub s[3];
	sample(&s[0], BOARD_CUBE);
	sample(&s[1], BOARD_VECTOR);
	sample(&s[2], BOARD_VECTOR);
	s[1].sub_block = 0;
	struct dp_run r = {
		.fmt = BOARD_A2, .soc = "Ascend910B1", .op_name = "k", .block_dim = 1, .pid = 77, .freq_mhz = 1850,
		.start = 10, .end = 20, .sub = s, .nsub = 3,
	};
	char err[512];
	const char *dir = unit_path("all");
	CHECK_INT(dp_write(&r, dir, 0, err, sizeof err), 0);
	CHECK_INT(unit_entries(dir, "DeviceProf"), 10);
	CHECK_INT(unit_entries(dir, ".tmp"), 0);
	size_t n;
	char path[1300];
	snprintf(path, sizeof path, "%s/DeviceProf10.bin", dir);
	free(unit_read_file(path, &n));
	CHECK_INT(n, 3 * BOARD_PMU_REC_SIZE);
	snprintf(path, sizeof path, "%s/op_basic_info.txt", dir);
	char *t = unit_read_file(path, &n);
	struct board_basic b;
	struct board_err e;
	board_basic_init(&b);
	CHECK_INT(board_basic_parse(t, n, &b, &e), 0);
	CHECK(!strcmp(b.op_name, "k") && !strcmp(b.soc, "Ascend910B1") && !strcmp(b.pid, "77"));
	CHECK_INT(b.block_dim, 1);
	CHECK_INT(b.cur_freq, 1850);
	free(t);

	dir = unit_path("one");
	CHECK_INT(dp_write(&r, dir, 4, err, sizeof err), 0);
	CHECK_INT(unit_entries(dir, "DeviceProf"), 1);
	CHECK_INT(unit_entries(dir, "DeviceProf4.bin"), 1);
	CHECK_INT(dp_write(&r, unit_path("bad"), 11, err, sizeof err), -1);
	CHECK(strstr(err, "replay 11") != NULL);
	CHECK_INT(unit_entries(unit_path("bad"), ""), -1);
	r.op_name = "two\nlines";
	CHECK_INT(dp_write(&r, unit_path("nl"), 1, err, sizeof err), -1);
	CHECK_INT(unit_entries(unit_path("nl"), "op_basic"), 0);
	CHECK_INT(unit_entries(unit_path("nl"), ".tmp"), 0);
}

/* Range replay: each launch's records after the ones before it, its two
 * stamps, freq.txt; nothing else. */
static void test_append(void)
{
	struct dp_sub s[2];
	sample(&s[0], BOARD_VECTOR);
	sample(&s[1], BOARD_VECTOR);
	struct dp_run r = {
		.fmt = BOARD_A2, .soc = "Ascend910B1", .op_name = "k", .block_dim = 2, .pid = 77, .freq_mhz = 1850,
		.stream = 1, .task = 5, .start = 10, .end = 20, .sub = s, .nsub = 2, .append = 1,
	};
	char err[512], path[1300];
	const char *dir = unit_path("range");
	size_t n;
	CHECK_INT(dp_write(&r, dir, 3, err, sizeof err), 0);
	r.task = 6;
	r.nsub = 1;
	CHECK_INT(dp_write(&r, dir, 3, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/DeviceProf3.bin", dir);
	unsigned char *p = unit_read_file(path, &n);
	CHECK_INT(n, 3 * BOARD_PMU_REC_SIZE);
	struct board_pmu rec;
	struct board_err e;
	CHECK_INT(board_pmu_decode(BOARD_A2, p + 2 * BOARD_PMU_REC_SIZE, BOARD_PMU_REC_SIZE, 2, &rec, &e), 1);
	CHECK_INT(rec.task_id, 6);
	free(p);
	snprintf(path, sizeof path, "%s/duration.bin", dir);
	free(unit_read_file(path, &n));
	CHECK_INT(n, 4 * board_stamp_size(BOARD_A2));
	snprintf(path, sizeof path, "%s/freq.txt", dir);
	char *t = unit_read_file(path, &n);
	CHECK_INT(n, 34);
	CHECK_INT(memcmp(t, "Current Freq=1850\nRated Freq=1850\n", 34), 0);
	free(t);
	CHECK_INT(unit_entries(dir, "DeviceProf"), 1);
	CHECK_INT(unit_entries(dir, "op_basic"), 0);
	CHECK_INT(unit_entries(dir, "L2Cache"), 0);
}

static int sum_mem(void *ctx, const struct dbi_mem *m)
{
	uint64_t *v = ctx;
	v[0]++;
	v[1] += m->src_size;
	v[2] |= m->pc != 0x40;
	return 0;
}

/* The code view's files: the transfers expanded from the stub's records,
 * the executed pcs as blocks with their counts. */
static void test_dbi(void)
{
	struct dp_dbi d;
	struct dbi_bbmap m;
	char err[300];
	uint64_t v[3] = { 0 };
	size_t n, nc;
	unsigned char *mem, *cnt;
	char *map;
	setenv("CAMODEL_DEVICE_DBI", "Roofline", 1);
	CHECK(dp_dbi_env(&d, err, sizeof err) == -1 && strstr(err, "'Roofline' is neither"));
	keytab_free(&d.exec);
	setenv("CAMODEL_DEVICE_DBI", "memorydetail,Source", 1);
	CHECK(dp_dbi_env(&d, err, sizeof err) == 0 && d.memory && d.source);
	unsetenv("CAMODEL_DEVICE_DBI");
	dp_dbi_dma(&d, 1, 0, 0x40, DP_MEM_GM, DP_MEM_UB, 0x1000, 0, 4, 8);    /* 4 bursts of 256 bytes */
	dp_dbi_load2d(&d, 1, 0, 0x40, DP_MEM_L0A, 0, 0, 3);                  /* 3 fractals */
	dp_dbi_exec(&d, 0x40);
	dp_dbi_exec(&d, 0x40);
	dp_dbi_exec(&d, 0x10);
	CHECK(dp_dbi_write(&d, unit_path("dbi"), 0x11000000, "k", err, sizeof err) == 0);
	mem = unit_read_file(unit_path("dbi/MemoryChart.bin"), &n);
	CHECK_INT(n, 7 * DBI_MEMREC_SIZE);
	CHECK(dbi_mem_each(mem, n, sum_mem, v, err, sizeof err) == 0);
	CHECK_INT(v[0], 7);
	CHECK_INT(v[1], 4 * 256 + 3 * 512);
	CHECK(!v[2]);
	map = unit_read_file(unit_path("dbi/kernel0Stub.o.bbbmap.0"), &n);
	cnt = unit_read_file(unit_path("dbi/kernel0.extra.0"), &nc);
	CHECK(dbi_bbmap_parse(&m, map, n, err, sizeof err) == 0);
	CHECK(dbi_bb_counts(&m, cnt, nc, err, sizeof err) == 0);
	CHECK(m.n == 2 && m.bb[0].begin == 0x10 && m.bb[0].count == 1 && m.bb[1].begin == 0x40 && m.bb[1].count == 2);
	dbi_bbmap_free(&m);
	free(mem);
	free(map);
	free(cnt);
	dp_dbi_clear(&d);
	keytab_free(&d.exec);
	free(d.mem);
}

/* PC sampling: a sub-core's samples by pc read back through lib/pcsamp.h
 * with the same sums, a pc past a counter's 255 in further records, the
 * stub's record at a pc of its own. */
static void test_pcsampling(void)
{
	struct dp_sub s[2];
	size_t cap = 0;
	const uint64_t a[9] = { 300, 0, 7, 0, 600, 0, 0, 0, 20 }, b[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	sample(&s[0], BOARD_VECTOR);
	sample(&s[1], BOARD_VECTOR);
	s[0].instr[DP_EX] = 4;
	s[1].instr[DP_EX] = 0;     /* no SIMT: no chunk */
	CHECK_INT(dp_pcs_add(&s[0], &cap, 0x1008, b), 0);
	CHECK_INT(dp_pcs_add(&s[0], &cap, 0x2000, a), 0);
	CHECK_INT(dp_pcs_add(&s[0], &cap, 0x1008, b), 0);
	CHECK_INT(s[0].npcs, 2);
	CHECK_INT(s[0].pcs[0].n[8], 18);
	struct dp_run r = {
		.fmt = BOARD_A5, .soc = "Ascend950PR_9599", .op_name = "k", .block_dim = 2, .pid = 1, .freq_mhz = 1650,
		.has_simt = 1, .task_type = 1, .start = 10, .end = 20, .sub = s, .nsub = 2,
	};
	char err[512], path[1300];
	const char *dir = unit_path("pcs");
	CHECK_INT(dp_simt_write(&r, 1, dir, err, sizeof err), 0);
	snprintf(path, sizeof path, "%s/pcSampling.bin.0", dir);
	size_t n;
	unsigned char *f = (unsigned char *)unit_read_file(path, &n);
	CHECK_INT(n, PCS_CHUNK_SIZE);
	/* 0x1008 once, 0x2000 three times (600 = 255 + 255 + 90), the stub */
	CHECK_INT(f[4] | f[5] << 8, 5 * PCS_REC_SIZE);
	struct pcs p;
	pcs_init(&p, DP_SIMT_START_PC, DP_SIMT_PC_OFFSET, NULL, NULL);
	pcs_chunk(&p, f);
	pcs_finish(&p);
	CHECK_INT(p.records, 5);
	CHECK_INT(p.nrows, 3);
	if (p.nrows == 3) {
		CHECK_INT(p.rows[0].pc, DP_SIMT_STUB_PC);
		CHECK_INT(p.rows[1].pc, 0x1008);
		CHECK_INT(p.rows[2].pc, 0x2000);
		for (unsigned k = 0; k < 9; k++) {
			CHECK_INT(p.rows[1].n[k], 2 * b[k]);
			CHECK_INT(p.rows[2].n[k], a[k]);
		}
	}
	pcs_free(&p);
	free(f);
	free(s[0].pcs);
}

int main(void)
{
	unit_workdir("test_devprof");
	test_dbi();
	test_records();
	test_slots();
	test_counts();
	test_stamps();
	test_l2();
	test_write();
	test_append();
	test_oprec();
	test_pcsampling();
	io_rm_tree(unit_dir);
	return unit_done();
}
