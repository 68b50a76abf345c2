/* Unit tests of the visualize_data.bin container (lib/vdata.c).
 *
 *   make build/liboptrace.a
 *   gcc -std=c11 -D_GNU_SOURCE -Ilib -Wall -Wextra -Werror -g \
 *       -fsanitize=address,undefined -o /tmp/test_vdata test/unit/test_vdata.c \
 *       build/liboptrace.a -llz4 -lm && /tmp/test_vdata
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0 only
 * when nothing failed.  Works in a private directory under $TMPDIR (or /tmp)
 * that it removes at the end (it holds one 20 MB file at a time). */
#include "vdata.h"
#include "io.h"
#include "mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

static void remove_all(void)
{
	DIR *dp = opendir(unit_dir);
	struct dirent *e;
	if (!dp)
		return;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlink(unit_path(e->d_name));
	closedir(dp);
}

static uint64_t rd_u64(const unsigned char *p)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static void wr_u64(unsigned char *p, uint64_t v)
{
	int i;
	for (i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* ---- names ---- */

static void test_names(void)
{
	CHECK_MSG(!strcmp(vdata_type_name(VDATA_CODE), "CODE"), "name of 1");
	CHECK_MSG(!strcmp(vdata_type_name(VDATA_INSTR_API), "INSTR_API"), "name of 4");
	CHECK_MSG(!strcmp(vdata_type_name(VDATA_STALL_REASON), "STALL_REASON"), "name of 15");
	CHECK_MSG(vdata_type_name(0) == NULL && vdata_type_name(0xA) == NULL && vdata_type_name(16) == NULL
		  && vdata_type_name(-1) == NULL, "types without a name");
	CHECK_MSG(vdata_type_parse("TRACE") == 2 && vdata_type_parse("trace") == 2, "parse TRACE");
	CHECK_MSG(vdata_type_parse("api_instr") == 4 && vdata_type_parse("SOURCE") == 1
		  && vdata_type_parse("API_FILE") == 3, "parse Insight aliases");
	CHECK_MSG(vdata_type_parse("4") == 4 && vdata_type_parse("0x0e") == 14 && vdata_type_parse("255") == 255
		  && vdata_type_parse("0") == 0, "parse numbers");
	CHECK_MSG(vdata_type_parse("256") == -1 && vdata_type_parse("0x") == -1 && vdata_type_parse("") == -1
		  && vdata_type_parse("TRACEX") == -1 && vdata_type_parse("-1") == -1 && vdata_type_parse(NULL) == -1,
		  "parse rejects junk");
}

/* ---- byte layout ---- */

static void test_layout_padding(void)
{
	size_t n;
	for (n = 0; n <= 8; n++) {
		const char *p = unit_path("pad.bin");
		char payload[8];
		struct vdata_w *w = vdata_open(p);
		size_t len, pad = (4 - n % 4) % 4, i;
		unsigned char *b;
		int rc;

		for (i = 0; i < n; i++)
			payload[i] = (char)('a' + i);
		CHECK_MSG(w != NULL, "open for n=%zu: %s", n, strerror(errno));
		if (!w)
			return;
		rc = vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, payload, n);
		CHECK_MSG(rc == 0, "block n=%zu: %d", n, rc);
		CHECK_MSG(vdata_close(w) == 0, "close n=%zu", n);
		b = unit_read_file(p, &len);
		if (n == 0) {
			CHECK_MSG(b && len == 0, "empty payload writes nothing (%zu bytes)", len);
			free(b);
			continue;
		}
		CHECK_MSG(b && len == 12 + n + pad, "n=%zu: file is %zu bytes, want %zu", n, len, 12 + n + pad);
		if (!b || len != 12 + n + pad) {
			free(b);
			continue;
		}
		CHECK_MSG(rd_u64(b) == n + pad, "n=%zu: contentSize %llu", n, (unsigned long long)rd_u64(b));
		CHECK_MSG(b[8] == 2 && b[9] == pad && b[10] == 0x5A && b[11] == 0x5A,
			  "n=%zu: header bytes %02x %02x %02x %02x", n, b[8], b[9], b[10], b[11]);
		CHECK_MSG(!memcmp(b + 12, payload, n), "n=%zu: payload bytes", n);
		for (i = 0; i < pad; i++)
			CHECK_MSG(b[12 + n + i] == 0, "n=%zu: padding byte %zu is %02x", n, i, b[12 + n + i]);
		free(b);
	}
}

static void test_layout_blocks(void)
{
	const char *p = unit_path("layout.bin");
	static const char src[] = "int main() { return 0; }\n";   /* 25 bytes, padding 3 */
	char longpath[VDATA_PATH_SIZE + 1];
	struct vdata_w *w = vdata_open(p);
	unsigned char *b;
	size_t len, at, i;
	int ok;

	if (!w) {
		CHECK_MSG(0, "open: %s", strerror(errno));
		return;
	}
	/* Insight identifies the file by bytes 10-11 of the first block. */
	CHECK_MSG(vdata_block(w, VDATA_INSTR_API, 0, NULL, "{}", 2) == EINVAL, "first block with version 0 refused");
	CHECK_MSG(vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, "{\"a\":1}", 7) == 0, "TRACE block");
	CHECK_MSG(vdata_block(w, VDATA_CODE, VDATA_VERSION, NULL, src, sizeof src - 1) == EINVAL, "CODE without path");
	memset(longpath, 'p', VDATA_PATH_SIZE);
	longpath[VDATA_PATH_SIZE] = 0;
	CHECK_MSG(vdata_block(w, VDATA_CODE, VDATA_VERSION, longpath, src, sizeof src - 1) == ENAMETOOLONG,
		  "CODE path of 4096 bytes refused");
	CHECK_MSG(vdata_block(w, VDATA_TRACE, 256, NULL, "x", 1) == EINVAL, "version 256 refused");
	CHECK_MSG(vdata_block(w, 300, VDATA_VERSION, NULL, "x", 1) == EINVAL, "type 300 refused");
	CHECK_MSG(vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, NULL, 3) == EINVAL, "NULL payload refused");
	CHECK_MSG(vdata_block(w, VDATA_CODE, VDATA_VERSION, "/src/k.cpp", src, sizeof src - 1) == 0, "CODE block");
	longpath[VDATA_PATH_SIZE - 1] = 0;   /* 4095 bytes + NUL: just fits */
	CHECK_MSG(vdata_block(w, VDATA_CODE, VDATA_VERSION, longpath, "abcd", 4) == 0, "CODE with 4095-byte path");
	CHECK_MSG(vdata_block(w, VDATA_FILE_API, VDATA_VERSION, NULL, "", 0) == 0, "empty FILE_API skipped");
	CHECK_MSG(vdata_block(w, VDATA_CODE, VDATA_VERSION, "/src/empty.h", "", 0) == 0, "empty CODE skipped");
	CHECK_MSG(vdata_block(w, VDATA_INSTR_API, VDATA_VERSION_INSTR_API, NULL, "[1]", 3) == 0, "INSTR_API block");
	CHECK_MSG(vdata_close(w) == 0, "close");

	b = unit_read_file(p, &len);
	if (!b) {
		CHECK_MSG(0, "no file");
		return;
	}
	/* TRACE: 12 + 7 + 1 */
	CHECK_MSG(len == 20 + (12 + 4096 + 28) + (12 + 4096 + 4) + (12 + 4), "file size %zu", len);
	if (len != 20 + (12 + 4096 + 28) + (12 + 4096 + 4) + (12 + 4)) {
		free(b);
		return;
	}
	CHECK_MSG(rd_u64(b) == 8 && b[8] == 2 && b[9] == 1 && b[10] == 0x5A && b[11] == 0x5A && b[19] == 0,
		  "TRACE header");
	at = 20;
	CHECK_MSG(rd_u64(b + at) == 28, "CODE contentSize %llu excludes the path", (unsigned long long)rd_u64(b + at));
	CHECK_MSG(b[at + 8] == 1 && b[at + 9] == 3 && b[at + 10] == 0x5A && b[at + 11] == 0x5A, "CODE header bytes");
	CHECK_MSG(!memcmp(b + at + 12, "/src/k.cpp", 10), "CODE path");
	for (ok = 1, i = 10; i < VDATA_PATH_SIZE; i++)
		ok &= b[at + 12 + i] == 0;
	CHECK_MSG(ok, "CODE path field NUL-padded to 4096 bytes");
	CHECK_MSG(!memcmp(b + at + 12 + 4096, src, 25), "CODE text");
	CHECK_MSG(!b[at + 4108 + 25] && !b[at + 4108 + 26] && !b[at + 4108 + 27], "CODE padding");
	at += 12 + 4096 + 28;
	CHECK_MSG(rd_u64(b + at) == 4 && b[at + 9] == 0, "second CODE header");
	for (ok = 1, i = 0; i < VDATA_PATH_SIZE - 1; i++)
		ok &= b[at + 12 + i] == 'p';
	CHECK_MSG(ok && b[at + 12 + 4095] == 0, "4095-byte path stored with its NUL");
	at += 12 + 4096 + 4;
	CHECK_MSG(rd_u64(b + at) == 4 && b[at + 8] == 4 && b[at + 9] == 1 && b[at + 10] == 0 && b[at + 11] == 0x5A,
		  "INSTR_API header has version 0");
	CHECK_MSG(!memcmp(b + at + 12, "[1]", 4), "INSTR_API payload and padding");
	free(b);
}

/* ---- round trip ---- */

#define BIG ((size_t)20 * 1000 * 1000 + 3)

static void fill_big(char *p, size_t n)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	size_t i;
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (char)(x >> 24);
	}
}

/* Read the current payload in pieces of `piece` bytes and compare. */
static int read_back(struct vdata_r *r, const char *want, size_t n, size_t piece)
{
	char *buf = xmalloc(piece);
	size_t got = 0;
	ssize_t k;
	int same = 1;
	while ((k = vdata_read(r, buf, piece)) > 0) {
		if (got + (size_t)k > n || memcmp(buf, want + got, (size_t)k))
			same = 0;
		got += (size_t)k;
		if (got > n)
			break;
	}
	free(buf);
	return same && k == 0 && got == n;
}

static void test_round_trip(void)
{
	const char *p = unit_path("rt.bin"), *src = unit_path("trace.json");
	char *big = xmalloc(BIG), err[256], one;
	struct vdata_w *w;
	struct vdata_r *r;
	struct vdata_blk blk;
	int fd, rc;
	uint64_t expect_off;

	fill_big(big, BIG);
	/* The fd's position is at the end after writing: the payload must
	 * still be taken from offset 0. */
	fd = open(src, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, big, BIG) != (ssize_t)BIG) {
		perror(src);
		exit(2);
	}
	w = vdata_open(p);
	CHECK_MSG(w != NULL, "open");
	if (!w) {
		close(fd);
		free(big);
		return;
	}
	rc = vdata_block_from_fd(w, VDATA_TRACE, VDATA_VERSION, fd);
	CHECK_MSG(rc == 0, "TRACE from fd: %s", strerror(rc));
	CHECK_MSG(vdata_block(w, VDATA_CODE, VDATA_VERSION, "/a.cpp", "A\n", 2) == 0, "CODE a");
	CHECK_MSG(vdata_block(w, VDATA_CODE, VDATA_VERSION, "/b.cpp", "BBBB\n", 5) == 0, "CODE b");
	CHECK_MSG(vdata_block(w, VDATA_FILE_API, VDATA_VERSION, NULL, "{\"Files\":[]}", 12) == 0, "FILE_API");
	CHECK_MSG(vdata_block(w, VDATA_INSTR_API, 0, NULL, big, 1000001) == 0, "INSTR_API");
	CHECK_MSG(vdata_block(w, 0x20, 7, NULL, "x", 1) == 0, "unnamed type 0x20");
	CHECK_MSG(vdata_close(w) == 0, "close");
	close(fd);
	unlink(src);

	r = vdata_ropen(p, err, sizeof err);
	CHECK_MSG(r != NULL, "ropen: %s", err);
	if (!r) {
		free(big);
		return;
	}
	rc = vdata_next(r, &blk, err, sizeof err);
	CHECK_MSG(rc == 1 && blk.type == VDATA_TRACE && blk.version == 0x5A && blk.payload_size == BIG
		  && blk.padding == 1 && blk.content_size == BIG + 1 && blk.offset == 0 && blk.payload_offset == 12
		  && blk.code_path == NULL, "TRACE block: rc %d type %d size %llu", rc, blk.type,
		  (unsigned long long)blk.payload_size);
	CHECK_MSG(read_back(r, big, BIG, 65537), "TRACE payload read back in 64 KiB+1 pieces");
	CHECK_MSG(vdata_read(r, &one, 1) == 0, "no bytes past the payload");
	expect_off = 12 + BIG + 1;

	rc = vdata_next(r, &blk, err, sizeof err);
	CHECK_MSG(rc == 1 && blk.type == VDATA_CODE && blk.code_path && !strcmp(blk.code_path, "/a.cpp")
		  && blk.payload_size == 2 && blk.offset == expect_off && blk.payload_offset == expect_off + 12 + 4096,
		  "CODE a: rc %d", rc);
	CHECK_MSG(read_back(r, "A\n", 2, 1), "CODE a read byte by byte");
	expect_off += 12 + 4096 + 4;

	/* Leave CODE b unread: vdata_next skips it. */
	rc = vdata_next(r, &blk, err, sizeof err);
	CHECK_MSG(rc == 1 && blk.type == VDATA_CODE && blk.code_path && !strcmp(blk.code_path, "/b.cpp")
		  && blk.payload_size == 5 && blk.padding == 3 && blk.offset == expect_off, "CODE b");
	CHECK_MSG(vdata_read(r, &one, 1) == 1 && one == 'B', "first byte of CODE b");
	expect_off += 12 + 4096 + 8;

	rc = vdata_next(r, &blk, err, sizeof err);
	CHECK_MSG(rc == 1 && blk.type == VDATA_FILE_API && blk.payload_size == 12 && blk.padding == 0
		  && blk.offset == expect_off, "FILE_API");
	CHECK_MSG(read_back(r, "{\"Files\":[]}", 12, 4096), "FILE_API payload (buffer larger than the payload)");
	expect_off += 12 + 12;

	rc = vdata_next(r, &blk, err, sizeof err);
	CHECK_MSG(rc == 1 && blk.type == VDATA_INSTR_API && blk.version == 0 && blk.payload_size == 1000001
		  && blk.padding == 3, "INSTR_API");
	CHECK_MSG(read_back(r, big, 1000001, 1 << 20), "INSTR_API payload");

	rc = vdata_next(r, &blk, err, sizeof err);
	CHECK_MSG(rc == 1 && blk.type == 0x20 && blk.version == 7 && blk.payload_size == 1, "type 0x20");
	rc = vdata_next(r, &blk, err, sizeof err);
	CHECK_MSG(rc == 0, "clean end: %d %s", rc, rc < 0 ? err : "");
	CHECK_MSG(vdata_next(r, &blk, err, sizeof err) == 0, "end stays end");
	vdata_rclose(r);
	unlink(p);
	free(big);
}

static void test_from_fd_cases(void)
{
	const char *p = unit_path("fd.bin"), *empty = unit_path("empty"), *src = unit_path("src");
	struct vdata_w *w = vdata_open(p);
	int pfd[2], fd;
	unsigned char *b;
	size_t len;

	if (!w) {
		CHECK_MSG(0, "open");
		return;
	}
	unit_write_file(empty, "", 0);
	unit_write_file(src, "{\"k\":2}", 7);
	fd = open(empty, O_RDONLY);
	CHECK_MSG(vdata_block_from_fd(w, VDATA_TRACE, VDATA_VERSION, fd) == 0, "empty file: nothing");
	close(fd);
	if (pipe(pfd) == 0) {
		CHECK_MSG(vdata_block_from_fd(w, VDATA_TRACE, VDATA_VERSION, pfd[0]) == EINVAL, "pipe refused");
		close(pfd[0]);
		close(pfd[1]);
	}
	fd = open(src, O_RDONLY);
	CHECK_MSG(vdata_block_from_fd(w, VDATA_CODE, VDATA_VERSION, fd) == EINVAL, "CODE from fd refused");
	CHECK_MSG(vdata_block_from_fd(w, VDATA_TRACE, VDATA_VERSION, -1) == EBADF, "bad fd");
	CHECK_MSG(vdata_block_from_fd(w, VDATA_TRACE, VDATA_VERSION, fd) == 0, "small file");
	close(fd);
	CHECK_MSG(vdata_close(w) == 0, "close");
	b = unit_read_file(p, &len);
	CHECK_MSG(b && len == 20 && rd_u64(b) == 8 && b[9] == 1 && !memcmp(b + 12, "{\"k\":2}", 8),
		  "only the small file was written (%zu bytes)", len);
	free(b);
	remove_all();
}

/* ---- corruption ---- */

/* A valid container: TRACE "hello" (pad 3), CODE "/x/k.cpp" "int x;" (pad 2),
 * INSTR_API "[1,2,3]" (pad 1).  Offsets of the three headers in h[]. */
static unsigned char *make_valid(size_t *len, uint64_t h[3])
{
	const char *p = unit_path("valid.bin");
	struct vdata_w *w = vdata_open(p);
	unsigned char *b;
	if (!w) {
		perror(p);
		exit(2);
	}
	vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, "hello", 5);
	vdata_block(w, VDATA_CODE, VDATA_VERSION, "/x/k.cpp", "int x;", 6);
	vdata_block(w, VDATA_INSTR_API, 0, NULL, "[1,2,3]", 7);
	if (vdata_close(w)) {
		perror(p);
		exit(2);
	}
	b = unit_read_file(p, len);
	unlink(p);
	h[0] = 0;
	h[1] = 12 + 8;
	h[2] = h[1] + 12 + 4096 + 8;
	if (!b || *len != h[2] + 12 + 8) {
		printf("make_valid: %zu bytes\n", *len);
		exit(2);
	}
	return b;
}

/* Write b[0..len) and walk it: the number of good blocks before the error,
 * the error text in err and errno in *e; -1 if it ended cleanly. */
static int walk(const unsigned char *b, size_t len, char *err, size_t errlen, int *e)
{
	const char *p = unit_path("bad.bin");
	struct vdata_r *r;
	struct vdata_blk blk;
	char buf[64];
	int n = 0, rc;

	unit_write_file(p, b, len);
	r = vdata_ropen(p, err, errlen);
	if (!r)
		return -2;
	while ((rc = vdata_next(r, &blk, err, errlen)) == 1) {
		while (vdata_read(r, buf, sizeof buf) > 0)
			;
		n++;
	}
	*e = errno;
	if (rc == 0) {
		vdata_rclose(r);
		unlink(p);
		return -1;
	}
	/* The error repeats. */
	{
		char again[256];
		if (vdata_next(r, &blk, again, sizeof again) != -1 || strcmp(again, err))
			n = -3;
	}
	vdata_rclose(r);
	unlink(p);
	return n;
}

static void expect_bad(const char *what, const unsigned char *b, size_t len, int good, uint64_t off,
                       const char *words, int line)
{
	char err[256] = "", prefix[64];
	int e = 0, n = walk(b, len, err, sizeof err, &e);
	snprintf(prefix, sizeof prefix, "offset %llu: ", (unsigned long long)off);
	unit_checkf(n == good, __FILE__, line, "%s: %d good blocks before the error, want %d (%s)", what, n,
	            good, err);
	unit_checkf(!strncmp(err, prefix, strlen(prefix)), __FILE__, line,
	            "%s: message \"%s\" does not start \"%s\"", what, err, prefix);
	unit_checkf(strstr(err, words) != NULL, __FILE__, line, "%s: message \"%s\" lacks \"%s\"", what, err,
	            words);
	unit_checkf(e == EBADMSG, __FILE__, line, "%s: errno %d, want EBADMSG", what, e);
}
#define EXPECT_BAD(what, b, len, good, off, words) expect_bad(what, b, len, good, off, words, __LINE__)

static void test_corruption(void)
{
	uint64_t h[3];
	size_t len;
	unsigned char *v = make_valid(&len, h), *b = xmalloc(len + 64);
	char err[256];
	int e;

	CHECK_MSG(walk(v, len, err, sizeof err, &e) == -1, "the valid file reads cleanly: %s", err);
	CHECK_MSG(walk(v, 0, err, sizeof err, &e) == -1, "an empty file reads cleanly");

#define FRESH() memcpy(b, v, len)
	FRESH();
	b[h[1] + 11] = 0;
	EXPECT_BAD("reserved byte", b, len, 1, h[1] + 11, "reserved byte is 0x00");

	FRESH();
	b[h[0] + 11] = 0x5B;
	EXPECT_BAD("reserved byte of the first block", b, len, 0, 11, "0x5B");

	FRESH();
	b[h[2] + 9] = 4;
	EXPECT_BAD("padding 4", b, len, 2, h[2] + 9, "padding 4 > 3");

	FRESH();
	b[h[0] + 9] = 3;   /* contentSize 2, padding 3 */
	wr_u64(b, 2);
	EXPECT_BAD("padding > contentSize", b, len, 0, 9, "content size 2");

	FRESH();
	wr_u64(b + h[2], 12);   /* 8 bytes are left */
	EXPECT_BAD("contentSize past the end", b, len, 2, h[2], "past the end");

	FRESH();
	wr_u64(b + h[0], UINT64_MAX);
	EXPECT_BAD("contentSize 2^64-1", b, len, 0, 0, "past the end");

	FRESH();
	wr_u64(b + h[1], UINT64_MAX - 4000);   /* would wrap when the path is added */
	EXPECT_BAD("CODE contentSize near 2^64", b, len, 1, h[1], "past the end");

	FRESH();
	b[h[0] + 12 + 5 + 1] = 'x';
	EXPECT_BAD("padding byte not NUL", b, len, 0, h[0] + 12 + 5 + 1, "0x78, not NUL");

	FRESH();
	b[h[1] + 12 + 4096 + 7] = 1;
	EXPECT_BAD("CODE padding byte not NUL", b, len, 1, h[1] + 12 + 4096 + 7, "not NUL");

	FRESH();
	EXPECT_BAD("truncated header", b, h[2] + 5, 2, h[2], "truncated block header (5 of 12");
	EXPECT_BAD("header cut after 1 byte", b, h[1] + 1, 1, h[1], "truncated block header (1 of 12");

	FRESH();
	EXPECT_BAD("truncated path field", b, h[1] + 12 + 100, 1, h[1] + 12, "truncated source path (100 of 4096");

	FRESH();
	EXPECT_BAD("truncated payload", b, h[2] - 3, 1, h[1], "past the end");

	FRESH();
	memset(b + h[1] + 12, 'a', 4096);
	EXPECT_BAD("path without NUL", b, len, 1, h[1] + 12, "no NUL");

	FRESH();
	wr_u64(b + h[2], 0);
	b[h[2] + 9] = 0;
	EXPECT_BAD("empty INSTR_API block", b, h[2] + 12, 2, h[2], "empty payload");

	FRESH();
	wr_u64(b + h[2], 3);
	b[h[2] + 9] = 3;
	memset(b + h[2] + 12, 0, 3);
	EXPECT_BAD("payload of padding only", b, h[2] + 15, 2, h[2], "empty payload");

	/* An empty CODE text is legal (Insight takes the path). */
	FRESH();
	wr_u64(b + h[1], 0);
	b[h[1] + 9] = 0;
	memmove(b + h[1] + 12 + 4096, b + h[2], 12 + 8);
	CHECK_MSG(walk(b, h[1] + 12 + 4096 + 20, err, sizeof err, &e) == -1, "empty CODE text accepted: %s", err);
#undef FRESH
	free(b);
	free(v);
}

static void test_ropen_errors(void)
{
	char err[256] = "";
	struct vdata_r *r = vdata_ropen(unit_path("missing.bin"), err, sizeof err);
	CHECK_MSG(!r && errno == ENOENT && strstr(err, "cannot open"), "missing file: %s", err);
	r = vdata_ropen(unit_dir, err, sizeof err);
	CHECK_MSG(!r && errno == EISDIR, "directory: %s", err);
	r = vdata_ropen("/dev/null", err, sizeof err);
	CHECK_MSG(!r && errno == ESPIPE && strstr(err, "not a regular file"), "device: %s", err);
	vdata_rclose(NULL);
}

/* ---- commit and abort ---- */

static void test_abort(void)
{
	const char *p = unit_path("out.bin"), *src = unit_path("wo");
	struct vdata_w *w;
	unsigned char *b;
	size_t len;
	int fd, rc;

	remove_all();
	w = vdata_open(p);
	CHECK_MSG(w && vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, "{}", 2) == 0, "write before abort");
	vdata_abort(w);
	CHECK_MSG(!file_exists(p) && unit_entries(unit_dir, "") == 0, "abort leaves nothing (%d entries)", unit_entries(unit_dir, ""));

	unit_write_file(p, "old", 3);
	w = vdata_open(p);
	CHECK_MSG(w && vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, "{}", 2) == 0, "write over old");
	CHECK_MSG(unit_entries(unit_dir, "") == 2, "the temporary file sits beside the target");
	vdata_abort(w);
	b = unit_read_file(p, &len);
	CHECK_MSG(b && len == 3 && !memcmp(b, "old", 3) && unit_entries(unit_dir, "") == 1, "abort keeps the old target");
	free(b);
	vdata_abort(NULL);

	/* A block that fails half-way poisons the writer: close discards. */
	unit_write_file(src, "{\"x\":1}", 7);
	fd = open(src, O_WRONLY);   /* fstat works, pread does not */
	w = vdata_open(p);
	CHECK_MSG(w && vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, "{}", 2) == 0, "first block");
	rc = vdata_block_from_fd(w, VDATA_FILE_API, VDATA_VERSION, fd);
	CHECK_MSG(rc == EBADF, "unreadable fd: %d", rc);
	CHECK_MSG(vdata_block(w, VDATA_FILE_API, VDATA_VERSION, NULL, "{}", 2) == EBADF, "the error sticks");
	CHECK_MSG(vdata_close(w) == EBADF, "close reports it");
	close(fd);
	b = unit_read_file(p, &len);
	CHECK_MSG(b && len == 3 && !memcmp(b, "old", 3) && unit_entries(unit_dir, "") == 2, "failed close keeps the old target");
	free(b);

	w = vdata_open(p);
	CHECK_MSG(w && vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, "{}", 2) == 0 && vdata_close(w) == 0,
		  "a good close replaces it");
	b = unit_read_file(p, &len);
	CHECK_MSG(b && len == 16 && b[8] == 2 && unit_entries(unit_dir, "") == 2, "new content in place (%zu bytes)", len);
	free(b);

	w = vdata_open("/dev/full");
	if (w) {
		char blk[5000];
		memset(blk, '1', sizeof blk);
		vdata_block(w, VDATA_TRACE, VDATA_VERSION, NULL, blk, sizeof blk);
		CHECK_MSG(vdata_close(w) == ENOSPC, "write error reported by close");
	}
	CHECK_MSG(vdata_open(unit_path("no/such/dir.bin")) == NULL && errno == ENOENT, "open in a missing directory");
	CHECK_MSG(vdata_close(NULL) == EINVAL, "close(NULL)");
	remove_all();
}

/* A streamed block: the same bytes as vdata_block would write, whatever
 * its size; other blocks refused while it is open; a wrong size, an empty
 * payload, or a close before its end discard the file. */
static void test_stream(void)
{
	const char *p = unit_path("s.bin"), *q = unit_path("b.bin");
	static const char body[] = "{\"traceEvents\":[\n{\"ph\":\"M\"}\n]}\n";
	size_t n, len, len2;
	unsigned char *a, *b;
	struct vdata_w *w, *v;
	struct wr *sw;

	remove_all();
	for (n = 1; n < sizeof body; n++) {
		w = vdata_open(p);
		sw = w ? vdata_stream_begin(w, VDATA_TRACE, VDATA_VERSION) : NULL;
		CHECK_MSG(sw != NULL, "stream begin n=%zu", n);
		if (!sw)
			return;
		CHECK_MSG(vdata_block(w, VDATA_FILE_API, VDATA_VERSION, NULL, "{}", 2) == EINVAL,
			  "n=%zu: no other block while streaming", n);
		CHECK_MSG(vdata_stream_begin(w, VDATA_FILE_API, VDATA_VERSION) == NULL && errno == EINVAL,
			  "n=%zu: no second stream", n);
		wr_put(sw, body, n / 2);
		wr_put(sw, body + n / 2, n - n / 2);
		CHECK_MSG(vdata_stream_end(w, n) == 0, "stream end n=%zu", n);
		CHECK_MSG(vdata_block(w, VDATA_INSTR_API, VDATA_VERSION_INSTR_API, NULL, "{}", 2) == 0,
			  "n=%zu: a block after it", n);
		CHECK_MSG(vdata_close(w) == 0, "close n=%zu", n);
		v = vdata_open(q);
		CHECK_MSG(v && vdata_block(v, VDATA_TRACE, VDATA_VERSION, NULL, body, n) == 0 &&
			  vdata_block(v, VDATA_INSTR_API, VDATA_VERSION_INSTR_API, NULL, "{}", 2) == 0 &&
			  vdata_close(v) == 0, "plain blocks n=%zu", n);
		a = unit_read_file(p, &len);
		b = unit_read_file(q, &len2);
		CHECK_MSG(a && b && len == len2 && !memcmp(a, b, len), "n=%zu: streamed file differs from the plain one", n);
		free(a);
		free(b);
	}

	unit_write_file(p, "old", 3);
	w = vdata_open(p);
	sw = vdata_stream_begin(w, VDATA_TRACE, VDATA_VERSION);
	wr_put(sw, "{}", 2);
	CHECK_MSG(vdata_stream_end(w, 3) == EIO, "a size other than the bytes given");
	CHECK_MSG(vdata_close(w) == EIO, "poisons the file");
	w = vdata_open(p);
	vdata_stream_begin(w, VDATA_TRACE, VDATA_VERSION);
	CHECK_MSG(vdata_stream_end(w, 0) == EINVAL && vdata_close(w) == EINVAL, "an empty streamed payload");
	w = vdata_open(p);
	sw = vdata_stream_begin(w, VDATA_TRACE, VDATA_VERSION);
	wr_put(sw, "{}", 2);
	CHECK_MSG(vdata_close(w) == EIO, "a close before the stream's end");
	a = unit_read_file(p, &len);
	CHECK_MSG(a && len == 3 && !memcmp(a, "old", 3) && unit_entries(unit_dir, "") == 2,
		  "the failures keep the old target");
	free(a);
	CHECK_MSG(vdata_stream_begin(NULL, VDATA_TRACE, VDATA_VERSION) == NULL, "begin(NULL)");
	CHECK_MSG(vdata_stream_end(NULL, 1) == EINVAL, "end(NULL)");
	w = vdata_open(p);
	CHECK_MSG(w && vdata_stream_begin(w, VDATA_CODE, VDATA_VERSION) == NULL && errno == EINVAL, "not for CODE");
	vdata_abort(w);
	remove_all();
}

int main(void)
{
	unit_workdir("test_vdata");
	test_names();
	test_layout_padding();
	test_layout_blocks();
	test_round_trip();
	test_from_fd_cases();
	test_corruption();
	test_ropen_errors();
	test_abort();
	test_stream();
	remove_all();
	rmdir(unit_dir);
	return unit_done();
}
