/* mte-parse's tokenizer: an MTE-log line taken apart by position (see
 * optrace-sidelogs(5), MTE LOG, Tokens).  A pure function over the line's
 * bytes. */
#ifndef MTE_PARSE_MLINE_H
#define MTE_PARSE_MLINE_H

#include <stddef.h>
#include <stdint.h>

struct mline {
	uint64_t tick, instr_id, req_id, size;
	const char *unit;
	size_t unit_n;
	char rw;
	int has_instr, has_req, has_gid;
	uint64_t gid;
};

enum { ML_OK, ML_IGNORED, ML_BAD };

/* One line of n bytes (without LF and CR): ML_OK with *m filled (unit
 * points into s), ML_IGNORED (no interface), or ML_BAD with *why saying
 * what is wrong. */
int mline_parse(const char *s, size_t n, struct mline *m, const char **why);

#endif
