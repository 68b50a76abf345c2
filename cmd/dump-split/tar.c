#include "tar.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 512
/* Long names and pax headers beyond this are not dump file names. */
#define MAX_META (1u << 20)

void tar_init(struct tar *t, struct rd *r)
{
	memset(t, 0, sizeof *t);
	t->r = r;
}

void tar_free(struct tar *t)
{
	free(t->name);
	free(t->longname);
	t->name = t->longname = NULL;
}

static uint64_t octal(const unsigned char *p, size_t n, int *ok)
{
	uint64_t v = 0;
	size_t i = 0;

	/* GNU base-256 for sizes of 8 GiB and more. */
	if (p[0] & 0x80) {
		v = p[0] & 0x3f;
		for (i = 1; i < n; i++) {
			if (v >> 55) {
				*ok = 0;
				return 0;
			}
			v = (v << 8) | p[i];
		}
		return v;
	}
	while (i < n && p[i] == ' ')
		i++;
	for (; i < n && p[i] >= '0' && p[i] <= '7'; i++)
		v = (v << 3) | (uint64_t)(p[i] - '0');
	for (; i < n; i++)
		if (p[i] != ' ' && p[i] != 0)
			*ok = 0;
	return v;
}

int tar_header_ok(const unsigned char *b)
{
	uint64_t sum = 0, want;
	int ok = 1, i;

	for (i = 0; i < BLOCK; i++)
		sum += (i >= 148 && i < 156) ? ' ' : b[i];
	want = octal(b + 148, 8, &ok);
	return ok && want == sum && b[148] != 0;
}

static int all_zero(const unsigned char *b)
{
	int i;
	for (i = 0; i < BLOCK; i++)
		if (b[i])
			return 0;
	return 1;
}

/* Discard n bytes of input; 0 if the input ended first. */
static int skip(struct tar *t, uint64_t n)
{
	char buf[16384];
	while (n) {
		size_t k = n > sizeof buf ? sizeof buf : (size_t)n;
		size_t got = rd_read(t->r, buf, k);
		n -= got;
		if (got < k)
			return 0;
	}
	return 1;
}

/* Read a metadata member (GNU long name, pax header) whole. */
static char *slurp(struct tar *t, uint64_t size)
{
	char *p;
	uint64_t pad = (BLOCK - size % BLOCK) % BLOCK;

	if (size > MAX_META) {
		t->why = "oversized long-name or pax header";
		return NULL;
	}
	p = malloc((size_t)size + 1);
	if (!p) {
		t->why = "out of memory";
		return NULL;
	}
	if (rd_read(t->r, p, (size_t)size) != size || !skip(t, pad)) {
		free(p);
		t->why = "archive is truncated";
		return NULL;
	}
	p[size] = 0;
	return p;
}

/* Find the "path" record of a pax extended header: 1 with *path set (NULL
 * when there is none, or no memory), 0 when the header is malformed, with
 * *why saying how.  A record is "<len> <key>=<value>\n", len counting the
 * whole record; a later path record overrides an earlier one. */
static int pax_path(const char *p, size_t n, char **path, const char **why)
{
	const char *end = p + n;

	*path = NULL;
	*why = NULL;
	while (p < end) {
		const char *rec = p, *kv, *eq, *next;
		size_t len = 0;
		while (p < end && *p >= '0' && *p <= '9' && len < MAX_META)
			len = len * 10 + (size_t)(*p++ - '0');
		if (p == rec || p >= end || *p != ' ') {
			*why = "a record without its length";
			break;
		}
		kv = p + 1;
		/* The shortest record has a one-letter key, '=' and LF after
		 * the length: anything shorter would end before its key. */
		if (len < (size_t)(kv - rec) + 3) {
			*why = "a record length too small for the record";
			break;
		}
		if (len > (size_t)(end - rec)) {
			*why = "a record length beyond the header";
			break;
		}
		next = rec + len;
		if (next[-1] != '\n') {
			*why = "a record without its closing newline";
			break;
		}
		eq = memchr(kv, '=', (size_t)(next - 1 - kv));
		if (!eq || eq == kv) {
			*why = "a record without 'key='";
			break;
		}
		if (eq - kv == 4 && !memcmp(kv, "path", 4)) {
			size_t vn = (size_t)(next - 1 - (eq + 1));
			free(*path);
			if ((*path = malloc(vn + 1))) {
				memcpy(*path, eq + 1, vn);
				(*path)[vn] = 0;
			}
		}
		p = next;
	}
	if (!*why)
		return 1;
	free(*path);
	*path = NULL;
	return 0;
}

int tar_next(struct tar *t, struct tar_member *m)
{
	unsigned char b[BLOCK];

	if (t->truncated || !skip(t, t->left + t->pad)) {
		t->why = "archive is truncated";
		return -1;
	}
	t->left = t->pad = 0;
	for (;;) {
		size_t got = rd_read(t->r, b, BLOCK);
		uint64_t size;
		int ok = 1;
		char type;

		if (got == 0 && t->blocks) {
			/* No end-of-archive blocks: accepted, as tar(1) does. */
			return 0;
		}
		if (got < BLOCK) {
			t->why = t->blocks ? "archive is truncated" : "not a tar archive";
			return -1;
		}
		if (all_zero(b)) {
			if (!t->blocks) {
				t->why = "not a tar archive";
				return -1;
			}
			return 0;
		}
		if (!tar_header_ok(b)) {
			t->why = t->blocks ? "bad header checksum (damaged archive)" : "not a tar archive";
			return -1;
		}
		t->blocks++;
		size = octal(b + 124, 12, &ok);
		if (!ok) {
			t->why = "bad member size";
			return -1;
		}
		type = (char)b[156];
		if (type == 'L' || type == 'x') {
			char *meta = slurp(t, size), *name;
			if (!meta)
				return -1;
			if (type == 'L') {
				name = strdup(meta);
			} else if (!pax_path(meta, (size_t)size, &name, &t->pax_why)) {
				/* As tar(1): say so, and keep the ustar name. */
				t->pax_bad = 1;
			}
			free(meta);
			if (name) {
				free(t->longname);
				t->longname = name;
			}
			continue;
		}
		if (type == 'g' || type == 'K') {
			if (!skip(t, size + (BLOCK - size % BLOCK) % BLOCK)) {
				t->why = "archive is truncated";
				return -1;
			}
			continue;
		}
		free(t->name);
		if (t->longname) {
			t->name = t->longname;
			t->longname = NULL;
		} else {
			/* ustar splits long names into prefix "/" name. */
			char nm[101], pre[156];
			memcpy(nm, b, 100);
			nm[100] = 0;
			pre[0] = 0;
			/* Only POSIX ustar ("ustar\0") has the prefix field; the
			 * old GNU format ("ustar  ") keeps times there. */
			if (!memcmp(b + 257, "ustar", 6)) {
				memcpy(pre, b + 345, 155);
				pre[155] = 0;
			}
			t->name = malloc(strlen(pre) + strlen(nm) + 2);
			if (t->name)
				sprintf(t->name, "%s%s%s", pre, *pre ? "/" : "", nm);
		}
		if (!t->name) {
			t->why = "out of memory";
			return -1;
		}
		m->name = t->name;
		m->size = size;
		m->pax_why = t->pax_bad ? t->pax_why : NULL;
		t->pax_bad = 0;
		m->type = (type == '0' || type == 0 || type == '7') ? TAR_FILE
		        : type == '5' ? TAR_DIR : TAR_OTHER;
		/* Links, devices and FIFOs carry no data; the size field of a
		 * hard link is 0 in practice but not to be trusted. */
		if (type == '1' || type == '2' || type == '3' || type == '4' || type == '5' || type == '6')
			size = 0;
		t->left = size;
		t->pad = (BLOCK - size % BLOCK) % BLOCK;
		return 1;
	}
}

size_t tar_read(struct tar *t, void *buf, size_t n)
{
	size_t got;
	if (n > t->left)
		n = (size_t)t->left;
	if (!n)
		return 0;
	got = rd_read(t->r, buf, n);
	t->left -= got;
	if (got < n) {
		t->why = "archive is truncated";
		t->left = t->pad = 0;
		t->truncated = 1;
	}
	return got;
}

int tar_truncated(const struct tar *t)
{
	return t->truncated;
}
