/* libFuzzer target: dump-split's tar reader (cmd/dump-split/tar.c).
 *
 * The input is a whole bundle, read through lib/io.h from a memory file
 * (so lz4 frames are inflated as dump-split does).  Every member is walked
 * and its data read in chunks of a size taken from the input; the reader
 * must never give more bytes than a member's size, names must be
 * NUL-terminated strings, and a -1 must come with a reason.  Any violation
 * aborts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io.h"
#include "tar.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_tar: check failed: %s\n", #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char buf[4096];
	int fd = memfd_create("fuzz_tar", 0);
	size_t chunk = size ? (size_t)data[0] % sizeof buf + 1 : 1;
	struct rd *r;
	struct tar t;
	struct tar_member m;
	int k, members = 0;

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	lseek(fd, 0, SEEK_SET);
	r = rd_fdopen(fd, "fuzz");
	CHECK(r);
	tar_init(&t, r);
	while ((k = tar_next(&t, &m)) > 0 && members++ < 10000) {
		uint64_t got = 0;
		size_t n;
		CHECK(m.name && strlen(m.name) < size + 1);
		CHECK(m.type == TAR_FILE || m.type == TAR_DIR || m.type == TAR_OTHER);
		while ((n = tar_read(&t, buf, chunk)) > 0) {
			CHECK(n <= chunk);
			got += n;
		}
		CHECK(got <= m.size);
		if (tar_truncated(&t))
			break;
	}
	CHECK(k >= 0 || t.why);
	tar_free(&t);
	rd_close(r);
	close(fd);
	return 0;
}
