/* The roofline of an on-board run (see optrace-board(5), ROOFLINE): the
 * PMU counts of all blocks summed, turned into operations, bytes per
 * memory unit, pipe and path, and their peaks; each line's point (ops per
 * byte, TOPS over the op's duration), its ratio to the attainable value,
 * and the run's advice.  910B/A3 and 310P; A5's roofline needs the
 * operand records and is not here.
 *
 * All arithmetic is single precision in the reference's order, so the
 * numbers print as the reference's do.  Lines come in the reference's
 * order: titles as it adds them, names sorted within a title. */
#ifndef OPTRACE_ROOFLINE_H
#define OPTRACE_ROOFLINE_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "pmu.h"

#define ROOF_NAME_MAX 256
#define ROOF_LINES_MAX 11
#define ROOF_TITLES_MAX 8

/* Operations of the cube or vector units, and their peak (TOPS). */
struct roof_prop {
	uint64_t ops;
	float peak;
	char name[ROOF_NAME_MAX]; /* "Cube_FP(100%)", "Vec_FP32(96.822998%),..." */
};

struct roof_line {
	const char *bw_name;      /* "L1 Read + Write", "MTE2", "GM/L1 to L0A", ... */
	uint64_t bytes;
	float bw;                 /* peak, TB/s */
	float x, y;               /* ops per byte, TOPS */
	char ratio[PMU_VALUE_MAX]; /* y over the attainable value, or "NA" */
};

struct roof_title {
	const char *title;        /* "Memory Unit(Cube)", "GM/L2", ... */
	struct roof_prop prop;
	unsigned n;
	struct roof_line line[ROOF_LINES_MAX];
};

struct roofline {
	enum board_fmt fmt;
	const char *soc;
	int gm_cj;
	int64_t freq;             /* MHz */
	int64_t cores;            /* AI Cores: cube units; vector units are twice as many (910B) */
	float duration;           /* op Task Duration, us */
	int64_t l2_evict;         /* L2Cache.bin's evict count, -1 when none */
	struct pmu_counts sum;    /* summed counts (missing = 0) */
	struct roof_prop cube, vec;
	unsigned ntitle;
	struct roof_title title[ROOF_TITLES_MAX];
	/* advice state: the largest ratio seen and its bound; the pipes'
	 * largest utilisation (percent, from the storage-access view) */
	float best;
	const char *best_bound;
	unsigned npipe;
	struct { char name[32]; float ratio; } pipe[16];
};

void roof_init(struct roofline *r, enum board_fmt fmt, const char *soc, int gm_cj, int64_t freq, int64_t cores,
               float duration);
/* Add a block's counts: the cube events of a cube block, the vector events
 * of a vector one (310P: every block, all events). */
void roof_add(struct roofline *r, enum board_core core, const struct pmu_counts *ev);
/* Build the titles; cube and vector say which units the op used (mix:
 * both). */
void roof_build(struct roofline *r, int cube, int vector);
/* Note a pipe's utilisation (percent) for the advice; the largest per
 * name is kept. */
void roof_pipe_ratio(struct roofline *r, const char *name, float ratio);
/* "memory bound", "compute bound", "latency bound:...". */
const char *roof_advice(const struct roofline *r);

/* One point against a roofline: the ratio text ("NA" where the point
 * cannot be rated); updates r's best ratio. */
size_t roof_analysis(struct roofline *r, float bw, float peak, float x, float y, char *buf);

/* A memory unit's peak (TB/s) from its bytes per cycle. */
float roof_unit_peak(unsigned bytes_per_cycle, int64_t freq, int64_t cores);
/* Per-core pipe peaks (GB/s) of 910B: MTE1 weighted by the L0A/L0B bytes
 * (their mean when none), MTE2, MTE3, FIXP weighted by L0C->GM/L0C->L1,
 * vector MTE2 and MTE3. */
enum { ROOF_MTE1, ROOF_MTE2, ROOF_MTE3, ROOF_FIXP, ROOF_MTE2_VEC, ROOF_MTE3_VEC, ROOF_PIPES };
void roof_pipe_peaks(const char *soc, int gm_cj, uint64_t l0a, uint64_t l0b, uint64_t l0c_gm, uint64_t l0c_l1,
                     float out[ROOF_PIPES]);
/* GM and L2 peaks (TB/s) of the 910B series; 910B1's for other SoCs. */
float roof_gm_peak(const char *soc, int gm_cj);
float roof_l2_peak(const char *soc, int gm_cj);

#endif
