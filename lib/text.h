/* Small text rules several tools share: the "Source" text of an
 * instruction in the hot-spot view, short-needle search, names looked up in
 * a table, doubles as text,
 * the WARP_<n> lane names, JSON string unescaping, and a growing string.
 * Hex digits are hexval() in scan.h. */
#ifndef OPTRACE_TEXT_H
#define OPTRACE_TEXT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rec.h"

/* The first n-byte needle in hay (memchr for its first byte, then a
 * compare: glibc's memmem costs more to set up than a detail of ~60 bytes
 * takes to scan); NULL when absent; hay itself for an empty needle.
 * Inline: the parsers call it on every line. */
static inline const char *text_find(const char *hay, size_t hn, const char *needle, size_t nn)
{
	const char *p = hay, *end = hay + hn;
	if (!nn)
		return hay;
	while ((size_t)(end - p) >= nn && (p = memchr(p, needle[0], (size_t)(end - p) - nn + 1))) {
		if (!memcmp(p + 1, needle + 1, nn - 1))
			return p;
		p++;
	}
	return NULL;
}
#define TEXT_FIND(h, n, lit) text_find((h), (n), (lit), sizeof(lit) - 1)

/* Do the n bytes at q equal those of s?  For the literals of the line
 * parsers, n a constant: always inlined, a word at a time (the last word
 * overlapping the one before), a few loads and compares where a memcmp
 * call would cost several times as much. */
static inline __attribute__((always_inline)) int text_eq(const char *q, const char *s, size_t n)
{
	uint64_t a, b;
	uint32_t c, d;
	size_t i;
	if (n >= 8) {
		for (i = 0; i + 8 < n; i += 8) {
			memcpy(&a, q + i, 8);
			memcpy(&b, s + i, 8);
			if (a != b)
				return 0;
		}
		memcpy(&a, q + n - 8, 8);
		memcpy(&b, s + n - 8, 8);
		return a == b;
	}
	if (n >= 4) {
		memcpy(&c, q, 4);
		memcpy(&d, s, 4);
		if (c != d)
			return 0;
		memcpy(&c, q + n - 4, 4);
		memcpy(&d, s + n - 4, 4);
		return c == d;
	}
	for (i = 0; i < n; i++)
		if (q[i] != s[i])
			return 0;
	return 1;
}

/* The index of the entry of a table spelt by the n bytes at s: the table
 * holds nent entries of size bytes, each starting with its name (a const
 * char *, or the entry is that pointer); nent when none is.  TEXT_LOOKUP
 * takes an array. */
size_t text_lookup(const void *table, size_t nent, size_t size, const char *s, size_t n);
#define TEXT_LOOKUP(tab, s, n) text_lookup((tab), sizeof(tab) / sizeof((tab)[0]), sizeof((tab)[0]), (s), (n))

/* ---- the "Source" column of INSTR_API (see optrace-vdata(5)) ----
 *
 * The text is name, a space, detail.  A flag instruction of the chip's
 * spelling (SET_FLAG / WAIT_FLAG; set_event / wait_event on the 310P,
 * p310 != 0) whose second whitespace-separated word holds
 * "PIPE:<a>,TRIGGERPIPE:<b>,FLAGID:<c>" (310P: pipe_type, tigger_pipe,
 * event_id; a, b, c alphanumeric, the leftmost such run) becomes
 * "SET_FLAG <b> ID:<c>" or "WAIT_FLAG <a> ID:<c>".  Then the text is split
 * at every ',', each piece is cut at its first "=0x" or, when it has
 * none, at its first ":0x" (register values go, names stay), and the
 * pieces that are not empty are joined with ','.  So the detail
 * "A:0x1=0x2,B:X1=0x3," gives "VADD A:0x1,B:X1".
 *
 * out (not overlapping name or detail) must have room for nn + dn + 2
 * bytes; the text is NUL-terminated and its length returned. */
size_t src_text(char *out, const char *name, size_t nn, const char *detail, size_t dn, int p310);

/* The same text for a flag whose fields are already parsed (the sync
 * fields of an instruction record): "<name> <pipe> ID:<flag>", where pipe
 * is cons (the TRIGGERPIPE) for a set and prod (the PIPE) for a wait,
 * then cut as above.  out: room for nn + pn + fn + 6 bytes (pn the larger
 * of prod's and cons's lengths). */
size_t src_text_flag(char *out, const char *name, size_t nn, int wait, const char *prod, size_t prodn,
                     const char *cons, size_t consn, const char *flag, size_t flagn);

/* From an instruction record: src_text_flag from its sync fields when it
 * is a SET or WAIT of the chip's spelling with all three fields, else
 * src_text from its detail.  out: room for name + detail + pipe + flag
 * lengths + 8 bytes. */
size_t src_text_rec(char *out, const struct rec *r, int p310);

/* Cut and join as above, in place; returns the new length (NUL added). */
size_t src_cut(char *s, size_t n);

/* ---- doubles as text ----
 * Into buf (DBL_TEXT_MAX bytes), NUL-terminated; both return the length.
 * dbl_shortest: the shortest printf %g text (15, 16 or 17 significant
 * digits, trailing zeros dropped) that reads back as v: "0.1", "100",
 * "1e+20", "-0"; NaN and infinities give "null".
 * dbl_float: the form of C++ JSON writers (nlohmann) for a floating
 * value: the same text with ".0" added when it would read as an integer
 * ("100.0", "-1.0", "-0.0"; "1e+20" stays). */
#define DBL_TEXT_MAX 40
size_t dbl_shortest(char *buf, double v);
size_t dbl_float(char *buf, double v);
/* dbl_float as nlohmann's writer really prints it: where two texts of
 * the shortest length read back as v and v lies halfway between them,
 * the one away from zero (64.063873291015625 -> 64.06387329101563, not
 * the %g rounding's ...62); fixed form for decimal exponents -4..14. */
size_t dbl_json(char *buf, double v);

/* ---- SIMT warp lanes ----
 * An instruction of a SIMT unit (warp and scheduler both set, neither -1)
 * is drawn in the lane "WARP_<warp>" instead of its pipe. */
static inline int warp_is_simt(long warp, long sch)
{
	return warp != -1 && sch != -1;
}
/* "WARP_<w>" into buf (room for WARP_NAME_MAX bytes); returns the length. */
#define WARP_NAME_MAX 20
size_t warp_name(char *buf, int w);
/* 1 and *w when s is "WARP_" and a decimal number (an optional '-', then
 * 1 to 9 digits), as warp_name writes them; 0 otherwise. */
int warp_parse(const char *s, size_t n, int *w);

/* ---- JSON strings ----
 * Decode a JSON string body (what follows its opening quote) into out,
 * which may be s itself: the result is never longer.  Decoding stops at
 * the first unescaped '"' or after n bytes; *used is where it stopped.
 * Escapes: \" \\ \/ \b \f \n \r \t, and \uXXXX as UTF-8 (a surrogate
 * pair as one code point, a lone surrogate on its own).  Returns the
 * decoded length, or (size_t)-1 on a bad or cut escape.  Flags:
 * JSTR_RAWBYTE: \udc80..\udcff is the raw byte 0x80..0xff (how
 * optrace-records(5) writes bytes that are not UTF-8); JSTR_STRICT: a high
 * surrogate followed by a \u that is not a low surrogate is an error. */
enum { JSTR_RAWBYTE = 1, JSTR_STRICT = 2 };
size_t jstr_unescape(const char *s, size_t n, char *out, unsigned flags, size_t *used);

/* ---- a growing string ----
 * p holds n bytes and a NUL after them once anything was put (NULL while
 * empty and never put to); set n to 0 to start over and keep the room. */
struct sbuf {
	char *p;
	size_t n, cap;
};
/* Append n bytes of s (s may be NULL when n is 0); ends the run through
 * cli_die when out of memory. */
void sb_put(struct sbuf *b, const char *s, size_t n);
/* Room for n more bytes and a NUL after the n held: where they go
 * (b->p + b->n), for the caller to write and then add to b->n. */
char *sb_room(struct sbuf *b, size_t n);
void sb_free(struct sbuf *b);

#endif
