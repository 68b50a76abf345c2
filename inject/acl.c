/* The aclrt* hooks, with CANN's signatures (recorded in
 * test/camodel/include/acl/acl.h): each call under its public name
 * (libascendcl.so) and its Impl name (libacl_rt_impl.so), which the public
 * one forwards to; a hook entered from inside another only forwards. */
#include "hook.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define ACL_SPAN(fn, args, a0, a1, a2, text, post) \
	SPAN_CALL(LIB_ACL, fn, ACL_ERROR_INTERNAL_ERROR, args, a0, a1, a2, text, post)

/* Both names of a span-only call. */
#define ACL_HOOK(fn, params, args, a0, a1, a2, text, post)                         \
	INJ_API aclError fn params { ACL_SPAN(fn, args, a0, a1, a2, text, post) }    \
	INJ_API aclError fn##Impl params { ACL_SPAN(fn##Impl, args, a0, a1, a2, text, post) }

static void note_init(void *ah);
static void note_param(void *ah, const void *param, size_t size);
static void note_placeholder(void *ah, void *buf, size_t size);

ACL_HOOK(aclrtSetDevice, (int32_t dev), (dev), dev, NONE, NONE, ARGS("device=%d", I(dev)), (void)0)
ACL_HOOK(aclrtResetDevice, (int32_t dev), (dev), dev, NONE, NONE, ARGS("device=%d", I(dev)), (void)0)
ACL_HOOK(aclrtGetDevice, (int32_t *dev), (dev), dev ? (uint64_t)*dev : NONE, NONE, NONE,
         ARGS("device=%d", I(dev && r_ == 0 ? *dev : -1)), (void)0)
ACL_HOOK(aclrtMalloc, (void **p, size_t size, int policy), (p, size, policy), size, policy, OUTPTR(p),
         ARGS("size=%u policy=%d ptr=%x", U(size), I(policy), XO(p)), if (p) inj_alloc_note(*p, size))
ACL_HOOK(aclrtFree, (void *p), (p), PTR(p), NONE, NONE, ARGS("ptr=%x", X(p)), inj_alloc_forget(p))
ACL_HOOK(aclrtMallocHost, (void **p, size_t size), (p, size), size, NONE, OUTPTR(p),
         ARGS("size=%u ptr=%x", U(size), XO(p)), (void)0)
ACL_HOOK(aclrtFreeHost, (void *p), (p), PTR(p), NONE, NONE, ARGS("ptr=%x", X(p)), (void)0)
ACL_HOOK(aclrtMemset, (void *p, size_t max, int32_t val, size_t cnt), (p, max, val, cnt), cnt, val,
         PTR(p), ARGS("ptr=%x max=%u value=%d count=%u", X(p), U(max), I(val), U(cnt)), (void)0)
ACL_HOOK(aclrtMemcpy, (void *dst, size_t max, const void *src, size_t cnt, int kind),
         (dst, max, src, cnt, kind), cnt, kind, PTR(dst),
         ARGS("dst=%x src=%x size=%u max=%u kind=%k", X(dst), X(src), U(cnt), U(max), I(kind)), (void)0)
ACL_HOOK(aclrtMemcpyAsync, (void *dst, size_t max, const void *src, size_t cnt, int kind, void *stm),
         (dst, max, src, cnt, kind, stm), cnt, kind, PTR(stm),
         ARGS("dst=%x src=%x size=%u max=%u kind=%k stream=%x", X(dst), X(src), U(cnt), U(max), I(kind), X(stm)),
         (void)0)
ACL_HOOK(aclrtCreateStream, (void **stm), (stm), OUTPTR(stm), NONE, NONE, ARGS("stream=%x", XO(stm)), (void)0)
ACL_HOOK(aclrtDestroyStream, (void *stm), (stm), PTR(stm), NONE, NONE, ARGS("stream=%x", X(stm)), (void)0)
ACL_HOOK(aclrtSynchronizeStream, (void *stm), (stm), PTR(stm), NONE, NONE, ARGS("stream=%x", X(stm)),
         (void)0)
ACL_HOOK(aclrtBinaryLoadFromFile, (const char *path, void *opts, void **bh), (path, opts, bh), OUTPTR(bh),
         NONE, NONE, ARGS("handle=%x path=%s", XO(bh), path), if (bh) inj_bin_register_file(*bh, path))
ACL_HOOK(aclrtBinaryUnLoad, (void *bh), (bh), PTR(bh), NONE, NONE, ARGS("handle=%x", X(bh)), (void)0)
ACL_HOOK(aclrtBinaryGetFunction, (void *bh, const char *name, void **fh), (bh, name, fh), PTR(bh),
         OUTPTR(fh), NONE, ARGS("handle=%x function=%x name=%s", X(bh), XO(fh), name),
         if (fh) inj_func_register(bh, *fh, name, 0, 0))
ACL_HOOK(aclrtBinaryGetFunctionByEntry, (void *bh, uint64_t entry, void **fh), (bh, entry, fh), PTR(bh),
         OUTPTR(fh), entry, ARGS("handle=%x function=%x entry=%u", X(bh), XO(fh), U(entry)),
         if (fh) inj_func_register(bh, *fh, NULL, entry, 1))
ACL_HOOK(aclrtKernelArgsInit, (void *fh, void **ah), (fh, ah), PTR(fh), OUTPTR(ah), NONE,
         ARGS("function=%x args=%x", X(fh), XO(ah)), if (ah) note_init(*ah))
ACL_HOOK(aclrtKernelArgsAppend, (void *ah, void *param, size_t size, void **ph), (ah, param, size, ph),
         PTR(ah), size, NONE,
         ARGS("args=%x size=%u value=%x", X(ah), U(size), param && size == 8 ? inj_u64_at(param) : NONE),
         note_param(ah, param, size))
ACL_HOOK(aclrtKernelArgsAppendPlaceHolder, (void *ah, void **ph), (ah, ph), PTR(ah), OUTPTR(ph), NONE,
         ARGS("args=%x placeholder=%x", X(ah), XO(ph)), (void)0)
ACL_HOOK(aclrtKernelArgsGetPlaceHolderBuffer, (void *ah, void *ph, size_t size, void **buf),
         (ah, ph, size, buf), PTR(ah), size, OUTPTR(buf),
         ARGS("args=%x placeholder=%x size=%u buffer=%x", X(ah), X(ph), U(size), XO(buf)),
         if (buf) note_placeholder(ah, *buf, size))
ACL_HOOK(aclrtKernelArgsFinalize, (void *ah), (ah), PTR(ah), NONE, NONE, ARGS("args=%x", X(ah)), (void)0)

/* aclrtBinaryLoadFromData: the magic is an option (type 2). */
struct load_opt {
	int type;
	union {
		uint32_t magic;
		uint32_t rsv[4];
	} value;
};
struct load_opts {
	struct load_opt *options;
	size_t num;
};

static uint32_t opt_magic(const void *opts)
{
	const struct load_opts *o = opts;
	size_t i;
	if (o && o->options)
		for (i = 0; i < o->num && i < 16; i++)
			if (o->options[i].type == 2)
				return o->options[i].value.magic;
	return RT_DEV_BINARY_MAGIC_ELF;
}

ACL_HOOK(aclrtBinaryLoadFromData, (const void *data, size_t len, const void *opts, void **bh),
         (data, len, opts, bh), len, OUTPTR(bh), NONE,
         ARGS("size=%u magic=%x handle=%x", U(len), U(opt_magic(opts)), XO(bh)),
         if (bh) inj_bin_register(*bh, data, len, opt_magic(opts)))

aclError inj_acl_sync(void *stm)
{
	static void *o;
	__typeof__(&aclrtSynchronizeStream) f = ORIG(LIB_ACL, aclrtSynchronizeStream, o);
	return f ? f(stm) : ACL_ERROR_INTERNAL_ERROR;
}

typedef aclError (*capture_begin_fn)(void *, int);
typedef aclError (*capture_end_fn)(void *, void **);
typedef aclError (*model_run_fn)(void *, void *);
typedef aclError (*model_destroy_fn)(void *);

#define ACL_ORIG(name, type, call)                                 \
	do {                                                       \
		static void *o;                                    \
		type f = (type)inj_orig(LIB_ACL, name, &o, NULL); \
		return f ? f call : ACL_ERROR_INTERNAL_ERROR;      \
	} while (0)

aclError inj_acl_capture_begin(void *stm)
{
	ACL_ORIG("aclmdlRICaptureBeginImpl", capture_begin_fn, (stm, 0)); /* ..._MODE_GLOBAL */
}

aclError inj_acl_capture_end(void *stm, void **model)
{
	ACL_ORIG("aclmdlRICaptureEndImpl", capture_end_fn, (stm, model));
}

aclError inj_acl_model_run(void *model, void *stm)
{
	ACL_ORIG("aclmdlRIExecuteAsyncImpl", model_run_fn, (model, stm));
}

aclError inj_acl_model_destroy(void *model)
{
	ACL_ORIG("aclmdlRIDestroyImpl", model_destroy_fn, (model));
}

aclError inj_acl_func_addr(void *fh, void **aic, void **aiv)
{
	typedef aclError (*fn)(void *, void **, void **);
	static void *o;
	fn f = (fn)inj_orig(LIB_ACL, "aclrtGetFunctionAddr", &o, NULL);
	return f ? f(fh, aic, aiv) : ACL_ERROR_INTERNAL_ERROR;
}

/* ---- replayable captures of ACL launches (see optrace-capture(5), KERNEL
 * DESCRIPTIONS, kernel_config.bin, old_mode; sim-capture(1), --replay) ---- */

/* What was appended to an args handle: the pointer parameters and the
 * placeholder buffer (the tiling data).  Kept only with --replay. */
#define MAXARGS 64
static pthread_mutex_t args_mu = PTHREAD_MUTEX_INITIALIZER;
static struct args_rec {
	void *ah;
	uint64_t ptr[MAXARGS];
	int n;
	void *tiling;
	size_t tiling_size;
} arecs[32];
static unsigned anext;

static struct args_rec *args_of(void *ah, int create)
{
	unsigned i;
	for (i = 0; i < 32; i++)
		if (arecs[i].ah == ah)
			return &arecs[i];
	if (!create)
		return NULL;
	i = anext++ % 32;
	memset(&arecs[i], 0, sizeof arecs[i]);
	arecs[i].ah = ah;
	return &arecs[i];
}

static void note_init(void *ah)
{
	if (!inj.args)
		return;
	pthread_mutex_lock(&args_mu);
	args_of(ah, 1)->n = 0;
	pthread_mutex_unlock(&args_mu);
}

static void note_param(void *ah, const void *param, size_t size)
{
	struct args_rec *a;
	if (!inj.args || size != 8 || !param)
		return;
	pthread_mutex_lock(&args_mu);
	if ((a = args_of(ah, 1)) && a->n < MAXARGS)
		memcpy(&a->ptr[a->n++], param, 8);
	pthread_mutex_unlock(&args_mu);
}

static void note_placeholder(void *ah, void *buf, size_t size)
{
	struct args_rec *a;
	if (!inj.args || !buf)
		return;
	pthread_mutex_lock(&args_mu);
	if ((a = args_of(ah, 1)) && !a->tiling) {
		a->tiling = buf;
		a->tiling_size = size;
	}
	pthread_mutex_unlock(&args_mu);
}

/* Pointers, then the tiling data inline: the rtArgsEx_t layout. */
static void save_handle_args(struct inj_launch *l, void *ah)
{
	struct args_rec a, *p;
	unsigned char *blob;
	rtArgsEx_t ex;
	pthread_mutex_lock(&args_mu);
	p = args_of(ah, 0);
	if (p)
		a = *p;
	pthread_mutex_unlock(&args_mu);
	if (!p || !(blob = malloc(8 * (size_t)a.n + a.tiling_size + 8)))
		return;
	memcpy(blob, a.ptr, 8 * (size_t)a.n);
	memset(&ex, 0, sizeof ex);
	if (a.tiling && a.tiling_size) {
		memcpy(blob + 8 * a.n, a.tiling, a.tiling_size);
		ex.hasTiling = 1;
		ex.tilingAddrOffset = 8 * (uint32_t)a.n;
		ex.tilingDataOffset = 8 * (uint32_t)a.n;
	}
	inj_launch_save_args(l, blob, (uint32_t)(8 * (size_t)a.n + (a.tiling ? a.tiling_size : 0)), &ex);
	free(blob);
}

/* The placeholder with the largest addrOffset holds the tiling data. */
static void save_host_args(struct inj_launch *l, const void *host, size_t size, const void *ph, size_t nph)
{
	const struct { uint32_t addrOffset, dataOffset; } *p = ph;
	rtArgsEx_t ex;
	size_t i, best = 0;
	memset(&ex, 0, sizeof ex);
	for (i = 0; p && i < nph && i < 64; i++)
		if (i == 0 || p[i].addrOffset > p[best].addrOffset)
			best = i;
	if (p && nph && p[best].dataOffset < size) {
		ex.hasTiling = 1;
		ex.tilingAddrOffset = p[best].addrOffset;
		ex.tilingDataOffset = p[best].dataOffset;
	}
	inj_launch_save_args(l, host, (uint32_t)size, ex.hasTiling ? &ex : NULL);
}

/* aclrtLaunchKernel: the pointer list is in device memory. */
static void save_device_args(struct inj_launch *l, const void *dev, size_t size)
{
	void *host;
	if (!dev || size == 0 || size > (1u << 20) || !(host = malloc(size)))
		return;
	if (inj_rt_memcpy_d2h(host, dev, size) == 0)
		inj_launch_save_args(l, host, (uint32_t)size, NULL);
	free(host);
}

/* ---- launches ---- */

#define ACL_LAUNCH(fn, apiname, fh, bd, stm, call, a1, save, argfmt, ...) \
	static void *o_;                                           \
	char tb_[INJ_ARGS_MAX];                                    \
	__typeof__(&fn) f_ = ORIG(LIB_ACL, fn, o_);                 \
	struct inj_launch l;                                       \
	aclError r;                                                \
	if (!f_)                                                   \
		return ACL_ERROR_INTERNAL_ERROR;                   \
	if (!inj_span_begin(&l.span))                              \
		return f_ call;                                    \
	memset(&l, 0, sizeof l);                                   \
	l.span.on = 1;                                             \
	l.api = apiname;                                             \
	l.block_dim = bd;                                          \
	l.stream = stm;                                            \
	inj_launch_by_func(&l, fh);                                \
	inj_launch_begin(&l);                                      \
	if ((l.order >= 0 || l.in_range) && inj.args) {            \
		save;                                              \
	}                                                          \
	INJ_RUN(l, r, f_ call);                                    \
	inj_launch_end(&l, r);                                     \
	inj_span_end(&l.span, apiname, r, bd, (uint64_t)(a1), PTR(fh),   \
	             inj.spans ? inj_args(tb_, sizeof tb_, "kernel=%s blockDim=%u stream=%x " argfmt \
	                                  " function=%x", l.name, U(bd), X(stm), __VA_ARGS__, X(fh)) \
	                       : NULL);                            \
	return r;

#define ACL_LAUNCH_PAIR(fn, params, fh, bd, stm, call, a1, save, ...)                                   \
	INJ_API aclError fn params { ACL_LAUNCH(fn, #fn, fh, bd, stm, call, a1, save, __VA_ARGS__) }            \
	INJ_API aclError fn##Impl params { ACL_LAUNCH(fn##Impl, #fn, fh, bd, stm, call, a1, save, __VA_ARGS__) }

ACL_LAUNCH_PAIR(aclrtLaunchKernel, (void *fh, uint32_t bd, const void *args, size_t size, void *stm), fh,
                bd, stm, (fh, bd, args, size, stm), size, save_device_args(&l, args, size),
                "args=%x argsSize=%u", X(args), U(size))
ACL_LAUNCH_PAIR(aclrtLaunchKernelV2,
                (void *fh, uint32_t bd, const void *args, size_t size, void *cfg, void *stm), fh, bd, stm,
                (fh, bd, args, size, cfg, stm), size, save_device_args(&l, args, size),
                "args=%x argsSize=%u config=%x", X(args), U(size), X(cfg))
ACL_LAUNCH_PAIR(aclrtLaunchKernelWithConfig,
                (void *fh, uint32_t bd, void *stm, void *cfg, void *ah, void *reserve), fh, bd, stm,
                (fh, bd, stm, cfg, ah, reserve), PTR(ah), save_handle_args(&l, ah),
                "args=%x config=%x", X(ah), X(cfg))
ACL_LAUNCH_PAIR(aclrtLaunchKernelWithHostArgs,
                (void *fh, uint32_t bd, void *stm, void *cfg, void *host, size_t size, void *ph,
                 size_t nph),
                fh, bd, stm, (fh, bd, stm, cfg, host, size, ph, nph), size,
                save_host_args(&l, host, size, ph, nph),
                "hostArgs=%x argsSize=%u placeholders=%u config=%x", X(host), U(size), U(nph), X(cfg))
