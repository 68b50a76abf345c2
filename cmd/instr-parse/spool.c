#include "spool.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"

static const char *tmpdir(void)
{
	const char *d = getenv("TMPDIR");
	return d && *d ? d : "/tmp";
}

#define CHUNK (1u << 20)

/* 8 MiB: with compact entries that holds the spools of a 100 MiB dump
 * nearly whole, and a larger budget saves no time (the rest goes through
 * the page cache of $TMPDIR as cheaply), so peak memory stays flat. */
static size_t budget = 8u << 20, in_use;
/* Chunks given back are kept for reuse: touching fresh pages again costs
 * more than the copying itself. */
static struct chunk *spare;

struct chunk {
	struct chunk *next;
	size_t len;
	char data[];
};

static struct chunk *chunk_take(void)
{
	struct chunk *c = spare;
	if (c) {
		spare = c->next;
		return c;
	}
	return malloc(sizeof *c + CHUNK);
}

static void chunk_give(struct chunk *c)
{
	c->next = spare;
	spare = c;
}

void spool_release_spares(void)
{
	while (spare) {
		struct chunk *c = spare;
		spare = c->next;
		free(c);
	}
}

struct spool {
	struct chunk *head, *tail, *rchunk;
	size_t rpos;
	int fd;
	struct wr *w;
	struct rd *r;
};

void spool_set_budget(size_t bytes) { budget = bytes; }

struct spool *spool_new(void)
{
	struct spool *s = calloc(1, sizeof *s);
	if (!s)
		cli_die(EXIT_IO, "out of memory");
	s->fd = -1;
	return s;
}

static void to_file(struct spool *s, const void *p, size_t n)
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

void spool_put(struct spool *s, const void *p, size_t n)
{
	const char *c = p;
	if (s->w) {
		/* Once a spool has spilled, the rest follows it to the file so
		 * the read order stays the write order. */
		to_file(s, p, n);
		return;
	}
	while (n) {
		size_t room = s->tail ? CHUNK - s->tail->len : 0, k;
		if (!room) {
			struct chunk *ch;
			if (in_use + CHUNK > budget || !(ch = chunk_take())) {
				to_file(s, c, n);
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

void spool_rewind(struct spool *s)
{
	s->rchunk = s->head;
	s->rpos = 0;
	if (s->w) {
		int e = wr_close(s->w);
		if (e) {
			errno = e;
			cli_die(EXIT_IO, "%s: cannot write a spool file:", tmpdir());
		}
		s->w = NULL;
	}
	if (s->fd >= 0) {
		/* Readable any number of times: the chunks stay until
		 * spool_free, the file is read again from its start. */
		rd_close(s->r);
		if (lseek(s->fd, 0, SEEK_SET) < 0)
			cli_die(EXIT_IO, "%s: cannot rewind a spool file:", tmpdir());
		s->r = rd_fdopen(s->fd, "(spool)");
		if (!s->r)
			cli_die(EXIT_IO, "out of memory");
	}
}

/* Copy up to n bytes to p, or skip them when p is NULL. */
static size_t take(struct spool *s, void *p, size_t n)
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

size_t spool_get(struct spool *s, void *p, size_t n)
{
	return take(s, p, n);
}

const void *spool_next(struct spool *s, size_t n, void *buf)
{
	if (s->rchunk && s->rchunk->len - s->rpos > n) {
		const char *p = s->rchunk->data + s->rpos;
		s->rpos += n;
		return p;
	}
	return take(s, buf, n) == n ? buf : NULL;
}

size_t spool_skip(struct spool *s, size_t n)
{
	return take(s, NULL, n);
}

void spool_free(struct spool *s)
{
	struct chunk *c, *next;
	if (!s)
		return;
	for (c = s->head; c; c = next) {
		next = c->next;
		in_use -= CHUNK;
		chunk_give(c);
	}
	if (s->w)
		wr_abort(s->w);
	rd_close(s->r);
	if (s->fd >= 0)
		close(s->fd);
	free(s);
}
