#include "json.h"

#include "text.h"


#include <math.h>
#include <stdio.h>
#include <string.h>

void json_init(struct json *j, struct wr *w)
{
	memset(j, 0, sizeof *j);
	j->w = w;
}

void json_lines_at(struct json *j, int d) { j->nl_depth = d; }

void json_trace_begin(struct json *j)
{
	json_lines_at(j, 2);
	json_begin_object(j);
	json_kv_cstr(j, "profilingType", "op");
	json_kv_cstr(j, "displayTimeUnit", "ns");
	json_kv_uint(j, "schemaVersion", 1);
	json_key(j, "traceEvents");
	json_begin_array(j);
}

/* The separator owed before a new element: a comma after a sibling, and
 * a line break where the caller asked for one.  Returns bytes written to p
 * (p has room for 2). */
static size_t sep(struct json *j, char *p)
{
	size_t k = 0;
	if (j->after_key) {
		j->after_key = 0;
		return 0;
	}
	if (j->depth == 0)
		return 0;
	if (j->more[j->depth])
		p[k++] = ',';
	j->more[j->depth] = 1;
	if (j->depth == j->nl_depth)
		p[k++] = '\n';
	return k;
}

static void done(struct json *j, size_t n)
{
	wr_commit(j->w, n);
	j->bytes += n;
}

static void open_c(struct json *j, char c, int obj)
{
	char *p = wr_reserve(j->w, 4);
	size_t k = sep(j, p);
	p[k++] = c;
	done(j, k);
	/* Deeper than the limit is a caller bug; keep the text balanced
	 * anyway by not tracking the extra levels' commas. */
	if (j->depth < JSON_MAXDEPTH)
		j->depth++;
	j->more[j->depth] = 0;
	j->is_obj[j->depth] = (unsigned char)obj;
}

static void close_c(struct json *j, char c)
{
	char *p = wr_reserve(j->w, 8);
	size_t k = 0;
	if (j->after_key) {
		memcpy(p, "null", 4);
		k = 4;
		j->after_key = 0;
	}
	if (j->depth == j->nl_depth && j->more[j->depth])
		p[k++] = '\n';
	p[k++] = c;
	done(j, k);
	if (j->depth > 0)
		j->depth--;
}

void json_begin_object(struct json *j) { open_c(j, '{', 1); }
void json_end_object(struct json *j) { close_c(j, '}'); }
void json_begin_array(struct json *j) { open_c(j, '[', 0); }
void json_end_array(struct json *j) { close_c(j, ']'); }

void json_close_all(struct json *j)
{
	while (j->depth > 0)
		close_c(j, j->is_obj[j->depth] ? '}' : ']');
}

/* Bytes that JSON strings cannot hold as they are. */
static const unsigned char must_escape[256] = {
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* '"' */
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0,   /* '\\' */
};

/* Escaped text of s into p (room for 6 bytes per input byte). */
static size_t escape(char *p, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *u = (const unsigned char *)s;
	size_t k = 0, i = 0;
	while (i < n) {
		/* Runs of ordinary bytes are the common case: find their end
		 * eight bytes at a time (a byte below 0x20, '"' or '\\' stops
		 * it), and copy them whole. */
		size_t r = i;
		while (r + 8 <= n) {
			uint64_t x, q, b;
			memcpy(&x, u + r, 8);
			q = x ^ 0x2222222222222222ull;
			b = x ^ 0x5c5c5c5c5c5c5c5cull;
			if (((x - 0x2020202020202020ull) | (q - 0x0101010101010101ull) | (b - 0x0101010101010101ull)) &
			    ~x & 0x8080808080808080ull)
				break;
			r += 8;
		}
		while (r < n && !must_escape[u[r]])
			r++;
		memcpy(p + k, s + i, r - i);
		k += r - i;
		i = r;
		if (i == n)
			break;
		{
			unsigned char c = u[i++];
			p[k++] = '\\';
			switch (c) {
			case '"': p[k++] = '"'; break;
			case '\\': p[k++] = '\\'; break;
			case '\n': p[k++] = 'n'; break;
			case '\r': p[k++] = 'r'; break;
			case '\t': p[k++] = 't'; break;
			case '\b': p[k++] = 'b'; break;
			case '\f': p[k++] = 'f'; break;
			default:
				memcpy(p + k, "u00", 3);
				p[k + 3] = hex[c >> 4];
				p[k + 4] = hex[c & 15];
				k += 5;
			}
		}
	}
	return k;
}

/* A quoted, escaped string after sep.  Long strings go in pieces so the
 * writer's buffer never has to grow for them. */
static void put_string(struct json *j, const char *s, size_t n, int colon)
{
	enum { PIECE = 4096 };
	char *p = wr_reserve(j->w, 3 + (n < PIECE ? n : PIECE) * 6 + 2);
	size_t k = sep(j, p);
	p[k++] = '"';
	while (n > PIECE) {
		k += escape(p + k, s, PIECE);
		done(j, k);
		s += PIECE;
		n -= PIECE;
		p = wr_reserve(j->w, (n < PIECE ? n : PIECE) * 6 + 2);
		k = 0;
	}
	k += escape(p + k, s, n);
	p[k++] = '"';
	if (colon)
		p[k++] = ':';
	done(j, k);
}

void json_key_n(struct json *j, const char *key, size_t n)
{
	put_string(j, key, n, 1);
	j->after_key = 1;
}

void json_key(struct json *j, const char *key) { json_key_n(j, key, strlen(key)); }
void json_string(struct json *j, const char *s, size_t n) { put_string(j, s, n, 0); }
void json_cstring(struct json *j, const char *s) { put_string(j, s, strlen(s), 0); }

size_t json_fmt_uint(char *buf, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";
	char tmp[24];
	size_t n = sizeof tmp;
	/* Two digits a step: timestamps are most of what is written. */
	while (v >= 100) {
		unsigned d = (unsigned)(v % 100) * 2;
		v /= 100;
		tmp[--n] = pairs[d + 1];
		tmp[--n] = pairs[d];
	}
	if (v >= 10) {
		unsigned d = (unsigned)v * 2;
		tmp[--n] = pairs[d + 1];
		tmp[--n] = pairs[d];
	} else {
		tmp[--n] = (char)('0' + v);
	}
	memcpy(buf, tmp + n, sizeof tmp - n);
	return sizeof tmp - n;
}

void json_uint(struct json *j, uint64_t v)
{
	char *p = wr_reserve(j->w, 24);
	size_t k = sep(j, p);
	k += json_fmt_uint(p + k, v);
	done(j, k);
}

void json_int(struct json *j, int64_t v)
{
	char *p = wr_reserve(j->w, 24);
	size_t k = sep(j, p);
	if (v < 0) {
		p[k++] = '-';
		k += json_fmt_uint(p + k, (uint64_t)0 - (uint64_t)v);
	} else {
		k += json_fmt_uint(p + k, (uint64_t)v);
	}
	done(j, k);
}

char *jw_fixed(char *p, uint64_t v, unsigned decimals)
{
	char d[24];
	size_t n = json_fmt_uint(d, v), ni, nf;

	if (decimals > 19)
		decimals = 19;
	/* All the digits in one pass, then the point put in: timestamps are
	 * most of a trace. */
	if (n <= decimals) {
		*p++ = '0';
		ni = 0;
	} else {
		ni = n - decimals;
		memcpy(p, d, ni);
		p += ni;
	}
	/* Trailing fractional zeros carry nothing. */
	nf = n - ni;
	while (nf && d[ni + nf - 1] == '0')
		nf--;
	if (!nf)
		return p;
	*p++ = '.';
	if (n < decimals) {
		memset(p, '0', decimals - n);
		p += decimals - n;
	}
	memcpy(p, d + ni, nf);
	return p + nf;
}

void json_fixed(struct json *j, uint64_t v, unsigned decimals)
{
	char *p = wr_reserve(j->w, 48);
	size_t k = sep(j, p);
	done(j, (size_t)(jw_fixed(p + k, v, decimals) - p));
}

void json_double(struct json *j, double v)
{
	char *p = wr_reserve(j->w, DBL_TEXT_MAX + 2);
	size_t k = sep(j, p);
	done(j, k + dbl_shortest(p + k, v));
}

void json_raw_value(struct json *j, const char *s, size_t n)
{
	char *p = wr_reserve(j->w, n + 2);
	size_t k = sep(j, p);
	memcpy(p + k, s, n);
	done(j, k + n);
}

void json_bool(struct json *j, int v) { json_raw_value(j, v ? "true" : "false", v ? 4 : 5); }
void json_null(struct json *j) { json_raw_value(j, "null", 4); }

void json_kv_str(struct json *j, const char *key, const char *s, size_t n)
{
	json_key(j, key);
	json_string(j, s, n);
}

void json_kv_cstr(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_cstring(j, s);
}

void json_kv_uint(struct json *j, const char *key, uint64_t v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kv_int(struct json *j, const char *key, int64_t v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_kv_fixed(struct json *j, const char *key, uint64_t v, unsigned decimals)
{
	json_key(j, key);
	json_fixed(j, v, decimals);
}

char *json_value_start(struct json *j, size_t max)
{
	char *p = wr_reserve(j->w, max + 2);
	j->res = p;
	return p + sep(j, p);
}

void json_value_done(struct json *j, char *end)
{
	done(j, (size_t)(end - j->res));
}

char *jw_str(char *p, const char *s, size_t n)
{
	*p++ = '"';
	p += escape(p, s, n);
	*p++ = '"';
	return p;
}

char *jw_uint(char *p, uint64_t v)
{
	return p + json_fmt_uint(p, v);
}

char *jw_hex(char *p, uint64_t v)
{
	static const char hex[] = "0123456789abcdef";
	/* The digit count from the highest set bit, then the digits from the
	 * right in place. */
	size_t nd = v ? (size_t)(67 - __builtin_clzll(v)) / 4 : 1, i;
	*p++ = '0';
	*p++ = 'x';
	for (i = nd; i > 0; v >>= 4)
		p[--i] = hex[v & 15];
	return p + nd;
}

char *jw_int(char *p, int64_t v)
{
	if (v < 0) {
		*p++ = '-';
		return p + json_fmt_uint(p, (uint64_t)0 - (uint64_t)v);
	}
	return p + json_fmt_uint(p, (uint64_t)v);
}
