/* An open-addressing hash table from a 64-bit key (a pc, an instruction
 * id) to a fixed-size value kept in the table: a small struct, or the
 * index of an entry in the caller's own array when the entries must stay
 * in their order or in place.  Linear probing, deletion by backward shift
 * (no tombstones), the size a power of two. */
#ifndef OPTRACE_KEYTAB_H
#define OPTRACE_KEYTAB_H

#include <stddef.h>
#include <stdint.h>

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

struct keytab {
	uint64_t *keys;
	unsigned char *used;
	char *vals;
	size_t vsize, cap, n;
	/* The largest load, in quarters (1: at most a quarter full, short
	 * probes where many inserts and deletes mix; 0 means 2, half). */
	unsigned load4;
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

/* The value of key, created zero-filled when absent (*fresh, if not NULL,
 * says which).  Ends the run through cli_die when out of memory.  Value
 * pointers stay valid until the next insert. */
void *keytab_get(struct keytab *t, uint64_t key, int *fresh);
/* The value of key, NULL when absent. */
void *keytab_find(const struct keytab *t, uint64_t key);

/* keytab_find and keytab_get with the probe for a present key inline, for
 * a look-up per record of a hot loop. */
static inline void *keytab_find_hot(const struct keytab *t, uint64_t key)
{
	size_t j;
	if (!t->cap)
		return NULL;
	for (j = (size_t)hash_u64(key) & (t->cap - 1); t->used[j]; j = (j + 1) & (t->cap - 1))
		if (t->keys[j] == key)
			return t->vals + j * t->vsize;
	return NULL;
}
static inline void *keytab_get_hot(struct keytab *t, uint64_t key, int *fresh)
{
	void *v = keytab_find_hot(t, key);
	if (v) {
		if (fresh)
			*fresh = 0;
		return v;
	}
	return keytab_get(t, key, fresh);
}
void keytab_del(struct keytab *t, uint64_t key);
/* Slot i (0 <= i < cap) in slot order: its value and *key, or NULL for an
 * empty slot.  The order follows the hash: sort before printing. */
void *keytab_at(const struct keytab *t, size_t i, uint64_t *key);
void keytab_free(struct keytab *t);

/* The common case of a value that is an index into the caller's array:
 * the index of key, or UINT32_MAX when absent. */
static inline uint32_t keytab_index(const struct keytab *t, uint64_t key)
{
	const uint32_t *v = keytab_find(t, key);
	return v ? *v : UINT32_MAX;
}

#endif
