/* The A5 SIMT warp timeline records (see warp.h and optrace-board(5)). */
#include "warp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

int warp_block(const unsigned char *p, uint32_t block, struct warp_slice **v, size_t *n, size_t *cap,
               struct warp_stats *st)
{
	uint32_t count, w;
	int over = 0;
	st->blocks++;
	if (le32(p) != WARP_MAGIC) {
		st->bad_magic++;
		return -1;
	}
	count = le32(p + 4);
	if (count > WARP_PER_BLOCK)
		count = WARP_PER_BLOCK, over = 1;
	for (w = 0; w < count; w++) {
		const unsigned char *r = p + WARP_HEAD_SIZE + (size_t)w * WARP_REC_SIZE;
		struct warp_slice s;
		s.start = le64(r);
		s.end = le64(r + 8);
		if (!s.start || s.end <= s.start) {
			st->invalid++;
			continue;
		}
		s.block = block;
		s.core_id = le32(p + 8);
		s.core_type = le32(p + 12);
		s.warp = w;
		if (*n == *cap)
			*v = xreallocarray(*v, *cap = *cap ? 2 * *cap : 64, sizeof **v);
		(*v)[(*n)++] = s;
		st->slices++;
	}
	return over;
}

size_t warp_pid(uint32_t core_id, uint32_t core_type, char *buf, size_t n)
{
	static const char *const sub[] = { "veccore0", "veccore1", "cubecore0" };
	int k = core_type < 3 ? snprintf(buf, n, "warp.core%u.%s", core_id, sub[core_type])
	                      : snprintf(buf, n, "warp.core%u.unknowncore%u", core_id, core_type);
	return k < 0 ? 0 : (size_t)k < n ? (size_t)k : n ? n - 1 : 0;
}

/* Two slices are on the same pid when core id and core type agree (the
 * pid text is a function of the two and tells them apart). */
static int same_pid(const struct warp_slice *a, const struct warp_slice *b)
{
	return a->core_id == b->core_id && a->core_type == b->core_type;
}

static int cmp_pid(const struct warp_slice *a, const struct warp_slice *b)
{
	char pa[48], pb[48];
	if (same_pid(a, b))
		return 0;
	warp_pid(a->core_id, a->core_type, pa, sizeof pa);
	warp_pid(b->core_id, b->core_type, pb, sizeof pb);
	return strcmp(pa, pb);
}

static int cmp_lane(const void *x, const void *y, void *base)
{
	const struct warp_slice *v = base, *a = &v[*(const size_t *)x], *b = &v[*(const size_t *)y];
	int c = cmp_pid(a, b);
	if (c)
		return c;
	if (a->warp != b->warp)
		return a->warp < b->warp ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : *(const size_t *)x > *(const size_t *)y;
}

void warp_pid_starts(const struct warp_slice *v, size_t n, uint64_t *shift)
{
	size_t *idx = xreallocarray(NULL, n ? n : 1, sizeof *idx), i, j;
	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof *idx, cmp_lane, (void *)v);
	for (i = 0; i < n; i = j) {
		uint64_t lo = v[idx[i]].start;
		for (j = i; j < n && same_pid(&v[idx[i]], &v[idx[j]]); j++)
			if (v[idx[j]].start < lo)
				lo = v[idx[j]].start;
		while (i < j)
			shift[idx[i++]] = lo;
	}
	free(idx);
}

size_t warp_lanes(const struct warp_slice *v, size_t n, size_t *idx)
{
	size_t i, k = 0;
	for (i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof *idx, cmp_lane, (void *)v);
	for (i = 0; i < n; i++)
		if (!k || !same_pid(&v[idx[k - 1]], &v[idx[i]]) || v[idx[k - 1]].warp != v[idx[i]].warp)
			idx[k++] = idx[i];
	return k;
}
