/* The MC2 AI CPU records and task stamps: see mc2.h and optrace-board(5),
 * AICPU.BIN. */
#include "mc2.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "biu.h"
#include "board.h"
#include "mem.h"
#include "tick.h"

static const char *const phase_names[MC2_NPHASES] = {
	"StartServer", "TaskWaitRequest", "TaskOrchestration", "TaskLaunch", "TaskExecute", "Finalize",
};

const char *mc2_phase_name(unsigned phase)
{
	return phase < MC2_NPHASES ? phase_names[phase] : "?";
}

/* The reference's colour table (biu_colour) from its third entry on:
 * pink, yellow, purple, blue, orange, cyan. */
const char *mc2_phase_cname(unsigned phase)
{
	return biu_colour(2 + (phase < MC2_NPHASES ? phase : 0));
}

/* Item ids, in the order of their colours in the table (the ninth,
 * red, is the unknown type's). */
static const struct {
	uint64_t id;
	const char *name;
} hccl_types[] = {
	{ 0x0448d1a5ea052639ULL, "hccl_info" },
	{ 0x9eb5886f0b5ef22fULL, "Notify_Record" },
	{ 0xab44b101f36f4b07ULL, "Notify_Wait" },
	{ 0x628f0043a268d0cfULL, "Memcpy" },
	{ 0xfe1a130f3676775dULL, "Inter_Rank_Record" },
	{ 0x23f07c59d5c54aafULL, "Inter_Processor_Sync" },
	{ 0x2c384f8e83425f7aULL, "Reduce_Inline" },
	{ 0x220e79fe6508b9ceULL, "RDMASend" },
};
#define NTYPES (sizeof hccl_types / sizeof hccl_types[0])

const char *mc2_hccl_type(uint64_t item_id, const char **colour)
{
	size_t i;
	for (i = 0; i < NTYPES && hccl_types[i].id != item_id; i++)
		;
	if (colour)
		*colour = biu_colour(i);
	return i < NTYPES ? hccl_types[i].name : "INVALID_TYPE";
}

static const char *pick(const char *const *v, size_t n, unsigned i)
{
	return i < n ? v[i] : "INVALID_TYPE";
}

const char *mc2_transport_name(unsigned v)
{
	static const char *const t[] = { "SDMA", "RDMA", "LOCAL" };
	return pick(t, 3, v);
}

const char *mc2_data_type_name(unsigned v)
{
	static const char *const t[] = { "INT8", "INT16", "INT32", "FP16", "FP32", "INT64", "UINT64",
	                                 "UINT8", "UINT16", "UINT32", "FP64", "BFP16", "INT128" };
	return pick(t, 13, v);
}

const char *mc2_link_name(unsigned v)
{
	static const char *const t[] = { "ON_CHIP", "HCCS", "PCIE", "ROCE", "SIO", "HCCS_SW", "STANDARD_ROCE",
	                                 "RESERVED" };
	return pick(t, 8, v);
}

const char *mc2_acsq_type_name(unsigned type)
{
	static const char *const t[] = {
		"AI_CORE", "AI_CPU", "AIV_SQE", "PLACE_HOLDER_SQE", "EVENT_RECORD_SQE", "EVENT_WAIT_SQE",
		"NOTIFY_RECORD_SQE", "NOTIFY_WAIT_SQE", "WRITE_VALUE_SQE", "VQ6_SQE", "TOF_SQE", "SDMA_SQE",
		"VPC_SQE", "JPEGE_SQE", "JPEGD_SQE", "DSA_SQE", "ROCCE_SQE", "PCIE_DMA_SQE", "HOST_CPU_SQE",
		"CDQM_SQE", "C_CORE_SQE",
	};
	return type < sizeof t / sizeof t[0] ? t[type] : NULL;
}

static uint32_t le16(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}
static uint32_t le32(const unsigned char *p)
{
	return le16(p) | le16(p + 2) << 16;
}
static uint64_t le64(const unsigned char *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

void mc2_turn_decode(const unsigned char p[MC2_TURN_SIZE], struct mc2_turn *t)
{
	unsigned i;
	for (i = 0; i <= MC2_NPHASES; i++)
		t->t[i] = le64(p + 8 * i);
	t->data_len = le64(p + 56);
	t->device_id = le32(p + 64);
	t->stream = le16(p + 68);
	t->task = le16(p + 70);
	t->version = p[72];
	t->comm_turn = p[73];
	t->current_turn = p[74];
}

void mc2_hccl_decode(const unsigned char p[MC2_HCCL_SIZE], struct mc2_hccl *h)
{
	uint64_t bits = le64(p + 56);
	h->item_id = le64(p);
	h->ccl_tag = le64(p + 8);
	h->group = le64(p + 16);
	h->local_rank = le32(p + 24);
	h->remote_rank = le32(p + 28);
	h->rank_size = le32(p + 32);
	h->stage = le32(p + 36);
	h->notify_id = le64(p + 40);
	h->time_stamp = le64(p + 48);
	memcpy(&h->duration_est, &bits, sizeof bits);
	h->src = le64(p + 64);
	h->dst = le64(p + 72);
	h->size = le64(p + 80);
	/* 88: u32 task id, 92: reserved, 96: u16 stream id */
	board_stream_task(le16(p + 96), le32(p + 88), &h->stream, &h->task);
	h->plane = le16(p + 98);
	h->op_type = p[100];
	h->data_type = p[101];
	h->link_type = p[102];
	h->transport = p[103];
	h->rdma_type = p[104];
	h->role = p[105];
	h->work_flow = p[106];
}

int mc2_record(const unsigned char p[MC2_REC_SIZE], const struct mc2_sink *s, struct mc2_stats *st)
{
	const unsigned char *data = p + MC2_HEAD_SIZE;
	unsigned level = le16(p + 2), k;
	uint32_t type = le32(p + 4), len = le32(p + 12);
	st->records++;
	if (len > MC2_DATA_SIZE) {
		st->bad++;
		return -1;
	}
	if (level != MC2_LEVEL_AICPU) {
		st->other_level++;
		return 0;
	}
	if (type == MC2_TYPE_COMM_TURN) {
		struct mc2_turn t;
		mc2_turn_decode(data, &t);
		st->turns++;
		if (s && s->turn)
			s->turn(s->ctx, &t);
	} else if (type == MC2_TYPE_HCCL_TASKS) {
		for (k = 0; k < 2; k++) {
			struct mc2_hccl h;
			mc2_hccl_decode(data + k * MC2_HCCL_SIZE, &h);
			if (!h.group) {
				st->no_group++;
				continue;
			}
			st->tasks++;
			if (s && s->hccl)
				s->hccl(s->ctx, &h);
		}
	} else {
		st->other_type++;
	}
	return 0;
}

int mc2_read_file(const char *path, const struct mc2_sink *s, struct mc2_stats *st, char *msg, size_t size)
{
	unsigned char buf[MC2_REC_SIZE];
	uint64_t index = 0, first_bad = UINT64_MAX, bad_len = 0;
	size_t got = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	if (fd < 0) {
		snprintf(msg, size, "cannot open: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t k = read(fd, buf + got, sizeof buf - got);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			snprintf(msg, size, "read error at record %llu (byte %llu): %s", (unsigned long long)index,
			         (unsigned long long)(index * MC2_REC_SIZE + got), strerror(errno));
			close(fd);
			return -2;
		}
		if (k == 0)
			break;
		got += (size_t)k;
		if (got < sizeof buf)
			continue;
		if (mc2_record(buf, s, st) < 0 && first_bad == UINT64_MAX) {
			first_bad = index;
			bad_len = le32(buf + 12);
		}
		index++;
		got = 0;
	}
	close(fd);
	if (first_bad != UINT64_MAX) {
		snprintf(msg, size, "%llu records skipped: record %llu (byte %llu) has a data length of %llu, past the %u "
		         "bytes of a record's data", (unsigned long long)st->bad, (unsigned long long)first_bad,
		         (unsigned long long)(first_bad * MC2_REC_SIZE), (unsigned long long)bad_len, MC2_DATA_SIZE);
		rc = 1;
	}
	if (got) {
		size_t n = rc ? strlen(msg) : 0;
		snprintf(msg + n, size - n, "%srecord %llu (byte %llu) cut short: %zu of %u bytes", rc ? "; " : "",
		         (unsigned long long)index, (unsigned long long)(index * MC2_REC_SIZE), got, MC2_REC_SIZE);
		rc = 1;
	}
	return rc;
}

/* ---- the task stamps ---- */

void mc2_tasks_init(struct mc2_tasks *m)
{
	memset(m, 0, sizeof *m);
	m->index = keytab_make(sizeof(uint32_t), 0);
	m->cpu_start = UINT64_MAX;
}

void mc2_tasks_free(struct mc2_tasks *m)
{
	free(m->v);
	keytab_free(&m->index);
	memset(m, 0, sizeof *m);
}

static uint64_t task_key(unsigned task, unsigned stream)
{
	return (uint64_t)(task & 0xffff) << 16 | (stream & 0xffff);
}

void mc2_tasks_stamp(struct mc2_tasks *m, unsigned task, unsigned stream, unsigned type, int end, uint64_t t)
{
	int fresh;
	uint32_t *at = keytab_get(&m->index, task_key(task, stream), &fresh);
	struct mc2_task *k;
	if (fresh) {
		if (m->n == m->cap)
			m->v = xreallocarray(m->v, m->cap = m->cap ? 2 * m->cap : 16, sizeof *m->v);
		*at = (uint32_t)++m->n;
		k = &m->v[m->n - 1];
		memset(k, 0, sizeof *k);
		k->task = task & 0xffff;
		k->stream = stream & 0xffff;
	}
	k = &m->v[*at - 1];
	if (end) {
		k->end = t;
	} else {
		k->type = type;
		k->start = t;
		if (type == 1)
			m->cpu_start = t;
	}
}

const struct mc2_task *mc2_tasks_find(const struct mc2_tasks *m, unsigned task, unsigned stream)
{
	const uint32_t *at = keytab_find(&m->index, task_key(task, stream));
	return at ? &m->v[*at - 1] : NULL;
}

static int cmp_task(const void *a, const void *b)
{
	const struct mc2_task *x = a, *y = b;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	return x->stream < y->stream ? -1 : x->stream > y->stream;
}

void mc2_tasks_sort(struct mc2_tasks *m)
{
	size_t i;
	if (m->n)
		qsort(m->v, m->n, sizeof *m->v, cmp_task);
	for (i = 0; i < m->n; i++)
		*(uint32_t *)keytab_get(&m->index, task_key(m->v[i].task, m->v[i].stream), NULL) = (uint32_t)(i + 1);
}

int mc2_task_timed(const struct mc2_task *k, uint64_t base)
{
	return k->start && k->end && k->end >= k->start && k->start >= base;
}

uint64_t mc2_us6(uint64_t ticks, unsigned khz)
{
	/* ticks * 1000 / khz us; the remainder (< khz < 2^32) times 10^9
	 * fits in 64 bits. */
	return khz ? tick_scaled(ticks, khz, 1000000000) : 0;
}

double mc2_bandwidth(uint64_t bytes, uint64_t ticks, unsigned khz)
{
	if (!ticks)
		return 0;
	/* bytes per ms (ticks / khz) times 1000, in GiB. */
	return (double)bytes / ((double)ticks / khz) / (1024.0 * 1024.0 * 1024.0) * 1000.0;
}
