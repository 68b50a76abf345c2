/* libFuzzer target: the MC2 AI CPU records and task stamps of lib/mc2.c.
 *
 * The input is cut into 256-byte records (each in a block of exactly its
 * size) for mc2_record, and read whole by mc2_read_file from a memory
 * file; both see the same records and give the same counts, every record
 * is counted once, a cut file is said.  Each 64-byte piece is an ACSQ
 * stamp for the task table: every task found is the one asked for, the
 * table sorts by (task, stream), times convert without overflow. */
#include "board.h"
#include "fuzz.h"
#include "mc2.h"

static uint64_t nturn, ntask;

static void turn(void *ctx, const struct mc2_turn *t)
{
	(void)ctx;
	CHECK(t->stream <= 0xffff && t->task <= 0xffff && t->current_turn <= 0xff);
	CHECK(mc2_phase_name(t->current_turn % MC2_NPHASES)[0] != '?');
	nturn++;
}

static void hccl(void *ctx, const struct mc2_hccl *h)
{
	const char *colour;
	(void)ctx;
	CHECK(h->group != 0);
	CHECK(h->stream < 2048 || h->stream <= 0x0fff);
	CHECK(mc2_hccl_type(h->item_id, &colour) && colour);
	CHECK(mc2_transport_name(h->transport) && mc2_data_type_name(h->data_type) && mc2_link_name(h->link_type));
	ntask++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct mc2_sink sink = { turn, hccl, NULL };
	struct mc2_stats a = { 0 }, b = { 0 };
	struct mc2_tasks m;
	uint64_t turns_a, tasks_a;
	size_t i, n = size / MC2_REC_SIZE;
	char path[64], msg[400];
	int fd, rc;

	nturn = ntask = 0;
	for (i = 0; i < n; i++) {
		char *r = fuzz_copy(data + i * MC2_REC_SIZE, MC2_REC_SIZE);
		mc2_record((const unsigned char *)r, &sink, &a);
		free(r);
	}
	CHECK(a.records == n);
	CHECK(a.turns + a.other_level + a.other_type + a.bad + (a.tasks + a.no_group) / 2 == n);
	turns_a = nturn;
	tasks_a = ntask;
	CHECK(turns_a == a.turns && tasks_a == a.tasks);

	fd = fuzz_memfd(data, size);
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	nturn = ntask = 0;
	rc = mc2_read_file(path, &sink, &b, msg, sizeof msg);
	close(fd);
	CHECK(rc == ((size % MC2_REC_SIZE) || b.bad ? 1 : 0));
	CHECK(!memcmp(&a, &b, sizeof a));
	CHECK(nturn == turns_a && ntask == tasks_a);
	if (rc)
		CHECK(strstr(msg, "record ") != NULL);

	mc2_tasks_init(&m);
	for (i = 0; i + 64 <= size; i += 64) {
		struct board_stamp s;
		struct board_err err;
		if (board_stamp_decode(BOARD_A2, data + i, 64, i / 64, &s, &err) == 1 && s.kind != BOARD_STAMP_OTHER) {
			const struct mc2_task *k;
			mc2_tasks_stamp(&m, s.task_id, s.stream_id, s.task_type, s.kind == BOARD_STAMP_END, s.sys_time);
			k = mc2_tasks_find(&m, s.task_id, s.stream_id);
			CHECK(k && k->task == (s.task_id & 0xffff) && k->stream == s.stream_id);
			CHECK(s.kind == BOARD_STAMP_END ? k->end == s.sys_time : k->start == s.sys_time);
		}
	}
	mc2_tasks_sort(&m);
	for (i = 0; i < m.n; i++) {
		const struct mc2_task *k = &m.v[i];
		CHECK(i == 0 || m.v[i - 1].task < k->task || (m.v[i - 1].task == k->task && m.v[i - 1].stream < k->stream));
		CHECK(mc2_tasks_find(&m, k->task, k->stream) == k);
		if (mc2_task_timed(k, 0)) {
			CHECK(mc2_us6(k->end - k->start, 50000) <= mc2_us6(k->end, 50000));
			CHECK(mc2_bandwidth(k->start, k->end - k->start, 50000) >= 0);
		}
	}
	mc2_tasks_free(&m);
	return 0;
}
