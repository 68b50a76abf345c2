/* y = x * 2 over a number of tiles read from an input tensor: block b does
 * counts[b] tiles (int32 in GM).  A zero-filled counts tensor gives an almost
 * empty trace (a few scalar instructions per block).  Tiling: none.
 *
 * Built with -DDRAIN it is count_drain, which also consumes its work list
 * in place: block b sets counts[b] to 0 when done, so a second run on the
 * same buffers does almost nothing (what replaying a kernel without
 * restoring its inputs would measure). */
#include "camodel_kernel.h"

#define TBYTES 8192

#ifdef DRAIN
#define COUNT_ENTRY count_drain
#else
#define COUNT_ENTRY count_custom
#endif

KERNEL_ENTRY void COUNT_ENTRY(GM_ADDR x, GM_ADDR counts, GM_ADDR y)
{
	int64_t blk = GetBlockIdx();
	uint32_t n = (uint32_t)LD_GM(counts + (uint64_t)blk * 4, 4);
	if (n == 0)
		return;
	SET_VECTOR_MASK(~0ull, 0);
	SET_VECTOR_MASK(0, 1);
	for (uint32_t i = 0; i < n; i++) {
		GM_ADDR off = (uint64_t)S_ADDI(S_MUL(blk, (int64_t)n * TBYTES), (int64_t)i * TBYTES);
		COPY_GM_TO_UB(0, x + off, 1, TBYTES / 32);
		SET_FLAG(PIPE_MTE2, PIPE_V, 0);
		WAIT_FLAG(PIPE_MTE2, PIPE_V, 0);
		VUNA(V_MULS, TBYTES, 0, 2.0f, TBYTES / 256, DT_F32);
		SET_FLAG(PIPE_V, PIPE_MTE3, 0);
		WAIT_FLAG(PIPE_V, PIPE_MTE3, 0);
		COPY_UB_TO_GM(y + off, TBYTES, 1, TBYTES / 32);
		SET_FLAG(PIPE_MTE3, PIPE_MTE2, 0);
		WAIT_FLAG(PIPE_MTE3, PIPE_MTE2, 0);
	}
#ifdef DRAIN
	ST_GM(counts + (uint64_t)blk * 4, 0, 4);
#endif
}
