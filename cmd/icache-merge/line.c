/* icache-merge's line grammar (line.h). */
#include "line.h"

#include <string.h>

#include "scan.h"
#include "text.h"

const char *const grammar_name[G_NGRAMMARS] = { "A2/A3 'tick:'", "310P '[tick]:'", "310B '@tick:'" };

static int lower_hex(int c)
{
	return (unsigned)(c - '0') < 10 || (unsigned)(c - 'a') < 6;
}

/* The literal compared in place (text_eq), not by a memcmp call. */
static inline int lit(const char **p, const char *end, const char *s, size_t n)
{
	if ((size_t)(end - *p) < n || !text_eq(*p, s, n))
		return 0;
	*p += n;
	return 1;
}
#define LIT(p, end, s) lit(&(p), (end), (s), sizeof(s) - 1)

/* [0-9]{0,3} */
static void upto3_digits(const char **p, const char *end)
{
	int i;
	for (i = 0; i < 3 && *p < end && (unsigned)(**p - '0') < 10; i++)
		(*p)++;
}

enum { LINE_OTHER, LINE_MISS, LINE_FETCH };

/* Classify one line (without CR) by the fast path: the tick prefix, then
 * the fixed text after it.  A miss must match its grammar to the end of
 * the line (regex_match); a fetch line here is the usual "[info] N:"
 * form; everything else is LINE_OTHER and is looked at again slowly. */
static int parse_line(const char *p, const char *end, struct miss *m, int *fetch_prefix)
{
	const char *q;
	int info = LIT(p, end, "[info] ");
	size_t n;

	*fetch_prefix = 0;
	if (p < end && *p == '[') {
		m->g = G_310P;
		p++;
	} else if (p < end && *p == '@') {
		m->g = G_310B;
		p++;
	} else {
		m->g = G_A2;
	}
	if (!(n = scan_dec(p, end, &m->tick)))
		return LINE_OTHER;
	p += n;
	if (m->g == G_310P && !LIT(p, end, "]"))
		return LINE_OTHER;
	if (!LIT(p, end, ": "))
		return LINE_OTHER;
	if (!LIT(p, end, "icache read address is 0x")) {
		*fetch_prefix = info && m->g == G_A2;
		return LINE_OTHER;
	}
	m->addr_s = p - 2;
	for (q = p; q < end && q - p <= 16 && lower_hex((unsigned char)*q); q++)
		;
	if (q == p || q - p > 16)
		return LINE_OTHER;
	scan_hex(p, q, &m->addr);
	m->addr_n = (size_t)(q - m->addr_s);
	p = q;
	if (!LIT(p, end, ", "))
		return LINE_OTHER;
	m->tail = p;
	if (!LIT(p, end, "size is 0x") || end - p < 8)
		return LINE_OTHER;
	for (q = p + 8; p < q; p++)
		if (!lower_hex((unsigned char)*p))
			return LINE_OTHER;
	if (m->g == G_A2) {
		if (!LIT(p, end, ", type:"))
			return LINE_OTHER;
		upto3_digits(&p, end);
		if (!LIT(p, end, ", last:"))
			return LINE_OTHER;
		upto3_digits(&p, end);
	}
	if (!LIT(p, end, ", status is MISS") || p != end)
		return LINE_OTHER;
	m->tail_n = (size_t)(end - m->tail);
	return LINE_MISS;
}

static const char fetch_text[] = "lookup_tag is fetch req addr:";
#define FETCH_TEXT_N (sizeof fetch_text - 1)

/* "0x[0-9a-f]+" at p; at most 16 digits (a longer address does not fit
 * the pc field). */
static int fetch_addr(const char *p, const char *end, uint64_t *addr)
{
	const char *q;
	if (!LIT(p, end, "0x"))
		return 0;
	for (q = p; q < end && lower_hex((unsigned char)*q); q++)
		;
	if (q == p || q - p > 16)
		return 0;
	scan_hex(p, q, addr);
	return 1;
}

/* regex_search of "\[info\] ([0-9]+): lookup_tag is fetch req addr:(0x[0-9a-f]+)"
 * anywhere in the line. */
static int find_fetch(const char *line, const char *end, uint64_t *tick, uint64_t *addr)
{
	const char *p = line, *hit;
	while ((hit = memmem(p, (size_t)(end - p), fetch_text, FETCH_TEXT_N))) {
		const char *d = hit - 2;
		p = hit + 1;
		if (d < line || d[0] != ':' || d[1] != ' ')
			continue;
		while (d > line && (unsigned)(d[-1] - '0') < 10)
			d--;
		if (d == hit - 2 || d - line < 7 || memcmp(d - 7, "[info] ", 7))
			continue;
		if (!fetch_addr(hit + FETCH_TEXT_N, end, addr))
			continue;
		scan_dec(d, hit - 2, tick);
		return 1;
	}
	return 0;
}

int icache_parse(const char *text, size_t len, struct miss *m, uint64_t *tick, uint64_t *addr)
{
	const char *end;
	int fetch_prefix;

	if (len && text[len - 1] == '\r')
		len--;          /* CRLF dumps: the reference loses every A2 miss here */
	end = text + len;
	if (parse_line(text, end, m, &fetch_prefix) == LINE_MISS)
		return IC_MISS;
	if (fetch_prefix) {
		/* "[info] N: " was read; the usual fetch line follows it. */
		const char *p = text + 7;
		while ((unsigned)(*p - '0') < 10)
			p++;
		p += 2;
		if ((size_t)(end - p) >= FETCH_TEXT_N && !memcmp(p, fetch_text, FETCH_TEXT_N) &&
		    fetch_addr(p + FETCH_TEXT_N, end, addr)) {
			*tick = m->tick;
			return IC_FETCH;
		}
	}
	if (len >= 13 && !memcmp(end - 13, "status is HIT", 13))
		return IC_HIT;
	if (memmem(text, len, "status is MISS", 14))
		return IC_UNPARSED;
	if (find_fetch(text, end, tick, addr))
		return IC_FETCH;
	return IC_OTHER;
}

/* A run of up to three digits. */
static char *copy_digits(char *d, const char **p, const char *end)
{
	int i;
	for (i = 0; i < 3 && *p < end && (unsigned)(**p - '0') < 10; i++)
		*d++ = *(*p)++;
	return d;
}

/* The detail is the tail without its spaces.  parse_line has checked the
 * tail against the grammar, so it is laid out from the known pieces
 * rather than scanned byte by byte:
 * "size is 0x%08x[, type:D, last:D], status is MISS". */
size_t miss_detail(char *d0, const struct miss *m)
{
	const char *p = m->tail + 10, *end = m->tail + m->tail_n;
	char *d = d0;

	memcpy(d, "sizeis0x", 8);
	memcpy(d + 8, p, 8);
	d += 16;
	p += 8;
	if (m->g == G_A2) {
		memcpy(d, ",type:", 6);
		p += 7;
		d = copy_digits(d + 6, &p, end);
		memcpy(d, ",last:", 6);
		p += 7;
		d = copy_digits(d + 6, &p, end);
	}
	memcpy(d, ",statusisMISS", 13);
	return (size_t)(d + 13 - d0);
}

