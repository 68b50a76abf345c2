/* Three-way comparisons for qsort comparators: -1, 0 or 1, keys compared
 * in turn (c = cmp_u64(...); if (!c) c = cmp_f64(...); ...). */
#ifndef OPTRACE_ORDER_H
#define OPTRACE_ORDER_H

#include <stdint.h>

static inline int cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static inline int cmp_f64(double a, double b)
{
	return (a > b) - (a < b);
}

#endif
