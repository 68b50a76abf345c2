/* Unit tests of the buffered reader and writer (lib/io.c).
 *
 *   make build/liboptrace.a build-san/liboptrace.a
 *   gcc -std=c11 -D_GNU_SOURCE -Ilib -Wall -Wextra -Werror -O1 -g \
 *       -fsanitize=address,undefined -o /tmp/test_io test/unit/test_io.c \
 *       build-san/liboptrace.a -llz4 -lm && /tmp/test_io
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0 only
 * when nothing failed.  Works in a private directory under $TMPDIR (or /tmp)
 * that it removes at the end; uses the lz4 command when it is installed. */
#include "cli.h"
#include "io.h"
#include "mem.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "unit.h"

#define MiB (1u << 20)

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t rnd(void) { return unit_xorshift(&rng); }

static int file_exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0;
}

/* Number of directory entries (other than . and ..). */
static int dir_entries(const char *d, char *first, size_t firstlen)
{
	DIR *dp = opendir(d);
	struct dirent *e;
	int n = 0;
	if (first && firstlen)
		first[0] = 0;
	if (!dp)
		return -1;
	while ((e = readdir(dp))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!n && first)
			snprintf(first, firstlen, "%s", e->d_name);
		n++;
	}
	closedir(dp);
	return n;
}

static int have_lz4_cmd(void)
{
	static int have = -1;
	if (have < 0)
		have = system("lz4 --version >/dev/null 2>&1") == 0;
	return have;
}

/* ---- a test text: lines of many lengths, crossing the 1 MiB marks ---- */

struct text {
	char *p;
	size_t n;
	size_t *starts;   /* line i is [starts[i], starts[i+1]-1) (LF excluded) */
	size_t nlines;
};

static void text_free(struct text *t)
{
	free(t->p);
	free(t->starts);
	memset(t, 0, sizeof *t);
}

/* About `size` bytes of lines.  Some lines are long, one ends exactly at
 * each MiB mark and one straddles it; bytes are anything but LF. */
static struct text make_text(size_t size, int binary)
{
	struct text t;
	size_t cap = size + 4 * MiB, maxl = size / 8 + 16, at = 0;
	t.p = xmalloc(cap);
	t.starts = xmalloc(sizeof(size_t) * (size + 2));
	t.nlines = 0;
	while (at < size) {
		size_t len, i, mark = (at / MiB + 1) * MiB;
		uint64_t r = rnd();
		switch (r % 16) {
		case 0: len = (size_t)(rnd() % (3 * MiB / 2)); break;  /* long */
		case 1: len = 0; break;
		case 2: len = mark > at + 1 ? mark - at - 1 : 0; break; /* LF is the last byte before the mark */
		case 3: len = mark - at; break;                         /* LF is the first byte after */
		case 4: len = mark - at + 1 + (size_t)(rnd() % 3); break;
		default: len = (size_t)(rnd() % 3000); break;
		}
		if (len > maxl)
			len = maxl;
		if (at + len + 1 > cap)
			break;
		t.starts[t.nlines++] = at;
		for (i = 0; i < len; i++) {
			char c = binary ? (char)(rnd() & 0xff) : (char)(' ' + (at + i) % 95);
			if (c == '\n')
				c = '\r';
			t.p[at + i] = c;
		}
		at += len;
		t.p[at++] = '\n';
	}
	t.starts[t.nlines] = at;
	t.n = at;
	return t;
}

/* Read every line of r and compare with t; then the end, without error. */
static void expect_lines(struct rd *r, const struct text *t, const char *what)
{
	size_t i, len;
	const char *line;
	int bad = 0;
	for (i = 0; i < t->nlines; i++) {
		size_t want = t->starts[i + 1] - t->starts[i] - 1;
		line = rd_line(r, &len);
		if (!line) {
			CHECK_MSG(0, "%s: input ends at line %zu of %zu (rd_error %d)", what, i + 1, t->nlines, rd_error(r));
			return;
		}
		if (len != want || memcmp(line, t->p + t->starts[i], len)) {
			if (!bad++)
				CHECK_MSG(0, "%s: line %zu: length %zu, want %zu%s", what, i + 1, len, want,
					  len == want ? " (bytes differ)" : "");
		}
		if (rd_lineno(r) != i + 1 && !bad++)
			CHECK_MSG(0, "%s: rd_lineno %llu at line %zu", what, (unsigned long long)rd_lineno(r), i + 1);
	}
	CHECK_MSG(!bad, "%s: %zu lines read back identical", what, t->nlines);
	CHECK_MSG(rd_line(r, &len) == NULL, "%s: no line after the last", what);
	CHECK_MSG(rd_line(r, &len) == NULL, "%s: still no line", what);
	CHECK_MSG(rd_error(r) == 0, "%s: rd_error %d", what, rd_error(r));
	CHECK_MSG(rd_offset(r) == t->n, "%s: rd_offset %llu, want %zu", what, (unsigned long long)rd_offset(r), t->n);
}

/* A child process that writes buf to fd in pieces of varying size. */
static pid_t feeder(int fd, const char *buf, size_t n, const size_t *pieces, int npieces, int pause_ms)
{
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		exit(2);
	}
	if (pid == 0) {
		size_t at = 0;
		int k = 0;
		signal(SIGPIPE, SIG_DFL);
		while (at < n) {
			size_t want = pieces[k % npieces], done = 0;
			if (want > n - at)
				want = n - at;
			while (done < want) {
				ssize_t w = write(fd, buf + at + done, want - done);
				if (w <= 0)
					_exit(1);
				done += (size_t)w;
			}
			at += want;
			if (pause_ms && k < 3) {
				struct timespec ts = { 0, (long)pause_ms * 1000000L };
				nanosleep(&ts, NULL);
			}
			k++;
		}
		_exit(0);
	}
	return pid;
}

static int wait_ok(pid_t pid)
{
	int st;
	if (waitpid(pid, &st, 0) < 0)
		return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* ---- tests ---- */

static void test_lines_file(void)
{
	struct text t = make_text(6 * MiB, 0);
	struct rd *r;
	const char *p = unit_path("lines.txt");

	unit_write_file(p, t.p, t.n);
	r = rd_open(p);
	CHECK_MSG(r != NULL, "rd_open %s", p);
	if (r) {
		CHECK_MSG(!rd_is_lz4(r), "plain text is not lz4");
		CHECK_MSG(!strcmp(rd_name(r), p), "rd_name is the path");
		expect_lines(r, &t, "6 MiB text file across the 1 MiB buffer marks");
		rd_close(r);
	}
	text_free(&t);

	/* Binary bytes (everything but LF), also CR and NUL. */
	t = make_text(3 * MiB, 1);
	unit_write_file(p, t.p, t.n);
	r = rd_open(p);
	if (r) {
		expect_lines(r, &t, "3 MiB of binary lines");
		rd_close(r);
	}

	/* The same through a pipe with short, odd-sized writes. */
	{
		static const size_t pieces[] = { 1, 2, 4093, 65536 + 7, 1, 300000, 17 };
		int fds[2];
		pid_t pid;
		if (pipe(fds) == 0) {
			pid = feeder(fds[1], t.p, t.n, pieces, 7, 20);
			close(fds[1]);
			r = rd_fdopen(fds[0], "pipe");
			expect_lines(r, &t, "binary lines through a pipe, odd short writes");
			rd_close(r);
			close(fds[0]);
			CHECK_MSG(wait_ok(pid), "feeder exited 0");
		}
	}
	text_free(&t);
}

static void test_long_lines(void)
{
	size_t n = 5 * 1000 * 1000, len, i;
	char *b = xmalloc(n + 16), *rest;
	const char *line;
	struct rd *r;
	const char *p = unit_path("long.txt");

	for (i = 0; i < n; i++)
		b[i] = (char)('a' + i % 26);
	memcpy(b + n, "\nshort\n", 7);
	unit_write_file(p, b, n + 7);
	r = rd_open(p);
	line = rd_line(r, &len);
	CHECK_MSG(line && len == n && !memcmp(line, b, n), "a single 5 MB line (got %zu bytes)", line ? len : 0);
	line = rd_line(r, &len);
	CHECK_MSG(line && len == 5 && !memcmp(line, "short", 5), "the line after a 5 MB line");
	CHECK_MSG(!rd_line(r, &len) && rd_lineno(r) == 2, "two lines");
	rd_close(r);

	/* 5 MB without any LF at all. */
	unit_write_file(p, b, n);
	r = rd_open(p);
	line = rd_line(r, &len);
	CHECK_MSG(line && len == n && !memcmp(line, b, n), "a 5 MB last line without LF");
	CHECK_MSG(!rd_line(r, &len), "then the end");
	CHECK_MSG(rd_offset(r) == n, "rd_offset %llu", (unsigned long long)rd_offset(r));
	rd_close(r);

	/* Lines of exactly 1 MiB and 2 MiB (LF right after a buffer's worth). */
	rest = xmalloc(3 * MiB + 8);
	memset(rest, 'x', MiB);
	rest[MiB] = '\n';
	memset(rest + MiB + 1, 'y', 2 * MiB);
	rest[3 * MiB + 1] = '\n';
	rest[3 * MiB + 2] = 'z';
	unit_write_file(p, rest, 3 * MiB + 3);
	r = rd_open(p);
	line = rd_line(r, &len);
	CHECK_MSG(line && len == MiB && line[0] == 'x' && line[len - 1] == 'x', "a line of exactly 1 MiB");
	line = rd_line(r, &len);
	CHECK_MSG(line && len == 2 * MiB && line[0] == 'y' && line[len - 1] == 'y', "a line of exactly 2 MiB");
	line = rd_line(r, &len);
	CHECK_MSG(line && len == 1 && line[0] == 'z', "a last line 'z' without LF");
	CHECK_MSG(!rd_line(r, &len), "end");
	rd_close(r);
	free(rest);
	free(b);
}

static void test_small_cases(void)
{
	static const struct {
		const char *in;
		size_t n;
		int nlines;
		const char *lines[4];
		size_t lens[4];
	} cases[] = {
		{ "", 0, 0, { NULL }, { 0 } },
		{ "\n", 1, 1, { "" }, { 0 } },
		{ "\n\n", 2, 2, { "", "" }, { 0, 0 } },
		{ "a", 1, 1, { "a" }, { 1 } },
		{ "ab", 2, 1, { "ab" }, { 2 } },
		{ "abc", 3, 1, { "abc" }, { 3 } },
		{ "a\nb", 3, 2, { "a", "b" }, { 1, 1 } },
		{ "a\r\nb\r\n\r", 7, 3, { "a\r", "b\r", "\r" }, { 2, 2, 1 } },
		{ "\r\n", 2, 1, { "\r" }, { 1 } },
		{ "x\0y\n\0\n", 6, 2, { "x\0y", "\0" }, { 3, 1 } },
		{ "\x04\x22\x4d\n", 4, 1, { "\x04\x22\x4d" }, { 3 } },
		{ "\x04\x22\n", 3, 1, { "\x04\x22" }, { 2 } },
	};
	size_t i;
	const char *p = unit_path("small.txt");

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct rd *r;
		const char *line;
		size_t len;
		int k;
		unit_write_file(p, cases[i].in, cases[i].n);
		r = rd_open(p);
		CHECK_MSG(r != NULL, "case %zu: rd_open", i);
		if (!r)
			continue;
		for (k = 0; k < cases[i].nlines; k++) {
			line = rd_line(r, &len);
			CHECK_MSG(line && len == cases[i].lens[k] && !memcmp(line, cases[i].lines[k], len),
				  "case %zu line %d: got %s length %zu", i, k + 1, line ? "a line of" : "no line",
				  line ? len : 0);
		}
		CHECK_MSG(rd_line(r, &len) == NULL, "case %zu: end after %d lines", i, cases[i].nlines);
		CHECK_MSG(rd_error(r) == 0 && rd_lineno(r) == (uint64_t)cases[i].nlines && rd_offset(r) == cases[i].n,
			  "case %zu: error %d, lineno %llu, offset %llu", i, rd_error(r),
			  (unsigned long long)rd_lineno(r), (unsigned long long)rd_offset(r));
		rd_close(r);
	}

	/* Errors. */
	errno = 0;
	CHECK_MSG(rd_open(unit_path("does-not-exist")) == NULL && errno == ENOENT, "rd_open of a missing file: ENOENT");
	{
		struct wr *w;
		errno = 0;
		w = wr_open(unit_path("no-such-dir/out"), 0);
		CHECK_MSG(w == NULL && errno == ENOENT, "wr_open in a missing directory: ENOENT");
		if (w)
			wr_abort(w);
	}

	/* Input arriving a byte at a time at the start (the lz4 sniffing). */
	{
		static const size_t pieces[] = { 1, 1, 1, 1, 5 };
		static const char in[] = "ab\ncd\nefghij\nk";
		int fds[2];
		pid_t pid;
		struct rd *r;
		const char *line;
		size_t len;
		if (pipe(fds) == 0) {
			pid = feeder(fds[1], in, sizeof in - 1, pieces, 5, 30);
			close(fds[1]);
			r = rd_fdopen(fds[0], "slow pipe");
			line = rd_line(r, &len);
			CHECK_MSG(line && len == 2 && !memcmp(line, "ab", 2), "slow pipe: line 1");
			line = rd_line(r, &len);
			CHECK_MSG(line && len == 2 && !memcmp(line, "cd", 2), "slow pipe: line 2");
			line = rd_line(r, &len);
			CHECK_MSG(line && len == 6 && !memcmp(line, "efghij", 6), "slow pipe: line 3");
			line = rd_line(r, &len);
			CHECK_MSG(line && len == 1 && line[0] == 'k', "slow pipe: last line without LF");
			CHECK_MSG(!rd_line(r, &len) && !rd_error(r), "slow pipe: end");
			rd_close(r);
			close(fds[0]);
			wait_ok(pid);
		}
	}
}

/* Write t with wr_open(path, WR_LZ4) in pieces of random size. */
static int write_lz4(const char *path, const struct text *t)
{
	struct wr *w = wr_open(path, WR_LZ4);
	size_t at = 0;
	if (!w)
		return -1;
	while (at < t->n) {
		size_t k = (size_t)(rnd() % 200000);
		if (k > t->n - at)
			k = t->n - at;
		if (rnd() % 2) {
			wr_put(w, t->p + at, k);
		} else {
			char *o = wr_reserve(w, k);
			memcpy(o, t->p + at, k);
			wr_commit(w, k);
		}
		at += k;
	}
	return wr_close(w);
}

static void test_lz4(void)
{
	struct text t = make_text(5 * MiB, 0);
	const char *plain = unit_path("plain.txt"), *z1 = unit_path("wr.lz4"), *z2 = unit_path("cmd.lz4");
	char cmd[9000];
	struct rd *r;
	size_t n;
	char *b;

	unit_write_file(plain, t.p, t.n);
	CHECK_MSG(write_lz4(z1, &t) == 0, "wr_open(WR_LZ4) + wr_close");
	b = unit_read_file(z1, &n);
	CHECK_MSG(b && n >= 4 && !memcmp(b, "\x04\x22\x4d\x18", 4), "WR_LZ4 output starts with the lz4 frame magic");
	CHECK_MSG(n < t.n / 2, "WR_LZ4 output is compressed (%zu of %zu bytes)", n, t.n);
	free(b);
	r = rd_open(z1);
	CHECK_MSG(r && rd_is_lz4(r), "rd_open sees lz4");
	if (r) {
		expect_lines(r, &t, "lz4 written by wr_open(WR_LZ4)");
		rd_close(r);
	}

	/* lz4 data through a pipe, fed in odd pieces. */
	{
		static const size_t pieces[] = { 3, 1, 7, 65536, 4093, 1 };
		int fds[2];
		pid_t pid;
		b = unit_read_file(z1, &n);
		if (b && pipe(fds) == 0) {
			pid = feeder(fds[1], b, n, pieces, 6, 20);
			close(fds[1]);
			r = rd_fdopen(fds[0], "lz4 pipe");
			CHECK_MSG(rd_is_lz4(r), "lz4 sniffed through a pipe");
			expect_lines(r, &t, "lz4 through a pipe, odd short writes");
			rd_close(r);
			close(fds[0]);
			wait_ok(pid);
		}
		free(b);
	}

	if (!have_lz4_cmd()) {
		printf("test_io.c: note: no lz4 command, skipping the lz4(1) checks\n");
	} else {
		snprintf(cmd, sizeof cmd, "lz4 -q -f '%s' '%s'", plain, z2);
		CHECK_MSG(system(cmd) == 0, "%s", cmd);
		r = rd_open(z2);
		CHECK_MSG(r && rd_is_lz4(r), "rd_open sees the lz4 command's output as lz4");
		if (r) {
			expect_lines(r, &t, "lz4 written by the lz4 command");
			rd_close(r);
		}
		/* What wr_open(WR_LZ4) writes, the lz4 command reads. */
		snprintf(cmd, sizeof cmd, "lz4 -dc '%s' | cmp -s - '%s'", z1, plain);
		CHECK_MSG(system(cmd) == 0, "lz4 -dc of the WR_LZ4 file equals the plain text");

		/* Concatenated frames read as one stream. */
		snprintf(cmd, sizeof cmd, "printf 'tail1\\ntail2' | lz4 -q -c > '%s.2' && cat '%s' '%s.2' > '%s.cat'",
		         z2, z2, z2, z2);
		if (system(cmd) == 0) {
			char catp[1300];
			const char *line;
			size_t len;
			snprintf(catp, sizeof catp, "%s.cat", z2);
			r = rd_open(catp);
			if (r) {
				size_t i;
				int ok = 1;
				for (i = 0; i < t.nlines; i++)
					if (!rd_line(r, &len))
						ok = 0;
				line = rd_line(r, &len);
				CHECK_MSG(ok && line && len == 5 && !memcmp(line, "tail1", 5), "second lz4 frame: line 1");
				line = rd_line(r, &len);
				CHECK_MSG(line && len == 5 && !memcmp(line, "tail2", 5), "second lz4 frame: line 2");
				CHECK_MSG(!rd_line(r, &len) && rd_error(r) == 0, "concatenated frames end cleanly");
				rd_close(r);
			}
		}

		/* A damaged compressed file is an error, not silent garbage. */
		b = unit_read_file(z2, &n);
		if (b && n > 1000) {
			const char *bad = unit_path("bad.lz4");
			size_t i, len;
			b[n / 2] = (char)(b[n / 2] ^ 0x55);
			unit_write_file(bad, b, n);
			r = rd_open(bad);
			for (i = 0; r && rd_line(r, &len); i++)
				;
			CHECK_MSG(r && rd_error(r) != 0, "a corrupt lz4 file gives rd_error (got %d)", r ? rd_error(r) : 0);
			rd_close(r);
		}
		free(b);
	}

	/* A compressed file cut short is an error, not a quiet end. */
	b = unit_read_file(z1, &n);
	if (b && n > 100) {
		const char *cut = unit_path("cut.lz4");
		size_t len, lines = 0;
		unit_write_file(cut, b, n / 2);
		r = rd_open(cut);
		while (r && rd_line(r, &len))
			lines++;
		CHECK_MSG(r && rd_error(r) != 0, "an lz4 file cut in half gives rd_error (got %d after %zu lines)",
			  r ? rd_error(r) : 0, lines);
		rd_close(r);
		/* Only the magic. */
		unit_write_file(cut, b, 4);
		r = rd_open(cut);
		CHECK_MSG(r && !rd_line(r, &len) && rd_error(r) != 0, "an lz4 file of only the magic is an error");
		rd_close(r);
		/* Without the end mark (the last 4 bytes). */
		unit_write_file(cut, b, n - 4);
		r = rd_open(cut);
		while (r && rd_line(r, &len))
			;
		CHECK_MSG(r && rd_error(r) != 0, "an lz4 file without its end mark is an error");
		rd_close(r);
	}
	free(b);

	/* An empty stream compressed. */
	{
		struct wr *w = wr_open(z1, WR_LZ4);
		size_t len;
		CHECK_MSG(w && wr_close(w) == 0, "empty lz4 stream written");
		b = unit_read_file(z1, &n);
		CHECK_MSG(b && n >= 4 && !memcmp(b, "\x04\x22\x4d\x18", 4), "an empty WR_LZ4 file is still an lz4 frame");
		free(b);
		r = rd_open(z1);
		CHECK_MSG(r && rd_is_lz4(r) && !rd_line(r, &len) && rd_error(r) == 0, "empty lz4 stream reads as empty");
		rd_close(r);
	}
	text_free(&t);
}

/* The first read of a pipe returns fewer than the 4 bytes of the lz4 magic,
 * the second a full buffer: the sniffed bytes must fit the compressed
 * buffer.  Run in a child: a memory error there must not end this program. */
static void test_lz4_sniff_split(void)
{
	struct text t;
	const char *z = unit_path("sniff.lz4");
	char *b;
	size_t n;
	pid_t kid;
	int st;

	/* Incompressible lines, so the compressed data is several MiB. */
	t = make_text(3 * MiB, 1);
	if (write_lz4(z, &t) != 0) {
		CHECK_MSG(0, "write_lz4 for the sniff test");
		text_free(&t);
		return;
	}
	b = unit_read_file(z, &n);
	fflush(stdout);
	kid = fork();
	if (kid == 0) {
		int fds[2], ok;
		pid_t feed;
		struct rd *r;
		if (pipe(fds))
			_exit(3);
		/* A pipe that holds a whole reader buffer at once. */
		if (fcntl(fds[1], F_SETPIPE_SZ, 4 * MiB) < 0)
			fcntl(fds[1], F_SETPIPE_SZ, MiB);
		feed = fork();
		if (feed == 0) {
			struct timespec ts = { 0, 300000000L };
			size_t at = 2;
			close(fds[0]);
			if (write(fds[1], b, 2) != 2)
				_exit(1);
			nanosleep(&ts, NULL);   /* the reader takes the 2 bytes alone */
			while (at < n) {
				ssize_t w = write(fds[1], b + at, n - at);
				if (w <= 0)
					_exit(1);
				at += (size_t)w;
			}
			_exit(0);
		}
		close(fds[1]);
		r = rd_fdopen(fds[0], "split magic");
		ok = r && rd_is_lz4(r);
		if (ok) {
			size_t i, len;
			const char *line;
			for (i = 0; i < t.nlines; i++) {
				line = rd_line(r, &len);
				if (!line || len != t.starts[i + 1] - t.starts[i] - 1 ||
				    memcmp(line, t.p + t.starts[i], len)) {
					ok = 0;
					break;
				}
			}
			ok = ok && !rd_line(r, &len) && !rd_error(r);
		}
		rd_close(r);
		close(fds[0]);
		waitpid(feed, NULL, 0);
		_exit(ok ? 0 : 1);
	}
	st = 0;
	waitpid(kid, &st, 0);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		  "lz4 magic split over two reads of a pipe (2 bytes, then 1 MiB): reader %s %d",
		  WIFEXITED(st) ? "exited" : "killed by signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	free(b);
	text_free(&t);
}

static void test_rd_read(void)
{
	struct text t = make_text(3 * MiB, 1);
	const char *p = unit_path("read.bin"), *z = unit_path("read.lz4");
	static const size_t sizes[] = { 1, 7, 4096, MiB + 3, 3 * MiB };
	size_t s;

	unit_write_file(p, t.p, t.n);
	write_lz4(z, &t);
	for (s = 0; s < 2 * sizeof sizes / sizeof sizes[0]; s++) {
		size_t chunk = sizes[s % 5], got = 0, k;
		char *b = xmalloc(t.n + chunk);
		struct rd *r = rd_open(s < 5 ? p : z);
		while ((k = rd_read(r, b + got, chunk)) > 0)
			got += k;
		CHECK_MSG(got == t.n && !memcmp(b, t.p, t.n), "rd_read in pieces of %zu (%s): %zu of %zu bytes", chunk,
			  s < 5 ? "plain" : "lz4", got, t.n);
		CHECK_MSG(rd_error(r) == 0 && rd_offset(r) == t.n, "rd_read: no error, offset at the end");
		rd_close(r);
		free(b);
	}

	/* Some lines, then the rest raw. */
	{
		struct rd *r = rd_open(z);
		size_t len, i, got = 0, k, from;
		char *b = xmalloc(t.n);
		for (i = 0; i < 3; i++)
			rd_line(r, &len);
		from = t.starts[3];
		CHECK_MSG(rd_offset(r) == from, "rd_offset after 3 lines: %llu, want %zu", (unsigned long long)rd_offset(r), from);
		while ((k = rd_read(r, b + got, 100000)) > 0)
			got += k;
		CHECK_MSG(got == t.n - from && !memcmp(b, t.p + from, got), "rd_line, then rd_read the rest");
		rd_close(r);
		free(b);
	}
	text_free(&t);
}

/* A plain file mapped a window at a time gives its bytes whole, in
 * windows of RD_MAP_WINDOW but for the last; an lz4 file, a reader that
 * has read, and a pipe are refused (read them), an empty file is at its
 * end at once. */
static void test_rd_map(void)
{
	struct text t = make_text(2 * RD_MAP_WINDOW + 1000, 1);
	const char *p = unit_path("map.bin"), *z = unit_path("map.lz4"), *e = unit_path("map.empty");
	const char *w;
	size_t n, got = 0, windows = 0, len;
	struct rd *r;
	char c;
	int fd[2];

	unit_write_file(p, t.p, t.n);
	write_lz4(z, &t);
	unit_write_file(e, "", 0);
	r = rd_open(p);
	while ((w = rd_map_next(r, &n)) != NULL) {
		CHECK_MSG(got + n <= t.n && !memcmp(w, t.p + got, n), "rd_map_next: window %zu holds the file's bytes",
		          windows);
		CHECK_MSG(n == (got + RD_MAP_WINDOW <= t.n ? RD_MAP_WINDOW : t.n - got), "rd_map_next: window %zu of %zu bytes",
		          windows, n);
		got += n;
		windows++;
	}
	CHECK_MSG(n == 0 && got == t.n && windows == 3 && rd_error(r) == 0 && rd_offset(r) == t.n,
	          "rd_map_next: %zu bytes in %zu windows, then the end", got, windows);
	rd_close(r);

	r = rd_open(z);
	CHECK_MSG(!rd_map_next(r, &n) && n == 1, "rd_map_next: an lz4 file is read, not mapped");
	rd_close(r);
	r = rd_open(p);
	rd_line(r, &len);
	CHECK_MSG(!rd_map_next(r, &n) && n == 1, "rd_map_next: not after a line was read");
	rd_close(r);
	r = rd_open(e);
	CHECK_MSG(!rd_map_next(r, &n) && n == 0, "rd_map_next: an empty file ends at once");
	rd_close(r);
	CHECK(pipe(fd) == 0);
	c = 'x';
	CHECK(write(fd[1], &c, 1) == 1);
	close(fd[1]);
	r = rd_fdopen(fd[0], "(pipe)");
	CHECK_MSG(!rd_map_next(r, &n) && n == 1 && rd_read(r, &c, 1) == 1 && c == 'x', "rd_map_next: a pipe is read");
	rd_close(r);
	close(fd[0]);
	text_free(&t);
}

/* A look at the first bytes leaves them all to read, plain or lz4, from a
 * file or a pipe, however much of the input the look took. */
static void test_rd_peek(void)
{
	struct text t = make_text(3 * MiB, 0);
	const char *p = unit_path("peek.txt"), *z = unit_path("peek.lz4");
	static const size_t wants[] = { 1, 4096, 2 * MiB + 5, 8 * MiB };
	size_t w;

	unit_write_file(p, t.p, t.n);
	write_lz4(z, &t);
	for (w = 0; w < 2 * sizeof wants / sizeof wants[0]; w++) {
		size_t want = wants[w % 4], n, len;
		struct rd *r = rd_open(w < 4 ? p : z);
		const char *b = rd_peek(r, want, &n), *again;
		CHECK_MSG(n >= (want < t.n ? want : t.n) && n <= t.n && !memcmp(b, t.p, n),
			  "rd_peek %zu (%s): %zu bytes, the first of the input", want, w < 4 ? "plain" : "lz4", n);
		again = rd_peek(r, 1, &len);
		CHECK_MSG(len == n && !memcmp(again, t.p, len), "rd_peek again: the same bytes");
		CHECK_MSG(rd_offset(r) == 0 && rd_lineno(r) == 0, "rd_peek consumes nothing");
		expect_lines(r, &t, w < 4 ? "every line after rd_peek" : "every line after rd_peek (lz4)");
		rd_close(r);
	}
	{
		static const size_t pieces[] = { 1, 2, 4093, 65536 + 7 };
		int fds[2];
		pid_t pid;
		size_t n;
		if (pipe(fds) == 0) {
			struct rd *r;
			const char *b;
			pid = feeder(fds[1], t.p, t.n, pieces, 4, 20);
			close(fds[1]);
			r = rd_fdopen(fds[0], "pipe");
			b = rd_peek(r, 100000, &n);
			CHECK_MSG(n >= 100000 && !memcmp(b, t.p, n), "rd_peek through a pipe, odd short writes: %zu bytes", n);
			expect_lines(r, &t, "every line through a pipe after rd_peek");
			rd_close(r);
			close(fds[0]);
			CHECK_MSG(wait_ok(pid), "feeder exited 0");
		}
	}
	{
		/* At the end: what there is, and nothing for an empty input. */
		struct rd *r;
		size_t n;
		unit_write_file(p, "ab\n", 3);
		r = rd_open(p);
		rd_peek(r, 100, &n);
		CHECK_MSG(n == 3 && !rd_error(r), "rd_peek past the end: %zu bytes", n);
		rd_close(r);
		unit_write_file(p, "", 0);
		r = rd_open(p);
		rd_peek(r, 100, &n);
		CHECK_MSG(n == 0 && !rd_error(r), "rd_peek of an empty file: %zu bytes", n);
		rd_close(r);
	}
	text_free(&t);
}

static void test_wr_open(void)
{
	const char *target = unit_path("out.rec");
	char first[256], *b;
	size_t n;
	struct wr *w;
	struct stat st;
	mode_t mask;
	int k;

	/* The target appears only at wr_close. */
	w = wr_open(target, 0);
	CHECK_MSG(w != NULL, "wr_open %s", target);
	if (!w)
		return;
	CHECK_MSG(!strcmp(wr_name(w), target), "wr_name is the target");
	for (k = 0; k < 200000; k++)
		wr_printf(w, "line %d\n", k);
	CHECK_MSG(wr_flush(w) == 0, "wr_flush");
	CHECK_MSG(!file_exists(target), "the target does not exist before wr_close");
	CHECK_MSG(dir_entries(unit_dir, first, sizeof first) == 1 && !strncmp(first, "out.rec", 7) && strcmp(first, "out.rec"),
		  "a temporary sibling of the target is written (%s)", first);
	CHECK_MSG(wr_close(w) == 0, "wr_close");
	CHECK_MSG(file_exists(target), "the target exists after wr_close");
	CHECK_MSG(dir_entries(unit_dir, first, sizeof first) == 1 && !strcmp(first, "out.rec"),
		  "only the target is left (%s)", first);
	b = unit_read_file(target, &n);
	CHECK_MSG(b && n > 1000000 && !memcmp(b, "line 0\nline 1\n", 14) && !memcmp(b + n - 12, "line 199999\n", 12),
		  "the target holds what was written (%zu bytes)", n);
	free(b);
	/* A new file: an output file's mode, 0640 less the umask. */
	mask = umask(0);
	umask(mask);
	CHECK_MSG(stat(target, &st) == 0 && (st.st_mode & 0777) == (0640 & ~mask), "mode %o, want %o",
		  (unsigned)(st.st_mode & 0777), (unsigned)(0640 & ~mask));
	CHECK_INT(io_file_mode(), 0640 & ~mask);
	CHECK_INT(io_dir_mode(), 0750 & ~mask);

	/* Replacing an existing file keeps its permissions, as open(2) with
	 * O_TRUNC would (a private file must not become world-readable). */
	chmod(target, 0600);
	w = wr_open(target, 0);
	wr_puts(w, "private\n");
	CHECK_MSG(wr_close(w) == 0, "wr_close over a 0600 file");
	CHECK_MSG(stat(target, &st) == 0 && (st.st_mode & 0777) == 0600,
		  "an existing 0600 target keeps mode 0600 when replaced (got %o)", (unsigned)(st.st_mode & 0777));
	chmod(target, 0644);

	/* wr_abort keeps the previous target untouched. */
	unit_write_file(target, "old\n", 4);
	w = wr_open(target, 0);
	wr_puts(w, "new content\n");
	wr_flush(w);
	b = unit_read_file(target, &n);
	CHECK_MSG(b && n == 4 && !memcmp(b, "old\n", 4), "the old target is untouched while writing");
	free(b);
	wr_abort(w);
	b = unit_read_file(target, &n);
	CHECK_MSG(b && n == 4 && !memcmp(b, "old\n", 4), "wr_abort keeps the old target");
	free(b);
	CHECK_MSG(dir_entries(unit_dir, first, sizeof first) == 1, "wr_abort removes the temporary file (%s)", first);

	/* wr_close replaces it. */
	w = wr_open(target, WR_LZ4);
	wr_puts(w, "new content\n");
	CHECK_MSG(wr_close(w) == 0, "wr_close over an existing target");
	{
		struct rd *r = rd_open(target);
		const char *line;
		size_t len;
		line = r ? rd_line(r, &len) : NULL;
		CHECK_MSG(line && len == 11 && !memcmp(line, "new content", 11), "wr_close replaced the target (lz4)");
		rd_close(r);
	}
	unlink(target);

	/* wr_abort with no previous target leaves nothing. */
	w = wr_open(target, 0);
	wr_puts(w, "discard me\n");
	wr_flush(w);
	wr_abort(w);
	CHECK_MSG(!file_exists(target) && dir_entries(unit_dir, first, sizeof first) == 0,
		  "wr_abort leaves no file (%s)", first);
	wr_abort(NULL);

	/* A record bigger than the buffer, and long printf output. */
	{
		size_t big = 3 * MiB + 5, i, len;
		struct rd *r;
		const char *line;
		int fl;
		for (fl = 0; fl <= WR_LZ4; fl += WR_LZ4) {
			char *o, longs[3000];
			w = wr_open(target, fl);
			wr_puts(w, "head\n");
			o = wr_reserve(w, big);
			for (i = 0; i < big - 1; i++)
				o[i] = (char)('a' + i % 26);
			o[big - 1] = '\n';
			wr_commit(w, big);
			memset(longs, 'q', sizeof longs - 1);
			longs[sizeof longs - 1] = 0;
			wr_printf(w, "%s|%d\n", longs, 42);
			wr_putc(w, 'e');
			CHECK_MSG(wr_close(w) == 0, "wr_close after a 3 MiB reserve (flags %d)", fl);
			r = rd_open(target);
			line = rd_line(r, &len);
			CHECK_MSG(line && len == 4, "head");
			line = rd_line(r, &len);
			CHECK_MSG(line && len == big - 1 && line[0] == 'a' && line[len - 1] == (char)('a' + (big - 2) % 26),
				  "3 MiB reserved record (flags %d)", fl);
			line = rd_line(r, &len);
			CHECK_MSG(line && len == sizeof longs - 1 + 3 && !memcmp(line + len - 3, "|42", 3),
				  "wr_printf of 3000 bytes (flags %d)", fl);
			line = rd_line(r, &len);
			CHECK_MSG(line && len == 1 && line[0] == 'e', "wr_putc (flags %d)", fl);
			rd_close(r);
		}
		unlink(target);
	}
}

/* Targets that are not regular files. */
static void test_wr_special(void)
{
	const char *fifo = unit_path("fifo"), *sub = unit_path("subdir");
	struct wr *w;
	struct stat st;
	struct rd *r;

	/* A directory: refused, for writing and (as an error) for reading. */
	mkdir(sub, 0755);
	errno = 0;
	w = wr_open(sub, 0);
	CHECK_MSG(w == NULL && errno == EISDIR, "wr_open of a directory: EISDIR (errno %d)", errno);
	if (w)
		wr_abort(w);
	r = rd_open(sub);
	{
		size_t len;
		CHECK_MSG(r == NULL || (!rd_line(r, &len) && rd_error(r) != 0), "rd_open of a directory is an error");
	}
	rd_close(r);
	rmdir(sub);

	/* A FIFO is written in place, not replaced by a file. */
	if (mkfifo(fifo, 0600) == 0) {
		pid_t pid;
		int fds[2];
		if (pipe(fds))
			return;
		pid = fork();
		if (pid == 0) {
			char b[64];
			ssize_t k, got = 0;
			int fd = open(fifo, O_RDONLY);
			close(fds[0]);
			while (fd >= 0 && (k = read(fd, b + got, sizeof b - (size_t)got)) > 0)
				got += k;
			if (write(fds[1], b, (size_t)got) < 0)
				_exit(1);
			_exit(0);
		}
		close(fds[1]);
		w = wr_open(fifo, 0);
		CHECK_MSG(w != NULL, "wr_open of a FIFO");
		if (w) {
			char b[64];
			ssize_t k;
			wr_puts(w, "through the fifo\n");
			CHECK_MSG(wr_close(w) == 0, "wr_close of a FIFO");
			k = read(fds[0], b, sizeof b);
			CHECK_MSG(k == 17 && !memcmp(b, "through the fifo\n", 17), "the FIFO's reader got the data");
		}
		close(fds[0]);
		waitpid(pid, NULL, 0);
		CHECK_MSG(lstat(fifo, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO is still a FIFO");
		unlink(fifo);
	}
}

static void test_epipe(void)
{
	int fds[2], fl;
	static char block[64 * 1024];

	/* Without cli_init's SIGPIPE handling this test would be killed. */
	cli_init("test_io");
	memset(block, 'x', sizeof block);
	for (fl = 0; fl <= WR_LZ4; fl += WR_LZ4) {
		struct wr *w;
		int i;
		if (pipe(fds))
			return;
		close(fds[0]);
		w = wr_fdopen(fds[1], "closed pipe", fl);
		wr_puts(w, "hello\n");
		CHECK_MSG(wr_flush(w) == EPIPE, "wr_flush to a closed pipe: EPIPE (flags %d)", fl);
		CHECK_MSG(wr_error(w) == EPIPE, "wr_error is EPIPE (flags %d, got %d)", fl, wr_error(w));
		for (i = 0; i < 64; i++)
			wr_put(w, block, sizeof block);
		CHECK_MSG(wr_error(w) == EPIPE, "wr_error stays EPIPE (flags %d)", fl);
		CHECK_MSG(wr_close(w) == EPIPE, "wr_close reports EPIPE (flags %d)", fl);
		close(fds[1]);
	}

	/* A reader that goes away after a while (like head -n 1). */
	if (pipe(fds) == 0) {
		pid_t pid = fork();
		if (pid == 0) {
			char b[100];
			close(fds[1]);
			if (read(fds[0], b, sizeof b) < 0)
				_exit(1);
			_exit(0);
		}
		close(fds[0]);
		{
			struct wr *w = wr_fdopen_buf(fds[1], "pipe to head", 0, 4096);
			int i;
			for (i = 0; i < 100000 && !wr_error(w); i++)
				wr_printf(w, "record %d\n", i);
			CHECK_MSG(wr_error(w) == EPIPE, "writing to a reader that exits: EPIPE (after %d records)", i);
			CHECK_MSG(wr_close(w) == EPIPE, "wr_close: EPIPE");
		}
		close(fds[1]);
		waitpid(pid, NULL, 0);
	}
}

/* io_rm_tree: a whole tree goes, a symbolic link in it goes without what
 * it names. */
static void test_rm_tree(void)
{
	char top[1200], p[1300], keep[1200];
	struct stat st;
	int fd;

	snprintf(top, sizeof top, "%s/rmtree", unit_dir);
	snprintf(keep, sizeof keep, "%s/rmtree-keep", unit_dir);
	CHECK_MSG(mkdir(top, 0700) == 0, "io_rm_tree, line %d", __LINE__);
	snprintf(p, sizeof p, "%s/a", top);
	CHECK_MSG(mkdir(p, 0700) == 0, "io_rm_tree, line %d", __LINE__);
	snprintf(p, sizeof p, "%s/a/b", top);
	CHECK_MSG(mkdir(p, 0700) == 0, "io_rm_tree, line %d", __LINE__);
	snprintf(p, sizeof p, "%s/a/b/f", top);
	fd = open(p, O_CREAT | O_WRONLY, 0600);
	CHECK_MSG(fd >= 0, "io_rm_tree, line %d", __LINE__);
	if (fd >= 0)
		close(fd);
	fd = open(keep, O_CREAT | O_WRONLY, 0600);
	CHECK_MSG(fd >= 0, "io_rm_tree, line %d", __LINE__);
	if (fd >= 0)
		close(fd);
	snprintf(p, sizeof p, "%s/link", top);
	CHECK_MSG(symlink(keep, p) == 0, "io_rm_tree, line %d", __LINE__);
	CHECK_MSG(io_rm_tree(top) == 0, "io_rm_tree, line %d", __LINE__);
	CHECK_MSG(lstat(top, &st) != 0 && errno == ENOENT, "io_rm_tree, line %d", __LINE__);
	CHECK_MSG(stat(keep, &st) == 0, "io_rm_tree, line %d", __LINE__);
	unlink(keep);
	/* A plain file alone, and a path that is not there. */
	fd = open(keep, O_CREAT | O_WRONLY, 0600);
	if (fd >= 0)
		close(fd);
	CHECK_MSG(io_rm_tree(keep) == 0 && stat(keep, &st) != 0, "io_rm_tree, line %d", __LINE__);
	CHECK_MSG(io_rm_tree(keep) == -1 && errno == ENOENT, "io_rm_tree, line %d", __LINE__);
}

/* io_pread_full: the bytes asked for at an offset, fewer only at the
 * end, -1 on a descriptor that cannot be read. */
static void test_pread_full(void)
{
	const char *f = unit_path("pread");
	char buf[16];
	int fd;

	unit_write_file(f, "0123456789", 10);
	fd = open(f, O_RDONLY);
	CHECK_MSG(fd >= 0, "io_pread_full, line %d", __LINE__);
	CHECK(io_pread_full(fd, buf, 4, 3) == 4 && !memcmp(buf, "3456", 4));
	CHECK(io_pread_full(fd, buf, sizeof buf, 6) == 4 && !memcmp(buf, "6789", 4));
	CHECK(io_pread_full(fd, buf, 4, 10) == 0);
	close(fd);
	CHECK(io_pread_full(fd, buf, 4, 0) == -1 && errno == EBADF);
	unlink(f);
}

/* io_out_dir follows a link the user named; io_tree_dir makes or takes
 * a real directory and refuses a link planted where it goes. */
static void test_out_dirs(void)
{
	char d[1200], l[1200], f[1200], dl[1200], sub[1300];

	snprintf(d, sizeof d, "%s/outdir", unit_dir);
	snprintf(l, sizeof l, "%s/outlink", unit_dir);
	snprintf(f, sizeof f, "%s/outfile", unit_dir);
	snprintf(dl, sizeof dl, "%s/dangling", unit_dir);
	CHECK(io_out_dir(d) == 0);
	CHECK(mkdir(d, 0700) == 0 && io_out_dir(d) == 1);
	CHECK(symlink(d, l) == 0 && io_out_dir(l) == 1);
	unit_write_file(f, "x", 1);
	CHECK(io_out_dir(f) == -1 && errno == ENOTDIR);
	CHECK(symlink("no-such-target", dl) == 0 && io_out_dir(dl) == -1 && errno == ENOTDIR);
	/* inside: made, then taken; a link there (to a directory) refused */
	snprintf(sub, sizeof sub, "%s/core0", d);
	CHECK(io_tree_dir(sub) == 1 && io_tree_dir(sub) == 0);
	snprintf(sub, sizeof sub, "%s/planted", d);
	CHECK(symlink(d, sub) == 0 && io_tree_dir(sub) == -1 && errno == ENOTDIR);
	CHECK(io_tree_dir(f) == -1 && errno == ENOTDIR);
	CHECK(io_tree_dir(dl) == -1 && errno == ENOTDIR);
	snprintf(sub, sizeof sub, "%s/no/such", d);
	CHECK(io_tree_dir(sub) == -1 && errno == ENOENT);
	io_rm_tree(d);
	unlink(l);
	unlink(f);
	unlink(dl);
}

/* What io_check_input says on stderr (up to n bytes into buf), and its
 * result. */
static int check_input(const char *path, const char *kind, uint64_t limit, char *buf, size_t n)
{
	int fd = dup(2), tmp = io_tmpfd(), rc;
	ssize_t got;

	fflush(stderr);
	dup2(tmp, 2);
	rc = io_check_input(path, kind, limit);
	fflush(stderr);
	dup2(fd, 2);
	close(fd);
	got = pread(tmp, buf, n - 1, 0);
	buf[got > 0 ? got : 0] = 0;
	close(tmp);
	return rc;
}

static void test_check_input(void)
{
	char d[1200], f[1300], l[1300], via[1400], msg[1024];
	char big[1300];
	int fd;

	snprintf(d, sizeof d, "%s/inputs", unit_dir);
	snprintf(f, sizeof f, "%s/core0.instr_log.dump", d);
	snprintf(l, sizeof l, "%s/link", unit_dir);
	snprintf(via, sizeof via, "%s/core0.instr_log.dump", l);
	snprintf(big, sizeof big, "%s/big.dump", d);
	CHECK(mkdir(d, 0755) == 0);
	unit_write_file(f, "x\n", 2);
	chmod(f, 0644);
	/* a plain file of the caller: nothing to say */
	CHECK(check_input(f, "dump log", 100, msg, sizeof msg) == 0);
	CHECK_MSG(!msg[0], "said: %s", msg);
	/* a link on the path: followed, and said (for root too) */
	CHECK(symlink(d, l) == 0);
	CHECK(check_input(via, "dump log", 100, msg, sizeof msg) == 0);
	CHECK_MSG(strstr(msg, via) && strstr(msg, "symbolic link") && strchr(msg, '\n') == msg + strlen(msg) - 1,
		  "one line naming the path: %s", msg);
	/* writable by others: said, unless the caller is root (as the
	 * reference, which leaves root alone) */
	chmod(f, 0666);
	CHECK(check_input(f, "dump log", 100, msg, sizeof msg) == 0);
	if (getuid() == 0)
		CHECK_MSG(!msg[0], "root: said %s", msg);
	else
		CHECK_MSG(strstr(msg, f) && strstr(msg, "writable by others"), "said: %s", msg);
	chmod(f, 0644);
	/* over the limit: refused, naming the file, the kind and the limit */
	fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0 && ftruncate(fd, (off_t)(1ull << 30) + 1) == 0);
	close(fd);
	CHECK(check_input(big, "dump log", 1ull << 30, msg, sizeof msg) == -1);
	CHECK_MSG(strstr(msg, big) && strstr(msg, "1073741825 bytes") && strstr(msg, "dump log") &&
		  strstr(msg, "1 GiB"), "said: %s", msg);
	/* exactly at the limit, no limit, or the limits lifted: taken */
	CHECK(truncate(big, (off_t)(1ull << 30)) == 0);
	CHECK(check_input(big, "dump log", 1ull << 30, msg, sizeof msg) == 0 && !msg[0]);
	CHECK(truncate(big, (off_t)(1ull << 30) + 1) == 0);
	CHECK(check_input(big, "dump log", 0, msg, sizeof msg) == 0);
	setenv("OPTRACE_INPUT_LIMITS", "off", 1);
	CHECK(check_input(big, "dump log", 1ull << 30, msg, sizeof msg) == 0);
	unsetenv("OPTRACE_INPUT_LIMITS");
	/* warnings said once by a recipe: later runs only check the limit */
	setenv("OPTRACE_INPUT_WARNED", "1", 1);
	CHECK(check_input(via, "dump log", 100, msg, sizeof msg) == 0 && !msg[0]);
	CHECK(check_input(big, "dump log", 1ull << 30, msg, sizeof msg) == -1 && msg[0]);
	unsetenv("OPTRACE_INPUT_WARNED");
	/* what is not there is for the caller's open to say */
	snprintf(big, sizeof big, "%s/none", d);
	CHECK(check_input(big, "dump log", 100, msg, sizeof msg) == 0 && !msg[0]);
	unlink(l);
	io_rm_tree(d);
}

/* io_tree_dir makes an output tree's directory: 0750 less the umask. */
static void test_tree_dir_mode(void)
{
	char d[1200];
	struct stat st;
	snprintf(d, sizeof d, "%s/treemode", unit_dir);
	CHECK(io_tree_dir(d) == 1);
	CHECK_MSG(stat(d, &st) == 0 && (st.st_mode & 0777) == io_dir_mode(), "mode %o",
		  (unsigned)(st.st_mode & 0777));
	rmdir(d);
}

int main(void)
{
	char cmd[4200];

	unit_workdir("test_io");
	test_small_cases();
	test_lines_file();
	test_long_lines();
	test_rd_read();
	test_rd_map();
	test_rd_peek();
	test_lz4();
	test_lz4_sniff_split();
	/* test_wr_open counts the files of the directory: start empty. */
	snprintf(cmd, sizeof cmd, "rm -rf '%s'/* '%s'/.[!.]* 2>/dev/null", unit_dir, unit_dir);
	if (system(cmd) != 0) { /* ignore */
	}
	test_wr_open();
	test_wr_special();
	test_epipe();
	test_rm_tree();
	test_pread_full();
	test_out_dirs();
	test_check_input();
	test_tree_dir_mode();
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", unit_dir);
	if (system(cmd) != 0)
		printf("test_io.c: note: could not remove %s\n", unit_dir);
	return unit_done();
}
