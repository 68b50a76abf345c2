/* timeline-emit's private parts: what cmd/timeline-emit.c and the files
 * beside it share.  See the comment at the top of cmd/timeline-emit.c for
 * the shape of the whole. */
#ifndef TIMELINE_EMIT_H
#define TIMELINE_EMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ival.h"
#include "json.h"
#include "keytab.h"
#include "mem.h"
#include "stage.h"
#include "tick.h"

/* Sums of signed counts (process bytes, scalar-head cycles) stop at the
 * int64 range: garbage ticks near 2^63 must not overflow them. */
static inline int64_t sat_add_i64(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

/* A tick difference as the reference's int cast makes it, without the
 * implementation-defined wrap: clamped to the int64 range. */
static inline int64_t tick_diff(uint64_t a, uint64_t b)
{
	if (a >= b)
		return a - b > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)(a - b);
	return b - a > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)(b - a);
}

/* ---- lanes: interned pipe and warp names ----
 * Every pipe name seen (and WARP_<w>) gets a small integer, so per-core
 * state is plain arrays indexed by lane. */
struct lane {
	char *name;
	size_t len;
	char *json;             /* the name as a JSON string, quotes included */
	size_t json_n;
	int sort_index;         /* all-cores thread_sort_index */
	const char *cname;      /* slice colour on this pipe */
	int sub_pid;            /* pid in the per-core trace */
	int warp;               /* >= 0 for WARP_<w> */
	unsigned char compute;  /* CUBE / VECTOR / RVEC*: real work for the summary */
	unsigned char scalar;   /* SCALAR / SCALARLDST / FLOWCTRL */
};
enum { LANE_SCALAR, LANE_SCALARLDST, LANE_CACHEMISS, LANE_USERMARK, LANE_ALL, LANE_NFIXED };
/* The fixed lanes (LANE_*) exist from here on, before any record. */
void lanes_init(void);
int lane_intern(const char *s, size_t n);
int lane_warp(int w);
const char *cname_simt(const char *name, size_t n);
void lanes_free(void);


/* ---- per-pc statistics for the CSV and the INSTR_API block ---- */
#define PC_RUN 4
struct pcstat {
	uint64_t pc, count, cycles;
	uint64_t first_end;         /* the row shows its earliest-ending record */
	struct ival_run runv[PC_RUN];
	struct ival_union run;
	int lane;
	char *name, *detail;
	size_t name_n, detail_n;
	/* A SET/WAIT flag's Source text after its name, from the record's
	 * sync fields: "<pipe> ID:<flag>" (see vis.c); NULL otherwise. */
	char *sync_src;
	size_t sync_src_n;
	/* INSTR_API, per address and core (see optrace-vdata(5),
	 * VISUALIZE_DATA.BIN, INSTR_API), folded as the reference folds a
	 * pc's records in (end, pc) order starting from the first: */
	int64_t bytes;              /* process bytes: summed while the sum is > 0 */
	double vec;                 /* vector utilisation: min */
	int32_t gpr, ubr, ubw;      /* live GPRs, UB read/write conflicts: max */
	int64_t icache_cyc, ccu_cyc;/* scalar head: sum of ccu - icache, start - ccu */
	uint32_t code;              /* its source: index in codes + 1, 0 none */
	uint64_t icount, icycles;   /* of instructions only (a mark may share the pc) */
};
/* What the calculators said about one record (-1: not applicable;
 * icache/ccu REC_NONE: unknown). */
struct calcv {
	int64_t bytes;
	double vec;
	int32_t gpr, ubr, ubw;
	uint64_t icache, ccu;
};
extern const struct calcv calc_none;
struct pctab {
	struct pcstat *v;           /* dense */
	uint32_t n, cap;
	struct keytab ix;           /* pc -> index in v (v keeps arrival order) */
};
struct pipestat {
	uint64_t count, cycles;
	struct ival_union busy;
};

/* ---- source lines (code.c), from src-map's code records ---- */
struct srcfile {
	char *path;
	size_t path_n;
	unsigned char user, readable;
};
struct srcline {
	char *text;                 /* "file:line" */
	size_t text_n;
	uint32_t hash, file;        /* file: index in srcfiles */
	uint64_t line;
	unsigned char user;         /* a user entry of some pc's stack */
};
struct codeent {
	uint64_t pc;
	char *json;                 /* the stack as a JSON string: the code argument */
	uint32_t json_n;
	uint32_t *lines, nlines;    /* the stack's entries (srclines), innermost first */
	uint64_t user_mask;         /* bit i: entry i is a user entry */
	uint32_t inner;             /* "AscendC Inner Code": first user entry, else first */
	char *func;                 /* the inner entry's function */
};
struct linestat {
	uint64_t count, cycles;
	struct ival_union run;
};

/* ---- flags waiting for their partner ---- */
enum { FN_SET_FLAG, FN_WAIT_FLAG, FN_SET_EVENT, FN_WAIT_EVENT,
       FN_SET_INTRA, FN_WAIT_INTRA, FN_SET_INTRAI, FN_WAIT_INTRAI, FN_N };
extern const char *const flag_names[FN_N];
#define FN_IS_WAIT(k) ((k) & 1)

struct core;
struct flag {
	struct core *core;
	uint64_t start, end, pc, icache, ccu;
	uint64_t begin;             /* B timestamp tick (clipped start / end-1) */
	int lane;                   /* all-cores tid */
	int sub_pid, sub_tid;       /* its slice in the per-core trace, -1 none */
	int sub_lane;
	unsigned char name, kept;
	char *detail;               /* intra flags only: their own detail */
	uint32_t detail_n;
};
struct flagq {
	char *key;
	uint32_t keyn, hash;
	struct flag *v;             /* ring */
	uint32_t head, n, cap;
	unsigned char waits;        /* the queued entries are waits */
};
struct flagtab {
	struct flagq *q;
	uint32_t n, cap;
};
struct flagq *flagtab_get(struct flagtab *t, const char *key, size_t n);
void flagtab_free(struct flagtab *t);

/* ---- one core (sub-core) ---- */
struct subout;

struct core {
	char name[48];
	size_t name_n;
	char pid_json[JW_STR_MAX(48)];  /* the name as a JSON string */
	size_t pid_json_n;
	uint32_t phys, subtype, subidx;
	int sort_index;
	int selected;
	/* the reorder window: buckets of end ticks, see timeline-emit.c */
	uint32_t *ring;             /* per bucket: a slot + 1, 0 empty */
	uint64_t base;              /* ticks before this have been drawn */
	uint32_t npend;
	uint64_t last_end, last_pc, active;
	int processed_any;
	uint64_t late;
	/* the all-cores trace */
	struct lane_state {
		uint64_t end;       /* WAIT clipping: latest end on the lane, +1 (0 none) */
		unsigned char seen; /* thread_sort_index written */
	} *lane;
	uint32_t nlane_alloc;
	uint64_t groups, flag_ids;
	struct flagtab flags;
	/* the per-core trace */
	struct subout *out;
	struct sublane *sub;
	uint64_t *sub_end;
	uint64_t flows;
	unsigned char mark_tid_seen[10];
	/* statistics */
	struct pctab pcs;
	struct pipestat *pipes;
	struct ival_union busy;
	struct linestat *lines;     /* per source line (srclines index) */
	uint32_t nline_alloc;
	uint64_t ninstr, min_start, max_end_i, nmarks, ncache, nsimt;
};

/* One per-core slice as sub_slice is given it, kept back while a later
 * one may still go before it (sub.c). */
struct subslice {
	const char *cname;
	const char *name, *detail;
	char *buf;                  /* the held copy of name and detail */
	uint32_t name_n, detail_n, cap;
	uint64_t pack_s, pack_e, ts, te, pc, icache, ccu;
	int64_t bytes;
	int head;
};

/* Per-core per-lane thread packing: the latest end tick on each thread,
 * the slice held back, the previous slice's ends, the slices placed. */
struct sublane {
	int used, held, prev_set;
	uint64_t *thr;
	uint32_t n, cap;
	uint64_t prev_s, prev_e, placed;
	struct subslice h;
};

/* Grow the per-lane arrays of a core to cover every lane interned so far. */
void core_lanes(struct core *c);

/* ---- run-wide settings and outputs ---- */
struct emit_opts {
	const char *dir;            /* -o DIR, NULL: trace to stdout only */
	uint64_t from, to;          /* window in ticks, inclusive */
	/* --aic-metrics: SET/WAIT flags (ResourceConflictRatio), the scalar
	 * head (Overhead), the MTE bandwidth chart (PMSampling). */
	unsigned char flags, overhead, pmsampling;
};

/* The run's shared state: what the files beside timeline-emit.c read and
 * write of one another.  There is one, emit (defined in timeline-emit.c);
 * each file keeps the rest of its state to itself. */
struct emit {
	struct emit_opts opt;
	unsigned mhz;               /* the clock: ticks per microsecond */
	int is_310p;                /* the chip is a 310P: set_event/wait_event */
	struct json trace;          /* the all-cores trace.json */
	int mte_meta_done;          /* trace.c: the MTE process's sort index written */
	/* lanes.c: every pipe name seen, interned (LANE_* first) */
	struct lane *lanes;
	int nlanes;
	/* code.c: the source of each pc, from the code records */
	struct codeent *codes;
	uint32_t ncodes;
	size_t code_json_max;       /* the longest code argument, quotes included */
	struct srcline *srclines;
	uint32_t nsrclines;
	/* for the summary */
	uint64_t flags_overflow;    /* flags drawn alone: their queue was full */
	const char *truncated;      /* why the outputs stop short, or NULL */
	const char *notes;          /* lines for the end of the summary, or NULL */
};
extern struct emit emit;

/* ---- time: ticks to microseconds ----
 * Times are kept as integer "us6", microseconds times 10^6 (picoseconds),
 * at the chip's clock (lib/tick.h). */

static inline uint64_t us6(uint64_t ticks)
{
	return tick_us6(ticks, emit.mhz);
}


/* trace.c: the all-cores trace */
void trace_begin(void);
void trace_end(void);
struct rec;
void trace_mte(const struct rec *r);
void trace_core_meta(struct core *c);
/* An instruction slice (with scalar-head events when it has them). */
void trace_slice(struct core *c, int lane, const char *name, size_t name_n, const char *detail,
                 size_t detail_n, uint64_t start, uint64_t end, uint64_t pc, int64_t bytes,
                 uint64_t icache, uint64_t ccu, int simt);
void trace_flag(const struct flag *f, const char *detail, size_t detail_n, const char *id, size_t id_n);
void trace_flow(const struct flag *set, const struct flag *wait, const char *id, size_t id_n);
void trace_mark(struct core *c, const char *name, size_t name_n, uint64_t start, uint64_t end,
                uint64_t start_pc, uint64_t end_pc);
size_t fmt_pc(char *buf, uint64_t pc);
void trace_truncated(const char *why);  /* mark a trace that stops short */

/* sub.c: the per-core traces */
void sub_open(struct core *c);
int sub_lane_of(int lane, const char *detail, size_t detail_n);
/* A slice for a thread of its lane: order_s is its start for the
 * reference's order (after WAIT clipping), [pack_s, pack_e] what it
 * occupies, [ts, te] what is drawn; icache/ccu its scalar head (REC_NONE:
 * none), head whether it may have one.  A slice that may hold (not a flag)
 * can be kept back until the next slice of its lane; returns the tid, or
 * -1 when kept back. */
int sub_slice(struct core *c, int sub_lane, const char *name, size_t name_n, const char *cname,
              const char *detail, size_t detail_n, uint64_t order_s, uint64_t pack_s, uint64_t pack_e,
              uint64_t ts, uint64_t te, uint64_t pc, int64_t bytes, uint64_t icache, uint64_t ccu,
              int head, int may_hold);
void sub_flow(struct core *c, const struct flag *set, const struct flag *wait);
void sub_mark(struct core *c, unsigned digit, const char *name, size_t name_n, uint64_t start, uint64_t end,
              uint64_t start_pc, uint64_t end_pc);
#define SUB_TRUNCATED_PID 999999
void sub_truncated(struct core *c, const char *why, uint64_t last_tick);
void sub_seal(struct core *c);      /* close its JSON document */
int sub_commit(struct core *c);     /* move it into place: 0 or errno */
void sub_free(struct core *c);
void subs_release(void);

/* flags.c: SET/WAIT matching, all-cores and per-core at once */
void flags_take(struct core *c, const struct flag *f, const char *detail, size_t detail_n);
void flags_intra(struct core *c, const struct flag *f, const char *detail, size_t detail_n,
                 unsigned long long sync_id);
void flags_finish_core(struct core *c);
void flags_finish_intra(void);
void flags_release(void);

/* stats.c: CSV rows and the summary */
void stats_take(struct core *c, int lane, const char *name, size_t name_n, const char *detail,
                size_t detail_n, const char *sync_src, size_t sync_src_n, uint64_t start, uint64_t end,
                uint64_t pc, const struct calcv *k, int is_mark);
int stats_write_csv(struct core *c);  /* 0 or errno */
void stats_summary(struct core **cores, size_t n, FILE *f);

/* split.c: a trace too large for the viewers, as traces that each open.
 * The trace is the len bytes of src from off on (UINT64_MAX: to its end).
 * grouped: by block (the all-cores trace), else by time only.  Returns 0
 * with the names written in dir (malloc'ed), or an errno. */
int split_trace(const char *src, uint64_t off, uint64_t len, const char *dir, int grouped, uint64_t limit,
                char ***names, size_t *n);
uint64_t split_flows_cut(void);         /* flows left out: their slices went to an earlier part */
void split_release(void);               /* the count back to 0, a split cut off undone */
void stats_free(struct core *c);

/* code.c: source lines */
struct rec;
struct vdata_w;
struct wr;
void code_take(const struct rec *r);            /* a code record */
const struct codeent *code_of(uint64_t pc);     /* NULL: no source */
/* The code argument of pc as JSON, quotes included ("" without source). */
static inline const char *code_json(uint64_t pc, size_t *n)
{
	const struct codeent *e = emit.ncodes ? code_of(pc) : NULL;
	if (!e) {
		*n = 2;
		return "\"\"";
	}
	*n = e->json_n;
	return e->json;
}
/* Count an instruction on its pc's user lines; *code_ix is the pcstat's
 * code field, looked up when fresh. */
void code_stats(struct core *c, uint64_t pc, uint32_t *code_ix, int fresh, uint64_t start, uint64_t end,
                int count);
void code_csv_rows(struct wr *w, struct core *c);
/* A CSV field in double quotes, quotes inside doubled (RFC 4180). */
void csv_put_quoted(struct wr *w, const char *s, size_t n);
int code_blocks(struct vdata_w *w);
int code_file_api(struct wr *w, struct core **cores, size_t n);
void code_report(struct core **sel, size_t n, unsigned top, FILE *out);
void code_free_core(struct core *c);
void code_release(void);

/* vis.c: DIR/visualize_data.bin (see optrace-vdata(5), VISUALIZE_DATA.BIN) */
/* Create it (in the staging directory) and begin its first block, TRACE:
 * the writer the all-cores trace is drawn into, or NULL with errno.  The
 * trace's bytes are then those of the file from VIS_TRACE_OFF on. */
#define VIS_TRACE_OFF 12        /* VDATA_HEADER_SIZE: the first block's payload */
struct wr *vis_begin(void);
/* The trace is complete, bytes long: its block is closed (0 or an errno). */
int vis_trace_end(uint64_t bytes);
/* The rest, from the per-pc counts of the selected cores, and the file
 * closed; 0, or an errno value with *what naming the step. */
int vis_write(struct core **cores, size_t n, const char **what);
/* Forget a container the exit-time cleanups have aborted (a run cut off). */
void vis_release(void);

/* timeline-emit.c: the whole run as a function, for a caller that runs it
 * more than once in one process (the fuzz target; a build defining
 * OPTRACE_FUZZ leaves main out).  timeline_emit_main takes the command
 * line main gets (argv[0] first; getopt's state is the caller's: optind 0
 * before a second call) and returns the exit status main would.  A fatal
 * error ends it through exit, as in the tool; a caller that catches that
 * runs the exit-time cleanups (cli_cleanup_run) and then
 * timeline_emit_reset, which frees what the run held and puts every
 * option and count back to its initial value. */
int timeline_emit_main(int argc, char **argv);
void timeline_emit_reset(void);

#endif
