/* A streaming JSON writer over a struct wr.
 *
 * Values are written as soon as they are given: nothing is kept but the
 * nesting (which containers are open, whether a comma is due), so a trace
 * of any size costs the same memory.  json_close_all() ends every open
 * container, which is how an interrupted or truncated run still leaves a
 * complete document.  The writer counts the bytes it has produced so a
 * caller can enforce a size limit while it streams. */
#ifndef OPTRACE_JSON_H
#define OPTRACE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "io.h"

#define JSON_MAXDEPTH 32

struct json {
	struct wr *w;
	uint64_t bytes;             /* produced so far */
	int depth;                  /* open containers */
	int nl_depth;               /* elements at this depth start on a new line; 0 = never */
	unsigned char after_key;    /* a key was written, its value is due */
	unsigned char more[JSON_MAXDEPTH + 1]; /* the container at that depth has an element */
	unsigned char is_obj[JSON_MAXDEPTH + 1];
	char *res;                  /* json_value_start's reservation */
};

void json_init(struct json *j, struct wr *w);
/* Put every element of the containers at depth d on its own line (d = 1:
 * the members of the top-level container).  Still one valid document. */
void json_lines_at(struct json *j, int d);

/* The head of a Chrome trace as the reference writes it, up to the open
 * "traceEvents" array, one event a line: {"profilingType":"op",
 * "displayTimeUnit":"ns","schemaVersion":1,"traceEvents":[ */
void json_trace_begin(struct json *j);

void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
/* Close every open container (a key without its value gets null). */
void json_close_all(struct json *j);

/* An object key; the next call writes its value. */
void json_key(struct json *j, const char *key);
void json_key_n(struct json *j, const char *key, size_t n);

/* Values.  Strings are escaped (control bytes as \u00XX); other bytes,
 * UTF-8 or not, are copied as they are. */
void json_string(struct json *j, const char *s, size_t n);
void json_cstring(struct json *j, const char *s);
void json_uint(struct json *j, uint64_t v);
void json_int(struct json *j, int64_t v);
/* v * 10^-decimals, exactly, with trailing fractional zeros dropped
 * (json_fixed(j, 5964865, 6) writes 5.964865; 2000000 writes 2). */
void json_fixed(struct json *j, uint64_t v, unsigned decimals);
/* The shortest text that reads back as v (dbl_shortest in text.h); NaN
 * and infinities become null. */
void json_double(struct json *j, double v);
void json_bool(struct json *j, int v);
void json_null(struct json *j);
/* Text that is already valid JSON for one value (a preformatted number). */
void json_raw_value(struct json *j, const char *s, size_t n);

/* Convenience: key and value in one call. */
void json_kv_str(struct json *j, const char *key, const char *s, size_t n);
void json_kv_cstr(struct json *j, const char *key, const char *s);
void json_kv_uint(struct json *j, const char *key, uint64_t v);
void json_kv_int(struct json *j, const char *key, int64_t v);
void json_kv_fixed(struct json *j, const char *key, uint64_t v, unsigned decimals);

/* Digits of v into buf (at least 21 bytes); returns the length. */
size_t json_fmt_uint(char *buf, uint64_t v);


/* The hot path: a whole value (an event object) written straight into the
 * output buffer.  json_value_start() reserves max bytes after the
 * separator the value is owed and returns where it starts; fill it with
 * the jw_* helpers, each returning the new end; json_value_done() takes
 * the end.  The caller's max must cover what it writes (JW_STR_MAX for a
 * string of n bytes). */
char *json_value_start(struct json *j, size_t max);
void json_value_done(struct json *j, char *end);
#define JW_STR_MAX(n) (6 * (size_t)(n) + 2)
#define JW_LIT(p, lit) jw_raw((p), (lit), sizeof(lit) - 1)
static inline char *jw_raw(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}
char *jw_str(char *p, const char *s, size_t n);         /* quoted, escaped */
char *jw_uint(char *p, uint64_t v);
char *jw_int(char *p, int64_t v);
char *jw_fixed(char *p, uint64_t v, unsigned decimals); /* as json_fixed */
/* "0x" and the lowercase hex digits, no leading zeros ("0x0" for 0): 18
 * bytes at most. */
char *jw_hex(char *p, uint64_t v);

#endif
