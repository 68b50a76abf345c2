/* Per-instruction calculators of instr-parse (see optrace-calc(5)).
 *
 * The reference extracts operands with std::regex_search; every pattern is
 * emulated here by hand with the same search semantics: the first position
 * in the detail where the whole pattern matches wins, and a capture that then
 * fails to convert (e.g. a hex value wider than 64 bits) makes the field
 * missing rather than sending the search on to a later occurrence.  Where a
 * pattern could backtrack, the comment on its matcher says why the simple
 * scan gives the same answer.
 *
 * Nothing here allocates except calc_gpr_walk, and no input is assumed to be
 * NUL-terminated. */
#include "calc.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#ifdef __SSE2__
#include <emmintrin.h>

#include "scan.h"
#include "text.h"
#endif

#define NPOS ((size_t)-1)

struct span {
	size_t b, e;
};

static int is_dig(char c) { return c >= '0' && c <= '9'; }
static int is_lhex(char c) { return is_dig(c) || (c >= 'a' && c <= 'f'); }
static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static int is_alnum(char c) { return is_dig(c) || is_alpha(c); }
static int is_lalnum(char c) { return is_dig(c) || (c >= 'a' && c <= 'z'); }
/* ECMAScript \s for char in the C locale. */
static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
	       c == '\r';
}

static int at(struct calc_str s, size_t i, char c)
{
	return i < s.n && s.p[i] == c;
}

static int at_cls(struct calc_str s, size_t i, int (*cls)(char))
{
	return i < s.n && cls(s.p[i]);
}

/* Length of the run of cls characters at i, counting no further than max. */
static size_t run(struct calc_str s, size_t i, int (*cls)(char), size_t max)
{
	size_t k = 0;
	while (k < max && i + k < s.n && cls(s.p[i + k]))
		k++;
	return k;
}

static int str_eq(struct calc_str s, const char *lit)
{
	size_t n;
	/* Name tables are scanned linearly per instruction: reject on the
	 * first byte before paying for strlen. */
	if (s.n == 0 || s.p[0] != lit[0])
		return s.n == 0 && lit[0] == 0;
	n = strlen(lit);
	return s.n == n && (n == 0 || memcmp(s.p, lit, n) == 0);
}

static int span_eq(struct calc_str s, struct span sp, const char *lit)
{
	struct calc_str t = { s.p + sp.b, sp.e - sp.b };
	return str_eq(t, lit);
}

static int has_lit(struct calc_str s, size_t i, const char *lit, size_t len)
{
	return i <= s.n && s.n - i >= len && memcmp(s.p + i, lit, len) == 0;
}
#define HAS(s, i, lit) has_lit((s), (i), (lit), sizeof(lit) - 1)

static size_t find_key(struct calc_str s, size_t from, const char *key,
                       size_t klen)
{
	const char *q;
	if (s.n < klen || from > s.n - klen)
		return NPOS;
	q = text_find(s.p + from, s.n - from, key, klen);
	return q ? (size_t)(q - s.p) : NPOS;
}

/* Iterate the occurrences of a literal key in s. */
#define FOR_KEY(pos, s, lit)                                                   \
	for (size_t pos = find_key((s), 0, (lit), sizeof(lit) - 1);            \
	     pos != NPOS;                                                      \
	     pos = find_key((s), pos + 1, (lit), sizeof(lit) - 1))

/* ---- number conversion (std::stoull with the reference's strict check) -- */

/* Every character must be a hex digit; a value past 64 bits is out_of_range,
 * which the reference turns into "field missing". */
static int conv_hex(struct calc_str s, size_t b, size_t e, uint64_t *v)
{
	uint64_t x = 0;
	if (b >= e)
		return 0;
	for (size_t i = b; i < e; i++) {
		int d = hexval(s.p[i]);
		if (d < 0 || x > (UINT64_MAX >> 4))
			return 0;
		x = (x << 4) | (uint64_t)d;
	}
	*v = x;
	return 1;
}

static int conv_dec(struct calc_str s, size_t b, size_t e, uint64_t *v)
{
	uint64_t x = 0;
	if (b >= e)
		return 0;
	for (size_t i = b; i < e; i++) {
		if (!is_dig(s.p[i]))
			return 0;
		unsigned d = (unsigned)(s.p[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return 0;
		x = x * 10 + d;
	}
	*v = x;
	return 1;
}

/* stoull(str, &pos, 16) with pos == size required.  strtoull skips its own
 * optional "0x" prefix, but a bare "0x" parses as "0" and leaves pos at 1. */
static int conv_stoull16(struct calc_str s, size_t b, size_t e, uint64_t *v)
{
	if (e - b >= 2 && s.p[b] == '0' && (s.p[b + 1] == 'x' || s.p[b + 1] == 'X')) {
		if (e - b >= 3 && hexval(s.p[b + 2]) >= 0)
			return conv_hex(s, b + 2, e, v);
		return 0;
	}
	return conv_hex(s, b, e, v);
}

/* GetRegValueAuto: "0x" selects base 16 for the rest, otherwise base 10. */
static int conv_auto(struct calc_str s, struct span sp, uint64_t *v)
{
	if (sp.e - sp.b >= 2 && s.p[sp.b] == '0' &&
	    (s.p[sp.b + 1] == 'x' || s.p[sp.b + 1] == 'X')) {
		if (sp.e - sp.b == 2)
			return 0;
		return conv_stoull16(s, sp.b + 2, sp.e, v);
	}
	return conv_dec(s, sp.b, sp.e, v);
}

/* ---- pattern pieces -------------------------------------------------- */

/* (?:0x)?([0-9a-f]+) at i.  The optional group is tried first; when "0x" is
 * not followed by a hex digit the regex falls back to capturing the lone
 * "0". */
static int m_hexval(struct calc_str s, size_t i, struct span *sp)
{
	size_t b;
	if (at(s, i, '0') && at(s, i + 1, 'x') && at_cls(s, i + 2, is_lhex))
		b = i + 2;
	else if (at_cls(s, i, is_lhex))
		b = i;
	else
		return 0;
	sp->b = b;
	sp->e = b + run(s, b, is_lhex, SIZE_MAX);
	return 1;
}

/* X[0-9]{1,2} followed by sep at i; returns the position after sep.  A third
 * digit defeats both the greedy and the backtracked width, since the char
 * after the digits is then a digit, never sep. */
static size_t m_xreg(struct calc_str s, size_t i, char sep)
{
	if (!at(s, i, 'X'))
		return NPOS;
	size_t d = run(s, i + 1, is_dig, 3);
	if (d < 1 || d > 2 || !at(s, i + 1 + d, sep))
		return NPOS;
	return i + 2 + d;
}

/* A2/A3 register value: KEY X[0-9]{1,2}=(?:0x)?([0-9a-f]+) */
static int a2_reg_at(struct calc_str s, size_t i, struct span *sp)
{
	size_t q = m_xreg(s, i, '=');
	return q != NPOS && m_hexval(s, q, sp);
}

/* The register values (XD: XN: XM: XS: XT:) and Dtype of one detail, each
 * found once while calc_memo_begin's detail is the one asked about: the
 * calculators of one pair look the same keys up again and again. */
static struct {
	int on, dtype_done, dtype, vec_done;
	const char *p;
	size_t n;
	struct calc_str name;
	enum calc_family vec_fam;
	const void *vec;            /* vec_lookup's answer for name */
	size_t pos;                 /* where the key scan goes on */
	unsigned done;              /* bit r: key r decided */
	unsigned ok;                /* bit r: key r matched, v[r] set */
	uint64_t v[5];
} memo;

void calc_memo_begin(struct calc_str name, struct calc_str detail)
{
	memo.on = 1;
	memo.name = name;
	memo.vec_done = 0;
	memo.p = detail.p;
	memo.n = detail.n;
	memo.pos = memo.done = memo.ok = memo.dtype_done = 0;
}

void calc_memo_end(void)
{
	memo.on = 0;
}

static int memo_key(char c)
{
	switch (c) {
	case 'D': return 0;
	case 'N': return 1;
	case 'M': return 2;
	case 'S': return 3;
	case 'T': return 4;
	}
	return -1;
}

static int memo_for(struct calc_str s)
{
	return memo.on && s.p == memo.p && s.n == memo.n;
}

/* What a2_reg gives for the five keys, in one pass, as far as needed to
 * decide key want: the first occurrence of a key followed by a register
 * value decides it; at the end every key left is decided as absent. */
/* [0-9a-f] to its value, 16 for any other byte. */
static const uint8_t lhex_val[256] = {
#define N16 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16, 16
	N16, N16, N16,
	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 16, 16, 16, 16, 16, 16,
	N16, N16,
	16, 10, 11, 12, 13, 14, 15, 16, 16, 16, 16, 16, 16, 16, 16, 16,
	N16, N16, N16, N16, N16, N16, N16, N16, N16,
#undef N16
};

/* Key r ("X?:") at i: a2_reg_at and conv_hex in one pass over the value. */
static void memo_try(struct calc_str s, size_t i)
{
	size_t q, b, e;
	uint64_t x = 0;
	int r, ok = 1;
	if (s.p[i + 2] != ':' || (r = memo_key(s.p[i + 1])) < 0 || ((memo.done >> r) & 1))
		return;
	if ((q = m_xreg(s, i + 3, '=')) == NPOS)
		return;
	/* m_hexval: (?:0x)? then a maximal [0-9a-f]+ run */
	if (at(s, q, '0') && at(s, q + 1, 'x') && at_cls(s, q + 2, is_lhex))
		b = q + 2;
	else if (at_cls(s, q, is_lhex))
		b = q;
	else
		return;
	for (e = b; e < s.n; e++) {
		unsigned d = lhex_val[(unsigned char)s.p[e]];
		if (d > 15)
			break;
		if (x > (UINT64_MAX >> 4))
			ok = 0;     /* past 64 bits: conv_hex fails */
		x = x << 4 | d;
	}
	memo.done |= 1u << r;
	if (ok) {
		memo.v[r] = x;
		memo.ok |= 1u << r;
	}
}

static void memo_regs(struct calc_str s, int want)
{
	size_t i = memo.pos;
	/* A key "X?:" can start at i while i + 3 <= n.  The 'X's of sixteen
	 * bytes at a time as a bit mask (the Xs are a few bytes apart). */
#ifdef __SSE2__
	while (s.n >= 18 && i <= s.n - 18 && !((memo.done >> want) & 1)) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(s.p + i));
		unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_set1_epi8('X')));
		unsigned k;
		if (!m) {
			i += 16;
			continue;
		}
		k = (unsigned)__builtin_ctz(m);
		memo_try(s, i + k);
		i += k + 1;
	}
#endif
	while (s.n >= 3 && i <= s.n - 3 && !((memo.done >> want) & 1)) {
		if (s.p[i] == 'X')
			memo_try(s, i);
		i++;
	}
	if (!((memo.done >> want) & 1))
		memo.done = 0x1f;   /* the scan reached the end */
	memo.pos = i;
}

#define A2_REG(s, key, v) a2_reg((s), (key), sizeof(key) - 1, (v))
static int a2_reg(struct calc_str s, const char *key, size_t klen, uint64_t *v)
{
	struct span sp;
	int r;
	if (klen == 3 && key[0] == 'X' && key[2] == ':' && (r = memo_key(key[1])) >= 0 && memo_for(s)) {
		if (!((memo.done >> r) & 1))
			memo_regs(s, r);
		if (!((memo.ok >> r) & 1))
			return 0;
		*v = memo.v[r];
		return 1;
	}
	for (size_t p = find_key(s, 0, key, klen); p != NPOS;
	     p = find_key(s, p + 1, key, klen))
		if (a2_reg_at(s, p + klen, &sp))
			return conv_hex(s, sp.b, sp.e, v);
	return 0;
}

/* 310P register value: KEY(?:0x)?([0-9a-f]+) */
#define P_HEX(s, key, v) p_hex((s), (key), sizeof(key) - 1, (v))
static int p_hex(struct calc_str s, const char *key, size_t klen, uint64_t *v)
{
	struct span sp;
	for (size_t p = find_key(s, 0, key, klen); p != NPOS;
	     p = find_key(s, p + 1, key, klen))
		if (m_hexval(s, p + klen, &sp))
			return conv_hex(s, sp.b, sp.e, v);
	return 0;
}

/* KEY([0-9]+), base 10 */
#define P_DEC(s, key, v) p_dec((s), (key), sizeof(key) - 1, (v))
static int p_dec(struct calc_str s, const char *key, size_t klen, uint64_t *v)
{
	for (size_t p = find_key(s, 0, key, klen); p != NPOS;
	     p = find_key(s, p + 1, key, klen)) {
		size_t b = p + klen, k = run(s, b, is_dig, SIZE_MAX);
		if (k)
			return conv_dec(s, b, b + k, v);
	}
	return 0;
}

static int is_stride_ch(char c) { return is_lhex(c) || c == 'x'; }

/* KEY([0-9a-fx]+), then "0x"-or-decimal conversion */
#define P_AUTO(s, key, v) p_auto((s), (key), sizeof(key) - 1, (v))
static int p_auto(struct calc_str s, const char *key, size_t klen, uint64_t *v)
{
	for (size_t p = find_key(s, 0, key, klen); p != NPOS;
	     p = find_key(s, p + 1, key, klen)) {
		size_t b = p + klen, k = run(s, b, is_stride_ch, SIZE_MAX);
		if (k) {
			struct span sp = { b, b + k };
			return conv_auto(s, sp, v);
		}
	}
	return 0;
}

/* KEY([class]+) as a span */
static int p_word(struct calc_str s, const char *key, size_t klen,
                  int (*cls)(char), struct span *sp)
{
	for (size_t p = find_key(s, 0, key, klen); p != NPOS;
	     p = find_key(s, p + 1, key, klen)) {
		size_t b = p + klen, k = run(s, b, cls, SIZE_MAX);
		if (k) {
			sp->b = b;
			sp->e = b + k;
			return 1;
		}
	}
	return 0;
}

/* 310P vector dtype: [Tt]ype(?:[:\s]{0,3})([0-9]+), base 10.  More than
 * three separators cannot match by backtracking either: the char after fewer
 * separators is another separator, not a digit. */
static int p310_vtype(struct calc_str s, uint64_t *v)
{
	for (size_t p = find_key(s, 0, "ype", 3); p != NPOS;
	     p = find_key(s, p + 1, "ype", 3)) {
		if (p == 0 || (s.p[p - 1] != 'T' && s.p[p - 1] != 't'))
			continue;
		size_t i = p + 3, k = 0;
		while (k < 4 && i + k < s.n && (s.p[i + k] == ':' || is_space(s.p[i + k])))
			k++;
		if (k > 3)
			continue;
		size_t d = run(s, i + k, is_dig, SIZE_MAX);
		if (d)
			return conv_dec(s, i + k, i + k + d, v);
	}
	return 0;
}

/* ---- tables ----------------------------------------------------------- */

/* Dtype:<word> byte sizes; UNDEF is known but sized 0 (so it multiplies the
 * result to 0 rather than rejecting the instruction). */
static const struct {
	const char *name;
	uint8_t bytes;
} dtype_tab[] = {
	{ "S4", 1 },     { "B4", 1 },      { "U8", 1 },     { "S8", 1 },
	{ "B8", 1 },     { "U8S8", 1 },    { "B8U2", 1 },   { "DEQ", 1 },
	{ "U16", 2 },    { "S16", 2 },     { "B16", 2 },    { "F16", 2 },
	{ "BF16", 2 },   { "F16F16", 2 },  { "F16U2", 2 },  { "U32", 4 },
	{ "S32", 4 },    { "B32", 4 },     { "B32S", 4 },   { "B32L", 4 },
	{ "F32", 4 },    { "FMIX", 4 },    { "F16F32", 4 }, { "BF16F32", 4 },
	{ "F32F32", 4 }, { "U64", 8 },     { "S64", 8 },    { "B64", 8 },
	{ "F64", 8 },    { "UNDEF", 0 },
};

/* Dtype:([A-Za-z0-9]+) looked up in dtype_tab; -1 when absent or unknown. */
static int a2_dtype_find(struct calc_str s)
{
	struct span sp;
	if (!p_word(s, "Dtype:", 6, is_alnum, &sp))
		return -1;
	for (size_t i = 0; i < sizeof dtype_tab / sizeof dtype_tab[0]; i++)
		if (span_eq(s, sp, dtype_tab[i].name))
			return dtype_tab[i].bytes;
	return -1;
}

static int a2_dtype(struct calc_str s)
{
	if (!memo_for(s))
		return a2_dtype_find(s);
	if (!memo.dtype_done) {
		memo.dtype = a2_dtype_find(s);
		memo.dtype_done = 1;
	}
	return memo.dtype;
}

/* 310P vector dtype codes 0..9 -> bytes (B8 B16 B32 S8 S32 FP16 FMIX FP32
 * U32 S16). */
static const uint8_t p310_dtype_bytes[10] = { 1, 2, 4, 1, 4, 2, 4, 4, 4, 2 };

enum mem { MEM_NONE, MEM_L1, MEM_L0A, MEM_L0B, MEM_L0C, MEM_UB, MEM_BT, MEM_GM };

/* The reference captures Src:/Dst: with ([A-Za-z]+), so L1, L0A, L0B, L0C
 * can never be looked up even though its table lists them (see
 * optrace-calc(5), PROCESS BYTES and REFERENCE QUIRKS KEPT).
 * Kept that way on purpose: only OUT, UB and BT are ever recognised. */
static enum mem a2_mem(struct calc_str s, const char *key, size_t klen)
{
	static const struct {
		const char *name;
		enum mem m;
	} tab[] = {
		{ "L1", MEM_L1 }, { "L0A", MEM_L0A }, { "L0B", MEM_L0B },
		{ "L0C", MEM_L0C }, { "UB", MEM_UB }, { "BT", MEM_BT },
		{ "OUT", MEM_GM },
	};
	struct span sp;
	if (!p_word(s, key, klen, is_alpha, &sp))
		return MEM_NONE;
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (span_eq(s, sp, tab[i].name))
			return tab[i].m;
	return MEM_NONE;
}

/* Vector templates: A2/A3 name, 310P name, template class.  The class drives
 * the A2/A3 repeat field and the UB operand layout; 310P reads both from the
 * detail and only needs table membership. */
static const struct vec_ent {
	const char *a2, *p310;
	uint8_t cls;
} vec_tab[] = {
	{ "LD_VAD", "ldvad", 1 },          { "VAADD", "vaadd", 2 },
	{ "VABS", "vabs", 1 },             { "VADD", "vadd", 2 },
	{ "VADDDEQRELU", "vadddeqrelu", 2 }, { "VADDRELU", "vaddrelu", 2 },
	{ "VADDRELUCONV", "vaddreluconv", 2 }, { "VADDS", "vadds", 1 },
	{ "VAND", "vand", 2 },             { "VAXPY", "vaxpy", 2 },
	{ "VBS16", "vbs16", 1 },           { "VCADD", "vcadd", 5 },
	{ "VCBD", "vcbd", 1 },             { "VCGADD", "vcgadd", 5 },
	{ "VCGMAX", "vcgmax", 5 },         { "VCGMIN", "vcgmin", 5 },
	{ "VCMAX", "vcmax", 5 },           { "VCMIN", "vcmin", 5 },
	{ "VCMP", "vcmp", 2 },             { "VCONV", "vconv", 1 },
	{ "VCPADD", "vcpadd", 5 },         { "VDIV", "vdiv", 2 },
	{ "VDP", "vdp", 10 },              { "VEXP", "vexp", 1 },
	{ "VEXTRACT", "vextract", 10 },    { "VGATHER", "vgather", 1 },
	{ "VIOU", "viou", 2 },             { "VLN", "vln", 1 },
	{ "VLRELU", "vlrelu", 1 },         { "VMADD", "vmadd", 2 },
	{ "VMADDRELU", "vmaddrelu", 2 },   { "VMAX", "vmax", 2 },
	{ "VMAXS", "vmaxs", 1 },           { "VMERGECH", "vmergech", 1 },
	{ "VMIN", "vmin", 2 },             { "VMINS", "vmins", 1 },
	{ "VMLA", "vmla", 2 },             { "VMOVMASK_XN", "vmovemask_cmp_xn", 10 },
	{ "VMS4", "vms4", 10 },            { "VMUL", "vmul", 2 },
	{ "VMULCONV", "vmulconv", 2 },     { "VMULS", "vmuls", 1 },
	{ "VNOT", "vnot", 1 },             { "VOR", "vor", 2 },
	{ "VPADDING", "vpadding", 1 },     { "VREC", "vrec", 1 },
	{ "VREDUCE", "vreduce", 10 },      { "VRELU", "vrelu", 1 },
	{ "VRPAC", "vrpac", 1 },           { "VRSQRT", "vrsqrt", 1 },
	{ "VSCATTER", "vscatter", 1 },     { "VSEL", "vsel", 2 },
	{ "VSHL", "vshl", 1 },             { "VSHR", "vshr", 1 },
	{ "VSQRT", "vsqrt", 1 },           { "VSUB", "vsub", 2 },
	{ "VSUBRELU", "vsubrelu", 2 },     { "VSUBRELUCONV", "vsubreluconv", 2 },
	{ "VTRANSPOSE", "vtranspose", 1 },
};

#define NVEC (sizeof vec_tab / sizeof vec_tab[0])

/* Sorted views of the table for binary search (built on first use): this
 * lookup runs twice per instruction. */
static const struct vec_ent *vec_sorted[2][NVEC];
static size_t vec_sorted_len[2][NVEC];
static int vec_sorted_ready;

static const char *vec_name(const struct vec_ent *e, int p310)
{
	return p310 ? e->p310 : e->a2;
}

static int cmp_a2(const void *a, const void *b)
{
	return strcmp((*(const struct vec_ent *const *)a)->a2, (*(const struct vec_ent *const *)b)->a2);
}

static int cmp_310(const void *a, const void *b)
{
	return strcmp((*(const struct vec_ent *const *)a)->p310,
	              (*(const struct vec_ent *const *)b)->p310);
}

static const struct vec_ent *vec_find(enum calc_family fam,
                                      struct calc_str name)
{
	int p310 = fam == CALC_310P;
	size_t lo = 0, hi = NVEC;

	/* Every template name starts with V or L (v or l on 310P): most
	 * instructions are turned away here. */
	if (name.n == 0 || ((name.p[0] | 0x20) != 'v' && (name.p[0] | 0x20) != 'l'))
		return NULL;
	if (!vec_sorted_ready) {
		for (size_t i = 0; i < NVEC; i++)
			vec_sorted[0][i] = vec_sorted[1][i] = &vec_tab[i];
		qsort(vec_sorted[0], NVEC, sizeof vec_sorted[0][0], cmp_a2);
		qsort(vec_sorted[1], NVEC, sizeof vec_sorted[1][0], cmp_310);
		for (size_t i = 0; i < NVEC; i++) {
			vec_sorted_len[0][i] = strlen(vec_sorted[0][i]->a2);
			vec_sorted_len[1][i] = strlen(vec_sorted[1][i]->p310);
		}
		vec_sorted_ready = 1;
	}
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *t = vec_name(vec_sorted[p310][mid], p310);
		size_t tn = vec_sorted_len[p310][mid], k = tn < name.n ? tn : name.n;
		int c = memcmp(name.p, t, k);
		if (!c)
			c = name.n < tn ? -1 : name.n > tn;
		if (!c)
			return vec_sorted[p310][mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

static const struct vec_ent *vec_lookup(enum calc_family fam,
                                        struct calc_str name)
{
	if (!memo.on || name.p != memo.name.p || name.n != memo.name.n)
		return vec_find(fam, name);
	if (!memo.vec_done || memo.vec_fam != fam) {
		memo.vec = vec_find(fam, name);
		memo.vec_fam = fam;
		memo.vec_done = 1;
	}
	return memo.vec;
}

static uint64_t bits(uint64_t v, unsigned s, unsigned n)
{
	return (v >> s) & ((UINT64_C(1) << n) - 1);
}

/* ---- 5.1 process bytes ------------------------------------------------- */

/* static_cast<int> of a uint64 field: keeps the low 32 bits, two's
 * complement. */
static int32_t as_int(uint64_t v)
{
	uint32_t u = (uint32_t)v;
	return u <= INT32_MAX ? (int32_t)u : -(int32_t)(~u) - 1;
}

/* SafeMulAll<int>: a zero factor short-circuits to 0, an overflowing step
 * saturates towards the sign of the true product and stops there. */
static int64_t safe_mul3(uint64_t a, uint64_t b, uint64_t c)
{
	const uint64_t f[3] = { a, b, c };
	int32_t res = 1;
	for (int i = 0; i < 3; i++) {
		int32_t x = as_int(f[i]);
		if (x == 0)
			return 0;
		int64_t p = (int64_t)res * x;
		if (p > INT32_MAX || p < INT32_MIN)
			return ((res < 0) == (x < 0)) ? INT32_MAX : INT32_MIN;
		res = (int32_t)p;
		if (res == INT32_MAX || res == INT32_MIN)
			return res;
	}
	return res;
}

enum xfer {
	X_NONE, X_LOAD2D, X_IMAGE, X_SMASK, X_MOV, X_ND2NZ, X_ALIGN, X_FIX
};

static enum xfer xfer_kind(enum calc_family fam, struct calc_str name)
{
	static const struct {
		const char *name;
		enum xfer k;
	} a2[] = {
		{ "LOAD_2D", X_LOAD2D },
		{ "LOAD_IMAGE", X_IMAGE },
		{ "MOV_OUT_TO_UB", X_MOV },
		{ "MOV_OUT_TO_L1", X_MOV },
		{ "MOV_UB_TO_OUT", X_MOV },
		{ "MOV_L1_TO_OUT", X_MOV },
		{ "MOV_OUT_TO_L1_MULTI_ND2NZ", X_ND2NZ },
		{ "MOV_SRC_TO_DST_ALIGN", X_ALIGN },
		{ "FIX_L0C_TO_DST", X_FIX },
	}, p310[] = {
		{ "load_out_to_l0a_2d", X_LOAD2D },
		{ "load_out_to_l0b_2d", X_LOAD2D },
		{ "load_out_to_l1_2d", X_LOAD2D },
		{ "load_out_to_l1_image", X_IMAGE },
		{ "load_src_to_smask", X_SMASK },
		{ "mov_out_to_ub", X_MOV },
		{ "mov_out_to_l1", X_MOV },
		{ "mov_ub_to_out", X_MOV },
	};
	if (fam == CALC_310P) {
		for (size_t i = 0; i < sizeof p310 / sizeof p310[0]; i++)
			if (str_eq(name, p310[i].name))
				return p310[i].k;
	} else {
		for (size_t i = 0; i < sizeof a2 / sizeof a2[0]; i++)
			if (str_eq(name, a2[i].name))
				return a2[i].k;
	}
	return X_NONE;
}

/* The register values a transfer may need, read with the family's grammar. */
enum { R_XD, R_XN, R_XM, R_XS, R_XT };

static int xreg(enum calc_family fam, struct calc_str d, int r, uint64_t *v)
{
	if (fam == CALC_310P) {
		switch (r) {
		case R_XD: return P_HEX(d, "xdValue:", v);
		case R_XN: return P_HEX(d, "xnValue:", v);
		case R_XM: return P_HEX(d, "xmValue:", v);
		case R_XS: return P_HEX(d, "xsValue:", v);
		default:   return P_HEX(d, "xtValue:", v);
		}
	}
	switch (r) {
	case R_XD: return A2_REG(d, "XD:", v);
	case R_XN: return A2_REG(d, "XN:", v);
	case R_XM: return A2_REG(d, "XM:", v);
	case R_XS: return A2_REG(d, "XS:", v);
	default:   return A2_REG(d, "XT:", v);
	}
}

static uint64_t div_up(uint64_t v, uint64_t d) { return (v + d - 1) / d; }

static int64_t fix_pipe_bytes(struct calc_str d, uint64_t xm, uint64_t xt)
{
	uint64_t n_size = bits(xm, 4, 12), m_size = bits(xm, 16, 16);
	uint64_t quant = bits(xt, 34, 5);
	int nz2nd = bits(xt, 43, 1) == 1;
	/* channelSplit also needs Src:L0C32, which the letters-only capture
	 * can never produce (see optrace-calc(5), REFERENCE QUIRKS KEPT); the
	 * comparison stays so that a fixed
	 * capture would light it up. */
	struct span sp;
	int src_l0c32 = p_word(d, "Src:", 4, is_alpha, &sp) &&
	                span_eq(d, sp, "L0C32");
	int split = bits(xt, 42, 1) == 1 && src_l0c32;
	uint64_t qbits = 32;
	int int8_merge = 0, int4_merge = 0;

	switch (quant) {
	case 1: case 10: case 11: case 12: case 13: case 16:
		qbits = 16;
		break;
	case 8: case 9: case 23: case 24:
		qbits = 8;
		int8_merge = !nz2nd;
		break;
	case 21: case 22: case 25: case 26:
		qbits = 4;
		int4_merge = !nz2nd;
		break;
	}

	if (nz2nd)
		return safe_mul3(qbits == 4 ? n_size / 2 : n_size,
		                 qbits == 4 ? 1 : qbits / 8, m_size);

	uint64_t ncol = div_up(n_size, 16), rep;
	if (split)
		rep = div_up(n_size, 8);
	else if (int4_merge)
		rep = ncol / 4;
	else if (int8_merge)
		rep = ncol / 2;
	else
		return safe_mul3(m_size * qbits / 8 / 2, 32, ncol);

	if (int8_merge && ncol % 2 == 0)
		return safe_mul3(m_size, 32, rep);
	/* Rows that do not fill whole 32-byte blocks are counted in 16-byte
	 * halves, plus one. */
	return safe_mul3(m_size, 16, rep * 2 + 1);
}

int64_t calc_process_bytes(enum calc_family fam, struct calc_str name,
                           struct calc_str detail)
{
	uint64_t xd, xn, xm, xs, xt;

	if (fam != CALC_A2 && fam != CALC_310P)
		return -1;

	switch (xfer_kind(fam, name)) {
	case X_LOAD2D:
		if (!xreg(fam, detail, R_XN, &xn) || !xreg(fam, detail, R_XD, &xd) ||
		    !xreg(fam, detail, R_XM, &xm))
			return 0;
		return safe_mul3(1, 512, bits(xm, 16, 8));
	case X_IMAGE: {
		if (!xreg(fam, detail, R_XD, &xd) || !xreg(fam, detail, R_XS, &xs) ||
		    !xreg(fam, detail, R_XT, &xt))
			return 0;
		uint64_t hor = bits(xs, 0, 13), ver = bits(xs, 16, 13);
		uint64_t lpad = bits(xt, 32, 13), rpad = bits(xt, 45, 13);
		uint64_t tpad = bits(xt, 16, 8), bpad = bits(xt, 24, 8);
		return safe_mul3((hor + lpad + rpad) * (ver + tpad + bpad), 32, 1);
	}
	case X_SMASK: {
		if (!xreg(fam, detail, R_XN, &xn) || !xreg(fam, detail, R_XD, &xd) ||
		    !xreg(fam, detail, R_XT, &xt))
			return 0;
		uint64_t len = ((xt & 0x800) >> 4) | (xt & 0x7f);
		return safe_mul3(1, (len + 15) / 16 * 32, 1);
	}
	case X_MOV:
		if (!xreg(fam, detail, R_XN, &xn) || !xreg(fam, detail, R_XD, &xd) ||
		    !xreg(fam, detail, R_XM, &xm))
			return 0;
		return safe_mul3(bits(xm, 16, 16), 32, bits(xm, 4, 12));
	case X_ND2NZ: {
		if (!xreg(fam, detail, R_XN, &xn) || !xreg(fam, detail, R_XD, &xd) ||
		    !xreg(fam, detail, R_XM, &xm) || !xreg(fam, detail, R_XT, &xt))
			return 0;
		int sz = a2_dtype(detail);
		if (sz < 0)
			return 0;
		return safe_mul3(bits(xm, 32, 16), (uint64_t)sz, bits(xm, 16, 16));
	}
	case X_ALIGN: {
		if (!xreg(fam, detail, R_XN, &xn) || !xreg(fam, detail, R_XD, &xd) ||
		    !xreg(fam, detail, R_XM, &xm) || !xreg(fam, detail, R_XT, &xt))
			return 0;
		enum mem src = a2_mem(detail, "Src:", 4);
		if (src == MEM_NONE)
			return 0;
		uint64_t len = bits(xm, 16, 21);
		/* UB bursts are padded to 32-byte alignment. */
		if (src == MEM_UB)
			len = (len + 31) / 32 * 32;
		return safe_mul3(len, 1, bits(xm, 4, 12));
	}
	case X_FIX:
		if (!xreg(fam, detail, R_XN, &xn) || !xreg(fam, detail, R_XD, &xd) ||
		    !xreg(fam, detail, R_XM, &xm) || !xreg(fam, detail, R_XT, &xt))
			return 0;
		if (a2_mem(detail, "Dst:", 4) == MEM_NONE)
			return 0;
		return fix_pipe_bytes(detail, xm, xt);
	case X_NONE:
		break;
	}
	return 0;
}

/* ---- 5.3 UB bank conflict ---------------------------------------------- */

struct ub_op {
	uint64_t addr, stride;
};

/* Only the first repeat is looked at, so repeat counts and repeat strides
 * (and with them the U8 distinction of unary instructions) never change the
 * result; they are not extracted. */
static int bank_conflicts(const struct ub_op *ops, int n)
{
	int count[16] = { 0 }, worst = 0;
	for (int k = 0; k < n; k++)
		for (uint64_t i = 0; i < 8; i++) {
			uint64_t a = i * ops[k].stride * 32 + ops[k].addr;
			int c = ++count[bits(a, 5, 4)];
			if (c - 1 > worst)
				worst = c - 1;
		}
	return worst;
}

static int ub_310p(struct calc_str d, struct ub_op *dst, struct ub_op *src,
                   int *nsrc)
{
	uint64_t rep, rstride;
	if (!P_DEC(d, "repeat:", &rep))
		return 0;
	if (!P_HEX(d, "dest_addr:", &dst->addr) ||
	    !P_AUTO(d, "dst_stride:", &dst->stride) ||
	    !P_AUTO(d, "dst_rep_stride:", &rstride))
		return 0;
	if (!P_HEX(d, "src_addr:", &src[0].addr) ||
	    !P_AUTO(d, "src_stride:", &src[0].stride) ||
	    !P_AUTO(d, "src_rep_stride:", &rstride))
		return 0;
	*nsrc = 1;
	/* src1 is optional, but only counts with all three fields. */
	if (P_HEX(d, "src1_addr:", &src[1].addr) &&
	    P_AUTO(d, "src1_stride:", &src[1].stride) &&
	    P_AUTO(d, "src1_rep_stride:", &rstride))
		*nsrc = 2;
	return 1;
}

static int ub_a2(struct calc_str d, int cls, struct ub_op *dst,
                 struct ub_op *src, int *nsrc)
{
	/* Registers are optional here (missing reads as 0); Dtype is not. */
	uint64_t xd = 0, xn = 0, xm = 0, xt = 0;
	A2_REG(d, "XD:", &xd);
	A2_REG(d, "XN:", &xn);
	A2_REG(d, "XM:", &xm);
	A2_REG(d, "XT:", &xt);
	if (a2_dtype(d) < 0)
		return 0;
	dst->addr = xd;
	src[0].addr = xn;
	switch (cls) {
	case 1:
		dst->stride = bits(xt, 0, 16);
		src[0].stride = bits(xt, 16, 16);
		*nsrc = 1;
		return 1;
	case 2:
		dst->stride = bits(xt, 0, 8);
		src[0].stride = bits(xt, 8, 8);
		src[1].addr = xm;
		src[1].stride = bits(xt, 16, 8);
		*nsrc = 2;
		return 1;
	case 5:
		dst->stride = 1;
		src[0].stride = bits(xt, 16, 16);
		*nsrc = 1;
		return 1;
	}
	return 0;
}

void calc_ub_conflict(enum calc_family fam, struct calc_str name,
                      struct calc_str detail, int *rd, int *wr)
{
	struct ub_op dst, src[2];
	int nsrc = 0, ok = 0;
	const struct vec_ent *ve;

	*rd = *wr = -1;
	if (fam != CALC_A2 && fam != CALC_310P)
		return;
	if (!(ve = vec_lookup(fam, name)))
		return;
	if (fam == CALC_310P)
		ok = ub_310p(detail, &dst, src, &nsrc);
	else
		ok = ub_a2(detail, ve->cls, &dst, src, &nsrc);
	if (!ok)
		return;
	*rd = bank_conflicts(src, nsrc);
	*wr = bank_conflicts(&dst, 1);
}

/* ---- 5.2 vector utilisation ------------------------------------------ */

/* MOVEMASK: XN:X[0-9]{1,2}=(?:0x)?([0-9a-f]+),\s?Pos:([0-9]{1})
 * The value run is maximal and ',' is not hex, so no shorter capture could
 * be followed by ','; likewise the "0" fallback of (?:0x)? is followed by
 * 'x'. */
static int a2_movemask(struct calc_str d, uint64_t *val, uint64_t *pos)
{
	FOR_KEY(p, d, "XN:") {
		struct span sp;
		if (!a2_reg_at(d, p + 3, &sp) || !at(d, sp.e, ','))
			continue;
		/* \s? can only help when the next char is a space: with
		 * the space left unconsumed "Pos:" could not start there. */
		size_t i = sp.e + 1;
		if (at_cls(d, i, is_space))
			i++;
		if (!HAS(d, i, "Pos:") || !at_cls(d, i + 4, is_dig))
			continue;
		if (!conv_hex(d, sp.b, sp.e, val))
			return 0;
		*pos = (uint64_t)(d.p[i + 4] - '0');
		return 1;
	}
	return 0;
}

/* SPR:<which>,\s?XN:X[0-9]{1,2}=(?:0x)?([0-9a-f]+) */
static int a2_spr(struct calc_str d, const char *key, size_t klen, uint64_t *v)
{
	for (size_t p = find_key(d, 0, key, klen); p != NPOS;
	     p = find_key(d, p + 1, key, klen)) {
		size_t i = p + klen;
		struct span sp;
		if (at_cls(d, i, is_space))
			i++;
		if (HAS(d, i, "XN:") && a2_reg_at(d, i + 3, &sp))
			return conv_hex(d, sp.b, sp.e, v);
	}
	return 0;
}

/* 310P movemask: mask:([0-9]{1}),\s?X[0-9]{1,2}:(?:0x)?([0-9a-f]+) */
static int p310_movemask(struct calc_str d, uint64_t *sel, uint64_t *val)
{
	FOR_KEY(p, d, "mask:") {
		size_t i = p + 5;
		struct span sp;
		if (!at_cls(d, i, is_dig) || !at(d, i + 1, ','))
			continue;
		size_t j = i + 2;
		if (at_cls(d, j, is_space))
			j++;
		size_t q = m_xreg(d, j, ':');
		if (q == NPOS || !m_hexval(d, q, &sp))
			continue;
		if (!conv_hex(d, sp.b, sp.e, val))
			return 0;
		*sel = (uint64_t)(d.p[i] - '0');
		return 1;
	}
	return 0;
}

/* 310P scalar_mov_xd_special: SPR_CTRL=\s?(?:0x)?([0-9a-f]+) */
static int p310_ctrl(struct calc_str d, uint64_t *v)
{
	FOR_KEY(p, d, "SPR_CTRL=") {
		size_t i = p + 9;
		struct span sp;
		if (at_cls(d, i, is_space))
			i++;
		if (m_hexval(d, i, &sp))
			return conv_hex(d, sp.b, sp.e, v);
	}
	return 0;
}

#define VBIT(v) (1u << (v))

unsigned calc_vec_writes(enum calc_family fam, struct calc_str name,
                         struct calc_str detail,
                         uint64_t val[CALC_VEC_NVARS])
{
	uint64_t v, sel;

	if (fam == CALC_A2) {
		if (str_eq(name, "MOVEMASK")) {
			if (!a2_movemask(detail, &v, &sel))
				return 0;
			int var = sel == 1 ? CALC_VEC_MASK1 : CALC_VEC_MASK0;
			val[var] = v;
			return VBIT(var);
		}
		if (str_eq(name, "MOV_SPR_XN")) {
			/* ND_PARA is tried before CTRL; the first that
			 * matches and converts is the only one applied. */
			if (a2_spr(detail, "SPR:ND_PARA,", 12, &v)) {
				val[CALC_VEC_NDPARA] = v;
				return VBIT(CALC_VEC_NDPARA);
			}
			if (a2_spr(detail, "SPR:CTRL,", 9, &v)) {
				val[CALC_VEC_MASKMODE] = bits(v, 56, 1);
				return VBIT(CALC_VEC_MASKMODE);
			}
		}
		return 0;
	}
	if (fam == CALC_310P) {
		if (str_eq(name, "movemask")) {
			if (!p310_movemask(detail, &sel, &v))
				return 0;
			int var = sel == 1 ? CALC_VEC_MASK1 : CALC_VEC_MASK0;
			val[var] = v;
			return VBIT(var);
		}
		if (str_eq(name, "scalar_mov_xd_special") && p310_ctrl(detail, &v)) {
			val[CALC_VEC_MASKMODE] = bits(v, 56, 1);
			return VBIT(CALC_VEC_MASKMODE);
		}
	}
	return 0;
}

static int popcount64(uint64_t v)
{
	/* Masks are mostly all ones: no loop over the set bits. */
	v = v - ((v >> 1) & 0x5555555555555555ULL);
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int)((v * 0x0101010101010101ULL) >> 56);
}

/* The reference's element count is a uint32_t, whatever the width of the
 * product it came from. */
static uint32_t element_count(uint64_t repeat, const struct calc_vec_state *st)
{
	uint64_t m0 = st->v[CALC_VEC_MASK0], m1 = st->v[CALC_VEC_MASK1];
	switch (st->v[CALC_VEC_MASKMODE]) {
	case 0:
		return (uint32_t)((uint64_t)(popcount64(m0) + popcount64(m1)) * repeat);
	case 1:
		return (uint32_t)(m1 ? m1 : m0);
	}
	return 0;
}

double calc_vec_util(enum calc_family fam, struct calc_str name,
                     struct calc_str detail, const struct calc_vec_state *st)
{
	const struct vec_ent *ve;
	uint64_t repeat, xt;
	int dsz;

	if (fam != CALC_A2 && fam != CALC_310P)
		return -1;
	if (!(ve = vec_lookup(fam, name)))
		return -1;
	if (fam == CALC_310P) {
		uint64_t code;
		if (!P_DEC(detail, "repeat:", &repeat) || !p310_vtype(detail, &code) ||
		    code >= sizeof p310_dtype_bytes)
			return -1;
		dsz = p310_dtype_bytes[code];
	} else {
		if (!A2_REG(detail, "XT:", &xt) || (dsz = a2_dtype(detail)) < 0)
			return -1;
		/* The class-10 special rules collide on one enum value and the
		 * survivor's result is cut to 8 bits: bits(XT,0,8) for all of
		 * them (see optrace-calc(5), VECTOR UTILISATION and REFERENCE
		 * QUIRKS KEPT). */
		repeat = ve->cls == 10 ? bits(xt, 0, 8) : bits(xt, 56, 8);
	}
	/* Single precision, in the reference's operation order, so the
	 * column carries the same float value. */
	float u = (float)element_count(repeat, st) * (float)dsz;
	u = u / 65280.0f; /* 255 repeats x 8 blocks x 32 bytes */
	u = u * 100.0f;
	return u < 100.0f ? u : 100.0f;
}

/* ---- 5.4 GPR live registers ------------------------------------------- */

/* Register identities.  The reference keys its liveness map by the token
 * string, so "7" and "07" are different registers, and the LD4 special case
 * invents names "X<n>" that no digit-only token can equal.  Both are kept
 * apart from plain numbers by flag bits. */
#define GPR_LEADING_ZERO 0x100u
#define GPR_LD4_NAME     0x200u

/* Destination operand positions among the extracted tokens (bit k = token
 * k).  GPR_LD4 marks the loads whose destination is a run of 4 registers. */
#define GPR_LD4 0x80u
static const struct {
	const char *name;
	uint8_t dst;
} gpr_a2_tab[] = {
	{ "ADD", 1 }, { "SUB", 1 }, { "MUL", 1 }, { "MADD", 1 }, { "DIV", 1 },
	{ "REM", 1 }, { "MAX", 1 }, { "MIN", 1 }, { "SEL", 1 }, { "AND", 1 },
	{ "OR", 1 }, { "XOR", 1 }, { "CMP", 0 }, { "CMPN", 1 },
	{ "LD_XD_XN", 1 }, { "ST_XD_XN", 0 }, { "LD_DDR", 1 }, { "ST_DDR", 0 },
	{ "DC_PRELOAD_XN_XM", 0 }, { "ST4_XD_XN", 0 }, { "ST_ATOMIC", 0 },
	{ "SQRT", 1 }, { "NEG", 1 }, { "ABS", 1 }, { "NOT", 1 }, { "SHL", 1 },
	{ "SHR", 1 }, { "SBCNT", 1 }, { "SFF", 1 }, { "SBITSET", 1 },
	{ "CLZ", 1 }, { "SFLBITS", 1 }, { "CONV", 1 }, { "MOV_XD_XN", 1 },
	{ "MOV_XD_SPR", 1 }, { "MOV_SPR_XN", 0 }, { "SIGNEXT", 1 },
	{ "ZEROEXT", 1 }, { "INSERT_XD_XN", 1 }, { "INSERT_XD", 1 },
	{ "LD_XD_XN_IMM", 1 }, { "ST_XD_XN_IMM", 0 }, { "ST4_XD_XN_IMM", 0 },
	{ "MOV_XD_IMM", 1 }, { "MOVK", 1 }, { "ADD_IMM", 1 }, { "MUL_IMM", 1 },
	{ "SUB_IMM", 1 }, { "DC_PRELOAD_XN_IMM", 0 }, { "CMP_IMM", 0 },
	{ "LDP_XI_XJ_XN", 3 }, { "STP_XI_XJ_XN", 0 },
	{ "LD_DEV_XD_XN_IMM12", 1 }, { "ST_DEV_XD_XN_IMM12", 0 },
	{ "STI_XN_XM", 0 }, { "STI_XN_IMM", 0 }, { "MOVX8_XD_IMM", 1 },
	{ "MOV_SPR_IMM", 0 }, { "ST_ATOMIC_IMM", 2 }, { "ST_DEV", 2 },
	{ "LD_DEV", 1 }, { "LD4_XD_XN", GPR_LD4 }, { "LD4_XD_XN_IMM", GPR_LD4 },
}, gpr_310p_tab[] = {
	{ "scalar_add", 1 }, { "scalar_sub", 1 }, { "scalar_mul", 1 },
	{ "scalar_madd", 1 }, { "scalar_div", 1 }, { "scalar_mod", 1 },
	{ "scalar_max", 1 }, { "scalar_min", 1 }, { "scalar_sel", 1 },
	{ "scalar_and", 1 }, { "scalar_or", 1 }, { "scalar_xor", 1 },
	{ "scalar_cmp", 0 }, { "scalar_cmpn", 1 }, { "scalar_ld", 1 },
	{ "scalar_st", 0 }, { "scalar_ld_ddr", 1 }, { "scalar_st_ddr", 0 },
	{ "scalar_dc_preload", 0 }, { "scalar_st4", 0 }, { "scalar_sqrt", 1 },
	{ "scalar_neg", 1 }, { "scalar_abs", 1 }, { "scalar_not", 1 },
	{ "scalar_shl", 1 }, { "scalar_shr", 1 }, { "scalar_sbcnt", 1 },
	{ "scalar_sff", 1 }, { "scalar_sbitset", 1 }, { "scalar_clz", 1 },
	{ "scalar_sflbits", 1 }, { "scalar_conv", 1 },
	{ "scalar_mov_xd_xn", 1 }, { "scalar_mov_xd_special", 1 },
	{ "scalar_mov_special_xn", 0 }, { "scalar_signext", 1 },
	{ "scalar_zeroext", 1 }, { "scalar_insert", 1 },
	{ "scalar_insert_ext", 1 }, { "scalar_ld_imm", 1 },
	{ "scalar_st_imm", 0 }, { "scalar_st4_imm", 0 },
	{ "scalar_mov_xd_imme16", 1 }, { "scalar_movk_xd_imme16", 1 },
	{ "scalar_add_imm12", 1 }, { "scalar_mul_imm12", 1 },
	{ "scalar_sub_imm12", 1 }, { "scalar_dc_preload_imm12", 0 },
	{ "scalar_cmp_imm12", 0 }, { "scalar_ldp", 3 }, { "scalar_stp", 0 },
	{ "scalar_ld_ddr_imm", 1 }, { "scalar_st_ddr_imm", 0 },
	{ "scalar_sti", 0 }, { "scalar_sti_imm", 0 }, { "scalar_movx8", 1 },
	{ "scalar_mov_spr_imm16", 0 }, { "scalar_ld4", GPR_LD4 },
	{ "scalar_ld4_imm", GPR_LD4 },
};

static void push_reg(uint16_t *list, int *n, unsigned r)
{
	if (*n < CALC_MAX_REGS)
		list[(*n)++] = (uint16_t)r;
}

/* \d{1,2} token at i (the caller has checked the first digit): encoded
 * number, *len gets its width. */
static unsigned dec_token(struct calc_str s, size_t i, size_t *len)
{
	unsigned a = (unsigned)(s.p[i] - '0');
	if (!at_cls(s, i + 1, is_dig)) {
		*len = 1;
		return a;
	}
	unsigned b = (unsigned)(s.p[i + 1] - '0');
	*len = 2;
	return a == 0 ? (GPR_LEADING_ZERO | b) : a * 10 + b;
}

/* One match of the family's token regex at or after *i.  A2/A3:
 * X(\d{1,2}).  310P adds x[a-z]:0x(\d{1,2}), x[a-z]:(\d{1,2}) and
 * x\[(\d{1,2})\], tried in that order at each position. */
static int next_token(enum calc_family fam, struct calc_str s, size_t *i,
                      unsigned *reg, size_t *tok)
{
	for (; *i < s.n; ++*i) {
		size_t k = *i, len, b = NPOS, end = 0;
		char c = s.p[k];
		if (c == 'X' && at_cls(s, k + 1, is_dig)) {
			b = k + 1;
		} else if (fam == CALC_310P && c == 'x') {
			int ltr = k + 1 < s.n && s.p[k + 1] >= 'a' && s.p[k + 1] <= 'z';
			if (ltr && at(s, k + 2, ':') && at(s, k + 3, '0') &&
			    at(s, k + 4, 'x') && at_cls(s, k + 5, is_dig))
				b = k + 5;
			else if (ltr && at(s, k + 2, ':') && at_cls(s, k + 3, is_dig))
				b = k + 3;
			else if (at(s, k + 1, '[') && at_cls(s, k + 2, is_dig)) {
				/* \d{1,2}\]: the bracket must follow the
				 * digit run, and a run of three never does. */
				size_t d = run(s, k + 2, is_dig, 3);
				if (d <= 2 && at(s, k + 2 + d, ']')) {
					b = k + 2;
					end = k + 3 + d;
				}
			}
		}
		if (b == NPOS)
			continue;
		*reg = dec_token(s, b, &len);
		*tok = b;
		*i = end ? end : b + len;
		return 1;
	}
	return 0;
}

static int gpr_dec(enum calc_family fam, struct calc_str name,
                   struct calc_str d, struct calc_regs *out)
{
	int dstmask = -1; /* -1: not in the table, every token is a source */
	size_t n = fam == CALC_310P ? sizeof gpr_310p_tab / sizeof gpr_310p_tab[0]
	                            : sizeof gpr_a2_tab / sizeof gpr_a2_tab[0];
	for (size_t k = 0; k < n; k++) {
		const char *nm = fam == CALC_310P ? gpr_310p_tab[k].name
		                                  : gpr_a2_tab[k].name;
		if (str_eq(name, nm)) {
			dstmask = fam == CALC_310P ? gpr_310p_tab[k].dst
			                           : gpr_a2_tab[k].dst;
			break;
		}
	}

	size_t i = 0, tok;
	unsigned reg;
	for (unsigned k = 0; next_token(fam, d, &i, &reg, &tok); k++) {
		if (dstmask == GPR_LD4 && k == 0) {
			/* The reference drops the first character of the
			 * token and names X<n>..X<n+3> after the rest, so
			 * "29" gives X9..X12 and a one-digit token gives no
			 * destination at all. */
			if (at_cls(d, tok + 1, is_dig)) {
				unsigned base = (unsigned)(d.p[tok + 1] - '0');
				for (unsigned j = 0; j < 4; j++)
					push_reg(out->dst, &out->ndst,
					         GPR_LD4_NAME | ((base + j) % 32));
			}
			continue;
		}
		if (dstmask > 0 && dstmask != GPR_LD4 && k < 8 && (dstmask >> k) & 1)
			push_reg(out->dst, &out->ndst, reg);
		else
			push_reg(out->src, &out->nsrc, reg);
	}
	return 0;
}

/* A5: R([a-z0-9]{1,2}):([0-9a-f]{1,2})\|R, a leading 'd' marks a
 * destination.  Each {1,2} is followed by a character its class excludes
 * (':' or '|'), so only a run of exactly 1 or 2 can match. */
static int gpr_a5(struct calc_str d, struct calc_regs *out)
{
	size_t i = 0;
	while (i < d.n) {
		if (d.p[i] != 'R') {
			i++;
			continue;
		}
		size_t l = run(d, i + 1, is_lalnum, 3);
		size_t nb = i + 2 + l;
		size_t h = run(d, nb, is_lhex, 3);
		if (l < 1 || l > 2 || !at(d, i + 1 + l, ':') || h < 1 || h > 2 ||
		    !at(d, nb + h, '|') || !at(d, nb + h + 1, 'R')) {
			i++;
			continue;
		}
		unsigned v = (unsigned)hexval(d.p[nb]);
		if (h == 2)
			v = (v << 4) | (unsigned)hexval(d.p[nb + 1]);
		if (h == 2 && d.p[nb] == '0')
			v |= GPR_LEADING_ZERO;
		if (d.p[i + 1] == 'd')
			push_reg(out->dst, &out->ndst, v);
		else
			push_reg(out->src, &out->nsrc, v);
		i = nb + h + 2;
	}
	return 0;
}

int calc_gpr_regs(enum calc_family fam, struct calc_str name,
                  struct calc_str detail, struct calc_regs *out)
{
	out->nsrc = out->ndst = 0;
	switch (fam) {
	case CALC_A2:
	case CALC_310P:
		return gpr_dec(fam, name, detail, out);
	case CALC_A5:
		return gpr_a5(detail, out);
	default:
		return -1;
	}
}

/* The reference decrements gpr[] over each register's dead gaps (from the
 * use before a redefinition, and from the last use to the end) one element
 * at a time, saturating at 0.  A register's gaps are disjoint and every
 * register in a gap at row k was already counted in gpr[k], so the
 * saturation never bites and a difference array gives the same counts in
 * O(n + registers). */
/* Row i's registers are regs[idx[i]], or regs[i] without idx. */
static int gpr_walk(const struct calc_regs *regs, const uint32_t *idx, size_t n, int *gpr)
{
	enum { NKEYS = 1 << 16 };
	size_t *last;
	long long *diff;
	int live = 0;

	if (n == 0)
		return 0;
	last = malloc(NKEYS * sizeof *last);
	diff = calloc(n + 1, sizeof *diff);
	if (!last || !diff) {
		free(last);
		free(diff);
		return -1;
	}
	for (size_t r = 0; r < NKEYS; r++)
		last[r] = NPOS;

	for (size_t i = 0; i < n; i++) {
		const struct calc_regs *rg = &regs[idx ? idx[i] : i];
		int ns = rg->nsrc < 0 ? 0 : rg->nsrc > CALC_MAX_REGS ? CALC_MAX_REGS : rg->nsrc;
		int nd = rg->ndst < 0 ? 0 : rg->ndst > CALC_MAX_REGS ? CALC_MAX_REGS : rg->ndst;
		for (int k = 0; k < ns; k++) {
			uint16_t r = rg->src[k];
			live += last[r] == NPOS;
			last[r] = i;
		}
		for (int k = 0; k < nd; k++) {
			uint16_t r = rg->dst[k];
			if (last[r] == NPOS) {
				live++;
			} else if (last[r] + 1 < i) {
				diff[last[r] + 1]--;
				diff[i]++;
			}
			last[r] = i;
		}
		gpr[i] = live;
	}
	for (size_t r = 0; r < NKEYS; r++)
		if (last[r] != NPOS && last[r] + 1 < n)
			diff[last[r] + 1]--;

	long long acc = 0;
	for (size_t i = 0; i < n; i++) {
		acc += diff[i];
		long long v = gpr[i] + acc;
		gpr[i] = v < 0 ? 0 : (int)v;
	}
	free(last);
	free(diff);
	return 0;
}

int calc_gpr_walk(const struct calc_regs *regs, size_t n, int *gpr)
{
	return gpr_walk(regs, NULL, n, gpr);
}

int calc_gpr_walk_idx(const struct calc_regs *regs, const uint32_t *idx, size_t n, int *gpr)
{
	return gpr_walk(regs, idx, n, gpr);
}
