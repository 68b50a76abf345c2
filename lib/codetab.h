/* The source lines of pcs, from src-map(1)'s code records: pc -> the
 * record's stack (its source lines, one per inline level), kept
 * JSON-quoted for the trace writers' "code" arguments (biu-timeline,
 * aic-timeline, mc2-timeline). */
#ifndef OPTRACE_CODETAB_H
#define OPTRACE_CODETAB_H

#include <stddef.h>
#include <stdint.h>

#include "keytab.h"

struct codetab {
	struct keytab ix;       /* pc -> index + 1 */
	char **json;
	size_t *json_n, n, max; /* max: the longest quoted stack */
};

/* The code records of path (any record encoding; other records are passed
 * over; a stack of no more than "??" is none; a pc given twice keeps the
 * last).  0; -1 when path cannot be opened or read (t holds what was read,
 * msg the reason). */
int codetab_read(struct codetab *t, const char *path, char *msg, size_t size);
/* The quoted stack of pc and its length; NULL when none. */
const char *codetab_json(const struct codetab *t, uint64_t pc, size_t *n);
void codetab_free(struct codetab *t);

#endif
