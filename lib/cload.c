/* The compute load items and OperandRecord.bin (see cload.h and
 * optrace-board(5), COMPUTE LOAD). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cload.h"

static const char *const type_names[OPREC_TYPES] = {
	"F16", "F16X2", "BF16", "BF16X2", "E4M3", "E5M2", "E1M2", "E2M1", "V2BF16", "V2F16", "HIF8X2",
	"F8E4M3X2", "F8E5M2X2", "FMIX", "HALF", "F32", "F32X2", "B4", "B8", "B16", "B32", "B64", "B128",
	"S16", "S32", "U16", "U32", "S8", "U8", "U64", "S64", "SX32", "ZX32",
};

const char *oprec_type_name(unsigned t)
{
	return t < OPREC_TYPES ? type_names[t] : "?";
}

uint64_t oprec_offset(unsigned b, int th, unsigned t)
{
	return OPREC_HEAD + (uint64_t)b * OPREC_BLOCK_BYTES + (uint64_t)(th + 1) * OPREC_THREAD_BYTES +
	       (uint64_t)t * OPREC_REC;
}

size_t oprec_index(int mix, enum board_core core, unsigned block, unsigned sub)
{
	if (core == BOARD_CUBE)
		return (size_t)block * 3 + 2;
	if (mix)
		return (size_t)block * 3 + sub;
	return (size_t)(block / 2) * 3 + block % 2;
}

FILE *oprec_open(const char *path, size_t *nblocks, const char **why)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	*nblocks = 0;
	if (!f || fstat(fileno(f), &st) < 0) {
		*why = "cannot open";
		if (f)
			fclose(f);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)OPREC_HEAD ||
	    ((uint64_t)st.st_size - OPREC_HEAD) % OPREC_BLOCK_BYTES) {
		*why = S_ISREG(st.st_mode) ? "size is not 8 + k x 1754008 bytes (a header and whole blocks)"
		                           : "not a regular file";
		fclose(f);
		errno = 0;
		return NULL;
	}
	*nblocks = (size_t)(((uint64_t)st.st_size - OPREC_HEAD) / OPREC_BLOCK_BYTES);
	if (fseeko(f, OPREC_HEAD, SEEK_SET) < 0) {
		*why = "cannot read";
		fclose(f);
		return NULL;
	}
	return f;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The counts of one thread's records added to instr and ops. */
static void add_thread(const unsigned char *p, uint64_t *instr, uint64_t *ops)
{
	for (unsigned t = 0; t < OPREC_TYPES; t++) {
		instr[t] = pmu_sat_add(instr[t], le64(p + t * OPREC_REC));
		ops[t] = pmu_sat_add(ops[t], le64(p + t * OPREC_REC + 8));
	}
}

int oprec_read(FILE *f, struct oprec_sum *s)
{
	unsigned char buf[OPREC_THREAD_BYTES];
	memset(s, 0, sizeof *s);
	if (fread(buf, 1, sizeof buf, f) != sizeof buf)
		return -1;
	add_thread(buf, s->simd_instr, s->simd_ops);
	for (unsigned th = 0; th < OPREC_THREADS; th++) {
		if (fread(buf, 1, sizeof buf, f) != sizeof buf)
			return -1;
		add_thread(buf, s->simt_instr, s->simt_ops);
	}
	return fread(buf, 1, 64, f) == 64 ? 0 : -1;
}

/* ---- the items ---- */

static void put(struct cload_item *out, size_t *n, const char *name, enum cload_unit u, uint64_t v)
{
	struct cload_item *it = &out[(*n)++];
	snprintf(it->name, sizeof it->name, "%s", name);
	it->unit = u;
	it->table = u != CL_PER;
	it->value = v;
}

static uint64_t ev(const struct pmu_counts *c, unsigned id)
{
	return pmu_counts_get(c, id);
}

static uint64_t sat_sum(const struct pmu_counts *c, const unsigned *id, size_t n)
{
	uint64_t s = 0;
	for (size_t i = 0; i < n; i++)
		s = pmu_sat_add(s, ev(c, id[i]));
	return s;
}

/* A wait count in us: the count over the clock (single precision on
 * A2/A3 and 310P, an integer division on A5); 0 without either. */
static uint64_t wait_us(const struct pmu_counts *c, unsigned id, int64_t mhz, int integer)
{
	uint64_t v = ev(c, id);
	if (mhz <= 0 || v == PMU_EMPTY)
		return 0;
	return integer ? v / (uint64_t)mhz : (uint64_t)((float)v / (float)mhz);
}

static void cube_items(enum board_fmt fmt, const struct pmu_counts *c, struct cload_item *out, size_t *n)
{
	static const unsigned all[] = { 73, 74 };
	put(out, n, "Cube All Active", CL_PER, sat_sum(c, all, 2));
	put(out, n, "Cube FP", CL_PER, ev(c, 73));
	put(out, n, "Cube INT", CL_PER, ev(c, 74));
	put(out, n, "Cube Wait", CL_PER, ev(c, 88));
	put(out, n, "Cube All Active", CL_INSTR, ev(c, 3));
	/* 310P counts no FP or INT cube instructions */
	put(out, n, "Cube FP", CL_INSTR, fmt == BOARD_310P ? PMU_EMPTY : ev(c, 1032));
	put(out, n, "Cube INT", CL_INSTR, fmt == BOARD_310P ? PMU_EMPTY : ev(c, 1033));
}

static void vector_items(const struct pmu_counts *c, int64_t mhz, struct cload_item *out, size_t *n)
{
	static const unsigned fp16[] = { 76, 77, 174 }, block[] = { 100, 101, 102, 103 };
	uint64_t f32 = ev(c, 75), f16 = ev(c, 76);
	put(out, n, "Vector All Active", CL_PER, ev(c, 8));
	put(out, n, "Vector All Active", CL_INSTR, ev(c, 1));
	put(out, n, "Vector S32", CL_INSTR, ev(c, 78));
	/* event 75 counts the fp32 and fp16 instructions, 76 the fp16 ones */
	put(out, n, "Vector FP32", CL_INSTR, f32 == PMU_EMPTY || f16 == PMU_EMPTY ? PMU_EMPTY : f32 >= f16 ? f32 - f16 : 0);
	put(out, n, "Vector FP16", CL_INSTR, sat_sum(c, fp16, 3));
	put(out, n, "Vector S16", CL_INSTR, ev(c, 186));
	put(out, n, "Vector Misc", CL_INSTR, ev(c, 79));
	put(out, n, "Vector Fusion", CL_INSTR, ev(c, 184));
	put(out, n, "Vector DB Para", CL_INSTR, ev(c, 185));
	put(out, n, "Vector All Block", CL_INSTR, sat_sum(c, block, 4));
	put(out, n, "Vector Bank Group Conflict Block", CL_INSTR, ev(c, 100));
	put(out, n, "Vector Bank Conflict Block", CL_INSTR, ev(c, 101));
	put(out, n, "Vector VALU Resource Conflict Block", CL_INSTR, ev(c, 102));
	put(out, n, "Vector MTE Urgent Request Block", CL_INSTR, ev(c, 103));
	put(out, n, "Vector Wait", CL_US, wait_us(c, 89, mhz, 0));
}

static void a5_items(enum board_core core, const struct pmu_counts *c, int64_t mhz, const struct oprec_sum *op,
                     struct cload_item *out, size_t *n)
{
	uint64_t total = 0;
	if (core == BOARD_CUBE) {
		put(out, n, "Cube All Active", CL_PER, ev(c, 810));
		put(out, n, "Cube FP", CL_PER, ev(c, 808));
		put(out, n, "Cube INT", CL_PER, ev(c, 809));
		put(out, n, "Cube FP", CL_INSTR, ev(c, 789));
		put(out, n, "Cube INT", CL_INSTR, ev(c, 790));
		put(out, n, "Cube All Active", CL_INSTR, ev(c, 768));
		put(out, n, "Cube Wait", CL_US, wait_us(c, 11, mhz, 1));
		return;
	}
	/* the operand types the sub-block ran instructions of */
	for (unsigned t = 0; op && t < OPREC_TYPES; t++) {
		char name[CLOAD_NAME_MAX];
		uint64_t k = pmu_sat_add(op->simd_instr[t], op->simt_instr[t]);
		if (!op->simd_instr[t] && !op->simt_instr[t])
			continue;
		total = pmu_sat_add(total, k);
		snprintf(name, sizeof name, "Vector %s", type_names[t]);
		put(out, n, name, CL_INSTR, k);
	}
	put(out, n, "Vector All Active", CL_PER, ev(c, 1281));
	put(out, n, "Vector All Active", CL_INSTR, total);
	put(out, n, "Vector Wait", CL_US, wait_us(c, 12, mhz, 1));
}

size_t cload_items(enum board_fmt fmt, enum board_core core, const struct pmu_counts *ev, int64_t mhz,
                   const struct oprec_sum *op, struct cload_item out[CLOAD_ITEMS_MAX])
{
	size_t n = 0;
	if (fmt == BOARD_A5)
		a5_items(core, ev, mhz, op, out, &n);
	else if (fmt == BOARD_310P) {
		cube_items(fmt, ev, out, &n);
		vector_items(ev, mhz, out, &n);
	} else if (core == BOARD_CUBE)
		cube_items(fmt, ev, out, &n);
	else
		vector_items(ev, mhz, out, &n);
	return n;
}

float cload_percent(uint64_t v, uint64_t cycles)
{
	float f = (float)v;
	if (v == PMU_EMPTY)
		return 0.0f;
	f /= cycles ? (float)cycles : 1.0f;
	return f * 100.0f;
}
