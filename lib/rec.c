#include "rec.h"

#include "scan.h"
#include "text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__GNUC__) && defined(__x86_64__)
#include <immintrin.h>
#endif

#include "json.h"
#include "mem.h"

static const struct rec_schema schemas[] = {
	{ K_HEADER, "header", H_NNUM, HS_NSTR,
	  { { "version", RT_U32 }, { "mhz", RT_U32 } },
	  { "producer", "soc", "origin" } },
	{ K_TRAILER, "trailer", T_NNUM, TS_NSTR,
	  { { "records", RT_U64 }, { "bad", RT_U64 }, { "dropped", RT_U64 },
	    { "interrupted", RT_U32 } },
	  { "producer" } },
	{ K_SOURCE, "source", F_NNUM, FS_NSTR,
	  { { "file", RT_U32 }, { "core", RT_U32 }, { "sub", RT_SUB }, { "subidx", RT_U32 },
	    { "log", RT_LOG }, { "part", RT_U32 } },
	  { "path" } },
	{ K_LINE, "line", L_NNUM, LS_NSTR,
	  { { "file", RT_U32 }, { "core", RT_U32 }, { "sub", RT_SUB }, { "subidx", RT_U32 },
	    { "log", RT_LOG }, { "line", RT_U64 } },
	  { "text" } },
	{ K_INSTR, "instr", I_NNUM, IS_NSTR,
	  { { "core", RT_U32 }, { "sub", RT_SUB }, { "subidx", RT_U32 },
	    { "block", RT_I32 }, { "subblock", RT_I32 },
	    { "start", RT_U64 }, { "end", RT_U64 }, { "pc", RT_HEX }, { "id", RT_U64 },
	    { "warp", RT_I32 }, { "sch", RT_I32 }, { "threads", RT_I32 }, { "gpr", RT_I32 },
	    { "bytes", RT_I64 }, { "vec_util", RT_F64 }, { "ub_read", RT_I32 },
	    { "ub_write", RT_I32 }, { "icache_tick", RT_U64 }, { "ccu_tick", RT_U64 },
	    { "sync", RT_SYNC } },
	  { "pipe", "name", "detail", "prod", "cons", "flag" } },
	{ K_MARK, "mark", M_NNUM, MS_NSTR,
	  { { "core", RT_U32 }, { "sub", RT_SUB }, { "subidx", RT_U32 },
	    { "block", RT_I32 }, { "subblock", RT_I32 }, { "mark", RT_U32 },
	    { "start", RT_U64 }, { "end", RT_U64 }, { "start_pc", RT_HEX }, { "end_pc", RT_HEX } },
	  { "name", "detail" } },
	{ K_DIAG, "diag", D_NNUM, DS_NSTR,
	  { { "level", RT_U32 }, { "count", RT_U64 }, { "line", RT_U64 } },
	  { "tool", "file", "message" } },
	{ K_FETCH, "fetch", S_NNUM, 0,
	  { { "core", RT_U32 }, { "sub", RT_SUB }, { "subidx", RT_U32 }, { "tick", RT_U64 },
	    { "pc", RT_HEX } },
	  { NULL } },
	{ K_MTEXFER, "mte_xfer", X_NNUM, 0,
	  { { "core", RT_U32 }, { "instr_id", RT_U64 }, { "req_id", RT_U64 }, { "path", RT_U32 },
	    { "bytes", RT_U64 }, { "tick", RT_U64 } },
	  { NULL } },
	{ K_CODE, "code", C_NNUM, CS_NSTR,
	  { { "pc", RT_HEX }, { "offset", RT_HEX } },
	  { "stack", "kinds", "func" } },
	{ K_LAUNCH, "launch", N_NNUM, NS_NSTR,
	  { { "pid", RT_U32 }, { "tid", RT_U32 }, { "launch", RT_U64 }, { "order", RT_I32 },
	    { "block_dim", RT_U32 }, { "tiling_key", RT_HEX }, { "pc_start", RT_HEX },
	    { "begin_ns", RT_U64 }, { "end_ns", RT_U64 } },
	  { "name", "api", "soc", "dir" } },
	{ K_API, "api", A_NNUM, AS_NSTR,
	  { { "pid", RT_U32 }, { "tid", RT_U32 }, { "begin_ns", RT_U64 }, { "end_ns", RT_U64 },
	    { "ret", RT_I64 }, { "arg0", RT_HEX }, { "arg1", RT_HEX }, { "arg2", RT_HEX } },
	  { "name", "args" } },
	{ K_MTEBW, "mte_bw", W_NNUM, 0,
	  { { "bucket_us", RT_U64 }, { "GM_TO_UB", RT_F64 }, { "GM_TO_L1", RT_F64 },
	    { "GM_TO_TOTAL", RT_F64 }, { "UB_TO_GM", RT_F64 }, { "L1_TO_GM", RT_F64 },
	    { "TOTAL_TO_GM", RT_F64 } },
	  { NULL } },
	{ K_PMU, "pmu", P_NNUM, 0,
	  { { "file", RT_U32 }, { "index", RT_U64 }, { "core", RT_U32 }, { "core_id", RT_U32 },
	    { "block", RT_U32 }, { "subblock", RT_U32 }, { "stream", RT_U32 }, { "task", RT_U32 },
	    { "cycles", RT_U64 }, { "start", RT_U64 }, { "end", RT_U64 }, { "nslots", RT_U32 },
	    { "event0", RT_U32 }, { "event1", RT_U32 }, { "event2", RT_U32 }, { "event3", RT_U32 },
	    { "event4", RT_U32 }, { "event5", RT_U32 }, { "event6", RT_U32 }, { "event7", RT_U32 },
	    { "event8", RT_U32 }, { "event9", RT_U32 },
	    { "count0", RT_U64 }, { "count1", RT_U64 }, { "count2", RT_U64 }, { "count3", RT_U64 },
	    { "count4", RT_U64 }, { "count5", RT_U64 }, { "count6", RT_U64 }, { "count7", RT_U64 },
	    { "count8", RT_U64 }, { "count9", RT_U64 } },
	  { NULL } },
	{ K_STAMP, "stamp", U_NNUM, 0,
	  { { "index", RT_U64 }, { "edge", RT_U32 }, { "func", RT_U32 }, { "task_type", RT_U32 },
	    { "stream", RT_U32 }, { "task", RT_U32 }, { "time", RT_U64 } },
	  { NULL } },
	{ K_L2, "l2", G_NNUM, 0,
	  { { "event0", RT_U32 }, { "event1", RT_U32 }, { "event2", RT_U32 }, { "event3", RT_U32 },
	    { "event4", RT_U32 }, { "event5", RT_U32 }, { "event6", RT_U32 }, { "event7", RT_U32 },
	    { "count0", RT_U64 }, { "count1", RT_U64 }, { "count2", RT_U64 }, { "count3", RT_U64 },
	    { "count4", RT_U64 }, { "count5", RT_U64 }, { "count6", RT_U64 }, { "count7", RT_U64 } },
	  { NULL } },
	{ K_BASIC, "basic", B_NNUM, BS_NSTR,
	  { { "block_dim", RT_U64 }, { "device_id", RT_U32 }, { "cur_freq", RT_I64 },
	    { "rated_freq", RT_I64 }, { "mc2", RT_U32 }, { "lccl", RT_U32 }, { "simt", RT_U32 },
	    { "have", RT_U32 } },
	  { "op_name", "soc", "pid", "cur_freq_text", "rated_freq_text", "block_dim_text", "device_id_text" } },
};

static const struct rec_schema *by_kind[256];

/* Once, on first use: out of the way of the look-ups (inlined, its
 * unrolled stores were paid for on every call). */
__attribute__((noinline, cold)) static void index_schemas(void)
{
	size_t i;
	for (i = 0; i < sizeof schemas / sizeof schemas[0]; i++)
		by_kind[(unsigned char)schemas[i].kind] = &schemas[i];
}

const struct rec_schema *rec_schema(int kind)
{
	const struct rec_schema *s = by_kind[(unsigned char)kind];
	if (s || by_kind[K_HEADER])
		return s;
	index_schemas();
	return by_kind[(unsigned char)kind];
}

static const char *const log_names[LOG_NKINDS] = {
	"instr", "popped", "icache", "ccu", "mte", "reg", "other"
};
static const char *const sub_names[] = { "", "veccore", "cubecore", "mixcore" };
static const char *const sync_names[SYNC_NKINDS] = {
	"", "set", "wait", "set_intra", "wait_intra", "bar"
};

const char *rec_sync_name(int sync)
{
	return sync >= 0 && sync < SYNC_NKINDS ? sync_names[sync] : "";
}

int rec_sync_parse(const char *s, size_t n)
{
	int i;
	for (i = 0; i < SYNC_NKINDS; i++)
		if (strlen(sync_names[i]) == n && !memcmp(sync_names[i], s, n))
			return i;
	return -1;
}

const char *rec_log_name(int log)
{
	return log >= 0 && log < LOG_NKINDS ? log_names[log] : "other";
}

int rec_log_parse(const char *s, size_t n)
{
	int i;
	for (i = 0; i < LOG_NKINDS; i++)
		if (strlen(log_names[i]) == n && !memcmp(log_names[i], s, n))
			return i;
	return -1;
}

const char *rec_sub_name(int subtype)
{
	return subtype >= 0 && subtype <= SUB_MIX ? sub_names[subtype] : "";
}

static int sub_parse(const char *s, size_t n)
{
	int i;
	for (i = 0; i <= SUB_MIX; i++)
		if (strlen(sub_names[i]) == n && !memcmp(sub_names[i], s, n))
			return i;
	return -1;
}

char *rec_core_name(char *buf, uint64_t core, uint64_t subtype, uint64_t subidx)
{
	if (subtype == SUB_NONE || subtype > SUB_MIX)
		snprintf(buf, 48, "core%llu", (unsigned long long)core);
	else
		snprintf(buf, 48, "core%llu.%s%llu", (unsigned long long)core,
		         sub_names[subtype], (unsigned long long)subidx);
	return buf;
}

void rec_init(struct rec *r, int kind)
{
	int i;
	r->sc = rec_schema(kind);
	for (i = 0; i < r->sc->nnum; i++)
		r->n[i].u = (r->sc->num[i].type == RT_HEX) ? REC_NONE : 0;
	for (i = 0; i < r->sc->nstr; i++) {
		r->s[i].p = "";
		r->s[i].n = 0;
	}
}

static int width(enum rec_type t)
{
	return (t == RT_U32 || t == RT_I32 || t == RT_SUB || t == RT_LOG || t == RT_SYNC) ? 4 : 8;
}

/* ---- binary ---- */

/* Field widths and the numeric part's width of each kind, worked out on
 * first use (the encoder's per-record loop over types costs more). */
static unsigned char kind_widths[256][REC_MAXNUM];
static int kind_nwidth[256];        /* + 1; 0 = not worked out yet */

static const unsigned char *widths_of(const struct rec_schema *sc)
{
	unsigned char k = (unsigned char)sc->kind;
	if (!kind_nwidth[k]) {
		int i, n = 0;
		for (i = 0; i < sc->nnum; i++)
			n += kind_widths[k][i] = (unsigned char)width(sc->num[i].type);
		kind_nwidth[k] = n + 1;
	}
	return kind_widths[k];
}

/* Bytes of the numeric part of a kind, before escaping. */
static int numeric_width(const struct rec_schema *sc)
{
	widths_of(sc);
	return kind_nwidth[(unsigned char)sc->kind] - 1;
}

/* Does [p, p + n) hold an LF or an ESC?  One pass, sixteen bytes a step
 * where SSE2 is there (x86-64 always), else two memchr calls. */
static int has_lf_esc(const char *p, size_t n)
{
#ifdef __SSE2__
	const __m128i lf = _mm_set1_epi8('\n'), esc = _mm_set1_epi8(REC_ESC);
#define LF_ESC_16(q) _mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(q)), lf), \
                                                    _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(q)), esc)))
	if (n >= 16) {
		/* Thirty-two bytes a round, then the last sixteen (overlapping
		 * what was already seen when n is not a multiple of sixteen). */
		const char *last = p + n - 16;
		for (; p + 32 <= last; p += 32)
			if (LF_ESC_16(p) | LF_ESC_16(p + 16))
				return 1;
		for (; p < last; p += 16)
			if (LF_ESC_16(p))
				return 1;
		return LF_ESC_16(last) != 0;
	}
#undef LF_ESC_16
	while (n--) {
		if (*p == '\n' || *p == REC_ESC)
			return 1;
		p++;
	}
	return 0;
#else
	return memchr(p, '\n', n) || memchr(p, REC_ESC, n);
#endif
}

size_t rec_bin_size(const struct rec *r)
{
	/* Worst case: every byte escaped. */
	size_t n = (size_t)numeric_width(r->sc) + 4 * (size_t)r->sc->nstr;
	int i;
	for (i = 0; i < r->sc->nstr; i++)
		n += r->s[i].n;
	return 2 * n + 10;   /* + slack for put_raw's 8-byte stores */
}

static struct rec_layout layouts[256];

/* Lay the record out unescaped from o (after the kind); returns its end. */
static char *put_raw(char *o, const struct rec *r)
{
	const struct rec_schema *sc = r->sc;
	const struct rec_layout *l = &layouts[(unsigned char)sc->kind];
	int i;

	if (!l->sc)
		l = rec_layout(sc->kind);
	/* Each number at its offset in the layout, so that the stores do not
	 * wait on one another.  All eight bytes are stored: on a
	 * little-endian host the low four come first, the next number
	 * overwrites the rest, and the caller's buffer has room to spare
	 * (rec_bin_size). */
	o--;            /* the offsets count from the kind byte */
	for (i = 0; i < sc->nnum; i++)
		memcpy(o + l->off[i], &r->n[i].u, 8);
	o += l->texts;
	for (i = 0; i < sc->nstr; i++) {
		uint32_t n = (uint32_t)r->s[i].n;
		memcpy(o, &n, 4);
		if (n)          /* the sync fields of most instruction records are empty */
			memcpy(o + 4, r->s[i].p, n);
		o += 4 + n;
	}
	return o;
}

size_t rec_bin_encode(char *buf, const struct rec *r)
{
	size_t half = rec_bin_size(r) / 2, len;
	char *body = buf + 1, *end;

	buf[0] = r->sc->kind;
	/* Most records need no escape: lay them out once, check, done.
	 * Otherwise move them to the upper half of the buffer (it has room
	 * for the worst case) and copy down with escapes; the copy stays
	 * below what it reads. */
	end = put_raw(body, r);
	len = (size_t)(end - body);
	if (!has_lf_esc(body, len)) {
		*end = '\n';
		return len + 2;
	}
	{
		char *raw = buf + half + 1, *rend = raw + len, *o = body;
		const char *p = raw;
#ifdef __SSE2__
		const __m128i lf = _mm_set1_epi8('\n'), esc = _mm_set1_epi8(REC_ESC);
#endif
		memcpy(raw, body, len);
		while (p < rend) {
			unsigned char c;
#ifdef __SSE2__
			/* Sixteen bytes at a time up to the next one to escape. */
			if (rend - p >= 16) {
				__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
				unsigned m = (unsigned)_mm_movemask_epi8(
					_mm_or_si128(_mm_cmpeq_epi8(x, lf), _mm_cmpeq_epi8(x, esc)));
				_mm_storeu_si128((__m128i *)(void *)o, x);
				if (!m) {
					o += 16;
					p += 16;
					continue;
				}
				o += __builtin_ctz(m);
				p += __builtin_ctz(m);
			}
#endif
			c = (unsigned char)*p++;
			if (c == '\n' || c == REC_ESC) {
				*o++ = (char)REC_ESC;
				*o++ = (char)(c ^ 0x40);
			} else {
				*o++ = (char)c;
			}
		}
		*o++ = '\n';
		return (size_t)(o - buf);
	}
}

/* Copies the escaped record [p, end) into d->scratch without its escapes;
 * q is its first ESC.  Returns the end of the copy, NULL on a bad escape or
 * no memory (*why says which). */
static const unsigned char *unescape(struct rec_dec *d, const unsigned char *p, const unsigned char *end,
                                     const unsigned char *q, const char **why)
{
	unsigned char *o;
	size_t len = (size_t)(end - p);

	if (d->cap < len) {
		char *nb = realloc(d->scratch, len + 64);
		if (!nb) {
			*why = "out of memory";
			return NULL;
		}
		d->scratch = nb;
		d->cap = len + 64;
	}
	o = (unsigned char *)d->scratch;
	/* Runs between escapes go across whole; escapes are rare bytes. */
	do {
		size_t k = (size_t)(q - p);
		memcpy(o, p, k);
		o += k;
		if (q + 1 >= end || (q[1] != ('\n' ^ 0x40) && q[1] != (REC_ESC ^ 0x40))) {
			*why = "bad escape";
			return NULL;
		}
		*o++ = q[1] ^ 0x40;
		p = q + 2;
	} while (p < end && (q = memchr(p, REC_ESC, (size_t)(end - p))));
	memcpy(o, p, (size_t)(end - p));
	return o + (end - p);
}

static int decode_bin(struct rec_dec *d, const char *line, size_t len, struct rec *r,
                      const char **why)
{
	const struct rec_schema *sc = rec_schema((unsigned char)line[0]);
	const unsigned char *p, *end, *wd, *q;
	int i;

	if (!sc)
		return DEC_UNKNOWN;
	r->sc = sc;
	p = (const unsigned char *)line + 1;
	end = (const unsigned char *)line + len;
	if ((q = memchr(p, REC_ESC, (size_t)(end - p)))) {
		if (!(end = unescape(d, p, end, q, why)))
			return DEC_BAD;
		p = (const unsigned char *)d->scratch;
	}
	wd = widths_of(sc);
	if (end - p < numeric_width(sc)) {
		*why = "record too short";
		return DEC_BAD;
	}
	/* Little-endian hosts only (checked at build time). */
	for (i = 0; i < sc->nnum; i++) {
		if (wd[i] == 8) {
			memcpy(&r->n[i].u, p, 8);
			p += 8;
		} else {
			uint32_t x;
			memcpy(&x, p, 4);
			p += 4;
			if (sc->num[i].type == RT_I32)
				r->n[i].i = (int32_t)x;
			else
				r->n[i].u = x;
		}
	}
	for (i = 0; i < sc->nstr; i++) {
		uint32_t n;
		if (end - p < 4) {
			*why = "record too short";
			return DEC_BAD;
		}
		memcpy(&n, p, 4);
		p += 4;
		if ((uint64_t)(end - p) < n) {
			*why = "text field runs past the end of the record";
			return DEC_BAD;
		}
		r->s[i].p = (const char *)p;
		r->s[i].n = n;
		p += n;
	}
	if (p != end) {
		*why = "trailing bytes after the last field";
		return DEC_BAD;
	}
	return DEC_OK;
}

/* ---- JSON ---- */

static const char hexd[] = "0123456789abcdef";

/* Valid UTF-8 passes through; any other byte >= 0x80 becomes \udcXX (the
 * "surrogate escape" convention), so every byte value survives a round trip
 * while ordinary text stays readable in jq. */
static size_t utf8_seq(const unsigned char *p, size_t n)
{
	unsigned char c = p[0];
	size_t need, i;
	uint32_t cp;
	if (c < 0xc2 || c > 0xf4)
		return 0;
	need = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (n < need)
		return 0;
	for (i = 1; i < need; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	cp = need == 2 ? (uint32_t)(c & 0x1f) : need == 3 ? (uint32_t)(c & 0x0f) : (uint32_t)(c & 0x07);
	for (i = 1; i < need; i++)
		cp = (cp << 6) | (p[i] & 0x3f);
	if ((need == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (need == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return need;
}

static void json_str(struct wr *w, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	char *o = wr_reserve(w, 6 * n + 2);
	char *start = o;

	*o++ = '"';
	while (i < n) {
		unsigned char c = p[i];
		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			*o++ = (char)c;
			i++;
		} else if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			*o++ = '\\';
			*o++ = 'u';
			*o++ = '0';
			*o++ = '0';
			*o++ = hexd[c >> 4];
			*o++ = hexd[c & 15];
			i++;
		} else {
			size_t k = utf8_seq(p + i, n - i);
			if (k) {
				memcpy(o, p + i, k);
				o += k;
				i += k;
			} else {
				memcpy(o, "\\udc", 4);
				o += 4;
				*o++ = hexd[c >> 4];
				*o++ = hexd[c & 15];
				i++;
			}
		}
	}
	*o++ = '"';
	wr_commit(w, (size_t)(o - start));
}

/* ,"name": */
static char *put_key(char *o, const char *name)
{
	size_t n = strlen(name);
	*o++ = ',';
	*o++ = '"';
	memcpy(o, name, n);
	o += n;
	*o++ = '"';
	*o++ = ':';
	return o;
}

static char *put_quoted(char *o, const char *s)
{
	size_t n = strlen(s);
	*o++ = '"';
	memcpy(o, s, n);
	o += n;
	*o++ = '"';
	return o;
}

/* One numeric field as JSON: at most 24 + DBL_TEXT_MAX bytes. */
static char *put_num(char *o, enum rec_type t, union rec_num x)
{
	uint64_t v = x.u;
	switch (t) {
	case RT_U32:
	case RT_U64:
		return v == REC_NONE ? jw_raw(o, "null", 4) : jw_uint(o, v);
	case RT_I32:
	case RT_I64:
		return jw_int(o, x.i);
	case RT_F64:
		if (isinf(x.f))
			/* JSON has no infinity; a number too large for a double
			 * reads back as one in strtod (and in jq, as the largest
			 * double). */
			return x.f > 0 ? jw_raw(o, "1e999", 5) : jw_raw(o, "-1e999", 6);
		if (isnan(x.f) && v != REC_NONE) {
			/* A NaN other than the all-ones "none" keeps its bits as
			 * a hex string, so binary -> JSON -> binary is exact. */
			int i;
			memcpy(o, "\"0x", 3);
			for (i = 15; i >= 0; i--)
				o[3 + 15 - i] = hexd[(v >> (4 * i)) & 15];
			o[19] = '"';
			return o + 20;
		}
		/* NaN is null. */
		return o + dbl_shortest(o, x.f);
	case RT_HEX:
		if (v == REC_NONE)
			return jw_raw(o, "null", 4);
		*o++ = '"';
		o = jw_hex(o, v);
		*o++ = '"';
		return o;
	case RT_SUB:
		return v <= SUB_MIX ? put_quoted(o, sub_names[v]) : jw_uint(o, v);
	case RT_LOG:
		return v < LOG_NKINDS ? put_quoted(o, log_names[v]) : jw_uint(o, v);
	case RT_SYNC:
		return v < SYNC_NKINDS ? put_quoted(o, sync_names[v]) : jw_uint(o, v);
	}
	return o;
}

static void put_json(struct wr *w, const struct rec *r)
{
	const struct rec_schema *sc = r->sc;
	size_t room = 16 + strlen(sc->name);
	char *o, *start;
	int i;

	for (i = 0; i < sc->nnum; i++)
		room += strlen(sc->num[i].name) + 4 + 24 + DBL_TEXT_MAX;
	start = o = wr_reserve(w, room);
	o = jw_raw(o, "{\"kind\":", 8);
	o = put_quoted(o, sc->name);
	for (i = 0; i < sc->nnum; i++)
		o = put_num(put_key(o, sc->num[i].name), sc->num[i].type, r->n[i]);
	wr_commit(w, (size_t)(o - start));
	for (i = 0; i < sc->nstr; i++) {
		char key[64];  /* a schema name, short */
		wr_put(w, key, (size_t)(put_key(key, sc->str[i]) - key));
		json_str(w, r->s[i].p, r->s[i].n);
	}
	wr_puts(w, "}\n");
}

/* A small parser for the flat objects put_json writes (and jq passes on). */
struct jp {
	const char *p, *end;
	char *out;          /* where the next decoded string goes */
};

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\r' || *j->p == '\n'))
		j->p++;
}

/* Parse a string at j->p (after the opening quote has NOT been consumed). */
static int jstr(struct jp *j, struct rec_text *t)
{
	size_t used, n;
	if (j->p >= j->end || *j->p != '"')
		return -1;
	j->p++;
	n = jstr_unescape(j->p, (size_t)(j->end - j->p), j->out, JSTR_RAWBYTE | JSTR_STRICT, &used);
	if (n == (size_t)-1 || used == (size_t)(j->end - j->p))
		return -1;      /* a bad escape, or no closing quote */
	j->p += used + 1;
	t->p = j->out;
	t->n = n;
	j->out += n;
	return 0;
}

static int decode_json(struct rec_dec *d, const char *line, size_t len, struct rec *r,
                       const char **why)
{
	struct jp j;
	struct rec_text key, val;
	const struct rec_schema *sc = NULL;
	/* Fields may come in any order; kind may not be first after jq. */
	const char *fields_start;
	int pass;

	if (d->cap < len + 16) {
		char *nb = realloc(d->scratch, len + 64);
		if (!nb) {
			*why = "out of memory";
			return DEC_BAD;
		}
		d->scratch = nb;
		d->cap = len + 64;
	}
	for (pass = 0; pass < 2; pass++) {
		j.p = line;
		j.end = line + len;
		j.out = d->scratch;
		skip_ws(&j);
		if (j.p >= j.end || *j.p != '{') {
			*why = "not a JSON object";
			return DEC_BAD;
		}
		j.p++;
		fields_start = j.p;
		(void)fields_start;
		if (pass == 1)
			rec_init(r, sc->kind);
		for (;;) {
			int i, found = 0;
			skip_ws(&j);
			if (j.p < j.end && *j.p == '}')
				break;
			if (jstr(&j, &key)) {
				*why = "bad JSON key";
				return DEC_BAD;
			}
			skip_ws(&j);
			if (j.p >= j.end || *j.p != ':') {
				*why = "expected ':' in JSON";
				return DEC_BAD;
			}
			j.p++;
			skip_ws(&j);
			if (j.p < j.end && *j.p == '"') {
				if (jstr(&j, &val)) {
					*why = "bad JSON string";
					return DEC_BAD;
				}
				if (pass == 0 && key.n == 4 && !memcmp(key.p, "kind", 4)) {
					size_t k;
					for (k = 0; k < sizeof schemas / sizeof schemas[0]; k++)
						if (strlen(schemas[k].name) == val.n &&
						    !memcmp(schemas[k].name, val.p, val.n))
							sc = &schemas[k];
					if (!sc)
						return DEC_UNKNOWN;
				}
				if (pass == 1) {
					for (i = 0; i < sc->nstr && !found; i++)
						if (strlen(sc->str[i]) == key.n && !memcmp(sc->str[i], key.p, key.n)) {
							r->s[i] = val;
							found = 1;
						}
					for (i = 0; i < sc->nnum && !found; i++) {
						enum rec_type t = sc->num[i].type;
						if (strlen(sc->num[i].name) != key.n || memcmp(sc->num[i].name, key.p, key.n))
							continue;
						found = 1;
						if (t == RT_HEX || t == RT_F64) {
							uint64_t x = 0;
							size_t k;
							if (val.n < 3 || val.n > 18 || val.p[0] != '0' || (val.p[1] | 0x20) != 'x') {
								*why = "bad hex value in JSON";
								return DEC_BAD;
							}
							for (k = 2; k < val.n; k++) {
								int h = hexval((unsigned char)val.p[k]);
								if (h < 0) {
									*why = "bad hex value in JSON";
									return DEC_BAD;
								}
								x = x << 4 | (unsigned)h;
							}
							r->n[i].u = x;
						} else if (t == RT_SUB) {
							int v = sub_parse(val.p, val.n);
							if (v < 0) {
								*why = "unknown sub-core type in JSON";
								return DEC_BAD;
							}
							r->n[i].u = (uint64_t)v;
						} else if (t == RT_LOG) {
							int v = rec_log_parse(val.p, val.n);
							if (v < 0) {
								*why = "unknown log kind in JSON";
								return DEC_BAD;
							}
							r->n[i].u = (uint64_t)v;
						} else if (t == RT_SYNC) {
							int v = rec_sync_parse(val.p, val.n);
							if (v < 0) {
								*why = "unknown sync kind in JSON";
								return DEC_BAD;
							}
							r->n[i].u = (uint64_t)v;
						} else {
							*why = "string where a number was expected in JSON";
							return DEC_BAD;
						}
					}
				}
			} else {
				/* number, null, true, false */
				const char *v = j.p;
				while (j.p < j.end && *j.p != ',' && *j.p != '}' && *j.p != ' ' &&
				       *j.p != '\t' && *j.p != '\r' && *j.p != '\n')
					j.p++;
				if (pass == 1) {
					char tmp[64];
					size_t n = (size_t)(j.p - v);
					if (n == 0 || n >= sizeof tmp) {
						*why = "bad JSON value";
						return DEC_BAD;
					}
					memcpy(tmp, v, n);
					tmp[n] = 0;
					for (i = 0; i < sc->nstr; i++)
						if (strlen(sc->str[i]) == key.n && !memcmp(sc->str[i], key.p, key.n)) {
							*why = "number where a string was expected in JSON";
							return DEC_BAD;
						}
					for (i = 0; i < sc->nnum; i++) {
						enum rec_type t = sc->num[i].type;
						char *e;
						if (strlen(sc->num[i].name) != key.n || memcmp(sc->num[i].name, key.p, key.n))
							continue;
						errno = 0;
						if (!strcmp(tmp, "null")) {
							r->n[i].u = REC_NONE;
						} else if (t == RT_F64) {
							/* Out of range means infinity here (see put_num). */
							r->n[i].f = strtod(tmp, &e);
							if (*e) {
								*why = "bad JSON number";
								return DEC_BAD;
							}
						} else if (t == RT_I32 || t == RT_I64) {
							r->n[i].i = strtoll(tmp, &e, 10);
							if (*e || errno == ERANGE) {
								*why = errno == ERANGE ? "JSON number out of range" : "bad JSON number";
								return DEC_BAD;
							}
						} else {
							r->n[i].u = strtoull(tmp, &e, 10);
							if (*e || tmp[0] == '-' || errno == ERANGE) {
								*why = errno == ERANGE ? "JSON number out of range" : "bad JSON number";
								return DEC_BAD;
							}
						}
						if (t == RT_U32 || t == RT_SUB || t == RT_LOG || t == RT_SYNC) {
							if (r->n[i].u > 0xffffffffu) {
								*why = "JSON number out of range";
								return DEC_BAD;
							}
						} else if (t == RT_I32 && (r->n[i].i > INT32_MAX || r->n[i].i < INT32_MIN)) {
							*why = "JSON number out of range";
							return DEC_BAD;
						}
						break;
					}
				}
			}
			skip_ws(&j);
			if (j.p < j.end && *j.p == ',') {
				j.p++;
				continue;
			}
			if (j.p < j.end && *j.p == '}')
				break;
			*why = "expected ',' or '}' in JSON";
			return DEC_BAD;
		}
		if (!sc) {
			*why = "JSON object without \"kind\"";
			return DEC_BAD;
		}
		j.p++;
		skip_ws(&j);
		if (j.p != j.end) {
			*why = "text after the JSON object";
			return DEC_BAD;
		}
	}
	return DEC_OK;
}

int rec_decode(struct rec_dec *d, const char *line, size_t len, struct rec *r, const char **why)
{
	*why = NULL;
	if (len == 0) {
		*why = "empty line";
		return DEC_BAD;
	}
	{
		/* JSON, possibly indented; anything else is a binary kind. */
		size_t i = 0;
		while (i < len && (line[i] == ' ' || line[i] == '\t'))
			i++;
		if (i < len && line[i] == '{')
			return decode_json(d, line, len, r, why);
		if (i == len && line[0] == ' ') {
			*why = "blank line";
			return DEC_BAD;
		}
	}
	return decode_bin(d, line, len, r, why);
}

void rec_dec_free(struct rec_dec *d)
{
	free(d->scratch);
	d->scratch = NULL;
	d->cap = 0;
}

/* ---- readable text ---- */

static void text_str(struct wr *w, const char *s, size_t n)
{
	/* Control bytes would garble a terminal: show them as \xNN. */
	size_t i;
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f)
			wr_printf(w, "\\x%02x", c);
		else
			wr_putc(w, c);
	}
}

static void put_text(struct wr *w, const struct rec *r)
{
	const struct rec_schema *sc = r->sc;
	char core[48];
	int i;

	switch (sc->kind) {
	case K_INSTR:
		rec_core_name(core, r->n[I_CORE].u, r->n[I_SUBTYPE].u, r->n[I_SUBIDX].u);
		wr_printf(w, "%-15s [%llu, %llu] 0x%llx ", core,
		          (unsigned long long)r->n[I_START].u, (unsigned long long)r->n[I_END].u,
		          (unsigned long long)r->n[I_PC].u);
		text_str(w, r->s[IS_PIPE].p, r->s[IS_PIPE].n);
		wr_printf(w, "%*s", r->s[IS_PIPE].n < 8 ? (int)(8 - r->s[IS_PIPE].n) + 1 : 1, "");
		text_str(w, r->s[IS_NAME].p, r->s[IS_NAME].n);
		wr_putc(w, ' ');
		text_str(w, r->s[IS_DETAIL].p, r->s[IS_DETAIL].n);
		if (r->n[I_BYTES].i > 0)
			wr_printf(w, " bytes=%lld", (long long)r->n[I_BYTES].i);
		if (r->n[I_VECUTIL].f >= 0)
			wr_printf(w, " vec_util=%.6f%%", r->n[I_VECUTIL].f);
		if (r->n[I_UBREAD].i >= 0)
			wr_printf(w, " ub_conflict=%lld/%lld", (long long)r->n[I_UBREAD].i,
			          (long long)r->n[I_UBWRITE].i);
		if (r->n[I_GPR].i >= 0)
			wr_printf(w, " gpr=%lld", (long long)r->n[I_GPR].i);
		wr_putc(w, '\n');
		return;
	case K_MARK:
		rec_core_name(core, r->n[M_CORE].u, r->n[M_SUBTYPE].u, r->n[M_SUBIDX].u);
		wr_printf(w, "%-15s ", core);
		text_str(w, r->s[MS_NAME].p, r->s[MS_NAME].n);
		wr_printf(w, " [%llu, %llu] pc 0x%llx..0x%llx\n", (unsigned long long)r->n[M_START].u,
		          (unsigned long long)r->n[M_END].u, (unsigned long long)r->n[M_STARTPC].u,
		          (unsigned long long)r->n[M_ENDPC].u);
		return;
	case K_LINE:
		rec_core_name(core, r->n[L_CORE].u, r->n[L_SUBTYPE].u, r->n[L_SUBIDX].u);
		wr_printf(w, "%s %s:%llu ", core, rec_log_name((int)r->n[L_LOG].u),
		          (unsigned long long)r->n[L_LINE].u);
		text_str(w, r->s[LS_TEXT].p, r->s[LS_TEXT].n);
		wr_putc(w, '\n');
		return;
	}
	wr_puts(w, sc->name);
	for (i = 0; i < sc->nnum; i++) {
		uint64_t v = r->n[i].u;
		wr_printf(w, " %s=", sc->num[i].name);
		switch (sc->num[i].type) {
		case RT_I32:
		case RT_I64: wr_printf(w, "%lld", (long long)r->n[i].i); break;
		case RT_F64: wr_printf(w, "%g", r->n[i].f); break;
		case RT_HEX: wr_printf(w, "0x%llx", (unsigned long long)v); break;
		case RT_SUB: wr_puts(w, rec_sub_name((int)v)); break;
		case RT_LOG: wr_puts(w, rec_log_name((int)v)); break;
		case RT_SYNC: wr_puts(w, rec_sync_name((int)v)); break;
		default: wr_printf(w, "%llu", (unsigned long long)v); break;
		}
	}
	for (i = 0; i < sc->nstr; i++) {
		wr_printf(w, " %s=", sc->str[i]);
		text_str(w, r->s[i].p, r->s[i].n);
	}
	wr_putc(w, '\n');
}

void rec_put(struct wr *w, enum rec_mode mode, const struct rec *r)
{
	switch (mode) {
	case REC_BIN: {
		char *p = wr_reserve(w, rec_bin_size(r));
		wr_commit(w, rec_bin_encode(p, r));
		break;
	}
	case REC_JSON:
		put_json(w, r);
		break;
	case REC_TEXT:
		put_text(w, r);
		break;
	}
}

/* ---- the output side of a tool ---- */

void rec_out_header(struct rec_out *o, const char *soc, unsigned mhz, const char *origin)
{
	struct rec r;
	rec_init(&r, K_HEADER);
	r.n[H_VERSION].u = REC_VERSION;
	r.n[H_MHZ].u = mhz;
	rec_text_set(&r, HS_PRODUCER, o->producer, strlen(o->producer));
	rec_text_set(&r, HS_SOC, soc ? soc : "", soc ? strlen(soc) : 0);
	rec_text_set(&r, HS_ORIGIN, origin ? origin : "", origin ? strlen(origin) : 0);
	if (o->mode != REC_TEXT)
		rec_put(o->w, o->mode, &r);
}

void rec_out_put(struct rec_out *o, const struct rec *r)
{
	rec_put(o->w, o->mode, r);
	o->records++;
}

void rec_out_raw(struct rec_out *o, const char *line, size_t len)
{
	if (o->mode == REC_TEXT) {
		/* A terminal gets the bytes made visible, never raw. */
		wr_puts(o->w, "unknown ");
		text_str(o->w, line, len);
	} else {
		wr_put(o->w, line, len);
	}
	wr_putc(o->w, '\n');
	o->records++;
}

void rec_out_trailer(struct rec_out *o, uint64_t bad, uint64_t dropped, int interrupted)
{
	struct rec r;
	rec_init(&r, K_TRAILER);
	r.n[T_RECORDS].u = o->records;
	r.n[T_BAD].u = bad;
	r.n[T_DROPPED].u = dropped;
	r.n[T_INTERRUPTED].u = (uint64_t)(interrupted != 0);
	rec_text_set(&r, TS_PRODUCER, o->producer, strlen(o->producer));
	if (o->mode != REC_TEXT)
		rec_put(o->w, o->mode, &r);
}

/* ---- binary records where they lie (rec_layout, rec_view, rec_block) ---- */

const struct rec_layout *rec_layout(int kind)
{
	const struct rec_schema *sc = rec_schema(kind);
	struct rec_layout *l;
	const unsigned char *w;
	uint32_t pos = 1;
	int i;

	if (!sc)
		return NULL;
	l = &layouts[(unsigned char)kind];
	if (l->sc)
		return l;
	w = widths_of(sc);
	for (i = 0; i < sc->nnum; i++) {
		l->off[i] = pos;
		l->w[i] = w[i];
		pos += w[i];
	}
	l->off[sc->nnum] = pos;
	l->kind = sc->kind;
	l->texts = pos;
	l->nstr = sc->nstr;
	l->sc = sc;
	return l;
}

/* w <= 8 bytes at p, little endian. */
static inline uint64_t load_le(const char *p, size_t w)
{
	uint64_t x = 0;
	uint32_t y;
	if (w == 8) {
		memcpy(&x, p, 8);
	} else if (w == 4) {
		memcpy(&y, p, 4);
		x = y;
	} else {
		while (w--)
			x = x << 8 | (unsigned char)p[w];
	}
	return x;
}

uint64_t rec_view_get(const struct rec_view *v, size_t r, size_t w)
{
	uint64_t x = 0;
	size_t j, k = 0;
	if (v->raw)
		return load_le(v->raw + r, w);
	while (k < v->nesc && v->esc[k] < r)
		k++;
	if (k == v->nesc || v->esc[k] >= r + w)        /* no escape inside */
		return load_le(v->line + r + k, w);
	for (j = 0; j < w; j++) {
		unsigned char b;
		while (k < v->nesc && v->esc[k] < r + j)
			k++;
		b = (unsigned char)v->line[r + j + k];
		if (k < v->nesc && v->esc[k] == r + j)
			b = (unsigned char)v->line[r + j + k + 1] ^ 0x40;
		x |= (uint64_t)b << (8 * j);
	}
	return x;
}

/* Where raw byte r starts in the line (its ESC, when it is escaped). */
static size_t view_pos(const struct rec_view *v, size_t r)
{
	size_t k = 0;
	while (k < v->nesc && v->esc[k] < r)
		k++;
	return r + k;
}

/* Record one escape, at line byte q (an ESC); 0 when it is not a valid
 * escape or the view is full. */
static inline int view_esc(struct rec_view *v, const char *q, const char *end)
{
	if (q + 1 >= end || (q[1] != ('\n' ^ 0x40) && q[1] != (REC_ESC ^ 0x40)) || v->nesc == REC_VIEW_ESC)
		return 0;
	v->esc[v->nesc] = (size_t)(q - v->line) - v->nesc;
	v->nesc++;
	return 1;
}

/* The rest of a view once its escapes are known: unescape (slack: 15
 * bytes past the line may be read), then the texts must add up. */
static inline int view_finish(struct rec_view *v, int unescape, int slack)
{
	const struct rec_layout *l = v->lay;
	size_t raw = v->len - v->nesc, pos = l->off[l->sc->nnum];
	int i;

	if (v->nesc) {
		v->raw = NULL;
		if (unescape && raw <= REC_VIEW_BUF) {
			const char *from = v->line, *end = v->line + v->len, *q;
			char *o = v->buf;
			size_t k, j, n;
			/* The pieces between escapes; with slack in 16-byte
			 * copies, which may run 15 bytes past a piece (buf has
			 * the room). */
			for (k = 0; k <= v->nesc; k++) {
				q = k < v->nesc ? v->line + v->esc[k] + k : end;
				n = (size_t)(q - from);
				if (slack)
					for (j = 0; j < n; j += 16)
						memcpy(o + j, from + j, 16);
				else
					memcpy(o, from, n);
				o += n;
				if (k < v->nesc) {
					*o++ = (char)(q[1] ^ 0x40);
					from = q + 2;
				}
			}
			v->raw = v->buf;
		}
	}
	if (v->len < 1 || v->line[0] != l->sc->kind || raw < pos)
		return 0;
	for (i = 0; i < l->sc->nstr; i++) {
		uint64_t k;
		if (raw - pos < 4)
			return 0;
		if (v->raw) {
			uint32_t y;
			memcpy(&y, v->raw + pos, 4);
			k = y;
		} else {
			k = rec_view_get(v, pos, 4);
		}
		if (k > raw - pos - 4)
			return 0;
		v->text_at[i] = pos + 4;
		v->text_n[i] = (size_t)k;
		pos += 4 + (size_t)k;
	}
	return pos == raw;
}

int rec_view(struct rec_view *v, const struct rec_layout *lay, const char *line, size_t len, int unescape)
{
	const char *p = line + (len ? 1 : 0), *end = line + len;
	v->lay = lay;
	v->line = line;
	v->len = len;
	v->nesc = 0;
	v->raw = line;
	while ((p = memchr(p, REC_ESC, (size_t)(end - p)))) {
		if (!view_esc(v, p, end))
			return 0;
		p += 2;
	}
	return view_finish(v, unescape, 0);
}

int rec_view_text_esc(const struct rec_view *v, int i, const char **p, size_t *n)
{
	size_t at = v->text_at[i], k = 0;
	*n = v->text_n[i];
	if (v->raw) {
		*p = v->raw + at;
		return 1;
	}
	while (k < v->nesc && v->esc[k] < at)
		k++;
	if (k < v->nesc && v->esc[k] < at + *n)
		return 0;
	*p = v->line + at + k;
	return 1;
}

int rec_view_text_is_esc(const struct rec_view *v, int i, const char *s, size_t n)
{
	const char *p;
	size_t j, m;
	if (v->text_n[i] != n)
		return 0;
	if (rec_view_text(v, i, &p, &m))
		return !memcmp(p, s, n);
	for (j = 0; j < n; j++)
		if (rec_view_get(v, v->text_at[i] + j, 1) != (unsigned char)s[j])
			return 0;
	return 1;
}

/* Whether a byte of x is b. */
static inline int has_byte(uint64_t x, unsigned char b)
{
	uint64_t y = x ^ (0x0101010101010101ull * b);
	return ((y - 0x0101010101010101ull) & ~y & 0x8080808080808080ull) != 0;
}

/* The w (4 or 8) bytes of x escaped at o (room for 2 w, or 8 when w
 * is 4); returns the end. */
static inline char *put_escaped(char *o, uint64_t x, size_t w)
{
	size_t k;
	if (w == 4)
		x &= 0xffffffffu;       /* the zero bytes above need no escape */
	if (!has_byte(x, '\n') && !has_byte(x, REC_ESC)) {
		memcpy(o, &x, 8);       /* little endian; only w bytes count */
		return o + w;
	}
	for (k = 0; k < w; k++, x >>= 8) {
		unsigned char b = (unsigned char)x;
		if (b == '\n' || b == REC_ESC) {
			*o++ = (char)REC_ESC;
			b ^= 0x40;
		}
		*o++ = (char)b;
	}
	return o;
}

size_t rec_view_patch(const struct rec_view *v, int first, int n, const uint64_t *vals, char *out,
                      size_t *from, size_t *to)
{
	const struct rec_layout *l = v->lay;
	char *o = out;
	int i;

	for (i = 0; i < n; i++)
		o = put_escaped(o, vals[i], l->w[first + i]);
	*from = view_pos(v, l->off[first]);
	*to = view_pos(v, l->off[first + n]);
	return (size_t)(o - out);
}

/* ---- the block reader ----
 *
 * One pass over a block maps where its LF and ESC bytes are, without a
 * branch per byte; the records are then found from the map (records are
 * a hundred bytes or two: a memchr per record costs about as much as its
 * scan).  AVX2 where the CPU has it, else SSE2 on x86-64, else a byte
 * loop. */

#define BLOCK_BYTES (128u << 10)

#if !(defined(__GNUC__) && defined(__x86_64__))
static void map_bytes(const char *b, size_t nw, uint64_t *map)
{
	size_t i, j;
	for (i = 0; i < nw; i++) {
		uint64_t m = 0;
		for (j = 0; j < 64; j++)
			m |= (uint64_t)(b[64 * i + j] == '\n' || b[64 * i + j] == REC_ESC) << j;
		map[i] = m;
	}
}
#else
static void map_sse2(const char *b, size_t nw, uint64_t *map)
{
	const __m128i l = _mm_set1_epi8('\n'), e = _mm_set1_epi8(REC_ESC);
	size_t i;
	int k;
	for (i = 0; i < nw; i++) {
		uint64_t m = 0;
		for (k = 0; k < 4; k++) {
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(b + 64 * i + 16 * k));
			m |= (uint64_t)(unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, l),
			                                                        _mm_cmpeq_epi8(x, e))) << (16 * k);
		}
		map[i] = m;
	}
}

__attribute__((target("avx2")))
static void map_avx2(const char *b, size_t nw, uint64_t *map)
{
	const __m256i l = _mm256_set1_epi8('\n'), e = _mm256_set1_epi8(REC_ESC);
	size_t i;
	for (i = 0; i < nw; i++) {
		__m256i x0 = _mm256_loadu_si256((const __m256i *)(const void *)(b + 64 * i));
		__m256i x1 = _mm256_loadu_si256((const __m256i *)(const void *)(b + 64 * i + 32));
		map[i] = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(x0, l),
		                                                                  _mm256_cmpeq_epi8(x0, e))) |
		         (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_or_si256(_mm256_cmpeq_epi8(x1, l),
		                                                                  _mm256_cmpeq_epi8(x1, e))) << 32;
	}
}
#endif

/* Chosen once, on the first rec_block_init. */
static void (*map_block)(const char *, size_t, uint64_t *);

void rec_block_init(struct rec_block *b, struct wr *w)
{
	if (!map_block) {
#if defined(__GNUC__) && defined(__x86_64__)
		__builtin_cpu_init();
		map_block = __builtin_cpu_supports("avx2") ? map_avx2 : map_sse2;
#else
		map_block = map_bytes;
#endif
	}
	memset(b, 0, sizeof *b);
	b->w = w;
	b->cap = BLOCK_BYTES;
	b->buf = xmalloc(b->cap + 64);
	b->map = xmalloc((b->cap / 64 + 1) * sizeof *b->map);
}

void rec_block_start(struct rec_block *b, struct rd *in)
{
	b->in = in;
	b->have = 0;
	b->lineno = 0;
	b->open = 0;
	b->p = b->end = b->buf;
	b->run = b->buf;
}

static void run_to(struct rec_block *b, const char *upto)
{
	if (upto > b->run)
		wr_put(b->w, b->run, (size_t)(upto - b->run));
	b->run = upto;
}

void rec_block_end(struct rec_block *b)
{
	if (!b->open)
		return;
	run_to(b, b->p);
	b->have = (size_t)(b->end - b->p);
	memmove(b->buf, b->p, b->have);
	b->open = 0;
	b->nw = b->wi = 0;
	b->cur = 0;
}

int rec_block_read(struct rec_block *b)
{
	size_t n;

	rec_block_end(b);
	if (b->have == b->cap - 1) {    /* one record longer than the block */
		b->cap *= 2;
		b->buf = xrealloc(b->buf, b->cap + 64);
		b->map = xrealloc(b->map, (b->cap / 64 + 1) * sizeof *b->map);
	}
	if (!(n = rd_read(b->in, b->buf + b->have, b->cap - 1 - b->have))) {
		/* A last line without LF still counts, but only at a real
		 * end of input: after a read error it is a cut line (as
		 * rd_line has it). */
		if (!b->have || rd_error(b->in))
			return 0;
		b->buf[b->have] = '\n';
		n = 1;
	}
	b->end = b->buf + b->have + n;
	memset(b->end, 0, 64);          /* the last word maps no byte past the end */
	b->nw = ((size_t)(b->end - b->buf) + 63) >> 6;
	map_block(b->buf, b->nw, b->map);
	b->wi = 0;
	b->cur = b->map[0];
	b->p = b->buf;
	b->run = b->buf;
	b->open = 1;
	return 1;
}

void rec_block_take(struct rec_block *b)
{
	run_to(b, b->line);
	b->run = b->line + b->len + 1;
}

int rec_block_view_esc(const struct rec_block *b, struct rec_view *v, const struct rec_layout *lay, int unescape)
{
	const char *end = b->line + b->len, *q;
	size_t w;
	uint64_t m;

	v->lay = lay;
	v->line = b->line;
	v->len = b->len;
	v->nesc = 0;
	v->raw = b->line;
	if (b->esc) {
		/* The line's marks before its end are its ESC bytes. */
		w = (size_t)(b->esc - b->buf) >> 6;
		m = b->map[w] & (~0ull << ((size_t)(b->esc - b->buf) & 63));
		for (;;) {
			while (!m) {
				if ((++w << 6) >= (size_t)(end - b->buf))
					goto done;
				m = b->map[w];
			}
			q = b->buf + (w << 6) + __builtin_ctzll(m);
			if (q >= end)
				break;
			m &= m - 1;
			if (!view_esc(v, q, end))
				return 0;
		}
	}
done:
	/* The block's 64 bytes of slack are past its end. */
	return view_finish(v, unescape, 1);
}

void rec_block_patch_esc(struct rec_block *b, const struct rec_view *v, int first, int n, const uint64_t *vals)
{
	char patch[REC_PATCH_MAX];
	size_t from, to, k = rec_view_patch(v, first, n, vals, patch, &from, &to);

	if (k == to - from) {
		memcpy(b->line + from, patch, k);
	} else {
		run_to(b, b->line + from);
		wr_put(b->w, patch, k);
		b->run = b->line + to;
	}
}

void rec_block_free(struct rec_block *b)
{
	free(b->buf);
	free(b->map);
	b->buf = NULL;
	b->map = NULL;
}
