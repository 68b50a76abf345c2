/* libFuzzer target: dump-split's bundle reader (cmd/dump-split/bundle.c,
 * libarchive's tar reader fed through lib/io.h).
 *
 * The input is a whole bundle, read from a memory file (so lz4 frames are
 * inflated as dump-split does).  Every member is walked and its data read
 * block by block; the reader must never give more bytes than a member's
 * size, names must be NUL-terminated strings, a malformed pax header must
 * say how, and a -1 must come with a reason.  Any violation aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bundle.h"
#include "io.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_tar: check failed: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_tar", 0);
	struct rd *r;
	struct bundle *b;
	struct bundle_member m;
	int k, members = 0;
	static volatile unsigned sum;

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	lseek(fd, 0, SEEK_SET);
	r = rd_fdopen(fd, "fuzz");
	CHECK(r);
	b = bundle_open(r);
	while ((k = bundle_next(b, &m)) > 0 && members++ < 10000) {
		uint64_t got = 0;
		const void *p;
		size_t n;

		CHECK(m.name && strlen(m.name) < (1u << 20));
		CHECK(m.type == BUNDLE_FILE || m.type == BUNDLE_DIR || m.type == BUNDLE_OTHER);
		CHECK(!m.no_data || m.pax_why);
		if (m.pax_why)
			CHECK(strlen(m.pax_why) > 0);
		if (m.no_data)
			continue;
		while (bundle_data(b, &p, &n)) {
			CHECK(p && n);
			/* read every byte, so ASan sees a block outside its buffer */
			for (size_t i = 0; i < n; i++)
				sum += ((const unsigned char *)p)[i];
			got += n;
		}
		CHECK(got <= m.size);
		CHECK(!bundle_truncated(b) || bundle_why(b));
		if (bundle_truncated(b))
			break;
	}
	CHECK(k >= 0 || bundle_why(b));
	bundle_close(b);
	rd_close(r);
	close(fd);
	return 0;
}
