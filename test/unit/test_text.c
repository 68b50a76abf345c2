/* Unit tests of lib/text.c: the INSTR_API "Source" text (the rule of
 * optrace-vdata(5), with the flag forms of both chip families), the
 * short-needle search, doubles as text, WARP_<n> lane names and JSON
 * string unescaping, and the growing string.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "rec.h"
#include "text.h"

#include <math.h>
#include <stdio.h>

#include "unit.h"
#include <string.h>

/* src_text of name and detail equals want (and its length). */
static int src_is(const char *name, const char *detail, int p310, const char *want)
{
	char out[512];
	size_t n = src_text(out, name, strlen(name), detail, strlen(detail), p310);
	if (n != strlen(want) || strcmp(out, want)) {
		printf("  src_text(\"%s\", \"%s\") = \"%s\", want \"%s\"\n", name, detail, out, want);
		return 0;
	}
	return 1;
}

static void test_source(void)
{
	/* "=0x" is tried before ":0x": the register name A:0x1 stays. */
	CHECK(src_is("VADD", "A:0x1=0x2,B:X1=0x3,", 0, "VADD A:0x1,B:X1"));
	CHECK(src_is("MOV_XD_IMM", "XD:X29,IMM:0x10,", 0, "MOV_XD_IMM XD:X29,IMM"));
	CHECK(src_is("ST_XD_XN_IMM", "dtype:B32,XD:X3,XN:X7,IMM", 0, "ST_XD_XN_IMM dtype:B32,XD:X3,XN:X7,IMM"));
	/* Empty pieces, and pieces cut to nothing, are left out. */
	CHECK(src_is("X", "A,,B,=0x5,C", 0, "X A,B,C"));
	CHECK(src_is("NOP", "", 0, "NOP "));
	/* Flags: SET writes the TRIGGERPIPE, WAIT the PIPE. */
	CHECK(src_is("SET_FLAG", "PIPE:MTE3,TRIGGERPIPE:VEC,FLAGID:0,", 0, "SET_FLAG VEC ID:0"));
	CHECK(src_is("WAIT_FLAG", "PIPE:MTE3,TRIGGERPIPE:VEC,FLAGID:0,", 0, "WAIT_FLAG MTE3 ID:0"));
	CHECK(src_is("set_event", "pipe_type:L1,tigger_pipe:L2,event_id:1", 1, "set_event L2 ID:1"));
	CHECK(src_is("wait_event", "pipe_type:L1,tigger_pipe:L2,event_id:1", 1, "wait_event L1 ID:1"));
	/* The other family's spelling is not rewritten (only cut). */
	CHECK(src_is("set_event", "pipe_type:L1,tigger_pipe:L2,event_id:1", 0,
	             "set_event pipe_type:L1,tigger_pipe:L2,event_id:1"));
	CHECK(src_is("SET_FLAG", "PIPE:MTE3,TRIGGERPIPE:VEC,FLAGID:0,", 1, "SET_FLAG PIPE:MTE3,TRIGGERPIPE:VEC,FLAGID:0"));
	/* Incomplete flags stay as they are. */
	CHECK(src_is("WAIT_FLAG", "PIPE:MTE3,TRIGGERPIPE", 0, "WAIT_FLAG PIPE:MTE3,TRIGGERPIPE"));
	CHECK(src_is("wait_event", "pipe_type:L1,tigger_pipe", 1, "wait_event pipe_type:L1,tigger_pipe"));
	/* The fields are found anywhere in the second word, leftmost first. */
	CHECK(src_is("SET_FLAG", "X:1,PIPE:S,TRIGGERPIPE:MTE2,FLAGID:12,Y:0x4", 0, "SET_FLAG MTE2 ID:12"));
	/* A flag id in hex is cut like anything else. */
	CHECK(src_is("SET_FLAG", "PIPE:S,TRIGGERPIPE:V,FLAGID:0x3", 0, "SET_FLAG V ID"));
	/* Only the second word is searched. */
	CHECK(src_is("SET_FLAG", "A:1 PIPE:S,TRIGGERPIPE:V,FLAGID:3", 0, "SET_FLAG A:1 PIPE:S,TRIGGERPIPE:V,FLAGID:3"));

	/* From parsed sync fields. */
	{
		char out[128];
		size_t n = src_text_flag(out, "SET_FLAG", 8, 0, "MTE3", 4, "VEC", 3, "0", 1);
		CHECK(n == 17 && !strcmp(out, "SET_FLAG VEC ID:0"));
		n = src_text_flag(out, "WAIT_FLAG", 9, 1, "MTE3", 4, "VEC", 3, "0", 1);
		CHECK(n == 19 && !strcmp(out, "WAIT_FLAG MTE3 ID:0"));
	}
	/* From a record: its sync fields when complete, else its detail. */
	{
		struct rec r;
		char out[256];
		memset(&r, 0, sizeof r);
		r.n[I_SYNC].u = SYNC_SET;
		r.s[IS_NAME] = (struct rec_text){ "SET_FLAG", 8 };
		r.s[IS_DETAIL] = (struct rec_text){ "PIPE:MTE3,TRIGGERPIPE:VEC,FLAGID:0,", 35 };
		r.s[IS_PROD] = (struct rec_text){ "MTE3", 4 };
		r.s[IS_CONS] = (struct rec_text){ "VEC", 3 };
		r.s[IS_FLAG] = (struct rec_text){ "0", 1 };
		CHECK(src_text_rec(out, &r, 0) == 17 && !strcmp(out, "SET_FLAG VEC ID:0"));
		r.s[IS_PROD].n = r.s[IS_CONS].n = r.s[IS_FLAG].n = 0;
		r.n[I_SYNC].u = SYNC_NONE;
		CHECK(src_text_rec(out, &r, 0) == 17 && !strcmp(out, "SET_FLAG VEC ID:0"));
		r.s[IS_NAME] = (struct rec_text){ "VADD", 4 };
		r.s[IS_DETAIL] = (struct rec_text){ "A:0x1=0x2,B:X1=0x3,", 19 };
		CHECK(src_text_rec(out, &r, 0) == 15 && !strcmp(out, "VADD A:0x1,B:X1"));
	}
}

static void test_find(void)
{
	const char *h = "XD:X3,XN:X7,IMM:0x10";
	CHECK(text_find(h, strlen(h), "XN:", 3) == h + 6);
	CHECK(TEXT_FIND(h, strlen(h), ":0x") == h + 15);
	CHECK(TEXT_FIND(h, strlen(h), "0x10") == h + 16);
	CHECK(TEXT_FIND(h, strlen(h), "0x100") == NULL);
	CHECK(TEXT_FIND(h, 5, "X3,") == NULL);   /* not past the length */
	CHECK(text_find(h, 0, "", 0) == h);
	CHECK(text_find(h, 2, "XD:", 3) == NULL);
}

/* Tables of names: entries that start with the name, and bare names. */
static void test_lookup(void)
{
	static const struct {
		const char *name;
		int v;
	} tab[] = { { "MTE2", 1 }, { "MTE", 2 }, { "", 3 }, { "VECTOR", 4 } };
	static const char *const bare[] = { "set_event", "wait_event" };
	const char *s = "MTE2VECTORx";
	CHECK(TEXT_LOOKUP(tab, s, 4) == 0);
	CHECK(TEXT_LOOKUP(tab, s, 3) == 1);      /* the whole slice, not a prefix */
	CHECK(TEXT_LOOKUP(tab, s, 0) == 2);
	CHECK(TEXT_LOOKUP(tab, s + 4, 6) == 3 && tab[3].v == 4);
	CHECK(TEXT_LOOKUP(tab, s + 4, 7) == 4);  /* none: the count */
	CHECK(TEXT_LOOKUP(tab, "MTE1", 4) == 4);
	CHECK(TEXT_LOOKUP(bare, "wait_event", 10) == 1);
	CHECK(TEXT_LOOKUP(bare, "wait_even", 9) == 2);
	CHECK(text_lookup(tab, 0, sizeof tab[0], s, 4) == 0);
}

static int dbl_is(size_t (*f)(char *, double), double v, const char *want)
{
	char b[DBL_TEXT_MAX];
	size_t n = f(b, v);
	if (n != strlen(want) || strcmp(b, want)) {
		printf("  %.17g gives \"%s\", want \"%s\"\n", v, b, want);
		return 0;
	}
	return 1;
}

static void test_doubles(void)
{
	CHECK(dbl_is(dbl_shortest, 0.1, "0.1"));
	CHECK(dbl_is(dbl_shortest, 100, "100"));
	CHECK(dbl_is(dbl_shortest, 122.0703125, "122.0703125"));
	CHECK(dbl_is(dbl_shortest, 1e14, "100000000000000"));
	CHECK(dbl_is(dbl_shortest, 1e20, "1e+20"));
	CHECK(dbl_is(dbl_shortest, 0.1 + 0.2, "0.30000000000000004"));
	CHECK(dbl_is(dbl_shortest, 5e-324, "4.94065645841247e-324"));
	CHECK(dbl_is(dbl_shortest, (double)12.345f, "12.345000267028809"));
	CHECK(dbl_is(dbl_shortest, NAN, "null"));
	CHECK(dbl_is(dbl_shortest, -INFINITY, "null"));
	/* The float form: an integral value keeps ".0". */
	CHECK(dbl_is(dbl_float, 100, "100.0"));
	CHECK(dbl_is(dbl_float, 10, "10.0"));
	CHECK(dbl_is(dbl_float, -1, "-1.0"));
	CHECK(dbl_is(dbl_float, -0.0, "-0.0"));
	CHECK(dbl_is(dbl_float, 12.5, "12.5"));
	CHECK(dbl_is(dbl_float, 1e20, "1e+20"));
	CHECK(dbl_is(dbl_float, 1.5e-7, "1.5e-07"));
	CHECK(dbl_is(dbl_float, INFINITY, "null"));
	/* nlohmann's writer: the same forms, and a tie at the shortest
	 * length goes away from zero (measured on the reference's roofline
	 * blocks, where %g's rounding gives ...562) */
	CHECK(dbl_is(dbl_json, 64.063873291015625, "64.06387329101563"));
	CHECK(dbl_is(dbl_json, -64.063873291015625, "-64.06387329101563"));
	CHECK(dbl_is(dbl_json, 20.67536163330078, "20.67536163330078"));
	CHECK(dbl_is(dbl_json, (double)0.1f, "0.10000000149011612"));
	CHECK(dbl_is(dbl_json, 200, "200.0"));
	CHECK(dbl_is(dbl_json, 128384, "128384.0"));
	CHECK(dbl_is(dbl_json, -0.0, "-0.0"));
	CHECK(dbl_is(dbl_json, 0, "0.0"));
	CHECK(dbl_is(dbl_json, 12.5, "12.5"));
	CHECK(dbl_is(dbl_json, 0.0001, "0.0001"));
	CHECK(dbl_is(dbl_json, 0.00001, "1e-05"));
	CHECK(dbl_is(dbl_json, 1.5e-7, "1.5e-07"));
	CHECK(dbl_is(dbl_json, 123456789012345.0, "123456789012345.0"));
	CHECK(dbl_is(dbl_json, 1e15, "1e+15"));
	CHECK(dbl_is(dbl_json, 1e20, "1e+20"));
	CHECK(dbl_is(dbl_json, 9.999999999999999e22, "1e+23"));
	CHECK(dbl_is(dbl_json, NAN, "null"));
}

static void test_warp(void)
{
	char b[WARP_NAME_MAX];
	int w = 7;
	CHECK(warp_name(b, 3) == 6 && !strcmp(b, "WARP_3"));
	CHECK(warp_name(b, -2) == 7 && !strcmp(b, "WARP_-2"));
	CHECK(warp_parse("WARP_12", 7, &w) && w == 12);
	CHECK(warp_parse("WARP_-2", 7, &w) && w == -2);
	CHECK(!warp_parse("WARP_", 5, &w));
	CHECK(!warp_parse("WARP_1x", 7, &w));
	CHECK(!warp_parse("WARP_-", 6, &w));
	CHECK(!warp_parse("WARP_1234567890", 15, &w));
	CHECK(!warp_parse("VECTOR", 6, &w));
	CHECK(warp_is_simt(0, 0) && !warp_is_simt(-1, 0) && !warp_is_simt(0, -1));
}

/* jstr_unescape of s (a body with its closing quote) gives want. */
static int unesc_is(const char *s, unsigned flags, const char *want, size_t wn)
{
	char out[64];
	size_t used = 0, n = jstr_unescape(s, strlen(s), out, flags, &used);
	if (n != wn || memcmp(out, want, wn) || s[used] != '"') {
		printf("  jstr_unescape(%s) gave %zu bytes, used %zu\n", s, n, used);
		return 0;
	}
	return 1;
}

static void test_unescape(void)
{
	char buf[32];
	size_t used, n;
	CHECK(unesc_is("plain\"", 0, "plain", 5));
	CHECK(unesc_is("a\\\"b\\\\c\\/d\"", 0, "a\"b\\c/d", 7));
	CHECK(unesc_is("\\b\\f\\n\\r\\t\"", 0, "\b\f\n\r\t", 5));
	CHECK(unesc_is("\\u00e9\\u20AC\"", 0, "\xc3\xa9\xe2\x82\xac", 5));
	CHECK(unesc_is("\\ud83d\\ude00\"", 0, "\xf0\x9f\x98\x80", 4));
	/* A lone surrogate is encoded on its own. */
	CHECK(unesc_is("\\ud83dx\"", 0, "\xed\xa0\xbd" "x", 4));
	CHECK(unesc_is("\\ud83d\\u0041\"", 0, "\xed\xa0\xbd" "A", 4));
	/* \udcXX: a raw byte in the record encoding, a surrogate elsewhere. */
	CHECK(unesc_is("\\udcff\"", JSTR_RAWBYTE, "\xff", 1));
	CHECK(unesc_is("\\udcff\"", 0, "\xed\xb3\xbf", 3));
	/* Errors. */
	CHECK(jstr_unescape("\\ud83d\\u0041\"", 13, buf, JSTR_STRICT, &used) == (size_t)-1);
	CHECK(jstr_unescape("\\x\"", 3, buf, 0, &used) == (size_t)-1);
	CHECK(jstr_unescape("\\u12", 4, buf, 0, &used) == (size_t)-1);
	CHECK(jstr_unescape("\\u12g4\"", 7, buf, 0, &used) == (size_t)-1);
	CHECK(jstr_unescape("ab\\", 3, buf, 0, &used) == (size_t)-1);
	/* No closing quote: all of it is read. */
	n = jstr_unescape("abc", 3, buf, 0, &used);
	CHECK(n == 3 && used == 3);
	/* In place. */
	{
		char s[] = "x\\u00e9\\n\"rest";
		n = jstr_unescape(s, strlen(s), s, 0, &used);
		CHECK(n == 4 && !memcmp(s, "x\xc3\xa9\n", 4) && used == 9);
	}
}

static void test_sbuf(void)
{
	struct sbuf b = { 0 };
	size_t i;

	sb_put(&b, "", 0);
	CHECK(b.p && b.n == 0 && b.p[0] == 0);
	sb_put(&b, "ab", 2);
	sb_put(&b, NULL, 0);
	sb_put(&b, "cde", 3);
	CHECK(b.n == 5 && !strcmp(b.p, "abcde"));
	/* Starting over keeps the room. */
	b.n = 0;
	sb_put(&b, "x", 1);
	CHECK(b.n == 1 && !strcmp(b.p, "x") && b.cap >= 6);
	/* Growing past many doublings keeps every byte. */
	for (i = 0; i < 1000; i++)
		sb_put(&b, "0123456789", 10);
	CHECK(b.n == 10001 && b.p[10000] == '9' && b.p[10001] == 0 && !memcmp(b.p + 1, "0123", 4));
	b.n = 0;
	memcpy(sb_room(&b, 20000), "yz", 3);
	b.n += 2;
	CHECK(b.cap >= 20001 && !strcmp(b.p, "yz"));
	sb_free(&b);
	CHECK(!b.p && !b.n && !b.cap);
}

int main(void)
{
	test_source();
	test_find();
	test_lookup();
	test_doubles();
	test_warp();
	test_unescape();
	test_sbuf();
	return unit_done();
}
