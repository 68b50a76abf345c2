/* Mixed cube + vector kernel (magic RT_DEV_BINARY_MAGIC_ELF): per block the
 * cube sub-core computes a 64x64 tile W = A x B into the workspace and
 * signals the vector sub-cores across the core; each vector sub-core then
 * takes half of the tile's rows, adds the bias row by row and applies ReLU:
 * Y = relu(W + bias).  A and B as in matmul_custom (one K tile per block:
 * A tile b, B tile b).  Tiling (8 bytes): u32 loops, u32 unused.  Built a
 * second time with -DTIMESTAMP_DOTS (mixed_custom_dots.o) each pass's cube
 * part and vector part are framed by on-board timestamp dots 0x10001 and
 * 0x10002. */
#include "camodel_kernel.h"

#ifdef TIMESTAMP_DOTS
#define DOT(id) TIMESTAMP_DOT(id)
#else
#define DOT(id) ((void)0)
#endif

#define T      64
#define TBYTES (T * T * 4)
#define HALF   (TBYTES / 2)            /* 32 rows: 8 KiB */

static void cube_part(GM_ADDR a, GM_ADDR b, GM_ADDR w, int64_t blk)
{
	COPY_GM_TO_L1(0, a + (uint64_t)blk * TBYTES, 1, TBYTES / 32);
	COPY_GM_TO_L1(TBYTES, b + (uint64_t)blk * TBYTES, 1, TBYTES / 32);
	SET_FLAG(PIPE_MTE2, PIPE_MTE1, 0);
	WAIT_FLAG(PIPE_MTE2, PIPE_MTE1, 0);
	LOAD_L1_TO_L0A(0, 0, TBYTES / 512);
	LOAD_L1_TO_L0B(0, TBYTES, TBYTES / 512);
	SET_FLAG(PIPE_MTE1, PIPE_M, 0);
	WAIT_FLAG(PIPE_MTE1, PIPE_M, 0);
	MMAD(0, 0, 0, T, T, T, 0);
	SET_FLAG(PIPE_M, PIPE_FIX, 0);
	WAIT_FLAG(PIPE_M, PIPE_FIX, 0);
	FIXPIPE_L0C_TO_GM(w + (uint64_t)blk * TBYTES, 0, T, T);
	CROSS_CORE_SET_FLAG(PIPE_FIX, 3);
}

static void vector_half(GM_ADDR bias, GM_ADDR w, GM_ADDR y, int64_t blk, int64_t sub)
{
	GM_ADDR src = w + (uint64_t)blk * TBYTES + (uint64_t)sub * HALF;
	GM_ADDR dst = y + (uint64_t)blk * TBYTES + (uint64_t)sub * HALF;
	SET_VECTOR_MASK(~0ull, 0);
	SET_VECTOR_MASK(0, 1);
	COPY_GM_TO_UB(HALF, bias, 1, T * 4 / 32);          /* one row of bias */
	CROSS_CORE_WAIT_FLAG(PIPE_MTE2, 3);
	COPY_GM_TO_UB(0, src, 1, HALF / 32);
	SET_FLAG(PIPE_MTE2, PIPE_V, 0);
	WAIT_FLAG(PIPE_MTE2, PIPE_V, 0);
	for (uint32_t r = 0; r < 32; r++)
		VBIN(V_ADD, r * T * 4, r * T * 4, HALF, 1, DT_F32);
	VUNA(V_RELU, 0, 0, 0.0f, HALF / 256, DT_F32);
	SET_FLAG(PIPE_V, PIPE_MTE3, 0);
	WAIT_FLAG(PIPE_V, PIPE_MTE3, 0);
	COPY_UB_TO_GM(dst, 0, 1, HALF / 32);
	PIPE_BARRIER(PIPE_ALL);
}

/* Two vector sub-cores take one half each; a 310P AI Core does both. */
static void vector_part(GM_ADDR bias, GM_ADDR w, GM_ADDR y, int64_t blk)
{
	if (ASCEND_IS_AIC) {
		vector_half(bias, w, y, blk, 0);
		CROSS_CORE_SET_FLAG(PIPE_FIX, 3);
		vector_half(bias, w, y, blk, 1);
	} else {
		vector_half(bias, w, y, blk, GetSubBlockIdx());
	}
}

KERNEL_ENTRY void mixed_custom(GM_ADDR a, GM_ADDR b, GM_ADDR bias, GM_ADDR w, GM_ADDR y, GM_ADDR tiling)
{
	uint32_t loops = (uint32_t)LD_GM(tiling, 4);
	int64_t blk = GetBlockIdx();
	for (uint32_t l = 0; l < loops; l++) {
		if (ASCEND_IS_AIC) {
			DOT(0x10001);
			cube_part(a, b, w, blk);
			DOT(0x10001);
		}
		if (ASCEND_IS_AIV) {
			DOT(0x10002);
			vector_part(bias, w, y, blk);
			DOT(0x10002);
		}
	}
}
