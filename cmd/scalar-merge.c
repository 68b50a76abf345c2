/* scalar-merge: the scalar head overhead of A2/A3 (see optrace-sidelogs(5),
 * CCU LOG, Scalar head overhead).  Fills the
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
#include "ccu.h"
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "merge.h"
#include "keytab.h"
#include "loss.h"
#include "mem.h"
#include "rec.h"
#include "scan.h"
#include "spill.h"
#include "text.h"


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

/* ---- per-pc state, in a table by pc ---- */

#define NIL UINT32_MAX

struct pcst {
	uint64_t cover;             /* latest fetch tick read so far of a block covering pc, REC_NONE */
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
	struct keytab pcs;          /* pc -> struct pcst */
	uint64_t nccu, nfetch, ninstr, assigned, queued;
	enum mode mode;             /* M_COLLECT until the first instruction record */
	int ccu_unordered, fetch_unordered, window_spilled;
	uint64_t ccu_last, fetch_last;
	struct spill ccu, fetch, sorted;
	struct cent la;             /* the CCU reader's next issue (la_ok) */
	struct fent fla;            /* the fetch reader's next record (fla_ok) */
	int la_ok, fla_ok;
};

static struct unit **units;
static size_t nunits;
#define WINDOW_DEFAULT 262144
#define WINDOW_DEFAULT_TEXT "262144"   /* the same, for the help text */
static uint64_t window = WINDOW_DEFAULT;  /* --window: issues held before sorting instead */

/* The pc's entry, created if new.  May move the table: pointers from an
 * earlier call are stale. */
static inline struct pcst *pc_get(struct unit *u, uint64_t pc)
{
	int fresh;
	struct pcst *s = keytab_get(&u->pcs, pc, &fresh);
	if (fresh) {
		s->cover = REC_NONE;
		s->qhead = s->qtail = NIL;
	}
	return s;
}

static struct unit *last_unit;

static struct unit *unit_new(uint32_t core, uint32_t subtype, uint32_t subidx)
{
	struct unit *u;
	size_t i;

	for (i = 0; i < nunits; i++)
		if (units[i]->core == core && units[i]->subtype == subtype && units[i]->subidx == subidx)
			return units[i];
	u = xcalloc(1, sizeof *u);
	u->pcs = keytab_make(sizeof(struct pcst), 0);
	u->core = core;
	u->subtype = subtype;
	u->subidx = subidx;
	spill_init(&u->ccu, sizeof(struct cent));
	spill_init(&u->fetch, sizeof(struct fent));
	spill_init(&u->sorted, sizeof(struct sent));
	units = xrealloc(units, (nunits + 1) * sizeof *units);
	units[nunits++] = u;
	return u;
}

/* The unit of a core: most records are of the same core as the last. */
static inline struct unit *unit_for(uint32_t core, uint32_t subtype, uint32_t subidx)
{
	struct unit *u = last_unit;
	if (u && u->core == core && u->subtype == subtype && u->subidx == subidx)
		return u;
	return last_unit = unit_new(core, subtype, subidx);
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

/* ---- the merge (steps 1-3 of optrace-sidelogs(5), CCU LOG, Scalar head
 * overhead), streaming ----
 *
 * Until a core's first instruction record its fetch records and CCU issues
 * are spooled in arrival order (struct spill: memory, then a temporary file).
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
 * pc-8 and pc-12 (each covers four instructions), or REC_NONE.  The fetches
 * come in tick order too, so that is the latest fetch read of a block
 * covering pc: each fetch read sets it in the entries of the four pcs its
 * block covers (one look-up per issue instead of four). */
static void read_fetches(struct unit *u, uint64_t c)
{
	while (u->fla_ok && u->fla.tick < c) {
		uint64_t a = u->fla.addr, d;
		for (d = 0; d <= 12 && a <= UINT64_MAX - d; d += 4) {
			if (d || a != UINT64_MAX)       /* as it always was */
				pc_get(u, a + d)->cover = u->fla.tick;
		}
		u->fla_ok = spill_next(&u->fetch, &u->fla);
	}
}

static uint64_t fetch_before(struct unit *u, uint64_t pc, uint64_t c)
{
	const struct pcst *p;
	read_fetches(u, c);
	return (p = keytab_find(&u->pcs, pc)) ? p->cover : REC_NONE;
}

/* The same, *p receiving the pc's entry (created if new, which has no
 * fetch: the same result). */
static uint64_t fetch_before_get(struct unit *u, uint64_t pc, uint64_t c, struct pcst **p)
{
	read_fetches(u, c);
	*p = pc_get(u, pc);
	return (*p)->cover;
}

/* Scan the sorted spool: where each pc's issues are. */
static void index_sorted(struct unit *u)
{
	struct sent e;
	uint64_t i = 0, pc = 0;
	struct pcst *s = NULL;
	size_t k;

	for (k = 0; k < u->pcs.cap; k++)
		if ((s = keytab_at(&u->pcs, k, &pc)))
			s->next = s->count = 0;
	s = NULL;
	while (spill_next(&u->sorted, &e)) {
		if (!s || pc != e.pc) {
			s = pc_get(u, pc = e.pc);
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
	struct spill all;
	struct sent e;
	uint64_t seq = 0;
	size_t k;

	spill_init(&all, sizeof e);
	for (k = 0; k < u->pcs.cap; k++) {
		uint64_t pc;
		struct pcst *s = keytab_at(&u->pcs, k, &pc);
		if (!s)
			continue;
		while (s->qhead != NIL) {
			e.pc = pc;
			e.seq = seq++;
			e.ccu = pool[s->qhead].ccu;
			e.icache = pool[s->qhead].icache;
			spill_put(&all, &e);
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
			spill_put(&all, &e);
		}
		u->la_ok = spill_next(&u->ccu, &u->la);
	}
	spill_free(&u->ccu);
	spill_free(&u->fetch);
	u->fla_ok = 0;
	spill_sort_into(&all, &u->sorted, cmp_sent);
	index_sorted(u);
}

/* The CCU log is not in tick order: resolve step 1 over the issues sorted by
 * tick, then sort them back into (pc, file order). */
static void go_unordered(struct unit *u)
{
	struct spill bytick, all;
	struct cent c;
	struct tent t;
	struct sent e;
	uint64_t idx = 0;

	spill_init(&bytick, sizeof t);
	spill_rewind(&u->ccu);
	while (spill_next(&u->ccu, &c)) {
		t.tick = c.tick;
		t.pc = c.pc;
		t.idx = idx++;
		t.pad = 0;
		spill_put(&bytick, &t);
	}
	spill_free(&u->ccu);
	spill_init(&all, sizeof e);
	spill_sort_into(&bytick, &all, cmp_tent);   /* frees bytick; all = by tick */
	spill_init(&bytick, sizeof e);
	while (spill_next(&all, &t)) {
		e.pc = t.pc;
		e.seq = t.idx;
		e.ccu = t.tick;
		e.icache = fetch_before(u, t.pc, t.tick);
		spill_put(&bytick, &e);
	}
	spill_free(&all);
	spill_free(&u->fetch);
	u->fla_ok = 0;
	spill_sort_into(&bytick, &u->sorted, cmp_sent);
	index_sorted(u);
}

static void close_unit(struct unit *u)
{
	if (!u->nccu || !u->nfetch) {
		u->mode = M_OFF;    /* both tables must exist */
		spill_free(&u->ccu);
		spill_free(&u->fetch);
		return;
	}
	if (u->fetch_unordered) {
		struct spill sorted;
		spill_sort_into(&u->fetch, &sorted, cmp_fent);
		u->fetch = sorted;
	} else {
		spill_rewind(&u->fetch);
	}
	u->fla_ok = spill_next(&u->fetch, &u->fla);
	if (u->ccu_unordered) {
		go_unordered(u);
		return;
	}
	spill_rewind(&u->ccu);
	u->la_ok = spill_next(&u->ccu, &u->la);
	u->mode = M_STREAM;
}

/* Read the CCU issues up to tick s into their pcs' queues. */
static void read_issues(struct unit *u, uint64_t s)
{
	while (u->la_ok && u->la.tick <= s) {
		struct pcst *p;
		uint64_t icache = fetch_before_get(u, u->la.pc, u->la.tick, &p);
		if (!p->stop)
			enqueue(u, p, u->la.tick, icache);
		u->la_ok = spill_next(&u->ccu, &u->la);
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
		spill_at(&u->sorted, p->off + p->next, &e);
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
	spill_put(&u->ccu, &e);
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
	spill_put(&u->fetch, &e);
	u->nfetch++;
}

/* ---- binary records in place ----
 *
 * Most of the stream is instruction records, and scalar-merge changes at
 * most two numbers in each; the rest are CCU lines, which it only reads,
 * and records it passes on.  The input is read in blocks of whole records
 * (the block hook of filter_run), and a binary record is looked at where
 * it lies (rec_view): the records left unchanged are written as runs of
 * the block, a CCU line is taken out of its run, and an instruction record
 * that gets its ticks has them patched (rec_block_patch: in place, or
 * between two runs when their escaped width differs from that of the
 * numbers they replace).
 * Anything else (JSON, the header and trailer, a record that does not add
 * up, more escapes than a view holds) takes the decoder. */

static const struct rec_layout *lay_instr, *lay_line, *lay_fetch;
static int active;                  /* an A2/A3 SoC: the ticks are filled */

/* An instruction record: its ticks, when it takes an issue. */
static int block_instr(struct filter *f, struct rec_block *b)
{
	(void)f;
	struct rec_view v;
	uint64_t t[2];  /* icache_tick, ccu_tick: side by side in the schema */

	if (!rec_block_view(b, &v, lay_instr, 1))
		return FILTER_DECODE;
	if (active && !rec_view_text_is(&v, IS_PIPE, "CACHEMISS", 9) &&
	    assign_ticks(unit_for((uint32_t)rec_view_num(&v, I_CORE), (uint32_t)rec_view_num(&v, I_SUBTYPE),
	                          (uint32_t)rec_view_num(&v, I_SUBIDX)),
	                 rec_view_num(&v, I_PC), rec_view_num(&v, I_START), &t[1], &t[0]))
		rec_block_patch(b, &v, I_ICACHE, 2, t);
	return FILTER_KEEP;
}

/* A line record: a CCU line is taken, any other passed on.  Escapes in
 * the numbers (line numbers past 2^16 have them often) are read through;
 * a CCU text with an escape of its own is left to the decoder. */
static int block_line(struct filter *f, struct rec_block *b)
{
	(void)f;
	struct rec_view v;
	const char *text;
	size_t n;

	if (!rec_block_view(b, &v, lay_line, 0))
		return FILTER_DECODE;
	if (active && rec_view_num(&v, L_LOG) == LOG_CCU) {
		if (!rec_view_text(&v, LS_TEXT, &text, &n))
			return FILTER_DECODE;
		take_ccu(rec_view_num(&v, L_CORE), rec_view_num(&v, L_SUBTYPE), rec_view_num(&v, L_SUBIDX),
		         rec_view_num(&v, L_FILE), rec_view_num(&v, L_LINE), text, n);
		return FILTER_DROP;
	}
	return FILTER_KEEP;
}

/* A fetch record: taken, and passed on. */
static int block_fetch(struct filter *f, struct rec_block *b)
{
	(void)f;
	struct rec_view v;
	if (!rec_block_view(b, &v, lay_fetch, 0))
		return FILTER_DECODE;
	if (active)
		take_fetch(rec_view_num(&v, S_CORE), rec_view_num(&v, S_SUBTYPE), rec_view_num(&v, S_SUBIDX),
		           rec_view_num(&v, S_TICK), rec_view_num(&v, S_PC));
	return FILTER_KEEP;
}

static const struct filter_block blocks[] = {
	{ K_INSTR, block_instr }, { K_LINE, block_line }, { K_FETCH, block_fetch }, { 0, NULL }
};

/* ---- the decoder's path ---- */

/* A record the block path did not take (or any record, when the output is
 * not binary). */
static int record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)f, (void)line, (void)len;
	if (k != DEC_OK || !active)
		return 0;
	switch (r->sc->kind) {
	case K_LINE:
		if (r->n[L_LOG].u == LOG_CCU) {
			take_ccu(r->n[L_CORE].u, r->n[L_SUBTYPE].u, r->n[L_SUBIDX].u, r->n[L_FILE].u, r->n[L_LINE].u,
			         r->s[LS_TEXT].p, r->s[LS_TEXT].n);
			return 1;
		}
		break;
	case K_FETCH:
		take_fetch(r->n[S_CORE].u, r->n[S_SUBTYPE].u, r->n[S_SUBIDX].u, r->n[S_TICK].u, r->n[S_PC].u);
		break;
	case K_INSTR:
		/* Cache misses (icache-merge writes them while the icache log
		 * passes) take no overhead and do not mean the core's
		 * instructions have begun. */
		if (is_cachemiss(r->s[IS_PIPE].p, r->s[IS_PIPE].n))
			break;
		assign(unit_for((uint32_t)r->n[I_CORE].u, (uint32_t)r->n[I_SUBTYPE].u, (uint32_t)r->n[I_SUBIDX].u), r);
		break;
	}
	return 0;
}

static void start(struct filter *f, const struct chip *chip)
{
	(void)f;
	active = chip->family == CHIP_A2 || chip->family == CHIP_A3;
	if (!active)
		cli_note("%s is not an A2/A3 SoC: no scalar overhead, records pass through", chip->soc);
}

/* ---- main ---- */


void scalar_merge_reset(void)
{
	size_t i;
	for (i = 0; i < nunits; i++) {
		spill_free(&units[i]->ccu);
		spill_free(&units[i]->fetch);
		spill_free(&units[i]->sorted);
		keytab_free(&units[i]->pcs);
		free(units[i]);
	}
	free(units);
	units = NULL;
	nunits = 0;
	last_unit = NULL;
	free(pool);
	pool = NULL;
	pool_n = pool_cap = 0;
	pool_free = NIL;
	loss_free(&losses);
	memset(&losses, 0, sizeof losses);
	window = WINDOW_DEFAULT;
	active = 0;
}

static const char help[] =
	"usage: scalar-merge [options] [FILE...]\n"
	"Fill the icache and CCU ticks of instruction records (the A2/A3 scalar head\n"
	"overhead) from CCU log line records and fetch records; other records pass through.\n"
	"  --window=N         CCU issues waiting for their records before the rest are\n"
	"                     sorted through a temporary file instead (default " WINDOW_DEFAULT_TEXT ")\n";

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

static int option(struct filter *f, int c, const char *arg)
{
	(void)f;
	if (c != 'w')
		return 0;
	window = cli_num("--window", arg);
	return 1;
}

static void report(struct filter *f)
{
	notes();
	loss_report(f->ls);
}

int scalar_merge_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FILTER_LONGOPTS,
		{ "soc-version", required_argument, NULL, 's' },
		{ "window", required_argument, NULL, 'w' },
		FILTER_LONGOPTS_END
	};
	static const struct filter_cli cli = { .longopts = longopts, .loss_kinds = loss_kinds,
	                                       .loss_nkinds = LOSS_NKINDS, .option = option, .help = help, .soc = 1 };
	struct filter f = { .tool = "scalar-merge", .ls = &losses, .bad_kind = LOSS_BAD_RECORD, .bad_file = 0,
	                    .start = start, .record = record, .report = report,
	                    .block = blocks };
	int status;

	lay_instr = rec_layout(K_INSTR);
	lay_line = rec_layout(K_LINE);
	lay_fetch = rec_layout(K_FETCH);
	status = filter_main(&f, &cli, argc, argv);
	scalar_merge_reset();
	return status;
}

#ifndef OPTRACE_FUZZ
int main(int argc, char **argv)
{
	return scalar_merge_main(argc, argv);
}
#endif
