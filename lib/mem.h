/* Allocation that cannot fail: every tool allocates through these.  On
 * ENOMEM they end the run with "out of memory" and EXIT_IO through
 * cli_die, so the exit-time cleanup (cli_cleanup_add) still removes what
 * was half written. */
#ifndef OPTRACE_MEM_H
#define OPTRACE_MEM_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n);
/* xrealloc to n * size, with the product checked for overflow. */
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* "dir/name", malloc'ed. */
char *xpath(const char *dir, const char *name);
/* Frees the n pointers of v (strings, most often; NULL ones too), then v. */
void free_vec(char **v, size_t n);
/* The memory error itself, for code that allocates by other means. */
_Noreturn void xnomem(void);

#endif
