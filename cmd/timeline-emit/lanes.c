/* Lanes: pipe names (and WARP_<w>) interned to small integers, with what
 * each trace needs to know of them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "keytab.h"
#include "text.h"

static int cap;

/* The reference's lane order, colours and per-core pids (see optrace-vdata(5),
 * TRACE.JSON (ALL CORES), Processes and threads, and Colours; TRACE.JSON
 * (ONE CORE)).
 * The pids the reference leaves at 0 (EVENT, RVEC*, PUSHQ, so they collide
 * with each other and with warp 0) get their own here: 130 and up. */
static const struct known {
	const char *name;
	int sort, pid;
	const char *cname;
	unsigned char compute, scalar;
} known[] = {
	{ "SCALAR", 1, 10, "startup", 0, 1 },
	{ "SCALARLDST", 10, 20, "startup", 0, 1 },
	{ "CACHEMISS", 9, 110, "thread_state_runnable", 0, 0 },
	{ "USERMARK", 12, 120, "rail_load", 0, 0 },
	{ "ALL", 11, 100, "good", 0, 0 },
	{ "FLOWCTRL", 2, 90, "cq_build_passed", 0, 1 },
	{ "MTE1", 3, 50, "thread_state_running", 0, 0 },
	{ "CUBE", 4, 40, "background_memory_dump", 1, 0 },
	{ "FIXP", 5, 80, "thread_state_unknown", 0, 0 },
	{ "MTE2", 6, 60, "thread_state_iowait", 0, 0 },
	{ "VECTOR", 7, 30, "cq_build_failed", 1, 0 },
	{ "MTE3", 8, 70, "rail_response", 0, 0 },
	{ "EVENT", 13, 130, "rail_animation", 0, 0 },
	{ "SET_FLAG", 14, 0, "black", 0, 0 },
	{ "WAIT_FLAG", 15, 0, "yellow", 0, 0 },
	{ "set_event", 16, 0, "black", 0, 0 },
	{ "wait_event", 17, 0, "yellow", 0, 0 },
	{ "RVECEX", 18, 140, "thread_state_running", 1, 0 },
	{ "RVECLP", 19, 150, "thread_state_iowait", 0, 0 },
	{ "RVECST", 20, 160, "thread_state_runnable", 0, 0 },
	{ "RVECLD", 21, 170, "startup", 0, 0 },
	{ "PUSHQ", 22, 180, "thread_state_unknown", 0, 0 },
	{ "RVECSU", 23, 190, "yellow", 0, 0 },
};

/* Lookup by hash of the name: records name their pipe every time. */
#define HBITS 10
static int htab[1 << HBITS];    /* lane + 1, 0 empty */
static int unknown_lanes;
static int warp_cache[256];     /* lane + 1 of WARP_<w> */

/* A pipe of the table: where it sorts, its per-core pid and colour. */
static void take_known(struct lane *l, const struct known *k)
{
	l->sort_index = k->sort;
	l->sub_pid = k->pid;
	l->cname = k->cname;
	l->compute = k->compute;
	l->scalar = k->scalar;
}

static int add(const char *s, size_t n)
{
	struct lane *l;
	size_t i;
	int w;

	if (emit.nlanes == cap) {
		cap = cap ? 2 * cap : 64;
		emit.lanes = xrealloc(emit.lanes, (size_t)cap * sizeof *emit.lanes);
	}
	l = &emit.lanes[emit.nlanes];
	memset(l, 0, sizeof *l);
	l->name = xmalloc(n + 1);
	memcpy(l->name, s, n);
	l->name[n] = 0;
	l->len = n;
	l->json = xmalloc(JW_STR_MAX(n));
	l->json_n = (size_t)(jw_str(l->json, s, n) - l->json);
	l->warp = -1;
	l->cname = "thread_state_stopped";
	i = TEXT_LOOKUP(known, s, n);
	if (i < sizeof known / sizeof known[0]) {
		take_known(l, &known[i]);
	} else if (warp_parse(s, n, &w)) {
		/* lane_warp's names; a pipe merely starting "WARP_" is an
		 * unknown pipe like any other. */
		l->warp = w;
		l->sort_index = 100 + w;
		l->sub_pid = 1000 + w;
		l->compute = 1;
	} else {
		/* Pipes the reference has no entry for: after its 23 lanes,
		 * before the warps. */
		l->sort_index = 24 + (unknown_lanes < 75 ? unknown_lanes : 75);
		l->sub_pid = 200 + 10 * unknown_lanes;
		unknown_lanes++;
	}
	return emit.nlanes++;
}

void lanes_init(void)
{
	/* Interning any name lays down the fixed lanes first. */
	if (!emit.lanes)
		lane_intern("ALL", 3);
}

int lane_intern(const char *s, size_t n)
{
	uint32_t h = hash_fnv(s, n, HASH_FNV_INIT), i;

	if (!emit.lanes) {
		size_t k;
		/* The fixed lanes first, so LANE_* are their indexes. */
		for (k = 0; k < LANE_NFIXED; k++) {
			const char *nm = known[k].name;
			int id = add(nm, strlen(nm));
			uint32_t hh = hash_fnv(nm, strlen(nm), HASH_FNV_INIT);
			for (i = hh; htab[i & ((1u << HBITS) - 1)]; i++)
				;
			htab[i & ((1u << HBITS) - 1)] = id + 1;
		}
	}
	for (i = h;; i++) {
		int v = htab[i & ((1u << HBITS) - 1)];
		if (!v)
			break;
		if (emit.lanes[v - 1].len == n && !memcmp(emit.lanes[v - 1].name, s, n))
			return v - 1;
	}
	/* Garbage input could name endless pipes: past half the table they
	 * all share the catch-all lane. */
	if (emit.nlanes >= (1 << HBITS) / 2)
		return LANE_ALL;
	{
		int id = add(s, n);
		htab[i & ((1u << HBITS) - 1)] = id + 1;
		return id;
	}
}

int lane_warp(int w)
{
	char buf[WARP_NAME_MAX];
	size_t n;

	if (w >= 0 && w < 256 && warp_cache[w])
		return warp_cache[w] - 1;
	n = warp_name(buf, w);
	{
		int id = lane_intern(buf, n);
		if (w >= 0 && w < 256)
			warp_cache[w] = id + 1;
		return id;
	}
}

/* SIMT slices are coloured by instruction, not pipe (reference table). */
const char *cname_simt(const char *name, size_t n)
{
	static const struct { const char *n, *c; } t[] = {
		{ "SIMT_FMNMX", "thread_state_uninterruptible" },
		{ "SIMT_FMNMX_I", "thread_state_uninterruptible" },
		{ "SIMT_FDIV", "thread_state_uninterruptible" },
		{ "SIMT_FDIV_I", "thread_state_uninterruptible" },
		{ "SIMT_F2I", "heap_dump_object_type" },
		{ "SIMT_I2F", "heap_dump_object_type" },
		{ "SIMT_F2F", "heap_dump_object_type" },
		{ "SIMT_FEXPDIF", "heap_dump_object_type" },
		{ "SIMT_FMULSCVT", "heap_dump_object_type" },
		{ "SIMT_LD", "cq_build_attempt_passed" },
		{ "SIMT_LDG", "cq_build_attempt_passed" },
		{ "SIMT_LDS", "cq_build_attempt_passed" },
		{ "SIMT_LDK", "cq_build_attempt_passed" },
		{ "SIMT_ST", "cq_build_attempt_passed" },
		{ "SIMT_FFMA", "thread_state_runnable" },
		{ "SIMT_FFMA_I", "thread_state_runnable" },
		{ "SIMT_FMUL", "thread_state_runnable" },
		{ "SIMT_FMUL_I", "thread_state_runnable" },
		{ "SIMT_MUFU", "thread_state_runnable" },
		{ "SIMT_IMAD", "good" },
		{ "SIMT_IMAD_I", "good" },
		{ "SIMT_LEA", "good" },
		{ "SIMT_LEA_HI_X", "good" },
		{ "SIMT_SHF", "good" },
		{ "SIMT_SHFI", "good" },
		{ "SIMT_PLOP3", "thread_state_iowait" },
		{ "SIMT_LOP3", "thread_state_iowait" },
		{ "SIMT_LOP3_I", "thread_state_iowait" },
		{ "SIMT_ISETP", "thread_state_iowait" },
		{ "SIMT_ISETP_I", "thread_state_iowait" },
		{ "SIMT_IMUL", "thread_state_running" },
		{ "SIMT_IMUL_I", "thread_state_running" },
		{ "SIMT_IADD", "thread_state_running" },
		{ "SIMT_IADD_I", "thread_state_running" },
		{ "SIMT_STG", "startup" },
		{ "SIMT_STS", "startup" },
		{ "SIMT_STK", "startup" },
		{ "SIMT_IMNMX", "startup" },
		{ "SIMT_IMNMX_I", "startup" },
		{ "SIMT_BAR.THREAD BLOCK", "background_memory_dump" },
		{ "SIMT_JOIN", "background_memory_dump" },
		{ "SIMT_MEMBAR", "background_memory_dump" },
		{ "SIMT_FSETP", "background_memory_dump" },
		{ "SIMT_FSETP_I", "background_memory_dump" },
		{ "SIMT_ATOM", "rail_response" },
		{ "SIMT_RED", "rail_response" },
		{ "SIMT_FADD", "heap_dump_child_node_arrow" },
		{ "SIMT_FADD_I", "heap_dump_child_node_arrow" },
		{ "SIMT_S2R", "heap_dump_child_node_arrow" },
		{ "SIMT_MOVI", "heap_dump_child_node_arrow" },
		{ "SIMT_END", "heap_dump_child_node_arrow" },
	};
	size_t i;
	if (n > 5 && !memcmp(name, "SIMT_", 5))
		for (i = 0; i < sizeof t / sizeof t[0]; i++)
			if (strlen(t[i].n) == n && !memcmp(t[i].n, name, n))
				return t[i].c;
	return "thread_state_unknown";
}

void lanes_free(void)
{
	int i;
	for (i = 0; i < emit.nlanes; i++) {
		free(emit.lanes[i].name);
		free(emit.lanes[i].json);
	}
	free(emit.lanes);
	emit.lanes = NULL;
	emit.nlanes = cap = 0;
	memset(htab, 0, sizeof htab);
	memset(warp_cache, 0, sizeof warp_cache);
	unknown_lanes = 0;
}
