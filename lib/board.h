/* The raw files of an on-board run (see optrace-board(5)): the block PMU
 * records of DeviceProf<N>.bin, the task start and end stamps of
 * duration.bin, the L2 counters of L2Cache.bin and the Key=Value lines of
 * op_basic_info.txt, decoded into plain structs.
 *
 * All binary data is little-endian.  The decoders read one record at a
 * time (from bytes, or from a reader of lib/io.h), so memory is bounded by
 * a record.  Malformed input never crashes: it gives BOARD_ERR_* and a
 * struct board_err naming what was wrong and where (record index, byte
 * offset, line). */
#ifndef OPTRACE_BOARD_H
#define OPTRACE_BOARD_H

#include <stddef.h>
#include <stdint.h>

#include "chip.h"

struct rd;

/* The three raw layouts: A2 and A3 share one (FFTS block records and
 * 64-byte ACSQ stamps), 310P has AI Core records and HWTS stamps, A5 its
 * own block records (10 counters) and 32-byte ACSQ stamps. */
enum board_fmt { BOARD_A2, BOARD_310P, BOARD_A5 };

/* The layout of a chip family; -1 for families without an on-board flow. */
int board_fmt_of(enum chip_family f);

enum board_errc {
	BOARD_OK = 0,
	BOARD_ERR_TRUNCATED,  /* a record cut short by the end of the input */
	BOARD_ERR_SIZE,       /* a file whose size the format does not allow */
	BOARD_ERR_TYPE,       /* a record of a type the format does not know */
	BOARD_ERR_FIELD,      /* a required field missing or not a number */
	BOARD_ERR_IO,         /* the reader failed (rd_error) */
};

struct board_err {
	enum board_errc code;
	const char *what;     /* a static description */
	uint64_t index;       /* record index (binary) */
	uint64_t offset;      /* byte offset of the record (binary) */
	uint64_t line;        /* 1-based line (text), 0 for binary */
};

/* "what at record N (byte B)" / "what at line L" into buf; its length. */
size_t board_err_text(const struct board_err *e, char *buf, size_t size);

/* ---- DeviceProf<N>.bin ---- */

#define BOARD_PMU_REC_SIZE 128
#define BOARD_PMU_SLOTS_MAX 10
/* The A5 block-PMU function type; other A5 records are skipped. */
#define BOARD_A5_FUNC_BLOCK_PMU 0x29

enum board_core { BOARD_CUBE = 0, BOARD_VECTOR = 1 };

struct board_pmu {
	enum board_core core;      /* 310P: always BOARD_CUBE (AI Core) */
	unsigned core_id;
	unsigned block_id;         /* 310P: 0 */
	unsigned sub_block_id;     /* 310P: 0 */
	unsigned stream_id, task_id; /* decoded (board_stream_task) */
	uint64_t total_cycles;
	unsigned nslots;           /* 8, or 10 on A5 */
	uint64_t slot[BOARD_PMU_SLOTS_MAX]; /* counter i = the i-th event of the replay */
	uint64_t start_time, end_time; /* 0 on 310P */
};

/* Slots per replay file: 8, 10 on A5. */
unsigned board_pmu_slots(enum board_fmt fmt);

/* Decode one 128-byte record p (n bytes available) into *out.  1 = a
 * record, 0 = a record to skip (A5: not a block-PMU record), -1 = error
 * (*err filled, index and offset from the arguments). */
int board_pmu_decode(enum board_fmt fmt, const void *p, size_t n, uint64_t index, struct board_pmu *out,
                     struct board_err *err);

/* The hardware stream and task encoding (ACSQ and FFTS records). */
void board_stream_task(unsigned stream_hw, unsigned task_hw, unsigned *stream, unsigned *task);

/* ---- duration.bin ---- */

enum board_stamp_kind { BOARD_STAMP_START = 0, BOARD_STAMP_END = 1, BOARD_STAMP_OTHER = 2 };

struct board_stamp {
	enum board_stamp_kind kind;
	unsigned func_type;        /* raw: bits 0..5 (ACSQ), 0..2 (HWTS) */
	unsigned task_type;        /* bits 10..15 (ACSQ); 0 on 310P */
	unsigned stream_id, task_id;
	uint64_t sys_time;         /* task-scheduler ticks */
};

/* 64 bytes (A2, 310P) or 32 (A5). */
size_t board_stamp_size(enum board_fmt fmt);
int board_stamp_decode(enum board_fmt fmt, const void *p, size_t n, uint64_t index, struct board_stamp *out,
                       struct board_err *err);

/* The kernel's start and end: the last start and the last end of a task
 * of an AI Core type (A2: task type 0; A5: 0, 1, 2; 310P: every stamp). */
struct board_span {
	uint64_t start, end;
};
void board_span_add(enum board_fmt fmt, struct board_span *s, const struct board_stamp *st);
/* Task Duration in us as the reference computes it (single precision:
 * (end - start) * 1000 / ts_khz); -1 when start or end is missing, end
 * precedes start or ts_khz is 0. */
float board_span_us(const struct board_span *s, uint64_t ts_khz);

/* ---- L2Cache.bin (exactly 72 bytes: 4 x u16, 8 x u64) ---- */

#define BOARD_L2_SIZE 72
int board_l2_decode(const void *p, size_t n, uint64_t val[8], struct board_err *err);

/* ---- streaming from a reader ---- */

/* The next record of a DeviceProf file: 1 = *out filled, 0 = end of
 * input, -1 = error.  *index counts records read (skipped ones too). */
int board_pmu_next(struct rd *r, enum board_fmt fmt, uint64_t *index, struct board_pmu *out, struct board_err *err);
int board_stamp_next(struct rd *r, enum board_fmt fmt, uint64_t *index, struct board_stamp *out,
                     struct board_err *err);
/* The whole of L2Cache.bin (one record; a longer file is an error). */
int board_l2_read(struct rd *r, uint64_t val[8], struct board_err *err);

/* ---- op_basic_info.txt ---- */

#define BOARD_TEXT_MAX 256

struct board_basic {
	char op_name[BOARD_TEXT_MAX];
	char soc[BOARD_TEXT_MAX];
	char pid[BOARD_TEXT_MAX];
	char cur_freq_text[BOARD_TEXT_MAX];   /* as written ("N/A" and all) */
	char rated_freq_text[BOARD_TEXT_MAX];
	char block_dim_text[BOARD_TEXT_MAX];  /* as written (the reference's CSV) */
	char device_id_text[BOARD_TEXT_MAX];
	uint64_t block_dim;
	unsigned device_id;
	int64_t cur_freq, rated_freq;         /* MHz; -1 when not an integer */
	int is_mc2, is_lccl, has_simt;
	/* which keys were present */
	unsigned have_op_name : 1, have_block_dim : 1, have_soc : 1, have_device_id : 1, have_pid : 1,
	    have_cur_freq : 1, have_rated_freq : 1;
};

void board_basic_init(struct board_basic *b);
/* One line (without LF; a trailing CR is dropped).  Lines without exactly
 * one '=' are ignored, as unknown keys are.  -1 with *err for a value too
 * long, or a Device Id / Block Dim that is not an integer. */
int board_basic_line(struct board_basic *b, const char *s, size_t len, uint64_t lineno, struct board_err *err);
/* The fields a run cannot go without: Op Name, Block Dim, Run Soc
 * Version, Device Id.  0, or -1 with *err naming the first missing. */
int board_basic_check(const struct board_basic *b, struct board_err *err);
/* The reference's low-frequency rule: Current Freq and Rated Freq both
 * integers and the current at most 0.95 of the rated (in single
 * precision).  1 when the run gets the advice. */
int board_low_freq(const struct board_basic *b);
#define BOARD_LOW_FREQ_ADVICE "The current frequency is lower than the rated frequency"
/* All lines of a reader, then board_basic_check. */
int board_basic_read(struct rd *r, struct board_basic *b, struct board_err *err);
/* The same over bytes. */
int board_basic_parse(const char *p, size_t n, struct board_basic *b, struct board_err *err);

#endif
