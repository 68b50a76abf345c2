/* icache-merge's line grammar: an icache-log line classified as a miss
 * (in one of three grammars), a fetch request, a hit, a miss line outside
 * the grammar or another line (see optrace-sidelogs(5), ICACHE LOG: Misses,
 * Fetch requests).  Pure functions over the line's bytes. */
#ifndef ICACHE_MERGE_LINE_H
#define ICACHE_MERGE_LINE_H

#include <stddef.h>
#include <stdint.h>

enum grammar { G_A2, G_310P, G_310B, G_NGRAMMARS };
extern const char *const grammar_name[G_NGRAMMARS];

struct miss {
	enum grammar g;
	uint64_t tick, addr;
	const char *addr_s;         /* "0x..." as in the log */
	size_t addr_n;
	const char *tail;           /* "size is 0x..., ..., status is MISS" */
	size_t tail_n;
};

enum { IC_OTHER, IC_MISS, IC_FETCH, IC_HIT, IC_UNPARSED };

/* One line (without LF; a trailing CR is dropped): IC_MISS with *m filled,
 * IC_FETCH with *tick and *addr, IC_HIT, IC_UNPARSED (says "status is MISS"
 * but is not in a miss grammar) or IC_OTHER. */
int icache_parse(const char *text, size_t len, struct miss *m, uint64_t *tick, uint64_t *addr);

/* The bytes miss_detail writes at most. */
#define MISS_DETAIL_MAX 64
/* A miss's detail into d (MISS_DETAIL_MAX bytes): its length. */
size_t miss_detail(char *d, const struct miss *m);

#endif
