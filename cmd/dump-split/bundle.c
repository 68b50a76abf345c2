#include "bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mem.h"

/* Bytes handed to libarchive per read callback.  A member's data comes
 * back in blocks of at most this size, each written to its extracted copy
 * by one write: in 64 KiB blocks extracting a plain .tar took a third more
 * kernel time than in 512 KiB ones (more gave no more), which cost half a
 * megabyte of memory. */
#define CHUNK (1u << 19)

struct bundle {
	struct archive *a;
	struct archive_entry *e;
	struct rd *r;
	int fd;                /* read directly (a plain input), or -1 */
	int fd_err;            /* errno of a failed read of fd */
	int sniffed;           /* the bytes r read ahead were given */
	char *buf;
	const char *why;       /* what went wrong when a call returned -1 */
	char why_buf[160];
	int truncated;         /* the input ended inside a member */
	int started;           /* a tar header was read */
	int stuck;             /* libarchive cannot go on past the last member */
	/* a data block held back while the hole of a sparse member before it
	 * is given as zeros */
	const void *held;
	size_t held_n;
	int64_t held_off, pos;
};

/* A plain input skips r's buffer: what r read to tell lz4 from plain
 * goes first, then blocks come from read(2) into b->buf, the one copy of
 * the bytes in the tool. */
static la_ssize_t feed_fd(struct bundle *b, const void **p)
{
	ssize_t k;

	if (!b->sniffed) {
		size_t n;
		b->sniffed = 1;
		*p = rd_peek(b->r, 0, &n);
		if (n)
			return (la_ssize_t)n;
	}
	if (b->fd_err)
		return -1;
	*p = b->buf;
	k = read(b->fd, b->buf, CHUNK);
	if (k >= 0)
		return k;
	/* An interrupted read (Ctrl+C) ends the input, as in lib/io.c. */
	if (errno == EINTR)
		return 0;
	b->fd_err = errno;
	return -1;
}

static la_ssize_t feed(struct archive *a, void *arg, const void **p)
{
	struct bundle *b = arg;
	size_t got;

	(void)a;
	if (b->fd >= 0)
		return feed_fd(b, p);
	got = rd_read(b->r, b->buf, CHUNK);
	*p = b->buf;
	/* A read error or corrupt lz4 ends the archive; the caller says
	 * which from bundle_read_error. */
	return got ? (la_ssize_t)got : rd_error(b->r) ? -1 : 0;
}

struct bundle *bundle_open(struct rd *r)
{
	return bundle_open_fd(r, -1);
}

struct bundle *bundle_open_fd(struct rd *r, int fd)
{
	struct bundle *b = xcalloc(1, sizeof *b);

	b->r = r;
	b->fd = fd >= 0 && !rd_is_lz4(r) && !rd_error(r) ? fd : -1;
	b->buf = xmalloc(CHUNK);
	if (!(b->a = archive_read_new()) || !(b->e = archive_entry_new()))
		xnomem();
	archive_read_support_format_tar(b->a);
	/* The open only reads ahead to recognise the format: its failures
	 * come again, and are reported, from the first bundle_next. */
	archive_read_open(b->a, b, NULL, feed, NULL);
	return b;
}

void bundle_close(struct bundle *b)
{
	if (!b)
		return;
	archive_read_free(b->a);
	archive_entry_free(b->e);
	free(b->buf);
	free(b);
}

static void set_why(struct bundle *b, const char *fallback)
{
	const char *s = archive_error_string(b->a);
	size_t n;

	if (!s) {
		b->why = fallback;
		return;
	}
	/* libarchive's sentences start in capitals; these messages go after
	 * a colon. */
	n = strlen(s);
	if (n >= sizeof b->why_buf)
		n = sizeof b->why_buf - 1;
	memcpy(b->why_buf, s, n);
	b->why_buf[n] = 0;
	if (b->why_buf[0] >= 'A' && b->why_buf[0] <= 'Z')
		b->why_buf[0] = (char)(b->why_buf[0] - 'A' + 'a');
	b->why = b->why_buf;
}

static int is_pax_warning(const char *s)
{
	return s && strstr(s, "pax");
}

int bundle_next(struct bundle *b, struct bundle_member *m)
{
	int k;

	memset(m, 0, sizeof *m);
	b->held = NULL;
	b->pos = 0;
	if (b->stuck)
		return 0;
	k = archive_read_next_header2(b->a, b->e);
	if (archive_format(b->a))
		b->started = 1;
	if (k == ARCHIVE_EOF)
		return 0;
	if (k < ARCHIVE_WARN && b->started && !archive_error_string(b->a) &&
	    archive_entry_pathname(b->e)) {
		/* libarchive 3.6 stops, without a message, at a pax record
		 * with an empty key, after the member's tar header was read
		 * (later versions warn and go on): the member is known, its
		 * data and what follows cannot be read. */
		m->pax_why = "a record with an empty key";
		m->no_data = 1;
		b->stuck = 1;
	} else if (k == ARCHIVE_WARN && is_pax_warning(archive_error_string(b->a))) {
		set_why(b, NULL);
		m->pax_why = b->why;
	} else if (k < ARCHIVE_WARN) {
		if (!b->started)
			b->why = "not a tar archive";
		else
			set_why(b, "damaged archive");
		return -1;
	}
	/* Other warnings (a name not in this locale's character set) leave
	 * the member as its bytes say. */
	m->name = archive_entry_pathname(b->e);
	if (!m->name) {
		b->why = "a member without a name";
		return -1;
	}
	m->size = archive_entry_size_is_set(b->e) ? (uint64_t)archive_entry_size(b->e) : 0;
	switch (archive_entry_filetype(b->e)) {
	case AE_IFREG: m->type = BUNDLE_FILE; break;
	case AE_IFDIR: m->type = BUNDLE_DIR; break;
	default: m->type = BUNDLE_OTHER; break;
	}
	return 1;
}

int bundle_data(struct bundle *b, const void **p, size_t *n)
{
	static const char zeros[4096];
	la_int64_t off;
	int k;

	if (!b->held) {
		k = archive_read_data_block(b->a, &b->held, &b->held_n, &off);
		if (k == ARCHIVE_EOF)
			return 0;
		if (k < ARCHIVE_WARN) {
			b->held = NULL;
			b->truncated = 1;
			set_why(b, "archive is truncated");
			return 0;
		}
		b->held_off = off;
	}
	if (b->held_off > b->pos) {
		/* A hole of a sparse member reads as zeros, as tar -x writes. */
		int64_t gap = b->held_off - b->pos;
		*p = zeros;
		*n = gap > (int64_t)sizeof zeros ? sizeof zeros : (size_t)gap;
		b->pos += (int64_t)*n;
		return 1;
	}
	*p = b->held;
	*n = b->held_n;
	b->pos += (int64_t)b->held_n;
	b->held = NULL;
	return 1;
}

int bundle_read_error(const struct bundle *b)
{
	return b->fd_err ? b->fd_err : rd_error(b->r);
}

const char *bundle_read_strerror(const struct bundle *b)
{
	return b->fd_err ? strerror(b->fd_err) : rd_strerror(b->r);
}

int bundle_truncated(const struct bundle *b) { return b->truncated; }
int bundle_started(const struct bundle *b) { return b->started; }
const char *bundle_why(const struct bundle *b) { return b->why; }
