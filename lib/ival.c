/* The union of intervals (see ival.h). */
#include "ival.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

void ival_init(struct ival_union *u, uint32_t max)
{
	memset(u, 0, sizeof *u);
	u->max = max ? max : 65536;
}

void ival_init_buf(struct ival_union *u, struct ival_run *buf, uint32_t n)
{
	memset(u, 0, sizeof *u);
	u->v = buf;
	u->cap = u->max = n;
	u->fixed = 1;
}

/* An interval merges with every run it touches (a binary search for the
 * first, unless it starts at or after the last run's start). */
void ival_add(struct ival_union *u, uint64_t s, uint64_t e)
{
	uint32_t lo = 0, hi, i, j;
	if (e <= s)
		return;
	if (u->n && s >= u->v[u->n - 1].s) {
		/* at or after the last run's start: the common case */
		if (s <= u->v[u->n - 1].e) {
			if (e > u->v[u->n - 1].e)
				u->v[u->n - 1].e = e;
			return;
		}
		lo = u->n;
	} else {
		/* the first run ending at or after s */
		hi = u->n;
		while (lo < hi) {
			uint32_t m = lo + (hi - lo) / 2;
			if (u->v[m].e < s)
				lo = m + 1;
			else
				hi = m;
		}
	}
	for (j = lo; j < u->n && u->v[j].s <= e; j++) {
		if (u->v[j].s < s)
			s = u->v[j].s;
		if (u->v[j].e > e)
			e = u->v[j].e;
	}
	if (j > lo) {
		u->v[lo].s = s;
		u->v[lo].e = e;
		memmove(u->v + lo + 1, u->v + j, (u->n - j) * sizeof *u->v);
		u->n -= j - lo - 1;
		return;
	}
	if (u->n == u->cap) {
		uint32_t k, max = u->max ? u->max : 65536;
		if (u->cap < max) {
			u->cap = !u->cap ? (max < 256 ? max : 256) : u->cap * 2 < max ? u->cap * 2 : max;
			u->v = xrealloc(u->v, u->cap * sizeof *u->v);
		} else {
			/* the older half goes (less when the interval reaches
			 * back into it; alone when it precedes every run) */
			k = u->n / 2 < lo ? u->n / 2 : lo;
			if (!k) {
				u->closed += e - s;
				return;
			}
			for (i = 0; i < k; i++)
				u->closed += u->v[i].e - u->v[i].s;
			memmove(u->v, u->v + k, (u->n - k) * sizeof *u->v);
			u->n -= k;
			lo -= k;
		}
	}
	memmove(u->v + lo + 1, u->v + lo, (u->n - lo) * sizeof *u->v);
	u->v[lo].s = s;
	u->v[lo].e = e;
	u->n++;
}

uint64_t ival_total(const struct ival_union *u)
{
	uint64_t t = u->closed;
	uint32_t i;
	for (i = 0; i < u->n; i++)
		t += u->v[i].e - u->v[i].s;
	return t;
}

void ival_free(struct ival_union *u)
{
	if (!u->fixed)
		free(u->v);
	memset(u, 0, sizeof *u);
}

