#include "tick.h"

#include <stdio.h>

#include "cli.h"

uint64_t tick_overflows;

size_t tick_fmt_centi(char *buf, uint64_t centi, int pad)
{
	return (size_t)snprintf(buf, TICK_FMT_MAX, pad ? "%llu.%02llu0000" : "%llu.%02llu",
	                        (unsigned long long)(centi / 100), (unsigned long long)(centi % 100));
}

int tick_report(int status)
{
	if (!tick_overflows)
		return status;
	cli_warn("%llu times did not fit in microseconds (tick counts too large for the clock, garbage in the "
	         "input) and were written as the largest", (unsigned long long)tick_overflows);
	return status == EXIT_OK ? EXIT_PARTIAL : status;
}
