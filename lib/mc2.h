/* The MC2 (compute and communication) op's AI CPU records of an on-board
 * run (dump/aicpu.bin, 910B and A3; see optrace-board(5), AICPU.BIN): the
 * communication turns' timestamps and the HCCL tasks, and the task
 * scheduler's start and end stamps of duration.bin keyed by task and
 * stream, which time the HCCL tasks.
 *
 * All data is little-endian and decoded field by field (no struct is laid
 * over the bytes).  A file is read one 256-byte record at a time; memory
 * is bounded by a record (and, for the stamps, by the tasks of the run). */
#ifndef OPTRACE_MC2_H
#define OPTRACE_MC2_H

#include <stddef.h>
#include <stdint.h>

#include "keytab.h"

#define MC2_REC_SIZE 256u        /* one MsprofAdditionalInfo */
#define MC2_HEAD_SIZE 24u
#define MC2_DATA_SIZE 232u
#define MC2_LEVEL_AICPU 6000u
#define MC2_TYPE_COMM_TURN 4u    /* one communication turn */
#define MC2_TYPE_HCCL_TASKS 13u  /* two HCCL task infos */
#define MC2_TURN_SIZE 80u
#define MC2_HCCL_SIZE 116u       /* packed: two fill the data */

/* The six phases of a turn, each from one timestamp to the next. */
enum mc2_phase {
	MC2_START_SERVER, MC2_TASK_WAIT_REQUEST, MC2_TASK_ORCHESTRATION, MC2_TASK_LAUNCH, MC2_TASK_EXECUTE,
	MC2_FINALIZE, MC2_NPHASES
};
/* "StartServer" ... "Finalize". */
const char *mc2_phase_name(unsigned phase);
/* The phase's colour (the trace's cname). */
const char *mc2_phase_cname(unsigned phase);

struct mc2_turn {
	/* waitNotifyStart, kfcAlgExeStart, sendTaskStart, waitActiveStart,
	 * activeStart, waitExeEndStart, rtsqExeEnd: phase i runs from t[i]
	 * to t[i + 1]. */
	uint64_t t[MC2_NPHASES + 1];
	uint64_t data_len;
	uint32_t device_id;
	unsigned stream, task;
	unsigned version, comm_turn, current_turn;
};

struct mc2_hccl {
	uint64_t item_id, ccl_tag, group;
	uint32_t local_rank, remote_rank, rank_size, stage;
	uint64_t notify_id, time_stamp;
	double duration_est;             /* us */
	uint64_t src, dst, size;         /* addresses; bytes */
	unsigned task, stream;           /* decoded as the ACSQ ids (board_stream_task) */
	unsigned plane;
	unsigned op_type, data_type, link_type, transport, rdma_type, role, work_flow;
};

/* The task type of an HCCL task info's item id (a hash of its name):
 * "hccl_info", "Notify_Record", ... or "INVALID_TYPE"; *colour its cname. */
const char *mc2_hccl_type(uint64_t item_id, const char **colour);
/* "SDMA", "INT8", "ON_CHIP"... or "INVALID_TYPE". */
const char *mc2_transport_name(unsigned v);
const char *mc2_data_type_name(unsigned v);
const char *mc2_link_name(unsigned v);
/* An ACSQ task type's name (AI_CORE ... C_CORE_SQE), NULL past 20. */
const char *mc2_acsq_type_name(unsigned type);

struct mc2_stats {
	uint64_t records;        /* whole records read */
	uint64_t turns;          /* type 4 records */
	uint64_t tasks;          /* HCCL task infos taken */
	uint64_t no_group;       /* HCCL task infos of group 0, skipped */
	uint64_t other_level;    /* records of a level other than 6000 */
	uint64_t other_type;     /* level 6000, another type */
	uint64_t bad;            /* records whose data length passes 232 */
};

struct mc2_sink {
	void (*turn)(void *ctx, const struct mc2_turn *t);
	void (*hccl)(void *ctx, const struct mc2_hccl *h);
	void *ctx;
};

void mc2_turn_decode(const unsigned char p[MC2_TURN_SIZE], struct mc2_turn *t);
void mc2_hccl_decode(const unsigned char p[MC2_HCCL_SIZE], struct mc2_hccl *h);
/* One record: what it holds goes to the sink, the rest is counted.  0; -1
 * for a record whose data length passes the record (skipped, counted). */
int mc2_record(const unsigned char p[MC2_REC_SIZE], const struct mc2_sink *s, struct mc2_stats *st);
/* A whole file.  0; 1 when records were bad or the file ends in part of a
 * record (the rest is read; msg names the first problem's record and
 * byte); -1 when it cannot be opened, -2 on a read error (msg with the
 * system's reason). */
int mc2_read_file(const char *path, const struct mc2_sink *s, struct mc2_stats *st, char *msg, size_t size);

/* The task scheduler's stamps of each (task, stream), as the reference
 * keeps them for an MC2 op: a start sets the type and the start time, an
 * end the end time (the last of each wins; an end first makes a task of
 * type 0 without a start). */
struct mc2_task {
	unsigned task, stream, type;
	uint64_t start, end;
};
struct mc2_tasks {
	struct mc2_task *v;
	size_t n, cap;
	struct keytab index;             /* (task, stream) -> position + 1 */
	uint64_t cpu_start;              /* the last AI_CPU start; UINT64_MAX: none */
};
void mc2_tasks_init(struct mc2_tasks *m);
void mc2_tasks_free(struct mc2_tasks *m);
/* kind: 0 start, 1 end (other stamps are not passed). */
void mc2_tasks_stamp(struct mc2_tasks *m, unsigned task, unsigned stream, unsigned type, int end, uint64_t t);
/* The task of (task, stream), NULL when none; task is taken modulo 2^16,
 * as the reference's key is. */
const struct mc2_task *mc2_tasks_find(const struct mc2_tasks *m, unsigned task, unsigned stream);
/* The entries ordered by (task, stream). */
void mc2_tasks_sort(struct mc2_tasks *m);
/* Whether a task has times to draw: both set, end not before start, start
 * not before base. */
int mc2_task_timed(const struct mc2_task *k, uint64_t base);

/* Ticks of the task-scheduler clock (kHz) to picoseconds (us times 10^6),
 * rounded half up. */
uint64_t mc2_us6(uint64_t ticks, unsigned khz);
/* An HCCL task's bandwidth in GB/s (GiB): bytes over ticks at khz; 0 for
 * no ticks. */
double mc2_bandwidth(uint64_t bytes, uint64_t ticks, unsigned khz);

#endif
