/* Unit tests of lib/svg.c and lib/plot.c: the number forms, escaping, the
 * roofline verdict, and the pictures themselves, read back by a small XML
 * well-formedness check and searched for the axes, ticks, points and cells
 * where the layout functions say they must be.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "svg.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io.h"
#include "plot.h"
#include "roofline.h"
#include "unit.h"

/* ---- a small XML checker: well-formed or the offset of the first fault ---- */

static int name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
	       c == ':' || c == '.';
}

/* A character reference or one of the five named ones at s ('&'); its
 * length, 0 when it is none. */
static size_t entity(const char *s)
{
	static const char *const named[] = { "&amp;", "&lt;", "&gt;", "&quot;", "&apos;" };
	size_t n = 2;
	for (size_t i = 0; i < 5; i++)
		if (!strncmp(s, named[i], strlen(named[i])))
			return strlen(named[i]);
	if (s[1] != '#')
		return 0;
	while (s[n] >= '0' && s[n] <= '9')
		n++;
	return n > 2 && s[n] == ';' ? n + 1 : 0;
}

/* -1 when s is well-formed (one root, tags nested and matched, attributes
 * quoted, no bare '<' or '&'), else the offset of the fault. */
static long xml_check(const char *s)
{
	const char *p = s, *stack[64];
	size_t len[64];
	int depth = 0, roots = 0;
	while (*p) {
		if (*p == '&') {
			size_t n = entity(p);
			if (!n || !depth)
				return p - s;
			p += n;
		} else if (*p != '<') {
			if (!depth && *p != '\n' && *p != ' ')
				return p - s;
			p++;
		} else if (p[1] == '?') {
			const char *e = strstr(p, "?>");
			if (!e || p != s)
				return p - s;
			p = e + 2;
		} else if (!strncmp(p, "<!--", 4)) {
			const char *e = strstr(p, "-->");
			if (!e)
				return p - s;
			p = e + 3;
		} else if (p[1] == '/') {
			const char *n = p + 2;
			size_t k = 0;
			while (name_char(n[k]))
				k++;
			if (!depth || k != len[depth - 1] || strncmp(n, stack[depth - 1], k) || n[k] != '>')
				return p - s;
			depth--;
			p = n + k + 1;
		} else {
			const char *n = p + 1;
			size_t k = 0;
			while (name_char(n[k]))
				k++;
			if (!k)
				return p - s;
			p = n + k;
			for (;;) { /* attributes */
				size_t a = 0;
				char q;
				while (*p == ' ' || *p == '\n')
					p++;
				if (*p == '>' || (p[0] == '/' && p[1] == '>'))
					break;
				while (name_char(p[a]))
					a++;
				if (!a || p[a] != '=' || (p[a + 1] != '"' && p[a + 1] != '\''))
					return p - s;
				q = p[a + 1];
				for (p += a + 2; *p != q; p++) {
					if (!*p || *p == '<')
						return p - s;
					if (*p == '&') {
						size_t e = entity(p);
						if (!e)
							return p - s;
						p += e - 1;
					}
				}
				p++;
			}
			if (!depth && roots++)
				return p - s;
			if (*p == '/') {
				p += 2;
				continue;
			}
			if (depth == 64)
				return p - s;
			stack[depth] = n;
			len[depth++] = k;
			p++;
		}
	}
	return depth || roots != 1 ? p - s : -1;
}

static void test_xml_check(void)
{
	CHECK(xml_check("<a><b x=\"1\"/>t &amp; &#60;</a>\n") == -1);
	CHECK(xml_check("<?xml version=\"1.0\"?>\n<a/>") == -1);
	CHECK(xml_check("<a><b></a></b>") >= 0);
	CHECK(xml_check("<a x=\"<\"/>") >= 0);
	CHECK(xml_check("<a>&</a>") >= 0);
	CHECK(xml_check("<a x=1/>") >= 0);
	CHECK(xml_check("<a/><b/>") >= 0);
	CHECK(xml_check("<a>") >= 0);
}

/* ---- numbers and texts ---- */

/* svg_fixed (places) or svg_sig (digits) of v is want */
static int num_is(int sig, double v, int d, const char *want)
{
	char buf[SVG_NUM_MAX];
	(sig ? svg_sig : svg_fixed)(buf, v, d);
	if (strcmp(buf, want))
		printf("  %s(%.17g, %d) = \"%s\", want \"%s\"\n", sig ? "svg_sig" : "svg_fixed", v, d, buf, want);
	return !strcmp(buf, want);
}
#define fixed_is(v, d, want) num_is(0, v, d, want)
#define sig_is(v, d, want) num_is(1, v, d, want)

static void test_numbers(void)
{
	CHECK(fixed_is(12, 2, "12"));
	CHECK(fixed_is(0.5, 2, "0.5"));
	CHECK(fixed_is(-3.25, 2, "-3.25"));
	CHECK(fixed_is(1.005, 1, "1"));
	CHECK(fixed_is(0.999, 2, "1"));
	CHECK(fixed_is(0.05, 2, "0.05"));
	CHECK(fixed_is(-0.001, 2, "0"));
	CHECK(fixed_is(NAN, 2, "0"));
	CHECK(fixed_is(INFINITY, 2, "0"));
	CHECK(fixed_is(123456.789, 2, "123456.79"));
	CHECK(fixed_is(2.5e15, 2, "2.5e15"));
	CHECK(sig_is(0.032219, 2, "0.032"));
	CHECK(sig_is(1.2345, 2, "1.2"));
	CHECK(sig_is(540.671997, 3, "541"));
	CHECK(sig_is(9.99, 2, "10"));
	CHECK(sig_is(1234567, 2, "1.2e6"));
	CHECK(sig_is(0.00001, 1, "1e-5"));
	CHECK(sig_is(99999999, 2, "1e8"));
	CHECK(sig_is(0, 3, "0"));
	/* a locale with a decimal comma changes nothing */
	if (setlocale(LC_NUMERIC, "de_DE.UTF-8") || setlocale(LC_NUMERIC, "fr_FR.UTF-8")) {
		CHECK(fixed_is(0.5, 2, "0.5"));
		CHECK(sig_is(1.2345, 2, "1.2"));
		setlocale(LC_NUMERIC, "C");
	}
}

/* What a writer wrote, read back NUL-terminated. */
static char *written(const char *name, int (*draw)(struct wr *, const void *), const void *arg)
{
	const char *path = unit_path(name);
	struct wr *w = wr_open(path, 0);
	size_t n;
	char *b, *s;
	if (!w) {
		perror(path);
		exit(2);
	}
	CHECK_INT(draw(w, arg), 0);
	CHECK_INT(wr_close(w), 0);
	b = unit_read_file(path, &n);
	s = malloc(n + 1);
	if (!s || !b)
		exit(2);
	memcpy(s, b, n);
	s[n] = 0;
	free(b);
	return s;
}

static int draw_esc(struct wr *w, const void *arg)
{
	svg_put(w, "<a t=\"%s\">%s %d%% %r</a>", (const char *)arg, (const char *)arg, 42, "<b/>");
	return wr_error(w);
}

static void test_escape(void)
{
	char *s = written("esc.svg", draw_esc, "x<&\"'>\001y");
	CHECK(!strcmp(s, "<a t=\"x&lt;&amp;&quot;&#39;&gt; y\">x&lt;&amp;&quot;&#39;&gt; y 42% <b/></a>"));
	CHECK(xml_check(s) == -1);
	free(s);
}

/* ---- the roofline ---- */

static unsigned count(const char *s, const char *needle)
{
	unsigned n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static int has(const char *s, const char *needle)
{
	if (!strstr(s, needle))
		printf("  missing: %s\n", needle);
	return strstr(s, needle) != NULL;
}

/* A one-title roofline made by hand: compute peak, lines (bw, x, y) rated
 * as the roofline rates them. */
static void one_title(struct roofline *r, const char *soc, float peak, unsigned n, const char *const *names,
                      const float (*bxy)[3])
{
	roof_init(r, BOARD_A2, soc, 0, 1650, 20, 100);
	r->ntitle = 1;
	r->title[0].title = "Memory Unit(Vector)";
	r->title[0].prop.peak = peak;
	snprintf(r->title[0].prop.name, sizeof r->title[0].prop.name, "Vec_FP32(100.000000%%)");
	r->title[0].n = n;
	for (unsigned i = 0; i < n; i++) {
		struct roof_line *l = &r->title[0].line[i];
		l->bw_name = names[i];
		l->bw = bxy[i][0];
		l->x = bxy[i][1];
		l->y = bxy[i][2];
		l->bytes = 1;
		roof_analysis(r, l->bw, peak, l->x, l->y, l->ratio);
	}
}

static int verdict_is(const struct roofline *r, const char *want)
{
	char buf[512];
	size_t n = plot_roof_verdict(r, buf, sizeof buf);
	if (strcmp(buf, want) || n != strlen(want))
		printf("  verdict \"%s\", want \"%s\"\n", buf, want);
	return !strcmp(buf, want) && n == strlen(want);
}

static void test_verdict(void)
{
	static struct roofline r;
	static const char *const names[] = { "GM to UB", "UB to GM" };
	static const float mem[][3] = { { 1, 1.2f, 1.02f }, { 2, 0.5f, 0.1f } };
	static const float comp[][3] = { { 1, 3, 1.8f }, { 2, 0.5f, 0.1f } };
	static const float na[][3] = { { 1, 0.5f, 0.9f } };
	static const float low[][3] = { { 1, 1.2f, 0.756f } };
	char small[8];
	one_title(&r, "Ascend910B1", 2, 2, names, mem);
	CHECK(verdict_is(&r, "memory bound: 85% of GM to UB peak at 1.2 ops/byte"));
	one_title(&r, "Ascend910B1", 2, 2, names, comp);
	CHECK(verdict_is(&r, "compute bound: 90% of compute peak (2 TOPS) at 3 ops/byte"));
	one_title(&r, "Ascend910B1", 2, 1, names, low);
	CHECK(verdict_is(&r, "latency bound:pipeline caused: 63% of GM to UB peak at 1.2 ops/byte"));
	one_title(&r, "Ascend910B1", 2, 1, names, na);
	CHECK(!strcmp(r.title[0].line[0].ratio, "NA"));
	CHECK(verdict_is(&r, "latency bound:pipeline caused"));
	roof_init(&r, BOARD_A2, "Ascend910B1", 0, 1650, 20, 100);
	CHECK(verdict_is(&r, "no roofline"));
	/* cut short, the length still the whole */
	one_title(&r, "Ascend910B1", 2, 2, names, mem);
	CHECK_INT(plot_roof_verdict(&r, small, sizeof small), strlen("memory bound: 85% of GM to UB peak at 1.2 ops/byte"));
	CHECK(!strcmp(small, "memory "));
}

static int draw_roof(struct wr *w, const void *arg)
{
	return plot_roofline(w, arg);
}

static void test_roofline_picture(void)
{
	static struct roofline r;
	static const char *const names[] = { "GM to UB", "a<b&\"c\"" };
	static const float lines[][3] = { { 1, 1.2f, 1.02f }, { 4, 20, 1.5f } };
	struct plot_panel p;
	char *s, want[600], x[SVG_NUM_MAX], y[SVG_NUM_MAX], verdict[256];
	one_title(&r, "Ascend910B<&>", 2, 2, names, lines);
	plot_roof_panel(&r, 0, &p);
	/* the axes span whole decades around the points and the ridges */
	CHECK_NEAR(p.ax.lo, 0.1, 1e-12);
	CHECK_NEAR(p.ax.hi, 100, 1e-9);
	CHECK_NEAR(p.ay.lo, 0.1, 1e-12);
	CHECK_NEAR(p.ay.hi, 10, 1e-9);
	CHECK(p.ay.p0 > p.ay.p1);
	CHECK_NEAR(plot_pos(&p.ax, 1), p.ax.p0 + (p.ax.p1 - p.ax.p0) / 3, 1e-9);
	CHECK_NEAR(plot_pos(&p.ay, 10), p.ay.p1, 1e-9);
	CHECK_NEAR(plot_pos(&p.ay, 0), p.ay.p0, 1e-9);

	s = written("roofline.svg", draw_roof, &r);
	CHECK_MSG(xml_check(s) == -1, "roofline.svg not well-formed at %ld", xml_check(s));
	CHECK(has(s, "<title>Roofline, Ascend910B&lt;&amp;&gt;</title>"));
	CHECK(has(s, ">Memory Unit(Vector)</text>"));
	CHECK(has(s, ">arithmetic intensity (ops/byte)</text>"));
	CHECK(has(s, ">performance (TOPS)</text>"));
	/* x ticks 0.1 .. 100, y ticks 0.1 .. 10, each at its decade */
	CHECK_INT(count(s, "class=\"tick\""), 4 + 3);
	for (double v = 0.1; v < 101; v *= 10) {
		svg_fixed(x, plot_pos(&p.ax, v), 2);
		svg_fixed(y, p.ay.p0 + 18, 2);
		svg_sig(verdict, v, 1);
		snprintf(want, sizeof want, "<text x=\"%s\" y=\"%s\" class=\"tick\">%s</text>", x, y, verdict);
		CHECK(has(s, want));
	}
	svg_fixed(x, p.ax.p0 - 8, 2);
	svg_fixed(y, plot_pos(&p.ay, 1) + 4, 2);
	snprintf(want, sizeof want, "<text x=\"%s\" y=\"%s\" class=\"tick\">1</text>", x, y);
	CHECK(has(s, want));
	/* each point where its numbers put it, labelled with its name */
	CHECK_INT(count(s, "class=\"point\""), 2);
	for (unsigned i = 0; i < 2; i++) {
		svg_fixed(x, plot_pos(&p.ax, r.title[0].line[i].x), 2);
		svg_fixed(y, plot_pos(&p.ay, r.title[0].line[i].y), 2);
		snprintf(want, sizeof want, "<circle class=\"point\" cx=\"%s\" cy=\"%s\"", x, y);
		CHECK(has(s, want));
	}
	CHECK(has(s, "class=\"pointlabel\" font-size=\"10\">GM to UB</text>"));
	CHECK(has(s, "class=\"pointlabel\" font-size=\"10\">a&lt;b&amp;&quot;c&quot;</text>"));
	CHECK(!strstr(s, "a<b"));
	/* the compute roof at the peak, from the first ridge (x = 0.5) on;
	 * the first bandwidth roof ends at its ridge (2 ops/byte) */
	svg_fixed(x, plot_pos(&p.ax, 0.5), 2);
	svg_fixed(y, plot_pos(&p.ay, 2), 2);
	snprintf(want, sizeof want, "<line class=\"computeroof\" x1=\"%s\" y1=\"%s\"", x, y);
	CHECK(has(s, want));
	svg_fixed(x, plot_pos(&p.ax, 2), 2);
	snprintf(want, sizeof want, "x2=\"%s\" y2=\"%s\" stroke=\"#1f77b4\"", x, y);
	CHECK(has(s, want));
	CHECK_INT(count(s, "class=\"bwroof\""), 2);
	CHECK_INT(count(s, "class=\"ridge\""), 2);
	/* legend and verdict */
	CHECK(has(s, ">GM to UB: 1 TB/s, ratio 0.850000</text>"));
	CHECK(has(s, ">compute peak 2 TOPS</text>"));
	plot_roof_verdict(&r, verdict, sizeof verdict);
	snprintf(want, sizeof want, "class=\"verdict\" font-size=\"14\">%s</text>", verdict);
	CHECK(has(s, want));
	free(s);
}

/* The roofline the reference's test builds: every title drawn. */
static void test_roofline_built(void)
{
	static struct roofline r;
	struct pmu_counts cube, vec;
	char *s;
	unsigned lines = 0;
	static const unsigned kv[][3] = { { 0, 33, 9999 }, { 0, 49, 31558 }, { 0, 50, 30932 },
		                          { 1, 75, 10240 }, { 1, 61, 40964 }, { 1, 62, 40960 } };
	pmu_counts_init(&cube);
	pmu_counts_init(&vec);
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
		pmu_counts_set(kv[i][0] ? &vec : &cube, kv[i][1], kv[i][2]);
	roof_init(&r, BOARD_A2, "Ascend910B4", 0, 1650, 20, 120);
	roof_add(&r, BOARD_CUBE, &cube);
	roof_add(&r, BOARD_VECTOR, &vec);
	roof_build(&r, 1, 1);
	CHECK(r.ntitle >= 2);
	s = written("built.svg", draw_roof, &r);
	CHECK_MSG(xml_check(s) == -1, "built.svg not well-formed at %ld", xml_check(s));
	for (unsigned i = 0; i < r.ntitle; i++) {
		char want[300];
		lines += r.title[i].n;
		snprintf(want, sizeof want, ">%s</text>", r.title[i].title);
		CHECK(has(s, want));
	}
	CHECK_INT(count(s, "class=\"point\""), lines);
	CHECK_INT(count(s, "class=\"panel\""), r.ntitle);
	free(s);
}

/* ---- heat maps ---- */

static int draw_heat(struct wr *w, const void *arg)
{
	return plot_heatmap(w, arg);
}

static void test_heatmap(void)
{
	static const char *const rows[] = { "0 cube0", "0 vector0", "1 cube0" };
	static const char *const cols[] = { "MTE2", "a<b&\"c\"" };
	const double v[] = { 10, 20, NAN, 40, 55.5, 70 };
	struct plot_table t = { "Pipes & <units>", "%", 3, 2, rows, cols, v, 0 };
	struct plot_heat_geom g;
	char *s, want[256], x[SVG_NUM_MAX], y[SVG_NUM_MAX];
	plot_heat_layout(&t, &g);
	CHECK(g.show_values);
	CHECK(g.width > g.x0 + 2 * g.cw);
	s = written("heat.svg", draw_heat, &t);
	CHECK_MSG(xml_check(s) == -1, "heat.svg not well-formed at %ld", xml_check(s));
	CHECK(has(s, "<title>Pipes &amp; &lt;units&gt;</title>"));
	CHECK(has(s, ">a&lt;b&amp;&quot;c&quot;</text>"));
	CHECK(!strstr(s, "a<b"));
	/* row 1, column 1 (40 %) where the layout puts it, with its tooltip */
	svg_fixed(x, g.x0 + g.cw, 2);
	svg_fixed(y, g.y0 + g.ch, 2);
	snprintf(want, sizeof want, "<rect x=\"%s\" y=\"%s\" width=\"72\" height=\"24\" fill=\"", x, y);
	CHECK(has(s, want));
	CHECK(has(s, "<title>0 vector0, a&lt;b&amp;&quot;c&quot;: 40%</title>"));
	CHECK(has(s, "<title>0 vector0, MTE2: no value</title>"));
	/* the smallest value is the scale's first colour, the largest its last */
	CHECK(has(s, "fill=\"#ffffcc\" stroke=\"#fff\" stroke-width=\"0.5\"><title>0 cube0, MTE2: 10%</title>"));
	CHECK(has(s, "fill=\"#800026\" stroke=\"#fff\" stroke-width=\"0.5\"><title>1 cube0, a&lt;b&amp;&quot;c&quot;: 70%"));
	CHECK(has(s, ">min 10%</text>"));
	CHECK(has(s, ">max 70%</text>"));
	CHECK(has(s, "fill=\"#fff\">70%</text>"));
	CHECK(has(s, "fill=\"#000\">10%</text>"));
	CHECK_INT(count(s, "<rect x="), 1 + 6 + 1);
	free(s);
}

/* Columns of different units, each coloured over its own range. */
static void test_heatmap_by_column(void)
{
	static const char *const rows[] = { "0 cube0", "0 vector0" };
	static const char *const cols[] = { "cycles", "L2 hit rate (%)" };
	const double v[] = { 1000, 80, 3000, 50 };
	struct plot_table t = { "Occupancy", "", 2, 2, rows, cols, v, 1 };
	char *s = written("heat-col.svg", draw_heat, &t);
	CHECK_MSG(xml_check(s) == -1, "heat-col.svg not well-formed at %ld", xml_check(s));
	/* each column's smallest the first colour, its largest the last */
	CHECK(has(s, "fill=\"#ffffcc\" stroke=\"#fff\" stroke-width=\"0.5\"><title>0 cube0, cycles: 1000</title>"));
	CHECK(has(s, "fill=\"#800026\" stroke=\"#fff\" stroke-width=\"0.5\"><title>0 vector0, cycles: 3000</title>"));
	CHECK(has(s, "fill=\"#ffffcc\" stroke=\"#fff\" stroke-width=\"0.5\"><title>0 vector0, L2 hit rate (%): 50</title>"));
	CHECK(has(s, "fill=\"#800026\" stroke=\"#fff\" stroke-width=\"0.5\"><title>0 cube0, L2 hit rate (%): 80</title>"));
	CHECK(has(s, ">each column from its own min to its max</text>"));
	CHECK(!strstr(s, ">min "));
	free(s);
}

/* An L2 map: many small cells, values in tooltips only, every n-th label. */
static void test_heatmap_large(void)
{
	static double v[64 * 128];
	struct plot_sets sets;
	const struct plot_table *t = &sets.t;
	struct plot_heat_geom g;
	char *s;
	for (unsigned i = 0; i < 64 * 128; i++)
		v[i] = i % 977;
	/* one set short of 64 whole rows: the last cell has no value */
	plot_sets_init(&sets, "L2 hits per set", "hits", v, 64 * 128 - 1, 128);
	CHECK_INT(t->rows, 64);
	CHECK_INT(t->cols, 128);
	CHECK(!strcmp(t->row[63], "set 8064"));
	CHECK(!strcmp(t->col[127], "+127"));
	CHECK(isnan(t->value[64 * 128 - 1]));
	plot_heat_layout(t, &g);
	CHECK(!g.show_values);
	CHECK(g.col_step > 1);
	s = written("l2.svg", draw_heat, t);
	CHECK_MSG(xml_check(s) == -1, "l2.svg not well-formed at %ld", xml_check(s));
	CHECK_INT(count(s, "<title>set "), 64 * 128);
	CHECK(has(s, "<title>set 8064, +126: 374 hits</title>"));
	CHECK(has(s, "<title>set 8064, +127: no value</title>"));
	CHECK(has(s, ">max 976 hits</text>"));
	CHECK_INT(count(s, "transform=\"rotate(-45"), (128 + g.col_step - 1) / g.col_step);
	free(s);
	plot_sets_free(&sets);
}

int main(void)
{
	unit_workdir("test_svg");
	test_xml_check();
	test_numbers();
	test_escape();
	test_verdict();
	test_roofline_picture();
	test_roofline_built();
	test_heatmap();
	test_heatmap_large();
	test_heatmap_by_column();
	io_rm_tree(unit_dir);
	return unit_done();
}
