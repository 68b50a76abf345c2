#include "keytab.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

/* The home slot of the key in slot i of keys, in t's table. */
static inline size_t home(const struct keytab *t, const uint64_t *keys, size_t i)
{
	if (t->pairs)
		return (size_t)hash_u64x2(keys[2 * i], keys[2 * i + 1]) & (t->cap - 1);
	return keytab_slot(t, keys[i]);
}

/* Slot moves: index values (four bytes) and keys without a memcpy call
 * each, as rehashing and deletion move many. */
static inline void move_slot(const struct keytab *t, uint64_t *keys, char *vals, size_t to,
                             const uint64_t *from_keys, const char *from_vals, size_t from)
{
	if (t->pairs) {
		keys[2 * to] = from_keys[2 * from];
		keys[2 * to + 1] = from_keys[2 * from + 1];
	} else {
		keys[to] = from_keys[from];
	}
	if (t->vsize == sizeof(uint32_t))
		memcpy(vals + to * sizeof(uint32_t), from_vals + from * sizeof(uint32_t), sizeof(uint32_t));
	else
		memcpy(vals + to * t->vsize, from_vals + from * t->vsize, t->vsize);
}

static __attribute__((noinline)) void grow(struct keytab *t)
{
	struct keytab nt = *t;
	size_t i, kw = t->pairs ? 2 : 1;

	nt.cap = t->cap ? t->cap * 2 : 64;
	nt.keys = xmalloc(nt.cap * kw * sizeof *nt.keys);
	nt.used = xcalloc(nt.cap, 1);
	nt.vals = xmalloc(nt.cap * nt.vsize);
	for (i = 0; i < t->cap; i++) {
		size_t j;
		if (!t->used[i])
			continue;
		for (j = home(&nt, t->keys, i); nt.used[j]; j = (j + 1) & (nt.cap - 1))
			;
		nt.used[j] = 1;
		move_slot(t, nt.keys, nt.vals, j, t->keys, t->vals, i);
	}
	free(t->keys);
	free(t->used);
	free(t->vals);
	*t = nt;
}

/* Room for one more key, by the table's load rule. */
static inline void make_room(struct keytab *t)
{
	unsigned load4 = t->load4 ? t->load4 : 2;
	if ((t->n + 1) * 4 > t->cap * load4)
		grow(t);
}

static inline void *take_slot(struct keytab *t, size_t j, int *fresh)
{
	t->used[j] = 1;
	t->n++;
	if (t->vsize == sizeof(uint32_t))
		memset(t->vals + j * sizeof(uint32_t), 0, sizeof(uint32_t));
	else
		memset(t->vals + j * t->vsize, 0, t->vsize);
	if (fresh)
		*fresh = 1;
	return t->vals + j * t->vsize;
}

void *keytab_insert(struct keytab *t, uint64_t key, int *fresh)
{
	size_t j;
	make_room(t);
	/* The key is absent: the first hole of its probe run takes it. */
	for (j = keytab_slot(t, key); t->used[j]; j = (j + 1) & (t->cap - 1))
		;
	t->keys[j] = key;
	return take_slot(t, j, fresh);
}

void *keytab_insert2(struct keytab *t, uint64_t a, uint64_t b, int *fresh)
{
	size_t j;
	make_room(t);
	for (j = (size_t)hash_u64x2(a, b) & (t->cap - 1); t->used[j]; j = (j + 1) & (t->cap - 1))
		;
	t->keys[2 * j] = a;
	t->keys[2 * j + 1] = b;
	return take_slot(t, j, fresh);
}

/* Empty slot j, moving later members of its probe run back into the hole
 * when their home slot is not between the hole and where they stand. */
static inline void del_at(struct keytab *t, size_t j)
{
	size_t k;
	t->used[j] = 0;
	t->n--;
	for (k = (j + 1) & (t->cap - 1); t->used[k]; k = (k + 1) & (t->cap - 1)) {
		size_t h = home(t, t->keys, k);
		int movable = j <= k ? (h <= j || h > k) : (h <= j && h > k);
		if (movable) {
			t->used[j] = 1;
			move_slot(t, t->keys, t->vals, j, t->keys, t->vals, k);
			t->used[k] = 0;
			j = k;
		}
	}
}

void keytab_del(struct keytab *t, uint64_t key)
{
	size_t j;
	if (!t->cap)
		return;
	for (j = keytab_slot(t, key); t->used[j]; j = (j + 1) & (t->cap - 1))
		if (t->keys[j] == key) {
			del_at(t, j);
			return;
		}
}

void keytab_del2(struct keytab *t, uint64_t a, uint64_t b)
{
	size_t j;
	if (!t->cap)
		return;
	for (j = (size_t)hash_u64x2(a, b) & (t->cap - 1); t->used[j]; j = (j + 1) & (t->cap - 1))
		if (t->keys[2 * j] == a && t->keys[2 * j + 1] == b) {
			del_at(t, j);
			return;
		}
}

void *keytab_at(const struct keytab *t, size_t i, uint64_t *key)
{
	if (!t->used[i])
		return NULL;
	*key = t->keys[i];
	return t->vals + i * t->vsize;
}

void keytab_free(struct keytab *t)
{
	free(t->keys);
	free(t->used);
	free(t->vals);
	t->keys = NULL;
	t->used = NULL;
	t->vals = NULL;
	t->cap = t->n = 0;
}
