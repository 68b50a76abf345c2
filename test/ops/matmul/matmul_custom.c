/* Matrix multiply C = A x B (float32) on the cube unit:
 * MTE2 (GM -> L1) -> MTE1 (L1 -> L0A/L0B) -> CUBE (mmad into L0C) -> FIXP
 * (L0C -> GM).  Matrices are stored as contiguous 64x64 tiles (A: [mt][kt],
 * B: [kt][nt], C: [mt][nt], each tile row-major); block b computes C tile
 * (b / NT, b % NT).  Tiling (16 bytes): u32 MT, NT, KT (tile counts), loops. */
#include "camodel_kernel.h"

#define T      64
#define TBYTES (T * T * 4)            /* 16 KiB */
#define L1_A(b) ((uint32_t)(b) * 2 * TBYTES)
#define L1_B(b) ((uint32_t)(b) * 2 * TBYTES + TBYTES)

KERNEL_ENTRY void matmul_custom(GM_ADDR a, GM_ADDR b, GM_ADDR c, GM_ADDR tiling)
{
	uint32_t nt = (uint32_t)LD_GM(tiling + 4, 4);
	uint32_t kt = (uint32_t)LD_GM(tiling + 8, 4);
	uint32_t loops = (uint32_t)LD_GM(tiling + 12, 4);
	int64_t blk = GetBlockIdx();
	uint32_t mi = (uint32_t)blk / nt, ni = (uint32_t)blk % nt;

	SET_FLAG(PIPE_MTE1, PIPE_MTE2, 0);   /* L1 buffers free */
	SET_FLAG(PIPE_MTE1, PIPE_MTE2, 1);
	SET_FLAG(PIPE_M, PIPE_MTE1, 0);      /* L0A/L0B free */
	for (uint32_t l = 0; l < loops; l++) {
		for (uint32_t k = 0; k < kt; k++) {
			int buf = (int)(k & 1);
			GM_ADDR at = a + ((uint64_t)mi * kt + k) * TBYTES;
			GM_ADDR bt = b + ((uint64_t)k * nt + ni) * TBYTES;
			WAIT_FLAG(PIPE_MTE1, PIPE_MTE2, buf);
			COPY_GM_TO_L1(L1_A(buf), at, 1, TBYTES / 32);
			COPY_GM_TO_L1(L1_B(buf), bt, 1, TBYTES / 32);
			SET_FLAG(PIPE_MTE2, PIPE_MTE1, buf);
			WAIT_FLAG(PIPE_MTE2, PIPE_MTE1, buf);
			WAIT_FLAG(PIPE_M, PIPE_MTE1, 0);
			LOAD_L1_TO_L0A(0, L1_A(buf), TBYTES / 512);
			LOAD_L1_TO_L0B(0, L1_B(buf), TBYTES / 512);
			SET_FLAG(PIPE_MTE1, PIPE_MTE2, buf);
			SET_FLAG(PIPE_MTE1, PIPE_M, 0);
			WAIT_FLAG(PIPE_MTE1, PIPE_M, 0);
			MMAD(0, 0, 0, T, T, T, k > 0);
			SET_FLAG(PIPE_M, PIPE_MTE1, 0);
		}
		SET_FLAG(PIPE_M, PIPE_FIX, 0);
		WAIT_FLAG(PIPE_M, PIPE_FIX, 0);
		FIXPIPE_L0C_TO_GM(c + ((uint64_t)mi * nt + ni) * TBYTES, 0, T, T);
		PIPE_BARRIER(PIPE_FIX);
	}
	WAIT_FLAG(PIPE_MTE1, PIPE_MTE2, 0);
	WAIT_FLAG(PIPE_MTE1, PIPE_MTE2, 1);
	WAIT_FLAG(PIPE_M, PIPE_MTE1, 0);
}
