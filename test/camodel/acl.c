/* libacl_rt_impl.so of the stand-in: the aclrt*Impl functions.  Memory,
 * device and stream calls go through the rt* API (as CANN's ACL does);
 * binaries, functions and launches go through the runtime's camodel* entry
 * points, so an ACL launch is never also an rt* launch. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "runtime/rt.h"

#define API __attribute__((visibility("default")))

/* in libruntime_camodel.so / libruntime.so */
int camodelBinaryLoad(const void *data, size_t length, uint32_t magic, void **binHandle);
int camodelGetFunction(void *binHandle, const char *name, void **funcHandle);
int camodelGetFunctionByKey(void *binHandle, uint64_t key, void **funcHandle);
int camodelFunctionAddr(void *funcHandle, uint64_t *addr);
uint32_t camodelFunctionMagic(void *funcHandle);
int camodelLaunch(void *funcHandle, uint32_t blockDim, const void *args, size_t argsSize, void *stream);
int camodelCaptureBegin(void *stream);
int camodelStreamCapturing(void *stream);
int camodelCaptureEnd(void *stream, void **model);
int camodelModelExecute(void *model, void *stream);
int camodelModelDestroy(void *model);

API aclError aclrtSetDeviceImpl(int32_t deviceId) { return rtSetDevice(deviceId); }
API aclError aclrtResetDeviceImpl(int32_t deviceId) { return rtDeviceReset(deviceId); }
API aclError aclrtGetDeviceImpl(int32_t *deviceId) { return rtGetDevice(deviceId); }

API const char *aclrtGetSocNameImpl(void)
{
	static char name[64];
	if (!name[0] && rtGetSocVersion(name, sizeof name) != 0) name[0] = 0;
	return name[0] ? name : NULL;
}

API aclError aclrtCreateStreamImpl(aclrtStream *stream) { return rtStreamCreate(stream, 0); }
API aclError aclrtDestroyStreamImpl(aclrtStream stream) { return rtStreamDestroy(stream); }

API aclError aclrtMallocImpl(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
	(void)policy;
	return rtMalloc(devPtr, size, RT_MEMORY_HBM, 0);
}
API aclError aclrtMallocWithCfgImpl(void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg)
{
	(void)cfg;
	return aclrtMallocImpl(devPtr, size, policy);
}
API aclError aclrtMallocHostImpl(void **hostPtr, size_t size) { return rtMallocHost(hostPtr, size, 0); }
API aclError aclrtFreeImpl(void *devPtr) { return rtFree(devPtr); }
API aclError aclrtFreeHostImpl(void *hostPtr) { return rtFreeHost(hostPtr); }
API aclError aclrtMemsetImpl(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
	return rtMemset(devPtr, maxCount, (uint32_t)value, count);
}
API aclError aclrtMemcpyImpl(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
	if ((unsigned)kind > ACL_MEMCPY_DEVICE_TO_DEVICE) return ACL_ERROR_INVALID_PARAM;
	return rtMemcpy(dst, destMax, src, count, (rtMemcpyKind_t)kind);
}
API aclError aclrtMemcpyAsyncImpl(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                                  aclrtStream stream)
{
	(void)stream;
	return aclrtMemcpyImpl(dst, destMax, src, count, kind);
}
API aclError aclrtSynchronizeStreamImpl(aclrtStream stream) { return rtStreamSynchronize(stream); }
API aclError aclrtSynchronizeStreamWithTimeoutImpl(aclrtStream stream, int32_t timeout)
{
	return rtStreamSynchronizeWithTimeout(stream, timeout);
}

/* ---- captured models: the launches a stream gets between CaptureBegin
 * and CaptureEnd are recorded, not run; ExecuteAsync runs them all ---- */
API aclError aclmdlRICaptureBeginImpl(aclrtStream stream, aclmdlRICaptureMode mode)
{
	(void)mode;
	return camodelCaptureBegin(stream);
}
API aclError aclmdlRICaptureEndImpl(aclrtStream stream, aclmdlRI *modelRI) { return camodelCaptureEnd(stream, modelRI); }
API aclError aclmdlRIExecuteAsyncImpl(aclmdlRI modelRI, aclrtStream stream) { return camodelModelExecute(modelRI, stream); }
API aclError aclmdlRIDestroyImpl(aclmdlRI modelRI) { return camodelModelDestroy(modelRI); }

/* ---- binaries ---- */

static uint32_t magic_named(const char *s, size_t n)
{
	if (n == 29 && !strncmp(s, "RT_DEV_BINARY_MAGIC_ELF_AIVEC", n)) return RT_DEV_BINARY_MAGIC_ELF_AIVEC;
	if (n == 30 && !strncmp(s, "RT_DEV_BINARY_MAGIC_ELF_AICUBE", n)) return RT_DEV_BINARY_MAGIC_ELF_AICUBE;
	if (n == 29 && !strncmp(s, "RT_DEV_BINARY_MAGIC_ELF_AICPU", n)) return RT_DEV_BINARY_MAGIC_ELF_AICPU;
	return RT_DEV_BINARY_MAGIC_ELF;
}

static uint32_t opt_magic(const aclrtBinaryLoadOptions *o, uint32_t dflt)
{
	for (size_t i = 0; o && o->options && i < o->numOpt; i++)
		if (o->options[i].type == ACL_RT_BINARY_LOAD_OPT_MAGIC) return o->options[i].value.magic;
	return dflt;
}

/* The kernel type of x.o is the "magic" string of x.json beside it. */
static uint32_t sibling_magic(const char *path)
{
	char j[4200];
	snprintf(j, sizeof j, "%s", path);
	char *dot = strrchr(j, '.'), *sl = strrchr(j, '/');
	if (!dot || (sl && dot < sl)) dot = j + strlen(j);
	snprintf(dot, sizeof j - (size_t)(dot - j), ".json");
	FILE *f = fopen(j, "r");
	if (!f) return RT_DEV_BINARY_MAGIC_ELF;
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	char *k = strstr(buf, "\"magic\"");
	if (!k || !(k = strchr(k + 7, ':')) || !(k = strchr(k, '"'))) return RT_DEV_BINARY_MAGIC_ELF;
	char *e = strchr(++k, '"');
	return e ? magic_named(k, (size_t)(e - k)) : RT_DEV_BINARY_MAGIC_ELF;
}

API aclError aclrtBinaryLoadFromFileImpl(const char *binPath, aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle)
{
	if (!binPath || !binHandle) return ACL_ERROR_INVALID_PARAM;
	FILE *f = fopen(binPath, "rb");
	if (!f) return ACL_ERROR_INVALID_PARAM;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	void *d = n > 0 ? malloc((size_t)n) : NULL;
	int ok = d && fread(d, 1, (size_t)n, f) == (size_t)n;
	fclose(f);
	if (!ok) { free(d); return ACL_ERROR_INVALID_PARAM; }
	int rc = camodelBinaryLoad(d, (size_t)n, opt_magic(options, sibling_magic(binPath)), binHandle);
	free(d);
	return rc;
}

API aclError aclrtBinaryLoadFromDataImpl(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
                                         aclrtBinHandle *binHandle)
{
	return camodelBinaryLoad(data, length, opt_magic(options, RT_DEV_BINARY_MAGIC_ELF), binHandle);
}

struct acl_binary { size_t len; unsigned char data[]; };

API aclrtBinary aclrtCreateBinaryImpl(const void *data, size_t dataLen)
{
	if (!data || !dataLen) return NULL;
	struct acl_binary *b = malloc(sizeof *b + dataLen);
	if (!b) return NULL;
	b->len = dataLen;
	memcpy(b->data, data, dataLen);
	return b;
}

API aclError aclrtBinaryLoadImpl(const aclrtBinary binary, aclrtBinHandle *binHandle)
{
	const struct acl_binary *b = binary;
	if (!b) return ACL_ERROR_INVALID_PARAM;
	return camodelBinaryLoad(b->data, b->len, RT_DEV_BINARY_MAGIC_ELF, binHandle);
}

API aclError aclrtBinaryUnLoadImpl(aclrtBinHandle binHandle) { return rtDevBinaryUnRegister(binHandle); }

API aclError aclrtBinaryGetFunctionImpl(const aclrtBinHandle binHandle, const char *kernelName, aclrtFuncHandle *funcHandle)
{
	return camodelGetFunction(binHandle, kernelName, funcHandle);
}

API aclError aclrtBinaryGetFunctionByEntryImpl(aclrtBinHandle binHandle, uint64_t funcEntry, aclrtFuncHandle *funcHandle)
{
	return camodelGetFunctionByKey(binHandle, funcEntry, funcHandle);
}

API aclError aclrtGetFunctionAddrImpl(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr)
{
	uint64_t a;
	int rc = camodelFunctionAddr(funcHandle, &a);
	if (rc) return rc;
	uint32_t m = camodelFunctionMagic(funcHandle);
	if (aicAddr) *aicAddr = m == RT_DEV_BINARY_MAGIC_ELF_AIVEC ? NULL : (void *)(uintptr_t)a;
	if (aivAddr) *aivAddr = m == RT_DEV_BINARY_MAGIC_ELF_AICUBE ? NULL : (void *)(uintptr_t)a;
	return 0;
}

/* ---- argument handles ---- */

#define MAXP 32
struct param { size_t off, size; int holder; void *data; size_t dlen; };
struct args {
	uint32_t magic;
	void *func;
	unsigned char *buf;
	size_t size, cap;
	int user_mem, finalized;
	struct param p[MAXP];
	int np;
};
#define ARGS_MAGIC 0x41524753u

static struct args *args_of(aclrtArgsHandle h)
{
	struct args *a = h;
	return a && a->magic == ARGS_MAGIC ? a : NULL;
}

API aclError aclrtKernelArgsInitImpl(aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle)
{
	if (!funcHandle || !argsHandle) return ACL_ERROR_INVALID_PARAM;
	struct args *a = calloc(1, sizeof *a);
	if (!a) return ACL_ERROR_BAD_ALLOC;
	a->magic = ARGS_MAGIC;
	a->func = funcHandle;
	*argsHandle = a;
	return 0;
}

API aclError aclrtKernelArgsInitByUserMemImpl(aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle, void *userHostMem,
                                              size_t actualArgsSize)
{
	struct args *a = argsHandle;
	if (!funcHandle || !a || !userHostMem) return ACL_ERROR_INVALID_PARAM;
	memset(a, 0, sizeof *a);
	a->magic = ARGS_MAGIC;
	a->func = funcHandle;
	a->buf = userHostMem;
	a->cap = actualArgsSize;
	a->user_mem = 1;
	return 0;
}

static aclError append(struct args *a, const void *param, size_t size, int holder, aclrtParamHandle *ph)
{
	if (!a || a->finalized || a->np == MAXP) return ACL_ERROR_INVALID_PARAM;
	size_t off = (a->size + 7) & ~(size_t)7;
	if (off + size > a->cap) {
		if (a->user_mem) return ACL_ERROR_INVALID_PARAM;
		size_t nc = a->cap ? a->cap * 2 : 256;
		while (nc < off + size) nc *= 2;
		unsigned char *nb = realloc(a->buf, nc);
		if (!nb) return ACL_ERROR_BAD_ALLOC;
		a->buf = nb;
		a->cap = nc;
	}
	memset(a->buf + a->size, 0, off + size - a->size);
	if (param) memcpy(a->buf + off, param, size);
	a->size = off + size;
	a->p[a->np] = (struct param){ off, size, holder, NULL, 0 };
	if (ph) *ph = &a->p[a->np];
	a->np++;
	return 0;
}

API aclError aclrtKernelArgsAppendImpl(aclrtArgsHandle argsHandle, void *param, size_t paramSize, aclrtParamHandle *paramHandle)
{
	if (!param || !paramSize) return ACL_ERROR_INVALID_PARAM;
	return append(args_of(argsHandle), param, paramSize, 0, paramHandle);
}

API aclError aclrtKernelArgsAppendPlaceHolderImpl(aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle)
{
	return append(args_of(argsHandle), NULL, 8, 1, paramHandle);
}

API aclError aclrtKernelArgsGetPlaceHolderBufferImpl(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, size_t dataSize,
                                                     void **bufferAddr)
{
	struct args *a = args_of(argsHandle);
	struct param *p = paramHandle;
	if (!a || !p || !p->holder || !dataSize || !bufferAddr) return ACL_ERROR_INVALID_PARAM;
	void *d = realloc(p->data, dataSize);
	if (!d) return ACL_ERROR_BAD_ALLOC;
	p->data = d;
	p->dlen = dataSize;
	*bufferAddr = d;
	return 0;
}

API aclError aclrtKernelArgsParaUpdateImpl(aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, void *param, size_t paramSize)
{
	struct args *a = args_of(argsHandle);
	struct param *p = paramHandle;
	if (!a || !p || p->holder || !param || paramSize != p->size) return ACL_ERROR_INVALID_PARAM;
	memcpy(a->buf + p->off, param, paramSize);
	return 0;
}

API aclError aclrtKernelArgsFinalizeImpl(aclrtArgsHandle argsHandle)
{
	struct args *a = args_of(argsHandle);
	if (!a) return ACL_ERROR_INVALID_PARAM;
	a->finalized = 1;
	return 0;
}

/* ---- launches ---- */

/* Copy each placeholder's data to device memory and put its address in the
 * slot; launch; free those copies. */
static aclError launch_blob(void *func, uint32_t blockDim, unsigned char *blob, size_t size, const size_t *slot,
                            void *const *data, const size_t *dlen, size_t n, aclrtStream stream)
{
	void *dev[MAXP] = { 0 };
	int rc = 0;
	if (n > MAXP) return ACL_ERROR_INVALID_PARAM;
	for (size_t i = 0; i < n && !rc; i++) {
		if (slot[i] + 8 > size || !data[i]) { rc = ACL_ERROR_INVALID_PARAM; break; }
		rc = rtMalloc(&dev[i], dlen[i], RT_MEMORY_HBM, 0);
		if (!rc) rc = rtMemcpy(dev[i], dlen[i], data[i], dlen[i], RT_MEMCPY_HOST_TO_DEVICE);
		if (!rc) memcpy(blob + slot[i], &dev[i], 8);
	}
	if (!rc) rc = camodelLaunch(func, blockDim, blob, size, stream);
	/* a captured launch keeps its copies for the model's runs */
	for (size_t i = 0; i < n && (rc || !camodelStreamCapturing(stream)); i++)
		if (dev[i]) rtFree(dev[i]);
	return rc;
}

API aclError aclrtLaunchKernelWithConfigImpl(aclrtFuncHandle funcHandle, uint32_t blockDim, aclrtStream stream,
                                             aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve)
{
	(void)cfg; (void)reserve;
	struct args *a = args_of(argsHandle);
	if (!a || !a->finalized || (funcHandle && funcHandle != a->func)) return ACL_ERROR_INVALID_PARAM;
	size_t slot[MAXP], dlen[MAXP], n = 0, end = a->size;
	void *data[MAXP];
	for (int i = 0; i < a->np; i++)
		if (a->p[i].holder) {
			slot[n] = a->p[i].off;
			data[n] = a->p[i].data;
			dlen[n++] = a->p[i].dlen;
		}
	unsigned char *blob = malloc(end ? end : 1);
	if (!blob) return ACL_ERROR_BAD_ALLOC;
	memcpy(blob, a->buf, end);
	int rc = launch_blob(a->func, blockDim, blob, end, slot, data, dlen, n, stream);
	free(blob);
	return rc;
}

API aclError aclrtLaunchKernelWithHostArgsImpl(aclrtFuncHandle funcHandle, uint32_t blockDim, aclrtStream stream,
                                               aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize,
                                               aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum)
{
	(void)cfg;
	if (!funcHandle || (!hostArgs && argsSize) || placeHolderNum > MAXP) return ACL_ERROR_INVALID_PARAM;
	size_t slot[MAXP], dlen[MAXP], ptr_end = argsSize;
	void *data[MAXP];
	for (size_t i = 0; i < placeHolderNum; i++) {
		size_t from = placeHolderArray[i].dataOffset, to = argsSize;
		for (size_t j = 0; j < placeHolderNum; j++)
			if (placeHolderArray[j].dataOffset > from && placeHolderArray[j].dataOffset < to)
				to = placeHolderArray[j].dataOffset;
		if (from >= argsSize) return ACL_ERROR_INVALID_PARAM;
		slot[i] = placeHolderArray[i].addrOffset;
		data[i] = (unsigned char *)hostArgs + from;
		dlen[i] = to - from;
		if (from < ptr_end) ptr_end = from;
	}
	unsigned char *blob = malloc(argsSize ? argsSize : 1);
	if (!blob) return ACL_ERROR_BAD_ALLOC;
	memcpy(blob, hostArgs, argsSize);
	int rc = launch_blob(funcHandle, blockDim, blob, ptr_end, slot, data, dlen, placeHolderNum, stream);
	free(blob);
	return rc;
}

/* argsData is device memory (the pointer list copied there by the caller);
 * a host buffer is accepted too. */
API aclError aclrtLaunchKernelImpl(aclrtFuncHandle funcHandle, uint32_t blockDim, const void *argsData, size_t argsSize,
                                   aclrtStream stream)
{
	if (!funcHandle || (!argsData && argsSize) || argsSize > 16 * 8) return ACL_ERROR_INVALID_PARAM;
	unsigned char blob[16 * 8];
	if (argsSize && rtMemcpy(blob, sizeof blob, argsData, argsSize, RT_MEMCPY_DEVICE_TO_HOST) != 0)
		memcpy(blob, argsData, argsSize);
	return camodelLaunch(funcHandle, blockDim, blob, argsSize, stream);
}

API aclError aclrtLaunchKernelV2Impl(aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData, size_t argsSize,
                                     aclrtLaunchKernelCfg *cfg, aclrtStream stream)
{
	(void)cfg;
	return aclrtLaunchKernelImpl(funcHandle, numBlocks, argsData, argsSize, stream);
}
