/* Unit tests of lib/ival.c: the union's length against a plain bitmap of
 * the covered points, for intervals in order, in reverse, shuffled, nested
 * and touching; and the fold of the oldest runs in bounded memory, exact
 * while nothing reaches back behind them.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "ival.h"

#include "unit.h"

enum { SPAN = 4096 };

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t covered(const unsigned char *bit)
{
	uint64_t n = 0;
	size_t i;
	for (i = 0; i < SPAN; i++)
		n += bit[i];
	return n;
}

/* n random intervals (shuffled when shuffle, else by start) into u and
 * into the bitmap. */
static void random_case(unsigned n, int order, uint32_t max)
{
	static uint64_t s[2000], e[2000];
	static unsigned char bit[SPAN];
	struct ival_union u;
	unsigned i;
	memset(bit, 0, sizeof bit);
	ival_init(&u, max);
	for (i = 0; i < n; i++) {
		s[i] = unit_xorshift(&state) % (SPAN - 64);
		e[i] = s[i] + unit_xorshift(&state) % 64;
	}
	if (order == 1) /* by start */
		for (i = 1; i < n; i++) {
			unsigned j = i;
			while (j && s[j - 1] > s[j]) {
				uint64_t t = s[j]; s[j] = s[j - 1]; s[j - 1] = t;
				t = e[j]; e[j] = e[j - 1]; e[j - 1] = t;
				j--;
			}
		}
	for (i = 0; i < n; i++) {
		unsigned k = order == 2 ? n - 1 - i : i;
		uint64_t x;
		ival_add(&u, s[k], e[k]);
		for (x = s[k]; x < e[k]; x++)
			bit[x] = 1;
	}
	CHECK_INT(ival_total(&u), covered(bit));
	ival_free(&u);
}

int main(void)
{
	struct ival_union u;
	unsigned i, r;

	/* nothing, empty and reversed intervals */
	ival_init(&u, 0);
	CHECK_INT(ival_total(&u), 0);
	ival_add(&u, 5, 5);
	ival_add(&u, 9, 3);
	CHECK_INT(ival_total(&u), 0);
	/* touching runs join, nested ones add nothing, a bridge merges three */
	ival_add(&u, 10, 20);
	ival_add(&u, 20, 30);
	ival_add(&u, 12, 18);
	ival_add(&u, 40, 50);
	ival_add(&u, 60, 70);
	CHECK_INT(ival_total(&u), 40);
	CHECK_INT(u.n, 3);
	ival_add(&u, 25, 65);
	CHECK_INT(ival_total(&u), 60);
	CHECK_INT(u.n, 1);
	ival_add(&u, 0, 5);
	CHECK_INT(ival_total(&u), 65);
	CHECK_INT(u.v[0].s, 0);
	ival_free(&u);

	for (r = 0; r < 40; r++)
		for (i = 0; i < 3; i++)
			random_case(10 + r * 40, (int)i, 0);

	/* bounded: 10000 disjoint runs in time order through 64 open runs,
	 * every one counted, the memory that of 64 */
	ival_init(&u, 64);
	for (i = 0; i < 10000; i++)
		ival_add(&u, 10 * (uint64_t)i, 10 * (uint64_t)i + 3);
	CHECK_INT(ival_total(&u), 30000);
	CHECK(u.cap <= 64);
	CHECK(u.n <= 64);
	/* a late one within the open runs still merges */
	ival_add(&u, 99990 - 5, 99990 + 1);
	CHECK_INT(ival_total(&u), 30000 + 5);
	/* one behind every open run counts on its own */
	ival_add(&u, 0, 2);
	CHECK_INT(ival_total(&u), 30000 + 5 + 2);
	ival_free(&u);
	/* a small bound with random shuffled input: never more than it */
	ival_init(&u, 8);
	for (i = 0; i < 1000; i++) {
		uint64_t s = unit_xorshift(&state) % 100000;
		ival_add(&u, s, s + 10);
		CHECK(u.n <= 8);
	}
	ival_free(&u);
	/* in the caller's buffer: four runs, never moved or grown; the
	 * oldest folded as above; ival_free leaves the buffer */
	{
		struct ival_run buf[4];
		ival_init_buf(&u, buf, 4);
		for (i = 0; i < 100; i++)
			ival_add(&u, 10 * (uint64_t)i, 10 * (uint64_t)i + 4);
		CHECK(u.v == buf && u.cap == 4 && u.n <= 4);
		CHECK_INT(ival_total(&u), 400);
		ival_add(&u, 993, 1000);        /* merges with the last run, [990, 994) */
		CHECK_INT(ival_total(&u), 400 + 6);
		ival_free(&u);
		CHECK(buf[0].e > buf[0].s);     /* still ours, untouched by free */
	}
	return unit_done();
}
