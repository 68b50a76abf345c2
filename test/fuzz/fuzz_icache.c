/* libFuzzer target: icache-merge's line grammar (cmd/icache-merge/line.c).
 *
 * The input is one icache-log line (no LF), in a block of exactly its
 * length, given to icache_parse.  A miss's address and tail lie inside the
 * line, its grammar is one of the three, and its detail (written into a
 * block of exactly MISS_DETAIL_MAX bytes) holds no space; the same line
 * with a CR after it parses the same way. */
#include "fuzz.h"
#include "line.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size), *q = malloc(size + 1);
	struct miss m, m2;
	uint64_t tick = 0, addr = 0, tick2 = 0, addr2 = 0;
	int k, k2;

	CHECK(q);
	if (memchr(p, '\n', size)) {
		free(p);
		free(q);
		return 0;
	}
	k = icache_parse(p, size, &m, &tick, &addr);
	CHECK(k >= IC_OTHER && k <= IC_UNPARSED);
	if (k == IC_MISS) {
		char *d = malloc(MISS_DETAIL_MAX);
		size_t n;
		CHECK(d);
		CHECK(m.g >= G_A2 && m.g < G_NGRAMMARS && grammar_name[m.g]);
		CHECK(m.addr_s >= p && m.addr_s + m.addr_n <= p + size);
		CHECK(m.tail >= p && m.tail + m.tail_n <= p + size);
		n = miss_detail(d, &m);
		CHECK(n <= MISS_DETAIL_MAX && !memchr(d, ' ', n));
		free(d);
	}
	/* a trailing CR changes nothing unless the line already ended in one */
	if (!size || p[size - 1] != '\r') {
		if (size)
			memcpy(q, p, size);
		q[size] = '\r';
		k2 = icache_parse(q, size + 1, &m2, &tick2, &addr2);
		CHECK(k2 == k);
		if (k == IC_FETCH)
			CHECK(tick2 == tick && addr2 == addr);
		if (k == IC_MISS)
			CHECK(m2.g == m.g && m2.tick == m.tick && m2.addr == m.addr && m2.tail_n == m.tail_n);
	}
	free(p);
	free(q);
	return 0;
}
