/* libFuzzer target: the code view's decoders and the L2 model of
 * lib/dbi.c.
 *
 * The input is read as MemoryChart.bin (dbi_mem_each over an exact-size
 * copy): a record decoded is encoded back to the same 56 bytes but for
 * its padding, and each goes into a small L2 model whose counts add up
 * (every line accessed is a hit or a miss, every miss allocates, an
 * eviction follows a full set only); an error names a record.  The same
 * bytes are a basic-block map (dbi_bbmap_parse) and, split at the first
 * NUL, a map and its counts file: blocks end at or past their start, on
 * 4-byte instructions, a pc inside a block finds one.  The bytes are also
 * an instrumentation packet (dbi_packet): every record it expands has
 * memory kinds of the table, the records read and dropped add up to the
 * header's count. */
#include "dbi.h"
#include "fuzz.h"

static struct dbi_l2 l2;
static uint64_t lines, records;

static int take(void *ctx, const struct dbi_mem *m)
{
	unsigned char back[DBI_MEMREC_SIZE];
	const unsigned char *p = (const unsigned char *)ctx + records * DBI_MEMREC_SIZE;
	uint64_t h = 0, ms = 0;
	CHECK(m->src < DBI_NMEM && m->dst < DBI_NMEM);
	CHECK(m->src_size <= DBI_MEM_SIZE_MAX && m->dst_size <= DBI_MEM_SIZE_MAX);
	dbi_mem_encode(m, back);
	CHECK(!memcmp(back, p, 54));
	if (m->src == DBI_GM || m->dst == DBI_GM) {
		uint64_t a = m->src == DBI_GM ? m->src_addr : m->dst_addr, n = m->src == DBI_GM ? m->src_size : m->dst_size;
		/* Keep the model's work bounded: small transfers only. */
		if (n <= 1 << 16) {
			struct dbi_l2_stat st = m->src == DBI_GM ? dbi_l2_load(&l2, a, n, m->pc) : dbi_l2_store(&l2, a, n, m->pc);
			/* a range that wraps past the address space touches nothing */
			uint64_t want = n && a + n > a ? (a + n - 1) / DBI_L2_LINE - a / DBI_L2_LINE + 1 : 0;
			CHECK(st.hit + st.miss == want);
			CHECK(st.allocate == st.miss);
			CHECK(st.evict_write + st.evict_clean <= st.miss);
			lines += want;
		}
	} else {
		CHECK(dbi_l2_record(&l2, m) == -1);
	}
	for (unsigned s = 0; s < l2.sets; s++)
		h += l2.set_hit[s], ms += l2.set_miss[s];
	CHECK(h + ms == lines);
	records++;
	return 0;
}

static void bbmap(const char *text, size_t n, const unsigned char *counts, size_t nc)
{
	struct dbi_bbmap m;
	char err[300];
	if (dbi_bbmap_parse(&m, text, n, err, sizeof err)) {
		CHECK(!strncmp(err, "line ", 5) || !strncmp(err, "no basic block", 14));
		return;
	}
	CHECK(m.n > 0);
	for (size_t i = 0; i < m.n; i++) {
		CHECK(m.bb[i].begin <= m.bb[i].end);
		CHECK(m.bb[i].id <= m.max_id);
		CHECK(dbi_bb_of(&m, m.bb[i].begin) != NULL);
	}
	if (counts) {
		if (dbi_bb_counts(&m, counts, nc, err, sizeof err) == 0)
			CHECK(nc / 4 > m.max_id);
		else
			CHECK(nc % 4 || nc / 4 <= m.max_id);
	}
	dbi_bbmap_free(&m);
}

static uint64_t expanded;

static int count_mem(void *ctx, const struct dbi_mem *m)
{
	(void)ctx;
	CHECK(m->src < DBI_NMEM && m->dst < DBI_NMEM);
	expanded++;
	return expanded > 100000;       /* a huge burst count: enough */
}

static void packet(const unsigned char *p, size_t n)
{
	struct dbi_loss l = { 0 };
	const char *path;
	size_t pl;
	uint64_t count = 0;
	int rc;
	expanded = 0;
	rc = dbi_packet(p, n, count_mem, NULL, &l, &path, &pl);
	if (n < DBI_PACKET_HEAD) {
		CHECK(rc == -1);
		return;
	}
	for (int i = 7; i >= 0; i--)
		count = count << 8 | p[i];
	if (rc == 1) {
		CHECK(p[26] && pl == n - DBI_PACKET_HEAD);
		return;
	}
	CHECK(rc == 0 && l.processed + l.dropped == count && l.packets == 1);
	if (!expanded)
		return;
	CHECK(l.processed > 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = fuzz_copy(data, size), err[300];
	const char *nul;
	int rc;
	dbi_l2_init(&l2, 4, 2);
	lines = records = 0;
	rc = dbi_mem_each((const unsigned char *)copy, size, take, copy, err, sizeof err);
	if (rc)
		CHECK(!strncmp(err, "record ", 7));
	else
		CHECK(records == size / DBI_MEMREC_SIZE && size % DBI_MEMREC_SIZE == 0);
	dbi_l2_free(&l2);

	packet((const unsigned char *)copy, size);
	bbmap(copy, size, NULL, 0);
	if ((nul = memchr(copy, 0, size))) {
		size_t k = (size_t)(nul - copy);
		char *c = fuzz_copy(nul + 1, size - k - 1);
		bbmap(copy, k, (const unsigned char *)c, size - k - 1);
		free(c);
	}
	free(copy);
	return 0;
}
