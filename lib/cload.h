/* The compute load of an on-board run (optrace-board(5), COMPUTE LOAD and
 * OPERANDRECORD.BIN): the items of each block and sub-core, from its PMU
 * counts (A2/A3, 310P; the A5 cube) or from the operand counts the A5
 * instrumentation wrote into OperandRecord.bin (the A5 vector), and the
 * layout of that file, read a block at a time by board-metrics and
 * written by the stand-in device. */
#ifndef OPTRACE_CLOAD_H
#define OPTRACE_CLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "board.h"
#include "pmu.h"

/* ---- OperandRecord.bin ---- */

#define OPREC_TYPES 33u              /* operand types F16 .. ZX32 */
#define OPREC_THREADS 2048u          /* SIMT threads of a block */
#define OPREC_HEAD 8u                /* u32 magic, u32 reserved */
#define OPREC_REC 24u                /* u64 instructions, operands, function type */
#define OPREC_THREAD_BYTES (OPREC_TYPES * OPREC_REC + 64u)            /* 856 */
#define OPREC_BLOCK_BYTES (OPREC_THREAD_BYTES * (OPREC_THREADS + 1u) + 64u) /* 1754008 */
#define OPREC_MAGIC 0x5A5A5A5Au
#define OPREC_BLOCKS_MAX 108u        /* sub-blocks the instrumentation has room for */
#define OPREC_F32X2 16u              /* the last floating-point type */

enum { OPREC_F32 = 15, OPREC_S32 = 24 };

/* A block's sums: SIMD (thread -1) and over every SIMT thread. */
struct oprec_sum {
	uint64_t simd_instr[OPREC_TYPES], simd_ops[OPREC_TYPES];
	uint64_t simt_instr[OPREC_TYPES], simt_ops[OPREC_TYPES];
};

/* The name of operand type t ("F16", ... "ZX32"). */
const char *oprec_type_name(unsigned t);

/* Byte offset of the record of type t of thread th (-1: the SIMD record)
 * of sub-block b. */
uint64_t oprec_offset(unsigned b, int th, unsigned t);

/* The sub-block index of a (block, sub-core) row: three per AI Core,
 * vector0, vector1, cube.  A cube op's block b is 3b + 2, a mix op's
 * vector k 3b + k, a vector op's block b vector b % 2 of core b / 2. */
size_t oprec_index(int mix, enum board_core core, unsigned block, unsigned sub);

/* Open path and check its size (8 + k x OPREC_BLOCK_BYTES): the file, or
 * NULL with *why the reason (errno kept for a system error, 0 for a bad
 * size).  *nblocks = k. */
FILE *oprec_open(const char *path, size_t *nblocks, const char **why);
/* Read sub-block i (in order, from the current position) into *s: 0,
 * or -1 (a short read or an I/O error). */
int oprec_read(FILE *f, struct oprec_sum *s);

/* ---- the items ---- */

enum cload_unit { CL_US = 0, CL_INSTR = 1, CL_PER = 3 };

#define CLOAD_NAME_MAX 40
#define CLOAD_ITEMS_MAX (OPREC_TYPES + 16)

struct cload_item {
	char name[CLOAD_NAME_MAX];
	enum cload_unit unit;
	int table;                /* 0 COMPUTE_LOAD_FIGURE, 1 COMPUTE_LOAD_TABLE */
	uint64_t value;           /* PMU_EMPTY: NA */
};

/* The items of one row, in the reference's order, from its core kind,
 * counts, the clock in MHz and (A5 vector) its operand sums or NULL (no
 * OperandRecord.bin, or no sub-block of the row in it): their number.
 * 310P rows have the cube's items, then the vector's. */
size_t cload_items(enum board_fmt fmt, enum board_core core, const struct pmu_counts *ev, int64_t mhz,
                   const struct oprec_sum *op, struct cload_item out[CLOAD_ITEMS_MAX]);

/* A percentage item's value: count / cycles x 100 in single precision,
 * 0 for an absent count. */
float cload_percent(uint64_t v, uint64_t cycles);

#endif
