/* prof-diff: compare two profiles of a kernel, before and after a change
 * (see prof-diff(1)): simulator OPPROF trees or record streams, or
 * on-board launches; a table, JSON, a picture, and a gate for CI. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "io.h"
#include "mem.h"
#include "out.h"
#include "pd.h"
#include "stage.h"

/* The status of a failed gate: B slower than a threshold allows (see
 * prof-diff(1), EXIT STATUS). */
#define EXIT_SLOWER 5

struct threshold {
	char *name;           /* NULL for --fail-if-slower */
	double pct;
	int kind;             /* 's' slower, 'p' pipe, 'm' metric */
	int matched;
};

static struct threshold *gates;
static size_t ngates;

static double pct_arg(const char *opt, const char *s)
{
	char *e;
	double v;
	errno = 0;
	v = strtod(s, &e);
	if (!*s || *e || errno || !isfinite(v) || v < 0)
		cli_die(EXIT_USAGE, "option %s: '%s' is not a percentage (a number >= 0)", opt, s);
	return v;
}

static void add_gate(int kind, const char *opt, const char *arg)
{
	struct threshold t = { NULL, 0, kind, 0 };
	if (kind == 's')
		t.pct = pct_arg(opt, arg);
	else {
		const char *colon = strrchr(arg, ':');
		if (!colon || colon == arg)
			cli_die(EXIT_USAGE, "option %s: '%s' is not NAME:PCT", opt, arg);
		t.name = xstrndup(arg, (size_t)(colon - arg));
		t.pct = pct_arg(opt, colon + 1);
	}
	gates = xreallocarray(gates, ngates + 1, sizeof *gates);
	gates[ngates++] = t;
}

static int grew(double a, double b, double pct)
{
	return b > a * (1 + pct / 100) && b > a;
}

static void fail(struct pd_gate *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct pd_gate *g, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	g->reason = xreallocarray(g->reason, g->nreason + 1, sizeof *g->reason);
	g->reason[g->nreason++] = xstrdup(buf);
	g->failed = 1;
}

static double pct_of(double a, double b)
{
	return a ? 100.0 * (b - a) / a : 100.0;
}

/* A board column that is the time of a pipe: aic_<p>_time(us),
 * aiv_<p>_time(us), the pipe by its name in any case (VECTOR is vec). */
static int pipe_column(const char *col, const char *pipe)
{
	char want[80], alt[96];
	size_t i, n = strlen(pipe);
	if (n > 60)
		return 0;
	for (i = 0; i <= n; i++)
		want[i] = (char)(pipe[i] >= 'A' && pipe[i] <= 'Z' ? pipe[i] - 'A' + 'a' : pipe[i]);
	snprintf(alt, sizeof alt, "_%s_time(us)", !strcmp(want, "vector") ? "vec" : want);
	return strlen(col) > 4 && !strcmp(col + 3, alt);
}

struct board_gate {
	struct threshold *t;
	struct pd_gate *g;
};

static void board_check(void *arg, const struct pd_group *g, size_t col, const char *key, const char *ta,
                        const char *tb, const double *va, const double *vb)
{
	struct board_gate *bg = arg;
	struct threshold *t = bg->t;
	int hit = t->kind == 'p' ? pipe_column(g->col[col], t->name) : !strcmp(g->col[col], t->name);
	(void)ta, (void)tb;
	if (!hit)
		return;
	t->matched = 1;
	if (va && vb && grew(*va, *vb, t->pct))
		fail(bg->g, "%s %s (%s): %g -> %g, %+.2f%% (more than %g%%)", g->name, g->col[col], key, *va, *vb,
		     pct_of(*va, *vb), t->pct);
}

static void gate_board(const struct pd_diff *d, struct pd_gate *g)
{
	size_t i;
	for (i = 0; i < ngates; i++) {
		struct threshold *t = &gates[i];
		if (t->kind == 's') {
			double a = pd_board_duration(d->a), b = pd_board_duration(d->b);
			t->matched = 1;
			if (a < 0 || b < 0)
				fail(g, "task duration: not known on both sides, so not shown to be no slower");
			else if (grew(a, b, t->pct))
				fail(g, "task duration: %g us -> %g us, %+.2f%% (more than %g%%)", a, b, pct_of(a, b), t->pct);
		} else {
			struct board_gate bg = { t, g };
			pd_board_each(d, board_check, &bg);
		}
	}
}

static uint64_t core_cycles(const struct pd_core *c)
{
	uint64_t s = 0;
	size_t i;
	for (i = 0; i < c->npipe; i++)
		s += c->pipe[i].cycles;
	return s;
}

static void gate_sim(const struct pd_diff *d, struct pd_gate *g)
{
	size_t i, k, p;
	for (i = 0; i < ngates; i++) {
		struct threshold *t = &gates[i];
		if (t->kind == 's') {
			t->matched = 1;
			if (d->timed) {
				if (grew((double)d->span_a, (double)d->span_b, t->pct))
					fail(g, "kernel: %.6f us -> %.6f us, %+.2f%% (more than %g%%)", (double)d->span_a / 1e6,
					     (double)d->span_b / 1e6, pct_of((double)d->span_a, (double)d->span_b), t->pct);
				continue;
			}
			/* without times: the cycles of the cores */
			for (k = 0; k < d->ncore; k++) {
				double a = (double)core_cycles(d->core[k].a), b = (double)core_cycles(d->core[k].b);
				if (grew(a, b, t->pct))
					fail(g, "%s: %.0f -> %.0f instruction cycles, %+.2f%% (more than %g%%)", d->core[k].a->name,
					     a, b, pct_of(a, b), t->pct);
			}
			continue;
		}
		for (k = 0; k < d->ncore; k++) {
			const struct pd_core_diff *cd = &d->core[k];
			int timed = cd->a->timed && cd->b->timed;
			if (t->kind == 'm') {
				double a, b;
				if (!strcmp(t->name, "duration") && timed) {
					a = (double)(cd->a->end - cd->a->start);
					b = (double)(cd->b->end - cd->b->start);
				} else if (!strcmp(t->name, "running") && timed) {
					a = (double)ival_total(&cd->a->run);
					b = (double)ival_total(&cd->b->run);
				} else if (!strcmp(t->name, "cycles")) {
					t->matched = 1;
					a = (double)core_cycles(cd->a);
					b = (double)core_cycles(cd->b);
					if (grew(a, b, t->pct))
						fail(g, "%s cycles: %.0f -> %.0f, %+.2f%% (more than %g%%)", cd->a->name, a, b,
						     pct_of(a, b), t->pct);
					continue;
				} else
					continue;
				t->matched = 1;
				if (grew(a, b, t->pct))
					fail(g, "%s %s: %.6f us -> %.6f us, %+.2f%% (more than %g%%)", cd->a->name, t->name, a / 1e6,
					     b / 1e6, pct_of(a, b), t->pct);
				continue;
			}
			for (p = 0; p < cd->npipe; p++) {
				const struct pd_pipe_row *r = &cd->pipe[p];
				double a, b;
				if (strcasecmp(r->name, t->name))
					continue;
				t->matched = 1;
				if (timed) {
					a = r->a ? (double)ival_total(&r->a->busy) : 0;
					b = r->b ? (double)ival_total(&r->b->busy) : 0;
					if (grew(a, b, t->pct))
						fail(g, "%s %s busy: %.6f us -> %.6f us, %+.2f%% (more than %g%%)", cd->a->name, r->name,
						     a / 1e6, b / 1e6, pct_of(a, b), t->pct);
				} else {
					a = r->a ? (double)r->a->cycles : 0;
					b = r->b ? (double)r->b->cycles : 0;
					if (grew(a, b, t->pct))
						fail(g, "%s %s: %.0f -> %.0f cycles, %+.2f%% (more than %g%%)", cd->a->name, r->name, a,
						     b, pct_of(a, b), t->pct);
				}
			}
		}
	}
}

/* ---- writing ---- */

static void put_file(const char *path, const char *shown, int (*fn)(const struct pd_diff *, const void *, struct wr *),
                     const struct pd_diff *d, const void *arg)
{
	struct wr *w = wr_open(path, 0);
	int e;
	if (!w)
		cli_die(EXIT_IO, "%s: cannot create:", shown);
	e = fn(d, arg, w);
	if (e) {
		wr_abort(w);
		errno = e;
		cli_die(EXIT_IO, "%s: cannot write:", shown);
	}
	if ((e = wr_close(w))) {
		errno = e;
		cli_die(EXIT_IO, "%s: cannot write:", shown);
	}
}

static size_t top = 10;

static int svg_fn(const struct pd_diff *d, const void *arg, struct wr *w)
{
	(void)arg;
	return pd_svg(d, top, w);
}

static int json_fn(const struct pd_diff *d, const void *arg, struct wr *w)
{
	return pd_json(d, arg, w);
}

static const char help[] =
	"usage: prof-diff [OPTION]... BEFORE AFTER\n"
	"Compare two profiles of a kernel: OPPROF trees (simulator or on-board) or\n"
	"record streams, before and after a change.\n"
	"  -o DIR                 write DIR/diff.svg and DIR/diff.json (all or none)\n"
	"  --svg FILE             write the picture to FILE\n"
	"  --json                 the comparison as JSON on standard output, not the table\n"
	"  --top=N                rows per table and lines in the picture (default 10)\n"
	"  --fail-if-slower=PCT   exit 5 when AFTER's duration is more than PCT% over BEFORE's\n"
	"  --fail-if-pipe=PIPE:PCT   exit 5 when a pipe's busy time grows more than PCT%\n"
	"  --fail-if-metric=NAME:PCT exit 5 when a metric grows more than PCT% (on-board:\n"
	"                         a CSV column; simulator: duration, running, cycles)\n"
	"  -q, -v                 no table / every on-board metric, changed or not\n"
	"  -h, --help, --version\n"
	"Exit status: 0 no gate failed, 1 input problems (the comparison is still made),\n"
	"2 usage, 3 unusable input, 4 I/O error, 5 a gate failed.\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "svg", required_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'J' },
		{ "top", required_argument, NULL, 'T' },
		{ "fail-if-slower", required_argument, NULL, 's' },
		{ "fail-if-pipe", required_argument, NULL, 'p' },
		{ "fail-if-metric", required_argument, NULL, 'm' },
		CLI_LONGOPTS_END
	};
	const char *out_dir = NULL, *svg_path = NULL;
	int json = 0, c, status = EXIT_OK;
	struct prof a, b;
	struct pd_diff d;
	struct pd_gate g = { 0 };
	size_t i;

	cli_init("prof-diff");
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(help, stdout);
			return EXIT_OK;
		case 'V':
			cli_version();
		case 'o':
			out_dir = optarg;
			break;
		case 'S':
			svg_path = optarg;
			break;
		case 'J':
			json = 1;
			break;
		case 'T':
			top = (size_t)cli_num("--top", optarg);
			break;
		case 's':
			add_gate('s', "--fail-if-slower", optarg);
			break;
		case 'p':
			add_gate('p', "--fail-if-pipe", optarg);
			break;
		case 'm':
			add_gate('m', "--fail-if-metric", optarg);
			break;
		case 'q':
			cli_verbosity = 0;
			break;
		case 'v':
			cli_verbosity = 2;
			break;
		default:
			fputs(help, stderr);
			return EXIT_USAGE;
		}
	}
	if (argc - optind != 2) {
		cli_warn("two profiles are compared: BEFORE and AFTER (%d given)", argc - optind);
		fputs(help, stderr);
		return EXIT_USAGE;
	}
	if (out_dir && (!*out_dir || !strcmp(out_dir, "-")))
		cli_die(EXIT_USAGE, "-o DIR: a directory (the picture and the JSON go into it)");

	pd_load(&a, argv[optind]);
	pd_load(&b, argv[optind + 1]);
	if (a.kind != b.kind)
		cli_die(EXIT_UNUSABLE, "%s is %s profile and %s %s one: nothing to compare", argv[optind],
		        a.kind == PD_SIM ? "a simulator" : "an on-board", argv[optind + 1],
		        b.kind == PD_SIM ? "a simulator" : "an on-board");
	pd_diff_build(&d, &a, &b);
	if (a.kind == PD_SIM && !d.ncore)
		cli_warn("%s and %s have no core in common: only the kernels' durations are compared", argv[optind],
		         argv[optind + 1]);

	if (a.kind == PD_BOARD)
		gate_board(&d, &g);
	else
		gate_sim(&d, &g);
	for (i = 0; i < ngates; i++)
		if (!gates[i].matched)
			cli_die(EXIT_USAGE, "option --fail-if-%s=%s: no such %s in both profiles",
			        gates[i].kind == 'p' ? "pipe" : "metric", gates[i].name,
			        gates[i].kind == 'p' ? "pipe" : "metric");

	if (out_dir) {
		char *failed = NULL, *p, *shown;
		int e;
		if (stage_begin(out_dir, "prof-diff") < 0)
			cli_die(EXIT_IO, errno == ENOTDIR ? "%s: not a directory" : "%s: cannot create:", out_dir);
		/* a message names the file under DIR, where the user looks */
		p = xpath(stage_dir(), "diff.svg");
		shown = xpath(out_dir, "diff.svg");
		put_file(p, shown, svg_fn, &d, NULL);
		free(p);
		free(shown);
		p = xpath(stage_dir(), "diff.json");
		shown = xpath(out_dir, "diff.json");
		put_file(p, shown, json_fn, &d, &g);
		free(p);
		free(shown);
		if ((e = stage_commit(&failed))) {
			errno = e;
			cli_die(EXIT_IO, "%s: cannot move the outputs into place:", failed);
		}
	}
	if (svg_path)
		put_file(svg_path, svg_path, svg_fn, &d, NULL);
	if (json) {
		struct wr *w = wr_fdopen(1, "standard output", 0);
		int e = pd_json(&d, &g, w);
		int e2 = wr_close(w);
		if ((e || e2) && (e ? e : e2) != EPIPE) {
			errno = e ? e : e2;
			cli_die(EXIT_IO, "standard output: cannot write:");
		}
	} else if (cli_verbosity >= 1) {
		struct pd_text t = { stdout, top, cli_verbosity >= 2, 0, NULL, 0, 0 };
		pd_text(&d, &t);
		for (i = 0; i < g.nreason; i++)
			printf("%sslower: %s\n", i ? "" : "\n", g.reason[i]);
		if (fflush(stdout) == EOF && errno != EPIPE)
			cli_die(EXIT_IO, "standard output: cannot write:");
	}
	if (a.problems || b.problems) {
		cli_warn("%llu input problem(s) found (see above); the comparison is of what could be read",
		         (unsigned long long)(a.problems + b.problems));
		status = EXIT_PARTIAL;
	}
	if (g.failed) {
		for (i = 0; i < g.nreason && (json || cli_verbosity < 1); i++)
			cli_warn("slower: %s", g.reason[i]);
		status = EXIT_SLOWER;
	}
	pd_diff_free(&d);
	pd_free(&a);
	pd_free(&b);
	for (i = 0; i < g.nreason; i++)
		free(g.reason[i]);
	free(g.reason);
	for (i = 0; i < ngates; i++)
		free(gates[i].name);
	free(gates);
	return status;
}
