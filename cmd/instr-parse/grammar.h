/* The instr_log / instr_popped_log line grammar (see optrace-dumps(5), LINE
 * GRAMMAR, Instruction lines). */
#ifndef OPTRACE_GRAMMAR_H
#define OPTRACE_GRAMMAR_H

#include <stddef.h>
#include <stdint.h>

enum pop_status { POP_NONE, POP_FROM_IQ, POP_SUCCESS };

struct iline {
	uint64_t tick, pc, id;
	int has_id;
	const char *id_p;      /* the id's digits (id_n of them, 0 without) */
	size_t id_n;
	const char *pipe;      /* raw pipe token */
	size_t pipe_n;
	const char *name;
	size_t name_n;
	const char *detail;    /* raw detail, spaces still in */
	size_t detail_n;
	int has_sep;           /* the name's separator matched: detail is
	                        * where the detail starts */
	enum pop_status pop;
};

/* Parse one line (without LF; a trailing CR must already be removed).
 * Returns 0 when the line matches the grammar, -1 when it does not (or a
 * number does not fit). */
int grammar_parse(const char *line, size_t len, struct iline *out);
/* grammar_parse in two steps.  grammar_prefix matches the line's start up
 * to the PC, "[info] [tick] (PC: 0x...)": it sets every field (tick and pc
 * parsed, the rest empty) and returns the offset of what follows, or -1
 * when the line does not match.  grammar_rest matches what follows; what it
 * finds depends only on the bytes from that offset on. */
long grammar_prefix(const char *line, size_t len, struct iline *out);
int grammar_rest(const char *line, size_t len, size_t off, struct iline *out);
/* The end of grammar_rest from the detail's start at off (has_sep set),
 * for a line whose bytes before it are those of a line grammar_rest parsed
 * (with its id digits in place): out holds that line's pipe, name and id
 * fields; sets the detail and pop status.  What grammar_rest finds before
 * the detail depends only on the bytes before it. */
int grammar_rest_detail(const char *line, size_t len, size_t off, struct iline *out);

/* Copy src without its space characters into dst (room for n); returns the
 * new length. */
size_t strip_spaces(char *dst, const char *src, size_t n);
/* The same, faster, with room for n + 16 in dst. */
size_t strip_spaces_wide(char *dst, const char *src, size_t n);

/* The normalised pipe name for a raw pipe token, name and space-free
 * detail (the reference's FindPipe). */
const char *normalise_pipe(const char *pipe, size_t pipe_n, const char *name, size_t name_n,
                           const char *detail, size_t detail_n);

/* A5 SIMT fields of a space-free detail: warp and scheduler ids (-1 when
 * absent) and the thread count popcount(prdctMask & execMask) (-1). */
void simt_ids(const char *detail, size_t n, int *warp, int *sch);
int simt_threads(const char *detail, size_t n);

/* Is this the detail of a trace-mark or loop-count write (pipe USERMARK)? */
int is_usermark(const char *detail, size_t detail_n);

/* Which of the bytes that the detail tests start from the detail holds,
 * in one pass: DETAIL_C a 'C' (is_usermark is 0 without one), DETAIL_LB
 * a '[' (no SIMT field without one). */
enum { DETAIL_C = 1, DETAIL_LB = 2 };
unsigned detail_letters(const char *detail, size_t detail_n);

#endif
