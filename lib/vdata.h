/* The visualize_data.bin container that MindStudio Insight opens
 * (see optrace-vdata(5), VISUALIZE_DATA.BIN, Container).
 *
 * A file is a plain concatenation of blocks.  Each block is a 12-byte
 * little-endian header, for CODE blocks a 4096-byte NUL-padded source path,
 * then the payload and 0..3 NUL bytes that bring it to a multiple of 4:
 *
 *   0  u64 contentSize   payload + padding (the CODE path is not counted)
 *   8  u8  type          enum vdata_type
 *   9  u8  padding       0..3
 *   10 u8  version       0x5A; 0 for INSTR_API blocks
 *   11 u8  reserved      0x5A
 *
 * Insight recognises the file by bytes 10-11 of the first block being
 * 5A 5A, and refuses the whole file when any non-CODE block has an empty
 * payload.  The writer therefore rejects a first block whose version is not
 * 0x5A and never writes empty payloads.
 *
 * Writers go through lib/io.h: the file is built under a temporary sibling
 * name and renamed into place by vdata_close, so a failed or aborted run
 * keeps whatever file was there before.  Readers stream payloads in pieces;
 * nothing is loaded whole.  No global state. */
#ifndef OPTRACE_VDATA_H
#define OPTRACE_VDATA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum vdata_type {
	VDATA_CODE = 0x1,                /* source file text; the block carries its path */
	VDATA_TRACE = 0x2,               /* the all-cores trace JSON (= trace.json) */
	VDATA_FILE_API = 0x3,            /* per source line metrics JSON */
	VDATA_INSTR_API = 0x4,           /* per instruction metrics JSON (version 0) */
	VDATA_OP_BASIC_INFO = 0x5,       /* 0x5..0xF: on-board runs only */
	VDATA_COMPUTE_LOAD_FIGURE = 0x6,
	VDATA_COMPUTE_LOAD_TABLE = 0x7,
	VDATA_STORAGE_FIGURE = 0x8,
	VDATA_STORAGE_TABLE = 0x9,
	VDATA_OCCUPANCY = 0xC,
	VDATA_ROOFLINE = 0xD,
	VDATA_CACHELINE_HEATMAP = 0xE,
	VDATA_STALL_REASON = 0xF
};

enum {
	VDATA_HEADER_SIZE = 12,
	VDATA_PATH_SIZE = 4096,          /* PATH_MAX of the reference */
	VDATA_VERSION = 0x5A,            /* the version byte of every block but INSTR_API */
	VDATA_VERSION_INSTR_API = 0,
	VDATA_RESERVED = 0x5A
};

/* "CODE", "TRACE", "INSTR_API", ... or NULL for a type without a name. */
const char *vdata_type_name(int type);
/* A type from its name (case-insensitive; the Insight names SOURCE,
 * API_FILE, API_INSTR are accepted too) or its number (decimal or 0x hex,
 * 0..255); -1 if it is neither. */
int vdata_type_parse(const char *s);

/* ---- writing ---- */

struct vdata_w;

/* Create path (through a temporary sibling, see io.h; "-" = stdout).
 * NULL with errno set on failure. */
struct vdata_w *vdata_open(const char *path);
/* Append one block.  version is VDATA_VERSION, or VDATA_VERSION_INSTR_API
 * for INSTR_API blocks.  code_path is required for CODE blocks (shorter than
 * VDATA_PATH_SIZE) and ignored for the others.  An empty payload writes
 * nothing.  Returns 0 or an errno value: EINVAL / ENAMETOOLONG for bad
 * arguments (nothing written, the writer stays usable), else the write error,
 * which sticks: every later call returns it and vdata_close discards the
 * file. */
int vdata_block(struct vdata_w *w, int type, int version, const char *code_path,
                const void *payload, size_t n);
/* Append a block whose payload is the whole content of the regular file
 * open on fd, read with pread from offset 0 whatever fd's position (a
 * temporary file just written can be passed as it is), in chunks.  fd is
 * left open.  Not for CODE blocks (no path).  Returns as vdata_block; a file
 * that shrinks while it is copied gives EIO. */
int vdata_block_from_fd(struct vdata_w *w, int type, int version, int fd);
/* A block whose payload is written as it is made, its size unknown yet:
 * vdata_stream_begin writes the header with a placeholder size and returns
 * the writer to append the payload to (NULL with errno: bad arguments, as
 * vdata_block, or a block already being streamed); vdata_stream_end(n),
 * once exactly n payload bytes have been appended, sets the header's size
 * (the file must be a regular file) and pads.  No other block may be
 * written in between.  Not for CODE blocks.  An empty payload, or one of
 * another size than n, poisons the writer (EINVAL / EIO), as any write
 * failure does. */
struct wr *vdata_stream_begin(struct vdata_w *w, int type, int version);
int vdata_stream_end(struct vdata_w *w, uint64_t n);
/* Finish: flush, fsync, rename into place.  Frees w.  0 or an errno value
 * (then nothing is left under the temporary name and the target is as it
 * was). */
int vdata_close(struct vdata_w *w);
/* Discard everything written; keep any previous target.  Frees w. */
void vdata_abort(struct vdata_w *w);

/* ---- reading ---- */

struct vdata_r;

struct vdata_blk {
	int type;
	int version;
	int padding;
	uint64_t content_size;    /* as stored: payload + padding */
	uint64_t payload_size;
	uint64_t offset;          /* of the block header in the file */
	uint64_t payload_offset;  /* of the first payload byte */
	const char *code_path;    /* CODE blocks: the source path (valid until the
	                             next vdata_next); NULL for other types */
};

/* Open a container ("-" = stdin, which must then be a regular file: block
 * sizes are checked against the file size).  NULL with errno set and a
 * message in err on failure. */
struct vdata_r *vdata_ropen(const char *path, char *err, size_t errlen);
/* Step to the next block: 1 and *out filled, 0 at a clean end of file, -1
 * on error with a message in err that starts "offset N: " (N = the file
 * offset of the first bad byte).  errno is EBADMSG when the container is
 * corrupt (bad reserved byte, padding > 3 or > contentSize, non-NUL padding
 * bytes, contentSize past the end of the file, truncated header or path
 * field, CODE path without NUL, empty non-CODE payload), else the read
 * error.  The header, path and padding bytes are all checked here, before
 * any payload is read.  After -1 every call returns -1 again. */
int vdata_next(struct vdata_r *r, struct vdata_blk *out, char *err, size_t errlen);
/* Up to n bytes of the current block's payload (padding excluded): the count,
 * 0 at its end, -1 with errno on a read error (EIO if the file was cut short
 * after vdata_next checked it). */
ssize_t vdata_read(struct vdata_r *r, void *buf, size_t n);
void vdata_rclose(struct vdata_r *r);

#endif
