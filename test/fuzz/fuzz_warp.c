/* libFuzzer target: the SIMT warp timeline records of lib/warp.c.
 *
 * The input, cut into blocks of WARP_BLOCK_SIZE (the last padded with
 * zeros), goes through warp_block; every slice kept has a start, an end
 * after it and a warp below the block's count; each pid's shift is its
 * earliest start; the lanes are distinct and in order. */
#include "warp.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char blk[WARP_BLOCK_SIZE];
	struct warp_slice *v = NULL;
	struct warp_stats st = { 0 };
	size_t n = 0, cap = 0, at, i, k, *lanes;
	uint64_t *shift;
	uint32_t b = 0;

	for (at = 0; at < size; at += WARP_BLOCK_SIZE, b++) {
		size_t len = size - at < WARP_BLOCK_SIZE ? size - at : WARP_BLOCK_SIZE, before = n;
		int rc;
		memset(blk, 0, sizeof blk);
		memcpy(blk, data + at, len);
		rc = warp_block(blk, b, &v, &n, &cap, &st);
		CHECK(rc == 0 || n == before);
	}
	CHECK(st.slices == n && st.blocks == b);
	for (i = 0; i < n; i++) {
		char pid[64];
		size_t pn = warp_pid(v[i].core_id, v[i].core_type, pid, sizeof pid);
		CHECK(v[i].start && v[i].end > v[i].start && v[i].warp < WARP_PER_BLOCK && v[i].block < b);
		CHECK(pn == strlen(pid) && pn > 0);
	}
	shift = malloc((n ? n : 1) * sizeof *shift);
	lanes = malloc((n ? n : 1) * sizeof *lanes);
	CHECK(shift && lanes);
	warp_pid_starts(v, n, shift);
	for (i = 0; i < n; i++)
		CHECK(shift[i] <= v[i].start);
	for (i = 0; i < n && i < 64; i++)
		for (k = 0; k < n; k++)
			if (v[k].core_id == v[i].core_id && v[k].core_type == v[i].core_type)
				CHECK(shift[k] == shift[i] && v[k].start >= shift[i]);
	k = warp_lanes(v, n, lanes);
	CHECK(k <= n && (n == 0 || k > 0));
	for (i = 1; i < k; i++) {
		char a[64], c[64];
		int cmp;
		warp_pid(v[lanes[i - 1]].core_id, v[lanes[i - 1]].core_type, a, sizeof a);
		warp_pid(v[lanes[i]].core_id, v[lanes[i]].core_type, c, sizeof c);
		cmp = strcmp(a, c);
		CHECK(cmp < 0 || (cmp == 0 && v[lanes[i - 1]].warp < v[lanes[i]].warp));
	}
	free(shift);
	free(lanes);
	free(v);
	return 0;
}
