/* Unit tests of lib/tick.[ch]: ticks to microseconds at each precision,
 * rounding half up, saturation, the way back, and how the times print.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "tick.h"

#include <stdio.h>

#include "cli.h"
#include "unit.h"
#include <string.h>

int main(void)
{
	char b[TICK_FMT_MAX];
	uint64_t t;

	/* 1850 MHz: one tick is 540.54 ps. */
	CHECK(tick_us6(0, 1850) == 0);
	CHECK(tick_us6(1, 1850) == 541);
	CHECK(tick_us6(1850, 1850) == 1000000);
	CHECK(tick_us6(11034801, 1850) == 5964757297);
	/* Half up: 1 tick at 2000 MHz is 0.5 ns = 0.0005 us. */
	CHECK(tick_milli_us(1, 2000) == 1);
	CHECK(tick_milli_us(1, 2001) == 0);
	CHECK(tick_centi_us(10, 2000) == 1);        /* 0.005 us rounds to 0.01 */
	CHECK(tick_centi_us(9, 2000) == 0);
	CHECK(tick_centi_us(3700, 1850) == 200);
	/* Odd clocks round the same way. */
	for (t = 0; t < 5000; t++)
		if (tick_milli_us(t, 1001) != (t * 2000 + 1001) / 2002)
			break;
	CHECK(t == 5000);
	/* Saturation instead of wrapping, each one counted. */
	CHECK(tick_overflows == 0);
	CHECK(tick_us6(UINT64_MAX, 1850) == UINT64_MAX);
	CHECK(tick_overflows == 1);
	CHECK(tick_us6(18446744073708ull * 1850, 1850) != UINT64_MAX && tick_overflows == 1);
	CHECK(tick_us6(18446744073709ull * 1850, 1850) == UINT64_MAX && tick_overflows == 2);
	CHECK(tick_us6(UINT64_MAX, 1) == UINT64_MAX);
	CHECK(tick_centi_us(UINT64_MAX, 1) == UINT64_MAX);
	CHECK(tick_centi_us(UINT64_MAX, 1850) == (UINT64_MAX / 1850) * 100 + ((UINT64_MAX % 1850) * 100 + 925) / 1850);
	/* Back to ticks: floor, or up to the first tick at or after. */
	CHECK(us6_ticks(1000000, 1850, 0) == 1850);
	CHECK(us6_ticks(541, 1850, 0) == 1 && us6_ticks(541, 1850, 1) == 2);
	CHECK(us6_ticks(540, 1850, 1) == 1);
	CHECK(us6_ticks(UINT64_MAX, 2000000, 0) == UINT64_MAX);
	CHECK(us6_ticks(UINT64_MAX, 1850, 0) == (uint64_t)((unsigned __int128)UINT64_MAX * 1850 / 1000000));
	/* Printing. */
	CHECK(tick_fmt_centi(b, 200, 0) == 4 && !strcmp(b, "2.00"));
	CHECK(tick_fmt_centi(b, 1234507, 0) == 8 && !strcmp(b, "12345.07"));
	CHECK(tick_fmt_centi(b, 5, 1) == 8 && !strcmp(b, "0.050000"));
	/* The report: status 0 becomes 1, a worse one stays; nothing counted,
	 * nothing changes. */
	CHECK(tick_report(EXIT_OK) == EXIT_PARTIAL);
	CHECK(tick_report(EXIT_IO) == EXIT_IO);
	tick_overflows = 0;
	CHECK(tick_report(EXIT_OK) == EXIT_OK);
	return unit_done();
}
