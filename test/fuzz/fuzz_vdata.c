/* libFuzzer target: the visualize_data.bin reader of lib/vdata.c
 * (vdata_ropen, vdata_next, vdata_read).
 *
 * The input is a whole container in a memory file, opened by its
 * /proc/self/fd path.  Every block is stepped to and its payload read in
 * pieces of varying size.  A block lies inside the file (payload after
 * its header, payload + padding = content size, padding 0..3), a CODE
 * block has a NUL-terminated path, the payload read is exactly its size,
 * an error starts "offset N: " with N within the file and sets errno, and
 * after an error every call gives -1 again.  Every INSTR_API block (the
 * first four) then goes to trace-clean's metrics_reshape
 * (cmd/trace-clean/metrics.c), which gives 0 or -1 with a message. */
#include <errno.h>
#include <fcntl.h>

#include "fuzz.h"
#include "tc.h"
#include "vdata.h"

/* trace-clean's reader of the INSTR_API block (metrics_reshape) over block
 * blk, written to /dev/null: 0, or -1 with a message. */
static void reshape(const char *path, int blk)
{
	static int devnull = -1;
	char err[256] = "";
	struct wr *w;
	int k;
	if (devnull < 0)
		CHECK((devnull = open("/dev/null", O_WRONLY)) >= 0);
	w = wr_fdopen(devnull, "instr_metrics.json", 0);     /* not closed by wr_close */
	CHECK(w);
	k = metrics_reshape(path, blk, w, err, sizeof err);
	CHECK(k == 0 || (k == -1 && err[0] && memchr(err, 0, sizeof err)));
	CHECK(wr_close(w) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = fuzz_memfd(data, size);
	char path[64], err[256];
	struct vdata_r *r;
	struct vdata_blk b;
	int k, blocks = 0, instr_blk[4], nreshape = 0;
	unsigned step = (unsigned)size;

	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	r = vdata_ropen(path, err, sizeof err);
	if (!r) {
		CHECK(errno && strlen(err) < sizeof err);
		close(fd);
		return 0;
	}
	while ((k = vdata_next(r, &b, err, sizeof err)) == 1) {
		uint64_t got = 0;
		char buf[4096];
		ssize_t n;
		blocks++;
		CHECK(b.padding >= 0 && b.padding <= 3);
		CHECK(b.payload_size + (uint64_t)b.padding == b.content_size);
		CHECK(b.payload_offset > b.offset && b.payload_offset <= size);
		CHECK(b.content_size <= size - b.payload_offset);
		if (b.code_path)
			CHECK(strlen(b.code_path) < size);
		CHECK(vdata_type_name(b.type) != NULL || 1);
		for (;;) {
			step = step * 1103515245u + 12345u;
			n = vdata_read(r, buf, 1 + (step >> 8) % sizeof buf);
			if (n <= 0)
				break;
			got += (uint64_t)n;
		}
		CHECK(n == 0);
		CHECK(got == b.payload_size);
		if (b.type == VDATA_INSTR_API && nreshape < 4)
			instr_blk[nreshape++] = blocks - 1;
	}
	if (k < 0) {
		unsigned long long off;
		CHECK(errno != 0);
		CHECK(sscanf(err, "offset %llu: ", &off) == 1 && off <= size);
		CHECK(vdata_next(r, &b, err, sizeof err) == -1);
	} else {
		CHECK(k == 0);
	}
	vdata_rclose(r);
	for (int i = 0; i < nreshape; i++)
		reshape(path, instr_blk[i]);
	close(fd);
	return 0;
}
