/* Allocation that cannot fail quietly, and number formatting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "tc.h"

static void nomem(void)
{
	/* Temporary outputs are unlinked by the kernel only for O_TMPFILE;
	 * the named ones die with the message here, so say it plainly. */
	cli_die(EXIT_IO, "out of memory");
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		nomem();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		nomem();
	return p;
}

void *xcalloc(size_t n, size_t k)
{
	void *p = calloc(n ? n : 1, k ? k : 1);
	if (!p)
		nomem();
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

/* A double is exact to 15 significant digits and round-trips with 17;
 * the first precision that reads back equal is the shortest form, as
 * %g drops the trailing zeros. */
size_t fmt_double(char *buf, double v)
{
	int prec;
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			return strlen(buf);
	}
	snprintf(buf, 32, "%.17g", v);
	return strlen(buf);
}
