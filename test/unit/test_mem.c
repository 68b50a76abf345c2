/* Unit tests of lib/mem.c: the allocators' results and free_vec.  Run
 * under the sanitizer build, a pointer free_vec missed is a leak and one it
 * freed twice an error.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

static void test_free_all(void)
{
	size_t n = 100, i;
	char **v = xcalloc(n, sizeof *v);
	for (i = 0; i < n; i++)
		if (i % 7)
			v[i] = xstrdup("a string");   /* and NULL ones between */
	CHECK(v[1] && !strcmp(v[1], "a string") && !v[7]);
	free_vec(v, n);
	free_vec(NULL, 0);
	free_vec(xmalloc(sizeof(char *)), 0);  /* an empty vector still goes */
}

static void test_alloc(void)
{
	char *s = xstrndup("abcdef", 3), *p;
	CHECK(!strcmp(s, "abc"));
	free(s);
	p = xmalloc(0);               /* a block, not NULL */
	CHECK(p != NULL);
	p = xreallocarray(p, 1000, 8);
	memset(p, 1, 8000);
	CHECK(p[7999] == 1);
	free(p);
	p = xcalloc(16, 4);
	CHECK(p[0] == 0 && p[63] == 0);
	free(p);
}

int main(void)
{
	test_free_all();
	test_alloc();
	return unit_done();
}
