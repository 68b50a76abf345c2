/* Intrinsics for kernels run by the stand-in simulator (test/camodel).
 *
 * A kernel is plain C compiled with -g into a shared object (the "device
 * binary" the host registers).  Every intrinsic below is one AI Core
 * instruction: the simulator records it at a PC derived from the call site
 * (pc_start + offset of the call in the binary), times it in its pipeline
 * model and writes it to the dump logs.  The intrinsics are macros, so the
 * call sits on the kernel's own source line and `addr2line -e binary
 * <pc - pc_start>` names that line.
 *
 * Addresses: GM_ADDR is a device (global memory) address as the runtime hands
 * it out (rtMalloc); the kernel never dereferences it, it reads scalars with
 * LD_GM and moves data with the copy intrinsics.  Local buffers (UB, L1, L0A,
 * L0B, L0C) are byte offsets into that buffer of the sub-core. */
#ifndef CAMODEL_KERNEL_H
#define CAMODEL_KERNEL_H

#include <stdint.h>

typedef uint64_t GM_ADDR;

/* pipes, for flags and barriers */
enum { PIPE_S = 0, PIPE_MTE1, PIPE_MTE2, PIPE_MTE3, PIPE_V, PIPE_M, PIPE_FIX, PIPE_ALL };
/* data types of the vector instructions */
enum { DT_F32 = 0, DT_F16, DT_S32, DT_S16, DT_U8 };
/* vector operations */
enum { V_ADD = 0, V_SUB, V_MUL, V_MAX, V_MIN, V_DIV };          /* binary */
enum { V_ADDS = 0, V_MULS, V_MAXS, V_EXP, V_RELU, V_ABS, V_LN }; /* unary, scalar operand */
/* SIMT operations (A5) */
enum { SIMT_LDG = 0, SIMT_STG, SIMT_FADD, SIMT_FMUL, SIMT_IADD };
/* sub-core kinds */
enum { CORE_AIV = 1, CORE_AIC = 2, CORE_AICORE = 3 };

struct camodel_ops {
	uint32_t version;               /* CAMODEL_OPS_VERSION */
	/* scalar unit */
	int64_t (*block_idx)(void);     /* MOV_XD_SPR SPR:BLOCKID */
	int64_t (*block_num)(void);     /* MOV_XD_SPR SPR:BLOCKDIM */
	int64_t (*subblock_idx)(void);  /* MOV_XD_SPR SPR:SUBBLOCKID */
	int (*core_type)(void);         /* no instruction: CORE_AIV/AIC/AICORE */
	int64_t (*movi)(int64_t imm);
	int64_t (*add)(int64_t a, int64_t b);
	int64_t (*addi)(int64_t a, int64_t imm);
	int64_t (*mul)(int64_t a, int64_t b);
	uint64_t (*ld_gm)(GM_ADDR addr, int bytes);
	void (*st_gm)(GM_ADDR addr, uint64_t val, int bytes);
	/* data movement; lengths in 32-byte blocks */
	void (*gm_to_ub)(uint32_t ub, GM_ADDR gm, uint32_t nburst, uint32_t lenburst);
	void (*ub_to_gm)(GM_ADDR gm, uint32_t ub, uint32_t nburst, uint32_t lenburst);
	void (*gm_to_l1)(uint32_t l1, GM_ADDR gm, uint32_t nburst, uint32_t lenburst);
	void (*l1_to_l0a)(uint32_t l0a, uint32_t l1, uint32_t repeat);  /* 512 B per repeat */
	void (*l1_to_l0b)(uint32_t l0b, uint32_t l1, uint32_t repeat);
	void (*mmad)(uint32_t l0c, uint32_t l0a, uint32_t l0b,
	             uint32_t m, uint32_t k, uint32_t n, int accumulate);   /* f32 */
	void (*l0c_to_gm)(GM_ADDR gm, uint32_t l0c, uint32_t m, uint32_t n);
	/* vector unit: repeat x 256 bytes, under the current mask */
	void (*set_mask)(uint64_t mask, int pos);
	void (*vbin)(int op, uint32_t dst, uint32_t src0, uint32_t src1, uint32_t repeat, int dtype);
	void (*vuna)(int op, uint32_t dst, uint32_t src, float scalar, uint32_t repeat, int dtype);
	void (*vreduce_add)(uint32_t dst, uint32_t src, uint32_t repeat, int dtype);
	/* synchronisation */
	void (*set_flag)(int pipe, int trigger_pipe, int id);
	void (*wait_flag)(int pipe, int trigger_pipe, int id);
	void (*barrier)(int pipe);
	void (*cross_set)(int pipe, int id);    /* cube -> vector within a block */
	void (*cross_wait)(int pipe, int id);
	void (*trace_mark)(int start, int id);  /* TRACE_START / TRACE_STOP */
	/* SIMT (A5): one instruction per warp, nlanes active threads each */
	void (*simt)(int op, uint32_t nwarps, uint32_t nlanes);
	/* on-board timestamp dot (aic_timestamp.bin): the same descId twice
	 * makes a start and an end; user dots take ids from 0x10000 */
	void (*dot)(uint32_t desc_id);
};

#define CAMODEL_OPS_VERSION 1u

/* Set by the simulator after it loads the kernel binary (defined here, in
 * the kernel; the simulator itself only includes the types). */
#ifndef CAMODEL_RUNTIME
__attribute__((weak, visibility("default")))
const struct camodel_ops *camodel_kernel_ops;
#endif

/* A kernel entry point: exported, called once per block and sub-core with
 * the launch's pointer arguments. */
#define KERNEL_ENTRY __attribute__((visibility("default"), noinline))

#define K_ (*camodel_kernel_ops)

#define GetBlockIdx()           K_.block_idx()
#define GetBlockNum()           K_.block_num()
#define GetSubBlockIdx()        K_.subblock_idx()
#define ASCEND_IS_AIC           (K_.core_type() != CORE_AIV)
#define ASCEND_IS_AIV           (K_.core_type() != CORE_AIC)
#define S_MOVI(imm)             K_.movi(imm)
#define S_ADD(a, b)             K_.add((a), (b))
#define S_ADDI(a, imm)          K_.addi((a), (imm))
#define S_MUL(a, b)             K_.mul((a), (b))
#define LD_GM(addr, bytes)      K_.ld_gm((addr), (bytes))
#define ST_GM(addr, v, bytes)   K_.st_gm((addr), (v), (bytes))
#define COPY_GM_TO_UB(ub, gm, nburst, lenburst)  K_.gm_to_ub((ub), (gm), (nburst), (lenburst))
#define COPY_UB_TO_GM(gm, ub, nburst, lenburst)  K_.ub_to_gm((gm), (ub), (nburst), (lenburst))
#define COPY_GM_TO_L1(l1, gm, nburst, lenburst)  K_.gm_to_l1((l1), (gm), (nburst), (lenburst))
#define LOAD_L1_TO_L0A(l0a, l1, repeat)          K_.l1_to_l0a((l0a), (l1), (repeat))
#define LOAD_L1_TO_L0B(l0b, l1, repeat)          K_.l1_to_l0b((l0b), (l1), (repeat))
#define MMAD(c, a, b, m, k, n, acc)              K_.mmad((c), (a), (b), (m), (k), (n), (acc))
#define FIXPIPE_L0C_TO_GM(gm, c, m, n)           K_.l0c_to_gm((gm), (c), (m), (n))
#define SET_VECTOR_MASK(mask, pos)               K_.set_mask((mask), (pos))
#define VBIN(op, dst, s0, s1, rep, dt)           K_.vbin((op), (dst), (s0), (s1), (rep), (dt))
#define VUNA(op, dst, src, sc, rep, dt)          K_.vuna((op), (dst), (src), (sc), (rep), (dt))
#define VREDUCE_ADD(dst, src, rep, dt)           K_.vreduce_add((dst), (src), (rep), (dt))
#define SET_FLAG(pipe, tpipe, id)                K_.set_flag((pipe), (tpipe), (id))
#define WAIT_FLAG(pipe, tpipe, id)               K_.wait_flag((pipe), (tpipe), (id))
#define PIPE_BARRIER(pipe)                       K_.barrier(pipe)
#define CROSS_CORE_SET_FLAG(pipe, id)            K_.cross_set((pipe), (id))
#define CROSS_CORE_WAIT_FLAG(pipe, id)           K_.cross_wait((pipe), (id))
#define TRACE_START(id)                          K_.trace_mark(1, (id))
#define TRACE_STOP(id)                           K_.trace_mark(0, (id))
#define SIMT_OP(op, nwarps, nlanes)              K_.simt((op), (nwarps), (nlanes))
#define TIMESTAMP_DOT(id)                        K_.dot(id)

#endif
