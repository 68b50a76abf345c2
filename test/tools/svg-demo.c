/* svg-demo DIR: the pictures of lib/plot.h drawn from built-in sample
 * numbers into DIR/roofline.svg, DIR/heatmap.svg and DIR/l2.svg, for the
 * tests that open them in a browser (test/tools/README). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "io.h"
#include "plot.h"
#include "roofline.h"

/* A mix op on 910B4: one cube block and two vector blocks. */
static const unsigned cube_kv[][2] = { { 73, 98400 }, { 74, 500 }, { 49, 31558 }, { 50, 30932 }, { 518, 0 },
	                               { 33, 9999 }, { 28, 20000 }, { 34, 15000 }, { 524, 900 }, { 19, 400 },
	                               { 1292, 3000 } };
static const unsigned vec_kv[][2] = { { 75, 10240 }, { 76, 0 },     { 77, 0 },       { 174, 100 },   { 78, 0 },
	                              { 186, 100 },  { 79, 136 },   { 61, 40964 },   { 62, 40960 },  { 67, 20480 },
	                              { 68, 20480 }, { 1280, 1280 }, { 1282, 1282 }, { 1284, 1284 }, { 1286, 300 },
	                              { 1290, 200 } };

static void fill(struct pmu_counts *c, const unsigned (*kv)[2], size_t n)
{
	pmu_counts_init(c);
	for (size_t i = 0; i < n; i++)
		pmu_counts_set(c, kv[i][0], kv[i][1]);
}

typedef int draw_fn(struct wr *w, const void *arg);

static int draw_roof(struct wr *w, const void *arg)
{
	return plot_roofline(w, arg);
}

static int draw_heat(struct wr *w, const void *arg)
{
	return plot_heatmap(w, arg);
}

static void write_file(const char *dir, const char *name, draw_fn *draw, const void *arg)
{
	char path[4096];
	struct wr *w;
	int err;
	if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, name) >= sizeof path)
		cli_die(EXIT_USAGE, "%s: directory name too long", dir);
	if (!(w = wr_open(path, 0)))
		cli_die(EXIT_IO, "%s: %s", path, strerror(errno));
	draw(w, arg);
	if ((err = wr_close(w)))
		cli_die(EXIT_IO, "%s: %s", path, strerror(err));
}

int main(int argc, char **argv)
{
	static struct roofline r;
	struct pmu_counts cube, vec;
	/* blocks and sub-cores against the pipes (percent of cycles busy) */
	static const char *const rows[] = { "0 cube0", "0 vector0", "0 vector1", "1 cube0", "1 vector0", "1 vector1" };
	static const char *const cols[] = { "MTE1", "MTE2", "MTE3", "FIXP", "Scalar", "a<b&\"c\"" };
	static double busy[6 * 6];
	static const char *set_rows[16], *set_cols[32];
	static char set_row_text[16][16], set_col_text[32][8];
	static double hits[16 * 32];
	struct plot_table heat = { "Pipe utilisation per sub-core", "%", 6, 6, rows, cols, busy };
	struct plot_table l2 = { "L2 hits per cache set", "hits", 16, 32, set_rows, set_cols, hits };

	cli_init("svg-demo");
	if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc == 2 ? stdout : stderr, "usage: svg-demo DIR\n");
		return argc == 2 ? EXIT_OK : EXIT_USAGE;
	}
	fill(&cube, cube_kv, sizeof cube_kv / sizeof cube_kv[0]);
	fill(&vec, vec_kv, sizeof vec_kv / sizeof vec_kv[0]);
	roof_init(&r, BOARD_A2, "Ascend910B4", 0, 1650, 20, 120);
	roof_add(&r, BOARD_CUBE, &cube);
	roof_add(&r, BOARD_VECTOR, &vec);
	roof_add(&r, BOARD_VECTOR, &vec);
	roof_build(&r, 1, 1);

	for (unsigned i = 0; i < 36; i++)
		busy[i] = (i * 37 % 101) * 0.97;
	busy[7] = NAN; /* a sub-core without that pipe */
	for (unsigned i = 0; i < 16; i++) {
		snprintf(set_row_text[i], sizeof set_row_text[i], "set %u", i * 32);
		set_rows[i] = set_row_text[i];
	}
	for (unsigned i = 0; i < 32; i++) {
		snprintf(set_col_text[i], sizeof set_col_text[i], "+%u", i);
		set_cols[i] = set_col_text[i];
	}
	for (unsigned i = 0; i < 16 * 32; i++)
		hits[i] = (double)(i * 7919 % 1000);

	write_file(argv[1], "roofline.svg", draw_roof, &r);
	write_file(argv[1], "heatmap.svg", draw_heat, &heat);
	write_file(argv[1], "l2.svg", draw_heat, &l2);
	return EXIT_OK;
}
