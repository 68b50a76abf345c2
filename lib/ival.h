/* The length of a union of intervals given in any order, in bounded
 * memory: the disjoint runs still open, sorted by start, and the total of
 * those folded away.  Once max runs are open, the older half is folded:
 * an interval that reaches back behind them is then counted on its own
 * (the inputs come nearly in time order, so that does not happen in
 * practice; the total is exact whenever it does not). */
#ifndef OPTRACE_IVAL_H
#define OPTRACE_IVAL_H
#include <stdint.h>

struct ival_union {
	struct { uint64_t s, e; } *v;
	uint32_t n, cap, max;
	uint64_t closed;
};

/* An empty union that keeps at most max runs open (0: 65536); a
 * zero-filled struct is the same as ival_init(u, 0). */
void ival_init(struct ival_union *u, uint32_t max);
/* Add [s, e); nothing when e <= s. */
void ival_add(struct ival_union *u, uint64_t s, uint64_t e);
uint64_t ival_total(const struct ival_union *u);
void ival_free(struct ival_union *u);
#endif
