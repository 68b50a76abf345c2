/* What the libFuzzer targets share: CHECK (abort with the failed
 * condition, so libFuzzer keeps the input), exact-size heap copies of the
 * input (ASan then sees a read one byte past its end) and a memory file
 * holding the input (for readers that take a file descriptor or a path). */
#ifndef OPTRACE_FUZZ_H
#define OPTRACE_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "io.h"

#define CHECK(c)                                                                        \
	do {                                                                            \
		if (!(c)) {                                                             \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
			abort();                                                        \
		}                                                                       \
	} while (0)

/* n bytes of p in a block of exactly n bytes (one byte for n = 0, never
 * read). */
static inline char *fuzz_copy(const void *p, size_t n)
{
	char *b = malloc(n ? n : 1);
	CHECK(b);
	if (n)
		memcpy(b, p, n);
	return b;
}

/* A memory file holding the n bytes, positioned at its start. */
static inline int fuzz_memfd(const void *p, size_t n)
{
	int fd = memfd_create("fuzz", 0);
	CHECK(fd >= 0);
	CHECK(!n || write(fd, p, n) == (ssize_t)n);
	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	return fd;
}

/* A private directory NAME.XXXXXX, on tmpfs when there is one (the tools
 * fsync every output), made on the first call and removed at exit. */
static char fuzz_dir_path[64];
static inline void fuzz_dir_remove(void)
{
	io_rm_tree(fuzz_dir_path);
}
static inline const char *fuzz_workdir(const char *name)
{
	if (!fuzz_dir_path[0]) {
		snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/%s.XXXXXX",
		         io_is_dir("/dev/shm") ? "/dev/shm" : "/tmp", name);
		CHECK(mkdtemp(fuzz_dir_path));
		atexit(fuzz_dir_remove);
	}
	return fuzz_dir_path;
}

#endif
