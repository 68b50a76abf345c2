/* A5 PC sampling records (see pcsamp.h and optrace-board(5)). */
#include "pcsamp.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "order.h"

static const char *const state_names[PCS_STATES] = {
	"IBuf_Empty", "Nop_Cycles", "Scoreboard_Not_Ready", "Register_bank_conflict", "Resource_conflict",
	"Warp_Level_Sync", "Divergence_Stack_Spill", "Others", "Active",
};

const char *pcs_state_name(unsigned i)
{
	return i < PCS_STATES ? state_names[i] : "?";
}

void pcs_init(struct pcs *s, uint64_t start_pc, uint64_t pc_offset, pcs_known_fn *known, void *ctx)
{
	memset(s, 0, sizeof *s);
	s->start_pc = start_pc;
	s->pc_offset = pc_offset;
	s->known = known;
	s->ctx = ctx;
}

void pcs_free(struct pcs *s)
{
	free(s->rows);
	free(s->dropped_pcs);
	memset(s, 0, sizeof *s);
}

uint64_t pcs_pc(uint32_t field, uint64_t start_pc, uint64_t pc_offset)
{
	return (uint64_t)(field & 0xFFFFFFu) * 8 - (start_pc & 0x7FFFFFFu) - pc_offset;
}

static int cmp_row(const void *a, const void *b)
{
	return cmp_u64(((const struct pcs_row *)a)->pc, ((const struct pcs_row *)b)->pc);
}

static int cmp_pc(const void *a, const void *b)
{
	return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* Sort and merge the rows (the unsorted tail into the sorted head). */
static void merge_rows(struct pcs *s)
{
	size_t i, k = 0;
	if (s->sorted == s->nrows)
		return;
	qsort(s->rows, s->nrows, sizeof *s->rows, cmp_row);
	for (i = 0; i < s->nrows; i++) {
		if (k && s->rows[k - 1].pc == s->rows[i].pc) {
			unsigned j;
			for (j = 0; j < PCS_STATES; j++)
				s->rows[k - 1].n[j] += s->rows[i].n[j];
		} else {
			s->rows[k++] = s->rows[i];
		}
	}
	s->nrows = s->sorted = k;
}

static void merge_dropped(struct pcs *s)
{
	size_t i, k = 0;
	if (s->ndropped < 2)
		return;
	qsort(s->dropped_pcs, s->ndropped, sizeof *s->dropped_pcs, cmp_pc);
	for (i = 0; i < s->ndropped; i++)
		if (!k || s->dropped_pcs[k - 1] != s->dropped_pcs[i])
			s->dropped_pcs[k++] = s->dropped_pcs[i];
	s->ndropped = k;
}

int pcs_chunk(struct pcs *s, const unsigned char *chunk)
{
	uint32_t valid = (uint32_t)chunk[4] | (uint32_t)chunk[5] << 8 | (uint32_t)chunk[6] << 16 |
	                 (uint32_t)chunk[7] << 24;
	const unsigned char *d = chunk + PCS_HEAD_SIZE;
	size_t j, end = valid < PCS_DATA_SIZE ? valid : PCS_DATA_SIZE;
	s->chunks++;
	/* A record begins at every 16th byte below validLen: a length that
	 * is not a multiple of 16 still takes the record it cuts. */
	for (j = 0; j < end; j += PCS_REC_SIZE) {
		const unsigned char *r = d + j;
		uint64_t pc = pcs_pc((uint32_t)r[0] | (uint32_t)r[1] << 8 | (uint32_t)r[2] << 16, s->start_pc,
		                     s->pc_offset);
		unsigned k;
		s->records++;
		if (s->known && !s->known(s->ctx, pc)) {
			s->dropped++;
			if (s->ndropped == s->dcap) {
				merge_dropped(s);
				if (s->ndropped >= s->dcap / 2)
					s->dropped_pcs = xreallocarray(s->dropped_pcs, s->dcap = s->dcap ? 2 * s->dcap : 64,
					                               sizeof *s->dropped_pcs);
			}
			s->dropped_pcs[s->ndropped++] = pc;
			continue;
		}
		/* Full: merge first, so that the rows stay bounded by the
		 * kernel's distinct pcs, not by its samples. */
		if (s->nrows == s->cap) {
			merge_rows(s);
			if (s->nrows >= s->cap / 2)
				s->rows = xreallocarray(s->rows, s->cap = s->cap ? 2 * s->cap : 256, sizeof *s->rows);
		}
		s->rows[s->nrows].pc = pc;
		for (k = 0; k < PCS_STATES; k++) {
			s->rows[s->nrows].n[k] = r[3 + k];
			if (k < PCS_STALLS)
				s->top[k] += r[3 + k];
		}
		s->nrows++;
	}
	return valid > PCS_DATA_SIZE;
}

void pcs_finish(struct pcs *s)
{
	merge_rows(s);
	merge_dropped(s);
}

uint64_t pcs_stall_sum(const uint64_t *n)
{
	uint64_t t = 0;
	unsigned k;
	for (k = 0; k < PCS_STALLS; k++)
		t += n[k];
	return t;
}

uint64_t pcs_all_sum(const uint64_t *n)
{
	return pcs_stall_sum(n) + n[PCS_STALLS];
}
