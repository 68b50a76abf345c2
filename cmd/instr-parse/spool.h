/* Append-then-read-back byte spools: memory first, within one budget
 * shared by all spools of the process, then an unlinked temporary file.
 * Memory use is bounded by the budget whatever the input size. */
#ifndef OPTRACE_SPOOL_H
#define OPTRACE_SPOOL_H

#include <stddef.h>

struct spool;

/* Bytes all spools together may keep in memory. */
void spool_set_budget(size_t bytes);
struct spool *spool_new(void);
void spool_put(struct spool *s, const void *p, size_t n);
/* Switch from writing to reading, or read again, from the start. */
void spool_rewind(struct spool *s);
/* Up to n bytes; returns the count (less only at the end). */
size_t spool_get(struct spool *s, void *p, size_t n);
/* The next n bytes: a pointer into the spool's memory when they lie there
 * in one piece (valid until spool_free), else copied into buf (room for n).
 * NULL when fewer than n bytes are left. */
const void *spool_next(struct spool *s, size_t n, void *buf);
/* Pass over up to n bytes. */
size_t spool_skip(struct spool *s, size_t n);
void spool_free(struct spool *s);
/* Free the memory kept for reuse (at exit). */
void spool_release_spares(void);

#endif
