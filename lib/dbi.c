/* The code view's raw files and the L2 model: see dbi.h. */
#include "dbi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "mem.h"
#include "scan.h"

static uint64_t get64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void put64(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static const char *const mem_names[DBI_NMEM] = { "L1", "L0A", "L0B", "L0C", "UB", "BT", "GM", "REG", "PRIVATE",
                                                 "INVALID" };

const char *dbi_mem_name(unsigned type)
{
	return type < DBI_NMEM ? mem_names[type] : "?";
}

/* The record: u64 srcAddr, dstAddr, srcMemSize, dstMemSize, pc, serialNo;
 * u16 blockId, subBlockId; u8 src, dst; 2 bytes of padding. */
int dbi_mem_decode(const unsigned char *p, struct dbi_mem *m, const char **why)
{
	m->src_addr = get64(p);
	m->dst_addr = get64(p + 8);
	m->src_size = get64(p + 16);
	m->dst_size = get64(p + 24);
	m->pc = get64(p + 32);
	m->serial = get64(p + 40);
	m->block = (unsigned)p[48] | (unsigned)p[49] << 8;
	m->sub_block = (unsigned)p[50] | (unsigned)p[51] << 8;
	m->src = p[52];
	m->dst = p[53];
	if (m->src >= DBI_NMEM) {
		*why = "source memory kind past 9 (INVALID)";
		return -1;
	}
	if (m->dst >= DBI_NMEM) {
		*why = "destination memory kind past 9 (INVALID)";
		return -1;
	}
	/* No transfer instruction moves 4 GiB: a larger size is garbage. */
	if (m->src_size > DBI_MEM_SIZE_MAX || m->dst_size > DBI_MEM_SIZE_MAX) {
		*why = "a transfer size past 4 GiB";
		return -1;
	}
	return 0;
}

void dbi_mem_encode(const struct dbi_mem *m, unsigned char *p)
{
	memset(p, 0, DBI_MEMREC_SIZE);
	put64(p, m->src_addr);
	put64(p + 8, m->dst_addr);
	put64(p + 16, m->src_size);
	put64(p + 24, m->dst_size);
	put64(p + 32, m->pc);
	put64(p + 40, m->serial);
	p[48] = (unsigned char)m->block;
	p[49] = (unsigned char)(m->block >> 8);
	p[50] = (unsigned char)m->sub_block;
	p[51] = (unsigned char)(m->sub_block >> 8);
	p[52] = (unsigned char)m->src;
	p[53] = (unsigned char)m->dst;
}

int dbi_mem_each(const unsigned char *data, size_t n, int (*fn)(void *ctx, const struct dbi_mem *m), void *ctx,
                 char *err, size_t es)
{
	size_t i, whole = n / DBI_MEMREC_SIZE;
	struct dbi_mem m;
	const char *why;
	for (i = 0; i < whole; i++) {
		if (dbi_mem_decode(data + i * DBI_MEMREC_SIZE, &m, &why)) {
			snprintf(err, es, "record %zu (offset %zu): %s", i, i * DBI_MEMREC_SIZE, why);
			return -1;
		}
		if (fn(ctx, &m))
			return 0;
	}
	if (n % DBI_MEMREC_SIZE) {
		snprintf(err, es, "record %zu (offset %zu): cut short: %zu of %u bytes (the file is %zu bytes, no "
		         "multiple of %u)", whole, whole * DBI_MEMREC_SIZE, n % DBI_MEMREC_SIZE, DBI_MEMREC_SIZE, n,
		         DBI_MEMREC_SIZE);
		return -1;
	}
	return 0;
}

/* ---- the instrumentation's packets ---- */

static unsigned get16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)get16(p) | (uint32_t)get16(p + 2) << 16;
}

#define LOCAL_BLOCK 32u     /* bytes of a local-memory block (lenBurst's unit) */
#define FRACTAL 512u        /* bytes of a LOAD_2D fractal */

static uint64_t align32(uint64_t v)
{
	return (v + LOCAL_BLOCK - 1) / LOCAL_BLOCK * LOCAL_BLOCK;
}

/* A record's transfer kinds: both must be memory kinds. */
static int kinds_ok(unsigned src, unsigned dst)
{
	return src < DBI_NMEM && dst < DBI_NMEM;
}

/* Body b of a record of type t into transfer records; 0, or -1 when its
 * values cannot be expanded (counted as the type's failure). */
static int expand(unsigned t, const unsigned char *b, unsigned block, uint64_t *serial,
                  int (*fn)(void *, const struct dbi_mem *), void *ctx, int *stop)
{
	struct dbi_mem m = { 0 };
	uint64_t dst = get64(b), src = get64(b + 8), i;
	m.pc = get64(b + 16);
	m.block = block;
#define EMIT() do { m.serial = (*serial)++; if (!*stop && fn(ctx, &m)) *stop = 1; } while (0)
	switch (t) {
	case DBI_REC_DMA_MOV: {
		/* u16 nBurst, lenBurst, srcStride, dstStride, coreID; u8 dst, src, padMode, byteMode */
		unsigned nb = get16(b + 32), len = get16(b + 34), ss = get16(b + 36), ds = get16(b + 38);
		m.dst = b[42];
		m.src = b[43];
		if (!kinds_ok(m.src, m.dst) || b[44] != 0)
			return -1;   /* a pad mode: not expanded here */
		for (i = 0; i < nb; i++) {
			uint64_t sl = b[45] ? align32(len) : (uint64_t)len * LOCAL_BLOCK;
			uint64_t dl = b[45] ? len : (uint64_t)len * LOCAL_BLOCK;
			m.src_addr = src + i * (sl + (uint64_t)ss * LOCAL_BLOCK);
			m.src_size = sl;
			m.dst_addr = dst + i * (dl + (uint64_t)ds * LOCAL_BLOCK);
			m.dst_size = dl;
			EMIT();
		}
		return 0;
	}
	case DBI_REC_MOV_ALIGN: {
		/* u32 srcGap, dstGap, lenBurst; u16 nBurst, coreID; u8 dst, src, dataType, leftPad, rightPad */
		static const unsigned bits[8] = { 4, 8, 16, 32, 16, 16, 32, 32 };
		uint64_t sg = get32(b + 32), dg = get32(b + 36), len = get32(b + 40), pad;
		unsigned nb = get16(b + 44);
		m.dst = b[48];
		m.src = b[49];
		if (!kinds_ok(m.src, m.dst) || b[50] >= 8)
			return -1;
		pad = ((uint64_t)b[51] + b[52]) * bits[b[50]] / 8;
		/* The GM side counts bytes and byte gaps, the local side 32-byte blocks. */
		for (i = 0; i < nb; i++) {
			uint64_t sl = m.src == DBI_GM ? len : align32(len), sgap = m.src == DBI_GM ? sg : sg * LOCAL_BLOCK;
			uint64_t dl = m.dst == DBI_GM ? len : align32(len + pad), dgap = m.dst == DBI_GM ? dg : dg * LOCAL_BLOCK;
			m.src_addr = src + i * (sl + sgap);
			m.src_size = sl;
			m.dst_addr = dst + i * (dl + dgap);
			m.dst_size = dl;
			EMIT();
		}
		return 0;
	}
	case DBI_REC_LOAD_2D: {
		/* u16 coreID, baseIdx, srcStride, dstStride; u8 repeat, dst, src, addrCalMode */
		uint64_t base = get16(b + 34), ss = get16(b + 36), ds = get16(b + 38);
		unsigned rep = b[40];
		m.dst = b[41];
		m.src = b[42];
		if (!kinds_ok(m.src, m.dst) || b[43] > 1)
			return -1;
		m.src_size = m.dst_size = FRACTAL;
		for (i = 0; i < rep; i++) {
			uint64_t from = src + base * FRACTAL;
			m.src_addr = b[43] ? from - ss * i * FRACTAL : from + ss * i * FRACTAL;
			m.dst_addr = dst + ds * i * FRACTAL;
			EMIT();
		}
		return 0;
	}
	case DBI_REC_LOAD_2DV2: {
		/* u16 coreID, mStartPos, kStartPos, dstStride, srcStride (signed: its size counts);
		 * u8 mStep, kStep, dst, src, dataType, transpose */
		uint64_t mstart = get16(b + 34), kstart = get16(b + 36);
		int ss = (int16_t)get16(b + 40);
		m.dst = b[44];
		m.src = b[45];
		if (!kinds_ok(m.src, m.dst))
			return -1;
		m.src_size = m.dst_size = (uint64_t)b[42] * b[43] * FRACTAL;
		m.src_addr = src + ((uint64_t)(ss < 0 ? -ss : ss) * kstart + mstart) * FRACTAL;
		m.dst_addr = dst;
		EMIT();
		return 0;
	}
	}
#undef EMIT
	return -1;
}

static size_t body_size(unsigned t)
{
	switch (t) {
	case DBI_REC_DMA_MOV: return DBI_DMA_MOV_SIZE - 8;
	case DBI_REC_MOV_ALIGN: return DBI_MOV_ALIGN_SIZE - 8;
	case DBI_REC_LOAD_2D: return DBI_LOAD_2D_SIZE - 8;
	case DBI_REC_LOAD_2DV2: return DBI_LOAD_2DV2_SIZE - 8;
	default: return 0;
	}
}

int dbi_packet(const unsigned char *p, size_t n, int (*fn)(void *ctx, const struct dbi_mem *m), void *ctx,
               struct dbi_loss *l, const char **path, size_t *pathlen)
{
	uint64_t count, k, serial = 0;
	size_t at = DBI_PACKET_HEAD;
	unsigned block;
	int stop = 0;
	if (n < DBI_PACKET_HEAD)
		return -1;
	count = get64(p);
	block = get16(p + 24);
	if (p[26]) {
		*path = (const char *)p + DBI_PACKET_HEAD;
		*pathlen = n - DBI_PACKET_HEAD;
		return 1;
	}
	l->packets++;
	l->overflow += get64(p + 16);
	for (k = 0; k < count && at < n && !stop; k++) {
		unsigned t;
		size_t bs;
		if (n - at < 8) {
			l->invalid_data++;
			break;
		}
		t = get32(p + at);
		at += 8;
		if (at >= n) {
			l->invalid_data++;     /* a record header and no body */
			break;
		}
		if (get32(p + at - 4) != DBI_RECORD_MAGIC) {
			l->corrupt++;
			break;
		}
		if (t == DBI_REC_INVALID || t >= DBI_NREC) {
			l->invalid_type++;
			break;
		}
		if (!(bs = body_size(t))) {
			/* a type known to the reference whose layout this build does
			 * not expand: its size is unknown, so the rest goes too */
			l->unexpanded++;
			l->type_failed[t]++;
			k++;
			break;
		}
		l->type_processed[t]++;
		if (n - at < bs) {
			l->out_of_bounds++;
			l->type_failed[t]++;
			k++;
			break;
		}
		if (expand(t, p + at, block, &serial, fn, ctx, &stop))
			l->type_failed[t]++;
		at += bs;
	}
	if (count && n == DBI_PACKET_HEAD)
		l->invalid_data++;     /* a count without records */
	l->processed += k;
	l->dropped += count - k;
	return 0;
}

int dbi_loss_any(const struct dbi_loss *l)
{
	uint64_t f = 0;
	for (unsigned t = 0; t < DBI_NREC; t++)
		f |= l->type_failed[t];
	return (l->dropped | l->overflow | l->invalid_data | l->corrupt | l->invalid_type | l->unexpanded |
	        l->out_of_bounds | f) != 0;
}

/* ---- DMA paths ---- */

static const struct {
	const char *name;
	unsigned src, dst, req;
} dma[DBI_NDMA] = {
	[DBI_GM_TO_L0A] = { "GM_TO_L0A", DBI_GM, DBI_L0A, 256 },
	[DBI_GM_TO_L0B] = { "GM_TO_L0B", DBI_GM, DBI_L0B, 128 },
	[DBI_GM_TO_L1] = { "GM_TO_L1", DBI_GM, DBI_L1, 256 },
	[DBI_GM_TO_UB] = { "GM_TO_UB", DBI_GM, DBI_UB, 128 },
	[DBI_UB_TO_GM] = { "UB_TO_GM", DBI_UB, DBI_GM, 128 },
	[DBI_L0C_TO_GM] = { "L0C_TO_GM", DBI_L0C, DBI_GM, 128 },
};

const char *dbi_dma_name(unsigned path)
{
	return path < DBI_NDMA ? dma[path].name : "?";
}

unsigned dbi_dma_req_bytes(unsigned path)
{
	return path < DBI_NDMA ? dma[path].req : 0;
}

unsigned dbi_dma_path_of(const struct dbi_mem *m)
{
	unsigned p;
	for (p = 0; p < DBI_NDMA; p++)
		if (dma[p].src == m->src && dma[p].dst == m->dst)
			return p;
	return DBI_NDMA;
}

const char *dbi_dma_header(void)
{
	static char h[400];
	if (!h[0]) {
		size_t at = (size_t)snprintf(h, sizeof h, "block_id");
		for (unsigned p = 0; p < DBI_NDMA; p++)
			at += (size_t)snprintf(h + at, sizeof h - at, ",%s,%s_DATA", dma[p].name, dma[p].name);
	}
	return h;
}

int dbi_dma_parse(const char *line, size_t n, struct dbi_dma_row *r, const char **why)
{
	uint64_t v[1 + 2 * DBI_NDMA];
	size_t at = 0, k;
	while (n && line[n - 1] == '\r')
		n--;
	for (k = 0; k < 1 + 2 * DBI_NDMA; k++) {
		size_t i = at;
		uint64_t x = 0;
		for (; i < n && line[i] >= '0' && line[i] <= '9'; i++) {
			if (x > (UINT64_MAX - 9) / 10) {
				*why = "a number past 2^64";
				return -1;
			}
			x = x * 10 + (uint64_t)(line[i] - '0');
		}
		if (i == at || (i < n && line[i] != ',') || (k < 2 * DBI_NDMA && i == n) || (k == 2 * DBI_NDMA && i != n)) {
			*why = "not a block id and 12 counts, comma-separated";
			return -1;
		}
		v[k] = x;
		at = i + 1;
	}
	if (v[0] > UINT32_MAX) {
		*why = "a block id past 2^32";
		return -1;
	}
	r->block = (unsigned)v[0];
	for (k = 0; k < DBI_NDMA; k++) {
		r->req[k] = v[1 + 2 * k];
		r->bytes[k] = v[2 + 2 * k];
	}
	return 0;
}

/* ---- the basic-block map ---- */

/* s[0, n) starts with the literal lit: the rest in *rest. */
static int starts(const char *s, size_t n, const char *lit, const char **rest, size_t *rn)
{
	size_t k = strlen(lit);
	if (n < k || memcmp(s, lit, k))
		return 0;
	*rest = s + k;
	*rn = n - k;
	return 1;
}

/* "0x" and hex digits, the whole of s[0, n) up to trailing blanks. */
static int hex_at(const char *s, size_t n, uint64_t *v, size_t *used)
{
	size_t i = 2;
	uint64_t x = 0;
	if (n < 3 || s[0] != '0' || (s[1] | 0x20) != 'x')
		return 0;
	for (; i < n && hexval((unsigned char)s[i]) >= 0; i++) {
		if (i - 2 >= 16)
			return 0;
		x = x << 4 | (uint64_t)hexval((unsigned char)s[i]);
	}
	if (i == 2)
		return 0;
	*v = x;
	*used = i;
	return 1;
}

static int dec_at(const char *s, size_t n, uint64_t *v, size_t *used)
{
	size_t i = 0;
	uint64_t x = 0;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (x > (UINT32_MAX - 9) / 10)
			return 0;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (!i)
		return 0;
	*v = x;
	*used = i;
	return 1;
}

static size_t trim(const char *s, size_t n)
{
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return n;
}

/* "BBB id:N Offset: 0xHEX end: 0xHEX" after its first word. */
static int bb_line(const char *s, size_t n, uint64_t *id, uint64_t *off, uint64_t *end)
{
	const char *r;
	size_t rn, u;
	if (!starts(s, n, "BBB id:", &r, &rn) || !dec_at(r, rn, id, &u))
		return 0;
	r += u, rn -= u;
	if (!starts(r, rn, " Offset: ", &r, &rn) || !hex_at(r, rn, off, &u))
		return 0;
	r += u, rn -= u;
	if (!starts(r, rn, " end: ", &r, &rn) || !hex_at(r, rn, end, &u))
		return 0;
	return u == rn;
}

int dbi_bbmap_parse(struct dbi_bbmap *m, const char *text, size_t n, char *err, size_t es)
{
	size_t at = 0, line = 0, cap = 0;
	int have_func = 0, have_start = 0;
	uint64_t start = 0;
	memset(m, 0, sizeof *m);
	while (at < n) {
		const char *s = text + at, *nl = memchr(s, '\n', n - at), *r;
		size_t len = nl ? (size_t)(nl - s) : n - at, rn;
		uint64_t id, off, end;
		at += len + (nl != NULL);
		line++;
		len = trim(s, len);
		if (!len || (len == 20 && !memcmp(s, "InstrumentBlockCount", 20)))
			continue;
		if (starts(s, len, "function: ", &r, &rn)) {
			if (!rn || memchr(r, ' ', rn)) {
				snprintf(err, es, "line %zu: a function line without one name", line);
				goto bad;
			}
			m->func = xreallocarray(m->func, m->nfunc + 1, sizeof *m->func);
			m->func[m->nfunc++] = xstrndup(r, rn);
			have_func = 1;
			have_start = 0;
		} else if (starts(s, len, "start addr: ", &r, &rn)) {
			size_t u;
			if (!have_func) {
				snprintf(err, es, "line %zu: a start address before any function line", line);
				goto bad;
			}
			if (!hex_at(r, rn, &start, &u) || u != rn) {
				snprintf(err, es, "line %zu: a start address that is not 0x and hex digits", line);
				goto bad;
			}
			have_start = 1;
		} else if (starts(s, len, "BBB id:", &r, &rn)) {
			if (!have_start) {
				snprintf(err, es, "line %zu: a basic block before its function's start address", line);
				goto bad;
			}
			if (!bb_line(s, len, &id, &off, &end)) {
				snprintf(err, es, "line %zu: not \"BBB id:N Offset: 0xHEX end: 0xHEX\"", line);
				goto bad;
			}
			if (end < off || (off & 3) || (end & 3)) {
				snprintf(err, es, "line %zu: block %llu ends before it begins or off a 4-byte instruction",
				         line, (unsigned long long)id);
				goto bad;
			}
			if (start + end < start) {
				snprintf(err, es, "line %zu: block %llu past the end of the address space", line,
				         (unsigned long long)id);
				goto bad;
			}
			if (m->n == cap) {
				cap = cap ? 2 * cap : 64;
				m->bb = xreallocarray(m->bb, cap, sizeof *m->bb);
			}
			m->bb[m->n].id = (unsigned)id;
			m->bb[m->n].begin = start + off;
			m->bb[m->n].end = start + end;
			m->bb[m->n].count = 0;
			if (!m->n || id > m->max_id)
				m->max_id = (unsigned)id;
			m->n++;
		} else {
			snprintf(err, es, "line %zu: not a line of a basic-block map (function:, start addr:, BBB id:)",
			         line);
			goto bad;
		}
	}
	if (!m->n) {
		snprintf(err, es, "no basic block (no \"BBB id:\" line)");
		goto bad;
	}
	return 0;
bad:
	dbi_bbmap_free(m);
	return -1;
}

int dbi_bb_counts(struct dbi_bbmap *m, const unsigned char *data, size_t n, char *err, size_t es)
{
	size_t i;
	if (n % 4) {
		snprintf(err, es, "count %zu (offset %zu): cut short: %zu of 4 bytes", n / 4, n / 4 * 4, n % 4);
		return -1;
	}
	if (n / 4 <= m->max_id) {
		snprintf(err, es, "%zu counts, but the map has block ids up to %u", n / 4, m->max_id);
		return -1;
	}
	for (i = 0; i < m->n; i++) {
		const unsigned char *p = data + 4 * (size_t)m->bb[i].id;
		m->bb[i].count += (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24;
	}
	return 0;
}

const struct dbi_bb *dbi_bb_of(const struct dbi_bbmap *m, uint64_t pc)
{
	/* Blocks are few and in address order within a function: a scan. */
	for (size_t i = 0; i < m->n; i++)
		if (pc >= m->bb[i].begin && pc <= m->bb[i].end)
			return &m->bb[i];
	return NULL;
}

void dbi_bbmap_free(struct dbi_bbmap *m)
{
	free(m->bb);
	free_vec(m->func, m->nfunc);
	memset(m, 0, sizeof *m);
}

/* ---- the L2 cache model ---- */

static const struct {
	const char *soc;
	unsigned sets;
} l2_sets[] = {
	{ "Ascend910B1", 16384 }, { "Ascend910B2", 16384 }, { "Ascend910B3", 16384 }, { "Ascend910B2C", 16384 },
	{ "Ascend910B4", 8192 }, { "Ascend910B4-1", 14336 }, { "Ascend910_9381", 16384 },
	{ "Ascend910_9382", 16384 }, { "Ascend910_9391", 16384 }, { "Ascend910_9392", 16384 },
	{ "Ascend910_9362", 14336 }, { "Ascend910_9372", 16384 },
};

unsigned dbi_l2_sets(const char *soc)
{
	for (size_t i = 0; soc && i < sizeof l2_sets / sizeof l2_sets[0]; i++)
		if (!strcasecmp(soc, l2_sets[i].soc))
			return l2_sets[i].sets;
	return 16384;
}

void dbi_l2_init(struct dbi_l2 *c, unsigned sets, unsigned ways)
{
	memset(c, 0, sizeof *c);
	c->sets = sets;
	c->ways = ways;
	c->line = xcalloc((size_t)sets * ways, sizeof *c->line);
	c->used = xcalloc((size_t)sets * ways, sizeof *c->used);
	c->dirty = xcalloc((size_t)sets * ways, 1);
	c->set_hit = xcalloc(sets, sizeof *c->set_hit);
	c->set_miss = xcalloc(sets, sizeof *c->set_miss);
	c->pc = keytab_make(sizeof(struct dbi_l2_stat), 0);
	c->setpc = keytab_make2(sizeof(struct dbi_l2_setpc), 0);
}

void dbi_l2_free(struct dbi_l2 *c)
{
	free(c->line);
	free(c->used);
	free(c->dirty);
	free(c->set_hit);
	free(c->set_miss);
	keytab_free(&c->pc);
	keytab_free(&c->setpc);
	memset(c, 0, sizeof *c);
}

/* One line: a hit refreshes it; a miss allocates it (a load's line clean,
 * a store's dirty) in place of the set's empty or least recently used
 * way, writing that line back first when dirty. */
static void l2_line(struct dbi_l2 *c, uint64_t id, int store, uint64_t pc, struct dbi_l2_stat *st)
{
	unsigned set = (unsigned)(id % c->sets), w, victim = 0;
	size_t base = (size_t)set * c->ways;
	struct dbi_l2_setpc *sp = keytab_get2(&c->setpc, set, pc, NULL);
	c->clock++;
	for (w = 0; w < c->ways; w++)
		if (c->line[base + w] == id + 1) {
			st->hit++;
			c->set_hit[set]++;
			sp->hit++;
			c->used[base + w] = c->clock;
			if (store)
				c->dirty[base + w] = 1;
			return;
		}
	st->miss++;
	c->set_miss[set]++;
	sp->miss++;
	st->allocate++;
	for (w = 0; w < c->ways; w++) {
		if (!c->line[base + w]) {
			victim = w;
			break;
		}
		if (c->used[base + w] < c->used[base + victim])
			victim = w;
	}
	if (c->line[base + victim]) {
		if (c->dirty[base + victim])
			st->evict_write++;
		else
			st->evict_clean++;
	}
	c->line[base + victim] = id + 1;
	c->used[base + victim] = c->clock;
	c->dirty[base + victim] = (unsigned char)store;
}

static struct dbi_l2_stat l2_access(struct dbi_l2 *c, uint64_t addr, uint64_t len, uint64_t pc, int store)
{
	struct dbi_l2_stat st = { 0 }, *t;
	uint64_t first = addr / DBI_L2_LINE, last, id;
	/* The reference's last byte: addr + len - 1, or 0 when that wraps to 0. */
	uint64_t end = addr + len;
	last = (end == 0 ? 0 : end - 1) / DBI_L2_LINE;
	if (len && last >= first)
		for (id = first;; id++) {
			l2_line(c, id, store, pc, &st);
			if (id == last)
				break;
		}
	t = keytab_get(&c->pc, pc, NULL);
	t->hit += st.hit;
	t->miss += st.miss;
	t->allocate += st.allocate;
	t->evict_write += st.evict_write;
	t->evict_clean += st.evict_clean;
	return st;
}

struct dbi_l2_stat dbi_l2_load(struct dbi_l2 *c, uint64_t addr, uint64_t len, uint64_t pc)
{
	return l2_access(c, addr, len, pc, 0);
}

struct dbi_l2_stat dbi_l2_store(struct dbi_l2 *c, uint64_t addr, uint64_t len, uint64_t pc)
{
	return l2_access(c, addr, len, pc, 1);
}

int dbi_l2_record(struct dbi_l2 *c, const struct dbi_mem *m)
{
	if (m->src == DBI_GM)
		dbi_l2_load(c, m->src_addr, m->src_size, m->pc);
	else if (m->dst == DBI_GM)
		dbi_l2_store(c, m->dst_addr, m->dst_size, m->pc);
	else
		return -1;
	return 0;
}
