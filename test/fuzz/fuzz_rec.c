/* libFuzzer target for the record decoders (lib/rec.c).  See README.
 *
 * The input is cut into lines at LF, like rd_line does; each line, in a heap
 * block of exactly its length, goes to rec_decode (binary or JSON, chosen by
 * its first byte).  Then:
 *   - DEC_BAD must come with a reason; DEC_UNKNOWN only for kinds that this
 *     build does not know;
 *   - a decoded record re-encoded in binary is one line with one LF, decodes
 *     to the same fields, and, when the input was binary, gives back exactly
 *     the input bytes (the binary form is canonical);
 *   - the same record written as JSON (rec_put into a struct wr) is one line
 *     without control bytes and decodes to the same fields;
 *   - written as readable text it is one line without control bytes.
 * Any violation calls abort(), which libFuzzer reports as a crash. */
#include "rec.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int out_fd = -1;

static void fail(const char *what, const char *line, size_t len)
{
	size_t i;
	fprintf(stderr, "fuzz_rec: %s\nline (%zu bytes):", what, len);
	for (i = 0; i < len && i < 400; i++)
		fprintf(stderr, " %02x", (unsigned char)line[i]);
	fputc('\n', stderr);
	abort();
}

/* A record whose text lives in its own heap blocks. */
struct own {
	struct rec r;
	char *t[REC_MAXSTR];
};

static void own_copy(struct own *o, const struct rec *r)
{
	int i;
	o->r = *r;
	for (i = 0; i < REC_MAXSTR; i++)
		o->t[i] = NULL;
	for (i = 0; i < r->sc->nstr; i++) {
		o->t[i] = malloc(r->s[i].n ? r->s[i].n : 1);
		if (!o->t[i])
			abort();
		if (r->s[i].n)
			memcpy(o->t[i], r->s[i].p, r->s[i].n);
		o->r.s[i].p = o->t[i];
	}
}

static void own_free(struct own *o)
{
	int i;
	for (i = 0; i < REC_MAXSTR; i++)
		free(o->t[i]);
}

static int is4(enum rec_type t) { return t == RT_U32 || t == RT_I32 || t == RT_SUB || t == RT_LOG; }

/* 1 when b has the same fields as a. */
static int same(const struct rec *a, const struct rec *b)
{
	int i;
	if (a->sc != b->sc)
		return 0;
	for (i = 0; i < a->sc->nnum; i++) {
		uint64_t x = a->n[i].u, y = b->n[i].u;
		enum rec_type t = a->sc->num[i].type;
		if (is4(t) && t != RT_I32) {
			x &= 0xffffffffu;
			y &= 0xffffffffu;
		}
		if (t == RT_I32) {
			x = (uint64_t)(int64_t)(int32_t)(uint32_t)x;
			y = (uint64_t)(int64_t)(int32_t)(uint32_t)y;
		}
		if (x != y)
			return 0;
	}
	for (i = 0; i < a->sc->nstr; i++)
		if (a->s[i].n != b->s[i].n || (a->s[i].n && memcmp(a->s[i].p, b->s[i].p, a->s[i].n)))
			return 0;
	return 1;
}

/* rec_put into the scratch file; returns its bytes (malloc'd). */
static char *put(const struct rec *r, enum rec_mode mode, size_t *n)
{
	struct wr *w;
	char *b;
	ssize_t k;
	off_t end;

	if (out_fd < 0) {
		out_fd = io_tmpfd();
		if (out_fd < 0)
			abort();
	}
	if (ftruncate(out_fd, 0) || lseek(out_fd, 0, SEEK_SET))
		abort();
	w = wr_fdopen_buf(out_fd, "fuzz", 0, 4096);
	if (!w)
		abort();
	rec_put(w, mode, r);
	if (wr_close(w))
		abort();
	end = lseek(out_fd, 0, SEEK_END);
	if (end < 0)
		abort();
	*n = (size_t)end;
	b = malloc(*n ? *n : 1);
	if (!b)
		abort();
	k = pread(out_fd, b, *n, 0);
	if (k < 0 || (size_t)k != *n)
		abort();
	return b;
}

static int one_line_clean(const char *b, size_t n, int allow_ctl)
{
	size_t i;
	if (n == 0 || b[n - 1] != '\n')
		return 0;
	for (i = 0; i + 1 < n; i++) {
		if (b[i] == '\n')
			return 0;
		if (!allow_ctl && (unsigned char)b[i] < 0x20)
			return 0;
	}
	return 1;
}

static void one(const char *line, size_t len)
{
	static struct rec_dec d1, d2;
	struct rec r, back;
	struct own o;
	const char *why = NULL;
	int rc = rec_decode(&d1, line, len, &r, &why);
	/* Binary records start with their kind letter, JSON ones never do. */
	int from_bin = len && rec_schema((unsigned char)line[0]) != NULL;
	char *b;
	size_t n;

	if (rc == DEC_BAD) {
		if (!why || !*why)
			fail("DEC_BAD without a reason", line, len);
		return;
	}
	if (rc == DEC_UNKNOWN) {
		if (from_bin)
			fail("DEC_UNKNOWN for a known kind letter", line, len);
		return;
	}
	if (rc != DEC_OK)
		fail("rec_decode returned something else", line, len);
	own_copy(&o, &r);

	/* Binary. */
	{
		size_t cap = rec_bin_size(&o.r);
		b = malloc(cap);
		if (!b)
			abort();
		n = rec_bin_encode(b, &o.r);
		if (n > cap)
			fail("rec_bin_encode wrote more than rec_bin_size", line, len);
		if (!one_line_clean(b, n, 1))
			fail("binary record is not exactly one LF-terminated line", line, len);
		if (from_bin && (n != len + 1 || memcmp(b, line, len)))
			fail("binary record decodes but re-encodes to other bytes", line, len);
		{
			char *l = malloc(n - 1);
			if (!l)
				abort();
			memcpy(l, b, n - 1);
			if (rec_decode(&d2, l, n - 1, &back, &why) != DEC_OK)
				fail("re-encoded binary record does not decode", line, len);
			if (!same(&o.r, &back))
				fail("binary round trip changes a field", line, len);
			free(l);
		}
		free(b);
	}

	/* JSON, written by rec_put and read back. */
	b = put(&o.r, REC_JSON, &n);
	if (!one_line_clean(b, n, 0))
		fail("JSON record is not one line without control bytes", line, len);
	{
		char *l = malloc(n - 1);
		if (!l)
			abort();
		memcpy(l, b, n - 1);
		rc = rec_decode(&d2, l, n - 1, &back, &why);
		if (rc != DEC_OK) {
			fprintf(stderr, "fuzz_rec: %s\n", why ? why : "?");
			fail("JSON written by rec_put does not decode", line, len);
		}
		if (!same(&o.r, &back))
			fail("JSON round trip changes a field", line, len);
		free(l);
	}
	free(b);

	/* Readable text. */
	b = put(&o.r, REC_TEXT, &n);
	if (!one_line_clean(b, n, 0))
		fail("text mode output is not one line without control bytes", line, len);
	free(b);
	own_free(&o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size;
	int lines = 0;
	while (p < end && lines++ < 64) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char *l = malloc(len ? len : 1);
		if (!l)
			abort();
		if (len)
			memcpy(l, p, len);
		one(l, len);
		free(l);
		p += len + (nl ? 1 : 0);
	}
	return 0;
}
