/* prof-diff's outputs (out.c) and its gate (prof-diff.c). */
#ifndef PROF_DIFF_OUT_H
#define PROF_DIFF_OUT_H
#include <stdio.h>

#include "pd.h"

struct wr;

struct pd_text {
	FILE *f;
	size_t top;             /* rows per table */
	int all;                /* on-board: the unchanged metrics too */
	int shown_unmatched;
	const char *group;      /* the group whose heading was printed */
	uint64_t shown, same;
};

struct pd_gate {
	int failed;
	char **reason;
	size_t nreason;
};

void pd_text(const struct pd_diff *d, struct pd_text *t);
int pd_json(const struct pd_diff *d, const struct pd_gate *g, struct wr *w);
int pd_svg(const struct pd_diff *d, size_t top, struct wr *w);

/* The on-board tables. */
int pd_col(const struct pd_group *g, const char *name);
void pd_row_key(const struct pd_group *g, size_t r, char *buf, size_t n);
int pd_row_find(const struct pd_group *g, const char *key);
int pd_value(const char *s, double *v);
double pd_board_duration(const struct prof *p);
void pd_board_each(const struct pd_diff *d,
                   void (*fn)(void *, const struct pd_group *, size_t col, const char *key, const char *ta,
                              const char *tb, const double *va, const double *vb),
                   void *arg);
#endif
