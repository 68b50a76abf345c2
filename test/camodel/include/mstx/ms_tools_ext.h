/* The mstx API of the stand-in (CANN: include/mstx/ms_tools_ext.h, the
 * library lib64/libms_tools_ext.so), with CANN's names and types; this
 * header is the repository's record of them.
 *
 * The application marks ranges of its own work; a profiling tool loaded
 * into the process (msprof op, sim-capture's preload library) is told of
 * them through a function table.  Without a tool every call does nothing
 * and mstxRangeStartA returns 0. */
#ifndef CAMODEL_MS_TOOLS_EXT_H
#define CAMODEL_MS_TOOLS_EXT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MSTX_SUCCESS 0
#define MSTX_FAIL 1

/* mstxGetToolId answers */
#define MSTX_TOOL_INVALID_ID 0x0
#define MSTX_TOOL_MSPROF_ID 0x1000
#define MSTX_TOOL_MSOPPROF_ID 0x1001
#define MSTX_TOOL_MSSANITIZER_ID 0x1002
#define MSTX_TOOL_MSLEAKS_ID 0x1003

typedef uint64_t mstxRangeId;
typedef void *aclrtStream;

/* A point event (msprof op ignores it). */
void mstxMarkA(const char *message, aclrtStream stream);
/* Open a range; message: 1 to 1023 characters of A-Z a-z 0-9 _ (what
 * msprof op accepts); stream may be NULL.  Returns its id, 0 on failure. */
mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream);
/* Close the range id of mstxRangeStartA. */
void mstxRangeEnd(mstxRangeId id);
/* The tool listening, MSTX_TOOL_INVALID_ID without one. */
void mstxGetToolId(uint64_t *id);

/* ---- the tool side ----
 * At its first call the library looks for a tool: the shared object named
 * by MSTX_INJECTION_PATH, else any object of the process (a preload
 * library) exporting InitInjectionMstx, and calls
 *     int InitInjectionMstx(mstxGetModuleFuncTableFunc getTable);
 * getTable(module, &table, &size) gives the module's table: table[id]
 * points at the library's slot for function id (valid for 0 < id < size
 * and not NULL); the tool stores its functions there and returns
 * MSTX_SUCCESS.  Until then, and after a failure, the slots are empty. */
typedef enum mstxFuncModule {
	MSTX_API_MODULE_INVALID = 0,
	MSTX_API_MODULE_CORE = 1,
	MSTX_API_MODULE_CORE_DOMAIN = 2,
	MSTX_API_MODULE_CORE_MEM = 3,
	MSTX_API_MODULE_SIZE
} mstxFuncModule;

typedef enum mstxImplCoreFuncId {
	MSTX_API_CORE_INVALID = 0,
	MSTX_API_CORE_MARK_A = 1,
	MSTX_API_CORE_RANGE_START_A = 2,
	MSTX_API_CORE_RANGE_END = 3,
	MSTX_API_CORE_GET_TOOL_ID = 4,
	MSTX_API_CORE_SIZE
} mstxImplCoreFuncId;

typedef void (*mstxFuncPointer)(void);
typedef mstxFuncPointer **mstxFuncTable;
typedef int (*mstxGetModuleFuncTableFunc)(mstxFuncModule module, mstxFuncTable *outTable, unsigned int *outSize);
typedef int (*mstxInitInjectionFunc)(mstxGetModuleFuncTableFunc getTable);

typedef void (*mstxMarkAFunc)(const char *message, aclrtStream stream);
typedef mstxRangeId (*mstxRangeStartAFunc)(const char *message, aclrtStream stream);
typedef void (*mstxRangeEndFunc)(mstxRangeId id);
typedef void (*mstxGetToolIdFunc)(uint64_t *id);

#ifdef __cplusplus
}
#endif

#endif
