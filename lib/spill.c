/* Spilling to temporary files (see spill.h). */
#include "spill.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "mem.h"

int spill_pwrite(int fd, const void *p, size_t len, uint64_t off)
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

int spill_pread(int fd, void *p, size_t len, uint64_t off)
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

/* Up to n bytes at off, fewer only at the end of the file: the count, or
 * -1 with errno. */
static ssize_t read_upto(int fd, char *p, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, p + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (!k)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

static _Noreturn void tmp_fail(const char *what, int e)
{
	cli_die(EXIT_IO, "temporary file: %s: %s", what, strerror(e ? e : EIO));
}

/* ---- fixed-size record spools ---- */

void spill_init(struct spill *s, size_t rs)
{
	memset(s, 0, sizeof *s);
	s->rs = rs;
	s->fd = -1;
}

static void to_file(struct spill *s)
{
	int e;
	if (s->fd < 0 && (s->fd = io_tmpfd()) < 0)
		tmp_fail("create", errno);
	if ((e = spill_pwrite(s->fd, s->buf, s->bufn, s->fend)))
		tmp_fail("write", e);
	s->fend += s->bufn;
	s->bufn = 0;
}

void spill_flush(struct spill *s)
{
	if (!s->buf)
		s->buf = xmalloc(SPILL_MEM);
	if (s->bufn + s->rs > SPILL_MEM)
		to_file(s);
}

void spill_rewind(struct spill *s)
{
	if (!s->reading && s->fd >= 0 && s->bufn)
		to_file(s);
	s->reading = 1;
	s->rnext = 0;
	s->bufpos = 0;
	if (s->fd >= 0)
		s->bufn = 0;        /* nothing read in yet */
}

void spill_refill(struct spill *s)
{
	/* fd >= 0 here: a spool in memory holds all n records in buf. */
	ssize_t k = read_upto(s->fd, s->buf, SPILL_MEM / s->rs * s->rs, s->rnext * s->rs);
	if (k < 0)
		tmp_fail("read", errno);
	s->bufn = (size_t)k;
	s->bufpos = 0;
	if (s->bufn < s->rs)
		tmp_fail("short read", 0);
}

void spill_at(struct spill *s, uint64_t i, void *e)
{
	int err;
	if (s->fd < 0)
		memcpy(e, s->buf + i * s->rs, s->rs);
	else if ((err = spill_pread(s->fd, e, s->rs, i * s->rs)))
		tmp_fail(err == EIO ? "short read" : "read", err);
}

void spill_free(struct spill *s)
{
	free(s->buf);
	if (s->fd >= 0)
		close(s->fd);
	spill_init(s, s->rs);
}

/* Runs of 4 MiB, the memory the sort of a spool takes. */
#define SPILL_RUN_BYTES (4u << 20)

void spill_sort_into(struct spill *in, struct spill *out, int (*cmp)(const void *, const void *))
{
	struct spill_sort *srt = spill_sort_new(in->rs, cmp, SPILL_RUN_BYTES / in->rs, 0, NULL);
	char *e = xmalloc(in->rs);
	const void *r;

	spill_init(out, in->rs);
	spill_rewind(in);
	while (spill_next(in, e))
		spill_sort_add(srt, e);
	free(e);
	spill_free(in);
	spill_sort_done(srt);
	while ((r = spill_sort_next(srt)))
		spill_put(out, r);
	spill_sort_free(srt);
	spill_rewind(out);
}

/* ---- the external sort ----
 *
 * Records are gathered in a buffer of at most run records; a full buffer
 * is sorted and written to the temporary file as one run.  At the end the
 * runs are merged (a binary heap of their heads, each read through a small
 * buffer); more than SPILL_SORT_FANIN runs are first merged SPILL_SORT_FANIN at a time
 * into longer ones, so the read buffers stay bounded too.  What never
 * filled a buffer is sorted in memory and never touches the disk. */

#define SORT_READ_BYTES (1u << 20)      /* the read buffers of one merge, together */
#define SORT_WRITE_BYTES (256u << 10)   /* the write buffer of an intermediate merge */

struct run {
	uint64_t off, n;                /* where, how many records */
};

struct src {                            /* a run being merged */
	char *b;
	size_t i, n, cap;               /* records: next, in the buffer, room */
	uint64_t off, left;             /* the rest of the run on disk */
};

struct spill_sort {
	size_t rs;
	int (*cmp)(const void *, const void *);
	int (*tmpfd)(void);
	int keep_going;
	size_t run;                     /* records per run */
	char *buf;
	size_t n, cap;
	int fd;                         /* -2 not yet made, -1 none to be had */
	uint64_t end;                   /* bytes of the file in use */
	struct run *runs;
	size_t nruns, capruns;
	uint64_t count;
	int err;                        /* errno of the first failure */
	size_t mi;                      /* reading the buffer: the next record */
	struct src *src;                /* reading runs */
	size_t nsrc;
	uint32_t *heap;
	size_t nheap;
	int popped;                     /* heap[0]'s record was handed out */
};

/* A failure of the temporary file: the end of the run, or noted. */
static void sort_fail(struct spill_sort *s, const char *what, int e)
{
	if (!s->keep_going)
		tmp_fail(what, e);
	if (!s->err)
		s->err = e ? e : EIO;
}

struct spill_sort *spill_sort_new(size_t rs, int (*cmp)(const void *, const void *), size_t run_records,
                                  int keep_going, int (*tmpfd)(void))
{
	struct spill_sort *s = xcalloc(1, sizeof *s);
	s->rs = rs;
	s->cmp = cmp;
	s->tmpfd = tmpfd ? tmpfd : io_tmpfd;
	s->keep_going = keep_going;
	s->run = run_records < 2 ? 2 : run_records;
	s->fd = -2;
	return s;
}

static void add_run(struct spill_sort *s, uint64_t off, uint64_t n)
{
	if (s->nruns == s->capruns) {
		s->capruns = s->capruns ? 2 * s->capruns : 16;
		s->runs = xrealloc(s->runs, s->capruns * sizeof *s->runs);
	}
	s->runs[s->nruns].off = off;
	s->runs[s->nruns++].n = n;
}

/* The buffer, sorted, becomes a run on disk. */
static void flush_run(struct spill_sort *s)
{
	size_t len = s->n * s->rs;
	int e = 0;
	if (!s->n)
		return;
	qsort(s->buf, s->n, s->rs, s->cmp);
	if (!s->err && (e = spill_pwrite(s->fd, s->buf, len, s->end)))
		sort_fail(s, "write", e);
	if (!s->err) {
		add_run(s, s->end, s->n);
		s->end += len;
	}
	s->n = 0;
}

void spill_sort_add(struct spill_sort *s, const void *rec)
{
	if (s->n == s->cap) {
		if (s->cap >= s->run && s->fd == -2) {
			s->fd = s->tmpfd();
			if (s->fd < 0 && !s->keep_going)
				tmp_fail("create", errno);
		}
		if (s->cap >= s->run && s->fd >= 0) {
			flush_run(s);
		} else {
			/* Grow up to a run; without a file, on. */
			s->cap = s->cap ? 2 * s->cap : 256;
			if (s->cap > s->run && s->fd != -1)
				s->cap = s->run;
			s->buf = xrealloc(s->buf, s->cap * s->rs);
		}
	}
	memcpy(s->buf + s->n++ * s->rs, rec, s->rs);
	s->count++;
}

uint64_t spill_sort_count(const struct spill_sort *s)
{
	return s ? s->count : 0;
}

int spill_sort_error(const struct spill_sort *s)
{
	return s ? s->err : 0;
}

static const char *src_head(const struct spill_sort *s, uint32_t k)
{
	const struct src *x = &s->src[k];
	return x->b + x->i * s->rs;
}

static int src_less(const struct spill_sort *s, uint32_t a, uint32_t b)
{
	int k = s->cmp(src_head(s, a), src_head(s, b));
	return k < 0 || (k == 0 && a < b);      /* equal: the earlier run first */
}

static void sift_down(struct spill_sort *s, size_t i)
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
static int src_fill(struct spill_sort *s, struct src *x)
{
	size_t n;
	int e;
	if (!x->left)
		return 0;
	n = x->left < x->cap ? (size_t)x->left : x->cap;
	if ((e = spill_pread(s->fd, x->b, n * s->rs, x->off))) {
		sort_fail(s, e == EIO ? "short read" : "read", e);
		return -1;
	}
	x->off += n * s->rs;
	x->left -= n;
	x->i = 0;
	x->n = n;
	return 1;
}

static void merge_close(struct spill_sort *s)
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
static int merge_open(struct spill_sort *s, size_t r0, size_t n)
{
	size_t per = SORT_READ_BYTES / n / s->rs, i;
	if (per < 16)
		per = 16;
	s->src = xcalloc(n, sizeof *s->src);
	s->heap = xmalloc(n * sizeof *s->heap);
	s->nsrc = n;
	s->nheap = 0;
	s->popped = 0;
	for (i = 0; i < n; i++) {
		struct src *x = &s->src[i];
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

static const void *merge_next(struct spill_sort *s)
{
	if (s->popped) {
		/* The record handed out last time is done with. */
		struct src *x = &s->src[s->heap[0]];
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

/* Merge the first SPILL_SORT_FANIN runs into one at the end of the file. */
static int merge_some(struct spill_sort *s)
{
	size_t cap = SORT_WRITE_BYTES / s->rs, n = 0, k = SPILL_SORT_FANIN;
	char *wb;
	uint64_t off = s->end, total = 0;
	const void *r;
	int e = 0;

	if (!cap)
		cap = 1;
	wb = xmalloc(cap * s->rs);
	if (merge_open(s, 0, k) == 0) {
		while ((r = merge_next(s)) != NULL) {
			memcpy(wb + n++ * s->rs, r, s->rs);
			if (n == cap) {
				if ((e = spill_pwrite(s->fd, wb, n * s->rs, off)) != 0)
					break;
				off += n * s->rs;
				total += n;
				n = 0;
			}
		}
		if (!e && n && (e = spill_pwrite(s->fd, wb, n * s->rs, off)) == 0) {
			off += n * s->rs;
			total += n;
		}
	}
	merge_close(s);
	free(wb);
	if (e)
		sort_fail(s, "write", e);
	if (s->err)
		return -1;
	memmove(s->runs, s->runs + k, (s->nruns - k) * sizeof *s->runs);
	s->nruns -= k;
	add_run(s, s->end, total);
	s->end = off;
	return 0;
}

int spill_sort_done(struct spill_sort *s)
{
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
	while (!s->err && s->nruns > SPILL_SORT_FANIN)
		merge_some(s);
	if (!s->err)
		merge_open(s, 0, s->nruns);
	return s->err;
}

const void *spill_sort_next(struct spill_sort *s)
{
	if (s->err)
		return NULL;
	if (!s->nruns)
		return s->mi < s->n ? s->buf + s->mi++ * s->rs : NULL;
	return merge_next(s);
}

void spill_sort_free(struct spill_sort *s)
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

/* ---- byte spools ----
 *
 * Memory in chunks of 1 MiB while the process-wide budget lasts, then the
 * spool's own temporary file (written and read through io.c's buffers);
 * once a spool has spilled, the rest follows it to the file so that the
 * read order stays the write order. */

#define CHUNK SPILL_CHUNK

static const char *tmpdir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

/* 8 MiB: with compact entries that holds the spools of a 100 MiB dump
 * nearly whole, and a larger budget saves no time (the rest goes through
 * the page cache of $TMPDIR as cheaply), so peak memory stays flat. */
static size_t budget = 8u << 20, in_use;

/* Chunks given back are kept for reuse: touching fresh pages again costs
 * more than the copying itself. */
static struct spill_chunk *spare;

static struct spill_chunk *chunk_take(void)
{
	struct spill_chunk *c = spare;
	if (c) {
		spare = c->next;
		return c;
	}
	return malloc(sizeof *c + CHUNK);
}

void spill_bytes_release(void)
{
	while (spare) {
		struct spill_chunk *c = spare;
		spare = c->next;
		free(c);
	}
}

void spill_bytes_budget(size_t bytes) { budget = bytes; }

struct spill_bytes *spill_bytes_new(void)
{
	struct spill_bytes *s = xcalloc(1, sizeof *s);
	s->fd = -1;
	return s;
}

static void bytes_to_file(struct spill_bytes *s, const void *p, size_t n)
{
	if (!s->w) {
		s->fd = io_tmpfd();
		if (s->fd < 0)
			cli_die(EXIT_IO, "%s: cannot create a spool file:", tmpdir());
		s->w = wr_fdopen_buf(s->fd, "(spool)", 0, 64 * 1024);
		if (!s->w)
			cli_die(EXIT_IO, "out of memory");
	}
	wr_put(s->w, p, n);
}

void spill_bytes_put_slow(struct spill_bytes *s, const void *p, size_t n)
{
	const char *c = p;
	if (s->w) {
		bytes_to_file(s, p, n);
		return;
	}
	while (n) {
		size_t room = s->tail ? CHUNK - s->tail->len : 0, k;
		if (!room) {
			struct spill_chunk *ch;
			if (in_use + CHUNK > budget || !(ch = chunk_take())) {
				bytes_to_file(s, c, n);
				return;
			}
			in_use += CHUNK;
			ch->next = NULL;
			ch->len = 0;
			if (s->tail)
				s->tail->next = ch;
			else
				s->head = ch;
			s->tail = ch;
			room = CHUNK;
		}
		k = n < room ? n : room;
		memcpy(s->tail->data + s->tail->len, c, k);
		s->tail->len += k;
		c += k;
		n -= k;
	}
}

void spill_bytes_rewind(struct spill_bytes *s)
{
	s->rchunk = s->head;
	s->rpos = 0;
	if (s->w) {
		int e = wr_close(s->w);
		s->w = NULL;
		if (e) {
			errno = e;
			cli_die(EXIT_IO, "%s: cannot write a spool file:", tmpdir());
		}
	}
	if (s->fd >= 0) {
		/* Readable any number of times: the chunks stay until
		 * spill_bytes_free, the file is read again from its start. */
		rd_close(s->r);
		if (lseek(s->fd, 0, SEEK_SET) < 0)
			cli_die(EXIT_IO, "%s: cannot rewind a spool file:", tmpdir());
		s->r = rd_fdopen(s->fd, "(spool)");
		if (!s->r)
			cli_die(EXIT_IO, "out of memory");
	}
}

/* Copy up to n bytes to p, or pass over them when p is NULL. */
static size_t take(struct spill_bytes *s, void *p, size_t n)
{
	char *o = p;
	size_t got = 0;
	while (got < n && s->rchunk) {
		size_t k = s->rchunk->len - s->rpos;
		if (k > n - got)
			k = n - got;
		if (o)
			memcpy(o + got, s->rchunk->data + s->rpos, k);
		got += k;
		s->rpos += k;
		if (s->rpos == s->rchunk->len) {
			s->rchunk = s->rchunk->next;
			s->rpos = 0;
		}
	}
	while (got < n && s->r) {
		char scratch[4096];
		size_t want = n - got, k;
		if (!o && want > sizeof scratch)
			want = sizeof scratch;
		k = rd_read(s->r, o ? o + got : scratch, want);
		if (rd_error(s->r))
			cli_die(EXIT_IO, "%s: cannot read a spool file: %s", tmpdir(), rd_strerror(s->r));
		if (!k)
			break;
		got += k;
	}
	return got;
}

size_t spill_bytes_get(struct spill_bytes *s, void *p, size_t n)
{
	return take(s, p, n);
}

size_t spill_bytes_read_slow(struct spill_bytes *s, size_t n, void *buf, const void **p)
{
	if (s->rchunk && s->rchunk->len - s->rpos > n) {
		*p = s->rchunk->data + s->rpos;
		s->rpos += n;
		return n;
	}
	*p = buf;
	return take(s, buf, n);
}

size_t spill_bytes_skip(struct spill_bytes *s, size_t n)
{
	return take(s, NULL, n);
}

void spill_bytes_free(struct spill_bytes *s)
{
	struct spill_chunk *c, *next;
	if (!s)
		return;
	for (c = s->head; c; c = next) {
		next = c->next;
		in_use -= CHUNK;
		c->next = spare;
		spare = c;
	}
	if (s->w)
		wr_abort(s->w);
	rd_close(s->r);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
