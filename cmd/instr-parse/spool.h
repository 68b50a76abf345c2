/* instr-parse's spools of pops and executions: byte spools of lib/spill.h
 * (memory within one budget shared by all of them, then an unlinked
 * temporary file), under the names the parser uses. */
#ifndef OPTRACE_SPOOL_H
#define OPTRACE_SPOOL_H

#include <stddef.h>

#include "spill.h"

#define spool spill_bytes

static inline void spool_set_budget(size_t bytes) { spill_bytes_budget(bytes); }
static inline struct spool *spool_new(void) { return spill_bytes_new(); }
static inline void spool_put(struct spool *s, const void *p, size_t n) { spill_bytes_put(s, p, n); }
static inline void spool_rewind(struct spool *s) { spill_bytes_rewind(s); }
static inline size_t spool_get(struct spool *s, void *p, size_t n) { return spill_bytes_get(s, p, n); }
static inline const void *spool_next(struct spool *s, size_t n, void *buf) { return spill_bytes_next(s, n, buf); }
static inline size_t spool_read(struct spool *s, size_t n, void *buf, const void **p) { return spill_bytes_read(s, n, buf, p); }
static inline size_t spool_skip(struct spool *s, size_t n) { return spill_bytes_skip(s, n); }
static inline void spool_free(struct spool *s) { spill_bytes_free(s); }
static inline void spool_release_spares(void) { spill_bytes_release(); }

#endif
