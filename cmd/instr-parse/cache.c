/* Pass 1 of instr-parse: every instr and popped line parsed as it arrives,
 * counted per pc for the prune decision and spooled.  Each pc keeps its
 * last few lines (NSLOT per log) with their parse and what was derived
 * from them: a line whose rest after the PC repeats one of them reuses
 * all of it, which is most lines of a loop. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mem.h"
#include "scan.h"
#include "state.h"

static struct unit *unit_for(struct ip *ip, uint32_t core, uint32_t subtype, uint32_t subidx)
{
	size_t i;
	struct unit *u, *last = ip->last;

	if (last && last->core == core && last->subtype == subtype && last->subidx == subidx)
		return last;
	for (i = 0; i < ip->nunits; i++) {
		u = ip->units[i];
		if (u->core == core && u->subtype == subtype && u->subidx == subidx)
			return ip->last = u;
	}
	u = xcalloc(1, sizeof *u);
	ip->units = xreallocarray(ip->units, ip->nunits + 1, sizeof *ip->units);
	u->ip = ip;
	u->core = core;
	u->subtype = subtype;
	u->subidx = subidx;
	u->block = u->subblock = -1;
	u->cur_mark = -1;
	/* At most a quarter full so probe runs stay short: on A5 about a
	 * thousand ids that never pair stay in among the inserts and deletes
	 * of the ids in flight. */
	u->keys = keytab_make(sizeof(struct keyinfo), 1);
	u->pcregs = keytab_make(sizeof(struct pcregs), 1);
	u->rdpc = keytab_make(sizeof(struct rdtext), 1);
	u->pops = spool_new();
	u->execs = spool_new();
	ip->units[ip->nunits++] = u;
	return ip->last = u;
}

static struct slots *slots_of(struct pcregs *pr)
{
	if (!pr->sl)
		pr->sl = xcalloc(1, sizeof *pr->sl);
	return pr->sl;
}

/* Logical ids: ([A-Z0-9/:]{0,10})=([0-9xXa-fA-F]{0,4}),SPR:BLOCKID, parsed
 * base 16 like stoi(.., 16) (a 0x prefix allowed). */
static int spr_read(const char *d, size_t n, const char *spr)
{
	const char *end = d + n, *p = d;
	size_t sl = strlen(spr);
	while ((p = memmem(p, (size_t)(end - p), spr, sl))) {
		const char *v = p, *eq;
		uint64_t x = 0;
		int digits = 0;
		p++;
		/* Walk back over the value to the '='. */
		while (v > d && v - p < 5 && v[-1] != '=' && v[-1] != ',')
			v--;
		if (v == d || v[-1] != '=' || (p - 1) - v > 4)
			continue;
		eq = v - 1;
		(void)eq;
		if ((p - 1) - v >= 2 && v[0] == '0' && (v[1] | 0x20) == 'x')
			v += 2;
		for (; v < p - 1; v++) {
			int h = hexval((unsigned char)*v);
			if (h < 0)
				break;
			x = x * 16 + (unsigned)h;
			digits++;
		}
		if (!digits)
			continue;
		return (int)x;
	}
	return -1;
}

static void mark_line(struct unit *u, const struct iline *l, int usermark, uint32_t file,
                      uint64_t line)
{
	const char *detail = l->detail;
	size_t dn = l->detail_n;
	const char *m;
	int is_nop = l->name_n == 8 && !memcmp(l->name, "NOP_PIPE", 8);

	if (is_nop && u->cur_mark >= 0) {
		struct interval *iv = &u->marks[u->cur_mark].iv[u->cur_iv];
		if (!u->cur_stop) {
			iv->start = l->tick;
			u->cur_mark = -1;
		} else {
			iv->end = l->tick;
		}
		return;
	}
	u->cur_mark = -1;
	if (!usermark)
		return;
	/* 0x[8c]000000[0-9] */
	for (m = detail; (m = memmem(m, (size_t)(detail + dn - m), "0x", 2)); m++) {
		struct markset *ms;
		int id;
		if (detail + dn - m < 10 || (m[2] != '8' && m[2] != 'c') || memcmp(m + 3, "000000", 6) ||
		    m[9] < '0' || m[9] > '9')
			continue;
		id = m[9] - '0';
		ms = &u->marks[id];
		if (m[2] == '8') {
			if (ms->n && ms->iv[ms->n - 1].end == UINT64_MAX) {
				if (!ms->invalid)
					loss_add(&u->ip->losses, LOSS_MARK, file, line, "nested start");
				ms->invalid = 1;
				return;
			}
			if (ms->n == ms->cap) {
				ms->cap = ms->cap ? 2 * ms->cap : 4;
				ms->iv = xreallocarray(ms->iv, ms->cap, sizeof *ms->iv);
			}
			ms->iv[ms->n].start = l->tick;
			ms->iv[ms->n].end = UINT64_MAX;
			ms->iv[ms->n].spc = l->pc;
			ms->iv[ms->n].epc = UINT64_MAX;
			/* Stored space-free, like every detail. */
			ms->iv[ms->n].detail = xmalloc(dn + 1);
			ms->iv[ms->n].detail[strip_spaces(ms->iv[ms->n].detail, detail, dn)] = 0;
			ms->n++;
			u->cur_stop = 0;
		} else {
			if (!ms->n) {
				if (!ms->invalid)
					loss_add(&u->ip->losses, LOSS_MARK, file, line, "stop without start");
				ms->invalid = 1;
				return;
			}
			ms->iv[ms->n - 1].end = l->tick;
			ms->iv[ms->n - 1].epc = l->pc;
			u->cur_stop = 1;
		}
		u->cur_mark = id;
		u->cur_iv = (int)ms->n - 1;
		return;
	}
}

static void grow_detail(struct ip *ip, size_t n)
{
	if (ip->detail_cap < n + 32) {
		ip->detail_cap = 2 * (n + 32);
		ip->detail_buf = xrealloc(ip->detail_buf, ip->detail_cap);
	}
}

/* Per-pc counts for the prune decision: the walks keep an entry unless it
 * is within 8 cycles (execs) or exactly 1 cycle (pops) of the previous. */
static void count_in(struct keyinfo *k, int is_pop, uint64_t tick)
{
	if (is_pop) {
		if (!k->npop) {
			k->first_pop = k->pop_run_end = tick;
			k->pop_in_run = 1;
			k->pops_ordered = 1;
			k->pop_kept++;
		} else {
			if (tick - k->last_pop != 1) {
				k->pop_kept++;
				k->pop_in_run = 0;
			} else if (k->pop_in_run) {
				k->pop_run_end = tick;
			}
			if (tick < k->last_pop)
				k->pops_ordered = 0;
		}
		k->npop++;
		k->last_pop = tick;
	} else {
		if (!k->nexec) {
			k->first_exec = k->exec_run_end = tick;
			k->exec_in_run = 1;
			k->exec_kept++;
		} else if (tick - k->last_exec > 8) {
			k->exec_kept++;
			k->exec_in_run = 0;
		} else if (k->exec_in_run) {
			k->exec_run_end = tick;
		}
		k->nexec++;
		k->last_exec = tick;
	}
}

static struct keyinfo *count_line(struct unit *u, uint64_t key, int is_pop, uint64_t tick)
{
	struct keyinfo *k = keytab_get(&u->keys, key, NULL);
	count_in(k, is_pop, tick);
	return k;
}

/* Keep what the latest pop of a writer sets, and note when its pops do not
 * all set the same variables. */
static void note_writes(struct keyinfo *k, unsigned mask, const uint64_t *val)
{
	if (!k)
		return;
	if (mask) {
		if (k->writes && k->writes != mask)
			k->writes_mixed = 1;
		k->writes |= mask;
		memcpy(k->writes_val, val, sizeof k->writes_val);
	} else if (k->writes) {
		k->writes_mixed = 1;
	}
}

static void rel_save(struct lrel *r, const struct iline *l, const char *rest)
{
	r->pipe = l->pipe - rest;
	r->name = l->name - rest;
	r->detail = l->detail - rest;
	r->pipe_n = l->pipe_n;
	r->name_n = l->name_n;
	r->detail_n = l->detail_n;
	r->id = l->id;
	r->has_id = l->has_id;
	r->id_at = l->id_n ? l->id_p - rest : 0;
	r->id_n = l->id_n;
	r->has_sep = l->has_sep;
	r->pop = l->pop;
}

static void rel_load(struct iline *l, const struct lrel *r, const char *rest)
{
	/* An empty field's position does not matter: keep it in the line. */
	l->pipe = r->pipe_n ? rest + r->pipe : rest;
	l->name = r->name_n ? rest + r->name : rest;
	l->detail = r->detail_n ? rest + r->detail : rest;
	l->pipe_n = r->pipe_n;
	l->name_n = r->name_n;
	l->detail_n = r->detail_n;
	l->id = r->id;
	l->has_id = r->has_id;
	l->id_p = rest + r->id_at;
	l->id_n = r->id_n;
	l->has_sep = r->has_sep;
	l->pop = r->pop;
}

/* Does rest repeat a cached rest (buf, n, parsed as rel)?  Its id digits
 * may differ (every A5 line has its own id): *id is the line's id. */
static inline uint64_t tail8(const char *rest, size_t n)
{
	uint64_t x = 0;
	if (n >= 8)
		memcpy(&x, rest + n - 8, 8);
	return x;
}

/* Equal n bytes?  Word by word from the end: a line that misses mostly
 * differs in its last register values. */
static inline int same_from_end(const char *a, const char *b, size_t n)
{
	uint64_t x, y;
	for (; n >= 8; n -= 8) {
		memcpy(&x, a + n - 8, 8);
		memcpy(&y, b + n - 8, 8);
		if (x != y)
			return 0;
	}
	while (n--)
		if (a[n] != b[n])
			return 0;
	return 1;
}

static inline int same_bytes(const char *buf, size_t n, const struct lrel *rel, const char *rest, uint64_t *id)
{
	size_t a, b, i;
	uint64_t v = 0;
	*id = rel->id;
	if (!rel->id_n)
		return same_from_end(buf, rest, n);
	a = (size_t)rel->id_at;
	b = a + rel->id_n;
	if (memcmp(buf, rest, a) || memcmp(buf + b, rest + b, n - b))
		return 0;
	for (i = a; i < b; i++) {
		unsigned d = (unsigned)(unsigned char)rest[i] - '0';
		if (d > 9)
			return 0;
		v = v * 10 + d;
	}
	*id = v;
	return 1;
}

/* Does rest repeat the cached rest up to the detail (ids aside)?  Then
 * grammar_rest finds the same pipe, name and id there. */
static inline int head_match(const char *buf, size_t n, const struct lrel *rel, const char *rest, size_t rest_n,
                             uint64_t *id)
{
	size_t h = (size_t)rel->detail;
	if (!rel->has_sep || h > n || h > rest_n || (rel->id_n && (size_t)rel->id_at + rel->id_n > h))
		return 0;
	if (!rel->id_n) {       /* mostly the same: one memcmp */
		*id = rel->id;
		return !memcmp(buf, rest, h);
	}
	return same_bytes(buf, h, rel, rest, id);
}

/* The least recently used slot (an empty one, stamp 0, first), without
 * branches. */
_Static_assert(NSLOT == 4, "lru_slot compares four stamps");
static inline unsigned lru_slot(const uint32_t *use)
{
	unsigned a = use[1] < use[0], b = 2 + (use[3] < use[2]);
	return use[b] < use[a] ? b : a;
}

/* Keep a copy of the rest of a line in a cache buffer, with room for
 * extra bytes after it. */
static void keep_rest(char **buf, size_t *cap, const char *rest, size_t n, size_t extra)
{
	if (*cap < n + extra) {
		free(*buf);
		*cap = 2 * (n + extra) + 16;
		*buf = xmalloc(*cap);
	}
	if (n)
		memcpy(*buf, rest, n);
}

/* Keep a parsed pop (its rest, spooled detail and derived fields) in the
 * pc's least recently used slot, now its last spooled pop. */
static void cache_pop(struct slots *pr, const struct iline *l, const char *rest, size_t rest_n,
                      const char *sd, size_t sdn, const char *npipe, int warp, int sch, unsigned wmask,
                      const uint64_t *wval)
{
	unsigned j = lru_slot(pr->cuse);
	struct popcache *c = &pr->c[j];
	size_t dn = sdn > SPOOL_TEXT_MAX ? SPOOL_TEXT_MAX : sdn;
	keep_rest(&c->buf, &c->cap, rest, rest_n, dn);
	memcpy(c->buf + rest_n, sd, dn);
	rel_save(&c->rel, l, rest);
	c->rest_n = (uint32_t)rest_n;
	pr->cn[j] = (uint32_t)rest_n;
	pr->ct[j] = tail8(rest, rest_n);
	c->sdetail_n = (uint32_t)dn;
	c->npipe = npipe;
	c->warp = (int16_t)warp;
	c->sch = (int16_t)sch;
	c->wmask = wmask;
	memcpy(c->wval, wval, sizeof c->wval);
	c->valid = 1;
	pr->cuse[j] = ++pr->cclock;
	pr->clast = j;
}


void take_line(struct ip *ip, const struct line_in *in)
{
	const char *text = in->text, *rest;
	size_t len = in->len, rest_n;
	int is_pop = in->is_pop;
	uint32_t file = in->file;
	uint64_t lineno = in->lineno;
	struct unit *u = unit_for(ip, in->core, in->subtype, in->subidx);
	struct iline l;
	const char *pipe, *head_pipe = NULL;
	size_t dn;
	long off;
	uint64_t key, id, t8;
	int warp = -1, sch = -1, threads = -1;
	unsigned writes_vec_mask = 0, j, has;
	uint64_t writes_val[CALC_VEC_NVARS];
	struct keyinfo *k = NULL;
	struct pcregs *pr = NULL;
	struct slots *sl;

	u->lines++;
	if (len && text[len - 1] == '\r')
		len--;          /* CRLF dumps: the reference loses every line here */
	if ((off = grammar_prefix(text, len, &l)) < 0)
		goto unparsed;
	rest = text + off;
	rest_n = len - (size_t)off;
	/* A line whose rest after the PC is that of a recent line of the pc
	 * in its log (one cached) parses and derives the same. */
	if (ip->by_id) {
		pr = keytab_find(&u->pcregs, l.pc);
	} else if ((k = keytab_find(&u->keys, l.pc))) {
		pr = &k->regs;
	}
	/* Most misses differ in their last register values: the length and
	 * last eight bytes of the rests are tested before the rest. */
	t8 = tail8(rest, rest_n);
	if (pr && pr->sl && !is_pop) {
		struct slots *sl = pr->sl;
		for (j = 0; j < NSLOT; j++) {
			struct execcache *x = &sl->x[j];
			if (sl->xn[j] != rest_n || sl->xt[j] != t8 || !same_bytes(x->buf, rest_n, &x->rel, rest, &id))
				continue;
			rel_load(&l, &x->rel, rest);
			l.id = id;
			sl->xuse[j] = ++sl->xclock;
			sl->xlast = j;
			mark_line(u, &l, 0, file, lineno);
			if (k)
				count_in(k, 0, l.tick);
			spool_exec(u, l.tick, ip->by_id ? l.id : l.pc, lineno, file, x->threads);
			return;
		}
	} else if (pr && pr->sl) {
		struct slots *sl = pr->sl;
		for (j = 0; j < NSLOT; j++) {
			struct popcache *c = &sl->c[j];
			if (sl->cn[j] != rest_n || sl->ct[j] != t8 || !same_bytes(c->buf, rest_n, &c->rel, rest, &id))
				continue;
			rel_load(&l, &c->rel, rest);
			l.id = id;
			if (k)
				count_in(k, 1, l.tick);
			note_writes(k, c->wmask, c->wval);
			sl->cuse[j] = ++sl->cclock;
			if (j == sl->clast) {
				spool_pop(u, c, 1, &l, lineno, file, NULL, 0, c->npipe, c->warp, c->sch, c->wmask);
			} else {
				spool_pop(u, &sl->c[sl->clast], 0, &l, lineno, file, c->buf + c->rest_n, c->sdetail_n,
				          c->npipe, c->warp, c->sch, c->wmask);
				sl->clast = j;
			}
			return;
		}
	}
	/* Else when the rest repeats the pc's latest line up to the detail,
	 * only the detail on needs parsing. */
	if (pr && pr->sl) {
		struct slots *sl = pr->sl;
		const char *buf = NULL;
		const struct lrel *rel = NULL;
		size_t n = 0;
		if (is_pop && sl->c[sl->clast].valid) {
			buf = sl->c[sl->clast].buf;
			n = sl->c[sl->clast].rest_n;
			rel = &sl->c[sl->clast].rel;
			head_pipe = sl->c[sl->clast].npipe;
		} else if (!is_pop && sl->x[sl->xlast].valid) {
			buf = sl->x[sl->xlast].buf;
			n = sl->x[sl->xlast].rest_n;
			rel = &sl->x[sl->xlast].rel;
		}
		if (rel && head_match(buf, n, rel, rest, rest_n, &id)) {
			rel_load(&l, rel, rest);
			l.id = id;
			if (grammar_rest_detail(text, len, (size_t)off + (size_t)rel->detail, &l))
				goto unparsed;
			goto parsed;
		}
	}
	head_pipe = NULL;
	if (grammar_rest(text, len, (size_t)off, &l))
		goto unparsed;
parsed:
	if (is_pop && l.pop == POP_FROM_IQ)
		return;         /* the issue attempt, not the pop */
	if (ip->by_id && !l.has_id) {
		loss_add(&ip->losses, LOSS_UNPARSED, file, lineno, "no (ID: n) on an A5 line");
		return;
	}
	if (!is_pop) {
		/* An exec line contributes its tick, the trace-mark logic and
		 * the SIMT thread count; spaces do not change any of those
		 * tests, so the detail is only stripped when a field needs it. */
		unsigned has = detail_letters(l.detail, l.detail_n);
		int usermark = (has & DETAIL_C) && is_usermark(l.detail, l.detail_n);
		struct execcache *x;
		mark_line(u, &l, usermark, file, lineno);
		if (usermark)
			return;         /* marks never pair (optrace-dumps(5), PAIRING) */
		if (has & DETAIL_LB) {
			grow_detail(ip, l.detail_n);
			dn = strip_spaces_wide(ip->detail_buf, l.detail, l.detail_n);
			threads = simt_threads(ip->detail_buf, dn);
		}
		key = ip->by_id ? l.id : l.pc;
		if (!ip->by_id) {
			if (k)
				count_in(k, 0, l.tick);
			else
				k = count_line(u, key, 0, l.tick);
			pr = &k->regs;
		} else {
			pr = keytab_get(&u->pcregs, l.pc, NULL);
		}
		sl = slots_of(pr);
		j = lru_slot(sl->xuse);
		x = &sl->x[j];
		keep_rest(&x->buf, &x->cap, rest, rest_n, 0);
		x->rest_n = (uint32_t)rest_n;
		sl->xn[j] = (uint32_t)rest_n;
		sl->xt[j] = t8;
		rel_save(&x->rel, &l, rest);
		x->threads = threads;
		x->valid = 1;
		sl->xuse[j] = ++sl->xclock;
		sl->xlast = j;
		spool_exec(u, l.tick, key, lineno, file, threads);
		return;
	}
	grow_detail(ip, l.detail_n);
	dn = strip_spaces_wide(ip->detail_buf, l.detail, l.detail_n);
	has = detail_letters(ip->detail_buf, dn);
	/* With the raw pipe and name of the pc's last pop (never a mark: those
	 * are not kept), only the mark test can change the pipe. */
	if (head_pipe)
		pipe = (has & DETAIL_C) && is_usermark(ip->detail_buf, dn) ? "USERMARK" : head_pipe;
	else
		pipe = normalise_pipe(l.pipe, l.pipe_n, l.name, l.name_n, ip->detail_buf, dn);
	if (pipe[0] == 'U' && !strcmp(pipe, "USERMARK"))
		return;         /* marks never pair (optrace-dumps(5), PAIRING) */
	if (u->block < 0 && l.name_n == 10 && !memcmp(l.name, "MOV_XD_SPR", 10)) {
		int b = spr_read(ip->detail_buf, dn, ",SPR:BLOCKID");
		if (b >= 0)
			u->block = b;
	}
	if (u->subblock < 0 && l.name_n == 10 && !memcmp(l.name, "MOV_XD_SPR", 10)) {
		int b = spr_read(ip->detail_buf, dn, ",SPR:SUBBLOCKID");
		if (b >= 0)
			u->subblock = b;
	}
	if (has & DETAIL_LB)
		simt_ids(ip->detail_buf, dn, &warp, &sch);
	key = ip->by_id ? l.id : l.pc;
	{
		/* Every execution of a pc has the same operands: keep them once,
		 * for the live-register count at the end (in pc mode with the
		 * pc's counts, saving a lookup per line). */
		struct calc_str nm = { l.name, l.name_n }, dt = { ip->detail_buf, dn };
		int fresh, v;
		for (v = 0; v < CALC_VEC_NVARS; v++)
			writes_val[v] = 0;
		if (ip->by_id)
			k = NULL;
		else if (k)
			count_in(k, 1, l.tick);
		else
			k = count_line(u, key, 1, l.tick);
		if (k) {
			pr = &k->regs;
			fresh = k->npop == 1;
		} else {
			pr = keytab_get(&u->pcregs, l.pc, NULL);
			fresh = !pr->seen_pop;
		}
		pr->seen_pop = 1;
		if (fresh)
			pr->has = calc_gpr_regs(ip->family, nm, dt, &pr->regs) == 0;
		writes_vec_mask = calc_vec_writes(ip->family, nm, dt, writes_val);
		note_writes(k, writes_vec_mask, writes_val);
	}
	sl = slots_of(pr);
	spool_pop(u, &sl->c[sl->clast], 0, &l, lineno, file, ip->detail_buf, dn, pipe, warp, sch, writes_vec_mask);
	cache_pop(sl, &l, rest, rest_n, ip->detail_buf, dn, pipe, warp, sch, writes_vec_mask, writes_val);
	return;
unparsed:
	loss_add(&ip->losses, LOSS_UNPARSED, file, lineno, is_pop ? "popped" : "instr");
}



void free_popcaches(struct keytab *t, int in_keys)
{
	size_t i;
	for (i = 0; i < t->cap; i++) {
		uint64_t key;
		void *v = keytab_at(t, i, &key);
		struct pcregs *pr;
		unsigned j;
		if (!v)
			continue;
		pr = in_keys ? &((struct keyinfo *)v)->regs : v;
		if (!pr->sl)
			continue;
		for (j = 0; j < NSLOT; j++) {
			free(pr->sl->c[j].buf);
			free(pr->sl->x[j].buf);
		}
		free(pr->sl);
		pr->sl = NULL;
	}
}
