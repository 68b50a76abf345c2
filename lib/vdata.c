#include "vdata.h"

#include "io.h"
#include "scan.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>


static const char *const type_names[16] = {
	[VDATA_CODE] = "CODE",
	[VDATA_TRACE] = "TRACE",
	[VDATA_FILE_API] = "FILE_API",
	[VDATA_INSTR_API] = "INSTR_API",
	[VDATA_OP_BASIC_INFO] = "OP_BASIC_INFO",
	[VDATA_COMPUTE_LOAD_FIGURE] = "COMPUTE_LOAD_FIGURE",
	[VDATA_COMPUTE_LOAD_TABLE] = "COMPUTE_LOAD_TABLE",
	[VDATA_STORAGE_FIGURE] = "STORAGE_FIGURE",
	[VDATA_STORAGE_TABLE] = "STORAGE_TABLE",
	[VDATA_OCCUPANCY] = "OCCUPANCY",
	[VDATA_ROOFLINE] = "ROOFLINE",
	[VDATA_CACHELINE_HEATMAP] = "CACHELINE_HEATMAP",
	[VDATA_STALL_REASON] = "STALL_REASON",
};

const char *vdata_type_name(int type)
{
	if (type < 0 || type >= (int)(sizeof type_names / sizeof type_names[0]))
		return NULL;
	return type_names[type];
}

int vdata_type_parse(const char *s)
{
	/* The names MindStudio Insight's own sources use. */
	static const struct { const char *name; int type; } alias[] = {
		{ "SOURCE", VDATA_CODE }, { "API_FILE", VDATA_FILE_API },
		{ "API_INSTR", VDATA_INSTR_API },
	};
	unsigned long v = 0;
	const char *p = s;
	int base = 10, i;

	if (!s || !*s)
		return -1;
	for (i = 0; i < 16; i++)
		if (type_names[i] && !strcasecmp(s, type_names[i]))
			return i;
	for (i = 0; i < (int)(sizeof alias / sizeof alias[0]); i++)
		if (!strcasecmp(s, alias[i].name))
			return alias[i].type;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && p[2]) {
		base = 16;
		p += 2;
	}
	for (; *p; p++) {
		int d = hexval((unsigned char)*p);
		if (d < 0 || d >= base)
			return -1;
		v = v * (unsigned long)base + (unsigned long)d;
		if (v > 255)
			return -1;
	}
	return (int)v;
}

/* ---- writing ---- */

struct vdata_w {
	struct wr *w;
	int err;        /* sticky: a block was cut short, the file is unusable */
	int blocks;
	/* the block being streamed (vdata_stream_begin) */
	int streaming, stream_type, stream_version;
	uint64_t stream_off;    /* of its header */
};

struct vdata_w *vdata_open(const char *path)
{
	struct vdata_w *v = calloc(1, sizeof *v);
	if (!v)
		return NULL;
	v->w = wr_open(path, 0);
	if (!v->w) {
		int e = errno;
		free(v);
		errno = e;
		return NULL;
	}
	return v;
}

static int check_args(const struct vdata_w *v, int type, int version, const char *code_path)
{
	if (!v)
		return EINVAL;
	if (v->err)
		return v->err;
	if (v->streaming)
		return EINVAL;  /* a streamed block is not finished */
	if (type < 0 || type > 255 || version < 0 || version > 255)
		return EINVAL;
	if (!v->blocks && version != VDATA_VERSION)
		return EINVAL;   /* Insight would not recognise the file */
	if (type == VDATA_CODE) {
		if (!code_path)
			return EINVAL;
		if (strlen(code_path) >= VDATA_PATH_SIZE)
			return ENAMETOOLONG;
	}
	return 0;
}

static void fill_header(unsigned char *h, int type, int version, uint64_t n)
{
	unsigned pad = (unsigned)((4 - n % 4) % 4);
	uint64_t content = n + pad;
	int i;

	for (i = 0; i < 8; i++)
		h[i] = (unsigned char)(content >> (8 * i));
	h[8] = (unsigned char)type;
	h[9] = (unsigned char)pad;
	h[10] = (unsigned char)version;
	h[11] = VDATA_RESERVED;
}

static void put_header(struct vdata_w *v, int type, int version, const char *code_path, uint64_t n)
{
	unsigned char h[VDATA_HEADER_SIZE];

	fill_header(h, type, version, n);
	wr_put(v->w, h, sizeof h);
	if (type == VDATA_CODE) {
		char *p = wr_reserve(v->w, VDATA_PATH_SIZE);
		size_t len = strlen(code_path);
		memcpy(p, code_path, len);
		memset(p + len, 0, VDATA_PATH_SIZE - len);
		wr_commit(v->w, VDATA_PATH_SIZE);
	}
}

static int put_padding(struct vdata_w *v, uint64_t n)
{
	static const char zeros[4];
	wr_put(v->w, zeros, (size_t)((4 - n % 4) % 4));
	v->blocks++;
	if (wr_error(v->w))
		v->err = wr_error(v->w);
	return v->err;
}

int vdata_block(struct vdata_w *v, int type, int version, const char *code_path,
                const void *payload, size_t n)
{
	int e = check_args(v, type, version, code_path);
	if (e)
		return e;
	if (!n)
		return 0;
	if (!payload)
		return EINVAL;
	put_header(v, type, version, code_path, n);
	wr_put(v->w, payload, n);
	return put_padding(v, n);
}

int vdata_block_from_fd(struct vdata_w *v, int type, int version, int fd)
{
	struct stat st;
	uint64_t size;
	int e = check_args(v, type, version, "");

	if (e)
		return e;
	if (type == VDATA_CODE)
		return EINVAL;
	if (fstat(fd, &st) < 0)
		return errno;
	if (!S_ISREG(st.st_mode))
		return EINVAL;
	size = (uint64_t)st.st_size;
	if (!size)
		return 0;
	put_header(v, type, version, NULL, size);
	/* The header has promised size bytes: from here on any failure leaves
	 * a block that cannot be completed, so it poisons the writer.  The
	 * bytes go file to file in the kernel where they can (a trace.json of
	 * a gigabyte is not read into this process and written out again). */
	if ((e = wr_copy_from(v->w, fd, 0, size))) {
		v->err = e;
		return v->err;
	}
	return put_padding(v, size);
}

struct wr *vdata_stream_begin(struct vdata_w *v, int type, int version)
{
	int e = check_args(v, type, version, "");

	if (!e && type == VDATA_CODE)
		e = EINVAL;
	if (e) {
		errno = e;
		return NULL;
	}
	v->streaming = 1;
	v->stream_type = type;
	v->stream_version = version;
	v->stream_off = wr_tell(v->w);
	{
		unsigned char h[VDATA_HEADER_SIZE];
		fill_header(h, type, version, 0);      /* the size comes at the end */
		wr_put(v->w, h, sizeof h);
	}
	return v->w;
}

int vdata_stream_end(struct vdata_w *v, uint64_t n)
{
	unsigned char h[VDATA_HEADER_SIZE];

	if (!v || !v->streaming)
		return EINVAL;
	v->streaming = 0;
	if (v->err)
		return v->err;
	if (wr_error(v->w))
		return v->err = wr_error(v->w);
	if (!n)
		return v->err = EINVAL;
	if (wr_tell(v->w) != v->stream_off + VDATA_HEADER_SIZE + n)
		return v->err = EIO;
	fill_header(h, v->stream_type, v->stream_version, n);
	if ((v->err = wr_patch(v->w, v->stream_off, h, sizeof h)))
		return v->err;
	return put_padding(v, n);
}

int vdata_close(struct vdata_w *v)
{
	int e;
	if (!v)
		return EINVAL;
	if (v->streaming && !v->err)
		v->err = EIO;   /* a streamed block never finished */
	if (v->err) {
		/* wr_close would rename a file with a cut-short block into place. */
		e = v->err;
		wr_abort(v->w);
	} else {
		e = wr_close(v->w);
	}
	free(v);
	return e;
}

void vdata_abort(struct vdata_w *v)
{
	if (!v)
		return;
	wr_abort(v->w);
	free(v);
}

/* ---- reading ---- */

struct vdata_r {
	int fd;
	int own_fd;
	uint64_t size;          /* of the file, fixed at open */
	uint64_t next;          /* offset of the next block header */
	uint64_t pos, end;      /* unread payload of the current block */
	int failed;
	char msg[200];          /* the error, repeated by later calls */
	char path[VDATA_PATH_SIZE];
};

static void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

struct vdata_r *vdata_ropen(const char *path, char *err, size_t errlen)
{
	struct vdata_r *r;
	struct stat st;
	int fd, own = 0, e;

	if (!path || !strcmp(path, "-")) {
		fd = 0;
	} else {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			e = errno;
			set_err(err, errlen, "cannot open: %s", strerror(e));
			errno = e;
			return NULL;
		}
		own = 1;
	}
	/* Block sizes are checked against the file size: a pipe has none. */
	if (fstat(fd, &st) < 0)
		e = errno;
	else if (S_ISDIR(st.st_mode))
		e = EISDIR;
	else if (!S_ISREG(st.st_mode))
		e = ESPIPE;
	else
		e = 0;
	if (e) {
		if (e == ESPIPE)
			set_err(err, errlen, "not a regular file");
		else
			set_err(err, errlen, "cannot open: %s", strerror(e));
		if (own)
			close(fd);
		errno = e;
		return NULL;
	}
	r = calloc(1, sizeof *r);
	if (!r) {
		set_err(err, errlen, "%s", strerror(ENOMEM));
		if (own)
			close(fd);
		errno = ENOMEM;
		return NULL;
	}
	r->fd = fd;
	r->own_fd = own;
	r->size = (uint64_t)st.st_size;
	return r;
}

static int fail(struct vdata_r *r, int e, char *err, size_t errlen, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));
static int fail(struct vdata_r *r, int e, char *err, size_t errlen, uint64_t at, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->msg, sizeof r->msg, "offset %llu: ", (unsigned long long)at);
	va_start(ap, fmt);
	vsnprintf(r->msg + n, sizeof r->msg - (size_t)n, fmt, ap);
	va_end(ap);
	r->failed = e;
	r->pos = r->end = 0;
	set_err(err, errlen, "%s", r->msg);
	errno = e;
	return -1;
}

int vdata_next(struct vdata_r *r, struct vdata_blk *out, char *err, size_t errlen)
{
	unsigned char h[VDATA_HEADER_SIZE], pad[3];
	uint64_t at, left, content, body;
	unsigned type, npad, i;
	ssize_t k;

	if (r->failed) {
		set_err(err, errlen, "%s", r->msg);
		errno = r->failed;
		return -1;
	}
	r->pos = r->end = 0;
	at = r->next;
	if (at >= r->size)
		return 0;
	/* Sizes are checked against the size at open: bytes appended since
	 * are not part of the container. */
	left = r->size - at;
	if (left < VDATA_HEADER_SIZE)
		return fail(r, EBADMSG, err, errlen, at, "truncated block header (%llu of %d bytes)",
		            (unsigned long long)left, VDATA_HEADER_SIZE);
	k = io_pread_full(r->fd, h, sizeof h, at);
	if (k < 0)
		return fail(r, errno, err, errlen, at, "read error: %s", strerror(errno));
	if ((size_t)k < sizeof h)
		return fail(r, EIO, err, errlen, at + (uint64_t)k, "file cut short while reading");
	content = 0;
	for (i = 0; i < 8; i++)
		content |= (uint64_t)h[i] << (8 * i);
	type = h[8];
	npad = h[9];
	/* The reserved byte is the format's only magic: check it first, since
	 * a wrong one means the rest of the header is not a header. */
	if (h[11] != VDATA_RESERVED)
		return fail(r, EBADMSG, err, errlen, at + 11, "reserved byte is 0x%02X, not 0x5A", h[11]);
	if (npad > 3)
		return fail(r, EBADMSG, err, errlen, at + 9, "padding %u > 3", npad);
	if (npad > content)
		return fail(r, EBADMSG, err, errlen, at + 9, "padding %u > content size %llu",
		            npad, (unsigned long long)content);
	left -= VDATA_HEADER_SIZE;
	body = at + VDATA_HEADER_SIZE;
	if (type == VDATA_CODE) {
		char *nul;
		if (left < VDATA_PATH_SIZE)
			return fail(r, EBADMSG, err, errlen, body, "truncated source path (%llu of %d bytes)",
			            (unsigned long long)left, VDATA_PATH_SIZE);
		k = io_pread_full(r->fd, r->path, VDATA_PATH_SIZE, body);
		if (k < 0)
			return fail(r, errno, err, errlen, body, "read error: %s", strerror(errno));
		if (k < VDATA_PATH_SIZE)
			return fail(r, EIO, err, errlen, body + (uint64_t)k, "file cut short while reading");
		nul = memchr(r->path, 0, VDATA_PATH_SIZE);
		if (!nul)
			return fail(r, EBADMSG, err, errlen, body, "source path has no NUL terminator");
		left -= VDATA_PATH_SIZE;
		body += VDATA_PATH_SIZE;
	}
	if (content > left)
		return fail(r, EBADMSG, err, errlen, at,
		            "content size %llu runs past the end of the file (%llu bytes left)",
		            (unsigned long long)content, (unsigned long long)left);
	/* Insight rejects the whole file over an empty non-CODE block. */
	if (content == npad && type != VDATA_CODE)
		return fail(r, EBADMSG, err, errlen, at, "empty payload (MindStudio Insight rejects the file)");
	if (npad) {
		uint64_t p0 = body + content - npad;
		k = io_pread_full(r->fd, pad, npad, p0);
		if (k < 0)
			return fail(r, errno, err, errlen, p0, "read error: %s", strerror(errno));
		if ((size_t)k < npad)
			return fail(r, EIO, err, errlen, p0 + (uint64_t)k, "file cut short while reading");
		for (i = 0; i < npad; i++)
			if (pad[i])
				return fail(r, EBADMSG, err, errlen, p0 + i, "padding byte is 0x%02X, not NUL", pad[i]);
	}
	out->type = (int)type;
	out->version = h[10];
	out->padding = (int)npad;
	out->content_size = content;
	out->payload_size = content - npad;
	out->offset = at;
	out->payload_offset = body;
	out->code_path = type == VDATA_CODE ? r->path : NULL;
	r->pos = body;
	r->end = body + out->payload_size;
	r->next = body + content;
	return 1;
}

ssize_t vdata_read(struct vdata_r *r, void *buf, size_t n)
{
	ssize_t k;
	if (r->end - r->pos < n)
		n = (size_t)(r->end - r->pos);
	if (!n)
		return 0;
	do
		k = pread(r->fd, buf, n, (off_t)r->pos);
	while (k < 0 && errno == EINTR);
	if (k < 0)
		return -1;
	if (!k) {
		errno = EIO;   /* shrank since vdata_next checked its size */
		return -1;
	}
	r->pos += (uint64_t)k;
	return k;
}

void vdata_rclose(struct vdata_r *r)
{
	if (!r)
		return;
	if (r->own_fd)
		close(r->fd);
	free(r);
}
