/* Per-instruction calculators of instr-parse (process bytes, vector
 * utilisation, UB bank conflicts, live GPR count), faithful to the
 * reference's numbers.  Pure functions over one instruction's name and
 * space-free detail; the only state is what the caller passes in. */
#ifndef OPTRACE_CALC_H
#define OPTRACE_CALC_H

#include <stddef.h>
#include <stdint.h>

/* Chip family: decides which calculators run and which grammar of
 * register operands applies. */
enum calc_family {
	CALC_A2 = 0,   /* Atlas A2 and A3 (910B, 910_93) */
	CALC_A5,       /* Ascend950 / dav_3510 */
	CALC_310P,
	CALC_310B,
	CALC_OTHER
};

/* A text slice: not NUL-terminated. */
struct calc_str {
	const char *p;
	size_t n;
};

/* Bytes moved by a transfer instruction.  0 when the instruction is not a
 * known transfer, -1 when the calculator does not run on this family
 * (anything but A2/A3 and 310P). */
/* Between calc_memo_begin(name, detail) and calc_memo_end() the
 * calculators keep what they find in that name and detail (same pointers
 * and lengths, bytes unchanged) and look it up once. */
void calc_memo_begin(struct calc_str name, struct calc_str detail);
void calc_memo_end(void);

int64_t calc_process_bytes(enum calc_family fam, struct calc_str name,
                           struct calc_str detail);

/* UB bank conflicts of a vector instruction: *rd and *wr are set to the read
 * and write conflict counts, or -1 when not applicable. */
void calc_ub_conflict(enum calc_family fam, struct calc_str name,
                      struct calc_str detail, int *rd, int *wr);

/* Vector-utilisation state, carried along the walk in (pc, start) order. */
enum calc_vec_var { CALC_VEC_MASK0, CALC_VEC_MASK1, CALC_VEC_NDPARA,
                    CALC_VEC_MASKMODE, CALC_VEC_NVARS };
struct calc_vec_state {
	uint64_t v[CALC_VEC_NVARS]; /* mask0, mask1, ndPara, maskMode (0/1) */
};

/* If the instruction writes vector state (MOVEMASK, MOV_SPR_XN with
 * SPR:CTRL or SPR:ND_PARA, 310P movemask / scalar_mov_xd_special), store the
 * written values in val[] and return a bit mask of the variables written
 * (bit i = enum calc_vec_var i).  Returns 0 when it writes nothing. */
unsigned calc_vec_writes(enum calc_family fam, struct calc_str name,
                         struct calc_str detail,
                         uint64_t val[CALC_VEC_NVARS]);

/* Vector utilisation in percent (0..100) of a vector-template instruction
 * given the state in effect, or -1 when not applicable. */
double calc_vec_util(enum calc_family fam, struct calc_str name,
                     struct calc_str detail, const struct calc_vec_state *st);

/* GPR operands of one instruction: register numbers used as sources and as
 * destinations.  Returns 0, or -1 when the calculator does not run on this
 * family (310B, other).  At most CALC_MAX_REGS of each are reported. */
#define CALC_MAX_REGS 16
struct calc_regs {
	uint16_t src[CALC_MAX_REGS], dst[CALC_MAX_REGS];
	int nsrc, ndst;
};
int calc_gpr_regs(enum calc_family fam, struct calc_str name,
                  struct calc_str detail, struct calc_regs *out);

/* Live-register counts for a sequence of n instructions in walk order
 * (the reference's algorithm, see optrace-calc(5), LIVE REGISTERS).  gpr[i]
 * receives the
 * count of instruction i.  Returns 0, or -1 if out of memory. */
int calc_gpr_walk(const struct calc_regs *regs, size_t n, int *gpr);
/* The same walk where row i has the registers regs[idx[i]]: many rows
 * (executions) share the registers of one instruction. */
int calc_gpr_walk_idx(const struct calc_regs *regs, const uint32_t *idx, size_t n, int *gpr);

#endif
