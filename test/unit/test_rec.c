/* Unit tests of the record stream encodings (lib/rec.c, optrace-records(5)).
 *
 *   make build/liboptrace.a build-san/liboptrace.a
 *   gcc -std=c11 -D_GNU_SOURCE -Ilib -Wall -Wextra -Werror -O1 -g \
 *       -fsanitize=address,undefined -o /tmp/test_rec test/unit/test_rec.c \
 *       build-san/liboptrace.a -llz4 -lm && /tmp/test_rec
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0 only
 * when nothing failed.  Random values come from a fixed seed (override with
 * TEST_SEED=n) so a failure can be reproduced.  Every line handed to
 * rec_decode sits in a heap block of exactly its length, without LF or NUL,
 * so that ASan reports any read past the record. */
#include "mem.h"
#include "rec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

/* An exact-size heap copy of a line (no LF, no NUL). */
static char *dup_exact(const void *p, size_t n)
{
	char *b = xmalloc(n);
	if (n)
		memcpy(b, p, n);
	return b;
}

/* ---- random numbers ---- */

static uint64_t rng = 0x2545f4914f6cdd1dULL;
static uint64_t rnd(void) { return unit_xorshift(&rng); }
static uint64_t rnd_n(uint64_t n) { return rnd() % n; }

/* Values whose bytes are full of LF and ESC, and the usual edges. */
static uint64_t rnd_bits(int width)
{
	static const uint64_t special[] = {
		0, 1, 0x0a, 0x1a, 0x0a0a, 0x1a1a, 0x0a1a, 0x1a0a, 0x0a1a0a1a, 0x1a1a1a1a,
		0x0a0a0a0a, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffff5, 0xffffffe5,
		0x0a1a0a1a0a1a0a1aULL, 0x1a0a1a0a1a0a1a0aULL, 0x0a0a0a0a0a0a0a0aULL,
		0x7fffffffffffffffULL, 0x8000000000000000ULL, 0xffffffffffffffffULL,
		0xfffffffffffffff5ULL, 0x100000000ULL, 0x10f86000ULL,
	};
	uint64_t v;
	int b;
	switch (rnd_n(4)) {
	case 0:
		v = special[rnd_n(sizeof special / sizeof special[0])];
		break;
	case 1:
		v = rnd();
		for (b = 0; b < 8; b++)
			if (rnd_n(3) == 0)
				v = (v & ~(0xffULL << (8 * b))) | ((uint64_t)(rnd_n(2) ? 0x0a : 0x1a) << (8 * b));
		break;
	case 2:
		v = rnd_n(1000);
		break;
	default:
		v = rnd();
		break;
	}
	if (width == 4)
		v &= 0xffffffffu;
	return v;
}

static double rnd_double(void)
{
	static const double special[] = { 0.0, -0.0, -1.0, 1.0, 0.5, 0.1, -0.25, 1.0 / 3.0, 2.0 / 3.0,
		                          100.0, 99.999999999999986, 12.345678901234567, 1e300, -1e-300,
		                          4.9406564584124654e-324, 2.2250738585072014e-308,
		                          1.7976931348623157e308, 123456789012345678.0, 0.1 + 0.2 };
	uint64_t bits;
	double d;
	switch (rnd_n(4)) {
	case 0:
		return special[rnd_n(sizeof special / sizeof special[0])];
	case 1:
		/* A double whose bytes hold LF/ESC. */
		do {
			bits = rnd_bits(8);
			memcpy(&d, &bits, 8);
		} while (!isfinite(d));
		return d;
	case 2:
		return (double)(int64_t)rnd_n(200000) / 1000.0 - 100.0;
	default:
		do {
			bits = rnd();
			memcpy(&d, &bits, 8);
		} while (!isfinite(d));
		return d;
	}
}

/* ---- random text ---- */

static const char *const utf8_ok[] = {
	"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf",
	"\xc2\x80", "\xdf\xbf", "\xe0\xa0\x80", "\xed\x9f\xbf", "\xee\x80\x80", "\xe4\xb8\xad",
	"\xf0\x90\x80\x80", "\xdc\x80",
};
static const char *const utf8_bad[] = {
	"\x80", "\xbf", "\xc0\x80", "\xc1\xbf", "\xe0\x80\x80", "\xed\xa0\x80", "\xed\xbf\xbf",
	"\xf4\x90\x80\x80", "\xf5", "\xfe", "\xff", "\xc3", "\xe2\x82", "\xf0\x9f\x98", "\xc3\x28",
	"\xf8\x88\x80\x80\x80", "\xe0\x9f\xbf", "\xf0\x8f\xbf\xbf",
};

#define MAX_ARENA 65536
static char *arena[MAX_ARENA];
static int narena;
static char *arena_alloc(size_t n)
{
	char *p;
	if (narena == MAX_ARENA) {
		fprintf(stderr, "arena full\n");
		exit(2);
	}
	p = xmalloc(n);
	arena[narena++] = p;
	return p;
}
static void arena_free(void)
{
	while (narena)
		free(arena[--narena]);
}

static size_t add(char *o, size_t at, size_t cap, const char *s, size_t n)
{
	if (at + n > cap)
		return at;
	memcpy(o + at, s, n);
	return at + n;
}

/* A random text of up to max bytes with every kind of awkward content. */
static struct rec_text rnd_text(size_t max)
{
	struct rec_text t;
	size_t cap = rnd_n(max + 1), n = 0;
	char *o = arena_alloc(cap);
	int tries = 0;
	while (n < cap && tries++ < 1000) {
		char b[8];
		const char *s;
		size_t k, i;
		switch (rnd_n(8)) {
		case 0: /* any byte */
			b[0] = (char)rnd_n(256);
			n = add(o, n, cap, b, 1);
			break;
		case 1: /* a run of plain ASCII */
			k = 1 + rnd_n(8);
			for (i = 0; i < k; i++)
				b[0] = (char)('A' + rnd_n(26)), n = add(o, n, cap, b, 1);
			break;
		case 2: /* LF, ESC, CR, NUL, 0xff, the escape letters */
			s = "\n\x1a\r\0\xff\x4a\x5a\x1a";
			k = rnd_n(8);
			n = add(o, n, cap, s + k, 1);
			break;
		case 3:
			s = utf8_ok[rnd_n(sizeof utf8_ok / sizeof utf8_ok[0])];
			n = add(o, n, cap, s, strlen(s));
			break;
		case 4:
			s = utf8_bad[rnd_n(sizeof utf8_bad / sizeof utf8_bad[0])];
			n = add(o, n, cap, s, strlen(s));
			break;
		case 5: /* JSON specials */
			s = "\"\\/\x7f\b\f\t{}:,";
			n = add(o, n, cap, s + rnd_n(11), 1);
			break;
		case 6: /* things that look like escapes */
			s = rnd_n(2) ? "\\udcff" : "\\u000a";
			n = add(o, n, cap, s, 6);
			break;
		default:
			s = " VADD VMUL MOV_OUT_TO_UB ";
			n = add(o, n, cap, s, strlen(s));
			break;
		}
	}
	t.p = o;
	t.n = n;
	return t;
}

static const int kinds[] = { K_HEADER, K_TRAILER, K_SOURCE, K_LINE, K_INSTR, K_MARK, K_DIAG,
                              K_PMU, K_STAMP, K_L2, K_BASIC };
#define NKINDS ((int)(sizeof kinds / sizeof kinds[0]))

static int type_width(enum rec_type t)
{
	return (t == RT_U32 || t == RT_I32 || t == RT_SUB || t == RT_LOG || t == RT_SYNC) ? 4 : 8;
}

static void rnd_rec(struct rec *r, int kind, size_t maxtext)
{
	int i;
	rec_init(r, kind);
	for (i = 0; i < r->sc->nnum; i++) {
		enum rec_type t = r->sc->num[i].type;
		switch (t) {
		case RT_U32:
			r->n[i].u = rnd_bits(4);
			break;
		case RT_SUB:
			r->n[i].u = rnd_n(4) ? rnd_n(SUB_MIX + 1) : rnd_bits(4);
			break;
		case RT_LOG:
			r->n[i].u = rnd_n(4) ? rnd_n(LOG_NKINDS) : rnd_bits(4);
			break;
		case RT_SYNC:
			r->n[i].u = rnd_n(4) ? rnd_n(SYNC_NKINDS) : rnd_bits(4);
			break;
		case RT_I32:
			r->n[i].i = (int32_t)(uint32_t)rnd_bits(4);
			if (rnd_n(4) == 0)
				r->n[i].i = -1 - (int64_t)rnd_n(100);
			break;
		case RT_I64:
			r->n[i].u = rnd_bits(8);
			if (rnd_n(4) == 0)
				r->n[i].i = -1 - (int64_t)rnd_n(100000);
			break;
		case RT_U64:
		case RT_HEX:
			r->n[i].u = rnd_n(6) == 0 ? REC_NONE : rnd_bits(8);
			break;
		case RT_F64:
			r->n[i].f = rnd_double();
			break;
		}
	}
	for (i = 0; i < r->sc->nstr; i++)
		r->s[i] = rnd_text(maxtext);
}

/* ---- comparing ---- */

static int rec_same(const struct rec *a, const struct rec *b, char *why, size_t whylen)
{
	int i;
	if (a->sc != b->sc) {
		snprintf(why, whylen, "kind %c != %c", a->sc ? a->sc->kind : '?', b->sc ? b->sc->kind : '?');
		return 0;
	}
	for (i = 0; i < a->sc->nnum; i++) {
		uint64_t x = a->n[i].u, y = b->n[i].u;
		if (type_width(a->sc->num[i].type) == 4 && a->sc->num[i].type != RT_I32) {
			x &= 0xffffffffu;
			y &= 0xffffffffu;
		}
		if (x != y) {
			snprintf(why, whylen, "%s field %s: 0x%llx != 0x%llx", a->sc->name, a->sc->num[i].name,
			         (unsigned long long)x, (unsigned long long)y);
			return 0;
		}
	}
	for (i = 0; i < a->sc->nstr; i++) {
		if (a->s[i].n != b->s[i].n || (a->s[i].n && memcmp(a->s[i].p, b->s[i].p, a->s[i].n))) {
			size_t k = 0;
			while (k < a->s[i].n && k < b->s[i].n && a->s[i].p[k] == b->s[i].p[k])
				k++;
			snprintf(why, whylen, "%s text %s: length %zu vs %zu, first difference at byte %zu",
			         a->sc->name, a->sc->str[i], a->s[i].n, b->s[i].n, k);
			return 0;
		}
	}
	return 1;
}

static size_t count_byte(const char *p, size_t n, int c)
{
	size_t k = 0, i;
	for (i = 0; i < n; i++)
		k += (unsigned char)p[i] == (unsigned char)c;
	return k;
}

/* Encode to binary in an exact-size buffer; *n includes the LF. */
static char *bin_of(const struct rec *r, size_t *n)
{
	size_t cap = rec_bin_size(r);
	char *buf = xmalloc(cap);
	*n = rec_bin_encode(buf, r);
	if (*n < 2 || *n > cap) {
		printf("test_rec.c: rec_bin_encode wrote %zu bytes, rec_bin_size said %zu\n", *n, cap);
		exit(1);
	}
	return buf;
}

/* Read a whole file descriptor from offset 0. */
static char *slurp_fd(int fd, size_t *n)
{
	size_t cap = 1 << 16, len = 0;
	char *b = xmalloc(cap);
	ssize_t k;
	lseek(fd, 0, SEEK_SET);
	for (;;) {
		if (len == cap) {
			cap *= 2;
			b = realloc(b, cap);
			if (!b)
				exit(2);
		}
		k = read(fd, b + len, cap - len);
		if (k <= 0)
			break;
		len += (size_t)k;
	}
	*n = len;
	return b;
}

/* Write records with rec_put into an anonymous temp file. */
static int put_all(const struct rec *recs, int n, enum rec_mode mode)
{
	int fd = io_tmpfd(), i;
	struct wr *w;
	if (fd < 0) {
		perror("io_tmpfd");
		exit(2);
	}
	w = wr_fdopen_buf(fd, "tmp", 0, 1 << 16);
	for (i = 0; i < n; i++)
		rec_put(w, mode, &recs[i]);
	if (wr_close(w) != 0)
		CHECK_MSG(0, "wr_close of the temp stream failed");
	return fd;
}

/* Write recs in mode, read back with rd_line + rec_decode, compare. */
static void stream_roundtrip(const struct rec *recs, int n, enum rec_mode mode, const char *what)
{
	int fd = put_all(recs, n, mode), i, bad = 0;
	struct rd *r;
	struct rec_dec d = { 0 };
	struct rec got;
	const char *line, *why;
	size_t len;
	char msg[256];

	lseek(fd, 0, SEEK_SET);
	r = rd_fdopen(fd, what);
	for (i = 0; i < n; i++) {
		char *copy;
		int k;
		line = rd_line(r, &len);
		if (!line) {
			CHECK_MSG(0, "%s: stream ends after %d of %d records", what, i, n);
			bad = 1;
			break;
		}
		copy = dup_exact(line, len);
		k = rec_decode(&d, copy, len, &got, &why);
		if (k != DEC_OK) {
			CHECK_MSG(0, "%s: record %d (%s) does not decode: %d %s", what, i, recs[i].sc->name, k,
			      why ? why : "(no reason)");
			bad = 1;
		} else if (!rec_same(&recs[i], &got, msg, sizeof msg)) {
			CHECK_MSG(0, "%s: record %d differs after the round trip: %s", what, i, msg);
			bad = 1;
		}
		if (mode == REC_JSON) {
			if (len < 2 || copy[0] != '{' || copy[len - 1] != '}') {
				CHECK_MSG(0, "%s: record %d is not one JSON object on a line", what, i);
				bad = 1;
			}
			if (len && memchr(copy, '\r', len)) {
				CHECK_MSG(0, "%s: JSON record %d holds a raw CR", what, i);
				bad = 1;
			} else {
				size_t c;
				for (c = 0; c < len; c++)
					if ((unsigned char)copy[c] < 0x20)
						break;
				if (c < len) {
					CHECK_MSG(0, "%s: JSON record %d holds the raw control byte 0x%02x", what, i,
					      (unsigned char)copy[c]);
					bad = 1;
				}
			}
		}
		free(copy);
	}
	if (!bad)
		CHECK_MSG(rd_line(r, &len) == NULL, "%s: extra lines after %d records", what, n);
	CHECK_MSG(!bad, "%s: %d records written with rec_put read back identical", what, n);
	CHECK_MSG(rd_error(r) == 0, "%s: read error %d", what, rd_error(r));
	rd_close(r);
	close(fd);
	rec_dec_free(&d);
}

/* ---- tests ---- */

/* The exact bytes the man page describes for one record. */
static void test_layout(void)
{
	static const unsigned char want[] = {
		'L',
		0x1a, 0x4a, 0, 0, 0,        /* file 0x0a: LF escaped */
		0x1a, 0x5a, 0, 0, 0,        /* core 0x1a: ESC escaped */
		1, 0, 0, 0,                 /* sub veccore */
		2, 0, 0, 0,                 /* subidx */
		1, 0, 0, 0,                 /* log popped */
		8, 7, 6, 5, 4, 3, 2, 1,     /* line, little endian */
		3, 0, 0, 0, 'a', 0x1a, 0x4a, 'b', /* text "a\nb" */
		'\n',
	};
	struct rec r;
	size_t n;
	char *b;

	rec_init(&r, K_LINE);
	r.n[L_FILE].u = 0x0a;
	r.n[L_CORE].u = 0x1a;
	r.n[L_SUBTYPE].u = SUB_VEC;
	r.n[L_SUBIDX].u = 2;
	r.n[L_LOG].u = LOG_POPPED;
	r.n[L_LINE].u = 0x0102030405060708ULL;
	rec_text_set(&r, LS_TEXT, "a\nb", 3);
	b = bin_of(&r, &n);
	CHECK_MSG(n == sizeof want && !memcmp(b, want, n), "binary layout of a line record differs from optrace-records(5)");
	free(b);

	/* No escape needed: bytes as they are, text greppable. */
	{
		static const unsigned char want2[] = {
			'H', 1, 0, 0, 0, 0x08, 0x07, 0, 0, /* version 1, mhz 1800 */
			7, 0, 0, 0, 'r', 'e', 'c', '-', 'c', 'a', 't',
			4, 0, 0, 0, 'V', 'A', 'D', 'D',
			0, 0, 0, 0, '\n',
		};
		rec_init(&r, K_HEADER);
		r.n[H_VERSION].u = 1;
		r.n[H_MHZ].u = 1800;
		rec_text_set(&r, HS_PRODUCER, "rec-cat", 7);
		rec_text_set(&r, HS_SOC, "VADD", 4);
		b = bin_of(&r, &n);
		CHECK_MSG(n == sizeof want2 && !memcmp(b, want2, n), "binary layout of a header record differs");
		free(b);
	}

	/* rec_init defaults: 0, none for hex, empty text. */
	rec_init(&r, K_INSTR);
	CHECK_MSG(r.n[I_PC].u == REC_NONE && r.n[I_START].u == 0 && r.s[IS_NAME].n == 0,
	      "rec_init: hex none, numbers 0, text empty");
	CHECK_MSG(rec_schema('Q') == NULL && rec_schema(0) == NULL && rec_schema(0xff) == NULL,
	      "rec_schema of unknown kinds is NULL");
}

/* Names of cores, sub-cores and log kinds. */
static void test_names(void)
{
	char buf[48];
	CHECK_MSG(!strcmp(rec_core_name(buf, 0, SUB_VEC, 1), "core0.veccore1"), "core name: %s", buf);
	CHECK_MSG(!strcmp(rec_core_name(buf, 26, SUB_CUBE, 0), "core26.cubecore0"), "core name: %s", buf);
	CHECK_MSG(!strcmp(rec_core_name(buf, 3, SUB_NONE, 7), "core3"), "core name without sub-core: %s", buf);
	/* core and subidx are u32 on the wire */
	CHECK_MSG(!strcmp(rec_core_name(buf, UINT32_MAX, SUB_MIX, UINT32_MAX), "core4294967295.mixcore4294967295"),
	      "longest core name: %s", buf);
	CHECK_MSG(!strcmp(rec_core_name(buf, 1, 99, 1), "core1"), "unknown sub type: %s", buf);
	CHECK_MSG(!strcmp(rec_log_name(LOG_POPPED), "popped") && !strcmp(rec_log_name(LOG_ICACHE), "icache") &&
	      !strcmp(rec_log_name(-1), "other") && !strcmp(rec_log_name(99), "other"), "rec_log_name");
	CHECK_MSG(rec_log_parse("popped", 6) == LOG_POPPED && rec_log_parse("instr", 5) == LOG_INSTR &&
	      rec_log_parse("instr", 4) == -1 && rec_log_parse("nope", 4) == -1 && rec_log_parse("", 0) == -1,
	      "rec_log_parse");
	CHECK_MSG(!strcmp(rec_sub_name(SUB_VEC), "veccore") && !strcmp(rec_sub_name(SUB_NONE), "") &&
	      !strcmp(rec_sub_name(42), ""), "rec_sub_name");
}

/* The output side of a tool: header, records, raw lines, trailer. */
static void test_rec_out(void)
{
	int m;
	for (m = 0; m < 3; m++) {
		struct rec_out o = { 0 };
		struct rec r, got;
		struct rec_dec d = { 0 };
		int fd = io_tmpfd();
		size_t n, len;
		char *s, *p, *end, *nl;
		int lines = 0, rc;
		const char *why;

		o.w = wr_fdopen(fd, "out", 0);
		o.mode = (enum rec_mode)m;
		o.producer = "test_rec";
		rec_out_header(&o, "Ascend910B1", 1800, "core0.veccore0.instr_log.dump");
		rec_init(&r, K_INSTR);
		rec_text_set(&r, IS_NAME, "VADD", 4);
		rec_out_put(&o, &r);
		rec_out_put(&o, &r);
		rec_out_raw(&o, "Zfuture", 7);
		rec_out_trailer(&o, 2, 1, 1);
		CHECK_MSG(o.records == 3, "rec_out counts records without header/trailer: %llu",
		      (unsigned long long)o.records);
		CHECK_MSG(wr_close(o.w) == 0, "wr_close");
		s = slurp_fd(fd, &n);
		close(fd);
		for (p = s, end = s + n; p < end; p = nl + 1) {
			nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				break;
			len = (size_t)(nl - p);
			lines++;
			if (m == REC_TEXT)
				continue;
			rc = rec_decode(&d, p, len, &got, &why);
			if (lines == 1)
				CHECK_MSG(rc == DEC_OK && got.sc->kind == K_HEADER && got.n[H_VERSION].u == REC_VERSION &&
				      got.n[H_MHZ].u == 1800 && got.s[HS_SOC].n == 11 &&
				      !memcmp(got.s[HS_PRODUCER].p, "test_rec", 8), "mode %d: header first", m);
			if (lines == 4)
				CHECK_MSG(rc == DEC_UNKNOWN && len == 7 && !memcmp(p, "Zfuture", 7),
				      "mode %d: raw line passed through", m);
			if (lines == 5)
				CHECK_MSG(rc == DEC_OK && got.sc->kind == K_TRAILER && got.n[T_RECORDS].u == 3 &&
				      got.n[T_BAD].u == 2 && got.n[T_DROPPED].u == 1 && got.n[T_INTERRUPTED].u == 1,
				      "mode %d: trailer last, with the counts", m);
		}
		CHECK_MSG(p == end, "mode %d: output ends with LF", m);
		CHECK_MSG(lines == (m == REC_TEXT ? 3 : 5), "mode %d: %d lines", m, lines);
		free(s);
		rec_dec_free(&d);
	}
}

/* Every kind with random values: binary round trip, framing, size bound. */
static void test_bin_roundtrip(void)
{
	struct rec_dec d = { 0 };
	int round, k, bad = 0, frame_bad = 0;
	char msg[256];

	for (round = 0; round < 3000; round++) {
		for (k = 0; k < NKINDS; k++) {
			struct rec r, got;
			size_t n, i;
			const char *why;
			char *b, *line;
			int rc;

			rnd_rec(&r, kinds[k], round % 10 == 0 ? 2000 : 60);
			b = bin_of(&r, &n);
			/* Exactly one LF, the last byte; the kind first; every ESC
			 * followed by 'J' or 'Z'. */
			if (count_byte(b, n, '\n') != 1 || b[n - 1] != '\n' || b[0] != (char)kinds[k]) {
				if (!frame_bad++)
					CHECK_MSG(0, "%s record: %zu LF bytes, last byte 0x%02x, first '%c'", r.sc->name,
					      count_byte(b, n, '\n'), (unsigned char)b[n - 1], b[0]);
			}
			for (i = 1; i + 1 < n; i++)
				if (b[i] == REC_ESC) {
					if (b[i + 1] != 'J' && b[i + 1] != 'Z') {
						if (!frame_bad++)
							CHECK_MSG(0, "%s record: ESC followed by 0x%02x", r.sc->name,
							      (unsigned char)b[i + 1]);
					}
					i++;
				}
			/* Decode from an exact-size copy without the LF. */
			line = dup_exact(b, n - 1);
			rc = rec_decode(&d, line, n - 1, &got, &why);
			if (rc != DEC_OK) {
				if (!bad++)
					CHECK_MSG(0, "%s record does not decode: %s", r.sc->name, why ? why : "?");
			} else if (!rec_same(&r, &got, msg, sizeof msg)) {
				if (!bad++)
					CHECK_MSG(0, "binary round trip: %s", msg);
			} else {
				/* Re-encoding what was decoded gives the same bytes. */
				size_t n2;
				char *b2 = bin_of(&got, &n2);
				if (n2 != n || memcmp(b, b2, n)) {
					if (!bad++)
						CHECK_MSG(0, "%s: decode + encode changes the bytes", r.sc->name);
				}
				free(b2);
			}
			free(line);
			free(b);
		}
		arena_free();
	}
	CHECK_MSG(!bad, "binary round trip of %d random records of every kind (%d failures)", 3000 * NKINDS, bad);
	CHECK_MSG(!frame_bad, "every binary record holds exactly one LF, at its end (%d failures)", frame_bad);
	rec_dec_free(&d);
}

/* Text fields holding every byte value, in every text field of every kind. */
static void test_all_bytes(void)
{
	char all[256 * 3];
	struct rec recs[64];
	int n = 0, k, i, j;

	for (i = 0; i < 256; i++) {
		all[i] = (char)i;
		all[256 + i] = (char)(255 - i);
		all[512 + i] = (char)(i % 2 ? '\n' : 0x1a);
	}
	for (k = 0; k < NKINDS; k++) {
		const struct rec_schema *sc = rec_schema(kinds[k]);
		for (j = 0; j < sc->nstr; j++) {
			struct rec *r = &recs[n++];
			struct rec_dec d = { 0 };
			struct rec got;
			const char *why;
			size_t len;
			char msg[256], *b, *line;

			rec_init(r, kinds[k]);
			for (i = 0; i < sc->nstr; i++)
				rec_text_set(r, i, i == j ? all : "VADD \x1a\n\r\xff", i == j ? sizeof all : 9);
			b = bin_of(r, &len);
			CHECK_MSG(count_byte(b, len, '\n') == 1 && b[len - 1] == '\n',
			      "%s.%s with bytes 0..255: one LF at the end", sc->name, sc->str[j]);
			CHECK_MSG(memmem(b, len, "VADD", 4) != NULL || sc->nstr == 1,
			      "%s: text stays greppable in the binary record", sc->name);
			line = dup_exact(b, len - 1);
			CHECK_MSG(rec_decode(&d, line, len - 1, &got, &why) == DEC_OK && rec_same(r, &got, msg, sizeof msg),
			      "%s.%s with bytes 0..255: binary round trip", sc->name, sc->str[j]);
			free(line);
			free(b);
			rec_dec_free(&d);
		}
	}
	stream_roundtrip(recs, n, REC_JSON, "JSON, text with bytes 0..255");
	stream_roundtrip(recs, n, REC_BIN, "binary stream, text with bytes 0..255");

	/* Single bytes, and every pair of a lead byte and a following byte. */
	{
		static struct rec one[256];
		static char bytes[256];
		for (i = 0; i < 256; i++) {
			bytes[i] = (char)i;
			rec_init(&one[i], K_LINE);
			rec_text_set(&one[i], LS_TEXT, &bytes[i], 1);
		}
		stream_roundtrip(one, 256, REC_JSON, "JSON, one-byte texts 0..255");
		stream_roundtrip(one, 256, REC_BIN, "binary, one-byte texts 0..255");
	}
	{
		static struct rec two[256];
		static char pairs[256][4];
		for (i = 0; i < 256; i++) {
			/* byte i, then a continuation byte, then a lead byte, then i. */
			pairs[i][0] = (char)i;
			pairs[i][1] = (char)(0x80 | (i & 0x3f));
			pairs[i][2] = (char)(0xc0 | (i >> 2));
			pairs[i][3] = (char)i;
			rec_init(&two[i], K_INSTR);
			rec_text_set(&two[i], IS_NAME, pairs[i], 4);
			rec_text_set(&two[i], IS_DETAIL, pairs[i] + 1, 2);
		}
		stream_roundtrip(two, 256, REC_JSON, "JSON, byte pairs around UTF-8 lead bytes");
	}
}

static void has(const char *s, const char *needle, const char *what)
{
	int ok = strstr(s, needle) != NULL;
	CHECK_MSG(ok, "%s: no %s in %s", what, needle, s);
}

/* What the JSON encoding looks like (optrace-records(5)). */
static void test_json_form(void)
{
	struct rec r;
	int fd;
	char *s;
	size_t n;

	rec_init(&r, K_INSTR);
	r.n[I_CORE].u = 3;
	r.n[I_SUBTYPE].u = SUB_VEC;
	r.n[I_SUBIDX].u = 1;
	r.n[I_BLOCK].i = -1;
	r.n[I_PC].u = 0x10f86000;
	r.n[I_BYTES].i = -5;
	r.n[I_VECUTIL].f = 0.5;
	r.n[I_ICACHE].u = REC_NONE;
	rec_text_set(&r, IS_PIPE, "VEC", 3);
	rec_text_set(&r, IS_NAME, "VADD", 4);
	rec_text_set(&r, IS_DETAIL, "\xc3\xa9\n\x1a\xff\"\\", 7);
	fd = put_all(&r, 1, REC_JSON);
	s = slurp_fd(fd, &n);
	close(fd);
	{
		char *z = xmalloc(n + 1);
		memcpy(z, s, n);
		z[n] = 0;
		free(s);
		s = z;
	}
	CHECK_MSG(!strncmp(s, "{\"kind\":\"instr\",", 16), "JSON starts with the kind: %s", s);
	CHECK_MSG(n > 0 && s[n - 1] == '\n' && count_byte(s, n, '\n') == 1, "JSON record is one line");
	has(s, "\"pc\":\"0x10f86000\"", "hex field is a \"0x...\" string");
	has(s, "\"sub\":\"veccore\"", "sub is a name");
	has(s, "\"block\":-1,", "negative i32");
	has(s, "\"bytes\":-5,", "negative i64");
	has(s, "\"vec_util\":0.5,", "fractional f64");
	has(s, "\"icache_tick\":null", "none is null");
	has(s, "\"name\":\"VADD\"", "text readable");
	has(s, "\xc3\xa9", "valid UTF-8 is kept as it is");
	has(s, "\\u000a", "LF escaped");
	has(strcasestr(s, "\\u001a") ? "ok" : s, "ok", "ESC escaped as \\u001a");
	has(strcasestr(s, "\\udcff") ? "ok" : s, "ok", "byte 0xff escaped as \\udcff");
	has(s, "\\\"\\\\\"", "quote and backslash escaped");
	free(s);
}

/* Random records of every kind through JSON (rec_put into a wr, rd_line +
 * rec_decode back) and through the binary stream the same way. */
static void test_stream_roundtrip(void)
{
	static struct rec recs[NKINDS * 300];
	int n = 0, i, k;
	for (i = 0; i < 300; i++)
		for (k = 0; k < NKINDS; k++)
			rnd_rec(&recs[n++], kinds[k], i % 50 == 0 ? 5000 : 80);
	stream_roundtrip(recs, n, REC_JSON, "JSON stream of random records");
	stream_roundtrip(recs, n, REC_BIN, "binary stream of random records");
	arena_free();

	/* A huge text (bigger than the writer and reader buffers). */
	{
		size_t big = 3u << 20;
		char *t = xmalloc(big);
		struct rec r[2];
		for (i = 0; i < (int)big; i++)
			t[i] = (char)(i % 7 == 0 ? '\n' : i % 11 == 0 ? 0x1a : i % 13 == 0 ? 0xff : 'a' + i % 26);
		rec_init(&r[0], K_LINE);
		rec_text_set(&r[0], LS_TEXT, t, big);
		rec_init(&r[1], K_DIAG);
		rec_text_set(&r[1], DS_MESSAGE, "after the big one", 17);
		stream_roundtrip(r, 2, REC_BIN, "binary, one 3 MiB text");
		stream_roundtrip(r, 2, REC_JSON, "JSON, one 3 MiB text");
		free(t);
	}
}

/* One record as a JSON line, in a block of its length without the LF;
 * *n the length. */
static char *json_line(const struct rec *r, size_t *n)
{
	int fd = put_all(r, 1, REC_JSON);
	char *s = slurp_fd(fd, n), *line;
	close(fd);
	line = dup_exact(s, --*n);
	free(s);
	return line;
}

/* The on-board kinds by name: a PMU sample of the last slot, and back. */
static void test_board_kinds(void)
{
	struct rec r, got;
	struct rec_dec d = { 0 };
	const char *why;
	char *line;
	size_t n;

	rec_init(&r, K_PMU);
	r.n[P_FILE].u = 10;
	r.n[P_CORE].u = 1;
	r.n[P_NSLOTS].u = 10;
	r.n[P_EVENT0 + 9].u = 1468;
	r.n[P_COUNT0 + 9].u = 0xffffffffffffffffULL;
	r.n[P_CYCLES].u = 50000;
	line = json_line(&r, &n);
	has(strstr(line, "\"kind\":\"pmu\",\"file\":10,") ? "ok" : "", "ok", "pmu record: kind and file first");
	has(strstr(line, "\"event9\":1468,") ? "ok" : "", "ok", "pmu record: the last slot's event");
	has(strstr(line, "\"count9\":null") ? "ok" : "", "ok", "pmu record: a count of all ones is null");
	CHECK_MSG(rec_decode(&d, line, n, &got, &why) == DEC_OK && got.sc->kind == K_PMU &&
	          got.n[P_COUNT0 + 9].u == 0xffffffffffffffffULL && got.n[P_EVENT0 + 9].u == 1468 &&
	          got.n[P_CYCLES].u == 50000, "pmu record: JSON back to the numbers");
	free(line);

	rec_init(&r, K_BASIC);
	r.n[B_CURFREQ].i = -1;
	r.n[B_HAVE].u = REC_BASIC_OPNAME | REC_BASIC_SOC;
	rec_text_set(&r, BS_OPNAME, "add", 3);
	rec_text_set(&r, BS_CURFREQ, "N/A", 3);
	line = json_line(&r, &n);
	has(strstr(line, "\"cur_freq\":-1,") ? "ok" : "", "ok", "basic record: an unknown clock is -1");
	has(strstr(line, "\"op_name\":\"add\"") ? "ok" : "", "ok", "basic record: the op name");
	CHECK_MSG(rec_decode(&d, line, n, &got, &why) == DEC_OK && got.n[B_CURFREQ].i == -1 &&
	          got.s[BS_CURFREQ].n == 3 && !memcmp(got.s[BS_CURFREQ].p, "N/A", 3),
	          "basic record: JSON back");
	free(line);
	rec_dec_free(&d);
}

/* Binary -> JSON -> binary gives the same bytes (what rec-cat does). */
static void test_bin_json_bin(void)
{
	static struct rec recs[NKINDS * 400];
	int n = 0, i, k, fa, fb = -1, fc = -1, bad = 0;
	struct rd *r;
	struct wr *w;
	struct rec_dec d = { 0 };
	struct rec got;
	const char *line, *why;
	size_t len, na, nc;
	char *a, *c;

	for (i = 0; i < 400; i++)
		for (k = 0; k < NKINDS; k++)
			rnd_rec(&recs[n++], kinds[k], 100);
	fa = put_all(recs, n, REC_BIN);

	for (k = 0; k < 2; k++) {
		int from = k == 0 ? fa : fb, to = io_tmpfd();
		lseek(from, 0, SEEK_SET);
		r = rd_fdopen(from, "in");
		w = wr_fdopen(to, "out", 0);
		while ((line = rd_line(r, &len))) {
			char *copy = dup_exact(line, len);
			if (rec_decode(&d, copy, len, &got, &why) != DEC_OK) {
				if (!bad++)
					CHECK_MSG(0, "bin->json->bin: pass %d: line %llu: %s", k,
					      (unsigned long long)rd_lineno(r), why ? why : "?");
			} else {
				rec_put(w, k == 0 ? REC_JSON : REC_BIN, &got);
			}
			free(copy);
		}
		CHECK_MSG(rd_lineno(r) == (uint64_t)n, "bin->json->bin pass %d: %llu lines, want %d", k,
		      (unsigned long long)rd_lineno(r), n);
		rd_close(r);
		CHECK_MSG(wr_close(w) == 0, "wr_close");
		if (k == 0)
			fb = to;
		else
			fc = to;
	}
	a = slurp_fd(fa, &na);
	c = slurp_fd(fc, &nc);
	CHECK_MSG(na == nc && !memcmp(a, c, na), "binary -> JSON -> binary is byte-identical (%zu vs %zu bytes)", na, nc);
	free(a);
	free(c);
	close(fa);
	close(fb);
	close(fc);
	rec_dec_free(&d);
	arena_free();
}

/* Non-finite doubles: optrace-records(5) promises that converting binary to
 * JSON and back gives the same bytes.  A NaN is what 0.0 / 0.0 gives in a
 * calculator (0xfff8000000000000 on x86). */
static void test_nonfinite(void)
{
	static const uint64_t bits[] = {
		0x7ff0000000000000ULL,  /* +inf */
		0xfff0000000000000ULL,  /* -inf */
		0x7ff8000000000000ULL,  /* NAN */
		0xfff8000000000000ULL,  /* 0.0 / 0.0 on x86 */
		0x7ff0000000000001ULL,  /* a signalling NaN */
		0xffffffffffffffffULL,  /* REC_NONE */
	};
	volatile double zero = 0.0;
	double div = zero / zero;
	int i;
	for (i = 0; i < (int)(sizeof bits / sizeof bits[0]) + 1; i++) {
		struct rec r[1];
		int fd;
		struct rd *rd;
		struct rec_dec d = { 0 };
		struct rec got;
		const char *line, *why;
		size_t len;
		uint64_t want;
		int rc;

		rec_init(&r[0], K_INSTR);
		if (i < (int)(sizeof bits / sizeof bits[0]))
			memcpy(&r[0].n[I_VECUTIL].f, &bits[i], 8);
		else
			r[0].n[I_VECUTIL].f = div;
		want = r[0].n[I_VECUTIL].u;
		fd = put_all(r, 1, REC_JSON);
		lseek(fd, 0, SEEK_SET);
		rd = rd_fdopen(fd, "json");
		line = rd_line(rd, &len);
		got.n[I_VECUTIL].u = 0;
		rc = line ? rec_decode(&d, line, len, &got, &why) : DEC_BAD;
		CHECK_MSG(rc == DEC_OK && got.n[I_VECUTIL].u == want,
		      "vec_util 0x%016llx (%g) survives binary -> JSON -> binary: decode %d, read back 0x%016llx",
		      (unsigned long long)want, r[0].n[I_VECUTIL].f, rc, (unsigned long long)got.n[I_VECUTIL].u);
		rd_close(rd);
		close(fd);
		rec_dec_free(&d);
	}
}

/* JSON as jq and people write it: any order, white space, other escapes,
 * missing fields. */
static void test_json_lenient(void)
{
	struct rec_dec d = { 0 };
	struct rec r;
	const char *why;
	char *l;
	int rc;
	const char *s;

	s = "{\"text\":\"a\\u000ab\\u001a\\udcff\\u0000z\",\"line\":7,\"kind\":\"line\",\"sub\":\"veccore\","
	    "\"log\":\"popped\",\"file\":2,\"core\":3,\"subidx\":1}";
	l = dup_exact(s, strlen(s));
	rc = rec_decode(&d, l, strlen(s), &r, &why);
	CHECK_MSG(rc == DEC_OK, "kind not first (jq -S order): %s", why ? why : "");
	if (rc == DEC_OK) {
		CHECK_MSG(r.sc->kind == K_LINE && r.n[L_LINE].u == 7 && r.n[L_FILE].u == 2 && r.n[L_CORE].u == 3 &&
		      r.n[L_SUBTYPE].u == SUB_VEC && r.n[L_SUBIDX].u == 1 && r.n[L_LOG].u == LOG_POPPED,
		      "numbers and names of a reordered object");
		CHECK_MSG(r.s[LS_TEXT].n == 7 && !memcmp(r.s[LS_TEXT].p, "a\nb\x1a\xff\0z", 7),
		      "\\u000a, \\u001a, \\udcff, \\u0000 give LF, ESC, 0xff, NUL");
	}
	free(l);

	s = "  { \"kind\" : \"instr\" , \"pc\" : \"0X1F\" , \"block\" : -3 , \"vec_util\" : -1 ,"
	    " \"bytes\" : -9007199254740993 , \"name\" : \"VMUL\" , \"icache_tick\" : null ,"
	    " \"detail\" : \"\\/\\b\\f\\n\\r\\t\\\"\\\\\\u00e9\\u00E9\\ud83d\\ude00\" }";
	l = dup_exact(s, strlen(s));
	rc = rec_decode(&d, l, strlen(s), &r, &why);
	CHECK_MSG(rc == DEC_OK, "spaces around everything: %s", why ? why : "");
	if (rc == DEC_OK) {
		CHECK_MSG(r.sc->kind == K_INSTR && r.n[I_PC].u == 0x1f && r.n[I_BLOCK].i == -3 &&
		      r.n[I_VECUTIL].f == -1.0 && r.n[I_BYTES].i == -9007199254740993LL &&
		      r.n[I_ICACHE].u == REC_NONE, "values with spaces");
		CHECK_MSG(r.s[IS_NAME].n == 4 && !memcmp(r.s[IS_NAME].p, "VMUL", 4), "name with spaces");
		CHECK_MSG(r.s[IS_DETAIL].n == 16 &&
		      !memcmp(r.s[IS_DETAIL].p, "/\b\f\n\r\t\"\\\xc3\xa9\xc3\xa9\xf0\x9f\x98\x80", 16),
		      "standard escapes and a surrogate pair");
		/* Missing fields take their defaults. */
		CHECK_MSG(r.n[I_START].u == 0 && r.n[I_END].u == 0 &&
		      r.n[I_ID].u == 0 && r.s[IS_PIPE].n == 0, "missing fields are 0 / empty");
	}
	free(l);

	/* As jq -c prints a record: compact, keys as put_json wrote them. */
	s = "{\"kind\":\"mark\",\"core\":0,\"sub\":\"\",\"subidx\":0,\"block\":0,\"subblock\":-1,\"mark\":1,"
	    "\"start\":100,\"end\":250,\"start_pc\":\"0x10\",\"end_pc\":null,\"name\":\"Mark 0x1\",\"detail\":\"\"}";
	l = dup_exact(s, strlen(s));
	rc = rec_decode(&d, l, strlen(s), &r, &why);
	CHECK_MSG(rc == DEC_OK && r.sc->kind == K_MARK && r.n[M_SUBTYPE].u == SUB_NONE && r.n[M_SUBBLOCK].i == -1 &&
	      r.n[M_END].u == 250 && r.n[M_STARTPC].u == 0x10 && r.n[M_ENDPC].u == REC_NONE &&
	      r.s[MS_NAME].n == 8, "jq -c output of a mark record");
	free(l);

	/* Unknown keys are ignored (newer writers may add fields). */
	s = "{\"kind\":\"diag\",\"future\":[],\"level\":2,\"more\":{},\"message\":\"hi\",\"x\":\"y\"}";
	l = dup_exact(s, strlen(s));
	rc = rec_decode(&d, l, strlen(s), &r, &why);
	(void)rc; /* [] and {} are beyond the flat format: only must not crash */
	free(l);
	s = "{\"kind\":\"diag\",\"future\":1,\"level\":2,\"message\":\"hi\",\"x\":\"y\"}";
	l = dup_exact(s, strlen(s));
	rc = rec_decode(&d, l, strlen(s), &r, &why);
	CHECK_MSG(rc == DEC_OK && r.n[D_LEVEL].u == 2 && r.s[DS_MESSAGE].n == 2, "unknown JSON keys are ignored");
	free(l);

	/* A CR at the end (CRLF files) is white space. */
	s = "{\"kind\":\"trailer\",\"records\":5}\r";
	l = dup_exact(s, strlen(s));
	rc = rec_decode(&d, l, strlen(s), &r, &why);
	CHECK_MSG(rc == DEC_OK && r.n[T_RECORDS].u == 5, "JSON with a trailing CR");
	free(l);

	/* Leading white space other than a space (JSON allows tab). */
	s = "\t{\"kind\":\"trailer\",\"records\":5}";
	l = dup_exact(s, strlen(s));
	rc = rec_decode(&d, l, strlen(s), &r, &why);
	CHECK_MSG(rc == DEC_OK && r.n[T_RECORDS].u == 5, "JSON object after a tab: got %d (%s)", rc, why ? why : "");
	free(l);

	/* Tab is JSON white space too, also after a number. */
	s = "{\"kind\":\"trailer\",\t\"records\":5\t,\"bad\":1\t}";
	l = dup_exact(s, strlen(s));
	rc = rec_decode(&d, l, strlen(s), &r, &why);
	CHECK_MSG(rc == DEC_OK && r.n[T_RECORDS].u == 5 && r.n[T_BAD].u == 1,
	      "JSON with a tab after a number: got %d (%s)", rc, why ? why : "ok");
	free(l);
	rec_dec_free(&d);
}

struct bad_case {
	const char *s;
	size_t n;     /* 0: strlen */
	int want;     /* DEC_BAD or DEC_UNKNOWN */
};

static void expect(struct rec_dec *d, const char *s, size_t n, int want, const char *what)
{
	struct rec r;
	const char *why = NULL;
	char *l = dup_exact(s, n);
	int rc = rec_decode(d, l, n, &r, &why);
	if (want == DEC_BAD)
		CHECK_MSG(rc == DEC_BAD && why && *why, "%s: want DEC_BAD with a reason, got %d (%s)", what, rc,
		      why ? why : "no reason");
	else
		CHECK_MSG(rc == want, "%s: want %d, got %d (%s)", what, want, rc, why ? why : "no reason");
	free(l);
}

static void test_malformed_bin(void)
{
	struct rec_dec d = { 0 };
	int round, k, c;
	char msg[160];

	expect(&d, "", 0, DEC_BAD, "empty line");

	/* Every proper prefix of a valid record is DEC_BAD. */
	for (round = 0; round < 40; round++)
		for (k = 0; k < NKINDS; k++) {
			struct rec r;
			size_t n, cut;
			char *b;
			int bad = 0;
			rnd_rec(&r, kinds[k], 30);
			b = bin_of(&r, &n);
			for (cut = 1; cut + 1 < n; cut++) {
				struct rec got;
				const char *why = NULL;
				char *l = dup_exact(b, cut);
				int rc = rec_decode(&d, l, cut, &got, &why);
				if (rc != DEC_BAD || !why)
					bad++;
				free(l);
			}
			if (bad) {
				snprintf(msg, sizeof msg, "truncated %s records: %d prefixes not DEC_BAD", r.sc->name, bad);
				CHECK_MSG(0, "%s", msg);
			}
			/* Trailing bytes after the last field. */
			{
				char *l = xmalloc(n + 1);
				memcpy(l, b, n - 1);
				l[n - 1] = 'x';
				expect(&d, l, n, DEC_BAD, "trailing byte after a record");
				l[n - 1] = 0;
				expect(&d, l, n, DEC_BAD, "trailing NUL after a record");
				free(l);
				l = xmalloc(n + 1);
				memcpy(l, b, n - 1);
				l[n - 1] = REC_ESC;
				l[n] = 'J';
				expect(&d, l, n + 1, DEC_BAD, "trailing escaped LF after a record");
				free(l);
			}
			free(b);
		}
	arena_free();

	/* Bad escapes. */
	{
		struct rec r;
		size_t n;
		char *b, *l;
		rec_init(&r, K_LINE);
		rec_text_set(&r, LS_TEXT, "ab", 2);
		b = bin_of(&r, &n);          /* 'L', 32 bytes of numbers, len, "ab", LF */
		l = dup_exact(b, n - 1);
		l[n - 2] = REC_ESC;          /* ESC as the very last byte */
		expect(&d, l, n - 1, DEC_BAD, "ESC at the end of the record");
		l[n - 3] = REC_ESC;
		l[n - 2] = 'A';              /* ESC + a letter other than J/Z */
		expect(&d, l, n - 1, DEC_BAD, "ESC followed by 'A'");
		l[n - 2] = REC_ESC;          /* ESC ESC */
		expect(&d, l, n - 1, DEC_BAD, "ESC followed by ESC");
		l[n - 2] = 'j';
		expect(&d, l, n - 1, DEC_BAD, "ESC followed by 'j'");
		l[3] = REC_ESC;
		l[4] = 0;
		expect(&d, l, n - 1, DEC_BAD, "ESC followed by NUL inside a number");
		free(l);

		/* Text length past the end. */
		l = dup_exact(b, n - 1);
		l[n - 1 - 2 - 4] = 3;        /* length 3, 2 bytes follow */
		expect(&d, l, n - 1, DEC_BAD, "text length 3 with 2 bytes left");
		l[n - 1 - 2 - 4] = (char)0xff;
		l[n - 1 - 2 - 3] = (char)0xff;
		l[n - 1 - 2 - 2] = (char)0xff;
		l[n - 1 - 2 - 1] = (char)0xff;
		expect(&d, l, n - 1, DEC_BAD, "text length 0xffffffff");
		l[n - 1 - 2 - 4] = 1;
		l[n - 1 - 2 - 3] = 0;
		l[n - 1 - 2 - 2] = 0;
		l[n - 1 - 2 - 1] = 0;
		expect(&d, l, n - 1, DEC_BAD, "text length 1 with 2 bytes left (trailing byte)");
		free(l);
		free(b);
	}
	expect(&d, "L", 1, DEC_BAD, "kind byte alone");
	expect(&d, "I\x1a", 2, DEC_BAD, "kind byte and ESC");
	expect(&d, "T\x1aJ", 3, DEC_BAD, "kind byte and one escaped byte");

	/* Unknown kind letters (and other first bytes) are DEC_UNKNOWN. */
	for (c = 0; c < 256; c++) {
		char l[6] = { (char)c, 'a', '\x1a', 'J', 'b', '\r' };
		if (rec_schema(c) || c == '{' || c == ' ')
			continue;
		{
			struct rec r;
			const char *why;
			char *h = dup_exact(l, sizeof l);
			int rc = rec_decode(&d, h, sizeof l, &r, &why);
			CHECK_MSG(rc == DEC_UNKNOWN, "first byte 0x%02x: want DEC_UNKNOWN, got %d", c, rc);
			free(h);
			h = dup_exact(l, 1);
			rc = rec_decode(&d, h, 1, &r, &why);
			CHECK_MSG(rc == DEC_UNKNOWN, "lone first byte 0x%02x: want DEC_UNKNOWN, got %d", c, rc);
			free(h);
		}
	}

	/* Random garbage after a known kind: never crashes; what decodes
	 * re-encodes to the same bytes (the binary form is canonical). */
	{
		int ok = 0, bad = 0;
		for (round = 0; round < 200000; round++) {
			size_t n = 1 + rnd_n(round % 100 == 0 ? 400 : 60), i;
			char *l = xmalloc(n);
			struct rec r;
			const char *why;
			int rc;
			l[0] = (char)kinds[rnd_n(NKINDS)];
			for (i = 1; i < n; i++) {
				uint64_t x = rnd_n(8);
				l[i] = (char)(x == 0 ? 0x1a : x == 1 ? (rnd_n(2) ? 'J' : 'Z') : x == 2 ? 0 : rnd_n(256));
				if (l[i] == '\n')
					l[i] = 'n';
			}
			/* Make plausible text lengths now and then. */
			if (n > 40 && rnd_n(2)) {
				memset(l + 1, 0, 36);
			}
			rc = rec_decode(&d, l, n, &r, &why);
			if (rc == DEC_OK) {
				size_t m;
				char *b = bin_of(&r, &m);
				ok++;
				if (m != n + 1 || memcmp(b, l, n)) {
					if (!bad++)
						CHECK_MSG(0, "random binary line of %zu bytes decodes but re-encodes differently", n);
				}
				free(b);
			} else if (rc == DEC_BAD && !why) {
				if (!bad++)
					CHECK_MSG(0, "DEC_BAD without a reason");
			}
			free(l);
		}
		CHECK_MSG(!bad, "random binary lines: no crash, canonical re-encoding (%d decoded)", ok);
	}
	rec_dec_free(&d);
}

static void test_malformed_json(void)
{
	static const struct bad_case cases[] = {
		{ "{", 0, DEC_BAD },
		{ " ", 0, DEC_BAD },
		{ "   {", 0, DEC_BAD },
		{ "{}", 0, DEC_BAD },
		{ "{ }", 0, DEC_BAD },
		{ "{\"file\":1}", 0, DEC_BAD },
		{ "{\"kind\":5}", 0, DEC_BAD },
		{ "{\"kind\":null}", 0, DEC_BAD },
		{ "{\"kind\":\"line\"", 0, DEC_BAD },
		{ "{\"kind\":\"line\",", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\"", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":1", 0, DEC_BAD },
		{ "{\"kind\":line}", 0, DEC_BAD },
		{ "{kind:\"line\"}", 0, DEC_BAD },
		{ "{'kind':'line'}", 0, DEC_BAD },
		{ "{\"kind\":\"line\" \"file\":1}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\"1}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":-1}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":1.5}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":1e3}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":4294967296}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":null}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":true}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":\"3\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"file\":0x10}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"line\":12abc}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"sub\":\"bogus\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"log\":\"bogus\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"sub\":4294967296}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"block\":2147483648}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"block\":-2147483649}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"block\":--1}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"vec_util\":abc}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"vec_util\":\"0.5\"}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"pc\":\"12\"}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"pc\":\"0x\"}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"pc\":\"0x123456789012345678901\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"abc}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"abc\\\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"\\x41\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"\\u12\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"\\u12g4\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"\\u", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"\\", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"\\ud800\\u0041\"}", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"\\ud800\\u", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"te\\", 0, DEC_BAD },
		{ "{\"kind\":\"line\",\"text\":\"abc\"", 0, DEC_BAD },
		{ "{\"kind\":\"li\\ne\"}", 0, DEC_UNKNOWN },
		{ "{\"kind\":\"bogus\",\"x\":1}", 0, DEC_UNKNOWN },
		{ "{\"x\":1,\"kind\":\"future\",\"y\":\"z\"}", 0, DEC_UNKNOWN },
		{ "{\"kind\":\"LINE\"}", 0, DEC_UNKNOWN },
		{ "{\"kind\":\"\"}", 0, DEC_UNKNOWN },
		{ " {\"kind\":\"zzz\"}", 0, DEC_UNKNOWN },
	};
	/* Inputs that are not valid JSON (or not a valid value) but that the
	 * decoder accepts (found by these tests). */
	static const struct bad_case lax[] = {
		/* Trailing bytes after the object: a second object on the same
		 * line (a missing LF) is silently dropped. */
		{ "{\"kind\":\"line\",\"line\":1}{\"kind\":\"line\",\"line\":2}", 0, DEC_BAD },
		{ "{\"kind\":\"line\"} garbage", 0, DEC_BAD },
		/* Hex strings that are not hex numbers become 0. */
		{ "{\"kind\":\"instr\",\"pc\":\"0xzz\"}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"pc\":\"0x-5\"}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"pc\":\"0x12 34\"}", 0, DEC_BAD },
		/* Out of range 64-bit numbers are clamped silently (to none or
		 * INT64_MAX) instead of being rejected like out of range 32-bit
		 * ones. */
		{ "{\"kind\":\"instr\",\"start\":18446744073709551616}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"bytes\":9223372036854775808}", 0, DEC_BAD },
		{ "{\"kind\":\"instr\",\"pc\":\"0x10000000000000000\"}", 0, DEC_BAD },
		/* A number where a text is expected is dropped silently (the
		 * name stays empty). */
		{ "{\"kind\":\"instr\",\"name\":5}", 0, DEC_BAD },
	};
	struct rec_dec d = { 0 };
	size_t i;
	char what[200];

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		size_t n = cases[i].n ? cases[i].n : strlen(cases[i].s);
		snprintf(what, sizeof what, "JSON %s", cases[i].s);
		expect(&d, cases[i].s, n, cases[i].want, what);
	}
	for (i = 0; i < sizeof lax / sizeof lax[0]; i++) {
		size_t n = lax[i].n ? lax[i].n : strlen(lax[i].s);
		snprintf(what, sizeof what, "JSON %s", lax[i].s);
		expect(&d, lax[i].s, n, lax[i].want, what);
	}

	/* Every prefix of a valid JSON record: no crash, never a wrong OK. */
	{
		struct rec r;
		int fd, bad = 0;
		char *s;
		size_t n, cut;
		rnd_rec(&r, K_INSTR, 40);
		fd = put_all(&r, 1, REC_JSON);
		s = slurp_fd(fd, &n);
		close(fd);
		for (cut = 1; cut + 1 < n; cut++) {
			struct rec got;
			const char *why;
			char *l = dup_exact(s, cut);
			if (rec_decode(&d, l, cut, &got, &why) != DEC_BAD)
				bad++;
			free(l);
		}
		CHECK_MSG(!bad, "JSON record cut short: %d of %zu prefixes not DEC_BAD", bad, n - 2);
		free(s);
		arena_free();
	}

	/* Random mutations of valid JSON: no crash; what decodes survives a
	 * JSON round trip. */
	{
		int round, bad = 0, ok = 0;
		for (round = 0; round < 20000; round++) {
			struct rec r, got;
			int fd, rc, m;
			char *s;
			size_t n;
			const char *why;
			rnd_rec(&r, kinds[rnd_n(NKINDS)], 20);
			fd = put_all(&r, 1, REC_JSON);
			s = slurp_fd(fd, &n);
			close(fd);
			n--; /* the LF */
			for (m = 1 + (int)rnd_n(4); m > 0; m--) {
				size_t at = rnd_n(n);
				switch (rnd_n(4)) {
				case 0: s[at] = (char)rnd_n(256); break;
				case 1: s[at] = "\"\\{}:,u0dcfe -"[rnd_n(14)]; break;
				case 2: if (n > 1) n = 1 + rnd_n(n); break;
				default: s[at] = (char)(s[at] ^ (1 << rnd_n(8))); break;
				}
			}
			{
				char *l = dup_exact(s, n);
				rc = rec_decode(&d, l, n, &got, &why);
				if (rc == DEC_BAD && !why) {
					if (!bad++)
						CHECK_MSG(0, "mutated JSON: DEC_BAD without a reason");
				}
				if (rc == DEC_OK) {
					/* Copy the record out of the decoder before re-encoding. */
					struct rec again[1];
					char msg[200];
					int i;
					ok++;
					again[0] = got;
					for (i = 0; i < got.sc->nstr; i++) {
						char *t = arena_alloc(got.s[i].n);
						if (got.s[i].n)
							memcpy(t, got.s[i].p, got.s[i].n);
						again[0].s[i].p = t;
					}
					for (i = 0; i < got.sc->nnum; i++)
						if (got.sc->num[i].type == RT_F64 && !isfinite(got.n[i].f))
							again[0].n[i].f = 0; /* see test_nonfinite */
					{
						int fd2 = put_all(again, 1, REC_JSON);
						size_t len;
						char *line = slurp_fd(fd2, &len);
						close(fd2);
						if (!len || line[len - 1] != '\n' ||
						    rec_decode(&d, line, len - 1, &got, &why) != DEC_OK ||
						    !rec_same(&again[0], &got, msg, sizeof msg)) {
							if (!bad++)
								CHECK_MSG(0, "mutated JSON %.*s decodes but does not survive a round trip",
								      (int)n, s);
						}
						free(line);
					}
				}
				free(l);
			}
			free(s);
			arena_free();
		}
		CHECK_MSG(!bad, "mutated JSON lines: no crash, round trip of what decodes (%d decoded)", ok);
	}
	rec_dec_free(&d);
}

/* Readable text: one line per record, no control bytes. */
static void test_text_mode(void)
{
	static struct rec recs[NKINDS * 200];
	int n = 0, i, k, fd;
	size_t len, j, lines;
	char *s;
	int ctl = 0;

	for (i = 0; i < 200; i++)
		for (k = 0; k < NKINDS; k++)
			rnd_rec(&recs[n++], kinds[k], 40);
	fd = put_all(recs, n, REC_TEXT);
	s = slurp_fd(fd, &len);
	close(fd);
	lines = count_byte(s, len, '\n');
	CHECK_MSG(lines == (size_t)n, "text mode: %zu lines for %d records", lines, n);
	for (j = 0; j < len; j++)
		if ((unsigned char)s[j] < 0x20 && s[j] != '\n')
			ctl++;
	CHECK_MSG(!ctl, "text mode: %d control bytes other than LF in the output", ctl);
	free(s);

	/* The same with control bytes in the pipe of an instruction only. */
	{
		struct rec r;
		rec_init(&r, K_INSTR);
		rec_text_set(&r, IS_PIPE, "VE\x1b[2J\x01", 7);
		rec_text_set(&r, IS_NAME, "VADD", 4);
		fd = put_all(&r, 1, REC_TEXT);
		s = slurp_fd(fd, &len);
		close(fd);
		ctl = 0;
		for (j = 0; j < len; j++)
			if ((unsigned char)s[j] < 0x20 && s[j] != '\n')
				ctl++;
		CHECK_MSG(!ctl && count_byte(s, len, '\n') == 1,
		      "text mode: control bytes in an instruction's pipe are shown escaped (%d raw)", ctl);
		free(s);
	}
	arena_free();
}

/* The decoder's scratch: text of one decode stays valid while the next
 * decode of another decoder runs, and lines of growing length work. */
static void test_decoders(void)
{
	struct rec_dec d1 = { 0 }, d2 = { 0 };
	struct rec a, b, ra, rb;
	const char *why;
	size_t na, nb;
	char *ba, *bb, *la, *lb;
	char msg[200];
	int i;

	for (i = 0; i < 50; i++) {
		rnd_rec(&a, K_INSTR, (size_t)i * 200);
		rnd_rec(&b, K_DIAG, (size_t)(50 - i) * 200);
		ba = bin_of(&a, &na);
		bb = bin_of(&b, &nb);
		la = dup_exact(ba, na - 1);
		lb = dup_exact(bb, nb - 1);
		CHECK_MSG(rec_decode(&d1, la, na - 1, &ra, &why) == DEC_OK, "decoder 1");
		CHECK_MSG(rec_decode(&d2, lb, nb - 1, &rb, &why) == DEC_OK, "decoder 2");
		CHECK_MSG(rec_same(&a, &ra, msg, sizeof msg) && rec_same(&b, &rb, msg, sizeof msg),
		      "two decoders at once: %s", msg);
		free(la);
		free(lb);
		free(ba);
		free(bb);
	}
	rec_dec_free(&d1);
	rec_dec_free(&d2);
	rec_dec_free(&d1); /* twice is harmless */
	arena_free();
}

/* ---- binary records where they lie (rec_layout, rec_view, rec_block) ---- */

/* The layout of every kind: a record whose field i alone is non-zero has
 * that value at off[i], in w[i] bytes, and the texts begin at off[nnum]. */
static void test_view_layout(void)
{
	static const int kinds[] = { K_HEADER, K_TRAILER, K_SOURCE, K_LINE, K_INSTR, K_MARK, K_DIAG,
	                             K_MTEBW, K_FETCH, K_MTEXFER, K_CODE, K_LAUNCH, K_API,
	                             K_PMU, K_STAMP, K_L2, K_BASIC };
	size_t k;
	CHECK_MSG(rec_layout('?') == NULL, "rec_layout of an unknown kind");
	for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		const struct rec_layout *l = rec_layout(kinds[k]);
		int i;
		CHECK_MSG(l && l->sc == rec_schema(kinds[k]) && rec_layout(kinds[k]) == l, "layout of %c", kinds[k]);
		if (!l)
			continue;
		CHECK_MSG(l->off[0] == 1, "%s: first number at %u", l->sc->name, l->off[0]);
		CHECK_MSG(l->kind == l->sc->kind && l->nstr == l->sc->nstr && l->texts == l->off[l->sc->nnum],
		          "%s: the kind, texts and their offset at hand", l->sc->name);
		for (i = 0; i < l->sc->nnum; i++) {
			struct rec r;
			uint64_t v = 0, want = l->w[i] == 8 ? 0x0102030405060708ULL : 0x01020304u;
			size_t n;
			char *b;
			int j;
			rec_init(&r, kinds[k]);
			for (j = 0; j < l->sc->nnum; j++)
				r.n[j].u = 0;
			r.n[i].u = want;
			b = bin_of(&r, &n);
			CHECK_MSG(l->w[i] == type_width(l->sc->num[i].type), "%s.%s: width %u", l->sc->name,
			      l->sc->num[i].name, l->w[i]);
			CHECK_MSG(l->off[i + 1] == l->off[i] + l->w[i], "%s.%s: offsets not consecutive", l->sc->name,
			      l->sc->num[i].name);
			memcpy(&v, b + l->off[i], l->w[i]);
			CHECK_MSG(v == want, "%s.%s: not at offset %u", l->sc->name, l->sc->num[i].name, l->off[i]);
			if (i == l->sc->nnum - 1)
				CHECK_MSG(n - 1 == l->off[i + 1] + 4u * (unsigned)l->sc->nstr, "%s: texts not at %u",
				      l->sc->name, l->off[i + 1]);
			free(b);
		}
	}
}

/* A view reads what the decoder reads, escapes or not. */
static void check_view(const struct rec *r, const char *line, size_t len, int unescape, const char *what)
{
	struct rec_view v;
	struct rec_dec d = { 0 };
	struct rec dr;
	const char *why, *p;
	size_t n;
	int i, ok;

	ok = rec_view(&v, rec_layout(r->sc->kind), line, len, unescape);
	CHECK_MSG(ok == (count_byte(line, len, 0x1a) <= REC_VIEW_ESC), "%s: rec_view %d with %zu escapes", what, ok,
	      count_byte(line, len, 0x1a));
	if (!ok)
		return;
	CHECK_MSG(rec_decode(&d, line, len, &dr, &why) == DEC_OK, "%s: decode", what);
	for (i = 0; i < r->sc->nnum; i++) {
		uint64_t x = rec_view_num(&v, i), y = dr.n[i].u;
		if (v.lay->w[i] == 4)
			y &= 0xffffffffu;
		CHECK_MSG(x == y, "%s: %s.%s 0x%llx, decoded 0x%llx", what, r->sc->name, r->sc->num[i].name,
		      (unsigned long long)x, (unsigned long long)y);
	}
	for (i = 0; i < r->sc->nstr; i++) {
		int one = rec_view_text(&v, i, &p, &n);
		CHECK_MSG(v.text_n[i] == dr.s[i].n, "%s: text %s length", what, r->sc->str[i]);
		CHECK_MSG(!one || (n == dr.s[i].n && !memcmp(p, dr.s[i].p, n)), "%s: text %s", what, r->sc->str[i]);
		CHECK_MSG(one || (!unescape || len > REC_VIEW_BUF), "%s: text %s not at hand after unescaping", what,
		      r->sc->str[i]);
		CHECK_MSG(rec_view_text_is(&v, i, dr.s[i].p, dr.s[i].n), "%s: rec_view_text_is %s", what, r->sc->str[i]);
		if (dr.s[i].n)
			CHECK_MSG(!rec_view_text_is(&v, i, dr.s[i].p, dr.s[i].n - 1), "%s: rec_view_text_is of a prefix", what);
	}
	rec_dec_free(&d);
}

/* Patch numbers [first, first + cnt) of line to vals; the decoded result
 * has them and the rest of r. */
static void check_patch(const struct rec *r, const char *line, size_t len, int first, int cnt,
                        const uint64_t *vals, const char *what)
{
	struct rec_view v;
	struct rec_dec d = { 0 };
	struct rec want = *r, got;
	char patch[REC_PATCH_MAX], *nl, msg[200];
	size_t from, to, k, nlen;
	const char *why;
	int i;

	if (!rec_view(&v, rec_layout(r->sc->kind), line, len, 1))
		return;
	k = rec_view_patch(&v, first, cnt, vals, patch, &from, &to);
	CHECK_MSG(from <= to && to <= len && k <= REC_PATCH_MAX, "%s: span [%zu, %zu) of %zu", what, from, to, len);
	CHECK_MSG(count_byte(patch, k, '\n') == 0, "%s: an LF in the patch", what);
	nlen = from + k + (len - to);
	nl = xmalloc(nlen);
	memcpy(nl, line, from);
	memcpy(nl + from, patch, k);
	memcpy(nl + from + k, line + to, len - to);
	for (i = 0; i < cnt; i++)
		want.n[first + i].u = vals[i];
	if (rec_decode(&d, nl, nlen, &got, &why) != DEC_OK) {
		CHECK_MSG(0, "%s: the patched record does not decode: %s", what, why);
	} else {
		if (r->sc->num[first].type == RT_I32)
			want.n[first].i = (int32_t)(uint32_t)vals[0];
		for (i = 0; i < r->sc->nnum; i++)
			if (r->sc->num[i].type == RT_I32)
				want.n[i].i = (int32_t)(uint32_t)want.n[i].u;
		CHECK_MSG(rec_same(&want, &got, msg, sizeof msg), "%s: after the patch: %s", what, msg);
	}
	if (k == to - from) {
		/* The same width: copied over the line in place, the same record. */
		char *in = xmalloc(len);
		memcpy(in, line, len);
		memcpy(in + from, patch, k);
		CHECK_MSG(nlen == len && !memcmp(in, nl, len), "%s: in place", what);
		free(in);
	}
	free(nl);
	rec_dec_free(&d);
}

static void test_view_patch(void)
{
	static const int kinds[] = { K_INSTR, K_LINE, K_FETCH, K_MARK, K_TRAILER, K_CODE };
	int round;
	char what[64];

	/* The ticks of an instruction record, to values whose bytes are LF
	 * and ESC, from values that had none, and back. */
	{
		struct rec r;
		uint64_t t[2] = { 0x0a1a0a1a0a1a0a1aULL, 0x1a }, u[2] = { 77, 78 };
		size_t n;
		char *b, *line;
		rec_init(&r, K_INSTR);
		r.n[I_PC].u = 0x10f86000;
		r.n[I_START].u = 1000;
		rec_text_set(&r, IS_PIPE, "SCALAR", 6);
		rec_text_set(&r, IS_DETAIL, "x\ny\x1az", 5);
		b = bin_of(&r, &n);
		line = dup_exact(b, n - 1);
		check_patch(&r, line, n - 1, I_ICACHE, 2, t, "ticks to LF/ESC bytes");
		check_patch(&r, line, n - 1, I_ICACHE, 1, u, "icache_tick alone");
		check_patch(&r, line, n - 1, I_SYNC, 1, t + 1, "the last number (ESC)");
		check_patch(&r, line, n - 1, I_CORE, 1, t, "the first number (only 4 bytes kept)");
		free(line);
		free(b);
		r.n[I_ICACHE].u = 0x0a0a0a0a0a0a0a0aULL;
		r.n[I_CCU].u = 0x1a0a;
		b = bin_of(&r, &n);
		line = dup_exact(b, n - 1);
		check_patch(&r, line, n - 1, I_ICACHE, 2, u, "ticks from LF/ESC bytes to plain ones");
		check_patch(&r, line, n - 1, I_ICACHE, 2, t, "ticks from LF/ESC bytes to others");
		free(line);
		free(b);
	}
	for (round = 0; round < 3000; round++) {
		int kind = kinds[rnd_n(sizeof kinds / sizeof kinds[0])], first, cnt, i;
		struct rec r;
		uint64_t vals[3];
		size_t n;
		char *b, *line;
		rnd_rec(&r, kind, rnd_n(8) ? 40 : 1500);
		b = bin_of(&r, &n);
		line = dup_exact(b, n - 1);
		snprintf(what, sizeof what, "round %d (%s)", round, r.sc->name);
		check_view(&r, line, n - 1, (int)rnd_n(2), what);
		first = (int)rnd_n((uint64_t)r.sc->nnum);
		cnt = 1 + (int)rnd_n(3);
		if (first + cnt > r.sc->nnum)
			cnt = r.sc->nnum - first;
		for (i = 0; i < cnt; i++)
			vals[i] = rnd_bits(rec_layout(kind)->w[first + i]);
		check_patch(&r, line, n - 1, first, cnt, vals, what);
		free(line);
		free(b);
	}
	arena_free();

	/* What a view does not take: the decoder's. */
	{
		struct rec r;
		struct rec_view v;
		size_t n;
		char *b;
		rec_init(&r, K_FETCH);
		b = bin_of(&r, &n);
		CHECK_MSG(rec_view(&v, rec_layout(K_FETCH), b, n - 1, 1), "a fetch record");
		CHECK_MSG(!rec_view(&v, rec_layout(K_FETCH), b, n - 2, 1), "a fetch record one byte short");
		CHECK_MSG(!rec_view(&v, rec_layout(K_LINE), b, n - 1, 1), "a fetch record as a line record");
		b[3] = 0x1a;
		b[4] = 'Q';
		CHECK_MSG(!rec_view(&v, rec_layout(K_FETCH), b, n - 1, 1), "a bad escape");
		free(b);
		rec_init(&r, K_LINE);
		rec_text_set(&r, LS_TEXT, "\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", 33);
		b = bin_of(&r, &n);
		CHECK_MSG(!rec_view(&v, rec_layout(K_LINE), b, n - 1, 1), "more escapes than a view holds");
		free(b);
	}
}

/* A stream through the block reader: what is left alone comes out as it
 * went in (a record longer than a block, escapes across words, a last
 * line without LF); taken records are gone, patched ones decode to their
 * new values. */
static void test_block(void)
{
	enum { N = 3000 };
	static struct rec want[N];
	static int kept[N];
	int pass;

	for (pass = 0; pass < 2; pass++) {
		int fin = io_tmpfd(), fout = io_tmpfd(), i, nout = 0;
		struct rd *in;
		struct wr *w;
		struct rec_block b;
		struct rec_dec d = { 0 };
		char *all, *back;
		size_t nall = 0, nback, n;
		const char *why;
		uint64_t ticks[2];

		CHECK_MSG(fin >= 0 && fout >= 0, "temporary files");
		if (fin < 0 || fout < 0)
			return;
		for (i = 0; i < N; i++) {
			static const int kinds[] = { K_INSTR, K_INSTR, K_LINE, K_FETCH, K_MARK };
			char *e;
			rnd_rec(&want[i], i == N / 2 ? K_LINE : kinds[rnd_n(5)], 60);
			if (i == N / 2 && want[i].sc->nstr) {
				/* Longer than a block (128 KiB), escapes all along. */
				char *t = arena_alloc(300000);
				size_t j;
				for (j = 0; j < 300000; j++)
					t[j] = j % 97 == 0 ? '\n' : j % 89 == 0 ? 0x1a : (char)('a' + j % 26);
				rec_text_set(&want[i], 0, t, 300000);
			}
			e = bin_of(&want[i], &n);
			if (i == N - 1)
				n--;    /* the last line without its LF */
			CHECK_MSG(write(fin, e, n) == (ssize_t)n, "write");
			free(e);
		}
		lseek(fin, 0, SEEK_SET);
		in = rd_fdopen(fin, "blocks");
		w = wr_fdopen(fout, "out", 0);
		rec_block_init(&b, w);
		rec_block_start(&b, in);
		i = 0;
		while (rec_block_read(&b))
			while (rec_block_next(&b)) {
				struct rec_view v;
				CHECK_MSG(b.lineno == (uint64_t)i + 1, "line number %llu of record %d",
				      (unsigned long long)b.lineno, i);
				kept[i] = 1;
				if (pass && b.line[0] == K_LINE) {
					rec_block_take(&b);
					kept[i] = 0;
				} else if (pass && b.line[0] == K_INSTR &&
				           rec_block_view(&b, &v, rec_layout(K_INSTR), rnd_n(2))) {
					ticks[0] = rnd_bits(8);
					ticks[1] = rnd_bits(8);
					rec_block_patch(&b, &v, I_ICACHE, 2, ticks);
					want[i].n[I_ICACHE].u = ticks[0];
					want[i].n[I_CCU].u = ticks[1];
				} else if (b.line[0] == K_FETCH) {
					CHECK_MSG(rec_block_view(&b, &v, rec_layout(K_FETCH), 0) &&
					      rec_view_num(&v, S_PC) == want[i].n[S_PC].u, "fetch %d in the block", i);
				}
				i++;
			}
		rec_block_end(&b);
		CHECK_MSG(i == N && !rd_error(in), "%d records of %d read", i, N);
		CHECK_MSG(wr_flush(w) == 0, "flush");
		back = slurp_fd(fout, &nback);
		if (!pass) {
			all = slurp_fd(fin, &nall);
			CHECK_MSG(nback == nall + 1 && !memcmp(all, back, nall) && back[nall] == '\n',
			      "left alone, the stream comes out as it went in (%zu bytes of %zu)", nback, nall);
			free(all);
		} else {
			const char *p = back, *end = back + nback;
			char msg[200];
			for (i = 0; i < N; i++) {
				const char *nl;
				struct rec r;
				if (!kept[i])
					continue;
				nl = memchr(p, '\n', (size_t)(end - p));
				if (!nl || rec_decode(&d, p, (size_t)(nl - p), &r, &why) != DEC_OK) {
					CHECK_MSG(0, "record %d: not decoded", i);
					break;
				}
				CHECK_MSG(rec_same(&want[i], &r, msg, sizeof msg), "record %d: %s", i, msg);
				nout++;
				p = nl + 1;
			}
			CHECK_MSG(p == end, "nothing after the last record (%zu bytes)", (size_t)(end - p));
		}
		free(back);
		rec_block_free(&b);
		wr_abort(w);
		rd_close(in);
		close(fout);
		rec_dec_free(&d);
		arena_free();
	}
}

/* The block view of an instruction whose last texts are empty (most
 * are: the sync texts) reads them side by side; a length that is not zero
 * where only the lengths fit is still a record that does not add up. */
static void test_block_empty_texts(void)
{
	struct rec r;
	char *e, *bad;
	size_t n;
	int fd = io_tmpfd(), i, views[2] = { -1, -1 };
	struct rd *in;
	struct wr *w;
	struct rec_block b;
	struct rec_view v;

	rec_init(&r, K_INSTR);
	r.n[I_PC].u = 0x1234;
	rec_text_set(&r, IS_PIPE, "VECTOR", 6);
	rec_text_set(&r, IS_NAME, "VADD", 4);
	e = bin_of(&r, &n);
	CHECK_MSG(fd >= 0 && !memchr(e + 1, 0x1a, n - 2), "an instruction without escapes");
	bad = malloc(n);
	memcpy(bad, e, n);
	bad[n - 2] = 1;    /* the last text's length, high byte: 1 << 24 */
	CHECK_MSG(write(fd, e, n) == (ssize_t)n && write(fd, bad, n) == (ssize_t)n, "write");
	lseek(fd, 0, SEEK_SET);
	in = rd_fdopen(fd, "empty texts");
	w = wr_fdopen(io_tmpfd(), "out", 0);
	rec_block_init(&b, w);
	rec_block_start(&b, in);
	i = 0;
	while (rec_block_read(&b))
		while (rec_block_next(&b)) {
			if (i < 2)
				views[i] = rec_block_view(&b, &v, rec_layout(K_INSTR), 0);
			if (i == 0 && views[0]) {
				const char *t;
				size_t tn;
				CHECK_MSG(rec_view_text(&v, IS_PIPE, &t, &tn) && tn == 6 && !memcmp(t, "VECTOR", 6),
				          "the pipe of the view");
				CHECK_MSG(v.text_n[IS_PROD] == 0 && v.text_n[IS_CONS] == 0 && v.text_n[IS_FLAG] == 0,
				          "the empty sync texts");
				CHECK_MSG(rec_view_num(&v, I_PC) == 0x1234, "the pc of the view");
			}
			i++;
		}
	rec_block_end(&b);
	CHECK_MSG(i == 2, "two records (%d)", i);
	CHECK_MSG(views[0] == 1, "the record with empty texts is viewed");
	CHECK_MSG(views[1] == 0, "a text length where only the lengths fit is refused");
	rec_block_free(&b);
	wr_abort(w);
	rd_close(in);
	free(bad);
	free(e);
}

int main(void)
{
	const char *seed = getenv("TEST_SEED");
	if (seed && *seed)
		rng = strtoull(seed, NULL, 0) | 1;
	test_layout();
	test_names();
	test_rec_out();
	test_bin_roundtrip();
	test_all_bytes();
	test_json_form();
	test_board_kinds();
	test_stream_roundtrip();
	test_bin_json_bin();
	test_nonfinite();
	test_json_lenient();
	test_malformed_bin();
	test_malformed_json();
	test_text_mode();
	test_decoders();
	test_view_layout();
	test_view_patch();
	test_block();
	test_block_empty_texts();
	arena_free();
	return unit_done();
}
