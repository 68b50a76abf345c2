/* The runtime (rt*) C API of the stand-in simulator, with the signatures,
 * structs and constants of CANN's runtime headers as far as the project
 * uses them; this header is the repository's record of them.
 * Applications built against this header run unchanged against real
 * CANN. */
#ifndef CAMODEL_RT_H
#define CAMODEL_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t rtError_t;
typedef void *rtStream_t;
typedef void *rtModel_t;
typedef void *rtContext_t;
typedef void (*rtCallback_t)(void *fnData);

#define RT_ERROR_NONE 0
/* The codes the runtime returns (CANN's values). */
#define ACL_ERROR_RT_PARAM_INVALID          107000
#define ACL_ERROR_RT_INVALID_DEVICEID       107001
#define ACL_ERROR_RT_CONTEXT_NULL           107002
#define ACL_ERROR_RT_INVALID_HANDLE         107017
#define ACL_ERROR_RT_INVALID_MALLOC_TYPE    107018
#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT    207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION      207001
#define ACL_ERROR_RT_INTERNAL_ERROR         507000
#define ACL_ERROR_RT_AICORE_EXCEPTION       507015
#define ACL_ERROR_RT_KERNEL_LOOKUP          507027
#define ACL_ERROR_RT_KERNEL_DUPLICATE       507028

#define RT_DEV_BINARY_MAGIC_ELF        0x43554245u  /* mix / aicore */
#define RT_DEV_BINARY_MAGIC_ELF_AICPU  0x41415243u
#define RT_DEV_BINARY_MAGIC_ELF_AIVEC  0x41415246u
#define RT_DEV_BINARY_MAGIC_ELF_AICUBE 0x41494343u

typedef struct tagRtDevBinary {
	uint32_t magic;
	uint32_t version;
	const void *data;
	uint64_t length;
} rtDevBinary_t;

typedef struct rtHostInputInfo {
	uint32_t addrOffset;
	uint32_t dataOffset;
} rtHostInputInfo_t;

typedef struct tagRtArgsEx {
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

typedef struct tagRtTaskCfgInfo {
	uint8_t qos, partId, schemMode;
	bool d2dCrossFlag;
	uint32_t blockDimOffset;
	uint8_t dumpflag, neverTimeout, res[2];
	uint32_t localMemorySize;
} rtTaskCfgInfo_t;

typedef struct tagRtSmData {
	uint64_t L2_mirror_addr;
	uint32_t L2_data_section_size;
	uint8_t L2_preload, modified, priority;
	int8_t prev_L2_page_offset_base;
	uint8_t L2_page_offset_base, L2_load_to_ddr, reserved[2];
} rtSmData_t;

typedef struct tagRtSmCtrl {
	rtSmData_t data[8];
	uint64_t size;
	uint8_t remap[64];
	uint8_t l2_in_main;
	uint8_t reserved[3];
} rtSmDesc_t;

typedef struct rtArgsSizeInfo {
	void *infoAddr;
	uint32_t atomicIndex;
} rtArgsSizeInfo_t;

typedef struct DrvMemHandle {
	int32_t id;
	uint32_t side;
	uint32_t devid;
	uint64_t pg_num;
} rtDrvMemHandle_t;

typedef enum {
	RT_MEMCPY_HOST_TO_HOST = 0, RT_MEMCPY_HOST_TO_DEVICE, RT_MEMCPY_DEVICE_TO_HOST,
	RT_MEMCPY_DEVICE_TO_DEVICE, RT_MEMCPY_MANAGED, RT_MEMCPY_ADDR_DEVICE_TO_DEVICE,
	RT_MEMCPY_HOST_TO_DEVICE_EX, RT_MEMCPY_DEVICE_TO_HOST_EX
} rtMemcpyKind_t;

typedef enum {
	RT_MEMORY_DEFAULT = 0, RT_MEMORY_HBM = 1, RT_MEMORY_DDR = 2, RT_MEMORY_SPM = 3,
	RT_MEMORY_P2P_HBM = 0x10, RT_MEMORY_P2P_DDR = 0x11, RT_MEMORY_DDR_NC = 0x20
} rtMemType_t;

typedef enum { RT_DEVICE_MODE_SINGLE_DIE = 0, RT_DEVICE_MODE_MULTI_DIE } rtDeviceMode;
typedef enum {
	RT_DEVICE_STATUS_NORMAL = 0, RT_DEVICE_STATUS_ABNORMAL, RT_DEVICE_STATUS_END = 0xFFFF
} rtDeviceStatus;

/* device */
rtError_t rtSetDevice(int32_t devId);
rtError_t rtSetDeviceEx(int32_t devId);
rtError_t rtSetDeviceV2(int32_t devId, rtDeviceMode deviceMode);
rtError_t rtDeviceReset(int32_t devId);
rtError_t rtDeviceResetEx(int32_t devId);
rtError_t rtGetDevice(int32_t *devId);
rtError_t rtGetDeviceCount(int32_t *cnt);
rtError_t rtGetDeviceInfo(uint32_t deviceId, int32_t moduleType, int32_t infoType, int64_t *val);
rtError_t rtGetSocVersion(char *ver, const uint32_t maxLen);
rtError_t rtGetAiCoreCount(uint32_t *aiCoreCnt);
rtError_t rtCtxCreate(void **createCtx, uint32_t flags, int32_t devId);
rtError_t rtCtxCreateV2(void **createCtx, uint32_t flags, int32_t devId, rtDeviceMode deviceMode);
rtError_t rtCtxCreateEx(void **ctx, uint32_t flags, int32_t devId);
rtError_t rtDeviceStatusQuery(const uint32_t devId, rtDeviceStatus *deviceStatus);

/* memory */
rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId);
rtError_t rtFree(void *devPtr);
rtError_t rtMallocHost(void **hostPtr, uint64_t size, const uint16_t moduleId);
rtError_t rtFreeHost(void *hostPtr);
rtError_t rtMemset(void *devPtr, uint64_t destMax, uint32_t val, uint64_t cnt);
rtError_t rtMemcpy(void *dst, uint64_t destMax, const void *src, uint64_t cnt, rtMemcpyKind_t kind);
rtError_t rtMemcpyAsync(void *dst, uint64_t destMax, const void *src, uint64_t cnt,
                        rtMemcpyKind_t kind, rtStream_t stm);

/* streams */
rtError_t rtStreamCreate(rtStream_t *stream, int32_t priority);
rtError_t rtStreamDestroy(rtStream_t stream);
rtError_t rtStreamSynchronize(rtStream_t stm);
rtError_t rtStreamSynchronizeWithTimeout(rtStream_t stream, int32_t timeout);
rtError_t rtCtxGetCurrentDefaultStream(rtStream_t *stm);

/* kernels */
rtError_t rtDevBinaryRegister(const rtDevBinary_t *bin, void **hdl);
rtError_t rtRegisterAllKernel(const rtDevBinary_t *bin, void **hdl);
rtError_t rtDevBinaryUnRegister(void *hdl);
rtError_t rtFunctionRegister(void *binHandle, const void *stubFunc, const char *stubName,
                             const void *kernelInfoExt, uint32_t funcMode);
rtError_t rtKernelLaunch(const void *stubFunc, uint32_t blockDim, void *args, uint32_t argsSize,
                         rtSmDesc_t *smDesc, rtStream_t stm);
rtError_t rtKernelLaunchWithFlagV2(const void *stubFunc, uint32_t blockDim, rtArgsEx_t *argsInfo,
                                   rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                   const rtTaskCfgInfo_t *cfgInfo);
rtError_t rtKernelLaunchWithHandleV2(void *hdl, const uint64_t tilingKey, uint32_t blockDim,
                                     rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                     const rtTaskCfgInfo_t *cfgInfo);
rtError_t rtKernelLaunchWithHandle(void *hdl, const uint64_t tilingKey, uint32_t blockDim,
                                   rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                   const void *kernelInfo);
rtError_t rtKernelGetAddrAndPrefCnt(void *hdl, const uint64_t tilingKey, const void *const stubFunc,
                                    const uint32_t flag, void **addr, uint32_t *prefetchCnt);
rtError_t rtGetC2cCtrlAddr(uint64_t *addr, uint32_t *fftsLen);
rtError_t rtCallbackLaunch(rtCallback_t callBackFunc, void *fnData, rtStream_t stm, bool isBlock);

/* simulator logs (libpem_davinci.so in CANN; also exported by the stand-in's
 * libruntime_camodel.so).  The callback entry structs are in dvc_log.h. */
void DvcSetLogLevel(uint32_t file, uint32_t screen, uint32_t flush);

#ifdef __cplusplus
}
#endif
#endif
