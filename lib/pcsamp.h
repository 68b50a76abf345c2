/* A5 (Ascend950) PC sampling: the stall-state samples of
 * dump/pcSampling.bin*, summed per instruction, and the top stall
 * reasons (see optrace-board(5), PCSAMPLING.BIN). */
#ifndef OPTRACE_PCSAMP_H
#define OPTRACE_PCSAMP_H

#include <stddef.h>
#include <stdint.h>

#define PCS_HEAD_SIZE 8u
#define PCS_DATA_SIZE (2u << 20)
#define PCS_CHUNK_SIZE (PCS_HEAD_SIZE + PCS_DATA_SIZE)
#define PCS_REC_SIZE 16u
#define PCS_STATES 9u       /* the counters of a record */
#define PCS_STALLS 8u       /* the first eight: the stall (not issued) states */
#define PCS_FILE "pcSampling.bin"

/* "IBuf_Empty", "Nop_Cycles", ..., "Others", "Active". */
const char *pcs_state_name(unsigned i);

/* One instruction's samples. */
struct pcs_row {
	uint64_t pc;
	uint64_t n[PCS_STATES];
};

/* Whether pc is an instruction of the kernel (ctx: the caller's). */
typedef int pcs_known_fn(void *ctx, uint64_t pc);

struct pcs {
	uint64_t start_pc, pc_offset;      /* the recovery of a pc (pcs_pc) */
	pcs_known_fn *known;               /* NULL: every pc is kept */
	void *ctx;
	struct pcs_row *rows;              /* by pc after pcs_finish */
	size_t nrows, cap, sorted;
	uint64_t top[PCS_STALLS];          /* the kept samples' stall states */
	uint64_t chunks, records;
	uint64_t dropped;                  /* records of a pc that is not an instruction */
	uint64_t *dropped_pcs;             /* their distinct pcs (sorted after pcs_finish) */
	size_t ndropped, dcap;
};

void pcs_init(struct pcs *s, uint64_t start_pc, uint64_t pc_offset, pcs_known_fn *known, void *ctx);
void pcs_free(struct pcs *s);

/* The pc of a record's 24-bit field (address bits 26..3): field * 8 less
 * the low 27 bits of the sampling start pc less the instrumentation's pc
 * offset, modulo 2^64. */
uint64_t pcs_pc(uint32_t field, uint64_t start_pc, uint64_t pc_offset);

/* One chunk of PCS_CHUNK_SIZE bytes: the records of its first validLen
 * bytes (16 at a time, at most the data area) summed per pc.  1 when its
 * validLen passes the data area (read to its end), else 0. */
int pcs_chunk(struct pcs *s, const unsigned char *chunk);

/* Sort the rows by pc, merging a pc's rows (called by the readers; the
 * rows are final after it). */
void pcs_finish(struct pcs *s);

/* Sums of a row: its stall states (the first eight) and all nine. */
uint64_t pcs_stall_sum(const uint64_t *n);
uint64_t pcs_all_sum(const uint64_t *n);

#endif
