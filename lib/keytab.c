#include "keytab.h"

#include <stdlib.h>
#include <string.h>

#include "mem.h"

static size_t slot(uint64_t key, size_t cap)
{
	return (size_t)hash_u64(key) & (cap - 1);
}

static void grow(struct keytab *t)
{
	struct keytab nt = *t;
	size_t i;

	nt.cap = t->cap ? t->cap * 2 : 64;
	nt.keys = xmalloc(nt.cap * sizeof *nt.keys);
	nt.used = xcalloc(nt.cap, 1);
	nt.vals = xmalloc(nt.cap * nt.vsize);
	for (i = 0; i < t->cap; i++) {
		size_t j;
		if (!t->used[i])
			continue;
		for (j = slot(t->keys[i], nt.cap); nt.used[j]; j = (j + 1) & (nt.cap - 1))
			;
		nt.used[j] = 1;
		nt.keys[j] = t->keys[i];
		memcpy(nt.vals + j * nt.vsize, t->vals + i * t->vsize, t->vsize);
	}
	free(t->keys);
	free(t->used);
	free(t->vals);
	*t = nt;
}

void *keytab_insert(struct keytab *t, uint64_t key, int *fresh)
{
	size_t j = 0;
	unsigned load4 = t->load4 ? t->load4 : 2;

	if ((t->n + 1) * 4 > t->cap * load4)
		grow(t);
	/* The key is absent: the first hole of its probe run takes it. */
	for (j = slot(key, t->cap); t->used[j]; j = (j + 1) & (t->cap - 1))
		;
	t->used[j] = 1;
	t->keys[j] = key;
	t->n++;
	memset(t->vals + j * t->vsize, 0, t->vsize);
	if (fresh)
		*fresh = 1;
	return t->vals + j * t->vsize;
}

void keytab_del(struct keytab *t, uint64_t key)
{
	size_t j, k;
	if (!t->cap)
		return;
	for (j = slot(key, t->cap); t->used[j]; j = (j + 1) & (t->cap - 1))
		if (t->keys[j] == key)
			break;
	if (!t->used[j])
		return;
	t->used[j] = 0;
	t->n--;
	/* Move later members of the probe run back into the hole when their
	 * home slot is not between the hole and where they stand. */
	for (k = (j + 1) & (t->cap - 1); t->used[k]; k = (k + 1) & (t->cap - 1)) {
		size_t home = slot(t->keys[k], t->cap);
		int movable = j <= k ? (home <= j || home > k) : (home <= j && home > k);
		if (movable) {
			t->used[j] = 1;
			t->keys[j] = t->keys[k];
			memcpy(t->vals + j * t->vsize, t->vals + k * t->vsize, t->vsize);
			t->used[k] = 0;
			j = k;
		}
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
