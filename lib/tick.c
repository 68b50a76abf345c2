#include "tick.h"

#include <stdio.h>

size_t tick_fmt_centi(char *buf, uint64_t centi, int pad)
{
	return (size_t)snprintf(buf, TICK_FMT_MAX, pad ? "%llu.%02llu0000" : "%llu.%02llu",
	                        (unsigned long long)(centi / 100), (unsigned long long)(centi % 100));
}
