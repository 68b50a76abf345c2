#include "board.h"

#include <stdio.h>
#include <string.h>

#include "io.h"

/* Little-endian fields as single loads. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the on-board raw files are read on little-endian hosts only"
#endif
static unsigned get16(const unsigned char *p, size_t off)
{
	uint16_t v;
	memcpy(&v, p + off, 2);
	return v;
}

static uint64_t get64(const unsigned char *p, size_t off)
{
	uint64_t v;
	memcpy(&v, p + off, 8);
	return v;
}

static int fail(struct board_err *err, enum board_errc code, const char *what, uint64_t index, uint64_t offset,
                uint64_t line)
{
	if (err) {
		err->code = code;
		err->what = what;
		err->index = index;
		err->offset = offset;
		err->line = line;
	}
	return -1;
}

int board_fmt_of(enum chip_family f)
{
	switch (f) {
	case CHIP_A2:
	case CHIP_A3:
		return BOARD_A2;
	case CHIP_310P:
		return BOARD_310P;
	case CHIP_A5:
		return BOARD_A5;
	default:
		return -1;
	}
}

size_t board_err_text(const struct board_err *e, char *buf, size_t size)
{
	int n;
	if (e->line)
		n = snprintf(buf, size, "%s at line %llu", e->what, (unsigned long long)e->line);
	else
		n = snprintf(buf, size, "%s at record %llu (byte %llu)", e->what, (unsigned long long)e->index,
		             (unsigned long long)e->offset);
	return n < 0 ? 0 : (size_t)n;
}

unsigned board_pmu_slots(enum board_fmt fmt)
{
	return fmt == BOARD_A5 ? 10 : 8;
}

void board_stream_task(unsigned stream_hw, unsigned task_hw, unsigned *stream, unsigned *task)
{
	if (stream_hw & 0x1000) {
		*task = (task_hw & 0x1FFF) | (stream_hw & 0xE000);
		*stream = stream_hw % 2048;
	} else if (stream_hw & 0x2000) {
		*task = (task_hw & 0xF000) | (stream_hw & 0x0FFF);
		*stream = task_hw & 0x0FFF;
	} else {
		*task = task_hw;
		*stream = stream_hw % 2048;
	}
}

int board_pmu_decode(enum board_fmt fmt, const void *v, size_t n, uint64_t index, struct board_pmu *out,
                     struct board_err *err)
{
	const unsigned char *p = v;
	unsigned w, first;
	if (n < BOARD_PMU_REC_SIZE)
		return fail(err, BOARD_ERR_TRUNCATED, "PMU record cut short", index, index * BOARD_PMU_REC_SIZE, 0);
	memset(out, 0, sizeof *out);
	out->nslots = board_pmu_slots(fmt);
	switch (fmt) {
	case BOARD_A2:
		board_stream_task(get16(p, 4), get16(p, 6), &out->stream_id, &out->task_id);
		w = get16(p, 20);
		out->core = (w & 1) ? BOARD_VECTOR : BOARD_CUBE;
		out->core_id = (w >> 1) & 0x7f;
		out->sub_block_id = get16(p, 28);
		out->block_id = get16(p, 30);
		out->total_cycles = get64(p, 32);
		first = 48;
		break;
	case BOARD_310P:
		out->core = BOARD_CUBE;
		out->total_cycles = get64(p, 16);
		first = 32;
		break;
	case BOARD_A5:
		if ((get16(p, 0) & 0x3f) != BOARD_A5_FUNC_BLOCK_PMU)
			return 0;
		board_stream_task(get16(p, 4), get16(p, 6), &out->stream_id, &out->task_id);
		out->total_cycles = get64(p, 8);
		w = get16(p, 20);
		out->core = (w & 1) ? BOARD_VECTOR : BOARD_CUBE;
		out->core_id = (w >> 8) & 0xff;
		out->sub_block_id = get16(p, 24);
		out->block_id = get16(p, 26);
		first = 32;
		break;
	default:
		return fail(err, BOARD_ERR_TYPE, "unknown record layout", index, index * BOARD_PMU_REC_SIZE, 0);
	}
	for (unsigned i = 0; i < out->nslots; i++)
		out->slot[i] = get64(p, first + 8 * i);
	if (fmt != BOARD_310P) {
		out->start_time = get64(p, 112);
		out->end_time = get64(p, 120);
	}
	return 1;
}

size_t board_stamp_size(enum board_fmt fmt)
{
	return fmt == BOARD_A5 ? 32 : 64;
}

int board_stamp_decode(enum board_fmt fmt, const void *v, size_t n, uint64_t index, struct board_stamp *out,
                       struct board_err *err)
{
	const unsigned char *p = v;
	size_t size = board_stamp_size(fmt);
	unsigned w;
	if (n < size)
		return fail(err, BOARD_ERR_TRUNCATED, "duration record cut short", index, index * size, 0);
	memset(out, 0, sizeof *out);
	if (fmt == BOARD_310P) {
		/* HWTS: the function type is in the low 3 bits of the first byte. */
		out->func_type = p[0] & 0x7;
	} else {
		w = get16(p, 0);
		out->func_type = w & 0x3f;
		out->task_type = (w >> 10) & 0x3f;
		board_stream_task(get16(p, 4), get16(p, 6), &out->stream_id, &out->task_id);
	}
	out->kind = out->func_type == 0 ? BOARD_STAMP_START : out->func_type == 1 ? BOARD_STAMP_END : BOARD_STAMP_OTHER;
	out->sys_time = get64(p, 8);
	return 1;
}

void board_span_add(enum board_fmt fmt, struct board_span *s, const struct board_stamp *st)
{
	int kernel;
	if (fmt == BOARD_310P)
		kernel = 1;
	else if (fmt == BOARD_A5)
		kernel = st->task_type <= 2; /* AIC, AIV, MIX */
	else
		kernel = st->task_type == 0; /* AI_CORE */
	if (!kernel)
		return;
	if (st->kind == BOARD_STAMP_START)
		s->start = st->sys_time;
	else if (st->kind == BOARD_STAMP_END)
		s->end = st->sys_time;
}

float board_span_us(const struct board_span *s, uint64_t ts_khz)
{
	if (!s->start || !s->end || !ts_khz || s->end < s->start)
		return -1.0f;
	return (float)((s->end - s->start) * 1000) / (float)ts_khz;
}

int board_l2_decode(const void *v, size_t n, uint64_t val[8], struct board_err *err)
{
	const unsigned char *p = v;
	if (n != BOARD_L2_SIZE)
		return fail(err, BOARD_ERR_SIZE, "L2Cache.bin is not 72 bytes", 0, n < BOARD_L2_SIZE ? n : BOARD_L2_SIZE, 0);
	for (unsigned i = 0; i < 8; i++)
		val[i] = get64(p, 8 + 8 * i);
	return 1;
}

/* Up to size bytes of r into buf: the count, or -1 on a read error. */
static long read_full(struct rd *r, unsigned char *buf, size_t size)
{
	size_t got = 0, k;
	while (got < size && (k = rd_read(r, buf + got, size - got)) > 0)
		got += k;
	if (rd_error(r))
		return -1;
	return (long)got;
}

int board_pmu_next(struct rd *r, enum board_fmt fmt, uint64_t *index, struct board_pmu *out, struct board_err *err)
{
	unsigned char buf[BOARD_PMU_REC_SIZE];
	for (;;) {
		long got = read_full(r, buf, sizeof buf);
		int rc;
		if (got < 0)
			return fail(err, BOARD_ERR_IO, rd_strerror(r), *index, *index * sizeof buf, 0);
		if (got == 0)
			return 0;
		rc = board_pmu_decode(fmt, buf, (size_t)got, *index, out, err);
		if (rc < 0)
			return rc;
		++*index;
		if (rc > 0)
			return 1;
	}
}

int board_stamp_next(struct rd *r, enum board_fmt fmt, uint64_t *index, struct board_stamp *out,
                     struct board_err *err)
{
	unsigned char buf[64];
	size_t size = board_stamp_size(fmt);
	long got = read_full(r, buf, size);
	int rc;
	if (got < 0)
		return fail(err, BOARD_ERR_IO, rd_strerror(r), *index, *index * size, 0);
	if (got == 0)
		return 0;
	rc = board_stamp_decode(fmt, buf, (size_t)got, *index, out, err);
	if (rc > 0)
		++*index;
	return rc;
}

int board_l2_read(struct rd *r, uint64_t val[8], struct board_err *err)
{
	unsigned char buf[BOARD_L2_SIZE + 1];
	long got = read_full(r, buf, sizeof buf);
	if (got < 0)
		return fail(err, BOARD_ERR_IO, rd_strerror(r), 0, 0, 0);
	return board_l2_decode(buf, (size_t)got, val, err);
}

/* ---- op_basic_info.txt ---- */

void board_basic_init(struct board_basic *b)
{
	memset(b, 0, sizeof *b);
	b->cur_freq = -1;
	b->rated_freq = -1;
}

/* A decimal integer filling all of s[0..n), optionally negative. */
static int parse_int(const char *s, size_t n, int64_t *out)
{
	size_t i = 0;
	int neg = 0;
	uint64_t v = 0;
	if (n && (s[0] == '-' || s[0] == '+')) {
		neg = s[0] == '-';
		i = 1;
	}
	if (i == n)
		return -1;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (uint64_t)INT64_MAX / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > (uint64_t)INT64_MAX)
			return -1;
	}
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

static int key_is(const char *k, size_t n, const char *want)
{
	return strlen(want) == n && !memcmp(k, want, n);
}

static int copy_text(char *dst, const char *s, size_t n, uint64_t lineno, struct board_err *err)
{
	if (n >= BOARD_TEXT_MAX)
		return fail(err, BOARD_ERR_FIELD, "op_basic_info value too long", 0, 0, lineno);
	memcpy(dst, s, n);
	dst[n] = 0;
	return 0;
}

int board_basic_line(struct board_basic *b, const char *s, size_t len, uint64_t lineno, struct board_err *err)
{
	const char *eq, *val;
	size_t klen, vlen;
	int64_t num;
	if (len && s[len - 1] == '\r')
		len--;
	/* The line is cut at each '=' and must give two pieces; a '=' at the
	 * very end starts no piece ("Key=" is one piece, "A=B=" two). */
	if (len && s[len - 1] == '=')
		len--;
	eq = memchr(s, '=', len);
	if (!eq || memchr(eq + 1, '=', len - (size_t)(eq + 1 - s)))
		return 0;
	klen = (size_t)(eq - s);
	val = eq + 1;
	vlen = len - klen - 1;
	if (key_is(s, klen, "Op Name")) {
		b->have_op_name = 1;
		return copy_text(b->op_name, val, vlen, lineno, err);
	}
	if (key_is(s, klen, "Run Soc Version")) {
		b->have_soc = 1;
		return copy_text(b->soc, val, vlen, lineno, err);
	}
	if (key_is(s, klen, "Pid")) {
		b->have_pid = 1;
		return copy_text(b->pid, val, vlen, lineno, err);
	}
	if (key_is(s, klen, "Block Dim")) {
		if (parse_int(val, vlen, &num) || num < 0)
			return fail(err, BOARD_ERR_FIELD, "Block Dim is not an integer", 0, 0, lineno);
		b->block_dim = (uint64_t)num;
		b->have_block_dim = 1;
		return copy_text(b->block_dim_text, val, vlen, lineno, err);
	}
	if (key_is(s, klen, "Device Id")) {
		if (parse_int(val, vlen, &num) || num < 0 || num > UINT32_MAX)
			return fail(err, BOARD_ERR_FIELD, "Device Id is not an integer", 0, 0, lineno);
		b->device_id = (unsigned)num;
		b->have_device_id = 1;
		return copy_text(b->device_id_text, val, vlen, lineno, err);
	}
	if (key_is(s, klen, "Current Freq")) {
		b->have_cur_freq = 1;
		b->cur_freq = parse_int(val, vlen, &num) ? -1 : num;
		return copy_text(b->cur_freq_text, val, vlen, lineno, err);
	}
	if (key_is(s, klen, "Rated Freq")) {
		b->have_rated_freq = 1;
		b->rated_freq = parse_int(val, vlen, &num) ? -1 : num;
		return copy_text(b->rated_freq_text, val, vlen, lineno, err);
	}
	if (key_is(s, klen, "Is MC2"))
		b->is_mc2 = vlen == 1 && val[0] == '1';
	else if (key_is(s, klen, "Is Lccl"))
		b->is_lccl = vlen == 1 && val[0] == '1';
	else if (key_is(s, klen, "Has Simt"))
		b->has_simt = vlen == 1 && val[0] == '1';
	return 0;
}

int board_basic_check(const struct board_basic *b, struct board_err *err)
{
	if (!b->have_op_name)
		return fail(err, BOARD_ERR_FIELD, "no Op Name", 0, 0, 0);
	if (!b->have_block_dim)
		return fail(err, BOARD_ERR_FIELD, "no Block Dim", 0, 0, 0);
	if (!b->have_soc)
		return fail(err, BOARD_ERR_FIELD, "no Run Soc Version", 0, 0, 0);
	if (!b->have_device_id)
		return fail(err, BOARD_ERR_FIELD, "no Device Id", 0, 0, 0);
	return 0;
}

int board_basic_read(struct rd *r, struct board_basic *b, struct board_err *err)
{
	const char *s;
	size_t len;
	while ((s = rd_line(r, &len)))
		if (board_basic_line(b, s, len, rd_lineno(r), err))
			return -1;
	if (rd_error(r))
		return fail(err, BOARD_ERR_IO, rd_strerror(r), 0, 0, rd_lineno(r));
	return board_basic_check(b, err);
}

int board_basic_parse(const char *p, size_t n, struct board_basic *b, struct board_err *err)
{
	uint64_t lineno = 0;
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;
		if (board_basic_line(b, p, len, ++lineno, err))
			return -1;
		if (!nl)
			break;
		n -= len + 1;
		p = nl + 1;
	}
	return board_basic_check(b, err);
}

int board_low_freq(const struct board_basic *b)
{
	if (!b->have_cur_freq || !b->have_rated_freq || b->cur_freq < 0 || b->rated_freq < 0)
		return 0;
	return (float)b->cur_freq <= 0.95f * (float)b->rated_freq;
}
