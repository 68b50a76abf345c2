/* Loss accounting for the record filters: what a tool could not use, by
 * kind, with the first few examples as file:line, reported on stderr and as
 * diag records, and summed for the trailer and the exit status.
 *
 * The tool owns a struct losses and its table of kinds (an enum of its own
 * indexes the table); file ids are named by the paths of the K_SOURCE
 * records the tool passes to loss_source. */
#ifndef OPTRACE_LOSS_H
#define OPTRACE_LOSS_H

#include <stdint.h>

#include "rec.h"

#define LOSS_MAXKINDS 16
#define LOSS_NEXAMPLES 5        /* kept per kind; 3 shown, all with -v */
#define LOSS_NOFILE UINT32_MAX  /* an example without a file (by_file mode) */

struct loss_kind {
	const char *text;           /* "N <text>" on stderr, the diag message */
	unsigned char problem;      /* makes the exit status 1; shown even with -q */
	unsigned char bad;          /* counts as the trailer's "bad", else "dropped" */
};

struct loss_example {
	uint32_t file;
	uint64_t line;
	char what[64];
};

struct losses {
	const char *tool;           /* the diag records' tool field */
	const struct loss_kind *kinds;
	int nkinds;
	/* Which examples have a place to show: by default those with a line
	 * number; with by_file, those whose file is not LOSS_NOFILE (a loss
	 * of a whole file or instruction has a file but no line). */
	int by_file;
	uint64_t count[LOSS_MAXKINDS];
	struct loss_example example[LOSS_MAXKINDS][LOSS_NEXAMPLES];
	char **path;                /* file id -> path, from K_SOURCE records */
	size_t npath;
	char namebuf[32];           /* loss_file_name of an unknown id */
};

/* Start empty; kinds must outlive ls.  nkinds is at most LOSS_MAXKINDS. */
void loss_init(struct losses *ls, const char *tool, const struct loss_kind *kinds, int nkinds);
void loss_free(struct losses *ls);

/* Count one loss of kind k, keeping it as an example while there is room. */
void loss_add(struct losses *ls, int k, uint32_t file, uint64_t line, const char *what);

/* Remember the path of a K_SOURCE record's file id (ids from 2^20 up are
 * ignored); the path of an unknown id reads "(file N)", valid until the next
 * call. */
void loss_source(struct losses *ls, const struct rec *r);
const char *loss_file_name(struct losses *ls, uint32_t id);

/* "N text" per kind with a count (only problems when -q), then its
 * examples as file:line messages. */
void loss_report(struct losses *ls);

/* One K_DIAG record per kind with a count: level 1 for problems, else 2. */
void loss_diag(struct losses *ls, struct rec_out *o);

/* The sums for the trailer and the exit status. */
void loss_totals(const struct losses *ls, uint64_t *bad, uint64_t *dropped, uint64_t *problems);

#endif
