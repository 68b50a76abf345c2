/* Unit tests of the record filters' skeleton (lib/filter.c): the upstream
 * header and trailer, the bad-record warnings, opening inputs, and the
 * guarded output with the exit status it ends in.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0 only
 * when nothing failed.  Works in a temporary directory. */
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "loss.h"
#include "rec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int passed, failed;

#define CHECK(c) check((c), #c, __LINE__)
static void check(int ok, const char *what, int line)
{
	if (ok) {
		passed++;
	} else {
		failed++;
		printf("test_filter.c:%d: failed: %s\n", line, what);
	}
}

static char dir[] = "/tmp/test_filter.XXXXXX";

static char *path_of(const char *name)
{
	static char buf[256];
	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static void put_file(const char *name, const char *text)
{
	FILE *f = fopen(path_of(name), "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static char *slurp(const char *name)
{
	FILE *f = fopen(path_of(name), "r");
	char *s = calloc(1, 4096);
	if (f && s && fread(s, 1, 4095, f) == 0)
		s[0] = 0;
	if (f)
		fclose(f);
	return s;
}

static void header(struct rec *r, const char *soc, const char *origin, unsigned mhz)
{
	rec_init(r, K_HEADER);
	r->n[H_MHZ].u = mhz;
	rec_text_set(r, HS_SOC, soc, strlen(soc));
	rec_text_set(r, HS_ORIGIN, origin, strlen(origin));
}

static void trailer(struct rec *r, uint64_t bad, uint64_t dropped, int interrupted)
{
	rec_init(r, K_TRAILER);
	r->n[T_BAD].u = bad;
	r->n[T_DROPPED].u = dropped;
	r->n[T_INTERRUPTED].u = (uint64_t)interrupted;
}

static void test_upstream(void)
{
	struct upstream u = { 0 };
	struct rec r;

	header(&r, "Ascend910B1", "a.log", 1800);
	CHECK(upstream_record(&u, DEC_OK, &r) == 1);
	CHECK(u.got_header && !strcmp(u.soc, "Ascend910B1") && !strcmp(u.origin, "a.log"));
	CHECK(u.mhz == 1800);
	header(&r, "Ascend310P1", "b.log", 1000);
	CHECK(upstream_record(&u, DEC_OK, &r) == 1);
	CHECK(!strcmp(u.soc, "Ascend910B1") && u.mhz == 1800);      /* the first one is kept */
	CHECK(upstream_record(&u, DEC_UNKNOWN, &r) == 0);           /* an unknown kind is no header */

	trailer(&r, 2, 3, 0);
	CHECK(upstream_record(&u, DEC_OK, &r) == 0);
	upstream_trailer(&u, &r);
	CHECK(u.trailer && u.bad == 2 && u.dropped == 3 && !u.interrupted);
	trailer(&r, 1, 1, 1);
	upstream_trailer(&u, &r);
	CHECK(u.bad == 3 && u.dropped == 4 && u.interrupted);
	/* A record after the trailer: the stream went on (concatenated). */
	rec_init(&r, K_SOURCE);
	CHECK(upstream_record(&u, DEC_OK, &r) == 0);
	CHECK(!u.trailer);
	upstream_free(&u);
	CHECK(!u.soc && !u.origin);
	upstream_free(&u);
}

static void test_inputs(void)
{
	struct losses ls;
	static const struct loss_kind kinds[1] = { { "bad records", 1, 1 } };
	char *argv[] = { "tool", "-q", NULL, NULL, NULL };
	struct rd **in;
	size_t len;
	int nin = 0, saved, i;
	FILE *err;
	char *s;

	put_file("one", "x\ny\n");
	put_file("two", "z\n");
	argv[2] = strdup(path_of("one"));
	argv[3] = strdup(path_of("two"));
	in = filter_open_inputs(4, argv, 2, &nin);
	CHECK(nin == 2);
	CHECK(rd_line(in[0], &len) && len == 1);
	CHECK(!filter_read_error(in[0]));

	/* The first three bad records are shown, all are counted. */
	loss_init(&ls, "tool", kinds, 1);
	err = fopen(path_of("stderr"), "w");
	fflush(stderr);
	saved = dup(2);
	if (err)
		dup2(fileno(err), 2);
	for (i = 0; i < 5; i++)
		filter_bad_record(&ls, 0, LOSS_NOFILE, in[0], "why");
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	if (err)
		fclose(err);
	CHECK(ls.count[0] == 5);
	CHECK(ls.example[0][0].file == LOSS_NOFILE && ls.example[0][0].line == 0);
	s = slurp("stderr");
	CHECK(s && strstr(s, "one:1: bad record: why\n"));
	{
		int n = 0;
		const char *p = s;
		while (p && (p = strstr(p, "bad record: why")))
			n++, p++;
		CHECK(n == 3);
	}
	free(s);
	loss_free(&ls);
	filter_close_inputs(in, nin);

	/* No operands: standard input. */
	in = filter_open_inputs(2, argv, 2, &nin);
	CHECK(nin == 1 && in[0] != NULL);
	filter_close_inputs(in, nin);
	free(argv[2]);
	free(argv[3]);
}

static void test_output(void)
{
	struct upstream u = { 0 };
	struct losses ls;
	static const struct loss_kind kinds[2] = { { "bad records", 1, 1 }, { "merged", 0, 0 } };
	struct rec_out o = { 0 };
	struct rec r;
	char *s, *p;

	trailer(&r, 2, 3, 0);
	upstream_trailer(&u, &r);
	loss_init(&ls, "tool", kinds, 2);
	loss_add(&ls, 0, LOSS_NOFILE, 0, "x");
	loss_add(&ls, 1, LOSS_NOFILE, 0, "y");

	p = strdup(path_of("out.json"));
	filter_open_output(&o, "tool", p, 1, 0, 0, 0);
	CHECK(o.mode == REC_JSON);
	CHECK(access(p, F_OK) != 0);        /* named outputs appear on close */
	rec_out_header(&o, "Ascend910B1", 1800, "in");
	upstream_put_trailer(&u, &ls, &o, 1, 1);
	CHECK(filter_close_output(&o, p, 0, 0, &u) == EXIT_OK);
	s = slurp("out.json");
	CHECK(s && strstr(s, "\"tool\""));
	CHECK(s && strstr(s, "\"bad\":3") && strstr(s, "\"dropped\":4"));
	free(s);

	/* Problems, or no upstream trailer, make it partial. */
	filter_open_output(&o, "tool", p, 1, 0, 0, 0);
	CHECK(filter_close_output(&o, p, 0, 1, &u) == EXIT_PARTIAL);
	u.trailer = 0;
	filter_open_output(&o, "tool", p, 1, 0, 0, 0);
	CHECK(filter_close_output(&o, p, 0, 0, &u) == EXIT_PARTIAL);

	/* A read failure leaves what -o named as it was. */
	unlink(p);
	filter_open_output(&o, "tool", p, 1, 0, 0, 0);
	rec_out_header(&o, "Ascend910B1", 1800, "in");
	CHECK(filter_close_output(&o, p, 1, 0, &u) == EXIT_IO);
	CHECK(access(p, F_OK) != 0);

	/* lz4 forces binary over text. */
	filter_open_output(&o, "tool", p, 0, 1, 0, 1);
	CHECK(o.mode == REC_BIN);
	CHECK(filter_close_output(&o, p, 0, 0, &u) == EXIT_PARTIAL);
	unlink(p);
	free(p);
	loss_free(&ls);
	upstream_free(&u);
}

/* A sink over an input the tool opened and looked into: every record from
 * the first, and the input left open. */
static int sink_records, sink_finished;
static int sink_record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)f;
	(void)line;
	(void)len;
	if (k == DEC_OK && r->sc->kind == K_MARK)
		sink_records++;
	return 1;
}
static int sink_finish(struct filter *f)
{
	(void)f;
	sink_finished = 1;
	return 1;
}

static void test_sink_input(void)
{
	struct losses ls;
	static const struct loss_kind kinds[1] = { { "bad records", 1, 1 } };
	struct filter f = { 0 };
	struct rd *in;
	size_t n, len;

	put_file("recs", "{\"kind\":\"header\",\"version\":2,\"producer\":\"t\",\"soc\":\"Ascend910B1\",\"mhz\":1000,\"origin\":\"\"}\n"
	                 "{\"kind\":\"mark\",\"core\":0,\"mark\":1,\"start\":1,\"end\":2,\"name\":\"Mark 0x1\"}\n"
	                 "{\"kind\":\"mark\",\"core\":0,\"mark\":2,\"start\":3,\"end\":4,\"name\":\"Mark 0x2\"}\n"
	                 "{\"kind\":\"trailer\",\"records\":2,\"bad\":0,\"dropped\":0,\"interrupted\":0,\"producer\":\"t\"}\n");
	in = rd_open(path_of("recs"));
	CHECK(in && rd_peek(in, 8, &n) && n >= 8);
	loss_init(&ls, "tool", kinds, 1);
	f.tool = "tool";
	f.ls = &ls;
	f.opened = in;
	f.sink = 1;
	f.record = sink_record;
	f.finish = sink_finish;
	CHECK(filter_run(&f, 0, NULL, 0) == EXIT_OK);
	CHECK(sink_records == 2 && sink_finished);
	CHECK(f.up.got_header && f.up.mhz == 1000);
	CHECK(rd_line(in, &len) == NULL && !rd_error(in));   /* still open, at its end */
	rd_close(in);
	loss_free(&ls);
	unlink(path_of("recs"));
}

int main(void)
{
	cli_init("tool");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_upstream();
	test_inputs();
	test_output();
	test_sink_input();
	unlink(path_of("one"));
	unlink(path_of("two"));
	unlink(path_of("stderr"));
	rmdir(dir);
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
