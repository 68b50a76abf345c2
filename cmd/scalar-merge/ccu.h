/* scalar-merge's CCU line grammar: the issue lines of a CCU log (see
 * optrace-sidelogs(5), CCU LOG).  A pure function over the line's bytes. */
#ifndef SCALAR_MERGE_CCU_H
#define SCALAR_MERGE_CCU_H

#include <stddef.h>
#include <stdint.h>

/* One line of n bytes (no LF needed): 0 = an issue line (*tick and *pc
 * set), 1 = another CCU line, -1 = looks like an issue line but is not in
 * the grammar. */
int ccu_parse(const char *s, size_t n, uint64_t *tick, uint64_t *pc);

#endif
