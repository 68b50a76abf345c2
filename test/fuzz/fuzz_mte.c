/* libFuzzer target: mte-parse's tokenizer (cmd/mte-parse/mline.c).
 *
 * The input is one MTE-log line, in a block of exactly its length, given
 * to mline_parse.  ML_OK: the unit lies inside the line, before the first
 * space after the tick, and the read/write byte is a byte of the line;
 * ML_BAD: a reason.  Parsing again gives the same fields. */
#include "fuzz.h"
#include "mline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct mline m, m2;
	const char *why = NULL, *why2 = NULL;
	int k, k2;

	memset(&m, 0, sizeof m);
	memset(&m2, 0, sizeof m2);
	k = mline_parse(p, size, &m, &why);
	CHECK(k == ML_OK || k == ML_IGNORED || k == ML_BAD);
	if (k == ML_BAD)
		CHECK(why && *why);
	if (k == ML_OK) {
		CHECK(m.unit >= p && m.unit + m.unit_n <= p + size);
		CHECK(memchr(p, m.rw, size));
		CHECK(!m.has_instr || m.has_instr == 1);
	}
	k2 = mline_parse(p, size, &m2, &why2);
	CHECK(k2 == k);
	if (k == ML_OK)
		CHECK(m2.tick == m.tick && m2.unit == m.unit && m2.unit_n == m.unit_n && m2.rw == m.rw &&
		      m2.size == m.size && m2.has_instr == m.has_instr && m2.has_req == m.has_req &&
		      m2.has_gid == m.has_gid && (!m.has_instr || m2.instr_id == m.instr_id));
	free(p);
	return 0;
}
