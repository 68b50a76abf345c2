/* The skeleton shared by the record filters (instr-parse, icache-merge,
 * scalar-merge, mte-parse): their inputs, their guarded output, the
 * upstream header and trailer they absorb, and their exit status.
 *
 * What each tool does with the records, and the header it writes once the
 * SoC is known, stay in the tool. */
#ifndef OPTRACE_FILTER_H
#define OPTRACE_FILTER_H

#include <stdint.h>

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
 * interrupted, failed, or is quiet. */
void upstream_check_end(const struct upstream *u, const struct rec_out *o, int read_failed);

/* The losses' diag records and our trailer, with the upstream totals. */
void upstream_put_trailer(const struct upstream *u, struct losses *ls, struct rec_out *o,
                          uint64_t bad, uint64_t dropped);

/* The operands argv[first..argc) or "-" when there are none, opened; exits
 * with EXIT_UNUSABLE when one cannot be.  *nin receives the count. */
struct rd **filter_open_inputs(int argc, char **argv, int first, int *nin);
/* Close and free what filter_open_inputs returned. */
void filter_close_inputs(struct rd **in, int nin);

/* Count the bad record of kind k at the reader's line; the first three are
 * warned about as file:line. */
void filter_bad_record(struct losses *ls, int k, uint32_t file, const struct rd *in, const char *why);

/* Warn of a read error of in; returns 1 when there was one. */
int filter_read_error(const struct rd *in);

/* Open path ("-" = stdout) for o in the mode the options ask (lz4 forces
 * binary over text); exits with EXIT_IO when it cannot be created.  Until
 * filter_close_output, an exit aborts the output (a named file is not
 * left half written). */
void filter_open_output(struct rec_out *o, const char *producer, const char *path,
                        int json, int text, int bin, int lz4);

/* Close (or, after a read failure, abort) the output and return the exit
 * status: EXIT_IO on a read or write failure (a broken pipe is quiet and
 * EXIT_OK), EXIT_INTR, EXIT_PARTIAL with problems or no upstream trailer,
 * else EXIT_OK. */
int filter_close_output(struct rec_out *o, const char *path, int read_failed,
                        uint64_t problems, const struct upstream *u);

#endif
