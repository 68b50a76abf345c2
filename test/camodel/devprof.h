/* The on-board raw files of a kernel run (see optrace-board(5)): a PMU
 * model that turns what each sub-core did into the counts of the fixed
 * replay event lists, and writers of DeviceProf<N>.bin, duration.bin,
 * L2Cache.bin and op_basic_info.txt.  Shared by the stand-in runtime's
 * device mode and the board-gen generator. */
#ifndef CAMODEL_DEVPROF_H
#define CAMODEL_DEVPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "keytab.h"

/* Pipes, in the timing model's order. */
enum dp_pipe { DP_S, DP_MTE1, DP_MTE2, DP_MTE3, DP_V, DP_M, DP_FIX, DP_LD, DP_EX, DP_ST, DP_NPIPE };

/* Bytes moved, per path. */
enum dp_path {
	DP_GM_TO_UB, DP_UB_TO_GM, DP_GM_TO_L1, DP_L1_TO_L0A, DP_L1_TO_L0B, DP_L0C_TO_GM,
	DP_UB_TO_VEC, DP_VEC_TO_UB, DP_L0A_TO_CUBE, DP_L0B_TO_CUBE, DP_CUBE_TO_L0C, DP_NPATH
};

/* A timestamp dot the kernel made (TIMESTAMP_DOT): its descId, the
 * sub-core's cycle at the call and the call's pc. */
#define DP_DOTS_MAX 64u
struct dp_dot {
	uint64_t cycle, pc;
	uint32_t id;
};

/* What one sub-core of one block did in a launch. */
struct dp_sub {
	unsigned block, sub_block, core_id;
	enum board_core core;            /* 310P: BOARD_CUBE (the AI Core) */
	uint64_t cycles;                 /* from the launch to the last pipe's end */
	uint64_t start, end;             /* system time (task-scheduler ticks) */
	uint64_t busy[DP_NPIPE];         /* cycles each pipe was occupied */
	uint64_t instr[DP_NPIPE];        /* instructions each pipe ran */
	uint64_t bytes[DP_NPATH];
	uint64_t vec_f32, vec_f16, vec_s32, vec_s16;  /* vector instructions by type */
	uint64_t wait[DP_NPIPE];         /* cycles each pipe stood still in a WAIT_FLAG */
	/* A5 operand counts (OperandRecord.bin): the cube's MMADs (fp32), and
	 * per SIMT thread t its fp32 (simt_ops[2t]) and int32 (simt_ops[2t+1])
	 * instructions, one operand each (malloc'ed, OPREC_THREADS x 2, or
	 * NULL when none ran) */
	uint64_t mmad_instr, mmad_ops;
	uint32_t *simt_ops;
	uint64_t ic_req, ic_miss;        /* icache fetch groups and misses */
	unsigned ndots;                  /* dots made (the first DP_DOTS_MAX kept) */
	struct dp_dot dot[DP_DOTS_MAX];
	/* InstrTimeline with an instrumentation map: the dfx marks the
	 * instructions of the map stamped, a start and an end each (cycle,
	 * BIU info word), in the order they were issued; malloc'ed */
	struct dp_mark { uint64_t t; uint16_t info; } *marks;
	size_t nmarks;
	/* PC sampling (A5, CAMODEL_DEVICE_PCSAMPLING): the samples of each SIMT
	 * instruction the sub-core ran, by its pc offset from the kernel's
	 * start, the nine states of PCSAMPLING.BIN in its order (IBuf_Empty
	 * ... Others, Active); malloc'ed */
	struct dp_pcs { uint64_t off; uint64_t n[9]; } *pcs;
	size_t npcs;
};

/* Replay files of a family (10 on A2/A3, 7 on 310P, 6 on A5). */
unsigned dp_replays(enum board_fmt fmt);
/* The event in slot i of replay n (1-based) for a core kind; 0 = empty. */
unsigned dp_slot_event(enum board_fmt fmt, enum board_core core, unsigned n, unsigned i);
/* The model's count of event id for a sub-core (0 for events it has no
 * notion of).  Busy-cycle events never exceed s->cycles; bandwidth events
 * are requests of the family's request size. */
uint64_t dp_event(enum board_fmt fmt, const struct dp_sub *s, unsigned id);

/* The 128-byte record of s in replay n. */
void dp_pmu_record(enum board_fmt fmt, const struct dp_sub *s, unsigned n, unsigned stream, unsigned task,
                   uint8_t out[BOARD_PMU_REC_SIZE]);
/* A START (end = 0) or END stamp of an AI Core task into out; its size. */
size_t dp_stamp(enum board_fmt fmt, int end, unsigned task_type, unsigned stream, unsigned task, uint64_t t,
                uint8_t out[64]);
/* L2Cache.bin (72 bytes): the L2 counts of the traffic totals t (the
 * sub-cores' bytes summed by path). */
void dp_l2(enum board_fmt fmt, const uint64_t t[DP_NPATH], uint8_t out[BOARD_L2_SIZE]);

/* The files of one run. */
struct dp_run {
	enum board_fmt fmt;
	const char *soc, *op_name;
	uint64_t block_dim;
	unsigned device_id, stream, task;
	long pid;
	unsigned freq_mhz;
	int has_simt;
	unsigned task_type;               /* duration.bin: 0 AI Core (A5: 0 cube, 1 vector, 2 mix) */
	uint64_t start, end;             /* the task's stamps */
	const struct dp_sub *sub;        /* every (block, sub-core), in block order */
	size_t nsub;
	/* or, when sub is NULL, sub-core i made on demand (for big runs) */
	void (*gen)(void *ctx, size_t i, struct dp_sub *out);
	void *ctx;
	/* range replay: the records are appended to DeviceProf<n>.bin and
	 * duration.bin of dir, one launch of the range after the other, and
	 * freq.txt is written; no L2Cache.bin, op_basic_info.txt or other
	 * file (the capture library writes the launches' basic info) */
	int append;
};

/* Write replay n (1..dp_replays) or all of them (n = 0), duration.bin,
 * L2Cache.bin (A2/A3 and 310P) and op_basic_info.txt into dir (created).
 * Each file is written to a temporary name and renamed, so a reader never
 * sees half a file.  0, or -1 with a one-line message in err. */
int dp_write(const struct dp_run *r, const char *dir, unsigned n, char *err, size_t errsize);

/* A5 OperandRecord.bin (optrace-board(5), OPERANDRECORD.BIN): 8 bytes and
 * three blocks per block of the launch (at most OPREC_BLOCKS_MAX), each
 * sub-core's counts at its index (lib/cload.h, oprec_index).  0, or -1
 * with a message in err. */
int dp_oprec_write(const struct dp_run *r, const char *dir, char *err, size_t errsize);

/* The A5 BIU timeline (optrace-board(5), TIMELINE.BIN): what the
 * compiler's dfx_region instrumentation (InstrTimeline) or the pipe-state
 * sampling (PipeTimeline) would give for the run.  Each pipe of a sub-core
 * runs its instr[] instructions one after another, each busy[]/instr[]
 * cycles, spread evenly over the sub-core's cycles; the instructions go
 * round a loop body of `body` static instructions, each given a dfx id
 * (1024 per pipe on A5: past that the compiler's tune log says the ids
 * ran out and the rest go unstamped).  Every drop-th record of a channel
 * is lost, as a BIU that overflows loses them. */
enum dp_tl_mode { DP_TL_NONE, DP_TL_PIPE, DP_TL_INSTR };
struct dp_timeline {
	enum dp_tl_mode mode;
	unsigned pipes;        /* instrumented pipes, bit per BIU pipe (lib/biu.h) */
	unsigned body;         /* static instructions per pipe */
	uint64_t drop;         /* every drop-th record of a channel lost; 0 none */
	const char *map;       /* InstrTimeline: the instrumentation's dfx_region_map.txt
	                          (CAMODEL_DEVICE_DFX_MAP): the marks of dp_sub are
	                          stamped, and the map and tune log are the
	                          instrumentation's, not written here */
};
/* The dfx ids of one pipe on A5 (the only chip with the instruction
 * timeline): ids with bits 9 and 10 set, 0x600..0x7FF then 0xE00..0xFFF,
 * region k of a pipe taking id dp_dfx_id(k). */
#define DP_DFX_IDS_A5 1024u
static inline uint16_t dp_dfx_id(unsigned k)
{
	return (uint16_t)(k < 512 ? 0x600 + k : 0xE00 + (k - 512));
}
/* From the environment (CAMODEL_DEVICE_TIMELINE, _PIPES, _BODY, _DROP;
 * test/camodel/README); 0, or -1 with a message in err. */
int dp_timeline_env(struct dp_timeline *t, char *err, size_t errsize);
/* timeline.bin, dfx_region_map.txt (InstrTimeline) and dfx_tune.log into
 * dir; 0, or -1 with a message in err. */
int dp_timeline_write(const struct dp_run *r, const struct dp_timeline *t, const char *dir, char *err,
                      size_t errsize);

/* The A5 SIMT files of a run whose sub-cores ran SIMT instructions
 * (optrace-board(5), WARPTIMELINE.BIN and PCSAMPLING.BIN): WarpTimeline.bin,
 * one block of warp runs per sub-core (a sub-core without SIMT gets a block
 * without the magic word); with pcsampling also pcSampling.bin.0 (per SIMT
 * sub-core the records of its samples, dp_sub.pcs, a counter being a byte:
 * a pc's samples past 255 in a state go on in further records of that pc,
 * which the reader sums; then one record at the instrumentation stub's pc
 * DP_SIMT_STUB_PC, which is no instruction of the kernel),
 * pc_start_pcsampling.txt and PcOffset.bin.  A sampled address is
 * DP_SIMT_START_PC's low 27 bits + DP_SIMT_PC_OFFSET + the pc offset: the
 * record holds its bits 26..3, so the pcs are multiples of 8 (as the
 * stand-in's SIMT instructions are).  0, or -1 with a message in err. */
#define DP_SIMT_STUB_PC 0x10u
#define DP_SIMT_START_PC 0x12340000u
#define DP_SIMT_PC_OFFSET 0x40u
int dp_simt_write(const struct dp_run *r, int pcsampling, const char *dir, char *err, size_t errsize);
/* Add samples to the sub-core's row of pc offset off (made when new);
 * 0, or -1 out of memory (the samples lost). */
int dp_pcs_add(struct dp_sub *s, size_t *cap, uint64_t off, const uint64_t n[9]);

/* Sub-cores of a launch: 3 per block for a mix kernel on A2/A3/A5, else 1. */
unsigned dp_subs_per_block(enum board_fmt fmt, int mix);

/* The MC2 (compute and communication) op (optrace-board(5), AICPU.BIN;
 * A2/A3): the AI CPU kernel serving n communication turns spread over the
 * kernel's span, each turn's phases, and three HCCL tasks per turn
 * (Notify_Wait, Memcpy, Notify_Record) in its TaskExecute phase, stamped
 * in duration.bin on the HCCL stream. */
#define DP_MC2_TURNS_MAX 16u
#define DP_MC2_STEPS 3u
#define DP_MC2_CPU_STREAM 2u
#define DP_MC2_HCCL_STREAM 10u
#define DP_MC2_TASK0 100u
/* From the environment (CAMODEL_DEVICE_MC2, the turns; unset or 0: not an
 * MC2 op); 0, or -1 with a message in err. */
int dp_mc2_env(unsigned *turns, char *err, size_t errsize);
/* The AI CPU and HCCL tasks' stamps, appended to duration.bin's f. */
void dp_mc2_stamps(const struct dp_run *r, unsigned turns, FILE *f);
/* aicpu.bin into dir; 0, or -1 with a message in err. */
int dp_mc2_write(const struct dp_run *r, unsigned turns, const char *dir, char *err, size_t errsize);

/* The AI Core timestamp dots (optrace-board(5), AIC_TIMESTAMP.BIN; A2,
 * A3, A5): aic_timestamp.bin with, per sub-core in block order, a start
 * stamp (descId 0) at its start, its kernel's dots, for an MC2 op with
 * turns the AICore API dots (INIT, then COMMIT and WAIT per turn, then
 * FINALIZE) spread over its run, and an end stamp (descId 1) at its end.
 * Block ids are of the new format: the physical core in the high 16 bits
 * (cube cores first), the logical block in the low 16.  0, or -1 with a
 * message in err.  A run without dots (and not MC2) gets no file. */
int dp_aic_write(const struct dp_run *r, unsigned mc2_turns, const char *dir, char *err, size_t errsize);
/* The physical core of a sub-core: A2/A3 cube cores 0..24, vector cores
 * 25..74; A5 cube 0..17 and 54..71, vector 18..53 and 72..107. */
unsigned dp_aic_physical(enum board_fmt fmt, const struct dp_sub *s);
/* The code view's instrumentation (MemoryDetail, Source; optrace-board(5),
 * MEMORYCHART.BIN and BASIC-BLOCK COUNTS): the transfers the kernel made,
 * as the DBI stubs record them, and how often each instruction ran, as
 * the basic-block counters count them.  Pcs are offsets from the kernel's
 * start pc.  An instruction is a basic block of its own in the map (the
 * stand-in's kernels are host code: no block boundaries to see). */
struct dp_dbi {
	int memory, source;        /* CAMODEL_DEVICE_DBI asked for them */
	unsigned char *mem;        /* MemoryChart records */
	size_t nmem, cap;
	uint64_t serial;
	struct keytab exec;        /* pc offset -> executions (uint64_t) */
};
/* Memory kinds of the records (as lib/dbi.h numbers them). */
enum { DP_MEM_L1 = 0, DP_MEM_L0A = 1, DP_MEM_L0B = 2, DP_MEM_L0C = 3, DP_MEM_UB = 4, DP_MEM_GM = 6 };
/* From the environment (CAMODEL_DEVICE_DBI: MemoryDetail and/or Source,
 * joined by ','; test/camodel/README); 0, or -1 with a message in err. */
int dp_dbi_env(struct dp_dbi *d, char *err, size_t errsize);
/* A transfer of the instruction at pc offset off by (block, sub_block). */
void dp_dbi_mem(struct dp_dbi *d, unsigned block, unsigned sub_block, uint64_t off, unsigned src, unsigned dst,
                uint64_t src_addr, uint64_t dst_addr, uint64_t src_size, uint64_t dst_size);
/* A DMA move (DMA_MOV: nburst bursts of lenburst 32-byte blocks, no
 * strides) or a LOAD_2D (repeat fractals of 512 bytes) as the stub
 * records it, expanded into transfer records as the host does (lib/dbi.h,
 * dbi_packet). */
void dp_dbi_dma(struct dp_dbi *d, unsigned block, unsigned sub_block, uint64_t off, unsigned src, unsigned dst,
                uint64_t src_addr, uint64_t dst_addr, unsigned nburst, unsigned lenburst);
void dp_dbi_load2d(struct dp_dbi *d, unsigned block, unsigned sub_block, uint64_t off, unsigned dst,
                   uint64_t src_addr, uint64_t dst_addr, unsigned repeat);
/* One execution of the instruction at pc offset off. */
void dp_dbi_exec(struct dp_dbi *d, uint64_t off);
/* What was asked into dir: MemoryChart.bin; kernel0Stub.o.bbbmap.0 (the
 * function func, every executed instruction a block) and kernel0.extra.0
 * (u32 counts by block id); pc_start_addr.txt (pc_start).  0, or -1 with a
 * message in err. */
int dp_dbi_write(const struct dp_dbi *d, const char *dir, uint64_t pc_start, const char *func, char *err,
                 size_t errsize);
/* Empty for the next launch (what was asked stays). */
void dp_dbi_clear(struct dp_dbi *d);

#endif
