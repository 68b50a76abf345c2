/* Unit tests of the loss accounting (lib/loss.c): counting and examples,
 * file names from source records, the stderr report at each verbosity, the
 * diag records and the trailer sums.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0 only
 * when nothing failed.  Captures stderr and records in temporary files. */
#include "cli.h"
#include "io.h"
#include "loss.h"
#include "rec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unit.h"

enum { K_PARSE, K_QUIET, K_LATE, NK };
static const struct loss_kind kinds[NK] = {
	{ "lines not parsed", 1, 1 },
	{ "lines merged", 0, 0 },
	{ "lines late", 1, 0 },
};

static char *slurp(FILE *f)
{
	long n;
	char *s;
	fflush(f);
	n = ftell(f);
	s = calloc(1, (size_t)n + 1);
	if (!s)
		return NULL;
	rewind(f);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = 0;
	return s;
}

/* loss_report's stderr at a verbosity. */
static char *report_at(struct losses *ls, int verbosity)
{
	FILE *f = tmpfile();
	int saved = dup(2);
	char *s;
	if (!f || saved < 0)
		return NULL;
	fflush(stderr);
	dup2(fileno(f), 2);
	cli_verbosity = verbosity;
	loss_report(ls);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	fseek(f, 0, SEEK_END);
	s = slurp(f);
	fclose(f);
	return s;
}

static void source(struct losses *ls, uint64_t id, const char *path)
{
	struct rec r;
	rec_init(&r, K_SOURCE);
	r.n[F_FILE].u = id;
	rec_text_set(&r, FS_PATH, path, strlen(path));
	loss_source(ls, &r);
}

static void test_counts_and_names(void)
{
	struct losses ls;
	uint64_t bad, dropped, problems;
	int i;

	loss_init(&ls, "t", kinds, NK);
	loss_totals(&ls, &bad, &dropped, &problems);
	CHECK(bad == 0 && dropped == 0 && problems == 0);
	for (i = 0; i < 7; i++)
		loss_add(&ls, K_PARSE, 2, (uint64_t)i + 1, "x");
	loss_add(&ls, K_QUIET, 0, 0, NULL);
	loss_add(&ls, K_LATE, 1, 9, "a what longer than the sixty-three bytes an example keeps, cut short");
	CHECK(ls.count[K_PARSE] == 7 && ls.count[K_QUIET] == 1 && ls.count[K_LATE] == 1);
	CHECK(ls.example[K_PARSE][4].line == 5);
	CHECK(ls.example[K_QUIET][0].what[0] == 0);
	CHECK(strlen(ls.example[K_LATE][0].what) == 63);
	loss_totals(&ls, &bad, &dropped, &problems);
	CHECK(bad == 7 && dropped == 2 && problems == 8);

	CHECK(!strcmp(loss_file_name(&ls, 2), "(file 2)"));
	source(&ls, 2, "dump/a.dump");
	source(&ls, 2, "dump/b.dump");        /* a later source record wins */
	source(&ls, 1u << 20, "ignored");
	CHECK(!strcmp(loss_file_name(&ls, 2), "dump/b.dump"));
	CHECK(!strcmp(loss_file_name(&ls, 0), "(file 0)"));
	CHECK(!strcmp(loss_file_name(&ls, 1u << 20), "(file 1048576)"));
	CHECK(ls.npath == 3);
	loss_free(&ls);
	CHECK(ls.npath == 0 && !ls.path);
}

static void test_report(void)
{
	struct losses ls;
	char *s;
	int i;

	cli_prog = "t";
	loss_init(&ls, "t", kinds, NK);
	source(&ls, 2, "f.dump");
	for (i = 0; i < 6; i++)
		loss_add(&ls, K_PARSE, 2, (uint64_t)i + 1, "bad");
	loss_add(&ls, K_QUIET, 0, 0, "unplaced");
	loss_add(&ls, K_QUIET, 2, 0, "no line");

	s = report_at(&ls, 1);
	CHECK(s && !strcmp(s, "t: 6 lines not parsed\nt: f.dump:1: bad\nt: f.dump:2: bad\nt: f.dump:3: bad\n"
	                      "t: 2 lines merged\n"));
	free(s);
	s = report_at(&ls, 0);      /* -q: problems only */
	CHECK(s && !strcmp(s, "t: 6 lines not parsed\nt: f.dump:1: bad\nt: f.dump:2: bad\nt: f.dump:3: bad\n"));
	free(s);
	s = report_at(&ls, 2);      /* -v: all five kept examples */
	CHECK(s && strstr(s, "t: f.dump:5: bad\nt: 2 lines merged\n") && !strstr(s, ":6: bad"));
	free(s);

	/* by_file: examples with a file but no line are shown, LOSS_NOFILE not. */
	ls.by_file = 1;
	loss_add(&ls, K_LATE, LOSS_NOFILE, 0, "nowhere");
	s = report_at(&ls, 1);
	CHECK(s && strstr(s, "t: 2 lines merged\nt: (file 0): unplaced\nt: f.dump: no line\nt: 1 lines late\n") &&
	      !strstr(s, "nowhere"));
	free(s);
	cli_verbosity = 1;
	loss_free(&ls);
}

static void test_diag(void)
{
	struct losses ls;
	struct rec_out o = { 0 };
	char path[] = "/tmp/test_loss.XXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	char *s;

	CHECK(fd >= 0);
	if (fd < 0)
		return;
	close(fd);
	loss_init(&ls, "tool-x", kinds, NK);
	source(&ls, 3, "g.dump");
	loss_add(&ls, K_QUIET, 3, 4, "merged");
	loss_add(&ls, K_LATE, 3, 0, "no line");
	o.w = wr_open(path, 0);
	o.mode = REC_JSON;
	o.producer = "test";
	CHECK(o.w != NULL);
	if (!o.w)
		return;
	loss_diag(&ls, &o);
	CHECK(wr_close(o.w) == 0);
	f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		fseek(f, 0, SEEK_END);
		s = slurp(f);
		fclose(f);
		/* One record per kind with a count, in kind order: level 2
		 * for a kind that is not a problem, 1 for one; an example
		 * without a line gives no file (by_file is off). */
		CHECK(s && !strcmp(s, "{\"kind\":\"diag\",\"level\":2,\"count\":1,\"line\":4,\"tool\":\"tool-x\","
		                      "\"file\":\"g.dump\",\"message\":\"lines merged\"}\n"
		                      "{\"kind\":\"diag\",\"level\":1,\"count\":1,\"line\":0,\"tool\":\"tool-x\","
		                      "\"file\":\"\",\"message\":\"lines late\"}\n"));
		free(s);
	}
	unlink(path);
	loss_free(&ls);
}

int main(void)
{
	test_counts_and_names();
	test_report();
	test_diag();
	return unit_done();
}
