/* On-board PMU metrics (see optrace-board(5), METRICS): the per-chip
 * constants, the metric groups and their CSV columns, and every metric of
 * the seven groups computed from a block's event counts, cycles and clock
 * exactly as the reference computes it: in single precision, in the same
 * order of operations, with saturating integer steps, printed as
 * std::to_string prints a float ("%f") or an integer, "NA" where the
 * reference writes NA.
 *
 * 910B/A3 and 310P metrics come from a table (formula kind, events,
 * parameters); A5 metrics are written out one by one, as they differ in
 * kind more than in numbers. */
#ifndef OPTRACE_PMU_H
#define OPTRACE_PMU_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"

struct wr;

/* The reference's checked integer steps: a sum or product that overflows
 * is UINT64_MAX (a product with a 0 factor is 0). */
static inline uint64_t pmu_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static inline uint64_t pmu_sat_mul(uint64_t a, uint64_t b)
{
	if (!a || !b)
		return 0;
	return a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* A missing event: any 910B/310P formula needing it is NA (A5 reads 0). */
#define PMU_EMPTY UINT64_MAX
#define PMU_EVENTS_MAX 160
/* Longest text of a value ("%f" of FLT_MAX is 47 characters). */
#define PMU_VALUE_MAX 64

/* A block's event counts (merged over the replay files). */
struct pmu_counts {
	unsigned n;
	uint16_t id[PMU_EVENTS_MAX];
	uint64_t val[PMU_EVENTS_MAX];
};

void pmu_counts_init(struct pmu_counts *c);
/* Set (or replace) an event's count; -1 when the table is full. */
int pmu_counts_set(struct pmu_counts *c, unsigned id, uint64_t val);
/* PMU_EMPTY if absent; a count of PMU_EMPTY itself reads as absent to the
 * 910B/310P formulas, as in the reference (A5 formulas see it). */
uint64_t pmu_counts_get(const struct pmu_counts *c, unsigned id);
/* Merging replays: an event already counted keeps its first count (the
 * reference inserts, it does not overwrite); -1 when the table is full. */
int pmu_counts_merge(struct pmu_counts *c, unsigned id, uint64_t val);

/* What a metric is computed from. */
struct pmu_ctx {
	enum board_fmt fmt;
	const char *soc;            /* Run Soc Version (bandwidth peaks, 910B fp32 rule) */
	int gm_cj;                  /* 910B series with the "CJ" GM (peaks) */
	const struct pmu_counts *ev;
	uint64_t cycles;            /* the block's totalCycles */
	int64_t freq;               /* MHz; <= 0 unknown */
	float tf;                   /* time factor: 1, 310P ceil(blockDim/cores)/blockDim */
	float duration;             /* us: Task Duration for a mix op without kernel scale, else 0 */
	/* memory-detail DBI byte counts (910B MTE1/MTE2 active bandwidth) */
	uint64_t dbi_gm_to_l0a, dbi_gm_to_l0b, dbi_gm_to_l1;
	/* A5: UB -> GM bytes from the DBI records, when there are any */
	int have_dbi_ub_to_gm;
	uint64_t dbi_ub_to_gm;
};

/* Fill a context; tf from block_dim and core_num on 310P. */
void pmu_ctx_init(struct pmu_ctx *x, enum board_fmt fmt, const char *soc, const struct pmu_counts *ev,
                  uint64_t cycles, int64_t freq, int64_t core_num, uint64_t block_dim, float duration);

/* The metric named name into buf (PMU_VALUE_MAX bytes): its length.  An
 * unknown name gives "NA", as the reference gives. */
size_t pmu_metric(const struct pmu_ctx *x, const char *name, char *buf);

/* ---- number forms ---- */

/* std::to_string of a float: "%f" of its double value. */
size_t pmu_fmt_float(float v, char *buf);
size_t pmu_fmt_u64(uint64_t v, char *buf);

/* ---- ratio, bandwidth and data forms (A5 metrics, pictures) ---- */

/* a / b as text, NA when b is 0. */
size_t pmu_ratio(uint64_t a, uint64_t b, char *buf);
float pmu_ratio_fp(uint64_t a, uint64_t b);
/* gb * factor * 10^6 / us; NA (or 0) when us is 0 or gb negative. */
size_t pmu_bandwidth(float gb, float us, float factor, char *buf);
float pmu_bandwidth_fp(float gb, float us, float factor);
/* count * bytes per request, in GiB (kb = 0) or KiB (kb = 1). */
float pmu_data_fp(uint64_t count, uint64_t req, int kb);

/* The reference's per-block rates over the block's span (the op's
 * duration where x has one, else cycles over the clock; 0 when neither):
 * v requests of pip x scalar bits in GB/s, and v requests of bytes each
 * in GB/s (v itself when the product overflows). */
float pmu_bandwidth_req(const struct pmu_ctx *x, uint64_t pip, uint64_t scalar, uint64_t v);
float pmu_bytes_bw(const struct pmu_ctx *x, uint64_t v, uint64_t bytes);

/* ---- constants ---- */

enum pmu_path {
	PATH_GM_TO_L1, PATH_L1_TO_GM, PATH_L0C_TO_L1, PATH_L0C_TO_GM, PATH_GM_TO_UB, PATH_UB_TO_GM,
	PATH_MTE_TO_L0A, PATH_MTE_TO_L0B, PATH_MTE2_WRITE, PATH_L0C_TO_UB, PATH_L1_TO_L0A, PATH_L1_TO_L0B,
	PATH_L1_TO_UB, PATH_UB_TO_L1, PATH_COUNT
};

/* Per-core peak bandwidth (GB/s) of a path on soc; the 910B1 table for an
 * unknown SoC; 0 when the SoC's table has no such path. */
float pmu_peak_bw(const char *soc, int gm_cj, enum pmu_path path);
/* gb over us as a percentage of the path's peak (capped at 100); NA when
 * us is 0 or there is no peak. */
size_t pmu_bw_usage(float gb, float us, enum pmu_path path, const char *soc, int gm_cj, char *buf);

/* Bytes per bus request of the 910B (the default) and A5 tables. */
enum pmu_req {
	REQ_MAIN_MEMORY, REQ_GM_TO_L1, REQ_GM_TO_UB, REQ_L0C_TO_L1, REQ_L0C_TO_GM, REQ_L0C_TO_FIXP,
	REQ_UB_TO_GM, REQ_UB_TO_MTE, REQ_UB_TO_VEC, REQ_L1_TO_GM, REQ_L1_TO_L0A, REQ_L1_TO_L0B, REQ_L1_TO_MTE,
	REQ_MTE_TO_L1, REQ_MTE_TO_L0A, REQ_MTE_TO_L0B, REQ_MTE_TO_UB, REQ_VEC_TO_UB, REQ_FIXP_TO_L1,
	REQ_GM_TO_L0A, REQ_GM_TO_L0B, REQ_CUBE_TO_L0C, REQ_L0A_TO_CUBE, REQ_L0B_TO_CUBE, REQ_L0C_TO_CUBE,
	REQ_L1_TO_UB, REQ_UB_TO_L1, REQ_VEC_TO_GM, REQ_DCACHE, REQ_L0C_TO_UB, REQ_COUNT
};
/* 0 when the chip's table has no such entry. */
unsigned pmu_req_bytes(enum board_fmt fmt, enum pmu_req r);

/* v requests of r's size over x's span as a percentage of path's peak
 * (capped at 100); NA for v = UINT64_MAX, no span or no peak. */
size_t pmu_transport_usage(const struct pmu_ctx *x, uint64_t v, enum pmu_req r, enum pmu_path path, char *buf);

/* v cycles in us (910B/310P: over the clock, times the time factor). */
size_t pmu_pipe_time(const struct pmu_ctx *x, uint64_t v, char *buf);
/* v requests of bytes each over cycles busy cycles, in GB/s (the
 * reference's vector MTE and fixpipe active bandwidth); NA without
 * cycles. */
size_t pmu_active_bw(const struct pmu_ctx *x, uint64_t bytes, uint64_t v, uint64_t cycles, char *buf);

/* Task-scheduler clock (kHz), AI Core clock (MHz) and core count the
 * reference assumes when the device cannot be asked. */
struct pmu_defaults {
	unsigned aicore_mhz, ts_khz, cores;
};
const struct pmu_defaults *pmu_defaults(enum board_fmt fmt);

/* ---- metric groups and their CSVs ---- */

enum pmu_group {
	GRP_ARITHMETIC, GRP_L2CACHE, GRP_MEMORY, GRP_MEMORYL0, GRP_MEMORYUB, GRP_PIPE, GRP_CONFLICT, GRP_COUNT
};

/* "ArithmeticUtilization", ... (file names); -1 / NULL when unknown.  The
 * lookup takes either spelling, in any case. */
const char *pmu_group_name(enum pmu_group g);
int pmu_group_find(const char *name);
/* The full replay event lists (8 or 10 per file, 0 = an empty slot) and
 * their length. */
const uint16_t *pmu_replay_events(enum board_fmt fmt, enum board_core core, size_t *n);
/* The events a capture for some groups programs (application replay),
 * as the reference chooses them: the groups' events (PMU_SEL_* bits, in
 * this order), each once, in the order of the fixed list, those of one
 * fixed replay kept together in one replay; 0 = an empty slot (Ascend950:
 * a 0 is also inserted before the last event when no slot is free, as the
 * reference does for its event 0).  310P and a mask of every group: the
 * fixed list.  Events of a group that the fixed list lacks are left out.
 * Returns the length (a multiple of the slots, at most cap). */
enum { PMU_SEL_PIPE, PMU_SEL_ARITH, PMU_SEL_L2, PMU_SEL_MEMORY, PMU_SEL_CONFLICT, PMU_SEL_L0, PMU_SEL_UB,
       PMU_SEL_OCCUPANCY, PMU_SEL_ROOFLINE, PMU_SEL_COUNT };
size_t pmu_program_events(enum board_fmt fmt, enum board_core core, unsigned mask, uint16_t *out, size_t cap);
/* L2Cache.bin's event of each slot (910B: slot 4 = L2 evict). */
const uint16_t *pmu_l2_events(enum board_fmt fmt);

/* The group's CSV columns, NULL-terminated.  The 910B PipeUtilization
 * list grows, in the caller, by the scalar_wait_idN columns of non-zero
 * events and the memory-detail columns of pmu_pipe_dbi_columns. */
const char *const *pmu_columns(enum board_fmt fmt, enum pmu_group g);
const char *const *pmu_pipe_dbi_columns(void);
/* "scalar_wait_id<k>_time(us)" of event 1792..1799 (k 0..7) or 1780..1787
 * (k 8..15), NULL for other events.  910B PipeUtilization has an aic_ (or
 * aiv_) column of it when a cube (vector) block counted the event non-zero:
 * the aic_ ones sorted as strings, then the aiv_ ones. */
const char *pmu_scalar_wait_name(unsigned event);
/* Does column col belong to a row of this core kind (aic_ to cube rows,
 * aiv_ and the UB data columns to vector rows)? block_id and sub_block_id
 * are the caller's. */
int pmu_column_of(enum board_fmt fmt, const char *col, enum board_core core);
/* OpBasicInfo.csv's columns. */
const char *const *pmu_basic_columns(enum board_fmt fmt);

/* One CSV line: each field followed by a comma (the last too, as the
 * reference writes them), then LF. */
void pmu_csv_line(struct wr *w, const char *const *fields, size_t n);
/* A block's row of a group: block_id and sub_block_id (not on 310P), then
 * each column, computed when it belongs to the core kind, else NA. */
void pmu_csv_row(struct wr *w, const struct pmu_ctx *x, const char *const *cols, enum board_core core,
                 const char *block_id, const char *sub_block_id);

#endif
