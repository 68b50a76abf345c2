/* libascendcl.so of the stand-in: the public aclrt* functions, each
 * forwarding to aclrt*Impl with the same arguments (in libacl_rt_impl.so),
 * as CANN's libascendcl does. */
#include "acl/acl.h"

#define API __attribute__((visibility("default")))
#define FWD(ret, name, params, args) API ret name params { return name##Impl args; }

API aclError aclInit(const char *configPath) { (void)configPath; return ACL_SUCCESS; }
API aclError aclFinalize(void) { return ACL_SUCCESS; }

FWD(aclError, aclrtSetDevice, (int32_t deviceId), (deviceId))
FWD(aclError, aclrtResetDevice, (int32_t deviceId), (deviceId))
FWD(aclError, aclrtGetDevice, (int32_t *deviceId), (deviceId))
FWD(const char *, aclrtGetSocName, (void), ())
FWD(aclError, aclrtCreateStream, (aclrtStream *stream), (stream))
FWD(aclError, aclrtDestroyStream, (aclrtStream stream), (stream))
FWD(aclError, aclrtMalloc, (void **devPtr, size_t size, aclrtMemMallocPolicy policy), (devPtr, size, policy))
FWD(aclError, aclrtMallocWithCfg, (void **devPtr, size_t size, aclrtMemMallocPolicy policy, aclrtMallocConfig *cfg),
    (devPtr, size, policy, cfg))
FWD(aclError, aclrtMallocHost, (void **hostPtr, size_t size), (hostPtr, size))
FWD(aclError, aclrtFree, (void *devPtr), (devPtr))
FWD(aclError, aclrtFreeHost, (void *hostPtr), (hostPtr))
FWD(aclError, aclrtMemset, (void *devPtr, size_t maxCount, int32_t value, size_t count), (devPtr, maxCount, value, count))
FWD(aclError, aclrtMemcpy, (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind),
    (dst, destMax, src, count, kind))
FWD(aclError, aclrtMemcpyAsync, (void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
    aclrtStream stream), (dst, destMax, src, count, kind, stream))
FWD(aclError, aclrtSynchronizeStream, (aclrtStream stream), (stream))
FWD(aclError, aclrtSynchronizeStreamWithTimeout, (aclrtStream stream, int32_t timeout), (stream, timeout))
FWD(aclError, aclmdlRICaptureBegin, (aclrtStream stream, aclmdlRICaptureMode mode), (stream, mode))
FWD(aclError, aclmdlRICaptureEnd, (aclrtStream stream, aclmdlRI *modelRI), (stream, modelRI))
FWD(aclError, aclmdlRIExecuteAsync, (aclmdlRI modelRI, aclrtStream stream), (modelRI, stream))
FWD(aclError, aclmdlRIDestroy, (aclmdlRI modelRI), (modelRI))
FWD(aclError, aclrtBinaryLoadFromFile, (const char *binPath, aclrtBinaryLoadOptions *options, aclrtBinHandle *binHandle),
    (binPath, options, binHandle))
FWD(aclError, aclrtBinaryLoadFromData, (const void *data, size_t length, const aclrtBinaryLoadOptions *options,
    aclrtBinHandle *binHandle), (data, length, options, binHandle))
FWD(aclrtBinary, aclrtCreateBinary, (const void *data, size_t dataLen), (data, dataLen))
FWD(aclError, aclrtBinaryLoad, (const aclrtBinary binary, aclrtBinHandle *binHandle), (binary, binHandle))
FWD(aclError, aclrtBinaryUnLoad, (aclrtBinHandle binHandle), (binHandle))
FWD(aclError, aclrtBinaryGetFunction, (const aclrtBinHandle binHandle, const char *kernelName, aclrtFuncHandle *funcHandle),
    (binHandle, kernelName, funcHandle))
FWD(aclError, aclrtBinaryGetFunctionByEntry, (aclrtBinHandle binHandle, uint64_t funcEntry, aclrtFuncHandle *funcHandle),
    (binHandle, funcEntry, funcHandle))
FWD(aclError, aclrtGetFunctionAddr, (aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr), (funcHandle, aicAddr, aivAddr))
FWD(aclError, aclrtKernelArgsInit, (aclrtFuncHandle funcHandle, aclrtArgsHandle *argsHandle), (funcHandle, argsHandle))
FWD(aclError, aclrtKernelArgsInitByUserMem, (aclrtFuncHandle funcHandle, aclrtArgsHandle argsHandle, void *userHostMem,
    size_t actualArgsSize), (funcHandle, argsHandle, userHostMem, actualArgsSize))
FWD(aclError, aclrtKernelArgsAppend, (aclrtArgsHandle argsHandle, void *param, size_t paramSize, aclrtParamHandle *paramHandle),
    (argsHandle, param, paramSize, paramHandle))
FWD(aclError, aclrtKernelArgsAppendPlaceHolder, (aclrtArgsHandle argsHandle, aclrtParamHandle *paramHandle),
    (argsHandle, paramHandle))
FWD(aclError, aclrtKernelArgsGetPlaceHolderBuffer, (aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, size_t dataSize,
    void **bufferAddr), (argsHandle, paramHandle, dataSize, bufferAddr))
FWD(aclError, aclrtKernelArgsParaUpdate, (aclrtArgsHandle argsHandle, aclrtParamHandle paramHandle, void *param, size_t paramSize),
    (argsHandle, paramHandle, param, paramSize))
FWD(aclError, aclrtKernelArgsFinalize, (aclrtArgsHandle argsHandle), (argsHandle))
FWD(aclError, aclrtLaunchKernel, (aclrtFuncHandle funcHandle, uint32_t blockDim, const void *argsData, size_t argsSize,
    aclrtStream stream), (funcHandle, blockDim, argsData, argsSize, stream))
FWD(aclError, aclrtLaunchKernelV2, (aclrtFuncHandle funcHandle, uint32_t numBlocks, const void *argsData, size_t argsSize,
    aclrtLaunchKernelCfg *cfg, aclrtStream stream), (funcHandle, numBlocks, argsData, argsSize, cfg, stream))
FWD(aclError, aclrtLaunchKernelWithConfig, (aclrtFuncHandle funcHandle, uint32_t blockDim, aclrtStream stream,
    aclrtLaunchKernelCfg *cfg, aclrtArgsHandle argsHandle, void *reserve), (funcHandle, blockDim, stream, cfg, argsHandle, reserve))
FWD(aclError, aclrtLaunchKernelWithHostArgs, (aclrtFuncHandle funcHandle, uint32_t blockDim, aclrtStream stream,
    aclrtLaunchKernelCfg *cfg, void *hostArgs, size_t argsSize, aclrtPlaceHolderInfo *placeHolderArray, size_t placeHolderNum),
    (funcHandle, blockDim, stream, cfg, hostArgs, argsSize, placeHolderArray, placeHolderNum))
