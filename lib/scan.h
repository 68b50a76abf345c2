/* Hand-written number scanning for log text (no regex, no allocation). */
#ifndef OPTRACE_SCAN_H
#define OPTRACE_SCAN_H

#include <stddef.h>
#include <stdint.h>

/* Decimal digits at *p (up to end); returns the count of digits consumed
 * (0 = none) and stores the value, saturating at UINT64_MAX. */
static inline size_t scan_dec(const char *p, const char *end, uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;
	while (p < end && (unsigned)(*p - '0') < 10) {
		unsigned d = (unsigned)(*p - '0');
		x = x > (UINT64_MAX - d) / 10 ? UINT64_MAX : x * 10 + d;
		p++;
	}
	*v = x;
	return (size_t)(p - s);
}

static inline int hexval(int c)
{
	if ((unsigned)(c - '0') < 10)
		return c - '0';
	c |= 0x20;
	if ((unsigned)(c - 'a') < 6)
		return c - 'a' + 10;
	return -1;
}

/* Hex digits (either case) at *p; returns digits consumed. */
static inline size_t scan_hex(const char *p, const char *end, uint64_t *v)
{
	const char *s = p;
	uint64_t x = 0;
	int d;
	while (p < end && (d = hexval((unsigned char)*p)) >= 0) {
		x = (x << 4) | (unsigned)d;
		p++;
	}
	*v = x;
	return (size_t)(p - s);
}

#endif
