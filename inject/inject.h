/* The preload library's private interface (see inject/README).
 *
 * Everything here has hidden visibility (the whole library is built with
 * -fvisibility=hidden); only the hooked rt / acl / camodel names are
 * exported, with the runtime's exact C signatures. */
#ifndef OPTRACE_INJECT_H
#define OPTRACE_INJECT_H

#include <stddef.h>
#include <stdint.h>

#include "rec.h"

#define INJ_API __attribute__((visibility("default")))

typedef int32_t rtError_t;
typedef int aclError;
#define RT_ERROR_RESERVED 0x99
#define ACL_ERROR_INTERNAL_ERROR 500000

/* The runtime structs the hooks read, LP64, as CANN's runtime header declares
 * them (the repository's copy: test/camodel/include/runtime/rt.h, rtDevBinary_t
 * and rtArgsEx_t). */
typedef struct {
	uint32_t magic;
	uint32_t version;
	const void *data;
	uint64_t length;
} rtDevBinary_t;
typedef struct {
	uint32_t addrOffset;
	uint32_t dataOffset;
} rtHostInputInfo_t;
typedef struct {
	void *args;
	rtHostInputInfo_t *hostInputInfoPtr;
	uint32_t argsSize;
	uint32_t tilingAddrOffset;
	uint32_t tilingDataOffset;
	uint16_t hostInputInfoNum;
	uint8_t hasTiling;
	uint8_t isNoNeedH2DCopy;
	uint8_t reserved[4];
} rtArgsEx_t;

#define RT_DEV_BINARY_MAGIC_ELF 0x43554245u
#define RT_DEV_BINARY_MAGIC_ELF_AICPU 0x41415243u
#define RT_DEV_BINARY_MAGIC_ELF_AIVEC 0x41415246u
#define RT_DEV_BINARY_MAGIC_ELF_AICUBE 0x41494343u

enum inj_lib { LIB_RT, LIB_ACL, LIB_NLIBS };

/* Global state, set once by inj_init (pthread_once). */
struct inj_state {
	int ready;           /* init done */
	int disabled;        /* a failure: hooks only forward */
	int sim;             /* IS_SIMULATOR_ENV=true */
	int device;          /* OPTRACE_DEVICE=1: on a device, raw PMU data per launch */
	const char *devdump; /* CAMODEL_DEVICE_DUMP at start: where uncaptured launches write */
	int spans;           /* record host API spans */
	int replay;          /* save inputs and kernel_config.bin per launch */
	int mte;             /* live mode: forward the MTE log too (PMSampling) */
	const char *capdir;  /* OPTRACE_CAPTURE_DIR: the OPPROF_* run directory */
	const char *logdir;  /* CAMODEL_LOG_PATH */
	const char *soc;     /* CAMODEL_SOC_VERSION */
	const char *live;    /* OPTRACE_LIVE: FIFO of the live record stream */
	char **names;        /* --kernel-name tokens (NULL = any) */
	unsigned long count; /* --launch-count */
	unsigned long skip;  /* --launch-skip-before-match */
	int mstx;            /* --mstx=on: capture only inside the application's mstx ranges */
	/* device mode (device.c): how a captured launch is measured */
	int dev_mode;        /* OPTRACE_REPLAY_MODE: INJ_KERNEL, INJ_APPLICATION, INJ_RANGE */
	unsigned long dev_replays; /* OPTRACE_DEVICE_REPLAYS: kernel runs measured (kernel, range) */
	unsigned long warm_up;     /* OPTRACE_WARM_UP: unmeasured runs first (kernel, range) */
	unsigned long app_replay;  /* OPTRACE_APP_REPLAY: which run of the application (1..) */
	int restore;         /* inputs restored before each run (OPTRACE_DEVICE_RESTORE=0: not) */
	int kill;            /* OPTRACE_KILL=1: end the application after its last captured launch */
	int args;            /* the launch's argument blob is wanted (--replay, or replays to restore) */
	const char *devreplay; /* CAMODEL_DEVICE_REPLAY at start (uncaptured launches) */
	char **mstx_include; /* --mstx-include messages (NULL = any) */
};
extern struct inj_state inj __attribute__((visibility("hidden")));
enum { INJ_KERNEL, INJ_APPLICATION, INJ_RANGE };

void inj_init(void);
/* Report a failure once on stderr and stop profiling (hooks forward). */
void inj_fail(const char *what, int err);
/* A note on stderr (not a failure); callers that could repeat it say it once. */
void inj_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The original of a hooked function; *cache holds it after the first call.
 * self is the hook itself (never returned). */
void *inj_orig(int lib, const char *name, void **cache, void *self);
uint64_t inj_now(void);
uint32_t inj_tid(void);

/* Host API spans.  begin returns 0 when the call must only be forwarded
 * (nested inside another hook, profiling off); otherwise end must follow. */
struct inj_span {
	uint64_t t0;
	int on;
};
int inj_span_begin(struct inj_span *s);
void inj_span_end(struct inj_span *s, const char *name, int64_t ret, uint64_t a0, uint64_t a1,
                  uint64_t a2, const char *text);
/* The text arguments of a span, "key=value" separated by spaces (see
 * inj_args in core.c for the conversions); at most INJ_ARGS_MAX bytes. */
#define INJ_ARGS_MAX 1400
const char *inj_args(char *buf, size_t cap, const char *fmt, ...);
/* Enter/leave a hook without a span (forwarding inner calls). */
int inj_enter(void);
void inj_leave(void);

/* Append a record to this process's host record file. */
void inj_emit(const struct rec *r);
void inj_flush(void);
/* Registry lock around fork (capture.c). */
void inj_cap_fork(int phase); /* 0 prepare, 1 parent, 2 child */

/* ---- binaries, functions, launches (capture.c) ---- */
/* Register a device binary under key (an rt handle or an acl bin handle). */
void inj_bin_register(const void *key, const void *data, uint64_t len, uint32_t magic);
void inj_bin_register_file(const void *key, const char *path);
void inj_stub_register(const void *bin, const void *stub, const char *stubname, const char *devfunc);
/* An acl function handle: by name, or by tiling key (name found in the ELF). */
void inj_func_register(const void *bin, const void *fh, const char *name, uint64_t key, int bykey);

struct inj_launch {
	struct inj_span span;
	uint64_t index;      /* launch index in the process */
	int order;           /* <n> of the capture directory, -1 if not captured */
	int bin;             /* binary index or -1 */
	const char *api;
	char name[1024];
	char dir[4096];
	uint32_t block_dim;
	uint64_t tiling_key;
	uint64_t pc_start;
	void *stream;
	int acl;             /* an ACL launch: aclrtSynchronizeStream, replay with the aclrt API */
	/* How to ask the runtime where the kernel was loaded (pc_start). */
	const void *q_hdl, *q_stub, *q_fh;
	int q_flag;
	uint64_t sym_off;
	int has_sym;
	/* device mode, kernel and range replay (device.c): the runs done so far
	 * and the device buffers the launch points at, saved before the first */
	unsigned long dev_step;
	struct inj_snap *snap;
	size_t nsnap;
	int in_range;        /* range replay: a launch inside a counted mstx range */
};
/* Find what a launch runs; then begin (before the original launch) and end
 * (after it: synchronise, move the dumps, write the records). */
int inj_launch_by_stub(struct inj_launch *l, const void *stub);
int inj_launch_by_handle(struct inj_launch *l, const void *hdl, uint64_t tiling_key);
int inj_launch_by_func(struct inj_launch *l, const void *fh);
void inj_launch_begin(struct inj_launch *l);
void inj_launch_end(struct inj_launch *l, int64_t ret);
/* Replayable captures: device allocations (ptr -> size), the magic of a
 * binary, and the launch's argument blob (rt path). */
void inj_alloc_note(const void *ptr, uint64_t size);
void inj_alloc_forget(const void *ptr);
uint32_t inj_bin_magic(int bin);
void inj_launch_save_args(struct inj_launch *l, const void *args, uint32_t size,
                          const rtArgsEx_t *ex);

/* ---- device mode (device.c) ---- */
/* Save the device buffers the pointer words of args[0..size) point into
 * (the allocations seen), before the launch's first run. */
void inj_dev_snapshot(struct inj_launch *l, const void *args, uint32_t size);
/* Before the original launch of a captured one, in kernel and range
 * replay: 1 while there is a run to make first (a warm-up, then replay 1..N,
 * each on restored inputs and with the device told which replay it is); 0
 * at the end, the inputs restored once more for the original launch. */
int inj_dev_next(struct inj_launch *l);
/* Where the device writes the raw data of launch l (NULL: the scratch
 * directory) and which replay it is (0: as at start). */
void inj_dev_direct(const struct inj_launch *l, unsigned long replay);
/* After the launch's record: free what it kept; with --kill=on end the
 * application after its last captured launch. */
void inj_dev_done(struct inj_launch *l, int last);
/* Range replay: the calling thread's mstx range has ended; its launches
 * (captured by the runtime, not run) are run --warm-up times, then once
 * per replay on the inputs they had, into the range's directory. */
void inj_dev_range_end(void);
/* The runs of a launch hook: the replays first, then the original call. */
#define INJ_RUN(l, r, call)                      \
	do {                                     \
		while (inj_dev_next(&(l)))       \
			(void)(call);            \
		(r) = (call);                    \
	} while (0)

/* ---- mstx ranges (mstx.c) ---- */
/* 1 when the calling thread is inside one of its mstx ranges that counts
 * (always 1 without --mstx=on). */
int inj_mstx_in_range(void);
void inj_mstx_fork(int phase); /* 0 prepare, 1 parent, 2 child */

/* ---- ELF symbols (elf.c) ---- */
struct inj_sym {
	char *name;
	uint64_t off;
};
/* Global functions in .text; returns the count (0 if not an ELF). */
size_t inj_elf_kernels(const unsigned char *data, uint64_t len, struct inj_sym **out);

/* ---- live mode (live.c) ---- */
void inj_live_init(void);
void inj_live_launch(int on, const char *name, int order);
void inj_live_after_fork(void);

/* ---- the stream/sync originals the capture needs ---- */
rtError_t inj_rt_sync(void *stream);
aclError inj_acl_sync(void *stream);
rtError_t inj_rt_kernel_addr(void *hdl, uint64_t key, const void *stub, int flag, void **addr);
aclError inj_acl_func_addr(void *fh, void **aic, void **aiv);
rtError_t inj_rt_memcpy_d2h(void *dst, const void *src, uint64_t n);
rtError_t inj_rt_memcpy_h2d(void *dst, const void *src, uint64_t n);
rtError_t inj_rt_soc(char *ver, uint32_t maxlen);
/* A fresh file of n bytes (capture.c); 0, or -1 with errno and no file. */
int inj_write_file(const char *path, const void *p, size_t n);
/* Range replay: the runtime's capture of a stream's launches into a model,
 * and the model's runs (aclmdlRI*Impl). */
aclError inj_acl_capture_begin(void *stream);
aclError inj_acl_capture_end(void *stream, void **model);
aclError inj_acl_model_run(void *model, void *stream);
aclError inj_acl_model_destroy(void *model);
/* The allocation holding device address p: its start and size (0 if none). */
uint64_t inj_alloc_find(uint64_t p, uint64_t *start);

#endif
