#include "cli.h"
#include "chip.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *cli_prog = "optrace";
int cli_verbosity = 1;
volatile sig_atomic_t cli_interrupted;

static void on_signal(int sig)
{
	/* The second Ctrl+C aborts at once; the first lets the tool close
	 * its output properly. */
	if (cli_interrupted) {
		signal(sig, SIG_DFL);
		raise(sig);
	}
	cli_interrupted = sig;
}

void cli_init(const char *prog)
{
	const char *slash = strrchr(prog, '/');
	struct sigaction sa;

	cli_prog = slash ? slash + 1 : prog;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void vmsg(const char *file, unsigned long long line, const char *fmt, va_list ap)
{
	int saved = errno;
	size_t n = strlen(fmt);

	fprintf(stderr, "%s: ", cli_prog);
	if (file) {
		if (line)
			fprintf(stderr, "%s:%llu: ", file, line);
		else
			fprintf(stderr, "%s: ", file);
	}
	vfprintf(stderr, fmt, ap);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(saved));
	fputc('\n', stderr);
}

void cli_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, 0, fmt, ap);
	va_end(ap);
}

void cli_warn_at(const char *file, unsigned long long line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(file, line, fmt, ap);
	va_end(ap);
}

void cli_note(const char *fmt, ...)
{
	va_list ap;
	if (cli_verbosity < 1)
		return;
	va_start(ap, fmt);
	vmsg(NULL, 0, fmt, ap);
	va_end(ap);
}

void cli_die(int status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg(NULL, 0, fmt, ap);
	va_end(ap);
	exit(status);
}

static int stdout_errno;      /* the first failure of cli_flush(stdout) */

int cli_flush(FILE *f)
{
	int r;
	errno = 0;
	r = fflush(f);
	if (r && f == stdout && !stdout_errno)
		stdout_errno = errno ? errno : EIO;
	return r;
}

int cli_stdout_done(int status)
{
	int failed = ferror(stdout);
	/* A failed write of stdio drops its bytes and forgets why: the
	 * reason is what cli_flush kept, or what this last flush says. */
	if (!cli_flush(stdout) && !failed)
		return status;
	errno = stdout_errno ? stdout_errno : EIO;
	if (errno == EPIPE)
		return status;
	cli_warn("(stdout): cannot write:");
	return status == EXIT_INTR ? status : EXIT_IO;
}

/* The cleanup list: a small array, grown as needed; entries are taken off
 * before they run, so a cleanup may itself add or remove entries.  Each
 * entry remembers the process that added it: a forked child inherits the
 * list (and the atexit handler) and must run only its own entries, never
 * remove its parent's files. */
static struct cleanup { void (*fn)(void *); void *arg; pid_t pid; } *cleanups;
static size_t ncleanups, capcleanups;

static void run_cleanups(void)
{
	pid_t self = getpid();
	while (ncleanups) {
		struct cleanup c = cleanups[--ncleanups];
		if (c.pid == self)
			c.fn(c.arg);
	}
	free(cleanups);
	cleanups = NULL;
	capcleanups = 0;
}

void cli_cleanup_run(void)
{
	run_cleanups();
}

void cli_cleanup_add(void (*fn)(void *), void *arg)
{
	static int registered;
	if (!registered) {
		atexit(run_cleanups);
		registered = 1;
	}
	if (ncleanups == capcleanups) {
		size_t cap = capcleanups ? capcleanups * 2 : 8;
		struct cleanup *t = realloc(cleanups, cap * sizeof *t);
		if (!t) {
			/* Nothing can be kept track of: run it now rather
			 * than leave it behind. */
			fn(arg);
			cli_die(EXIT_IO, "out of memory");
		}
		cleanups = t;
		capcleanups = cap;
	}
	cleanups[ncleanups].fn = fn;
	cleanups[ncleanups].arg = arg;
	cleanups[ncleanups].pid = getpid();
	ncleanups++;
}

void cli_cleanup_remove(void (*fn)(void *), void *arg)
{
	size_t i = ncleanups;
	while (i--) {
		if (cleanups[i].fn == fn && cleanups[i].arg == arg) {
			memmove(cleanups + i, cleanups + i + 1, (ncleanups - i - 1) * sizeof *cleanups);
			ncleanups--;
			return;
		}
	}
}

/* Is path a terminal device (-o /dev/tty)?  Only character devices are
 * opened to ask, never waiting (a FIFO would block). */
static int tty_path(const char *path)
{
	struct stat st;
	int fd, tty;

	if (stat(path, &st) < 0 || !S_ISCHR(st.st_mode))
		return 0;
	if ((fd = open(path, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return 0;
	tty = isatty(fd);
	close(fd);
	return tty;
}

void cli_refuse_tty(const char *path, int lz4)
{
	if (lz4 && ((!path || !strcmp(path, "-")) ? isatty(1) : tty_path(path)))
		cli_die(EXIT_USAGE, "refusing to write compressed data to a terminal "
		        "(redirect it, pipe it, or name a file with -o)");
}

void cli_version(void)
{
	printf("%s (optrace) %s\n", cli_prog, OPTRACE_VERSION);
	exit(EXIT_OK);
}

unsigned long long cli_num(const char *opt, const char *s)
{
	unsigned long long v = 0;
	const char *p = s;

	if (!*p)
		cli_die(EXIT_USAGE, "option %s: empty number", opt);
	for (; *p; p++) {
		if (*p < '0' || *p > '9' || v > (~0ULL - 9) / 10)
			cli_die(EXIT_USAGE, "option %s: '%s' is not a number", opt, s);
		v = v * 10 + (unsigned)(*p - '0');
	}
	return v;
}

const struct chip *cli_soc(const char *soc)
{
	const struct chip *c = chip_find(soc ? soc : "");
	if (c->family == CHIP_UNKNOWN)
		cli_die(EXIT_USAGE, "--soc-version: unknown SoC '%s' (want a name of the SoC table, "
		        "in any case, e.g. Ascend910B1, Ascend910_9391, Ascend310P1, Ascend310B1, "
		        "Ascend950PR_9599; see dump-split(1))", soc ? soc : "");
	return c;
}

enum rec_mode cli_out_mode(int want_json, int want_text, int want_bin, int fd)
{
	const char *env = getenv("OPTRACE_FORMAT");

	if (want_json)
		return REC_JSON;
	if (want_text)
		return REC_TEXT;
	/* Never binary to a terminal, even when asked. */
	if (isatty(fd))
		return want_bin || !env || strcmp(env, "json") ? REC_TEXT : REC_JSON;
	if (want_bin)
		return REC_BIN;
	if (env && !strcmp(env, "json"))
		return REC_JSON;
	if (env && !strcmp(env, "text"))
		return REC_TEXT;
	return REC_BIN;
}

static const char *core_id(const char *p, const char *end, unsigned *v)
{
	unsigned long long x = 0;
	const char *s = p;
	while (p < end && *p >= '0' && *p <= '9' && p - s < 10)
		x = x * 10 + (unsigned long long)(*p++ - '0');
	if (p == s || x > 0xffffffffull || (p < end && *p >= '0' && *p <= '9'))
		return NULL;
	*v = (unsigned)x;
	return p;
}

int cli_core_ids(const char *spec, struct cli_range **v, size_t *n)
{
	const char *p = spec, *end = spec + strlen(spec);
	struct cli_range *r = NULL, *t;
	size_t k = 0;

	for (;;) {
		struct cli_range rg;
		while (p < end && *p == ' ')
			p++;
		if (!(p = core_id(p, end, &rg.lo)))
			goto bad;
		rg.hi = rg.lo;
		if (p < end && *p == '-' && (!(p = core_id(p + 1, end, &rg.hi)) || rg.hi < rg.lo))
			goto bad;
		t = realloc(r, (k + 1) * sizeof *r);
		if (!t)
			goto bad;
		r = t;
		r[k++] = rg;
		while (p < end && *p == ' ')
			p++;
		if (p == end) {
			*v = r;
			*n = k;
			return 0;
		}
		if (*p != '|' && *p != ',')
			goto bad;
		p++;
	}
bad:
	free(r);
	return -1;
}
