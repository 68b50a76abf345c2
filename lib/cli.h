/* Messages, exit statuses and signal handling shared by every tool. */
#ifndef OPTRACE_CLI_H
#define OPTRACE_CLI_H

#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stddef.h>

/* The one exit-status table of the project (see every man page). */
enum {
	EXIT_OK = 0,        /* success */
	EXIT_PARTIAL = 1,   /* input problems found, output produced */
	EXIT_USAGE = 2,     /* bad command line */
	EXIT_UNUSABLE = 3,  /* input unusable, nothing produced */
	EXIT_IO = 4,        /* I/O or system error */
	EXIT_INTR = 130     /* interrupted; output closed and valid */
};

#define OPTRACE_VERSION "0.1.0"

/* The long options of every tool (getopt_long's struct option): -h,
 * --version and -o first in a tool's table, -q, -v and the end last. */
#define CLI_LONGOPTS \
	{ "help", no_argument, NULL, 'h' }, \
	{ "version", no_argument, NULL, 'V' }, \
	{ "output", required_argument, NULL, 'o' }
#define CLI_LONGOPTS_END \
	{ "quiet", no_argument, NULL, 'q' }, \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ NULL, 0, NULL, 0 }

extern const char *cli_prog;   /* tool name for messages */
extern int cli_verbosity;      /* 0 quiet, 1 normal, 2 verbose */
extern volatile sig_atomic_t cli_interrupted;

/* Set the tool name, install SIGINT/SIGTERM flags and ignore SIGPIPE (write
 * errors with EPIPE are handled by the writer). */
void cli_init(const char *prog);

/* "tool: message" on stderr.  warn* appends ": strerror(errno)" when the
 * format ends with ':'. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "tool: file:line: message" (line 0 = no line). */
void cli_warn_at(const char *file, unsigned long long line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void cli_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void cli_die(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The end of a run that printed on standard output through stdio (a
 * summary): flushed and checked.  A write error is said, "(stdout): cannot
 * write: ...", and makes the status EXIT_IO (EXIT_INTR stays); EPIPE, the
 * reader gone away, is not an error.  Returns the status to exit with. */
int cli_stdout_done(int status);
/* fflush(f); for stdout the errno of a failure is kept for
 * cli_stdout_done (stdio forgets it).  0 or EOF, as fflush. */
int cli_flush(FILE *f);

/* The exit-time cleanup list: fn(arg) runs when the process exits before
 * the matching cli_cleanup_remove (cli_die, exit, a return from main), the
 * latest first, and only in the process that added it (never in a forked
 * child).  The writer registers every named output here, so a fatal error
 * anywhere removes the half-written temporary file; a tool adds its own
 * temporary files and directories the same way. */
void cli_cleanup_add(void (*fn)(void *), void *arg);
/* Take fn(arg) off the list (nothing when it is not there). */
void cli_cleanup_remove(void (*fn)(void *), void *arg);
/* Run the list now, the latest first, and empty it: what an exit would
 * do, for a caller that ends a run without ending the process. */
void cli_cleanup_run(void);

/* Refuse (EXIT_USAGE) to write lz4 frames to a terminal: lz4 asked for,
 * and path "-" (or NULL) with stdout a terminal, or path a terminal device
 * (-o /dev/tty).  (Binary records never go to a terminal: cli_out_mode
 * shows them as text there.) */
void cli_refuse_tty(const char *path, int lz4);

/* Print the version line and exit 0. */
_Noreturn void cli_version(void);

/* Parse an unsigned decimal option value or die with EXIT_USAGE. */
unsigned long long cli_num(const char *opt, const char *s);

/* The chip table's entry of a --soc-version value (any case), or exit with
 * EXIT_USAGE and the one message every tool gives for an unknown SoC. */
struct chip;
const struct chip *cli_soc(const char *soc);

/* A --core-id list: ids and ranges joined by '|' or ',' ("0|31",
 * "0-2,12-14"; spaces around them allowed), each id 0..2^32-1.  Returns 0
 * with *v (malloc'ed, to free) and *n, or -1 when spec is not such a list
 * (nothing allocated).  Every tool that takes --core-id parses it here. */
struct cli_range { unsigned lo, hi; };
int cli_core_ids(const char *spec, struct cli_range **v, size_t *n);

/* The record output encoding chosen by --json / --text / the environment
 * (OPTRACE_FORMAT=json|bin|text) / whether stdout is a terminal. */
enum rec_mode { REC_BIN, REC_JSON, REC_TEXT };
enum rec_mode cli_out_mode(int want_json, int want_text, int want_bin, int fd);

#endif
