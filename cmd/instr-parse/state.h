/* The state of one instr-parse run, shared by its parts:
 *   cache.c  pass 1: each line parsed as it arrives (a line repeating a
 *            recent line of its pc reuses that line's parse), counted per
 *            pc, and spooled;
 *   entry.c  the spool entries: written in pass 1, read back in pass 2;
 *   pair.c   pass 2: pops and executions merged by tick and paired per pc
 *            (per id on A5) with the reference's prune rules;
 *   walk.c   pass 3: the whole-core calculators, the records, the marks.
 * instr-parse.c holds the options, the filter hooks and the exit. */
#ifndef OPTRACE_INSTR_STATE_H
#define OPTRACE_INSTR_STATE_H

#include <stddef.h>
#include <stdint.h>

#include "calc.h"
#include "grammar.h"
#include "loss.h"
#include "rec.h"
#include "spool.h"
#include "keytab.h"

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
 *       unless POP_HEAD: warp, sch, writes_vec, pipe length and bytes, name
 *       length and bytes; then the detail as (common prefix, common
 *       suffix, middle length, middle).
 * exec: length (1 byte), then tick, key, line, file, threads. */
enum { POP_SAME = 1,            /* text fields as in the pc's previous pop */
       POP_HEAD = 2 };          /* all but the detail as in the pc's previous pop */
#define SPOOL_TEXT_MAX 0xffff   /* longer names and details are cut */

struct spos {                   /* the previous entry of a spool */
	uint64_t tick, key, line, id;
};

/* ---- loss accounting: every category counted, first examples kept ---- */

enum loss { LOSS_UNPARSED, LOSS_POP_UNMATCHED, LOSS_EXEC_UNMATCHED, LOSS_POP_AFTER_EXEC,
            LOSS_PRUNED, LOSS_BAD_RECORD, LOSS_MARK, LOSS_NKINDS };

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

/* Pass 2: the text fields of the last pop of a pc read back. */
struct rdtext {
	char *text;                 /* name, then detail */
	size_t cap;
	char *alt;                  /* where the next text is put together */
	size_t altcap;
	uint32_t name_n, detail_n;
	char pipe[10];
	uint8_t pipe_n;
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
	uint32_t ord;               /* id mode: the pcs in the order they first paired */
	/* The calculators' results for the pc's latest text and thread count
	 * (they are functions of the name, the detail and state_in). */
	uint64_t c_ver;             /* 0: none yet */
	int c_threads, c_rd, c_wr;
	int64_t c_bytes;
	double c_util;
	/* What the sync fields are, as offsets into the detail. */
	unsigned char c_sync;
	uint32_t c_prod, c_prod_n, c_cons, c_cons_n, c_flag, c_flag_n;
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
	struct ip *ip;              /* the run it belongs to */
	uint32_t core, subtype, subidx;
	int block, subblock;        /* logical ids from BLOCKID reads, -1 unknown */
	struct spool *pops, *execs;
	struct keytab keys;          /* pc mode: keyinfo per pc */
	struct keytab pcregs;        /* GPR operands per pc, from its first pop */
	struct markset marks[NMARKS];
	int cur_mark, cur_iv, cur_stop; /* current mark for the NOP rule, -1 none */
	uint64_t lines;
	struct spos wpop, wexec, rpop, rexec; /* spool difference bases */
	struct keytab rdpc;          /* pass 2: struct rdtext per pc */
};

/* ---- pass 2 ---- */

/* ---- pass 2: pairing ---- */

struct node {
	struct node *next;
	uint64_t tick, pc, id, line;
	uint32_t file;
	int warp, sch, threads;
	char pipe[12];
	size_t pipe_n;
	char *text;                 /* name then detail */
	size_t name_n, detail_n, cap;
	uint64_t ver;               /* pops: the version of the pc's text */
	struct keyinfo *k;          /* pc mode: the pc's state (no lookups) */
};


/* Pairing runs twice over the spools with the same rules: first to learn
 * which pcs pair and the vector state writers leave (the whole-core
 * calculators need both before any record can be written), then to write
 * the records.  Losses are counted in the second run only. */
struct pairing {
	struct ip *ip;
	struct unit *u;
	struct keytab *keys;         /* pc mode: u->keys; id mode: transient */
	struct keytab pcs;           /* pcinfo per pc that pairs */
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
	uint64_t id, tick;
	uint64_t seq;               /* position among the run's pairs */
	uint32_t ord;               /* its pc's pcinfo ord */
};


/* ---- the run ---- */

struct ip {
	struct losses losses;
	enum calc_family family;
	int by_id;                  /* A5 pairs by instruction id */
	int verbose;                /* -v: per-core counts */
	struct unit **units;
	size_t nunits;
	struct unit *last;          /* the unit of the previous line */
	/* Scratch space and reused memory of the passes. */
	char *detail_buf;           /* pass 1: a space-free detail */
	size_t detail_cap;
	char *ent_buf;              /* an entry being encoded */
	size_t ent_cap;
	char *rd_buf;               /* an entry read back */
	size_t rd_cap;
	struct node *free_nodes;
	uint64_t text_versions;
};

/* A node back to the run's free list. */
static inline void node_free(struct ip *ip, struct node *n)
{
	n->next = ip->free_nodes;
	ip->free_nodes = n;
}

/* An instr or popped line as pass 1 takes it, from a line record. */
struct line_in {
	uint32_t core, subtype, subidx, file;
	uint64_t lineno;
	int is_pop;
	const char *text;
	size_t len;
};

/* cache.c: pass 1. */
void take_line(struct ip *ip, const struct line_in *in);
void free_popcaches(struct keytab *t, int in_keys);

/* entry.c: the spool entries. */
void spool_pop(struct unit *u, const struct popcache *c, int same, const struct iline *l,
               uint64_t lineno, uint32_t file, const char *sd, size_t sdn,
               const char *npipe, int warp, int sch, unsigned wmask);
void spool_exec(struct unit *u, uint64_t tick, uint64_t key, uint64_t lineno, uint32_t file,
                int threads);
/* The next spooled pop or execution of u as a node, NULL at the end.
 * Without all_text only the pops that set vector state keep their text
 * (the first pairing run needs no other). */
struct node *node_read(struct unit *u, int all_text);
struct node *exec_read(struct unit *u);
/* Start reading a unit's spools from the beginning. */
void rewind_unit(struct unit *u);
void free_rdpc(struct unit *u);
void free_nodes(struct ip *ip);

/* pair.c: pass 2. */
/* Learn the prune decision of every pc (pc mode). */
void decide_all(struct keytab *keys);
/* See can_skip_first_run in pair.c. */
int can_skip_first_run(struct pairing *pg);
/* One pairing run over the unit's spools. */
void pair_run(struct pairing *pg);

/* walk.c: pass 3. */
void whole_core(struct pairing *pg);
void emit_pair(struct pairing *pg, struct keyinfo *k, uint64_t key, struct node *p, struct node *e);
/* Pair, compute and write the records of a unit, then its marks. */
void finish_unit(struct unit *u, struct rec_out *o);
/* Give back everything the run holds. */
void ip_free(struct ip *ip);

#endif
