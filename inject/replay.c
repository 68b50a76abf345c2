/* Replayable captures (see optrace-capture(5), A launch directory,
 * kernel_data/, and KERNEL DESCRIPTIONS, kernel_config.bin): with
 * --replay, each
 * captured launch also gets <dump>/kernel_data/ with the kernel binary,
 * one input_<i>.bin per pointer argument (the device buffer it points to,
 * copied before the launch runs), input_tiling.bin and kernel_config.bin
 * in the reference's format, so `sim-capture --config=.../kernel_config.bin`
 * runs the kernel again without the application.
 *
 * Buffer sizes come from the allocations the library saw (rtMalloc,
 * aclrtMalloc): an argument that is the start of a known allocation is
 * saved with that allocation's size; any other argument is written as a
 * null input ("n").  The tiling data is inline at tilingDataOffset when
 * the launch has an rtArgsEx_t, else the last pointer argument (the
 * kernel-launcher convention).  ACL launches are brought to the same
 * shape by acl.c (the args handle's pointers and placeholder, the host
 * args and their tiling placeholder, or the device pointer list) and
 * replayed with the aclrt API ("old_mode":"0"). */
#include "inject.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NSLOT 4096 /* open addressing; the table never holds more than 3/4 */

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	uint64_t ptr, size;
} slots[NSLOT];
static size_t used;

static size_t slot_of(uint64_t p)
{
	return (size_t)((p >> 4) * 0x9E3779B97F4A7C15ull >> 52) & (NSLOT - 1);
}

void inj_alloc_note(const void *ptr, uint64_t size)
{
	uint64_t p = (uint64_t)(uintptr_t)ptr;
	size_t i;
	if (!p || !inj.args)
		return;
	pthread_mutex_lock(&mu);
	for (i = slot_of(p); slots[i].ptr && slots[i].ptr != p; i = (i + 1) & (NSLOT - 1))
		;
	if (slots[i].ptr == p || used < NSLOT * 3 / 4) {
		used += slots[i].ptr != p;
		slots[i].ptr = p;
		slots[i].size = size;
	}
	pthread_mutex_unlock(&mu);
}

void inj_alloc_forget(const void *ptr)
{
	uint64_t p = (uint64_t)(uintptr_t)ptr;
	size_t i;
	if (!p || !inj.args)
		return;
	pthread_mutex_lock(&mu);
	for (i = slot_of(p); slots[i].ptr; i = (i + 1) & (NSLOT - 1))
		if (slots[i].ptr == p) {
			/* A tombstone keeps later entries of the chain reachable. */
			slots[i].size = 0;
			break;
		}
	pthread_mutex_unlock(&mu);
}

static uint64_t alloc_size(uint64_t p)
{
	size_t i;
	uint64_t s = 0;
	pthread_mutex_lock(&mu);
	for (i = slot_of(p); slots[i].ptr; i = (i + 1) & (NSLOT - 1))
		if (slots[i].ptr == p) {
			s = slots[i].size;
			break;
		}
	pthread_mutex_unlock(&mu);
	return s;
}

uint64_t inj_alloc_find(uint64_t p, uint64_t *start)
{
	size_t i;
	uint64_t s = 0;
	pthread_mutex_lock(&mu);
	for (i = 0; i < NSLOT; i++)
		if (slots[i].ptr && slots[i].size && p >= slots[i].ptr && p - slots[i].ptr < slots[i].size) {
			*start = slots[i].ptr;
			s = slots[i].size;
			break;
		}
	pthread_mutex_unlock(&mu);
	return s;
}

static int put(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	const char *c = p;
	if (fd < 0)
		return -1;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w <= 0) {
			close(fd);
			unlink(path);
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	return close(fd);
}

static const char *magic_name(uint32_t m)
{
	switch (m) {
	case RT_DEV_BINARY_MAGIC_ELF_AIVEC: return "RT_DEV_BINARY_MAGIC_ELF_AIVEC";
	case RT_DEV_BINARY_MAGIC_ELF_AICUBE: return "RT_DEV_BINARY_MAGIC_ELF_AICUBE";
	case RT_DEV_BINARY_MAGIC_ELF: return "RT_DEV_BINARY_MAGIC_ELF";
	}
	return NULL;
}

/* A growing string for the JSON lists. */
struct sb {
	char *p;
	size_t n, cap;
};

static void sb_add(struct sb *s, const char *t)
{
	size_t l = strlen(t);
	if (s->n + l + 1 > s->cap) {
		size_t nc = (s->n + l + 1) * 2;
		char *np = realloc(s->p, nc);
		if (!np)
			return;
		s->p = np;
		s->cap = nc;
	}
	memcpy(s->p + s->n, t, l + 1);
	s->n += l;
}

void inj_launch_save_args(struct inj_launch *l, const void *args, uint32_t size, const rtArgsEx_t *ex)
{
	char dir[4200], path[4400], num[64];
	const unsigned char *a = args;
	uint32_t nptr, i, tiling_slot = UINT32_MAX;
	const void *tiling = NULL;
	uint64_t tiling_size = 0;
	struct sb paths = { 0 }, sizes = { 0 }, js = { 0 };
	const char *magic = magic_name(inj_bin_magic(l->bin));
	int nin = 0;

	if (inj.device && inj.dev_mode != INJ_APPLICATION)
		inj_dev_snapshot(l, args, ex && ex->hasTiling && ex->tilingDataOffset <= size ? ex->tilingDataOffset : size);
	if (!inj.replay || l->order < 0)
		return;
	if (!args || l->bin < 0 || !magic) {
		inj_note("%s: launch %llu cannot be made replayable (%s)", l->name, (unsigned long long)l->index,
		         !args ? "no host arguments" : l->bin < 0 ? "unknown binary" : "unsupported magic");
		return;
	}
	snprintf(dir, sizeof dir, "%s/kernel_data", l->dir);
	if (mkdir(dir, 0750) && errno != EEXIST)
		return;
	nptr = size / 8;
	if (ex && ex->hasTiling && ex->tilingDataOffset && ex->tilingDataOffset <= size) {
		nptr = ex->tilingDataOffset / 8;
		tiling_slot = ex->tilingAddrOffset / 8;
		tiling = a + ex->tilingDataOffset;
		tiling_size = size - ex->tilingDataOffset;
	} else if (!ex && nptr > 0) {
		/* rtKernelLaunch: the tiling buffer is the last pointer. */
		uint64_t p;
		memcpy(&p, a + 8 * (nptr - 1), 8);
		if ((tiling_size = alloc_size(p)) > 0) {
			tiling_slot = nptr - 1;
			tiling = (const void *)(uintptr_t)p;
		}
	}
	for (i = 0; i < nptr; i++) {
		uint64_t p, sz;
		if (i == tiling_slot)
			continue;
		memcpy(&p, a + 8 * i, 8);
		sz = alloc_size(p);
		if (nin++) {
			sb_add(&paths, ";");
			sb_add(&sizes, ";");
		}
		if (sz && sz <= (10ull << 30)) {
			void *host = malloc(sz);
			snprintf(path, sizeof path, "%s/input_%d.bin", dir, nin - 1);
			if (host && inj_rt_memcpy_d2h(host, (const void *)(uintptr_t)p, sz) == 0 &&
			    put(path, host, sz) == 0) {
				sb_add(&paths, path);
				snprintf(num, sizeof num, "%llu", (unsigned long long)sz);
				sb_add(&sizes, num);
			} else {
				sb_add(&paths, "n");
				sb_add(&sizes, "0");
			}
			free(host);
		} else {
			sb_add(&paths, "n");
			sb_add(&sizes, "0");
		}
	}
	if (tiling && tiling_size && tiling_size <= (1u << 30)) {
		void *host = malloc(tiling_size);
		int ok = host != NULL;
		if (ok && ex)
			memcpy(host, tiling, tiling_size); /* inline host data */
		else if (ok)
			ok = inj_rt_memcpy_d2h(host, tiling, tiling_size) == 0;
		snprintf(path, sizeof path, "%s/input_tiling.bin", dir);
		if (!ok || put(path, host, tiling_size))
			tiling = NULL;
		free(host);
	} else {
		tiling = NULL;
	}
	snprintf(path, sizeof path, "%s/aicore_binary.o", dir);
	{
		char src[4400];
		snprintf(src, sizeof src, "%s/aicore_binary.o", l->dir);
		if (link(src, path) && errno != EEXIST)
			inj_note("%s: %s", path, strerror(errno));
	}
	/* Keys in alphabetical order, every value a string (4.6). */
	sb_add(&js, "{\"bin_path\":\"");
	sb_add(&js, path);
	snprintf(num, sizeof num, "\",\"block_dim\":\"%u\"", l->block_dim);
	sb_add(&js, num);
	sb_add(&js, ",\"device_id\":\"0\",\"ffts\":\"N\",\"input_path\":\"");
	sb_add(&js, paths.p ? paths.p : "");
	sb_add(&js, "\",\"input_size\":\"");
	sb_add(&js, sizes.p ? sizes.p : "");
	sb_add(&js, "\",\"kernel_name\":\"");
	{
		/* ACL path: the name without its _mix_aic/_mix_aiv suffix (4.6). */
		size_t nl = strlen(l->name);
		char kn[1024];
		snprintf(kn, sizeof kn, "%s", l->name);
		if (l->acl && nl > 8 && (!strcmp(kn + nl - 8, "_mix_aic") || !strcmp(kn + nl - 8, "_mix_aiv")))
			kn[nl - 8] = 0;
		sb_add(&js, kn);
	}
	sb_add(&js, "\",\"magic\":\"");
	sb_add(&js, magic);
	sb_add(&js, "\"");
	if (l->acl) /* the launcher replays it with the aclrt API */
		sb_add(&js, ",\"old_mode\":\"0\"");
	if (tiling) {
		sb_add(&js, ",\"tiling_data_path\":\"");
		snprintf(path, sizeof path, "%s/input_tiling.bin;%llu", dir, (unsigned long long)tiling_size);
		sb_add(&js, path);
		sb_add(&js, "\"");
	}
	if (l->tiling_key != REC_NONE) {
		snprintf(num, sizeof num, ",\"tiling_key\":\"%llu\"", (unsigned long long)l->tiling_key);
		sb_add(&js, num);
	}
	sb_add(&js, "}");
	snprintf(path, sizeof path, "%s/kernel_config.bin", dir);
	if (!js.p || put(path, js.p, js.n))
		inj_note("%s: cannot write", path);
	free(paths.p);
	free(sizes.p);
	free(js.p);
}
