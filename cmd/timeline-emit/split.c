/* A trace too large for the viewers, split into traces that each open.
 *
 * The finished trace (one event a line, see trace.c and sub.c) is read
 * back once and its events dealt out by group: in the all-cores trace a
 * group is a block, the sub-cores core<N>.* together (their intra-block
 * flows stay in one file), and the MTE Throughput counters; a per-core
 * trace is one group.  A group whose file would pass the limit goes on in
 * a next part, a later time window: each part starts with the group's
 * metadata seen so far (process and thread names and sort indexes), so
 * every part is a whole trace in the same format.  A part never ends
 * between the two halves of a B/E pair or of a flow, which are written
 * on adjacent lines.
 *
 * Names: trace.<group>.json (trace.core0.json, trace.mte.json), and
 * trace.<group>.<k>.json, k from 1, for the parts of a group that needed
 * more than one; a per-core trace becomes trace.<k>.json. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "io.h"

struct group {
	char *key;                  /* "core0", "mte", or "" (one group) */
	struct wr *w;
	uint64_t bytes, nev;
	unsigned part;              /* parts begun */
	char **meta;
	size_t *meta_n, nmeta;
};

static struct group *groups;
static size_t ngroups;
static const char *dir_, *head_;
static size_t head_n;
static int by_group;
static char **names;            /* the files written, relative to dir_ */
static size_t nnames;

static void name_add(const char *s)
{
	names = xrealloc(names, (nnames + 1) * sizeof *names);
	names[nnames++] = strdup(s);
}

static void part_name(char *buf, size_t n, const struct group *g, unsigned part)
{
	if (!*g->key)
		snprintf(buf, n, "trace.%u.json", part);
	else if (part)
		snprintf(buf, n, "trace.%s.%u.json", g->key, part);
	else
		snprintf(buf, n, "trace.%s.json", g->key);
}

static int close_part(struct group *g)
{
	int err;
	wr_puts(g->w, "\n]}\n");
	err = wr_close(g->w);
	g->w = NULL;
	return err;
}

static int open_part(struct group *g)
{
	char name[128], *path;
	size_t i;

	g->part++;
	if (g->part == 2 && *g->key) {
		/* It needs parts after all: the first becomes part 1. */
		char a[128], b[128], *pa, *pb;
		int err = 0;
		part_name(a, sizeof a, g, 0);
		part_name(b, sizeof b, g, 1);
		pa = xmalloc(strlen(dir_) + sizeof a + 2);
		pb = xmalloc(strlen(dir_) + sizeof b + 2);
		sprintf(pa, "%s/%s", dir_, a);
		sprintf(pb, "%s/%s", dir_, b);
		if (rename(pa, pb) < 0)
			err = errno;
		free(pa);
		free(pb);
		if (err)
			return err;
		for (i = 0; i < nnames; i++)
			if (!strcmp(names[i], a)) {
				free(names[i]);
				names[i] = strdup(b);
			}
	}
	part_name(name, sizeof name, g, *g->key ? (g->part == 1 ? 0 : g->part) : g->part);
	path = xmalloc(strlen(dir_) + strlen(name) + 2);
	sprintf(path, "%s/%s", dir_, name);
	g->w = wr_open(path, 0);
	free(path);
	if (!g->w)
		return errno ? errno : EIO;
	name_add(name);
	wr_put(g->w, head_, head_n);
	g->bytes = head_n + 4;
	g->nev = 0;
	for (i = 0; i < g->nmeta; i++) {
		wr_puts(g->w, g->nev ? ",\n" : "\n");
		wr_put(g->w, g->meta[i], g->meta_n[i]);
		g->bytes += g->meta_n[i] + 2;
		g->nev++;
	}
	return wr_error(g->w);
}

/* The value of the top-level "pid" key of an event line, or NULL. */
static const char *pid_of(const char *s, size_t n, size_t *len)
{
	size_t i;
	int depth = 0, in_str = 0;
	for (i = 0; i < n; i++) {
		char c = s[i];
		if (in_str) {
			if (c == '\\')
				i++;
			else if (c == '"')
				in_str = 0;
			continue;
		}
		if (c == '{')
			depth++;
		else if (c == '}')
			depth--;
		else if (c == '"') {
			if (depth == 1 && n - i > 7 && !memcmp(s + i, "\"pid\":", 6)) {
				const char *v = s + i + 6, *e = v;
				if (*v == '"') {
					for (e = v + 1; e < s + n && *e != '"'; e++)
						if (*e == '\\')
							e++;
					*len = (size_t)(e - v - 1);
					return v + 1;
				}
				while (e < s + n && *e != ',' && *e != '}')
					e++;
				*len = (size_t)(e - v);
				return v;
			}
			in_str = 1;
		}
	}
	return NULL;
}

static struct group *group_of(const char *key, size_t n)
{
	size_t i;
	for (i = 0; i < ngroups; i++)
		if (strlen(groups[i].key) == n && !memcmp(groups[i].key, key, n))
			return &groups[i];
	groups = xrealloc(groups, (ngroups + 1) * sizeof *groups);
	memset(&groups[ngroups], 0, sizeof groups[ngroups]);
	groups[ngroups].key = xmalloc(n + 1);
	memcpy(groups[ngroups].key, key, n);
	groups[ngroups].key[n] = 0;
	return &groups[ngroups++];
}

static int continues(const char *s, size_t n)
{
	/* The second half of a pair, written just after the first. */
	return memmem(s, n, "\"ph\":\"E\"", 8) || memmem(s, n, "\"ph\":\"t\"", 8);
}

static int put(struct group *g, const char *s, size_t n, uint64_t limit, int is_meta)
{
	int err;
	if (is_meta) {
		g->meta = xrealloc(g->meta, (g->nmeta + 1) * sizeof *g->meta);
		g->meta_n = xrealloc(g->meta_n, (g->nmeta + 1) * sizeof *g->meta_n);
		g->meta[g->nmeta] = xmalloc(n);
		memcpy(g->meta[g->nmeta], s, n);
		g->meta_n[g->nmeta++] = n;
	}
	if (g->w && g->nev > g->nmeta && g->bytes + n + 2 > limit && !continues(s, n)) {
		if ((err = close_part(g)))
			return err;
	}
	if (!g->w && (err = open_part(g)))
		return err;
	wr_puts(g->w, g->nev ? ",\n" : "\n");
	wr_put(g->w, s, n);
	g->bytes += n + 2;
	g->nev++;
	return wr_error(g->w);
}

int split_trace(const char *src, const char *dir, int grouped, uint64_t limit, char ***out, size_t *nout)
{
	struct rd *r = rd_open(src);
	const char *line;
	size_t n, i;
	int err = 0, first = 1;
	char *head = NULL;

	*out = NULL;
	*nout = 0;
	if (!r)
		return errno ? errno : EIO;
	dir_ = dir;
	by_group = grouped;
	while (!err && (line = rd_line(r, &n))) {
		const char *pid;
		size_t pn = 0;
		int meta, all = 0;
		if (first) {
			head = xmalloc(n + 1);
			memcpy(head, line, n);
			head_ = head;
			head_n = n;
			first = 0;
			continue;
		}
		if (n && line[n - 1] == ',')
			n--;
		if (!n || (n == 2 && !memcmp(line, "]}", 2)))
			continue;
		meta = memmem(line, n, "\"ph\":\"M\"", 8) != NULL;
		if (!by_group) {
			err = put(group_of("", 0), line, n, limit, meta);
			continue;
		}
		pid = pid_of(line, n, &pn);
		if (pid && pn == 9 && !memcmp(pid, "TRUNCATED", 9))
			all = 1;
		if (all) {
			/* Its mark belongs in every part. */
			for (i = 0; i < ngroups && !err; i++)
				err = put(&groups[i], line, n, limit, meta);
			continue;
		}
		if (pid && pn > 4 && !memcmp(pid, "core", 4)) {
			const char *dot = memchr(pid, '.', pn);
			err = put(group_of(pid, dot ? (size_t)(dot - pid) : pn), line, n, limit, meta);
		} else {
			err = put(group_of("mte", 3), line, n, limit, meta);
		}
	}
	if (!err && rd_error(r))
		err = rd_error(r);
	rd_close(r);
	for (i = 0; i < ngroups; i++) {
		struct group *g = &groups[i];
		size_t k;
		if (g->w) {
			int e = err ? (wr_abort(g->w), 0) : close_part(g);
			if (!err)
				err = e;
		}
		for (k = 0; k < g->nmeta; k++)
			free(g->meta[k]);
		free(g->meta);
		free(g->meta_n);
		free(g->key);
	}
	free(groups);
	groups = NULL;
	ngroups = 0;
	free(head);
	*out = names;
	*nout = nnames;
	names = NULL;
	nnames = 0;
	return err;
}
