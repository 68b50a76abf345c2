/* instr-parse: pair instr_log and instr_popped_log lines into instruction
 * records, with trace marks and the per-instruction calculators.
 *
 * Per core, so memory holds only per-pc state and what is in flight, never
 * the trace:
 *   1. parse every line as it arrives; spool pops and execs (compactly, see
 *      "Spool entries"); count, per pc, the lines and what the reference's
 *      prune walks would keep.  A line whose text after the PC repeats the
 *      pc's previous line of its log reuses that line's parse and results;
 *   2. at the end of input, read both spools merged by tick and pair them
 *      position by position per pc (or per id on A5), applying exactly the
 *      prune and truncation the reference applies to that pc: once to learn
 *      which pcs pair and the vector state they leave (skipped when pass 1
 *      already knows), then
 *   3. with what depends on the whole core in (pc, start) order (live GPRs,
 *      vector-mask state) worked out per pc, once more to write the records. */
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calc.h"
#include "chip.h"
#include "cli.h"
#include "filter.h"
#include "grammar.h"
#include "io.h"
#include "loss.h"
#include "rec.h"
#include "scan.h"
#include "spool.h"
#include "sync.h"
#include "table.h"

#define NMARKS 10

/* Spool entries.  The spools are private temporary files read back in
 * order by the same process, so they hold a compact private encoding:
 * numbers as LEB128 varints, ticks, pcs, ids and line numbers as zigzag
 * differences from the previous entry of the same spool, and a pop's text
 * fields as a difference from the last spooled pop of the same pc (most
 * executions of a pc repeat its text exactly, or change a register value).
 *
 * pop:  length (2 bytes, or 4 with bit 15 of the first two set), then
 *       flags, tick, pc, line, file, [id,] and unless POP_SAME:
 *       warp, sch, writes_vec, pipe length and bytes, name length and bytes,
 *       detail as (common prefix, common suffix, middle length, middle).
 * exec: length (1 byte), then tick, key, line, file, threads. */
enum { POP_SAME = 1 };          /* text fields as in the pc's previous pop */
#define SPOOL_TEXT_MAX 0xffff   /* longer names and details are cut */

struct spos {                   /* the previous entry of a spool */
	uint64_t tick, key, line, id;
};

static inline char *put_uv(char *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (char)(v | 0x80);
		v >>= 7;
	}
	*o++ = (char)v;
	return o;
}

static inline uint64_t zz(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t unzz(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

static void spool_damaged(void)
{
	cli_die(EXIT_IO, "temporary file damaged or unreadable");
}

static inline uint64_t get_uv(const unsigned char **pp, const unsigned char *end)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	unsigned sh = 0;
	for (;;) {
		if (p >= end || sh > 63)
			spool_damaged();
		v |= (uint64_t)(*p & 0x7f) << sh;
		if (!(*p++ & 0x80))
			break;
		sh += 7;
	}
	*pp = p;
	return v;
}

/* ---- loss accounting: every category counted, first examples kept ---- */

enum loss { LOSS_UNPARSED, LOSS_POP_UNMATCHED, LOSS_EXEC_UNMATCHED, LOSS_POP_AFTER_EXEC,
            LOSS_PRUNED, LOSS_BAD_RECORD, LOSS_MARK, LOSS_NKINDS };
static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	/* text, problem (exit status 1), bad (else dropped, in the trailer) */
	{ "lines not in the instr/popped grammar", 1, 1 },
	{ "popped lines without an executed partner", 0, 0 },
	{ "executed lines without a popped partner", 0, 0 },
	{ "pairs dropped because the pop tick is after the exec tick", 0, 0 },
	{ "micro-op lines merged by the prune rules", 0, 0 },
	{ "records that could not be decoded", 1, 1 },
	{ "trace marks removed (nested, orphan or unclosed)", 1, 0 },
};
static struct losses losses;

/* ---- options and the chip ---- */

static enum calc_family family;
static int by_id;               /* A5 pairs by instruction id */
static const struct chip *chip;
static int verbose_pairs;

static enum calc_family calc_family_of(enum chip_family f)
{
	switch (f) {
	case CHIP_A2:
	case CHIP_A3: return CALC_A2;
	case CHIP_A5: return CALC_A5;
	case CHIP_310P: return CALC_310P;
	case CHIP_310B: return CALC_310B;
	default: return CALC_OTHER;
	}
}

/* ---- per-core state ---- */

/* grammar_rest's findings, as offsets from the start of the rest. */
struct lrel {
	ptrdiff_t pipe, name, detail, id_at;
	size_t pipe_n, name_n, detail_n, id_n;
	uint64_t id;
	int has_id, has_sep;
	enum pop_status pop;
};

/* What pass 1 derived from a recent pop of a pc, with the line's rest
 * after the PC it came from: a later pop of the pc with the same rest
 * parses and derives the same (every step is a function of the rest; on
 * A5 the rest but its id digits), and is spooled as POP_SAME when it
 * repeats the pc's last spooled pop.  NSLOT per pc: loops that alternate
 * buffers (double buffering, flag ids) repeat a pc's text every second
 * to fourth execution. */
#define NSLOT 4
struct popcache {
	char *buf;                  /* the rest, then the spooled detail */
	size_t cap;
	uint32_t rest_n, sdetail_n;
	struct lrel rel;
	const char *npipe;          /* normalised pipe */
	int16_t warp, sch;
	unsigned wmask;             /* calc_vec_writes */
	uint64_t wval[CALC_VEC_NVARS];
	int valid;
};

/* The same for recent exec lines of a pc. */
struct execcache {
	char *buf;                  /* the rest */
	size_t cap;
	uint32_t rest_n;
	struct lrel rel;
	int threads;
	int valid;
};

struct slots {
	/* What a lookup tests first, together: rest lengths (0: empty)
	 * and tail8 of the rests of the pop (c) and exec (x) slots. */
	uint32_t cn[NSLOT], xn[NSLOT];
	uint64_t ct[NSLOT], xt[NSLOT];
	uint32_t cuse[NSLOT], xuse[NSLOT]; /* use stamps, for least recently used */
	uint32_t cclock, xclock;
	unsigned clast;             /* slot of the pc's last spooled pop */
	unsigned xlast;             /* slot of its latest exec line */
	struct popcache c[NSLOT];
	struct execcache x[NSLOT];
};
struct pcregs {
	struct calc_regs regs;
	int has, seen_pop;
	struct slots *sl;           /* the caches, out of line: the tables
	                             * stay small */
};

static struct slots *slots_of(struct pcregs *pr)
{
	if (!pr->sl && !(pr->sl = calloc(1, sizeof *pr->sl)))
		cli_die(EXIT_IO, "out of memory");
	return pr->sl;
}
/* Pass 2: the text fields of the last pop of a pc read back. */
struct rdtext {
	char *text;                 /* name, then detail */
	size_t cap;
	char *alt;                  /* where the next text is put together */
	size_t altcap;
	uint32_t name_n, detail_n;
	char pipe[10];
	int16_t warp, sch;
	uint8_t writes_vec, valid;
	uint64_t ver;               /* a new value whenever the text changes */
};
struct keyinfo {                /* pairing state of one pc (or id) */
	uint64_t npop, nexec;       /* lines seen */
	uint64_t pop_kept, exec_kept; /* what the prune walks would keep */
	uint64_t last_pop, last_exec; /* ticks, for the walks */
	uint64_t n, paired;         /* pairs to make, pairs made */
	unsigned char prune_pop, prune_exec, seen_pop, seen_exec;
	/* What pass 1 can tell about the first pair and the state writers,
	 * to skip the first pairing run (see can_skip_first_run). */
	uint64_t first_pop, pop_run_end, first_exec, exec_run_end;
	unsigned char pop_in_run, exec_in_run, pops_ordered, writes_mixed;
	unsigned writes;            /* vector variables its pops write */
	uint64_t writes_val[CALC_VEC_NVARS]; /* as written by its last pop */
	struct node *pend_pop, *pend_exec;   /* held back by a prune walk */
	struct node *pop_h, *pop_t, *exec_h, *exec_t;
	/* The rest only in pc mode: the id mode's per-id table keeps the
	 * fields above (KEYINFO_ID_SIZE), as it makes and drops one per id. */
	struct pcregs regs;         /* GPR operands from its first pop, caches */
	struct rdtext rd;           /* pass 2's text of the pc */
	struct pcinfo *pi;          /* final run: the pc's pcinfo */
};
#define KEYINFO_ID_SIZE offsetof(struct keyinfo, regs)

struct pcinfo {                 /* what the calculators need of one pc */
	unsigned vec_written;
	uint64_t vec_val[CALC_VEC_NVARS], vec_tick[CALC_VEC_NVARS];
	struct calc_vec_state state_in;
	int gpr;
	/* The calculators' results for the pc's latest text and thread count
	 * (they are functions of the name, the detail and state_in). */
	uint64_t c_ver;             /* 0: none yet */
	int c_threads, c_rd, c_wr;
	int64_t c_bytes;
	double c_util;
};


struct interval {
	uint64_t start, end, spc, epc;
	char *detail;
};

struct markset {
	struct interval *iv;
	size_t n, cap;
	int invalid;
};

struct unit {
	uint32_t core, subtype, subidx;
	int block, subblock;        /* logical ids from BLOCKID reads, -1 unknown */
	struct spool *pops, *execs;
	struct table keys;          /* pc mode: keyinfo per pc */
	struct table pcregs;        /* GPR operands per pc, from its first pop */
	struct markset marks[NMARKS];
	int cur_mark, cur_iv, cur_stop; /* current mark for the NOP rule, -1 none */
	uint64_t lines;
	struct spos wpop, wexec, rpop, rexec; /* spool difference bases */
	struct table rdpc;          /* pass 2: struct rdtext per pc */
};

static struct unit **units;
static size_t nunits;

static struct unit *unit_for(uint32_t core, uint32_t subtype, uint32_t subidx)
{
	size_t i;
	struct unit *u;
	static struct unit *last;

	if (last && last->core == core && last->subtype == subtype && last->subidx == subidx)
		return last;
	for (i = 0; i < nunits; i++)
		if (units[i]->core == core && units[i]->subtype == subtype && units[i]->subidx == subidx)
			return last = units[i];
	u = calloc(1, sizeof *u);
	if (!u || !(units = realloc(units, (nunits + 1) * sizeof *units)))
		cli_die(EXIT_IO, "out of memory");
	u->core = core;
	u->subtype = subtype;
	u->subidx = subidx;
	u->block = u->subblock = -1;
	u->cur_mark = -1;
	u->keys.vsize = sizeof(struct keyinfo);
	u->pcregs.vsize = sizeof(struct pcregs);
	u->rdpc.vsize = sizeof(struct rdtext);
	u->pops = spool_new();
	u->execs = spool_new();
	units[nunits++] = u;
	return last = u;
}

/* ---- pass 1 ---- */

static char *detail_buf;
static size_t detail_cap;

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
					loss_add(&losses, LOSS_MARK, file, line, "nested start");
				ms->invalid = 1;
				return;
			}
			if (ms->n == ms->cap) {
				ms->cap = ms->cap ? 2 * ms->cap : 4;
				ms->iv = realloc(ms->iv, ms->cap * sizeof *ms->iv);
				if (!ms->iv)
					cli_die(EXIT_IO, "out of memory");
			}
			ms->iv[ms->n].start = l->tick;
			ms->iv[ms->n].end = UINT64_MAX;
			ms->iv[ms->n].spc = l->pc;
			ms->iv[ms->n].epc = UINT64_MAX;
			/* Stored space-free, like every detail. */
			ms->iv[ms->n].detail = malloc(dn + 1);
			if (!ms->iv[ms->n].detail)
				cli_die(EXIT_IO, "out of memory");
			ms->iv[ms->n].detail[strip_spaces(ms->iv[ms->n].detail, detail, dn)] = 0;
			ms->n++;
			u->cur_stop = 0;
		} else {
			if (!ms->n) {
				if (!ms->invalid)
					loss_add(&losses, LOSS_MARK, file, line, "stop without start");
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

static void grow_detail(size_t n)
{
	if (detail_cap < n + 32) {
		detail_cap = 2 * (n + 32);
		if (!(detail_buf = realloc(detail_buf, detail_cap)))
			cli_die(EXIT_IO, "out of memory");
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
	struct keyinfo *k = table_get(&u->keys, key, NULL);
	if (!k)
		cli_die(EXIT_IO, "out of memory");
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

static inline int same_bytes(const char *buf, size_t n, const struct lrel *rel, const char *rest, uint64_t *id)
{
	size_t a, b, i;
	uint64_t v = 0;
	*id = rel->id;
	if (!rel->id_n)
		return !memcmp(buf, rest, n);
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
		if (!(*buf = malloc(*cap)))
			cli_die(EXIT_IO, "out of memory");
	}
	if (n)
		memcpy(*buf, rest, n);
}

static char *ent_buf;
static size_t ent_cap;

static void grow_ent(size_t n)
{
	if (ent_cap < n) {
		ent_cap = 2 * n;
		if (!(ent_buf = realloc(ent_buf, ent_cap)))
			cli_die(EXIT_IO, "out of memory");
	}
}

/* Spool one pop.  Unless same, its text fields are written as differences
 * from c (the pc's previous spooled pop). */
static void spool_pop(struct unit *u, const struct popcache *c, int same, const struct iline *l,
                      uint64_t lineno, uint32_t file, const char *sd, size_t sdn,
                      const char *npipe, int warp, int sch, unsigned wmask)
{
	size_t nn = l->name_n > SPOOL_TEXT_MAX ? SPOOL_TEXT_MAX : l->name_n;
	size_t dn = sdn > SPOOL_TEXT_MAX ? SPOOL_TEXT_MAX : sdn;
	size_t len, pre = 0, suf = 0, bn = 0, pn = 0;
	const char *base = NULL;
	char *o, *start;

	grow_ent(160 + nn + dn);
	start = o = ent_buf + 4;
	*o++ = (char)(same ? POP_SAME : 0);
	o = put_uv(o, zz(l->tick - u->wpop.tick));
	o = put_uv(o, zz(l->pc - u->wpop.key));
	o = put_uv(o, zz(lineno - u->wpop.line));
	o = put_uv(o, file);
	if (by_id)
		o = put_uv(o, zz(l->id - u->wpop.id));
	u->wpop.tick = l->tick;
	u->wpop.key = l->pc;
	u->wpop.line = lineno;
	u->wpop.id = l->id;
	if (!same) {
		if (c->valid) {
			base = c->buf + c->rest_n;
			bn = c->sdetail_n;
			size_t m = bn < dn ? bn : dn;
			uint64_t x, y;
			while (pre + 8 <= m && (memcpy(&x, base + pre, 8), memcpy(&y, sd + pre, 8), x == y))
				pre += 8;
			while (pre < m && base[pre] == sd[pre])
				pre++;
			while (suf + 8 <= m - pre &&
			       (memcpy(&x, base + bn - suf - 8, 8), memcpy(&y, sd + dn - suf - 8, 8), x == y))
				suf += 8;
			while (suf < m - pre && base[bn - 1 - suf] == sd[dn - 1 - suf])
				suf++;
		}
		o = put_uv(o, zz((uint64_t)(int64_t)(int16_t)warp));
		o = put_uv(o, zz((uint64_t)(int64_t)(int16_t)sch));
		*o++ = (char)(wmask != 0);
		pn = strlen(npipe);
		if (pn > 9)
			pn = 9;
		*o++ = (char)pn;
		memcpy(o, npipe, pn);
		o += pn;
		o = put_uv(o, nn);
		memcpy(o, l->name, nn);
		o += nn;
		o = put_uv(o, pre);
		o = put_uv(o, suf);
		o = put_uv(o, dn - pre - suf);
		memcpy(o, sd + pre, dn - pre - suf);
		o += dn - pre - suf;
	}
	len = (size_t)(o - start);
	if (len < 0x8000) {
		start -= 2;
		start[0] = (char)len;
		start[1] = (char)(len >> 8);
	} else {
		start -= 4;
		start[0] = (char)len;
		start[1] = (char)((len >> 8) | 0x80);
		start[2] = (char)(len >> 15);
		start[3] = (char)(len >> 23);
	}
	spool_put(u->pops, start, (size_t)(o - start));
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

static void spool_exec(struct unit *u, uint64_t tick, uint64_t key, uint64_t lineno, uint32_t file,
                       int threads)
{
	char b[64], *o = b + 1;
	o = put_uv(o, zz(tick - u->wexec.tick));
	o = put_uv(o, zz(key - u->wexec.key));
	o = put_uv(o, zz(lineno - u->wexec.line));
	o = put_uv(o, file);
	o = put_uv(o, zz((uint64_t)(int64_t)threads));
	u->wexec.tick = tick;
	u->wexec.key = key;
	u->wexec.line = lineno;
	b[0] = (char)(o - b - 1);
	spool_put(u->execs, b, (size_t)(o - b));
}

static void take_line(const struct rec *in)
{
	const char *text = in->s[LS_TEXT].p, *rest;
	size_t len = in->s[LS_TEXT].n, rest_n;
	int is_pop = in->n[L_LOG].u == LOG_POPPED;
	uint32_t file = (uint32_t)in->n[L_FILE].u;
	uint64_t lineno = in->n[L_LINE].u;
	struct unit *u = unit_for((uint32_t)in->n[L_CORE].u, (uint32_t)in->n[L_SUBTYPE].u,
	                          (uint32_t)in->n[L_SUBIDX].u);
	struct iline l;
	const char *pipe;
	size_t dn;
	long off;
	uint64_t key, id, t8;
	int warp = -1, sch = -1, threads = -1;
	unsigned writes_vec_mask = 0, j;
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
	if (by_id) {
		pr = table_find(&u->pcregs, l.pc);
	} else if ((k = table_find(&u->keys, l.pc))) {
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
			spool_exec(u, l.tick, by_id ? l.id : l.pc, lineno, file, x->threads);
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
	if (grammar_rest(text, len, (size_t)off, &l))
		goto unparsed;
parsed:
	if (is_pop && l.pop == POP_FROM_IQ)
		return;         /* the issue attempt, not the pop */
	if (by_id && !l.has_id) {
		loss_add(&losses, LOSS_UNPARSED, file, lineno, "no (ID: n) on an A5 line");
		return;
	}
	if (!is_pop) {
		/* An exec line contributes its tick, the trace-mark logic and
		 * the SIMT thread count; spaces do not change any of those
		 * tests, so the detail is only stripped when a field needs it. */
		int usermark = is_usermark(l.detail, l.detail_n);
		struct execcache *x;
		mark_line(u, &l, usermark, file, lineno);
		if (usermark)
			return;         /* marks never pair (optrace-dumps(5), PAIRING) */
		if (memchr(l.detail, '[', l.detail_n)) {
			grow_detail(l.detail_n);
			dn = strip_spaces_wide(detail_buf, l.detail, l.detail_n);
			threads = simt_threads(detail_buf, dn);
		}
		key = by_id ? l.id : l.pc;
		if (!by_id) {
			k = count_line(u, key, 0, l.tick);
			pr = &k->regs;
		} else if (!(pr = table_get(&u->pcregs, l.pc, NULL))) {
			cli_die(EXIT_IO, "out of memory");
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
	grow_detail(l.detail_n);
	dn = strip_spaces_wide(detail_buf, l.detail, l.detail_n);
	pipe = normalise_pipe(l.pipe, l.pipe_n, l.name, l.name_n, detail_buf, dn);
	if (!strcmp(pipe, "USERMARK"))
		return;         /* marks never pair (optrace-dumps(5), PAIRING) */
	if (u->block < 0 && l.name_n == 10 && !memcmp(l.name, "MOV_XD_SPR", 10)) {
		int b = spr_read(detail_buf, dn, ",SPR:BLOCKID");
		if (b >= 0)
			u->block = b;
	}
	if (u->subblock < 0 && l.name_n == 10 && !memcmp(l.name, "MOV_XD_SPR", 10)) {
		int b = spr_read(detail_buf, dn, ",SPR:SUBBLOCKID");
		if (b >= 0)
			u->subblock = b;
	}
	simt_ids(detail_buf, dn, &warp, &sch);
	key = by_id ? l.id : l.pc;
	{
		/* Every execution of a pc has the same operands: keep them once,
		 * for the live-register count at the end (in pc mode with the
		 * pc's counts, saving a lookup per line). */
		struct calc_str nm = { l.name, l.name_n }, dt = { detail_buf, dn };
		int fresh, v;
		for (v = 0; v < CALC_VEC_NVARS; v++)
			writes_val[v] = 0;
		k = by_id ? NULL : count_line(u, key, 1, l.tick);
		if (k) {
			pr = &k->regs;
			fresh = k->npop == 1;
		} else if (!(pr = table_get(&u->pcregs, l.pc, NULL))) {
			cli_die(EXIT_IO, "out of memory");
		} else {
			fresh = !pr->seen_pop;
		}
		pr->seen_pop = 1;
		if (fresh)
			pr->has = calc_gpr_regs(family, nm, dt, &pr->regs) == 0;
		writes_vec_mask = calc_vec_writes(family, nm, dt, writes_val);
		note_writes(k, writes_vec_mask, writes_val);
	}
	sl = slots_of(pr);
	spool_pop(u, &sl->c[sl->clast], 0, &l, lineno, file, detail_buf, dn, pipe, warp, sch, writes_vec_mask);
	cache_pop(sl, &l, rest, rest_n, detail_buf, dn, pipe, warp, sch, writes_vec_mask, writes_val);
	return;
unparsed:
	loss_add(&losses, LOSS_UNPARSED, file, lineno, is_pop ? "popped" : "instr");
}

/* ---- pass 2: pairing ---- */

struct node {
	struct node *next;
	uint64_t tick, pc, id, line;
	uint32_t file;
	int warp, sch, threads;
	char pipe[12];
	char *text;                 /* name then detail */
	size_t name_n, detail_n, cap;
	uint64_t ver;               /* pops: the version of the pc's text */
	struct keyinfo *k;          /* pc mode: the pc's state (no lookups) */
};

static struct node *free_nodes;

static struct node *node_alloc(void)
{
	struct node *n = free_nodes;
	if (n)
		free_nodes = n->next;
	else if (!(n = calloc(1, sizeof *n)))
		cli_die(EXIT_IO, "out of memory");
	return n;
}

static char *rd_buf;
static size_t rd_cap;
static uint64_t text_versions;

/* Read the next spooled pop into a node; NULL at the end.  Without
 * all_text only the pops that set vector state keep their text (the first
 * pairing pass needs no other). */
static struct node *node_read(struct unit *u, int all_text)
{
	unsigned char h[4];
	const unsigned char *p, *end;
	size_t len, got = spool_get(u->pops, h, 2);
	struct node *n;
	struct rdtext *t;
	uint64_t pc;
	int flags;

	if (got == 0)
		return NULL;
	if (got != 2)
		spool_damaged();
	len = h[0] | (size_t)(h[1] & 0x7f) << 8;
	if (h[1] & 0x80) {
		if (spool_get(u->pops, h + 2, 2) != 2)
			spool_damaged();
		len |= (size_t)h[2] << 15 | (size_t)h[3] << 23;
	}
	if (rd_cap < len) {
		rd_cap = 2 * len;
		if (!(rd_buf = realloc(rd_buf, rd_cap)))
			cli_die(EXIT_IO, "out of memory");
	}
	if (!len || !(p = spool_next(u->pops, len, rd_buf)))
		spool_damaged();
	end = p + len;
	flags = *p++;
	n = node_alloc();
	n->next = NULL;
	n->k = NULL;
	n->tick = u->rpop.tick += unzz(get_uv(&p, end));
	pc = u->rpop.key += unzz(get_uv(&p, end));
	n->pc = pc;
	n->line = u->rpop.line += unzz(get_uv(&p, end));
	n->file = (uint32_t)get_uv(&p, end);
	n->id = by_id ? (u->rpop.id += unzz(get_uv(&p, end))) : 0;
	if (!by_id) {
		/* Every spooled line's pc has its keyinfo, and pass 2 adds
		 * none: the pointer stays valid. */
		if (!(n->k = table_find(&u->keys, pc)))
			spool_damaged();
		t = &n->k->rd;
	} else if (!(t = table_get(&u->rdpc, pc, NULL))) {
		cli_die(EXIT_IO, "out of memory");
	}
	if (!(flags & POP_SAME)) {
		uint64_t pn, nn, pre, suf, mid;
		size_t need;
		t->warp = (int16_t)unzz(get_uv(&p, end));
		t->sch = (int16_t)unzz(get_uv(&p, end));
		if (end - p < 2)
			spool_damaged();
		t->writes_vec = *p++;
		pn = *p++;
		if (pn > 9 || (uint64_t)(end - p) < pn)
			spool_damaged();
		memset(t->pipe, 0, sizeof t->pipe);
		memcpy(t->pipe, p, pn);
		p += pn;
		nn = get_uv(&p, end);
		if ((uint64_t)(end - p) < nn)
			spool_damaged();
		{
			const unsigned char *name = p;
			p += nn;
			pre = get_uv(&p, end);
			suf = get_uv(&p, end);
			mid = get_uv(&p, end);
			if ((uint64_t)(end - p) != mid || pre + suf > t->detail_n || pre > t->detail_n)
				spool_damaged();
			need = nn + pre + mid + suf + 1;
			if (pre + suf == 0) {
				/* Nothing kept from the previous text. */
				if (t->cap < need) {
					free(t->text);
					t->cap = need < 128 ? 128 : 2 * need;
					if (!(t->text = malloc(t->cap)))
						cli_die(EXIT_IO, "out of memory");
				}
				memcpy(t->text, name, nn);
				memcpy(t->text + nn, p, mid);
			} else {
				/* Old detail's prefix and suffix around the new middle. */
				char *nt;
				size_t c;
				if (t->altcap < need) {
					free(t->alt);
					t->altcap = need < 128 ? 128 : 2 * need;
					if (!(t->alt = malloc(t->altcap)))
						cli_die(EXIT_IO, "out of memory");
				}
				nt = t->alt;
				memcpy(nt, name, nn);
				memcpy(nt + nn, t->text + t->name_n, pre);
				memcpy(nt + nn + pre, p, mid);
				memcpy(nt + nn + pre + mid, t->text + t->name_n + t->detail_n - suf, suf);
				t->alt = t->text;
				t->text = nt;
				c = t->altcap;
				t->altcap = t->cap;
				t->cap = c;
			}
			t->name_n = (uint32_t)nn;
			t->detail_n = (uint32_t)(pre + mid + suf);
		}
		t->valid = 1;
		t->ver = ++text_versions;
	} else if (!t->valid || p != end) {
		spool_damaged();
	}
	n->warp = t->warp;
	n->sch = t->sch;
	n->threads = -1;
	n->ver = t->ver;
	memcpy(n->pipe, t->pipe, sizeof t->pipe);
	n->pipe[sizeof t->pipe] = 0;
	if (!all_text && !t->writes_vec) {
		n->name_n = n->detail_n = 0;
		return n;
	}
	len = (size_t)t->name_n + t->detail_n;
	if (n->cap < len + 1) {
		free(n->text);
		n->cap = len + 1 < 128 ? 128 : len + 1;
		if (!(n->text = malloc(n->cap)))
			cli_die(EXIT_IO, "out of memory");
	}
	memcpy(n->text, t->text, len);
	n->name_n = t->name_n;
	n->detail_n = t->detail_n;
	return n;
}

static struct node *exec_read(struct unit *u)
{
	unsigned char h;
	const unsigned char *p, *end;
	struct node *n;
	size_t got = spool_get(u->execs, &h, 1);
	char b[256];

	if (got == 0)
		return NULL;
	if (!h || !(p = spool_next(u->execs, h, b)))
		spool_damaged();
	end = p + h;
	n = node_alloc();
	n->next = NULL;
	n->tick = u->rexec.tick += unzz(get_uv(&p, end));
	n->pc = n->id = u->rexec.key += unzz(get_uv(&p, end));
	n->k = NULL;
	if (!by_id && !(n->k = table_find(&u->keys, n->pc)))
		spool_damaged();
	n->line = u->rexec.line += unzz(get_uv(&p, end));
	n->file = (uint32_t)get_uv(&p, end);
	n->threads = (int)(int64_t)unzz(get_uv(&p, end));
	if (p != end)
		spool_damaged();
	n->name_n = n->detail_n = 0;
	return n;
}

static void free_popcaches(struct table *t, int in_keys)
{
	size_t i;
	for (i = 0; i < t->cap; i++) {
		uint64_t key;
		void *v = table_at(t, i, &key);
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

static void free_rdpc(struct unit *u)
{
	size_t i;
	for (i = 0; i < u->keys.cap; i++) {
		uint64_t key;
		struct keyinfo *k = table_at(&u->keys, i, &key);
		if (k) {
			free(k->rd.text);
			free(k->rd.alt);
			memset(&k->rd, 0, sizeof k->rd);
			k->pi = NULL;
		}
	}
	for (i = 0; i < u->rdpc.cap; i++) {
		uint64_t pc;
		struct rdtext *t = table_at(&u->rdpc, i, &pc);
		if (t) {
			free(t->text);
			free(t->alt);
		}
	}
	table_free(&u->rdpc);
	u->rdpc.vsize = sizeof(struct rdtext);
}

/* Start reading a unit's spools from the beginning. */
static void rewind_unit(struct unit *u)
{
	spool_rewind(u->pops);
	spool_rewind(u->execs);
	memset(&u->rpop, 0, sizeof u->rpop);
	memset(&u->rexec, 0, sizeof u->rexec);
	free_rdpc(u);
}

static void node_free(struct node *n)
{
	n->next = free_nodes;
	free_nodes = n;
}

static void push(struct node **h, struct node **t, struct node *n)
{
	n->next = NULL;
	if (*t)
		(*t)->next = n;
	else
		*h = n;
	*t = n;
}

static struct node *pop_front(struct node **h, struct node **t)
{
	struct node *n = *h;
	*h = n->next;
	if (!*h)
		*t = NULL;
	return n;
}

/* Pairing runs twice over the spools with the same rules: first to learn
 * which pcs pair and the vector state writers leave (the whole-core
 * calculators need both before any record can be written), then to write
 * the records.  Losses are counted in the second run only. */
struct pairing {
	struct unit *u;
	struct table *keys;         /* pc mode: u->keys; id mode: transient */
	struct table pcs;           /* pcinfo per pc that pairs */
	int final;                  /* second run: write records, count losses */
	struct rec_out *out;
	uint64_t pairs;
	char *dbuf;
	size_t dcap;
	/* Id mode: the reference walks the live-register calculator over
	 * every record in instruction-id order, so a loop's executions count
	 * apart.  The first run notes each pair; the final run, which forms
	 * the same pairs in the same order, takes their counts by position. */
	struct idrow *rows;
	size_t nrows, caprows, row;
	int *rowgpr;
};

struct idrow {
	uint64_t id, tick, pc;
	uint64_t seq;               /* position among the run's pairs */
};

/* Core fields shared by instruction and mark records. */
static void set_core(struct rec *r, const struct unit *u);

/* The first pairing run only learns which pcs pair at least once and the
 * state the writers' latest pairs leave.  Pass 1 knows both when (pc mode)
 * every pc's first pair, as the prune rules form it, has its pop no later
 * than its exec, and every writer pc pairs all its pops in order, the last
 * one validly, always setting the same variables.  Then fill in what the
 * run would have found and skip it. */
static int can_skip_first_run(struct pairing *pg)
{
	size_t i;
	if (by_id)
		return 0;
	for (i = 0; i < pg->keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = table_at(pg->keys, i, &key);
		uint64_t p1, e1;
		if (!k || !k->n)
			continue;
		p1 = k->prune_pop ? k->pop_run_end : k->first_pop;
		e1 = k->prune_exec ? k->exec_run_end : k->first_exec;
		if (p1 > e1)
			return 0;
		/* A writer's latest pop pairs with its last exec line when
		 * all pops pair: equal counts, or execs pruned to exactly the
		 * number of pops (the kept exec of the last run is the last). */
		if (k->writes &&
		    (k->writes_mixed || !k->pops_ordered || k->last_pop > k->last_exec ||
		     !(k->npop == k->nexec ||
		       (k->prune_exec && !k->prune_pop && k->exec_kept == k->npop))))
			return 0;
	}
	for (i = 0; i < pg->keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = table_at(pg->keys, i, &key);
		struct pcinfo *pi;
		int v;
		if (!k || !k->n)
			continue;
		pi = table_get(&pg->pcs, key, NULL);
		if (!pi)
			cli_die(EXIT_IO, "out of memory");
		for (v = 0; v < CALC_VEC_NVARS; v++)
			if ((k->writes >> v) & 1) {
				pi->vec_val[v] = k->writes_val[v];
				pi->vec_written |= 1u << v;
			}
	}
	return 1;
}

static void emit_pair(struct pairing *pg, struct keyinfo *k, uint64_t key, struct node *p,
                      struct node *e)
{
	size_t dn = p->detail_n;
	struct calc_str name = { p->text, p->name_n }, detail;
	struct pcinfo *pi;
	int fresh, rd, wrc;
	uint64_t pc = by_id ? p->pc : key;

	if (p->tick > e->tick) {
		if (pg->final)
			loss_add(&losses, LOSS_POP_AFTER_EXEC, p->file, p->line, "pop after exec");
		return;
	}
	/* The merged detail: the pop's, plus the SIMT thread count. */
	if (e->threads < 0) {
		detail.p = p->text ? p->text + p->name_n : "";
	} else {
		if (pg->dcap < dn + 32) {
			pg->dcap = 2 * (dn + 32);
			if (!(pg->dbuf = realloc(pg->dbuf, pg->dcap)))
				cli_die(EXIT_IO, "out of memory");
		}
		if (dn)
			memcpy(pg->dbuf, p->text + p->name_n, dn);
		dn += (size_t)sprintf(pg->dbuf + dn, ", [threadNum:%d]", e->threads);
		detail.p = pg->dbuf;
	}
	detail.n = dn;

	if (!pg->final) {
		unsigned written;
		uint64_t val[CALC_VEC_NVARS];
		if (by_id) {
			if (pg->nrows == pg->caprows) {
				pg->caprows = pg->caprows ? 2 * pg->caprows : 1024;
				if (!(pg->rows = realloc(pg->rows, pg->caprows * sizeof *pg->rows)))
					cli_die(EXIT_IO, "out of memory");
			}
			pg->rows[pg->nrows] = (struct idrow){ key, p->tick, pc, pg->nrows };
			pg->nrows++;
		}
		pi = table_get(&pg->pcs, pc, &fresh);
		if (!pi)
			cli_die(EXIT_IO, "out of memory");
		if (!p->name_n)
			return;         /* text is kept only for state writers */
		/* The state a writer leaves behind in (pc, start) order is the
		 * value of its latest-starting execution. */
		written = calc_vec_writes(family, name, detail, val);
		if (written) {
			int i;
			for (i = 0; i < CALC_VEC_NVARS; i++)
				if ((written >> i) & 1 &&
				    (!((pi->vec_written >> i) & 1) || p->tick >= pi->vec_tick[i])) {
					pi->vec_val[i] = val[i];
					pi->vec_tick[i] = p->tick;
					pi->vec_written |= 1u << i;
				}
		}
		return;
	}

	if (by_id) {
		pi = table_find(&pg->pcs, pc);
	} else {
		/* The final run adds no pcinfo: the pointer stays valid. */
		if (!k->pi)
			k->pi = table_find(&pg->pcs, pc);
		pi = k->pi;
	}
	{
		struct rec r;
		enum rec_sync sync;
		static const struct rec_schema *instr_schema;
		/* Every field is set below (rec_init's loop costs more). */
		_Static_assert(I_NNUM == 20 && IS_NSTR == 6, "emit_pair must set every instr field");
		if (!instr_schema)
			instr_schema = rec_schema(K_INSTR);
		r.sc = instr_schema;
		set_core(&r, pg->u);
		r.n[I_START].u = p->tick;
		r.n[I_END].u = e->tick;
		r.n[I_PC].u = pc;
		r.n[I_ID].u = by_id ? key : 0;
		r.n[I_WARP].i = p->warp;
		r.n[I_SCH].i = p->sch;
		r.n[I_THREADS].i = e->threads;
		if (by_id)
			r.n[I_GPR].i = pg->row < pg->nrows && pg->rowgpr ? pg->rowgpr[pg->row++] : -1;
		else
			r.n[I_GPR].i = pi->gpr;
		if (pi->c_ver != p->ver || pi->c_threads != e->threads) {
			calc_memo_begin(name, detail);
			pi->c_bytes = calc_process_bytes(family, name, detail);
			pi->c_util = calc_vec_util(family, name, detail, &pi->state_in);
			calc_ub_conflict(family, name, detail, &rd, &wrc);
			calc_memo_end();
			pi->c_rd = rd;
			pi->c_wr = wrc;
			pi->c_ver = p->ver;
			pi->c_threads = e->threads;
		}
		r.n[I_BYTES].i = pi->c_bytes;
		if (family == CALC_310B) {
			/* The reference runs no calculator on 310B: its records
			 * keep what pairing gives them, 0 live registers and 0
			 * bytes (utilisation and conflicts -1, as here). */
			r.n[I_GPR].i = 0;
			r.n[I_BYTES].i = 0;
		}
		r.n[I_VECUTIL].f = pi->c_util;
		r.n[I_UBREAD].i = pi->c_rd;
		r.n[I_UBWRITE].i = pi->c_wr;
		r.n[I_ICACHE].u = REC_NONE;
		r.n[I_CCU].u = REC_NONE;
		rec_text_set(&r, IS_PIPE, p->pipe, strlen(p->pipe));
		rec_text_set(&r, IS_NAME, name.p, name.n);
		rec_text_set(&r, IS_DETAIL, detail.p, detail.n);
		sync = sync_kind(name.p, name.n);
		r.n[I_SYNC].u = sync;
		if (sync != SYNC_NONE) {
			struct sync_fields sf;
			sync_parse(detail.p, detail.n, &sf);
			rec_text_set(&r, IS_PROD, sf.prod, sf.prod_n);
			rec_text_set(&r, IS_CONS, sf.cons, sf.cons_n);
			rec_text_set(&r, IS_FLAG, sf.flag, sf.flag_n);
		} else {
			rec_text_set(&r, IS_PROD, "", 0);
			rec_text_set(&r, IS_CONS, "", 0);
			rec_text_set(&r, IS_FLAG, "", 0);
		}
		rec_out_put(pg->out, &r);
	}
	pg->pairs++;
}

/* Pair what is ready at the head of a key's queues. */
static void drain_key(struct pairing *pg, struct keyinfo *k, uint64_t key)
{
	while (k->pop_h && k->exec_h) {
		struct node *p = pop_front(&k->pop_h, &k->pop_t);
		struct node *e = pop_front(&k->exec_h, &k->exec_t);
		if (by_id || k->paired < k->n) {
			emit_pair(pg, k, key, p, e);
			k->paired++;
		} else {
			/* Beyond min(len): the reference drops the tail. */
			if (pg->final) {
				loss_add(&losses, LOSS_POP_UNMATCHED, p->file, p->line, "beyond the shorter log");
				loss_add(&losses, LOSS_EXEC_UNMATCHED, e->file, e->line, "beyond the shorter log");
			}
		}
		node_free(p);
		node_free(e);
	}
}

static void decide(struct keyinfo *k)
{
	uint64_t e = k->nexec, p = k->npop;
	k->prune_exec = k->prune_pop = 0;
	if (k->nexec != k->npop) {
		if (k->nexec > k->npop) {
			k->prune_exec = 1;
			e = k->exec_kept;
		}
		if (e < k->npop) {
			k->prune_pop = 1;
			p = k->pop_kept;
		}
	}
	k->n = e < p ? e : p;
}

static void feed(struct pairing *pg, struct node *n, int is_pop)
{
	uint64_t key = by_id ? n->id : n->pc;
	int fresh = 0;
	struct keyinfo *k = n->k ? n->k : table_get(pg->keys, key, &fresh);
	struct node **pend;
	int merge;

	if (!k)
		cli_die(EXIT_IO, "out of memory");
	if (by_id && fresh)
		k->n = UINT64_MAX;
	pend = is_pop ? &k->pend_pop : &k->pend_exec;
	if (is_pop ? k->prune_pop : k->prune_exec) {
		/* Hold one entry back: the next one may replace it. */
		if (*pend) {
			merge = is_pop ? n->tick - (*pend)->tick == 1 : n->tick - (*pend)->tick <= 8;
			if (merge) {
				if (pg->final)
					loss_add(&losses, LOSS_PRUNED, (*pend)->file, (*pend)->line, is_pop ? "pop" : "exec");
				node_free(*pend);
			} else if (is_pop) {
				push(&k->pop_h, &k->pop_t, *pend);
			} else {
				push(&k->exec_h, &k->exec_t, *pend);
			}
		}
		*pend = n;
	} else if (is_pop) {
		push(&k->pop_h, &k->pop_t, n);
	} else {
		push(&k->exec_h, &k->exec_t, n);
	}
	drain_key(pg, k, key);
	if (by_id && !k->pop_h && !k->exec_h && !k->pend_pop && !k->pend_exec)
		table_del(pg->keys, key);
}

static void leftovers(struct pairing *pg, struct node **h, struct node **t, enum loss kind)
{
	while (*h) {
		struct node *n = pop_front(h, t);
		if (pg->final)
			loss_add(&losses, kind, n->file, n->line, "no partner");
		node_free(n);
	}
}

static void flush_key(struct pairing *pg, struct keyinfo *k, uint64_t key)
{
	if (k->pend_pop) {
		push(&k->pop_h, &k->pop_t, k->pend_pop);
		k->pend_pop = NULL;
	}
	if (k->pend_exec) {
		push(&k->exec_h, &k->exec_t, k->pend_exec);
		k->pend_exec = NULL;
	}
	drain_key(pg, k, key);
	leftovers(pg, &k->pop_h, &k->pop_t, LOSS_POP_UNMATCHED);
	leftovers(pg, &k->exec_h, &k->exec_t, LOSS_EXEC_UNMATCHED);
}

/* At the end of a run the entries held back by the prune walks pair last:
 * flush them in the order of their exec ticks, not in hash order, so the
 * records still come out close to completion order. */
struct held {
	uint64_t tick, key;
};

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void flush_in_order(struct pairing *pg)
{
	struct held *h = NULL;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < pg->keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = table_at(pg->keys, i, &key);
		if (!k || (!k->pend_pop && !k->pend_exec && !k->pop_h && !k->exec_h))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(h = realloc(h, cap * sizeof *h)))
				cli_die(EXIT_IO, "out of memory");
		}
		h[n].key = key;
		h[n].tick = k->exec_h ? k->exec_h->tick : k->pend_exec ? k->pend_exec->tick : UINT64_MAX;
		n++;
	}
	if (n)
		qsort(h, n, sizeof *h, cmp_held);
	for (i = 0; i < n; i++)
		flush_key(pg, table_find(pg->keys, h[i].key), h[i].key);
	free(h);
	for (i = 0; i < pg->keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = table_at(pg->keys, i, &key);
		if (k)
			k->paired = 0;      /* ready for the next run */
	}
}

/* ---- pass 3: the whole-core calculators, then output ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static const struct pcregs *regs_of(const struct unit *u, uint64_t pc)
{
	const struct keyinfo *k;
	if (by_id)
		return table_find(&u->pcregs, pc);
	k = table_find(&u->keys, pc);
	return k ? &k->regs : NULL;
}

static int cmp_idrow(const void *a, const void *b)
{
	const struct idrow *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Id mode: every record's live-register count, walking the records in
 * id order; regs[] and has[] are those of the sorted distinct pcs[n]. */
static void gpr_by_id(struct pairing *pg, const uint64_t *pcs, const struct calc_regs *regs,
                      const char *has, size_t n)
{
	size_t i, nr = pg->nrows;
	uint32_t *idx = malloc((nr + 1) * sizeof *idx);
	int *gpr = malloc((nr + 1) * sizeof *gpr);

	pg->rowgpr = malloc((nr + 1) * sizeof *pg->rowgpr);
	if (!idx || !gpr || !pg->rowgpr)
		cli_die(EXIT_IO, "out of memory");
	qsort(pg->rows, nr, sizeof *pg->rows, cmp_idrow);
	for (i = 0; i < nr; i++) {
		const uint64_t *f = bsearch(&pg->rows[i].pc, pcs, n, sizeof *pcs, cmp_u64);
		if (!f)
			cli_die(EXIT_IO, "internal error: a pair's pc is not among the core's");
		idx[i] = (uint32_t)(f - pcs);
	}
	if (nr && calc_gpr_walk_idx(regs, idx, nr, gpr))
		cli_die(EXIT_IO, "out of memory");
	for (i = 0; i < nr; i++)
		pg->rowgpr[pg->rows[i].seq] = has[idx[i]] ? gpr[i] : -1;
	free(idx);
	free(gpr);
	free(pg->rows);
	pg->rows = NULL;
	pg->row = 0;
}

static void whole_core(struct pairing *pg)
{
	size_t i, n = 0;
	uint64_t *pcs = malloc((pg->pcs.n + 1) * sizeof *pcs);
	struct calc_regs *regs = malloc((pg->pcs.n + 1) * sizeof *regs);
	int *gpr = malloc((pg->pcs.n + 1) * sizeof *gpr);
	char *has = malloc(pg->pcs.n + 1);
	struct calc_vec_state st;

	if (!pcs || !regs || !gpr || !has)
		cli_die(EXIT_IO, "out of memory");
	for (i = 0; i < pg->pcs.cap; i++) {
		uint64_t pc;
		if (table_at(&pg->pcs, i, &pc))
			pcs[n++] = pc;
	}
	qsort(pcs, n, sizeof *pcs, cmp_u64);
	/* Every execution of one pc carries the same registers, so the
	 * reference's walk over all records gives each pc one value: walk the
	 * distinct pcs instead. */
	memset(&st, 0, sizeof st);
	for (i = 0; i < n; i++) {
		struct pcinfo *pi = table_find(&pg->pcs, pcs[i]);
		const struct pcregs *pr = regs_of(pg->u, pcs[i]);
		int v;
		has[i] = pr && pr->has;
		if (has[i])
			regs[i] = pr->regs;
		else
			memset(&regs[i], 0, sizeof regs[i]);
		pi->state_in = st;
		for (v = 0; v < CALC_VEC_NVARS; v++)
			if ((pi->vec_written >> v) & 1)
				st.v[v] = pi->vec_val[v];
	}
	if (by_id)
		gpr_by_id(pg, pcs, regs, has, n);
	else if (n && calc_gpr_walk(regs, n, gpr))
		cli_die(EXIT_IO, "out of memory");
	for (i = 0; i < n; i++) {
		struct pcinfo *pi = table_find(&pg->pcs, pcs[i]);
		const struct pcregs *pr = regs_of(pg->u, pcs[i]);
		pi->gpr = pr && pr->has && !by_id ? gpr[i] : -1;
	}
	free(pcs);
	free(regs);
	free(gpr);
	free(has);
}

/* Instruction and mark records open with the same five core fields. */
_Static_assert((int)I_CORE == (int)M_CORE && (int)I_SUBTYPE == (int)M_SUBTYPE && (int)I_SUBIDX == (int)M_SUBIDX &&
               (int)I_BLOCK == (int)M_BLOCK && (int)I_SUBBLOCK == (int)M_SUBBLOCK, "core fields differ");

static void set_core(struct rec *r, const struct unit *u)
{
	r->n[I_CORE].u = u->core;
	r->n[I_SUBTYPE].u = u->subtype;
	r->n[I_SUBIDX].u = u->subidx;
	r->n[I_BLOCK].i = u->block;
	r->n[I_SUBBLOCK].i = u->subblock;
}

static void free_tables(struct unit *u)
{
	free_popcaches(&u->keys, 1);
	free_popcaches(&u->pcregs, 0);
	free_rdpc(u);
	table_free(&u->keys);
	table_free(&u->pcregs);
}

static void finish_unit(struct unit *u, struct rec_out *o)
{
	struct pairing pg;
	struct node *np, *ne;
	struct rec rec;
	struct table idkeys = { 0 };
	size_t i;
	int m;

	memset(&pg, 0, sizeof pg);
	pg.u = u;
	pg.pcs.vsize = sizeof(struct pcinfo);
	idkeys.vsize = KEYINFO_ID_SIZE;
	pg.keys = by_id ? &idkeys : &u->keys;
	if (!by_id)
		for (i = 0; i < u->keys.cap; i++) {
			uint64_t key;
			struct keyinfo *k = table_at(&u->keys, i, &key);
			if (k)
				decide(k);
		}
	pg.out = o;
	for (pg.final = can_skip_first_run(&pg); pg.final < 2; pg.final++) {
		if (pg.final)
			whole_core(&pg);
		rewind_unit(u);
		/* Merge the two logs by tick so each key's queue only holds
		 * what is in flight between issue and completion. */
		np = node_read(u, pg.final);
		ne = exec_read(u);
		while (np || ne) {
			if (np && (!ne || np->tick <= ne->tick)) {
				feed(&pg, np, 1);
				np = node_read(u, pg.final);
			} else {
				feed(&pg, ne, 0);
				ne = exec_read(u);
			}
			if (pg.final && wr_error(o->w))
				break;
		}
		flush_in_order(&pg);
		if (np)
			node_free(np);
		if (ne)
			node_free(ne);
		table_free(&idkeys);
		idkeys.vsize = KEYINFO_ID_SIZE;
	}
	spool_free(u->pops);
	spool_free(u->execs);
	u->pops = u->execs = NULL;
	free_tables(u);
	free(pg.dbuf);
	free(pg.rows);
	free(pg.rowgpr);
	table_free(&pg.pcs);

	/* Trace marks: closed intervals of valid names. */
	for (m = 0; m < NMARKS; m++) {
		struct markset *ms = &u->marks[m];
		char name[32];
		for (i = 0; i < ms->n; i++) {
			struct interval *iv = &ms->iv[i];
			if (!ms->invalid && iv->end != UINT64_MAX) {
				rec_init(&rec, K_MARK);
				set_core(&rec, u);
				rec.n[M_MARK].u = (uint64_t)m;
				rec.n[M_START].u = iv->start;
				rec.n[M_END].u = iv->end;
				rec.n[M_STARTPC].u = iv->spc;
				rec.n[M_ENDPC].u = iv->epc;
				snprintf(name, sizeof name, "Mark 0x%d", m);
				rec_text_set(&rec, MS_NAME, name, strlen(name));
				rec_text_set(&rec, MS_DETAIL, iv->detail, strlen(iv->detail));
				rec_out_put(o, &rec);
			} else if (!ms->invalid) {
				loss_add(&losses, LOSS_MARK, 0, 0, "unclosed");
			}
			free(iv->detail);
		}
		free(ms->iv);
		ms->iv = NULL;
		ms->n = 0;
	}
	if (verbose_pairs) {
		char core[48];
		cli_note("%s: %llu lines, %llu instructions", rec_core_name(core, u->core, u->subtype, u->subidx),
		         (unsigned long long)u->lines, (unsigned long long)pg.pairs);
	}
}

/* ---- main ---- */

/* The output, while it is open: an exit through cli_die (out of memory, a
 * spool failure) must not leave a temporary file behind. */

/* Give everything back, so leak checkers see only real leaks. */
static void release_all(void)
{
	size_t i;
	int m;
	for (i = 0; i < nunits; i++) {
		struct unit *u = units[i];
		spool_free(u->pops);
		spool_free(u->execs);
		free_tables(u);
		for (m = 0; m < NMARKS; m++) {
			size_t k;
			if (!u->marks[m].iv)
				continue;
			for (k = 0; k < u->marks[m].n; k++)
				free(u->marks[m].iv[k].detail);
			free(u->marks[m].iv);
		}
		free(u);
	}
	free(units);
	units = NULL;
	nunits = 0;
	loss_free(&losses);
	while (free_nodes) {
		struct node *n = free_nodes;
		free_nodes = n->next;
		free(n->text);
		free(n);
	}
	free(detail_buf);
	free(ent_buf);
	free(rd_buf);
	spool_release_spares();
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: instr-parse [options] [FILE...]\n"
	        "Pair instr_log and instr_popped_log line records (from dump-split) into\n"
	        "instruction records; other records pass through.\n"
	        "  --soc-version=SOC  SoC of the dump (default: the stream header, else %s)\n"
	        "  --json | --text    output encoding (default binary; text on a terminal)\n"
	        "  --lz4              compress the output\n"
	        "  -o FILE            write to FILE (replaced only on success)\n"
	        "  -q, -v             fewer / more messages\n"
	        "  -h, --help, --version\n", CHIP_DEFAULT_SOC);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FILTER_LONGOPTS,
		{ "soc-version", required_argument, NULL, 's' },
		FILTER_LONGOPTS_END
	};
	struct filter opt = { 0 };
	int c, i, nin, started = 0;
	int read_failed = 0;
	uint64_t bad, dropped, problems;
	const char *out, *soc, *origin = NULL;
	struct rec_dec dec = { 0 };
	struct rec_out o = { 0 };
	struct upstream up = { 0 };
	struct rd **in;

	cli_init(argv[0]);
	loss_init(&losses, "instr-parse", loss_kinds, LOSS_NKINDS);
	while ((c = getopt_long(argc, argv, FILTER_SHORTOPTS, longopts, NULL)) != -1) {
		if (c == 'v')
			verbose_pairs = 1;
		if (filter_option(&opt, c, optarg))
			continue;
		if (c == 'h') {
			usage(stdout);
			return EXIT_OK;
		}
		usage(stderr);
		return EXIT_USAGE;
	}
	out = opt.outpath ? opt.outpath : "-";
	soc = opt.soc;
	if (getenv("OPTRACE_SPOOL_MEM"))
		spool_set_budget((size_t)cli_num("OPTRACE_SPOOL_MEM", getenv("OPTRACE_SPOOL_MEM")) << 20);

	in = filter_open_inputs(argc, argv, optind, &nin);
	filter_open_output(&o, "instr-parse", out, opt.json, opt.text, opt.bin, opt.lz4);

	for (i = 0; i < nin && !cli_interrupted; i++) {
		const char *line, *why;
		size_t len;
		struct rec r;
		while (!cli_interrupted && (line = rd_line(in[i], &len))) {
			int k = rec_decode(&dec, line, len, &r, &why);
			if (k == DEC_BAD) {
				filter_bad_record(&losses, LOSS_BAD_RECORD, 0, in[i], why);
				continue;
			}
			if (upstream_record(&up, k, &r))
				continue;
			if (!started) {
				/* The header goes out once the SoC is known: from the
				 * option, else the first upstream header. */
				chip = upstream_chip(&up, soc);
				family = calc_family_of(chip->family);
				by_id = chip->family == CHIP_A5;
				origin = up.origin ? up.origin : rd_name(in[i]);
				rec_out_header(&o, chip->soc, chip->mhz, origin);
				started = 1;
			}
			if (k == DEC_UNKNOWN) {
				rec_out_raw(&o, line, len);
				continue;
			}
			switch (r.sc->kind) {
			case K_TRAILER:
				upstream_trailer(&up, &r);
				continue;
			case K_SOURCE:
				loss_source(&losses, &r);
				rec_out_put(&o, &r);
				continue;
			case K_LINE:
				if (r.n[L_LOG].u == LOG_INSTR || r.n[L_LOG].u == LOG_POPPED) {
					take_line(&r);
					continue;
				}
				break;
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
		family = calc_family_of(chip->family);
		by_id = chip->family == CHIP_A5;
		rec_out_header(&o, chip->soc, chip->mhz, up.origin ? up.origin : "");
	}
	upstream_check_end(&up, &o, read_failed);
	for (i = 0; i < (int)nunits; i++) {
		if (!wr_error(o.w) && !cli_interrupted && !read_failed)
			finish_unit(units[i], &o);
	}
	loss_totals(&losses, &bad, &dropped, &problems);
	if (!wr_error(o.w) && !read_failed) {
		upstream_put_trailer(&up, &losses, &o, bad, dropped);
		/* Counts of a run cut short by an output error would mislead. */
		loss_report(&losses);
	}
	release_all();
	upstream_free(&up);
	filter_close_inputs(in, nin);
	rec_dec_free(&dec);
	return filter_close_output(&o, out, read_failed, problems, &up);
}
