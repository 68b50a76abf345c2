/* A hand-written matcher equivalent to the reference's instr/pop regex.
 * The regex only has optional groups after the PC, so the first successful
 * path of its backtracking is "every element as greedy as it can be, every
 * optional group taken when it matches here", which is what this follows. */
#include "grammar.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "scan.h"
#include "text.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

static int is_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Character classes as bits of one table: the scans of the pipe, the
 * binary and the name test one byte each with a load. */
enum { C_PIPE = 1, C_NAME = 2, C_BIN = 4 };
static const unsigned char cclass[256] = {
#define PNB (C_PIPE | C_NAME | C_BIN)
#define PN (C_PIPE | C_NAME)
	['0'] = PNB, ['1'] = PNB, ['2'] = PNB, ['3'] = PNB,
	['4'] = C_NAME | C_BIN, ['5'] = C_NAME | C_BIN, ['6'] = C_NAME | C_BIN, ['7'] = C_NAME | C_BIN,
	['8'] = C_NAME | C_BIN, ['9'] = C_NAME | C_BIN,
	['a'] = PNB, ['b'] = PNB, ['c'] = PNB, ['d'] = PNB, ['e'] = PNB, ['f'] = PNB,
	['g'] = PN, ['h'] = PN, ['i'] = PN, ['j'] = PN, ['k'] = PN, ['l'] = PN, ['m'] = PN,
	['n'] = PN, ['o'] = PN, ['p'] = PN, ['q'] = PN, ['r'] = PN, ['s'] = PN, ['t'] = PN,
	['u'] = PN, ['v'] = PN, ['w'] = PN, ['x'] = PN, ['y'] = PN, ['z'] = PN,
	['A'] = PN, ['B'] = PN, ['C'] = PN, ['D'] = PN, ['E'] = PN, ['F'] = PN, ['G'] = PN,
	['H'] = PN, ['I'] = PN, ['J'] = PN, ['K'] = PN, ['L'] = PN, ['M'] = PN, ['N'] = PN,
	['O'] = PN, ['P'] = PN, ['Q'] = PN, ['R'] = PN, ['S'] = PN, ['T'] = PN, ['U'] = PN,
	['V'] = PN, ['W'] = PN, ['X'] = PN, ['Y'] = PN, ['Z'] = PN,
	['_'] = PN, ['-'] = C_NAME, [' '] = C_BIN,
#undef PN
#undef PNB
};

/* [a-zA-Z0-3_] */
static int is_pipe_char(int c)
{
	return cclass[(unsigned char)c] & C_PIPE;
}

/* [a-zA-Z0-9_-] */
static int is_name_char(int c)
{
	return cclass[(unsigned char)c] & C_NAME;
}

/* [\[\]\|a-zA-Z0-9_, :=/#"\\-]: the reference's class, and the double quote
 * and backslash too, which it would cut an operand at (they are written
 * escaped wherever the detail goes into JSON). */
static const unsigned char detail_class[256] = {
	[' '] = 1, [','] = 1, [':'] = 1, ['='] = 1, ['/'] = 1, ['#'] = 1, ['-'] = 1, ['_'] = 1,
	['['] = 1, [']'] = 1, ['|'] = 1, ['"'] = 1, ['\\'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
	['8'] = 1, ['9'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1,
	['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1,
	['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1,
	['Y'] = 1, ['Z'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1,
	['i'] = 1, ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
	['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1,
	['y'] = 1, ['z'] = 1,
};

/* [0-9a-f] (the PC's class: lower case only) to its value plus one; 0 for
 * any other byte. */
static const unsigned char pc_digit[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
	['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

#ifdef __SSE2__
/* A bit per byte of the sixteen at p: set when the byte is in detail_class
 * (letters, digits and  ,:=/#-_[]|"\ ). */
static inline unsigned detail_run16(const char *p)
{
	const __m128i zero = _mm_setzero_si128();
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i lower = _mm_or_si128(x, _mm_set1_epi8(0x20));
	__m128i m = _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(lower, _mm_set1_epi8('a')), _mm_set1_epi8(25)), zero);
	m = _mm_or_si128(m, _mm_cmpeq_epi8(_mm_subs_epu8(_mm_sub_epi8(x, _mm_set1_epi8('0')), _mm_set1_epi8(9)), zero));
#define ONE_OF(c) m = _mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8(c)))
	ONE_OF(' '); ONE_OF(','); ONE_OF(':'); ONE_OF('='); ONE_OF('/'); ONE_OF('#');
	ONE_OF('-'); ONE_OF('_'); ONE_OF('['); ONE_OF(']'); ONE_OF('|'); ONE_OF('"'); ONE_OF('\\');
#undef ONE_OF
	return (unsigned)_mm_movemask_epi8(m);
}
#endif

#if defined(__SSE2__) && defined(__GNUC__) && defined(__x86_64__)
#include <tmmintrin.h>
#define HAVE_SPAN_SSSE3 1
/* detail_class by nibbles: byte b is in the class when
 * span_lo[b & 15] & span_hi[b >> 4] is not 0 (a bit per high nibble that
 * has members: at most eight, made from detail_class itself). */
static unsigned char span_lo[16], span_hi[16];
static int span_ssse3 = -1;     /* unknown yet */

static int span_init(void)
{
	unsigned h, l, bit = 0;
	for (h = 0; h < 16; h++) {
		for (l = 0; l < 16; l++)
			if (detail_class[h * 16 + l])
				break;
		if (l == 16)
			continue;
		if (bit == 8)
			return 0;
		span_hi[h] = (unsigned char)(1u << bit);
		for (l = 0; l < 16; l++)
			if (detail_class[h * 16 + l])
				span_lo[l] |= (unsigned char)(1u << bit);
		bit++;
	}
	__builtin_cpu_init();
	return __builtin_cpu_supports("ssse3") != 0;
}

/* The first byte from p on that is not in detail_class (end when there is
 * none): sixteen bytes a round, with two table shuffles.  The last round
 * tests the sixteen bytes before end, those before p left out (start is
 * where the line begins); in a line shorter than that *done is 0 and the
 * caller goes on byte by byte from the returned place. */
__attribute__((target("ssse3"))) static const char *span_detail_ssse3(const char *p, const char *end,
                                                                      const char *start, int *done)
{
	const __m128i lo = _mm_loadu_si128((const __m128i *)(const void *)span_lo);
	const __m128i hi = _mm_loadu_si128((const __m128i *)(const void *)span_hi);
	const __m128i nib = _mm_set1_epi8(0x0f), zero = _mm_setzero_si128();
	__m128i x, a, b;
	unsigned m;
	*done = 1;
	for (; end - p >= 16; p += 16) {
		x = _mm_loadu_si128((const __m128i *)(const void *)p);
		a = _mm_shuffle_epi8(lo, _mm_and_si128(x, nib));
		b = _mm_shuffle_epi8(hi, _mm_and_si128(_mm_srli_epi16(x, 4), nib));
		m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(a, b), zero));
		if (m)
			return p + __builtin_ctz(m);
	}
	if (p == end)
		return p;
	if (end - start < 16) {
		*done = 0;
		return p;
	}
	x = _mm_loadu_si128((const __m128i *)(const void *)(end - 16));
	a = _mm_shuffle_epi8(lo, _mm_and_si128(x, nib));
	b = _mm_shuffle_epi8(hi, _mm_and_si128(_mm_srli_epi16(x, 4), nib));
	m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(a, b), zero)) >> (16 - (end - p));
	return m ? p + __builtin_ctz(m) : end;
}
#endif

static int lit(const char **p, const char *end, const char *s, size_t n)
{
	/* Most probes fail on the first byte: test it before memcmp. */
	if ((size_t)(end - *p) < n || **p != *s || memcmp(*p + 1, s + 1, n - 1))
		return 0;
	*p += n;
	return 1;
}
#define LIT(p, end, s) lit(p, end, s, sizeof(s) - 1)

/* The end of the tail: ", instr ID is: K" and the pop status. */
static const char *tail_end(const char *p, const char *end, struct iline *o)
{
	const char *save;
	uint64_t v;
	size_t k;

	/* ", instr ID is: K" and one more character (310P). */
	save = p;
	if (LIT(&p, end, ", instr ID is: ")) {
		k = scan_dec(p, end, &v);
		if (k && p + k < end && p[k] != '\r' && p[k] != '\n')
			p += k + 1;
		else
			p = save;
	}
	/* Pop status: " poped from IQ" drops the line, " pop success K" keeps it. */
	save = p;
	if (p < end && *p == '.')
		p++;
	if (LIT(&p, end, " poped from IQ")) {
		o->pop = POP_FROM_IQ;
	} else if (LIT(&p, end, " pop success ") && scan_dec(p, end, &v)) {
		o->pop = POP_SUCCESS;
	} else {
		p = save;
	}
	return p;
}

/* The detail from its first byte on, then the end of the tail (start:
 * where the line begins). */
static const char *tail_detail(const char *p, const char *end, const char *start, struct iline *o)
{
	o->detail = p;
#ifdef HAVE_SPAN_SSSE3
	if (span_ssse3 < 0)
		span_ssse3 = span_init();
	if (span_ssse3) {
		int done;
		p = span_detail_ssse3(p, end, start, &done);
		if (done)
			goto detail_end;
	}
#else
	(void)start;
#endif
#ifdef __SSE2__
	/* Sixteen bytes per round: details are the longest field. */
	while (end - p >= 16) {
		unsigned m = detail_run16(p);
		if (m != 0xffff) {
			p += __builtin_ctz(~m);
			goto detail_end;
		}
		p += 16;
	}
#endif
	/* Four table probes per round. */
	while (end - p >= 4 && detail_class[(unsigned char)p[0]] & detail_class[(unsigned char)p[1]] &
	                       detail_class[(unsigned char)p[2]] & detail_class[(unsigned char)p[3]])
		p += 4;
	while (p < end && detail_class[(unsigned char)*p])
		p++;
#if defined(__SSE2__) || defined(HAVE_SPAN_SSSE3)
detail_end:
#endif
	o->detail_n = (size_t)(p - o->detail);
	if (p < end && (*p == ')' || *p == ' '))
		p++;
	return tail_end(p, end, o);
}

/* The part after the pipe: ": (Binary: 0x...) [(ID: n) ]NAME<sep>DETAIL..."
 * Leaves out untouched (empty name/detail) if the group does not match.
 * What it finds before the detail depends only on the bytes before it. */
static const char *tail(const char *p, const char *end, const char *start, struct iline *o)
{
	const char *q, *save;
	uint64_t v;
	size_t k;

	if (!LIT(&p, end, ": (Binary: 0x"))
		return p;
	q = p;
	while (q < end && cclass[(unsigned char)*q] & C_BIN)    /* [0-9a-f ] */
		q++;
	if (q - p < 8 || q - p > 34 || end - q < 2 || q[0] != ')' || q[1] != ' ')
		return p;
	p = q + 2;
	/* Optional "(ID: nnnnnn)" plus one whitespace. */
	save = p;
	if (LIT(&p, end, "(ID: ")) {
		k = scan_dec(p, end, &v);
		if (k >= 6 && k <= 15 && end - (p + k) >= 2 && p[k] == ')' && is_space((unsigned char)p[k + 1])) {
			o->id = v;
			o->has_id = 1;
			o->id_p = p;
			o->id_n = k;
			p += k + 2;
		} else {
			p = save;
		}
	}
	o->name = p;
	while (p < end && is_name_char((unsigned char)*p))
		p++;
	o->name_n = (size_t)(p - o->name);
	/* Separator "(" or exactly two whitespace characters, then detail. */
	if (p < end && *p == '(')
		p++;
	else if (end - p >= 2 && is_space((unsigned char)p[0]) && is_space((unsigned char)p[1]))
		p += 2;
	else
		return tail_end(p, end, o);
	o->has_sep = 1;
	return tail_detail(p, end, start, o);
}

/* The trailing ".*" cannot cross a CR (ECMAScript '.'). */
static int no_cr(const char *p, const char *end)
{
	return !memchr(p, '\r', (size_t)(end - p));
}

/* Eight [0-9a-f] at p, the first the most significant, into *v: 1, or 0
 * when a byte is not one of them.  In the bytes of a word (SWAR): a
 * byte b below 0x80 is at least lo when b + 0x80 - lo has its top bit,
 * above hi when b + 0x7f - hi has it. */
static inline int hex8(const char *p, uint64_t *v)
{
	const uint64_t top = 0x8080808080808080ull, one = 0x0101010101010101ull;
	uint64_t w, digit, alpha, t;
	memcpy(&w, p, 8);
	if (w & top)
		return 0;
	digit = (w + (0x80 - '0') * one) & ~(w + (0x7f - '9') * one) & top;
	alpha = (w + (0x80 - 'a') * one) & ~(w + (0x7f - 'f') * one) & top;
	if ((digit | alpha) != top)
		return 0;
	t = (w & 0x0f0f0f0f0f0f0f0full) + (alpha >> 7) * 9;      /* a nibble a byte */
	t = ((t << 4) | (t >> 8)) & 0x00ff00ff00ff00ffull;      /* two a byte */
	t = ((t << 8) | (t >> 16)) & 0x0000ffff0000ffffull;     /* four */
	*v = ((t << 16) | (t >> 32)) & 0xffffffffull;
	return 1;
}

long grammar_prefix(const char *line, size_t len, struct iline *o)
{
	const char *p = line, *end = line + len;
	size_t k;

	/* Field by field: a memset of the struct costs more than the rest
	 * of the prefix scan on these short lines. */
	o->id = 0;
	o->has_id = 0;
	o->id_n = 0;
	o->has_sep = 0;
	o->pipe_n = o->name_n = o->detail_n = 0;
	o->pop = POP_NONE;
	o->name = o->detail = o->pipe = o->id_p = line;
	if (len >= 8 && !memcmp(p, "[info] [", 8)) {
		p += 8;
	} else {
		LIT(&p, end, "[info] ");
		if (p >= end || *p != '[')
			return -1;
		p++;
	}
	{
		/* Up to 19 digits cannot overflow; longer numbers take the
		 * saturating scan. */
		const char *q = p;
		uint64_t x = 0, w;
		/* Ticks are mostly eight digits or more: the first eight at
		 * once when they are all digits (SWAR). */
		if (end - p >= 8 && (memcpy(&w, p, 8),
		                     ((w & 0xf0f0f0f0f0f0f0f0ULL) |
		                      (((w + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL) >> 4)) ==
		                         0x3333333333333333ULL)) {
			w -= 0x3030303030303030ULL;
			w = w * 10 + (w >> 8);
			x = ((w & 0x000000ff000000ffULL) * (100 + (1000000ULL << 32)) +
			     ((w >> 16) & 0x000000ff000000ffULL) * (1 + (10000ULL << 32))) >> 32;
			q += 8;
		}
		while (q < end && (unsigned)(*q - '0') < 10 && q - p < 19)
			x = x * 10 + (unsigned)(*q++ - '0');
		if (q < end && (unsigned)(*q - '0') < 10) {
			k = scan_dec(p, end, &x);
			q = p + k;
		}
		o->tick = x;
		if (q == p || x == UINT64_MAX || q >= end || *q != ']')
			return -1;
		p = q + 1;
	}
	if (p < end && is_space((unsigned char)*p))
		p++;
	if (!LIT(&p, end, "(PC: 0x"))
		return -1;
	{
		const char *q = p;
		uint64_t x = 0;
		/* PCs are mostly eight digits: those at once when they are
		 * all digits. */
		if (end - q > 8 && hex8(q, &x))
			q += 8;
		for (; q < end; q++) {
			unsigned d = pc_digit[(unsigned char)*q];
			if (!d)
				break;
			x = x << 4 | (d - 1);
		}
		if (q == p || q - p > 16 || q >= end || *q != ')')
			return -1;
		o->pc = x;
		p = q + 1;
	}
	return (long)(p - line);
}

int grammar_rest(const char *line, size_t len, size_t off, struct iline *o)
{
	const char *p = line + off, *end = line + len;
	size_t k;

	if (LIT(&p, end, "@CORE")) {
		uint64_t v;
		k = scan_dec(p, end, &v);
		/* [0-9]{1,2} is greedy but gives back a digit when the
		 * pipe (after \s?) could not start otherwise; a digit 0-3
		 * can itself start the pipe. */
		if (k >= 2) {
			const char *r = p + 2;
			if (r < end && is_space((unsigned char)*r) && r + 1 < end && is_pipe_char((unsigned char)r[1]))
				r++;
			if (r < end && is_pipe_char((unsigned char)*r))
				k = 2;
			else if (p[1] >= '0' && p[1] <= '3')
				k = 1;
		}
		if (k < 1 || k > 2) {
			/* "@CORE" without 1-2 digits: the group does not match, and
			 * the pipe class cannot start at '@' either. */
			return -1;
		}
		p += k;
	}
	if (p < end && is_space((unsigned char)*p))
		p++;
	o->pipe = p;
	while (p < end && is_pipe_char((unsigned char)*p))
		p++;
	o->pipe_n = (size_t)(p - o->pipe);
	if (!o->pipe_n)
		return -1;
	if (!LIT(&p, end, " IB ISSUE"))
		LIT(&p, end, " ISSUE");
	while (p < end && is_space((unsigned char)*p))
		p++;
	p = tail(p, end, line, o);
	return no_cr(p, end) ? 0 : -1;
}

int grammar_rest_detail(const char *line, size_t len, size_t off, struct iline *o)
{
	const char *p = line + off, *end = line + len;
	o->pop = POP_NONE;
	p = tail_detail(p, end, line, o);
	return no_cr(p, end) ? 0 : -1;
}

int grammar_parse(const char *line, size_t len, struct iline *o)
{
	long off = grammar_prefix(line, len, o);
	return off < 0 ? -1 : grammar_rest(line, len, (size_t)off, o);
}

size_t strip_spaces(char *dst, const char *src, size_t n)
{
	size_t i = 0, o = 0;
	/* Eight bytes at a time while they hold no space (a SWAR zero-byte
	 * test on x ^ "        "); byte by byte around the spaces. */
	while (i + 8 <= n) {
		uint64_t x, t;
		memcpy(&x, src + i, 8);
		t = x ^ 0x2020202020202020ULL;
		if (!((t - 0x0101010101010101ULL) & ~t & 0x8080808080808080ULL)) {
			memcpy(dst + o, &x, 8);
			o += 8;
			i += 8;
			continue;
		}
		for (size_t e = i + 8; i < e; i++) {
			dst[o] = src[i];
			o += src[i] != ' ';
		}
	}
	for (; i < n; i++) {
		dst[o] = src[i];
		o += src[i] != ' ';
	}
	return o;
}

size_t strip_spaces_wide(char *dst, const char *src, size_t n)
{
#ifdef __SSE2__
	size_t i = 0, o = 0;
	/* Sixteen bytes are stored each round and the output advances to
	 * the first space (or by sixteen), the input past it: one round per
	 * space or per sixteen bytes without one. */
	while (i + 16 <= n) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8(' ')));
		_mm_storeu_si128((__m128i *)(void *)(dst + o), x);
		if (!m) {
			o += 16;
			i += 16;
		} else {
			unsigned k = (unsigned)__builtin_ctz(m);
			o += k;
			i += k + 1;
		}
	}
	return o + strip_spaces(dst + o, src + i, n - i);
#else
	return strip_spaces(dst, src, n);
#endif
}

#define EQ(s, n, lit) ((n) == sizeof(lit) - 1 && !memcmp(s, lit, sizeof(lit) - 1))

int is_usermark(const char *detail, size_t detail_n)
{
	/* This runs on every line: one memchr pass for the letter both
	 * needles have and operands rarely do (the 'C' of LPCNT and of
	 * SPR:COND,), each needle tested around it. */
	const char *p, *end = detail + detail_n;
	for (p = detail; (p = memchr(p, 'C', (size_t)(end - p))); p++) {
		if (p - detail >= 2 && end - p >= 3 && !memcmp(p - 2, "LPCNT", 5))
			return 1;
		if (p - detail >= 4 && end - p >= 5 && !memcmp(p - 4, "SPR:COND,", 9))
			return 1;
	}
	return 0;
}

unsigned detail_letters(const char *d, size_t n)
{
	size_t i = 0;
	unsigned has = 0;
#ifdef __SSE2__
	/* Sixteen bytes a round, the last round overlapping the one before. */
	if (n >= 16) {
		const __m128i c = _mm_set1_epi8('C'), lb = _mm_set1_epi8('[');
		__m128i mc = _mm_setzero_si128(), ml = _mm_setzero_si128(), x;
		for (; i + 16 < n; i += 16) {
			x = _mm_loadu_si128((const __m128i *)(const void *)(d + i));
			mc = _mm_or_si128(mc, _mm_cmpeq_epi8(x, c));
			ml = _mm_or_si128(ml, _mm_cmpeq_epi8(x, lb));
		}
		x = _mm_loadu_si128((const __m128i *)(const void *)(d + n - 16));
		mc = _mm_or_si128(mc, _mm_cmpeq_epi8(x, c));
		ml = _mm_or_si128(ml, _mm_cmpeq_epi8(x, lb));
		return (_mm_movemask_epi8(mc) ? DETAIL_C : 0) | (_mm_movemask_epi8(ml) ? DETAIL_LB : 0);
	}
#endif
	for (; i < n; i++) {
		has |= d[i] == 'C' ? DETAIL_C : 0;
		has |= d[i] == '[' ? DETAIL_LB : 0;
	}
	return has;
}

const char *normalise_pipe(const char *pipe, size_t pipe_n, const char *name, size_t name_n,
                           const char *detail, size_t detail_n)
{
	static const struct { const char *s; size_t n; } known[] = {
#define K(x) { x, sizeof(x) - 1 }
		K("SCALAR"), K("FLOWCTRL"), K("VECTOR"), K("CUBE"), K("MTE1"), K("MTE2"), K("MTE3"),
		K("FIXP"), K("EVENT"), K("CACHEMISS"), K("ALL"), K("USERMARK"), K("RVECST"),
		K("RVECLD"), K("RVECEX"), K("PUSHQ"), K("RVECSU"), K("RVECLP")
#undef K
	};
	size_t i;

	if (is_usermark(detail, detail_n))
		return "USERMARK";
	for (i = 0; i < sizeof known / sizeof known[0]; i++)
		if (known[i].n == pipe_n && !memcmp(pipe, known[i].s, pipe_n))
			return known[i].s;
	if (EQ(pipe, pipe_n, "VECTOR0") || EQ(pipe, pipe_n, "VEC0") || EQ(pipe, pipe_n, "VEC"))
		return "VECTOR";
	if (EQ(pipe, pipe_n, "FC"))
		return "FLOWCTRL";
	if (EQ(pipe, pipe_n, "FIX_PIPE"))
		return "FIXP";
	if (EQ(pipe, pipe_n, "ISSUE"))
		return "EVENT";
	if (TEXT_FIND(name, name_n, "scalar_ld") || TEXT_FIND(name, name_n, "scalar_st"))
		return "SCALAR";
	return "ALL";
}

/* \[warpId:([0-9]{1,2})\].*\[schId:([0-3])\], searched: the leftmost
 * warpId that has a schId after it, and (greedy .*) the last such schId. */
void simt_ids(const char *d, size_t n, int *warp, int *sch)
{
	const char *end = d + n, *p = d;
	*warp = *sch = -1;
	while ((p = text_find(p, (size_t)(end - p), "[warpId:", 8))) {
		const char *q = p + 8, *s, *last = NULL;
		uint64_t w;
		size_t k = scan_dec(q, end, &w);
		p++;
		if (k < 1 || k > 2 || q + k >= end || q[k] != ']')
			continue;
		s = q + k + 1;
		while ((s = text_find(s, (size_t)(end - s), "[schId:", 7))) {
			if (end - s >= 9 && s[7] >= '0' && s[7] <= '3' && s[8] == ']')
				last = s;
			s++;
		}
		if (last) {
			*warp = (int)w;
			*sch = last[7] - '0';
			return;
		}
	}
}

/* \[prdctMask:([0-9a-zA-Z]{0,8})\],\[execMask:([0-9a-zA-Z]{0,8})\] */
int simt_threads(const char *d, size_t n)
{
	const char *end = d + n, *p = d;
	while ((p = text_find(p, (size_t)(end - p), "[prdctMask:", 11))) {
		const char *a = p + 11, *q = a, *b, *r;
		uint64_t pm, em;
		p++;
		while (q < end && q - a <= 8 && is_name_char((unsigned char)*q) && *q != '_' && *q != '-')
			q++;
		if (q - a > 8 || end - q < 12 || memcmp(q, "],[execMask:", 12))
			continue;
		b = q + 12;
		r = b;
		while (r < end && r - b <= 8 && is_name_char((unsigned char)*r) && *r != '_' && *r != '-')
			r++;
		if (r - b > 8 || r >= end || *r != ']')
			continue;
		/* The reference converts with stoul(.., 16): empty or non-hex
		 * text throws and the count is left out; trailing non-hex is ignored. */
		if (!scan_hex(a, q, &pm) || !scan_hex(b, r, &em))
			return -1;
		return __builtin_popcountll(pm & em);
	}
	return -1;
}
