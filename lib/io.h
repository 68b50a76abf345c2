/* Buffered input and output with transparent lz4 (frame format).
 *
 * Readers hand out whole lines (without the LF) pointing into their buffer,
 * valid until the next call.  Writers to a named file write a temporary
 * sibling and rename it over the target on a successful close, so a failed
 * or interrupted run never leaves a half-written file under the real name. */
#ifndef OPTRACE_IO_H
#define OPTRACE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct rd;

/* Open a file for reading ("-" or NULL = stdin).  Returns NULL with errno
 * set on failure.  Input starting with an lz4 frame is decompressed. */
/* Is path (followed through links) a regular file / a directory? */
int io_is_file(const char *path);
int io_is_dir(const char *path);

/* The output directory a user named (-o DIR): a symbolic link there, or
 * in the path to it, is followed, as a path is by any Unix tool.  1 when
 * it is a directory, 0 when nothing is there, -1 with errno when it is
 * something else (ENOTDIR: a file, a dangling link) or cannot be looked at. */
int io_out_dir(const char *path);
/* A directory a tool makes inside its output tree (a core's directory,
 * raw_simulator): made when missing (1), taken when already a directory
 * (0); a symbolic link there was planted, and is never followed: -1 with
 * errno ENOTDIR, as for anything else that is not a directory. */
int io_tree_dir(const char *path);

/* ---- what the tools take from a user, and what they create ----
 *
 * The largest input of each kind the tools read (the reference's limits):
 * a bigger one is refused.  OPTRACE_INPUT_LIMITS=off in the environment
 * lifts them (the tools stream their inputs; the limits are the
 * reference's, kept so that an export that works with one works with the
 * other). */
/* No limit for a simulator dump log (the reference refuses one over 1 GiB):
 * the tools stream them, and dumps of many GiB are what they are for. */
#define IO_LIMIT_BINARY (10ull << 30)   /* a kernel binary, an on-board data file */
#define IO_LIMIT_JSON   (10ull << 20)   /* a JSON description (--config) */
/* The modes of what the tools create, less the umask: files 0640, the
 * directories of an output tree 0750. */
#define IO_FILE_MODE 0640
#define IO_DIR_MODE  0750
mode_t io_file_mode(void);
mode_t io_dir_mode(void);
/* Look at an input a user named (a file, or the directory it is in)
 * before reading it: warn when a symbolic link is on its path (it is
 * followed), and, unless the caller is root, when it is writable by its
 * group or by others, or owned by someone other than the caller and
 * root; then, for a regular file over limit bytes (0: no limit), say so
 * naming the file and kind ("dump log") and return -1: the caller refuses
 * it (EXIT_UNUSABLE).  Returns 0 otherwise, also when path cannot be
 * looked at (the caller's open says why).  A recipe that runs tools over
 * the same inputs again sets OPTRACE_INPUT_WARNED=1 for the later runs:
 * then only the limit is checked. */
int io_check_input(const char *path, const char *kind, uint64_t limit);

/* Read n bytes at off, asking again after a short read (a pipe's, a
 * signal's): fewer only at the end of the file; -1 with errno on error. */
ssize_t io_pread_full(int fd, void *buf, size_t n, uint64_t off);

struct rd *rd_open(const char *path);
struct rd *rd_fdopen(int fd, const char *name);
/* The next line without its LF (a CR is kept), or NULL at end of input or
 * on error (see rd_error).  *len receives the length. */
const char *rd_line(struct rd *r, size_t *len);
/* The unread bytes, at least want of them when the input has that many
 * (fewer at its end or on an error), without consuming them: a tool that
 * tells its input's kind by its first bytes still reads it whole.  *n
 * receives the count; valid until the next call. */
const char *rd_peek(struct rd *r, size_t want, size_t *n);
/* Up to n raw (decompressed) bytes; 0 at end or error.  Plain (not lz4)
 * bytes past what the reader holds are read straight into buf when 4 KiB
 * or more are asked for: a reader of blocks copies nothing twice. */
size_t rd_read(struct rd *r, void *buf, size_t n);
/* The next bytes of a plain (not lz4) regular file, mapped rather than
 * copied: a window of up to RD_MAP_WINDOW bytes at a multiple of it (the
 * window before is unmapped).  Only for a reader nothing was read from
 * yet with rd_read or rd_line, and then for the whole file.  NULL and *n
 * = 0 at the end; NULL and *n = 1 when r is no such file or cannot be
 * mapped (read it with rd_read).  The pages belong to the file: one that
 * shrinks while it is read ends the process with SIGBUS. */
#define RD_MAP_WINDOW (2u << 20)
const void *rd_map_next(struct rd *r, size_t *n);
/* Line number of the last line returned (1-based). */
uint64_t rd_lineno(const struct rd *r);
/* Decompressed bytes consumed so far. */
uint64_t rd_offset(const struct rd *r);
const char *rd_name(const struct rd *r);
/* 0, or an errno value (EBADMSG / EPROTO: lz4 data corrupt / cut short). */
int rd_error(const struct rd *r);
/* A message for rd_error's value. */
const char *rd_strerror(const struct rd *r);
int rd_is_lz4(const struct rd *r);
void rd_close(struct rd *r);

struct wr;
enum { WR_LZ4 = 1 };

/* Open for writing ("-" or NULL = stdout).  A named file is written under a
 * temporary name in the same directory and renamed by wr_close. */
struct wr *wr_open(const char *path, int flags);
struct wr *wr_fdopen(int fd, const char *name, int flags);
/* The same with a buffer of bufsize bytes (for many small open writers). */
struct wr *wr_fdopen_buf(int fd, const char *name, int flags, size_t bufsize);
/* An anonymous read-write temporary file in $TMPDIR (or /tmp), already
 * unlinked; -1 with errno on failure. */
int io_tmpfd(void);
/* Remove path and, when it is a directory, everything under it, without
 * following symbolic links (one met is removed, not what it names).
 * Goes on past what cannot be removed; 0, or -1 with errno when path
 * cannot be walked at all. */
int io_rm_tree(const char *path);
/* Room for at least n bytes; fill it and wr_commit the count used. */
char *wr_reserve(struct wr *w, size_t n);
void wr_commit(struct wr *w, size_t n);
void wr_put(struct wr *w, const void *p, size_t n);
void wr_putc(struct wr *w, int c);
void wr_puts(struct wr *w, const char *s);
int wr_printf(struct wr *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Push buffered data to the file descriptor (compressing if needed). */
int wr_flush(struct wr *w);
/* len bytes of the regular file fd from offset off, appended to w: in the
 * kernel (copy_file_range: no pass through this process, a shared extent
 * where the filesystem has them) when w writes plain bytes to a file, else
 * through w's buffer.  0, or an errno value (EIO: fd had fewer bytes); any
 * failure is w's error too. */
int wr_copy_from(struct wr *w, int fd, uint64_t off, uint64_t len);
/* Bytes given to w so far (written and buffered); plain writers only. */
uint64_t wr_tell(const struct wr *w);
/* Overwrite n bytes at off, inside what w has already been given (a size
 * in a header written before its payload): w's buffer goes out first.
 * Only a plain (not lz4) writer of a regular file; EINVAL otherwise.  0,
 * or an errno value, which is w's error too. */
int wr_patch(struct wr *w, uint64_t off, const void *p, size_t n);
/* 0, or the errno of the first failure (EPIPE when the reader went away). */
int wr_error(const struct wr *w);
const char *wr_name(const struct wr *w);
/* Flush, close the lz4 frame, rename into place.  Returns 0 or an errno. */
int wr_close(struct wr *w);
/* Discard: remove the temporary file, keep any previous target. */
void wr_abort(struct wr *w);

#endif
