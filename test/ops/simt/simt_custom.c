/* A SIMT kernel for A5 (dav_3510): per block, warps of 32 threads load,
 * compute and store (the SIMT_* instructions each warp executes appear once
 * per warp, on the WARP_<id> lanes of the trace).  Tiling (8 bytes): u32
 * warps (1..64), u32 loops.  Runs only on an A5 simulator. */
#include "camodel_kernel.h"

KERNEL_ENTRY void simt_custom(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
	uint32_t warps = (uint32_t)LD_GM(tiling, 4);
	uint32_t loops = (uint32_t)LD_GM(tiling + 4, 4);
	int64_t blk = GetBlockIdx();
	COPY_GM_TO_UB(0, x + (uint64_t)blk * 4096, 1, 4096 / 32);
	PIPE_BARRIER(PIPE_ALL);
	for (uint32_t l = 0; l < loops; l++) {
		SIMT_OP(SIMT_LDG, warps, 32);
		SIMT_OP(SIMT_FMUL, warps, 32);
		SIMT_OP(SIMT_FADD, warps, 32);
		SIMT_OP(SIMT_IADD, warps, 16);      /* a divergent tail: half the lanes */
		SIMT_OP(SIMT_STG, warps, 32);
	}
	PIPE_BARRIER(PIPE_ALL);
	COPY_UB_TO_GM(y + (uint64_t)blk * 4096, 0, 1, 4096 / 32);
}
