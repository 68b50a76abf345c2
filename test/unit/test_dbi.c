/* lib/dbi.c: MemoryChart.bin records, the basic-block map and its
 * counts, and the L2 cache model. */
#include "dbi.h"
#include "unit.h"

#define STAT(s, h, m, a, ew, ec)                                                     \
	do {                                                                             \
		CHECK_INT((s).hit, h);                                                       \
		CHECK_INT((s).miss, m);                                                      \
		CHECK_INT((s).allocate, a);                                                  \
		CHECK_INT((s).evict_write, ew);                                              \
		CHECK_INT((s).evict_clean, ec);                                              \
	} while (0)

/* The reference's own cases: 4 sets of 1 way over GM. */
static void l2_cases(void)
{
	struct dbi_l2 c;
	struct dbi_l2_stat s;
	dbi_l2_init(&c, 4, 1);
	s = dbi_l2_load(&c, 0, 1024, 1);
	STAT(s, 0, 2, 2, 0, 0);
	s = dbi_l2_store(&c, 1000, 32, 2);
	STAT(s, 1, 1, 1, 0, 0);
	s = dbi_l2_load(&c, 2000, 256, 3);
	STAT(s, 0, 2, 2, 0, 1);
	s = dbi_l2_load(&c, 5000, 256, 4);
	STAT(s, 0, 2, 2, 2, 0);
	s = dbi_l2_store(&c, 2100, 32, 5);
	STAT(s, 1, 0, 0, 0, 0);
	s = dbi_l2_store(&c, 2100, 32, 5);
	STAT(s, 1, 0, 0, 0, 0);
	s = dbi_l2_load(&c, 1000, 3000, 6);
	STAT(s, 2, 5, 5, 0, 5);
	/* per pc: pc 5's two stores summed */
	const struct dbi_l2_stat *p5 = keytab_find(&c.pc, 5);
	CHECK(p5 && p5->hit == 2 && p5->miss == 0);
	/* per set: every access counted once */
	uint64_t h = 0, m = 0;
	for (unsigned i = 0; i < 4; i++)
		h += c.set_hit[i], m += c.set_miss[i];
	CHECK_INT(h, 5);
	CHECK_INT(m, 12);
	/* a zero-length access touches nothing */
	s = dbi_l2_load(&c, 100, 0, 7);
	STAT(s, 0, 0, 0, 0, 0);
	dbi_l2_free(&c);

	/* LRU over ways: 2 ways, lines 0, 2, 0, 4 in set 0 evict line 2 */
	dbi_l2_init(&c, 2, 2);
	dbi_l2_load(&c, 0, 1, 1);
	dbi_l2_load(&c, 2 * 512, 1, 1);
	dbi_l2_load(&c, 0, 1, 1);
	dbi_l2_load(&c, 4 * 512, 1, 1);
	s = dbi_l2_load(&c, 0, 1, 1);
	STAT(s, 1, 0, 0, 0, 0);
	s = dbi_l2_load(&c, 2 * 512, 1, 1);
	STAT(s, 0, 1, 1, 0, 1);
	dbi_l2_free(&c);

	CHECK_INT(dbi_l2_sets("Ascend910B4"), 8192);
	CHECK_INT(dbi_l2_sets("ascend910b4-1"), 14336);
	CHECK_INT(dbi_l2_sets("Ascend910_9391"), 16384);
	CHECK_INT(dbi_l2_sets("Ascend910B9"), 16384);
}

static int count_cb(void *ctx, const struct dbi_mem *m)
{
	uint64_t *n = ctx;
	n[0]++;
	n[1] += m->src_size;
	return 0;
}

static void memchart(void)
{
	unsigned char buf[3 * DBI_MEMREC_SIZE + 8];
	struct dbi_mem m = { 0x1000, 0x40, 256, 256, 0x11000010, 7, 3, 1, DBI_GM, DBI_UB }, back;
	const char *why;
	char err[200];
	uint64_t n[2] = { 0 };
	dbi_mem_encode(&m, buf);
	CHECK(dbi_mem_decode(buf, &back, &why) == 0);
	CHECK(back.src_addr == 0x1000 && back.dst_addr == 0x40 && back.src_size == 256 && back.pc == 0x11000010 &&
	      back.serial == 7 && back.block == 3 && back.sub_block == 1 && back.src == DBI_GM && back.dst == DBI_UB);
	CHECK_INT(dbi_dma_path_of(&back), DBI_GM_TO_UB);
	m.src = DBI_L0C;
	m.dst = DBI_GM;
	dbi_mem_encode(&m, buf + DBI_MEMREC_SIZE);
	m.src = DBI_GM;
	m.dst = DBI_L0A;
	dbi_mem_encode(&m, buf + 2 * DBI_MEMREC_SIZE);
	CHECK(dbi_mem_each(buf, 3 * DBI_MEMREC_SIZE, count_cb, n, err, sizeof err) == 0);
	CHECK_INT(n[0], 3);
	CHECK_INT(n[1], 768);
	CHECK(dbi_mem_each(buf, 0, count_cb, n, err, sizeof err) == 0);
	/* a cut last record */
	CHECK(dbi_mem_each(buf, 2 * DBI_MEMREC_SIZE + 10, count_cb, n, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "record 2 (offset 112): cut short: 10 of 56") != NULL, "%s", err);
	/* a memory kind past INVALID */
	buf[DBI_MEMREC_SIZE + 53] = 10;
	CHECK(dbi_mem_each(buf, 3 * DBI_MEMREC_SIZE, count_cb, n, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "record 1 (offset 56): destination memory kind") != NULL, "%s", err);
	buf[DBI_MEMREC_SIZE + 53] = DBI_GM;
	buf[52] = 200;
	CHECK(dbi_mem_each(buf, DBI_MEMREC_SIZE, count_cb, n, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "record 0 (offset 0): source memory kind") != NULL, "%s", err);
	buf[52] = DBI_GM;
	buf[16 + 4] = 1;    /* src size 2^32 + 256 */
	CHECK(dbi_mem_each(buf, DBI_MEMREC_SIZE, count_cb, n, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "past 4 GiB") != NULL, "%s", err);
	/* the record's L2 side: a load from GM, a store to GM, neither */
	struct dbi_l2 c;
	dbi_l2_init(&c, 4, 1);
	m.src = DBI_GM, m.dst = DBI_L1, m.src_addr = 0, m.src_size = 512;
	CHECK(dbi_l2_record(&c, &m) == 0);
	m.src = DBI_UB, m.dst = DBI_GM, m.dst_addr = 0, m.dst_size = 512;
	CHECK(dbi_l2_record(&c, &m) == 0);
	m.src = DBI_L1, m.dst = DBI_L0A;
	CHECK(dbi_l2_record(&c, &m) == -1);
	CHECK_INT(c.set_miss[0], 1);
	CHECK_INT(c.set_hit[0], 1);
	dbi_l2_free(&c);
}

static const char map_text[] =
	"InstrumentBlockCount\n"
	"function: matmul_custom_0_mix_aic\n"
	"start addr: 0x000000\n"
	"BBB id:0 Offset: 0x000000 end: 0x000048\n"
	"BBB id:1 Offset: 0x00004c end: 0x00004c\n"
	"function: other\n"
	"start addr: 0x001000\n"
	"BBB id:2 Offset: 0x000000 end: 0x000010\r\n";

static void bbmap(void)
{
	struct dbi_bbmap m;
	char err[200];
	unsigned char counts[12] = { 5, 0, 0, 0, 1, 1, 0, 0, 9, 0, 0, 0 };
	CHECK(dbi_bbmap_parse(&m, map_text, sizeof map_text - 1, err, sizeof err) == 0);
	CHECK_INT(m.n, 3);
	CHECK_INT(m.nfunc, 2);
	CHECK(!strcmp(m.func[0], "matmul_custom_0_mix_aic"));
	CHECK_INT(m.bb[2].begin, 0x1000);
	CHECK_INT(m.bb[2].end, 0x1010);
	CHECK(dbi_bb_counts(&m, counts, 12, err, sizeof err) == 0);
	CHECK_INT(m.bb[0].count, 5);
	CHECK_INT(m.bb[1].count, 257);
	CHECK(dbi_bb_of(&m, 0x48) == &m.bb[0]);
	CHECK(dbi_bb_of(&m, 0x4c) == &m.bb[1]);
	CHECK(dbi_bb_of(&m, 0x50) == NULL);
	CHECK(dbi_bb_of(&m, 0x100c) == &m.bb[2]);
	CHECK(dbi_bb_counts(&m, counts, 11, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "count 2 (offset 8): cut short") != NULL, "%s", err);
	CHECK(dbi_bb_counts(&m, counts, 8, err, sizeof err) == -1);
	CHECK_MSG(strstr(err, "2 counts, but the map has block ids up to 2") != NULL, "%s", err);
	dbi_bbmap_free(&m);

	static const struct { const char *text, *want; } bad[] = {
		{ "BBB id:0 Offset: 0x0 end: 0x4\n", "line 1: a basic block before" },
		{ "function: f\nstart addr: 0x0\nBBB id:0 Offset: 0x8 end: 0x4\n", "line 3: block 0 ends before" },
		{ "function: f\nstart addr: 0x0\nBBB id:0 Offset: 0x2 end: 0x4\n", "line 3: block 0 ends before" },
		{ "function: f\nstart addr: zz\n", "line 2: a start address that is not" },
		{ "function: f\nstart addr: 0x0\nBBB id:x Offset: 0x0 end: 0x4\n", "line 3: not \"BBB id" },
		{ "function: f\nstart addr: 0x0\nBBB id:1 Offset: 0x0 end: 0x4 trailing\n", "line 3: not \"BBB id" },
		{ "hello\n", "line 1: not a line of a basic-block map" },
		{ "start addr: 0x0\n", "line 1: a start address before any function" },
		{ "function: a b\n", "line 1: a function line without one name" },
		{ "InstrumentBlockCount\nfunction: f\nstart addr: 0x0\n", "no basic block" },
		{ "function: f\nstart addr: 0xffffffffffffff00\nBBB id:0 Offset: 0x0 end: 0x100\n", "past the end" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = dbi_bbmap_parse(&m, bad[i].text, strlen(bad[i].text), err, sizeof err);
		CHECK_MSG(rc == -1 && strstr(err, bad[i].want), "case %zu: rc %d, '%s'", i, rc, rc ? err : "");
		if (!rc)
			dbi_bbmap_free(&m);
	}
}

/* ---- packets ---- */

static unsigned char pk[4096];
static size_t pkn;

static void p8(size_t at, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		pk[at + i] = (unsigned char)(v >> (8 * i));
}

static void pk_begin(uint64_t count, unsigned block, uint64_t overflow)
{
	memset(pk, 0, sizeof pk);
	p8(0, count, 8);
	p8(16, overflow, 8);
	p8(24, block, 2);
	pkn = DBI_PACKET_HEAD;
}

/* A record of type t with body size bs: type, magic, dst, src, pc; the
 * body's fields from offset 32 set by the caller at the returned offset. */
static size_t pk_rec(unsigned t, size_t bs, uint64_t dst, uint64_t src, uint64_t pc)
{
	size_t at = pkn;
	p8(at, t, 4);
	p8(at + 4, DBI_RECORD_MAGIC, 4);
	p8(at + 8, dst, 8);
	p8(at + 16, src, 8);
	p8(at + 24, pc, 8);
	pkn += 8 + bs;
	return at + 8;
}

static struct dbi_mem got[64];
static size_t ngot;

static int keep(void *ctx, const struct dbi_mem *m)
{
	(void)ctx;
	if (ngot < 64)
		got[ngot++] = *m;
	return 0;
}

static int run_packet(struct dbi_loss *l)
{
	const char *path;
	size_t pl;
	ngot = 0;
	memset(l, 0, sizeof *l);
	return dbi_packet(pk, pkn, keep, NULL, l, &path, &pl);
}

#define MEM(k, sa, ss, da, ds)                                                              \
	CHECK_MSG(got[k].src_addr == (sa) && got[k].src_size == (ss) && got[k].dst_addr == (da) && \
	          got[k].dst_size == (ds), "record %d: src %llx+%llu dst %llx+%llu", k,          \
	          (unsigned long long)got[k].src_addr, (unsigned long long)got[k].src_size,       \
	          (unsigned long long)got[k].dst_addr, (unsigned long long)got[k].dst_size)

static void packets(void)
{
	struct dbi_loss l;
	size_t b;
	const char *path;
	size_t pl;

	/* DMA_MOV: nBurst 2 of lenBurst 3 blocks, strides 1 and 2 blocks */
	pk_begin(1, 5, 0);
	b = pk_rec(DBI_REC_DMA_MOV, DBI_DMA_MOV_SIZE - 8, 0x100, 0x1000, 0x40);
	p8(b + 32, 2, 2), p8(b + 34, 3, 2), p8(b + 36, 1, 2), p8(b + 38, 2, 2);
	pk[b + 42] = DBI_UB, pk[b + 43] = DBI_GM;
	CHECK(run_packet(&l) == 0);
	CHECK_INT(ngot, 2);
	MEM(0, 0x1000, 96, 0x100, 96);
	MEM(1, 0x1000 + 128, 96, 0x100 + 160, 96);
	CHECK(got[0].pc == 0x40 && got[0].block == 5 && got[0].src == DBI_GM && got[0].dst == DBI_UB);
	CHECK(got[1].serial == 1);
	CHECK(l.processed == 1 && l.type_processed[DBI_REC_DMA_MOV] == 1 && !dbi_loss_any(&l));
	/* byte mode: the source rounded up to 32 bytes, the destination lenBurst bytes */
	pk[b + 45] = 1;
	p8(b + 34, 40, 2);
	run_packet(&l);
	MEM(0, 0x1000, 64, 0x100, 40);
	MEM(1, 0x1000 + 64 + 32, 64, 0x100 + 40 + 64, 40);
	/* a pad mode is not expanded: the type's failure */
	pk[b + 44] = 2;
	run_packet(&l);
	CHECK(ngot == 0 && l.type_failed[DBI_REC_DMA_MOV] == 1 && dbi_loss_any(&l));

	/* MOV_ALIGN GM -> UB: GM side lenBurst bytes and byte gaps, UB side 32-byte aligned with padding */
	pk_begin(1, 0, 0);
	b = pk_rec(DBI_REC_MOV_ALIGN, DBI_MOV_ALIGN_SIZE - 8, 0x200, 0x2000, 0x44);
	p8(b + 32, 10, 4), p8(b + 36, 1, 4), p8(b + 40, 100, 4), p8(b + 44, 2, 2);
	pk[b + 48] = DBI_UB, pk[b + 49] = DBI_GM, pk[b + 50] = 2 /* B16 */, pk[b + 51] = 1, pk[b + 52] = 2;
	run_packet(&l);
	CHECK_INT(ngot, 2);
	MEM(0, 0x2000, 100, 0x200, 128);           /* 100 + 3 x 2 bytes of padding -> 128 */
	MEM(1, 0x2000 + 110, 100, 0x200 + 160, 128);

	/* LOAD_2D: repeat 3 fractals of 512 bytes, base 1, strides 2 (INC) and 1; DEC */
	pk_begin(1, 0, 0);
	b = pk_rec(DBI_REC_LOAD_2D, DBI_LOAD_2D_SIZE - 8, 0x300, 0x10000, 0x48);
	p8(b + 34, 1, 2), p8(b + 36, 2, 2), p8(b + 38, 1, 2);
	pk[b + 40] = 3, pk[b + 41] = DBI_L0A, pk[b + 42] = DBI_L1;
	run_packet(&l);
	CHECK_INT(ngot, 3);
	MEM(0, 0x10000 + 512, 512, 0x300, 512);
	MEM(2, 0x10000 + 512 + 4 * 512, 512, 0x300 + 1024, 512);
	pk[b + 43] = 1;
	run_packet(&l);
	MEM(2, 0x10000 + 512 - 4 * 512, 512, 0x300 + 1024, 512);

	/* LOAD_2DV2: one record of mStep x kStep fractals; a negative srcStride counts its size */
	pk_begin(1, 0, 0);
	b = pk_rec(DBI_REC_LOAD_2DV2, DBI_LOAD_2DV2_SIZE - 8, 0x400, 0x20000, 0x4c);
	p8(b + 34, 1, 2), p8(b + 36, 2, 2), p8(b + 40, (uint16_t)-3, 2);
	pk[b + 42] = 2, pk[b + 43] = 4, pk[b + 44] = DBI_L0B, pk[b + 45] = DBI_L1;
	run_packet(&l);
	CHECK_INT(ngot, 1);
	MEM(0, 0x20000 + (3 * 2 + 1) * 512, 4096, 0x400, 4096);

	/* two records in one packet, the second cut: out of bounds */
	pk_begin(2, 0, 7);
	b = pk_rec(DBI_REC_LOAD_2D, DBI_LOAD_2D_SIZE - 8, 0, 0, 0);
	pk[b + 40] = 1, pk[b + 41] = DBI_L0A, pk[b + 42] = DBI_L1;
	pk_rec(DBI_REC_LOAD_2D, DBI_LOAD_2D_SIZE - 8, 0, 0, 0);
	pkn -= 4;
	run_packet(&l);
	CHECK(ngot == 1 && l.out_of_bounds == 1 && l.processed == 2 && l.overflow == 7);

	/* the reference's cases: an INVALID type; a count of 1 and no data */
	pk_begin(1, 0, 0);
	pk_rec(DBI_REC_INVALID, 16, 0, 0, 0);
	run_packet(&l);
	CHECK(l.invalid_type == 1 && l.dropped == 1 && dbi_loss_any(&l));
	pk_begin(1, 0, 0);
	run_packet(&l);
	CHECK(l.invalid_data == 1 && l.dropped == 1);
	pk_begin(1, 0, 0);
	p8(pkn, DBI_REC_LOAD_2D, 4), p8(pkn + 4, DBI_RECORD_MAGIC, 4);
	pkn += 8;
	run_packet(&l);
	CHECK(l.invalid_data == 1);
	/* a bad magic stops the packet; a type of the reference's not expanded here */
	pk_begin(2, 0, 0);
	b = pk_rec(DBI_REC_LOAD_2D, DBI_LOAD_2D_SIZE - 8, 0, 0, 0);
	p8(b - 4, 0x12345678, 4);
	run_packet(&l);
	CHECK(l.corrupt == 1 && l.processed == 0 && l.dropped == 2 && ngot == 0);
	pk_begin(1, 0, 0);
	pk_rec(10 /* MOV_FP */, 40, 0, 0, 0);
	run_packet(&l);
	CHECK(l.unexpanded == 1 && l.type_failed[10] == 1);
	/* an end packet: the path */
	pk_begin(0, 0, 0);
	pk[26] = 1;
	memcpy(pk + pkn, "/x/dump", 7);
	pkn += 7;
	memset(&l, 0, sizeof l);
	CHECK(dbi_packet(pk, pkn, keep, NULL, &l, &path, &pl) == 1 && pl == 7 && !memcmp(path, "/x/dump", 7));
	CHECK(dbi_packet(pk, 10, keep, NULL, &l, &path, &pl) == -1);
}

int main(void)
{
	packets();
	l2_cases();
	memchart();
	bbmap();
	return unit_done();
}
