/* The BIU timeline decoder: see biu.h and optrace-board(5), TIMELINE.BIN. */
#include "biu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keytab.h"
#include "mem.h"

static const char *const pipe_names[BIU_NPIPES] = { "SCALAR", "VECTOR", "CUBE", "MTE1", "MTE2", "MTE3", "FIXP" };
static const char *const pipe_cnames[BIU_NPIPES] = {
	"startup", "rail_idle", "rail_response", "thread_state_iowait", "yellow", "rail_animation",
	"thread_state_unknown",
};
static const char *const colours[BIU_NCOLOURS] = {
	"thread_state_runnable", "good", "thread_state_iowait", "thread_state_unknown",
	"heap_dump_child_node_arrow", "thread_state_running", "startup", "background_memory_dump",
	"rail_response", "thread_state_uninterruptible", "head_dump_object_type", "cq_build_attempt_passed",
};
static const char *const sub_names[BIU_SUBS] = { "cubecore", "veccore0", "veccore1" };
static const signed char ctrl_pipe[16] = {
	BIU_SCALAR, BIU_VECTOR, BIU_CUBE, BIU_MTE1, BIU_MTE2, BIU_MTE3, -1, -1,
	-1, -1, BIU_FIXP, -1, -1, -1, -1, -1,
};

const char *biu_pipe_name(unsigned pipe)
{
	return pipe < BIU_NPIPES ? pipe_names[pipe] : "?";
}

const char *biu_pipe_lower(unsigned pipe, char buf[8])
{
	const char *name = biu_pipe_name(pipe);
	size_t j;
	for (j = 0; name[j] && j < 7; j++)
		buf[j] = (char)(name[j] | 0x20);
	buf[j] = 0;
	return buf;
}

const char *biu_pipe_cname(unsigned pipe)
{
	return pipe < BIU_NPIPES ? pipe_cnames[pipe] : "";
}

const char *biu_colour(size_t i)
{
	return colours[i % BIU_NCOLOURS];
}

int biu_pipe_find(const char *s, size_t n, int scalar)
{
	unsigned p;
	for (p = scalar ? 0 : 1; p < BIU_NPIPES; p++)
		if (strlen(pipe_names[p]) == n && !strncasecmp(s, pipe_names[p], n))
			return (int)p;
	return -1;
}

int biu_ctrl_pipe(unsigned ctrl)
{
	return ctrl < 16 ? ctrl_pipe[ctrl] : -1;
}

unsigned biu_pipe_ctrl(unsigned pipe)
{
	return pipe == BIU_FIXP ? 0xA : pipe;
}

static unsigned le16(const unsigned char *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8;
}

void biu_head_decode(const unsigned char p[BIU_HEAD_SIZE], struct biu_head *h)
{
	h->core_id = le16(p);
	h->core_type = le16(p + 2);
	h->valid = (uint32_t)le16(p + 4) | (uint32_t)le16(p + 6) << 16;
}

int biu_channel(const struct biu_head *h)
{
	unsigned long ch;
	if (h->core_type >= BIU_SUBS)
		return -1;
	ch = (unsigned long)h->core_id * BIU_SUBS + h->core_type;
	return ch < BIU_CHANNELS ? (int)ch : -2;
}

size_t biu_channel_name(unsigned ch, char *buf, size_t size)
{
	int n = snprintf(buf, size, "core%u.%s", ch / BIU_SUBS, sub_names[ch % BIU_SUBS]);
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* The open starts of one channel and pipe, by id. */
struct idtab {
	uint64_t start[BIU_IDS];
	uint64_t used[BIU_IDS / 64];
};

struct chan {
	uint64_t cycle, nev;
	uint64_t busy_start[BIU_NPIPES];
	unsigned busy;                   /* open busy spans, bit per pipe */
	int marking;                     /* an end-marker sequence is under way */
	uint64_t mark_start;
	unsigned mark_next;
	struct biu_event *hold;
	size_t nhold, caphold;
	uint64_t hold_unpaired[BIU_NPIPES];
	struct idtab *ids[BIU_NPIPES];
};

struct biu {
	enum biu_mode mode;
	biu_emit_fn emit;
	void *ctx;
	struct biu_stats st;
	struct chan ch[BIU_CHANNELS];
	unsigned char *buf;              /* biu_read_file's chunk */
};

struct biu *biu_new(enum biu_mode mode, biu_emit_fn emit, void *ctx)
{
	struct biu *b = xcalloc(1, sizeof *b);
	b->mode = mode;
	b->emit = emit;
	b->ctx = ctx;
	return b;
}

void biu_free(struct biu *b)
{
	unsigned c, p;
	if (!b)
		return;
	for (c = 0; c < BIU_CHANNELS; c++) {
		for (p = 0; p < BIU_NPIPES; p++)
			free(b->ch[c].ids[p]);
		free(b->ch[c].hold);
	}
	free(b->buf);
	free(b);
}

static void count_pair(struct biu *b, const struct biu_event *e)
{
	if (e->kind == BIU_EV_REGION || e->kind == BIU_EV_INSTR)
		b->st.loss[e->ch][e->pipe].pairs++;
}

/* The held events are data after all. */
static void release(struct biu *b, struct chan *c)
{
	size_t i;
	unsigned p;
	for (i = 0; i < c->nhold; i++) {
		count_pair(b, &c->hold[i]);
		b->emit(b->ctx, &c->hold[i]);
	}
	for (p = 0; p < BIU_NPIPES; p++) {
		b->st.loss[c - b->ch][p].unpaired += c->hold_unpaired[p];
		c->hold_unpaired[p] = 0;
	}
	c->nhold = 0;
	c->marking = 0;
}

/* An event while an end-marker sequence is under way: held back. */
static void hold(struct biu *b, struct chan *c, const struct biu_event *e)
{
	if (c->nhold < BIU_HOLD_MAX) {
		if (c->nhold == c->caphold)
			c->hold = xreallocarray(c->hold, c->caphold = c->caphold ? 2 * c->caphold : 64, sizeof *c->hold);
		c->hold[c->nhold++] = *e;
		return;
	}
	b->st.held_over++;
	release(b, c);
	count_pair(b, e);
	b->emit(b->ctx, e);
}

static inline void put(struct biu *b, struct chan *c, unsigned kind, unsigned pipe, unsigned id, uint64_t start,
                       uint64_t dur)
{
	struct biu_event e = { start, dur, (uint16_t)id, (uint8_t)(c - b->ch), (uint8_t)pipe, (uint8_t)kind };
	c->nev++;
	if (c->marking) {
		hold(b, c, &e);
		return;
	}
	count_pair(b, &e);
	b->emit(b->ctx, &e);
}

/* The end-marker sequence: an id of it starts (0xd88) or goes on with
 * it; any other id ends it, the held events being data. */
/* The ids the end-of-kernel stub stamps to flush the BIU buffer:
 * 0xd88, 0xd99, ..., 0xdff. */
static inline void endmark(struct biu *b, struct chan *c, unsigned id)
{
	/* The sequence runs 0xd88 to 0xdff in steps of 0x11. */
	unsigned i = id - 0xd88u <= 0x77u && (id - 0xd88u) % 0x11u == 0 ? (id - 0xd88u) / 0x11u : 8;
	if (i == 8) {
		if (c->marking)
			release(b, c);
		return;
	}
	if (i == 0) {
		if (c->marking)
			release(b, c);
		c->marking = 1;
		c->mark_start = c->nev;
		c->mark_next = 1;
		return;
	}
	if (!c->marking || c->mark_next == 8)
		return;
	if (c->mark_next != i) {
		release(b, c);
		return;
	}
	c->mark_next++;
}

static struct idtab *ids_of(struct chan *c, unsigned pipe)
{
	if (!c->ids[pipe])
		c->ids[pipe] = xcalloc(1, sizeof *c->ids[pipe]);
	return c->ids[pipe];
}

static int used(const struct idtab *t, unsigned id)
{
	return (t->used[id >> 6] >> (id & 63)) & 1;
}

static void set_used(struct idtab *t, unsigned id, int on)
{
	if (on)
		t->used[id >> 6] |= 1ULL << (id & 63);
	else
		t->used[id >> 6] &= ~(1ULL << (id & 63));
}

static void pipe_state(struct biu *b, struct chan *c, unsigned state)
{
	unsigned now = state & ((1u << BIU_NPIPES) - 1), diff = now ^ c->busy, p;
	for (; diff; diff &= diff - 1) {
		p = (unsigned)__builtin_ctz(diff);
		if (now >> p & 1) {
			c->busy_start[p] = c->cycle;
		} else {
			put(b, c, BIU_EV_BUSY, p, p, c->busy_start[p], c->cycle - c->busy_start[p]);
		}
	}
	c->busy = now;
}

static void mark_pipe(struct biu *b, struct chan *c, unsigned pipe, unsigned id)
{
	struct idtab *t;
	unsigned region = id & 0x3ff;
	unsigned ci = (unsigned)(c - b->ch);
	put(b, c, BIU_EV_MARK, pipe, id, c->cycle, 1);
	if (!(id & 0x400))
		return;
	t = ids_of(c, pipe);
	if (!(id & 0x800)) {
		if (used(t, region))
			b->st.loss[ci][pipe].overwritten++;
		t->start[region] = c->cycle;
		set_used(t, region, 1);
	} else if (used(t, region)) {
		set_used(t, region, 0);
		put(b, c, BIU_EV_REGION, pipe, region, t->start[region], c->cycle - t->start[region]);
	} else if (c->marking) {
		c->hold_unpaired[pipe]++;
	} else {
		b->st.loss[ci][pipe].unpaired++;
	}
}

static void mark_instr(struct biu *b, struct chan *c, unsigned pipe, unsigned id)
{
	struct idtab *t;
	if (pipe == BIU_SCALAR || (id >> 9 & 3) != 3)
		return;
	t = ids_of(c, pipe);
	if (!used(t, id)) {
		t->start[id] = c->cycle;
		set_used(t, id, 1);
	} else {
		set_used(t, id, 0);
		put(b, c, BIU_EV_INSTR, pipe, id, t->start[id], c->cycle - t->start[id]);
	}
}

void biu_data(struct biu *b, unsigned ch, const unsigned char *p, size_t n)
{
	struct chan *c;
	const unsigned char *end = p + (n & ~(size_t)(BIU_REC_SIZE - 1));
	int pipemode = b->mode == BIU_PIPE_TIMELINE;
	uint64_t cycle, ignored = 0;

	if (ch >= BIU_CHANNELS)
		return;
	c = &b->ch[ch];
	cycle = c->cycle;
	b->st.seen |= 1u << ch;
	b->st.records += (uint64_t)(end - p) / BIU_REC_SIZE;
	for (; p < end; p += BIU_REC_SIZE) {
		unsigned info = le16(p + 2), ctrl = info >> 12, state = info & 0xfff;
		int pipe;
		if (ctrl == 0xf) {
			cycle += le16(p);
			/* Most samples repeat the state: nothing to do. */
			if (pipemode && (state & ((1u << BIU_NPIPES) - 1)) != c->busy) {
				c->cycle = cycle;
				pipe_state(b, c, state);
			}
			continue;
		}
		if ((pipe = ctrl_pipe[ctrl]) < 0) {
			ignored++;
			continue;
		}
		c->cycle = cycle += le16(p);
		if (c->marking || state - 0xd88u <= 0x77u)
			endmark(b, c, state);
		if (pipemode)
			mark_pipe(b, c, (unsigned)pipe, state);
		else
			mark_instr(b, c, (unsigned)pipe, state);
	}
	c->cycle = cycle;
	b->st.ignored += ignored;
}

void biu_finish(struct biu *b)
{
	unsigned ci, p, w;
	for (ci = 0; ci < BIU_CHANNELS; ci++) {
		struct chan *c = &b->ch[ci];
		if (c->marking) {
			b->st.erased += c->nhold;
			c->nhold = 0;
			c->marking = 0;
			memset(c->hold_unpaired, 0, sizeof c->hold_unpaired);
		}
		for (p = 0; p < BIU_NPIPES; p++) {
			struct idtab *t = c->ids[p];
			if (!t)
				continue;
			for (w = 0; w < BIU_IDS / 64; w++)
				b->st.loss[ci][p].open += (uint64_t)__builtin_popcountll(t->used[w]);
		}
	}
}

const struct biu_stats *biu_stats(const struct biu *b)
{
	return &b->st;
}

uint64_t biu_cycles(const struct biu *b, unsigned ch)
{
	return ch < BIU_CHANNELS ? b->ch[ch].cycle : 0;
}

int biu_endmark(const struct biu *b, unsigned ch, uint64_t *start, unsigned *next)
{
	if (ch >= BIU_CHANNELS || !b->ch[ch].marking)
		return 0;
	*start = b->ch[ch].mark_start;
	*next = b->ch[ch].mark_next;
	return 1;
}

size_t biu_open_ids(const struct biu *b, unsigned ch, unsigned pipe, uint16_t *ids, size_t max)
{
	const struct idtab *t;
	size_t n = 0;
	unsigned id;
	if (ch >= BIU_CHANNELS || pipe >= BIU_NPIPES || !(t = b->ch[ch].ids[pipe]))
		return 0;
	for (id = 0; id < BIU_IDS; id++)
		if (used(t, id)) {
			if (n < max)
				ids[n] = (uint16_t)id;
			n++;
		}
	return n;
}

/* pread all of n bytes at off: 0, or -1 (errno; EIO for a short file). */
static int pread_all(int fd, unsigned char *p, size_t n, off_t off)
{
	while (n) {
		ssize_t got = pread(fd, p, n, off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0) {
			if (!got)
				errno = EIO;
			return -1;
		}
		p += got;
		n -= (size_t)got;
		off += got;
	}
	return 0;
}

int biu_read_file(struct biu *b, const char *path, char *msg, size_t size)
{
	unsigned char head[BIU_HEAD_SIZE];
	struct biu_head h;
	struct stat sb;
	off_t off, whole, long_at = 0;
	uint64_t nlong = 0;
	uint32_t long_len = 0;
	size_t k = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ch, rc = 0;

	if (fd < 0 || fstat(fd, &sb) < 0) {
		snprintf(msg, size, "cannot read: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!b->buf)
		b->buf = xmalloc(BIU_DATA_SIZE);
	whole = sb.st_size - sb.st_size % BIU_CHUNK_SIZE;
	for (off = 0; off < whole; off += BIU_CHUNK_SIZE) {
		size_t n;
		if (pread_all(fd, head, sizeof head, off) < 0)
			goto fail;
		biu_head_decode(head, &h);
		b->st.chunks++;
		if ((ch = biu_channel(&h)) < 0) {
			if (ch == -1)
				b->st.bad_type++;
			else
				b->st.bad_channel++;
			continue;
		}
		n = h.valid;
		if (n > BIU_DATA_SIZE) {
			b->st.long_valid++;
			if (!nlong++)
				long_at = off, long_len = h.valid;
			n = BIU_DATA_SIZE;
		}
		if (n && pread_all(fd, b->buf, n, off + BIU_HEAD_SIZE) < 0)
			goto fail;
		biu_data(b, (unsigned)ch, b->buf, n);
	}
	if (nlong) {
		int m = snprintf(msg, size, "%llu chunks claim more than the 2 MiB of records a chunk holds (the first, "
		                 "at byte %lld: validLen %lu): read to 2 MiB", (unsigned long long)nlong,
		                 (long long)long_at, (unsigned long)long_len);
		k = m < 0 ? 0 : (size_t)m < size ? (size_t)m : size - 1;
		rc = 1;
	}
	if (whole != sb.st_size) {
		snprintf(msg + k, size - k, "%s%lld bytes is not a whole number of %u-byte chunks (a head and 2 MiB): "
		         "the last %lld bytes were left out", k ? "; " : "", (long long)sb.st_size, BIU_CHUNK_SIZE,
		         (long long)(sb.st_size - whole));
		rc = 1;
	}
	close(fd);
	return rc;
fail:
	snprintf(msg, size, "read error in the chunk at byte %lld: %s", (long long)off, strerror(errno));
	close(fd);
	return -2;
}

/* ---- dfx_region_map.txt and dfx_tune.log ---- */

void biu_map_init(struct biu_map *m)
{
	memset(m, 0, sizeof *m);
}

void biu_map_free(struct biu_map *m)
{
	free(m->e);
	free(m->names);
	free(m->ops);
	biu_map_init(m);
}

static int is_alnum(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int hexval(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static const char *find(const char *s, const char *end, const char *lit)
{
	size_t n = strlen(lit);
	for (; (size_t)(end - s) >= n; s++) {
		const char *q = memchr(s, lit[0], (size_t)(end - s) - n + 1);
		if (!q)
			return NULL;
		if (!memcmp(q, lit, n))
			return q;
		s = q;
	}
	return NULL;
}

/* ",pc=0x<1-8 hex>,opcode=<[A-Za-z0-9_-]+>" from q: the pc and the name,
 * or 0. */
static int pc_opcode(const char *q, const char *end, uint64_t *pc, const char **name, size_t *len)
{
	const char *p = q + 4;
	uint64_t v = 0;
	int d, nd = 0;
	if (end - p < 2 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
		return 0;
	for (p += 2; p < end && nd < 8 && (d = hexval(*p)) >= 0; p++, nd++)
		v = v << 4 | (unsigned)d;
	if (!nd || (size_t)(end - p) < 8 || memcmp(p, ",opcode=", 8))
		return 0;
	p += 8;
	*name = p;
	while (p < end && (is_alnum(*p) || *p == '_' || *p == '-'))
		p++;
	*len = (size_t)(p - *name);
	*pc = v;
	return *len > 0;
}

/* One match of the line's fields at region (the text "region_id="). */
static int map_fields(const char *r, const char *end, unsigned *id, int *pipe, uint64_t *pc, const char **name,
                      size_t *len)
{
	const char *p = r + 10, *q, *w;
	unsigned v = 0;
	int nd = 0;
	for (; p < end && nd < 4 && *p >= '0' && *p <= '9'; p++, nd++)
		v = v * 10 + (unsigned)(*p - '0');
	if (!nd || (size_t)(end - p) < 6 || memcmp(p, ",pipe=", 6))
		return 0;
	for (w = p += 6; p < end && p - w < 6 && is_alnum(*p); p++)
		;
	if (p - w < 4 || p >= end || *p != ',')
		return 0;
	*pipe = biu_pipe_find(w, (size_t)(p - w), 0);
	/* Any text, then ",pc=": the first such field that is well formed. */
	for (q = p + 1; (q = find(q, end, ",pc=")); q++)
		if (pc_opcode(q, end, pc, name, len)) {
			*id = v;
			return 1;
		}
	return 0;
}

int biu_map_line(struct biu_map *m, const char *s, size_t n, uint64_t start_pc)
{
	const char *end = s + n, *r, *name = NULL;
	unsigned id = 0;
	int pipe = -1, found = 0;
	uint64_t pc = 0;
	size_t len = 0, i;
	uint32_t h;
	struct biu_map_entry *e;

	for (r = s; (r = find(r, end, "region_id=")); r++)
		if (map_fields(r, end, &id, &pipe, &pc, &name, &len)) {
			found = 1;
			break;
		}
	if (!found || pipe < 0 || id >= BIU_IDS)
		return 0;
	h = hash_fnv(name, len, HASH_FNV_INIT);
	for (i = 0; i < m->nops; i++)
		if (m->ops[i].hash == h && m->ops[i].len == len && !memcmp(m->names + m->ops[i].at, name, len))
			break;
	if (i == m->nops) {
		if (m->nops == m->capops)
			m->ops = xreallocarray(m->ops, m->capops = m->capops ? 2 * m->capops : 32, sizeof *m->ops);
		while (m->nnames + len > m->capnames)
			m->names = xrealloc(m->names, m->capnames = m->capnames ? 2 * m->capnames : 1024);
		memcpy(m->names + m->nnames, name, len);
		m->ops[i].at = (uint32_t)m->nnames;
		m->ops[i].len = (uint32_t)len;
		m->ops[i].hash = h;
		m->ops[i].colour = UINT32_MAX;
		m->nnames += len;
		m->nops++;
	}
	if (!m->e)
		m->e = xcalloc((size_t)BIU_NPIPES * BIU_IDS, sizeof *m->e);
	e = &m->e[(size_t)pipe * BIU_IDS + id];
	e->pc = start_pc + pc;
	e->op = (uint32_t)i;
	e->have = 1;
	m->entries++;
	return 1;
}

const struct biu_map_entry *biu_map_get(const struct biu_map *m, unsigned pipe, unsigned id)
{
	const struct biu_map_entry *e;
	if (!m->e || pipe >= BIU_NPIPES || id >= BIU_IDS)
		return NULL;
	e = &m->e[(size_t)pipe * BIU_IDS + id];
	return e->have ? e : NULL;
}

const char *biu_map_name(const struct biu_map *m, const struct biu_map_entry *e, size_t *len)
{
	*len = m->ops[e->op].len;
	return m->names + m->ops[e->op].at;
}

const char *biu_map_colour(struct biu_map *m, const struct biu_map_entry *e)
{
	struct biu_opcode *o = &m->ops[e->op];
	if (o->colour == UINT32_MAX)
		o->colour = m->ncolours++;
	return biu_colour(o->colour);
}

int biu_tune_line(const char *s, size_t n)
{
	const char *end = s + n, *p, *w;
	if (!find(s, end, "TUNE-ERROR: all dfx ids consumed"))
		return -1;
	/* "[pipe=<4..6 letters or digits>]", anywhere on the line. */
	for (p = s; (p = find(p, end, "[pipe=")); p++) {
		int pipe;
		for (w = p + 6; w < end && w - (p + 6) < 7 && is_alnum(*w); w++)
			;
		if (w < end && *w == ']' && w - (p + 6) >= 4 && w - (p + 6) <= 6 &&
		    (pipe = biu_pipe_find(p + 6, (size_t)(w - (p + 6)), 0)) >= 0)
			return pipe;
	}
	return -1;
}

size_t biu_tune_pipes(unsigned mask, char *buf, size_t size)
{
	/* Alphabetical, as the names are in the log. */
	static const unsigned order[] = { BIU_CUBE, BIU_FIXP, BIU_MTE1, BIU_MTE2, BIU_MTE3, BIU_VECTOR };
	size_t n = 0, i;
	if (!size)
		return 0;
	buf[0] = 0;
	for (i = 0; i < sizeof order / sizeof *order; i++) {
		const char *name = pipe_names[order[i]];
		size_t k;
		if (!(mask >> order[i] & 1))
			continue;
		if (n && n + 2 < size) {
			buf[n++] = ',';
			buf[n++] = ' ';
		}
		for (k = 0; name[k] && n + 1 < size; k++)
			buf[n++] = (char)(name[k] | 0x20);
		buf[n] = 0;
	}
	return n;
}
