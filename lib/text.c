#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "scan.h"

size_t text_lookup(const void *table, size_t nent, size_t size, const char *s, size_t n)
{
	const char *e = table;
	size_t i;
	for (i = 0; i < nent; i++, e += size) {
		const char *name = *(const char *const *)(const void *)e;
		/* The first byte first (the end of an empty name): most
		 * entries differ there, and it spares their strlen. */
		if (n ? name[0] != s[0] : name[0] != 0)
			continue;
		if (strlen(name) == n && !memcmp(name, s, n))
			break;
	}
	return i;
}

/* ---- Source ---- */

static int is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* What a C++ stream takes for white space between words. */
static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int word_is(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && !memcmp(s, w, n);
}

/* The leftmost K1<a>,K2<b>,K3<c> in s, each group a maximal run of
 * letters and digits (at least one); g[i] / gn[i] the groups. */
static int flag_groups(const char *s, size_t n, const char *const key[3], const char *g[3], size_t gn[3])
{
	size_t i;
	for (i = 0; i < n; i++) {
		size_t p = i;
		int k;
		for (k = 0; k < 3; k++) {
			size_t kl = strlen(key[k]), a;
			if (k) {
				if (p >= n || s[p] != ',')
					break;
				p++;
			}
			if (n - p < kl || memcmp(s + p, key[k], kl))
				break;
			p += kl;
			for (a = p; p < n && is_alnum(s[p]); p++)
				;
			if (p == a)
				break;
			g[k] = s + a;
			gn[k] = p - a;
		}
		if (k == 3)
			return 1;
	}
	return 0;
}

size_t src_cut(char *s, size_t n)
{
	size_t i = 0, k = 0;
	while (i < n) {
		const char *c = memchr(s + i, ',', n - i), *cut;
		size_t te = c ? (size_t)(c - s) : n, len = te - i;
		/* "=0x" first; ":0x" only where there is no "=0x". */
		if (!(cut = TEXT_FIND(s + i, len, "=0x")))
			cut = TEXT_FIND(s + i, len, ":0x");
		if (cut)
			len = (size_t)(cut - (s + i));
		if (len) {
			if (k)
				s[k++] = ',';
			memmove(s + k, s + i, len);
			k += len;
		}
		i = te + 1;
	}
	s[k] = 0;
	return k;
}

static size_t put_flag(char *out, const char *name, size_t nn, const char *pipe, size_t pn, const char *id,
                       size_t idn)
{
	char *p = out;
	memmove(p, name, nn);
	p += nn;
	*p++ = ' ';
	memmove(p, pipe, pn);
	p += pn;
	memcpy(p, " ID:", 4);
	p += 4;
	memmove(p, id, idn);
	p += idn;
	return src_cut(out, (size_t)(p - out));
}

size_t src_text(char *out, const char *name, size_t nn, const char *detail, size_t dn, int p310)
{
	static const char *const key_a2[3] = { "PIPE:", "TRIGGERPIPE:", "FLAGID:" };
	static const char *const key_310p[3] = { "pipe_type:", "tigger_pipe:", "event_id:" };
	const char *set = p310 ? "set_event" : "SET_FLAG", *wait = p310 ? "wait_event" : "WAIT_FLAG";
	const char *s = out, *end, *w1, *w2;
	size_t n1, n2;

	memmove(out + nn + 1, detail, dn);
	memmove(out, name, nn);
	out[nn] = ' ';
	end = out + nn + 1 + dn;

	/* The first two words of the whole text, as a stream reads them. */
	for (w1 = s; w1 < end && is_space(*w1); w1++)
		;
	for (n1 = 0; w1 + n1 < end && !is_space(w1[n1]); n1++)
		;
	for (w2 = w1 + n1; w2 < end && is_space(*w2); w2++)
		;
	for (n2 = 0; w2 + n2 < end && !is_space(w2[n2]); n2++)
		;
	if (n2 && (word_is(w1, n1, set) || word_is(w1, n1, wait))) {
		const char *g[3];
		size_t gn[3];
		if (flag_groups(w2, n2, p310 ? key_310p : key_a2, g, gn)) {
			int is_wait = word_is(w1, n1, wait);
			/* Everything written lies at or before what it is read
			 * from, so the text is rebuilt in place. */
			return put_flag(out, w1, n1, g[is_wait ? 0 : 1], gn[is_wait ? 0 : 1], g[2], gn[2]);
		}
	}
	return src_cut(out, nn + 1 + dn);
}

size_t src_text_flag(char *out, const char *name, size_t nn, int wait, const char *prod, size_t prodn,
                     const char *cons, size_t consn, const char *flag, size_t flagn)
{
	return put_flag(out, name, nn, wait ? prod : cons, wait ? prodn : consn, flag, flagn);
}

size_t src_text_rec(char *out, const struct rec *r, int p310)
{
	const struct rec_text *nm = &r->s[IS_NAME], *prod = &r->s[IS_PROD], *cons = &r->s[IS_CONS],
	                      *flag = &r->s[IS_FLAG];
	uint64_t sync = r->n[I_SYNC].u;
	int wait = sync == SYNC_WAIT;

	if ((sync == SYNC_SET || wait) && prod->n && cons->n && flag->n &&
	    word_is(nm->p, nm->n, wait ? (p310 ? "wait_event" : "WAIT_FLAG") : (p310 ? "set_event" : "SET_FLAG")))
		return src_text_flag(out, nm->p, nm->n, wait, prod->p, prod->n, cons->p, cons->n, flag->p, flag->n);
	return src_text(out, nm->p, nm->n, r->s[IS_DETAIL].p, r->s[IS_DETAIL].n, p310);
}

/* ---- doubles ---- */

size_t dbl_shortest(char *buf, double v)
{
	int prec, n = 0;
	if (!isfinite(v)) {
		memcpy(buf, "null", 5);
		return 4;
	}
	/* A double is exact to 15 significant digits and always reads back
	 * from 17; a shorter text exists only where %.15g, which drops
	 * trailing zeros, already is it.  Precision 15 also keeps the fixed
	 * form up to 10^15, as the C++ writers do. */
	for (prec = 15; prec <= 17; prec++) {
		n = snprintf(buf, DBL_TEXT_MAX, "%.*g", prec, v);
		if (prec == 17 || strtod(buf, NULL) == v)
			break;
	}
	return (size_t)n;
}

size_t dbl_float(char *buf, double v)
{
	size_t n = dbl_shortest(buf, v);
	if (isfinite(v) && !strpbrk(buf, ".e")) {
		memcpy(buf + n, ".0", 3);
		n += 2;
	}
	return n;
}

size_t dbl_json(char *buf, double v)
{
	char ex[128], dig[20], *e;
	int prec, x = 0, neg, i;
	size_t n = 0;
	if (!isfinite(v)) {
		memcpy(buf, "null", 5);
		return 4;
	}
	neg = signbit(v) != 0;
	if (v == 0) {
		n = (size_t)snprintf(buf, DBL_TEXT_MAX, "%s0.0", neg ? "-" : "");
		return n;
	}
	for (prec = 15; prec <= 17; prec++) {
		/* the exact digits (glibc prints them so), then half up */
		snprintf(ex, sizeof ex, "%.*e", prec - 1 + 60, fabs(v));
		e = strchr(ex, 'e');
		x = atoi(e + 1);
		dig[0] = ex[0];
		memcpy(dig + 1, ex + 2, (size_t)prec - 1);
		dig[prec] = 0;
		if (ex[prec + 1] >= '5') {
			for (i = prec - 1; i >= 0 && dig[i] == '9'; i--)
				dig[i] = '0';
			if (i >= 0)
				dig[i]++;
			else {
				memmove(dig + 1, dig, (size_t)prec - 1);
				dig[0] = '1';
				x++;
			}
		}
		snprintf(ex, sizeof ex, "%s%se%d", neg ? "-" : "", dig, x - prec + 1);
		if (strtod(ex, NULL) == v)
			break;
	}
	if (prec > 17)
		prec = 17;
	while (prec > 1 && dig[prec - 1] == '0')
		dig[--prec] = 0;
	if (neg)
		buf[n++] = '-';
	if (x >= -4 && x <= 14) {
		if (x < 0) {
			buf[n++] = '0';
			buf[n++] = '.';
			for (i = -1; i > x; i--)
				buf[n++] = '0';
			memcpy(buf + n, dig, (size_t)prec);
			n += (size_t)prec;
		} else {
			for (i = 0; i <= x; i++)
				buf[n++] = i < prec ? dig[i] : '0';
			buf[n++] = '.';
			if (prec > x + 1) {
				memcpy(buf + n, dig + x + 1, (size_t)(prec - x - 1));
				n += (size_t)(prec - x - 1);
			} else
				buf[n++] = '0';
		}
		buf[n] = 0;
		return n;
	}
	buf[n++] = dig[0];
	if (prec > 1) {
		buf[n++] = '.';
		memcpy(buf + n, dig + 1, (size_t)prec - 1);
		n += (size_t)prec - 1;
	}
	n += (size_t)snprintf(buf + n, DBL_TEXT_MAX - n, "e%c%02d", x < 0 ? '-' : '+', x < 0 ? -x : x);
	return n;
}

/* ---- warps ---- */

size_t warp_name(char *buf, int w)
{
	return (size_t)snprintf(buf, WARP_NAME_MAX, "WARP_%d", w);
}

int warp_parse(const char *s, size_t n, int *w)
{
	size_t i = 5, d;
	int neg, v = 0;
	if (n < 6 || memcmp(s, "WARP_", 5))
		return 0;
	neg = s[i] == '-';
	i += (size_t)neg;
	for (d = 0; i < n && s[i] >= '0' && s[i] <= '9' && d < 9; i++, d++)
		v = v * 10 + (s[i] - '0');
	if (!d || i != n)
		return 0;
	*w = neg ? -v : v;
	return 1;
}

/* ---- JSON strings ---- */

static int hex4(const char *p, unsigned *v)
{
	int i, d;
	*v = 0;
	for (i = 0; i < 4; i++) {
		if ((d = hexval((unsigned char)p[i])) < 0)
			return -1;
		*v = *v << 4 | (unsigned)d;
	}
	return 0;
}

static char *put_utf8(char *o, unsigned cp)
{
	if (cp < 0x80) {
		*o++ = (char)cp;
	} else if (cp < 0x800) {
		*o++ = (char)(0xc0 | (cp >> 6));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		*o++ = (char)(0xe0 | (cp >> 12));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*o++ = (char)(0xf0 | (cp >> 18));
		*o++ = (char)(0x80 | ((cp >> 12) & 0x3f));
		*o++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*o++ = (char)(0x80 | (cp & 0x3f));
	}
	return o;
}

size_t jstr_unescape(const char *s, size_t n, char *out, unsigned flags, size_t *used)
{
	const char *p = s, *end = s + n;
	char *o = out;

	while (p < end && *p != '"') {
		unsigned cp, lo;
		if (*p != '\\') {
			*o++ = *p++;
			continue;
		}
		if (++p >= end)
			return (size_t)-1;
		switch (*p++) {
		case '"': *o++ = '"'; break;
		case '\\': *o++ = '\\'; break;
		case '/': *o++ = '/'; break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (end - p < 4 || hex4(p, &cp))
				return (size_t)-1;
			p += 4;
			if ((flags & JSTR_RAWBYTE) && cp >= 0xdc80 && cp <= 0xdcff) {
				*o++ = (char)(cp & 0xff);
				break;
			}
			if (cp >= 0xd800 && cp <= 0xdbff && end - p >= 6 && p[0] == '\\' && p[1] == 'u') {
				if (hex4(p + 2, &lo)) {
					if (flags & JSTR_STRICT)
						return (size_t)-1;
				} else if (lo >= 0xdc00 && lo <= 0xdfff) {
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
					p += 6;
				} else if (flags & JSTR_STRICT) {
					return (size_t)-1;
				}
			}
			o = put_utf8(o, cp);
			break;
		default:
			return (size_t)-1;
		}
	}
	*used = (size_t)(p - s);
	return (size_t)(o - out);
}

/* ---- a growing string ---- */

char *sb_room(struct sbuf *b, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	return b->p + b->n;
}

void sb_put(struct sbuf *b, const char *s, size_t n)
{
	char *d = sb_room(b, n);
	if (n)
		memcpy(d, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

void sb_free(struct sbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
}
