/* The ACL runtime (aclrt*) C API of the stand-in, with CANN's signatures;
 * this header is the repository's record of them.  libascendcl.so exports
 * the public names; each forwards to the aclrt*Impl of the same arguments
 * in libacl_rt_impl.so, which is what a capture library hooks. */
#ifndef CAMODEL_ACL_H
#define CAMODEL_ACL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int aclError;
#define ACL_SUCCESS 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_BAD_ALLOC 200000
#define ACL_ERROR_INTERNAL_ERROR 500000

typedef void *aclrtStream;
typedef void *aclrtEvent;
typedef void *aclrtContext;
typedef void *aclrtBinHandle;
typedef void *aclrtFuncHandle;
typedef void *aclrtParamHandle;
typedef void *aclrtBinary;
typedef void *aclrtArgsHandle;
typedef void *aclmdlRI;
typedef enum {
	ACL_MODEL_RI_CAPTURE_MODE_GLOBAL, ACL_MODEL_RI_CAPTURE_MODE_THREAD_LOCAL, ACL_MODEL_RI_CAPTURE_MODE_RELAXED
} aclmdlRICaptureMode;

typedef enum {
	ACL_MEM_MALLOC_HUGE_FIRST, ACL_MEM_MALLOC_HUGE_ONLY, ACL_MEM_MALLOC_NORMAL_ONLY,
	ACL_MEM_MALLOC_HUGE_FIRST_P2P, ACL_MEM_MALLOC_HUGE_ONLY_P2P, ACL_MEM_MALLOC_NORMAL_ONLY_P2P,
	ACL_MEM_TYPE_LOW_BAND_WIDTH = 0x100, ACL_MEM_TYPE_HIGH_BAND_WIDTH = 0x1000
} aclrtMemMallocPolicy;
typedef enum {
	ACL_MEMCPY_HOST_TO_HOST, ACL_MEMCPY_HOST_TO_DEVICE, ACL_MEMCPY_DEVICE_TO_HOST, ACL_MEMCPY_DEVICE_TO_DEVICE
} aclrtMemcpyKind;
typedef union { uint8_t schemMode; uint32_t localMemorySize; uint32_t rsv[4]; } aclrtLaunchKernelAttrValue;
typedef struct { int id; aclrtLaunchKernelAttrValue value; } aclrtLaunchKernelAttr;
typedef struct { aclrtLaunchKernelAttr *attrs; size_t numAttrs; } aclrtLaunchKernelCfg;
typedef union { uint32_t isLazyLoad; uint32_t magic; int32_t cpuKernelMode; uint32_t rsv[4]; } aclrtBinaryLoadOptionValue;
typedef struct { int type; aclrtBinaryLoadOptionValue value; } aclrtBinaryLoadOption;   /* 1 LAZY_LOAD, 2 MAGIC, 3 CPU_KERNEL_MODE */
typedef struct { aclrtBinaryLoadOption *options; size_t numOpt; } aclrtBinaryLoadOptions;
typedef struct { uint32_t addrOffset; uint32_t dataOffset; } aclrtPlaceHolderInfo;
typedef struct { uint32_t rsv[4]; } aclrtMallocConfig;
#define ACL_RT_BINARY_LOAD_OPT_LAZY_LOAD 1
#define ACL_RT_BINARY_LOAD_OPT_MAGIC 2

aclError aclInit(const char *configPath);
aclError aclFinalize(void);

#define CAMODEL_ACL_API(ret, name, params) ret name params; ret name##Impl params;
CAMODEL_ACL_API(aclError, aclrtSetDevice, (int32_t deviceId))
CAMODEL_ACL_API(aclError, aclrtResetDevice, (int32_t deviceId))
CAMODEL_ACL_API(aclError, aclrtGetDevice, (int32_t *deviceId))
CAMODEL_ACL_API(const char *, aclrtGetSocName, (void))
CAMODEL_ACL_API(aclError, aclrtCreateStream, (aclrtStream *stream))
CAMODEL_ACL_API(aclError, aclrtDestroyStream, (aclrtStream stream))
CAMODEL_ACL_API(aclError, aclrtMalloc, (void **devPtr, size_t size, aclrtMemMallocPolicy policy))
CAMODEL_ACL_API(aclError, aclrtMallocWithCfg, (void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg))
CAMODEL_ACL_API(aclError, aclrtMallocHost, (void **hostPtr, size_t size))
CAMODEL_ACL_API(aclError, aclrtFree, (void *devPtr))
CAMODEL_ACL_API(aclError, aclrtFreeHost, (void *hostPtr))
CAMODEL_ACL_API(aclError, aclrtMemset, (void *devPtr, size_t maxCount, int32_t value, size_t count))
CAMODEL_ACL_API(aclError, aclrtMemcpy, (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind))
CAMODEL_ACL_API(aclError, aclrtMemcpyAsync, (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind, aclrtStream stream))
CAMODEL_ACL_API(aclError, aclrtSynchronizeStream, (aclrtStream stream))
CAMODEL_ACL_API(aclError, aclrtSynchronizeStreamWithTimeout, (aclrtStream stream, int32_t timeout))
CAMODEL_ACL_API(aclError, aclmdlRICaptureBegin, (aclrtStream stream, aclmdlRICaptureMode mode))
CAMODEL_ACL_API(aclError, aclmdlRICaptureEnd, (aclrtStream stream, aclmdlRI *modelRI))
CAMODEL_ACL_API(aclError, aclmdlRIExecuteAsync, (aclmdlRI modelRI, aclrtStream stream))
CAMODEL_ACL_API(aclError, aclmdlRIDestroy, (aclmdlRI modelRI))
CAMODEL_ACL_API(aclError, aclrtBinaryLoadFromFile, (const char *binPath, aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle))
CAMODEL_ACL_API(aclError, aclrtBinaryLoadFromData, (const void *data, size_t length, const aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle))
CAMODEL_ACL_API(aclrtBinary, aclrtCreateBinary, (const void *data, size_t dataLen))
CAMODEL_ACL_API(aclError, aclrtBinaryLoad, (const aclrtBinary binary, aclrtBinHandle *binHandle))
CAMODEL_ACL_API(aclError, aclrtBinaryUnLoad, (aclrtBinHandle binHandle))
CAMODEL_ACL_API(aclError, aclrtBinaryGetFunction, (const aclrtBinHandle binHandle, const char *kernelName, aclrtFuncHandle *funcHandle))
CAMODEL_ACL_API(aclError, aclrtBinaryGetFunctionByEntry, (aclrtBinHandle binHandle, uint64_t funcEntry, aclrtFuncHandle *funcHandle))
CAMODEL_ACL_API(aclError, aclrtGetFunctionAddr, (aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr))
CAMODEL_ACL_API(aclError, aclrtKernelArgsInit, (aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle))
CAMODEL_ACL_API(aclError, aclrtKernelArgsInitByUserMem, (aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle, void *userHostMem, size_t actualArgsSize))
CAMODEL_ACL_API(aclError, aclrtKernelArgsAppend, (aclrtArgsHandle argsHandle, void *param, size_t paramSize, aclrtParamHandle *paramHandle))
CAMODEL_ACL_API(aclError, aclrtKernelArgsAppendPlaceHolder, (aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle))
CAMODEL_ACL_API(aclError, aclrtKernelArgsGetPlaceHolderBuffer, (aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, size_t dataSize, void **bufferAddr))
CAMODEL_ACL_API(aclError, aclrtKernelArgsParaUpdate, (aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, void *param, size_t paramSize))
CAMODEL_ACL_API(aclError, aclrtKernelArgsFinalize, (aclrtArgsHandle argsHandle))
CAMODEL_ACL_API(aclError, aclrtLaunchKernel, (aclrtFuncHandle funcHandle, uint32_t blockDim, const void *argsData, size_t argsSize, aclrtStream stream))
CAMODEL_ACL_API(aclError, aclrtLaunchKernelV2, (aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData, size_t argsSize, aclrtLaunchKernelCfg *cfg, aclrtStream stream))
CAMODEL_ACL_API(aclError, aclrtLaunchKernelWithConfig, (aclrtFuncHandle funcHandle, uint32_t blockDim, aclrtStream stream, aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve))
CAMODEL_ACL_API(aclError, aclrtLaunchKernelWithHostArgs, (aclrtFuncHandle funcHandle, uint32_t blockDim, aclrtStream stream, aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum))
#undef CAMODEL_ACL_API

#ifdef __cplusplus
}
#endif
#endif
