/* Small helpers shared by the sample host programs (test/ops). */
#ifndef OPS_HOST_H
#define OPS_HOST_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHECK(call) do { \
	int rc_ = (int)(call); \
	if (rc_ != 0) { fprintf(stderr, "%s: %s failed: %d\n", prog_name, #call, rc_); exit(1); } \
} while (0)

static const char *prog_name = "sample";

/* The whole file, or exit 1. */
static inline void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) { fprintf(stderr, "%s: %s: cannot open\n", prog_name, path); exit(1); }
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *b = malloc(n > 0 ? (size_t)n : 1);
	if (!b || n <= 0 || fread(b, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "%s: %s: cannot read\n", prog_name, path);
		exit(1);
	}
	fclose(f);
	*len = (size_t)n;
	return b;
}

/* <directory of this executable>/../kernels/<name> */
static inline char *kernel_path(const char *name)
{
	static char p[4096];
	ssize_t n = readlink("/proc/self/exe", p, sizeof p - 1);
	if (n <= 0) { snprintf(p, sizeof p, "%s", name); return p; }
	p[n] = 0;
	char *s = strrchr(p, '/');
	if (s) *s = 0;
	s = strrchr(p, '/');
	if (s) *s = 0;
	size_t l = strlen(p);
	snprintf(p + l, sizeof p - l, "/kernels/%s", name);
	return p;
}

static inline unsigned long num_arg(const char *opt, const char *s)
{
	char *e;
	unsigned long v = strtoul(s, &e, 10);
	if (!*s || *e) { fprintf(stderr, "%s: %s: not a number: %s\n", prog_name, opt, s); exit(2); }
	return v;
}

/* Deterministic test data. */
static inline void fill(float *a, size_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		a[i] = (float)((x >> 16) % 1000) / 8.0f;
	}
}

#endif
