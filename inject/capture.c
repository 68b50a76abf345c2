/* Registered binaries and functions, and what happens around a launch:
 * the kernel name, the --kernel-name / --launch-count choice, the capture
 * directory <capdir>/device0/<kernel>/<n>/dump with aicore_binary.o and
 * pc_start_addr.txt, and after the launch (simulator) the stream sync and
 * the move of the simulator's dumps out of CAMODEL_LOG_PATH. */
#include "inject.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

struct bin {
	const void *key;
	unsigned char *data;
	uint64_t len;
	uint32_t magic;
	struct inj_sym *syms;
	size_t nsyms;
	int saved;          /* 1 saved to tmp_dump/bin, -1 saving failed */
	char path[512];
};
struct stub {
	const void *stub;
	int bin;
	char *name;
};
struct func {
	const void *fh;
	int bin;
	char *name;
	uint64_t key;
	int haskey;
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct bin *bins;
static size_t nbins, capbins;
static struct stub *stubs;
static size_t nstubs, capstubs;
static struct func *funcs;
static size_t nfuncs, capfuncs;
static uint64_t launches;
static uint64_t considered; /* --mstx=on: launches inside the ranges */
static unsigned long granted;

void inj_cap_fork(int phase)
{
	if (phase == 0)
		pthread_mutex_lock(&reg_mu);
	else if (phase == 1)
		pthread_mutex_unlock(&reg_mu);
	else
		pthread_mutex_init(&reg_mu, NULL);
}

static int grow(void **v, size_t *cap, size_t n, size_t sz)
{
	void *nv;
	if (n < *cap)
		return 1;
	nv = realloc(*v, (*cap ? *cap * 2 : 16) * sz);
	if (!nv)
		return 0;
	*v = nv;
	*cap = *cap ? *cap * 2 : 16;
	return 1;
}

/* ---- registration ---- */

static int find_bin(const void *key)
{
	size_t i;
	for (i = nbins; i-- > 0;)
		if (bins[i].key == key)
			return (int)i;
	return -1;
}

void inj_bin_register(const void *key, const void *data, uint64_t len, uint32_t magic)
{
	struct bin b;
	if (inj.disabled || !data || len == 0 || len >= (30ull << 30))
		return;
	memset(&b, 0, sizeof b);
	b.key = key;
	b.magic = magic;
	b.len = len;
	b.data = malloc(len);
	if (!b.data) {
		inj_fail("out of memory copying a device binary", ENOMEM);
		return;
	}
	memcpy(b.data, data, len);
	b.nsyms = inj_elf_kernels(b.data, len, &b.syms);
	pthread_mutex_lock(&reg_mu);
	if (grow((void **)&bins, &capbins, nbins, sizeof *bins))
		bins[nbins++] = b;
	else
		free(b.data);
	pthread_mutex_unlock(&reg_mu);
}

void inj_bin_register_file(const void *key, const char *path)
{
	FILE *f;
	struct stat st;
	unsigned char *d;
	uint32_t magic = RT_DEV_BINARY_MAGIC_ELF;
	char json[4096];
	if (inj.disabled || !path || !(f = fopen(path, "rb")))
		return;
	if (fstat(fileno(f), &st) || st.st_size <= 0 || !(d = malloc((size_t)st.st_size))) {
		fclose(f);
		return;
	}
	if (fread(d, 1, (size_t)st.st_size, f) == (size_t)st.st_size) {
		/* The kernel type comes from a sibling x.json ("magic"). */
		const char *dot = strrchr(path, '.');
		size_t base = dot && !strchr(dot, '/') ? (size_t)(dot - path) : strlen(path);
		FILE *j;
		if (base + 6 < sizeof json) {
			memcpy(json, path, base);
			strcpy(json + base, ".json");
			if ((j = fopen(json, "r"))) {
				size_t n = fread(json, 1, sizeof json - 1, j);
				json[n] = 0;
				fclose(j);
				if (strstr(json, "RT_DEV_BINARY_MAGIC_ELF_AIVEC"))
					magic = RT_DEV_BINARY_MAGIC_ELF_AIVEC;
				else if (strstr(json, "RT_DEV_BINARY_MAGIC_ELF_AICUBE"))
					magic = RT_DEV_BINARY_MAGIC_ELF_AICUBE;
			}
		}
		inj_bin_register(key, d, (uint64_t)st.st_size, magic);
	}
	free(d);
	fclose(f);
}

/* The kernel symbol a name stands for: equal, or with a mix suffix. */
static const char *sym_match(const struct bin *b, const char *s)
{
	size_t i, n;
	char aic[1100], aiv[1100];
	if (!s)
		return NULL;
	n = strnlen(s, 1024);
	if (n == 0 || n >= 1024)
		return NULL;
	snprintf(aic, sizeof aic, "%.*s_mix_aic", (int)n, s);
	snprintf(aiv, sizeof aiv, "%.*s_mix_aiv", (int)n, s);
	for (i = 0; i < b->nsyms; i++)
		if (!strcmp(b->syms[i].name, s) || strstr(b->syms[i].name, aic) ||
		    strstr(b->syms[i].name, aiv))
			return b->syms[i].name;
	return NULL;
}

void inj_stub_register(const void *binkey, const void *stub, const char *stubname,
                       const char *devfunc)
{
	const char *name = NULL;
	char *copy;
	int b;
	if (inj.disabled)
		return;
	pthread_mutex_lock(&reg_mu);
	b = find_bin(binkey);
	if (b >= 0 && !(name = sym_match(&bins[b], stubname)))
		name = sym_match(&bins[b], devfunc);
	if (!name)
		name = stubname ? stubname : "anonymous";
	copy = strndup(name, 1023);
	if (copy && grow((void **)&stubs, &capstubs, nstubs, sizeof *stubs)) {
		stubs[nstubs].stub = stub;
		stubs[nstubs].bin = b;
		stubs[nstubs].name = copy;
		nstubs++;
	} else {
		free(copy);
	}
	pthread_mutex_unlock(&reg_mu);
}

/* The symbol of a tiling key: the only kernel, or the one ending in
 * _<key>, _<key>_mix_aic or _<key>_mix_aiv. */
static const char *sym_by_key(const struct bin *b, uint64_t key)
{
	char k[64];
	size_t i, kl;
	if (b->nsyms == 1)
		return b->syms[0].name;
	kl = (size_t)snprintf(k, sizeof k, "_%llu", (unsigned long long)key);
	for (i = 0; i < b->nsyms; i++) {
		const char *s = b->syms[i].name;
		size_t n = strlen(s);
		if (n >= 8 && (!strcmp(s + n - 8, "_mix_aic") || !strcmp(s + n - 8, "_mix_aiv")))
			n -= 8;
		if (n >= kl && !memcmp(s + n - kl, k, kl))
			return s;
	}
	return NULL;
}

void inj_func_register(const void *binkey, const void *fh, const char *name, uint64_t key, int bykey)
{
	const char *n = NULL;
	char *copy;
	int b;
	if (inj.disabled)
		return;
	pthread_mutex_lock(&reg_mu);
	b = find_bin(binkey);
	if (bykey)
		n = b >= 0 ? sym_by_key(&bins[b], key) : NULL;
	else if (b >= 0)
		n = sym_match(&bins[b], name);
	if (!n)
		n = name ? name : "";
	copy = strndup(n, 1023);
	if (copy && grow((void **)&funcs, &capfuncs, nfuncs, sizeof *funcs)) {
		funcs[nfuncs].fh = fh;
		funcs[nfuncs].bin = b;
		funcs[nfuncs].name = copy;
		funcs[nfuncs].key = key;
		funcs[nfuncs].haskey = bykey;
		nfuncs++;
	} else {
		free(copy);
	}
	pthread_mutex_unlock(&reg_mu);
}

uint32_t inj_bin_magic(int b)
{
	uint32_t m = 0;
	pthread_mutex_lock(&reg_mu);
	if (b >= 0 && (size_t)b < nbins)
		m = bins[b].magic;
	pthread_mutex_unlock(&reg_mu);
	return m;
}

/* ---- launch lookup ---- */

static void launch_init(struct inj_launch *l, int bin, const char *name)
{
	size_t i;
	l->bin = bin;
	l->order = -1;
	l->dir[0] = 0;
	l->tiling_key = REC_NONE;
	l->pc_start = REC_NONE;
	l->has_sym = 0;
	snprintf(l->name, sizeof l->name, "%s", name ? name : "");
	if (bin >= 0)
		for (i = 0; i < bins[bin].nsyms; i++)
			if (!strcmp(bins[bin].syms[i].name, l->name)) {
				l->sym_off = bins[bin].syms[i].off;
				l->has_sym = 1;
				break;
			}
}

int inj_launch_by_stub(struct inj_launch *l, const void *stub)
{
	size_t i;
	int found = 0;
	pthread_mutex_lock(&reg_mu);
	for (i = nstubs; i-- > 0;)
		if (stubs[i].stub == stub) {
			launch_init(l, stubs[i].bin, stubs[i].name);
			l->q_hdl = stubs[i].bin >= 0 ? bins[stubs[i].bin].key : NULL;
			found = 1;
			break;
		}
	if (!found)
		launch_init(l, -1, "");
	pthread_mutex_unlock(&reg_mu);
	l->q_stub = stub;
	l->q_flag = 0;
	return found;
}

int inj_launch_by_handle(struct inj_launch *l, const void *hdl, uint64_t key)
{
	const char *n = NULL;
	int b;
	pthread_mutex_lock(&reg_mu);
	b = find_bin(hdl);
	if (b >= 0)
		n = sym_by_key(&bins[b], key);
	launch_init(l, b, n);
	pthread_mutex_unlock(&reg_mu);
	l->tiling_key = key;
	l->q_hdl = hdl;
	l->q_stub = NULL;
	l->q_flag = 1;
	return n != NULL;
}

int inj_launch_by_func(struct inj_launch *l, const void *fh)
{
	size_t i;
	int found = 0;
	pthread_mutex_lock(&reg_mu);
	for (i = nfuncs; i-- > 0;)
		if (funcs[i].fh == fh) {
			launch_init(l, funcs[i].bin, funcs[i].name);
			if (funcs[i].haskey)
				l->tiling_key = funcs[i].key;
			found = 1;
			break;
		}
	if (!found)
		launch_init(l, -1, "");
	pthread_mutex_unlock(&reg_mu);
	l->q_fh = fh;
	l->acl = 1;
	return found;
}

/* ---- the capture directory ---- */

static int selected(const char *name)
{
	char **t;
	if (!name[0])
		return 0;
	if (!inj.names)
		return 1;
	for (t = inj.names; *t; t++)
		if (!strncmp(name, *t, strlen(*t)) || !fnmatch(*t, name, 0))
			return 1;
	return 0;
}

/* A kernel name as a directory name: long names keep 72 characters and a
 * FNV-1a hash of the rest (64-bit, decimal); '/' never appears. */
static void dir_name(char *out, size_t cap, const char *name)
{
	size_t n = strlen(name), i;
	if (n < 255) {
		snprintf(out, cap, "%s", name);
	} else {
		uint64_t h = 14695981039346656037ull;
		for (i = 72; i < n; i++)
			h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
		snprintf(out, cap, "%.72s_%llu", name, (unsigned long long)h);
	}
	for (i = 0; out[i]; i++)
		if (out[i] == '/')
			out[i] = '_';
}

static void not_saved(const char *path, const char *what, int err);
static void dfx_instrument(struct inj_launch *l);

int inj_write_file(const char *path, const void *p, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	const char *c = p;
	if (fd < 0)
		return -1;
	while (n > 0) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int err = w < 0 ? errno : EIO;
			close(fd);
			unlink(path);
			errno = err;
			return -1;
		}
		c += w;
		n -= (size_t)w;
	}
	if (close(fd)) {
		int err = errno;
		unlink(path);
		errno = err;
		return -1;
	}
	return 0;
}

/* Save a binary once per handle (A2 e_flags fix-up applied), then hard
 * link it into each launch directory. */
static int save_binary(int b, const char *dest)
{
	struct bin *bi;
	int r = -1;
	pthread_mutex_lock(&reg_mu);
	bi = &bins[b];
	if (!bi->saved) {
		unsigned char *d = bi->data;
		uint32_t flags;
		snprintf(bi->path, sizeof bi->path, "%s/device0/tmp_dump/bin/%u_%d.o", inj.capdir,
		         (unsigned)getpid(), b);
		if (bi->len >= 52 && inj.soc && strstr(inj.soc, "Ascend910B")) {
			memcpy(&flags, d + 48, 4);
			if (flags == 0x810000) {
				flags = bi->magic == RT_DEV_BINARY_MAGIC_ELF_AIVEC ? 0x930000 : 0x940000;
				memcpy(d + 48, &flags, 4);
			}
		}
		bi->saved = inj_write_file(bi->path, d, bi->len) == 0 ? 1 : -1;
	}
	if (bi->saved == 1 && link(bi->path, dest) == 0)
		r = 0;
	else
		r = inj_write_file(dest, bi->data, bi->len);
	pthread_mutex_unlock(&reg_mu);
	return r;
}

/* Application replay: the captured launches of each kernel name in this
 * process so far; returns the count before this one. */
static int replay_order(const char *name)
{
	static struct {
		char *name;
		int n;
	} *seen;
	static size_t nseen, capseen;
	size_t i;
	int n = -1;
	pthread_mutex_lock(&reg_mu);
	for (i = 0; i < nseen; i++)
		if (!strcmp(seen[i].name, name)) {
			n = seen[i].n++;
			break;
		}
	if (n < 0 && grow((void **)&seen, &capseen, nseen, sizeof *seen) && (seen[nseen].name = strdup(name))) {
		seen[nseen++].n = 1;
		n = 0;
	}
	pthread_mutex_unlock(&reg_mu);
	return n < 0 ? 0 : n;
}

static int io_dir_exists(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int make_dirs(struct inj_launch *l)
{
	char dn[300];
	size_t base;
	int n;
	dir_name(dn, sizeof dn, l->name);
	base = (size_t)snprintf(l->dir, sizeof l->dir, "%s/device0/%s", inj.capdir, dn);
	if (base >= sizeof l->dir - 16)
		return -1;
	if (mkdir(l->dir, 0750) && errno != EEXIST)
		return -1;
	if (inj.device && inj.dev_mode == INJ_APPLICATION && inj.app_replay > 1) {
		/* A later run of the application: the launch's directory is the
		 * one the first run gave the same launch of this process. */
		n = replay_order(l->name);
		snprintf(l->dir + base, sizeof l->dir - base, "/%d/dump", n);
		l->order = n;
		if (!io_dir_exists(l->dir)) {
			errno = ENOENT;
			return -1;
		}
		return 0;
	}
	if (inj.device && inj.dev_mode == INJ_APPLICATION)
		replay_order(l->name);
	/* mkdir is atomic: processes of one application never share an <n>. */
	for (n = 0; n < 1000; n++) {
		snprintf(l->dir + base, sizeof l->dir - base, "/%d", n);
		if (mkdir(l->dir, 0750) == 0)
			break;
		if (errno != EEXIST)
			return -1;
	}
	if (n == 1000) {
		errno = EMLINK;    /* as the reference: launches 0..999 of a kernel */
		return -1;
	}
	l->order = n;
	strcat(l->dir, "/dump");
	return mkdir(l->dir, 0750);
}

/* A launch outside the mstx ranges: a note record for sim-capture, which
 * counts them (manifest.json, mstx_skipped); the message starts "mstx:". */
static void outside_mstx(const struct inj_launch *l)
{
	struct rec r;
	char msg[1200];
	int n = snprintf(msg, sizeof msg, "mstx: launch %llu (%s) not captured: outside the mstx ranges%s",
	                 (unsigned long long)l->index, l->name[0] ? l->name : "unnamed",
	                 inj.mstx_include ? " of --mstx-include" : "");
	rec_init(&r, K_DIAG);
	r.n[D_LEVEL].u = 2;
	r.n[D_COUNT].u = 1;
	rec_text_set(&r, DS_TOOL, "optrace-inject", 14);
	rec_text_set(&r, DS_FILE, "", 0);
	rec_text_set(&r, DS_MESSAGE, msg, n > 0 && (size_t)n < sizeof msg ? (size_t)n : strlen(msg));
	inj_emit(&r);
}

void inj_launch_begin(struct inj_launch *l)
{
	char path[4200];
	int take = 0;
	uint64_t nth;
	l->index = __atomic_fetch_add(&launches, 1, __ATOMIC_RELAXED);
	l->order = -1;
	/* With --mstx=on a launch outside the thread's ranges is not even
	 * considered: it does not count for --launch-skip-before-match (the
	 * reference asks its host for nothing then).  The first
	 * --launch-skip-before-match launches considered are never captured,
	 * whatever their name (see optrace-capture(5), THE RUN DIRECTORY:
	 * every launch counts). */
	if (inj.capdir && !inj.disabled) {
		if (!inj_mstx_in_range()) {
			outside_mstx(l);
		} else {
			l->in_range = inj.device && inj.dev_mode == INJ_RANGE;
			nth = inj.mstx ? __atomic_fetch_add(&considered, 1, __ATOMIC_RELAXED) : l->index;
			if (nth >= inj.skip && selected(l->name)) {
				pthread_mutex_lock(&reg_mu);
				if (granted < inj.count) {
					granted++;
					take = 1;
				}
				pthread_mutex_unlock(&reg_mu);
			}
		}
	}
	if (take) {
		if (make_dirs(l)) {
			static int full_said;
			if (errno != EMLINK)
				inj_note("%s: cannot create the capture directory: %s (launch not captured)", l->dir,
				         strerror(errno));
			else if (!__atomic_exchange_n(&full_said, 1, __ATOMIC_RELAXED))
				inj_note("%s: 1000 launches of this kernel captured, as many as the run directory "
				         "holds (0..999): later ones are not captured", l->name[0] ? l->name : "unnamed");
			l->order = -1;
			l->dir[0] = 0;
		}
	}
	if (l->order >= 0) {
		void *addr = NULL, *aiv = NULL;
		char buf[64];
		if (l->bin >= 0) {
			snprintf(path, sizeof path, "%s/aicore_binary.o", l->dir);
			if (save_binary(l->bin, path))
				not_saved(path, "not saved", errno);
		}
		if (l->acl ? inj_acl_func_addr((void *)l->q_fh, &addr, &aiv) == 0
		           : inj_rt_kernel_addr((void *)l->q_hdl, l->tiling_key == REC_NONE ? 0 : l->tiling_key,
		                                l->q_stub, l->q_flag, &addr) == 0) {
			uint64_t a = (uint64_t)(uintptr_t)(addr ? addr : aiv);
			if (a && l->has_sym && a >= l->sym_off)
				a -= l->sym_off;
			if (a) {
				int n = snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)a);
				l->pc_start = a;
				snprintf(path, sizeof path, "%s/pc_start_addr.txt", l->dir);
				if (inj_write_file(path, buf, (size_t)n))
					not_saved(path, "not saved", errno);
			}
		}
		if (inj.logdir) {
			/* For the host's Ctrl+C rescue: where this launch's dumps go. */
			int n = snprintf(path, sizeof path, "%s\n%s\n", l->dir, l->name);
			char obj[4200];
			snprintf(obj, sizeof obj, "%s/object_dump.txt", inj.logdir);
			if (n > 0 && (size_t)n < sizeof path)
				inj_write_file(obj, path, (size_t)n);
		}
		if (inj.live)
			inj_live_launch(1, l->name, l->order);
		/* On a device the runtime writes the launch's raw PMU files
		 * (see optrace-board(5)) into its dump directory: the stand-in
		 * reads CAMODEL_DEVICE_DUMP at each launch.  In kernel and range
		 * replay the replays before the original launch write them
		 * (device.c); in application replay the launch is this run's
		 * replay. */
		if (inj.device && inj.dev_mode == INJ_APPLICATION)
			inj_dev_direct(l, inj.app_replay);
		else if (inj.device && !inj.dev_replays)
			inj_dev_direct(l, 0);
		if (inj.device)
			dfx_instrument(l);
	}
	l->span.t0 = inj_now();
}

/* InstrTimeline on a device: the compiler's instrumentation
 * (OPTRACE_DFX_TUNE, bisheng-tune) marks the captured kernel's
 * instructions and writes dfx_region_map.txt and dfx_tune.log into the
 * launch's dump directory; the device stamps the regions of that map
 * (CAMODEL_DEVICE_DFX_MAP).  The tool runs without this library.  When
 * it fails the launch runs uninstrumented: no timeline at all, until the
 * launch ends (dfx_restore). */
static int dfx_off;

static void dfx_fail(void)
{
	if (!unsetenv("CAMODEL_DEVICE_TIMELINE"))
		dfx_off = 1;
}

static void dfx_restore(void)
{
	unsetenv("CAMODEL_DEVICE_DFX_MAP");
	if (dfx_off && !setenv("CAMODEL_DEVICE_TIMELINE", "InstrTimeline", 1))
		dfx_off = 0;
}

static void dfx_instrument(struct inj_launch *l)
{
	extern char **environ;
	const char *tool = getenv("OPTRACE_DFX_TUNE"), *pipes = getenv("OPTRACE_DFX_PIPES");
	char bin[4200], sel[1100], pipe_opt[300], out[4200], map[4200];
	char *argv[8], **envp;
	size_t n = 0, k = 0;
	pid_t pid;
	int st, rc;

	unsetenv("CAMODEL_DEVICE_DFX_MAP");
	if (!tool || !*tool)
		return;
	if (l->bin < 0) {
		inj_note("%s: no kernel binary to instrument: no instruction timeline", l->dir);
		dfx_fail();
		return;
	}
	snprintf(bin, sizeof bin, "%s/aicore_binary.o", l->dir);
	if (l->tiling_key != REC_NONE)
		snprintf(sel, sizeof sel, "--tiling-key=%llu", (unsigned long long)l->tiling_key);
	else
		snprintf(sel, sizeof sel, "--kernel-name=%s", l->name);
	snprintf(out, sizeof out, "-o%s", l->dir);
	argv[k++] = (char *)tool;
	argv[k++] = "--action=instru-dfx";
	argv[k++] = sel;
	if (pipes && *pipes) {
		snprintf(pipe_opt, sizeof pipe_opt, "--dfx-pipe=%s", pipes);
		argv[k++] = pipe_opt;
	}
	argv[k++] = out;
	argv[k++] = bin;
	argv[k] = NULL;
	while (environ[n])
		n++;
	if (!(envp = calloc(n + 1, sizeof *envp))) {
		dfx_fail();
		return;
	}
	for (size_t i = 0, j = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			envp[j++] = environ[i];
	rc = posix_spawn(&pid, tool, NULL, NULL, argv, envp);
	free(envp);
	if (rc) {
		not_saved(tool, "instrumentation not run", rc);
		dfx_fail();
		return;
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR) {
			not_saved(tool, "instrumentation lost", errno);
			dfx_fail();
			return;
		}
	/* 1: a pipe ran out of dfx ids; its first instructions are marked
	 * and dfx_tune.log says which pipe is incomplete. */
	if (!WIFEXITED(st) || WEXITSTATUS(st) > 1) {
		inj_note("%s: the instrumentation of %s failed (above): no instruction timeline", l->dir, l->name);
		dfx_fail();
		return;
	}
	snprintf(map, sizeof map, "%s/dfx_region_map.txt", l->dir);
	setenv("CAMODEL_DEVICE_DFX_MAP", map, 1);
}

/* Something of a captured launch could not be written: said on stderr and
 * told to sim-capture as a diag record in the host record stream (file:
 * the path that is missing), which lists it in manifest.json and exits 4. */
static void not_saved(const char *path, const char *what, int err)
{
	struct rec r;
	char msg[160];
	int n = snprintf(msg, sizeof msg, "%s: %s", what, strerror(err));
	inj_note("%s: %s", path, msg);
	if (!inj.capdir || inj.disabled)
		return;
	rec_init(&r, K_DIAG);
	r.n[D_LEVEL].u = 1;
	r.n[D_COUNT].u = 1;
	rec_text_set(&r, DS_TOOL, "optrace-inject", 14);
	rec_text_set(&r, DS_FILE, path, strlen(path));
	rec_text_set(&r, DS_MESSAGE, msg, n > 0 && (size_t)n < sizeof msg ? (size_t)n : strlen(msg));
	inj_emit(&r);
}

/* Copy src to dst (a fresh file); 0 on success, else -1 with errno set and
 * no dst left behind (a dump cut anywhere would parse as a shorter one). */
static int copy_file(int sfd, const char *dst)
{
	char buf[65536];
	int dfd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640), err = 0;
	ssize_t r;
	if (dfd < 0)
		return -1;
	while ((r = copy_file_range(sfd, NULL, dfd, NULL, 1 << 30, 0)) > 0)
		;
	if (r < 0 && errno != EXDEV && errno != ENOSYS && errno != EOPNOTSUPP && errno != EINVAL &&
	    errno != EBADF)
		err = errno;
	else if (r < 0) {
		/* Not supported here: plain reads and writes, from where the
		 * offsets are. */
		while (!err && (r = read(sfd, buf, sizeof buf)) != 0) {
			char *p = buf;
			if (r < 0) {
				if (errno != EINTR)
					err = errno;
				continue;
			}
			while (r > 0) {
				ssize_t w = write(dfd, p, (size_t)r);
				if (w < 0 && errno == EINTR)
					continue;
				if (w <= 0) {
					err = w < 0 ? errno : EIO;
					break;
				}
				p += w;
				r -= w;
			}
		}
	}
	if (close(dfd) && !err)
		err = errno;
	if (err) {
		unlink(dst);
		errno = err;
		return -1;
	}
	return 0;
}

/* Every regular file of CAMODEL_LOG_PATH whose name holds "dump" (not our
 * own object_dump.txt): copied to dest when the launch is captured, then
 * truncated in place, so the next launch's logs start empty even while
 * the simulator keeps them open. */
static void move_dumps(const char *dest)
{
	DIR *d = opendir(inj.logdir);
	struct dirent *e;
	char src[4200], dst[8400];
	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;
		int fd;
		if (e->d_name[0] == '.' || !strstr(e->d_name, "dump") ||
		    !strcmp(e->d_name, "object_dump.txt"))
			continue;
		snprintf(src, sizeof src, "%s/%s", inj.logdir, e->d_name);
		fd = open(src, O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size == 0) {
			close(fd);
			continue;
		}
		if (dest) {
			snprintf(dst, sizeof dst, "%s/%s", dest, e->d_name);
			if (copy_file(fd, dst))
				not_saved(dst, "dump not saved", errno);
		}
		if (ftruncate(fd, 0))
			inj_note("%s: cannot truncate: %s", src, strerror(errno));
		close(fd);
	}
	closedir(d);
}

void inj_launch_end(struct inj_launch *l, int64_t ret)
{
	struct rec r;
	uint64_t end;
	char obj[4200];
	(void)ret;
	if (inj.sim && inj.logdir && inj.capdir && !inj.disabled) {
		if (l->acl)
			inj_acl_sync(l->stream);
		else
			inj_rt_sync(l->stream);
		if (l->order >= 0 && inj.live)
			inj_live_launch(0, l->name, l->order);
		move_dumps(l->order >= 0 ? l->dir : NULL);
		if (l->order >= 0) {
			snprintf(obj, sizeof obj, "%s/object_dump.txt", inj.logdir);
			unlink(obj);
		}
	}
	if (inj.device && l->order >= 0) {
		/* The launch's files are complete once its stream is done;
		 * later launches go back to the scratch directory. */
		if (l->acl)
			inj_acl_sync(l->stream);
		else
			inj_rt_sync(l->stream);
		inj_dev_direct(NULL, 0);
		dfx_restore();
	}
	end = inj_now();
	if (!inj.capdir || inj.disabled)
		return;
	rec_init(&r, K_LAUNCH);
	r.n[N_PID].u = (uint32_t)getpid();
	r.n[N_TID].u = inj_tid();
	r.n[N_LAUNCH].u = l->index;
	r.n[N_ORDER].i = l->order;
	r.n[N_BLOCKDIM].u = l->block_dim;
	r.n[N_TILINGKEY].u = l->tiling_key;
	r.n[N_PCSTART].u = l->pc_start;
	r.n[N_BEGIN].u = l->span.t0;
	r.n[N_END].u = end;
	rec_text_set(&r, NS_NAME, l->name, strlen(l->name));
	rec_text_set(&r, NS_API, l->api, strlen(l->api));
	rec_text_set(&r, NS_SOC, inj.soc ? inj.soc : "", inj.soc ? strlen(inj.soc) : 0);
	rec_text_set(&r, NS_DIR, l->order >= 0 ? l->dir : "", l->order >= 0 ? strlen(l->dir) : 0);
	inj_emit(&r);
	inj_flush();
	if (inj.device)
		inj_dev_done(l, l->order >= 0 && __atomic_load_n(&granted, __ATOMIC_RELAXED) >= inj.count);
}
