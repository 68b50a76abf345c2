/* libFuzzer target: scalar-merge's CCU line grammar
 * (cmd/scalar-merge/ccu.c).
 *
 * The input is one CCU-log line, in a block of exactly its length, given
 * to ccu_parse.  The result is -1, 0 or 1; the same line behind a prefix
 * without "[info] " in it gives the same result, tick and pc (the issue is
 * searched for anywhere in the line, leftmost first). */
#include "ccu.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size), *q = malloc(size + 3);
	uint64_t tick = 0, pc = 0, tick2 = 0, pc2 = 0;
	int k, k2;

	CHECK(q);
	k = ccu_parse(p, size, &tick, &pc);
	CHECK(k >= -1 && k <= 1);
	memcpy(q, "x: ", 3);
	if (size)
		memcpy(q + 3, p, size);
	k2 = ccu_parse(q, size + 3, &tick2, &pc2);
	CHECK(k2 == k);
	if (!k)
		CHECK(tick2 == tick && pc2 == pc);
	free(p);
	free(q);
	return 0;
}
