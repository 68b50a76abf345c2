#include "plot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "mem.h"
#include "svg.h"

/* ---- roofline geometry ---- */

#define ROOF_W 880.0
#define ROOF_TOP 56.0      /* the picture's title */
#define ROOF_BOTTOM 40.0   /* the verdict */
#define PANEL_H 390.0      /* heading, plot, axis labels */
#define PLOT_X 80.0
#define PLOT_Y 52.0        /* below the panel's heading */
#define PLOT_W 460.0
#define PLOT_H 290.0
#define LEGEND_X (PLOT_X + PLOT_W + 24.0)
#define DECADES_MAX 12

double plot_pos(const struct plot_axis *a, double v)
{
	double l0 = log10(a->lo), l1 = log10(a->hi);
	if (!(v > 0) || l1 <= l0)
		return a->p0;
	return a->p0 + (log10(v) - l0) / (l1 - l0) * (a->p1 - a->p0);
}

static double decade_floor(double v)
{
	return pow(10, floor(log10(v)));
}

static double decade_ceil(double v)
{
	return pow(10, ceil(log10(v)));
}

/* lo..hi spread to whole decades around the values seen, at least one
 * decade wide and at most DECADES_MAX. */
static void axis_range(double min, double max, double *lo, double *hi)
{
	if (!(min > 0) || !isfinite(max)) {
		*lo = 0.01;
		*hi = 100;
		return;
	}
	*lo = decade_floor(min / 2);
	*hi = decade_ceil(max * 2);
	if (*hi <= *lo)
		*hi = *lo * 10;
	if (*hi / *lo > pow(10, DECADES_MAX))
		*lo = *hi / pow(10, DECADES_MAX);
}

static int usable(double v)
{
	return v > 0 && isfinite(v);
}

void plot_roof_size(const struct roofline *r, double *width, double *height)
{
	*width = ROOF_W;
	*height = ROOF_TOP + (r->ntitle ? r->ntitle : 1) * PANEL_H + ROOF_BOTTOM;
}

void plot_roof_panel(const struct roofline *r, unsigned i, struct plot_panel *p)
{
	const struct roof_title *t = &r->title[i];
	double xmin = INFINITY, xmax = 0, ymin = INFINITY, ymax = 0;
	memset(p, 0, sizeof *p);
	p->x = 0;
	p->y = ROOF_TOP + i * PANEL_H;
	p->w = ROOF_W;
	p->h = PANEL_H;
	if (usable(t->prop.peak)) {
		ymin = ymax = t->prop.peak;
	}
	for (unsigned j = 0; j < t->n; j++) {
		const struct roof_line *l = &t->line[j];
		double pts[2] = { l->x, usable(l->bw) && usable(t->prop.peak) ? t->prop.peak / l->bw : 0 };
		for (int k = 0; k < 2; k++)
			if (usable(pts[k])) {
				xmin = fmin(xmin, pts[k]);
				xmax = fmax(xmax, pts[k]);
			}
		if (usable(l->y) && usable(l->x)) {
			ymin = fmin(ymin, l->y);
			ymax = fmax(ymax, l->y);
		}
	}
	axis_range(xmin, xmax, &p->ax.lo, &p->ax.hi);
	axis_range(ymin, ymax, &p->ay.lo, &p->ay.hi);
	p->ax.p0 = p->x + PLOT_X;
	p->ax.p1 = p->x + PLOT_X + PLOT_W;
	p->ay.p0 = p->y + PLOT_Y + PLOT_H;
	p->ay.p1 = p->y + PLOT_Y;
}

/* ---- the verdict ---- */

/* A ratio as the roofline writes it ("0.634521", "NA"), read without the
 * locale; -1 when it is not a number. */
static double ratio_value(const char *s)
{
	double v = 0, scale = 1;
	int digits = 0;
	for (; *s >= '0' && *s <= '9'; s++, digits++)
		v = v * 10 + (*s - '0');
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++, digits++)
			v += (*s - '0') * (scale /= 10);
	return digits && !*s ? v : -1;
}

static const struct roof_line *best_line(const struct roofline *r, const struct roof_title **title, double *ratio)
{
	const struct roof_line *best = NULL;
	*ratio = -1;
	for (unsigned i = 0; i < r->ntitle; i++)
		for (unsigned j = 0; j < r->title[i].n; j++) {
			double v = ratio_value(r->title[i].line[j].ratio);
			if (v > *ratio) {
				*ratio = v;
				best = &r->title[i].line[j];
				*title = &r->title[i];
			}
		}
	return best;
}

static int right_of_ridge(const struct roof_title *t, const struct roof_line *l)
{
	return l->bw > 0 && l->x > t->prop.peak / l->bw;
}

size_t plot_roof_verdict(const struct roofline *r, char *buf, size_t size)
{
	const struct roof_title *t = NULL;
	double ratio;
	const struct roof_line *l = best_line(r, &t, &ratio);
	const char *advice = r->ntitle ? roof_advice(r) : "no roofline";
	char pct[SVG_NUM_MAX], x[SVG_NUM_MAX], peak[SVG_NUM_MAX];
	int n;
	if (!l)
		n = snprintf(buf, size, "%s", advice);
	else {
		double p = ratio * 100;
		svg_fixed(pct, p, p < 10 ? 1 : 0);
		svg_sig(x, l->x, 2);
		svg_sig(peak, t->prop.peak, 3);
		if (right_of_ridge(t, l))
			n = snprintf(buf, size, "%s: %s%% of compute peak (%s TOPS) at %s ops/byte", advice, pct, peak,
			             x);
		else
			n = snprintf(buf, size, "%s: %s%% of %s peak at %s ops/byte", advice, pct, l->bw_name, x);
	}
	return n < 0 ? 0 : (size_t)n;
}

/* ---- the roofline picture ---- */

static const char *const palette[] = { "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	                               "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79" };
#define PALETTE_N (sizeof palette / sizeof palette[0])

static void roof_axes(struct wr *w, const struct plot_panel *p)
{
	double x0 = p->ax.p0, x1 = p->ax.p1, y0 = p->ay.p0, y1 = p->ay.p1;
	int ldx = (int)lround(log10(p->ax.hi / p->ax.lo)), ldy = (int)lround(log10(p->ay.hi / p->ay.lo));
	int stepx = ldx > 8 ? 2 : 1, stepy = ldy > 8 ? 2 : 1;
	char lab[SVG_NUM_MAX];
	svg_put(w, "<rect class=\"frame\" x=\"%n\" y=\"%n\" width=\"%n\" height=\"%n\" fill=\"none\" stroke=\"#444\"/>\n",
	        x0, y1, x1 - x0, y0 - y1);
	svg_put(w, "<g class=\"xticks\" text-anchor=\"middle\">\n");
	for (int k = 0; k <= ldx; k++) {
		double v = p->ax.lo * pow(10, k), x = plot_pos(&p->ax, v);
		svg_put(w, "<line x1=\"%n\" y1=\"%n\" x2=\"%n\" y2=\"%n\" stroke=\"#ddd\"/>\n", x, y1, x, y0);
		svg_put(w, "<line x1=\"%n\" y1=\"%n\" x2=\"%n\" y2=\"%n\" stroke=\"#444\"/>\n", x, y0, x, y0 + 5);
		if (k % stepx == 0) {
			svg_sig(lab, v, 1);
			svg_text(w, x, y0 + 18, "class=\"tick\"", lab);
		}
	}
	svg_put(w, "</g>\n<g class=\"yticks\" text-anchor=\"end\">\n");
	for (int k = 0; k <= ldy; k++) {
		double v = p->ay.lo * pow(10, k), y = plot_pos(&p->ay, v);
		svg_put(w, "<line x1=\"%n\" y1=\"%n\" x2=\"%n\" y2=\"%n\" stroke=\"#ddd\"/>\n", x0, y, x1, y);
		svg_put(w, "<line x1=\"%n\" y1=\"%n\" x2=\"%n\" y2=\"%n\" stroke=\"#444\"/>\n", x0 - 5, y, x0, y);
		if (k % stepy == 0) {
			svg_sig(lab, v, 1);
			svg_text(w, x0 - 8, y + 4, "class=\"tick\"", lab);
		}
	}
	svg_put(w, "</g>\n");
	svg_text(w, (x0 + x1) / 2, y0 + 36, "class=\"xlabel\" text-anchor=\"middle\"",
	         "arithmetic intensity (ops/byte)");
	svg_put(w, "<text class=\"ylabel\" x=\"%n\" y=\"%n\" text-anchor=\"middle\" transform=\"rotate(-90 %n %n)\">"
	           "performance (TOPS)</text>\n",
	        x0 - 52, (y0 + y1) / 2, x0 - 52, (y0 + y1) / 2);
}

/* The part of y = bw * x inside the panel, from the left edge to x_end. */
static int roof_segment(const struct plot_panel *p, double bw, double x_end, double *xa, double *xb)
{
	*xa = fmax(p->ax.lo, p->ay.lo / bw);
	*xb = fmin(fmin(x_end, p->ax.hi), p->ay.hi / bw);
	return *xa < *xb;
}

static void roof_panel(struct wr *w, const struct roofline *r, unsigned i)
{
	const struct roof_title *t = &r->title[i];
	struct plot_panel p;
	double peak = t->prop.peak, ridge_min = INFINITY, ly;
	char num[SVG_NUM_MAX];
	plot_roof_panel(r, i, &p);
	svg_put(w, "<g class=\"panel\">\n");
	svg_text(w, p.x + PLOT_X, p.y + 20, "class=\"heading\" font-size=\"15\" font-weight=\"bold\"", t->title);
	svg_text(w, p.x + PLOT_X, p.y + 38, "class=\"compute\" font-size=\"10\" fill=\"#555\"", t->prop.name);
	roof_axes(w, &p);
	/* the bandwidth roofs, each up to its ridge */
	for (unsigned j = 0; j < t->n; j++) {
		const struct roof_line *l = &t->line[j];
		double ridge = usable(peak) ? peak / l->bw : p.ax.hi, xa, xb;
		if (!usable(l->bw))
			continue;
		ridge_min = fmin(ridge_min, ridge);
		if (roof_segment(&p, l->bw, ridge, &xa, &xb))
			svg_put(w,
			        "<line class=\"bwroof\" x1=\"%n\" y1=\"%n\" x2=\"%n\" y2=\"%n\" stroke=\"%r\" "
			        "stroke-width=\"2\"><title>%s: %g TB/s</title></line>\n",
			        plot_pos(&p.ax, xa), plot_pos(&p.ay, l->bw * xa), plot_pos(&p.ax, xb),
			        plot_pos(&p.ay, l->bw * xb), palette[j % PALETTE_N], l->bw_name, (double)l->bw);
		if (usable(peak) && ridge >= p.ax.lo && ridge <= p.ax.hi)
			svg_put(w,
			        "<circle class=\"ridge\" cx=\"%n\" cy=\"%n\" r=\"3\" fill=\"#fff\" stroke=\"%r\">"
			        "<title>ridge of %s: %g ops/byte</title></circle>\n",
			        plot_pos(&p.ax, ridge), plot_pos(&p.ay, peak), palette[j % PALETTE_N], l->bw_name, ridge);
	}
	/* the compute roof: solid right of the first ridge */
	if (usable(peak)) {
		double xs = fmin(fmax(ridge_min, p.ax.lo), p.ax.hi), y = plot_pos(&p.ay, peak);
		svg_put(w,
		        "<line class=\"computeroof\" x1=\"%n\" y1=\"%n\" x2=\"%n\" y2=\"%n\" stroke=\"#000\" "
		        "stroke-width=\"2.5\"><title>compute peak: %g TOPS</title></line>\n",
		        plot_pos(&p.ax, xs), y, p.ax.p1, y, (double)peak);
		svg_sig(num, peak, 3);
		svg_put(w, "<text class=\"peaklabel\" x=\"%n\" y=\"%n\" text-anchor=\"end\">peak %r TOPS</text>\n",
		        p.ax.p1 - 4, y - 5, num);
	}
	/* the points, on top */
	for (unsigned j = 0; j < t->n; j++) {
		const struct roof_line *l = &t->line[j];
		double cx, cy;
		if (!usable(l->x) || !usable(l->y))
			continue;
		cx = plot_pos(&p.ax, l->x);
		cy = plot_pos(&p.ay, l->y);
		svg_put(w,
		        "<circle class=\"point\" cx=\"%n\" cy=\"%n\" r=\"5\" fill=\"%r\" stroke=\"#000\">"
		        "<title>%s: %g ops/byte, %g TOPS, ratio %s</title></circle>\n",
		        cx, cy, palette[j % PALETTE_N], l->bw_name, (double)l->x, (double)l->y, l->ratio);
		/* labels of neighbouring points alternate above and below */
		svg_text(w, cx + 7, j % 2 ? cy + 16 : cy - 7, "class=\"pointlabel\" font-size=\"10\"", l->bw_name);
	}
	/* the legend */
	ly = p.ay.p1 + 4;
	svg_put(w, "<g class=\"legend\">\n");
	svg_put(w, "<line x1=\"%n\" y1=\"%n\" x2=\"%n\" y2=\"%n\" stroke=\"#000\" stroke-width=\"2.5\"/>\n", LEGEND_X,
	        ly + 4, LEGEND_X + 18, ly + 4);
	svg_put(w, "<text x=\"%n\" y=\"%n\">compute peak %g TOPS</text>\n", LEGEND_X + 24, ly + 8, (double)peak);
	for (unsigned j = 0; j < t->n; j++) {
		const struct roof_line *l = &t->line[j];
		ly += 18;
		svg_put(w, "<rect x=\"%n\" y=\"%n\" width=\"18\" height=\"8\" fill=\"%r\"/>\n", LEGEND_X, ly, palette[j % PALETTE_N]);
		svg_put(w, "<text x=\"%n\" y=\"%n\">%s: %g TB/s, ratio %s</text>\n", LEGEND_X + 24, ly + 8, l->bw_name,
		        (double)l->bw, l->ratio);
	}
	svg_put(w, "</g>\n</g>\n");
}

int plot_roofline(struct wr *w, const struct roofline *r)
{
	double width, height;
	char title[ROOF_NAME_MAX + 32];
	char verdict[512];
	plot_roof_size(r, &width, &height);
	snprintf(title, sizeof title, "Roofline, %s", *r->soc ? r->soc : "unknown SoC");
	svg_begin(w, width, height, title);
	svg_text(w, width / 2, 32, "class=\"title\" font-size=\"18\" font-weight=\"bold\" text-anchor=\"middle\"",
	         title);
	for (unsigned i = 0; i < r->ntitle; i++)
		roof_panel(w, r, i);
	if (!r->ntitle)
		svg_text(w, width / 2, ROOF_TOP + PANEL_H / 2, "class=\"empty\" text-anchor=\"middle\"",
		         "no line has bytes: nothing to draw");
	plot_roof_verdict(r, verdict, sizeof verdict);
	svg_text(w, PLOT_X, height - 16, "class=\"verdict\" font-size=\"14\"", verdict);
	svg_end(w);
	return wr_error(w);
}

/* ---- heat maps ---- */

#define CHAR_W 6.5 /* mean width of a character of the labels, px */

static double longest(const char *const *names, unsigned n)
{
	size_t max = 0;
	for (unsigned i = 0; i < n; i++)
		if (names[i] && strlen(names[i]) > max)
			max = strlen(names[i]);
	return (double)max * CHAR_W;
}

void plot_heat_layout(const struct plot_table *t, struct plot_heat_geom *g)
{
	double rowlab = fmin(220, longest(t->row, t->rows)) + 12, collab = longest(t->col, t->cols), grid_w;
	memset(g, 0, sizeof *g);
	g->cw = t->cols <= 16 ? 72 : fmax(4, fmin(72, 1152.0 / t->cols));
	g->ch = t->rows <= 32 ? 24 : fmax(3, fmin(24, 768.0 / t->rows));
	g->show_values = g->cw >= 44 && g->ch >= 16;
	g->row_step = g->ch >= 12 ? 1 : (unsigned)ceil(12 / g->ch);
	g->col_step = g->cw >= 14 ? 1 : (unsigned)ceil(14 / g->cw);
	/* column labels across when they fit their cells, else at 45 degrees */
	collab = collab + 8 <= g->cw ? 22 : fmin(160, collab * 0.72) + 14;
	g->x0 = 10 + rowlab;
	g->y0 = 44 + collab;
	grid_w = t->cols * g->cw;
	g->bar_x = g->x0;
	g->bar_y = g->y0 + t->rows * g->ch + 22;
	g->bar_w = fmin(320, fmax(200, grid_w));
	g->bar_h = 12;
	g->width = fmax(fmax(g->x0 + grid_w, g->bar_x + g->bar_w + 120), 20 + (t->title ? strlen(t->title) : 0) * 9.0) + 20;
	g->height = g->bar_y + g->bar_h + 34;
}

#define SET_NAME_MAX 24

void plot_sets_init(struct plot_sets *s, const char *title, const char *unit, const double *v, size_t n,
                    unsigned cols)
{
	size_t rows, cells;
	char *p;
	if (!cols)
		cols = 1;
	rows = n ? (n + cols - 1) / cols : 1;
	cells = rows * cols;
	s->names = xcalloc(rows + cols, sizeof *s->names);
	s->text = p = xmalloc((rows + cols) * SET_NAME_MAX);
	s->value = xmalloc(cells * sizeof *s->value);
	for (size_t i = 0; i < rows; i++, p += SET_NAME_MAX) {
		snprintf(p, SET_NAME_MAX, "set %zu", i * cols);
		s->names[i] = p;
	}
	for (size_t k = 0; k < cols; k++, p += SET_NAME_MAX) {
		snprintf(p, SET_NAME_MAX, "+%zu", k);
		s->names[rows + k] = p;
	}
	for (size_t i = 0; i < cells; i++)
		s->value[i] = i < n ? v[i] : NAN;
	s->t = (struct plot_table){ title, unit, (unsigned)rows, cols, s->names, s->names + rows, s->value, 0 };
}

void plot_sets_free(struct plot_sets *s)
{
	free(s->names);
	free(s->text);
	free(s->value);
	memset(s, 0, sizeof *s);
}

static void value_text(char *buf, double v, const char *unit)
{
	size_t n = svg_sig(buf, v, 3);
	if (unit && *unit)
		snprintf(buf + n, SVG_NUM_MAX * 2 - n, "%s%s", strcmp(unit, "%") ? " " : "", unit);
}

int plot_heatmap(struct wr *w, const struct plot_table *t)
{
	struct plot_heat_geom g;
	double min = INFINITY, max = -INFINITY;
	size_t n = (size_t)t->rows * t->cols;
	char colour[8], text[SVG_NUM_MAX * 2];
	int across;
	plot_heat_layout(t, &g);
	across = g.y0 - 44 <= 22;
	for (size_t i = 0; i < n; i++)
		if (isfinite(t->value[i])) {
			min = fmin(min, t->value[i]);
			max = fmax(max, t->value[i]);
		}
	svg_begin(w, g.width, g.height, t->title ? t->title : "heat map");
	svg_text(w, 10, 26, "class=\"title\" font-size=\"16\" font-weight=\"bold\"", t->title ? t->title : "");
	svg_put(w, "<g class=\"cols\" font-size=\"11\">\n");
	for (unsigned c = 0; c < t->cols; c += g.col_step) {
		double x = g.x0 + (c + 0.5) * g.cw, y = g.y0 - 6;
		if (across)
			svg_put(w, "<text x=\"%n\" y=\"%n\" text-anchor=\"middle\">%s</text>\n", x, y, t->col[c]);
		else
			svg_put(w, "<text x=\"%n\" y=\"%n\" transform=\"rotate(-45 %n %n)\">%s</text>\n", x, y, x, y,
			        t->col[c]);
	}
	svg_put(w, "</g>\n<g class=\"rows\" font-size=\"11\" text-anchor=\"end\">\n");
	for (unsigned r = 0; r < t->rows; r += g.row_step)
		svg_put(w, "<text x=\"%n\" y=\"%n\">%s</text>\n", g.x0 - 6, g.y0 + (r + 0.5) * g.ch + 4, t->row[r]);
	svg_put(w, "</g>\n<g class=\"cells\" font-size=\"10\" text-anchor=\"middle\">\n");
	for (unsigned r = 0; r < t->rows; r++)
		for (unsigned c = 0; c < t->cols; c++) {
			double v = t->value[(size_t)r * t->cols + c], x = g.x0 + c * g.cw, y = g.y0 + r * g.ch;
			int dark = 0;
			if (!isfinite(v)) {
				svg_put(w,
				        "<rect x=\"%n\" y=\"%n\" width=\"%n\" height=\"%n\" fill=\"#e0e0e0\">"
				        "<title>%s, %s: no value</title></rect>\n",
				        x, y, g.cw, g.ch, t->row[r], t->col[c]);
				continue;
			}
			if (t->by_column) {
				double lo = INFINITY, hi = -INFINITY;
				for (unsigned k = 0; k < t->rows; k++) {
					double u = t->value[(size_t)k * t->cols + c];
					if (isfinite(u)) {
						lo = fmin(lo, u);
						hi = fmax(hi, u);
					}
				}
				dark = svg_heat_colour(hi > lo ? (v - lo) / (hi - lo) : 0.5, colour);
			} else
				dark = svg_heat_colour(max > min ? (v - min) / (max - min) : 0.5, colour);
			value_text(text, v, t->unit);
			svg_put(w,
			        "<rect x=\"%n\" y=\"%n\" width=\"%n\" height=\"%n\" fill=\"%r\" stroke=\"#fff\" "
			        "stroke-width=\"0.5\"><title>%s, %s: %s</title></rect>\n",
			        x, y, g.cw, g.ch, colour, t->row[r], t->col[c], text);
			if (g.show_values)
				svg_put(w, "<text x=\"%n\" y=\"%n\" fill=\"%r\">%s</text>\n", x + g.cw / 2, y + g.ch / 2 + 4,
				        dark ? "#fff" : "#000", text);
		}
	svg_put(w, "</g>\n");
	/* the colour legend: the scale's five stops as a gradient */
	svg_put(w, "<defs><linearGradient id=\"heatscale\">\n");
	for (int k = 0; k <= 4; k++) {
		svg_heat_colour(k / 4.0, colour);
		svg_put(w, "<stop offset=\"%d%%\" stop-color=\"%r\"/>\n", k * 25, colour);
	}
	svg_put(w, "</linearGradient></defs>\n<g class=\"scale\" font-size=\"11\">\n");
	svg_put(w, "<rect x=\"%n\" y=\"%n\" width=\"%n\" height=\"%n\" fill=\"url(#heatscale)\" stroke=\"#444\"/>\n",
	        g.bar_x, g.bar_y, g.bar_w, g.bar_h);
	if (t->by_column && min <= max)
		svg_put(w, "<text class=\"min\" x=\"%n\" y=\"%n\">each column from its own min to its max</text>\n",
		        g.bar_x, g.bar_y + g.bar_h + 14);
	else if (min <= max) {
		value_text(text, min, t->unit);
		svg_put(w, "<text class=\"min\" x=\"%n\" y=\"%n\">min %s</text>\n", g.bar_x, g.bar_y + g.bar_h + 14, text);
		value_text(text, max, t->unit);
		svg_put(w, "<text class=\"max\" x=\"%n\" y=\"%n\" text-anchor=\"end\">max %s</text>\n", g.bar_x + g.bar_w,
		        g.bar_y + g.bar_h + 14, text);
	} else
		svg_put(w, "<text class=\"min\" x=\"%n\" y=\"%n\">no values</text>\n", g.bar_x, g.bar_y + g.bar_h + 14);
	svg_put(w, "</g>\n");
	svg_end(w);
	return wr_error(w);
}
