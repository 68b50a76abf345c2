/* The skeleton shared by the record tools (instr-parse, icache-merge,
 * scalar-merge, mte-parse, src-map, rec-cat): their inputs, their guarded output, the
 * upstream header and trailer they absorb, and their exit status.
 *
 * What each tool does with the records, and the header it writes once the
 * SoC is known, stay in the tool. */
#ifndef OPTRACE_FILTER_H
#define OPTRACE_FILTER_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "io.h"
#include "loss.h"
#include "chip.h"
#include "rec.h"

/* What came from upstream: the first header's fields and the trailers'
 * totals.  A filter writes one header and one trailer of its own. */
struct upstream {
	int got_header;
	char *soc, *origin;         /* of the first header; NULL before one */
	unsigned mhz;
	int trailer;                /* the last record read was a trailer */
	int interrupted;
	uint64_t bad, dropped;
};

/* Note record r (rec_decode gave k, not DEC_BAD).  Returns 1 when r is a
 * header, kept if it is the first and to be absorbed. */
int upstream_record(struct upstream *u, int k, const struct rec *r);
/* Fold the trailer record r into the totals; it is to be absorbed. */
void upstream_trailer(struct upstream *u, const struct rec *r);
void upstream_free(struct upstream *u);
/* The SoC of the stream: the --soc-version option when given, else the
 * first upstream header's, else the default (never NULL). */
const struct chip *upstream_chip(const struct upstream *u, const char *soc_option);

/* The warning when the input ended without a trailer, unless the run was
 * interrupted, failed, or is quiet (o: the output, NULL for a sink). */
void upstream_check_end(const struct upstream *u, const struct rec_out *o, int read_failed);

/* The losses' diag records and our trailer, with the upstream totals (marked
 * interrupted when the input was, or ended without its trailer). */
void upstream_put_trailer(const struct upstream *u, struct losses *ls, struct rec_out *o,
                          uint64_t bad, uint64_t dropped);

/* The operands argv[first..argc) or "-" when there are none, opened; exits
 * with EXIT_UNUSABLE when one cannot be.  *nin receives the count. */
struct rd **filter_open_inputs(int argc, char **argv, int first, int *nin);
/* Close and free what filter_open_inputs returned. */
void filter_close_inputs(struct rd **in, int nin);

/* Count the bad record of kind k at the reader's line (rd_lineno: of a
 * reader read by rd_line); the first three are warned about as file:line. */
void filter_bad_record(struct losses *ls, int k, uint32_t file, const struct rd *in, const char *why);

/* Warn of a read error of in; returns 1 when there was one. */
int filter_read_error(const struct rd *in);

/* Open path ("-" = stdout) for o in the mode the options ask (lz4 forces
 * binary over text); exits with EXIT_USAGE for lz4 to a terminal
 * (cli_refuse_tty), EXIT_IO when it cannot be created.  Until
 * filter_close_output, an exit aborts the output (a named file is not
 * left half written). */
void filter_open_output(struct rec_out *o, const char *producer, const char *path,
                        int json, int text, int bin, int lz4);

/* Close (or, after a read failure, abort) the output and return the exit
 * status: EXIT_IO on a read or write failure (a broken pipe is quiet and
 * EXIT_OK), EXIT_INTR, EXIT_PARTIAL with problems or no upstream trailer
 * (u NULL: the trailer is not asked for), else EXIT_OK. */
int filter_close_output(struct rec_out *o, const char *path, int read_failed,
                        uint64_t problems, const struct upstream *u);

/* ---- the whole run of a record filter ----
 *
 * The tool fills in a struct filter (its name, losses, hooks), parses its
 * options with filter_option taking the common ones, and calls filter_run,
 * which reads the inputs, absorbs the upstream headers and trailers, writes
 * the header, the tool's records and the trailer, and returns the exit
 * status.  The hooks see the run through f (f->out, f->up). */

/* The common options, in this order in every filter's table: put
 * FILTER_LONGOPTS first and FILTER_LONGOPTS_END last (--soc-version takes
 * 's' where the tool has it); FILTER_SHORTOPTS is the getopt string. */
#define FILTER_SHORTOPTS "ho:qvz"
#define FILTER_LONGOPTS \
	CLI_LONGOPTS, \
	{ "json", no_argument, NULL, 'j' }, \
	{ "text", no_argument, NULL, 't' }, \
	{ "bin", no_argument, NULL, 'b' }, \
	{ "lz4", no_argument, NULL, 'z' }
#define FILTER_LONGOPTS_END CLI_LONGOPTS_END
/* The loss kind of the records filter_run could not decode (f->bad_kind),
 * in the tool's table of loss kinds. */
#define FILTER_LOSS_BAD_RECORD { "records that could not be decoded", 1, 1 }
/* --soc-version, for the filters that take it. */
#define FILTER_LONGOPT_SOC { "soc-version", required_argument, NULL, 's' }

/* The help text of the common options, the same in every tool: after the
 * tool's own lines (struct filter_cli's help), FILTER_USAGE_SOC where it
 * takes --soc-version, then FILTER_USAGE last. */
#define FILTER_USAGE_SOC \
	"  --soc-version=SOC  SoC of the dump (default: the stream header, else " CHIP_DEFAULT_SOC ")\n"
#define FILTER_USAGE \
	"  --json | --text    output encoding (default binary; text on a terminal)\n" \
	"  --lz4              compress the output\n" \
	"  -o FILE            write to FILE (replaced only on success)\n" \
	"  -q, -v             fewer / more messages\n" \
	"  -h, --help, --version\n"

struct filter;
/* What a block hook did with its record (see f->block). */
enum { FILTER_DECODE, FILTER_KEEP, FILTER_DROP };

/* One entry of f->block: the hook of binary records of one kind; the
 * table ends with kind 0. */
struct filter_block {
	int kind;
	int (*hook)(struct filter *f, struct rec_block *b);
};

struct filter_cli;
struct filter {
	/* Set by the tool. */
	const char *tool;           /* the producer of the header */
	struct losses *ls;
	int bad_kind;               /* the loss kind of an undecodable record */
	uint32_t bad_file;          /* and its file id: 0, or LOSS_NOFILE */
	/* The one input, already open (a tool that looked at its first bytes
	 * with rd_peek), read instead of the operands and left open; NULL:
	 * the operands. */
	struct rd *opened;
	/* Called once the SoC is known, just before the header goes out
	 * (when no record came, at the end): chip is upstream_chip(&f->up,
	 * f->soc); header_soc and header_mhz, chip's, may be changed.  May be
	 * NULL. */
	void (*start)(struct filter *f, const struct chip *chip);
	/* Each record after the header that is neither bad, a header nor a
	 * trailer (all but the bad ones when verbatim; a K_SOURCE is also
	 * given to loss_source first): k is DEC_OK,
	 * or DEC_UNKNOWN with r undecoded; line is the raw line.  Returns 1
	 * when it took the record, 0 to have it passed on as it came. */
	int (*record)(struct filter *f, int k, struct rec *r, const char *line, size_t len);
	/* The input is over, read or not: write what is held back, before the
	 * warning of a missing trailer.  May be NULL. */
	void (*drain)(struct filter *f);
	/* The input was read and the output is intact: the last records
	 * before the trailer.  Returns 0 when its own work failed; an output
	 * that failed meanwhile is seen after it.  Either leaves out the
	 * trailer and the report.  May be NULL. */
	int (*finish)(struct filter *f);
	/* After the trailer: the counts on stderr (loss_report when NULL). */
	void (*report)(struct filter *f);

	/* A sink reads records and writes no record stream: no output is
	 * opened, no header or trailer written, every record goes to the
	 * record hook (its return value is not used), and the hook sets stop
	 * to end the reading early (its own output failed).  finish writes
	 * what the sink makes and returns 0 when that failed.  The exit
	 * status: EXIT_IO after a read failure, a stop or a failed finish,
	 * EXIT_INTR when interrupted, EXIT_PARTIAL with problems or without
	 * an upstream trailer, else EXIT_OK. */
	int sink;
	int stop;

	/* A verbatim filter passes the stream on as it is: headers and
	 * trailers are records like the others (given to the record hook,
	 * passed on when it does not take them), it writes no header, diag
	 * records or trailer of its own, and a stream without a trailer is
	 * no problem of its exit status. */
	int verbatim;

	/* Binary records in blocks (rec_block, rec_view in rec.h), for a
	 * filter that changes a few numbers of most records or only reads
	 * them: with f->block set and binary output, the input is read in
	 * blocks instead of lines, and once the header is out each binary
	 * record of a kind the table names (headers, trailers and sources
	 * never) is first given to that kind's hook as the block's current
	 * record (b->line, b->len).  The hook returns FILTER_KEEP to leave the record in the
	 * block's run (patched in place or not: rec_block_patch),
	 * FILTER_DROP to have it taken out of the run (dropped, or written by
	 * the hook itself), or FILTER_DECODE to have it decoded and go the
	 * way of every other record (bad records counted, the record hook).
	 * Not for a sink.  An interrupt ends the reading between blocks, not
	 * between records. */
	const struct filter_block *block;

	/* The common options, set by filter_option. */
	int json, text, bin, lz4;
	const char *outpath;        /* -o; "-" = stdout, which NULL also means */
	const char *soc;            /* --soc-version; NULL when not given */
	const struct filter_cli *cli;  /* the command line filter_main reads */

	/* The run. */
	const struct rd *in;        /* the input being read, for file:line */
	int input;                  /* and its index among the operands */
	uint64_t lineno;            /* the line of the current record in it */
	struct rec_out out;
	struct upstream up;
	const char *header_soc;     /* what the header says (see start) */
	unsigned header_mhz;
	int read_failed;
	uint64_t problems;          /* besides the losses', for the exit status */
};

/* Count a bad record of loss kind k (file id f->bad_file) at the current
 * record's line of f->in (filter_bad_record, right under either reading). */
void filter_bad(struct filter *f, int k, const char *why);

/* Take option c (from getopt_long, with its argument arg) when it is a
 * common one: --json, --text, --bin, --lz4, -o, --soc-version, -q, -v,
 * --version (which exits).  Returns 1 when it took it; -h and the tool's
 * own options are left to the tool. */
int filter_option(struct filter *f, int c, const char *arg);

/* Run the filter over the operands argv[first..argc) (stdin when none):
 * open the inputs (exit EXIT_UNUSABLE) and the output (exit EXIT_IO), read
 * every record until the end, a read error, a write error or an interrupt,
 * count bad records, absorb the upstream headers and trailers, pass on
 * what f->record does not take, then drain, the end-of-input warning,
 * finish, the diag records and trailer, report, and close.  Returns the
 * exit status of filter_close_output. */
int filter_run(struct filter *f, int argc, char **argv, int first);

/* ---- the main of a record filter ----
 *
 * What sets one filter's command line apart from another's: its options
 * table (FILTER_LONGOPTS first, FILTER_LONGOPTS_END last), its losses, and
 * its hooks.  An on/off option of the tool's own can be an entry with a
 * flag, { "count", no_argument, &count, 1 }: getopt_long sets it, and no
 * hook sees it. */
struct filter_cli {
	const struct option *longopts;
	const struct loss_kind *loss_kinds;  /* loss_init of f->ls under f->tool */
	int loss_nkinds;
	/* Sees every option first, with its argument: returns 1 when it took
	 * it, 0 to leave it to filter_option (an option neither takes, other
	 * than -h, is a usage error).  May exit through cli_die.  May be
	 * NULL. */
	int (*option)(struct filter *f, int c, const char *arg);
	/* The help text, to stdout for -h, to stderr on a usage error: the
	 * tool's usage line, what it does and its own options (help), then
	 * FILTER_USAGE_SOC when soc is set, then FILTER_USAGE.  A tool with
	 * other needs gives usage instead, which prints it all. */
	const char *help;
	int soc;
	void (*usage)(FILE *out);
	/* After the options, before the run: returns -1 to run, or the exit
	 * status to end with (having said why, with filter_help for a usage
	 * error).  May be NULL. */
	int (*ready)(struct filter *f);
};

/* The help text of the filter filter_main runs (f->cli) on out. */
void filter_help(const struct filter *f, FILE *out);

/* The whole main of a record filter: cli_init, loss_init, the options
 * (the tool's hook, then filter_option; -h prints the usage and gives
 * EXIT_OK, anything else EXIT_USAGE after the usage on stderr), the ready
 * hook, then filter_run over the operands.  Returns the exit status; the
 * tool frees its state (and its losses) after. */
int filter_main(struct filter *f, const struct filter_cli *cli, int argc, char **argv);

#endif
