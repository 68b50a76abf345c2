/* The harness of the unit tests: checks that count, a line per failing one
 * ("test_x.c:LINE: failed: WHAT"), and the closing "N passed, N failed".
 *
 *	CHECK(expr)                 WHAT is the expression's text
 *	CHECK_MSG(ok, fmt, ...)     WHAT is the formatted message
 *	CHECK_INT(got, want)        WHAT is "EXPR: got G, want W" (as long long)
 *	CHECK_NEAR(got, want, tol)  the same for doubles within tol
 *	return unit_done();         the closing line; 0 only when nothing failed
 *
 * and what several tests need around them: unit_xorshift, the reproducible
 * random numbers (each test keeps its own state and seed); a private work
 * directory under $TMPDIR or /tmp (unit_workdir, unit_path), whole files
 * written and read back there (unit_write_file, unit_read_file), and the
 * entries of a directory counted (unit_entries).  A helper
 * that cannot go on (no memory, a file it cannot write) ends the test with
 * status 2.
 *
 * One test program is one translation unit, so the counts live here. */
#ifndef OPTRACE_TEST_UNIT_H
#define OPTRACE_TEST_UNIT_H

#include <dirent.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int unit_passed, unit_failed;

/* The file's base name, as the failure lines have always shown it. */
static inline const char *unit_file(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static inline void unit_check(int ok, const char *file, int line, const char *what)
{
	if (ok) {
		unit_passed++;
		return;
	}
	unit_failed++;
	printf("%s:%d: failed: %s\n", unit_file(file), line, what);
	fflush(stdout);
}

static inline void unit_checkf(int ok, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static inline void unit_checkf(int ok, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	if (ok) {
		unit_passed++;
		return;
	}
	unit_failed++;
	printf("%s:%d: failed: ", unit_file(file), line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* Check helpers that are handed the line of their caller use these two. */
static inline void unit_check_int(long long got, long long want, const char *file, int line, const char *what)
{
	unit_checkf(got == want, file, line, "%s: got %lld, want %lld", what, got, want);
}

static inline void unit_check_near(double got, double want, double tol, const char *file, int line,
                                   const char *what)
{
	unit_checkf(fabs(got - want) <= tol, file, line, "%s: got %.9f, want %.9f", what, got, want);
}

#define CHECK(c) unit_check((c) ? 1 : 0, __FILE__, __LINE__, #c)
#define CHECK_MSG(ok, ...) unit_checkf((ok) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)
#define CHECK_INT(got, want) unit_check_int((long long)(got), (long long)(want), __FILE__, __LINE__, #got)
#define CHECK_NEAR(got, want, tol) unit_check_near((got), (want), (tol), __FILE__, __LINE__, #got)

static inline int unit_done(void)
{
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

/* xorshift64 (13, 7, 17): the same sequence on every machine. */
static inline uint64_t unit_xorshift(uint64_t *state)
{
	uint64_t x = *state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *state = x;
}

static char unit_dir[1024];

/* Makes the private directory NAME.XXXXXX. */
static inline void unit_workdir(const char *name)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(unit_dir, sizeof unit_dir, "%s/%s.XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	if (!mkdtemp(unit_dir)) {
		perror(unit_dir);
		exit(2);
	}
}

/* NAME in the work directory; the last eight answers stay valid. */
static inline const char *unit_path(const char *name)
{
	static char buf[8][1200];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "%s/%s", unit_dir, name);
	return buf[k];
}

static inline void unit_write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f || (n && fwrite(p, 1, n, f) != n) || fclose(f)) {
		perror(path);
		exit(2);
	}
}

/* The whole file in a heap block (its length in *n), or NULL when it
 * cannot be opened. */
static inline void *unit_read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 0, len = 0, k;
	char *b = NULL;
	*n = 0;
	if (!f)
		return NULL;
	do {
		if (len == cap) {
			cap = cap ? 2 * cap : 1 << 16;
			b = realloc(b, cap);
			if (!b) {
				perror("realloc");
				exit(2);
			}
		}
		k = fread(b + len, 1, cap - len, f);
		len += k;
	} while (k > 0);
	fclose(f);
	*n = len;
	return b;
}

/* The entries of dir other than . and .. whose name holds s ("": all);
 * -1 when dir cannot be read. */
static inline int unit_entries(const char *dir, const char *s)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	if (!d)
		return -1;
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, s))
			n++;
	closedir(d);
	return n;
}

#endif
