/* lib64/libms_tools_ext.so: the stand-in's mstx library (see
 * include/mstx/ms_tools_ext.h and README section 10).
 *
 * Only the core module is offered (range and mark calls, the tool id);
 * CANN's domain and memory modules are refused to a tool that asks. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "mstx/ms_tools_ext.h"

#define EXPORT __attribute__((visibility("default")))

/* The tool's functions by id, NULL until a tool fills them (stored as
 * the table's generic type, cast back at the call). */
static mstxFuncPointer core[MSTX_API_CORE_SIZE];

static mstxFuncPointer *core_table[MSTX_API_CORE_SIZE + 1] = {
	[MSTX_API_CORE_MARK_A] = &core[MSTX_API_CORE_MARK_A],
	[MSTX_API_CORE_RANGE_START_A] = &core[MSTX_API_CORE_RANGE_START_A],
	[MSTX_API_CORE_RANGE_END] = &core[MSTX_API_CORE_RANGE_END],
	[MSTX_API_CORE_GET_TOOL_ID] = &core[MSTX_API_CORE_GET_TOOL_ID],
};

static pthread_once_t once = PTHREAD_ONCE_INIT;

static int get_table(mstxFuncModule module, mstxFuncTable *table, unsigned int *size)
{
	if (module != MSTX_API_MODULE_CORE || !table || !size)
		return MSTX_FAIL;
	*table = core_table;
	*size = MSTX_API_CORE_SIZE;
	return MSTX_SUCCESS;
}

/* The tool: MSTX_INJECTION_PATH's library, else whatever object of the
 * process exports InitInjectionMstx (a preload library comes first). */
static void find_tool(void)
{
	const char *path = getenv("MSTX_INJECTION_PATH");
	void *h = path && *path ? dlopen(path, RTLD_LAZY | RTLD_LOCAL) : NULL;
	mstxInitInjectionFunc init = (mstxInitInjectionFunc)dlsym(h ? h : RTLD_DEFAULT, "InitInjectionMstx");
	size_t i;
	if (!init || init(get_table) != MSTX_SUCCESS)
		for (i = 0; i < MSTX_API_CORE_SIZE; i++)
			core[i] = NULL;
}

EXPORT void mstxMarkA(const char *message, aclrtStream stream)
{
	mstxMarkAFunc f;
	pthread_once(&once, find_tool);
	if ((f = (mstxMarkAFunc)core[MSTX_API_CORE_MARK_A]))
		f(message, stream);
}

EXPORT mstxRangeId mstxRangeStartA(const char *message, aclrtStream stream)
{
	mstxRangeStartAFunc f;
	pthread_once(&once, find_tool);
	f = (mstxRangeStartAFunc)core[MSTX_API_CORE_RANGE_START_A];
	return f ? f(message, stream) : 0;
}

EXPORT void mstxRangeEnd(mstxRangeId id)
{
	mstxRangeEndFunc f;
	pthread_once(&once, find_tool);
	if ((f = (mstxRangeEndFunc)core[MSTX_API_CORE_RANGE_END]))
		f(id);
}

EXPORT void mstxGetToolId(uint64_t *id)
{
	mstxGetToolIdFunc f;
	if (!id)
		return;
	pthread_once(&once, find_tool);
	if ((f = (mstxGetToolIdFunc)core[MSTX_API_CORE_GET_TOOL_ID]))
		f(id);
	else
		*id = MSTX_TOOL_INVALID_ID;
}
