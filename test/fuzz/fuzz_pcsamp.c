/* libFuzzer target: the PC sampling records of lib/pcsamp.c.
 *
 * The input's first 8 bytes are a chunk's head, the rest its data area
 * (zeros past the input); its first 16 bytes also give the start pc and
 * pc offset.  The valid length of the head is cut to 16 records past the
 * input unless byte 3 is 0xA5 (then it may cover the whole chunk).  Half the pcs (by a bit of the pc) count as instructions.
 * The rows come out strictly by pc, their stall states add up to the top
 * table, and every record read is kept or dropped. */
#include "pcsamp.h"
#include "fuzz.h"

static int known(void *ctx, uint64_t pc)
{
	(void)ctx;
	return !(pc >> 4 & 1);
}

static unsigned char *chunk;
static size_t dirty;   /* bytes of chunk the last input wrote */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pcs s;
	uint64_t a = 0, o = 0, valid, want, top[PCS_STALLS] = { 0 }, kept = 0;
	size_t i, len = size < PCS_CHUNK_SIZE ? size : PCS_CHUNK_SIZE;
	unsigned k;
	int pass;
	if (!chunk)
		CHECK((chunk = calloc(1, PCS_CHUNK_SIZE)));
	memset(chunk, 0, dirty);
	memcpy(chunk, data, len);
	dirty = len > 16 ? len : 16;
	memcpy(&a, chunk, 8);
	memcpy(&o, chunk + 8, 8);
	valid = (uint64_t)chunk[4] | (uint64_t)chunk[5] << 8 | (uint64_t)chunk[6] << 16 | (uint64_t)chunk[7] << 24;
	if (valid > PCS_DATA_SIZE)
		valid = PCS_DATA_SIZE;
	/* The records past the input are all zeros, one pc: unless byte 3
	 * says 0xA5, no more of them than 16 after the input's own, so an
	 * input costs its length, not the whole chunk's 131072 records. */
	if (chunk[3] != 0xA5) {
		size_t own = len > PCS_HEAD_SIZE ? len - PCS_HEAD_SIZE : 0;
		uint64_t cap = (uint64_t)(own + PCS_REC_SIZE - 1) / PCS_REC_SIZE * PCS_REC_SIZE + 16 * PCS_REC_SIZE;
		if (valid > cap) {
			valid = cap;
			chunk[4] = (unsigned char)valid;
			chunk[5] = (unsigned char)(valid >> 8);
			chunk[6] = (unsigned char)(valid >> 16);
			chunk[7] = (unsigned char)(valid >> 24);
		}
	}
	want = (valid + PCS_REC_SIZE - 1) / PCS_REC_SIZE;
	for (pass = 0; pass < 2; pass++) {
		pcs_init(&s, a, o, pass ? known : NULL, NULL);
		pcs_chunk(&s, chunk);
		pcs_chunk(&s, chunk);
		pcs_finish(&s);
		CHECK(s.records == 2 * want && s.chunks == 2);
		CHECK(pass || s.dropped == 0);
		memset(top, 0, sizeof top);
		kept = 0;
		for (i = 0; i < s.nrows; i++) {
			CHECK(i == 0 || s.rows[i - 1].pc < s.rows[i].pc);
			CHECK(!pass || known(NULL, s.rows[i].pc));
			for (k = 0; k < PCS_STALLS; k++)
				top[k] += s.rows[i].n[k];
			kept += pcs_all_sum(s.rows[i].n);
		}
		for (k = 0; k < PCS_STALLS; k++)
			CHECK(top[k] == s.top[k]);
		CHECK(kept <= (s.records - s.dropped) * PCS_STATES * 255);
		for (i = 0; i < s.ndropped; i++) {
			CHECK(i == 0 || s.dropped_pcs[i - 1] < s.dropped_pcs[i]);
			CHECK(!known(NULL, s.dropped_pcs[i]));
		}
		CHECK(s.ndropped <= s.dropped);
		pcs_free(&s);
	}
	return 0;
}
