/* Unit tests of the record filters' skeleton (lib/filter.c): the upstream
 * header and trailer, the bad-record warnings, opening inputs, the guarded
 * output with the exit status it ends in, the whole run of a sink, of a
 * verbatim filter and of one with block hooks, and the exit-time cleanup list (lib/cli.c) the outputs
 * rely on.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0 only
 * when nothing failed.  Works in a temporary directory. */
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "loss.h"
#include "rec.h"

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

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

/* Send stderr to the file name until stderr_back. */
static int saved_stderr = -1;

static void stderr_to(const char *name)
{
	FILE *f = fopen(path_of(name), "w");
	fflush(stderr);
	saved_stderr = dup(2);
	if (f) {
		dup2(fileno(f), 2);
		fclose(f);
	}
}

static void stderr_back(void)
{
	fflush(stderr);
	dup2(saved_stderr, 2);
	close(saved_stderr);
	saved_stderr = -1;
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
	int nin = 0, i;
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
	stderr_to("stderr");
	for (i = 0; i < 5; i++)
		filter_bad_record(&ls, 0, LOSS_NOFILE, in[0], "why");
	stderr_back();
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
static int opened_records, opened_finished;
static int opened_record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)f;
	(void)line;
	(void)len;
	if (k == DEC_OK && r->sc->kind == K_MARK)
		opened_records++;
	return 1;
}
static int opened_finish(struct filter *f)
{
	(void)f;
	opened_finished = 1;
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
	f.record = opened_record;
	f.finish = opened_finish;
	CHECK(filter_run(&f, 0, NULL, 0) == EXIT_OK);
	CHECK(opened_records == 2 && opened_finished);
	CHECK(f.up.got_header && f.up.mhz == 1000);
	CHECK(rd_line(in, &len) == NULL && !rd_error(in));   /* still open, at its end */
	rd_close(in);
	loss_free(&ls);
	unlink(path_of("recs"));
}

/* ---- filter_run as a sink, and verbatim ---- */

static const char stream_whole[] =
	"{\"kind\":\"header\",\"version\":2,\"mhz\":1800,\"producer\":\"t\",\"soc\":\"Ascend910B1\",\"origin\":\"o\"}\n"
	"{\"kind\":\"instr\",\"name\":\"A\"}\n"
	"{\"kind\":\"instr\",\"name\":\"B\"}\n"
	"{\"kind\":\"instr\",\"pc\":\n"
	"{\"kind\":\"instr\",\"name\":\"C\"}\n"
	"{\"kind\":\"trailer\",\"records\":3,\"bad\":0,\"dropped\":0,\"interrupted\":0,\"producer\":\"t\"}\n";

/* stream_whole without its bad record, into buf (of its size). */
static void without_bad(char *buf)
{
	static const char bad[] = "{\"kind\":\"instr\",\"pc\":\n";
	char *p;
	strcpy(buf, stream_whole);
	p = strstr(buf, bad);
	memmove(p, p + strlen(bad), strlen(p + strlen(bad)) + 1);
}

/* What the hooks saw. */
static struct seen {
	int records, headers, trailers, finished, reported;
	int stop_after, interrupt_after;    /* 0: never */
	int finish_ok;
} seen;

static int sink_record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)line, (void)len;
	if (k == DEC_OK && r->sc->kind == K_HEADER)
		seen.headers++;
	else if (k == DEC_OK && r->sc->kind == K_TRAILER)
		seen.trailers++;
	else
		seen.records++;
	if (seen.stop_after && seen.records == seen.stop_after)
		f->stop = 1;
	if (seen.interrupt_after && seen.records == seen.interrupt_after)
		cli_interrupted = SIGINT;
	return 0;
}

static int sink_finish(struct filter *f)
{
	(void)f;
	seen.finished++;
	return seen.finish_ok;
}

static void sink_report(struct filter *f)
{
	(void)f;
	seen.reported++;
}

/* Run a sink (or, verbatim, a filter writing to out) over the file name
 * holding text; the exit status. */
static int run_filter(const char *name, const char *text, int verbatim, const char *out)
{
	static const struct loss_kind kinds[1] = { { "bad records", 1, 1 } };
	struct losses ls;
	struct filter f = { .tool = "tool", .ls = &ls, .bad_kind = 0, .bad_file = 0, .record = sink_record,
	                    .finish = sink_finish, .report = sink_report };
	char *argv[] = { "tool", NULL, NULL };
	int status, saved = cli_verbosity;

	put_file(name, text);
	argv[1] = strdup(path_of(name));
	f.sink = !verbatim;
	f.verbatim = verbatim;
	f.outpath = out;
	f.json = 1;
	loss_init(&ls, "tool", kinds, 1);
	cli_verbosity = 0;              /* no warnings of the missing trailer */
	status = filter_run(&f, 2, argv, 1);
	cli_verbosity = saved;
	loss_free(&ls);
	free(argv[1]);
	return status;
}

static void test_sink(void)
{
	int st;

	stderr_to("stderr");                /* the bad record's warning */

	/* A whole stream: the records only, the bad one counted, finish and
	 * report once; partial for the bad record. */
	memset(&seen, 0, sizeof seen);
	seen.finish_ok = 1;
	st = run_filter("whole", stream_whole, 0, NULL);
	CHECK(st == EXIT_PARTIAL);
	CHECK(seen.records == 3 && seen.headers == 0 && seen.trailers == 0);
	CHECK(seen.finished == 1 && seen.reported == 1);
	{
		/* Without the bad record: success. */
		char good[sizeof stream_whole];
		without_bad(good);
		memset(&seen, 0, sizeof seen);
		seen.finish_ok = 1;
		CHECK(run_filter("good", good, 0, NULL) == EXIT_OK);
		CHECK(seen.records == 3);

		/* No trailer upstream: partial. */
		*strstr(good, "{\"kind\":\"trailer\"") = 0;
		memset(&seen, 0, sizeof seen);
		seen.finish_ok = 1;
		CHECK(run_filter("cut", good, 0, NULL) == EXIT_PARTIAL);
		CHECK(seen.records == 3 && seen.finished == 1);
	}

	/* A sink that stops early (its own output failed): EXIT_IO, no more
	 * records read, no finish and no report. */
	memset(&seen, 0, sizeof seen);
	seen.finish_ok = 1;
	seen.stop_after = 1;
	CHECK(run_filter("whole", stream_whole, 0, NULL) == EXIT_IO);
	CHECK(seen.records == 1 && seen.finished == 0 && seen.reported == 0);

	/* A failed finish: EXIT_IO, no report. */
	memset(&seen, 0, sizeof seen);
	seen.finish_ok = 0;
	CHECK(run_filter("whole", stream_whole, 0, NULL) == EXIT_IO);
	CHECK(seen.finished == 1 && seen.reported == 0);

	/* Interrupted: EXIT_INTR, the reading ends there, finish still runs
	 * (the sink closes what it made). */
	memset(&seen, 0, sizeof seen);
	seen.finish_ok = 1;
	seen.interrupt_after = 1;
	CHECK(run_filter("whole", stream_whole, 0, NULL) == EXIT_INTR);
	CHECK(seen.records == 1 && seen.finished == 1);
	cli_interrupted = 0;
	stderr_back();
}

static void test_verbatim(void)
{
	char *out = strdup(path_of("verbatim.json")), *s;
	char good[sizeof stream_whole];

	stderr_to("stderr");
	without_bad(good);

	/* Headers and trailers go to the hook and out as they came; no
	 * header or trailer of the filter's own. */
	memset(&seen, 0, sizeof seen);
	seen.finish_ok = 1;
	CHECK(run_filter("good", good, 1, out) == EXIT_OK);
	CHECK(seen.headers == 1 && seen.trailers == 1 && seen.records == 3);
	s = slurp("verbatim.json");
	CHECK(s && strstr(s, "\"producer\":\"t\"") && !strstr(s, "\"producer\":\"tool\""));
	CHECK(s && !strstr(s, "\"kind\":\"diag\""));
	free(s);

	/* A stream without a trailer is copied as it is: no problem. */
	*strstr(good, "{\"kind\":\"trailer\"") = 0;
	memset(&seen, 0, sizeof seen);
	seen.finish_ok = 1;
	CHECK(run_filter("cut", good, 1, out) == EXIT_OK);
	s = slurp("verbatim.json");
	CHECK(s && !strstr(s, "trailer"));
	free(s);

	/* A bad record is counted (partial), not written, and no diag
	 * record or trailer says so. */
	memset(&seen, 0, sizeof seen);
	seen.finish_ok = 1;
	CHECK(run_filter("whole", stream_whole, 1, out) == EXIT_PARTIAL);
	s = slurp("verbatim.json");
	CHECK(s && !strstr(s, "\"kind\":\"diag\"") && strstr(s, "\"producer\":\"t\""));
	free(s);

	stderr_back();
	unlink(out);
	free(out);
}

/* ---- filter_run with block hooks ---- */

static struct { int instr, line, fetch, decoded; } hooked;

/* Instruction records get ccu_tick 7, line records are dropped, fetch
 * records are left to the decoder. */
static int hook_instr(struct filter *f, struct rec_block *b)
{
	struct rec_view v;
	uint64_t t = 7;
	(void)f;
	if (!rec_block_view(b, &v, rec_layout(K_INSTR), 1))
		return FILTER_DECODE;
	hooked.instr++;
	rec_block_patch(b, &v, I_CCU, 1, &t);
	return FILTER_KEEP;
}

static int hook_line(struct filter *f, struct rec_block *b)
{
	(void)f, (void)b;
	hooked.line++;
	return FILTER_DROP;
}

static int hook_fetch(struct filter *f, struct rec_block *b)
{
	(void)f, (void)b;
	hooked.fetch++;
	return FILTER_DECODE;
}

static int block_record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)f, (void)k, (void)r, (void)line, (void)len;
	hooked.decoded++;
	return 0;
}

static void put_bin(FILE *out, const struct rec *r)
{
	char buf[4096];
	fwrite(buf, 1, rec_bin_encode(buf, r), out);
}

static void test_block(void)
{
	static const struct loss_kind kinds[1] = { { "bad records", 1, 1 } };
	static const struct filter_block blocks[] = {
		{ K_INSTR, hook_instr }, { K_LINE, hook_line }, { K_FETCH, hook_fetch }, { K_HEADER, hook_line },
		{ 0, NULL }
	};
	char *in = strdup(path_of("block.bin")), *out = strdup(path_of("block.out"));
	char *argv[] = { "tool", in, NULL };
	struct rec r;
	struct rd *rd;
	const char *line, *why;
	size_t len;
	struct rec_dec dec = { 0 };
	int i, json, n_instr = 0, n_line = 0, n_fetch = 0, ccu7 = 0;
	FILE *fp = fopen(in, "w");
	char *err;

	/* Line 1 the header, then 3000 records (several blocks: 1998
	 * instructions, 500 lines, 500 fetches), a bad one at line 2000 and
	 * another at line 2999; every tenth pc needs an escape. */
	header(&r, "Ascend910B1", "o", 1800);
	put_bin(fp, &r);
	for (i = 2; i <= 3001; i++) {
		if (i == 2000 || i == 2999) {
			fputs("I\001\002\n", fp);
			continue;
		}
		rec_init(&r, i % 3 ? K_INSTR : i % 2 ? K_LINE : K_FETCH);
		r.n[I_PC].u = i % 10 ? (uint64_t)i * 4 : 0x0a1a0a1a;
		rec_text_set(&r, 0, "SCALAR", 6);
		put_bin(fp, &r);
	}
	trailer(&r, 0, 0, 0);
	put_bin(fp, &r);
	fclose(fp);

	for (json = 0; json <= 1; json++) {
		struct losses ls;
		struct filter f = { .tool = "tool", .ls = &ls, .record = block_record, .block = blocks };
		memset(&hooked, 0, sizeof hooked);
		f.outpath = out;
		f.json = json;
		f.bin = !json;
		loss_init(&ls, "tool", kinds, 1);
		stderr_to("stderr");
		CHECK(filter_run(&f, 2, argv, 1) == EXIT_PARTIAL);
		stderr_back();
		loss_free(&ls);
		err = slurp("stderr");
		CHECK_MSG(err && strstr(err, "block.bin:2000: bad record") && strstr(err, "block.bin:2999: bad record"),
		          "json %d: %s", json, err ? err : "");
		free(err);
		/* The hooks only while the output is binary and the header is
		 * out (the first instruction, after which it is written, is
		 * decoded); headers and trailers never. */
		CHECK(json ? !hooked.instr && !hooked.line && !hooked.fetch : hooked.instr == 1997 && hooked.line == 500);
		CHECK_MSG(json || hooked.fetch + 1 == hooked.decoded, "fetch %d decoded %d instr %d line %d", hooked.fetch, hooked.decoded, hooked.instr, hooked.line);

		n_instr = n_line = n_fetch = ccu7 = 0;
		CHECK((rd = rd_open(out)) != NULL);
		while (rd && (line = rd_line(rd, &len))) {
			CHECK(rec_decode(&dec, line, len, &r, &why) == DEC_OK);
			if (r.sc->kind == K_INSTR) {
				n_instr++;
				ccu7 += r.n[I_CCU].u == 7;
			}
			n_line += r.sc->kind == K_LINE;
			n_fetch += r.sc->kind == K_FETCH;
			/* its records: the diag record of the bad ones too */
			if (r.sc->kind == K_TRAILER)
				CHECK_MSG(r.n[T_RECORDS].u == (json ? 2999u : 2499u) && r.n[T_BAD].u == 2, "records %llu bad %llu", (unsigned long long)r.n[T_RECORDS].u, (unsigned long long)r.n[T_BAD].u);
		}
		if (rd)
			rd_close(rd);
		CHECK(n_instr == 1998 && n_fetch == 500);
		CHECK_MSG(json ? n_line == 500 && ccu7 == 0 : n_line == 0 && ccu7 == 1997, "json %d line %d ccu7 %d instr %d fetch %d", json, n_line, ccu7, n_instr, n_fetch);
	}
	rec_dec_free(&dec);
	unlink(in);
	unlink(out);
	unlink(path_of("stderr"));
	free(in);
	free(out);
}

/* ---- filter_main: the options of a filter's command line ---- */

static struct {
	FILE *usage_to;
	const char *extra;          /* --extra's argument */
	int flag;                   /* --flag, set by getopt_long */
	int readied;
	int ready_status;           /* what the ready hook returns */
} cl;

static void main_usage(FILE *out)
{
	cl.usage_to = out;
}

static int main_option(struct filter *f, int c, const char *arg)
{
	(void)f;
	if (c != 'x')
		return 0;
	cl.extra = arg;
	return 1;
}

static int main_ready(struct filter *f)
{
	(void)f;
	cl.readied = 1;
	return cl.ready_status;
}

static int pass_record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)f, (void)k, (void)r, (void)line, (void)len;
	return 0;
}

/* filter_main over the arguments, NULL-terminated, of a verbatim filter. */
static int main_of(struct filter *f, char **args)
{
	static const struct loss_kind kinds[1] = { { "bad records", 1, 1 } };
	static const struct option longopts[] = {
		FILTER_LONGOPTS,
		{ "extra", required_argument, NULL, 'x' },
		{ "flag", no_argument, &cl.flag, 1 },
		FILTER_LONGOPTS_END
	};
	static const struct filter_cli cli = { .longopts = longopts, .loss_kinds = kinds, .loss_nkinds = 1,
	                                        .option = main_option, .usage = main_usage, .ready = main_ready };
	static struct losses ls;
	int argc = 0, status, saved = cli_verbosity;
	while (args[argc])
		argc++;
	memset(f, 0, sizeof *f);
	f->ls = &ls;
	f->tool = "tool";
	f->verbatim = 1;
	f->record = pass_record;
	optind = 0;             /* getopt starts over */
	status = filter_main(f, &cli, argc, args);
	loss_free(f->ls);
	cli_verbosity = saved;
	return status;
}

static void test_main(void)
{
	struct filter f;
	char *out = strdup(path_of("main.json")), *in = strdup(path_of("main.in")), *s;

	stderr_to("stderr");
	memset(&cl, 0, sizeof cl);
	CHECK(main_of(&f, (char *[]){ "tool", "-h", NULL }) == EXIT_OK);
	CHECK(cl.usage_to == stdout && !cl.readied);

	memset(&cl, 0, sizeof cl);
	CHECK(main_of(&f, (char *[]){ "tool", "--bogus", NULL }) == EXIT_USAGE);
	CHECK(cl.usage_to == stderr && !cl.readied);
	memset(&cl, 0, sizeof cl);
	CHECK(main_of(&f, (char *[]){ "tool", "--extra", NULL }) == EXIT_USAGE);   /* no argument */
	CHECK(cl.usage_to == stderr);

	/* The tool's own option and the common ones; the ready hook can end
	 * the run before any input is read. */
	memset(&cl, 0, sizeof cl);
	cl.ready_status = 7;
	CHECK(main_of(&f, (char *[]){ "tool", "--extra=5", "--json", "-o", out, "missing", NULL }) == 7);
	CHECK(cl.extra && !strcmp(cl.extra, "5") && cl.readied && !cl.usage_to);
	CHECK(f.json && f.outpath == out);
	memset(&cl, 0, sizeof cl);
	cl.ready_status = 7;
	CHECK(main_of(&f, (char *[]){ "tool", "--flag", "missing", NULL }) == 7);
	CHECK(cl.flag == 1 && cl.readied && !cl.usage_to);

	/* A whole run over an operand. */
	memset(&cl, 0, sizeof cl);
	cl.ready_status = -1;
	put_file("main.in", stream_whole);
	CHECK(main_of(&f, (char *[]){ "tool", "-q", "--json", "-o", out, in, NULL }) == EXIT_PARTIAL);
	s = slurp("main.json");
	CHECK(s && strstr(s, "\"name\":\"C\""));
	free(s);

	stderr_back();
	unlink(out);
	unlink(in);
	free(out);
	free(in);
}

/* ---- the exit-time cleanup list ---- */

static void make_marker(void *arg)
{
	put_file((const char *)arg, "ran\n");
}

/* Fork; the child runs fn and exits with the status it returns (through
 * exit, so the exit-time list runs).  The child's status, or -1. */
static int in_child(int (*fn)(void))
{
	pid_t pid;
	int st;
	fflush(stdout);
	fflush(stderr);
	if ((pid = fork()) < 0)
		return -1;
	if (!pid)
		exit(fn());
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* An output opened and never closed: the exit removes its temporary. */
static int open_and_exit(void)
{
	struct wr *w = wr_open(path_of("left.rec"), 0);
	if (!w)
		return 10;
	wr_printf(w, "half a record");
	wr_flush(w);
	return unit_entries(dir, ".tmp") == 2 ? 0 : 11;    /* the parent's and ours */
}

/* A cleanup registered by a child runs at its exit, not the parent's. */
static int add_and_exit(void)
{
	cli_cleanup_add(make_marker, "child-marker");
	return 0;
}

static int just_exit(void)
{
	return 0;
}

static void test_cleanup(void)
{
	struct rec_out o = { 0 };
	char *p = strdup(path_of("kept.json"));

	/* The parent has outputs on the list already (as a tool has): the
	 * child's own still run at its exit. */
	filter_open_output(&o, "tool", p, 1, 0, 0, 0);
	CHECK(in_child(open_and_exit) == 0);
	CHECK(unit_entries(dir, ".tmp") == 1);                   /* the parent's, still open */
	CHECK(unit_entries(dir, "left.rec") == 0);               /* neither temporary nor target */

	/* A child forked after the parent registered does not run the
	 * parent's cleanups: the parent's output stays. */
	cli_cleanup_add(make_marker, "parent-marker");
	CHECK(in_child(just_exit) == 0);
	CHECK(unit_entries(dir, "parent-marker") == 0);
	CHECK(unit_entries(dir, ".tmp") == 1);
	CHECK(in_child(add_and_exit) == 0);
	CHECK(unit_entries(dir, "child-marker") == 1);
	CHECK(unit_entries(dir, "parent-marker") == 0);

	/* Removed, it does not run at all. */
	cli_cleanup_remove(make_marker, "parent-marker");
	CHECK(filter_close_output(&o, p, 0, 0, NULL) == EXIT_OK);
	CHECK(unit_entries(dir, ".tmp") == 0 && unit_entries(dir, "kept.json") == 1);
	unlink(p);
	unlink(path_of("child-marker"));
	free(p);
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
	test_sink();
	test_verbatim();
	test_block();
	test_main();
	test_cleanup();
	unlink(path_of("one"));
	unlink(path_of("whole"));
	unlink(path_of("good"));
	unlink(path_of("cut"));
	unlink(path_of("two"));
	unlink(path_of("stderr"));
	rmdir(dir);
	return unit_done();
}
