/* libFuzzer target: the kernel scan of the stand-in's dfx_region
 * instrumentation (test/camodel/kscan.c, ks_scan; bisheng-tune's), which
 * reads the kernel binary a launch registered.
 *
 * The input is a whole binary, in a block of exactly its length; its last
 * byte picks the kernel asked for (none, one of the samples' names, a
 * tiling key) and the pipes marked.  A refusal has a message and no sites;
 * an accepted binary has a kernel name of 1 to 1023 bytes that occurs in
 * the input, sites sorted by pc, aligned as their kind's instruction,
 * dfx ids only on the kinds selected, with bits 9 and 10 set, distinct in
 * a pipe and no more than 1024 a pipe, as many as the pipe's count says. */
#include "fuzz.h"
#include "kscan.h"
#include "devprof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const names[] = { "simt_custom", "add_custom", "mixed_custom", "matmul_custom" };
	unsigned char *p = (unsigned char *)fuzz_copy(data, size);
	unsigned pick = size ? data[size - 1] : 0, all = (1u << ks_nkinds) - 1;
	unsigned sel = (pick >> 4) ? ((pick * 0x9e37u) & all) | 1u : all;
	const char *name = (pick & 3) == 1 ? names[(pick >> 2) & 3] : NULL;
	const char *key = (pick & 3) == 2 ? ((pick >> 2) & 1 ? "1" : "0") : NULL;
	struct ks_result r;
	char err[1200];
	int st = ks_scan(p, size, name, key, sel, &r, err, sizeof err);

	CHECK(st == 0 || st == 2 || st == 3);
	if (st) {
		CHECK(err[0]);
		CHECK(!r.sites && !r.n);
	} else {
		size_t nl = strlen(r.kernel);
		unsigned ids[BIU_NPIPES] = { 0 };
		CHECK(nl > 0 && nl < sizeof r.kernel);
		CHECK(memmem(p, size, r.kernel, nl));
		CHECK(r.n == 0 || r.sites);
		for (size_t i = 0; i < r.n; i++) {
			const struct ks_site *s = &r.sites[i];
			CHECK(s->kind < ks_nkinds);
			CHECK(i == 0 || r.sites[i - 1].pc <= s->pc);
			CHECK(s->pc % ks_kinds[s->kind].align == 0);
			if (!s->id)
				continue;
			unsigned pipe = ks_kinds[s->kind].pipe;
			CHECK(sel >> s->kind & 1);
			CHECK((s->id & 0x600) == 0x600);
			/* region k of a pipe is dp_dfx_id(k): the k-th id given */
			CHECK(s->id == dp_dfx_id(ids[pipe]));
			ids[pipe]++;
		}
		for (unsigned q = 0; q < BIU_NPIPES; q++) {
			CHECK(ids[q] == r.used[q]);
			CHECK(r.used[q] <= DP_DFX_IDS_A5 && r.used[q] <= r.want[q]);
			CHECK(r.want[q] <= DP_DFX_IDS_A5 || r.used[q] == DP_DFX_IDS_A5);
		}
	}
	ks_free(&r);
	free(p);
	return 0;
}
