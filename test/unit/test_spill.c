/* Unit tests of lib/spill.c: record spools, the external sort and byte
 * spools, in memory and through temporary files.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "spill.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#include "unit.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { return unit_xorshift(&rng); }

struct r16 { uint64_t key, seq; };
struct r40 { uint64_t key, seq, a, b; uint32_t c, pad; };

static int cmp16(const void *a, const void *b)
{
	const struct r16 *x = a, *y = b;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Appended, read back in order twice and by index, n records of 16 or 40
 * bytes (beyond SPILL_MEM: through the file). */
static void test_spool(uint64_t n, size_t rs)
{
	struct spill s;
	struct r40 e, g;
	uint64_t i, bad = 0;
	int round;

	spill_init(&s, rs);
	memset(&e, 0, sizeof e);
	for (i = 0; i < n; i++) {
		e.key = i * 7919;
		e.seq = i;
		e.c = (uint32_t)i;
		spill_put(&s, &e);
	}
	CHECK_MSG(s.n == n && (n * rs > SPILL_MEM) == (s.fd >= 0), "%llu records of %zu: in a file %d",
	      (unsigned long long)n, rs, s.fd >= 0);
	for (round = 0; round < 2; round++) {
		spill_rewind(&s);
		for (i = 0; spill_next(&s, &g); i++)
			bad += g.key != i * 7919 || g.seq != i || (rs == 40 && g.c != (uint32_t)i);
		CHECK_MSG(i == n && !bad, "read back %d: %llu of %llu, %llu wrong", round, (unsigned long long)i,
		      (unsigned long long)n, (unsigned long long)bad);
	}
	for (i = 0; n && i < 1000; i++) {
		uint64_t k = rnd() % n;
		spill_at(&s, k, &g);
		bad += g.key != k * 7919 || g.seq != k;
	}
	CHECK_MSG(!bad, "spill_at: %llu wrong", (unsigned long long)bad);
	spill_free(&s);
}

/* Sorted through spill_sort_into: in order, and every record once. */
static void test_sort_into(uint64_t n, uint64_t keys)
{
	struct spill in, out;
	struct r16 e, prev = { 0, 0 };
	uint64_t i, sum = 0, got = 0, disorder = 0;

	spill_init(&in, sizeof e);
	for (i = 0; i < n; i++) {
		e.key = rnd() % keys;
		e.seq = i;
		sum += e.key ^ e.seq;
		spill_put(&in, &e);
	}
	spill_sort_into(&in, &out, cmp16);
	while (spill_next(&out, &e)) {
		if (got && cmp16(&prev, &e) >= 0)
			disorder++;
		sum -= e.key ^ e.seq;
		prev = e;
		got++;
	}
	CHECK_MSG(got == n && !disorder && !sum, "spill_sort_into of %llu: %llu out, %llu out of order, sum %llu",
	      (unsigned long long)n, (unsigned long long)got, (unsigned long long)disorder,
	      (unsigned long long)sum);
	spill_free(&out);
}

static int no_fd(void)
{
	errno = ENOENT;
	return -1;
}

/* The sorter itself: runs of run records, fanned in; equal keys of the
 * comparator come out in an order that is still a permutation. */
static void test_sorter(uint64_t n, size_t run, int (*tmpfd)(void), const char *what)
{
	struct spill_sort *s = spill_sort_new(sizeof(struct r16), cmp16, run, 1, tmpfd);
	struct r16 e, prev = { 0, 0 };
	const struct r16 *r;
	uint64_t i, sum = 0, got = 0, disorder = 0;

	for (i = 0; i < n; i++) {
		e.key = rnd() % 1000;
		e.seq = rnd();
		sum += e.key * 3 + e.seq;
		spill_sort_add(s, &e);
	}
	CHECK_MSG(spill_sort_count(s) == n, "%s: count", what);
	CHECK_MSG(spill_sort_done(s) == 0, "%s: sort: %s", what, strerror(spill_sort_error(s)));
	while ((r = spill_sort_next(s))) {
		if (got && cmp16(&prev, r) > 0)
			disorder++;
		sum -= r->key * 3 + r->seq;
		prev = *r;
		got++;
	}
	CHECK_MSG(got == n && !disorder && !sum && !spill_sort_error(s), "%s: %llu of %llu out, %llu out of order",
	      what, (unsigned long long)got, (unsigned long long)n, (unsigned long long)disorder);
	CHECK_MSG(spill_sort_next(s) == NULL, "%s: nothing after the end", what);
	spill_sort_free(s);
}

/* A temporary file that cannot be made ends the run of a sorter that is
 * not told to keep going, and of a record spool: exit 4, one message. */
static void test_fatal(int which)
{
	pid_t pid;
	int st = 0;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct r16 e = { 1, 2 };
		uint64_t i;
		setenv("TMPDIR", "/nonexistent/optrace-test", 1);
		freopen("/dev/null", "w", stderr);
		if (which) {
			struct spill s;
			spill_init(&s, sizeof e);
			for (i = 0; i < 10000; i++)
				spill_put(&s, &e);
		} else {
			struct spill_sort *s = spill_sort_new(sizeof e, cmp16, 16, 0, NULL);
			for (i = 0; i < 100; i++)
				spill_sort_add(s, &e);
		}
		_exit(0);
	}
	waitpid(pid, &st, 0);
	CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == EXIT_IO, "%s without a temporary file: status %d",
	      which ? "a spool" : "a sorter", st);
}

/* Byte spools: frames of any length, past the memory budget. */
static void test_bytes(void)
{
	struct spill_bytes *a, *b;
	static char buf[70000], got[70000];
	uint64_t i, bad = 0;
	int round;

	spill_bytes_budget(1u << 20);   /* one chunk for both spools */
	a = spill_bytes_new();
	b = spill_bytes_new();
	for (i = 0; i < 3000; i++) {
		uint32_t n = (uint32_t)(i * 37 % 4000);
		memset(buf, (int)(i & 0xff), n);
		spill_bytes_put(a, &n, 4);
		spill_bytes_put(a, buf, n);
		spill_bytes_put(b, &i, sizeof i);
	}
	for (round = 0; round < 2; round++) {
		spill_bytes_rewind(a);
		spill_bytes_rewind(b);
		for (i = 0; i < 3000; i++) {
			uint32_t n;
			uint64_t j;
			const char *p;
			if (spill_bytes_get(a, &n, 4) != 4 || n != i * 37 % 4000) {
				bad++;
				break;
			}
			if (i % 3 == 0) {
				bad += spill_bytes_skip(a, n) != n;
			} else if (n && (p = spill_bytes_next(a, n, got))) {
				bad += (unsigned char)p[0] != (i & 0xff) || (unsigned char)p[n - 1] != (i & 0xff);
			} else if (n) {
				bad++;
			}
			bad += spill_bytes_get(b, &j, sizeof j) != sizeof j || j != i;
		}
		CHECK_MSG(!bad && spill_bytes_get(a, got, 1) == 0 && spill_bytes_next(b, 8, got) == NULL,
		      "byte spools, reading %d: %llu wrong", round, (unsigned long long)bad);
	}
	spill_bytes_free(a);
	spill_bytes_free(b);
	spill_bytes_release();
}

int main(int argc, char **argv)
{
	(void)argc;
	cli_init(argv[0]);
	test_spool(0, 16);
	test_spool(100, 16);
	test_spool(SPILL_MEM / 16, 16);
	test_spool(100000, 16);
	test_spool(50000, 40);
	test_sort_into(1000, 50);
	test_sort_into(700000, 1u << 30);      /* three runs of 4 MiB */
	test_sort_into(300000, 10);
	test_sorter(1000, 1u << 20, NULL, "in memory");
	test_sorter(SPILL_SORT_FANIN * 3 * 16 + 7, 16, NULL, "merges of merges");
	test_sorter(20000, 16, no_fd, "no temporary file: in memory");
	test_fatal(0);
	test_fatal(1);
	test_bytes();
	return unit_done();
}
