/* The A5 (Ascend950) SIMT warp timeline: the per-block warp records of
 * dump/WarpTimeline.bin and the rules that turn them into trace slices
 * (see optrace-board(5), WARPTIMELINE.BIN). */
#ifndef OPTRACE_WARP_H
#define OPTRACE_WARP_H

#include <stddef.h>
#include <stdint.h>

#include "tick.h"

#define WARP_FILE "WarpTimeline.bin"
#define WARP_MAGIC 0x5A5A5A5Au
#define WARP_PER_BLOCK 64u           /* warp records of every block */
#define WARP_HEAD_SIZE 16u           /* magic, warpCount, coreId, coreType */
#define WARP_REC_SIZE 16u            /* u64 start, u64 end (cycles) */
#define WARP_GAP 64u
#define WARP_BLOCK_SIZE (WARP_HEAD_SIZE + WARP_PER_BLOCK * WARP_REC_SIZE + WARP_GAP)   /* 1104 */

/* One warp run: the block index is the block's place in the file. */
struct warp_slice {
	uint32_t block, core_id, core_type, warp;
	uint64_t start, end;
};

struct warp_stats {
	uint64_t blocks;      /* blocks read */
	uint64_t bad_magic;   /* blocks skipped: not the magic word */
	uint64_t invalid;     /* warps skipped: start 0 or end <= start */
	uint64_t slices;      /* warps kept */
};

/* Decode one block of WARP_BLOCK_SIZE bytes, the block-th of its file:
 * each valid warp of the first min(warpCount, WARP_PER_BLOCK) is appended
 * to *v (grown as needed, *n its count, *cap its room).  Returns 0; 1 for
 * a block whose warpCount passes WARP_PER_BLOCK (its 64 are read); -1 for
 * a block without the magic word (nothing appended). */
int warp_block(const unsigned char *p, uint32_t block, struct warp_slice **v, size_t *n, size_t *cap,
               struct warp_stats *st);

/* The lane group (trace pid) of a sub-core: "warp.core<id>.veccore0",
 * ".veccore1", ".cubecore0" (core type 0, 1, 2) or ".unknowncore<t>".
 * Returns the length written (at most n-1, NUL-terminated). */
size_t warp_pid(uint32_t core_id, uint32_t core_type, char *buf, size_t n);

/* Per lane group, the earliest start: shift[i] = the start of the
 * earliest slice of v[i]'s pid (slices of one pid share it). */
void warp_pid_starts(const struct warp_slice *v, size_t n, uint64_t *shift);

/* The order of the lanes' sort metadata: indices of the first slice of
 * each distinct (pid, warp), by pid text then warp number.  Returns how
 * many were written to idx (room for n). */
size_t warp_lanes(const struct warp_slice *v, size_t n, size_t *idx);

/* A slice's start and length in microseconds x 10^6 on a clock of mhz:
 * its start less its pid's earliest (shift), plus align6, the earliest
 * start of the trace it joins (same unit). */
static inline uint64_t warp_ts6(const struct warp_slice *s, uint64_t shift, uint64_t align6, unsigned mhz)
{
	return align6 + tick_us6(s->start - shift, mhz);
}
static inline uint64_t warp_dur6(const struct warp_slice *s, unsigned mhz)
{
	return tick_us6(s->end - s->start, mhz);
}

#endif
