/* trace-clean: a clean Perfetto / chrome://tracing view of a simulator
 * trace, and the per-instruction metrics beside it.
 *
 * Input, told apart by its first bytes: a visualize_data.bin (its TRACE
 * and INSTR_API blocks), an OPPROF_* directory (the visualize_data.bin in
 * it), a trace.json, or this project's record stream (the instruction
 * records themselves).  Output: trace.clean.json, instr_metrics.json, and
 * with -o DIR a copy of the raw files in DIR/raw_simulator.
 *
 *   cmd/trace-clean/jscan.c    streaming JSON scanner (one event at a time)
 *   cmd/trace-clean/clean.c    the rebuild: lanes, sub-lanes, arrows
 *   cmd/trace-clean/metrics.c  instr_metrics.json
 *   cmd/trace-clean/rawcopy.c  raw_simulator/
 *
 * The outputs are one set, all or nothing: they are written into a
 * staging directory inside the output directory, and moved into place only
 * when the whole set is complete, trace.clean.json last, each older output
 * kept aside until then and put back if a move fails.  Bad input leaves
 * nothing behind, not even the -o directory when this run created it: any
 * exit before the set is in place (a failed phase, an interrupt, "out of
 * memory" anywhere) runs the exit-time cleanup list (see cli.h), which
 * discards what was made.
 *
 * main() reads as the run goes: the options, then clean(), its phases one
 * function each (open_input, open_outputs, clean_trace or clean_records,
 * put_in_place, report).  Records are read by the record-tool runtime
 * (filter.h) as a sink, with this file's hooks. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chip.h"
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "mem.h"
#include "rec.h"
#include "tc.h"
#include "text.h"
#include "tick.h"
#include "vdata.h"

#define WINDOW (4u << 20)          /* initial read window */
#define WINDOW_MAX (1u << 30)      /* the largest single JSON value accepted */

enum kind { IN_VDATA, IN_JSON, IN_RECORDS };
enum { OUT_RAW, OUT_METRICS, OUT_TRACE, OUT_N };   /* the output set, in the order it goes into place */
/* Besides the exit statuses: a reader of the trace on standard output went
 * away, which ends the run quietly (exit 0), as in every tool. */
enum { EXIT_QUIET = -1 };

/* One run: its options, its input, its outputs. */
struct run {
	struct clean_opts co;
	int raw_metrics, no_copy;
	const char *outopt;         /* -o */

	char *input;                /* the file read; "-" for standard input */
	const char *name;           /* ... as messages name it */
	int from_stdin;
	enum kind kind;
	int trace_blk, instr_blk;   /* a container's first TRACE and INSTR_API blocks, or -1 */
	uint64_t trace_off;         /* the TRACE payload's file offset */
	struct rd *rd;              /* the reader of a trace.json or records */

	char *outdir, *srcdir;
	char *stg;                  /* the staging directory in outdir */
	int trace_stdout;           /* -o -: the trace to standard output, nothing else */
	struct wr *trace_w, *metrics_w;
	char *tshown, *mshown;      /* their final names, for messages */
	int want[OUT_N];

	/* records */
	struct filter filter;
	struct losses ls;
	unsigned mhz;
	uint64_t instrs;
	int over, over_status;      /* a hook ended the run, with this status */
};

#define RUN_OF(f) ((struct run *)(void *)((char *)(f) - offsetof(struct run, filter)))

/* Ends the run: an input or output failure, an interrupt, a reader gone. */
static int stops(int status)
{
	return status == EXIT_UNUSABLE || status == EXIT_IO || status == EXIT_INTR || status == EXIT_QUIET;
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: trace-clean [-o DIR] [--keep-scalar] [--raw-metrics] [--no-copy-raw] [-q|-v]\n"
	        "                   [visualize_data.bin | OPPROF_DIR | trace.json | RECORDS | -]\n"
	        "Rebuild a simulator trace for Perfetto UI and chrome://tracing: pipeline lanes\n"
	        "in dataflow order, overlapping instructions on sub-lanes, SET/WAIT flags as\n"
	        "arrows.  Writes trace.clean.json and instr_metrics.json next to the input\n"
	        "(the current directory for standard input) or into DIR (\"-\": the trace to\n"
	        "standard output), and with -o a copy of the raw files in DIR/raw_simulator.\n");
}

/* The options into r; the operand ("-" when none).  Exits on a usage
 * error, -h and --version. */
static const char *options(struct run *r, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output-dir", required_argument, NULL, 'o' },
		{ "keep-scalar", no_argument, NULL, 'S' },
		{ "raw-metrics", no_argument, NULL, 'R' },
		{ "no-copy-raw", no_argument, NULL, 'N' },
		CLI_LONGOPTS,
		CLI_LONGOPTS_END
	};
	int c;

	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); exit(EXIT_OK);
		case 'V': cli_version();
		case 'o': r->outopt = optarg; break;
		case 'S': r->co.keep_scalar = 1; break;
		case 'R': r->raw_metrics = 1; break;
		case 'N': r->no_copy = 1; break;
		case 'q': cli_verbosity = 0; break;
		case 'v': cli_verbosity = 2; break;
		default: usage(stderr); exit(EXIT_USAGE);
		}
	}
	if (argc - optind > 1) {
		cli_warn("one input at a time");
		usage(stderr);
		exit(EXIT_USAGE);
	}
	if (optind == argc && isatty(0)) {
		cli_warn("no input (a visualize_data.bin, an OPPROF_* directory, a trace.json, or records on stdin)");
		usage(stderr);
		exit(EXIT_USAGE);
	}
	if (r->outopt && !*r->outopt) {
		cli_warn("-o: empty directory name");
		exit(EXIT_USAGE);
	}
	return optind < argc ? argv[optind] : "-";
}

/* The trace writer failed: a reader that went away (| head) ends the run
 * quietly; anything else is an I/O error. */
static int write_failed(struct run *r)
{
	int e = wr_error(r->trace_w);
	if (e == EPIPE && r->trace_stdout) {
		wr_abort(r->trace_w);
		r->trace_w = NULL;
		return EXIT_QUIET;
	}
	errno = e;
	cli_warn("%s: write error:", r->trace_stdout ? "(stdout)" : r->tshown);
	return EXIT_IO;
}

/* ---- input resolution ---- */

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

/* An OPPROF_* (or simulator/) directory: the file to read in it. */
static char *resolve_dir(const char *dir)
{
	static const char *const tries[] = {
		"visualize_data.bin", "simulator/visualize_data.bin", "trace.json", "simulator/trace.json",
	};
	size_t i;
	for (i = 0; i < sizeof tries / sizeof tries[0]; i++) {
		char *p = xpath(dir, tries[i]);
		if (io_is_file(p)) {
			if (i >= 2)
				cli_note("%s: no visualize_data.bin; reading %s (no metrics)", dir, p);
			return p;
		}
		free(p);
	}
	return NULL;
}

/* How JSON text or a record stream can begin. */
static int text_opening(unsigned char c)
{
	return c == '{' || c == '[' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || (c >= 'A' && c <= 'Z');
}

/* The 12-byte header of a first block: reserved byte 0x5A, padding 0..3,
 * a size that is a multiple of 4.  No JSON text or record stream starts
 * that way (byte 9 would be a control character inside the first token). */
static int vdata_signature(const unsigned char *b, size_t n)
{
	if (n < VDATA_HEADER_SIZE || b[11] != VDATA_RESERVED)
		return 0;
	if (b[9] <= 3 && b[0] % 4 == 0)
		return 1;
	/* A damaged header is still a container's (for the reader to say
	 * what is wrong) unless the text opens like JSON. */
	return !text_opening(b[0]);
}

/* What text that opens with b[0..n) is: JSON Lines records open with
 * {"kind", binary ones with a capital letter, and the rest is left to the
 * JSON scanner.  -1 when the first n bytes do not tell and more may come
 * (at_end: nothing more will). */
static int sniff_text(const char *b, size_t n, int at_end)
{
	size_t i = 0;
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	if (i == n && !at_end)
		return -1;
	if (i < n && b[i] == '{') {
		size_t j = i + 1;
		while (j < n && (b[j] == ' ' || b[j] == '\t'))
			j++;
		if (n - j >= 6 && !memcmp(b + j, "\"kind\"", 6))
			return IN_RECORDS;
		if (n - j < 6 && !at_end)
			return -1;
		return IN_JSON;
	}
	if (i < n && b[i] == '[')
		return IN_JSON;
	if (i == 0 && n && b[0] >= 'A' && b[0] <= 'Z')
		return IN_RECORDS;
	return IN_JSON;     /* the scanner says what is wrong with it */
}


/* The first bytes of a regular file (standard input too, when it is one),
 * to tell a container from text; *k -1 for a pipe. */
static int first_bytes(struct run *r, unsigned char *head, size_t n, ssize_t *k)
{
	int fd = r->from_stdin ? 0 : open(r->input, O_RDONLY | O_CLOEXEC);
	struct stat st;

	*k = -1;
	if (fd < 0) {
		cli_warn("%s: cannot open:", r->input);
		return EXIT_UNUSABLE;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		*k = io_pread_full(fd, head, n, 0);
	if (!r->from_stdin)
		close(fd);
	return 0;
}

/* A container: every block header is walked before anything is written,
 * so that a corrupt one is refused first. */
static int find_blocks(struct run *r)
{
	struct vdata_blk b;
	struct vdata_r *vr;
	char err[256];
	int i = 0, k;

	r->trace_blk = r->instr_blk = -1;
	vr = vdata_ropen(r->from_stdin ? "-" : r->input, err, sizeof err);
	if (!vr) {
		cli_warn("%s: %s", r->input, err);
		return EXIT_UNUSABLE;
	}
	while ((k = vdata_next(vr, &b, err, sizeof err)) == 1) {
		if (b.type == VDATA_TRACE && r->trace_blk < 0) {
			r->trace_blk = i;
			r->trace_off = b.payload_offset;
		}
		if (b.type == VDATA_INSTR_API && r->instr_blk < 0)
			r->instr_blk = i;
		i++;
	}
	vdata_rclose(vr);
	if (k < 0) {
		cli_warn("%s: %s", r->input, err);
		return errno == EBADMSG ? EXIT_UNUSABLE : EXIT_IO;
	}
	if (r->trace_blk < 0) {
		cli_warn("%s: no TRACE block (%d block%s)", r->input, i, i == 1 ? "" : "s");
		return EXIT_UNUSABLE;
	}
	return 0;
}

/* Text, lz4-compressed or not: a trace.json or records, told apart by the
 * first decompressed bytes, which stay in the reader for whichever reads
 * it. */
static int open_text(struct run *r)
{
	size_t want = 4096, n;
	const char *p;
	int k;

	r->rd = r->from_stdin ? rd_fdopen(0, "(stdin)") : rd_open(r->input);
	if (!r->rd) {
		cli_warn("%s: cannot open:", r->input);
		return EXIT_UNUSABLE;
	}
	for (;;) {
		p = rd_peek(r->rd, want, &n);
		if (rd_error(r->rd)) {
			cli_warn("%s: read error: %s", r->name, rd_strerror(r->rd));
			return EXIT_IO;
		}
		if (!n) {
			cli_warn("%s: empty input", r->name);
			return EXIT_UNUSABLE;
		}
		k = sniff_text(p, n, n < want || want >= WINDOW);
		if (k >= 0)
			break;
		want *= 2;
	}
	r->kind = k;
	return 0;
}

/* What the input is: a container, a trace.json or records, in a file, in
 * a directory, or on standard input. */
static int open_input(struct run *r, const char *arg)
{
	unsigned char head[16];
	ssize_t k;
	int st;

	if (!strcmp(arg, "-")) {
		r->from_stdin = 1;
		r->input = xstrdup("-");
	} else if (io_is_dir(arg)) {
		r->input = resolve_dir(arg);
		if (!r->input) {
			cli_warn("%s: no visualize_data.bin or trace.json in it or in its simulator/", arg);
			return EXIT_UNUSABLE;
		}
	} else {
		r->input = xstrdup(arg);
	}
	r->name = r->from_stdin ? "(stdin)" : r->input;
	if ((st = first_bytes(r, head, sizeof head, &k)))
		return st;
	if (k > 0 && vdata_signature(head, (size_t)k)) {
		r->kind = IN_VDATA;
		return find_blocks(r);
	}
	if (k >= VDATA_HEADER_SIZE && !text_opening(head[0]) && memcmp(head, "\x04\x22\x4d\x18", 4)) {
		/* Neither JSON, records, lz4, nor a container's first header. */
		cli_warn("%s: offset 11: reserved byte is 0x%02X, not 0x5A: not a visualize_data.bin, "
		         "trace JSON or record stream", r->input, head[11]);
		return EXIT_UNUSABLE;
	}
	return open_text(r);
}

/* ---- the outputs ---- */

/* The directories this run created for -o, outermost first: removed again
 * (when still empty) if the run fails. */
static char *created[64];
static int ncreated;

static int make_dir(const char *p)
{
	if (mkdir(p, IO_DIR_MODE) == 0) {
		if (ncreated < (int)(sizeof created / sizeof created[0]))
			created[ncreated++] = xstrdup(p);
		return 0;
	}
	return errno == EEXIST ? 0 : -1;
}

static int mkdirs(const char *path)
{
	char *p = xstrdup(path), *s;
	int rc = 0;
	for (s = p + 1; *s; s++) {
		if (*s != '/' || s[-1] == '/')
			continue;
		*s = 0;
		if (make_dir(p))
			rc = -1;
		*s = '/';
	}
	if (make_dir(p))
		rc = -1;
	free(p);
	return rc || !io_is_dir(path) ? -1 : 0;
}

/* At exit, unless the set went into place (see put_in_place). */
static void remove_created(void *unused)
{
	(void)unused;
	while (ncreated > 0) {
		ncreated--;
		rmdir(created[ncreated]);
		free(created[ncreated]);
	}
}

/* ---- the output set ---- */

/* At exit, always: what did not go into place, and the older set after it
 * did. */
static void remove_staging(void *path)
{
	io_rm_tree(path);
}

/* Move the complete set from the staging directory stg into dir (shown as
 * shown in messages): raw_simulator/ (when made), instr_metrics.json (when
 * written), trace.clean.json last.  An older file is first linked aside in
 * stg, an older raw_simulator/ swapped with the new one, so that when a
 * move fails every one already made is undone and the older set is back as
 * it was.  0, or -1 after a message. */
static int commit_set(const char *stg, const char *dir, const char *shown, const int want[OUT_N])
{
	static const char *const names[OUT_N] = { "raw_simulator", "instr_metrics.json", "trace.clean.json" };
	int state[OUT_N] = { 0 };   /* 1 moved in, nothing before; 2 moved in, older one kept aside */
	int i, j, rc = 0;

	for (i = 0; i < OUT_N && !rc; i++) {
		char *from, *to, *old;
		struct stat st;
		int had;
		if (!want[i])
			continue;
		from = xpath(stg, names[i]);
		to = xpath(dir, names[i]);
		old = xpath(stg, i == OUT_RAW ? "old.raw_simulator" : i == OUT_METRICS ? "old.instr_metrics.json"
		                                                                     : "old.trace.clean.json");
		had = lstat(to, &st) == 0;
		if (i == OUT_RAW && had && !S_ISDIR(st.st_mode)) {
			cli_warn("%s/%s: not a directory", shown, names[i]);
			rc = -1;
		} else if (i == OUT_RAW && had) {
			/* the older tree ends up in stg, under the new one's name */
			if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) < 0) {
				cli_warn("%s/%s: cannot move into place:", shown, names[i]);
				rc = -1;
			}
		} else if (had && link(to, old) < 0) {
			cli_warn("%s/%s: cannot keep the older file aside:", shown, names[i]);
			rc = -1;
		} else if (rename(from, to) < 0) {
			cli_warn("%s/%s: cannot move into place:", shown, names[i]);
			rc = -1;
		}
		if (!rc)
			state[i] = had ? 2 : 1;
		free(from);
		free(to);
		free(old);
	}
	if (!rc)
		return 0;
	/* Undo, last first.  The older files come back by rename over the new
	 * ones; a new file with no older one is removed. */
	for (j = OUT_N - 1; j >= 0; j--) {
		char *to, *back;
		if (!state[j])
			continue;
		to = xpath(dir, names[j]);
		back = xpath(stg, j == OUT_RAW ? names[j] : j == OUT_METRICS ? "old.instr_metrics.json"
		                                                           : "old.trace.clean.json");
		if (j == OUT_RAW && state[j] == 2)
			renameat2(AT_FDCWD, back, AT_FDCWD, to, RENAME_EXCHANGE);
		else if (j == OUT_RAW)
			rename(to, back);
		else if (state[j] == 2)
			rename(back, to);
		else
			unlink(to);
		free(to);
		free(back);
	}
	return -1;
}

static int same_dir(const char *a, const char *b)
{
	struct stat x, y;
	return stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}


/* Where the outputs go: the -o directory (made when missing), or the
 * input's; the trace writer, in a staging directory there, or on standard
 * output.  What this makes is removed at exit unless put_in_place keeps
 * it. */
static int open_outputs(struct run *r)
{
	if (r->outopt && !strcmp(r->outopt, "-")) {
		r->trace_stdout = 1;
		r->trace_w = wr_open("-", 0);
	} else {
		char *tpath;
		if (r->outopt) {
			cli_cleanup_add(remove_created, NULL);
			if (mkdirs(r->outopt)) {
				cli_warn("%s: cannot create the output directory:", r->outopt);
				return EXIT_IO;
			}
			r->outdir = xstrdup(r->outopt);
		} else {
			r->outdir = r->from_stdin ? xstrdup(".") : dir_of(r->input);
		}
		r->stg = xpath(r->outdir, ".trace-clean.XXXXXX");
		if (!mkdtemp(r->stg)) {
			cli_warn("%s: cannot create a directory in it:", r->outdir);
			return EXIT_IO;
		}
		cli_cleanup_add(remove_staging, r->stg);
		tpath = xpath(r->stg, "trace.clean.json");
		r->tshown = xpath(r->outdir, "trace.clean.json");
		r->trace_w = wr_open(tpath, 0);
		free(tpath);
	}
	if (!r->trace_w) {
		cli_warn("%s: cannot create:", r->tshown ? r->tshown : "(stdout)");
		return EXIT_IO;
	}
	if (!r->from_stdin)
		r->srcdir = dir_of(r->input);
	clean_begin(r->trace_w, &r->co);
	return 0;
}

/* An INSTR_API payload byte for byte (--raw-metrics). */
static int copy_instr_block(struct run *r)
{
	struct vdata_blk b;
	struct vdata_r *vr;
	char err[256], *buf = xmalloc(1u << 20);
	ssize_t k = 0;
	int i;

	vr = vdata_ropen(r->input, err, sizeof err);
	for (i = 0; vr && i <= r->instr_blk; i++)
		if (vdata_next(vr, &b, err, sizeof err) != 1) {
			vdata_rclose(vr);
			vr = NULL;
		}
	while (vr && (k = vdata_read(vr, buf, 1u << 20)) > 0)
		wr_put(r->metrics_w, buf, (size_t)k);
	free(buf);
	if (!vr || k < 0) {
		cli_warn("%s: INSTR_API block: %s", r->input, vr ? strerror(errno) : err);
		if (vr)
			vdata_rclose(vr);
		return EXIT_IO;
	}
	vdata_rclose(vr);
	return 0;
}

/* instr_metrics.json, beside the trace: a container's INSTR_API block,
 * reshaped or as stored, or the table built from records. */
static int write_metrics(struct run *r)
{
	char *mpath, err[256];
	int k;

	if (r->trace_stdout) {
		if (r->instr_blk >= 0 || metrics_have())
			cli_note("the trace goes to standard output: instr_metrics.json not written");
		return 0;
	}
	if (r->kind == IN_VDATA && r->instr_blk < 0) {
		/* A warning, not an input problem: the simulator writes no such
		 * block for some runs, and the trace is whole without it. */
		cli_warn("%s: no API_INSTR (INSTR_API) block: instr_metrics.json not written", r->input);
		return 0;
	}
	if (r->kind != IN_VDATA && !metrics_have())
		return 0;
	mpath = xpath(r->stg, "instr_metrics.json");
	r->mshown = xpath(r->outdir, "instr_metrics.json");
	r->metrics_w = wr_open(mpath, 0);
	free(mpath);
	if (!r->metrics_w) {
		cli_warn("%s: cannot create:", r->mshown);
		return EXIT_IO;
	}
	if (r->kind != IN_VDATA) {
		metrics_set_raw(r->raw_metrics);
		metrics_write(r->metrics_w);
		return 0;
	}
	if (r->raw_metrics)
		return copy_instr_block(r);
	k = metrics_reshape(r->from_stdin ? "-" : r->input, r->instr_blk, r->metrics_w, err, sizeof err);
	if (!k)
		return 0;
	cli_warn("%s: %s%s: instr_metrics.json not written", r->input, k == -1 ? "INSTR_API block: " : "", err);
	wr_abort(r->metrics_w);
	r->metrics_w = NULL;
	return k == -2 ? EXIT_IO : EXIT_PARTIAL;
}

/* The input is read: the trace closed, the metrics written. */
static int write_outputs(struct run *r)
{
	int st = EXIT_OK, k;

	if (cli_interrupted)
		return EXIT_INTR;
	if (clean_finish()) {
		if (!clean_error[0])
			return write_failed(r);
		cli_warn("%s: %s", r->name, clean_error);
		return EXIT_UNUSABLE;
	}
	if (cstats.malformed) {
		cli_warn("%s: %llu events skipped (first: %s)", r->name, (unsigned long long)cstats.malformed,
		         cstats.malformed_example);
		st = EXIT_PARTIAL;
	}
	k = write_metrics(r);
	if (k)
		st = k;
	if (!stops(st) && cli_interrupted)
		st = EXIT_INTR;
	return st;
}


/* ---- a trace: a container's TRACE block, or a trace.json ---- */

struct tctx {
	struct run *r;
	int saw_events;
	int bad_events;             /* traceEvents is not an array */
};

static int t_stream_key(void *ctx, const struct jval *key)
{
	struct tctx *t = ctx;
	if (!jstr_eq(key, "traceEvents", 11))
		return 0;
	t->saw_events = 1;
	return 1;
}

static int t_value(void *ctx, const struct jval *key, const struct jval *val)
{
	struct tctx *t = ctx;
	if (jstr_eq(key, "traceEvents", 11)) {
		t->bad_events = 1;
		return 1;
	}
	clean_top_value(key, val);
	return 0;
}

static int t_element(void *ctx, const struct jval *key, const struct jobj *o, const struct jval *v,
                     uint64_t off)
{
	struct tctx *t = ctx;
	(void)v;
	if (!key)
		t->saw_events = 1;     /* the array form: the document is the events */
	if (cli_interrupted || wr_error(t->r->trace_w))
		return 1;
	return clean_trace_event(o, off) ? 1 : 0;
}

/* The trace's events, one at a time through the scanner, then the
 * outputs. */
static int clean_trace(struct run *r)
{
	struct tctx tc = { r, 0, 0 };
	struct jhandler h = { t_stream_key, t_value, t_element };
	struct src src = { 0 };
	struct jbuf jb;
	struct jfail f;
	const char *what = r->kind == IN_VDATA ? "TRACE block: " : "";
	int st, lz4 = 0;

	if (r->kind == IN_VDATA) {
		struct vdata_blk b;
		char err[256];
		int i;
		src.vr = vdata_ropen(r->from_stdin ? "-" : r->input, err, sizeof err);
		for (i = 0; src.vr && i <= r->trace_blk; i++)
			if (vdata_next(src.vr, &b, err, sizeof err) != 1) {
				vdata_rclose(src.vr);
				src.vr = NULL;
			}
		if (!src.vr) {
			cli_warn("%s: %s", r->input, err);
			return EXIT_IO;
		}
		src.base = r->trace_off;
	} else {
		src.rd = r->rd;
		lz4 = rd_is_lz4(r->rd);
	}
	src.name = r->name;
	jbuf_init(&jb, &src, WINDOW, WINDOW_MAX);
	st = jscan(&jb, &h, &tc, &f);
	jbuf_free(&jb);
	if (src.vr)
		vdata_rclose(src.vr);
	if (st == JS_STOP && wr_error(r->trace_w))
		return write_failed(r);
	if (st == JS_STOP && !cli_interrupted) {
		if (tc.bad_events)
			cli_warn("%s: %straceEvents is not an array", r->name, what);
		else
			cli_warn("%s: %s", r->name, clean_error);
		return EXIT_UNUSABLE;
	}
	if (st && st != JS_STOP) {
		cli_warn("%s: offset %llu: %snot valid JSON: %s%s", r->name, (unsigned long long)(src.base + f.off),
		         what, f.msg, lz4 ? " (offset in the decompressed data)" : "");
		return st == JS_IO ? EXIT_IO : EXIT_UNUSABLE;
	}
	if (!st && !tc.saw_events) {
		cli_warn("%s: %sno traceEvents array", r->name, what);
		return EXIT_UNUSABLE;
	}
	return write_outputs(r);
}


/* ---- records ---- */

/* The clock: the stream header's, else its SoC's (the default SoC's
 * without a header). */
static void rec_start(struct filter *f, const struct chip *chip)
{
	struct run *r = RUN_OF(f);
	r->mhz = chip->mhz;
	if (f->up.got_header && f->up.mhz && f->up.mhz < 100000)
		r->mhz = f->up.mhz;
	else if (f->up.got_header)
		cli_warn("the stream's header has no clock; using %u MHz", r->mhz);
	metrics_set_chip(chip->family == CHIP_310P);
	/* The header timeline-emit gives the same records. */
	clean_header("\"op\"", 4, "2", 1);
}

static int take_instr(struct run *r, const struct rec *rec)
{
	struct rinstr ri = { 0 };
	char core[48], pipe[WARP_NAME_MAX];
	int32_t warp = (int32_t)rec->n[I_WARP].i, sch = (int32_t)rec->n[I_SCH].i;

	rec_core_name(core, rec->n[I_CORE].u, rec->n[I_SUBTYPE].u, rec->n[I_SUBIDX].u);
	ri.core = core;
	ri.core_n = strlen(core);
	if (warp_is_simt(warp, sch)) {
		/* SIMT instructions are drawn per warp, as timeline-emit does. */
		ri.pipe = pipe;
		ri.pipe_n = warp_name(pipe, warp);
	} else {
		ri.pipe = rec->s[IS_PIPE].p;
		ri.pipe_n = rec->s[IS_PIPE].n;
	}
	ri.name = rec->s[IS_NAME].p;
	ri.name_n = rec->s[IS_NAME].n;
	ri.detail = rec->s[IS_DETAIL].p;
	ri.detail_n = rec->s[IS_DETAIL].n;
	/* What a sync instruction is, as instr-parse read it from the
	 * detail. */
	ri.sync = (int)rec->n[I_SYNC].u;
	ri.prod = rec->s[IS_PROD].p;
	ri.prod_n = rec->s[IS_PROD].n;
	ri.cons = rec->s[IS_CONS].p;
	ri.cons_n = rec->s[IS_CONS].n;
	ri.flag = rec->s[IS_FLAG].p;
	ri.flag_n = rec->s[IS_FLAG].n;
	ri.ts6 = tick_us6(rec->n[I_START].u, r->mhz);
	ri.te6 = tick_us6(rec->n[I_END].u, r->mhz);
	ri.set6 = tick_us6(rec->n[I_END].u ? rec->n[I_END].u - 1 : 0, r->mhz);
	ri.pc = rec->n[I_PC].u == REC_NONE ? 0 : rec->n[I_PC].u;
	ri.bytes = rec->n[I_BYTES].i;
	r->instrs++;
	/* INSTR_API leaves cache misses out (see optrace-vdata(5),
	 * VISUALIZE_DATA.BIN, INSTR_API). */
	if (!(rec->s[IS_PIPE].n == 9 && !memcmp(rec->s[IS_PIPE].p, "CACHEMISS", 9)))
		metrics_take(core, ri.core_n, ri.pc, rec->s[IS_PIPE].p, rec->s[IS_PIPE].n, ri.name, ri.name_n,
		             ri.detail, ri.detail_n, rec, rec->n[I_START].u, rec->n[I_END].u, (int32_t)rec->n[I_GPR].i,
		             rec->n[I_BYTES].i, rec->n[I_VECUTIL].f, (int32_t)rec->n[I_UBREAD].i,
		             (int32_t)rec->n[I_UBWRITE].i, rec->n[I_ICACHE].u, rec->n[I_CCU].u);
	return clean_record(&ri);
}

static int take_mark(struct run *r, const struct rec *rec)
{
	struct rinstr ri = { 0 };
	char core[48];

	rec_core_name(core, rec->n[M_CORE].u, rec->n[M_SUBTYPE].u, rec->n[M_SUBIDX].u);
	ri.core = core;
	ri.core_n = strlen(core);
	ri.pipe = "USERMARK";
	ri.pipe_n = 8;
	ri.name = rec->s[MS_NAME].p;
	ri.name_n = rec->s[MS_NAME].n;
	ri.ts6 = tick_us6(rec->n[M_START].u, r->mhz);
	ri.te6 = tick_us6(rec->n[M_END].u, r->mhz);
	ri.mark = 1;
	/* ... and has the marks, on their start pc, as timeline-emit does:
	 * no metrics of their own (GPRs, bytes, utilisation, conflicts all
	 * -1). */
	metrics_take(core, ri.core_n, rec->n[M_STARTPC].u == REC_NONE ? 0 : rec->n[M_STARTPC].u, "USERMARK", 8,
	             ri.name, ri.name_n, rec->s[MS_DETAIL].p, rec->s[MS_DETAIL].n, NULL, rec->n[M_START].u,
	             rec->n[M_END].u, -1, -1, -1.0, -1, -1, REC_NONE, REC_NONE);
	return clean_record(&ri);
}

/* An instruction or a trace mark becomes a slice (or a flag) and a row of
 * the metrics; other kinds are not trace-clean's business. */
static int rec_take(struct filter *f, int k, struct rec *rec, const char *line, size_t len)
{
	struct run *r = RUN_OF(f);
	int failed = 0;

	(void)line;
	(void)len;
	if (k != DEC_OK)
		return 1;
	if (rec->sc->kind == K_INSTR)
		failed = take_instr(r, rec);
	else if (rec->sc->kind == K_MARK)
		failed = take_mark(r, rec);
	if (failed) {
		cli_warn("%s: %s", r->name, clean_error);
		r->over_status = EXIT_UNUSABLE;
	} else if (wr_error(r->trace_w)) {
		r->over_status = write_failed(r);
	}
	if (failed || !r->trace_w || wr_error(r->trace_w))
		r->over = f->stop = 1;
	return 1;
}

/* The stream is read: what it lacked, then the outputs. */
static int rec_finish(struct filter *f)
{
	struct run *r = RUN_OF(f);
	int st;

	if (!f->up.got_header && r->instrs)
		cli_warn("%s: the stream has no header: times assume %u MHz", r->name, r->mhz);
	if (f->up.trailer && f->up.interrupted) {
		cli_warn("%s: the producer was interrupted: the stream is incomplete", r->name);
		f->problems++;
	}
	st = write_outputs(r);
	if (stops(st)) {
		r->over = 1;
		r->over_status = st;
		return 0;
	}
	if (st == EXIT_PARTIAL)
		f->problems++;
	return 1;
}

/* The records, through the record-tool runtime as a sink: it counts bad
 * records, reads the header and the trailer, and says what the stream
 * lacked. */
static int clean_records(struct run *r)
{
	static const struct loss_kind losses[] = { { "bad records skipped", 1, 1 } };
	struct filter *f = &r->filter;
	int st;

	loss_init(&r->ls, "trace-clean", losses, 1);
	f->tool = "trace-clean";
	f->ls = &r->ls;
	f->opened = r->rd;
	f->sink = 1;
	f->start = rec_start;
	f->record = rec_take;
	f->finish = rec_finish;
	st = filter_run(f, 0, NULL, 0);
	loss_free(&r->ls);
	return r->over ? r->over_status : st;
}


/* ---- the end ---- */

/* raw_simulator/ (with -o elsewhere), then the writers closed and the set
 * moved into place. */
static int put_in_place(struct run *r)
{
	int e;

	if (r->outopt && !r->trace_stdout && !r->no_copy && r->srcdir && !same_dir(r->srcdir, r->outdir)) {
		int copied = 0;
		if (rawcopy(r->srcdir, r->input, r->stg, r->outdir, r->outdir, &copied))
			return cli_interrupted ? EXIT_INTR : EXIT_IO;
		r->want[OUT_RAW] = 1;
		if (cli_verbosity >= 2)
			cli_note("copied %d file%s to %s/raw_simulator", copied, copied == 1 ? "" : "s", r->outdir);
	}
	if (r->metrics_w) {
		e = wr_close(r->metrics_w);
		r->metrics_w = NULL;
		if (e) {
			errno = e;
			cli_warn("%s: write error:", r->mshown);
			return EXIT_IO;
		}
		r->want[OUT_METRICS] = 1;
	}
	e = wr_close(r->trace_w);
	r->trace_w = NULL;
	if (e && e != EPIPE) {
		errno = e;
		cli_warn("%s: write error:", r->tshown ? r->tshown : "(stdout)");
		return EXIT_IO;
	}
	if (r->stg) {
		r->want[OUT_TRACE] = 1;
		if (commit_set(r->stg, r->outdir, r->outdir, r->want))
			return EXIT_IO;
	}
	/* The set is in place: the -o directory stays. */
	cli_cleanup_remove(remove_created, NULL);
	return 0;
}

/* What was written, and what was left out of it. */
static void report(const struct run *r)
{
	uint64_t lost = cstats.sets_alone + cstats.waits_alone + cstats.no_producer + cstats.no_consumer;

	if (!r->trace_stdout)
		cli_note("wrote %s: %llu slices on %llu tracks of %llu cores, %llu arrows", r->tshown,
		         (unsigned long long)cstats.slices_written, (unsigned long long)cstats.tracks,
		         (unsigned long long)cstats.cores, (unsigned long long)cstats.arrows);
	if (r->want[OUT_METRICS])
		cli_note("wrote %s", r->mshown);
	if (!cstats.slices_written && cstats.dropped_scalar && !r->co.keep_scalar)
		cli_warn("%s: no slice kept: %llu instructions on the SCALAR lanes were dropped; --keep-scalar "
		         "keeps them", r->name, (unsigned long long)cstats.dropped_scalar);
	if (lost)
		cli_note("%llu sync flags not drawn as arrows: %llu SETs without a WAIT, %llu WAITs "
		         "without a SET, %llu pairs without a kept producer instruction, %llu without "
		         "a kept consumer instruction",
		         (unsigned long long)lost, (unsigned long long)cstats.sets_alone,
		         (unsigned long long)cstats.waits_alone, (unsigned long long)cstats.no_producer,
		         (unsigned long long)cstats.no_consumer);
	if (cstats.late)
		cli_note("%llu slices came out of start order by more than the window: placed without "
		         "overlap, but a pipe may show more sub-lanes than its peak concurrency",
		         (unsigned long long)cstats.late);
	if (cli_verbosity >= 2) {
		cli_note("%llu events read: %llu slices kept; dropped %llu on noise or scalar lanes, "
		         "%llu sync, %llu scalar-head, %llu other",
		         (unsigned long long)cstats.events, (unsigned long long)cstats.kept,
		         (unsigned long long)cstats.dropped_lane, (unsigned long long)cstats.dropped_sync,
		         (unsigned long long)cstats.dropped_overhead, (unsigned long long)cstats.dropped_other);
		cli_note("%llu flags, %llu SET/WAIT pairs; at most %llu sub-lanes on one pipe; %llu slices "
		         "arrived out of order",
		         (unsigned long long)cstats.flags, (unsigned long long)cstats.pairs,
		         (unsigned long long)cstats.max_sub, (unsigned long long)cstats.late);
	}
}

/* The whole run, phase by phase; the exit status. */
static int clean(struct run *r, const char *arg)
{
	int st, put;

	if ((st = open_input(r, arg)) || (st = open_outputs(r)))
		return st;
	st = r->kind == IN_RECORDS ? clean_records(r) : clean_trace(r);
	if (stops(st))
		return st;
	if ((put = put_in_place(r)))
		return put;
	report(r);
	return st;
}

int main(int argc, char **argv)
{
	/* Static: the exit-time cleanup removes the staging directory it
	 * names.  Any exit discards what is not in place (see put_in_place):
	 * the half-written outputs (the writer keeps them on the cleanup
	 * list), the staging directory, and the -o directories this run
	 * made. */
	static struct run r;
	const char *arg;
	int status;

	cli_init(argv[0]);
	arg = options(&r, argc, argv);
	status = clean(&r, arg);
	if (status == EXIT_QUIET)
		status = EXIT_OK;
	else if (status == EXIT_OK || status == EXIT_PARTIAL)
		status = tick_report(status);
	else if (stops(status) && r.trace_stdout && r.trace_w) {
		/* A trace on standard output is still a whole document. */
		clean_abort_close();
		wr_close(r.trace_w);
		r.trace_w = NULL;
	}
	if (cli_interrupted && status != EXIT_UNUSABLE && status != EXIT_IO)
		status = EXIT_INTR;
	if (r.rd)
		rd_close(r.rd);
	clean_free();
	metrics_free();
	return status;
}
