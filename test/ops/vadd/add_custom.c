/* Vector add, z = x + y (float32), double buffered: while the vector unit
 * adds tile t, MTE2 loads tile t+1 and MTE3 stores tile t-1.
 * Tiling (8 bytes): u32 elements per block (a multiple of TILE), u32 passes
 * over the data (the loop count that scales the trace).  Built a second time
 * with -DASCENDC_TRACE_ON (add_custom_trace.o) the loop is framed by
 * TRACE_START(1)/TRACE_STOP(1) marks. */
#include "camodel_kernel.h"

#define TILE   2048                    /* floats per tile = 8 KiB */
#define TBYTES (TILE * 4)
#define XB(b)  ((uint32_t)(b) * TBYTES)            /* UB layout: x0 x1 y0 y1 z0 z1 */
#define YB(b)  ((uint32_t)(2 + (b)) * TBYTES)
#define ZB(b)  ((uint32_t)(4 + (b)) * TBYTES)
#ifndef ADD_BUFFERS
#define ADD_BUFFERS 2                  /* -DADD_BUFFERS=1: one buffer, no overlap */
#endif

KERNEL_ENTRY void add_custom(GM_ADDR x, GM_ADDR y, GM_ADDR z, GM_ADDR tiling)
{
	uint32_t n = (uint32_t)LD_GM(tiling, 4);
	uint32_t loops = (uint32_t)LD_GM(tiling + 4, 4);
	int64_t base = S_MUL(GetBlockIdx(), (int64_t)n * 4);
	uint32_t ntiles = n / TILE;

	SET_VECTOR_MASK(~0ull, 0);
	SET_VECTOR_MASK(0, 1);
	SET_FLAG(PIPE_V, PIPE_MTE2, 0);        /* both input buffers free */
	SET_FLAG(PIPE_V, PIPE_MTE2, 1);
	SET_FLAG(PIPE_MTE3, PIPE_V, 0);        /* both output buffers free */
	SET_FLAG(PIPE_MTE3, PIPE_V, 1);
#ifdef ASCENDC_TRACE_ON
	TRACE_START(1);
#endif
	for (uint32_t l = 0; l < loops; l++) {
		for (uint32_t t = 0; t < ntiles; t++) {
			int b = (int)(t % ADD_BUFFERS);
			int64_t g = S_ADDI(base, (int64_t)t * TBYTES);
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
	}
#ifdef ASCENDC_TRACE_ON
	TRACE_STOP(1);
#endif
	WAIT_FLAG(PIPE_V, PIPE_MTE2, 0);
	WAIT_FLAG(PIPE_V, PIPE_MTE2, 1);
	WAIT_FLAG(PIPE_MTE3, PIPE_V, 0);
	WAIT_FLAG(PIPE_MTE3, PIPE_V, 1);
}
