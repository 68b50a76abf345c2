/* The simulator's real-time log callbacks (DvcAttachLogCallback), as the
 * stand-in delivers them (the lines made of them: optrace-dumps(5), LIVE
 * MODE).  CANN documents the fields of each entry but not all of their C
 * types; the types below are the stand-in's choice and are documented in
 * test/camodel/README. */
#ifndef CAMODEL_DVC_LOG_H
#define CAMODEL_DVC_LOG_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
	DVC_INSTR_POPPED_LOG = 0,
	DVC_INSTR_LOG = 1,
	DVC_MTE_LOG = 2,
	DVC_ICACHE_LOG = 3,
	DVC_IFU_LOG = 4,
	DVC_CCU_LOG = 5
} DvcLogType_t;

/* sub_core_id: 0 cubecore0, 1 veccore0, 2 veccore1 (310P: 0). */
typedef struct {
	uint32_t core_id;
	uint32_t sub_core_id;
	uint64_t pc;
	const char *decode_descr;  /* "(PC: 0x...) SCALAR   : (Binary: 0x...) NAME" */
	const char *exec_descr;    /* the detail: "dtype:S64, XD:X0=0x1, ..." */
} DvcInstrLogEntry_t;

typedef struct {
	uint32_t core_id;
	uint32_t sub_core_id;      /* always 0 */
	const char *op;            /* send_req, recv_rsp, send_data (intf_op_info) */
	union {
		struct {
			const char *intf; uint32_t port; uint64_t addr; uint32_t size;
			uint32_t gid; uint32_t retire_set; uint32_t instr_id; uint32_t req_id;
		} bif_op_info;
		struct {
			const char *intf; uint32_t port; uint64_t addr; uint32_t size;
			uint32_t tag_id; uint32_t instr_id; uint32_t req_id;
		} intf_op_info;
	} u;
} DvcMteLogEntry_t;

typedef struct {
	uint32_t core_id;
	uint32_t sub_core_id;
	const char *op;            /* miss_read, fetch_req */
	union {
		struct { uint64_t addr; uint32_t size; uint32_t type; uint8_t last; } miss_read_info;
		struct { uint64_t addr; } fetch_req_info;
	} u;
} DvcIcacheLogEntry_t;

typedef struct {
	uint32_t core_id;
	uint32_t sub_core_id;
	const char *op;            /* ISSUE_SUCCESS */
	union {
		struct { uint64_t pc; const char *instr_name; const char *pipe; } issue_success_info;
	} u;
} DvcCcuLogEntry_t;

typedef void (*DvcInstrLogCb_t)(uint64_t time, const DvcInstrLogEntry_t *entry);
typedef void (*DvcMteLogCb_t)(uint64_t time, const DvcMteLogEntry_t *entry);
typedef void (*DvcIcacheLogCb_t)(uint64_t time, const DvcIcacheLogEntry_t *entry);
typedef void (*DvcCcuLogCb_t)(uint64_t time, const DvcCcuLogEntry_t *entry);

typedef union {
	DvcInstrLogCb_t instr;
	DvcMteLogCb_t mte;
	DvcIcacheLogCb_t icache;
	DvcCcuLogCb_t ccu;
	void *any;
} DvcLogCbFnUnion_t;

/* file, screen, flush: 0 trace ... 2 info ... 6 off.  file == 6 writes no
 * dump files. */
void DvcSetLogLevel(uint32_t file, uint32_t screen, uint32_t flush);
void DvcAttachLogCallback(DvcLogType_t type, DvcLogCbFnUnion_t fn);

#ifdef __cplusplus
}
#endif
#endif
