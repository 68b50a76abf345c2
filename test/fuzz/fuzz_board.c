/* libFuzzer target: the on-board raw decoders of lib/board.c.
 *
 * The input, for every enum board_fmt, goes to board_pmu_decode and
 * board_stamp_decode (in a block of exactly its length, and cut into
 * records as the readers cut a file), to board_l2_decode, to the streaming
 * readers (board_pmu_next, board_stamp_next, board_l2_read over a memory
 * file) and to board_basic_parse as op_basic_info.txt.  A decoder gives 1,
 * 0 or -1; -1 comes with an error code and a message; decoded fields lie
 * in their ranges (slots 8 or 10, stamp kind, text fields NUL-terminated
 * within BOARD_TEXT_MAX). */
#include "board.h"
#include "fuzz.h"
#include "io.h"

static void err_ok(const struct board_err *e)
{
	char buf[256];
	CHECK(e->code != BOARD_OK && e->what && *e->what);
	CHECK(board_err_text(e, buf, sizeof buf) > 0);
	CHECK(strlen(buf) < sizeof buf);
}

static void pmu_ok(enum board_fmt fmt, const struct board_pmu *p)
{
	CHECK(p->nslots == board_pmu_slots(fmt));
	CHECK(p->nslots == 8 || p->nslots == 10);
	CHECK(p->core == BOARD_CUBE || p->core == BOARD_VECTOR);
}

static void stamp_ok(const struct board_stamp *s)
{
	CHECK(s->kind == BOARD_STAMP_START || s->kind == BOARD_STAMP_END || s->kind == BOARD_STAMP_OTHER);
}

static void text_ok(const char *s)
{
	CHECK(memchr(s, 0, BOARD_TEXT_MAX));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	enum board_fmt fmt;

	for (fmt = BOARD_A2; fmt <= BOARD_A5; fmt++) {
		struct board_pmu pm;
		struct board_stamp st;
		struct board_span span = { 0, 0 };
		struct board_err e;
		size_t ss = board_stamp_size(fmt), off;
		uint64_t val[8], index;
		int k, fd;
		struct rd *r;

		memset(&e, 0, sizeof e);
		k = board_pmu_decode(fmt, p, size, 0, &pm, &e);
		CHECK(k >= -1 && k <= 1);
		if (k < 0)
			err_ok(&e);
		else if (k)
			pmu_ok(fmt, &pm);
		for (off = 0; off < size; off += BOARD_PMU_REC_SIZE) {
			size_t n = size - off < BOARD_PMU_REC_SIZE ? size - off : BOARD_PMU_REC_SIZE;
			char *q = fuzz_copy(p + off, n);
			k = board_pmu_decode(fmt, q, n, off / BOARD_PMU_REC_SIZE, &pm, &e);
			if (k < 0)
				err_ok(&e);
			else if (k)
				pmu_ok(fmt, &pm);
			free(q);
		}
		CHECK(ss == 32 || ss == 64);
		for (off = 0; off < size; off += ss) {
			size_t n = size - off < ss ? size - off : ss;
			char *q = fuzz_copy(p + off, n);
			k = board_stamp_decode(fmt, q, n, off / ss, &st, &e);
			if (k < 0) {
				err_ok(&e);
			} else if (k) {
				stamp_ok(&st);
				board_span_add(fmt, &span, &st);
			}
			free(q);
		}
		{
			float us = board_span_us(&span, (uint64_t)size * 7);
			CHECK(us == us);
		}

		fd = fuzz_memfd(data, size);
		r = rd_fdopen(fd, "fuzz");
		CHECK(r);
		index = 0;
		while ((k = board_pmu_next(r, fmt, &index, &pm, &e)) > 0)
			pmu_ok(fmt, &pm);
		if (k < 0)
			err_ok(&e);
		rd_close(r);
		CHECK(lseek(fd, 0, SEEK_SET) == 0);
		r = rd_fdopen(fd, "fuzz");
		index = 0;
		while ((k = board_stamp_next(r, fmt, &index, &st, &e)) > 0)
			stamp_ok(&st);
		if (k < 0)
			err_ok(&e);
		rd_close(r);
		close(fd);

		if (fmt == BOARD_A2) {
			k = board_l2_decode(p, size, val, &e);
			if (k < 0)
				err_ok(&e);
			fd = fuzz_memfd(data, size);
			r = rd_fdopen(fd, "fuzz");
			k = board_l2_read(r, val, &e);
			if (k < 0)
				err_ok(&e);
			rd_close(r);
			close(fd);
		}
	}
	{
		struct board_basic b;
		struct board_err e;
		int k;
		board_basic_init(&b);
		k = board_basic_parse(p, size, &b, &e);
		CHECK(k == 0 || k == -1);
		if (k < 0)
			err_ok(&e);
		text_ok(b.op_name);
		text_ok(b.soc);
		text_ok(b.pid);
		text_ok(b.cur_freq_text);
		text_ok(b.rated_freq_text);
	}
	free(p);
	return 0;
}
