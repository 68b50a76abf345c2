/* Unit tests of cmd/instr-parse/calc.c against the reference's numbers
 * (the examples of optrace-calc(5) and the asserted cases of msopprof's own
 * tests).
 *
 *   gcc -std=c11 -Wall -Wextra -Werror -g -fsanitize=address,undefined \
 *       -Icmd/instr-parse test/unit/test_calc.c cmd/instr-parse/calc.c \
 *       -o /tmp/test_calc && /tmp/test_calc
 *
 * Every input is copied into a heap block of exactly its length, without a
 * terminating NUL, so that ASan reports any read past the slice. */
#include "calc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define MAX_BUFS 8192
static char *bufs[MAX_BUFS];
static int nbufs;

static void free_bufs(void)
{
	while (nbufs > 0)
		free(bufs[--nbufs]);
}

static struct calc_str mk(const char *p, size_t n)
{
	struct calc_str s = { NULL, n };
	if (n == 0)
		return s;
	if (nbufs == MAX_BUFS)
		free_bufs();
	char *b = malloc(n);
	if (!b) {
		perror("malloc");
		exit(2);
	}
	memcpy(b, p, n);
	bufs[nbufs++] = b;
	s.p = b;
	return s;
}

static struct calc_str S(const char *lit) { return mk(lit, strlen(lit)); }

static int64_t pb(enum calc_family f, const char *name, const char *detail)
{
	return calc_process_bytes(f, S(name), S(detail));
}

/* ---- 5.1 process bytes ----------------------------------------------- */

static void test_process_bytes(void)
{
	/* The examples of optrace-calc(5), PROCESS BYTES. */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1",
	         "Src:OUT,Dst:L1,XD:X9=0x70000,XN:X0=0x113f9600,XM:X3=0x100010,"), 512);
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1",
	         "Src:OUT,Dst:L1,XD:X9=0x70000,XN:X0=0x113f9600,XM:X3=0x100010,id:34"), 512);
	CHECK_INT(pb(CALC_310P, "mov_out_to_ub",
	         "xd:2,xn:1,xm:0,xdValue:0x23000,xnValue:0x114f1000,xmValue:0x10010,"
	         "srcIDValue:2,destIDValue:1,reluValue:0,padValue:0"), 32);

	/* The other plain moves share the rule: lenBurst x 32 x nBurst. */
	const char *mov = "XD:X1=0x0,XN:X2=0x0,XM:X3=0x30020,";
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_UB", mov), 3 * 32 * 2);
	CHECK_INT(pb(CALC_A2, "MOV_UB_TO_OUT", mov), 3 * 32 * 2);
	CHECK_INT(pb(CALC_A2, "MOV_L1_TO_OUT", mov), 3 * 32 * 2);
	const char *mov310 = "xdValue:0x0,xnValue:0,xmValue:0x30020";
	CHECK_INT(pb(CALC_310P, "mov_out_to_l1", mov310), 192);
	CHECK_INT(pb(CALC_310P, "mov_ub_to_out", mov310), 192);
	/* Each family only knows its own spelling. */
	CHECK_INT(pb(CALC_310P, "MOV_OUT_TO_L1", mov310), 0);
	CHECK_INT(pb(CALC_A2, "mov_out_to_ub", mov), 0);
	/* 310P reads xmValue:, not the operand index xm:. */
	CHECK_INT(pb(CALC_310P, "mov_out_to_ub", "xd:2,xn:1,xm:0x10010,xdValue:0,xnValue:0"), 0);

	/* LOAD_2D: 1 x 512 x bits(XM,16,8) (reference test vector). */
	CHECK_INT(pb(CALC_A2, "LOAD_2D",
	         "Src:OUT,Dst:L0A,XD:X0=0x70000,XN:X0=0x113f9600,XM:X0=0x100010,Dtype:B8,id:1"),
	      16 * 512);
	CHECK_INT(pb(CALC_A2, "LOAD_2D", "XD:X0=0x70000,XN:X0=0x113f9600,"), 0);
	CHECK_INT(pb(CALC_310P, "load_out_to_l0a_2d", "xdValue:0x0,xnValue:0x0,xmValue:0x30000"), 1536);
	CHECK_INT(pb(CALC_310P, "load_out_to_l0b_2d", "xdValue:0x0,xnValue:0x0,xmValue:0x1ff0000"), 255 * 512);
	CHECK_INT(pb(CALC_310P, "load_out_to_l1_2d", "xdValue:0x0,xnValue:0x0,xmValue:0x10000"), 512);

	/* LOAD_IMAGE: (hor+lpad+rpad) x (ver+tpad+bpad) x 32.  XS: hor 10,
	 * ver 4.  XT: lpad 1, rpad 2, tpad 1, bpad 2. */
	const char *img = "Src:OUT,Dst:L1,XD:X0=0x70000,XS:X1=0x4000a,"
	                  "XT:X2=0x400102010000,Dtype:U8,";
	CHECK_INT(pb(CALC_A2, "LOAD_IMAGE", img), 13 * 7 * 32);
	CHECK_INT(pb(CALC_310P, "load_out_to_l1_image",
	         "xdValue:0x0,xsValue:0x4000a,xtValue:0x400102010000"), 13 * 7 * 32);
	/* Reference test: no XS -> not a valid transfer. */
	CHECK_INT(pb(CALC_A2, "LOAD_IMAGE", "Src:OUT,Dst:L1,XD:X0=0x70000,XT:X0=0x100010,Dtype:F16,id:2"), 0);

	/* load_src_to_smask: ((XT&0x800)>>4 | XT&0x7f) rounded up to 16, x 32. */
	CHECK_INT(pb(CALC_310P, "load_src_to_smask",
	         "xd:2,xn:1,xt:0,xdValue:0x23000,xnValue:0x114f1000,xtValue:0x10010,srcIDValue:2"), 32);
	CHECK_INT(pb(CALC_310P, "load_src_to_smask", "xdValue:0,xnValue:0,xtValue:0x87f"), 16 * 32);
	CHECK_INT(pb(CALC_310P, "load_src_to_smask", "xdValue:0,xnValue:0,xtValue:0x0"), 0);
	CHECK_INT(pb(CALC_A2, "load_src_to_smask", "XD:X1=0,XN:X2=0,XT:X3=0x10,"), 0);

	/* MOV_SRC_TO_DST_ALIGN: bits(XM,16,21) x 1 x bits(XM,4,12). */
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN",
	         "Src:OUT,Dst:UB,XD:X0=0x70000,XN:X0=0x113f9600,XM:X0=0x100010,XT:X0=0,Dtype:B16,id:1"), 16);
	const char *al = "XD:X0=0x0,XN:X1=0x0,XM:X2=0x110020,XT:X3=0x5,"; /* len 17, nBurst 2 */
	char buf[256];
	snprintf(buf, sizeof buf, "Src:OUT,Dst:UB,%s", al);
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", buf), 17 * 2);
	snprintf(buf, sizeof buf, "Src:UB,Dst:OUT,%s", al);
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", buf), 32 * 2); /* UB: ceil32 */
	snprintf(buf, sizeof buf, "Src:BT,Dst:OUT,%s", al);
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", buf), 17 * 2);
	/* Letters-only capture: L1 reads as "L" and is unknown. */
	snprintf(buf, sizeof buf, "Src:L1,Dst:OUT,%s", al);
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", buf), 0);
	snprintf(buf, sizeof buf, "Src:L0C,Dst:OUT,%s", al);
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", buf), 0);
	snprintf(buf, sizeof buf, "Src:UBX,Dst:OUT,%s", al);
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", buf), 0);
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", al), 0); /* no Src: */
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", "Src:OUT,XD:X0=0x0,XN:X1=0x0,XM:X2=0x110020,"), 0);
	/* 64-byte-aligned UB length stays as is. */
	CHECK_INT(pb(CALC_A2, "MOV_SRC_TO_DST_ALIGN", "Src:UB,XD:X0=0,XN:X1=0,XM:X2=0x400010,XT:X3=0,"), 64);

	/* MOV_OUT_TO_L1_MULTI_ND2NZ: bits(XM,32,16) x dtype x bits(XM,16,16). */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1_MULTI_ND2NZ",
	         "Src:OUT,Dst:L1,XD:X0=0x70000,XN:X0=0x113f9600,XM:X0=0x100010,XT:X0=0,Dtype:B16,id:1"), 0);
	static const struct {
		const char *dt;
		int bytes;
	} dts[] = {
		{ "S4", 1 }, { "B4", 1 }, { "U8", 1 }, { "S8", 1 }, { "B8", 1 },
		{ "U8S8", 1 }, { "B8U2", 1 }, { "DEQ", 1 }, { "U16", 2 },
		{ "S16", 2 }, { "B16", 2 }, { "F16", 2 }, { "BF16", 2 },
		{ "F16F16", 2 }, { "F16U2", 2 }, { "U32", 4 }, { "S32", 4 },
		{ "B32", 4 }, { "B32S", 4 }, { "B32L", 4 }, { "F32", 4 },
		{ "FMIX", 4 }, { "F16F32", 4 }, { "BF16F32", 4 }, { "F32F32", 4 },
		{ "U64", 8 }, { "S64", 8 }, { "B64", 8 }, { "F64", 8 },
		{ "UNDEF", 0 },
		/* unknown words are rejected, which also gives 0 */
		{ "F8", 0 }, { "f16", 0 }, { "F16X", 0 }, { "", 0 },
	};
	for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++) {
		snprintf(buf, sizeof buf,
		         "Src:OUT,Dst:L1,XD:X0=0x0,XN:X1=0x0,XM:X2=0x300050000,XT:X3=0x0,Dtype:%s,",
		         dts[i].dt);
		int64_t got = pb(CALC_A2, "MOV_OUT_TO_L1_MULTI_ND2NZ", buf);
		if (got != 3 * dts[i].bytes * 5)
			printf("  (Dtype %s)\n", dts[i].dt);
		CHECK_INT(got, 3 * dts[i].bytes * 5);
	}
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1_MULTI_ND2NZ", "XD:X0=0x0,XN:X1=0x0,XM:X2=0x300050000,Dtype:F16,"), 0);
	/* dtype: is not Dtype: */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1_MULTI_ND2NZ",
	         "XD:X0=0x0,XN:X1=0x0,XM:X2=0x300050000,XT:X3=0,dtype:F16,"), 0);

	/* Unsupported families. */
	const char *ex = "Src:OUT,Dst:L1,XD:X9=0x70000,XN:X0=0x113f9600,XM:X3=0x100010,";
	CHECK_INT(pb(CALC_A5, "MOV_OUT_TO_L1", ex), -1);
	CHECK_INT(pb(CALC_310B, "MOV_OUT_TO_L1", ex), -1);
	CHECK_INT(pb(CALC_OTHER, "MOV_OUT_TO_L1", ex), -1);
	CHECK_INT(pb(CALC_A5, "NOP", ""), -1);
	/* Not a transfer. */
	CHECK_INT(pb(CALC_A2, "VADD", ex), 0);
	CHECK_INT(pb(CALC_A2, "", ""), 0);
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L", ex), 0);
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1X", ex), 0);

	/* Register-regex details. */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X123=0x70000,XN:X0=0x1,XM:X3=0x100010,"), 0);
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:9=0x70000,XN:X0=0x1,XM:X3=0x100010,"), 0);
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X9=,XN:X0=0x1,XM:X3=0x100010,"), 0);
	/* a later well-formed occurrence is found */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:bad,XD:X9=0x7,XN:X0=0x1,XM:X3=0x100010,"), 512);
	/* value without 0x, and a one-digit register */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X9=70000,XN:X0=1,XM:X3=100010,"), 512);
	/* upper-case hex: the pattern falls back to the lone "0" */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X9=0x7,XN:X0=0x1,XM:X3=0xABCDEF,"), 0);
	/* "0x" with nothing after it also reads as 0 but is present */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X9=0x,XN:X0=0x1,XM:X3=0x100010,"), 512);
	/* more than 64 bits: conversion fails, field missing */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X9=0x7,XN:X0=0x1,XM:X3=0x10000000000100010,"), 0);
	/* leading zeros do not count towards the width */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X9=0x7,XN:X0=0x1,XM:X3=0x00000000000000000000100010,"), 512);
	/* first match wins even if a later one would convert */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1",
	         "XD:X9=0x7,XN:X0=0x1,XM:X3=0x10000000000100010,XM:X4=0x100010,"), 0);

	/* int arithmetic saturates like SafeMulAll<int>. */
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X9=0,XN:X0=0,XM:X3=0xfffffff0,"), 2147483647);
	CHECK_INT(pb(CALC_A2, "MOV_OUT_TO_L1", "XD:X9=0,XN:X0=0,XM:X3=0xffff0010,"), 65535 * 32);
}

static void test_fix_pipe(void)
{
	char buf[256];
	/* nSize 32, mSize 16 */
	const char *xm = "XM:X3=0x100200";
#define FIX(dst, xt) (snprintf(buf, sizeof buf, "Src:L0C,Dst:%s,XD:X1=0x0,XN:X2=0x0,%s,XT:X4=%s,", \
                               (dst), xm, (xt)), pb(CALC_A2, "FIX_L0C_TO_DST", buf))
	/* plain f32: blockNum 16*32/8/2 = 32, 32 B, nColumn 2 */
	CHECK_INT(FIX("OUT", "0x0"), 32 * 32 * 2);
	CHECK_INT(FIX("UB", "0x0"), 2048);
	CHECK_INT(FIX("BT", "0x0"), 2048);
	/* quant 1 -> 16 bits */
	CHECK_INT(FIX("OUT", "0x400000000"), 16 * 32 * 2);
	/* quant 16 -> 16 bits */
	CHECK_INT(FIX("OUT", "0x4000000000"), 16 * 32 * 2);
	/* NZ2ND (bit 43): nSize x bits/8 x mSize */
	CHECK_INT(FIX("OUT", "0x80000000000"), 32 * 4 * 16);
	CHECK_INT(FIX("OUT", "0x80400000000"), 32 * 2 * 16);  /* + quant 1 */
	CHECK_INT(FIX("OUT", "0x82000000000"), 32 * 1 * 16);  /* quant 8: 8 bits */
	CHECK_INT(FIX("OUT", "0x85400000000"), 16 * 1 * 16);  /* quant 21: 4 bits */
	/* int8 merge (quant 8, no NZ2ND), nColumn 2 even: mSize x 32 x 1 */
	CHECK_INT(FIX("OUT", "0x2000000000"), 16 * 32 * 1);
	CHECK_INT(FIX("OUT", "0x5c00000000"), 16 * 32 * 1);   /* quant 23 */
	/* int4 merge (quant 21): repeat 2/4 = 0 -> 16-byte blocks, 0*2+1 */
	CHECK_INT(FIX("OUT", "0x5400000000"), 16 * 16 * 1);
	/* channelSplit needs Src:L0C32, never captured: same as plain */
	snprintf(buf, sizeof buf, "Src:L0C32,Dst:OUT,XD:X1=0x0,XN:X2=0x0,%s,XT:X4=0x40000000000,", xm);
	CHECK_INT(pb(CALC_A2, "FIX_L0C_TO_DST", buf), 2048);
	/* Letters-only Dst: L1 / L0A are not recognised */
	CHECK_INT(FIX("L1", "0x0"), 0);
	CHECK_INT(FIX("L0A", "0x0"), 0);
	CHECK_INT(FIX("GM", "0x0"), 0);
#undef FIX
	/* nSize 48 (nColumn 3, odd) with int8 merge: 16-byte blocks,
	 * repeat 3/2*2+1 = 3 */
	CHECK_INT(pb(CALC_A2, "FIX_L0C_TO_DST",
	         "Dst:OUT,XD:X1=0x0,XN:X2=0x0,XM:X3=0x100300,XT:X4=0x2000000000,"), 16 * 16 * 3);
	/* nSize 64 (nColumn 4) with int4 merge: repeat 1*2+1 */
	CHECK_INT(pb(CALC_A2, "FIX_L0C_TO_DST",
	         "Dst:OUT,XD:X1=0x0,XN:X2=0x0,XM:X3=0x100400,XT:X4=0x5400000000,"), 16 * 16 * 3);
	/* nSize 128 (nColumn 8) with int8 merge: 8/2 = 4, even -> 32 B */
	CHECK_INT(pb(CALC_A2, "FIX_L0C_TO_DST",
	         "Dst:OUT,XD:X1=0x0,XN:X2=0x0,XM:X3=0x100800,XT:X4=0x2000000000,"), 16 * 32 * 4);
	/* nSize 17: nColumn rounds up to 2 */
	CHECK_INT(pb(CALC_A2, "FIX_L0C_TO_DST",
	         "Dst:OUT,XD:X1=0x0,XN:X2=0x0,XM:X3=0x100110,XT:X4=0x0,"), 32 * 32 * 2);
	/* missing XT or Dst -> 0 */
	CHECK_INT(pb(CALC_A2, "FIX_L0C_TO_DST", "Dst:OUT,XD:X1=0x0,XN:X2=0x0,XM:X3=0x100200,"), 0);
	CHECK_INT(pb(CALC_A2, "FIX_L0C_TO_DST", "XD:X1=0x0,XN:X2=0x0,XM:X3=0x100200,XT:X4=0,"), 0);
	CHECK_INT(pb(CALC_310P, "FIX_L0C_TO_DST",
	         "Dst:OUT,XD:X1=0x0,XN:X2=0x0,XM:X3=0x100200,XT:X4=0,"), 0);
}

/* ---- 5.2 vector utilisation --------------------------------------------- */

struct walk_step {
	const char *name, *detail;
};

/* Applies writes and returns the utilisation of the last instruction. */
static double walk_util(enum calc_family f, const struct walk_step *st, int n)
{
	struct calc_vec_state vs = { { 0 } };
	double u = -2;
	for (int i = 0; i < n; i++) {
		uint64_t val[CALC_VEC_NVARS] = { 0 };
		struct calc_str nm = S(st[i].name), d = S(st[i].detail);
		unsigned w = calc_vec_writes(f, nm, d, val);
		for (int v = 0; v < CALC_VEC_NVARS; v++)
			if (w & (1u << v))
				vs.v[v] = val[v];
		u = calc_vec_util(f, nm, d, &vs);
	}
	return u;
}

static double vu(enum calc_family f, const char *name, const char *detail,
                 uint64_t m0, uint64_t m1, uint64_t mode)
{
	struct calc_vec_state st = { { m0, m1, 0, mode } };
	return calc_vec_util(f, S(name), S(detail), &st);
}

static void test_vec_util(void)
{
	/* optrace-calc(5), VECTOR UTILISATION, and the reference assert
	 * 3.725490 %. */
	CHECK_NEAR(vu(CALC_A2, "VSUBRELU",
	           "XD:X12=0x2ac0,XN:X14=0x980,XM:X11=0,XT:X6=0x100080808010101,Dtype:F32,Id:453",
	           0x260, 0, 1), 3.725490, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VSUBRELU",
	           "XD:X1=0x0,XN:X2=0x0,XM:X3=0x0,XT:X4=0x100080808010101,Dtype:F32,",
	           0x260, 0, 1), 3.725490, 1e-5);
	/* The value is the reference's float, to the last bit. */
	CHECK_INT((long long)(float)(vu(CALC_A2, "VSUBRELU",
	           "XT:X4=0x100080808010101,Dtype:F32,", 0x260, 0, 1) * 1000000.0f), 3725490);

	/* Reference A3 walk: MOVEMASK, MOV_SPR_XN CTRL, VADD -> 6.274510 %. */
	static const struct walk_step a3[] = {
		{ "MOVEMASK", "XN:X19=0x800,Pos:0,Id:547" },
		{ "MOV_SPR_XN", "SPR:CTRL,XN:X1=0x100000000000000," },
		{ "VADD", "XD:X16=0x400,XN:X13=0,XM:X14=0x200,XT:X8=0x100080808010101,Dtype:F16,Id:552" },
	};
	CHECK_INT((long long)(float)(walk_util(CALC_A2, a3, 3) * 1000000.0f), 6274510);
	/* Reference 310P walk: movemask x2, a non-writer, vlrelu -> 0.098039 %. */
	static const struct walk_step p310[] = {
		{ "movemask", "mask:0,X0:0xffffffffffffffff" },
		{ "movemask", "mask:1,X1:0x0" },
		{ "scalar_mov_special_xn", "SPR_CTRL=0x8,x[3]=0x8" },
		{ "vlrelu", "op0:4,op1:9,op2:3,type/convType3,repeat:1,dest_addr:0x0,src_addr:0x0,"
		            "dst_stride:1,src_stride:1,dst_rep_stride:8,src_rep_stride:8,reg:0,h0:0" },
	};
	CHECK_INT((long long)(float)(walk_util(CALC_310P, p310, 4) * 1000000.0f), 98039);

	/* Repeat mode: (popcount(m0)+popcount(m1)) x bits(XT,56,8). */
	CHECK_NEAR(vu(CALC_A2, "VADD", "XT:X1=0x200000000000000,Dtype:F16,", 0xff, 0xf, 0),
		   12.0 * 2 * 2 / 65280 * 100, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VADD", "XT:X1=0xff00000000000000,Dtype:B32,", ~0ull, ~0ull, 0),
		   100.0, 0);
	CHECK_NEAR(vu(CALC_A2, "VADD", "XT:X1=0x0,Dtype:F16,", ~0ull, 0, 0), 0.0, 0);
	/* Element-count mode: mask1 if non-zero, else mask0. */
	CHECK_NEAR(vu(CALC_A2, "VMUL", "XT:X1=0,Dtype:F16,", 100, 50, 1), 50.0 * 2 / 65280 * 100, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VMUL", "XT:X1=0,Dtype:F16,", 100, 0, 1), 100.0 * 2 / 65280 * 100, 1e-5);
	/* capped at 100; the count is a uint32 (0x1_0000_0010 -> 16) */
	CHECK_NEAR(vu(CALC_A2, "VMUL", "XT:X1=0,Dtype:F32,", 0xffffffff, 0, 1), 100.0, 0);
	CHECK_NEAR(vu(CALC_A2, "VMUL", "XT:X1=0,Dtype:F32,", 0x100000010ull, 0, 1),
		   16.0 * 4 / 65280 * 100, 1e-5);

	/* Class-10 quirk: repeat = bits(XT,0,8) instead of bits(XT,56,8). */
	const char *xt10 = "XT:X1=0x200000000000005,Dtype:F32,";
	double r5 = 64.0 * 5 * 4 / 65280 * 100, r2 = 64.0 * 2 * 4 / 65280 * 100;
	CHECK_NEAR(vu(CALC_A2, "VREDUCE", xt10, ~0ull, 0, 0), r5, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VMS4", xt10, ~0ull, 0, 0), r5, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VDP", xt10, ~0ull, 0, 0), r5, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VEXTRACT", xt10, ~0ull, 0, 0), r5, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VMOVMASK_XN", xt10, ~0ull, 0, 0), r5, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VADD", xt10, ~0ull, 0, 0), r2, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "VCADD", xt10, ~0ull, 0, 0), r2, 1e-5);
	CHECK_NEAR(vu(CALC_A2, "LD_VAD", xt10, ~0ull, 0, 0), r2, 1e-5);
	/* names of the enum that no log name maps to */
	CHECK_INT(vu(CALC_A2, "VREDUCEV2", xt10, ~0ull, 0, 0), -1);
	CHECK_INT(vu(CALC_A2, "VCOPY", xt10, ~0ull, 0, 0), -1);
	CHECK_INT(vu(CALC_A2, "VCONCAT", xt10, ~0ull, 0, 0), -1);

	/* Missing pieces -> -1. */
	CHECK_INT(vu(CALC_A2, "VADD", "XD:X1=0x0,Dtype:F16,", 1, 0, 0), -1);
	CHECK_INT(vu(CALC_A2, "VADD", "XT:X1=0x100000000000000,", 1, 0, 0), -1);
	CHECK_INT(vu(CALC_A2, "VADD", "XT:X1=0x100000000000000,dtype:F16,", 1, 0, 0), -1);
	CHECK_INT(vu(CALC_A2, "VADD", "XT:X1=0x100000000000000,Dtype:Q9,", 1, 0, 0), -1);
	CHECK_INT(vu(CALC_A2, "ADD", "XT:X1=0x100000000000000,Dtype:F16,", 1, 0, 0), -1);
	CHECK_INT(vu(CALC_A2, "vadd", "XT:X1=0x100000000000000,Dtype:F16,", 1, 0, 0), -1);
	CHECK_INT(vu(CALC_A5, "VADD", "XT:X1=0x100000000000000,Dtype:F16,", 1, 0, 0), -1);
	CHECK_INT(vu(CALC_310B, "VADD", "XT:X1=0x100000000000000,Dtype:F16,", 1, 0, 0), -1);
	CHECK_INT(vu(CALC_OTHER, "VADD", "XT:X1=0x100000000000000,Dtype:F16,", 1, 0, 0), -1);
	/* UNDEF is a known dtype of size 0 */
	CHECK_NEAR(vu(CALC_A2, "VADD", "XT:X1=0x100000000000000,Dtype:UNDEF,", 1, 0, 0), 0.0, 0);

	/* 310P: repeat:<dec> and [Tt]ype[: ]{0,3}<dec>. */
	CHECK_NEAR(vu(CALC_310P, "vadd", "type:5,repeat:3", 0xf, 0, 0), 4.0 * 3 * 2 / 65280 * 100, 1e-5);
	CHECK_NEAR(vu(CALC_310P, "vadd", "Type::7,repeat:3", 0xf, 0, 0), 4.0 * 3 * 4 / 65280 * 100, 1e-5);
	CHECK_NEAR(vu(CALC_310P, "vadd", "Type:\t:9,repeat:3", 0xf, 0, 0), 4.0 * 3 * 2 / 65280 * 100, 1e-5);
	CHECK_NEAR(vu(CALC_310P, "ldvad", "type0,repeat:1", 0xf, 0, 0), 4.0 / 65280 * 100, 1e-5);
	CHECK_NEAR(vu(CALC_310P, "vmovemask_cmp_xn", "type:2,repeat:1", 0xf, 0, 0), 16.0 / 65280 * 100, 1e-5);
	/* four separators: no match at that "type"; a later one is used */
	CHECK_INT(vu(CALC_310P, "vadd", "type::::5,repeat:3", 0xf, 0, 0), -1);
	CHECK_NEAR(vu(CALC_310P, "vadd", "type::::5,Type:1,repeat:3", 0xf, 0, 0), 4.0 * 3 * 2 / 65280 * 100, 1e-5);
	/* dtype code 10 and above are invalid */
	CHECK_INT(vu(CALC_310P, "vadd", "type:10,repeat:3", 0xf, 0, 0), -1);
	CHECK_INT(vu(CALC_310P, "vadd", "type:5", 0xf, 0, 0), -1);
	CHECK_INT(vu(CALC_310P, "vadd", "repeat:5", 0xf, 0, 0), -1);
	CHECK_INT(vu(CALC_310P, "vadd", "type:5,repeat:99999999999999999999999", 0xf, 0, 0), -1);
	CHECK_INT(vu(CALC_310P, "VADD", "type:5,repeat:3", 0xf, 0, 0), -1);
	CHECK_INT(vu(CALC_310P, "ld_vad", "type:5,repeat:3", 0xf, 0, 0), -1);
	/* class-10 names are not special on 310P */
	CHECK_NEAR(vu(CALC_310P, "vreduce", "type:7,repeat:2", ~0ull, 0, 0), 64.0 * 2 * 4 / 65280 * 100, 1e-5);
	/* the repeat product wraps at 32 bits like the reference's uint32 */
	CHECK_NEAR(vu(CALC_310P, "vadd", "type:0,repeat:4294967296", 1, 0, 0), 0.0, 0);
}

static void test_vec_writes(void)
{
	uint64_t val[CALC_VEC_NVARS];
	unsigned w;

	memset(val, 0, sizeof val);
	w = calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X0=0xffffffffffffffff,Pos:1,Id:545"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASK1);
	CHECK_INT(val[CALC_VEC_MASK1] == ~0ull, 1);
	w = calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X19=0x800,Pos:0,Id:547"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASK0);
	CHECK_INT(val[CALC_VEC_MASK0], 0x800);
	/* Pos other than 1 selects mask0; one space allowed before Pos */
	w = calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X19=0x7,\tPos:2"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASK0);
	CHECK_INT(val[CALC_VEC_MASK0], 7);
	CHECK_INT(calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X19=0x7,\t\tPos:1"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X19=0x7,Pos:"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X19=0x7Pos:1"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X19=0x,Pos:1"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_A2, S("MOVEMASK"), S("dtype:B16XD:0xffffffffffffffff"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X1=0x10000000000000000,Pos:1"), val), 0);
	/* a later complete match is used */
	w = calc_vec_writes(CALC_A2, S("MOVEMASK"), S("XN:X1=0x5,XN:X2=0x9,Pos:1"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASK1);
	CHECK_INT(val[CALC_VEC_MASK1], 9);

	w = calc_vec_writes(CALC_A2, S("MOV_SPR_XN"), S("SPR:ND_PARA,XN:X5=0xf,id:36"), val);
	CHECK_INT(w, 1u << CALC_VEC_NDPARA);
	CHECK_INT(val[CALC_VEC_NDPARA], 0xf);
	w = calc_vec_writes(CALC_A2, S("MOV_SPR_XN"), S("SPR:CTRL,XN:X13=0x100000000000000,"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASKMODE);
	CHECK_INT(val[CALC_VEC_MASKMODE], 1);
	w = calc_vec_writes(CALC_A2, S("MOV_SPR_XN"), S("SPR:CTRL,XN:X13=0xfeffffffffffffff,"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASKMODE);
	CHECK_INT(val[CALC_VEC_MASKMODE], 0);
	CHECK_INT(calc_vec_writes(CALC_A2, S("MOV_SPR_XN"), S("SPR:LPCNT,XN:X6=0x80000001,"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_A2, S("MOV_SPR_XN"), S("SPR:CTRL,X13=0x1,"), val), 0);
	/* the family picks the spelling */
	CHECK_INT(calc_vec_writes(CALC_310P, S("MOVEMASK"), S("XN:X19=0x800,Pos:0"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_A5, S("MOVEMASK"), S("XN:X19=0x800,Pos:0"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_310B, S("MOV_SPR_XN"), S("SPR:CTRL,XN:X13=0x100000000000000,"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_A2, S("VADD"), S("XN:X19=0x800,Pos:0"), val), 0);

	/* 310P: selector first, then value. */
	w = calc_vec_writes(CALC_310P, S("movemask"), S("num_block:0,mask:0,X1:0x1af"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASK0);
	CHECK_INT(val[CALC_VEC_MASK0], 0x1af);
	w = calc_vec_writes(CALC_310P, S("movemask"), S("mask:1,X12:ff"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASK1);
	CHECK_INT(val[CALC_VEC_MASK1], 0xff);
	CHECK_INT(calc_vec_writes(CALC_310P, S("movemask"), S("mask:12,X1:0x1"), val), 0);
	CHECK_INT(calc_vec_writes(CALC_310P, S("movemask"), S("mask:1,X123:0x1"), val), 0);
	w = calc_vec_writes(CALC_310P, S("scalar_mov_xd_special"),
	                    S("x[16]=0x2000000000000008,SPR_CTRL=0x2000000000000008,"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASKMODE);
	CHECK_INT(val[CALC_VEC_MASKMODE], 0);
	w = calc_vec_writes(CALC_310P, S("scalar_mov_xd_special"), S("SPR_CTRL=\t0x100000000000000"), val);
	CHECK_INT(w, 1u << CALC_VEC_MASKMODE);
	CHECK_INT(val[CALC_VEC_MASKMODE], 1);
	CHECK_INT(calc_vec_writes(CALC_310P, S("scalar_mov_special_xn"), S("SPR_CTRL=0x100000000000000"), val), 0);
}

/* ---- 5.3 UB bank conflict ---------------------------------------------- */

static void ub(enum calc_family f, const char *name, const char *detail,
               int want_rd, int want_wr, int line)
{
	int rd = 99, wr = 99;
	calc_ub_conflict(f, S(name), S(detail), &rd, &wr);
	unit_check_int(rd, want_rd, __FILE__, line, name);
	unit_check_int(wr, want_wr, __FILE__, line, name);
}
#define UB(f, n, d, r, w) ub((f), (n), (d), (r), (w), __LINE__)

static void test_ub_conflict(void)
{
	/* optrace-calc(5), UB BANK CONFLICTS, and the reference: src 0x0
	 * and src1 0x200 stride 1 -> read 1, dst 0x400 -> write 0. */
	UB(CALC_A2, "VADD", "XD:X16=0x400,XN:X13=0,XM:X14=0x200,XT:X8=0x100080808010101,Dtype:F16,Id:552", 1, 0);
	UB(CALC_A2, "VSUB", "XD:X1=0x400,XN:X2=0x0,XM:X3=0x200,XT:X4=0x100000000010101,Dtype:F16,", 1, 0);
	/* unary, reference vector */
	UB(CALC_A2, "VADDS", "XD:X12=0x2ac0,XN:X12=0x2ac0,XM:X14=0,XT:X7=0x100080800010001,Dtype:F32,Id:465", 0, 0);
	/* unary with src block stride 16 (512 B): all blocks in one group */
	UB(CALC_A2, "VEXP", "XD:X1=0x0,XN:X2=0x0,XT:X3=0x100000000100001,Dtype:F16,", 7, 0);
	/* the 1-byte dtypes only change repeat strides, not the result */
	UB(CALC_A2, "VEXP", "XD:X1=0x0,XN:X2=0x0,XT:X3=0x100000000100001,Dtype:U8,", 7, 0);
	/* unary strides are 16 bits wide: 0x10001 -> dst 1, src 1 */
	UB(CALC_A2, "VRELU", "XD:X1=0x0,XN:X2=0x20,XT:X3=0x10001,Dtype:F16,", 0, 0);
	/* binary strides are 8 bits: dst 2 -> groups 0,2,..,14 */
	UB(CALC_A2, "VMUL", "XD:X1=0x0,XN:X2=0x0,XM:X3=0x0,XT:X4=0x020202,Dtype:F16,", 1, 0);
	UB(CALC_A2, "VMUL", "XD:X1=0x0,XN:X2=0x0,XM:X3=0x20,XT:X4=0x020202,Dtype:F16,", 0, 0);
	/* reduce: dst stride fixed at 1, src stride bits(XT,16,16) */
	UB(CALC_A2, "VCADD", "XD:X1=0x0,XN:X2=0x0,XT:X3=0x0,Dtype:F32,", 7, 0);
	UB(CALC_A2, "VCMAX", "XD:X1=0x0,XN:X2=0x0,XT:X3=0xffff00010000,Dtype:F32,", 0, 0);
	/* missing registers read as 0 */
	UB(CALC_A2, "VADD", "XT:X8=0x10101,Dtype:F16,", 1, 0);
	UB(CALC_A2, "VADD", "Dtype:F16,", 15, 7);
	/* Dtype is required and must be known */
	UB(CALC_A2, "VADD", "XD:X1=0x400,XN:X2=0x0,XM:X3=0x200,XT:X4=0x10101,", -1, -1);
	UB(CALC_A2, "VADD", "XD:X1=0x400,XN:X2=0x0,XM:X3=0x200,XT:X4=0x10101,Dtype:Z1,", -1, -1);
	/* class 10 and non-template names */
	UB(CALC_A2, "VREDUCE", "XD:X1=0x0,XN:X2=0x0,XT:X3=0x0,Dtype:F32,", -1, -1);
	UB(CALC_A2, "VMS4", "XD:X1=0x0,XN:X2=0x0,XT:X3=0x0,Dtype:F32,", -1, -1);
	UB(CALC_A2, "VDP", "XD:X1=0x0,XN:X2=0x0,XT:X3=0x0,Dtype:F32,", -1, -1);
	UB(CALC_A2, "ADD", "XD:X1=0x0,XN:X2=0x0,XT:X3=0x0,Dtype:F32,", -1, -1);
	UB(CALC_A2, "VBRCB", "XD:X1=0x0,XN:X2=0x0,XT:X3=0x0,Dtype:F32,", -1, -1);
	/* families */
	UB(CALC_A5, "VADD", "XD:X16=0x400,XN:X13=0,XM:X14=0x200,XT:X8=0x10101,Dtype:F16,", -1, -1);
	UB(CALC_310B, "VADD", "XD:X16=0x400,XN:X13=0,XM:X14=0x200,XT:X8=0x10101,Dtype:F16,", -1, -1);
	UB(CALC_OTHER, "VADD", "XD:X16=0x400,XN:X13=0,XM:X14=0x200,XT:X8=0x10101,Dtype:F16,", -1, -1);

	/* 310P reference vector -> read 1, write 0. */
	const char *v310 = "op0:4,op1:2,op2:1,type:5,repeat:1,dest_addr:0x400,src_addr:0x0,"
	                   "src1_addr:0x200,dst_stride:0x1,src_stride:1,src1_stride:1,"
	                   "dst_rep_stride:0x8,src_rep_stride:8,src1_rep_stride:8,reg:0,h0:0";
	UB(CALC_310P, "vadd", v310, 1, 0);
	UB(CALC_310P, "VADD", v310, -1, -1);
	/* dtype is optional on 310P; every template name runs, class 10 too */
	UB(CALC_310P, "vreduce", "repeat:1,dest_addr:0x0,dst_stride:1,dst_rep_stride:8,"
	                         "src_addr:0x0,src_stride:0x10,src_rep_stride:8", 7, 0);
	/* no src1: only one source */
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:1,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", 0, 0);
	/* incomplete src1 is ignored */
	UB(CALC_310P, "vadd", "repeat:1,dest_addr:0x0,dst_stride:1,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8,src1_addr:0x0,src1_stride:1", 0, 0);
	/* "0x0x2": stoull's own 0x prefix after the first is stripped */
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:0x0x2,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", 0, 0);
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:0x0x10,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", 0, 7);
	/* hex strides */
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:0x10,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", 0, 7);
	/* unconvertible strides and missing fields -> -1 */
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:0x,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", -1, -1);
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:1x,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", -1, -1);
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:0x1x,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", -1, -1);
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:a,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", -1, -1);
	UB(CALC_310P, "vabs", "dest_addr:0x0,dst_stride:1,dst_rep_stride:8,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", -1, -1);
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:1,dst_rep_stride:8,"
	                      "src_stride:1,src_rep_stride:8", -1, -1);
	UB(CALC_310P, "vabs", "repeat:1,dest_addr:0x0,dst_stride:1,"
	                      "src_addr:0x0,src_stride:1,src_rep_stride:8", -1, -1);
}

/* ---- 5.4 GPR ---------------------------------------------------------- */

static struct calc_regs regs_of(enum calc_family f, const char *name,
                                const char *detail, int *rc)
{
	struct calc_regs r;
	memset(&r, 0xa5, sizeof r);
	*rc = calc_gpr_regs(f, S(name), S(detail), &r);
	return r;
}

/* Compares a register list, in order, with want[] (terminated by -1). */
static void check_list(const uint16_t *got, int n, const int *want,
                       const char *what, int line)
{
	int m = 0;
	while (want[m] >= 0)
		m++;
	int ok = n == m;
	for (int i = 0; ok && i < m; i++)
		ok = got[i] == want[i];
	char g[8 * CALC_MAX_REGS] = "", w[8 * CALC_MAX_REGS] = "";
	size_t gl = 0, wl = 0;
	for (int i = 0; !ok && i < n && i < CALC_MAX_REGS && gl < sizeof g; i++)
		gl += (size_t)snprintf(g + gl, sizeof g - gl, "%s%#x", i ? "," : "", got[i]);
	for (int i = 0; !ok && i < m && wl < sizeof w; i++)
		wl += (size_t)snprintf(w + wl, sizeof w - wl, "%s%#x", i ? "," : "", want[i]);
	unit_checkf(ok, __FILE__, line, "%s: got [%s], want [%s]", what, g, w);
}

static void regs_check(enum calc_family f, const char *name, const char *detail,
                       const int *src, const int *dst, int line)
{
	int rc;
	struct calc_regs r = regs_of(f, name, detail, &rc);
	unit_check_int(rc, 0, __FILE__, line, name);
	check_list(r.src, r.nsrc, src, "src", line);
	check_list(r.dst, r.ndst, dst, "dst", line);
}
#define L(...) ((const int[]){ __VA_ARGS__, -1 })
#define NONE ((const int[]){ -1 })
#define REGS(f, n, d, s, t) regs_check((f), (n), (d), (s), (t), __LINE__)

/* The reference walk, transcribed literally (saturating decrements). */
static void naive_walk(const struct calc_regs *regs, size_t n, int *gpr)
{
	static long last[1 << 16];
	int live = 0;
	for (size_t r = 0; r < (1u << 16); r++)
		last[r] = -1;
	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < regs[i].nsrc; k++) {
			if (last[regs[i].src[k]] < 0)
				live++;
			last[regs[i].src[k]] = (long)i;
		}
		for (int k = 0; k < regs[i].ndst; k++) {
			uint16_t r = regs[i].dst[k];
			if (last[r] < 0) {
				live++;
			} else {
				for (long j = last[r] + 1; j < (long)i; j++)
					gpr[j] = gpr[j] > 0 ? gpr[j] - 1 : 0;
			}
			last[r] = (long)i;
		}
		gpr[i] = live;
	}
	for (size_t r = 0; r < (1u << 16); r++)
		if (last[r] >= 0)
			for (long j = last[r] + 1; j < (long)n; j++)
				gpr[j] = gpr[j] > 0 ? gpr[j] - 1 : 0;
}

static void test_gpr(void)
{
	/* 910B sample: [1,1,2,2,0,0]. */
	static const struct walk_step sample[] = {
		{ "MOV_XD_IMM", "XD:X29=0x7f80,IMM:0x7f80," },
		{ "MOVK", "XD:X29=0x107f80,IMM:0x10,UIMM:0x1," },
		{ "MOV_XD_SPR", "XD:X15=0,SPR:SYS_VA_BASE," },
		{ "ADD", "dtype:S64,XD:X29=0x107f80,XN:X29=0x107f80,XM:X15=0," },
		{ "SET_FLAG", "PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0," },
		{ "WAIT_FLAG", "PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0," },
	};
	struct calc_regs rs[6];
	int gpr[6], rc;
	for (int i = 0; i < 6; i++) {
		rs[i] = regs_of(CALC_A2, sample[i].name, sample[i].detail, &rc);
		CHECK_INT(rc, 0);
	}
	CHECK_INT(calc_gpr_walk(rs, 6, gpr), 0);
	static const int want[6] = { 1, 1, 2, 2, 0, 0 };
	for (int i = 0; i < 6; i++)
		CHECK_INT(gpr[i], want[i]);
	CHECK_INT(calc_gpr_walk(NULL, 0, NULL), 0);

	/* Operand extraction, A2/A3. */
	REGS(CALC_A2, "ADD", "dtype:S64,XD:X29=0x107f80,XN:X29=0x107f80,XM:X15=0,", L(29, 15), L(29));
	REGS(CALC_A2, "MOV_XD_IMM", "XD:X29=0x7f80,IMM:0x7f80,", NONE, L(29));
	REGS(CALC_A2, "SET_FLAG", "PIPE:MTE2,TRIGGERPIPE:SCALAR,FLAGID:0,", NONE, NONE);
	REGS(CALC_A2, "LDP_XI_XJ_XN", "XI:X1=0x0,XJ:X2=0x0,XN:X3=0x100,", L(3), L(1, 2));
	REGS(CALC_A2, "LDP_XI_XJ_XN", "XI:X1=0x0,", NONE, L(1));
	REGS(CALC_A2, "ST_ATOMIC_IMM", "XD:X4=0x0,XN:X5=0x100,", L(4), L(5));
	REGS(CALC_A2, "ST_DEV", "XD:X4=0x0,XN:X5=0x100,XM:X6=0", L(4, 6), L(5));
	REGS(CALC_A2, "ST_DEV", "XD:X4=0x0,", L(4), NONE);
	REGS(CALC_A2, "ST_XD_XN_IMM", "XD:X4=0x0,XN:X5=0x100,", L(4, 5), NONE);
	REGS(CALC_A2, "CMP", "XN:X4=0x0,XM:X5=0x100,", L(4, 5), NONE);
	REGS(CALC_A2, "MOV_SPR_XN", "SPR:CTRL,XN:X13=0x100000000000000,", L(13), NONE);
	REGS(CALC_A2, "LD_XD_XN_IMM", "XD:X7=0x0,XN:X8=0x100,IMM:0x8", L(8), L(7));
	/* not in the table: every token is a source */
	REGS(CALC_A2, "VADD", "XD:X16=0x400,XN:X13=0,XM:X14=0x200,XT:X8=0x1,Dtype:F16,", L(16, 13, 14, 8), NONE);
	/* digit-only tokens: "X07" is not "X7"; a third digit starts over */
	REGS(CALC_A2, "NOP", "XD:X07=0,XN:X7=0,", L(0x107, 7), NONE);
	REGS(CALC_A2, "NOP", "X123,X5", L(12, 5), NONE);
	REGS(CALC_A2, "NOP", "xd:1,x[2]=0,X", NONE, NONE);
	/* LD4: X<n>..X<n+3> from the token minus its first digit, never
	 * equal to a digit-only token */
	REGS(CALC_A2, "LD4_XD_XN", "XD:X29=0x0,XN:X3=0x100,",
	     L(3), L(0x209, 0x20a, 0x20b, 0x20c));
	REGS(CALC_A2, "LD4_XD_XN_IMM", "XD:X5=0x0,XN:X3=0x100,", L(3), NONE);
	REGS(CALC_A2, "LD4_XD_XN", "", NONE, NONE);

	/* 310P grammar. */
	REGS(CALC_310P, "scalar_neg", "dType:0x0,x[0]=0xffffffffffffffff,xn:0x0", L(0), L(0));
	REGS(CALC_310P, "mov_out_to_ub", "xd:2,xn:1,xm:0,xdValue:0x0,xnValue:0x1068be00,xmValue:0x10012,",
	     L(2, 1, 0), NONE);
	REGS(CALC_310P, "scalar_add", "xd:0x12,xn:0xab,xm:7", L(0, 7), L(12));
	REGS(CALC_310P, "scalar_ldp", "x[3],x[4],x[123],xn:5", L(5), L(3, 4));
	REGS(CALC_310P, "scalar_st", "x[3]=0x1,x[4]=0x2", L(3, 4), NONE);
	REGS(CALC_310P, "scalar_ld4", "x[12]=0,xn:1", L(1), L(0x202, 0x203, 0x204, 0x205));
	REGS(CALC_310P, "scalar_ld4_imm", "x[1]=0,xn:1", L(1), NONE);
	REGS(CALC_310P, "movemask", "mask:0,X1:0x1af", L(1), NONE);
	/* the A2 table does not apply on 310P and vice versa */
	REGS(CALC_310P, "ADD", "XD:X1=0,XN:X2=0,", L(1, 2), NONE);
	REGS(CALC_A2, "scalar_add", "XD:X1=0,XN:X2=0,", L(1, 2), NONE);
	/* the x-forms are 310P only */
	REGS(CALC_A2, "ADD", "xd:1,xn:2,x[3]", NONE, NONE);

	/* A5: R<letters>:<hex>|R, 'd...' = destination. */
	REGS(CALC_A5, "ADD", "[PEX:7|P],[Rn:5|R],[Rd:5|R],[#imm32:1],[waitBitMask:0]", L(5), L(5));
	REGS(CALC_A5, "X", "[Rm:7|R],[Rn:8|R],[Rn1:9|R],[Rd:b|R],[Rd1:1f|R],[Rd2:05|R]", L(7, 8, 9), L(0xb, 0x1f, 0x105));
	REGS(CALC_A5, "X", "[Rabc:1|R],[Rn:123|R],[Rn:1|P],[R:1|R],[Rn:g|R]", NONE, NONE);
	REGS(CALC_A5, "ADD_IMM", "dtype:S64,XD:X30=0x204258,XN:X29=0x203fa0,IMM:0x2b8,", NONE, NONE);
	REGS(CALC_A5, "X", "Rn:1|RRd:2|R", L(1), L(2));

	/* families without the calculator */
	CHECK_INT(regs_of(CALC_310B, "ADD", "XD:X1=0,", &rc).nsrc, 0);
	CHECK_INT(rc, -1);
	CHECK_INT(regs_of(CALC_OTHER, "ADD", "XD:X1=0,", &rc).ndst, 0);
	CHECK_INT(rc, -1);

	/* at most CALC_MAX_REGS of each */
	char big[1024] = "";
	for (int i = 0; i < 40; i++) {
		char t[16];
		snprintf(t, sizeof t, "X%d,", i);
		strcat(big, t);
	}
	struct calc_regs r = regs_of(CALC_A2, "NOP", big, &rc);
	CHECK_INT(r.nsrc, CALC_MAX_REGS);
	CHECK_INT(r.src[CALC_MAX_REGS - 1], CALC_MAX_REGS - 1);

	/* Hand-worked walk: redefinition after a gap and a late last use.
	 *  0: X1 = ...        live {1}          -> 1
	 *  1: X2 = ...        live {1,2}        -> 2
	 *  2: ... = X2        last use of 2     -> 2
	 *  3: X1 = ...        X1 dead over 1..2 -> 2
	 *  4: ... = X1        last use of 1     -> 2
	 * End: X2 dead at 3..4, X1 dead after 4.
	 * Result: [1, 1, 1, 1, 1]. */
	struct calc_regs w[5];
	memset(w, 0, sizeof w);
	w[0].dst[0] = 1, w[0].ndst = 1;
	w[1].dst[0] = 2, w[1].ndst = 1;
	w[2].src[0] = 2, w[2].nsrc = 1;
	w[3].dst[0] = 1, w[3].ndst = 1;
	w[4].src[0] = 1, w[4].nsrc = 1;
	int g5[5];
	CHECK_INT(calc_gpr_walk(w, 5, g5), 0);
	static const int want5[5] = { 1, 1, 1, 1, 1 };
	for (int i = 0; i < 5; i++)
		CHECK_INT(g5[i], want5[i]);

	/* Random walks against the literal reference algorithm. */
	srand(12345);
	enum { NW = 300 };
	static struct calc_regs rw[NW];
	static int g1[NW], g2[NW];
	int mismatches = 0;
	for (int round = 0; round < 200; round++) {
		int nkeys = 1 + rand() % 40;
		size_t n = 1 + (size_t)(rand() % NW);
		for (size_t i = 0; i < n; i++) {
			rw[i].nsrc = rand() % 4;
			rw[i].ndst = rand() % 3;
			for (int k = 0; k < rw[i].nsrc; k++)
				rw[i].src[k] = (uint16_t)(rand() % nkeys * 997 % 65536);
			for (int k = 0; k < rw[i].ndst; k++)
				rw[i].dst[k] = (uint16_t)(rand() % nkeys * 997 % 65536);
		}
		naive_walk(rw, n, g1);
		if (calc_gpr_walk(rw, n, g2) != 0)
			mismatches++;
		for (size_t i = 0; i < n; i++)
			if (g1[i] != g2[i])
				mismatches++;
	}
	CHECK_INT(mismatches, 0);
}

/* ---- robustness: no read outside the slice ------------------------------ */

static const char *const corpus[] = {
	"Src:OUT,Dst:L1,XD:X9=0x70000,XN:X0=0x113f9600,XM:X3=0x100010,",
	"xd:2,xn:1,xm:0,xdValue:0x23000,xnValue:0x114f1000,xmValue:0x10010,srcIDValue:2",
	"XD:X1=0x0,XN:X2=0x0,XM:X3=0x0,XT:X4=0x100080808010101,Dtype:F32,",
	"Src:L0C32,Dst:OUT,XD:X1=0x0,XN:X2=0x0,XM:X3=0x100300,XT:X4=0x85400000000,",
	"XD:X0=0x70000,XS:X1=0x4000a,XT:X2=0x400102010000,Dtype:U8,",
	"XN:X19=0x800,Pos:1,Id:547",
	"SPR:ND_PARA,XN:X5=0xf,SPR:CTRL,\tXN:X1=0x100000000000000,",
	"mask:0,X0:0xffffffffffffffff,SPR_CTRL=\t0x100000000000000",
	"op0:4,type/convType3,repeat:1,dest_addr:0x400,src_addr:0x0,src1_addr:0x200,"
	"dst_stride:0x1,src_stride:1,src1_stride:1,dst_rep_stride:0x8,src_rep_stride:8,src1_rep_stride:8",
	"x[0]=0xffff,xn:0x12,xd:3,X77,x[123]",
	"[PEX:7|P],[Rn:5|R],[Rd1:1f|R],[Rd:5|R",
};

static const char *const names[] = {
	"MOV_OUT_TO_L1", "LOAD_2D", "LOAD_IMAGE", "MOV_OUT_TO_L1_MULTI_ND2NZ",
	"MOV_SRC_TO_DST_ALIGN", "FIX_L0C_TO_DST", "mov_out_to_ub",
	"load_out_to_l1_image", "load_src_to_smask", "load_out_to_l0a_2d",
	"VADD", "VADDS", "VCADD", "VREDUCE", "vadd", "vreduce", "MOVEMASK",
	"MOV_SPR_XN", "movemask", "scalar_mov_xd_special", "LDP_XI_XJ_XN",
	"LD4_XD_XN", "scalar_ld4", "scalar_ldp", "ADD", "",
};

static int out_of_range;

static void run_all(struct calc_str nm, struct calc_str d)
{
	static const enum calc_family fams[] = {
		CALC_A2, CALC_A5, CALC_310P, CALC_310B, CALC_OTHER
	};
	for (size_t f = 0; f < sizeof fams / sizeof fams[0]; f++) {
		uint64_t val[CALC_VEC_NVARS];
		struct calc_vec_state st = { { 0x260, 0, 0, 1 } };
		struct calc_regs r;
		int rd, wr;
		int64_t b = calc_process_bytes(fams[f], nm, d);
		calc_ub_conflict(fams[f], nm, d, &rd, &wr);
		calc_vec_writes(fams[f], nm, d, val);
		double u = calc_vec_util(fams[f], nm, d, &st);
		calc_gpr_regs(fams[f], nm, d, &r);
		/* results stay in their documented ranges */
		if (b < -1 || b > 2147483647 || rd < -1 || rd > 15 || wr < -1 ||
		    wr > 7 || !(u == -1 || (u >= 0 && u <= 100)) || r.nsrc < 0 ||
		    r.nsrc > CALC_MAX_REGS || r.ndst < 0 || r.ndst > CALC_MAX_REGS) {
			out_of_range++;
			CHECK_MSG(0, "out-of-range result for %.*s / %.*s", (int)nm.n, nm.p ? nm.p : "", (int)d.n,
			          d.p ? d.p : "");
		}
	}
}

static void test_robustness(void)
{
	/* every prefix and suffix of every corpus detail, under every name */
	for (size_t c = 0; c < sizeof corpus / sizeof corpus[0]; c++) {
		size_t len = strlen(corpus[c]);
		for (size_t k = 0; k <= len; k++)
			for (size_t m = 0; m < sizeof names / sizeof names[0]; m++) {
				run_all(S(names[m]), mk(corpus[c], k));
				run_all(S(names[m]), mk(corpus[c] + k, len - k));
			}
		free_bufs();
	}
	/* truncated names */
	for (size_t m = 0; m < sizeof names / sizeof names[0]; m++)
		for (size_t k = 0; k <= strlen(names[m]); k++)
			run_all(mk(names[m], k), S(corpus[0]));
	free_bufs();

	/* random bytes from an alphabet rich in the grammar's characters,
	 * and fully random bytes */
	static const char alpha[] = "XRxd:=0x19af,|[]PosSPR_CTRLNDAT ypeTt\tUBOUTL";
	srand(777);
	char buf[96];
	for (int i = 0; i < 60000; i++) {
		size_t n = (size_t)(rand() % (int)sizeof buf);
		for (size_t k = 0; k < n; k++)
			buf[k] = (i & 1) ? (char)(rand() & 0xff)
			                 : alpha[rand() % (int)(sizeof alpha - 1)];
		run_all(S(names[(size_t)rand() % (sizeof names / sizeof names[0])]), mk(buf, n));
		if (nbufs > MAX_BUFS - 8)
			free_bufs();
	}
	free_bufs();
	/* a NULL pointer with length 0 is a valid empty slice */
	struct calc_str empty = { NULL, 0 };
	run_all(empty, empty);
	CHECK_INT(out_of_range, 0);
}

int main(void)
{
	test_process_bytes();
	test_fix_pipe();
	test_vec_util();
	test_vec_writes();
	test_ub_conflict();
	test_gpr();
	test_robustness();
	free_bufs();
	return unit_done();
}
