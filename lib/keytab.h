/* An open-addressing hash table from a 64-bit key (a pc, an instruction
 * id) to a fixed-size value kept in the table: a small struct, or the
 * index of an entry in the caller's own array when the entries must stay
 * in their order or in place.  Linear probing, deletion by backward shift
 * (no tombstones), the size a power of two. */
#ifndef OPTRACE_KEYTAB_H
#define OPTRACE_KEYTAB_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The hash of the tools' 64-bit keys: pcs and ids are dense and 4-aligned,
 * so the bits are mixed (the finaliser of MurmurHash3) before the low ones
 * pick a slot. */
static inline uint64_t hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/* The hash of short strings (lane, core and file:line names), FNV-1a,
 * continuing from h: HASH_FNV_INIT to start, or an earlier result to hash
 * several fields as one key. */
#define HASH_FNV_INIT 2166136261u
static inline uint32_t hash_fnv(const char *s, size_t n, uint32_t h)
{
	while (n--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* The hash of longer strings (a flag's detail, tens of bytes), eight
 * bytes a step: a byte loop costs several times as much there. */
static inline uint32_t hash_words(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;
	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	return (uint32_t)h;
}

/* The hash of a two-word key (a table index and an id): the first word
 * spread before the second joins, then the same finaliser. */
static inline uint64_t hash_u64x2(uint64_t a, uint64_t b)
{
	return hash_u64(a * 0x9e3779b97f4a7c15ULL ^ b);
}

struct keytab {
	uint64_t *keys;             /* two per slot in a table of pairs */
	unsigned char *used;
	char *vals;
	size_t vsize, cap, n;
	/* The largest load, in quarters (1: at most a quarter full, short
	 * probes where many inserts and deletes mix; 0 means 2, half). */
	unsigned load4;
	unsigned pairs;             /* keys are (a, b) pairs: the *2 calls */
};

/* A table of values of vsize bytes (0 for a set of keys: keytab_get's
 * *fresh says whether the key is new); load4 as above. */
static inline struct keytab keytab_make(size_t vsize, unsigned load4)
{
	struct keytab t = { 0 };
	t.vsize = vsize;
	t.load4 = load4;
	return t;
}

/* The home slot of a one-word key: multiplicative hashing, a slot picked
 * by the bits from 17 up of the key times an odd constant.  The tools'
 * keys are dense runs of pcs and ids, which that spreads over the table
 * nearly without collisions (for a run of consecutive keys, consecutive
 * products step the same way through those bits), so that a lookup
 * nearly always finds its key in the first slot it tries; a mixing hash
 * puts a run's keys where chance puts them, a quarter of them out of
 * their home slot at half load.  Keys far apart (past 2^29) are folded
 * down first. */
static inline size_t keytab_slot(const struct keytab *t, uint64_t key)
{
	return (size_t)(((key ^ key >> 29) * 0x9e3779b97f4a7c15ULL) >> 17) & (t->cap - 1);
}

/* The value of key, NULL when absent.  Inline, as keytab_get's finding
 * half: the tools look a pc or an id up once or twice per record, where a
 * call costs a good part of the lookup. */
static inline void *keytab_find(const struct keytab *t, uint64_t key)
{
	size_t j, m;
	if (!t->cap)
		return NULL;
	m = t->cap - 1;
	for (j = keytab_slot(t, key); t->used[j]; j = (j + 1) & m)
		if (t->keys[j] == key)
			return t->vals + j * t->vsize;
	return NULL;
}

/* keytab_get's half for an absent key: insert it. */
void *keytab_insert(struct keytab *t, uint64_t key, int *fresh);

/* The value of key, created zero-filled when absent (*fresh, if not NULL,
 * says which).  Ends the run through cli_die when out of memory.  Value
 * pointers stay valid until the next insert. */
static inline void *keytab_get(struct keytab *t, uint64_t key, int *fresh)
{
	void *v = keytab_find(t, key);
	if (v) {
		if (fresh)
			*fresh = 0;
		return v;
	}
	return keytab_insert(t, key, fresh);
}
void keytab_del(struct keytab *t, uint64_t key);
/* Slot i (0 <= i < cap) in slot order: its value and *key, or NULL for an
 * empty slot.  The order follows the hash: sort before printing. */
void *keytab_at(const struct keytab *t, size_t i, uint64_t *key);
void keytab_free(struct keytab *t);

/* ---- tables of two-word keys (a, b) ----
 * The same table with a pair for a key: keytab_make2, then only the *2
 * calls on it (keytab_free as for any table). */
static inline struct keytab keytab_make2(size_t vsize, unsigned load4)
{
	struct keytab t = keytab_make(vsize, load4);
	t.pairs = 1;
	return t;
}

static inline void *keytab_find2(const struct keytab *t, uint64_t a, uint64_t b)
{
	size_t j, m;
	if (!t->cap)
		return NULL;
	m = t->cap - 1;
	for (j = (size_t)hash_u64x2(a, b) & m; t->used[j]; j = (j + 1) & m)
		if (t->keys[2 * j] == a && t->keys[2 * j + 1] == b)
			return t->vals + j * t->vsize;
	return NULL;
}

void *keytab_insert2(struct keytab *t, uint64_t a, uint64_t b, int *fresh);

/* The value of (a, b), created zero-filled when absent, as keytab_get. */
static inline void *keytab_get2(struct keytab *t, uint64_t a, uint64_t b, int *fresh)
{
	void *v = keytab_find2(t, a, b);
	if (v) {
		if (fresh)
			*fresh = 0;
		return v;
	}
	return keytab_insert2(t, a, b, fresh);
}

void keytab_del2(struct keytab *t, uint64_t a, uint64_t b);

/* The common case of a value that is an index into the caller's array:
 * the index of key, or UINT32_MAX when absent. */
static inline uint32_t keytab_index(const struct keytab *t, uint64_t key)
{
	const uint32_t *v = keytab_find(t, key);
	return v ? *v : UINT32_MAX;
}

#endif
