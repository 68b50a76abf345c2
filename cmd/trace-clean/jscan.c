/* A streaming JSON scanner: the document's framing is walked through a
 * window, each wanted value is parsed whole from a contiguous stretch of
 * it.  Everything is validated (RFC 8259 grammar; bytes of strings are
 * not checked for UTF-8, they are copied as they are).  No regex, no
 * tree: a value costs one pass and the members of one object. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scan.h"
#include "tc.h"
#include "text.h"

/* Bytes that end a plain run inside a string: '"', '\\' and controls. */
static const unsigned char str_stop[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,
};

static inline int is_ws(unsigned char c)
{
	return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

static inline const char *skip_ws(const char *p, const char *end)
{
	while (p < end && is_ws((unsigned char)*p))
		p++;
	return p;
}

static inline int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int fail(struct jerr *e, const char *at, const char *msg)
{
	e->at = at;
	e->msg = msg;
	return J_ERR;
}

#if defined(__SSE2__)
#include <emmintrin.h>
/* Sixteen bytes at a time: the length of the plain run at p (< 16 when
 * a '"', '\\' or control byte is in them). */
static inline size_t plain16(const char *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
	__m128i q = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
	__m128i b = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
	__m128i c = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
	unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(q, b), c));
	return m ? (size_t)__builtin_ctz(m) : 16;
}
#endif

static int parse_string(const char **pp, const char *end, struct jval *v, struct jerr *e)
{
	const char *start = *pp + 1, *p = start;
	int esc = 0;

	for (;;) {
#if defined(__SSE2__)
		while (end - p >= 16) {
			size_t k = plain16(p);
			p += k;
			if (k < 16)
				break;
		}
#else
		while (end - p >= 8 && !(str_stop[(unsigned char)p[0]] | str_stop[(unsigned char)p[1]] |
		                         str_stop[(unsigned char)p[2]] | str_stop[(unsigned char)p[3]] |
		                         str_stop[(unsigned char)p[4]] | str_stop[(unsigned char)p[5]] |
		                         str_stop[(unsigned char)p[6]] | str_stop[(unsigned char)p[7]]))
			p += 8;
#endif
		while (p < end && !str_stop[(unsigned char)*p])
			p++;
		if (p >= end)
			return J_MORE;
		if (*p == '"')
			break;
		if (*p != '\\')
			return fail(e, p, "control character in a string");
		esc = 1;
		if (end - p < 2)
			return J_MORE;
		switch (p[1]) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			p += 2;
			continue;
		case 'u': {
			int i;
			for (i = 2; i < 6; i++) {
				if (p + i >= end)
					return J_MORE;
				if (hexval((unsigned char)p[i]) < 0)
					return fail(e, p + i, "bad \\u escape in a string");
			}
			p += 6;
			continue;
		}
		default:
			return fail(e, p + 1, "bad escape in a string");
		}
	}
	v->type = JT_STR;
	v->p = start;
	v->n = (size_t)(p - start);
	v->esc = (unsigned char)esc;
	*pp = p + 1;
	return J_OK;
}

static int parse_number(const char **pp, const char *end, struct jval *v, struct jerr *e)
{
	const char *p = *pp;

	if (*p == '-')
		p++;
	if (p >= end)
		return J_MORE;
	if (*p == '0') {
		p++;
		if (p < end && is_digit(*p))
			return fail(e, p, "bad number: a leading zero");
	} else if (is_digit(*p)) {
		while (p < end && is_digit(*p))
			p++;
	} else {
		return fail(e, p, "bad number");
	}
	if (p < end && *p == '.') {
		p++;
		if (p >= end)
			return J_MORE;
		if (!is_digit(*p))
			return fail(e, p, "bad number: no digit after '.'");
		while (p < end && is_digit(*p))
			p++;
	}
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (p >= end)
			return J_MORE;
		if (!is_digit(*p))
			return fail(e, p, "bad number: no digit in the exponent");
		while (p < end && is_digit(*p))
			p++;
	}
	/* A number that reaches the end of the window may go on. */
	if (p >= end)
		return J_MORE;
	v->type = JT_NUM;
	v->p = *pp;
	v->n = (size_t)(p - *pp);
	v->esc = 0;
	*pp = p;
	return J_OK;
}

static int parse_literal(const char **pp, const char *end, struct jval *v, struct jerr *e,
                         const char *lit, size_t n, int type)
{
	const char *p = *pp;
	size_t i;
	for (i = 0; i < n; i++) {
		if (p + i >= end)
			return J_MORE;
		if (p[i] != lit[i])
			return fail(e, p + i, "unexpected character");
	}
	v->type = (unsigned char)type;
	v->p = p;
	v->n = n;
	v->esc = 0;
	*pp = p + n;
	return J_OK;
}

/* Containers, validated without keeping their members. */
static int parse_container(const char **pp, const char *end, struct jval *v, int depth, struct jerr *e)
{
	const char *start = *pp, *p = start + 1;
	int obj = *start == '{', k;
	char close = obj ? '}' : ']';
	struct jval tmp;

	if (depth >= J_MAXDEPTH)
		return fail(e, start, "nesting too deep");
	p = skip_ws(p, end);
	if (p >= end)
		return J_MORE;
	if (*p != close) {
		for (;;) {
			if (obj) {
				if (*p != '"')
					return fail(e, p, "expected a string key");
				k = parse_string(&p, end, &tmp, e);
				if (k)
					return k;
				p = skip_ws(p, end);
				if (p >= end)
					return J_MORE;
				if (*p != ':')
					return fail(e, p, "expected ':' after an object key");
				p = skip_ws(p + 1, end);
				if (p >= end)
					return J_MORE;
			}
			k = jval_parse(&p, end, &tmp, depth + 1, e);
			if (k)
				return k;
			p = skip_ws(p, end);
			if (p >= end)
				return J_MORE;
			if (*p == close)
				break;
			if (*p != ',')
				return fail(e, p, obj ? "expected ',' or '}' in an object" : "expected ',' or ']' in an array");
			p = skip_ws(p + 1, end);
			if (p >= end)
				return J_MORE;
		}
	}
	v->type = obj ? JT_OBJ : JT_ARR;
	v->p = start;
	v->n = (size_t)(p + 1 - start);
	v->esc = 0;
	*pp = p + 1;
	return J_OK;
}

int jval_parse(const char **pp, const char *end, struct jval *v, int depth, struct jerr *e)
{
	const char *p = *pp;
	if (p >= end)
		return J_MORE;
	switch (*p) {
	case '"':
		return parse_string(pp, end, v, e);
	case '{':
	case '[':
		return parse_container(pp, end, v, depth, e);
	case 't':
		return parse_literal(pp, end, v, e, "true", 4, JT_TRUE);
	case 'f':
		return parse_literal(pp, end, v, e, "false", 5, JT_FALSE);
	case 'n':
		return parse_literal(pp, end, v, e, "null", 4, JT_NULL);
	default:
		if (*p == '-' || is_digit(*p))
			return parse_number(pp, end, v, e);
		return fail(e, p, "unexpected character (not a JSON value)");
	}
}

int jobj_parse(const char **pp, const char *end, struct jobj *o, struct jerr *e)
{
	const char *start = *pp, *p = start + 1;
	int k;

	o->n = 0;
	p = skip_ws(p, end);
	if (p >= end)
		return J_MORE;
	if (*p == '}') {
		*pp = p + 1;
		return J_OK;
	}
	for (;;) {
		struct jmem *m;
		if (o->n == o->cap) {
			o->cap = o->cap ? 2 * o->cap : 16;
			o->m = xrealloc(o->m, o->cap * sizeof *o->m);
		}
		m = &o->m[o->n];
		if (*p != '"')
			return fail(e, p, "expected a string key");
		k = parse_string(&p, end, &m->key, e);
		if (k)
			return k;
		p = skip_ws(p, end);
		if (p >= end)
			return J_MORE;
		if (*p != ':')
			return fail(e, p, "expected ':' after an object key");
		p = skip_ws(p + 1, end);
		k = jval_parse(&p, end, &m->val, 1, e);
		if (k)
			return k;
		o->n++;
		p = skip_ws(p, end);
		if (p >= end)
			return J_MORE;
		if (*p == '}')
			break;
		if (*p != ',')
			return fail(e, p, "expected ',' or '}' in an object");
		p = skip_ws(p + 1, end);
		if (p >= end)
			return J_MORE;
	}
	*pp = p + 1;
	return J_OK;
}

void jobj_free(struct jobj *o)
{
	free(o->m);
	o->m = NULL;
	o->n = o->cap = 0;
}

/* Strings were validated when parsed: the decoding cannot fail, and is
 * never longer than the escaped text. */
size_t jstr_decode(const struct jval *v, char *buf)
{
	size_t used;
	if (!v->esc) {
		memcpy(buf, v->p, v->n);
		return v->n;
	}
	return jstr_unescape(v->p, v->n, buf, 0, &used);
}

int jstr_eq(const struct jval *v, const char *s, size_t n)
{
	char tmp[384], *b;
	size_t k;
	int eq;
	if (v->type != JT_STR)
		return 0;
	if (!v->esc)
		return v->n == n && !memcmp(v->p, s, n);
	/* A decoded byte takes at most 6 bytes of the text (\u00XX): a longer
	 * text cannot decode to n bytes. */
	if (v->n > 6 * n)
		return 0;
	b = v->n <= sizeof tmp ? tmp : xmalloc(v->n);
	k = jstr_decode(v, b);
	eq = k == n && !memcmp(b, s, n);
	if (b != tmp)
		free(b);
	return eq;
}

/* Exact powers of ten a double holds. */
static const double pow10d[23] = {
	1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
};
static const uint64_t pow10u[20] = {
	1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull,
	1000000000ull, 10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull,
	100000000000000ull, 1000000000000000ull, 10000000000000000ull, 100000000000000000ull,
	1000000000000000000ull, 10000000000000000000ull,
};

#if defined(__SIZEOF_INT128__)
/* m * 10^-k correctly rounded, for m < 2^64 and k <= 19: the quotient
 * m * 2^s / 10^k carries at least 62 bits, the remainder is the sticky
 * bit, and the rounding to 53 bits is done here, to nearest even. */
static double div_pow10(uint64_t m, int k)
{
	unsigned __int128 num, q, rest, half;
	uint64_t d = pow10u[k], mant;
	int s = 64 + __builtin_clzll(m) - 1, len, shift, sticky;

	num = (unsigned __int128)m << s;      /* in [2^126, 2^127) */
	q = num / d;
	sticky = num % d != 0;
	len = 128 - ((q >> 64) ? __builtin_clzll((uint64_t)(q >> 64)) : 64 + __builtin_clzll((uint64_t)q));
	shift = len - 53;
	mant = (uint64_t)(q >> shift);
	rest = q & (((unsigned __int128)1 << shift) - 1);
	half = (unsigned __int128)1 << (shift - 1);
	if (rest > half || (rest == half && (sticky || (mant & 1))))
		mant++;
	return ldexp((double)mant, shift - s);
}
#endif

/* Clinger's fast path (mantissa below 2^53, power of ten at most 22: one
 * correctly rounded operation), an exact 128-bit path for the 17-digit
 * timestamps of the reference, else strtod.  The same value as Python's
 * float() of the text, always. */
double jnum(const char *p, size_t n, int *ok)
{
	const char *s = p, *end = p + n;
	uint64_t m = 0;
	int digits = 0, neg = 0, exp10 = 0, eneg = 0, e = 0;
	char tmp[64];
	double v;

	*ok = 1;
	if (s < end && *s == '-') {
		neg = 1;
		s++;
	}
	for (; s < end && is_digit(*s); s++) {
		if (m || *s != '0') {
			if (++digits > 19)
				goto slow;
			m = m * 10 + (uint64_t)(*s - '0');
		}
	}
	if (s < end && *s == '.') {
		for (s++; s < end && is_digit(*s); s++) {
			exp10--;
			if (m || *s != '0') {
				if (++digits > 19)
					goto slow;
				m = m * 10 + (uint64_t)(*s - '0');
			}
		}
	}
	if (s < end && (*s == 'e' || *s == 'E')) {
		s++;
		if (s < end && (*s == '+' || *s == '-'))
			eneg = *s++ == '-';
		for (; s < end && is_digit(*s); s++) {
			if (e > 10000)
				goto slow;
			e = e * 10 + (*s - '0');
		}
		exp10 += eneg ? -e : e;
	}
	if (!m)
		return neg ? -0.0 : 0.0;
	if (m <= (1ull << 53) && exp10 >= -22 && exp10 <= 22) {
		v = (double)m;
		v = exp10 < 0 ? v / pow10d[-exp10] : v * pow10d[exp10];
		return neg ? -v : v;
	}
#if defined(__SIZEOF_INT128__)
	if (exp10 < 0 && exp10 >= -19) {
		v = div_pow10(m, -exp10);
		return neg ? -v : v;
	}
	if (exp10 >= 0 && exp10 <= 19) {
		/* Exact in 128 bits; the conversion rounds correctly. */
		v = (double)((unsigned __int128)m * pow10u[exp10]);
		return neg ? -v : v;
	}
#endif
slow:
	if (n >= sizeof tmp) {
		char *big = xstrndup(p, n);
		v = strtod(big, NULL);
		free(big);
	} else {
		memcpy(tmp, p, n);
		tmp[n] = 0;
		v = strtod(tmp, NULL);
	}
	if (!isfinite(v)) {
		*ok = 0;
		return 0;
	}
	return v;
}

/* ---- the window ---- */

ssize_t src_read(struct src *s, void *buf, size_t n)
{
	if (s->vr)
		return vdata_read(s->vr, buf, n);
	{
		size_t k = rd_read(s->rd, buf, n);
		if (!k && rd_error(s->rd)) {
			errno = rd_error(s->rd);
			return -1;
		}
		return (ssize_t)k;
	}
}

void jbuf_init(struct jbuf *jb, struct src *s, size_t cap, size_t max)
{
	memset(jb, 0, sizeof *jb);
	jb->src = s;
	jb->cap = cap;
	jb->max = max;
	jb->b = xmalloc(cap + 1);
}

void jbuf_free(struct jbuf *jb)
{
	free(jb->b);
	jb->b = NULL;
}

int jbuf_more(struct jbuf *jb)
{
	ssize_t k;
	if (jb->eof)
		return 0;
	if (jb->pos) {
		memmove(jb->b, jb->b + jb->pos, jb->end - jb->pos);
		jb->off += jb->pos;
		jb->end -= jb->pos;
		jb->pos = 0;
	}
	if (jb->cap - jb->end < jb->cap / 4) {
		/* One value fills most of the window: make room for it. */
		if (jb->cap >= jb->max)
			return -1;
		jb->cap = jb->cap * 2 > jb->max ? jb->max : jb->cap * 2;
		jb->b = xrealloc(jb->b, jb->cap + 1);
	}
	k = src_read(jb->src, jb->b + jb->end, jb->cap - jb->end);
	if (k < 0) {
		jb->err = errno ? errno : EIO;
		return -1;
	}
	if (k == 0) {
		jb->eof = 1;
		return 0;
	}
	jb->end += (size_t)k;
	return 1;
}

/* ---- the framing ---- */

static int syntax(struct jbuf *jb, struct jfail *f, const char *at, const char *msg)
{
	f->off = jb->off + (uint64_t)(at - jb->b);
	snprintf(f->msg, sizeof f->msg, "%s", msg);
	return JS_SYNTAX;
}

/* The window at pos holds a non-whitespace byte: 1; 0 at end of input
 * (f filled with what was expected); -1 on a read error. */
static int want(struct jbuf *jb, struct jfail *f, int *st, const char *what)
{
	for (;;) {
		const char *p = skip_ws(jb->b + jb->pos, jb->b + jb->end);
		int k;
		jb->pos = (size_t)(p - jb->b);
		if (jb->pos < jb->end)
			return 1;
		k = jbuf_more(jb);
		if (k < 0) {
			if (jb->err) {
				f->off = jb->off + jb->end;
				snprintf(f->msg, sizeof f->msg, "read error: %s", strerror(jb->err));
				*st = JS_IO;
			} else {
				*st = JS_BIG;
			}
			return -1;
		}
		if (k == 0) {
			f->off = jb->off + jb->end;
			snprintf(f->msg, sizeof f->msg, "unexpected end of data: expected %s", what);
			*st = JS_SYNTAX;
			return 0;
		}
	}
}

/* Parse a value (or an object's members, when o is given) at pos,
 * reading more until it is whole. */
static int whole(struct jbuf *jb, struct jfail *f, struct jval *v, struct jobj *o)
{
	for (;;) {
		const char *p = jb->b + jb->pos, *end = jb->b + jb->end;
		struct jerr e;
		int k;

		if (o && *p == '{') {
			k = jobj_parse(&p, end, o, &e);
			if (k == J_OK) {
				v->type = JT_OBJ;
				v->p = jb->b + jb->pos;
				v->n = (size_t)(p - v->p);
			}
		} else {
			k = jval_parse(&p, end, v, 0, &e);
		}
		if (k == J_OK) {
			jb->pos = (size_t)(p - jb->b);
			return JS_OK;
		}
		if (k == J_ERR)
			return syntax(jb, f, e.at, e.msg);
		k = jbuf_more(jb);
		if (k < 0) {
			if (jb->err) {
				f->off = jb->off + jb->end;
				snprintf(f->msg, sizeof f->msg, "read error: %s", strerror(jb->err));
				return JS_IO;
			}
			f->off = jb->off + jb->pos;
			snprintf(f->msg, sizeof f->msg, "a single JSON value larger than %zu MiB", jb->max >> 20);
			return JS_BIG;
		}
		if (k == 0) {
			/* A number at the very end is whole; anything else was cut. */
			if (jb->pos < jb->end && (jb->b[jb->pos] == '-' || is_digit(jb->b[jb->pos]))) {
				jb->b[jb->end] = ' ';
				p = jb->b + jb->pos;
				if (jval_parse(&p, jb->b + jb->end + 1, v, 0, &e) == J_OK) {
					jb->pos = (size_t)(p - jb->b);
					return JS_OK;
				}
			}
			f->off = jb->off + jb->end;
			snprintf(f->msg, sizeof f->msg, "unexpected end of data inside a value");
			return JS_SYNTAX;
		}
	}
}

/* Elements of an array at pos ('[' not yet consumed). */
static int stream_array(struct jbuf *jb, const struct jhandler *h, void *ctx, struct jfail *f,
                        const struct jval *key, struct jobj *o)
{
	int st = JS_OK, k;
	jb->pos++;
	k = want(jb, f, &st, "an array element or ']'");
	if (k <= 0)
		return st;
	if (jb->b[jb->pos] == ']') {
		jb->pos++;
		return JS_OK;
	}
	for (;;) {
		struct jval v;
		uint64_t off = jb->off + jb->pos;
		int isobj = jb->b[jb->pos] == '{';
		st = whole(jb, f, &v, o);
		if (st)
			return st;
		if (h->element(ctx, key, isobj ? o : NULL, &v, off))
			return JS_STOP;
		k = want(jb, f, &st, "',' or ']'");
		if (k <= 0)
			return st;
		if (jb->b[jb->pos] == ']') {
			jb->pos++;
			return JS_OK;
		}
		if (jb->b[jb->pos] != ',')
			return syntax(jb, f, jb->b + jb->pos, "expected ',' or ']' in an array");
		jb->pos++;
		k = want(jb, f, &st, "an array element");
		if (k <= 0)
			return st;
	}
}

int jscan(struct jbuf *jb, const struct jhandler *h, void *ctx, struct jfail *f)
{
	struct jobj o = { 0 };
	char *keybuf = NULL;
	int st = JS_OK, k;

	k = want(jb, f, &st, "a JSON object or array");
	if (k <= 0)
		goto out;
	if (jb->b[jb->pos] == '[') {
		st = stream_array(jb, h, ctx, f, NULL, &o);
		if (st)
			goto out;
	} else if (jb->b[jb->pos] == '{') {
		jb->pos++;
		k = want(jb, f, &st, "a key or '}'");
		if (k <= 0)
			goto out;
		if (jb->b[jb->pos] == '}') {
			jb->pos++;
		} else {
			for (;;) {
				struct jval key, val;
				if (jb->b[jb->pos] != '"') {
					st = syntax(jb, f, jb->b + jb->pos, "expected a string key");
					goto out;
				}
				st = whole(jb, f, &key, NULL);
				if (st)
					goto out;
				/* The key must outlive the window's moves. */
				free(keybuf);
				keybuf = xmalloc(key.n + 1);
				memcpy(keybuf, key.p, key.n);
				key.p = keybuf;
				k = want(jb, f, &st, "':'");
				if (k <= 0)
					goto out;
				if (jb->b[jb->pos] != ':') {
					st = syntax(jb, f, jb->b + jb->pos, "expected ':' after an object key");
					goto out;
				}
				jb->pos++;
				k = want(jb, f, &st, "a value");
				if (k <= 0)
					goto out;
				if (jb->b[jb->pos] == '[' && h->stream_key && h->stream_key(ctx, &key)) {
					st = stream_array(jb, h, ctx, f, &key, &o);
					if (st)
						goto out;
				} else {
					st = whole(jb, f, &val, NULL);
					if (st)
						goto out;
					if (h->value && h->value(ctx, &key, &val)) {
						st = JS_STOP;
						goto out;
					}
				}
				k = want(jb, f, &st, "',' or '}'");
				if (k <= 0)
					goto out;
				if (jb->b[jb->pos] == '}') {
					jb->pos++;
					break;
				}
				if (jb->b[jb->pos] != ',') {
					st = syntax(jb, f, jb->b + jb->pos, "expected ',' or '}' in an object");
					goto out;
				}
				jb->pos++;
				k = want(jb, f, &st, "a key");
				if (k <= 0)
					goto out;
			}
		}
	} else {
		st = syntax(jb, f, jb->b + jb->pos, "expected a JSON object or array");
		goto out;
	}
	/* Nothing but whitespace may follow the document. */
	for (;;) {
		const char *p = skip_ws(jb->b + jb->pos, jb->b + jb->end);
		jb->pos = (size_t)(p - jb->b);
		if (jb->pos < jb->end) {
			st = syntax(jb, f, p, "extra data after the JSON document");
			goto out;
		}
		k = jbuf_more(jb);
		if (k == 0)
			break;
		if (k < 0) {
			f->off = jb->off + jb->end;
			snprintf(f->msg, sizeof f->msg, "read error: %s", strerror(jb->err ? jb->err : EIO));
			st = JS_IO;
			goto out;
		}
	}
	st = JS_OK;
out:
	free(keybuf);
	jobj_free(&o);
	return st;
}
