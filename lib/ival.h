/* The length of a union of intervals given in any order, in bounded
 * memory: the disjoint runs still open, sorted by start, and the total of
 * those folded away.  Once max runs are open, the older half is folded:
 * an interval that reaches back behind them is then counted on its own
 * (the inputs come nearly in time order, so that does not happen in
 * practice; the total is exact whenever it does not). */
#ifndef OPTRACE_IVAL_H
#define OPTRACE_IVAL_H
#include <stdint.h>

struct ival_run { uint64_t s, e; };
struct ival_union {
	struct ival_run *v;
	uint32_t n, cap, max;
	int fixed;                  /* v is the caller's: never grown or freed */
	uint64_t closed;
};

/* An empty union that keeps at most max runs open (0: 65536); a
 * zero-filled struct is the same as ival_init(u, 0). */
void ival_init(struct ival_union *u, uint32_t max);
/* An empty union in the caller's n runs at buf (a small union held in
 * the caller's own row: no allocation); ival_free leaves buf alone. */
void ival_init_buf(struct ival_union *u, struct ival_run *buf, uint32_t n);
/* Add [s, e); nothing when e <= s. */
void ival_add(struct ival_union *u, uint64_t s, uint64_t e);
uint64_t ival_total(const struct ival_union *u);
void ival_free(struct ival_union *u);
#endif
