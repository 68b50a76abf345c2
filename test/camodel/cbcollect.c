/* A test helper for the stand-in's callback mode: preloaded into a sample,
 * it turns file logging off (DvcSetLogLevel(6, 4, 2), as a capture library
 * does; not with CBCOLLECT_KEEP_LEVEL set), attaches every callback and writes what the callbacks deliver back
 * as A2 dump lines under $CBCOLLECT_DIR, with the dump files' names, so a
 * test can compare them with a file-mode run.  MTE lines go to
 * core<N>.mte_log.dump in arrival order (per sub-core, not merged). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvc_log.h"

static const char *dir;

static FILE *out(uint32_t core, uint32_t sub, const char *kind)
{
	static char names[64][256];
	static FILE *files[64];
	char n[256];
	if (sub == 0xffffffffu) snprintf(n, sizeof n, "%s/core%u.%s.dump", dir, core, kind);
	else snprintf(n, sizeof n, "%s/core%u.%s.%s.dump", dir, core,
	              sub == 0 ? "cubecore0" : sub == 1 ? "veccore0" : "veccore1", kind);
	for (int i = 0; i < 64 && files[i]; i++)
		if (!strcmp(names[i], n)) return files[i];
	for (int i = 0; i < 64; i++)
		if (!files[i]) {
			files[i] = fopen(n, "w");
			snprintf(names[i], sizeof names[i], "%s", n);
			if (!files[i]) { perror(n); exit(1); }
			return files[i];
		}
	fprintf(stderr, "cbcollect: too many files\n");
	exit(1);
}

static void instr(uint64_t t, const DvcInstrLogEntry_t *e, const char *kind)
{
	FILE *f = out(e->core_id, e->sub_core_id, kind);
	fprintf(f, "[info] [%08llu] %s%s%s\n", (unsigned long long)t, e->decode_descr,
	        e->exec_descr[0] ? "  " : "", e->exec_descr);
}
static void popped(uint64_t t, const DvcInstrLogEntry_t *e) { instr(t, e, "instr_popped_log"); }
static void executed(uint64_t t, const DvcInstrLogEntry_t *e) { instr(t, e, "instr_log"); }

static void icache(uint64_t t, const DvcIcacheLogEntry_t *e)
{
	FILE *f = out(e->core_id, e->sub_core_id, "ifu.icache_log");
	if (!strcmp(e->op, "miss_read"))
		fprintf(f, "[info] %llu: icache read address is 0x%08llx, size is 0x%08x, type:%u, last:%u, status is MISS\n",
		        (unsigned long long)t, (unsigned long long)e->u.miss_read_info.addr, e->u.miss_read_info.size,
		        e->u.miss_read_info.type, e->u.miss_read_info.last);
	else
		fprintf(f, "[info] %llu: lookup_tag is fetch req addr:0x%llx\n", (unsigned long long)t,
		        (unsigned long long)e->u.fetch_req_info.addr);
}

static void ccu(uint64_t t, const DvcCcuLogEntry_t *e)
{
	FILE *f = out(e->core_id, e->sub_core_id, "ccu_log");
	fprintf(f, "[info] %llu: ccu do issue success.issue isa pc :0x%llx\n", (unsigned long long)t,
	        (unsigned long long)e->u.issue_success_info.pc);
}

static void mte(uint64_t t, const DvcMteLogEntry_t *e)
{
	FILE *f = out(e->core_id, 0xffffffffu, "mte_log");
	if (!strcmp(e->op, "recv_rsp"))
		fprintf(f, "[info] %llu: %s %s, uop_cnt: 1, tnx_id: 0, tag_id: %u, instr_id: %u, req_id: %u\n",
		        (unsigned long long)t, e->u.intf_op_info.intf, e->op, e->u.intf_op_info.tag_id,
		        e->u.intf_op_info.instr_id, e->u.intf_op_info.req_id);
	else
		fprintf(f, "[info] %llu: %s %s, addr: 0x%llx, size: %u, tag_id: %u, instr_id: %u, req_id: %u\n",
		        (unsigned long long)t, e->u.intf_op_info.intf, e->op, (unsigned long long)e->u.intf_op_info.addr,
		        e->u.intf_op_info.size, e->u.intf_op_info.tag_id, e->u.intf_op_info.instr_id, e->u.intf_op_info.req_id);
}

__attribute__((constructor)) static void attach(void)
{
	dir = getenv("CBCOLLECT_DIR");
	if (!dir) return;
	if (!getenv("CBCOLLECT_KEEP_LEVEL"))
		DvcSetLogLevel(6, 4, 2);
	DvcAttachLogCallback(DVC_INSTR_POPPED_LOG, (DvcLogCbFnUnion_t){ .instr = popped });
	DvcAttachLogCallback(DVC_INSTR_LOG, (DvcLogCbFnUnion_t){ .instr = executed });
	DvcAttachLogCallback(DVC_ICACHE_LOG, (DvcLogCbFnUnion_t){ .icache = icache });
	DvcAttachLogCallback(DVC_CCU_LOG, (DvcLogCbFnUnion_t){ .ccu = ccu });
	DvcAttachLogCallback(DVC_MTE_LOG, (DvcLogCbFnUnion_t){ .mte = mte });
}

__attribute__((destructor)) static void done(void)
{
	fflush(NULL);
}
