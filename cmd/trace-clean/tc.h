/* trace-clean's private parts: what cmd/trace-clean.c and the files beside
 * it share.  The shape of the whole is described at the top of
 * cmd/trace-clean.c. */
#ifndef TRACE_CLEAN_H
#define TRACE_CLEAN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "io.h"
#include "json.h"
#include "mem.h"
#include "rec.h"
#include "spill.h"
#include "vdata.h"

/* ---- jscan.c: a streaming JSON scanner ----
 *
 * A document is read through a window (struct jbuf) over a byte source.
 * Only the framing is streamed: the top-level object, its keys, and the
 * elements of the arrays the caller asks for.  Each of those values is
 * parsed (and fully validated) from a contiguous stretch of the window,
 * which grows to hold the largest single value, never the document. */

enum { JT_NONE, JT_STR, JT_NUM, JT_OBJ, JT_ARR, JT_TRUE, JT_FALSE, JT_NULL };

/* A value in the window.  Strings: the text between the quotes, escapes
 * still in (esc says whether there are any).  Others: the whole text. */
struct jval {
	const char *p;
	size_t n;
	unsigned char type, esc;
};
struct jmem {
	struct jval key, val;
};
struct jobj {
	struct jmem *m;
	size_t n, cap;
};

enum { J_OK = 0, J_MORE = 1, J_ERR = -1 };
struct jerr {
	const char *at;             /* the offending byte */
	const char *msg;
};
#define J_MAXDEPTH 512

/* Parse one value at *pp (no leading whitespace).  J_OK and *pp past it,
 * J_MORE when the value runs past end, J_ERR with e filled. */
int jval_parse(const char **pp, const char *end, struct jval *v, int depth, struct jerr *e);
/* Parse an object at *pp, keeping its members (values not descended into
 * beyond validation).  o is reused between calls. */
int jobj_parse(const char **pp, const char *end, struct jobj *o, struct jerr *e);
void jobj_free(struct jobj *o);
/* The raw JSON text of a value (quotes included for strings). */
static inline const char *jval_raw(const struct jval *v, size_t *n)
{
	if (v->type == JT_STR) {
		*n = v->n + 2;
		return v->p - 1;
	}
	*n = v->n;
	return v->p;
}
/* Decode a string value (escapes resolved, \u as UTF-8) into buf, which
 * must hold v->n bytes; returns the length. */
size_t jstr_decode(const struct jval *v, char *buf);
/* Whether a string value equals s (escapes resolved). */
int jstr_eq(const struct jval *v, const char *s, size_t n);
/* A JSON number's value; 0 and *ok = 0 if it is not finite. */
double jnum(const char *p, size_t n, int *ok);

/* ---- byte sources ---- */
struct src {
	struct rd *rd;              /* a file or pipe, lz4-aware; or */
	struct vdata_r *vr;         /* the payload of the current block */
	const char *name;           /* for messages */
	uint64_t base;              /* file offset of the stream's first byte */
};
ssize_t src_read(struct src *s, void *buf, size_t n);

struct jbuf {
	struct src *src;
	char *b;
	size_t cap, pos, end;
	uint64_t off;               /* stream offset of b[0] */
	size_t max;                 /* the window never grows past this */
	int eof, err;               /* err: errno of a read error */
};
void jbuf_init(struct jbuf *jb, struct src *s, size_t cap, size_t max);
/* Keep [pos, end) and read more behind it: 1 if bytes came, 0 at end of
 * input, -1 on a read error or when the window cannot grow. */
int jbuf_more(struct jbuf *jb);
void jbuf_free(struct jbuf *jb);

/* What a document's top level is handed to.  Every callback returns 0 to
 * go on or non-zero to stop the scan (it then owns the message). */
struct jhandler {
	/* A top-level key of an object document: 1 to stream its value's
	 * elements (when the value is an array), 0 to take it whole. */
	int (*stream_key)(void *ctx, const struct jval *key);
	/* A key's whole value. */
	int (*value)(void *ctx, const struct jval *key, const struct jval *val);
	/* One element of a streamed array (key NULL: the document itself is an
	 * array).  o holds the members when the element is an object, else
	 * is NULL; v is the element; off its stream offset. */
	int (*element)(void *ctx, const struct jval *key, const struct jobj *o, const struct jval *v,
	               uint64_t off);
};
enum { JS_OK = 0, JS_SYNTAX = 1, JS_IO = 2, JS_STOP = 3, JS_BIG = 4 };
struct jfail {
	uint64_t off;               /* stream offset of the problem */
	char msg[160];
};
/* Scan a whole document: 0 or a JS_* status with f filled (not for
 * JS_STOP). */
int jscan(struct jbuf *jb, const struct jhandler *h, void *ctx, struct jfail *f);

/* ---- clean.c: the rebuild ---- */
struct clean_opts {
	int keep_scalar;
};
struct clean_stats {
	uint64_t events, kept, slices_written, late;
	uint64_t dropped_lane, dropped_sync, dropped_overhead, dropped_other, malformed;
	uint64_t dropped_scalar;    /* of dropped_lane: on the SCALAR lanes */
	uint64_t flags, pairs, arrows;
	uint64_t sets_alone, waits_alone, no_producer, no_consumer;
	uint64_t tracks, cores, max_sub;
	char malformed_example[120];
};
extern struct clean_stats cstats;

int clean_begin(struct wr *w, const struct clean_opts *o);
/* Top-level metadata of the input trace, before its events if known. */
void clean_header(const char *profiling_type, size_t pn, const char *schema, size_t sn);
/* A top-level value of a trace.json other than traceEvents: profilingType
 * and schemaVersion (scalars) go to clean_header, the rest is ignored. */
void clean_top_value(const struct jval *key, const struct jval *val);
/* One event of a trace.json (members of the event object). */
int clean_trace_event(const struct jobj *o, uint64_t off);
/* An instruction from the record stream: times in integer us6 (us * 10^6). */
struct rinstr {
	const char *core;
	size_t core_n;
	const char *pipe, *name, *detail;
	size_t pipe_n, name_n, detail_n;
	uint64_t ts6, te6;          /* start and end, us6 */
	uint64_t set6;              /* a SET's begin (end - 1 tick), us6 */
	uint64_t pc;
	int64_t bytes;
	int mark;                   /* a trace mark (args trace_start/trace_stop) */
	int sync;                   /* enum rec_sync: what the record says it is */
	const char *prod, *cons, *flag;   /* ... and, for a flag, its pipes and id */
	size_t prod_n, cons_n, flag_n;
};
int clean_record(const struct rinstr *r);
/* Release everything, resolve the arrows, close the document.
 * 0, or an errno value. */
int clean_finish(void);
void clean_abort_close(void);   /* interrupted on stdout: leave a whole document */
void clean_free(void);             /* and back to the state before clean_begin */
/* Fatal problems found while cleaning (a limit): the message. */
extern char clean_error[200];

/* ---- metrics.c: instr_metrics.json ---- */
/* Reshape the INSTR_API payload of the block at index blk of path. */
int metrics_reshape(const char *path, int blk, struct wr *w, char *err, size_t errlen);
/* Records: accumulate one instruction (instr: its record, whose sync
 * fields give a flag's Source text; NULL for a trace mark); then write
 * the sidecar. */
void metrics_take(const char *core, size_t core_n, uint64_t pc, const char *pipe, size_t pipe_n,
                  const char *name, size_t name_n, const char *detail, size_t detail_n,
                  const struct rec *instr, uint64_t start, uint64_t end, int64_t gpr, int64_t bytes, double vec_util,
                  int64_t ub_read, int64_t ub_write, uint64_t icache, uint64_t ccu);
int metrics_have(void);
/* The Source text spells flags the 310P's way (set_event, wait_event). */
void metrics_set_chip(int is_310p);
/* raw: the INSTR_API block's own layout (per-core arrays), as --raw-metrics. */
void metrics_set_raw(int raw);
void metrics_write(struct wr *w);
void metrics_free(void);

/* ---- spill.c: an external sort of fixed-size records ----
 * lib/spill.h's sorter, kept going when a temporary file fails (the
 * caller reports xs_error), and in memory when none can be had. */
#define xsort spill_sort
#define XS_FANIN SPILL_SORT_FANIN
/* An unlinked temporary file in $TMPDIR, or -1 (said once, with why). */
int xs_tmpfd(void);
/* Records of rs bytes, ordered by cmp; at most run_records of them in
 * memory while adding, the rest in runs on an unlinked temporary file. */
static inline struct xsort *xs_new(size_t rs, int (*cmp)(const void *, const void *), size_t run_records)
{
	return spill_sort_new(rs, cmp, run_records, 1, xs_tmpfd);
}
static inline void xs_add(struct xsort *s, const void *rec) { spill_sort_add(s, rec); }
/* No more adds: sort, and get ready to hand them out.  0 or an errno. */
static inline int xs_sort(struct xsort *s) { return spill_sort_done(s); }
/* The next record in order, valid until the next call; NULL at the end
 * or after an error (xs_error). */
static inline const void *xs_next(struct xsort *s) { return spill_sort_next(s); }
static inline uint64_t xs_count(const struct xsort *s) { return spill_sort_count(s); }
/* 0, or the errno of a temporary file's failure */
static inline int xs_error(const struct xsort *s) { return spill_sort_error(s); }
static inline void xs_free(struct xsort *s) { spill_sort_free(s); }
/* Whole positioned reads and writes: 0 or an errno (EIO: cut short). */
static inline int xs_pwrite(int fd, const void *p, size_t len, uint64_t off)
{
	return spill_pwrite(fd, p, len, off);
}
static inline int xs_pread(int fd, void *p, size_t len, uint64_t off) { return spill_pread(fd, p, len, off); }

/* ---- rawcopy.c: <OUT>/raw_simulator ---- */
/* Copy the input trace file and its simulator siblings from srcdir into
 * outdir/raw_simulator; messages name them under shown_dir instead (where
 * they go once the output set is moved into place), and neither outdir nor
 * final_dir (the directory the set goes into) is copied.  0, or -1 after a
 * message. */
int rawcopy(const char *srcdir, const char *input, const char *outdir, const char *shown_dir,
            const char *final_dir, int *copied);

#endif
