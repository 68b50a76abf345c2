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
 * In a per-core trace a flow binds to the SET and WAIT slices it joins: a
 * flow whose slices went into an earlier part is left out (counted), as
 * Perfetto would find no slice for it.
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

/* The flag slices of the current part of a per-core trace, by (pid, tid,
 * microsecond of either end), to find the slices a flow joins. */
#define FS_BITS 16
struct fslice {
	int64_t pid, tid;
	uint64_t ts, te, us;
	uint32_t next;              /* index + 1 in its chain */
};
static struct fslice *fs;
static uint32_t nfs, fs_cap, fs_head[1u << FS_BITS];
static uint64_t flows_cut;

static uint32_t fs_hash(int64_t pid, int64_t tid, uint64_t us)
{
	uint64_t h = (uint64_t)pid * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid * 0xc2b2ae3d27d4eb4full ^ us * 0x165667b19e3779f9ull;
	return (uint32_t)(h >> (64 - FS_BITS));
}

static void fs_clear(void)
{
	nfs = 0;
	memset(fs_head, 0, sizeof fs_head);
}

static void fs_add1(int64_t pid, int64_t tid, uint64_t ts, uint64_t te, uint64_t us)
{
	uint32_t h = fs_hash(pid, tid, us);
	if (nfs == fs_cap) {
		fs_cap = fs_cap ? 2 * fs_cap : 1024;
		fs = xrealloc(fs, fs_cap * sizeof *fs);
	}
	fs[nfs] = (struct fslice){ pid, tid, ts, te, us, fs_head[h] };
	fs_head[h] = ++nfs;
}

static int fs_find(int64_t pid, int64_t tid, uint64_t t)
{
	uint32_t k;
	for (k = fs_head[fs_hash(pid, tid, t / 1000000)]; k; k = fs[k - 1].next) {
		const struct fslice *f = &fs[k - 1];
		if (f->pid == pid && f->tid == tid && f->ts <= t && t <= f->te)
			return 1;
	}
	return 0;
}

/* A number of an event line: "key": integer or fixed decimal (in
 * millionths when us6).  0 when absent. */
static int num_of(const char *s, size_t n, const char *key, int us6, int64_t *v)
{
	char k[16];
	size_t kn = (size_t)snprintf(k, sizeof k, "\"%s\":", key);
	const char *p = memmem(s, n, k, kn), *e = s + n;
	int64_t x = 0, f = 0, neg = 0;
	int d = 0;
	if (!p)
		return 0;
	p += kn;
	if (p < e && *p == '-') {
		neg = 1;
		p++;
	}
	while (p < e && *p >= '0' && *p <= '9')
		x = x * 10 + (*p++ - '0');
	if (us6) {
		if (p < e && *p == '.')
			for (p++; p < e && *p >= '0' && *p <= '9'; p++)
				if (d < 6) {
					f = f * 10 + (*p - '0');
					d++;
				}
		while (d++ < 6)
			f *= 10;
		x = x * 1000000 + f;
	}
	*v = neg ? -x : x;
	return 1;
}

static int is_flag_slice(const char *s, size_t n)
{
	static const char *const pre[] = { "{\"name\":\"SET_", "{\"name\":\"WAIT_", "{\"name\":\"set_",
	                                   "{\"name\":\"wait_" };
	size_t i;
	for (i = 0; i < 4; i++)
		if (n > strlen(pre[i]) && !memcmp(s, pre[i], strlen(pre[i])))
			return memmem(s, n, "\"ph\":\"X\"", 8) != NULL;
	return 0;
}

static void fs_note(const char *s, size_t n)
{
	int64_t pid, tid, ts, dur;
	if (!num_of(s, n, "pid", 0, &pid) || !num_of(s, n, "tid", 0, &tid) || !num_of(s, n, "ts", 1, &ts) ||
	    !num_of(s, n, "dur", 1, &dur))
		return;
	fs_add1(pid, tid, (uint64_t)ts, (uint64_t)(ts + dur), (uint64_t)ts / 1000000);
	if ((uint64_t)(ts + dur) / 1000000 != (uint64_t)ts / 1000000)
		fs_add1(pid, tid, (uint64_t)ts, (uint64_t)(ts + dur), (uint64_t)(ts + dur) / 1000000);
}

/* Does the flow event on this line find its slice in the part? */
static int flow_binds(const char *s, size_t n)
{
	int64_t pid, tid, ts;
	if (!num_of(s, n, "pid", 0, &pid) || !num_of(s, n, "tid", 0, &tid) || !num_of(s, n, "ts", 1, &ts))
		return 1;
	return fs_find(pid, tid, (uint64_t)ts);
}

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
	fs_clear();
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

uint64_t split_flows_cut(void) { return flows_cut; }

void split_release(void)
{
	size_t i;
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	names = NULL;
	nnames = 0;
	free(groups);               /* a split cut off: its parts went with the staging directory */
	groups = NULL;
	ngroups = 0;
	free(fs);
	fs = NULL;
	fs_cap = 0;
	fs_clear();
	flows_cut = 0;
}

int split_trace(const char *src, const char *dir, int grouped, uint64_t limit, char ***out, size_t *nout)
{
	struct rd *r = rd_open(src);
	const char *line;
	size_t n, i;
	int err = 0, first = 1;
	char *head = NULL, *held = NULL;
	size_t held_n = 0;

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
			struct group *g = group_of("", 0);
			if (memmem(line, n, "\"ph\":\"s\"", 8) && !memmem(line, n, "\"ph\":\"t\"", 8)) {
				/* Held for its t, on the next line: both or neither. */
				free(held);
				held = xmalloc(n);
				memcpy(held, line, n);
				held_n = n;
				continue;
			}
			if (held && memmem(line, n, "\"ph\":\"t\"", 8)) {
				if (flow_binds(held, held_n) && flow_binds(line, n)) {
					err = put(g, held, held_n, limit, 0);
					if (!err)
						err = put(g, line, n, limit, 0);
				} else {
					flows_cut++;
				}
				free(held);
				held = NULL;
				continue;
			}
			if (held) {
				err = put(g, held, held_n, limit, 0);
				free(held);
				held = NULL;
				if (err)
					continue;
			}
			err = put(g, line, n, limit, meta);
			if (!err && is_flag_slice(line, n))
				fs_note(line, n);
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
	if (!err && held)
		err = put(group_of("", 0), held, held_n, limit, 0);
	free(held);
	if (!err && rd_error(r))
		err = rd_error(r);
	rd_close(r);
	fs_clear();
	free(fs);
	fs = NULL;
	fs_cap = 0;
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
