/* The pictures of an on-board run (see optrace-board(5), PICTURES), as
 * SVG: the roofline of a built struct roofline, and heat maps of plain
 * tables (blocks or sub-cores against units or metrics, L2 sets).  The
 * callers hand in numbers and names, not records, so any tool that has
 * them can draw them.  Layout functions give the geometry the writers use,
 * so a test can say where a point must be. */
#ifndef OPTRACE_PLOT_H
#define OPTRACE_PLOT_H

#include <stddef.h>

#include "roofline.h"

struct wr;

/* A log10 axis: values lo..hi onto pixels p0..p1 (p1 < p0 for an upward
 * y axis). */
struct plot_axis {
	double lo, hi, p0, p1;
};
/* v's pixel; values at or below 0 go to p0. */
double plot_pos(const struct plot_axis *a, double v);

/* One title's panel of the roofline: its frame and axes. */
struct plot_panel {
	double x, y, w, h;
	struct plot_axis ax, ay;
};
/* The picture's size, and the panel of title i (i < r->ntitle). */
void plot_roof_size(const struct roofline *r, double *width, double *height);
void plot_roof_panel(const struct roofline *r, unsigned i, struct plot_panel *p);

/* The one-line verdict under the roofline, from the line with the largest
 * ratio: "memory bound: 63% of GM to UB peak at 1.2 ops/byte", or "compute
 * bound: 91% of compute peak (540 TOPS) at 55 ops/byte"; the advice alone
 * when no point has a ratio.  Into buf (truncated to size); returns the
 * length it needed. */
size_t plot_roof_verdict(const struct roofline *r, char *buf, size_t size);

/* The roofline picture: per title a panel with the compute roof, each
 * line's bandwidth roof up to its ridge, its point labelled with its
 * bw_name, and a legend; the SoC in the title, the verdict below.
 * Returns wr_error(w). */
int plot_roofline(struct wr *w, const struct roofline *r);

/* A table for a heat map: rows x cols values, row-major; NaN = no value. */
struct plot_table {
	const char *title;
	const char *unit;          /* "%", "cycles", "hits"; "" for none */
	unsigned rows, cols;
	const char *const *row;    /* "3 cube0", "set 128", ... */
	const char *const *col;    /* "MTE2", "+5", ... */
	const double *value;
	/* Colour each column from its own smallest to its largest value
	 * (columns of different units: cycles, bytes, percent); the legend
	 * then says so instead of giving one min and max. */
	int by_column;
};

/* The table of a value per L2 set (hits, misses, a hit rate) laid out in
 * rows of cols sets: rows "set N" (the row's first set), columns "+k";
 * cells past the last set have no value.  The names and values are held
 * in s until plot_sets_free. */
struct plot_sets {
	struct plot_table t;
	char *text;
	const char **names;
	double *value;
};
void plot_sets_init(struct plot_sets *s, const char *title, const char *unit, const double *v, size_t n,
                    unsigned cols);
void plot_sets_free(struct plot_sets *s);

/* Where the heat map puts things: the grid's corner and cell size, the
 * colour legend's bar, the picture's size; value text is written in the
 * cells when show_values. */
struct plot_heat_geom {
	double x0, y0, cw, ch;
	double bar_x, bar_y, bar_w, bar_h;
	double width, height;
	int show_values;
	unsigned row_step, col_step; /* every n-th label is written */
};
void plot_heat_layout(const struct plot_table *t, struct plot_heat_geom *g);
/* The heat map: a cell per value coloured from the smallest to the largest
 * value, its value in a tooltip (and as text when the cells are large
 * enough), the colour legend with min and max.  Returns wr_error(w). */
int plot_heatmap(struct wr *w, const struct plot_table *t);

#endif
