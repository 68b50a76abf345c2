/* The members of a tar bundle (v7, ustar, GNU, pax), read as a stream with
 * libarchive.  The bytes come through lib/io.h, so an lz4-compressed bundle
 * and standard input read as a plain file does, with the same read-error
 * and interrupt handling as every other input of the tools. */
#ifndef DUMP_SPLIT_BUNDLE_H
#define DUMP_SPLIT_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "io.h"

struct bundle;

enum bundle_type { BUNDLE_FILE, BUNDLE_DIR, BUNDLE_OTHER };

struct bundle_member {
	const char *name;      /* valid until the next bundle_next */
	enum bundle_type type;
	uint64_t size;
	/* Its pax header was malformed (how, in libarchive's words), or NULL;
	 * the member then has the name of its tar header. */
	const char *pax_why;
	/* The reader can give neither this member's data nor the members
	 * after it (bundle_next then says the end). */
	int no_data;
};

/* Start reading an archive from r (which stays owned by the caller). */
struct bundle *bundle_open(struct rd *r);
/* The same, r having been opened on fd with rd_fdopen: when the input is
 * not lz4, the bytes after those r has read ahead come straight from fd. */
struct bundle *bundle_open_fd(struct rd *r, int fd);
/* The next member: 1, 0 at the end of the archive, -1 on a damaged or
 * truncated archive (bundle_why says how).  A -1 with bundle_started()
 * false: the input is not a tar archive at all. */
int bundle_next(struct bundle *b, struct bundle_member *m);
/* The next piece of the current member's data: 1 with *p and *n, 0 at its
 * end.  A member cut short by the end of the input ends early: check
 * bundle_truncated afterwards. */
int bundle_data(struct bundle *b, const void **p, size_t *n);
int bundle_truncated(const struct bundle *b);
/* Did the input start as a tar archive? */
int bundle_started(const struct bundle *b);
const char *bundle_why(const struct bundle *b);
/* 0, or the errno of a failed read of the input (lz4 errors: rd_error),
 * and its message. */
int bundle_read_error(const struct bundle *b);
const char *bundle_read_strerror(const struct bundle *b);
void bundle_close(struct bundle *b);

#endif
