/* Fixed-size entry spools and their external sort (see tspool.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "tspool.h"

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		cli_die(EXIT_IO, "out of memory");
	return p;
}

static void io_fail(const char *what)
{
	cli_die(EXIT_IO, "temporary file: %s: %s", what, strerror(errno ? errno : EIO));
}

static void write_at_end(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			io_fail("write");
		p += k;
		n -= (size_t)k;
	}
}

/* Up to n bytes at off; fewer only at the end of the file. */
static size_t read_at(int fd, char *p, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, p + got, n - got, (off_t)(off + got));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			io_fail("read");
		if (!k)
			break;
		got += (size_t)k;
	}
	return got;
}

void tspool_init(struct tspool *s, size_t esz)
{
	memset(s, 0, sizeof *s);
	s->esz = esz;
	s->fd = -1;
}

void tspool_spill(struct tspool *s)
{
	if (!s->buf)
		s->buf = xmalloc(TSPOOL_MEM);
	if (s->bufn + s->esz > TSPOOL_MEM) {
		if (s->fd < 0 && (s->fd = io_tmpfd()) < 0)
			io_fail("create");
		write_at_end(s->fd, s->buf, s->bufn);
		s->bufn = 0;
	}
}

void tspool_rewind(struct tspool *s)
{
	if (!s->reading && s->fd >= 0 && s->bufn) {
		write_at_end(s->fd, s->buf, s->bufn);
		s->bufn = 0;
	}
	s->reading = 1;
	s->rnext = 0;
	s->bufpos = 0;
	if (s->fd >= 0)
		s->bufn = 0;        /* nothing buffered for reading yet */
}

void tspool_refill(struct tspool *s)
{
	/* fd >= 0 here: an in-memory spool holds all n entries in buf. */
	size_t want = TSPOOL_MEM / s->esz * s->esz;
	s->bufn = read_at(s->fd, s->buf, want, s->rnext * s->esz);
	s->bufpos = 0;
	if (s->bufn < s->esz)
		io_fail("short read");
}

void tspool_at(struct tspool *s, uint64_t i, void *e)
{
	if (s->fd < 0)
		memcpy(e, s->buf + i * s->esz, s->esz);
	else if (read_at(s->fd, e, s->esz, i * s->esz) != s->esz)
		io_fail("short read");
}

void tspool_free(struct tspool *s)
{
	free(s->buf);
	if (s->fd >= 0)
		close(s->fd);
	tspool_init(s, s->esz);
}

/* ---- external sort ---- */

struct run {
	uint64_t off, end;          /* bytes of the run in the runs file */
	char *buf;
	size_t pos, n;
};

static int (*sort_cmp)(const void *, const void *);

static int run_fill(int fd, struct run *r, size_t bufsz, size_t esz)
{
	size_t want = bufsz / esz * esz;
	if (r->off >= r->end)
		return 0;
	if (want > r->end - r->off)
		want = (size_t)(r->end - r->off);
	if (read_at(fd, r->buf, want, r->off) != want)
		io_fail("short read");
	r->off += want;
	r->pos = 0;
	r->n = want;
	return 1;
}

/* Min-heap of run indexes by their current entry. */
static int run_less(struct run *runs, size_t a, size_t b)
{
	int c = sort_cmp(runs[a].buf + runs[a].pos, runs[b].buf + runs[b].pos);
	return c < 0 || (c == 0 && a < b);     /* equal entries: the earlier run first (stable) */
}

static void sift_down(struct run *runs, size_t *heap, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, m = i, t;
		if (l < n && run_less(runs, heap[l], heap[m]))
			m = l;
		if (l + 1 < n && run_less(runs, heap[l + 1], heap[m]))
			m = l + 1;
		if (m == i)
			return;
		t = heap[i];
		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

void tspool_sort(struct tspool *in, struct tspool *out, int (*cmp)(const void *, const void *))
{
	size_t esz = in->esz, per = TSPOOL_RUN / esz, k, nruns = 0, caprun = 0, bufsz, nheap;
	char *chunk = xmalloc(per * esz);
	struct run *runs = NULL;
	size_t *heap;
	int fd = -1;

	sort_cmp = cmp;
	tspool_init(out, esz);
	tspool_rewind(in);
	/* Sorted runs; qsort is not stable, so entries carry their own tie
	 * breaker where order matters (the comparators of scalar-merge do). */
	for (;;) {
		size_t n = 0;
		while (n < per && tspool_next(in, chunk + n * esz))
			n++;
		if (!n)
			break;
		qsort(chunk, n, esz, cmp);
		if (!nruns && in->rnext == in->n) {     /* one run: no merge */
			for (k = 0; k < n; k++)
				tspool_put(out, chunk + k * esz);
			break;
		}
		if (fd < 0 && (fd = io_tmpfd()) < 0)
			io_fail("create");
		if (nruns == caprun) {
			caprun = caprun ? 2 * caprun : 16;
			if (!(runs = realloc(runs, caprun * sizeof *runs)))
				cli_die(EXIT_IO, "out of memory");
		}
		runs[nruns].off = nruns ? runs[nruns - 1].end : 0;
		runs[nruns].end = runs[nruns].off + n * esz;
		write_at_end(fd, chunk, n * esz);
		nruns++;
	}
	free(chunk);
	tspool_free(in);
	if (nruns) {
		/* Merge buffers share one run's worth of memory, at least a few
		 * entries each. */
		bufsz = TSPOOL_RUN / nruns;
		if (bufsz < 64 * esz)
			bufsz = 64 * esz;
		heap = xmalloc(nruns * sizeof *heap);
		for (k = nheap = 0; k < nruns; k++) {
			runs[k].buf = xmalloc(bufsz);
			if (run_fill(fd, &runs[k], bufsz, esz))
				heap[nheap++] = k;
		}
		for (k = nheap / 2; k-- > 0;)
			sift_down(runs, heap, nheap, k);
		while (nheap) {
			struct run *r = &runs[heap[0]];
			tspool_put(out, r->buf + r->pos);
			r->pos += esz;
			if (r->pos >= r->n && !run_fill(fd, r, bufsz, esz))
				heap[0] = heap[--nheap];
			sift_down(runs, heap, nheap, 0);
		}
		for (k = 0; k < nruns; k++)
			free(runs[k].buf);
		free(heap);
		close(fd);
	}
	free(runs);
	tspool_rewind(out);
}
