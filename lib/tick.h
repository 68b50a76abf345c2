/* Simulator ticks to microseconds, the one conversion of every tool:
 * ticks / MHz, rounded half up to a fixed number of decimals and kept as
 * an integer count of those units, so no digit is lost however long the
 * kernel runs (the reference's single-precision floats lose them). */
#ifndef OPTRACE_TICK_H
#define OPTRACE_TICK_H

#include <stddef.h>
#include <stdint.h>

/* Conversions that did not fit and gave UINT64_MAX (a tick count past
 * 2^64 ps at the clock: garbage in an input): counted, so that the tool
 * says so at the end (tick_report) instead of writing a saturated time
 * silently. */
extern uint64_t tick_overflows;

/* round(ticks * scale / mhz), half up; UINT64_MAX when it does not fit
 * (counted in tick_overflows).
 * scale is a power of ten: 1000000 gives "us6" (microseconds times 10^6,
 * picoseconds, exact to 1 ps: a tick is 540 ps at 1850 MHz), 1000 the
 * reference's round3, 100 its round2.  mhz must not be 0. */
static inline uint64_t tick_scaled(uint64_t ticks, unsigned mhz, uint64_t scale)
{
	uint64_t q = ticks / mhz, r = ticks % mhz;
	if (q > UINT64_MAX / scale - 1) {
		tick_overflows++;
		return UINT64_MAX;
	}
	/* r < mhz < 2^32 and scale <= 10^6: r * scale cannot overflow. */
	return q * scale + (r * scale + mhz / 2) / mhz;
}

static inline uint64_t tick_us6(uint64_t ticks, unsigned mhz)
{
	return tick_scaled(ticks, mhz, 1000000);
}

/* Thousandths (round3) and hundredths (round2) of a microsecond. */
static inline uint64_t tick_milli_us(uint64_t ticks, unsigned mhz)
{
	return tick_scaled(ticks, mhz, 1000);
}

static inline uint64_t tick_centi_us(uint64_t ticks, unsigned mhz)
{
	return tick_scaled(ticks, mhz, 100);
}

/* Back from us6 to ticks: floor, or ceiling with up (a time bound given
 * in microseconds covers the ticks that convert into it). */
static inline uint64_t us6_ticks(uint64_t us6, unsigned mhz, int up)
{
	unsigned __int128 t = (unsigned __int128)us6 * mhz, q = t / 1000000;
	if (up && t % 1000000)
		q++;
	return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

/* How the times are printed: us6 in JSON with json_fixed(v, 6) (trailing
 * zeros dropped); hundredths as "<int>.<2 digits>" in the summaries, and
 * with pad, "<int>.<2 digits>0000" (six decimals) in the CSV columns. */
size_t tick_fmt_centi(char *buf, uint64_t centi, int pad);

/* The end of a run that converted times: when any did not fit, one
 * message saying how many, and the status becomes at least EXIT_PARTIAL
 * (an input problem, the output produced).  Returns the status. */
int tick_report(int status);
#define TICK_FMT_MAX 32

#endif
