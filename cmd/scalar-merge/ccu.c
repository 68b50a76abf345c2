/* scalar-merge's CCU line grammar (ccu.h). */
#include "ccu.h"

#include <string.h>

#include "scan.h"
#include "text.h"

/* regex_search \[info\] ([0-9]+): (is_single_issue instr, pc|ccu do issue
 * success.issue isa pc ):(0x[0-9a-f]+) at its leftmost match. */
/* scan_dec, with the first 19 digits (which cannot overflow) taken
 * without its saturation test. */
static inline size_t dec(const char *p, const char *end, uint64_t *v)
{
	const char *s = p, *stop = end - p > 19 ? p + 19 : end;
	uint64_t x = 0;
	while (p < stop && (unsigned)(*p - '0') < 10)
		x = x * 10 + (unsigned)(*p++ - '0');
	if (p < stop || p == end || (unsigned)(*p - '0') >= 10) {
		*v = x;
		return (size_t)(p - s);
	}
	return scan_dec(s, end, v);     /* 20 digits or more */
}

/* One more than the value of a lower-case hex digit; 0 for other bytes. */
static const unsigned char hex_lower[256] = {
	['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8, ['8'] = 9,
	['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
};

static int ccu_at(const char *p, const char *end, uint64_t *tick, uint64_t *pc)
{
	static const char single[] = "is_single_issue instr, pc";
	static const char issue1[] = "ccu do issue success", issue2[] = "issue isa pc ";
	size_t nd = dec(p, end, tick);
	uint64_t x = 0;
	int digits = 0;

	if (!nd)
		return -1;
	p += nd;
	if (end - p < 2 || p[0] != ':' || p[1] != ' ')
		return -1;
	p += 2;
	if ((size_t)(end - p) >= sizeof single - 1 && !memcmp(p, single, sizeof single - 1)) {
		p += sizeof single - 1;
	} else if ((size_t)(end - p) >= sizeof issue1 + sizeof issue2 - 1 &&
	           !memcmp(p, issue1, sizeof issue1 - 1) && p[sizeof issue1 - 1] != '\n' &&
	           p[sizeof issue1 - 1] != '\r' &&
	           !memcmp(p + sizeof issue1, issue2, sizeof issue2 - 1)) {
		p += sizeof issue1 + sizeof issue2 - 1;
	} else {
		return -1;
	}
	if (end - p < 4 || p[0] != ':' || p[1] != '0' || p[2] != 'x')
		return -1;
	p += 3;
	for (; p < end; p++) {
		unsigned d = hex_lower[(unsigned char)*p];
		if (!d)
			break;
		x = (x << 4) | (d - 1);
		digits++;
	}
	if (!digits)
		return -1;
	*pc = x;
	return 0;
}

int ccu_parse(const char *s, size_t n, uint64_t *tick, uint64_t *pc)
{
	const char *end = s + n, *p = s;
	/* Issue lines start with the word: the first match, found at once. */
	if (n >= 7 && !memcmp(s, "[info] ", 7)) {
		p = s + 7;
		if (!ccu_at(p, end, tick, pc))
			return 0;
	}
	while ((p = TEXT_FIND(p, (size_t)(end - p), "[info] "))) {
		p += 7;
		if (!ccu_at(p, end, tick, pc))
			return 0;
	}
	if (TEXT_FIND(s, n, "_single_issue") || TEXT_FIND(s, n, "ccu do issue"))
		return -1;
	return 1;
}
