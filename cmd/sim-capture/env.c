/* The child's environment: inherited entries with our keys replaced, never
 * duplicated (the reference appends a second KEY=, and getenv() then sees
 * the inherited one).  And the SoC named in LD_LIBRARY_PATH. */
#include "capture.h"

#include <ctype.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mem.h"

static char *kv(const char *key, const char *a, const char *b)
{
	size_t n = strlen(key) + strlen(a) + (b ? strlen(b) + 1 : 0) + 2;
	char *s = xmalloc(n);
	if (b)
		snprintf(s, n, "%s=%s:%s", key, a, b);
	else
		snprintf(s, n, "%s=%s", key, a);
	return s;
}

static void push(struct env *e, char *s)
{
	if (e->n + 2 > e->cap) {
		e->cap = e->cap ? 2 * e->cap : 64;
		e->v = xrealloc(e->v, e->cap * sizeof *e->v);
	}
	e->v[e->n++] = s;
	e->v[e->n] = NULL;
}

void env_init(struct env *e, char **environ_)
{
	char **p;
	e->v = NULL;
	e->n = e->cap = 0;
	push(e, NULL);
	e->n = 0;
	for (p = environ_; p && *p; p++)
		push(e, xstrdup(*p));
}

static int is_key(const char *entry, const char *key)
{
	size_t n = strlen(key);
	return !strncmp(entry, key, n) && entry[n] == '=';
}

const char *env_get(const struct env *e, const char *key)
{
	size_t i;
	for (i = 0; i < e->n; i++)
		if (is_key(e->v[i], key))
			return e->v[i] + strlen(key) + 1;
	return NULL;
}

void env_unset(struct env *e, const char *key)
{
	size_t i, o = 0;
	for (i = 0; i < e->n; i++) {
		if (is_key(e->v[i], key))
			free(e->v[i]);
		else
			e->v[o++] = e->v[i];
	}
	e->n = o;
	e->v[o] = NULL;
}

void env_free(struct env *e)
{
	free_vec(e->v, e->n);
	e->v = NULL;
	e->n = e->cap = 0;
}

void env_set(struct env *e, const char *key, const char *val)
{
	env_unset(e, key);
	push(e, kv(key, val, NULL));
}

void env_prepend(struct env *e, const char *key, const char *val)
{
	const char *old = env_get(e, key);
	char *s = kv(key, val, old && *old ? old : NULL);
	env_unset(e, key);
	push(e, s);
}

static const struct {
	const char *dav, *soc;
} dav_soc[] = { { "dav_2002", "Ascend310P1" }, { "dav_2201", "Ascend910B1" },
                { "dav_3510", "Ascend950PR_9599" } };

/* The SoC from LD_LIBRARY_PATH (see optrace-capture(5), SIMULATOR DISCOVERY):
 * (Ascend\d{3}[0-9a-zA-Z_]{0,8}|dav_\d{4})/lib, searched in
 * each entry that starts with dirname(root). */
char *soc_from_ld_path(const char *ldpath, const char *root, char *buf, size_t cap)
{
	char prefix[4096], *slash;
	const char *p, *end;
	size_t pl;
	if (!ldpath || !root)
		return NULL;
	snprintf(prefix, sizeof prefix, "%s", root);
	while ((pl = strlen(prefix)) > 1 && prefix[pl - 1] == '/')
		prefix[pl - 1] = 0;
	slash = strrchr(prefix, '/');
	if (slash)
		slash[slash == prefix ? 1 : 0] = 0;
	pl = strlen(prefix);
	for (p = ldpath; *p; p = *end ? end + 1 : end) {
		const char *s;
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		if ((size_t)(end - p) < pl || strncmp(p, prefix, pl))
			continue;
		for (s = p; s < end; s++) {
			const char *q = s;
			size_t n, i;
			if (!strncmp(q, "Ascend", 6) && q + 9 <= end && isdigit((unsigned char)q[6]) &&
			    isdigit((unsigned char)q[7]) && isdigit((unsigned char)q[8])) {
				q += 9;
				for (n = 0; n < 8 && q < end && (isalnum((unsigned char)*q) || *q == '_'); n++)
					q++;
				/* The longest run that is followed by "/lib". */
				for (;; q--, n--) {
					if (end - q >= 4 && !strncmp(q, "/lib", 4) && (q + 4 == end || q[4] == '/')) {
						snprintf(buf, cap, "%.*s", (int)(q - s), s);
						return buf;
					}
					if (n == 0)
						break;
				}
			} else if (!strncmp(q, "dav_", 4) && end - q >= 12 && isdigit((unsigned char)q[4]) &&
			           isdigit((unsigned char)q[5]) && isdigit((unsigned char)q[6]) &&
			           isdigit((unsigned char)q[7]) && !strncmp(q + 8, "/lib", 4)) {
				for (i = 0; i < sizeof dav_soc / sizeof dav_soc[0]; i++)
					if (!strncmp(q, dav_soc[i].dav, 8)) {
						snprintf(buf, cap, "%s", dav_soc[i].soc);
						return buf;
					}
			}
		}
	}
	return NULL;
}
