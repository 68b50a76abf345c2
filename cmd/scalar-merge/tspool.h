/* Spools of fixed-size entries for scalar-merge: appended, then read back in
 * order or by index.  The first TSPOOL_MEM bytes stay in memory; beyond that
 * the entries go to an unlinked temporary file in $TMPDIR, so a spool costs
 * one buffer whatever it holds.  tspool_sort sorts one by merging sorted
 * runs (TSPOOL_RUN bytes each) from another temporary file. */
#ifndef SCALAR_MERGE_TSPOOL_H
#define SCALAR_MERGE_TSPOOL_H

#include <stddef.h>
#include <stdint.h>

#define TSPOOL_MEM (64u << 10)
#define TSPOOL_RUN (4u << 20)

struct tspool {
	size_t esz;                 /* entry size in bytes */
	char *buf;                  /* TSPOOL_MEM bytes: the entries, or the I/O buffer */
	size_t bufn;                /* bytes in buf (writing), or readable bytes (reading) */
	size_t bufpos;              /* reading: next byte in buf */
	int fd;                     /* -1 while everything fits in buf */
	int reading;
	uint64_t n;                 /* entries written */
	uint64_t rnext;             /* reading: index of the next entry */
};

void tspool_init(struct tspool *s, size_t esz);
void tspool_put(struct tspool *s, const void *e);
/* Switch to reading from the first entry. */
void tspool_rewind(struct tspool *s);
/* The next entry: 1, or 0 at the end. */
int tspool_next(struct tspool *s, void *e);
/* Entry i (i < n), without moving the reader. */
void tspool_at(struct tspool *s, uint64_t i, void *e);
void tspool_free(struct tspool *s);
/* Sort the entries of in (rewound and read to the end) into out (newly
 * initialised, left rewound); in is freed. */
void tspool_sort(struct tspool *in, struct tspool *out, int (*cmp)(const void *, const void *));

#endif
