/* An open-addressing hash table from a 64-bit key to a small struct,
 * with deletion (backward shift), for per-pc and per-id state. */
#ifndef OPTRACE_TABLE_H
#define OPTRACE_TABLE_H

#include <stddef.h>
#include <stdint.h>

struct table {
	uint64_t *keys;
	unsigned char *used;
	char *vals;
	size_t vsize, cap, n;
};

/* Zero-filled value slot for key, created if absent (*fresh set then).
 * NULL when out of memory.  Pointers stay valid until the next insert. */
void *table_get(struct table *t, uint64_t key, int *fresh);
void *table_find(const struct table *t, uint64_t key);
void table_del(struct table *t, uint64_t key);
/* Iterate: i from 0 while i < cap; returns the value or NULL for a hole. */
void *table_at(const struct table *t, size_t i, uint64_t *key);
void table_free(struct table *t);

#endif
