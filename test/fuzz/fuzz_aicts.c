/* libFuzzer target: aic_timestamp.bin records, the custom dot names and
 * the AI-Core timeline of lib/aicts.c and lib/aicnames.c.
 *
 * The input is read as a file of 24-byte records (and of 32-byte LCCL
 * ones) from a memory file: whole records kept, a cut one said; its
 * records are classified in both block-id formats on 910B and A5 and
 * drawn, for each kind of timeline, against blocks made of its first
 * bytes, into a trace that must be valid JSON-ish (braces balance).  The
 * same bytes are parsed as the custom JSON: names kept obey the rules. */
#include <cjson/cJSON.h>

#include "aicts.h"
#include "fuzz.h"
#include "io.h"
#include "json.h"

static void draw(enum aicts_kind kind, const void *v, size_t n, const struct aicts_blocks *b,
                 const struct aicts_names *names)
{
	struct aicts_run run = { .kind = kind, .min = 0, .task_start = 0, .task_us = 1.0f, .khz = 50000,
	                         .blocks = b, .names = names };
	struct aicts_stats st;
	struct json J;
	int fd = io_tmpfd();
	struct wr *w;
	CHECK(fd >= 0);
	w = wr_fdopen(fd, "trace", 0);
	json_init(&J, w);
	json_begin_array(&J);
	aicts_emit(&J, &run, v, n, &st);
	json_close_all(&J);
	CHECK(st.dots + st.api_dots + st.lccl_dots + st.unpaired + st.outside <= n);
	CHECK(wr_close(w) == 0);
	close(fd);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct aicts_block blk[4];
	struct aicts_blocks b = { blk, 0, 4, 0, 0 };
	struct aicts_names names;
	void *v;
	size_t n, i;
	uint64_t dropped;
	unsigned skipped;
	char path[64], msg[400];
	int fd, rc;

	/* blocks from the first bytes: kind, block, sub and a run */
	for (i = 0; i < 4 && i * 4 + 3 < size; i++) {
		blk[i].block = data[i * 4] % 3;
		blk[i].core = data[i * 4 + 1] & 1;
		blk[i].sub = data[i * 4 + 1] >> 1 & 1;
		blk[i].start = data[i * 4 + 2];
		blk[i].end = (uint64_t)data[i * 4 + 2] + data[i * 4 + 3];
		b.n++;
		if (blk[i].core)
			b.aiv++;
		else
			b.aic++;
	}
	aicts_names_init(&names);
	rc = aicts_names_parse(&names, (const char *)data, size, &skipped, msg, sizeof msg);
	CHECK(rc == 0 || rc == -1);
	CHECK(names.n <= AICTS_NAMES_MAX);
	for (i = 0; i < names.n; i++)
		CHECK(aicts_name_ok(names.v[i].name));

	fd = fuzz_memfd(data, size);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	rc = aicts_read(path, AICTS_REC_SIZE, 0, &v, &n, &dropped, msg, sizeof msg);
	CHECK(rc == (size % AICTS_REC_SIZE ? 1 : 0));
	CHECK(n == size / AICTS_REC_SIZE && dropped == 0);
	for (int fmt = 0; fmt < 2; fmt++) {
		struct aicts_rec *r = v;
		aicts_classify(r, n, fmt ? CHIP_A5 : CHIP_A2, aicts_new_format(r, n, b.aic, b.aiv));
		for (i = 0; i < n; i++)
			CHECK(r[i].block <= 0xffff || !aicts_new_format(r, n, b.aic, b.aiv));
		draw(AICTS_PLAIN, v, n, &b, &names);
		draw(AICTS_MC2, v, n, &b, NULL);
	}
	free(v);
	rc = aicts_read(path, AICTS_LCCL_SIZE, 1u << 20, &v, &n, &dropped, msg, sizeof msg);
	CHECK(rc == (size % AICTS_LCCL_SIZE ? 1 : 0));
	CHECK(n + dropped == size / AICTS_LCCL_SIZE);
	draw(AICTS_LCCL, v, n, &b, NULL);
	free(v);
	close(fd);
	aicts_names_free(&names);
	return 0;
}
