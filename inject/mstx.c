/* The tool side of the mstx API, for --mstx=on: the application marks
 * ranges with mstxRangeStartA(message, stream) / mstxRangeEnd(id), which
 * the mstx library (CANN's libms_tools_ext.so, or its header-only copy)
 * passes on to the tool that filled its function table through
 * InitInjectionMstx; a launch is captured only inside an open range of the
 * thread that launches it (and, with --mstx-include, a range whose message
 * is listed).
 *
 * The table, as the mstx library hands it out: getTable(module, &table,
 * &size) gives, for a module (1 = the core API), an array of pointers to
 * the library's function slots, indexed by function id (1 markA,
 * 2 rangeStartA, 3 rangeEnd, 4 getToolId), size being the number of ids
 * it knows; the tool stores its functions through the slots it implements.
 *
 * Ranges live in one table under a mutex (launches and range calls are
 * rare next to the runtime's other calls).  A range belongs to the thread
 * that started it, named by a serial number of the library's that no later
 * thread reuses. */
#include "inject.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef void (*mstx_fn)(void);
typedef int (*mstx_table_fn)(int module, mstx_fn ***table, unsigned *size);

enum { MSTX_OK = 0, MSTX_FAIL = 1 };
enum { MSTX_MODULE_CORE = 1 };
enum { MSTX_CORE_RANGE_START_A = 2, MSTX_CORE_RANGE_END = 3, MSTX_CORE_GET_TOOL_ID = 4 };
/* The id the mstx API gives msprof op (mstxGetToolId). */
#define MSTX_TOOL_MSOPPROF_ID 0x1001u
#define MSTX_MESSAGE_MAX 1023
/* Ranges open at once: an application that never ends its ranges stops
 * getting new ones here rather than growing the table without bound. */
#define MSTX_OPEN_MAX (1u << 20)

struct range {
	uint64_t id;
	uint64_t owner;  /* the starting thread's serial */
	int counts;      /* its message passes --mstx-include */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct range *open_ranges;
static size_t nopen, capopen;
/* Ids start at 1: 0 is the API's "the range could not be started". */
static uint64_t next_id = 1;
static uint64_t next_serial = 1;
static __thread uint64_t serial __attribute__((tls_model("initial-exec")));
static int said_bad_message, said_unknown_end, said_too_many;

static uint64_t thread_serial(void)
{
	if (!serial)
		serial = __atomic_fetch_add(&next_serial, 1, __ATOMIC_RELAXED);
	return serial;
}

/* 1 to 1023 characters of A-Z a-z 0-9 _, as the reference accepts. */
static int valid_message(const char *m)
{
	size_t i, n;
	if (!m)
		return 0;
	n = strnlen(m, MSTX_MESSAGE_MAX + 1);
	if (n == 0 || n > MSTX_MESSAGE_MAX)
		return 0;
	for (i = 0; i < n; i++) {
		char c = m[i];
		if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
			return 0;
	}
	return 1;
}

static int included(const char *m)
{
	char **t;
	if (!inj.mstx_include)
		return 1;
	for (t = inj.mstx_include; *t; t++)
		if (!strcmp(*t, m))
			return 1;
	return 0;
}

static uint64_t range_start(const char *message, void *stream)
{
	uint64_t id;
	int overlap = 0;
	(void)stream;
	if (!inj.ready)
		inj_init();
	if (!inj.mstx)
		return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
	if (!valid_message(message)) {
		if (!__atomic_exchange_n(&said_bad_message, 1, __ATOMIC_RELAXED))
			inj_note("mstx: a range message that is empty, longer than %d characters or has characters "
			         "other than A-Z a-z 0-9 _ starts no range", MSTX_MESSAGE_MAX);
		return 0;
	}
	pthread_mutex_lock(&mu);
	if (nopen == capopen) {
		size_t cap = capopen ? capopen * 2 : 16;
		struct range *nr = cap <= MSTX_OPEN_MAX ? realloc(open_ranges, cap * sizeof *nr) : NULL;
		if (!nr) {
			pthread_mutex_unlock(&mu);
			if (!__atomic_exchange_n(&said_too_many, 1, __ATOMIC_RELAXED))
				inj_note("mstx: %zu ranges are open; no more are started (mstxRangeEnd missing?)", nopen);
			return 0;
		}
		open_ranges = nr;
		capopen = cap;
	}
	id = next_id++;
	open_ranges[nopen].id = id;
	open_ranges[nopen].owner = thread_serial();
	open_ranges[nopen].counts = included(message);
	if (open_ranges[nopen].counts && inj.device && inj.dev_mode == INJ_RANGE) {
		/* Range replay replays a whole range: ranges of a thread that
		 * overlap cannot be, the later one does not count (as the
		 * reference). */
		size_t i;
		for (i = 0; i < nopen; i++)
			if (open_ranges[i].owner == open_ranges[nopen].owner && open_ranges[i].counts)
				overlap = 1;
		open_ranges[nopen].counts = !overlap;
	}
	nopen++;
	pthread_mutex_unlock(&mu);
	if (overlap)
		inj_note("mstx: ranges cannot overlap with --replay-mode=range: range %s is not replayed", message);
	return id;
}

/* The range ends for the thread that started it, whichever thread ends
 * it (the reference counts the end against the calling thread; see
 * README, differences). */
static void range_end(uint64_t id)
{
	size_t i;
	int found = 0, counted = 0;
	if (!inj.mstx || id == 0)
		return;
	pthread_mutex_lock(&mu);
	for (i = 0; i < nopen; i++)
		if (open_ranges[i].id == id) {
			counted = open_ranges[i].counts;
			/* Order does not matter: a launch looks for any range. */
			open_ranges[i] = open_ranges[--nopen];
			found = 1;
			break;
		}
	pthread_mutex_unlock(&mu);
	if (counted && inj.device && inj.dev_mode == INJ_RANGE)
		inj_dev_range_end();
	if (!found && !__atomic_exchange_n(&said_unknown_end, 1, __ATOMIC_RELAXED))
		inj_note("mstx: mstxRangeEnd(%llu): no such open range (ended twice, or never started)",
		         (unsigned long long)id);
}

static void tool_id(uint64_t *id)
{
	if (id)
		*id = MSTX_TOOL_MSOPPROF_ID;
}

int inj_mstx_in_range(void)
{
	uint64_t me;
	size_t i;
	int in = 0;
	if (!inj.mstx)
		return 1;
	me = thread_serial();
	pthread_mutex_lock(&mu);
	for (i = 0; i < nopen && !in; i++)
		in = open_ranges[i].owner == me && open_ranges[i].counts;
	pthread_mutex_unlock(&mu);
	return in;
}

void inj_mstx_fork(int phase)
{
	size_t i, o = 0;
	if (phase == 0) {
		pthread_mutex_lock(&mu);
		return;
	}
	if (phase == 1) {
		pthread_mutex_unlock(&mu);
		return;
	}
	/* The child has only the forking thread: its ranges stay open. */
	pthread_mutex_init(&mu, NULL);
	for (i = 0; i < nopen; i++)
		if (open_ranges[i].owner == serial && serial)
			open_ranges[o++] = open_ranges[i];
	nopen = o;
}

/* Called by the mstx library at its first use.  The slots are filled
 * whether or not --mstx=on (the reference does too), so mstxGetToolId says
 * who is listening; without --mstx=on ranges are only numbered. */
INJ_API int InitInjectionMstx(mstx_table_fn get_table)
{
	mstx_fn **table = NULL;
	unsigned size = 0;
	if (!inj.ready)
		inj_init();
	if (!get_table || get_table(MSTX_MODULE_CORE, &table, &size) != MSTX_OK || !table)
		return MSTX_FAIL;
	if (size > MSTX_CORE_RANGE_START_A && table[MSTX_CORE_RANGE_START_A])
		*table[MSTX_CORE_RANGE_START_A] = (mstx_fn)range_start;
	if (size > MSTX_CORE_RANGE_END && table[MSTX_CORE_RANGE_END])
		*table[MSTX_CORE_RANGE_END] = (mstx_fn)range_end;
	if (size > MSTX_CORE_GET_TOOL_ID && table[MSTX_CORE_GET_TOOL_ID])
		*table[MSTX_CORE_GET_TOOL_ID] = (mstx_fn)tool_id;
	return MSTX_OK;
}
