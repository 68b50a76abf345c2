/* The vector add of add_custom.c with the work of a tile in an inlined
 * helper, called from two lines (even and odd tiles): each instruction of
 * the helper has an inline stack of two frames, the helper's line and the
 * call's.  Built with -DSHIFT_PCS a helper function comes first, so every
 * pc moves and the source stacks stay.  Same tiling and result as
 * add_custom.c (tiles in pairs: a multiple of 2 tiles per block). */
#include "camodel_kernel.h"

#define TILE   2048
#define TBYTES (TILE * 4)
#define XB(b)  ((uint32_t)(b) * TBYTES)
#define YB(b)  ((uint32_t)(2 + (b)) * TBYTES)
#define ZB(b)  ((uint32_t)(4 + (b)) * TBYTES)

#ifdef SHIFT_PCS
__attribute__((used)) static int64_t shift_pcs(int64_t v)
{
	return S_ADDI(S_MUL(S_ADDI(v, 1), 3), 4);
}
#endif

static inline __attribute__((always_inline)) void tile(GM_ADDR x, GM_ADDR y, GM_ADDR z, int64_t g, int b)
{
	WAIT_FLAG(PIPE_V, PIPE_MTE2, b);
	COPY_GM_TO_UB(XB(b), x + (uint64_t)g, 1, TBYTES / 32);
	COPY_GM_TO_UB(YB(b), y + (uint64_t)g, 1, TBYTES / 32);
	SET_FLAG(PIPE_MTE2, PIPE_V, b);
	WAIT_FLAG(PIPE_MTE2, PIPE_V, b);
	WAIT_FLAG(PIPE_MTE3, PIPE_V, b);
	VBIN(V_ADD, ZB(b), XB(b), YB(b), TBYTES / 256, DT_F32);
	SET_FLAG(PIPE_V, PIPE_MTE2, b);
	SET_FLAG(PIPE_V, PIPE_MTE3, b);
	WAIT_FLAG(PIPE_V, PIPE_MTE3, b);
	COPY_UB_TO_GM(z + (uint64_t)g, ZB(b), 1, TBYTES / 32);
	SET_FLAG(PIPE_MTE3, PIPE_V, b);
}

KERNEL_ENTRY void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
	uint32_t n = (uint32_t)LD_GM(tiling, 4);
	uint32_t loops = (uint32_t)LD_GM(tiling + 4, 4);
	int64_t base = S_MUL(GetBlockIdx(), (int64_t)n * 4);
	uint32_t ntiles = n / TILE;

	SET_VECTOR_MASK(~0ull, 0);
	SET_VECTOR_MASK(0, 1);
	SET_FLAG(PIPE_V, PIPE_MTE2, 0);
	SET_FLAG(PIPE_V, PIPE_MTE2, 1);
	SET_FLAG(PIPE_MTE3, PIPE_V, 0);
	SET_FLAG(PIPE_MTE3, PIPE_V, 1);
	for (uint32_t l = 0; l < loops; l++) {
		for (uint32_t t = 0; t + 1 < ntiles + 1; t += 2) {
			tile(x, y, z, S_ADDI(base, (int64_t)t * TBYTES), 0);
			tile(x, y, z, S_ADDI(base, (int64_t)(t + 1) * TBYTES), 1);
		}
	}
	WAIT_FLAG(PIPE_V, PIPE_MTE2, 0);
	WAIT_FLAG(PIPE_V, PIPE_MTE2, 1);
	WAIT_FLAG(PIPE_MTE3, PIPE_V, 0);
	WAIT_FLAG(PIPE_MTE3, PIPE_V, 1);
}
