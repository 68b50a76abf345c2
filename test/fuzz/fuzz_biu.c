/* libFuzzer target: the A5 BIU timeline decoder of lib/biu.c.
 *
 * The input goes, in both modes, to biu_data on a channel picked by its
 * first byte (records of any ctrl, the end-marker sequence, ids of every
 * kind), then biu_finish; every event lies on a known pipe with an end
 * that does not pass the channel's cycles, and the losses add up.  Each
 * line of it goes to biu_map_line and biu_tune_line: an entry has a valid
 * pipe and an opcode of the allowed bytes. */
#include "biu.h"
#include "fuzz.h"

static uint64_t cycles[BIU_CHANNELS];
static const struct biu *cur;

static void ev(void *ctx, const struct biu_event *e)
{
	(void)ctx;
	CHECK(e->ch < BIU_CHANNELS && e->pipe < BIU_NPIPES && e->kind <= BIU_EV_INSTR);
	CHECK(e->start + e->dur <= biu_cycles(cur, e->ch) + (e->kind == BIU_EV_MARK));
	CHECK(e->kind != BIU_EV_REGION || e->id < 1024);
	cycles[e->ch]++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	struct biu_map m;
	size_t at = 0;
	int mode;

	for (mode = 0; mode < 2; mode++) {
		struct biu *b = biu_new(mode ? BIU_INSTR_TIMELINE : BIU_PIPE_TIMELINE, ev, NULL);
		unsigned ch = size ? data[0] % BIU_CHANNELS : 0, c, q;
		uint64_t start;
		unsigned next;
		cur = b;
		biu_data(b, ch, (const unsigned char *)p + (size > 0), size > 0 ? size - 1 : 0);
		biu_data(b, (ch + 1) % BIU_CHANNELS, (const unsigned char *)p, size);
		if (biu_endmark(b, ch, &start, &next))
			CHECK(next >= 1 && next <= 8);
		biu_finish(b);
		for (c = 0; c < BIU_CHANNELS; c++)
			for (q = 0; q < BIU_NPIPES; q++) {
				uint16_t ids[8];
				const struct biu_loss *l = &biu_stats(b)->loss[c][q];
				CHECK(biu_open_ids(b, c, q, ids, 8) == l->open);
			}
		biu_free(b);
	}
	biu_map_init(&m);
	while (at < size) {
		const char *s = p + at, *nl = memchr(s, '\n', size - at);
		size_t n = nl ? (size_t)(nl - s) : size - at;
		char buf[40];
		int t = biu_tune_line(s, n);
		CHECK(t == -1 || (t > 0 && t < (int)BIU_NPIPES));
		if (biu_map_line(&m, s, n, 0x1000)) {
			unsigned q, id;
			for (q = 0; q < BIU_NPIPES; q++)
				for (id = 0; id < BIU_IDS; id++) {
					const struct biu_map_entry *e = biu_map_get(&m, q, id);
					size_t len, i;
					const char *name;
					if (!e)
						continue;
					CHECK(q != BIU_SCALAR);
					name = biu_map_name(&m, e, &len);
					CHECK(len > 0);
					for (i = 0; i < len; i++)
						CHECK(name[i] == '_' || name[i] == '-' || (name[i] >= '0' && name[i] <= '9') ||
						      ((name[i] | 0x20) >= 'a' && (name[i] | 0x20) <= 'z'));
					CHECK(biu_map_colour(&m, e) != NULL);
				}
		}
		biu_tune_pipes(t > 0 ? 1u << t : 0, buf, sizeof buf);
		at += n + 1;
	}
	biu_map_free(&m);
	free(p);
	return 0;
}
