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
 * nothing behind, not even the -o directory when this run created it. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "rec.h"
#include "tc.h"
#include "vdata.h"

#define WINDOW (4u << 20)          /* initial read window */
#define WINDOW_MAX (1u << 30)      /* the largest single JSON value accepted */
#define DEFAULT_MHZ 1850

enum kind { IN_VDATA, IN_JSON, IN_RECORDS };

static struct wr *trace_w, *metrics_w;
static int trace_stdout;
static const char *trace_shown = "trace.clean.json";   /* its name in messages */

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

/* ---- the trace handler (visualize_data.bin TRACE block, trace.json) ---- */

struct tctx {
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
	size_t n;
	const char *raw = jval_raw(val, &n);
	if (val->type == JT_OBJ || val->type == JT_ARR) {
		if (jstr_eq(key, "traceEvents", 11)) {
			t->bad_events = 1;
			return 1;
		}
		return 0;
	}
	if (jstr_eq(key, "traceEvents", 11)) {
		t->bad_events = 1;
		return 1;
	}
	if (jstr_eq(key, "profilingType", 13))
		clean_header(raw, n, NULL, 0);
	else if (jstr_eq(key, "schemaVersion", 13))
		clean_header(NULL, 0, raw, n);
	return 0;
}

static int t_element(void *ctx, const struct jval *key, const struct jobj *o, const struct jval *v,
                     uint64_t off)
{
	struct tctx *t = ctx;
	(void)v;
	if (!key)
		t->saw_events = 1;     /* the array form: the document is the events */
	if (cli_interrupted || wr_error(trace_w))
		return 1;
	return clean_trace_event(o, off) ? 1 : 0;
}

/* ---- records ---- */

static unsigned mhz = DEFAULT_MHZ;

/* Ticks to integer microseconds * 10^6, rounded half up: timeline-emit's
 * conversion, so both give the same timestamps. */
static uint64_t us6(uint64_t ticks)
{
	uint64_t q = ticks / mhz, r = ticks % mhz;
	if (q > UINT64_MAX / 1000000 - 1)
		return UINT64_MAX;
	return q * 1000000 + (r * 1000000 + mhz / 2) / mhz;
}

struct rstats {
	uint64_t bad, instrs, lines;
	int header, trailer, interrupted;
};

static int take_record(const struct rec *r, struct rstats *st)
{
	struct rinstr ri;
	char core[48], pipe[32];

	memset(&ri, 0, sizeof ri);
	switch (r->sc->kind) {
	case K_HEADER:
		st->header = 1;
		if (r->n[H_MHZ].u && r->n[H_MHZ].u < 100000)
			mhz = (unsigned)r->n[H_MHZ].u;
		else
			cli_warn("the stream's header has no clock; using %u MHz", DEFAULT_MHZ);
		return 0;
	case K_TRAILER:
		st->trailer = 1;
		st->interrupted |= r->n[T_INTERRUPTED].u != 0;
		return 0;
	case K_INSTR: {
		int32_t warp = (int32_t)r->n[I_WARP].i, sch = (int32_t)r->n[I_SCH].i;
		rec_core_name(core, r->n[I_CORE].u, r->n[I_SUBTYPE].u, r->n[I_SUBIDX].u);
		ri.core = core;
		ri.core_n = strlen(core);
		if (warp != -1 && sch != -1) {
			/* SIMT instructions are drawn per warp, as timeline-emit does. */
			ri.pipe = pipe;
			ri.pipe_n = (size_t)snprintf(pipe, sizeof pipe, "WARP_%d", warp);
		} else {
			ri.pipe = r->s[IS_PIPE].p;
			ri.pipe_n = r->s[IS_PIPE].n;
		}
		ri.name = r->s[IS_NAME].p;
		ri.name_n = r->s[IS_NAME].n;
		ri.detail = r->s[IS_DETAIL].p;
		ri.detail_n = r->s[IS_DETAIL].n;
		ri.ts6 = us6(r->n[I_START].u);
		ri.te6 = us6(r->n[I_END].u);
		ri.set6 = us6(r->n[I_END].u ? r->n[I_END].u - 1 : 0);
		ri.pc = r->n[I_PC].u == REC_NONE ? 0 : r->n[I_PC].u;
		ri.bytes = r->n[I_BYTES].i;
		st->instrs++;
		/* INSTR_API leaves cache misses out (see optrace-vdata(5),
		 * VISUALIZE_DATA.BIN, INSTR_API). */
		if (!(r->s[IS_PIPE].n == 9 && !memcmp(r->s[IS_PIPE].p, "CACHEMISS", 9)))
			metrics_take(core, ri.core_n, ri.pc, r->s[IS_PIPE].p, r->s[IS_PIPE].n, ri.name, ri.name_n,
			             ri.detail, ri.detail_n, r->n[I_START].u, r->n[I_END].u, (int32_t)r->n[I_GPR].i,
			             r->n[I_BYTES].i, r->n[I_VECUTIL].f, (int32_t)r->n[I_UBREAD].i,
			             (int32_t)r->n[I_UBWRITE].i, r->n[I_ICACHE].u, r->n[I_CCU].u);
		return clean_record(&ri);
	}
	case K_MARK:
		rec_core_name(core, r->n[M_CORE].u, r->n[M_SUBTYPE].u, r->n[M_SUBIDX].u);
		ri.core = core;
		ri.core_n = strlen(core);
		ri.pipe = "USERMARK";
		ri.pipe_n = 8;
		ri.name = r->s[MS_NAME].p;
		ri.name_n = r->s[MS_NAME].n;
		ri.ts6 = us6(r->n[M_START].u);
		ri.te6 = us6(r->n[M_END].u);
		ri.mark = 1;
		/* ... and has the marks, on their start pc, as timeline-emit
		 * does: no metrics of their own (GPRs, bytes, utilisation,
		 * conflicts all -1). */
		metrics_take(core, ri.core_n, r->n[M_STARTPC].u == REC_NONE ? 0 : r->n[M_STARTPC].u, "USERMARK", 8,
		             ri.name, ri.name_n, r->s[MS_DETAIL].p, r->s[MS_DETAIL].n, r->n[M_START].u,
		             r->n[M_END].u, -1, -1, -1.0, -1, -1, REC_NONE, REC_NONE);
		return clean_record(&ri);
	default:
		return 0;
	}
}

/* Lines of a record stream, from the window (the first bytes are in it
 * already: they told what the input is). */
static int read_records(struct jbuf *jb, const char *name, struct rstats *st)
{
	struct rec_dec dec = { 0 };
	int status = 0;

	for (;;) {
		char *line = jb->b + jb->pos, *nl = memchr(line, '\n', jb->end - jb->pos);
		size_t len;
		struct rec r;
		const char *why;
		int k;

		if (cli_interrupted || wr_error(trace_w))
			break;
		if (!nl) {
			k = jbuf_more(jb);
			if (k > 0)
				continue;
			if (k < 0) {
				if (jb->err)
					cli_warn("%s: read error: %s", name, strerror(jb->err));
				else
					cli_warn("%s:%llu: a line longer than %u MiB", name,
					         (unsigned long long)st->lines + 1, WINDOW_MAX >> 20);
				status = jb->err ? EXIT_IO : EXIT_UNUSABLE;
				break;
			}
			if (jb->pos == jb->end)
				break;
			/* A last line without LF still counts. */
			line = jb->b + jb->pos;
			len = jb->end - jb->pos;
			jb->pos = jb->end;
		} else {
			len = (size_t)(nl - line);
			jb->pos = (size_t)(nl + 1 - jb->b);
		}
		st->lines++;
		if (!len)
			continue;
		k = rec_decode(&dec, line, len, &r, &why);
		if (k == DEC_BAD) {
			if (st->bad++ < 5)
				cli_warn_at(name, st->lines, "bad record: %s", why);
			continue;
		}
		if (k == DEC_UNKNOWN)
			continue;
		if (take_record(&r, st)) {
			status = EXIT_UNUSABLE;
			cli_warn("%s: %s", name, clean_error);
			break;
		}
	}
	rec_dec_free(&dec);
	return status;
}

/* ---- input resolution ---- */

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = xmalloc(n);
	snprintf(p, n, "%s/%s", a, b);
	return p;
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrndup(".", 1);
	if (slash == path)
		return xstrndup("/", 1);
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
		char *p = join(dir, tries[i]);
		if (is_file(p)) {
			if (i >= 2)
				cli_note("%s: no visualize_data.bin; reading %s (no metrics)", dir, p);
			return p;
		}
		free(p);
	}
	return NULL;
}

/* The 12-byte header of a first block: reserved byte 0x5A, padding 0..3,
 * a size that is a multiple of 4.  No JSON text or record stream starts
 * that way (byte 9 would be a control character inside the first token). */
/* How JSON text or a record stream can begin. */
static int text_opening(unsigned char c)
{
	return c == '{' || c == '[' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || (c >= 'A' && c <= 'Z');
}

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

static enum kind sniff_text(const char *b, size_t n)
{
	size_t i = 0;
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	if (i < n && b[i] == '{') {
		/* JSON Lines records open with "kind". */
		size_t j = i + 1;
		while (j < n && (b[j] == ' ' || b[j] == '\t'))
			j++;
		if (n - j >= 6 && !memcmp(b + j, "\"kind\"", 6))
			return IN_RECORDS;
		return IN_JSON;
	}
	if (i < n && b[i] == '[')
		return IN_JSON;
	if (i == 0 && n && b[0] >= 'A' && b[0] <= 'Z')
		return IN_RECORDS;
	return IN_JSON;     /* the scanner says what is wrong with it */
}

/* ---- main ---- */


static void abort_outputs(void)
{
	if (trace_w) {
		if (trace_stdout) {
			clean_abort_close();
			wr_close(trace_w);
		} else {
			wr_abort(trace_w);
		}
		trace_w = NULL;
	}
	if (metrics_w) {
		wr_abort(metrics_w);
		metrics_w = NULL;
	}
}

/* The trace writer failed: a reader that went away (| head) ends the run
 * quietly, as every tool does; anything else is an I/O error. */
static int write_failed(void)
{
	int e = wr_error(trace_w);
	if (e == EPIPE && trace_stdout) {
		wr_abort(trace_w);
		trace_w = NULL;
		return EXIT_OK;
	}
	errno = e;
	cli_warn("%s: write error:", trace_stdout ? "(stdout)" : trace_shown);
	return EXIT_IO;
}

/* The directories this run created for -o, outermost first: removed again
 * (when still empty) if the run fails. */
static char *created[64];
static int ncreated;

static int make_dir(const char *p)
{
	if (mkdir(p, 0777) == 0) {
		if (ncreated < (int)(sizeof created / sizeof created[0]))
			created[ncreated++] = xstrndup(p, strlen(p));
		return 0;
	}
	return errno == EEXIST ? 0 : -1;
}

static int mkdirs(const char *path)
{
	char *p = xstrndup(path, strlen(path)), *s;
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
	return rc || !is_dir(path) ? -1 : 0;
}

static void remove_created(void)
{
	while (ncreated > 0) {
		ncreated--;
		rmdir(created[ncreated]);
		free(created[ncreated]);
	}
}

/* ---- the output set ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (flag == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

static void remove_tree(const char *path)
{
	nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Move the complete set from the staging directory stg into dir (shown as
 * shown in messages): raw_simulator/ (when made), instr_metrics.json (when
 * written), trace.clean.json last.  An older file is first linked aside in
 * stg, an older raw_simulator/ swapped with the new one, so that when a
 * move fails every one already made is undone and the older set is back as
 * it was.  0, or -1 after a message. */
enum { OUT_RAW, OUT_METRICS, OUT_TRACE, OUT_N };
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
		from = join(stg, names[i]);
		to = join(dir, names[i]);
		old = join(stg, i == OUT_RAW ? "old.raw_simulator" : i == OUT_METRICS ? "old.instr_metrics.json"
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
		to = join(dir, names[j]);
		back = join(stg, j == OUT_RAW ? names[j] : j == OUT_METRICS ? "old.instr_metrics.json"
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

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "output", required_argument, NULL, 'o' },
		{ "output-dir", required_argument, NULL, 'o' },
		{ "keep-scalar", no_argument, NULL, 'S' },
		{ "raw-metrics", no_argument, NULL, 'R' },
		{ "no-copy-raw", no_argument, NULL, 'N' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	struct clean_opts co = { 0 };
	int raw_metrics = 0, no_copy = 0, c, status = EXIT_OK;
	const char *outopt = NULL, *arg;
	char *input = NULL, *outdir = NULL, *srcdir = NULL, *tpath = NULL, *mpath = NULL;
	char *stg = NULL, *tshown = NULL, *mshown = NULL;
	int want[OUT_N] = { 0 };
	enum kind kind;
	struct src src = { 0 };
	struct jbuf jb = { 0 };
	struct vdata_r *vr = NULL;
	int trace_blk = -1, instr_blk = -1, from_stdin = 0, have_metrics = 0;
	uint64_t trace_off = 0;
	char err[256];

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': cli_version();
		case 'o': outopt = optarg; break;
		case 'S': co.keep_scalar = 1; break;
		case 'R': raw_metrics = 1; break;
		case 'N': no_copy = 1; break;
		case 'q': cli_verbosity = 0; break;
		case 'v': cli_verbosity = 2; break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		cli_warn("one input at a time");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (optind == argc && isatty(0)) {
		cli_warn("no input (a visualize_data.bin, an OPPROF_* directory, a trace.json, or records on stdin)");
		usage(stderr);
		return EXIT_USAGE;
	}
	if (outopt && !*outopt) {
		cli_warn("-o: empty directory name");
		return EXIT_USAGE;
	}
	arg = optind < argc ? argv[optind] : "-";

	/* ---- what is the input ---- */
	if (!strcmp(arg, "-")) {
		from_stdin = 1;
		input = xstrndup("-", 1);
	} else if (is_dir(arg)) {
		input = resolve_dir(arg);
		if (!input) {
			cli_warn("%s: no visualize_data.bin or trace.json in it or in its simulator/", arg);
			return EXIT_UNUSABLE;
		}
	} else {
		input = xstrndup(arg, strlen(arg));
	}
	{
		unsigned char head[16];
		ssize_t k = -1;
		int fd = from_stdin ? 0 : open(input, O_RDONLY | O_CLOEXEC);
		struct stat st;
		if (fd < 0) {
			cli_warn("%s: cannot open:", input);
			free(input);
			return EXIT_UNUSABLE;
		}
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			k = pread(fd, head, sizeof head, 0);
		if (!from_stdin)
			close(fd);
		if (k > 0 && vdata_signature(head, (size_t)k)) {
			kind = IN_VDATA;
		} else if (k >= VDATA_HEADER_SIZE && !text_opening(head[0]) &&
		           memcmp(head, "\x04\x22\x4d\x18", 4)) {
			/* Neither JSON, records, lz4, nor a container's first header. */
			cli_warn("%s: offset 11: reserved byte is 0x%02X, not 0x5A: not a visualize_data.bin, "
			         "trace JSON or record stream", input, head[11]);
			free(input);
			return EXIT_UNUSABLE;
		} else {
			kind = IN_JSON;     /* or records: decided on the decompressed bytes */
		}
	}
	if (kind == IN_VDATA) {
		/* Walk every header first: a corrupt container is refused before
		 * anything is written. */
		struct vdata_blk b;
		int i = 0, k;
		vr = vdata_ropen(from_stdin ? "-" : input, err, sizeof err);
		if (!vr) {
			cli_warn("%s: %s", input, err);
			free(input);
			return EXIT_UNUSABLE;
		}
		while ((k = vdata_next(vr, &b, err, sizeof err)) == 1) {
			if (b.type == VDATA_TRACE && trace_blk < 0) {
				trace_blk = i;
				trace_off = b.payload_offset;
			}
			if (b.type == VDATA_INSTR_API && instr_blk < 0)
				instr_blk = i;
			i++;
		}
		vdata_rclose(vr);
		vr = NULL;
		if (k < 0) {
			cli_warn("%s: %s", input, err);
			free(input);
			return errno == EBADMSG ? EXIT_UNUSABLE : EXIT_IO;
		}
		if (trace_blk < 0) {
			cli_warn("%s: no TRACE block (%d block%s)", input, i, i == 1 ? "" : "s");
			free(input);
			return EXIT_UNUSABLE;
		}
	}

	/* ---- where the outputs go ---- */
	if (outopt && !strcmp(outopt, "-")) {
		trace_stdout = 1;
	} else if (outopt) {
		if (mkdirs(outopt)) {
			cli_warn("%s: cannot create the output directory:", outopt);
			remove_created();
			free(input);
			return EXIT_IO;
		}
		outdir = xstrndup(outopt, strlen(outopt));
	} else {
		outdir = from_stdin ? xstrndup(".", 1) : dir_of(input);
	}
	if (!from_stdin)
		srcdir = dir_of(input);
	if (trace_stdout) {
		trace_w = wr_open("-", 0);
	} else {
		stg = join(outdir, ".trace-clean.XXXXXX");
		if (!mkdtemp(stg)) {
			cli_warn("%s: cannot create a directory in it:", outdir);
			free(stg);
			stg = NULL;
			status = EXIT_IO;
			goto done;
		}
		tpath = join(stg, "trace.clean.json");
		tshown = join(outdir, "trace.clean.json");
		trace_shown = tshown;
		trace_w = wr_open(tpath, 0);
	}
	if (!trace_w) {
		cli_warn("%s: cannot create:", tshown ? tshown : "(stdout)");
		status = EXIT_IO;
		goto done;
	}
	clean_begin(trace_w, &co);

	/* ---- the trace ---- */
	if (kind == IN_VDATA) {
		struct vdata_blk b;
		int i;
		vr = vdata_ropen(from_stdin ? "-" : input, err, sizeof err);
		for (i = 0; vr && i <= trace_blk; i++)
			if (vdata_next(vr, &b, err, sizeof err) != 1) {
				vdata_rclose(vr);
				vr = NULL;
			}
		if (!vr) {
			cli_warn("%s: %s", input, err);
			status = EXIT_IO;
			goto done;
		}
		src.vr = vr;
		src.base = trace_off;
	} else {
		src.rd = from_stdin ? rd_fdopen(0, "(stdin)") : rd_open(input);
		if (!src.rd) {
			cli_warn("%s: cannot open:", input);
			status = EXIT_UNUSABLE;
			goto done;
		}
	}
	src.name = from_stdin ? "(stdin)" : input;
	jbuf_init(&jb, &src, WINDOW, WINDOW_MAX);
	if (kind != IN_VDATA) {
		int k = jbuf_more(&jb);
		if (k < 0) {
			cli_warn("%s: read error: %s", src.name, strerror(jb.err ? jb.err : EIO));
			status = EXIT_IO;
			goto done;
		}
		if (k == 0) {
			cli_warn("%s: empty input", src.name);
			status = EXIT_UNUSABLE;
			goto done;
		}
		kind = sniff_text(jb.b, jb.end);
	}
	if (kind == IN_RECORDS) {
		struct rstats rs = { 0 };
		/* The header timeline-emit gives the same records. */
		clean_header("\"op\"", 4, "2", 1);
		status = read_records(&jb, src.name, &rs);
		if (!status && wr_error(trace_w))
			status = write_failed();
		if (status)
			goto done;
		if (rs.bad) {
			cli_warn("%s: %llu bad records skipped", src.name, (unsigned long long)rs.bad);
			status = EXIT_PARTIAL;
		}
		if (!rs.header && rs.instrs)
			cli_warn("%s: the stream has no header: times assume %u MHz", src.name, DEFAULT_MHZ);
		if (!rs.header && !rs.instrs && !rs.lines) {
			cli_warn("%s: no records", src.name);
			status = EXIT_UNUSABLE;
			goto done;
		}
		if (!rs.trailer && !cli_interrupted) {
			cli_warn("%s: the stream has no trailer: it was cut short upstream", src.name);
			status = EXIT_PARTIAL;
		} else if (rs.interrupted) {
			cli_warn("%s: the producer was interrupted: the stream is incomplete", src.name);
			status = EXIT_PARTIAL;
		}
		have_metrics = metrics_have();
	} else {
		struct tctx tc = { 0, 0 };
		struct jhandler h = { t_stream_key, t_value, t_element };
		struct jfail f;
		int st = jscan(&jb, &h, &tc, &f);
		const char *what = kind == IN_VDATA ? "TRACE block: " : "";
		if (st == JS_STOP && wr_error(trace_w)) {
			status = write_failed();
			goto done;
		}
		if (st == JS_STOP && !cli_interrupted) {
			if (tc.bad_events)
				cli_warn("%s: %straceEvents is not an array", src.name, what);
			else
				cli_warn("%s: %s", src.name, clean_error);
			status = EXIT_UNUSABLE;
			goto done;
		}
		if (st && st != JS_STOP) {
			cli_warn("%s: offset %llu: %snot valid JSON: %s%s", src.name,
			         (unsigned long long)(src.base + f.off), what, f.msg,
			         src.rd && rd_is_lz4(src.rd) ? " (offset in the decompressed data)" : "");
			status = st == JS_IO ? EXIT_IO : EXIT_UNUSABLE;
			goto done;
		}
		if (!st && !tc.saw_events) {
			cli_warn("%s: %sno traceEvents array", src.name, what);
			status = EXIT_UNUSABLE;
			goto done;
		}
	}
	if (cli_interrupted) {
		status = EXIT_INTR;
		goto done;
	}
	if (clean_finish()) {
		if (clean_error[0]) {
			cli_warn("%s: %s", src.name, clean_error);
			status = EXIT_UNUSABLE;
		} else {
			status = write_failed();
		}
		goto done;
	}
	if (cstats.malformed) {
		cli_warn("%s: %llu events skipped (first: %s)", src.name, (unsigned long long)cstats.malformed,
		         cstats.malformed_example);
		status = EXIT_PARTIAL;
	}
	jbuf_free(&jb);
	if (vr) {
		vdata_rclose(vr);
		vr = NULL;
	}

	/* ---- the metrics ---- */
	if (trace_stdout) {
		if (instr_blk >= 0 || have_metrics)
			cli_note("the trace goes to standard output: instr_metrics.json not written");
	} else if (kind == IN_VDATA && instr_blk < 0) {
		/* A warning, not an input problem: the simulator writes no such
		 * block for some runs, and the trace is whole without it. */
		cli_warn("%s: no API_INSTR (INSTR_API) block: instr_metrics.json not written", input);
	} else if (kind == IN_VDATA || have_metrics) {
		mpath = join(stg, "instr_metrics.json");
		mshown = join(outdir, "instr_metrics.json");
		metrics_w = wr_open(mpath, 0);
		if (!metrics_w) {
			cli_warn("%s: cannot create:", mshown);
			status = EXIT_IO;
			goto done;
		}
		if (kind == IN_VDATA && raw_metrics) {
			/* Byte for byte: the payload as stored. */
			struct vdata_blk b;
			char *buf = xmalloc(1u << 20);
			ssize_t k = 0;
			int i;
			vr = vdata_ropen(input, err, sizeof err);
			for (i = 0; vr && i <= instr_blk; i++)
				if (vdata_next(vr, &b, err, sizeof err) != 1) {
					vdata_rclose(vr);
					vr = NULL;
				}
			while (vr && (k = vdata_read(vr, buf, 1u << 20)) > 0)
				wr_put(metrics_w, buf, (size_t)k);
			free(buf);
			if (!vr || k < 0) {
				cli_warn("%s: INSTR_API block: %s", input, vr ? strerror(errno) : err);
				status = EXIT_IO;
				goto done;
			}
		} else if (kind == IN_VDATA) {
			int k = metrics_reshape(from_stdin ? "-" : input, instr_blk, metrics_w, err, sizeof err);
			if (k) {
				cli_warn("%s: %s%s: instr_metrics.json not written", input,
				         k == -1 ? "INSTR_API block: " : "", err);
				wr_abort(metrics_w);
				metrics_w = NULL;
				if (k == -2) {
					status = EXIT_IO;
					goto done;
				}
				status = EXIT_PARTIAL;
			}
		} else {
			metrics_set_raw(raw_metrics);
			metrics_write(metrics_w);
		}
	}
	if (cli_interrupted) {
		status = EXIT_INTR;
		goto done;
	}

	/* ---- raw_simulator/, then everything into place ---- */
	if (outopt && !trace_stdout && !no_copy && srcdir && !same_dir(srcdir, outdir)) {
		int copied = 0;
		if (rawcopy(srcdir, input, stg, outdir, outdir, &copied)) {
			status = cli_interrupted ? EXIT_INTR : EXIT_IO;
			goto done;
		}
		want[OUT_RAW] = 1;
		if (cli_verbosity >= 2)
			cli_note("copied %d file%s to %s/raw_simulator", copied, copied == 1 ? "" : "s", outdir);
	}
	if (metrics_w) {
		c = wr_close(metrics_w);
		metrics_w = NULL;
		if (c) {
			errno = c;
			cli_warn("%s: write error:", mshown);
			status = EXIT_IO;
			goto done;
		}
		want[OUT_METRICS] = 1;
	}
	c = wr_close(trace_w);
	trace_w = NULL;
	if (c && c != EPIPE) {
		errno = c;
		cli_warn("%s: write error:", tshown ? tshown : "(stdout)");
		status = EXIT_IO;
		goto done;
	}
	if (stg) {
		want[OUT_TRACE] = 1;
		if (commit_set(stg, outdir, outdir, want)) {
			status = EXIT_IO;
			goto done;
		}
	}
	if (!trace_stdout)
		cli_note("wrote %s: %llu slices on %llu tracks of %llu cores, %llu arrows", tshown,
		         (unsigned long long)cstats.slices_written, (unsigned long long)cstats.tracks,
		         (unsigned long long)cstats.cores, (unsigned long long)cstats.arrows);
	if (want[OUT_METRICS])
		cli_note("wrote %s", mshown);
	if (!cstats.slices_written && cstats.dropped_scalar && !co.keep_scalar)
		cli_warn("%s: no slice kept: %llu instructions on the SCALAR lanes were dropped; --keep-scalar "
		         "keeps them", src.name, (unsigned long long)cstats.dropped_scalar);
	{
		uint64_t lost = cstats.sets_alone + cstats.waits_alone + cstats.no_producer + cstats.no_consumer;
		if (lost)
			cli_note("%llu sync flags not drawn as arrows: %llu SETs without a WAIT, %llu WAITs "
			         "without a SET, %llu pairs without a kept producer instruction, %llu without "
			         "a kept consumer instruction",
			         (unsigned long long)lost, (unsigned long long)cstats.sets_alone,
			         (unsigned long long)cstats.waits_alone, (unsigned long long)cstats.no_producer,
			         (unsigned long long)cstats.no_consumer);
	}
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
done:
	if (status == EXIT_UNUSABLE || status == EXIT_IO || status == EXIT_INTR)
		abort_outputs();
	if (stg)
		remove_tree(stg);  /* what did not go into place, and the older set after it did */
	if (status == EXIT_UNUSABLE || status == EXIT_IO || status == EXIT_INTR)
		remove_created();
	while (ncreated > 0)
		free(created[--ncreated]);
	if (cli_interrupted && status != EXIT_UNUSABLE && status != EXIT_IO)
		status = EXIT_INTR;
	jbuf_free(&jb);
	if (vr)
		vdata_rclose(vr);
	if (src.rd)
		rd_close(src.rd);
	clean_free();
	metrics_free();
	free(input);
	free(outdir);
	free(srcdir);
	free(tpath);
	free(mpath);
	free(stg);
	free(tshown);
	free(mshown);
	return status;
}
