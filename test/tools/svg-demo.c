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

/* A mix op on 910B4: one cube block and two vector blocks, its counts
 * summed block by block. */
static const unsigned cube_kv[][2] = { { 73, 98400 }, { 74, 500 }, { 49, 31558 }, { 50, 30932 }, { 518, 0 },
	                               { 33, 9999 }, { 28, 20000 }, { 34, 15000 }, { 524, 900 }, { 19, 400 },
	                               { 1292, 3000 } };
static const unsigned vec_kv[][2] = { { 75, 10240 }, { 76, 0 },     { 77, 0 },       { 174, 100 },   { 78, 0 },
	                              { 186, 100 },  { 79, 136 },   { 61, 40964 },   { 62, 40960 },  { 67, 20480 },
	                              { 68, 20480 }, { 1280, 1280 }, { 1282, 1282 }, { 1284, 1284 }, { 1286, 300 },
	                              { 1290, 200 } };

static const struct {
	enum board_core core;
	const unsigned (*kv)[2];
	size_t n;
} blocks[] = {
	{ BOARD_CUBE, cube_kv, sizeof cube_kv / sizeof cube_kv[0] },
	{ BOARD_VECTOR, vec_kv, sizeof vec_kv / sizeof vec_kv[0] },
	{ BOARD_VECTOR, vec_kv, sizeof vec_kv / sizeof vec_kv[0] },
};

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
	struct pmu_counts ev;
	/* blocks and sub-cores against the pipes (percent of cycles busy) */
	static const char *const rows[] = { "0 cube0", "0 vector0", "0 vector1", "1 cube0", "1 vector0", "1 vector1" };
	static const char *const cols[] = { "MTE1", "MTE2", "MTE3", "FIXP", "Scalar", "a<b&\"c\"" };
	static double busy[6 * 6];
	static double hits[16 * 32];
	struct plot_sets l2;
	struct plot_table heat = { "Pipe utilisation per sub-core", "%", 6, 6, rows, cols, busy, 0 };

	cli_init("svg-demo");
	if (argc != 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fprintf(argc == 2 ? stdout : stderr, "usage: svg-demo DIR\n");
		return argc == 2 ? EXIT_OK : EXIT_USAGE;
	}
	roof_init(&r, BOARD_A2, "Ascend910B4", 0, 1650, 20, 120);
	for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
		pmu_counts_init(&ev);
		for (size_t i = 0; i < blocks[b].n; i++)
			pmu_counts_set(&ev, blocks[b].kv[i][0], blocks[b].kv[i][1]);
		roof_add(&r, blocks[b].core, &ev);
	}
	roof_build(&r, 1, 1);

	for (unsigned i = 0; i < 36; i++)
		busy[i] = (i * 37 % 101) * 0.97;
	busy[7] = NAN; /* a sub-core without that pipe */
	for (unsigned i = 0; i < 16 * 32; i++)
		hits[i] = (double)(i * 7919 % 1000);
	plot_sets_init(&l2, "L2 hits per cache set", "hits", hits, 16 * 32, 32);

	write_file(argv[1], "roofline.svg", draw_roof, &r);
	write_file(argv[1], "heatmap.svg", draw_heat, &heat);
	write_file(argv[1], "l2.svg", draw_heat, &l2.t);
	plot_sets_free(&l2);
	return EXIT_OK;
}
