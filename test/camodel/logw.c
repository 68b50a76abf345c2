/* Dump-file writers of the stand-in simulator: big buffers, hand-formatted
 * numbers, spdlog-style rotation (base -> base.1 -> base.2 ..., the newest
 * data always in the un-numbered file). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "camodel.h"

#define WBUF (1u << 20)

HIDDEN uint32_t logw_file_level = 2;
HIDDEN DvcLogCbFnUnion_t logw_cb[6];
HIDDEN uint64_t logw_max_size = 500ull << 20;

static struct wfile *files;

HIDDEN void logw_init(void)
{
	const char *s = getenv("CAMODEL_LOG_FILE_SIZE");
	if (s && *s) {
		char *e;
		unsigned long long v = strtoull(s, &e, 10);
		if (*e == 'k' || *e == 'K') v <<= 10;
		else if (*e == 'm' || *e == 'M') v <<= 20;
		else if (*e == 'g' || *e == 'G') v <<= 30;
		if (v >= 4096) logw_max_size = v;
	}
}

static char *path_of(const struct wfile *f, unsigned idx, char *buf, size_t n)
{
	if (idx) snprintf(buf, n, "%s.%u%s", f->stem, idx, f->ext);
	else snprintf(buf, n, "%s%s", f->stem, f->ext);
	return buf;
}

static void complain(const char *what, const char *path)
{
	static int said;
	if (!said++) fprintf(stderr, "camodel: %s %s: %s\n", what, path, strerror(errno));
}

HIDDEN struct wfile *logw_open(const char *dir, const char *name, const char *ext)
{
	char stem[4096], p[4200];
	snprintf(stem, sizeof stem, "%s/%s", dir, name);
	for (struct wfile *f = files; f; f = f->next)
		if (!strcmp(f->stem, stem) && !strcmp(f->ext, ext)) return f;
	struct wfile *f = calloc(1, sizeof *f);
	if (!f) return NULL;
	f->stem = strdup(stem);
	f->ext = ext;
	f->buf = malloc(WBUF);
	f->rotate = 1;
	if (!f->stem || !f->buf) { free(f->stem); free(f->buf); free(f); return NULL; }
	/* a fresh set: old rotated parts of an earlier run would be read as ours */
	for (unsigned i = 1;; i++) {
		if (unlink(path_of(f, i, p, sizeof p)) != 0) break;
	}
	f->fd = open(path_of(f, 0, p, sizeof p), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0640);
	if (f->fd < 0) complain("cannot create", p);
	f->next = files;
	files = f;
	return f;
}

HIDDEN struct wfile *logw_tmp(const char *dir)
{
	struct wfile *f = calloc(1, sizeof *f);
	if (!f) return NULL;
	f->buf = malloc(WBUF);
	f->fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
	if (f->fd < 0) {
		FILE *t = tmpfile();
		f->fd = t ? dup(fileno(t)) : -1;
		if (t) fclose(t);
	}
	if (!f->buf || f->fd < 0) {
		if (f->fd >= 0) close(f->fd);
		free(f->buf);
		free(f);
		return NULL;
	}
	return f;
}

HIDDEN void logw_free_tmp(struct wfile *f)
{
	if (!f) return;
	if (f->fd >= 0) close(f->fd);
	free(f->buf);
	free(f);
}

HIDDEN int logw_flush(struct wfile *f)
{
	size_t off = 0;
	while (off < f->used) {
		ssize_t n = f->fd >= 0 ? write(f->fd, f->buf + off, f->used - off) : -1;
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) {
			char p[4200];
			if (f->stem) complain("cannot write", path_of(f, 0, p, sizeof p));
			f->used = 0;
			return -1;
		}
		off += (size_t)n;
	}
	f->written += f->used;
	f->used = 0;
	return 0;
}

HIDDEN int logw_flush_all(void)
{
	int rc = 0;
	for (struct wfile *f = files; f; f = f->next)
		if (logw_flush(f)) rc = -1;
	return rc;
}

HIDDEN void logw_resync(void)
{
	for (struct wfile *f = files; f; f = f->next) {
		struct stat st;
		if (f->fd >= 0 && fstat(f->fd, &st) == 0) f->written = (uint64_t)st.st_size;
	}
}

static void rotate(struct wfile *f)
{
	char a[4200], b[4200];
	struct stat st;
	logw_flush(f);
	if (f->fd >= 0) close(f->fd);
	unsigned k = 1;
	while (stat(path_of(f, k, a, sizeof a), &st) == 0) k++;
	for (unsigned i = k; i > 1; i--)
		rename(path_of(f, i - 1, a, sizeof a), path_of(f, i, b, sizeof b));
	rename(path_of(f, 0, a, sizeof a), path_of(f, 1, b, sizeof b));
	f->fd = open(path_of(f, 0, a, sizeof a), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0640);
	if (f->fd < 0) complain("cannot create", a);
	f->written = 0;
}

HIDDEN char *logw_begin(struct wfile *f, size_t max)
{
	if (f->rotate && f->written + f->used > 0 && f->written + f->used + max > logw_max_size)
		rotate(f);
	if (f->used + max > WBUF) logw_flush(f);
	return f->buf + f->used;
}

HIDDEN void logw_end(struct wfile *f, char *end)
{
	f->used = (size_t)(end - f->buf);
}

/* ---- numbers ---- */

HIDDEN char *fmt_u(char *p, uint64_t v)
{
	char t[24];
	int n = 0;
	do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
	while (n) *p++ = t[--n];
	return p;
}

HIDDEN char *fmt_u0(char *p, uint64_t v, int width)
{
	char t[24];
	int n = 0;
	do { t[n++] = (char)('0' + v % 10); v /= 10; } while (v);
	while (n < width) t[n++] = '0';
	while (n) *p++ = t[--n];
	return p;
}

HIDDEN char *fmt_x(char *p, uint64_t v)
{
	static const char hx[] = "0123456789abcdef";
	char t[20];
	int n = 0;
	do { t[n++] = hx[v & 15]; v >>= 4; } while (v);
	while (n) *p++ = t[--n];
	return p;
}

HIDDEN char *fmt_x0(char *p, uint64_t v, int width)
{
	static const char hx[] = "0123456789abcdef";
	char t[20];
	int n = 0;
	do { t[n++] = hx[v & 15]; v >>= 4; } while (v);
	while (n < width) t[n++] = '0';
	while (n) *p++ = t[--n];
	return p;
}

HIDDEN char *fmt_s(char *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);
	return p + n;
}
