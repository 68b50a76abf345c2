/* Device mode: how a captured launch is measured (see inject/README,
 * Device mode, and sim-capture(1), --replay-mode).
 *
 * Kernel replay: before the original launch the library runs
 * the kernel itself, --warm-up times unmeasured, then once per replay, the
 * device told which replay it is (CAMODEL_DEVICE_REPLAY) and where its raw
 * files go (CAMODEL_DEVICE_DUMP, the launch's dump directory).  The device
 * buffers the launch's pointer arguments point into are copied to the host
 * before the first run and copied back before each replay and before the
 * original launch, so that every replay counts the same work and the
 * application gets the results it would have had without profiling, even
 * from a kernel that changes its own inputs.
 *
 * Range replay: the launches inside an mstx range are not run when the
 * application makes them: the runtime captures them into a model
 * (aclmdlRICaptureBegin at the range's first launch, on its stream), the
 * library saving each one's inputs and writing the basic info of those
 * captured.  When the range ends the model runs --warm-up times, then once
 * per replay, every saved input restored before each run, the device
 * appending the records of the range's launches, one after the other, to
 * tmp_dump/device0/<pid>/<n>/ of the run directory (n: the ranges replayed
 * so far), beside output.txt, one line per launch of the range: its dump
 * directory, or -1 when it is not captured.  sim-capture splits them.
 *
 * Application replay: sim-capture runs the application once per replay;
 * the captured launch itself is the measured run of replay
 * OPTRACE_APP_REPLAY (capture.c gives it the directory it had in the first
 * run). */
#include "inject.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct inj_snap {
	uint64_t dev, size;
	void *host;
};

static void sync_launch(const struct inj_launch *l)
{
	if (l->acl)
		inj_acl_sync(l->stream);
	else
		inj_rt_sync(l->stream);
}

void inj_dev_snapshot(struct inj_launch *l, const void *args, uint32_t size)
{
	const unsigned char *a = args;
	uint32_t i;
	if (!args || l->snap || (l->order < 0 && !l->in_range) || !inj.restore)
		return;
	/* What the stream still has to do is part of the inputs. */
	sync_launch(l);
	for (i = 0; i + 8 <= size; i += 8) {
		uint64_t p, start = 0, sz;
		struct inj_snap *ns;
		size_t k;
		int dup = 0;
		memcpy(&p, a + i, 8);
		if (!p || !(sz = inj_alloc_find(p, &start)))
			continue;
		for (k = 0; k < l->nsnap; k++)
			dup |= l->snap[k].dev == start;
		if (dup)
			continue;
		if (!(ns = realloc(l->snap, (l->nsnap + 1) * sizeof *ns)))
			break;
		l->snap = ns;
		ns[l->nsnap].dev = start;
		ns[l->nsnap].size = sz;
		ns[l->nsnap].host = sz <= (10ull << 30) ? malloc(sz) : NULL;
		if (!ns[l->nsnap].host ||
		    inj_rt_memcpy_d2h(ns[l->nsnap].host, (const void *)(uintptr_t)start, sz) != 0) {
			inj_note("%s: launch %llu: a %llu-byte input at 0x%llx cannot be saved: its replays may see "
			         "changed data", l->name, (unsigned long long)l->index, (unsigned long long)sz,
			         (unsigned long long)start);
			free(ns[l->nsnap].host);
			continue;
		}
		l->nsnap++;
	}
}

static void restore_set(const struct inj_snap *snap, size_t n, const char *name, unsigned long long index)
{
	size_t k;
	for (k = 0; k < n; k++)
		if (inj_rt_memcpy_h2d((void *)(uintptr_t)snap[k].dev, snap[k].host, snap[k].size) != 0)
			inj_note("%s: launch %llu: the input at 0x%llx cannot be restored", name, index,
			         (unsigned long long)snap[k].dev);
}

static void restore(const struct inj_launch *l)
{
	restore_set(l->snap, l->nsnap, l->name, (unsigned long long)l->index);
}

static void direct(const char *dir, unsigned long replay)
{
	char num[24];
	int bad;
	bad = dir ? setenv("CAMODEL_DEVICE_DUMP", dir, 1) : unsetenv("CAMODEL_DEVICE_DUMP");
	if (replay) {
		snprintf(num, sizeof num, "%lu", replay);
		bad |= setenv("CAMODEL_DEVICE_REPLAY", num, 1);
	} else {
		bad |= inj.devreplay ? setenv("CAMODEL_DEVICE_REPLAY", inj.devreplay, 1) : unsetenv("CAMODEL_DEVICE_REPLAY");
	}
	if (bad)
		inj_note("cannot direct the device's raw data: %s", strerror(errno));
}

void inj_dev_direct(const struct inj_launch *l, unsigned long replay)
{
	direct(l ? l->dir : inj.devdump, replay);
}

static void range_add(struct inj_launch *l);

int inj_dev_next(struct inj_launch *l)
{
	unsigned long step, k;
	if (inj.device && inj.dev_mode == INJ_RANGE && l->in_range && !inj.disabled) {
		if (l->dev_step++ == 0)
			range_add(l);
		return 0;
	}
	if (!inj.device || l->order < 0 || inj.dev_mode == INJ_APPLICATION || !inj.dev_replays || inj.disabled)
		return 0;
	step = l->dev_step++;
	if (step > 0)
		sync_launch(l); /* the run before is over */
	if (step < inj.warm_up) {
		/* Unmeasured: the raw data goes to the scratch directory. */
		if (step == 0)
			inj_dev_direct(NULL, 1);
		return 1;
	}
	k = step - inj.warm_up + 1;
	if (inj.restore)
		restore(l);
	if (k <= inj.dev_replays) {
		inj_dev_direct(l, k);
		return 1;
	}
	/* The original launch: restored inputs, the scratch directory. */
	inj_dev_direct(NULL, 0);
	return 0;
}

static void free_snaps(struct inj_snap *snap, size_t n)
{
	size_t k;
	for (k = 0; k < n; k++)
		free(snap[k].host);
	free(snap);
}

static void kill_app(void);
static int kill_at_range_end;

void inj_dev_done(struct inj_launch *l, int last)
{
	free_snaps(l->snap, l->nsnap);
	l->snap = NULL;
	l->nsnap = 0;
	if (!inj.kill || !last)
		return;
	if (l->in_range) {
		/* its measured runs are still to come */
		kill_at_range_end = 1;
		return;
	}
	kill_app();
}

/* ---- range replay ---- */

static pthread_mutex_t range_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int on;               /* a range's launches are being captured */
	void *stream;         /* the stream of its first launch */
	char **out;           /* output.txt, a line per launch */
	size_t nout, nvalid;
	struct inj_snap *snap;
	size_t nsnap;
	unsigned count;       /* ranges replayed: the next one's directory */
} rg;

static void basic_info(const struct inj_launch *l)
{
	char path[4200], soc[64] = "", text[1400];
	int n;
	if (inj.soc && strlen(inj.soc) < sizeof soc)
		strcpy(soc, inj.soc);
	else if (inj_rt_soc(soc, sizeof soc) != 0 || !memchr(soc, 0, sizeof soc))
		soc[0] = 0;
	/* Without the frequencies: the range's split appends them. */
	n = snprintf(text, sizeof text,
	             "Op Name=%s\nBlock Dim=%u\nRun Soc Version=%s\nDevice Id=0\nPid=%ld\nIs MC2=0\nIs Lccl=0\n"
	             "Has Simt=0\n",
	             l->name, l->block_dim, soc, (long)getpid());
	snprintf(path, sizeof path, "%s/op_basic_info.txt", l->dir);
	if (n < 0 || (size_t)n >= sizeof text || inj_write_file(path, text, (size_t)n))
		inj_note("%s: not written: %s", path, n < 0 || (size_t)n >= sizeof text ? "name too long" : strerror(errno));
}

static void range_add(struct inj_launch *l)
{
	char *line;
	size_t k, j;
	pthread_mutex_lock(&range_mu);
	if (!rg.on) {
		aclError rc = inj_acl_capture_begin(l->stream);
		if (rc != 0) {
			pthread_mutex_unlock(&range_mu);
			inj_note("%s: launch %llu: the runtime cannot capture the range (error %d): the launch runs "
			         "unmeasured", l->name, (unsigned long long)l->index, (int)rc);
			return;
		}
		rg.on = 1;
		rg.stream = l->stream;
	} else if (l->stream != rg.stream) {
		static int said;
		if (!__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
			inj_note("%s: launch %llu: on another stream than the range's first launch: it runs as it is "
			         "made, unmeasured", l->name, (unsigned long long)l->index);
	}
	line = strdup(l->order >= 0 ? l->dir : "-1");
	char **no = line ? realloc(rg.out, (rg.nout + 1) * sizeof *no) : NULL;
	if (!no) {
		free(line);
		inj_note("%s: launch %llu: out of memory: the range cannot be replayed", l->name,
		         (unsigned long long)l->index);
	} else {
		rg.out = no;
		rg.out[rg.nout++] = line;
		rg.nvalid += l->order >= 0;
	}
	/* The range's inputs: a buffer as it was before the range, saved by
	 * the first launch that points into it. */
	for (k = 0; k < l->nsnap; k++) {
		int dup = 0;
		struct inj_snap *ns;
		for (j = 0; j < rg.nsnap && !dup; j++)
			dup = rg.snap[j].dev == l->snap[k].dev;
		if (dup || !(ns = realloc(rg.snap, (rg.nsnap + 1) * sizeof *ns))) {
			free(l->snap[k].host);
			continue;
		}
		rg.snap = ns;
		rg.snap[rg.nsnap++] = l->snap[k];
	}
	free(l->snap);
	l->snap = NULL;
	l->nsnap = 0;
	if (l->order >= 0)
		basic_info(l);
	pthread_mutex_unlock(&range_mu);
}

/* <run>/tmp_dump/device0/<pid>/<n>, each directory under the run
 * directory made when missing; dir gets the path. */
static int range_dir(char *dir, size_t cap)
{
	const char *part[4];
	char pid[24], num[24];
	size_t i, len;
	snprintf(pid, sizeof pid, "%ld", (long)getpid());
	snprintf(num, sizeof num, "%u", rg.count);
	part[0] = "tmp_dump", part[1] = "device0", part[2] = pid, part[3] = num;
	len = (size_t)snprintf(dir, cap, "%s", inj.capdir);
	for (i = 0; i < 4; i++) {
		len += (size_t)snprintf(dir + len, len < cap ? cap - len : 0, "/%s", part[i]);
		if (len >= cap) {
			errno = ENAMETOOLONG;
			return -1;
		}
		struct stat st;
		if (mkdir(dir, 0750) && (errno != EEXIST || lstat(dir, &st) || !S_ISDIR(st.st_mode))) {
			if (errno == EEXIST)
				errno = ENOTDIR;
			return -1;
		}
	}
	return 0;
}

static int run_model(void *model, void *stream)
{
	aclError rc = inj_acl_model_run(model, stream);
	aclError rs = inj_acl_sync(stream);
	return rc ? (int)rc : (int)rs;
}

static int write_output_txt(const char *dir)
{
	char path[4400];
	size_t k, len = 0;
	char *text;
	int rc;
	for (k = 0; k < rg.nout; k++)
		len += strlen(rg.out[k]) + 1;
	if (!(text = malloc(len + 1)))
		return -1;
	len = 0;
	for (k = 0; k < rg.nout; k++)
		len += (size_t)sprintf(text + len, "%s\n", rg.out[k]);
	snprintf(path, sizeof path, "%s/output.txt", dir);
	rc = inj_write_file(path, text, len);
	free(text);
	return rc;
}

void inj_dev_range_end(void)
{
	void *model = NULL;
	char dir[4200];
	unsigned long k;
	aclError rc;
	int failed = 0;
	pthread_mutex_lock(&range_mu);
	if (!rg.on)
		goto out;
	rg.on = 0;
	if ((rc = inj_acl_capture_end(rg.stream, &model)) != 0) {
		inj_note("range replay: the runtime did not end the capture (error %d): the range is not measured",
		         (int)rc);
		goto clear;
	}
	if (!rg.nvalid) {
		/* nothing of it captured: nothing to measure, but the
		 * application still gets its range run (the reference does not
		 * run such a range at all) */
		failed = 1;
	} else if (range_dir(dir, sizeof dir) || write_output_txt(dir)) {
		inj_note("%s: %s: the range is not measured", dir, strerror(errno));
		failed = 1;
	} else {
		rg.count++;
	}
	for (k = 0; !failed && k < inj.warm_up; k++) {
		if (inj.restore)
			restore_set(rg.snap, rg.nsnap, "range", rg.count - 1);
		direct(inj.devdump, 1);
		run_model(model, rg.stream);
	}
	for (k = 1; !failed && k <= inj.dev_replays; k++) {
		if (inj.restore)
			restore_set(rg.snap, rg.nsnap, "range", rg.count - 1);
		setenv("CAMODEL_DEVICE_RANGE", "1", 1);
		direct(dir, k);
		if ((rc = run_model(model, rg.stream)) != 0)
			inj_note("%s: replay %lu of the range failed (error %d)", dir, k, (int)rc);
		unsetenv("CAMODEL_DEVICE_RANGE");
	}
	/* The application goes on with what one run of its range gave
	 * (when it was not run at all, as it would have been without the
	 * capture). */
	if (failed) {
		if (inj.restore)
			restore_set(rg.snap, rg.nsnap, "range", rg.count);
		direct(inj.devdump, 1);
		run_model(model, rg.stream);
	}
	direct(inj.devdump, 0);
clear:
	if (model)
		inj_acl_model_destroy(model);
	for (k = 0; k < rg.nout; k++)
		free(rg.out[k]);
	free(rg.out);
	free_snaps(rg.snap, rg.nsnap);
	memset(&rg, 0, offsetof(__typeof__(rg), count));
out:
	pthread_mutex_unlock(&range_mu);
	if (kill_at_range_end)
		kill_app();
}

static void kill_app(void)
{
	unsigned k;
	/* --kill=on: as the reference, SIGINT to the application, and SIGKILL
	 * when it is still there 30 s later. */
	inj_flush();
	kill(getpid(), SIGINT);
	for (k = 0; k < 300; k++) {
		struct timespec ts = { 0, 100000000 };
		nanosleep(&ts, NULL);
	}
	kill(getpid(), SIGKILL);
}
