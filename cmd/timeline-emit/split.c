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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "emit.h"
#include "io.h"
#include "keytab.h"
#include "mem.h"

struct group {
	char *key;                  /* "core0", "mte", or "" (one group) */
	struct wr *w;
	uint64_t bytes, nev;
	unsigned part;              /* parts begun */
	char **meta;
	size_t *meta_n, nmeta;
};

/* The flag slices of the current part of a per-core trace, to find the
 * slice a flow joins: a slice of the flow's (pid, tid) lane that holds
 * its time.  A lane's slices come in time order (each lane is written in
 * order), so each lane keeps them as a run: 8 bytes a slice (its start
 * as the step from the one before, its length), in blocks of FS_BLK with
 * each block's absolute start and the latest end up to it, found by a
 * binary search.  A slice that does not fit is kept exactly too: a step
 * past 32 bits begins a new block, a length past 32 bits goes to a table
 * beside, a slice out of order to a list beside (searched whole; traces
 * written here have none), so the answer is that of a search of every
 * slice before, whatever its length. */
#define FS_BLK 64
struct fs_blk {
	uint64_t base;              /* start of its first slice */
	uint64_t pmax;              /* latest end of this and every earlier block */
	uint32_t first;             /* index of its first slice in the lane */
};
struct fs_lane {
	uint32_t *step, *len;       /* per slice; len UINT32_MAX: see fs_long */
	uint32_t n, cap;
	struct fs_blk *blk;
	uint32_t nblk, capblk;
	uint64_t last;              /* start of the last slice */
};
struct fs_odd {
	uint64_t ts, te;
	uint32_t lane;
};
static struct fs_lane *fs_l;
static uint32_t fs_nlanes, fs_caplanes;
static struct keytab fs_lanes;  /* (pid, tid) -> lane + 1 */
static struct keytab fs_long;   /* (lane, index) -> end of a long slice */
static struct fs_odd *fs_o;
static uint32_t fs_no, fs_capo;
static uint64_t flows_cut;

/* The lane of (pid, tid), from 1; 0 when absent and !make. */
static uint32_t fs_lane_of(int64_t pid, int64_t tid, int make)
{
	uint32_t *v;
	int fresh;
	if (!make)
		return fs_lanes.cap && (v = keytab_find2(&fs_lanes, (uint64_t)pid, (uint64_t)tid)) ? *v : 0;
	if (!fs_lanes.pairs)
		fs_lanes = keytab_make2(sizeof(uint32_t), 2);
	v = keytab_get2(&fs_lanes, (uint64_t)pid, (uint64_t)tid, &fresh);
	if (fresh) {
		if (fs_nlanes == fs_caplanes)
			fs_l = xreallocarray(fs_l, fs_caplanes = fs_caplanes ? 2 * fs_caplanes : 16, sizeof *fs_l);
		fs_l[fs_nlanes] = (struct fs_lane){ 0 };
		*v = ++fs_nlanes;
	}
	return *v;
}

/* A new part: no slices, the memory kept for the next. */
static void fs_clear(void)
{
	uint32_t i;
	for (i = 0; i < fs_nlanes; i++)
		fs_l[i].n = fs_l[i].nblk = 0;
	if (fs_long.pairs)
		keytab_free(&fs_long);
	fs_long = (struct keytab){ 0 };
	fs_no = 0;
}

static void fs_free(void)
{
	uint32_t i;
	fs_clear();
	for (i = 0; i < fs_nlanes; i++) {
		free(fs_l[i].step);
		free(fs_l[i].len);
		free(fs_l[i].blk);
	}
	free(fs_l);
	fs_l = NULL;
	fs_nlanes = fs_caplanes = 0;
	if (fs_lanes.pairs)
		keytab_free(&fs_lanes);
	fs_lanes = (struct keytab){ 0 };
	free(fs_o);
	fs_o = NULL;
	fs_capo = 0;
}


static void fs_add(uint32_t lane, uint64_t ts, uint64_t te)
{
	struct fs_lane *l = &fs_l[lane - 1];
	uint64_t step = l->n ? ts - l->last : 0;
	if (l->n && ts < l->last) {
		if (fs_no == fs_capo)
			fs_o = xreallocarray(fs_o, fs_capo = fs_capo ? 2 * fs_capo : 256, sizeof *fs_o);
		fs_o[fs_no++] = (struct fs_odd){ ts, te, lane };
		return;
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 1024;
		l->step = xreallocarray(l->step, l->cap, sizeof *l->step);
		l->len = xreallocarray(l->len, l->cap, sizeof *l->len);
	}
	if (!l->nblk || l->n - l->blk[l->nblk - 1].first == FS_BLK || step > UINT32_MAX) {
		if (l->nblk == l->capblk)
			l->blk = xreallocarray(l->blk, l->capblk = l->capblk ? 2 * l->capblk : 64, sizeof *l->blk);
		l->blk[l->nblk] = (struct fs_blk){ ts, l->nblk ? l->blk[l->nblk - 1].pmax : 0, l->n };
		l->nblk++;
		step = 0;
	}
	l->step[l->n] = (uint32_t)step;
	if (te - ts >= UINT32_MAX) {
		int fresh;
		if (!fs_long.pairs)
			fs_long = keytab_make2(sizeof(uint64_t), 2);
		*(uint64_t *)keytab_get2(&fs_long, lane, l->n, &fresh) = te;
		l->len[l->n] = UINT32_MAX;
	} else {
		l->len[l->n] = (uint32_t)(te - ts);
	}
	if (te > l->blk[l->nblk - 1].pmax)
		l->blk[l->nblk - 1].pmax = te;
	l->last = ts;
	l->n++;
}

static uint64_t fs_end(uint32_t lane, uint32_t i, uint64_t ts)
{
	const struct fs_lane *l = &fs_l[lane - 1];
	if (l->len[i] != UINT32_MAX)
		return ts + l->len[i];
	return *(const uint64_t *)keytab_find2(&fs_long, lane, i);
}

static int fs_find(int64_t pid, int64_t tid, uint64_t t)
{
	uint32_t k, lane = fs_lane_of(pid, tid, 0), lo, hi;
	const struct fs_lane *l;
	if (!lane)
		return 0;
	for (k = 0; k < fs_no; k++)
		if (fs_o[k].lane == lane && fs_o[k].ts <= t && t <= fs_o[k].te)
			return 1;
	l = &fs_l[lane - 1];
	if (!l->nblk || l->blk[0].base > t)
		return 0;
	/* the last block starting at or before t, then back while an earlier
	 * slice can still reach t */
	lo = 0;
	hi = l->nblk - 1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo + 1) / 2;
		if (l->blk[mid].base <= t)
			lo = mid;
		else
			hi = mid - 1;
	}
	for (;;) {
		const struct fs_blk *b = &l->blk[lo];
		uint32_t end = lo + 1 < l->nblk ? l->blk[lo + 1].first : l->n, i;
		uint64_t ts = b->base;
		for (i = b->first; i < end; i++) {
			ts += l->step[i];
			if (ts > t)
				break;
			if (fs_end(lane, i, ts) >= t)
				return 1;
		}
		if (!lo || l->blk[lo - 1].pmax < t)
			return 0;
		lo--;
	}
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
	uint32_t lane;
	if (!num_of(s, n, "pid", 0, &pid) || !num_of(s, n, "tid", 0, &tid) || !num_of(s, n, "ts", 1, &ts) ||
	    !num_of(s, n, "dur", 1, &dur))
		return;
	lane = fs_lane_of(pid, tid, 1);
	fs_add(lane, (uint64_t)ts, (uint64_t)(ts + dur));
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
	fs_free();
	flows_cut = 0;
}

int split_trace(const char *src, uint64_t off, uint64_t len, const char *dir, int grouped, uint64_t limit,
                char ***out, size_t *nout)
{
	int fd = open(src, O_RDONLY | O_CLOEXEC);
	struct rd *r = NULL;
	const char *line;
	size_t n, i;
	int err = 0, first = 1;
	char *head = NULL, *held = NULL;
	size_t held_n = 0;

	*out = NULL;
	*nout = 0;
	if (fd < 0 || lseek(fd, (off_t)off, SEEK_SET) < 0 || !(r = rd_fdopen(fd, src))) {
		err = errno ? errno : EIO;
		if (fd >= 0)
			close(fd);
		return err;
	}
	dir_ = dir;
	by_group = grouped;
	/* (what follows the trace in src is not its own) */
	while (!err && rd_offset(r) < len && (line = rd_line(r, &n))) {
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
	if (!err && len != UINT64_MAX && rd_offset(r) != len)
		err = EIO;      /* src is shorter than the trace it should hold */
	rd_close(r);
	close(fd);
	fs_free();
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
