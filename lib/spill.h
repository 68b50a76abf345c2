/* Spilling to temporary files: what a tool must hold back until later,
 * kept in bounded memory whatever the input size.  The files come from
 * io_tmpfd (unlinked, in $TMPDIR or /tmp).
 *
 *   struct spill       fixed-size records appended, read back in order or
 *                      by index; memory first, then a temporary file
 *   struct spill_sort  fixed-size records sorted: sorted runs on a
 *                      temporary file, merged back in order
 *   struct spill_bytes bytes (records of the tool's own framing) appended
 *                      and read back, within one memory budget shared by
 *                      every byte spool of the process
 *
 * A failing temporary file ends the run ("temporary file: WHAT: ERROR",
 * EXIT_IO; byte spools name $TMPDIR instead) unless the sorter is told to
 * keep going (spill_sort_new's keep_going). */
#ifndef OPTRACE_SPILL_H
#define OPTRACE_SPILL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Whole positioned writes and reads: 0 or an errno (EIO: cut short). */
int spill_pwrite(int fd, const void *p, size_t len, uint64_t off);
int spill_pread(int fd, void *p, size_t len, uint64_t off);

/* ---- fixed-size record spools ---- */

#define SPILL_MEM (64u << 10)       /* bytes held in memory before the file */

struct spill {
	size_t rs;                  /* record size in bytes */
	char *buf;                  /* SPILL_MEM bytes: the records, or the read buffer */
	size_t bufn;                /* bytes in buf (writing), or readable (reading) */
	size_t bufpos;              /* reading: the next byte in buf */
	int fd;                     /* -1 while everything fits in buf */
	int reading;
	uint64_t fend;              /* bytes in the file */
	uint64_t n;                 /* records written */
	uint64_t rnext;             /* reading: index of the next record */
};

void spill_init(struct spill *s, size_t rs);
/* The slow halves of spill_put (a buffer to allocate or write out) and
 * spill_next (a buffer to read in); the fast halves are inline, as one
 * call per record would cost as much as a tool's handling of it. */
void spill_flush(struct spill *s);
void spill_refill(struct spill *s);

/* A record's copy, with the common size of 16 bytes a constant (two
 * moves rather than a call). */
static inline void spill_copy(void *to, const void *from, size_t rs)
{
	if (rs == 16)
		memcpy(to, from, 16);
	else
		memcpy(to, from, rs);
}

static inline void spill_put(struct spill *s, const void *e)
{
	if (!s->buf || s->bufn + s->rs > SPILL_MEM)
		spill_flush(s);
	spill_copy(s->buf + s->bufn, e, s->rs);
	s->bufn += s->rs;
	s->n++;
}

/* No more puts (or read again): reading from the first record. */
void spill_rewind(struct spill *s);

/* The next record into e: 1, or 0 at the end. */
static inline int spill_next(struct spill *s, void *e)
{
	if (s->rnext >= s->n)
		return 0;
	if (s->bufpos + s->rs > s->bufn)
		spill_refill(s);
	spill_copy(e, s->buf + s->bufpos, s->rs);
	s->bufpos += s->rs;
	s->rnext++;
	return 1;
}
/* Record i (i < n) into e, without moving the reader (after a rewind). */
void spill_at(struct spill *s, uint64_t i, void *e);
void spill_free(struct spill *s);
/* The records of in (read from its start) sorted by cmp into out (newly
 * initialised, left rewound); in is freed.  Records cmp finds equal keep
 * no particular order: give them a tie breaker where it matters. */
void spill_sort_into(struct spill *in, struct spill *out, int (*cmp)(const void *, const void *));

/* ---- the external sort ---- */

/* Runs merged at once; more are first merged into longer runs. */
#define SPILL_SORT_FANIN 64

struct spill_sort;
/* Records of rs bytes ordered by cmp; at most run_records of them in
 * memory while adding, the rest in sorted runs on a temporary file.  With
 * keep_going, a temporary file that fails is an error to ask for
 * (spill_sort_error) instead of the end of the run, and when tmpfd (NULL:
 * io_tmpfd) gives none, the records stay in memory. */
struct spill_sort *spill_sort_new(size_t rs, int (*cmp)(const void *, const void *), size_t run_records,
                                  int keep_going, int (*tmpfd)(void));
void spill_sort_add(struct spill_sort *s, const void *rec);
/* No more adds: sort, ready to hand them out.  0 or an errno. */
int spill_sort_done(struct spill_sort *s);
/* The next record in order, valid until the next call; NULL at the end
 * or after an error. */
const void *spill_sort_next(struct spill_sort *s);
uint64_t spill_sort_count(const struct spill_sort *s);
int spill_sort_error(const struct spill_sort *s);   /* 0, or the errno of a failure */
void spill_sort_free(struct spill_sort *s);

/* ---- byte spools ---- */

/* Bytes are kept in chunks of SPILL_CHUNK within the budget, the rest in
 * the spool's temporary file.  The layout is here only for the inline
 * fast paths below (a put or read within one chunk): use the calls. */
#define SPILL_CHUNK (1u << 20)
struct spill_chunk {
	struct spill_chunk *next;
	size_t len;
	char data[];
};
struct wr;
struct rd;
struct spill_bytes {
	struct spill_chunk *head, *tail, *rchunk;
	size_t rpos;
	int fd;
	struct wr *w;               /* the file, once the spool has spilled */
	struct rd *r;
};

/* Bytes all byte spools together may keep in memory (default 8 MiB). */
void spill_bytes_budget(size_t bytes);
struct spill_bytes *spill_bytes_new(void);
/* The slow halves of the inline calls below. */
void spill_bytes_put_slow(struct spill_bytes *s, const void *p, size_t n);
size_t spill_bytes_read_slow(struct spill_bytes *s, size_t n, void *buf, const void **p);

/* Append n bytes.  Inline for the common case, room in the last chunk:
 * the callers spool an entry of a few bytes per line. */
static inline void spill_bytes_put(struct spill_bytes *s, const void *p, size_t n)
{
	struct spill_chunk *t = s->tail;
	if (t && !s->w && n <= SPILL_CHUNK - t->len) {
		memcpy(t->data + t->len, p, n);
		t->len += n;
		return;
	}
	spill_bytes_put_slow(s, p, n);
}
/* Switch from writing to reading, or read again, from the start. */
void spill_bytes_rewind(struct spill_bytes *s);
/* Up to n bytes; returns the count (less only at the end). */
size_t spill_bytes_get(struct spill_bytes *s, void *p, size_t n);
/* The next n bytes, for reads that may meet the end: up to n bytes at *p
 * (in the spool's memory when they lie there in one piece, valid until
 * spill_bytes_free, else copied into buf, room for n); returns the count,
 * less than n only at the end.  Inline when they lie in the current
 * chunk. */
static inline size_t spill_bytes_read(struct spill_bytes *s, size_t n, void *buf, const void **p)
{
	struct spill_chunk *c = s->rchunk;
	if (c && c->len - s->rpos > n) {
		*p = c->data + s->rpos;
		s->rpos += n;
		return n;
	}
	return spill_bytes_read_slow(s, n, buf, p);
}
/* The same, NULL when fewer than n bytes are left. */
static inline const void *spill_bytes_next(struct spill_bytes *s, size_t n, void *buf)
{
	const void *p;
	return spill_bytes_read(s, n, buf, &p) == n ? p : NULL;
}
/* Pass over up to n bytes. */
size_t spill_bytes_skip(struct spill_bytes *s, size_t n);
void spill_bytes_free(struct spill_bytes *s);
/* Free the memory kept for reuse (at exit). */
void spill_bytes_release(void);

#endif
