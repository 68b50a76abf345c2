/* Number formatting. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tc.h"

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
