/* Real-time mode (see optrace-dumps(5), LIVE MODE; sim-capture(1), --live):
 * the simulator's log callbacks become
 * raw log-line records written to the FIFO sim-capture reads, so no dump
 * touches the disk.  Each callback's entry is turned into the line the
 * simulator would have written to its dump, so instr-parse sees the same
 * text either way.
 *
 * Records are batched into writes of at most PIPE_BUF bytes of whole
 * records, which the kernel keeps whole even with several writer
 * processes.  A full pipe blocks the callback, i.e. the simulator waits for
 * the consumer; nothing is dropped for speed.  What is dropped anyway (a
 * core id out of range, the reader gone) is counted and reported in a
 * trailer record at the end of each launch. */
#include "inject.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The simulator's entry structs (as test/camodel/include/dvc_log.h declares
 * them; the lines made of them: optrace-dumps(5), LIVE MODE). */
struct instr_entry {
	uint32_t core_id, sub_core_id;
	uint64_t pc;
	const char *decode_descr, *exec_descr;
};
struct icache_entry {
	uint32_t core_id, sub_core_id;
	const char *op;
	union {
		struct {
			uint64_t addr;
			uint32_t size, type;
			uint8_t last;
		} miss_read;
		struct {
			uint64_t addr;
		} fetch_req;
		uint64_t pad[8];
	} u;
};
struct mte_entry {
	uint32_t core_id, sub_core_id;
	const char *op;
	union {
		struct {
			const char *intf;
			uint32_t port;
			uint64_t addr;
			uint32_t size, gid, retire_set, instr_id, req_id;
		} bif;
		struct {
			const char *intf;
			uint32_t port;
			uint64_t addr;
			uint32_t size, tag_id, instr_id, req_id;
		} intf;
	} u;
};
struct ccu_entry {
	uint32_t core_id, sub_core_id;
	const char *op;
	union {
		struct {
			uint64_t pc;
			const char *instr_name, *pipe;
		} issue_success;
		uint64_t pad[8];
	} u;
};
enum { DVC_INSTR_POPPED_LOG, DVC_INSTR_LOG, DVC_MTE_LOG, DVC_ICACHE_LOG, DVC_IFU_LOG, DVC_CCU_LOG };

typedef void (*attach_fn)(int type, void (*fn)(void));
typedef void (*level_fn)(uint32_t file, uint32_t screen, uint32_t flush);

#define MAXCORE 64
#define BATCH PIPE_BUF

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int fd = -1;
static int active;            /* a captured launch is running */
static int attached;
static uint64_t dropped;
static uint64_t records;
static uint32_t next_file = 1;
static char buf[BATCH];
static size_t blen;
static struct stream {
	uint32_t file;
	uint64_t line;
} streams[MAXCORE][3][LOG_NKINDS];

static dev_t fdev;
static ino_t fino;

static void write_all_locked(const char *p, size_t n)
{
	sigset_t pipe_set, old;
	struct stat st;
	if (fd < 0) {
		dropped++;
		return;
	}
	/* Still our FIFO: an application that closed every descriptor may
	 * have reused the number. */
	if (fstat(fd, &st) || st.st_dev != fdev || st.st_ino != fino) {
		inj_note("live stream: the FIFO was closed by the application (events dropped from here on)");
		fd = -1;
		dropped++;
		return;
	}
	/* A reader that went away must not kill the application. */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			struct timespec zero = { 0, 0 };
			if (errno == EPIPE)
				sigtimedwait(&pipe_set, NULL, &zero);
			inj_note("live stream: %s (events dropped from here on)", strerror(errno));
			close(fd);
			fd = -1;
			dropped++;
			break;
		}
		p += w;
		n -= (size_t)w;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void flush_locked(void)
{
	if (blen)
		write_all_locked(buf, blen);
	blen = 0;
}

static void put_locked(const struct rec *r)
{
	char tmp[BATCH];
	size_t n;
	if (rec_bin_size(r) > sizeof tmp) {
		dropped++;
		return;
	}
	n = rec_bin_encode(tmp, r);
	if (blen + n > sizeof buf)
		flush_locked();
	memcpy(buf + blen, tmp, n);
	blen += n;
	records++;
}

static const char *const log_file[LOG_NKINDS] = {
	"instr_log", "instr_popped_log", "ifu.icache_log", "ccu_log", "mte_log", "reg_log", "log"
};

/* One log line of a core: a source record on the stream's first line. */
static void line(uint32_t core, uint32_t sub, int log, const char *text, size_t n)
{
	struct rec r;
	struct stream *s;
	uint32_t subtype, subidx;
	/* sub_core_id: 0 cubecore0, 1 veccore0, 2 veccore1 (others dropped). */
	if (core >= MAXCORE || sub > 2) {
		pthread_mutex_lock(&mu);
		dropped++;
		pthread_mutex_unlock(&mu);
		return;
	}
	subtype = sub == 0 ? SUB_CUBE : SUB_VEC;
	subidx = sub == 0 ? 0 : sub - 1;
	if (log == LOG_MTE) { /* per core, no sub-core: core<N>.mte_log.dump */
		subtype = SUB_NONE;
		subidx = 0;
		sub = 0;
	}
	pthread_mutex_lock(&mu);
	if (!active) {
		pthread_mutex_unlock(&mu);
		return;
	}
	s = &streams[core][sub][log];
	if (!s->file) {
		char path[128];
		char cn[48];
		int pn;
		s->file = next_file++;
		rec_core_name(cn, core, subtype, subidx);
		pn = snprintf(path, sizeof path, "live:%s.%s.dump", cn, log_file[log]);
		rec_init(&r, K_SOURCE);
		r.n[F_FILE].u = s->file;
		r.n[F_CORE].u = core;
		r.n[F_SUBTYPE].u = subtype;
		r.n[F_SUBIDX].u = subidx;
		r.n[F_LOG].u = (uint64_t)log;
		rec_text_set(&r, FS_PATH, path, (size_t)pn);
		put_locked(&r);
	}
	rec_init(&r, K_LINE);
	r.n[L_FILE].u = s->file;
	r.n[L_CORE].u = core;
	r.n[L_SUBTYPE].u = subtype;
	r.n[L_SUBIDX].u = subidx;
	r.n[L_LOG].u = (uint64_t)log;
	r.n[L_LINE].u = ++s->line;
	rec_text_set(&r, LS_TEXT, text, n);
	put_locked(&r);
	pthread_mutex_unlock(&mu);
}

/* "[info] [<8-digit tick>] <decode>  <exec>", as in the dump files. */
static void instr_line(int log, uint64_t time, const struct instr_entry *e)
{
	char t[640];
	int n;
	if (!e)
		return;
	n = snprintf(t, sizeof t, "[info] [%08llu] %.250s  %.250s", (unsigned long long)time,
	             e->decode_descr ? e->decode_descr : "", e->exec_descr ? e->exec_descr : "");
	if (n > 0)
		line(e->core_id, e->sub_core_id, log, t, (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

static void on_popped(uint64_t time, const struct instr_entry *e)
{
	instr_line(LOG_POPPED, time, e);
}

static void on_instr(uint64_t time, const struct instr_entry *e)
{
	instr_line(LOG_INSTR, time, e);
}

/* Cache misses and scalar fetch requests, in the A2/A3 icache log text. */
static void on_icache(uint64_t time, const struct icache_entry *e)
{
	char t[256];
	int n = 0;
	if (!e || !e->op)
		return;
	if (!strcmp(e->op, "miss_read"))
		n = snprintf(t, sizeof t,
		             "[info] %llu: icache read address is 0x%08llx, size is 0x%08x, type:%u, last:%u, "
		             "status is MISS",
		             (unsigned long long)time, (unsigned long long)e->u.miss_read.addr,
		             e->u.miss_read.size, e->u.miss_read.type, (unsigned)e->u.miss_read.last);
	else if (!strcmp(e->op, "fetch_req"))
		n = snprintf(t, sizeof t, "[info] %llu: lookup_tag is fetch req addr:0x%llx",
		             (unsigned long long)time, (unsigned long long)e->u.fetch_req.addr);
	if (n > 0)
		line(e->core_id, e->sub_core_id, LOG_ICACHE, t, (size_t)n);
}

static void on_ccu(uint64_t time, const struct ccu_entry *e)
{
	char t[128];
	int n;
	if (!e || !e->op || strcmp(e->op, "ISSUE_SUCCESS"))
		return;
	n = snprintf(t, sizeof t, "[info] %llu: ccu do issue success.issue isa pc :0x%llx",
	             (unsigned long long)time, (unsigned long long)e->u.issue_success.pc);
	if (n > 0)
		line(e->core_id, e->sub_core_id, LOG_CCU, t, (size_t)n);
}

/* MTE requests, as the simulator's mte_log lines (see optrace-sidelogs(5),
 * MTE LOG, Tokens);
 * only the fields the entry carries. */
static void on_mte(uint64_t time, const struct mte_entry *e)
{
	char t[320];
	int n;
	const char *op;
	if (!e || !(op = e->op))
		return;
	if (!strcmp(op, "send_req") || !strcmp(op, "send_data") || !strcmp(op, "recv_rsp")) {
		if (!e->u.intf.intf)
			return;
		if (!strcmp(op, "recv_rsp"))
			n = snprintf(t, sizeof t, "[info] %llu: %.32s %s, tag_id: %u, instr_id: %u, req_id: %u",
			             (unsigned long long)time, e->u.intf.intf, op, e->u.intf.tag_id,
			             e->u.intf.instr_id, e->u.intf.req_id);
		else
			n = snprintf(t, sizeof t,
			             "[info] %llu: %.32s %s, addr: 0x%llx, size: %u, tag_id: %u, instr_id: %u, req_id: %u",
			             (unsigned long long)time, e->u.intf.intf, op, (unsigned long long)e->u.intf.addr,
			             e->u.intf.size, e->u.intf.tag_id, e->u.intf.instr_id, e->u.intf.req_id);
	} else if (!strcmp(op, "send_cmd") || !strcmp(op, "recv_data") || !strcmp(op, "recv_cmd_rsp") ||
	           !strcmp(op, "recv_wr_data_rsp")) {
		if (!e->u.bif.intf)
			return;
		n = snprintf(t, sizeof t, "[info] %llu: %.32s %s, addr: 0x%llx, size: %u, gid: %u, instr_id: %u, req_id: %u",
		             (unsigned long long)time, e->u.bif.intf, op, (unsigned long long)e->u.bif.addr,
		             e->u.bif.size, e->u.bif.gid, e->u.bif.instr_id, e->u.bif.req_id);
	} else {
		return;
	}
	if (n > 0)
		line(e->core_id, 0, LOG_MTE, t, (size_t)n < sizeof t ? (size_t)n : sizeof t - 1);
}

static void *find_sym(const char *name)
{
	static const char *const libs[] = { "libpem_davinci.so", "libruntime_camodel.so" };
	size_t i;
	void *f;
	for (i = 0; i < 2; i++) {
		void *h = dlopen(libs[i], RTLD_NOW | RTLD_NOLOAD);
		if (h && (f = dlsym(h, name)))
			return f;
	}
	return dlsym(RTLD_DEFAULT, name);
}

void inj_live_init(void)
{
	attach_fn attach = (attach_fn)find_sym("DvcAttachLogCallback");
	level_fn level = (level_fn)find_sym("DvcSetLogLevel");
	if (!attach || !level) {
		inj_note("the simulator has no log callbacks (DvcAttachLogCallback); dump files are written instead");
		return;
	}
	/* sim-capture holds the FIFO open for reading: this does not block. */
	fd = open(inj.live, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		inj_note("%s: %s; dump files are written instead", inj.live, strerror(errno));
		return;
	}
	{
		struct stat st;
		if (fstat(fd, &st) == 0) {
			fdev = st.st_dev;
			fino = st.st_ino;
		}
	}
	/* Blocking writes from here on: a slow reader makes the simulator wait. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	level(6, 4, 2); /* no file logs */
	attach(DVC_INSTR_POPPED_LOG, (void (*)(void))on_popped);
	attach(DVC_INSTR_LOG, (void (*)(void))on_instr);
	attach(DVC_ICACHE_LOG, (void (*)(void))on_icache);
	attach(DVC_CCU_LOG, (void (*)(void))on_ccu);
	if (inj.mte)
		attach(DVC_MTE_LOG, (void (*)(void))on_mte);
	attached = 1;
}

/* Around a captured launch: start the streams; at the end a launch record
 * ... then a trailer with the launch's counts. */
void inj_live_launch(int on, const char *name, int order)
{
	struct rec r;
	if (!attached)
		return;
	pthread_mutex_lock(&mu);
	if (on) {
		memset(streams, 0, sizeof streams);
		records = 0;
		dropped = 0;
		rec_init(&r, K_LAUNCH);
		r.n[N_PID].u = (uint32_t)getpid();
		r.n[N_ORDER].i = order;
		r.n[N_TILINGKEY].u = REC_NONE;
		r.n[N_PCSTART].u = REC_NONE;
		rec_text_set(&r, NS_NAME, name, strlen(name));
		rec_text_set(&r, NS_SOC, inj.soc ? inj.soc : "", inj.soc ? strlen(inj.soc) : 0);
		put_locked(&r);
		records--;
		active = 1;
	} else {
		active = 0;
		rec_init(&r, K_TRAILER);
		r.n[T_RECORDS].u = records;
		r.n[T_DROPPED].u = dropped;
		rec_text_set(&r, TS_PRODUCER, "optrace-inject", 14);
		put_locked(&r);
		flush_locked();
	}
	pthread_mutex_unlock(&mu);
}

void inj_live_after_fork(void)
{
	pthread_mutex_init(&mu, NULL);
	blen = 0;
	active = 0;
}
