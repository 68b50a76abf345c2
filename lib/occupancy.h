/* The occupancy view of an on-board run (see optrace-board(5),
 * OCCUPANCY): per AI Core and sub-core its cycles, the bytes it moved
 * to and from main memory and its L2 hit rate (Ascend950: also the SIMT
 * instructions), and the advice naming the cores that stand out.
 *
 * Rules the reference follows and this keeps: a sub-core's events are
 * those of its kind's replay list, a missing count reading as UINT64_MAX
 * (so sums saturate) and an event off the list as 0; integer steps
 * saturate; for an op that is not mix, blocks that ran on the same
 * physical core (their last replay's core id) are merged into the one
 * with the smallest block id, summing cycles and counts.  The advice
 * z-scores each metric group (cube and vector apart), passes it through
 * a sigmoid (the hit rate mirrored) and names the sub-cores scoring 0.6
 * or more. */
#ifndef OPTRACE_OCCUPANCY_H
#define OPTRACE_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "pmu.h"

struct json;

/* One (block, sub-core) row of the run. */
struct occ_in {
	unsigned block, sub, core_id;
	enum board_core core;
	uint64_t cycles;
	const struct pmu_counts *ev;
};

struct occ_metrics {
	uint64_t cycles, throughput;     /* throughput: bytes */
	float hit_rate;                  /* percent */
	int has_simt;
	uint64_t simt_cycles, simt_instr;
};

struct occ_sub {
	const char *type;                /* "cube", "vector", or the op type */
	unsigned id;                     /* subcore_id */
	struct occ_metrics m;
};

struct occ_core {
	unsigned block;                  /* core_id of the JSON: the block id */
	unsigned nsub;
	struct occ_sub sub[3];
};

struct occupancy {
	char op_type[16];
	size_t ncore;
	struct occ_core *core;
	char *advice;                    /* "\t1) ....\n..." or "" */
};

/* The metrics of one sub-core from its (merged) counts: vals[k] is the
 * count of list[k] (UINT64_MAX when missing). */
void occ_metrics_of(enum board_fmt fmt, const uint16_t *list, const uint64_t *vals, size_t n, uint64_t cycles,
                    struct occ_metrics *out);

/* Build the view of rows in[0..n) (any order); op_type "mix", "cube",
 * "vector" or "AiCore".  0, or -1 when there is no row. */
int occ_build(struct occupancy *o, enum board_fmt fmt, const char *op_type, const struct occ_in *in, size_t n);
void occ_free(struct occupancy *o);

/* The advice over named values: names "<block>cube0" / "<block>vector<k>"
 * as the reference keys them.  Exposed for tests. */
struct occ_named {
	char name[24];
	struct occ_metrics m;
};
char *occ_advice(const char *op_type, const struct occ_named *v, size_t n);

/* The OCCUPANCY_MAP block's JSON (keys in the reference's order). */
void occ_json(struct json *j, const struct occupancy *o, const char *soc);

#endif
