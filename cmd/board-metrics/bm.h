/* board-metrics' private parts: what cmd/board-metrics.c and the files
 * beside it share (the merged rows of the run, its basic facts, the
 * roofline) and what they offer each other. */
#ifndef BOARD_METRICS_H
#define BOARD_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "pmu.h"
#include "roofline.h"

/* One (block, sub-core) key: its merged counts and its last replay's
 * cycles and core id. */
struct blk {
	unsigned block, core, sub, core_id;
	uint64_t cycles;
	struct pmu_counts ev;
};

struct run {
	const char *soc, *type;
	int64_t freq, cores;
	float duration;              /* Task Duration; < 0 unknown */
	int mix;
	int64_t l2_evict;             /* L2Cache.bin's evict count (910B/A3), -1 when none */
};

extern struct blk **blks;            /* sorted by block, cube0 < vector0 < vector1 */
extern size_t nblks;
extern int fmt;                      /* enum board_fmt */
extern struct board_basic basic;
extern struct roofline roof;         /* built by the pictures (not on Ascend950) */
extern int roof_built;

/* ---- visualize_data.bin (vdata.c) ---- */

/* --vdata, --vdata-trace, --vdata-block TYPE=FILE. */
void vd_set_path(const char *path);
void vd_set_trace(const char *path);
void vd_add_block(const char *arg);       /* cli_die on a bad TYPE */
int vd_wanted(void);
/* Write it (staged when it goes into -o DIR, else aside until
 * vd_commit); occupancy and roofline say which blocks are asked for. */
void vd_write(const struct run *u, int occupancy, int roofline);
/* After the set is in place: move a file written aside into place. */
void vd_commit(void);

/* A block of w whose JSON put writes (with arg); cli_die on failure. */
struct json;
struct vdata_w;
void vd_json_block(struct vdata_w *w, int type, void (*put)(struct json *, const void *), const void *arg);

/* ---- compute load (cload.c) ---- */

/* --operand-records FILE: OperandRecord.bin opened and its size checked
 * (cli_die when it is not one); read by cl_blocks. */
void cl_read_operands(const char *path);
void cl_free(void);
/* COMPUTE_LOAD_FIGURE and COMPUTE_LOAD_TABLE into w. */
void cl_blocks(struct vdata_w *w, const struct run *u);

/* occupancy.svg (when occupancy is asked for) and memory.svg (910B/A3)
 * (vdata.c: they share the views). */
void vd_pictures(const struct run *u, int occupancy);

#endif
