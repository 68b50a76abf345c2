/* libFuzzer target for instr-parse's line grammar and calculators
 * (cmd/instr-parse/grammar.c, cmd/instr-parse/calc.c).  See README.
 *
 * The input is one log line without its LF, in a heap block of exactly its
 * length (so ASan reports any read past the end).  When grammar_parse
 * accepts it:
 *   - the pipe, name and detail slices must lie inside the line, hold only
 *     characters of their grammar classes, and parsing twice gives the same
 *     result;
 *   - the detail, with its spaces stripped (strip_spaces) into a block of
 *     exactly the stripped length, goes to normalise_pipe, simt_ids,
 *     simt_threads, is_usermark and to every calculator for every
 *     enum calc_family value, with the name in its own exact-size block;
 *   - calc_gpr_walk runs over the registers found (plus a few rows made
 *     from input bytes), and is compared with a direct (quadratic)
 *     transcription of the walk of optrace-calc(5), LIVE REGISTERS (for
 *     one input in FUZZ_GRAMMAR_WALK_EVERY, default 16, as it is slow
 *     under ASan).
 * Whatever the grammar says, the raw input is also split into (name,
 * detail) at its first NUL byte, or else at half, and both halves (each in
 * its own exact-size block) go to every calculator for every family.
 *
 * Output ranges are checked (process bytes fit an int or are -1 off
 * A2/310P, UB conflicts -1 or 0..15/0..7, utilisation -1 or 0..100,
 * register counts 0..CALC_MAX_REGS, vec-state writes touch only the
 * variables they report, ...).  Any violation calls abort(). */
#include "calc.h"
#include "grammar.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -DFUZZ_GRAMMAR_WALK_EVERY=1 checks calc_gpr_walk on every input. */
#ifndef FUZZ_GRAMMAR_WALK_EVERY
#define FUZZ_GRAMMAR_WALK_EVERY 16
#endif

static const uint8_t *cur_data;
static size_t cur_size;

static void fail(const char *what)
{
	size_t i;
	fprintf(stderr, "fuzz_grammar: %s\ninput (%zu bytes): \"", what, cur_size);
	for (i = 0; i < cur_size && i < 600; i++) {
		unsigned c = cur_data[i];
		if (c == '"' || c == '\\')
			fprintf(stderr, "\\%c", c);
		else if (c >= 0x20 && c < 0x7f)
			fputc((int)c, stderr);
		else
			fprintf(stderr, "\\x%02x\"\"", c);
	}
	fprintf(stderr, "\"\n");
	abort();
}

#define CHECK(cond)                                                        \
	do {                                                               \
		if (!(cond))                                               \
			fail("check failed: " #cond);                      \
	} while (0)

/* A copy of n bytes in a heap block of exactly n bytes. */
static char *dup_exact(const void *p, size_t n)
{
	char *q = malloc(n);
	if (!q && n)
		abort();
	if (n)
		memcpy(q, p, n);
	return q;
}

#define NFAM (CALC_OTHER + 1)

/* ---- classes of the grammar (optrace-dumps(5), Instruction lines) ------ */

static int c_pipe(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '3') || c == '_';
}

static int c_name(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-';
}

static int c_detail(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       (c && strchr("[]|_, :=/#-\"\\", c));
}

static int all_of(const char *p, size_t n, int (*cls)(int))
{
	for (size_t i = 0; i < n; i++)
		if (!cls((unsigned char)p[i]))
			return 0;
	return 1;
}

static int inside(const char *line, size_t len, const char *p, size_t n)
{
	return p >= line && p <= line + len && n <= (size_t)(line + len - p);
}

/* ---- calculators ------------------------------------------------------ */

/* Register sets collected for the GPR walk. */
#define MAXROWS 24
static struct calc_regs rows[MAXROWS];
static size_t nrows;

static void add_row(const struct calc_regs *r)
{
	if (nrows < MAXROWS)
		rows[nrows++] = *r;
}

static void check_util(double u)
{
	CHECK(!isnan(u));
	CHECK(u == -1 || (u >= 0 && u <= 100));
}

/* Every calculator for every family on one (name, detail); name and detail
 * must be exact-size heap blocks. */
static void run_calcs(const char *name, size_t name_n, const char *detail, size_t detail_n,
                      uint64_t seed)
{
	struct calc_str nm = { name, name_n }, dt = { detail, detail_n };

	for (int f = 0; f < NFAM; f++) {
		enum calc_family fam = (enum calc_family)f;
		int on = fam == CALC_A2 || fam == CALC_310P;
		int64_t pb;
		int rd, wr;
		uint64_t val[CALC_VEC_NVARS];
		unsigned w;
		struct calc_vec_state st;
		struct calc_regs rg;
		int rc;

		pb = calc_process_bytes(fam, nm, dt);
		if (!on)
			CHECK(pb == -1);
		else
			CHECK(pb >= INT32_MIN && pb <= INT32_MAX);

		rd = wr = 12345;
		calc_ub_conflict(fam, nm, dt, &rd, &wr);
		CHECK((rd == -1) == (wr == -1));
		CHECK(rd >= -1 && rd <= 15);
		CHECK(wr >= -1 && wr <= 7);
		if (!on)
			CHECK(rd == -1);

		for (int k = 0; k < CALC_VEC_NVARS; k++)
			val[k] = 0xa5a5a5a5a5a5a5a5ull + (uint64_t)k;
		w = calc_vec_writes(fam, nm, dt, val);
		CHECK(w < (1u << CALC_VEC_NVARS));
		if (!on)
			CHECK(w == 0);
		for (int k = 0; k < CALC_VEC_NVARS; k++)
			if (!(w & (1u << k)))
				CHECK(val[k] == 0xa5a5a5a5a5a5a5a5ull + (uint64_t)k);
		if (w & (1u << CALC_VEC_MASKMODE))
			CHECK(val[CALC_VEC_MASKMODE] <= 1);

		/* Utilisation under a few states: initial, the one just
		 * written, element-count mode, and an out-of-range mode. */
		memset(&st, 0, sizeof st);
		check_util(calc_vec_util(fam, nm, dt, &st));
		for (int k = 0; k < CALC_VEC_NVARS; k++)
			if (w & (1u << k))
				st.v[k] = val[k];
		check_util(calc_vec_util(fam, nm, dt, &st));
		st.v[CALC_VEC_MASK0] = seed;
		st.v[CALC_VEC_MASK1] = ~seed;
		st.v[CALC_VEC_MASKMODE] = 0;
		check_util(calc_vec_util(fam, nm, dt, &st));
		st.v[CALC_VEC_MASKMODE] = 1;
		check_util(calc_vec_util(fam, nm, dt, &st));
		st.v[CALC_VEC_MASK1] = 0;
		check_util(calc_vec_util(fam, nm, dt, &st));
		st.v[CALC_VEC_MASKMODE] = 2 + (seed & 0xff);
		check_util(calc_vec_util(fam, nm, dt, &st));

		memset(&rg, 0x5a, sizeof rg);
		rc = calc_gpr_regs(fam, nm, dt, &rg);
		CHECK(rc == 0 || rc == -1);
		CHECK(rg.nsrc >= 0 && rg.nsrc <= CALC_MAX_REGS);
		CHECK(rg.ndst >= 0 && rg.ndst <= CALC_MAX_REGS);
		if (fam == CALC_310B || fam == CALC_OTHER)
			CHECK(rc == -1 && rg.nsrc == 0 && rg.ndst == 0);
		else
			CHECK(rc == 0);
		if (rc == 0)
			add_row(&rg);
	}
}

/* The other helpers of grammar.h on one detail (exact-size block). */
static void run_helpers(const char *pipe, size_t pipe_n, const char *name, size_t name_n,
                        const char *d, size_t n)
{
	static const char *const known[] = {
		"SCALAR", "FLOWCTRL", "VECTOR", "CUBE", "MTE1", "MTE2", "MTE3", "FIXP", "EVENT",
		"CACHEMISS", "ALL", "USERMARK", "RVECST", "RVECLD", "RVECEX", "PUSHQ", "RVECSU",
		"RVECLP",
	};
	const char *np;
	int warp, sch, th, um, ok = 0;

	np = normalise_pipe(pipe, pipe_n, name, name_n, d, n);
	CHECK(np != NULL);
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		ok |= !strcmp(np, known[i]);
	CHECK(ok);
	um = is_usermark(d, n);
	CHECK(um == 0 || um == 1);
	if (um)
		CHECK(!strcmp(np, "USERMARK"));

	simt_ids(d, n, &warp, &sch);
	CHECK((warp == -1) == (sch == -1));
	CHECK(warp >= -1 && warp <= 99);
	CHECK(sch >= -1 && sch <= 3);
	th = simt_threads(d, n);
	CHECK(th >= -1 && th <= 32);
}

/* ---- GPR walk, checked against optrace-calc(5), LIVE REGISTERS, taken
 * literally ---- */

static void walk_ref(const struct calc_regs *rg, size_t n, int *gpr)
{
	/* Registers are 16-bit keys; the few seen are kept in a list. */
	enum { MAXK = MAXROWS * 2 * CALC_MAX_REGS };
	unsigned key[MAXK];
	size_t last[MAXK], nk = 0;

	for (size_t i = 0; i < n; i++) {
		for (int k = 0; k < rg[i].nsrc; k++) {
			size_t j;
			for (j = 0; j < nk && key[j] != rg[i].src[k]; j++)
				;
			if (j == nk)
				key[nk++] = rg[i].src[k];
			last[j] = i;
		}
		for (int k = 0; k < rg[i].ndst; k++) {
			size_t j;
			for (j = 0; j < nk && key[j] != rg[i].dst[k]; j++)
				;
			if (j == nk) {
				key[nk++] = rg[i].dst[k];
			} else {
				for (size_t m = last[j] + 1; m < i; m++)
					gpr[m] = gpr[m] > 0 ? gpr[m] - 1 : 0;
			}
			last[j] = i;
		}
		gpr[i] = (int)nk;
	}
	for (size_t j = 0; j < nk; j++)
		for (size_t m = last[j] + 1; m < n; m++)
			gpr[m] = gpr[m] > 0 ? gpr[m] - 1 : 0;
}

static void check_walk(const struct calc_regs *rg, size_t n)
{
	int got[MAXROWS], want[MAXROWS];

	CHECK(n <= MAXROWS);
	memset(got, 0x7f, sizeof got);
	CHECK(calc_gpr_walk(rg, n, got) == 0);
	walk_ref(rg, n, want);
	for (size_t i = 0; i < n; i++)
		if (got[i] != want[i])
			fail("calc_gpr_walk differs from the walk of optrace-calc(5)");
}

/* A few register rows made straight from input bytes: small register
 * numbers (so they collide), the leading-zero and LD4 flag bits, sources
 * and destinations mixed. */
static void synth_rows(const uint8_t *data, size_t size)
{
	struct calc_regs r;
	size_t i = 0;

	for (int row = 0; row < 6 && i < size; row++) {
		memset(&r, 0, sizeof r);
		int cnt = data[i++] & 7;
		for (int k = 0; k < cnt && i < size; k++, i++) {
			uint8_t b = data[i];
			unsigned reg = (b & 7) | ((b & 0x40) ? 0x100u : 0) | ((b & 0x20) ? 0x200u : 0);
			if (b & 0x80) {
				if (r.ndst < CALC_MAX_REGS)
					r.dst[r.ndst++] = (uint16_t)reg;
			} else if (r.nsrc < CALC_MAX_REGS) {
				r.src[r.nsrc++] = (uint16_t)reg;
			}
		}
		add_row(&r);
	}
}

/* ---- the target -------------------------------------------------------- */

/* Field by field: the struct's padding bytes are not part of the result. */
static int same_iline(const struct iline *a, const struct iline *b)
{
	return a->tick == b->tick && a->pc == b->pc && a->id == b->id && a->has_id == b->has_id &&
	       a->id_p == b->id_p && a->id_n == b->id_n && a->pipe == b->pipe &&
	       a->pipe_n == b->pipe_n && a->name == b->name && a->name_n == b->name_n &&
	       a->detail == b->detail && a->detail_n == b->detail_n && a->has_sep == b->has_sep &&
	       a->pop == b->pop;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line;
	struct iline il = { 0 }, il2 = { 0 };
	uint64_t seed = 0;
	uint32_t hash = 2166136261u;

	cur_data = data;
	cur_size = size;
	nrows = 0;
	for (size_t i = 0; i < size && i < 8; i++)
		seed = (seed << 8) | data[size - 1 - i];
	for (size_t i = 0; i < size; i++)
		hash = (hash ^ data[i]) * 16777619u;

	line = dup_exact(data, size);
	if (grammar_parse(line, size, &il) == 0) {
		char *pipe, *name, *sp, *detail;
		size_t n, spaces = 0;

		CHECK(grammar_parse(line, size, &il2) == 0);
		CHECK(same_iline(&il, &il2));
		CHECK(inside(line, size, il.pipe, il.pipe_n));
		CHECK(inside(line, size, il.name, il.name_n));
		CHECK(inside(line, size, il.detail, il.detail_n));
		CHECK(il.pipe_n > 0 && all_of(il.pipe, il.pipe_n, c_pipe));
		CHECK(all_of(il.name, il.name_n, c_name));
		CHECK(all_of(il.detail, il.detail_n, c_detail));
		CHECK(il.pop == POP_NONE || il.pop == POP_FROM_IQ || il.pop == POP_SUCCESS);
		CHECK(il.has_id == 0 || il.has_id == 1);
		CHECK(il.tick != UINT64_MAX);
		if (il.name_n)
			CHECK(il.name > il.pipe);
		if (il.detail_n)
			CHECK(il.detail >= il.name + il.name_n);

		pipe = dup_exact(il.pipe, il.pipe_n);
		name = dup_exact(il.name, il.name_n);
		sp = malloc(il.detail_n ? il.detail_n : 1);
		if (!sp)
			abort();
		n = strip_spaces(sp, il.detail, il.detail_n);
		for (size_t i = 0; i < il.detail_n; i++)
			spaces += il.detail[i] == ' ';
		CHECK(n == il.detail_n - spaces);
		CHECK(!memchr(sp, ' ', n));
		detail = dup_exact(sp, n);
		free(sp);

		run_helpers(pipe, il.pipe_n, name, il.name_n, detail, n);
		run_calcs(name, il.name_n, detail, n, seed);
		free(pipe);
		free(name);
		free(detail);
	}
	free(line);

	/* The raw input as (name, detail). */
	{
		const uint8_t *z = size ? memchr(data, 0, size) : NULL;
		size_t name_n = z ? (size_t)(z - data) : size / 2;
		size_t dstart = z ? name_n + 1 : name_n;
		char *name = dup_exact(data, name_n);
		char *detail = dup_exact(data + dstart, size - dstart);

		run_helpers(name, name_n, name, name_n, detail, size - dstart);
		run_calcs(name, name_n, detail, size - dstart, seed);
		free(name);
		free(detail);
	}

	/* One GPR walk over what was found plus a few synthetic rows, when
	 * some row holds a register.  A walk costs ~1 ms under ASan (it sets
	 * up a 64K-entry table each call), 50 times the rest of this
	 * function, so by default it runs for one input in
	 * FUZZ_GRAMMAR_WALK_EVERY, chosen by a hash of the input (so a crash
	 * still replays). */
	if (FUZZ_GRAMMAR_WALK_EVERY <= 1 || hash % FUZZ_GRAMMAR_WALK_EVERY == 0) {
		synth_rows(data, size);
		for (size_t i = 0; i < nrows; i++)
			if (rows[i].nsrc || rows[i].ndst) {
				check_walk(rows, nrows);
				break;
			}
	}
	return 0;
}
