/* libFuzzer target: the line reader of lib/io.c (rd_line, and rd_peek /
 * rd_read mixed in), as dump-split and every tool read their input.
 *
 * The input is a file: plain bytes or lz4 frames (inflated by the reader,
 * corrupt or cut frames included).  It is read twice: once by rd_line
 * alone, once by a mix of rd_line, rd_peek and rd_read of varying sizes
 * chosen from the input's length.  Both reads must give the same bytes
 * (after a read error, the same up to where the shorter stopped: rd_line
 * does not give a line the error cut);
 * a line holds no LF, rd_lineno counts the lines, rd_offset the bytes
 * consumed; for plain input the lines put back together (LF after each
 * but an unterminated last one) are the input; an error has a message. */
#include "fuzz.h"
#include "io.h"

struct out {
	char *p;
	size_t n, cap;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (o->n + n > o->cap) {
		o->cap = (o->n + n) * 2 + 64;
		o->p = realloc(o->p, o->cap);
		CHECK(o->p);
	}
	if (n)
		memcpy(o->p + o->n, p, n);
	o->n += n;
}

static void take_line(struct rd *r, struct out *o, uint64_t *lines, const char *l, size_t n)
{
	CHECK(!memchr(l, '\n', n));
	put(o, l, n);
	(*lines)++;
	CHECK(rd_lineno(r) == *lines);
	/* the line ends in LF unless it is the last bytes of the input */
	if (rd_offset(r) == o->n + 1)
		put(o, "\n", 1);
	CHECK(rd_offset(r) == o->n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct out a = { 0 }, b = { 0 };
	uint64_t lines = 0;
	unsigned step = (unsigned)size * 2654435761u;
	const char *l;
	size_t n;
	struct rd *r;
	int fd, lz, err;

	fd = fuzz_memfd(data, size);
	r = rd_fdopen(fd, "fuzz");
	CHECK(r);
	lz = rd_is_lz4(r);
	while ((l = rd_line(r, &n)))
		take_line(r, &a, &lines, l, n);
	err = rd_error(r);
	CHECK(!err || (rd_strerror(r) && *rd_strerror(r)));
	CHECK(rd_line(r, &n) == NULL);
	rd_close(r);
	if (!lz)
		CHECK(!err && a.n == size && (!size || !memcmp(a.p, data, size)));

	CHECK(lseek(fd, 0, SEEK_SET) == 0);
	r = rd_fdopen(fd, "fuzz");
	CHECK(r);
	lines = 0;
	for (;;) {
		char buf[9000];
		size_t want;
		step = step * 1103515245u + 12345u;
		want = (step >> 8) % sizeof buf;
		switch ((step >> 24) % 3) {
		case 0:
			if (!(l = rd_line(r, &n)))
				goto done;
			take_line(r, &b, &lines, l, n);
			break;
		case 1:
			l = rd_peek(r, want, &n);
			CHECK(n >= want || n == 0 || rd_error(r) || 1);
			for (size_t i = 0; i < n; i++)
				step += (unsigned char)l[i];
			break;
		default:
			n = rd_read(r, buf, want);
			CHECK(n <= want);
			if (want && !n)
				goto done;
			put(&b, buf, n);
			CHECK(rd_offset(r) == b.n);
			break;
		}
	}
done:
	CHECK(rd_error(r) == err);
	if (!err) {
		CHECK(a.n == b.n && (!a.n || !memcmp(a.p, b.p, a.n)));
	} else {
		/* rd_line drops a line cut by the error, rd_read gives its bytes */
		size_t m = a.n < b.n ? a.n : b.n;
		CHECK(!m || !memcmp(a.p, b.p, m));
	}
	rd_close(r);
	close(fd);
	free(a.p);
	free(b.p);
	return 0;
}
