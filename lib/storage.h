/* The storage-access view of an on-board run (see optrace-board(5),
 * STORAGE_ACCESS_HEAT_MAP and STORAGE_ACCESS_TABLE): per block, the
 * requests and bandwidth of each memory path, its share of the path's
 * peak where the reference rates one, the L2 cache's hits and misses and
 * the units' busy ratios (the heat map), and the tables of each memory
 * unit, cache and pipe (the table).
 *
 * Bandwidths are single precision in the reference's order (lib/pmu.h's
 * rate functions), so they print as the reference's do. */
#ifndef OPTRACE_STORAGE_H
#define OPTRACE_STORAGE_H

#include <stdint.h>

#include "pmu.h"

/* Memory paths, numbered as the reference numbers them (20..34 are
 * other chips'). */
enum st_path {
	ST_GM_TO_L2, ST_L2_TO_GM, ST_L2_TO_L1, ST_L1_TO_L2, ST_TO_L0A, ST_TO_L0B, ST_L0A_TO_CUBE, ST_L0B_TO_CUBE,
	ST_CUBE_TO_L0C, ST_L0C_TO_L1, ST_L0C_TO_L2, ST_L0C_TO_CUBE, ST_L2_TO_UB, ST_UB_TO_L2, ST_UB_TO_VEC,
	ST_VEC_TO_UB, ST_L2_TO_UB_1, ST_UB_TO_L2_1, ST_UB_TO_VEC_1, ST_VEC_TO_UB_1,
	/* 310P */
	ST_L2_UB_TO_L1 = 20, ST_L1_TO_L0A_310P, ST_L2_L1_TO_L0B, ST_VEC_TO_L0C, ST_L0C_TO_VEC, ST_L2_L1_TO_UB,
	ST_GM_TO_L0A = 35, ST_GM_TO_L0B, ST_L1_TO_L0A, ST_L1_TO_L0B,
	/* Ascend950 */
	ST_L0C_TO_FIXP, ST_FIXP_TO_L2, ST_FIXP_TO_L1, ST_FIXP_TO_UB, ST_FIXP_TO_UB_1, ST_L1_TO_UB, ST_L1_TO_UB_1,
	ST_UB_TO_L1, ST_UB_TO_L1_1, ST_L2_TO_DCACHE, ST_L2_TO_DCACHE_1, ST_DCACHE_TO_L2, ST_DCACHE_TO_L2_1,
	ST_VEC_TO_DCACHE, ST_VEC_TO_DCACHE_1, ST_DCACHE_TO_VEC, ST_DCACHE_TO_VEC_1, ST_PATHS
};

#define ST_NA UINT64_MAX          /* a count that cannot be derived (it would be negative) */

struct st_unit {
	enum st_path path;
	uint64_t request;         /* ST_NA: no request count, no bandwidth */
	float bw;                 /* GB/s */
	char peak[PMU_VALUE_MAX]; /* percent of the path's peak, or "NA" */
};

struct st_use {
	const char *name;         /* "Cube", "Vector", "Vector1" */
	uint64_t cycle, total;
	float ratio;              /* percent */
};

struct st_block {
	unsigned nunit;
	struct st_unit unit[40];         /* by path */
	uint64_t hit, miss;              /* L2 over all sub-cores; ST_NA: unknown */
	unsigned nuse;
	struct st_use use[3];            /* by name */
};

/* The storage-access table of a block: tables in name order, each with
 * its header and rows of text values, and the pipes' advice. */
#define ST_ROWS 32
#define ST_COLS 5
#define ST_TABLES 24
struct st_row {
	const char *name;
	unsigned n;
	char v[ST_COLS][PMU_VALUE_MAX];
};
struct st_table {
	const char *name;
	const char *const *head;         /* NULL-terminated; the first is "" */
	unsigned nrow;
	struct st_row row[ST_ROWS];
};
struct st_tables {
	unsigned n;
	struct st_table t[ST_TABLES];
	unsigned nadvice;
	const char *advice[8];
};

/* The heat map and table of a 310P block (all its sub-cores are one
 * "AiCore" block); t may be NULL. */
void st_block_310p(struct st_block *o, struct st_tables *t, const struct pmu_ctx *x);

/* The heat map and table of an Ascend950 block of a "cube", "vector" or
 * "mix" op, as st_block_910b takes them; has_simt: the op's Has Simt
 * (its UB <-> Vector paths are not counted then).  t may be NULL.  The
 * pipes' advice accumulates over the op's blocks, as the reference's
 * does: *adv (0 before the first block) gathers it when t is given. */
void st_block_a5(struct st_block *o, struct st_tables *t, const char *type, const struct pmu_ctx *x,
                 const struct pmu_ctx *v0, const struct pmu_ctx *v1, int has_simt, unsigned *adv);

/* The 910B cube-block counts the view derives (ST_NA where the
 * difference would be negative): MTE/GM read P50-P518, L0A/L0B write
 * P49+P524-4*P19-P518, L1 -> GM write 4*P19+P518-P524, GM write
 * P524-P518. */
struct st_cube_counts {
	uint64_t mte_gm_read, l0ab_write, l1_gm_write, gm_write;
};
void st_cube_counts(const struct pmu_counts *ev, struct st_cube_counts *c);

/* One block of a "cube", "vector" or "mix" op.  x is the block's context
 * (a mix op's cube sub-core, its span the op's duration); v0 and v1 are
 * a mix op's vector sub-cores (NULL when missing, and for other ops),
 * whose counts are rated over x's span.  l2_evict: the L2 evictions
 * charged to this block (< 0 when there are none), which caps the L2 ->
 * GM requests. */
void st_block_910b(struct st_block *o, const char *type, const struct pmu_ctx *x, const struct pmu_ctx *v0,
                   const struct pmu_ctx *v1, int64_t l2_evict);
/* Its table (t), from the same arguments. */
void st_table_910b(struct st_tables *t, const char *type, const struct pmu_ctx *x, const struct pmu_ctx *v0,
                   const struct pmu_ctx *v1, int64_t l2_evict);


/* a over b in percent, 0 when b is 0 or a is larger: the busy and active
 * ratios of the view (the roofline's advice weighs them too). */
float st_percent(uint64_t a, uint64_t b);

/* "GM -> L2", "L2 -> L1", ... (vector1's paths as vector0's). */
const char *st_path_name(enum st_path p);

#endif
