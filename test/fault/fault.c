/* fault.so: an LD_PRELOAD library that makes chosen system calls fail, so
 * the tests can check that every tool fails cleanly (see test/fault/README).
 *
 *   FAULT_OP      read,write,fsync,close,rename,open,short (comma list);
 *                 unset = off; short: reads succeed with fewer bytes
 *   FAULT_SHORT   the most bytes a short read returns (default 1)
 *   FAULT_ERRNO   EIO (default), ENOSPC, EPIPE, EACCES, ... or a number
 *   FAULT_PATH    substring of the path a descriptor was opened with
 *                 ("stdin", "stdout", "stderr" for fds 0-2); unset = any
 *   FAULT_AFTER   matching calls of an op that pass before the first failure
 *   FAULT_COUNT   how many calls of an op fail (default: all that follow)
 *   FAULT_VERBOSE 1 = say on stderr what is armed and what is made to fail
 *   FAULT_SIGNAL  INT, TERM or a number: the chosen calls do not fail; the
 *                 signal is sent instead, then the call goes on.
 *                 FAULT_COUNT defaults to 1.
 *   FAULT_SIGNAL_TO  group (default): the caller's process group; job: the
 *                 process group of the session's leader, the job a
 *                 terminal's Ctrl+C reaches (for a run started by setsid;
 *                 processes that moved to groups of their own are spared,
 *                 as from a terminal); self: the caller only
 *   FAULT_ONCE    a path: only the first process to reach its chosen call
 *                 (the one that creates the file) sends the signal
 *
 * The configuration is read once, in a constructor.  The wrappers run in
 * whatever context the program calls them from, signal handlers included,
 * so after start-up they only touch atomics and a fixed table and call the
 * real functions (found with dlsym(RTLD_NEXT) at start-up): no locks, no
 * allocation, no stdio. */
#undef _FORTIFY_SOURCE          /* we define open(), read(), ... ourselves */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum sig_to { TO_GROUP, TO_JOB, TO_SELF };
enum op { OP_READ, OP_WRITE, OP_FSYNC, OP_CLOSE, OP_RENAME, OP_OPEN, OP_SHORT, NOPS };
static const char *const op_names[NOPS] = {
	"read", "write", "fsync", "close", "rename", "open", "short"
};

/* Descriptors at or above this are never tracked: they never match a
 * FAULT_PATH (they still match when FAULT_PATH is unset). */
#define FD_TRACK 65536

static struct {
	int ready;                    /* configuration read, pointers resolved */
	unsigned ops;                 /* bit per enum op */
	int err;
	int verbose;
	const char *path;             /* NULL = every path and descriptor */
	unsigned long long after, count;
	int sig, sig_to;              /* FAULT_SIGNAL, FAULT_SIGNAL_TO (enum sig_to) */
	const char *once;             /* FAULT_ONCE */
	size_t short_max;             /* FAULT_SHORT */
} cfg;

static unsigned long long calls[NOPS];        /* matching calls seen */
static unsigned char fd_match[FD_TRACK];      /* opened with a matching path */

/* ---- the real functions ---- */

#define REAL(ret, name, args) static ret(*real_##name) args
REAL(ssize_t, read, (int, void *, size_t));
REAL(ssize_t, __read_chk, (int, void *, size_t, size_t));
REAL(ssize_t, readv, (int, const struct iovec *, int));
REAL(ssize_t, pread, (int, void *, size_t, off_t));
REAL(ssize_t, pread64, (int, void *, size_t, off64_t));
REAL(ssize_t, write, (int, const void *, size_t));
REAL(ssize_t, writev, (int, const struct iovec *, int));
REAL(ssize_t, pwrite, (int, const void *, size_t, off_t));
REAL(ssize_t, pwrite64, (int, const void *, size_t, off64_t));
REAL(ssize_t, copy_file_range, (int, off64_t *, int, off64_t *, size_t, unsigned));
REAL(int, fsync, (int));
REAL(int, fdatasync, (int));
REAL(int, close, (int));
REAL(int, rename, (const char *, const char *));
REAL(int, renameat, (int, const char *, int, const char *));
REAL(int, renameat2, (int, const char *, int, const char *, unsigned));
REAL(int, open, (const char *, int, ...));
REAL(int, open64, (const char *, int, ...));
REAL(int, __open_2, (const char *, int));
REAL(int, __open64_2, (const char *, int));
REAL(int, openat, (int, const char *, int, ...));
REAL(int, openat64, (int, const char *, int, ...));
REAL(int, __openat_2, (int, const char *, int));
REAL(int, __openat64_2, (int, const char *, int));
REAL(int, creat, (const char *, mode_t));
REAL(int, creat64, (const char *, mode_t));
REAL(int, mkstemp, (char *));
REAL(int, mkstemp64, (char *));
REAL(int, mkostemp, (char *, int));
REAL(int, mkostemp64, (char *, int));
REAL(int, mkstemps, (char *, int));
REAL(int, mkostemps, (char *, int, int));
REAL(DIR *, opendir, (const char *));
REAL(int, dup, (int));
REAL(int, dup2, (int, int));
REAL(int, dup3, (int, int, int));

static void resolve(void)
{
#define R(name) real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name)
	R(read); R(__read_chk); R(readv); R(pread); R(pread64);
	R(write); R(writev); R(pwrite); R(pwrite64); R(copy_file_range);
	R(fsync); R(fdatasync); R(close);
	R(rename); R(renameat); R(renameat2);
	R(open); R(open64); R(__open_2); R(__open64_2);
	R(openat); R(openat64); R(__openat_2); R(__openat64_2);
	R(creat); R(creat64);
	R(mkstemp); R(mkstemp64); R(mkostemp); R(mkostemp64); R(mkstemps); R(mkostemps);
	R(opendir); R(dup); R(dup2); R(dup3);
#undef R
}

/* ---- messages (FAULT_VERBOSE=1 only; async-signal-safe) ---- */

struct msg {
	char b[512];
	size_t n;
};

static void m_str(struct msg *m, const char *s)
{
	while (s && *s && m->n < sizeof m->b - 1)
		m->b[m->n++] = *s++;
}

static void m_num(struct msg *m, long long v)
{
	char t[24];
	int k = 0;
	unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
	if (v < 0)
		m_str(m, "-");
	do
		t[k++] = (char)('0' + u % 10);
	while ((u /= 10));
	while (k && m->n < sizeof m->b - 1)
		m->b[m->n++] = t[--k];
}

static void m_send(struct msg *m)
{
	int saved = errno;
	const char *p = m->b;
	m->b[m->n++] = '\n';
	while (m->n) {
		/* Straight to the kernel: never through our own write(). */
		long k = syscall(SYS_write, 2, p, m->n);
		if (k <= 0)
			break;
		p += k;
		m->n -= (size_t)k;
	}
	errno = saved;
}

/* "fault: WHAT fd FD: HOW V (matching call COUNT)" */
static void say_fd_as(const char *what, int fd, const char *how, long long v, long long count)
{
	struct msg m = { .n = 0 };
	if (!cfg.verbose)
		return;
	m_str(&m, "fault: ");
	m_str(&m, what);
	m_str(&m, " fd ");
	m_num(&m, fd);
	m_str(&m, how);
	m_num(&m, v);
	m_str(&m, " (matching call ");
	m_num(&m, count);
	m_str(&m, ")");
	m_send(&m);
}

static void say_fd(const char *what, int fd, long long count)
{
	say_fd_as(what, fd, ": failed with errno ", cfg.err, count);
}

static void say_short(int fd, long long count)
{
	say_fd_as("read", fd, ": cut short, bytes at most ", (long long)cfg.short_max, count);
}

static void say_path(const char *what, const char *path, long long count)
{
	struct msg m = { .n = 0 };
	if (!cfg.verbose)
		return;
	m_str(&m, "fault: ");
	m_str(&m, what);
	m_str(&m, " ");
	m_str(&m, path);
	m_str(&m, ": failed with errno ");
	m_num(&m, cfg.err);
	m_str(&m, " (matching call ");
	m_num(&m, count);
	m_str(&m, ")");
	m_send(&m);
}

static void say_track(int fd, const char *path)
{
	struct msg m = { .n = 0 };
	if (!cfg.verbose)
		return;
	m_str(&m, "fault: fd ");
	m_num(&m, fd);
	m_str(&m, " = ");
	m_str(&m, path);
	m_str(&m, " (matches FAULT_PATH)");
	m_send(&m);
}

/* ---- configuration ---- */

static const struct { const char *name; int value; } errnos[] = {
	{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EPIPE", EPIPE }, { "EACCES", EACCES },
	{ "EPERM", EPERM }, { "EDQUOT", EDQUOT }, { "EFBIG", EFBIG }, { "EROFS", EROFS },
	{ "ENOENT", ENOENT }, { "EBADF", EBADF }, { "EINTR", EINTR }, { "EAGAIN", EAGAIN },
	{ "EMFILE", EMFILE }, { "ENFILE", ENFILE }, { "ENOMEM", ENOMEM }, { "EINVAL", EINVAL },
	{ "EXDEV", EXDEV }, { "EISDIR", EISDIR }, { "ENOTDIR", ENOTDIR },
	{ "ECONNRESET", ECONNRESET }, { "ETIMEDOUT", ETIMEDOUT }, { "ESTALE", ESTALE },
};

/* A configuration mistake is a mistake in the test: stop with 125 rather
 * than run the program without the fault it was meant to see. */
static _Noreturn void bad_config(const char *var, const char *val)
{
	struct msg m = { .n = 0 };
	if (cfg.verbose) {
		m_str(&m, "fault: bad ");
		m_str(&m, var);
		m_str(&m, "='");
		m_str(&m, val);
		m_str(&m, "'; exiting with status 125");
		m_send(&m);
	}
	_exit(125);
}

static int parse_num(const char *s, unsigned long long *v)
{
	unsigned long long x = 0;
	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (~0ULL - 9) / 10)
			return -1;
		x = x * 10 + (unsigned)(*s - '0');
	}
	*v = x;
	return 0;
}

static int path_matches(const char *path)
{
	return !cfg.path || (path && strstr(path, cfg.path));
}

static int fd_matches(int fd)
{
	if (!cfg.path)
		return 1;
	return fd >= 0 && fd < FD_TRACK && __atomic_load_n(&fd_match[fd], __ATOMIC_RELAXED);
}

static void track(int fd, const char *path)
{
	int m;
	if (fd < 0 || fd >= FD_TRACK || !cfg.ready)
		return;
	m = path_matches(path) && cfg.path;
	__atomic_store_n(&fd_match[fd], (unsigned char)m, __ATOMIC_RELAXED);
	if (m)
		say_track(fd, path);
}

static void copy_track(int from, int to)
{
	if (from < 0 || from >= FD_TRACK || to < 0 || to >= FD_TRACK)
		return;
	__atomic_store_n(&fd_match[to], __atomic_load_n(&fd_match[from], __ATOMIC_RELAXED),
	                 __ATOMIC_RELAXED);
}

__attribute__((constructor)) static void fault_init(void)
{
	const char *v;
	unsigned long long x;
	struct msg m = { .n = 0 };
	int i;

	if (cfg.ready)
		return;
	resolve();
	v = getenv("FAULT_VERBOSE");
	cfg.verbose = v && *v && strcmp(v, "0");
	cfg.err = EIO;
	cfg.count = ~0ULL;
	if ((v = getenv("FAULT_OP")) && *v) {
		const char *p = v;
		while (*p) {
			size_t n = strcspn(p, ", ");
			for (i = 0; i < NOPS; i++)
				if (n == strlen(op_names[i]) && !memcmp(p, op_names[i], n))
					break;
			if (i == NOPS)
				bad_config("FAULT_OP", v);
			cfg.ops |= 1u << i;
			p += n;
			p += strspn(p, ", ");
		}
	}
	if ((v = getenv("FAULT_ERRNO")) && *v) {
		size_t k;
		cfg.err = 0;
		for (k = 0; k < sizeof errnos / sizeof errnos[0]; k++)
			if (!strcmp(v, errnos[k].name))
				cfg.err = errnos[k].value;
		if (!cfg.err) {
			if (parse_num(v, &x) || x == 0 || x > 4095)
				bad_config("FAULT_ERRNO", v);
			cfg.err = (int)x;
		}
	}
	if ((v = getenv("FAULT_PATH")) && *v) {
		/* A copy: the program may change its environment. */
		static char path[4096];
		if (strlen(v) >= sizeof path)
			bad_config("FAULT_PATH", "(too long)");
		strcpy(path, v);
		cfg.path = path;
	}
	if ((v = getenv("FAULT_AFTER")) && *v) {
		if (parse_num(v, &cfg.after))
			bad_config("FAULT_AFTER", v);
	}
	if ((v = getenv("FAULT_SIGNAL")) && *v) {
		if (!strcmp(v, "INT"))
			cfg.sig = SIGINT;
		else if (!strcmp(v, "TERM"))
			cfg.sig = SIGTERM;
		else if (parse_num(v, &x) || x == 0 || x > 64)
			bad_config("FAULT_SIGNAL", v);
		else
			cfg.sig = (int)x;
		cfg.count = 1;
	}
	if ((v = getenv("FAULT_SIGNAL_TO")) && *v) {
		if (!strcmp(v, "group"))
			cfg.sig_to = TO_GROUP;
		else if (!strcmp(v, "job"))
			cfg.sig_to = TO_JOB;
		else if (!strcmp(v, "self"))
			cfg.sig_to = TO_SELF;
		else
			bad_config("FAULT_SIGNAL_TO", v);
	}
	if ((v = getenv("FAULT_ONCE")) && *v) {
		static char once[4096];
		if (strlen(v) >= sizeof once)
			bad_config("FAULT_ONCE", "(too long)");
		strcpy(once, v);
		cfg.once = once;
	}
	cfg.short_max = 1;
	if ((v = getenv("FAULT_SHORT")) && *v) {
		if (parse_num(v, &x) || x == 0)
			bad_config("FAULT_SHORT", v);
		cfg.short_max = (size_t)x;
	}
	if ((v = getenv("FAULT_COUNT")) && *v) {
		if (parse_num(v, &cfg.count))
			bad_config("FAULT_COUNT", v);
	}
	if (cfg.path) {
		static const char *const std[3] = { "stdin", "stdout", "stderr" };
		for (i = 0; i < 3; i++)
			fd_match[i] = strstr(std[i], cfg.path) != NULL;
	}
	__atomic_store_n(&cfg.ready, 1, __ATOMIC_RELEASE);
	if (cfg.verbose && cfg.ops) {
		m_str(&m, "fault: armed:");
		for (i = 0; i < NOPS; i++)
			if (cfg.ops & 1u << i) {
				m_str(&m, " ");
				m_str(&m, op_names[i]);
			}
		m_str(&m, ", errno ");
		m_num(&m, cfg.err);
		m_str(&m, ", path ");
		m_str(&m, cfg.path ? cfg.path : "(any)");
		m_str(&m, ", after ");
		m_num(&m, (long long)cfg.after);
		m_str(&m, ", count ");
		if (cfg.count == ~0ULL)
			m_str(&m, "(all)");
		else
			m_num(&m, (long long)cfg.count);
		m_send(&m);
	}
}

/* FAULT_SIGNAL: the signal instead of a failure, from the first process
 * only when FAULT_ONCE names a marker (created exclusively: the processes
 * of a pipeline race for it). */
static void interrupt(enum op op, long long n)
{
	struct msg m = { .n = 0 };
	if (cfg.once) {
		long fd = syscall(SYS_openat, AT_FDCWD, cfg.once, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0)
			return;
		syscall(SYS_close, (int)fd);
	}
	if (cfg.verbose) {
		m_str(&m, "fault: process ");
		m_num(&m, (long long)getpid());
		m_str(&m, ": signal ");
		m_num(&m, cfg.sig);
		m_str(&m, " at ");
		m_str(&m, op_names[op]);
		m_str(&m, " #");
		m_num(&m, n);
		m_send(&m);
	}
	if (cfg.sig_to == TO_SELF)
		kill(getpid(), cfg.sig);
	else if (cfg.sig_to == TO_JOB)
		kill(-getsid(0), cfg.sig);
	else
		kill(0, cfg.sig);
}

/* Should this matching call of op fail?  Returns its 1-based number among
 * the matching calls of op when it should, else 0. */
static long long fire(enum op op, int match)
{
	unsigned long long n;
	if (!__atomic_load_n(&cfg.ready, __ATOMIC_ACQUIRE) || !(cfg.ops & 1u << op) || !match)
		return 0;
	n = __atomic_fetch_add(&calls[op], 1, __ATOMIC_RELAXED);
	if (n < cfg.after || n - cfg.after >= cfg.count)
		return 0;
	if (cfg.sig) {
		interrupt(op, (long long)n + 1);
		return 0;
	}
	return (long long)n + 1;
}

/* Before our constructor ran (another library's constructor doing I/O), or
 * where the next library lacks the symbol. */
#define NEED(name)                                  \
	do {                                            \
		if (!real_##name)                           \
			real_##name = (__typeof__(real_##name))dlsym(RTLD_NEXT, #name); \
		if (!real_##name) {                         \
			errno = ENOSYS;                         \
			return -1;                              \
		}                                           \
	} while (0)

/* ---- read ---- */

#define FAIL_FD(what, op, fd)                       \
	do {                                            \
		long long n_ = fire(op, fd_matches(fd));    \
		if (n_) {                                   \
			say_fd(what, fd, n_);                   \
			errno = cfg.err;                        \
			return -1;                              \
		}                                           \
	} while (0)

/* A short read: at most cfg.short_max of the n bytes asked for, as a
 * pipe, a terminal or a signal gives; a correct reader asks again. */
#define SHORT_FD(fd, n)                             \
	do {                                            \
		long long n_;                               \
		if ((n) > cfg.short_max && (n_ = fire(OP_SHORT, fd_matches(fd)))) { \
			(n) = cfg.short_max;                    \
			say_short(fd, n_);                      \
		}                                           \
	} while (0)

ssize_t read(int fd, void *buf, size_t n)
{
	if (!real_read)
		return syscall(SYS_read, fd, buf, n);
	FAIL_FD("read", OP_READ, fd);
	SHORT_FD(fd, n);
	return real_read(fd, buf, n);
}

ssize_t __read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	NEED(__read_chk);
	FAIL_FD("read", OP_READ, fd);
	SHORT_FD(fd, n);
	return real___read_chk(fd, buf, n, buflen);
}

ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	NEED(readv);
	FAIL_FD("readv", OP_READ, fd);
	if (iovcnt > 0 && fd_matches(fd) && (cfg.ops & 1u << OP_SHORT)) {
		/* the first buffer only, cut short */
		size_t n = iov[0].iov_len;
		SHORT_FD(fd, n);
		NEED(read);
		return real_read(fd, iov[0].iov_base, n);
	}
	return real_readv(fd, iov, iovcnt);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	NEED(pread);
	FAIL_FD("pread", OP_READ, fd);
	SHORT_FD(fd, n);
	return real_pread(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off64_t off)
{
	NEED(pread64);
	FAIL_FD("pread", OP_READ, fd);
	SHORT_FD(fd, n);
	return real_pread64(fd, buf, n, off);
}

/* ---- write ---- */

ssize_t write(int fd, const void *buf, size_t n)
{
	if (!real_write)
		return syscall(SYS_write, fd, buf, n);
	FAIL_FD("write", OP_WRITE, fd);
	return real_write(fd, buf, n);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	NEED(writev);
	FAIL_FD("writev", OP_WRITE, fd);
	return real_writev(fd, iov, iovcnt);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	NEED(pwrite);
	FAIL_FD("pwrite", OP_WRITE, fd);
	return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	NEED(pwrite64);
	FAIL_FD("pwrite", OP_WRITE, fd);
	return real_pwrite64(fd, buf, n, off);
}

/* A copy in the kernel: a read of fd_in and a write of fd_out, for the
 * faults of either. */
ssize_t copy_file_range(int fd_in, off64_t *off_in, int fd_out, off64_t *off_out, size_t n, unsigned flags)
{
	NEED(copy_file_range);
	FAIL_FD("copy_file_range (read)", OP_READ, fd_in);
	FAIL_FD("copy_file_range (write)", OP_WRITE, fd_out);
	SHORT_FD(fd_in, n);
	return real_copy_file_range(fd_in, off_in, fd_out, off_out, n, flags);
}

/* ---- fsync ---- */

int fsync(int fd)
{
	NEED(fsync);
	FAIL_FD("fsync", OP_FSYNC, fd);
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	NEED(fdatasync);
	FAIL_FD("fdatasync", OP_FSYNC, fd);
	return real_fdatasync(fd);
}

/* ---- close: the descriptor is released even when the call "fails", as
 * Linux does on a real error ---- */

int close(int fd)
{
	int match = fd_matches(fd), r;
	long long n;

	if (!real_close)
		return (int)syscall(SYS_close, fd);
	if (fd >= 0 && fd < FD_TRACK)
		__atomic_store_n(&fd_match[fd], 0, __ATOMIC_RELAXED);
	r = real_close(fd);
	if (r == 0 && (n = fire(OP_CLOSE, match))) {
		say_fd("close", fd, n);
		errno = cfg.err;
		return -1;
	}
	return r;
}

/* ---- rename: matched on either name ---- */

#define FAIL_RENAME(from, to)                                           \
	do {                                                                \
		long long n_ = fire(OP_RENAME, path_matches(from) || path_matches(to)); \
		if (n_) {                                                       \
			say_path("rename", from, n_);                               \
			errno = cfg.err;                                            \
			return -1;                                                  \
		}                                                               \
	} while (0)

int rename(const char *from, const char *to)
{
	NEED(rename);
	FAIL_RENAME(from, to);
	return real_rename(from, to);
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
	NEED(renameat);
	FAIL_RENAME(from, to);
	return real_renameat(fd1, from, fd2, to);
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
	NEED(renameat2);
	FAIL_RENAME(from, to);
	return real_renameat2(fd1, from, fd2, to, flags);
}

/* ---- open and friends: fail on the path, else track the descriptor ---- */

#define FAIL_OPEN(what, path)                                \
	do {                                                     \
		long long n_ = fire(OP_OPEN, path_matches(path));    \
		if (n_) {                                            \
			say_path(what, path, n_);                        \
			errno = cfg.err;                                 \
			return -1;                                       \
		}                                                    \
	} while (0)

static int needs_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

#define MODE_ARG(flags, mode)              \
	do {                                   \
		if (needs_mode(flags)) {           \
			va_list ap;                    \
			va_start(ap, flags);           \
			mode = (mode_t)va_arg(ap, int); \
			va_end(ap);                    \
		}                                  \
	} while (0)

static int opened(int fd, const char *path)
{
	if (fd >= 0)
		track(fd, path);
	return fd;
}

int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	if (!real_open)
		return (int)syscall(SYS_openat, AT_FDCWD, path, flags, mode);
	FAIL_OPEN("open", path);
	return opened(real_open(path, flags, mode), path);
}

int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	NEED(open64);
	FAIL_OPEN("open", path);
	return opened(real_open64(path, flags, mode), path);
}

int __open_2(const char *path, int flags)
{
	NEED(__open_2);
	FAIL_OPEN("open", path);
	return opened(real___open_2(path, flags), path);
}

int __open64_2(const char *path, int flags)
{
	NEED(__open64_2);
	FAIL_OPEN("open", path);
	return opened(real___open64_2(path, flags), path);
}

int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	NEED(openat);
	FAIL_OPEN("open", path);
	return opened(real_openat(dirfd, path, flags, mode), path);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	NEED(openat64);
	FAIL_OPEN("open", path);
	return opened(real_openat64(dirfd, path, flags, mode), path);
}

int __openat_2(int dirfd, const char *path, int flags)
{
	NEED(__openat_2);
	FAIL_OPEN("open", path);
	return opened(real___openat_2(dirfd, path, flags), path);
}

int __openat64_2(int dirfd, const char *path, int flags)
{
	NEED(__openat64_2);
	FAIL_OPEN("open", path);
	return opened(real___openat64_2(dirfd, path, flags), path);
}

int creat(const char *path, mode_t mode)
{
	NEED(creat);
	FAIL_OPEN("creat", path);
	return opened(real_creat(path, mode), path);
}

int creat64(const char *path, mode_t mode)
{
	NEED(creat64);
	FAIL_OPEN("creat", path);
	return opened(real_creat64(path, mode), path);
}

/* The template is matched as given (its XXXXXX part cannot matter to a
 * substring chosen by a test) and the descriptor tracked under the name
 * made. */
int mkstemp(char *tmpl)
{
	NEED(mkstemp);
	FAIL_OPEN("mkstemp", tmpl);
	return opened(real_mkstemp(tmpl), tmpl);
}

int mkstemp64(char *tmpl)
{
	NEED(mkstemp64);
	FAIL_OPEN("mkstemp", tmpl);
	return opened(real_mkstemp64(tmpl), tmpl);
}

int mkostemp(char *tmpl, int flags)
{
	NEED(mkostemp);
	FAIL_OPEN("mkostemp", tmpl);
	return opened(real_mkostemp(tmpl, flags), tmpl);
}

int mkostemp64(char *tmpl, int flags)
{
	NEED(mkostemp64);
	FAIL_OPEN("mkostemp", tmpl);
	return opened(real_mkostemp64(tmpl, flags), tmpl);
}

int mkstemps(char *tmpl, int suffixlen)
{
	NEED(mkstemps);
	FAIL_OPEN("mkstemps", tmpl);
	return opened(real_mkstemps(tmpl, suffixlen), tmpl);
}

int mkostemps(char *tmpl, int suffixlen, int flags)
{
	NEED(mkostemps);
	FAIL_OPEN("mkostemps", tmpl);
	return opened(real_mkostemps(tmpl, suffixlen, flags), tmpl);
}

/* opendir() opens its descriptor inside libc, out of our reach: fail it
 * here so "open" covers directories too. */
DIR *opendir(const char *path)
{
	long long n;
	if (!real_opendir)
		real_opendir = (__typeof__(real_opendir))dlsym(RTLD_NEXT, "opendir");
	if (!real_opendir) {
		errno = ENOSYS;
		return NULL;
	}
	if ((n = fire(OP_OPEN, path_matches(path)))) {
		say_path("opendir", path, n);
		errno = cfg.err;
		return NULL;
	}
	return real_opendir(path);
}

/* ---- duplicates carry the name of their original ---- */

int dup(int fd)
{
	int r;
	NEED(dup);
	r = real_dup(fd);
	if (r >= 0)
		copy_track(fd, r);
	return r;
}

int dup2(int fd, int to)
{
	int r;
	NEED(dup2);
	r = real_dup2(fd, to);
	if (r >= 0)
		copy_track(fd, r);
	return r;
}

int dup3(int fd, int to, int flags)
{
	int r;
	NEED(dup3);
	r = real_dup3(fd, to, flags);
	if (r >= 0)
		copy_track(fd, r);
	return r;
}
