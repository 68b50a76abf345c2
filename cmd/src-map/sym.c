/* The symbolizer coprocess (llvm-symbolizer or addr2line) and the ELF
 * check that tells a binary without -g from a symbolizer that failed.
 *
 * Both symbolizers read addresses from stdin, one a line, and answer
 * each with its inline frames, flushing as they go.  A batch is written
 * while the answers are read (poll on both pipes): writing it all first
 * would fill the answer pipe, stop the symbolizer reading, and hang both.
 *
 *   llvm-symbolizer --inlining --functions=linkage: per address, pairs
 *     "function" / "file:line:column", then an empty line.
 *   addr2line -a -f -i -C: per address, "0x<address>", then pairs
 *     "function" / "file:line[ (discriminator N)]".  Nothing ends the last
 *     address's frames, so each batch ends with an address that maps to
 *     nothing (all ones), whose "0x..." line closes the one before. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "mem.h"
#include "sym.h"

extern char **environ;

/* ---- ELF: is there debug information? ---- */

static uint64_t get(const unsigned char *p, int n, int big)
{
	uint64_t v = 0;
	int i;
	for (i = 0; i < n; i++)
		v |= (uint64_t)p[big ? n - 1 - i : i] << (8 * i);
	return v;
}

int elf_has_debug(const char *path, char *why, size_t whyn)
{
	unsigned char eh[64], *sh = NULL;
	char *names = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC), is64, big, found = 0, rc = -1;
	uint64_t shoff, shentsize, shnum, shstrndx, i, noff, nsize;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0) {
		snprintf(why, whyn, "%s: cannot open: %s", path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode) || pread(fd, eh, sizeof eh, 0) < 52 || memcmp(eh, "\177ELF", 4) ||
	    (eh[4] != 1 && eh[4] != 2) || (eh[5] != 1 && eh[5] != 2)) {
		snprintf(why, whyn, "%s: not an ELF file", path);
		goto out;
	}
	is64 = eh[4] == 2;
	big = eh[5] == 2;
	shoff = is64 ? get(eh + 40, 8, big) : get(eh + 32, 4, big);
	shentsize = get(eh + (is64 ? 58 : 46), 2, big);
	shnum = get(eh + (is64 ? 60 : 48), 2, big);
	shstrndx = get(eh + (is64 ? 62 : 50), 2, big);
	if (!shnum || shstrndx >= shnum || shentsize < (is64 ? 64u : 40u) || shoff > (uint64_t)st.st_size ||
	    shnum * shentsize > (uint64_t)st.st_size - shoff) {
		snprintf(why, whyn, "%s: no ELF section table", path);
		goto out;
	}
	if (!(sh = malloc(shnum * shentsize)) || pread(fd, sh, shnum * shentsize, (off_t)shoff) != (ssize_t)(shnum * shentsize)) {
		snprintf(why, whyn, "%s: cannot read the ELF section table", path);
		goto out;
	}
	{
		const unsigned char *s = sh + shstrndx * shentsize;
		noff = is64 ? get(s + 24, 8, big) : get(s + 16, 4, big);
		nsize = is64 ? get(s + 32, 8, big) : get(s + 20, 4, big);
	}
	if (noff > (uint64_t)st.st_size || nsize > (uint64_t)st.st_size - noff || !(names = malloc(nsize + 1)) ||
	    pread(fd, names, nsize, (off_t)noff) != (ssize_t)nsize) {
		snprintf(why, whyn, "%s: cannot read the ELF section names", path);
		goto out;
	}
	names[nsize] = 0;
	for (i = 0; i < shnum; i++) {
		uint64_t name = get(sh + i * shentsize, 4, big);
		const char *nm = name < nsize ? names + name : "";
		/* .debug_line is what maps addresses to lines; .zdebug_ are
		 * the old compressed sections. */
		if (!strcmp(nm, ".debug_line") || !strcmp(nm, ".zdebug_line") || !strcmp(nm, ".debug_info") ||
		    !strcmp(nm, ".zdebug_info"))
			found = 1;
	}
	rc = found;
	if (!found)
		snprintf(why, whyn, "%s has no debug information (no .debug_line: build the kernel with -g)", path);
out:
	free(names);
	free(sh);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* ---- finding and starting the symbolizer ---- */

static char *in_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *e;
	static char buf[4096];
	if (strchr(name, '/'))
		return access(name, X_OK) ? NULL : (char *)name;
	for (p = path ? path : "/usr/bin:/bin"; *p; p = *e ? e + 1 : e) {
		size_t n;
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (n + strlen(name) + 2 > sizeof buf)
			continue;
		memcpy(buf, n ? p : ".", n ? n : 1);
		buf[n ? n : 1] = '/';
		strcpy(buf + (n ? n : 1) + 1, name);
		if (!access(buf, X_OK))
			return buf;
	}
	return NULL;
}

const char *sym_find(const char *given)
{
	if (given)
		return in_path(given) ? given : NULL;
	if (in_path("llvm-symbolizer"))
		return "llvm-symbolizer";
	if (in_path("addr2line"))
		return "addr2line";
	return NULL;
}

struct sym {
	pid_t pid;
	int in, out, err;           /* its stdin (we write), stdout, stderr */
	int gnu;                    /* addr2line's answer format */
	char *cmd;
	char errtext[256];          /* the start of what it said on stderr */
	size_t errn;
	/* answers: the unread part of what it wrote */
	char *buf;
	size_t len, cap;
	/* the address being answered: its frames' text and offsets */
	char *ftext;
	size_t ftext_n, ftext_cap;
	struct { size_t file, file_n, func, func_n; uint64_t line; } *fr;
	size_t nfr, fr_cap;
	struct frame *out_fr;
	size_t out_cap;
};

static int is_gnu(const char *cmd)
{
	const char *b = strrchr(cmd, '/');
	return strstr(b ? b + 1 : cmd, "addr2line") != NULL;
}

struct sym *sym_start(const char *cmd, const char *binary, char *why, size_t whyn)
{
	int pin[2] = { -1, -1 }, pout[2] = { -1, -1 }, perr[2] = { -1, -1 }, e;
	posix_spawn_file_actions_t fa;
	struct sym *s = xcalloc(1, sizeof *s);
	char *argv[8], obj[4096 + 8];
	int argc = 0;

	s->gnu = is_gnu(cmd);
	s->cmd = xstrdup(cmd);
	argv[argc++] = (char *)cmd;
	if (s->gnu) {
		argv[argc++] = "-a";
		argv[argc++] = "-f";
		argv[argc++] = "-i";
		argv[argc++] = "-C";
		argv[argc++] = "-e";
		argv[argc++] = (char *)binary;
	} else {
		snprintf(obj, sizeof obj, "--obj=%s", binary);
		argv[argc++] = obj;
		argv[argc++] = "--inlining";
		argv[argc++] = "--functions=linkage";
	}
	argv[argc] = NULL;
	if (pipe2(pin, O_CLOEXEC) || pipe2(pout, O_CLOEXEC) || pipe2(perr, O_CLOEXEC)) {
		snprintf(why, whyn, "cannot make pipes for %s: %s", cmd, strerror(errno));
		goto fail;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pin[0], 0);
	posix_spawn_file_actions_adddup2(&fa, pout[1], 1);
	posix_spawn_file_actions_adddup2(&fa, perr[1], 2);
	e = posix_spawnp(&s->pid, cmd, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		snprintf(why, whyn, "cannot run %s: %s", cmd, strerror(e));
		goto fail;
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	s->in = pin[1];
	s->out = pout[0];
	s->err = perr[0];
	fcntl(s->in, F_SETFL, fcntl(s->in, F_GETFL) | O_NONBLOCK);
	fcntl(s->out, F_SETFL, fcntl(s->out, F_GETFL) | O_NONBLOCK);
	fcntl(s->err, F_SETFL, fcntl(s->err, F_GETFL) | O_NONBLOCK);
	return s;
fail:
	for (e = 0; e < 2; e++) {
		if (pin[e] >= 0)
			close(pin[e]);
		if (pout[e] >= 0)
			close(pout[e]);
		if (perr[e] >= 0)
			close(perr[e]);
	}
	free(s->cmd);
	free(s);
	return NULL;
}

/* How it ended, for a message: "exit status 1", "killed by signal 11". */
static void reap(struct sym *s, char *buf, size_t n)
{
	int st = 0;
	if (s->pid <= 0) {
		snprintf(buf, n, "ended");
		return;
	}
	while (waitpid(s->pid, &st, 0) < 0 && errno == EINTR)
		;
	s->pid = 0;
	if (WIFSIGNALED(st))
		snprintf(buf, n, "killed by signal %d", WTERMSIG(st));
	else
		snprintf(buf, n, "exit status %d", WEXITSTATUS(st));
}

const char *sym_stderr(struct sym *s)
{
	char *m = s->errtext, *q;
	while (*m == ' ' || *m == '\n')
		m++;
	if ((q = strchr(m, '\n')))
		*q = 0;
	return m;
}

void sym_stop(struct sym *s)
{
	char how[64];
	if (!s)
		return;
	free(s->buf);
	free(s->ftext);
	free(s->fr);
	free(s->out_fr);
	if (s->in >= 0)
		close(s->in);
	if (s->out >= 0)
		close(s->out);
	if (s->err >= 0)
		close(s->err);
	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		reap(s, how, sizeof how);
	}
	free(s->cmd);
	free(s);
}

/* ---- answers ---- */

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	while (*cap < need)
		*cap = *cap ? 2 * *cap : 64;
	return xreallocarray(p, *cap, size);
}

static size_t keep(struct sym *s, const char *p, size_t n)
{
	size_t at = s->ftext_n;
	s->ftext = grow(s->ftext, &s->ftext_cap, at + n + 1, 1);
	memcpy(s->ftext + at, p, n);
	s->ftext_n += n;
	return at;
}

static uint64_t dec(const char *p, size_t n, int *ok)
{
	uint64_t v = 0;
	size_t i;
	*ok = n > 0 && n <= 19;
	for (i = 0; i < n && *ok; i++) {
		if (p[i] < '0' || p[i] > '9')
			*ok = 0;
		else
			v = v * 10 + (uint64_t)(p[i] - '0');
	}
	return *ok ? v : 0;
}

/* "file:line" (addr2line, maybe with " (discriminator N)") or
 * "file:line:column" (llvm-symbolizer); line "?" is unknown. */
static void add_frame(struct sym *s, const char *func, size_t func_n, const char *loc, size_t n)
{
	const char *c;
	uint64_t line = 0;
	int ok;
	size_t i = s->nfr;

	if (s->gnu) {
		const char *d = memchr(loc, ' ', n);
		if (d && n - (size_t)(d - loc) > 16 && !memcmp(d, " (discriminator ", 16))
			n = (size_t)(d - loc);
	} else {
		c = memrchr(loc, ':', n);
		if (c) {
			dec(c + 1, n - (size_t)(c - loc) - 1, &ok);
			if (ok)
				n = (size_t)(c - loc);
		}
	}
	c = memrchr(loc, ':', n);
	if (c) {
		line = dec(c + 1, n - (size_t)(c - loc) - 1, &ok);
		n = (size_t)(c - loc);
	}
	s->fr = grow(s->fr, &s->fr_cap, i + 1, sizeof *s->fr);
	s->fr[i].func = keep(s, func, func_n);
	s->fr[i].func_n = func_n;
	s->fr[i].file = keep(s, loc, n);
	s->fr[i].file_n = n;
	s->fr[i].line = line;
	s->nfr++;
}

static const struct frame *frames(struct sym *s)
{
	size_t i;
	s->out_fr = grow(s->out_fr, &s->out_cap, s->nfr + 1, sizeof *s->out_fr);
	for (i = 0; i < s->nfr; i++) {
		s->out_fr[i].func = s->ftext + s->fr[i].func;
		s->out_fr[i].func_n = s->fr[i].func_n;
		s->out_fr[i].file = s->ftext + s->fr[i].file;
		s->out_fr[i].file_n = s->fr[i].file_n;
		s->out_fr[i].line = s->fr[i].line;
	}
	return s->out_fr;
}

static int is_addr_line(const char *p, size_t n)
{
	size_t i;
	if (n < 3 || p[0] != '0' || p[1] != 'x')
		return 0;
	for (i = 2; i < n; i++)
		if (!((p[i] >= '0' && p[i] <= '9') || (p[i] >= 'a' && p[i] <= 'f') || (p[i] >= 'A' && p[i] <= 'F')))
			return 0;
	return 1;
}

/* An answer's lines come in pairs, the function's name then its
 * "file:line": the name waits here for its line. */
struct fname {
	char *p;
	size_t n, cap;
	int have;
};

/* Line p (of ln bytes) of an answer: the name of a frame, kept, or the
 * location that completes the frame of the name kept. */
static void name_or_frame(struct sym *s, struct fname *fn, const char *p, size_t ln)
{
	if (!fn->have) {
		fn->p = grow(fn->p, &fn->cap, ln + 1, 1);
		memcpy(fn->p, p, ln);
		fn->n = ln;
		fn->have = 1;
	} else {
		add_frame(s, fn->p, fn->n, p, ln);
		fn->have = 0;
	}
}

int sym_resolve(struct sym *s, const uint64_t *addr, size_t n,
                void (*done)(void *ctx, size_t i, const struct frame *f, size_t nf), void *ctx,
                char *why, size_t whyn)
{
	char *req, how[64];
	size_t req_n = 0, req_off = 0, answered = 0, i;
	/* addr2line: -1 before the first "0x" line; then the index of the
	 * address being answered (n: the closing one) */
	long cur = s->gnu ? -1 : 0;
	int sentinel_lines = 0, rc = -1;
	struct fname fn = { 0 };

	if (!n)
		return 0;
	req = xmalloc(n * 20 + 24);
	for (i = 0; i < n; i++)
		req_n += (size_t)sprintf(req + req_n, "0x%llx\n", (unsigned long long)addr[i]);
	if (s->gnu)
		req_n += (size_t)sprintf(req + req_n, "0xffffffffffffffff\n");
	s->nfr = 0;
	s->ftext_n = 0;
	s->len = 0;

	while (answered < n || (s->gnu && sentinel_lines < 2)) {
		struct pollfd pf[3];
		int np = 0, k, wi = -1, oi, ei = -1;
		if (cli_interrupted) {
			snprintf(why, whyn, "interrupted");
			goto out;
		}
		if (req_off < req_n && s->in >= 0) {
			pf[np].fd = s->in;
			pf[np].events = POLLOUT;
			wi = np++;
		}
		pf[np].fd = s->out;
		pf[np].events = POLLIN;
		oi = np++;
		if (s->err >= 0) {
			pf[np].fd = s->err;
			pf[np].events = POLLIN;
			ei = np++;
		}
		k = poll(pf, (nfds_t)np, 60000);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			snprintf(why, whyn, "poll: %s", strerror(errno));
			goto out;
		}
		if (k == 0) {
			snprintf(why, whyn, "%s gave no answer for 60 s", s->cmd);
			goto out;
		}
		if (wi >= 0 && pf[wi].revents) {
			ssize_t w = write(s->in, req + req_off, req_n - req_off);
			if (w > 0) {
				req_off += (size_t)w;
			} else if (w < 0 && errno != EAGAIN && errno != EINTR) {
				/* It went away: its answers (or EOF) say more. */
				close(s->in);
				s->in = -1;
			}
		}
		if (ei >= 0 && pf[ei].revents) {
			char tmp[512];
			ssize_t r = read(s->err, tmp, sizeof tmp);
			if (r > 0 && s->errn + 1 < sizeof s->errtext) {
				size_t m = (size_t)r < sizeof s->errtext - 1 - s->errn ? (size_t)r : sizeof s->errtext - 1 - s->errn;
				memcpy(s->errtext + s->errn, tmp, m);
				s->errn += m;
				s->errtext[s->errn] = 0;
			} else if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
				close(s->err);
				s->err = -1;
			}
		}
		if (pf[oi].revents) {
			ssize_t r;
			char *p, *e, *nl;
			s->buf = grow(s->buf, &s->cap, s->len + 65536, 1);
			r = read(s->out, s->buf + s->len, s->cap - s->len);
			if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
				const char *m;
				reap(s, how, sizeof how);
				/* Its first line on stderr says why, if it said anything. */
				m = sym_stderr(s);
				snprintf(why, whyn, "%s stopped (%s) after %zu of %zu addresses%s%s", s->cmd, how, answered, n,
				         *m ? ": " : "", m);
				goto out;
			}
			if (r < 0)
				continue;
			s->len += (size_t)r;
			p = s->buf;
			e = s->buf + s->len;
			while ((nl = memchr(p, '\n', (size_t)(e - p)))) {
				size_t ln = (size_t)(nl - p);
				if (ln && p[ln - 1] == '\r')
					ln--;
				if (s->gnu) {
					if (cur == (long)n) {
						sentinel_lines++;
					} else if (is_addr_line(p, ln) && !fn.have) {
						if (cur >= 0) {
							done(ctx, (size_t)cur, frames(s), s->nfr);
							answered++;
						}
						cur++;
						s->nfr = 0;
						s->ftext_n = 0;
					} else if (cur < 0) {
						/* noise before the first answer: ignore */
					} else {
						name_or_frame(s, &fn, p, ln);
					}
				} else {
					if (!ln && !fn.have) {
						done(ctx, answered, frames(s), s->nfr);
						answered++;
						s->nfr = 0;
						s->ftext_n = 0;
					} else {
						name_or_frame(s, &fn, p, ln);
					}
				}
				p = nl + 1;
			}
			s->len = (size_t)(e - p);
			memmove(s->buf, p, s->len);
		}
	}
	rc = 0;
out:
	free(fn.p);
	free(req);
	return rc;
}
