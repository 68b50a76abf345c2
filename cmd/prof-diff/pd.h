/* prof-diff's model of one profile (see prof-diff(1)): a simulator run's
 * cores (time, pipes, source lines, instructions) or an on-board run's
 * metric groups, loaded once from a tree or a record stream. */
#ifndef PROF_DIFF_PD_H
#define PROF_DIFF_PD_H
#include <stddef.h>
#include <stdint.h>

#include "ival.h"
#include "keytab.h"

/* Times are in units of 10^-6 us (the 6 decimals of every trace), so a
 * tree's trace and a record stream give the same integers. */


struct pd_pipe {
	char *name;
	uint64_t cycles;      /* summed end - start of its instructions */
	uint64_t count;       /* executions */
	struct ival_union busy;      /* the union of its slices */
};

struct pd_instr {
	uint64_t pc;
	char *name, *pipe;
	char *stack;          /* the source stack, "file:line" entries joined by LF, innermost first; "" */
	uint64_t calls, cycles;
};

struct pd_line {
	char *code;           /* "file:line" */
	uint64_t calls, cycles;
};

struct pd_core {
	char *name;
	int timed;            /* start, end, run and busy are known */
	uint64_t start, end;  /* the first start and last end of its instructions */
	struct ival_union run;       /* the union of all its instructions */
	struct pd_pipe *pipe;
	size_t npipe;
	struct pd_instr *instr;
	size_t ninstr, instr_cap;
	struct keytab pc_ix;  /* pc -> index into instr */
	struct pd_line *line;
	size_t nline, line_cap;
	struct keytab line_ix; /* hash of code -> first index (collisions chained by scan) */
};

/* One CSV of an on-board launch: the metric group, its columns, its rows
 * keyed by their first key_cols fields. */
struct pd_group {
	char *name;           /* "PipeUtilization", "OpBasicInfo" */
	char **col;
	size_t ncol, key_cols;
	char ***row;          /* row[i][j], as written ("NA" kept) */
	size_t nrow;
};

enum pd_kind { PD_SIM, PD_BOARD };

struct prof {
	const char *arg;      /* as given */
	char *where;          /* the directory (or file) read */
	enum pd_kind kind;
	char *soc;            /* "" when unknown */
	unsigned mhz;         /* 0 when unknown */
	int code_view;        /* some instruction has a source stack */
	struct pd_core *core;
	size_t ncore;
	struct pd_group *group;
	size_t ngroup;
	uint64_t problems;    /* input problems found (counted, reported) */
};

/* Load a tree or a stream; exits with EXIT_UNUSABLE (3) naming the file
 * when it is neither or cannot be read. */
void pd_load(struct prof *p, const char *arg);
void pd_free(struct prof *p);

struct pd_core *pd_core_get(struct prof *p, const char *name, size_t n);
struct pd_pipe *pd_pipe_get(struct pd_core *c, const char *name, size_t n);
struct pd_instr *pd_instr_get(struct pd_core *c, uint64_t pc, int *fresh);
struct pd_line *pd_line_get(struct pd_core *c, const char *code, size_t n);
const struct pd_line *pd_line_find(const struct pd_core *c, const char *code);
const struct pd_group *pd_group_find(const struct prof *p, const char *name);

/* The stream loader (stream.c): 1 when the file is a record stream (and
 * was loaded), 0 when it is not one. */
int pd_load_stream(struct prof *p, const char *path);

/* ---- the comparison (match.c) ---- */

struct pd_pipe_row {
	const char *name;
	const struct pd_pipe *a, *b;   /* NULL on the side without it */
};

struct pd_line_row {
	const struct pd_line *a, *b;   /* NULL: only on the other side */
	int by_name;                   /* matched by file name and line, the paths differing */
};

struct pd_instr_row {
	const struct pd_instr *a, *b;  /* NULL: only on the other side */
	int by_pc;                     /* matched by pc (no source stack) */
};

struct pd_core_diff {
	const struct pd_core *a, *b;
	struct pd_pipe_row *pipe;
	size_t npipe;
	struct pd_line_row *line;      /* matched first, by change; then only A, only B */
	size_t nline, line_matched;
	struct pd_instr_row *instr;
	size_t ninstr, instr_matched;
};

struct pd_diff {
	const struct prof *a, *b;
	struct pd_core_diff *core;     /* cores of both */
	size_t ncore;
	const struct pd_core **only_a, **only_b;
	size_t nonly_a, nonly_b;
	int timed;                     /* both sides have times */
	uint64_t span_a, span_b;       /* the kernel: first start to last end over the cores */
	/* lines summed over the cores of both, for the picture */
	struct pd_line_row *sum_line;
	struct pd_line *sum_store;
	size_t nsum, nsum_store;
};

void pd_diff_build(struct pd_diff *d, const struct prof *a, const struct prof *b);
void pd_diff_free(struct pd_diff *d);

/* The change from a to b in percent of a (infinite when a is 0 and b
 * is not). */
static inline double pd_pct(double a, double b)
{
	return a != 0 ? 100.0 * (b - a) / a : (b != 0 ? __builtin_inf() : 0.0);
}

/* The busiest pipe of a core (largest busy time; cycles when untimed),
 * NULL when it has none. */
const struct pd_pipe *pd_busiest(const struct pd_core *c);

#endif
