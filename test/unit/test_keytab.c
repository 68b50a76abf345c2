/* Unit tests of lib/keytab.c: insert, find, delete with backward shift
 * (every key still found after any deletions), growth, iteration, index
 * values, tables of two-word keys, and the hashes.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "keytab.h"

#include <stdio.h>

#include "unit.h"
#include <stdlib.h>
#include <string.h>

#define CHECK_QUIET(c) do { if (!(c)) unit_check(0, __FILE__, __LINE__, #c); } while (0)
struct val {
	uint64_t a;
	uint32_t b;
};

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) { return unit_xorshift(&rnd_state); }

/* Random inserts and deletes against a plain array of what should be in. */
static void test_model(unsigned load4)
{
	enum { NKEY = 3000, STEPS = 60000 };
	static uint64_t keys[NKEY];
	static int in[NKEY];
	struct keytab t = keytab_make(sizeof(struct val), load4);
	size_t i, n = 0, bad = 0;
	int fresh;

	memset(in, 0, sizeof in);
	/* pcs: 4-aligned and dense, plus a few wild ones (0 and ~0 too). */
	for (i = 0; i < NKEY; i++)
		keys[i] = i < 3 ? (i == 0 ? 0 : i == 1 ? UINT64_MAX : 1ull << 63) :
		          i % 10 ? 0x10f86000 + 4 * i : rnd();
	for (i = 0; i < STEPS; i++) {
		size_t k = (size_t)(rnd() % NKEY);
		if (rnd() % 3) {
			struct val *v = keytab_get(&t, keys[k], &fresh);
			if (fresh != !in[k] || (fresh && (v->a || v->b)))
				bad++;
			if (fresh)
				n++;
			v->a = keys[k] ^ 0x5555;
			v->b = (uint32_t)k;
			in[k] = 1;
		} else {
			keytab_del(&t, keys[k]);
			if (in[k])
				n--;
			in[k] = 0;
		}
		if (i % 997 == 0) {
			size_t j;
			for (j = 0; j < NKEY; j++) {
				struct val *v = keytab_find(&t, keys[j]);
				if (in[j] ? !v || v->a != (keys[j] ^ 0x5555) || v->b != j : v != NULL)
					bad++;
			}
		}
	}
	CHECK(bad == 0);
	CHECK(t.n == n);
	CHECK(t.cap * (load4 ? load4 : 2) >= 4 * t.n);
	/* Iteration sees every member once. */
	{
		size_t seen = 0, j;
		uint64_t key;
		for (j = 0; j < t.cap; j++) {
			struct val *v = keytab_at(&t, j, &key);
			if (v && v->a == (key ^ 0x5555) && in[v->b] && keys[v->b] == key)
				seen++;
		}
		CHECK(seen == n);
	}
	keytab_free(&t);
	CHECK(t.cap == 0 && t.n == 0 && keytab_find(&t, 1) == NULL);
	keytab_del(&t, 1);  /* harmless on an empty table */
}

/* Two-word keys: random inserts and deletes of (file, id) pairs, many
 * sharing one word, against a plain array, with index values. */
static void test_pairs(void)
{
	enum { NKEY = 2000, STEPS = 40000 };
	static uint64_t ka[NKEY], kb[NKEY];
	static int in[NKEY];
	struct keytab t = keytab_make2(sizeof(uint32_t), 0);
	size_t i, n = 0, bad = 0;
	int fresh;

	memset(in, 0, sizeof in);
	for (i = 0; i < NKEY; i++) {
		ka[i] = i % 7;                      /* few files ... */
		kb[i] = i % 5 ? i / 7 : rnd();      /* ... dense ids, some wild */
	}
	for (i = 0; i < STEPS; i++) {
		size_t k = (size_t)(rnd() % NKEY);
		if (rnd() % 3) {
			uint32_t *v = keytab_get2(&t, ka[k], kb[k], &fresh);
			if (fresh != !in[k] || (fresh && *v))
				bad++;
			n += (size_t)fresh;
			*v = (uint32_t)k;
			in[k] = 1;
		} else {
			keytab_del2(&t, ka[k], kb[k]);
			if (in[k])
				n--;
			in[k] = 0;
		}
		if (i % 991 == 0) {
			size_t j;
			for (j = 0; j < NKEY; j++) {
				uint32_t *v = keytab_find2(&t, ka[j], kb[j]);
				if (in[j] ? !v || *v != j : v != NULL)
					bad++;
			}
		}
	}
	CHECK(bad == 0);
	CHECK(t.n == n);
	/* The words are not interchangeable: (1, 2) is not (2, 1). */
	keytab_free(&t);
	*(uint32_t *)keytab_get2(&t, 1, 2, NULL) = 7;
	CHECK(keytab_find2(&t, 2, 1) == NULL && *(uint32_t *)keytab_find2(&t, 1, 2) == 7);
	keytab_del2(&t, 2, 1);
	CHECK(t.n == 1);
	keytab_free(&t);
	CHECK(keytab_find2(&t, 1, 2) == NULL);
	keytab_del2(&t, 1, 2);  /* harmless on an empty table */
}

static void test_index(void)
{
	struct keytab t = keytab_make(sizeof(uint32_t), 0);
	uint64_t pcs[] = { 0x1000, 0x1004, 0x2000, 0x1000 };
	uint32_t next = 0, i;
	int fresh;
	CHECK(keytab_index(&t, 0x1000) == UINT32_MAX);
	for (i = 0; i < 4; i++) {
		uint32_t *v = keytab_get(&t, pcs[i], &fresh);
		if (fresh)
			*v = next++;
	}
	CHECK(next == 3);
	CHECK(keytab_index(&t, 0x1000) == 0 && keytab_index(&t, 0x1004) == 1 && keytab_index(&t, 0x2000) == 2);
	CHECK(keytab_index(&t, 0x1008) == UINT32_MAX);
	CHECK(keytab_get(&t, 0x2000, NULL) == keytab_find(&t, 0x2000));
	keytab_free(&t);
}

static void test_set(void)
{
	struct keytab t = keytab_make(0, 0);
	int fresh, news = 0, i;
	for (i = 0; i < 1000; i++) {
		CHECK_QUIET(keytab_get(&t, (uint64_t)(i % 300) * 4, &fresh) != NULL);
		news += fresh;
	}
	CHECK(news == 300 && t.n == 300);
	CHECK(keytab_find(&t, 4 * 299) != NULL && keytab_find(&t, 4 * 300) == NULL);
	keytab_free(&t);
}

static void test_hash(void)
{
	/* FNV-1a: the published values of "" and "a". */
	CHECK(hash_fnv("", 0, HASH_FNV_INIT) == 0x811c9dc5u);
	CHECK(hash_fnv("a", 1, HASH_FNV_INIT) == 0xe40c292cu);
	CHECK(hash_fnv("bc", 2, hash_fnv("a", 1, HASH_FNV_INIT)) == hash_fnv("abc", 3, HASH_FNV_INIT));

	/* The word hash reads every byte, the tail too, and the length. */
	{
		const char *d = "XD:X29=0x7f80,IMM:0x7f80,FLAGID:3,";
		size_t dn = strlen(d);
		char e[64];
		memcpy(e, d, dn);
		CHECK(hash_words(d, dn) == hash_words(e, dn));
		e[dn - 2] = '4';
		CHECK(hash_words(d, dn) != hash_words(e, dn));
		e[dn - 2] = '3';
		e[1] = 'E';
		CHECK(hash_words(d, dn) != hash_words(e, dn));
		CHECK(hash_words(d, 8) != hash_words(d, 9) && hash_words("", 0) != hash_words("\0", 1));
	}

	/* The finaliser maps 0 to 0 and spreads neighbours over the low bits. */
	unsigned seen[64] = { 0 }, used = 0, i;
	CHECK(hash_u64(0) == 0);
	CHECK(hash_u64(1) != 1 && hash_u64(1) != hash_u64(2));
	for (i = 0; i < 64; i++)
		seen[hash_u64(0x10f86000 + 4 * i) & 63] = 1;
	for (i = 0; i < 64; i++)
		used += seen[i];
	CHECK(used > 32);
}

/* Dense runs of keys (pcs 4 apart, ids 1 apart, a kernel's pcs at any
 * base) sit in their home slots: a lookup finds them at the first try. */
static void test_dense(void)
{
	static const uint64_t base[] = { 0, 0x10f86000, 0x7ff000001234ull, 0x1234567800000000ull };
	static const uint64_t step[] = { 1, 4, 16 };
	size_t b, s, i, n = 3000;

	for (b = 0; b < sizeof base / sizeof *base; b++)
		for (s = 0; s < sizeof step / sizeof *step; s++) {
			struct keytab t = keytab_make(sizeof(uint32_t), 0);
			size_t home = 0, all = 0;
			uint64_t key;
			for (i = 0; i < n; i++)
				keytab_get(&t, base[b] + step[s] * i, NULL);
			for (i = 0; i < t.cap; i++)
				if (keytab_at(&t, i, &key)) {
					all++;
					home += keytab_slot(&t, key) == i;
				}
			CHECK(all == n);
			CHECK_MSG(home * 10 >= all * 9, "dense keys out of their home slot");
			keytab_free(&t);
		}
}

int main(void)
{
	test_model(0);
	test_model(1);
	test_model(3);
	test_pairs();
	test_index();
	test_set();
	test_hash();
	test_dense();
	return unit_done();
}
