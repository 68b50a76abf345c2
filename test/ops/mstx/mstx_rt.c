/* Vector add launched several times through rt*, some launches inside mstx
 * ranges (mstxRangeStartA / mstxRangeEnd of libms_tools_ext.so), for
 * sim-capture --mstx=on.
 *
 *   mstx_rt [-p PLAN] [-b BLOCKDIM]
 *
 * PLAN is a list of steps separated by spaces, run in order:
 *   +MSG   mstxRangeStartA(MSG, stream): a range opens (its id is pushed)
 *   -      mstxRangeEnd of the range opened last (popped)
 *   L      one launch of add_custom, its result checked
 *   F      fork: the child makes one launch and exits, the parent waits
 *   @STEP  STEP runs on a second thread (one thread for every @ step, each
 *          step still in order: the main thread waits for it)
 * The default, "+warm L - +step2 L - L", makes three launches: the first
 * inside range warm, the second inside step2, the third outside any.
 * Each launch prints "launch N" and the id of each range, so a test can
 * tell which launch was which.  Exit 0 when every result is right. */
#include <pthread.h>
#include <sys/wait.h>

#include "runtime/rt.h"
#include "mstx/ms_tools_ext.h"
#include "../common/host.h"

static char stub;
static rtStream_t stream;
static void *dx, *dy, *dz;
static float *x, *y, *z;
static size_t n, bytes;
static unsigned long blocks = 2;
static unsigned nlaunch;

static mstxRangeId ids[64];
static int nids;

static void launch(void)
{
	void *dt;
	uint32_t tiling[2] = { 8192, 1 };
	CHECK(rtMalloc(&dt, sizeof tiling, RT_MEMORY_HBM, 0));
	CHECK(rtMemcpy(dt, sizeof tiling, tiling, sizeof tiling, RT_MEMCPY_HOST_TO_DEVICE));
	CHECK(rtMemset(dz, bytes, 0, bytes));
	void *args[4] = { dx, dy, dz, dt };
	CHECK(rtKernelLaunch(&stub, (uint32_t)blocks, args, sizeof args, NULL, stream));
	CHECK(rtStreamSynchronize(stream));
	CHECK(rtMemcpy(z, bytes, dz, bytes, RT_MEMCPY_DEVICE_TO_HOST));
	CHECK(rtFree(dt));
	for (size_t i = 0; i < n; i++)
		if (z[i] != x[i] + y[i]) {
			fprintf(stderr, "mstx_rt: launch %u: wrong result at %zu\n", nlaunch, i);
			exit(1);
		}
	printf("launch %u\n", nlaunch++);
}

static void step(const char *s)
{
	if (s[0] == '+') {
		if (nids == (int)(sizeof ids / sizeof ids[0])) {
			fprintf(stderr, "mstx_rt: too many open ranges\n");
			exit(2);
		}
		ids[nids] = mstxRangeStartA(s + 1, stream);
		printf("range %s id %llu\n", s + 1, (unsigned long long)ids[nids]);
		nids++;
	} else if (!strcmp(s, "-")) {
		if (!nids) {
			fprintf(stderr, "mstx_rt: '-' with no open range\n");
			exit(2);
		}
		mstxRangeEnd(ids[--nids]);
	} else if (!strcmp(s, "L")) {
		launch();
	} else if (!strcmp(s, "F")) {
		int st;
		pid_t pid;
		fflush(stdout);
		pid = fork();
		if (pid < 0) {
			fprintf(stderr, "mstx_rt: fork failed\n");
			exit(1);
		}
		if (pid == 0) {
			printf("child ");
			launch();
			exit(0);
		}
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "mstx_rt: the child failed\n");
			exit(1);
		}
	} else {
		fprintf(stderr, "mstx_rt: unknown step '%s'\n", s);
		exit(2);
	}
	fflush(stdout);
}

/* The second thread: runs one step at a time for the main thread. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static const char *pending;
static int worker_on, quit;

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		while (!pending && !quit)
			pthread_cond_wait(&cv, &mu);
		if (!pending)
			break;
		pthread_mutex_unlock(&mu);
		step(pending);
		pthread_mutex_lock(&mu);
		pending = NULL;
		pthread_cond_broadcast(&cv);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

static pthread_t worker_thread;

static void on_worker(const char *s)
{
	if (!worker_on) {
		if (pthread_create(&worker_thread, NULL, worker, NULL)) {
			fprintf(stderr, "mstx_rt: cannot start a thread\n");
			exit(1);
		}
		worker_on = 1;
	}
	pthread_mutex_lock(&mu);
	pending = s;
	pthread_cond_broadcast(&cv);
	while (pending)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void stop_worker(void)
{
	if (!worker_on)
		return;
	pthread_mutex_lock(&mu);
	quit = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	pthread_join(worker_thread, NULL);
}

int main(int argc, char **argv)
{
	const char *plan = "+warm L - +step2 L - L";
	int c;
	prog_name = "mstx_rt";
	while ((c = getopt(argc, argv, "p:b:")) != -1) {
		switch (c) {
		case 'p': plan = optarg; break;
		case 'b': blocks = num_arg("-b", optarg); break;
		default:
			fprintf(stderr, "usage: mstx_rt [-p PLAN] [-b BLOCKDIM]\n");
			return 2;
		}
	}
	if (!blocks) {
		fprintf(stderr, "mstx_rt: -b must be > 0\n");
		return 2;
	}
	size_t klen;
	void *kbin = read_file(kernel_path("add_custom.o"), &klen);
	n = blocks * 8192;
	bytes = n * sizeof(float);
	x = malloc(bytes);
	y = malloc(bytes);
	z = malloc(bytes);
	if (!x || !y || !z) return 1;
	fill(x, n, 1);
	fill(y, n, 2);

	void *hdl;
	rtDevBinary_t bin = { RT_DEV_BINARY_MAGIC_ELF_AIVEC, 0, kbin, klen };
	CHECK(rtSetDevice(0));
	CHECK(rtStreamCreate(&stream, 0));
	CHECK(rtDevBinaryRegister(&bin, &hdl));
	CHECK(rtFunctionRegister(hdl, &stub, "add_custom", "add_custom", 0));
	CHECK(rtMalloc(&dx, bytes, RT_MEMORY_HBM, 0));
	CHECK(rtMalloc(&dy, bytes, RT_MEMORY_HBM, 0));
	CHECK(rtMalloc(&dz, bytes, RT_MEMORY_HBM, 0));
	CHECK(rtMemcpy(dx, bytes, x, bytes, RT_MEMCPY_HOST_TO_DEVICE));
	CHECK(rtMemcpy(dy, bytes, y, bytes, RT_MEMCPY_HOST_TO_DEVICE));

	char *steps = strdup(plan), *save = NULL;
	if (!steps) return 1;
	for (char *s = strtok_r(steps, " ,", &save); s; s = strtok_r(NULL, " ,", &save)) {
		if (s[0] == '@')
			on_worker(s + 1);
		else
			step(s);
	}
	stop_worker();
	free(steps);

	uint64_t tool = 0;
	mstxGetToolId(&tool);
	printf("tool 0x%llx\n", (unsigned long long)tool);
	CHECK(rtFree(dx));
	CHECK(rtFree(dy));
	CHECK(rtFree(dz));
	CHECK(rtDevBinaryUnRegister(hdl));
	CHECK(rtStreamDestroy(stream));
	CHECK(rtDeviceReset(0));
	printf("mstx_rt: %u launches: ok\n", nlaunch);
	return 0;
}
