#include "io.h"
#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <lz4frame.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Reads and writes of 64 KiB and pipes of 256 KiB: when two tools of a
 * pipeline share a CPU the bytes written are still in its cache when the
 * reader copies them out (with 1 MiB both ways, 7% more CPU time on
 * dump-split | instr-parse, and the same on two CPUs). */
#define RD_CHUNK (64u << 10)
#define WR_CHUNK (64u << 10)
#define PIPE_SIZE (256 << 10)

struct rd {
	int fd;
	int own_fd;
	int err;
	int eof;            /* no more bytes from the source */
	int intr;           /* ... because a read was interrupted (Ctrl+C) */
	char *name;
	char *buf;          /* decompressed bytes: [pos, end) unread */
	size_t pos, end, cap;
	uint64_t lineno;
	uint64_t consumed;
	LZ4F_dctx *lz;      /* non-NULL when the input is lz4 */
	char *zbuf;         /* compressed bytes: [zpos, zend) unread */
	size_t zpos, zend;
	int zeof;
	size_t zhint;       /* 0 when the last lz4 frame is complete */
	void *map;          /* rd_map_next's window, maplen bytes at mapoff */
	size_t maplen;
	uint64_t mapoff, mapsize; /* mapsize: the file's size, 0 before the first window */
};

static ssize_t read_full(int fd, char *p, size_t n, int *intr)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = read(fd, p + got, n - got);
		if (k < 0) {
			/* Only SIGINT/SIGTERM are caught (without SA_RESTART): an
			 * interrupted read means the user wants the tool to stop,
			 * so it reads as the end of input and the tool closes its
			 * output as interrupted. */
			if (errno == EINTR) {
				*intr = 1;
				return (ssize_t)got;
			}
			return got ? (ssize_t)got : -1;
		}
		if (k == 0)
			break;
		got += (size_t)k;
		/* Pipes deliver short reads; return what we have. */
		break;
	}
	return (ssize_t)got;
}

/* Pipes between the tools default to 64 KiB; ask for PIPE_SIZE so a writer
 * can run ahead a few chunks (silently keep the default if refused). */
static void widen_pipe(int fd)
{
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, PIPE_SIZE);
}

struct rd *rd_fdopen(int fd, const char *name)
{
	struct rd *r = calloc(1, sizeof *r);
	if (!r)
		return NULL;
	widen_pipe(fd);
	r->fd = fd;
	r->name = strdup(name ? name : "(stdin)");
	r->cap = RD_CHUNK * 2;
	r->buf = malloc(r->cap);
	if (!r->name || !r->buf) {
		free(r->name);
		free(r->buf);
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	/* Sniff the first four bytes for the lz4 frame magic 0x184D2204. */
	while (r->end < 4 && !r->eof) {
		/* At most one chunk in all: it may have to fit the lz4 buffer. */
		ssize_t k = read_full(fd, r->buf + r->end, RD_CHUNK - r->end, &r->intr);
		if (k < 0) {
			r->err = errno;
			break;
		}
		if (k == 0)
			r->eof = 1;
		r->end += (size_t)k;
	}
	if (r->end >= 4 && (unsigned char)r->buf[0] == 0x04 &&
	    (unsigned char)r->buf[1] == 0x22 && (unsigned char)r->buf[2] == 0x4d &&
	    (unsigned char)r->buf[3] == 0x18) {
		if (LZ4F_isError(LZ4F_createDecompressionContext(&r->lz, LZ4F_VERSION))) {
			rd_close(r);
			errno = ENOMEM;
			return NULL;
		}
		r->zbuf = malloc(RD_CHUNK);
		if (!r->zbuf) {
			rd_close(r);
			errno = ENOMEM;
			return NULL;
		}
		memcpy(r->zbuf, r->buf, r->end);
		r->zend = r->end;
		r->zeof = r->eof;
		r->end = 0;
		r->eof = 0;
	}
	return r;
}

struct rd *rd_open(const char *path)
{
	int fd;
	struct rd *r;

	if (!path || !strcmp(path, "-"))
		return rd_fdopen(0, "(stdin)");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	r = rd_fdopen(fd, path);
	if (!r) {
		int e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	r->own_fd = 1;
	return r;
}

/* Append more decompressed bytes after r->end.  Returns bytes added, 0 at
 * end of input or error. */
static size_t fill(struct rd *r)
{
	if (r->err || r->eof)
		return 0;
	if (r->cap - r->end < RD_CHUNK) {
		/* Slide the unread tail to the front, grow only for long lines. */
		if (r->pos) {
			memmove(r->buf, r->buf + r->pos, r->end - r->pos);
			r->end -= r->pos;
			r->pos = 0;
		}
		if (r->cap - r->end < RD_CHUNK) {
			char *nb = realloc(r->buf, r->cap * 2);
			if (!nb) {
				r->err = ENOMEM;
				return 0;
			}
			r->buf = nb;
			r->cap *= 2;
		}
	}
	if (!r->lz) {
		ssize_t k = read_full(r->fd, r->buf + r->end, r->cap - r->end, &r->intr);
		if (k < 0) {
			r->err = errno;
			return 0;
		}
		if (k == 0)
			r->eof = 1;
		r->end += (size_t)k;
		return (size_t)k;
	}
	for (;;) {
		size_t out = r->cap - r->end, in = r->zend - r->zpos;
		size_t hint;
		if (in == 0 && !r->zeof) {
			ssize_t k = read_full(r->fd, r->zbuf, RD_CHUNK, &r->intr);
			if (k < 0) {
				r->err = errno;
				return 0;
			}
			r->zpos = 0;
			r->zend = (size_t)k;
			if (k == 0)
				r->zeof = 1;
			continue;
		}
		if (in == 0 && r->zeof) {
			/* A frame cut short is an error, not a quiet end. */
			if (r->zhint)
				r->err = EPROTO;
			r->eof = 1;
			return 0;
		}
		hint = LZ4F_decompress(r->lz, r->buf + r->end, &out, r->zbuf + r->zpos, &in, NULL);
		if (LZ4F_isError(hint)) {
			r->err = EBADMSG;
			return 0;
		}
		r->zpos += in;
		r->end += out;
		r->zhint = hint;
		if (out)
			return out;
	}
}

const char *rd_line(struct rd *r, size_t *len)
{
	size_t scan = r->pos;
	for (;;) {
		char *nl = memchr(r->buf + scan, '\n', r->end - scan);
		if (nl) {
			const char *line = r->buf + r->pos;
			*len = (size_t)(nl - line);
			r->consumed += *len + 1;
			r->pos = (size_t)(nl - r->buf) + 1;
			r->lineno++;
			return line;
		}
		scan = r->end - r->pos;
		if (!fill(r)) {
			/* A last line without LF still counts, but only at a real
			 * end of input: after a read error it is a cut line, and
			 * after an interrupted read the rest of a line that is
			 * still on its way (the stream ends, as interrupted, at the
			 * last whole line). */
			if (r->end > r->pos && !r->err && !r->intr) {
				const char *line = r->buf + r->pos;
				*len = r->end - r->pos;
				r->consumed += *len;
				r->pos = r->end;
				r->lineno++;
				return line;
			}
			return NULL;
		}
		scan += r->pos;
	}
}

const char *rd_peek(struct rd *r, size_t want, size_t *n)
{
	while (r->end - r->pos < want && fill(r))
		;
	*n = r->end - r->pos;
	return r->buf + r->pos;
}

size_t rd_read(struct rd *r, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		size_t avail = r->end - r->pos;
		if (!avail) {
			r->pos = r->end = 0;
			if (!r->lz && n - got >= 4096 && !r->err && !r->eof) {
				/* A large read of plain bytes goes straight to
				 * the caller's buffer, not through ours. */
				ssize_t k = read_full(r->fd, (char *)buf + got, n - got, &r->intr);
				if (k < 0)
					r->err = errno;
				else if (k == 0)
					r->eof = 1;
				if (k <= 0)
					break;
				got += (size_t)k;
				continue;
			}
			if (!fill(r))
				break;
			continue;
		}
		if (avail > n - got)
			avail = n - got;
		memcpy((char *)buf + got, r->buf + r->pos, avail);
		r->pos += avail;
		got += avail;
	}
	r->consumed += got;
	return got;
}

uint64_t rd_lineno(const struct rd *r) { return r->lineno; }
uint64_t rd_offset(const struct rd *r) { return r->consumed; }
const char *rd_name(const struct rd *r) { return r->name; }
int rd_error(const struct rd *r) { return r->err; }

const char *rd_strerror(const struct rd *r)
{
	if (r->err == EBADMSG || r->err == EPROTO)
		return r->lz ? "lz4 data corrupt or cut short" : strerror(r->err);
	return r->err ? strerror(r->err) : "no error";
}
int rd_is_lz4(const struct rd *r) { return r->lz != NULL; }

const void *rd_map_next(struct rd *r, size_t *n)
{
	struct stat st;
	void *p;
	size_t len;

	*n = 1;
	if (r->map) {
		munmap(r->map, r->maplen);
		r->map = NULL;
		r->mapoff += r->maplen;
	} else if (!r->mapsize) {
		if (r->lz || r->consumed || r->err || fstat(r->fd, &st) < 0 || !S_ISREG(st.st_mode))
			return NULL;
		if (!st.st_size) {
			*n = 0;
			return NULL;
		}
		r->mapsize = (uint64_t)st.st_size;
	}
	if (r->mapoff >= r->mapsize) {
		*n = 0;
		return NULL;
	}
	len = r->mapsize - r->mapoff < RD_MAP_WINDOW ? (size_t)(r->mapsize - r->mapoff) : RD_MAP_WINDOW;
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, r->fd, (off_t)r->mapoff);
	if (p == MAP_FAILED) {
		/* Mapped before: the rest cannot be read any other way. */
		if (r->mapoff) {
			r->err = errno;
			*n = 0;
		}
		return NULL;
	}
	(void)madvise(p, len, MADV_SEQUENTIAL);
	r->map = p;
	r->maplen = len;
	r->consumed += len;
	*n = len;
	return p;
}

void rd_close(struct rd *r)
{
	if (!r)
		return;
	if (r->map)
		munmap(r->map, r->maplen);
	if (r->own_fd)
		close(r->fd);
	if (r->lz)
		LZ4F_freeDecompressionContext(r->lz);
	free(r->zbuf);
	free(r->buf);
	free(r->name);
	free(r);
}

struct wr {
	int fd;
	int own_fd;
	int err;
	char *name;         /* the target */
	char *tmp;          /* temporary sibling, NULL for stdout/fd */
	char *buf;
	size_t len, cap;
	LZ4F_cctx *lz;
	char *zbuf;
	size_t zcap;
	int started;
	uint64_t written, flushed; /* bytes written; of those, sent to writeback */
};

/* A named output is fsync'ed before it is renamed into place.  Start the
 * writeback of every WRITEBACK_STEP bytes as they are written, so the disk
 * works while the tool does and the final fsync only waits for the tail. */
#define WRITEBACK_STEP (8u << 20)

static void write_all(struct wr *w, const char *p, size_t n)
{
	while (n && !w->err) {
		ssize_t k = write(w->fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			w->err = errno;
			return;
		}
		p += k;
		n -= (size_t)k;
		w->written += (uint64_t)k;
	}
#ifdef SYNC_FILE_RANGE_WRITE
	if (w->tmp && w->written - w->flushed >= WRITEBACK_STEP) {
		/* Only a hint: a failure shows again in the fsync. */
		(void)sync_file_range(w->fd, (off_t)w->flushed, (off_t)(w->written - w->flushed),
		                      SYNC_FILE_RANGE_WRITE);
		w->flushed = w->written;
	}
#endif
}

struct wr *wr_fdopen(int fd, const char *name, int flags)
{
	return wr_fdopen_buf(fd, name, flags, WR_CHUNK);
}

int io_tmpfd(void)
{
	const char *dir = getenv("TMPDIR");
	char *path;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd >= 0)
		return fd;
	/* Filesystems without O_TMPFILE: create and unlink at once. */
	path = malloc(strlen(dir) + 32);
	if (!path)
		return -1;
	sprintf(path, "%s/optrace.XXXXXX", dir);
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

int io_rm_tree(const char *path)
{
	/* Depth first, so a directory is empty when its turn comes. */
	return nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

struct wr *wr_fdopen_buf(int fd, const char *name, int flags, size_t bufsize)
{
	struct wr *w = calloc(1, sizeof *w);
	if (!w)
		return NULL;
	widen_pipe(fd);
	w->fd = fd;
	w->name = strdup(name ? name : "(stdout)");
	w->cap = bufsize < 4096 ? 4096 : bufsize;
	w->buf = malloc(w->cap);
	if (!w->name || !w->buf)
		goto nomem;
	if (flags & WR_LZ4) {
		if (LZ4F_isError(LZ4F_createCompressionContext(&w->lz, LZ4F_VERSION)))
			goto nomem;
		w->zcap = LZ4F_compressBound(w->cap, NULL);
		if (w->zcap < LZ4F_HEADER_SIZE_MAX)
			w->zcap = LZ4F_HEADER_SIZE_MAX;
		w->zbuf = malloc(w->zcap);
		if (!w->zbuf)
			goto nomem;
	}
	return w;
nomem:
	if (w->lz)
		LZ4F_freeCompressionContext(w->lz);
	free(w->zbuf);
	free(w->buf);
	free(w->name);
	free(w);
	errno = ENOMEM;
	return NULL;
}

/* A named output still open when the process exits was not finished: its
 * temporary file goes (see cli_cleanup_add). */
static void abort_at_exit(void *w)
{
	wr_abort(w);
}

struct wr *wr_open(const char *path, int flags)
{
	struct wr *w;
	char *tmp;
	int fd;

	if (!path || !strcmp(path, "-"))
		return wr_fdopen(1, "(stdout)", flags);
	{
		/* Devices and FIFOs are written in place; renaming a file
		 * over them would replace them. */
		struct stat st;
		if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
			if (S_ISDIR(st.st_mode)) {
				errno = EISDIR;
				return NULL;
			}
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd < 0)
				return NULL;
			w = wr_fdopen(fd, path, flags);
			if (!w) {
				close(fd);
				return NULL;
			}
			w->own_fd = 1;
			return w;
		}
	}
	tmp = malloc(strlen(path) + 16);
	if (!tmp)
		return NULL;
	sprintf(tmp, "%s.tmpXXXXXX", path);
	fd = mkstemp(tmp);
	if (fd < 0) {
		free(tmp);
		return NULL;
	}
	{
		/* mkstemp makes 0600: give the file the mode of the file it
		 * replaces, else IO_FILE_MODE less the umask. */
		struct stat st;
		if (stat(path, &st) == 0) {
			fchmod(fd, st.st_mode & 07777);
		} else {
			fchmod(fd, io_file_mode());
		}
	}
	w = wr_fdopen(fd, path, flags);
	if (!w) {
		int e = errno;
		unlink(tmp);
		free(tmp);
		close(fd);
		errno = e;
		return NULL;
	}
	w->own_fd = 1;
	w->tmp = tmp;
	cli_cleanup_add(abort_at_exit, w);
	return w;
}

static void drain(struct wr *w)
{
	if (!w->len)
		return;
	if (!w->lz) {
		write_all(w, w->buf, w->len);
	} else {
		size_t k;
		if (!w->started) {
			k = LZ4F_compressBegin(w->lz, w->zbuf, w->zcap, NULL);
			if (LZ4F_isError(k)) {
				w->err = EIO;
				return;
			}
			write_all(w, w->zbuf, k);
			w->started = 1;
		}
		k = LZ4F_compressUpdate(w->lz, w->zbuf, w->zcap, w->buf, w->len, NULL);
		if (LZ4F_isError(k))
			w->err = EIO;
		else
			write_all(w, w->zbuf, k);
	}
	w->len = 0;
}

/* Make room: write what ends on a page boundary of the output and keep
 * the rest (less than a page) for the next write.  A file so gets whole
 * pages: a write ending inside a new page has the kernel clear it first
 * and the next write fill it again (a third more system time). */
static void drain_pages(struct wr *w)
{
	size_t keep = (size_t)((w->written + w->len) % 4096);
	if (w->lz || keep >= w->len || w->err) {
		drain(w);
		return;
	}
	write_all(w, w->buf, w->len - keep);
	memmove(w->buf, w->buf + w->len - keep, keep);
	w->len = keep;
}

char *wr_reserve(struct wr *w, size_t n)
{
	if (w->cap - w->len < n) {
		drain_pages(w);
		if (w->cap - w->len < n)
			drain(w);
		if (w->cap < n) {
			/* Only a single huge record gets here. */
			char *nb = realloc(w->buf, n);
			if (!nb) {
				w->err = ENOMEM;
				abort();
			}
			w->buf = nb;
			w->cap = n;
			if (w->lz) {
				size_t zc = LZ4F_compressBound(n, NULL);
				char *nz = realloc(w->zbuf, zc);
				if (!nz)
					abort();
				w->zbuf = nz;
				w->zcap = zc;
			}
		}
	}
	return w->buf + w->len;
}

void wr_commit(struct wr *w, size_t n) { w->len += n; }

void wr_put(struct wr *w, const void *p, size_t n)
{
	const char *s = p;
	while (n) {
		size_t room = w->cap - w->len;
		if (!room) {
			drain_pages(w);
			room = w->cap - w->len;
		}
		if (room > n)
			room = n;
		memcpy(w->buf + w->len, s, room);
		w->len += room;
		s += room;
		n -= room;
	}
}

void wr_putc(struct wr *w, int c)
{
	if (w->len == w->cap)
		drain_pages(w);
	w->buf[w->len++] = (char)c;
}

void wr_puts(struct wr *w, const char *s) { wr_put(w, s, strlen(s)); }

int wr_printf(struct wr *w, const char *fmt, ...)
{
	va_list ap;
	int n;
	char *p = wr_reserve(w, 512);

	va_start(ap, fmt);
	n = vsnprintf(p, 512, fmt, ap);
	va_end(ap);
	if (n < 0)
		return n;
	if (n >= 512) {
		p = wr_reserve(w, (size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(p, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	wr_commit(w, (size_t)n);
	return n;
}

int wr_flush(struct wr *w)
{
	drain(w);
	if (w->lz && w->started && !w->err) {
		size_t k = LZ4F_flush(w->lz, w->zbuf, w->zcap, NULL);
		if (LZ4F_isError(k))
			w->err = EIO;
		else
			write_all(w, w->zbuf, k);
	}
	return w->err;
}

int wr_copy_from(struct wr *w, int fd, uint64_t off, uint64_t len)
{
	struct stat st;
	int kernel = !w->lz && !w->err && fstat(w->fd, &st) == 0 && S_ISREG(st.st_mode);

	drain(w);
	while (len && !w->err) {
		ssize_t k = -1;
		if (kernel) {
			off_t from = (off_t)off;
			k = copy_file_range(fd, &from, w->fd, NULL, len < (1u << 30) ? (size_t)len : (1u << 30), 0);
			if (k < 0 && errno != EINTR) {
				/* Not here (another filesystem, an old kernel):
				 * the buffer's way from this byte on. */
				kernel = 0;
				continue;
			}
			if (k > 0)
				w->written += (uint64_t)k;
		} else {
			size_t want = len < WR_CHUNK ? (size_t)len : WR_CHUNK;
			char *p = wr_reserve(w, want);
			k = pread(fd, p, want, (off_t)off);
			if (k > 0)
				wr_commit(w, (size_t)k);
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			w->err = k < 0 ? errno : EIO;
			break;
		}
		off += (uint64_t)k;
		len -= (uint64_t)k;
	}
	return w->err;
}

uint64_t wr_tell(const struct wr *w)
{
	return w->written + w->len;
}

int wr_patch(struct wr *w, uint64_t off, const void *p, size_t n)
{
	struct stat st;
	const char *c = p;

	drain(w);
	if (w->err)
		return w->err;
	if (w->lz || off > w->written || n > w->written - off || fstat(w->fd, &st) < 0 || !S_ISREG(st.st_mode))
		return w->err = EINVAL;
	while (n) {
		ssize_t k = pwrite(w->fd, c, n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return w->err = k < 0 ? errno : EIO;
		c += k;
		off += (uint64_t)k;
		n -= (size_t)k;
	}
	return 0;
}

int wr_error(const struct wr *w) { return w->err; }
const char *wr_name(const struct wr *w) { return w->name; }

static void wr_free(struct wr *w)
{
	if (w->lz)
		LZ4F_freeCompressionContext(w->lz);
	free(w->zbuf);
	free(w->buf);
	free(w->tmp);
	free(w->name);
	free(w);
}

int wr_close(struct wr *w)
{
	int err;

	drain(w);
	if (w->lz && !w->err) {
		size_t k;
		if (!w->started) {
			k = LZ4F_compressBegin(w->lz, w->zbuf, w->zcap, NULL);
			if (!LZ4F_isError(k))
				write_all(w, w->zbuf, k);
			w->started = 1;
		}
		k = LZ4F_compressEnd(w->lz, w->zbuf, w->zcap, NULL);
		if (LZ4F_isError(k))
			w->err = EIO;
		else
			write_all(w, w->zbuf, k);
	}
	if (w->own_fd) {
		if (w->tmp && !w->err && fsync(w->fd) < 0 && errno != EINVAL)
			w->err = errno;
		if (close(w->fd) < 0 && !w->err)
			w->err = errno;
	}
	if (w->tmp) {
		cli_cleanup_remove(abort_at_exit, w);
		if (!w->err && rename(w->tmp, w->name) < 0)
			w->err = errno;
		if (w->err)
			unlink(w->tmp);
	}
	err = w->err;
	wr_free(w);
	return err;
}

void wr_abort(struct wr *w)
{
	if (!w)
		return;
	if (w->own_fd)
		close(w->fd);
	if (w->tmp) {
		cli_cleanup_remove(abort_at_exit, w);
		unlink(w->tmp);
	}
	wr_free(w);
}

int io_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

int io_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

ssize_t io_pread_full(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, (off_t)(off + got));
		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (!k)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

int io_out_dir(const char *path)
{
	struct stat st;
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 1;
		errno = ENOTDIR;
		return -1;
	}
	if (errno != ENOENT)
		return -1;
	/* A link to nothing: not a place to make the directory. */
	if (lstat(path, &st) == 0) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}

static mode_t less_umask(mode_t m)
{
	mode_t mask = umask(0);
	umask(mask);
	return m & ~mask;
}

mode_t io_file_mode(void) { return less_umask(IO_FILE_MODE); }
mode_t io_dir_mode(void) { return less_umask(IO_DIR_MODE); }

/* A symbolic link on the path as given, not said before: each prefix
 * ending before a '/' (or at the end) is looked at without following it.
 * The links said are kept (a few), so that the files of a directory
 * reached through one do not each say it again. */
static char *links_said[8];

static int link_on_path(const char *path)
{
	size_t n = strlen(path), i, k;
	char *p = malloc(n + 1);
	int found = 0;

	if (!p)
		return 0;
	memcpy(p, path, n + 1);
	for (i = 1; i <= n; i++) {
		struct stat st;
		if (i < n && p[i] != '/')
			continue;
		if (p[i - 1] == '/')
			continue;       /* the root, or a doubled slash */
		p[i] = 0;
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode)) {
			for (k = 0; k < sizeof links_said / sizeof *links_said && links_said[k]; k++)
				if (!strcmp(links_said[k], p))
					break;
			if (k == sizeof links_said / sizeof *links_said || !links_said[k]) {
				found = 1;
				if (k < sizeof links_said / sizeof *links_said)
					links_said[k] = strdup(p);
			}
		}
		p[i] = path[i];
	}
	free(p);
	return found;
}

static int human(char *buf, size_t n, uint64_t v)
{
	if (v >= (1ull << 30) && !(v & ((1ull << 30) - 1)))
		return snprintf(buf, n, "%llu GiB", (unsigned long long)(v >> 30));
	if (v >= (1ull << 20) && !(v & ((1ull << 20) - 1)))
		return snprintf(buf, n, "%llu MiB", (unsigned long long)(v >> 20));
	return snprintf(buf, n, "%llu bytes", (unsigned long long)v);
}

int io_check_input(const char *path, const char *kind, uint64_t limit)
{
	const char *lim = getenv("OPTRACE_INPUT_LIMITS");
	const char *warned = getenv("OPTRACE_INPUT_WARNED");
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	if (!warned || strcmp(warned, "1")) {
		if (link_on_path(path))
			cli_warn("%s: a symbolic link is on its path: it is followed (make sure it names "
			         "the %s you mean)", path, kind);
		if (getuid() != 0) {
			if (st.st_mode & (S_IWGRP | S_IWOTH))
				cli_warn("%s: writable by %s: anyone who can write it can change what is "
				         "read", path, st.st_mode & S_IWOTH ? "others" : "its group");
			if (st.st_uid != 0 && st.st_uid != getuid())
				cli_warn("%s: owned by another user (uid %lu), not by you or root", path,
				         (unsigned long)st.st_uid);
		}
	}
	if (limit && S_ISREG(st.st_mode) && (uint64_t)st.st_size > limit && !(lim && !strcmp(lim, "off"))) {
		char b[32];
		human(b, sizeof b, limit);
		cli_warn("%s: %llu bytes, over the %s limit of a %s (OPTRACE_INPUT_LIMITS=off lifts it)",
		         path, (unsigned long long)st.st_size, b, kind);
		return -1;
	}
	return 0;
}

int io_tree_dir(const char *path)
{
	struct stat st;
	if (mkdir(path, IO_DIR_MODE) == 0)
		return 1;
	if (errno != EEXIST || lstat(path, &st) < 0)
		return -1;
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return -1;
	}
	return 0;
}
