/* A minimal runtime for the preload library's own tests and benchmark
 * (test/bats/inject.bats, test/bench/inject-bench.sh): the rt* calls the
 * test application makes, each as cheap as possible, and a "launch" that
 * writes a few camodel-format log lines to CAMODEL_LOG_PATH (or hands them
 * to an attached callback).  FAKE_RT_REPEAT=N repeats the four
 * instructions N times per block; FAKE_RT_SLEEP=S sleeps S seconds first.  Not a simulator: test/camodel is. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
	uint32_t core_id, sub_core_id;
	uint64_t pc;
	const char *decode_descr, *exec_descr;
} entry_t;
typedef void (*cb_t)(uint64_t, const entry_t *);
static cb_t cbs[6];
static int file_level = 2;

int32_t rtGetDevice(int32_t *d) { *d = 0; return 0; }
int32_t rtSetDevice(int32_t d) { (void)d; return 0; }
int32_t rtDeviceReset(int32_t d) { (void)d; return 0; }
int32_t rtStreamCreate(void **s, int32_t p) { (void)p; *s = malloc(1); return 0; }
int32_t rtStreamDestroy(void *s) { free(s); return 0; }
int32_t rtStreamSynchronize(void *s) { (void)s; return 0; }
int32_t rtDevBinaryRegister(const void *bin, void **h) { (void)bin; *h = malloc(1); return 0; }
int32_t rtFunctionRegister(void *b, const void *stub, const char *n, const void *d, uint32_t m)
{ (void)b; (void)stub; (void)n; (void)d; (void)m; return 0; }
int32_t rtKernelGetAddrAndPrefCnt(void *h, uint64_t k, const void *stub, uint32_t f, void **addr, uint32_t *p)
{ (void)h; (void)k; (void)stub; (void)f; *addr = (void *)(uintptr_t)0x10f86000; *p = 0; return 0; }
void DvcSetLogLevel(uint32_t f, uint32_t s, uint32_t fl) { (void)s; (void)fl; file_level = (int)f; }
void DvcAttachLogCallback(int type, cb_t fn) { if (type >= 0 && type < 6) cbs[type] = fn; }

static void put(int fd, const char *s) { if (write(fd, s, strlen(s)) < 0) _exit(99); }

int32_t rtKernelLaunch(const void *stub, uint32_t bd, void *args, uint32_t n, void *sm, void *stm)
{
	const char *dir = getenv("CAMODEL_LOG_PATH"), *sl = getenv("FAKE_RT_SLEEP");
	const char *rep = getenv("FAKE_RT_REPEAT");
	uint32_t r, reps = rep ? (uint32_t)atoi(rep) : 1;
	static const char *const logs[2] = { "instr_popped_log", "instr_log" };
	uint32_t b, i, k;
	(void)stub; (void)args; (void)n; (void)sm; (void)stm;
	if (sl)
		sleep((unsigned)atoi(sl));
	for (k = 0; k < 2; k++) {
		char path[4096];
		int fd = -1;
		if (dir && file_level < 6) {
			snprintf(path, sizeof path, "%s/core0.veccore0.%s.dump", dir, logs[k]);
			fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0640);
		}
		for (b = 0; b < (bd ? bd : 1); b++)
			for (r = 0; r < reps; r++)
			for (i = 0; i < 4; i++) {
				char dec[128], line[300];
				uint64_t pc = 0x10f86000 + 4 * i, t = 100 + 10 * (b + 2 * r) + i + k;
				entry_t e = { 0, 1, pc, dec, "XD:X1=0x1, IMM:0x1," };
				snprintf(dec, sizeof dec, "(PC: 0x%llx) SCALAR   : (Binary: 0x073a7f80) MOV_XD_IMM",
				         (unsigned long long)pc);
				if (cbs[k])
					cbs[k](t, &e);
				if (fd >= 0) {
					snprintf(line, sizeof line, "[info] [%08llu] %s  %s\n", (unsigned long long)t, dec,
					         e.exec_descr);
					put(fd, line);
				}
			}
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

/* A thin ACL layer over the rt calls above, as libascendcl is over the
 * runtime: its launch goes through rtKernelLaunch (which the preload
 * library must not count twice). */
static char acl_stub;
int aclrtBinaryLoadFromData(const void *d, size_t n, const void *opt, void **bh)
{ (void)d; (void)n; (void)opt; *bh = malloc(1); return 0; }
int aclrtBinaryGetFunction(void *bh, const char *name, void **fh)
{ (void)bh; (void)name; *fh = malloc(1); return 0; }
int aclrtGetFunctionAddr(void *fh, void **aic, void **aiv)
{ (void)fh; *aic = NULL; *aiv = (void *)(uintptr_t)0x10f86000; return 0; }
int aclrtLaunchKernel(void *fh, uint32_t bd, const void *args, size_t n, void *stm)
{ (void)fh; return rtKernelLaunch(&acl_stub, bd, (void *)args, (uint32_t)n, NULL, stm); }
int aclrtSynchronizeStream(void *stm) { return rtStreamSynchronize(stm); }
