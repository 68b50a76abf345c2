/* Device mode: how a captured launch is measured (see inject/README,
 * Device mode, and sim-capture(1), --replay-mode).
 *
 * Kernel replay (and range replay, which replays the launches inside the
 * application's mstx ranges): before the original launch the library runs
 * the kernel itself, --warm-up times unmeasured, then once per replay, the
 * device told which replay it is (CAMODEL_DEVICE_REPLAY) and where its raw
 * files go (CAMODEL_DEVICE_DUMP, the launch's dump directory).  The device
 * buffers the launch's pointer arguments point into are copied to the host
 * before the first run and copied back before each replay and before the
 * original launch, so that every replay counts the same work and the
 * application gets the results it would have had without profiling, even
 * from a kernel that changes its own inputs.
 *
 * Application replay: sim-capture runs the application once per replay;
 * the captured launch itself is the measured run of replay
 * OPTRACE_APP_REPLAY (capture.c gives it the directory it had in the first
 * run). */
#include "inject.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	if (!args || l->snap || l->order < 0 || !inj.restore)
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

static void restore(const struct inj_launch *l)
{
	size_t k;
	for (k = 0; k < l->nsnap; k++)
		if (inj_rt_memcpy_h2d((void *)(uintptr_t)l->snap[k].dev, l->snap[k].host, l->snap[k].size) != 0)
			inj_note("%s: launch %llu: the input at 0x%llx cannot be restored", l->name,
			         (unsigned long long)l->index, (unsigned long long)l->snap[k].dev);
}

void inj_dev_direct(const struct inj_launch *l, unsigned long replay)
{
	const char *dir = l ? l->dir : inj.devdump;
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

int inj_dev_next(struct inj_launch *l)
{
	unsigned long step, k;
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

void inj_dev_done(struct inj_launch *l, int last)
{
	size_t k;
	for (k = 0; k < l->nsnap; k++)
		free(l->snap[k].host);
	free(l->snap);
	l->snap = NULL;
	l->nsnap = 0;
	if (!inj.kill || !last)
		return;
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
