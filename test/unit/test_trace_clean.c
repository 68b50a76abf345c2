/* Unit tests of trace-clean's streaming JSON scanner (cmd/trace-clean/jscan.c):
 * numbers read exactly as strtod (and Python's float) reads them, values
 * and errors at the right offsets, documents scanned through a window far
 * smaller than they are; and of its external sort (cmd/trace-clean/spill.c):
 * every record back, in order, from memory, from runs on disk, through
 * merges of merges, and without a temporary file.  The tool's rules are
 * tested by test/bats/trace-clean.bats.
 *
 *   make build/unit/test_trace_clean && build/unit/test_trace_clean
 *
 * It links the tool's objects of those files (see the Makefile).
 *
 * Prints one line per failing check, then "N passed, N failed". */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cmd/trace-clean/tc.h"

#include "unit.h"

/* XS_FANIN (tc.h): how many runs the spill merges at once; the sorts below
 * go past it. */

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) { return unit_xorshift(&rs); }

/* Numbers are checked by the hundred thousand: count the misreads and
 * keep the first, one check per batch. */
static long misread;
static char first_misread[160];

static void num_is(const char *s)
{
	int ok;
	double a = jnum(s, strlen(s), &ok), b = strtod(s, NULL);
	int good = isfinite(b) ? ok && memcmp(&a, &b, sizeof a) == 0 : !ok;
	if (!good && !misread++)
		snprintf(first_misread, sizeof first_misread, "jnum(%s) = %.17g (ok %d), strtod says %.17g", s, a,
		         ok, b);
}

static void numbers_done(const char *what)
{
	CHECK_MSG(!misread, "%s: %ld misread, first: %s", what, misread, first_misread);
	misread = 0;
}

static void test_numbers(void)
{
	static const char *const fixed[] = {
		"0", "-0", "1", "12", "5.964864730834961", "6.3335137367248535", "0.00054", "0.000541",
		"1e-05", "1E+3", "123456789012345678", "1234567890123456789", "12345678901234567890",
		"9007199254740993", "9007199254740992", "0.1", "0.30000000000000004", "1.7976931348623157e308",
		"4.9406564584124654e-324", "2.2250738585072014e-308", "-12.5", "100000000000000000000000",
		"0.000000000000000000001", "3.0000000000000001", "2.5e-3", "7.0e22", "8.5e-23",
		"18446744073709551615", "0.12345678901234567890123", "1.00000000000000011102230246251565404236316680908203125",
		"1.000000000000000111022302462515654042363166809082031250001",
	};
	size_t i;
	char buf[64];
	int ok;

	for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		num_is(fixed[i]);
	numbers_done("fixed cases");
	/* Doubles printed every way a writer might. */
	for (i = 0; i < 200000; i++) {
		uint64_t bits = rnd();
		double v;
		int prec = 1 + (int)(rnd() % 17);
		memcpy(&v, &bits, sizeof v);
		if (!isfinite(v))
			continue;
		if (i % 2)
			v = (double)(rnd() % 100000000000ull) / (double)(1 + rnd() % 1000000);
		if (i % 3 == 0) {
			/* The reference's float32 timestamps. */
			float f = (float)((double)(rnd() % 100000000) / 1850.0);
			v = f;
		}
		snprintf(buf, sizeof buf, "%.*g", prec, v);
		num_is(buf);
		snprintf(buf, sizeof buf, "%.17g", v);
		num_is(buf);
	}
	numbers_done("printed doubles");
	/* Decimal strings of every length and scale. */
	for (i = 0; i < 100000; i++) {
		int nd = 1 + (int)(rnd() % 20), dot = (int)(rnd() % (nd + 1)), k, n = 0;
		for (k = 0; k < nd; k++) {
			if (k == dot && k)
				buf[n++] = '.';
			buf[n++] = (char)('0' + (k == 0 && nd > 1 && dot != 1 ? 1 + rnd() % 9 : rnd() % 10));
		}
		if (rnd() % 4 == 0)
			n += snprintf(buf + n, sizeof buf - (size_t)n, "e%d", (int)(rnd() % 60) - 30);
		buf[n] = 0;
		num_is(buf);
	}
	numbers_done("decimal strings");
	CHECK_MSG((jnum("1e400", 5, &ok), !ok), "1e400 is not finite");
}

/* Parse s whole: the status, and where it stopped. */
static int parse(const char *s, const char **stop, struct jerr *e)
{
	struct jval v;
	const char *p = s;
	int k = jval_parse(&p, s + strlen(s), &v, 0, e);
	*stop = p;
	return k;
}

static void test_values(void)
{
	static const char *const good[] = {
		"\"abc\" ", "\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00e9\" ", "{} ", "[] ", "{\"a\":[1,2,{\"b\":null}]} ",
		"true ", "false ", "null ", "-0.5e+10 ", "[ 1 , \"x\" ] ",
		"{\"name\":\"MOV\",\"ph\":\"X\",\"ts\":5.96,\"dur\":0.00054,\"args\":{\"detail\":\"XD:X1=0x0,\"}} ",
	};
	static const struct {
		const char *text;
		int at;
	} bad[] = {
		{ "\"a\x01\" ", 2 }, { "\"\\x\" ", 2 }, { "\"\\u12g4\" ", 5 }, { "{\"a\" 1} ", 5 },
		{ "{1:2} ", 1 }, { "[1 2] ", 3 }, { "01 ", 1 }, { "-x ", 1 }, { "1. ", 2 }, { "1e+ ", 3 },
		{ "tru ", 3 }, { "nul1 ", 3 }, { "{\"a\":1,} ", 7 }, { "[1,] ", 3 }, { "NaN ", 0 },
		{ "Infinity ", 0 },
	};
	size_t i;
	const char *stop;
	struct jerr e;

	for (i = 0; i < sizeof good / sizeof good[0]; i++) {
		size_t n = strlen(good[i]), cut;
		CHECK_MSG(parse(good[i], &stop, &e) == J_OK && stop == good[i] + n - 1, "valid: %s", good[i]);
		/* Every proper prefix asks for more. */
		for (cut = 0; cut + 1 < n; cut++) {
			char tmp[256];
			struct jval v;
			const char *p = tmp;
			memcpy(tmp, good[i], cut);
			CHECK_MSG(jval_parse(&p, tmp + cut, &v, 0, &e) == J_MORE, "prefix %zu of %s wants more", cut, good[i]);
		}
	}
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int k = parse(bad[i].text, &stop, &e);
		CHECK_MSG(k == J_ERR && e.at - bad[i].text == bad[i].at, "invalid: %s: status %d at %d (want %d)",
			  bad[i].text, k, k == J_ERR ? (int)(e.at - bad[i].text) : -1, bad[i].at);
	}
	{
		/* Nesting is bounded, not a stack overflow. */
		char *deep = xmalloc(2 * J_MAXDEPTH + 8);
		size_t k;
		for (k = 0; k < J_MAXDEPTH + 2; k++)
			deep[k] = '[';
		deep[k] = 0;
		CHECK_MSG(parse(deep, &stop, &e) == J_ERR && !strcmp(e.msg, "nesting too deep"), "deep nesting refused");
		free(deep);
	}
}

static void test_decode(void)
{
	struct jval v;
	const char *p;
	struct jerr e;
	char out[64];
	size_t n;
	static const char s[] = "\"a\\u00e9\\ud83d\\ude00\\n\\\"z\\/\" ";

	p = s;
	CHECK_MSG(jval_parse(&p, s + sizeof s - 1, &v, 0, &e) == J_OK && v.esc, "escaped string");
	n = jstr_decode(&v, out);
	CHECK_MSG(n == 11 && !memcmp(out, "a\xc3\xa9\xf0\x9f\x98\x80\n\"z/", 11), "decoded: %.*s", (int)n, out);
	CHECK_MSG(jstr_eq(&v, "a\xc3\xa9\xf0\x9f\x98\x80\n\"z/", 11), "jstr_eq on an escaped string");

	/* A key spelt with escapes is the key: "traceEvents" as 66 bytes of
	 * \u escapes, and a key whose text (over 64 bytes) decodes to 63. */
	{
		static const char k[] = "\"\\u0074\\u0072\\u0061\\u0063\\u0065\\u0045\\u0076\\u0065\\u006e"
		                        "\\u0074\\u0073\"";
		char lng[80], want[64];
		p = k;
		CHECK_MSG(jval_parse(&p, k + sizeof k - 1, &v, 0, &e) == J_OK && v.n == 66, "escaped key");
		CHECK_MSG(jstr_eq(&v, "traceEvents", 11), "jstr_eq: traceEvents spelt with escapes");
		CHECK_MSG(!jstr_eq(&v, "traceEvent", 10), "jstr_eq: one byte short");
		memset(lng, 'x', sizeof lng);
		lng[0] = '"';
		memcpy(lng + 59, "\\u0d0d\"", 7);
		memset(want, 'x', 58);
		memcpy(want + 58, "\xe0\xb4\x8d", 3);
		p = lng;
		CHECK_MSG(jval_parse(&p, lng + 66, &v, 0, &e) == J_OK && v.n == 64, "long escaped string");
		CHECK_MSG(jstr_eq(&v, want, 61), "jstr_eq: 64 bytes of text decoding to 61");
		lng[59] = 'x';
		memcpy(lng + 60, "\\u0d0d\"", 7);
		p = lng;
		CHECK_MSG(jval_parse(&p, lng + 67, &v, 0, &e) == J_OK && v.n == 65, "longer escaped string");
		want[58] = 'x';
		memcpy(want + 59, "\xe0\xb4\x8d", 3);
		CHECK_MSG(jstr_eq(&v, want, 62), "jstr_eq: 65 bytes of text decoding to 62");
	}
}

/* ---- documents through a small window ---- */

struct counts {
	int keys, values, elements, objects;
	uint64_t last_off;
	char seen[256];
};

static int c_stream(void *ctx, const struct jval *key)
{
	struct counts *c = ctx;
	c->keys++;
	return jstr_eq(key, "traceEvents", 11);
}

static int c_value(void *ctx, const struct jval *key, const struct jval *val)
{
	struct counts *c = ctx;
	size_t n = strlen(c->seen);
	(void)key;
	c->values++;
	snprintf(c->seen + n, sizeof c->seen - n, "%.*s;", (int)val->n, val->p);
	return 0;
}

static int c_element(void *ctx, const struct jval *key, const struct jobj *o, const struct jval *v, uint64_t off)
{
	struct counts *c = ctx;
	(void)key;
	(void)v;
	c->elements++;
	c->objects += o != NULL;
	c->last_off = off;
	return 0;
}

static int scan_text(const char *text, size_t window, struct counts *c, struct jfail *f)
{
	char path[] = "/tmp/test_trace_clean.XXXXXX";
	int fd = mkstemp(path), st;
	struct src s = { 0 };
	struct jbuf jb;
	struct jhandler h = { c_stream, c_value, c_element };
	ssize_t w = write(fd, text, strlen(text));

	(void)w;
	close(fd);
	memset(c, 0, sizeof *c);
	s.rd = rd_open(path);
	s.name = path;
	jbuf_init(&jb, &s, window, 1u << 20);
	st = jscan(&jb, &h, c, f);
	jbuf_free(&jb);
	rd_close(s.rd);
	unlink(path);
	return st;
}

static void test_documents(void)
{
	static const char doc[] =
		"{\"displayTimeUnit\":\"ns\",\"profilingType\":\"op\",\"schemaVersion\":2,\n"
		"\"traceEvents\":[{\"name\":\"a\",\"ts\":1},\n {\"name\":\"b\\\"}\",\"ts\":2.5,\"args\":{\"x\":[1,2]}}, 7,"
		"{\"name\":\"c\",\"ts\":123456789}],\"after\":[1,2,3]}  \n";
	struct counts c;
	struct jfail f;
	size_t w;
	int st;

	for (w = 8; w <= 4096; w *= 2) {
		st = scan_text(doc, w, &c, &f);
		CHECK_MSG(st == JS_OK, "window %zu: status %d (%s)", w, st, st ? f.msg : "");
		CHECK_MSG(c.elements == 4 && c.objects == 3, "window %zu: %d elements, %d objects", w, c.elements, c.objects);
		CHECK_MSG(c.values == 4 && !strcmp(c.seen, "ns;op;2;[1,2,3];"), "window %zu: values %s", w, c.seen);
		CHECK_MSG(c.last_off == (uint64_t)(strstr(doc, "{\"name\":\"c\"") - doc), "window %zu: offset %llu", w,
			  (unsigned long long)c.last_off);
	}
	st = scan_text("[{\"ts\":1},{\"ts\":2}]", 8, &c, &f);
	CHECK_MSG(st == JS_OK && c.elements == 2, "array document");
	st = scan_text("{\"traceEvents\":[{\"ts\":1},{\"ts\" 2}]}", 8, &c, &f);
	CHECK_MSG(st == JS_SYNTAX && f.off == 31, "error offset %llu (%s)", (unsigned long long)f.off, f.msg);
	st = scan_text("{\"traceEvents\":[{\"ts\":1}", 8, &c, &f);
	CHECK_MSG(st == JS_SYNTAX && f.off == 24 && strstr(f.msg, "end of data"), "cut short: %llu %s",
		  (unsigned long long)f.off, f.msg);
	st = scan_text("{\"traceEvents\":[]} x", 8, &c, &f);
	CHECK_MSG(st == JS_SYNTAX && f.off == 19 && strstr(f.msg, "extra data"), "trailing garbage: %llu %s",
		  (unsigned long long)f.off, f.msg);
	st = scan_text("", 8, &c, &f);
	CHECK_MSG(st == JS_SYNTAX, "empty document");
	st = scan_text("  12", 8, &c, &f);
	CHECK_MSG(st == JS_SYNTAX && f.off == 2, "a number is not a document");
	{
		/* One value larger than the window's limit. */
		size_t n = (1u << 20) + 100, k;
		char *big = xmalloc(n + 64);
		strcpy(big, "{\"traceEvents\":[\"");
		for (k = strlen(big); k < n; k++)
			big[k] = 'x';
		strcpy(big + n, "\"]}");
		st = scan_text(big, 8, &c, &f);
		CHECK_MSG(st == JS_BIG, "a value past the window limit: %d", st);
		free(big);
	}
}

/* ---- the external sort ---- */

struct xr {
	uint32_t key;
	uint32_t pad;
	double t;
	uint64_t seq;
};

static int xr_cmp(const void *a, const void *b)
{
	const struct xr *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* n records with few distinct keys and times, sorted through runs of
 * run records: every one back, in order, none twice. */
static void sort_case(size_t n, size_t run, const char *what)
{
	struct xsort *s = xs_new(sizeof(struct xr), xr_cmp, run);
	struct xr *want = xmalloc((n ? n : 1) * sizeof *want);
	const struct xr *r;
	size_t i, got = 0, bad = 0;
	int e;

	for (i = 0; i < n; i++) {
		memset(&want[i], 0, sizeof want[i]);
		want[i].key = (uint32_t)(rnd() % 7);
		want[i].t = (double)(rnd() % 50) / 4;
		want[i].seq = i;
		xs_add(s, &want[i]);
	}
	CHECK_MSG(xs_count(s) == n, "%s: %zu records, count %llu", what, n, (unsigned long long)xs_count(s));
	qsort(want, n, sizeof *want, xr_cmp);
	e = xs_sort(s);
	CHECK_MSG(e == 0, "%s: sort: %s", what, strerror(e));
	while ((r = xs_next(s)) != NULL) {
		if (got >= n || xr_cmp(r, &want[got]))
			bad++;
		got++;
	}
	CHECK_MSG(got == n && !bad && !xs_error(s), "%s: %zu records in, %zu out, %zu out of place", what, n, got,
		  bad);
	CHECK_MSG(xs_next(s) == NULL, "%s: nothing after the end", what);
	xs_free(s);
	free(want);
}

static void test_sort(void)
{
	char what[80];
	static const size_t runs[] = { 2, 3, 16, 1000, 100000 };
	static const size_t ns[] = { 0, 1, 2, 5, 999, 1000, 1001, 5000 };
	size_t i, j;

	for (i = 0; i < sizeof runs / sizeof runs[0]; i++)
		for (j = 0; j < sizeof ns / sizeof ns[0]; j++) {
			snprintf(what, sizeof what, "runs of %zu", runs[i]);
			sort_case(ns[j], runs[i], what);
		}
	/* More than XS_FANIN runs: merged in rounds. */
	sort_case(XS_FANIN * 3 * 16 + 7, 16, "merges of merges");
	sort_case(XS_FANIN * XS_FANIN * 2 + 1, 2, "three rounds");
	{
		/* No temporary file to be had: it all stays in memory. */
		char *old = getenv("TMPDIR") ? xstrndup(getenv("TMPDIR"), strlen(getenv("TMPDIR"))) : NULL;
		int fd;
		setenv("TMPDIR", "/nonexistent/trace-clean-test", 1);
		fprintf(stderr, "(a warning expected:) ");
		sort_case(5000, 16, "without a temporary file");
		fd = xs_tmpfd();
		CHECK_MSG(fd == -1, "xs_tmpfd after a failure: %d", fd);
		if (old) {
			setenv("TMPDIR", old, 1);
			free(old);
		} else {
			unsetenv("TMPDIR");
		}
	}
}

static void test_pio(void)
{
	int fd = io_tmpfd();
	char buf[64], back[64];
	size_t i;
	int e;

	if (fd < 0) {
		CHECK_MSG(0, "io_tmpfd: %s", strerror(errno));
		return;
	}
	for (i = 0; i < sizeof buf; i++)
		buf[i] = (char)i;
	e = xs_pwrite(fd, buf, sizeof buf, 4096);
	CHECK_MSG(e == 0, "xs_pwrite: %s", strerror(e));
	e = xs_pread(fd, back, sizeof back, 4096);
	CHECK_MSG(e == 0 && !memcmp(buf, back, sizeof buf), "xs_pread: %s", strerror(e));
	e = xs_pread(fd, back, sizeof back, 4096 + 32);
	CHECK_MSG(e == EIO, "xs_pread past the end: %d", e);
	close(fd);
}

int main(void)
{
	test_numbers();
	test_values();
	test_decode();
	test_documents();
	test_pio();
	test_sort();
	return unit_done();
}
