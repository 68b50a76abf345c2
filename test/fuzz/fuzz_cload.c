/* libFuzzer target: the compute load of lib/cload.c, OperandRecord.bin's
 * reader and the items of a row.
 *
 * Byte 0 chooses the chip layout (bits 0-1: A2/A3, 310P, A5), the core
 * (bit 2: cube or vector), a mix op (bit 3), the clock (bits 4-5: 0,
 * 1000, 1850 or 7 MHz) and the file's size (bit 6: whole blocks, one or
 * two by bit 7; else 8 + the input's length, usually not whole blocks).
 * Byte 1 (mod 25) is a count of PMU events, 10 bytes each (u16 id, u64
 * count) after it; the rest is the file: its header and records from the
 * start, zeros after.  Checked: the file is taken exactly when its size
 * is 8 + k x 1754008; every block reads; the SIMD sums of block 0 are
 * the saturated sums of its records' bytes; a row has at most
 * CLOAD_ITEMS_MAX items, each named, of a known unit, on the table its
 * unit says; the sub-block index of a row is inside the instrumentation's
 * 108 when the block is. */
#include <fcntl.h>

#include "cload.h"
#include "fuzz.h"

static uint64_t le64(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 8; i-- > 0;)
		v = v << 8 | (i < n ? p[i] : 0);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const int64_t clocks[4] = { 0, 1000, 1850, 7 };
	struct pmu_counts ev;
	struct oprec_sum sum, *s0 = NULL;
	struct cload_item it[CLOAD_ITEMS_MAX];
	enum board_fmt fmt;
	enum board_core core;
	size_t nev, k, nblocks, want, n, rest;
	const uint8_t *file;
	uint64_t fsize;
	const char *why;
	char path[64];
	FILE *f;
	int fd, whole;

	if (size < 2)
		return 0;
	fmt = (enum board_fmt)(data[0] % 3);
	core = data[0] & 4 ? BOARD_VECTOR : BOARD_CUBE;
	pmu_counts_init(&ev);
	nev = data[1] % 25u;
	for (k = 0; k < nev && 2 + 10 * (k + 1) <= size; k++) {
		const uint8_t *p = data + 2 + 10 * k;
		(void)pmu_counts_set(&ev, (unsigned)(p[0] | p[1] << 8), le64(p + 2, 8));
	}
	file = data + 2 + 10 * k;
	rest = size - (size_t)(file - data);

	whole = !!(data[0] & 0x40);
	want = whole ? 1u + (data[0] >> 7) : 0;
	fsize = whole ? OPREC_HEAD + (uint64_t)want * OPREC_BLOCK_BYTES : OPREC_HEAD + rest;
	if (rest > fsize)
		rest = (size_t)fsize;
	fd = fuzz_memfd(file, rest);
	CHECK(ftruncate(fd, (off_t)fsize) == 0);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);

	f = oprec_open(path, &nblocks, &why);
	if ((fsize - OPREC_HEAD) % OPREC_BLOCK_BYTES == 0) {
		CHECK(f != NULL);
		CHECK(nblocks == (fsize - OPREC_HEAD) / OPREC_BLOCK_BYTES);
	} else {
		CHECK(f == NULL && why && *why);
	}
	if (f) {
		for (k = 0; k < nblocks; k++) {
			CHECK(oprec_read(f, &sum) == 0);
			if (k == 0) {
				unsigned t;
				s0 = malloc(sizeof *s0);
				CHECK(s0);
				*s0 = sum;
				for (t = 0; t < OPREC_TYPES; t++) {
					uint64_t off = oprec_offset(0, -1, t), i = 0, o = 0;
					if (off < rest)
						i = le64(file + off, rest - (size_t)off);
					if (off + 8 < rest)
						o = le64(file + off + 8, rest - (size_t)(off + 8));
					CHECK(s0->simd_instr[t] == i && s0->simd_ops[t] == o);
				}
			}
		}
		CHECK(oprec_read(f, &sum) == -1);    /* nothing past the last block */
		fclose(f);
	}
	close(fd);

	n = cload_items(fmt, core, &ev, clocks[(data[0] >> 4) & 3], fmt == BOARD_A5 ? s0 : NULL, it);
	CHECK(n <= CLOAD_ITEMS_MAX);
	for (k = 0; k < n; k++) {
		CHECK(memchr(it[k].name, 0, sizeof it[k].name) && it[k].name[0]);
		CHECK(it[k].unit == CL_US || it[k].unit == CL_INSTR || it[k].unit == CL_PER);
		CHECK(it[k].table == (it[k].unit != CL_PER));
	}
	for (k = 0; k < 36; k++)
		CHECK(oprec_index(!!(data[0] & 8), core, (unsigned)k, data[0] >> 7) < OPREC_BLOCKS_MAX);
	free(s0);
	return 0;
}
