/* The rt* runtime hooks, with CANN's signatures (recorded in
 * test/camodel/include/runtime/rt.h).  Originals come from
 * libruntime_camodel.so in simulator mode (IS_SIMULATOR_ENV=true), else
 * libruntime.so. */
#include "hook.h"

#include <string.h>

#define RT_SPAN(fn, args, a0, a1, a2, text, post) \
	SPAN_CALL(LIB_RT, fn, RT_ERROR_RESERVED, args, a0, a1, a2, text, post)

/* ---- device ---- */

INJ_API rtError_t rtSetDevice(int32_t dev)
{
	/* The simulator has one device: 0. */
	if (!inj.ready)
		inj_init();
	if (inj.sim)
		dev = 0;
	{
		RT_SPAN(rtSetDevice, (dev), dev, NONE, NONE, ARGS("device=%d", I(dev)), (void)0)
	}
}

INJ_API rtError_t rtDeviceReset(int32_t dev)
{
	if (!inj.ready)
		inj_init();
	if (inj.sim)
		dev = 0;
	{
		RT_SPAN(rtDeviceReset, (dev), dev, NONE, NONE, ARGS("device=%d", I(dev)), (void)0)
	}
}

INJ_API rtError_t rtGetDevice(int32_t *dev)
{
	RT_SPAN(rtGetDevice, (dev), dev ? (uint64_t)*dev : NONE, NONE, NONE,
	        ARGS("device=%d", I(dev && r_ == 0 ? *dev : -1)), (void)0)
}

INJ_API rtError_t rtGetDeviceCount(int32_t *cnt)
{
	if (!inj.ready)
		inj_init();
	if (inj.sim && cnt) {
		/* As the reference: the simulator answers 16 devices. */
		*cnt = 16;
		return 0;
	}
	{
		RT_SPAN(rtGetDeviceCount, (cnt), cnt ? (uint64_t)*cnt : NONE, NONE, NONE,
		        ARGS("count=%d", I(cnt && r_ == 0 ? *cnt : -1)), (void)0)
	}
}

INJ_API rtError_t rtGetSocVersion(char *ver, const uint32_t maxlen)
{
	if (!inj.ready)
		inj_init();
	if (inj.sim && inj.soc && ver && maxlen > strlen(inj.soc)) {
		/* The application sees the simulated SoC. */
		strcpy(ver, inj.soc);
		return 0;
	}
	{
		RT_SPAN(rtGetSocVersion, (ver, maxlen), maxlen, NONE, NONE,
		        ARGS("max=%u version=%s", U(maxlen), ver && maxlen && r_ == 0 && memchr(ver, 0, maxlen) ? ver : ""),
		        (void)0)
	}
}

/* ---- memory ---- */

INJ_API rtError_t rtMalloc(void **p, uint64_t size, int32_t type, const uint16_t mod)
{
	RT_SPAN(rtMalloc, (p, size, type, mod), size, type, OUTPTR(p),
	        ARGS("size=%u type=%d ptr=%x", U(size), I(type), XO(p)), if (p) inj_alloc_note(*p, size))
}

INJ_API rtError_t rtFree(void *p)
{
	RT_SPAN(rtFree, (p), PTR(p), NONE, NONE, ARGS("ptr=%x", X(p)), inj_alloc_forget(p))
}

INJ_API rtError_t rtMallocHost(void **p, uint64_t size, const uint16_t mod)
{
	RT_SPAN(rtMallocHost, (p, size, mod), size, NONE, OUTPTR(p), ARGS("size=%u ptr=%x", U(size), XO(p)), (void)0)
}

INJ_API rtError_t rtFreeHost(void *p)
{
	RT_SPAN(rtFreeHost, (p), PTR(p), NONE, NONE, ARGS("ptr=%x", X(p)), (void)0)
}

INJ_API rtError_t rtMemset(void *p, uint64_t max, uint32_t val, uint64_t cnt)
{
	RT_SPAN(rtMemset, (p, max, val, cnt), cnt, val, PTR(p),
	        ARGS("ptr=%x max=%u value=%u count=%u", X(p), U(max), U(val), U(cnt)), (void)0)
}

INJ_API rtError_t rtMemcpy(void *dst, uint64_t max, const void *src, uint64_t cnt, int32_t kind)
{
	RT_SPAN(rtMemcpy, (dst, max, src, cnt, kind), cnt, kind, PTR(dst),
	        ARGS("dst=%x src=%x size=%u max=%u kind=%k", X(dst), X(src), U(cnt), U(max), I(kind)), (void)0)
}

INJ_API rtError_t rtMemcpyAsync(void *dst, uint64_t max, const void *src, uint64_t cnt, int32_t kind,
                                void *stm)
{
	RT_SPAN(rtMemcpyAsync, (dst, max, src, cnt, kind, stm), cnt, kind, PTR(stm),
	        ARGS("dst=%x src=%x size=%u max=%u kind=%k stream=%x", X(dst), X(src), U(cnt), U(max), I(kind),
	             X(stm)),
	        (void)0)
}

/* ---- streams ---- */

INJ_API rtError_t rtStreamCreate(void **stm, int32_t prio)
{
	RT_SPAN(rtStreamCreate, (stm, prio), OUTPTR(stm), prio, NONE,
	        ARGS("stream=%x priority=%d", XO(stm), I(prio)), (void)0)
}

INJ_API rtError_t rtStreamDestroy(void *stm)
{
	RT_SPAN(rtStreamDestroy, (stm), PTR(stm), NONE, NONE, ARGS("stream=%x", X(stm)), (void)0)
}

INJ_API rtError_t rtStreamSynchronize(void *stm)
{
	RT_SPAN(rtStreamSynchronize, (stm), PTR(stm), NONE, NONE, ARGS("stream=%x", X(stm)), (void)0)
}

rtError_t inj_rt_soc(char *ver, uint32_t maxlen)
{
	static void *o;
	__typeof__(&rtGetSocVersion) f = ORIG(LIB_RT, rtGetSocVersion, o);
	return f ? f(ver, maxlen) : RT_ERROR_RESERVED;
}

rtError_t inj_rt_sync(void *stm)
{
	static void *o;
	__typeof__(&rtStreamSynchronize) f = ORIG(LIB_RT, rtStreamSynchronize, o);
	return f ? f(stm) : RT_ERROR_RESERVED;
}

rtError_t inj_rt_kernel_addr(void *hdl, uint64_t key, const void *stub, int flag, void **addr)
{
	typedef rtError_t (*fn)(void *, const uint64_t, const void *const, const uint32_t, void **,
	                        uint32_t *);
	static void *o;
	uint32_t pref = 0;
	fn f = (fn)inj_orig(LIB_RT, "rtKernelGetAddrAndPrefCnt", &o, NULL);
	return f ? f(hdl, key, stub, (uint32_t)flag, addr, &pref) : RT_ERROR_RESERVED;
}

rtError_t inj_rt_memcpy_d2h(void *dst, const void *src, uint64_t n)
{
	static void *o;
	__typeof__(&rtMemcpy) f = ORIG(LIB_RT, rtMemcpy, o);
	return f ? f(dst, n, src, n, 2 /* RT_MEMCPY_DEVICE_TO_HOST */) : RT_ERROR_RESERVED;
}

rtError_t inj_rt_memcpy_h2d(void *dst, const void *src, uint64_t n)
{
	static void *o;
	__typeof__(&rtMemcpy) f = ORIG(LIB_RT, rtMemcpy, o);
	return f ? f(dst, n, src, n, 1 /* RT_MEMCPY_HOST_TO_DEVICE */) : RT_ERROR_RESERVED;
}

/* ---- binaries and functions ---- */

INJ_API rtError_t rtDevBinaryRegister(const rtDevBinary_t *bin, void **hdl)
{
	RT_SPAN(rtDevBinaryRegister, (bin, hdl), bin ? bin->length : NONE, bin ? bin->magic : NONE,
	        OUTPTR(hdl),
	        ARGS("size=%u magic=%x handle=%x", U(bin ? bin->length : 0), bin ? U(bin->magic) : NONE, XO(hdl)),
	        if (bin && hdl) inj_bin_register(*hdl, bin->data, bin->length, bin->magic))
}

INJ_API rtError_t rtRegisterAllKernel(const rtDevBinary_t *bin, void **hdl)
{
	RT_SPAN(rtRegisterAllKernel, (bin, hdl), bin ? bin->length : NONE, bin ? bin->magic : NONE,
	        OUTPTR(hdl),
	        ARGS("size=%u magic=%x handle=%x", U(bin ? bin->length : 0), bin ? U(bin->magic) : NONE, XO(hdl)),
	        if (bin && hdl) inj_bin_register(*hdl, bin->data, bin->length, bin->magic))
}

INJ_API rtError_t rtDevBinaryUnRegister(void *hdl)
{
	RT_SPAN(rtDevBinaryUnRegister, (hdl), PTR(hdl), NONE, NONE, ARGS("handle=%x", X(hdl)), (void)0)
}

INJ_API rtError_t rtFunctionRegister(void *bin, const void *stub, const char *stubname,
                                     const void *devfunc, uint32_t mode)
{
	RT_SPAN(rtFunctionRegister, (bin, stub, stubname, devfunc, mode), PTR(bin), PTR(stub), mode,
	        ARGS("handle=%x stub=%x mode=%u name=%s", X(bin), X(stub), U(mode), stubname),
	        inj_stub_register(bin, stub, stubname, (const char *)devfunc))
}

/* ---- launches ---- */

#define LAUNCH_BEGIN(l, name, bd, stm)             \
	memset(&(l), 0, sizeof(l));                \
	(l).api = name;                            \
	(l).block_dim = bd;                        \
	(l).stream = stm;

INJ_API rtError_t rtKernelLaunch(const void *stub, uint32_t bd, void *args, uint32_t size, void *sm,
                                 void *stm)
{
	static void *o;
	__typeof__(&rtKernelLaunch) f = ORIG(LIB_RT, rtKernelLaunch, o);
	struct inj_launch l;
	char tb[INJ_ARGS_MAX];
	rtError_t r;
	if (!f)
		return RT_ERROR_RESERVED;
	if (!inj_span_begin(&l.span))
		return f(stub, bd, args, size, sm, stm);
	LAUNCH_BEGIN(l, "rtKernelLaunch", bd, stm)
	l.span.on = 1;
	inj_launch_by_stub(&l, stub);
	inj_launch_begin(&l);
	if ((l.order >= 0 || l.in_range) && inj.args)
		inj_launch_save_args(&l, args, size, NULL);
	INJ_RUN(l, r, f(stub, bd, args, size, sm, stm));
	inj_launch_end(&l, r);
	inj_span_end(&l.span, "rtKernelLaunch", r, bd, size, PTR(stub),
	             inj.spans ? inj_args(tb, sizeof tb, "kernel=%s blockDim=%u stream=%x args=%x argsSize=%u stub=%x",
	                                  l.name, U(bd), X(stm), X(args), U(size), X(stub))
	                       : NULL);
	return r;
}

INJ_API rtError_t rtKernelLaunchWithFlagV2(const void *stub, uint32_t bd, rtArgsEx_t *ai, void *sm,
                                           void *stm, uint32_t flags, const void *cfg)
{
	static void *o;
	__typeof__(&rtKernelLaunchWithFlagV2) f = ORIG(LIB_RT, rtKernelLaunchWithFlagV2, o);
	struct inj_launch l;
	char tb[INJ_ARGS_MAX];
	rtError_t r;
	if (!f)
		return RT_ERROR_RESERVED;
	if (!inj_span_begin(&l.span))
		return f(stub, bd, ai, sm, stm, flags, cfg);
	LAUNCH_BEGIN(l, "rtKernelLaunchWithFlagV2", bd, stm)
	l.span.on = 1;
	inj_launch_by_stub(&l, stub);
	inj_launch_begin(&l);
	if ((l.order >= 0 || l.in_range) && inj.args && ai)
		inj_launch_save_args(&l, ai->args, ai->argsSize, ai);
	INJ_RUN(l, r, f(stub, bd, ai, sm, stm, flags, cfg));
	inj_launch_end(&l, r);
	inj_span_end(&l.span, "rtKernelLaunchWithFlagV2", r, bd, ai ? ai->argsSize : NONE, flags,
	             inj.spans ? inj_args(tb, sizeof tb,
	                                  "kernel=%s blockDim=%u stream=%x args=%x argsSize=%u flags=%x stub=%x", l.name,
	                                  U(bd), X(stm), X(ai ? ai->args : NULL), U(ai ? ai->argsSize : 0), U(flags),
	                                  X(stub))
	                       : NULL);
	return r;
}

static const char *handle_args(char *tb, size_t cap, const struct inj_launch *l, uint32_t bd, void *stm,
                               uint64_t key, const rtArgsEx_t *ai, void *hdl)
{
	if (!inj.spans)
		return NULL;
	return inj_args(tb, cap, "kernel=%s blockDim=%u stream=%x tilingKey=%u args=%x argsSize=%u handle=%x",
	                l->name, U(bd), X(stm), U(key), X(ai ? ai->args : NULL), U(ai ? ai->argsSize : 0), X(hdl));
}

INJ_API rtError_t rtKernelLaunchWithHandleV2(void *hdl, const uint64_t key, uint32_t bd, rtArgsEx_t *ai,
                                             void *sm, void *stm, const void *cfg)
{
	static void *o;
	__typeof__(&rtKernelLaunchWithHandleV2) f = ORIG(LIB_RT, rtKernelLaunchWithHandleV2, o);
	struct inj_launch l;
	char tb[INJ_ARGS_MAX];
	rtError_t r;
	if (!f)
		return RT_ERROR_RESERVED;
	if (!inj_span_begin(&l.span))
		return f(hdl, key, bd, ai, sm, stm, cfg);
	LAUNCH_BEGIN(l, "rtKernelLaunchWithHandleV2", bd, stm)
	l.span.on = 1;
	inj_launch_by_handle(&l, hdl, key);
	inj_launch_begin(&l);
	if ((l.order >= 0 || l.in_range) && inj.args && ai)
		inj_launch_save_args(&l, ai->args, ai->argsSize, ai);
	INJ_RUN(l, r, f(hdl, key, bd, ai, sm, stm, cfg));
	inj_launch_end(&l, r);
	inj_span_end(&l.span, "rtKernelLaunchWithHandleV2", r, bd, key, PTR(hdl), handle_args(tb, sizeof tb, &l, bd, stm, key, ai, hdl));
	return r;
}

INJ_API rtError_t rtKernelLaunchWithHandle(void *hdl, const uint64_t key, uint32_t bd, rtArgsEx_t *ai,
                                           void *sm, void *stm, const void *info)
{
	static void *o;
	__typeof__(&rtKernelLaunchWithHandle) f = ORIG(LIB_RT, rtKernelLaunchWithHandle, o);
	struct inj_launch l;
	char tb[INJ_ARGS_MAX];
	rtError_t r;
	if (!f)
		return RT_ERROR_RESERVED;
	if (!inj_span_begin(&l.span))
		return f(hdl, key, bd, ai, sm, stm, info);
	LAUNCH_BEGIN(l, "rtKernelLaunchWithHandle", bd, stm)
	l.span.on = 1;
	inj_launch_by_handle(&l, hdl, key);
	inj_launch_begin(&l);
	if ((l.order >= 0 || l.in_range) && inj.args && ai)
		inj_launch_save_args(&l, ai->args, ai->argsSize, ai);
	INJ_RUN(l, r, f(hdl, key, bd, ai, sm, stm, info));
	inj_launch_end(&l, r);
	inj_span_end(&l.span, "rtKernelLaunchWithHandle", r, bd, key, PTR(hdl), handle_args(tb, sizeof tb, &l, bd, stm, key, ai, hdl));
	return r;
}
