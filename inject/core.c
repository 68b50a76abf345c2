/* Initialisation, originals, failure reporting, host records, fork safety.
 *
 * The library must never crash or hang the application: every failure
 * inside it is reported once and turns profiling off (the hooks then only
 * forward); nothing here blocks except the short record-buffer lock. */
#include "inject.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

struct inj_state inj;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static __thread int depth __attribute__((tls_model("initial-exec")));
static __thread uint32_t my_tid __attribute__((tls_model("initial-exec")));
static int failed;

/* ---- messages ---- */

static void say(const char *msg)
{
	size_t n = strlen(msg);
	ssize_t w;
	while (n > 0 && (w = write(2, msg, n)) > 0) {
		msg += w;
		n -= (size_t)w;
	}
}

void inj_fail(const char *what, int err)
{
	char buf[512];
	if (__atomic_exchange_n(&failed, 1, __ATOMIC_SEQ_CST))
		return;
	inj.disabled = 1;
	snprintf(buf, sizeof buf, "optrace-inject: %s%s%s; the application continues unprofiled\n",
	         what, err ? ": " : "", err ? strerror(err) : "");
	say(buf);
}

void inj_note(const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int n;
	memcpy(buf, "optrace-inject: ", 16);
	va_start(ap, fmt);
	n = vsnprintf(buf + 16, sizeof buf - 18, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof buf - 18)
		n = (int)sizeof buf - 18;
	buf[16 + n] = '\n';
	buf[17 + n] = 0;
	say(buf);
}

/* ---- time and threads ---- */

uint64_t inj_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint32_t inj_tid(void)
{
	if (!my_tid)
		my_tid = (uint32_t)syscall(SYS_gettid);
	return my_tid;
}

/* ---- host record file: <capdir>/device0/tmp_dump/host/<pid>.rec ---- */

#define OBUF 65536
static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static char obuf[OBUF + 1024];
static size_t olen;
static int ofd = -1;
static int ofd_failed;
static uint64_t last_flush;
static uint32_t mypid;

static dev_t odev;
static ino_t oino;
static char opath[4096];

/* Our descriptor is still our file (an application that closed every
 * descriptor may have reused its number). */
static int still_ours(void)
{
	struct stat st;
	return fstat(ofd, &st) == 0 && st.st_dev == odev && st.st_ino == oino;
}

static void flush_locked(void)
{
	size_t off = 0;
	if (olen && !still_ours()) {
		/* Not ours to close: open our file again, at its end. */
		struct stat st;
		ofd = open(opath, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (ofd < 0 || fstat(ofd, &st)) {
			inj_note("host records: the record file was closed by the application (records dropped)");
			if (ofd >= 0)
				close(ofd);
			ofd = -1;
			ofd_failed = 1;
			olen = 0;
			return;
		}
		odev = st.st_dev;
		oino = st.st_ino;
		inj_note("host records: the application closed the record file; opened again");
	}
	while (off < olen) {
		ssize_t w = write(ofd, obuf + off, olen - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			inj_note("host records: write failed: %s (records dropped)", strerror(errno));
			close(ofd);
			ofd = -1;
			ofd_failed = 1;
			break;
		}
		off += (size_t)w;
	}
	olen = 0;
}

static int open_out_locked(void)
{
	char path[4096];
	struct rec h;
	char origin[32];
	if (ofd >= 0)
		return 1;
	if (ofd_failed || !inj.capdir)
		return 0;
	snprintf(path, sizeof path, "%s/device0/tmp_dump/host/%u.rec", inj.capdir, (unsigned)getpid());
	snprintf(opath, sizeof opath, "%s", path);
	ofd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0640);
	if (ofd < 0) {
		ofd_failed = 1;
		inj_note("%s: %s (no host records)", path, strerror(errno));
		return 0;
	}
	{
		struct stat st;
		if (fstat(ofd, &st) == 0) {
			odev = st.st_dev;
			oino = st.st_ino;
		}
	}
	mypid = (uint32_t)getpid();
	rec_init(&h, K_HEADER);
	h.n[H_VERSION].u = REC_VERSION;
	snprintf(origin, sizeof origin, "pid %u", (unsigned)mypid);
	rec_text_set(&h, HS_PRODUCER, "optrace-inject", 14);
	rec_text_set(&h, HS_SOC, inj.soc ? inj.soc : "", inj.soc ? strlen(inj.soc) : 0);
	rec_text_set(&h, HS_ORIGIN, origin, strlen(origin));
	olen = rec_bin_encode(obuf, &h);
	return 1;
}

void inj_emit(const struct rec *r)
{
	size_t need = rec_bin_size(r);
	uint64_t now;
	if (need > OBUF)
		return;
	pthread_mutex_lock(&out_mu);
	if (!open_out_locked()) {
		pthread_mutex_unlock(&out_mu);
		return;
	}
	if (olen + need > sizeof obuf)
		flush_locked();
	if (ofd >= 0) {
		olen += rec_bin_encode(obuf + olen, r);
		/* Flush when full, and at least every 200 ms so that a killed
		 * application loses little. */
		now = r->sc->kind == K_API ? r->n[A_END].u : inj_now();
		if (olen > OBUF || now - last_flush > 200000000u) {
			flush_locked();
			last_flush = now;
		}
	}
	pthread_mutex_unlock(&out_mu);
}

void inj_flush(void)
{
	pthread_mutex_lock(&out_mu);
	if (ofd >= 0 && olen)
		flush_locked();
	pthread_mutex_unlock(&out_mu);
}

/* ---- spans ---- */

int inj_enter(void)
{
	if (!inj.ready)
		inj_init();
	return depth++ == 0 && !inj.disabled;
}

void inj_leave(void)
{
	depth--;
}

int inj_span_begin(struct inj_span *s)
{
	s->on = inj_enter();
	if (!s->on) {
		depth--;
		return 0;
	}
	s->t0 = inj.spans ? inj_now() : 0;
	return 1;
}

void inj_span_end(struct inj_span *s, const char *name, int64_t ret, uint64_t a0, uint64_t a1,
                  uint64_t a2, const char *text)
{
	struct rec r;
	depth--;
	if (!s->on || !inj.spans || inj.disabled)
		return;
	r.sc = rec_schema(K_API);
	r.n[A_PID].u = mypid ? mypid : (uint32_t)getpid();
	r.n[A_TID].u = inj_tid();
	r.n[A_BEGIN].u = s->t0;
	r.n[A_END].u = inj_now();
	r.n[A_RET].i = ret;
	r.n[A_ARG0].u = a0;
	r.n[A_ARG1].u = a1;
	r.n[A_ARG2].u = a2;
	rec_text_set(&r, AS_NAME, name, strlen(name));
	rec_text_set(&r, AS_ARGS, text ? text : "", text ? strnlen(text, INJ_ARGS_MAX) : 0);
	inj_emit(&r);
}

/* ---- the text arguments of a span ---- */

static char *put_str(char *o, char *end, const char *s)
{
	while (*s && o < end)
		*o++ = *s++;
	return o;
}

static char *put_uint(char *o, char *end, uint64_t v, int hex)
{
	char t[24];
	int n = 0;
	do {
		t[n++] = "0123456789abcdef"[hex ? v & 15 : v % 10];
		v = hex ? v >> 4 : v / 10;
	} while (v);
	if (hex)
		o = put_str(o, end, "0x");
	while (n && o < end)
		*o++ = t[--n];
	return o;
}

static const char *copy_kind(int64_t k)
{
	static const char *const names[] = { "host_to_host", "host_to_device", "device_to_host",
	                                      "device_to_device", "managed", "addr_device_to_device",
	                                      "host_to_device_ex", "device_to_host_ex" };
	return k >= 0 && k < 8 ? names[k] : NULL;
}

/* A small printf without locale, allocation or stdio, cheap enough for
 * every span: %u uint64_t, %d int64_t, %x uint64_t as 0x... (REC_NONE as
 * "none"), %s a string (NULL as ""), %k a memcpy kind (int64_t) by name. */
const char *inj_args(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;
	char *o = buf, *end = buf + cap - 1;
	va_start(ap, fmt);
	for (; *fmt && o < end; fmt++) {
		if (*fmt != '%' || !fmt[1]) {
			*o++ = *fmt;
			continue;
		}
		switch (*++fmt) {
		case 'u':
			o = put_uint(o, end, va_arg(ap, uint64_t), 0);
			break;
		case 'd': {
			int64_t v = va_arg(ap, int64_t);
			if (v < 0 && o < end)
				*o++ = '-';
			o = put_uint(o, end, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, 0);
			break;
		}
		case 'x': {
			uint64_t v = va_arg(ap, uint64_t);
			o = v == REC_NONE ? put_str(o, end, "none") : put_uint(o, end, v, 1);
			break;
		}
		case 's': {
			const char *v = va_arg(ap, const char *);
			o = put_str(o, end, v ? v : "");
			break;
		}
		case 'k': {
			int64_t v = va_arg(ap, int64_t);
			const char *n = copy_kind(v);
			o = n ? put_str(o, end, n) : put_uint(o, end, (uint64_t)v, 0);
			break;
		}
		default:
			*o++ = *fmt;
		}
	}
	va_end(ap);
	*o = 0;
	return buf;
}

/* ---- originals ---- */

static void *lib_handle[LIB_NLIBS];

static void *open_lib(int lib)
{
	static const char *const rt_names[] = { "libruntime_camodel.so", "libruntime.so" };
	static const char *const acl_names[] = { "libascendcl.so", "libacl_rt_impl.so",
	                                         "libascendcl_impl.so" };
	const char *const *names = lib == LIB_RT ? rt_names : acl_names;
	size_t i, n = lib == LIB_RT ? 2 : 3;
	void *h;
	if (lib_handle[lib])
		return lib_handle[lib];
	for (i = lib == LIB_RT && !inj.sim ? 1 : 0; i < n; i++) {
		h = dlopen(names[i], RTLD_NOW | RTLD_NOLOAD);
		if (h) {
			lib_handle[lib] = h;
			return h;
		}
	}
	return NULL;
}

void *inj_orig(int lib, const char *name, void **cache, void *self)
{
	void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE), *h;
	if (f)
		return f;
	if (!inj.ready)
		inj_init();
	h = open_lib(lib);
	if (h)
		f = dlsym(h, name);
	if (!f || f == self)
		f = dlsym(RTLD_NEXT, name);
	if (f == self)
		f = NULL;
	if (f)
		__atomic_store_n(cache, f, __ATOMIC_RELEASE);
	else if (self)
		inj_note("%s: no original found (the call fails)", name);
	return f;
}

/* ---- init and fork ---- */

static void fork_prepare(void)
{
	inj_mstx_fork(0);
	inj_cap_fork(0);
	pthread_mutex_lock(&out_mu);
}

static void fork_parent(void)
{
	pthread_mutex_unlock(&out_mu);
	inj_cap_fork(1);
	inj_mstx_fork(1);
}

static void fork_child(void)
{
	/* The child starts a record file of its own; the parent's buffered
	 * records stay the parent's. */
	pthread_mutex_init(&out_mu, NULL);
	inj_cap_fork(2);
	inj_mstx_fork(2);
	olen = 0;
	if (ofd >= 0)
		close(ofd);
	ofd = -1;
	ofd_failed = 0;
	mypid = 0;
	my_tid = 0;
	inj_live_after_fork();
}

static const char *env(const char *k)
{
	const char *v = secure_getenv(k);
	return v && *v ? v : NULL;
}

/* A '|'-separated list as a NULL-terminated array (empty tokens dropped). */
static char **split_list(const char *s)
{
	size_t n = 1, i = 0;
	const char *p;
	char *copy, *tok, *save, **list;
	for (p = s; *p; p++)
		n += *p == '|';
	list = calloc(n + 1, sizeof *list);
	copy = strdup(s);
	if (!list || !copy) {
		free(list);
		free(copy);
		inj_fail("out of memory", ENOMEM);
		return NULL;
	}
	for (tok = strtok_r(copy, "|", &save); tok; tok = strtok_r(NULL, "|", &save))
		list[i++] = tok;
	return list;
}

static void do_init(void)
{
	const char *e;
	inj.sim = (e = env("IS_SIMULATOR_ENV")) && !strcmp(e, "true");
	inj.device = !inj.sim && (e = env("OPTRACE_DEVICE")) && !strcmp(e, "1");
	if (inj.device && (e = env("CAMODEL_DEVICE_DUMP")))
		inj.devdump = strdup(e);
	inj.capdir = env("OPTRACE_CAPTURE_DIR");
	inj.logdir = env("CAMODEL_LOG_PATH");
	inj.soc = env("CAMODEL_SOC_VERSION");
	inj.live = env("OPTRACE_LIVE");
	inj.replay = (e = env("OPTRACE_REPLAY")) && !strcmp(e, "1");
	inj.mte = (e = env("OPTRACE_MTE")) && !strcmp(e, "1");
	inj.spans = inj.capdir && !((e = env("OPTRACE_SPANS")) && !strcmp(e, "0"));
	inj.count = 1;
	if ((e = env("OPTRACE_LAUNCH_COUNT")))
		inj.count = strtoul(e, NULL, 10);
	if ((e = env("OPTRACE_LAUNCH_SKIP")))
		inj.skip = strtoul(e, NULL, 10);
	if ((e = env("OPTRACE_KERNEL_NAME")))
		inj.names = split_list(e);
	inj.mstx = (e = env("OPTRACE_MSTX")) && !strcmp(e, "1");
	if (inj.mstx && (e = env("OPTRACE_MSTX_INCLUDE")))
		inj.mstx_include = split_list(e);
	if (inj.device) {
		inj.devreplay = (e = env("CAMODEL_DEVICE_REPLAY")) ? strdup(e) : NULL;
		e = env("OPTRACE_REPLAY_MODE");
		inj.dev_mode = e && !strcmp(e, "application") ? INJ_APPLICATION : e && !strcmp(e, "range") ? INJ_RANGE
		                                                                                          : INJ_KERNEL;
		inj.dev_replays = (e = env("OPTRACE_DEVICE_REPLAYS")) ? strtoul(e, NULL, 10) : 0;
		inj.warm_up = (e = env("OPTRACE_WARM_UP")) ? strtoul(e, NULL, 10) : 0;
		inj.app_replay = (e = env("OPTRACE_APP_REPLAY")) ? strtoul(e, NULL, 10) : 1;
		if (inj.app_replay < 1)
			inj.app_replay = 1;
		inj.restore = !((e = env("OPTRACE_DEVICE_RESTORE")) && !strcmp(e, "0"));
		inj.kill = (e = env("OPTRACE_KILL")) && !strcmp(e, "1");
	}
	inj.args = inj.replay || (inj.device && inj.dev_mode != INJ_APPLICATION && inj.dev_replays > 0);
	rec_schema(K_HEADER); /* index the schemas before any thread races */
	last_flush = inj_now();
	if (pthread_atfork(fork_prepare, fork_parent, fork_child))
		inj_fail("pthread_atfork failed", 0);
	__atomic_store_n(&inj.ready, 1, __ATOMIC_RELEASE);
	if (inj.live && !inj.disabled)
		inj_live_init();
}

void inj_init(void)
{
	pthread_once(&once, do_init);
}

__attribute__((constructor)) static void inj_ctor(void)
{
	inj_init();
}

__attribute__((destructor)) static void inj_dtor(void)
{
	inj_flush();
}

INJ_API const char *optrace_inject_version(void)
{
	return OPTRACE_VERSION;
}
