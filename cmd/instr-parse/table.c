#include "table.h"

#include <stdlib.h>
#include <string.h>

static size_t slot(uint64_t key, size_t cap)
{
	/* PCs and ids are dense and 4-aligned: mix the bits first. */
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdULL;
	key ^= key >> 33;
	return (size_t)key & (cap - 1);
}

static int grow(struct table *t)
{
	struct table nt = { 0 };
	size_t i;

	nt.vsize = t->vsize;
	nt.cap = t->cap ? t->cap * 2 : 64;
	nt.keys = malloc(nt.cap * sizeof *nt.keys);
	nt.used = calloc(nt.cap, 1);
	nt.vals = malloc(nt.cap * nt.vsize);
	if (!nt.keys || !nt.used || !nt.vals) {
		free(nt.keys);
		free(nt.used);
		free(nt.vals);
		return -1;
	}
	for (i = 0; i < t->cap; i++) {
		size_t j;
		if (!t->used[i])
			continue;
		j = slot(t->keys[i], nt.cap);
		while (nt.used[j])
			j = (j + 1) & (nt.cap - 1);
		nt.used[j] = 1;
		nt.keys[j] = t->keys[i];
		memcpy(nt.vals + j * nt.vsize, t->vals + i * t->vsize, t->vsize);
	}
	nt.n = t->n;
	free(t->keys);
	free(t->used);
	free(t->vals);
	*t = nt;
	return 0;
}

void *table_find(const struct table *t, uint64_t key)
{
	size_t j;
	if (!t->cap)
		return NULL;
	for (j = slot(key, t->cap); t->used[j]; j = (j + 1) & (t->cap - 1))
		if (t->keys[j] == key)
			return t->vals + j * t->vsize;
	return NULL;
}

void *table_get(struct table *t, uint64_t key, int *fresh)
{
	size_t j = 0;
	if (fresh)
		*fresh = 0;
	if (t->cap) {
		/* One probe finds the key or the hole to put it in: with
		 * backward-shift deletion there are no tombstones. */
		for (j = slot(key, t->cap); t->used[j]; j = (j + 1) & (t->cap - 1))
			if (t->keys[j] == key)
				return t->vals + j * t->vsize;
	}
	/* Keep the load at most a quarter so probe runs stay short: on A5
	 * about a thousand ids that never pair stay in among the inserts
	 * and deletes of the ids in flight. */
	if ((t->n + 1) * 4 > t->cap) {
		if (grow(t))
			return NULL;
		for (j = slot(key, t->cap); t->used[j]; j = (j + 1) & (t->cap - 1))
			;
	}
	t->used[j] = 1;
	t->keys[j] = key;
	t->n++;
	memset(t->vals + j * t->vsize, 0, t->vsize);
	if (fresh)
		*fresh = 1;
	return t->vals + j * t->vsize;
}

void table_del(struct table *t, uint64_t key)
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
	/* Shift later members of the probe run back so lookups stay correct. */
	for (k = (j + 1) & (t->cap - 1); t->used[k]; k = (k + 1) & (t->cap - 1)) {
		size_t home = slot(t->keys[k], t->cap);
		int movable = (j <= k) ? (home <= j || home > k) : (home <= j && home > k);
		if (movable) {
			t->used[j] = 1;
			t->keys[j] = t->keys[k];
			memcpy(t->vals + j * t->vsize, t->vals + k * t->vsize, t->vsize);
			t->used[k] = 0;
			j = k;
		}
	}
}

void *table_at(const struct table *t, size_t i, uint64_t *key)
{
	if (!t->used[i])
		return NULL;
	*key = t->keys[i];
	return t->vals + i * t->vsize;
}

void table_free(struct table *t)
{
	free(t->keys);
	free(t->used);
	free(t->vals);
	memset(t, 0, sizeof *t);
}
