/* scalar-merge: the scalar head overhead of A2/A3 (spec 4.3).  Fills the
 * icache_tick and ccu_tick of instruction records from the CCU log's issue
 * lines and the icache's fetch records.
 *
 * Per core, the fetch records and CCU issues are spooled until the core's
 * first instruction record (which closes its inputs); from there fetches,
 * issues and records are merged in tick order (see "the merge" below), so
 * memory holds per distinct pc (and fetch block) a table entry and the
 * issues in flight, never the logs.  A fetch block covers pc..pc+12, so
 * the fetch set of a pc is the union of the blocks at pc, pc-4, pc-8 and
 * pc-12.  The records of a pc must come in start order (instr-parse writes
 * them so: the n-th pop of a pc pairs with its n-th execution). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip.h"
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "loss.h"
#include "rec.h"
#include "scan.h"
#include "tspool.h"


/* ---- loss accounting ---- */

enum loss { LOSS_UNPARSED, LOSS_BAD_RECORD, LOSS_LATE, LOSS_ORDER, LOSS_NKINDS };
static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	/* text, problem (exit status 1), bad (else dropped, in the trailer):
	 * unparsed lines and undecodable records go into the trailer's "bad" */
	{ "CCU issue lines not in the grammar", 1, 1 },
	{ "records that could not be decoded", 1, 1 },
	{ "CCU lines or fetch records after their core's instructions (ignored)", 1, 0 },
	{ "instruction records of a pc out of start order (assigned in arrival order)", 1, 0 },
};
static struct losses losses;

static void *xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1)))
		cli_die(EXIT_IO, "out of memory");
	return p;
}

/* ---- per-pc state in an open-addressing table ---- */

#define NIL UINT32_MAX

struct pcst {
	uint64_t pc;
	uint64_t last_fetch;        /* latest fetch tick read so far of the block at pc, REC_NONE */
	uint64_t last_start;        /* start of the pc's last instruction record */
	uint64_t off;               /* sorted mode: the pc's first issue in the sorted spool */
	uint32_t qhead, qtail;      /* streaming mode: issues read, not yet taken (NIL: none) */
	uint32_t next, count;       /* sorted mode: issues taken / in the sorted spool */
	unsigned char stop;         /* step 2 stopped: the rest of the pc keeps no ticks */
	unsigned char stop_icache;  /* step 1 stopped: the rest of the pc's issues have no fetch */
	unsigned char seen;
};

/* Issues read from the CCU spool and not yet taken, in a pool shared by
 * every pc and core; a freed node is reused. */
struct qnode {
	uint64_t ccu, icache;
	uint32_t next;
};
static struct qnode *pool;
static uint32_t pool_n, pool_cap, pool_free = NIL;

/* Spool entries.  fent: a fetch record; cent: a CCU issue in file order;
 * tent: an issue with its file position, sorted by tick when the CCU log is
 * not in tick order; sent: a resolved issue, sorted by (pc, seq). */
struct fent { uint64_t tick, addr; };
struct cent { uint64_t tick, pc; };
struct tent { uint64_t tick, pc, idx, pad; };
struct sent { uint64_t pc, seq, ccu, icache; };

enum mode { M_COLLECT, M_STREAM, M_SORTED, M_OFF };

struct unit {
	uint32_t core, subtype, subidx;
	struct pcst *slots;         /* pc == UINT64_MAX: empty */
	size_t cap, n;
	uint64_t nccu, nfetch, ninstr, assigned, queued;
	enum mode mode;             /* M_COLLECT until the first instruction record */
	int ccu_unordered, fetch_unordered, window_spilled;
	uint64_t ccu_last, fetch_last;
	struct tspool ccu, fetch, sorted;
	struct cent la;             /* the CCU reader's next issue (la_ok) */
	struct fent fla;            /* the fetch reader's next record (fla_ok) */
	int la_ok, fla_ok;
};

static struct unit **units;
static size_t nunits;
static uint64_t window = 1u << 18;  /* --window: issues held before sorting instead */

static size_t hash_pc(uint64_t pc, size_t cap)
{
	pc ^= pc >> 29;
	pc *= 0x9e3779b97f4a7c15ull;
	return (size_t)(pc >> 17) & (cap - 1);
}

static struct pcst *pc_find(const struct unit *u, uint64_t pc)
{
	size_t i;
	if (!u->cap)
		return NULL;
	for (i = hash_pc(pc, u->cap); u->slots[i].pc != UINT64_MAX; i = (i + 1) & (u->cap - 1))
		if (u->slots[i].pc == pc)
			return &u->slots[i];
	return NULL;
}

/* The pc's entry, created if new.  May move the table: pointers from an
 * earlier call are stale. */
static struct pcst *pc_get(struct unit *u, uint64_t pc)
{
	size_t i;
	struct pcst *s;
	if (u->cap && (s = pc_find(u, pc)))
		return s;
	if (2 * (u->n + 1) > u->cap) {
		size_t ncap = u->cap ? 2 * u->cap : 256, k;
		struct pcst *old = u->slots;
		u->slots = xrealloc(NULL, ncap * sizeof *u->slots);
		for (k = 0; k < ncap; k++)
			u->slots[k].pc = UINT64_MAX;
		for (k = 0; k < u->cap; k++)
			if (old[k].pc != UINT64_MAX) {
				for (i = hash_pc(old[k].pc, ncap); u->slots[i].pc != UINT64_MAX; i = (i + 1) & (ncap - 1))
					;
				u->slots[i] = old[k];
			}
		free(old);
		u->cap = ncap;
	}
	for (i = hash_pc(pc, u->cap); u->slots[i].pc != UINT64_MAX; i = (i + 1) & (u->cap - 1))
		;
	s = &u->slots[i];
	memset(s, 0, sizeof *s);
	s->pc = pc;
	s->last_fetch = REC_NONE;
	s->qhead = s->qtail = NIL;
	u->n++;
	return s;
}

static struct unit *unit_for(uint32_t core, uint32_t subtype, uint32_t subidx)
{
	static struct unit *last;
	size_t i;
	struct unit *u;

	if (last && last->core == core && last->subtype == subtype && last->subidx == subidx)
		return last;
	for (i = 0; i < nunits; i++)
		if (units[i]->core == core && units[i]->subtype == subtype && units[i]->subidx == subidx)
			return last = units[i];
	u = xrealloc(NULL, sizeof *u);
	memset(u, 0, sizeof *u);
	u->core = core;
	u->subtype = subtype;
	u->subidx = subidx;
	tspool_init(&u->ccu, sizeof(struct cent));
	tspool_init(&u->fetch, sizeof(struct fent));
	tspool_init(&u->sorted, sizeof(struct sent));
	units = xrealloc(units, (nunits + 1) * sizeof *units);
	units[nunits++] = u;
	return last = u;
}

static void enqueue(struct unit *u, struct pcst *s, uint64_t ccu, uint64_t icache)
{
	uint32_t k;
	if (pool_free != NIL) {
		k = pool_free;
		pool_free = pool[k].next;
	} else {
		if (pool_n == pool_cap) {
			if (pool_cap >= NIL / 2)
				cli_die(EXIT_IO, "out of memory");
			pool_cap = pool_cap ? 2 * pool_cap : 1024;
			pool = xrealloc(pool, pool_cap * sizeof *pool);
		}
		k = pool_n++;
	}
	pool[k].ccu = ccu;
	pool[k].icache = icache;
	pool[k].next = NIL;
	if (s->qtail == NIL)
		s->qhead = k;
	else
		pool[s->qtail].next = k;
	s->qtail = k;
	u->queued++;
}

static void dequeue(struct unit *u, struct pcst *s)
{
	uint32_t k = s->qhead;
	s->qhead = pool[k].next;
	if (s->qhead == NIL)
		s->qtail = NIL;
	pool[k].next = pool_free;
	pool_free = k;
	u->queued--;
}

/* ---- the CCU line grammar ---- */

/* regex_search \[info\] ([0-9]+): (is_single_issue instr, pc|ccu do issue
 * success.issue isa pc ):(0x[0-9a-f]+) at its leftmost match. */
static int ccu_at(const char *p, const char *end, uint64_t *tick, uint64_t *pc)
{
	static const char single[] = "is_single_issue instr, pc";
	static const char issue1[] = "ccu do issue success", issue2[] = "issue isa pc ";
	size_t nd = scan_dec(p, end, tick);
	uint64_t x = 0;
	int digits = 0;

	if (!nd)
		return -1;
	p += nd;
	if (end - p < 2 || p[0] != ':' || p[1] != ' ')
		return -1;
	p += 2;
	if ((size_t)(end - p) >= sizeof single - 1 && !memcmp(p, single, sizeof single - 1)) {
		p += sizeof single - 1;
	} else if ((size_t)(end - p) >= sizeof issue1 + sizeof issue2 - 1 &&
	           !memcmp(p, issue1, sizeof issue1 - 1) && p[sizeof issue1 - 1] != '\n' &&
	           p[sizeof issue1 - 1] != '\r' &&
	           !memcmp(p + sizeof issue1, issue2, sizeof issue2 - 1)) {
		p += sizeof issue1 + sizeof issue2 - 1;
	} else {
		return -1;
	}
	if (end - p < 4 || p[0] != ':' || p[1] != '0' || p[2] != 'x')
		return -1;
	for (p += 3; p < end; p++) {
		unsigned c = (unsigned char)*p;
		unsigned d = c - '0' < 10 ? c - '0' : c - 'a' < 6 ? c - 'a' + 10 : 16;
		if (d > 15)
			break;
		x = (x << 4) | d;
		digits++;
	}
	if (!digits)
		return -1;
	*pc = x;
	return 0;
}

/* memmem for short words in short lines: glibc's memmem costs more to set
 * up than these lines take to scan. */
static const char *find(const char *p, const char *end, const char *w, size_t n)
{
	while ((size_t)(end - p) >= n && (p = memchr(p, w[0], (size_t)(end - p) - n + 1))) {
		if (!memcmp(p, w, n))
			return p;
		p++;
	}
	return NULL;
}

/* 0 = an issue line, 1 = another CCU line, -1 = looks like an issue line
 * but is not in the grammar. */
static int ccu_parse(const char *s, size_t n, uint64_t *tick, uint64_t *pc)
{
	const char *end = s + n, *p = s;
	while ((p = find(p, end, "[info] ", 7))) {
		p += 7;
		if (!ccu_at(p, end, tick, pc))
			return 0;
	}
	if (find(s, end, "_single_issue", 13) || find(s, end, "ccu do issue", 12))
		return -1;
	return 1;
}

/* ---- the merge (spec 4.3), streaming ----
 *
 * Until a core's first instruction record its fetch records and CCU issues
 * are spooled in arrival order (tspool: memory, then a temporary file).
 * Then three readers move forward together, all in tick order: an
 * instruction record starting at tick s first reads every CCU issue with a
 * tick <= s; an issue at tick c first reads every fetch strictly before c,
 * so the greatest fetch tick before c among the blocks covering its pc is
 * the latest one read (step 1), and the issue waits in its pc's queue.  The
 * record then takes the head of its pc's queue if that issue is not after
 * s; an empty queue means the pc's next issue, if any, is after s (step 2).
 * Memory: per distinct pc (and fetch block) a table entry, plus the issues
 * read and not yet taken (the instructions in flight).
 *
 * This needs the CCU issues in tick order (the simulator writes them so)
 * and, when they are not, or when more than --window issues wait at once
 * (records not in completion order, issues without records), the issues go
 * to a spool sorted by (pc, file order) and each record reads its pc's next
 * one from there.  Fetch records out of tick order are sorted first. */

static int cmp_fent(const void *a, const void *b)
{
	const struct fent *x = a, *y = b;
	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_tent(const void *a, const void *b)
{
	const struct tent *x = a, *y = b;
	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

static int cmp_sent(const void *a, const void *b)
{
	const struct sent *x = a, *y = b;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Step 1 for an issue of pc at tick c, the issues coming in tick order:
 * the greatest fetch tick strictly before c of the blocks at pc, pc-4,
 * pc-8 and pc-12 (each covers four instructions), or REC_NONE. */
static uint64_t fetch_before(struct unit *u, uint64_t pc, uint64_t c)
{
	uint64_t best = REC_NONE, d;
	while (u->fla_ok && u->fla.tick < c) {
		struct pcst *b = pc_get(u, u->fla.addr);
		b->last_fetch = u->fla.tick;    /* ticks come in order: the latest */
		u->fla_ok = tspool_next(&u->fetch, &u->fla);
	}
	for (d = 0; d <= 12 && d <= pc; d += 4) {
		const struct pcst *b = pc_find(u, pc - d);
		if (b && b->last_fetch != REC_NONE && (best == REC_NONE || b->last_fetch > best))
			best = b->last_fetch;
	}
	return best;
}

/* Scan the sorted spool: where each pc's issues are. */
static void index_sorted(struct unit *u)
{
	struct sent e;
	uint64_t i = 0;
	struct pcst *s = NULL;
	size_t k;

	for (k = 0; k < u->cap; k++)
		if (u->slots[k].pc != UINT64_MAX)
			u->slots[k].next = u->slots[k].count = 0;
	while (tspool_next(&u->sorted, &e)) {
		if (!s || s->pc != e.pc) {
			s = pc_get(u, e.pc);
			s->off = i;
			s->count = 0;
		}
		if (s->count == UINT32_MAX)
			cli_die(EXIT_IO, "more than %u CCU issues of one pc", UINT32_MAX);
		s->count++;
		i++;
	}
	u->mode = M_SORTED;
}

/* From streaming to sorted: the issues waiting in the queues and those not
 * read yet, each pc's in file order, into a spool sorted by (pc, order). */
static void go_sorted(struct unit *u)
{
	struct tspool all;
	struct sent e;
	uint64_t seq = 0;
	size_t k;

	tspool_init(&all, sizeof e);
	for (k = 0; k < u->cap; k++) {
		struct pcst *s = &u->slots[k];
		if (s->pc == UINT64_MAX)
			continue;
		while (s->qhead != NIL) {
			e.pc = s->pc;
			e.seq = seq++;
			e.ccu = pool[s->qhead].ccu;
			e.icache = pool[s->qhead].icache;
			tspool_put(&all, &e);
			dequeue(u, s);
		}
	}
	while (u->la_ok) {
		struct pcst *s;
		e.icache = fetch_before(u, u->la.pc, u->la.tick);
		s = pc_get(u, u->la.pc);
		if (!s->stop) {
			e.pc = u->la.pc;
			e.seq = seq++;
			e.ccu = u->la.tick;
			tspool_put(&all, &e);
		}
		u->la_ok = tspool_next(&u->ccu, &u->la);
	}
	tspool_free(&u->ccu);
	tspool_free(&u->fetch);
	u->fla_ok = 0;
	tspool_sort(&all, &u->sorted, cmp_sent);
	index_sorted(u);
}

/* The CCU log is not in tick order: resolve step 1 over the issues sorted by
 * tick, then sort them back into (pc, file order). */
static void go_unordered(struct unit *u)
{
	struct tspool bytick, all;
	struct cent c;
	struct tent t;
	struct sent e;
	uint64_t idx = 0;

	tspool_init(&bytick, sizeof t);
	tspool_rewind(&u->ccu);
	while (tspool_next(&u->ccu, &c)) {
		t.tick = c.tick;
		t.pc = c.pc;
		t.idx = idx++;
		t.pad = 0;
		tspool_put(&bytick, &t);
	}
	tspool_free(&u->ccu);
	tspool_init(&all, sizeof e);
	tspool_sort(&bytick, &all, cmp_tent);   /* frees bytick; all = by tick */
	tspool_init(&bytick, sizeof e);
	while (tspool_next(&all, &t)) {
		e.pc = t.pc;
		e.seq = t.idx;
		e.ccu = t.tick;
		e.icache = fetch_before(u, t.pc, t.tick);
		tspool_put(&bytick, &e);
	}
	tspool_free(&all);
	tspool_free(&u->fetch);
	u->fla_ok = 0;
	tspool_sort(&bytick, &u->sorted, cmp_sent);
	index_sorted(u);
}

static void close_unit(struct unit *u)
{
	if (!u->nccu || !u->nfetch) {
		u->mode = M_OFF;    /* both tables must exist */
		tspool_free(&u->ccu);
		tspool_free(&u->fetch);
		return;
	}
	if (u->fetch_unordered) {
		struct tspool sorted;
		tspool_sort(&u->fetch, &sorted, cmp_fent);
		u->fetch = sorted;
	} else {
		tspool_rewind(&u->fetch);
	}
	u->fla_ok = tspool_next(&u->fetch, &u->fla);
	if (u->ccu_unordered) {
		go_unordered(u);
		return;
	}
	tspool_rewind(&u->ccu);
	u->la_ok = tspool_next(&u->ccu, &u->la);
	u->mode = M_STREAM;
}

/* Read the CCU issues up to tick s into their pcs' queues. */
static void read_issues(struct unit *u, uint64_t s)
{
	while (u->la_ok && u->la.tick <= s) {
		uint64_t icache = fetch_before(u, u->la.pc, u->la.tick);
		struct pcst *p = pc_get(u, u->la.pc);
		if (!p->stop)
			enqueue(u, p, u->la.tick, icache);
		u->la_ok = tspool_next(&u->ccu, &u->la);
		if (u->queued > window) {
			u->window_spilled = 1;
			go_sorted(u);
			return;
		}
	}
}

/* ---- step 2: one instruction record ---- */

static void stop_pc(struct unit *u, struct pcst *p)
{
	p->stop = 1;
	while (p->qhead != NIL)
		dequeue(u, p);
}

/* The ticks of one instruction record of u at pc starting at start: 1 and
 * *ccu, *icache (REC_NONE: no fetch before the issue) when it takes an
 * issue, else 0. */
static int assign_ticks(struct unit *u, uint64_t pc, uint64_t start, uint64_t *ccu, uint64_t *icache)
{
	struct pcst *p;

	u->ninstr++;
	if (u->mode == M_COLLECT)
		close_unit(u);
	if (u->mode == M_OFF)
		return 0;
	if (u->mode == M_STREAM)
		read_issues(u, start);
	p = pc_get(u, pc);
	if (p->seen && start < p->last_start)
		loss_add(&losses, LOSS_ORDER, 0, 0, NULL);
	p->seen = 1;
	p->last_start = start;
	if (p->stop)
		return 0;
	if (u->mode == M_STREAM) {
		if (p->qhead == NIL || pool[p->qhead].ccu > start) {
			stop_pc(u, p);  /* the pc's next issue is after the start, or none */
			return 0;
		}
		*ccu = pool[p->qhead].ccu;
		*icache = pool[p->qhead].icache;
		dequeue(u, p);
	} else {
		struct sent e;
		if (p->next >= p->count) {
			p->stop = 1;
			return 0;
		}
		tspool_at(&u->sorted, p->off + p->next, &e);
		if (e.ccu > start) {
			p->stop = 1;
			return 0;
		}
		p->next++;
		*ccu = e.ccu;
		*icache = e.icache;
	}
	/* Step 1's stop: after the pc's first issue without a fetch before
	 * it, its later issues get none either. */
	if (p->stop_icache || *icache == REC_NONE) {
		p->stop_icache = 1;
		*icache = REC_NONE;
	}
	if (*icache != REC_NONE)
		u->assigned++;
	return 1;
}

static int is_cachemiss(const char *p, size_t n)
{
	return n == 9 && !memcmp(p, "CACHEMISS", 9);
}

static void assign(struct unit *u, struct rec *r)
{
	uint64_t ccu, icache;
	if (assign_ticks(u, r->n[I_PC].u, r->n[I_START].u, &ccu, &icache)) {
		r->n[I_CCU].u = ccu;
		r->n[I_ICACHE].u = icache;
	}
}

/* One CCU log line: an issue goes to its core's spool. */
static void take_ccu(uint64_t core, uint64_t subtype, uint64_t subidx, uint64_t file, uint64_t line,
                     const char *text, size_t n)
{
	struct unit *u = unit_for((uint32_t)core, (uint32_t)subtype, (uint32_t)subidx);
	uint64_t tick, pc;
	int got = ccu_parse(text, n, &tick, &pc);
	struct cent e;

	if (got < 0)
		loss_add(&losses, LOSS_UNPARSED, (uint32_t)file, line, "ccu");
	if (got)
		return;
	if (u->mode != M_COLLECT) {
		loss_add(&losses, LOSS_LATE, (uint32_t)file, line, "after the instructions");
		return;
	}
	e.tick = tick;
	e.pc = pc;
	if (tick < u->ccu_last)
		u->ccu_unordered = 1;
	u->ccu_last = tick;
	tspool_put(&u->ccu, &e);
	u->nccu++;
}

/* One fetch record: to its core's spool. */
static void take_fetch(uint64_t core, uint64_t subtype, uint64_t subidx, uint64_t tick, uint64_t addr)
{
	struct unit *u = unit_for((uint32_t)core, (uint32_t)subtype, (uint32_t)subidx);
	struct fent e;
	if (u->mode != M_COLLECT) {
		loss_add(&losses, LOSS_LATE, 0, 0, NULL);
		return;
	}
	e.tick = tick;
	e.addr = addr;
	if (tick < u->fetch_last)
		u->fetch_unordered = 1;
	u->fetch_last = tick;
	tspool_put(&u->fetch, &e);
	u->nfetch++;
}

/* ---- binary records in place ----
 *
 * Most of the stream is instruction records, and scalar-merge changes at
 * most two numbers in each; the rest are CCU lines, which it only reads.
 * A binary record (rec.h: the kind, the numbers at fixed offsets, then the
 * texts with their lengths, every LF or ESC byte escaped) is read where it
 * lies and written back with the two numbers patched, instead of being
 * decoded and encoded again: that is most of the time the record codec
 * would take.  Anything else (JSON, a record that does not add up, more
 * escapes than fit the table) takes the decoder. */

struct view {
	const char *line;
	size_t len, nesc;
	size_t esc[32];             /* raw index of each escaped byte, ascending */
};

/* The escapes of a binary line; 0 if bad or too many. */
static int view_init(struct view *v, const char *line, size_t len)
{
	const char *p = line + 1, *end = line + len, *q;
	v->line = line;
	v->len = len;
	v->nesc = 0;
	while ((q = memchr(p, REC_ESC, (size_t)(end - p)))) {
		if (q + 1 >= end || (q[1] != ('\n' ^ 0x40) && q[1] != (REC_ESC ^ 0x40)) ||
		    v->nesc == sizeof v->esc / sizeof v->esc[0])
			return 0;
		v->esc[v->nesc] = (size_t)(q - line) - v->nesc;
		v->nesc++;
		p = q + 2;
	}
	return 1;
}

static size_t view_rawlen(const struct view *v) { return v->len - v->nesc; }

/* Where raw byte r starts in the line. */
static size_t view_pos(const struct view *v, size_t r)
{
	size_t k = 0;
	while (k < v->nesc && v->esc[k] < r)
		k++;
	return r + k;
}

/* w <= 8 raw bytes at raw offset r, little endian. */
static inline uint64_t view_get(const struct view *v, size_t r, size_t w)
{
	uint64_t x = 0;
	size_t j, k = 0;
	while (k < v->nesc && v->esc[k] < r)
		k++;
	if (k == v->nesc || v->esc[k] >= r + w) {      /* no escape inside */
		memcpy(&x, v->line + r + k, w);        /* little-endian hosts (lib/rec.c checks) */
		return x;
	}
	for (j = 0; j < w; j++) {
		unsigned char b;
		while (k < v->nesc && v->esc[k] < r + j)
			k++;
		b = (unsigned char)v->line[r + j + k];
		if (k < v->nesc && v->esc[k] == r + j)
			b = (unsigned char)v->line[r + j + k + 1] ^ 0x40;
		x |= (uint64_t)b << (8 * j);
	}
	return x;
}

static int view_is(const struct view *v, size_t at, size_t n, const char *s)
{
	size_t j;
	if (n != strlen(s))
		return 0;
	if (!v->nesc)
		return !memcmp(v->line + at, s, n);
	for (j = 0; j < n; j++)
		if (view_get(v, at + j, 1) != (unsigned char)s[j])
			return 0;
	return 1;
}

struct layout {
	size_t off[REC_MAXNUM], w[REC_MAXNUM], numw;
	int nstr;
};
static struct layout lay_instr, lay_line, lay_fetch;

static void layout_of(struct layout *l, int kind)
{
	const struct rec_schema *sc = rec_schema(kind);
	size_t pos = 1;
	int i;
	for (i = 0; i < sc->nnum; i++) {
		enum rec_type t = sc->num[i].type;
		l->off[i] = pos;
		l->w[i] = (t == RT_U32 || t == RT_I32 || t == RT_SUB || t == RT_LOG) ? 4 : 8;
		pos += l->w[i];
	}
	l->numw = pos;
	l->nstr = sc->nstr;
}

static uint64_t field(const struct view *v, const struct layout *l, int i)
{
	return view_get(v, l->off[i], l->w[i]);
}

/* The texts add up to the record's end: 1 and the raw offset and length
 * of text i0; else 0. */
static int texts(const struct view *v, const struct layout *l, int i0, size_t *at, size_t *n)
{
	size_t pos = l->numw, raw = view_rawlen(v);
	int i;
	if (raw < pos)
		return 0;
	for (i = 0; i < l->nstr; i++) {
		uint64_t k;
		if (raw - pos < 4)
			return 0;
		k = view_get(v, pos, 4);
		if (k > raw - pos - 4)
			return 0;
		if (i == i0) {
			*at = pos + 4;
			*n = (size_t)k;
		}
		pos += 4 + (size_t)k;
	}
	return pos == raw;
}

static char *fast_buf;
static size_t fast_cap;

static void put_escaped(char **o, uint64_t x)
{
	int k;
	for (k = 0; k < 8; k++, x >>= 8) {
		unsigned char b = (unsigned char)x;
		if (b == '\n' || b == REC_ESC) {
			*(*o)++ = (char)REC_ESC;
			b ^= 0x40;
		}
		*(*o)++ = (char)b;
	}
}

/* An instruction record: 1 when written here; 0: decode it as usual. */
static int fast_instr(struct rec_out *o, const char *line, size_t len, int active)
{
	struct view v;
	size_t at, n, from, to;
	uint64_t ccu, icache;
	char *p;

	if (!view_init(&v, line, len) || !texts(&v, &lay_instr, IS_PIPE, &at, &n))
		return 0;
	if (active && !view_is(&v, at, n, "CACHEMISS") &&
	    assign_ticks(unit_for((uint32_t)field(&v, &lay_instr, I_CORE), (uint32_t)field(&v, &lay_instr, I_SUBTYPE),
	                          (uint32_t)field(&v, &lay_instr, I_SUBIDX)),
	                 field(&v, &lay_instr, I_PC), field(&v, &lay_instr, I_START), &ccu, &icache)) {
		/* icache_tick and ccu_tick are the last two numbers, side by side. */
		from = view_pos(&v, lay_instr.off[I_ICACHE]);
		to = view_pos(&v, lay_instr.off[I_CCU] + 8);
		if (fast_cap < len + 16) {
			fast_cap = len + 256;
			fast_buf = xrealloc(fast_buf, fast_cap);
		}
		memcpy(fast_buf, line, from);
		p = fast_buf + from;
		put_escaped(&p, icache);
		put_escaped(&p, ccu);
		memcpy(p, line + to, len - to);
		p += len - to;
		rec_out_raw(o, fast_buf, (size_t)(p - fast_buf));
		return 1;
	}
	rec_out_raw(o, line, len);
	return 1;
}

/* A line record: 1 when handled here (a CCU line taken, or any other line
 * passed on); 0: decode it as usual. */
static int fast_line(struct rec_out *o, const char *line, size_t len, int active)
{
	struct view v;
	size_t at, n;

	if (!view_init(&v, line, len) || v.nesc || !texts(&v, &lay_line, LS_TEXT, &at, &n))
		return 0;
	if (active && field(&v, &lay_line, L_LOG) == LOG_CCU)
		take_ccu(field(&v, &lay_line, L_CORE), field(&v, &lay_line, L_SUBTYPE), field(&v, &lay_line, L_SUBIDX),
		         field(&v, &lay_line, L_FILE), field(&v, &lay_line, L_LINE), line + at, n);
	else
		rec_out_raw(o, line, len);
	return 1;
}

/* A fetch record: taken, and passed on. */
static int fast_fetch(struct rec_out *o, const char *line, size_t len, int active)
{
	struct view v;
	if (!view_init(&v, line, len) || view_rawlen(&v) != lay_fetch.numw)
		return 0;
	if (active)
		take_fetch(field(&v, &lay_fetch, S_CORE), field(&v, &lay_fetch, S_SUBTYPE),
		           field(&v, &lay_fetch, S_SUBIDX), field(&v, &lay_fetch, S_TICK), field(&v, &lay_fetch, S_PC));
	rec_out_raw(o, line, len);
	return 1;
}

/* ---- main ---- */


static void release_all(void)
{
	size_t i;
	for (i = 0; i < nunits; i++) {
		tspool_free(&units[i]->ccu);
		tspool_free(&units[i]->fetch);
		tspool_free(&units[i]->sorted);
		free(units[i]->slots);
		free(units[i]);
	}
	free(units);
	free(pool);
	free(fast_buf);
	loss_free(&losses);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: scalar-merge [options] [FILE...]\n"
	        "Fill the icache and CCU ticks of instruction records (the A2/A3 scalar head\n"
	        "overhead) from CCU log line records and fetch records; other records pass through.\n"
	        "  --soc-version=SOC  SoC of the dump (default: the stream header, else %s)\n"
	        "  --json | --text    output encoding (default binary; text on a terminal)\n"
	        "  --window=N         CCU issues waiting for their records before the rest are\n"
	        "                     sorted through a temporary file instead (default %llu)\n"
	        "  --lz4              compress the output\n"
	        "  -o FILE            write to FILE (replaced only on success)\n"
	        "  -q, -v             fewer / more messages\n"
	        "  -h, --help, --version\n", CHIP_DEFAULT_SOC, (unsigned long long)window);
}

/* What each core got, as notes: missing inputs are not errors. */
static void notes(void)
{
	size_t i;
	for (i = 0; i < nunits; i++) {
		const struct unit *u = units[i];
		char core[48];
		rec_core_name(core, u->core, u->subtype, u->subidx);
		if (!u->ninstr)
			continue;
		if (cli_verbosity < 2)
			;
		else if (u->ccu_unordered)
			cli_note("%s: CCU log not in tick order: its issues were sorted through a temporary file", core);
		else if (u->window_spilled)
			cli_note("%s: more than %llu CCU issues waited for their instruction records at once: "
			         "the rest were sorted through a temporary file", core, (unsigned long long)window);
		if (u->fetch_unordered && cli_verbosity >= 2)
			cli_note("%s: fetch records not in tick order: sorted through a temporary file", core);
		if (!u->nccu && !u->nfetch)
			cli_note("%s: no CCU log and no fetch records: no scalar overhead", core);
		else if (!u->nccu)
			cli_note("%s: no CCU log: no scalar overhead", core);
		else if (!u->nfetch)
			cli_note("%s: no fetch records (icache log through icache-merge): no scalar overhead", core);
		else if (cli_verbosity >= 2)
			cli_note("%s: %llu CCU issues, %llu fetches, %llu of %llu instructions with overhead", core,
			         (unsigned long long)u->nccu, (unsigned long long)u->nfetch,
			         (unsigned long long)u->assigned, (unsigned long long)u->ninstr);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ "text", no_argument, NULL, 't' },
		{ "bin", no_argument, NULL, 'b' },
		{ "lz4", no_argument, NULL, 'z' },
		{ "output", required_argument, NULL, 'o' },
		{ "soc-version", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "window", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 }
	};
	int json = 0, text = 0, bin = 0, lz4 = 0, c, i, nin, started = 0, active = 0;
	int read_failed = 0;
	uint64_t bad, dropped, problems;
	const char *out = "-", *soc = NULL;
	const struct chip *chip = NULL;
	struct rec_dec dec = { 0 };
	struct rec_out o = { 0 };
	struct upstream up = { 0 };
	struct rd **in;

	cli_init(argv[0]);
	loss_init(&losses, "scalar-merge", loss_kinds, LOSS_NKINDS);
	while ((c = getopt_long(argc, argv, "ho:qvz", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': cli_version();
		case 'j': json = 1; break;
		case 't': text = 1; break;
		case 'b': bin = 1; break;
		case 'z': lz4 = 1; break;
		case 'o': out = optarg; break;
		case 's': soc = optarg; break;
		case 'q': cli_verbosity = 0; break;
		case 'v': cli_verbosity = 2; break;
		case 'w': window = cli_num("--window", optarg); break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (soc && chip_find(soc)->family == CHIP_UNKNOWN)
		cli_die(EXIT_USAGE, "unknown SoC '%s' (e.g. Ascend910B1, Ascend910_9391)", soc);

	layout_of(&lay_instr, K_INSTR);
	layout_of(&lay_line, K_LINE);
	layout_of(&lay_fetch, K_FETCH);
	in = filter_open_inputs(argc, argv, optind, &nin);
	filter_open_output(&o, "scalar-merge", out, json, text, bin, lz4);

	for (i = 0; i < nin && !cli_interrupted; i++) {
		const char *line, *why;
		size_t len;
		struct rec r;
		while (!cli_interrupted && (line = rd_line(in[i], &len))) {
			int k;
			if (started && o.mode == REC_BIN && len &&
			    (line[0] == K_INSTR ? fast_instr(&o, line, len, active) :
			     line[0] == K_LINE ? fast_line(&o, line, len, active) :
			     line[0] == K_FETCH ? fast_fetch(&o, line, len, active) : 0)) {
				up.trailer = 0;     /* as upstream_record does */
				if (wr_error(o.w))
					break;
				continue;
			}
			k = rec_decode(&dec, line, len, &r, &why);
			if (k == DEC_BAD) {
				filter_bad_record(&losses, LOSS_BAD_RECORD, 0, in[i], why);
				continue;
			}
			if (upstream_record(&up, k, &r))
				continue;
			if (!started) {
				chip = upstream_chip(&up, soc);
				active = chip->family == CHIP_A2 || chip->family == CHIP_A3;
				if (!active)
					cli_note("%s is not an A2/A3 SoC: no scalar overhead, records pass through",
					         chip->soc);
				rec_out_header(&o, chip->soc, chip->mhz, up.origin ? up.origin : rd_name(in[i]));
				started = 1;
			}
			if (k == DEC_UNKNOWN) {
				rec_out_raw(&o, line, len);
				continue;
			}
			switch (active ? r.sc->kind : 0) {
			case K_TRAILER:
				break;
			case K_SOURCE:
				loss_source(&losses, &r);
				break;
			case K_LINE:
				if (r.n[L_LOG].u == LOG_CCU) {
					take_ccu(r.n[L_CORE].u, r.n[L_SUBTYPE].u, r.n[L_SUBIDX].u, r.n[L_FILE].u, r.n[L_LINE].u,
					         r.s[LS_TEXT].p, r.s[LS_TEXT].n);
					continue;
				}
				break;
			case K_FETCH:
				take_fetch(r.n[S_CORE].u, r.n[S_SUBTYPE].u, r.n[S_SUBIDX].u, r.n[S_TICK].u, r.n[S_PC].u);
				break;
			case K_INSTR:
				/* Cache misses (icache-merge writes them while the
				 * icache log passes) take no overhead and do not
				 * mean the core's instructions have begun. */
				if (is_cachemiss(r.s[IS_PIPE].p, r.s[IS_PIPE].n))
					break;
				assign(unit_for((uint32_t)r.n[I_CORE].u, (uint32_t)r.n[I_SUBTYPE].u,
				                (uint32_t)r.n[I_SUBIDX].u), &r);
				break;
			}
			if (r.sc->kind == K_TRAILER) {
				upstream_trailer(&up, &r);
				continue;
			}
			rec_out_put(&o, &r);
			if (wr_error(o.w))
				break;
		}
		if (filter_read_error(in[i]))
			read_failed = 1;
		if (wr_error(o.w))
			break;
	}
	if (!started) {
		chip = upstream_chip(&up, soc);
		rec_out_header(&o, chip->soc, chip->mhz, up.origin ? up.origin : "");
	}
	upstream_check_end(&up, &o, read_failed);
	loss_totals(&losses, &bad, &dropped, &problems);
	if (!wr_error(o.w) && !read_failed) {
		upstream_put_trailer(&up, &losses, &o, bad, dropped);
		notes();
		loss_report(&losses);
	}
	release_all();
	upstream_free(&up);
	filter_close_inputs(in, nin);
	rec_dec_free(&dec);
	return filter_close_output(&o, out, read_failed, problems, &up);
}
