/* The harness of the unit tests: checks that count, a line per failing one
 * ("test_x.c:LINE: failed: WHAT"), and the closing "N passed, N failed".
 *
 *	CHECK(expr)                 WHAT is the expression's text
 *	CHECK_MSG(ok, fmt, ...)     WHAT is the formatted message
 *	return unit_done();         the closing line; 0 only when nothing failed
 *
 * One test program is one translation unit, so the counts live here. */
#ifndef OPTRACE_TEST_UNIT_H
#define OPTRACE_TEST_UNIT_H

#include <stdarg.h>
#include <stdio.h>
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

#define CHECK(c) unit_check((c) ? 1 : 0, __FILE__, __LINE__, #c)
#define CHECK_MSG(ok, ...) unit_checkf((ok) ? 1 : 0, __FILE__, __LINE__, __VA_ARGS__)

static inline int unit_done(void)
{
	printf("%d passed, %d failed\n", unit_passed, unit_failed);
	return unit_failed ? 1 : 0;
}

#endif
