/* A streaming reader of tar archives (v7, ustar, GNU long names, pax path
 * records), private to dump-split.  It reads through lib/io.h, so an
 * lz4-compressed bundle is read the same way as a plain one. */
#ifndef DUMP_SPLIT_TAR_H
#define DUMP_SPLIT_TAR_H

#include <stddef.h>
#include <stdint.h>

#include "io.h"

struct tar {
	struct rd *r;
	uint64_t left;       /* data bytes of the current member not read yet */
	uint64_t pad;        /* padding after them up to the next block */
	char *name;          /* the current member's name (owned) */
	char *longname;      /* a name announced by a GNU 'L' or pax record */
	const char *why;     /* what went wrong when a call returned -1 */
	uint64_t blocks;     /* headers read, to tell "not a tar" from "damaged" */
	int truncated;       /* the input ended inside a member */
	int pax_bad;         /* the pending pax header was malformed */
	const char *pax_why; /* how */
};

enum tar_type { TAR_FILE, TAR_DIR, TAR_OTHER };

struct tar_member {
	const char *name;    /* valid until the next tar_next */
	enum tar_type type;
	uint64_t size;
	const char *pax_why; /* its pax header was malformed (how), or NULL */
};

/* Start reading an archive from r (which stays owned by the caller). */
void tar_init(struct tar *t, struct rd *r);
/* The next member: 1, 0 at the end of the archive, -1 on a damaged or
 * truncated archive (t->why says how).  The first call returns -1 with
 * t->blocks == 0 when the input is not a tar archive at all. */
int tar_next(struct tar *t, struct tar_member *m);
/* Up to n bytes of the current member's data; 0 at its end.  A member cut
 * short by the end of the input gives fewer bytes than its size: check
 * tar_truncated afterwards. */
size_t tar_read(struct tar *t, void *buf, size_t n);
int tar_truncated(const struct tar *t);
void tar_free(struct tar *t);

/* Does a 512-byte block hold a valid tar header (checksum)? */
int tar_header_ok(const unsigned char *b);

#endif
