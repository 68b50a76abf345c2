/* What a synchronisation instruction's name and detail say: instr-parse
 * parses it once so that the instruction record carries it, and trace-clean
 * reads a trace's text (which has no records) by the same rule (see optrace-records(5), I instr,
 * and optrace-dumps(5), Synchronisation instructions). */
#ifndef OPTRACE_SYNC_H
#define OPTRACE_SYNC_H

#include <stddef.h>

#include "rec.h"

struct sync_fields {
	const char *prod, *cons, *flag;   /* into the detail; "" when absent */
	size_t prod_n, cons_n, flag_n;
};

/* The kind of instruction name (SYNC_NONE for all but the sync names). */
enum rec_sync sync_kind(const char *name, size_t n);

/* The producer pipe, consumer pipe and flag id of a detail: its
 * ','-separated "key:value" pieces, with PIPE / pipe_type the producer,
 * TRIGGERPIPE / tigger_pipe / trigger_pipe the consumer, FLAGID / event_id /
 * sync_id the flag, in any order (a later piece with the same key wins);
 * keys match without their blanks, values are trimmed of them. */
void sync_parse(const char *detail, size_t n, struct sync_fields *out);

#endif
