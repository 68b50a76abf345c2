/* The record stream: one record per LF-terminated line (see optrace-records(5)).
 *
 * Binary encoding of a record, before escaping:
 *   kind byte, then the numeric fields of its kind in schema order
 *   (u32/i32 as 4 bytes, u64/i64/f64/hex as 8 bytes, little endian), then
 *   each text field as a 4-byte little-endian length and its bytes.
 * Escaping: every byte after the kind that is LF (0x0a) or ESC (0x1a) is
 * written as ESC followed by the byte XOR 0x40 ('J' or 'Z'), so a record
 * never holds an LF of its own and text stays greppable.
 * JSON encoding: one flat object per line, "kind" first, named fields. */
#ifndef OPTRACE_REC_H
#define OPTRACE_REC_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cli.h"
#include "io.h"

#define REC_VERSION 2

/* Numbers are read and written as the host stores them: the format is
 * little-endian, and so must the host be. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "optrace reads and writes its records on little-endian hosts only"
#endif
#define REC_ESC 0x1a
#define REC_MAXNUM 32
#define REC_MAXSTR 8
#define REC_NONE UINT64_MAX  /* "no value" of u64/hex fields (JSON null) */

/* RT_SUB, RT_LOG and RT_SYNC are u32 on the wire and names in JSON and text. */
enum rec_type { RT_U32, RT_I32, RT_U64, RT_I64, RT_F64, RT_HEX, RT_SUB, RT_LOG, RT_SYNC };

struct rec_schema {
	char kind;                 /* the first byte on the wire */
	const char *name;          /* JSON "kind" */
	int nnum, nstr;
	struct { const char *name; enum rec_type type; } num[REC_MAXNUM];
	const char *str[REC_MAXSTR];
};

/* Record kinds and the index of each field. */
enum { K_HEADER = 'H', K_TRAILER = 'T', K_SOURCE = 'F', K_LINE = 'L',
       K_INSTR = 'I', K_MARK = 'K', K_DIAG = 'D', K_MTEBW = 'W', K_FETCH = 'S',
       K_MTEXFER = 'X', K_CODE = 'C', K_LAUNCH = 'N', K_API = 'A',
       K_PMU = 'P', K_STAMP = 'U', K_L2 = 'G', K_BASIC = 'B' };

enum { H_VERSION, H_MHZ, H_NNUM };
enum { HS_PRODUCER, HS_SOC, HS_ORIGIN, HS_NSTR };
enum { T_RECORDS, T_BAD, T_DROPPED, T_INTERRUPTED, T_NNUM };
enum { TS_PRODUCER, TS_NSTR };
/* A core is (core number, sub-core type, sub-core index). */
enum rec_sub { SUB_NONE, SUB_VEC, SUB_CUBE, SUB_MIX };
enum rec_log { LOG_INSTR, LOG_POPPED, LOG_ICACHE, LOG_CCU, LOG_MTE, LOG_REG, LOG_OTHER, LOG_NKINDS };
enum { F_FILE, F_CORE, F_SUBTYPE, F_SUBIDX, F_LOG, F_PART, F_NNUM };
enum { FS_PATH, FS_NSTR };
enum { L_FILE, L_CORE, L_SUBTYPE, L_SUBIDX, L_LOG, L_LINE, L_NNUM };
enum { LS_TEXT, LS_NSTR };
/* An instruction.  A synchronisation instruction also carries what its
 * detail says, parsed once by instr-parse: I_SYNC (enum rec_sync), and the
 * texts IS_PROD (the pipe that sets the flag: PIPE / pipe_type), IS_CONS
 * (the pipe that waits: TRIGGERPIPE / tigger_pipe) and IS_FLAG (FLAGID /
 * event_id), as the log writes them; empty when the detail has none. */
enum { I_CORE, I_SUBTYPE, I_SUBIDX, I_BLOCK, I_SUBBLOCK, I_START, I_END, I_PC, I_ID,
       I_WARP, I_SCH, I_THREADS, I_GPR, I_BYTES, I_VECUTIL, I_UBREAD, I_UBWRITE,
       I_ICACHE, I_CCU, I_SYNC, I_NNUM };
enum { IS_PIPE, IS_NAME, IS_DETAIL, IS_PROD, IS_CONS, IS_FLAG, IS_NSTR };
/* What a synchronisation instruction is: SET_FLAG / set_event, WAIT_FLAG /
 * wait_event, SET_INTRA_BLOCK(I), WAIT_INTRA_BLOCK(I), BAR. */
enum rec_sync { SYNC_NONE, SYNC_SET, SYNC_WAIT, SYNC_SET_INTRA, SYNC_WAIT_INTRA, SYNC_BAR,
                SYNC_NKINDS };
enum { M_CORE, M_SUBTYPE, M_SUBIDX, M_BLOCK, M_SUBBLOCK, M_MARK, M_START, M_END,
       M_STARTPC, M_ENDPC, M_NNUM };
enum { MS_NAME, MS_DETAIL, MS_NSTR };
enum { D_LEVEL, D_COUNT, D_LINE, D_NNUM };
/* A scalar fetch block read by the icache (A2/A3 "lookup_tag is fetch req
 * addr" lines): four instructions from pc. */
enum { S_CORE, S_SUBTYPE, S_SUBIDX, S_TICK, S_PC, S_NNUM };
/* One MTE request of a transfer instruction (see optrace-sidelogs(5), MTE
 * LOG, Requests and directions). */
enum mte_path { MTE_GM_TO_UB, MTE_GM_TO_L1, MTE_UB_TO_GM, MTE_L1_TO_GM, MTE_GM_TO_OTHER,
                MTE_OTHER_TO_GM, MTE_UNKNOWN };
enum { X_CORE, X_INSTR_ID, X_REQ_ID, X_PATH, X_BYTES, X_TICK, X_NNUM };
/* MTE bandwidth of one 1-us bucket, MiB/s per path, in the column order of
 * optrace-sidelogs(5), MTE LOG, The bandwidth chart. */
enum { W_BUCKET, W_GM_TO_UB, W_GM_TO_L1, W_GM_TO_TOTAL, W_UB_TO_GM, W_L1_TO_GM, W_TOTAL_TO_GM,
       W_NNUM };
enum { DS_TOOL, DS_FILE, DS_MESSAGE, DS_NSTR };
/* The source of one pc (src-map): its inline stack, innermost first, as
 * "file:line" entries joined by LF; one letter per entry, 'u' user or 'l'
 * library (a toolkit path); the function of each entry, joined by LF. */
enum { C_PC, C_OFFSET, C_NNUM };
enum { CS_STACK, CS_KINDS, CS_FUNC, CS_NSTR };
/* A kernel launch seen by the preload library (inject/): process, thread,
 * launch index in the process, the <n> of its capture directory (-1 when
 * not captured), blockDim, tiling key, kernel start pc, monotonic ns of the
 * call and of the end of its stream synchronisation. */
enum { N_PID, N_TID, N_LAUNCH, N_ORDER, N_BLOCKDIM, N_TILINGKEY, N_PCSTART, N_BEGIN, N_END,
       N_NNUM };
enum { NS_NAME, NS_API, NS_SOC, NS_DIR, NS_NSTR };
/* A hijacked host API call: monotonic ns begin and end, its return value
 * and up to three key arguments (see optrace-records(5) per call). */
enum { A_PID, A_TID, A_BEGIN, A_END, A_RET, A_ARG0, A_ARG1, A_ARG2, A_NNUM };
enum { AS_NAME, AS_ARGS, AS_NSTR };

/* On-board records (dump-split of an on-board dump, see optrace-board(5)).
 * A block PMU sample: one record of DeviceProf<file>.bin (index: its record
 * number in the file), the sub-core (enum board_core: 0 cube, 1 vector),
 * the decoded ids, the cycles and system times, and each counter slot with
 * the event the replay programmed into it (0 = an empty slot). */
#define REC_PMU_SLOTS 10
enum { P_FILE, P_INDEX, P_CORE, P_COREID, P_BLOCK, P_SUBBLOCK, P_STREAM, P_TASK, P_CYCLES,
       P_START, P_END, P_NSLOTS, P_EVENT0, P_COUNT0 = P_EVENT0 + REC_PMU_SLOTS,
       P_NNUM = P_COUNT0 + REC_PMU_SLOTS };
/* A task stamp of duration.bin, its edge an enum board_stamp_kind (0 start, 1 end,
 * 2 other). */
enum { U_INDEX, U_EDGE, U_FUNC, U_TASKTYPE, U_STREAM, U_TASK, U_TIME, U_NNUM };
/* The counters of L2Cache.bin, each with its event. */
#define REC_L2_SLOTS 8
enum { G_EVENT0, G_COUNT0 = G_EVENT0 + REC_L2_SLOTS, G_NNUM = G_COUNT0 + REC_L2_SLOTS };
/* op_basic_info.txt: have is a mask of the keys present (REC_BASIC_*);
 * frequencies -1 when not an integer; the texts as written. */
enum { B_BLOCKDIM, B_DEVICE, B_CURFREQ, B_RATEDFREQ, B_MC2, B_LCCL, B_SIMT, B_HAVE, B_NNUM };
enum { BS_OPNAME, BS_SOC, BS_PID, BS_CURFREQ, BS_RATEDFREQ, BS_BLOCKDIM, BS_DEVICE, BS_NSTR };
enum { REC_BASIC_OPNAME = 1, REC_BASIC_BLOCKDIM = 2, REC_BASIC_SOC = 4, REC_BASIC_DEVICE = 8,
       REC_BASIC_PID = 16, REC_BASIC_CURFREQ = 32, REC_BASIC_RATEDFREQ = 64 };

struct rec_text {
	const char *p;
	size_t n;
};

union rec_num {
	uint64_t u;
	int64_t i;
	double f;
};

struct rec {
	const struct rec_schema *sc;
	union rec_num n[REC_MAXNUM];
	struct rec_text s[REC_MAXSTR];
};

const struct rec_schema *rec_schema(int kind);
const char *rec_log_name(int log);       /* "instr", "popped", ... */
int rec_log_parse(const char *s, size_t n); /* -1 if unknown */
const char *rec_sub_name(int subtype);   /* "", "veccore", "cubecore", "mixcore" */
/* "", "set", "wait", "set_intra", "wait_intra", "bar"; -1 if unknown. */
const char *rec_sync_name(int sync);
int rec_sync_parse(const char *s, size_t n);
/* "core0.veccore1" / "core3" into buf (at least 48 bytes). */
char *rec_core_name(char *buf, uint64_t core, uint64_t subtype, uint64_t subidx);

/* Start a record of a kind: every number 0 (REC_NONE for hex fields), every
 * text empty. */
void rec_init(struct rec *r, int kind);
static inline void rec_text_set(struct rec *r, int i, const char *p, size_t n)
{
	r->s[i].p = p;
	r->s[i].n = n;
}

/* Decoding.  Text fields point into the line or into the decoder's scratch
 * buffer; valid until the next decode with the same decoder. */
struct rec_dec {
	char *scratch;
	size_t cap;
};
enum { DEC_OK = 0, DEC_UNKNOWN = 1, DEC_BAD = -1 };
/* Returns DEC_OK, DEC_UNKNOWN (a kind this build does not know: pass the
 * line on untouched), or DEC_BAD (malformed; *why says what). */
int rec_decode(struct rec_dec *d, const char *line, size_t len, struct rec *r, const char **why);
void rec_dec_free(struct rec_dec *d);

/* Encoding into a writer in the given mode. */
void rec_put(struct wr *w, enum rec_mode mode, const struct rec *r);
/* Binary encoding into buf (needs rec_bin_size bytes); returns length incl. LF. */
size_t rec_bin_size(const struct rec *r);
size_t rec_bin_encode(char *buf, const struct rec *r);

/* The standard output side of a tool that writes records. */
struct rec_out {
	struct wr *w;
	enum rec_mode mode;
	uint64_t records;        /* records written, excluding header/trailer */
	const char *producer;
};
void rec_out_header(struct rec_out *o, const char *soc, unsigned mhz, const char *origin);
void rec_out_put(struct rec_out *o, const struct rec *r);
/* Pass an undecodable-but-not-bad line (unknown kind) through verbatim. */
void rec_out_raw(struct rec_out *o, const char *line, size_t len);
void rec_out_trailer(struct rec_out *o, uint64_t bad, uint64_t dropped, int interrupted);

/* ---- binary records where they lie ----
 *
 * A tool that changes a few numbers of most records, or reads a few and
 * passes the records on, need not decode and re-encode them: it reads the
 * input in blocks of whole records (rec_block), looks at a binary record in
 * the block (rec_view: its numbers at the offsets the schema gives, its
 * texts), writes the records it leaves alone as runs of the block, and
 * patches numbers in place.  Anything the view does not cover (JSON, a
 * kind other than the one asked for, a record that does not add up, more
 * escapes than the view holds) is left to rec_decode: whether the fast
 * path applies depends on the input only. */

/* Where each number of a kind lies in its binary encoding before escaping,
 * counted from the kind byte (the first number is at 1), worked out from
 * the schema on first use; off[nnum] is where the texts begin. */
struct rec_layout {
	const struct rec_schema *sc;
	uint32_t off[REC_MAXNUM + 1];
	unsigned char w[REC_MAXNUM];    /* 4 or 8 */
	/* The schema's, at hand for the view: its kind byte, where its texts
	 * begin (off[nnum]) and how many there are. */
	char kind;
	uint32_t texts;
	int nstr;
};
/* NULL for a kind this build does not know. */
const struct rec_layout *rec_layout(int kind);

#define REC_VIEW_ESC 32             /* escapes a view holds */
#define REC_VIEW_BUF 1024           /* longest record a view unescapes */

/* One binary record, looked at where it lies.  "Raw" offsets count the
 * bytes of the record before escaping. */
struct rec_view {
	const struct rec_layout *lay;
	const char *line;
	size_t len, nesc;
	size_t esc[REC_VIEW_ESC];       /* raw offset of each escaped byte, ascending */
	const char *raw;                /* the record unescaped (line itself, or buf); NULL: not at hand */
	size_t text_at[REC_MAXSTR];     /* raw offset and length of each text */
	size_t text_n[REC_MAXSTR];
	char buf[REC_VIEW_BUF + 16];
};

/* View line[0, len) (without its LF) as a record of layout lay.  With
 * unescape, a record with escapes and at most REC_VIEW_BUF bytes is
 * unescaped into the view's buffer, so that its numbers are plain loads.
 * Returns 1 when the line is a well-formed record of that kind with at
 * most REC_VIEW_ESC escapes, else 0 (decode it instead). */
int rec_view(struct rec_view *v, const struct rec_layout *lay, const char *line, size_t len, int unescape);

/* The bits of a number field as they are on the wire (u32 kinds zero
 * extended; an i32 is not sign extended). */
uint64_t rec_view_get(const struct rec_view *v, size_t raw_off, size_t w);
static inline uint64_t rec_view_num(const struct rec_view *v, int field)
{
	size_t r = v->lay->off[field];
	if (v->raw) {
		uint64_t x = 0;
		uint32_t y;
		if (v->lay->w[field] == 8) {
			memcpy(&x, v->raw + r, 8);     /* little endian, as the format */
			return x;
		}
		memcpy(&y, v->raw + r, 4);
		return y;
	}
	return rec_view_get(v, r, v->lay->w[field]);
}

/* Text i in one piece: 1 and *p, *n (valid while the line and the view
 * are); 0 when it holds an escape and the view did not unescape. */
int rec_view_text_esc(const struct rec_view *v, int i, const char **p, size_t *n);
static inline int rec_view_text(const struct rec_view *v, int i, const char **p, size_t *n)
{
	if (v->raw) {
		*p = v->raw + v->text_at[i];
		*n = v->text_n[i];
		return 1;
	}
	return rec_view_text_esc(v, i, p, n);
}
/* Text i is s (compared through escapes too). */
int rec_view_text_is_esc(const struct rec_view *v, int i, const char *s, size_t n);
static inline int rec_view_text_is(const struct rec_view *v, int i, const char *s, size_t n)
{
	if (v->text_n[i] != n)
		return 0;
	if (v->raw)
		return !memcmp(v->raw + v->text_at[i], s, n);
	return rec_view_text_is_esc(v, i, s, n);
}

/* New values for the numbers first .. first + n - 1 of the viewed record:
 * their encoding, escaped, into out (room for REC_PATCH_MAX bytes), and
 * the bytes [*from, *to) of the line it replaces; returns its length.
 * When that is *to - *from, the bytes may be copied over the line in place
 * (the view then no longer describes the line). */
#define REC_PATCH_MAX (16 * REC_MAXNUM + 8)
size_t rec_view_patch(const struct rec_view *v, int first, int n, const uint64_t *vals, char *out,
                      size_t *from, size_t *to);

/* The input in blocks of whole records.  The records of a block are
 * handed out in order; those the tool leaves alone are written to w as
 * they came, in runs (one write per run, not per record); a record the
 * tool takes out of the run (rec_block_take) it writes itself, or drops. */
struct rec_block {
	struct rd *in;
	struct wr *w;
	char *buf;                  /* cap bytes and 64 of slack */
	size_t cap, have;           /* have: bytes at buf carried into the next read */
	uint64_t *map;              /* bit j of word i: byte 64 i + j is an LF or an ESC */
	size_t nw, wi;
	uint64_t cur;               /* the bits of map[wi] not handed out yet */
	char *p, *end;              /* the next record; the end of the block's bytes */
	const char *run;            /* the first byte of the run not written yet */
	int open;                   /* a block is being handed out */
	uint64_t lineno;            /* of the current record, from 1 per input */
	/* The current record: its bytes without the LF, and its first ESC
	 * after the kind byte (NULL: none). */
	char *line;
	size_t len;
	const char *esc;
};

/* Blocks of 128 KiB, which stay in the cache between their read, their
 * scan and their write.  The block's runs go to w. */
void rec_block_init(struct rec_block *b, struct wr *w);
/* Read from in (from its first line). */
void rec_block_start(struct rec_block *b, struct rd *in);
/* The next block: 1, or 0 at the end of the input or after a read error
 * (rd_error).  A last line without LF counts at the end of the input,
 * not after a read error.  What is left of the block before is written. */
int rec_block_read(struct rec_block *b);
/* The block's records are used up: write the run, keep a cut record. */
void rec_block_end(struct rec_block *b);
/* Where a walk over a block's records is: the next record, the map bits
 * not handed out yet and their word.  A loop that keeps its own (a local
 * that never escapes stays in registers across the hooks it calls) hands
 * it back with rec_block_put before rec_block_end or rec_block_read. */
struct rec_block_at {
	char *p;
	uint64_t cur;
	size_t wi;
};

static inline struct rec_block_at rec_block_get(const struct rec_block *b)
{
	struct rec_block_at a = { b->p, b->cur, b->wi };
	return a;
}

static inline void rec_block_put(struct rec_block *b, struct rec_block_at a)
{
	b->p = a.p;
	b->cur = a.cur;
	b->wi = a.wi;
}

/* The next record from a into b->line, b->len, b->esc: 1, or 0 when the
 * block's map is used up (a then at its end). */
static inline int rec_block_step(struct rec_block *b, struct rec_block_at *a)
{
	const char *esc = NULL;
	char *nl;
	for (;;) {
		while (!a->cur) {
			if (++a->wi >= b->nw)
				return 0;
			a->cur = b->map[a->wi];
		}
		nl = b->buf + (a->wi << 6) + __builtin_ctzll(a->cur);
		a->cur &= a->cur - 1;
		if (*nl == '\n')
			break;
		if (!esc && nl > a->p)
			esc = nl;
	}
	b->line = a->p;
	b->len = (size_t)(nl - a->p);
	b->esc = esc;
	b->lineno++;
	a->p = nl + 1;
	return 1;
}

/* The next record of the block into b->line, b->len, b->esc: 1, or 0 when
 * the block is used up (its last run then written). */
static inline int rec_block_next(struct rec_block *b)
{
	struct rec_block_at a = rec_block_get(b);
	int got = rec_block_step(b, &a);
	rec_block_put(b, a);
	if (!got)
		rec_block_end(b);
	return got;
}
/* The current record leaves the run: what comes before it is written. */
void rec_block_take(struct rec_block *b);
/* View the current record (rec_view, with the block's map for its
 * escapes).  Inline for the common record without escapes, whose texts
 * are checked here. */
int rec_block_view_esc(const struct rec_block *b, struct rec_view *v, const struct rec_layout *lay, int unescape);
static inline int rec_block_view(const struct rec_block *b, struct rec_view *v, const struct rec_layout *lay,
                                 int unescape)
{
	size_t pos = lay->texts, len = b->len;
	int i, nstr = lay->nstr;

	if (b->esc)
		return rec_block_view_esc(b, v, lay, unescape);
	v->lay = lay;
	v->line = v->raw = b->line;
	v->len = len;
	v->nesc = 0;
	if (len < pos || b->line[0] != lay->kind)
		return 0;
	for (i = 0; i < nstr; i++) {
		uint32_t k;
		if (len - pos == 4 * (size_t)(nstr - i)) {
			/* Room for the lengths only: the rest are empty texts (the
			 * sync texts of most instructions), read side by side
			 * rather than one length after the other. */
			uint32_t any = 0;
			for (; i < nstr; i++, pos += 4) {
				memcpy(&k, b->line + pos, 4);
				any |= k;
				v->text_at[i] = pos + 4;
				v->text_n[i] = 0;
			}
			return !any;
		}
		if (len - pos < 4)
			return 0;
		memcpy(&k, b->line + pos, 4);
		if (k > len - pos - 4)
			return 0;
		v->text_at[i] = pos + 4;
		v->text_n[i] = k;
		pos += 4 + (size_t)k;
	}
	return pos == len;
}
/* Patch the numbers first .. first + n - 1 of the current record, viewed
 * in v: in place when their escaped width is unchanged, else the run is
 * cut around them and the new bytes written between.  Inline for a record
 * without escapes and values that need none. */
void rec_block_patch_esc(struct rec_block *b, const struct rec_view *v, int first, int n, const uint64_t *vals);
static inline int rec_needs_esc(uint64_t x)
{
	uint64_t l = x ^ 0x0a0a0a0a0a0a0a0aull, e = x ^ 0x1a1a1a1a1a1a1a1aull;
	return (((l - 0x0101010101010101ull) & ~l) | ((e - 0x0101010101010101ull) & ~e)) &
	       0x8080808080808080ull ? 1 : 0;
}
static inline void rec_block_patch(struct rec_block *b, const struct rec_view *v, int first, int n,
                                   const uint64_t *vals)
{
	const struct rec_layout *l = v->lay;
	int i;
	if (!v->nesc) {
		for (i = 0; i < n; i++)
			if (rec_needs_esc(l->w[first + i] == 8 ? vals[i] : vals[i] & 0xffffffffu))
				break;
		if (i == n) {
			for (i = 0; i < n; i++) {
				char *at = b->line + l->off[first + i];
				if (l->w[first + i] == 8) {
					memcpy(at, &vals[i], 8);
				} else {
					uint32_t y = (uint32_t)vals[i];
					memcpy(at, &y, 4);
				}
			}
			return;
		}
	}
	rec_block_patch_esc(b, v, first, n, vals);
}
void rec_block_free(struct rec_block *b);

#endif
