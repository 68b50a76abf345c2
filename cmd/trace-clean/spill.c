/* An external sort of fixed-size records, for what would otherwise stay
 * in memory until the end of the trace (the SET/WAIT flags and their
 * pairs, see clean.c).
 *
 * Records are gathered in a buffer of at most run_records; a full buffer
 * is sorted and written to an unlinked temporary file as one run.  At the
 * end the runs are merged (a binary heap of their heads, each read through
 * a small buffer); more than XS_FANIN runs are first merged XS_FANIN at a
 * time into longer ones, so the read buffers stay bounded too.  What
 * never filled a buffer is sorted in memory and never touches the disk.
 * Without a temporary file the buffer simply grows (a warning says so). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "tc.h"

#define XS_FANIN 64                  /* runs merged at once */
#define XS_READ_BYTES (1u << 20)     /* the read buffers of one merge, together */
#define XS_WRITE_BYTES (256u << 10)  /* the write buffer of an intermediate merge */

struct xrun {
	uint64_t off, n;                 /* where, how many records */
};

struct xsrc {                        /* a run being merged */
	char *b;
	size_t i, n, cap;                /* records: next, in the buffer, room */
	uint64_t off, left;              /* the rest of the run on disk */
};

struct xsort {
	size_t rs;                       /* record size */
	int (*cmp)(const void *, const void *);
	size_t run;                      /* records per run */
	char *buf;
	size_t n, cap;
	int fd;                          /* -2 not yet made, -1 none to be had */
	uint64_t end;                    /* bytes of the file in use */
	struct xrun *runs;
	size_t nruns, capruns;
	uint64_t count;
	int err;                         /* errno of the first failure */
	int reading;
	size_t mi;                       /* reading the buffer: the next record */
	struct xsrc *src;                /* reading runs */
	size_t nsrc;
	uint32_t *heap;
	size_t nheap;
	int popped;                      /* heap[0]'s record was handed out */
};

int xs_tmpfd(void)
{
	static int failed;
	int fd;
	if (failed)
		return -1;
	fd = io_tmpfd();
	if (fd < 0) {
		/* Said once; from then on everything stays in memory. */
		cli_warn("cannot create a temporary file (anchors and flags kept in memory):");
		failed = 1;
	}
	return fd;
}

struct xsort *xs_new(size_t rs, int (*cmp)(const void *, const void *), size_t run_records)
{
	struct xsort *s = xcalloc(1, sizeof *s);
	s->rs = rs;
	s->cmp = cmp;
	s->run = run_records < 2 ? 2 : run_records;
	s->fd = -2;
	return s;
}

static int pwrite_all(int fd, const void *p, size_t len, uint64_t off)
{
	const char *q = p;
	while (len) {
		ssize_t k = pwrite(fd, q, len, (off_t)off);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		q += k;
		off += (uint64_t)k;
		len -= (size_t)k;
	}
	return 0;
}

static int pread_all(int fd, void *p, size_t len, uint64_t off)
{
	char *q = p;
	while (len) {
		ssize_t k = pread(fd, q, len, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k ? errno : EIO;
		q += k;
		off += (uint64_t)k;
		len -= (size_t)k;
	}
	return 0;
}

int xs_pwrite(int fd, const void *p, size_t len, uint64_t off)
{
	return pwrite_all(fd, p, len, off);
}

int xs_pread(int fd, void *p, size_t len, uint64_t off)
{
	return pread_all(fd, p, len, off);
}

static void add_run(struct xsort *s, uint64_t off, uint64_t n)
{
	if (s->nruns == s->capruns) {
		s->capruns = s->capruns ? 2 * s->capruns : 16;
		s->runs = xrealloc(s->runs, s->capruns * sizeof *s->runs);
	}
	s->runs[s->nruns].off = off;
	s->runs[s->nruns++].n = n;
}

/* The buffer, sorted, becomes a run on disk. */
static void flush_run(struct xsort *s)
{
	size_t len = s->n * s->rs;
	int e;
	if (!s->n)
		return;
	qsort(s->buf, s->n, s->rs, s->cmp);
	e = s->err ? s->err : pwrite_all(s->fd, s->buf, len, s->end);
	if (e && !s->err)
		s->err = e;
	if (!s->err) {
		add_run(s, s->end, s->n);
		s->end += len;
	}
	s->n = 0;
}

void xs_add(struct xsort *s, const void *rec)
{
	if (s->n == s->cap) {
		if (s->cap >= s->run && s->fd == -2)
			s->fd = xs_tmpfd();
		if (s->cap >= s->run && s->fd >= 0) {
			flush_run(s);
		} else {
			s->cap = s->cap ? 2 * s->cap : 256;
			if (s->cap > s->run && s->fd != -1)
				s->cap = s->run;
			s->buf = xrealloc(s->buf, s->cap * s->rs);
		}
	}
	memcpy(s->buf + s->n++ * s->rs, rec, s->rs);
	s->count++;
}

uint64_t xs_count(const struct xsort *s)
{
	return s ? s->count : 0;
}

int xs_error(const struct xsort *s)
{
	return s ? s->err : 0;
}

/* ---- merging ---- */

static const char *src_head(const struct xsort *s, uint32_t k)
{
	const struct xsrc *x = &s->src[k];
	return x->b + x->i * s->rs;
}

static int src_less(const struct xsort *s, uint32_t a, uint32_t b)
{
	int k = s->cmp(src_head(s, a), src_head(s, b));
	return k < 0 || (k == 0 && a < b);
}

static void sift_down(struct xsort *s, size_t i)
{
	uint32_t x = s->heap[i];
	size_t n = s->nheap;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && src_less(s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!src_less(s, s->heap[c], x))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	s->heap[i] = x;
}

/* Refill a run's buffer: 1 with records, 0 at its end, -1 on an error. */
static int src_fill(struct xsort *s, struct xsrc *x)
{
	size_t n;
	int e;
	if (!x->left)
		return 0;
	n = x->left < x->cap ? (size_t)x->left : x->cap;
	e = pread_all(s->fd, x->b, n * s->rs, x->off);
	if (e) {
		if (!s->err)
			s->err = e;
		return -1;
	}
	x->off += n * s->rs;
	x->left -= n;
	x->i = 0;
	x->n = n;
	return 1;
}

static void merge_close(struct xsort *s)
{
	size_t i;
	for (i = 0; i < s->nsrc; i++)
		free(s->src[i].b);
	free(s->src);
	free(s->heap);
	s->src = NULL;
	s->heap = NULL;
	s->nsrc = s->nheap = 0;
	s->popped = 0;
}

/* Start merging runs [r0, r0 + n). */
static int merge_open(struct xsort *s, size_t r0, size_t n)
{
	size_t per = XS_READ_BYTES / n / s->rs, i;
	if (per < 16)
		per = 16;
	s->src = xcalloc(n, sizeof *s->src);
	s->heap = xmalloc(n * sizeof *s->heap);
	s->nsrc = n;
	s->nheap = 0;
	s->popped = 0;
	for (i = 0; i < n; i++) {
		struct xsrc *x = &s->src[i];
		x->cap = per < s->runs[r0 + i].n ? per : (size_t)s->runs[r0 + i].n;
		x->b = xmalloc((x->cap ? x->cap : 1) * s->rs);
		x->off = s->runs[r0 + i].off;
		x->left = s->runs[r0 + i].n;
		if (src_fill(s, x) < 0)
			return -1;
		if (x->n)
			s->heap[s->nheap++] = (uint32_t)i;
	}
	for (i = s->nheap / 2; i-- > 0;)
		sift_down(s, i);
	return 0;
}

static const void *merge_next(struct xsort *s)
{
	if (s->popped) {
		/* The record handed out last time is done with. */
		struct xsrc *x = &s->src[s->heap[0]];
		s->popped = 0;
		if (++x->i == x->n) {
			int k = src_fill(s, x);
			if (k < 0)
				return NULL;
			if (!k) {
				s->heap[0] = s->heap[--s->nheap];
				if (!s->nheap)
					return NULL;
			}
		}
		sift_down(s, 0);
	}
	if (!s->nheap)
		return NULL;
	s->popped = 1;
	return src_head(s, s->heap[0]);
}

/* Merge the first XS_FANIN runs into one at the end of the file. */
static int merge_some(struct xsort *s)
{
	size_t cap = XS_WRITE_BYTES / s->rs, n = 0, k = XS_FANIN;
	char *wb = xmalloc((cap ? cap : 1) * s->rs);
	uint64_t off = s->end, total = 0;
	const void *r;
	int e = 0;

	if (cap == 0)
		cap = 1;
	if (merge_open(s, 0, k) == 0) {
		while ((r = merge_next(s)) != NULL) {
			memcpy(wb + n++ * s->rs, r, s->rs);
			if (n == cap) {
				if ((e = pwrite_all(s->fd, wb, n * s->rs, off)) != 0)
					break;
				off += n * s->rs;
				total += n;
				n = 0;
			}
		}
		if (!e && n && (e = pwrite_all(s->fd, wb, n * s->rs, off)) == 0) {
			off += n * s->rs;
			total += n;
		}
	}
	merge_close(s);
	free(wb);
	if (e && !s->err)
		s->err = e;
	if (s->err)
		return -1;
	memmove(s->runs, s->runs + k, (s->nruns - k) * sizeof *s->runs);
	s->nruns -= k;
	add_run(s, s->end, total);
	s->end = off;
	return 0;
}

int xs_sort(struct xsort *s)
{
	s->reading = 1;
	s->mi = 0;
	if (!s->nruns) {
		/* It all fit: sorted in memory. */
		if (s->n > 1)
			qsort(s->buf, s->n, s->rs, s->cmp);
		return s->err;
	}
	flush_run(s);
	free(s->buf);
	s->buf = NULL;
	s->n = s->cap = 0;
	while (!s->err && s->nruns > XS_FANIN)
		merge_some(s);
	if (!s->err)
		merge_open(s, 0, s->nruns);
	return s->err;
}

const void *xs_next(struct xsort *s)
{
	if (s->err)
		return NULL;
	if (!s->nruns)
		return s->mi < s->n ? s->buf + s->mi++ * s->rs : NULL;
	return merge_next(s);
}

void xs_free(struct xsort *s)
{
	if (!s)
		return;
	merge_close(s);
	free(s->buf);
	free(s->runs);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
