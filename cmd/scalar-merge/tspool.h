/* Spools of fixed-size entries for scalar-merge: appended, then read back in
 * order or by index.  The first TSPOOL_MEM bytes stay in memory; beyond that
 * the entries go to an unlinked temporary file in $TMPDIR, so a spool costs
 * one buffer whatever it holds.  tspool_sort sorts one by merging sorted
 * runs (TSPOOL_RUN bytes each) from another temporary file. */
#ifndef SCALAR_MERGE_TSPOOL_H
#define SCALAR_MERGE_TSPOOL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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
/* The slow halves of tspool_put (a buffer to allocate or write out) and
 * tspool_next (a buffer to read in), which are inline: one call per CCU
 * issue and fetch would cost as much as the rest of their handling. */
void tspool_spill(struct tspool *s);
void tspool_refill(struct tspool *s);

/* An entry's copy: the size of the streaming spools' entries (16 bytes)
 * as a constant, so the compiler makes it two moves rather than a call. */
static inline void tspool_copy(void *to, const void *from, size_t esz)
{
	if (esz == 16)
		memcpy(to, from, 16);
	else
		memcpy(to, from, esz);
}

static inline void tspool_put(struct tspool *s, const void *e)
{
	if (!s->buf || s->bufn + s->esz > TSPOOL_MEM)
		tspool_spill(s);
	tspool_copy(s->buf + s->bufn, e, s->esz);
	s->bufn += s->esz;
	s->n++;
}

/* Switch to reading from the first entry. */
void tspool_rewind(struct tspool *s);

/* The next entry: 1, or 0 at the end. */
static inline int tspool_next(struct tspool *s, void *e)
{
	if (s->rnext >= s->n)
		return 0;
	if (s->bufpos + s->esz > s->bufn)
		tspool_refill(s);
	tspool_copy(e, s->buf + s->bufpos, s->esz);
	s->bufpos += s->esz;
	s->rnext++;
	return 1;
}
/* Entry i (i < n), without moving the reader. */
void tspool_at(struct tspool *s, uint64_t i, void *e);
void tspool_free(struct tspool *s);
/* Sort the entries of in (rewound and read to the end) into out (newly
 * initialised, left rewound); in is freed. */
void tspool_sort(struct tspool *in, struct tspool *out, int (*cmp)(const void *, const void *));

#endif
