/* gen-dump: write a synthetic camodel simulator dump directory, as input for
 * benchmarks.
 *
 * The lines follow the real CANN camodel formats (see optrace-dumps(5), THE
 * DUMP DIRECTORY, LINE GRAMMAR, PAIRING; fixtures dump/910B and
 * dump/91095).  Each vector sub-core runs the same small double-buffered
 * "z = (x + y) * y" kernel through a pipeline timing model: in-order
 * scalar issue, one queue per pipe (MTE2, MTE3, VEC) with latencies,
 * SET_FLAG/WAIT_FLAG dependencies, a TRACE_START/STOP mark pair, and rare
 * multi-line (micro-op) executions.
 * The popped log gets the issue tick, the exec log the completion tick;
 * exec lines are held in a small heap so that both files come out in tick
 * order, as the simulator writes them.
 *
 * Output is a pure function of the arguments (fixed-seed PRNG).  Speed
 * matters (benchmarks want gigabytes): lines are assembled from
 * precomputed per-PC text with hand-written number formatting and written
 * in large blocks. */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PROG "gen-dump"
#define MIB 1048576.0
#define OUTBUF (1u << 20)
#define LINEMAX 512        /* longest line we format is ~220 bytes */
#define QMAX 512           /* cycles of backlog a pipe queue holds before issue stalls */
#define UOP_ONE_IN 200     /* one instruction in N has 2-3 exec (micro-op) lines */

enum { EXIT_USAGE = 2, EXIT_IO = 4 };

static void die(int status, const char *fmt, ...)
{
	va_list ap;
	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(status);
}

/* ---- number formatting ------------------------------------------------ */

static char *put_dec_pad(char *p, uint64_t v, int width)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

static char *put_hex(char *p, uint64_t v, int width)
{
	static const char dig[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;
	do {
		tmp[n++] = dig[v & 15];
		v >>= 4;
	} while (v);
	while (n < width)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* Register values as the simulator prints them: 0 bare, others 0x-hex. */
static char *put_val(char *p, uint64_t v)
{
	if (!v) {
		*p++ = '0';
		return p;
	}
	*p++ = '0';
	*p++ = 'x';
	return put_hex(p, v, 1);
}

/* ---- PRNG (splitmix64 seeding, xorshift64* stream) -------------------- */

static uint64_t splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t rnd(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

static unsigned rnd_in(uint64_t *s, unsigned lo, unsigned hi)
{
	return lo + (unsigned)((rnd(s) >> 33) % (hi - lo + 1));
}

/* ---- output files with spdlog-style rotation -------------------------- */

struct out {
	char *base;           /* "DIR/core0.veccore0.instr_log" (".dump" appended) */
	int fd;
	char *buf;
	size_t len;
	uint64_t cur;         /* bytes in the current file, buffered included */
	uint64_t limit;       /* rotate before a line would exceed this; 0 = never */
	unsigned nrot;        /* rotated files X.1.dump .. X.nrot.dump exist */
	unsigned nfiles;      /* files created, for -v */
};

static char *rot_name(const struct out *o, unsigned i)
{
	size_t n = strlen(o->base) + 32;
	char *s = malloc(n);
	if (!s)
		die(EXIT_IO, "out of memory");
	if (i)
		snprintf(s, n, "%s.%u.dump", o->base, i);
	else
		snprintf(s, n, "%s.dump", o->base);
	return s;
}

static void out_open_base(struct out *o)
{
	char *name = rot_name(o, 0);
	o->fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (o->fd < 0)
		die(EXIT_IO, "%s: %s", name, strerror(errno));
	free(name);
	o->cur = 0;
	o->nfiles++;
}

static void out_flush(struct out *o)
{
	const char *p = o->buf;
	size_t n = o->len;
	while (n) {
		ssize_t w = write(o->fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			die(EXIT_IO, "%s.dump: write: %s", o->base, strerror(errno));
		}
		p += w;
		n -= (size_t)w;
	}
	o->len = 0;
}

static void out_init(struct out *o, const char *dir, const char *stem, uint64_t limit)
{
	size_t n = strlen(dir) + strlen(stem) + 2;
	memset(o, 0, sizeof *o);
	o->base = malloc(n);
	o->buf = malloc(OUTBUF);
	if (!o->base || !o->buf)
		die(EXIT_IO, "out of memory");
	snprintf(o->base, n, "%s/%s", dir, stem);
	o->limit = limit;
	/* Remove what an earlier run left: readers take X.1, X.2, ... up to the
	 * first missing index, so stale rotated files would be read as ours. */
	for (unsigned i = 1;; i++) {
		char *name = rot_name(o, i);
		int gone = unlink(name) == 0;
		free(name);
		if (!gone)
			break;
	}
	out_open_base(o);
}

/* spdlog rotating_file_sink: X.i -> X.(i+1) from the top down, X -> X.1,
 * new X.  The newest data is always in the un-numbered file. */
static void out_rotate(struct out *o)
{
	out_flush(o);
	if (close(o->fd) < 0)
		die(EXIT_IO, "%s.dump: close: %s", o->base, strerror(errno));
	for (unsigned i = o->nrot + 1; i >= 1; i--) {
		char *from = rot_name(o, i - 1), *to = rot_name(o, i);
		if (rename(from, to) < 0)
			die(EXIT_IO, "rename %s: %s", from, strerror(errno));
		free(from);
		free(to);
	}
	o->nrot++;
	out_open_base(o);
}

static void out_write(struct out *o, const char *line, size_t n)
{
	if (o->limit && o->cur + n > o->limit && o->cur > 0)
		out_rotate(o);
	if (o->len + n > OUTBUF)
		out_flush(o);
	memcpy(o->buf + o->len, line, n);
	o->len += n;
	o->cur += n;
}

static void out_close(struct out *o)
{
	out_flush(o);
	if (close(o->fd) < 0)
		die(EXIT_IO, "%s.dump: close: %s", o->base, strerror(errno));
	free(o->base);
	free(o->buf);
}

/* ---- the kernel ------------------------------------------------------- */

enum { P_S, P_MTE2, P_MTE3, P_VEC, NPIPE };
static const char *const pipe_col[NPIPE] = { "SCALAR   ", "MTE2     ", "MTE3     ", "VEC      " };
static const char *const pipe_word[NPIPE] = { "SCALAR", "MTE2", "MTE3", "VEC" };

enum kind {
	K_S,      /* scalar: completes lat cycles after issue, in order */
	K_P,      /* queued on a pipe, serialised there */
	K_SET,    /* SET_FLAG on the producing pipe */
	K_WAIT,   /* WAIT_FLAG on the waiting pipe: blocks it until the SET is done */
	K_BAR,    /* BAR on a pipe */
	K_MARK,   /* TRACE_START/STOP: waits for all pipes (pipe_barrier(PIPE_ALL)) */
	K_NOP     /* NOP_PIPE after a mark: exec log only */
};

/* Where the dynamic register values of a detail ('%' slots) come from. */
enum vf {
	V_NONE, V_BLK, V_SUB, V_LD, V_BLKOFF, V_BASE, V_BOUND, V_ADDR, V_MTEIN,
	V_MTEOUT, V_OFFINC, V_SPILL, V_CNT, V_CMP, V_JMP, V_PADSET, V_PADBOUND,
	V_PADST, V_PADINC, V_PADCNT, V_PADCMP, V_PADJMP,
	/* --unique: values that change on every execution */
	V_FLAG, V_UMTEIN, V_UMTEOUT, V_UMASK, V_UVBIN, V_UVUN, V_UVRED, V_UJMP
};

#define TILE 0x2000u       /* bytes per tile: 2048 F32, XM 0x1000010 = 256 bursts of 32 B */
#define MAXVAL 4
#define MAXSEG (MAXVAL + 1)

struct ins {
	unsigned char pipe, kind, vf, arg;
	unsigned char fsrc, fdst, fid;     /* SET/WAIT: PIPE:fsrc, TRIGGER PIPE:fdst, FLAG ID:fid */
	unsigned short lo, hi;             /* latency range, cycles */
	uint64_t pc;
	char head[80];                     /* "] (PC: 0x..) PIPE     : (Binary: 0x........) " */
	char name2[40];                    /* "NAME  " (or "NAME" when there is no detail) */
	char tmpl[176];                    /* detail, '%' = dynamic value */
	unsigned headlen, name2len, nseg;
	unsigned decmask;                  /* slots printed in decimal (FLAG ID, Pos) */
	unsigned short segoff[MAXSEG], seglen[MAXSEG];
};

struct prog {
	struct ins *v;
	unsigned n, cap;
	unsigned body0, body1, pad0, pad1, epi0;   /* [body0, body1), [pad0, pad1), [epi0, n) */
	uint64_t pcbase;
	int a5, unique;
};

static uint32_t hash32(const char *s, uint64_t x)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 0x100000001b3ULL;
	h ^= x;
	return (uint32_t)splitmix(&h);
}

static struct ins *add(struct prog *pg, int pipe, int kind, int vf, int arg,
                       unsigned lo, unsigned hi, uint32_t bin, const char *name,
                       const char *fmt, ...)
{
	struct ins *in;
	char *p;
	va_list ap;

	if (pg->n == pg->cap) {
		pg->cap = pg->cap ? 2 * pg->cap : 64;
		pg->v = realloc(pg->v, pg->cap * sizeof *pg->v);
		if (!pg->v)
			die(EXIT_IO, "out of memory");
	}
	in = &pg->v[pg->n];
	memset(in, 0, sizeof *in);
	in->pipe = (unsigned char)pipe;
	in->kind = (unsigned char)kind;
	in->vf = (unsigned char)vf;
	in->arg = (unsigned char)arg;
	in->lo = (unsigned short)lo;
	in->hi = (unsigned short)(hi < lo ? lo : hi);
	in->pc = pg->pcbase + 4ull * pg->n;
	pg->n++;

	if (!bin) {
		/* Stable per PC: an opcode byte from the name, the rest from the PC. */
		uint32_t h = hash32(name, 0);
		bin = ((h >> 24) & 0x0f) << 24 | (hash32(name, in->pc) & 0x00ffffff);
	}
	p = in->head;
	p += sprintf(p, "] (PC: 0x");
	p = put_hex(p, in->pc, 1);
	p += sprintf(p, ") %s: (Binary: 0x", pipe_col[pipe]);
	p = put_hex(p, bin, 8);
	p += sprintf(p, ") ");
	in->headlen = (unsigned)(p - in->head);

	va_start(ap, fmt);
	vsnprintf(in->tmpl, sizeof in->tmpl - 2, fmt, ap);
	va_end(ap);
	size_t tl = strlen(in->tmpl);
	/* A5 lines end in ", " (see the 91095 fixture). */
	if (pg->a5 && tl && in->tmpl[tl - 1] == ',')
		in->tmpl[tl++] = ' ', in->tmpl[tl] = 0;
	snprintf(in->name2, sizeof in->name2, tl ? "%s  " : "%s", name);
	in->name2len = (unsigned)strlen(in->name2);

	unsigned start = 0;
	for (unsigned i = 0;; i++) {
		if (in->tmpl[i] == '%' || !in->tmpl[i]) {
			if (in->nseg == MAXSEG)
				die(EXIT_IO, "internal: too many values in '%s'", name);
			in->segoff[in->nseg] = (unsigned short)start;
			in->seglen[in->nseg] = (unsigned short)(i - start);
			in->nseg++;
			start = i + 1;
			if (!in->tmpl[i])
				break;
		}
	}
	return in;
}

static void add_flag(struct prog *pg, int kind, int src, int dst, int id)
{
	uint32_t bin = (kind == K_SET ? 0x40a00000u : 0x40c00000u)
	               | (hash32("flag", pg->pcbase + 4ull * pg->n) & 0xfff0u) | (unsigned)id;
	struct ins *in;
	if (pg->unique) {
		/* The id printed is the buffer's plus twice the pair's count
		 * mod 8 (the k-th WAIT of a queue prints its k-th SET's id). */
		in = add(pg, kind == K_SET ? src : dst, kind, V_FLAG, 0, 1, 1, bin,
		         kind == K_SET ? "SET_FLAG" : "WAIT_FLAG", "PIPE:%s, TRIGGER PIPE:%s, FLAG ID:%%,",
		         pipe_word[src], pipe_word[dst]);
		in->decmask = 1;
	} else {
		in = add(pg, kind == K_SET ? src : dst, kind, V_NONE, 0, 1, 1, bin,
		         kind == K_SET ? "SET_FLAG" : "WAIT_FLAG", "PIPE:%s, TRIGGER PIPE:%s, FLAG ID:%d,",
		         pipe_word[src], pipe_word[dst], id);
	}
	in->fsrc = (unsigned char)src;
	in->fdst = (unsigned char)dst;
	in->fid = (unsigned char)id;
}

static void add_mark(struct prog *pg, int start)
{
	add(pg, P_S, K_MARK, V_NONE, 0, 1, 1, start ? 0x02106900u : 0x02103900u, "MOV_SPR_XN",
	    start ? "SPR:LPCNT, XN:X6=0x80000001," : "SPR:LPCNT, XN:X3=0xc0000001,");
	add(pg, P_MTE2, K_NOP, V_NONE, 0, 1, 1, 0x41001000u, "NOP_PIPE", "");
	add(pg, P_MTE3, K_NOP, V_NONE, 0, 1, 1, 0x41001400u, "NOP_PIPE", "");
	add(pg, P_VEC, K_NOP, V_NONE, 0, 1, 1, 0x41000400u, "NOP_PIPE", "");
}

static const char *const S64 = "dtype:S64, ";

/* The loop body of --unique: the same dataflow as the usual body, every
 * operand a register value that changes on every execution (UB addresses
 * and burst, mask, repeat and stride fields drawn at random, GM addresses
 * advancing), and more vector instructions (binary, unary, reduce). */
static void body_unique(struct prog *pg)
{
	for (int b = 0; b < 2; b++) {
		add(pg, P_S, K_S, V_ADDR, 0, 1, 1, 0, "ADD", "%sXD:X10=%%, XN:X1=%%, XM:X22=%%,", S64);
		add(pg, P_S, K_S, V_ADDR, 1, 1, 1, 0, "ADD", "%sXD:X12=%%, XN:X2=%%, XM:X22=%%,", S64);
		add_flag(pg, K_WAIT, P_VEC, P_MTE2, b);
		add(pg, P_MTE2, K_P, V_UMTEIN, 0, 180, 420, 0, "MOV_OUT_TO_UB",
		    "Src:OUT, Dst:UB, XD:X9=%%, XN:X10=%%, XM:X3=%%,");
		add(pg, P_MTE2, K_P, V_UMTEIN, 1, 180, 420, 0, "MOV_OUT_TO_UB",
		    "Src:OUT, Dst:UB, XD:X8=%%, XN:X12=%%, XM:X3=%%,");
		add_flag(pg, K_SET, P_MTE2, P_VEC, b);
		add_flag(pg, K_WAIT, P_MTE2, P_VEC, b);
		add_flag(pg, K_WAIT, P_MTE3, P_VEC, b);
		add(pg, P_VEC, K_P, V_UMASK, 0, 1, 2, 0, "MOVEMASK", "XN:X5=%%, Pos:0,");
		add(pg, P_VEC, K_P, V_UMASK, 0, 1, 2, 0, "MOVEMASK", "XN:X6=%%, Pos:1,");
		add(pg, P_VEC, K_P, V_UVBIN, 0, 24, 40, 0, "VADD",
		    "XD:X1=%%, XN:X2=%%, XM:X3=%%, XT:X4=%%, Dtype:F32,");
		add(pg, P_VEC, K_P, V_UVBIN, 0, 28, 48, 0, "VMUL",
		    "XD:X1=%%, XN:X1=%%, XM:X3=%%, XT:X4=%%, Dtype:F32,");
		add(pg, P_VEC, K_P, V_UVUN, 0, 12, 30, 0, "VRELU", "XD:X7=%%, XN:X1=%%, XT:X28=%%, Dtype:F16,");
		add(pg, P_VEC, K_P, V_UVRED, 0, 20, 36, 0, "VCADD", "XD:X9=%%, XN:X7=%%, XT:X11=%%, Dtype:F32,");
		add_flag(pg, K_SET, P_VEC, P_MTE2, b);
		add_flag(pg, K_SET, P_VEC, P_MTE3, b);
		add(pg, P_S, K_S, V_ADDR, 2, 1, 1, 0, "ADD", "%sXD:X13=%%, XN:X3=%%, XM:X22=%%,", S64);
		add_flag(pg, K_WAIT, P_VEC, P_MTE3, b);
		add(pg, P_MTE3, K_P, V_UMTEOUT, 0, 120, 320, 0, "MOV_UB_TO_OUT",
		    "Src:UB, Dst:OUT, XD:X13=%%, XN:X9=%%, XM:X3=%%,");
		add_flag(pg, K_SET, P_MTE3, P_VEC, b);
		add(pg, P_S, K_S, V_OFFINC, 0, 1, 1, 0, "ADD_IMM", "%sXD:X22=%%, XN:X22=%%, IMM:0x%x,", S64, TILE);
		add(pg, P_S, K_S, V_SPILL, 0, 1, 2, 0, "ST_XD_XN_IMM", "dtype:B64, XD:X22=%%, XN:X29=0x107f80, IMM:0x10,");
	}
}

static void build(struct prog *pg, int a5, int unique)
{
	memset(pg, 0, sizeof *pg);
	pg->a5 = a5;
	pg->unique = unique;
	pg->pcbase = a5 ? 0x11bbe000ULL : 0x10f86000ULL;

	/* Prologue: stack pointer, block ids, kernel arguments, init flags. */
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0x073a7f80u, "MOV_XD_IMM", "XD:X29=0x7f80, IMM:0x7f80,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0x077b0010u, "MOVK", "XD:X29=0x107f80, IMM:0x10, UIMM:0x1,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0x029e3880u, "MOV_XD_SPR", "XD:X15=0, SPR:SYS_VA_BASE,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0x003bd781u, "ADD", "%sXD:X29=0x107f80, XN:X29=0x107f80, XM:X15=0,", S64);
	add(pg, P_S, K_S, V_BLK, 0, 1, 1, 0x02161880u, "MOV_XD_SPR", "XD:X11=%%, SPR:BLOCKID,");
	add(pg, P_S, K_S, V_SUB, 0, 1, 1, 0x02dc0880u, "MOV_XD_SPR", "XD:X14=%%, SPR:SUBBLOCKID,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0x02004880u, "MOV_XD_SPR", "XD:X0=0x106b8000, SPR:PARA_BASE,");
	for (int a = 0; a < 3; a++)
		add(pg, P_S, K_S, V_LD, a, 2, 6, 0, "LD_XD_XN_IMM",
		    "dtype:B64, XD:X%d=%%, XN:X0=0x106b8000, IMM:%s%x,", 1 + a, a ? "0x" : "", 8 * a);
	add(pg, P_S, K_S, V_BLKOFF, 0, 2, 3, 0, "MUL_IMM", "%sXD:X7=%%, XN:X11=%%, IMM:0x2,", S64);
	add(pg, P_S, K_S, V_BLKOFF, 1, 1, 1, 0, "ADD", "%sXD:X7=%%, XN:X7=%%, XM:X14=%%,", S64);
	add(pg, P_S, K_S, V_BLKOFF, 2, 2, 3, 0, "SHL", "dtype:B64, XD:X7=%%, DATA_SRC:IMM, IMM:0x1a,");
	for (int a = 0; a < 3; a++)
		add(pg, P_S, K_S, V_BASE, a, 1, 1, 0, "ADD", "%sXD:X%d=%%, XN:X%d=%%, XM:X7=%%,", S64, 1 + a, 1 + a);
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "MOV_XD_IMM", "XD:X20=0, IMM:0,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "MOV_XD_IMM", "XD:X22=0, IMM:0,");
	add(pg, P_S, K_S, V_BOUND, 0, 1, 1, 0, "MOV_XD_IMM", "XD:X21=%%, IMM:%%,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "MOV_XD_IMM", "XD:X3=0x10, IMM:0x10,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "MOVK", "XD:X3=0x1000010, IMM:0x100, UIMM:0x1,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "MOV_XD_IMM", "XD:X5=0xffff, IMM:0xffff,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "MOVK", "XD:X5=0xffffffffffffffff, IMM:0xffff, UIMM:0x3,");
	for (int b = 0; b < 2; b++)
		add_flag(pg, K_SET, P_VEC, P_MTE2, b);
	for (int b = 0; b < 2; b++)
		add_flag(pg, K_SET, P_MTE3, P_VEC, b);
	add_mark(pg, 1);

	/* Loop body: two tiles (double buffer, flag ids 0 and 1). */
	pg->body0 = pg->n;
	if (unique)
		body_unique(pg);
	for (int b = 0; b < 2 && !unique; b++) {
		unsigned ubx = (unsigned)b * TILE, uby = 0x4000 + (unsigned)b * TILE, ubz = 0x8000 + (unsigned)b * TILE;
		add(pg, P_S, K_S, V_ADDR, 0, 1, 1, 0, "ADD", "%sXD:X10=%%, XN:X1=%%, XM:X22=%%,", S64);
		add(pg, P_S, K_S, V_ADDR, 1, 1, 1, 0, "ADD", "%sXD:X12=%%, XN:X2=%%, XM:X22=%%,", S64);
		add_flag(pg, K_WAIT, P_VEC, P_MTE2, b);
		add(pg, P_MTE2, K_P, V_MTEIN, 0, 180, 420, 0, "MOV_OUT_TO_UB",
		    "Src:OUT, Dst:UB, XD:X9=%s%x, XN:X10=%%, XM:X3=0x1000010,", ubx ? "0x" : "", ubx);
		add(pg, P_MTE2, K_P, V_MTEIN, 1, 180, 420, 0, "MOV_OUT_TO_UB",
		    "Src:OUT, Dst:UB, XD:X9=0x%x, XN:X12=%%, XM:X3=0x1000010,", uby);
		add_flag(pg, K_SET, P_MTE2, P_VEC, b);
		add_flag(pg, K_WAIT, P_MTE2, P_VEC, b);
		add_flag(pg, K_WAIT, P_MTE3, P_VEC, b);
		add(pg, P_VEC, K_P, V_NONE, 0, 1, 2, 0, "MOVEMASK", "XN:X5=0xffffffffffffffff, Pos:0,");
		add(pg, P_VEC, K_P, V_NONE, 0, 1, 2, 0, "MOVEMASK", "XN:X5=0xffffffffffffffff, Pos:1,");
		add(pg, P_VEC, K_P, V_NONE, 0, 24, 40, 0, "VADD",
		    "XD:X1=0x%x, XN:X2=%s%x, XM:X3=0x%x, XT:X4=0x100000808010101, Dtype:F32,",
		    ubz, ubx ? "0x" : "", ubx, uby);
		add(pg, P_VEC, K_BAR, V_NONE, 0, 1, 1, 0x40e00400u, "BAR", "PIPE:VEC");
		add(pg, P_VEC, K_P, V_NONE, 0, 28, 48, 0, "VMUL",
		    "XD:X1=0x%x, XN:X1=0x%x, XM:X3=0x%x, XT:X4=0x100000808010101, Dtype:F32,",
		    ubz, ubz, uby);
		add_flag(pg, K_SET, P_VEC, P_MTE2, b);
		add_flag(pg, K_SET, P_VEC, P_MTE3, b);
		add(pg, P_S, K_S, V_ADDR, 2, 1, 1, 0, "ADD", "%sXD:X13=%%, XN:X3=%%, XM:X22=%%,", S64);
		add_flag(pg, K_WAIT, P_VEC, P_MTE3, b);
		add(pg, P_MTE3, K_P, V_MTEOUT, 0, 120, 320, 0, "MOV_UB_TO_OUT",
		    "Src:UB, Dst:OUT, XD:X13=%%, XN:X1=0x%x, XM:X3=0x1000010,", ubz);
		add_flag(pg, K_SET, P_MTE3, P_VEC, b);
		add(pg, P_S, K_S, V_OFFINC, 0, 1, 1, 0, "ADD_IMM", "%sXD:X22=%%, XN:X22=%%, IMM:0x%x,", S64, TILE);
		add(pg, P_S, K_S, V_SPILL, 0, 1, 2, 0, "ST_XD_XN_IMM", "dtype:B64, XD:X22=%%, XN:X29=0x107f80, IMM:0x10,");
	}
	add(pg, P_S, K_S, V_CNT, 0, 1, 1, 0, "ADD_IMM", "%sXD:X20=%%, XN:X20=%%, IMM:0x1,", S64);
	add(pg, P_S, K_S, V_CMP, 0, 1, 1, 0, "CMP", "%sXN:X20=%%, XM:X21=%%, COND:LT,", S64);
	add(pg, P_S, K_S, V_JMP, 0, 1, 2, 0, "JUMPC", "COND:%%, TARGET:0x%llx,",
	    (unsigned long long)(pg->pcbase + 4ull * pg->body0));
	pg->body1 = pg->n;

	/* Tail: zero a workspace with scalar stores; its trip count fills the
	 * size budget to within one trip. */
	add(pg, P_S, K_S, V_PADSET, 0, 1, 1, 0, "ADD_IMM", "%sXD:X30=%%, XN:X29=0x107f80, IMM:0x100,", S64);
	add(pg, P_S, K_S, V_PADBOUND, 0, 1, 1, 0, "MOV_XD_IMM", "XD:X25=%%, IMM:%%,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "MOV_XD_IMM", "XD:X24=0, IMM:0,");
	pg->pad0 = pg->n;
	add(pg, P_S, K_S, V_PADST, 0, 1, 2, 0, "ST_XD_XN_IMM", "dtype:B64, XD:X15=0, XN:X30=%%, IMM:0,");
	add(pg, P_S, K_S, V_PADINC, 0, 1, 1, 0, "ADD_IMM", "%sXD:X30=%%, XN:X30=%%, IMM:0x8,", S64);
	add(pg, P_S, K_S, V_PADCNT, 0, 1, 1, 0, "ADD_IMM", "%sXD:X24=%%, XN:X24=%%, IMM:0x1,", S64);
	add(pg, P_S, K_S, V_PADCMP, 0, 1, 1, 0, "CMP", "%sXN:X24=%%, XM:X25=%%, COND:LT,", S64);
	add(pg, P_S, K_S, V_PADJMP, 0, 1, 2, 0, "JUMPC", "COND:%%, TARGET:0x%llx,",
	    (unsigned long long)(pg->pcbase + 4ull * pg->pad0));
	pg->pad1 = pg->n;

	/* Epilogue: consume the init flags, close the mark. */
	pg->epi0 = pg->n;
	for (int b = 0; b < 2; b++)
		add_flag(pg, K_WAIT, P_VEC, P_MTE2, b);
	for (int b = 0; b < 2; b++)
		add_flag(pg, K_WAIT, P_MTE3, P_VEC, b);
	add_mark(pg, 0);
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "MOV_XD_IMM", "XD:X0=0, IMM:0,");
	add(pg, P_S, K_S, V_NONE, 0, 1, 1, 0, "ADD_IMM", "%sXD:X29=0x107f80, XN:X29=0x107f80, IMM:0,", S64);
}

/* ---- one sub-core ----------------------------------------------------- */

struct slot {
	uint64_t tick, seq;
	unsigned len;
	char text[LINEMAX];
};

struct flagq {
	uint64_t t[16];
	unsigned head, n;
	uint64_t nset, nwait;        /* --unique: the k-th WAIT prints the k-th SET's id */
};

struct gen {
	const struct prog *pg;
	unsigned core, sub;
	uint64_t rng;
	uint64_t t;                  /* scalar issue tick = next pop tick */
	uint64_t id, seq, max_exec;
	uint64_t pipe_free[NPIPE];   /* pipe busy until; [P_S] = last scalar completion */
	struct flagq flag[NPIPE][NPIPE][2];
	/* register state */
	uint64_t argbase[3], base[3], blkoff, off, it, bound, padaddr, padi, padn;
	int taken;
	/* output */
	struct out pop, exe;
	uint64_t bytes;              /* generated so far, both files */
	/* exec lines waiting for their tick: slot pool + binary heap on (tick, seq) */
	struct slot *slots;
	unsigned nslots, *freel, nfree, *heap, nheap;
};

static int slot_less(const struct gen *g, unsigned a, unsigned b)
{
	const struct slot *x = &g->slots[a], *y = &g->slots[b];
	return x->tick < y->tick || (x->tick == y->tick && x->seq < y->seq);
}

static struct slot *heap_new(struct gen *g, uint64_t tick)
{
	unsigned s, i;
	if (!g->nfree) {
		unsigned n = g->nslots ? 2 * g->nslots : 256;
		g->slots = realloc(g->slots, n * sizeof *g->slots);
		g->freel = realloc(g->freel, n * sizeof *g->freel);
		g->heap = realloc(g->heap, n * sizeof *g->heap);
		if (!g->slots || !g->freel || !g->heap)
			die(EXIT_IO, "out of memory");
		for (unsigned k = n; k > g->nslots; k--)
			g->freel[g->nfree++] = k - 1;
		g->nslots = n;
	}
	s = g->freel[--g->nfree];
	g->slots[s].tick = tick;
	g->slots[s].seq = g->seq++;
	i = g->nheap++;
	while (i) {
		unsigned up = (i - 1) / 2;
		if (!slot_less(g, s, g->heap[up]))
			break;
		g->heap[i] = g->heap[up];
		i = up;
	}
	g->heap[i] = s;
	return &g->slots[s];
}

static void heap_pop(struct gen *g)
{
	unsigned last = g->heap[--g->nheap], i = 0;
	g->freel[g->nfree++] = g->heap[0];
	for (;;) {
		unsigned c = 2 * i + 1;
		if (c >= g->nheap)
			break;
		if (c + 1 < g->nheap && slot_less(g, g->heap[c + 1], g->heap[c]))
			c++;
		if (!slot_less(g, g->heap[c], last))
			break;
		g->heap[i] = g->heap[c];
		i = c;
	}
	if (g->nheap)
		g->heap[i] = last;
}

/* Write every exec line whose tick can no longer be undercut: all future
 * lines have tick >= the issue tick (pop) or > it (exec). */
static void heap_drain(struct gen *g, uint64_t upto)
{
	while (g->nheap && g->slots[g->heap[0]].tick <= upto) {
		struct slot *s = &g->slots[g->heap[0]];
		out_write(&g->exe, s->text, s->len);
		heap_pop(g);
	}
}

static size_t fmt_line(char *dst, const struct gen *g, const struct ins *in,
                       uint64_t tick, const uint64_t *val)
{
	char *p = dst;
	memcpy(p, "[info] [", 8);
	p = put_dec_pad(p + 8, tick, 8);
	memcpy(p, in->head, in->headlen);
	p += in->headlen;
	if (g->pg->a5) {
		memcpy(p, "(ID: ", 5);
		p = put_dec_pad(p + 5, g->id, 6);
		*p++ = ')';
		*p++ = ' ';
	}
	memcpy(p, in->name2, in->name2len);
	p += in->name2len;
	for (unsigned i = 0; i < in->nseg; i++) {
		memcpy(p, in->tmpl + in->segoff[i], in->seglen[i]);
		p += in->seglen[i];
		if (i + 1 < in->nseg)
			p = in->decmask >> i & 1 ? put_dec_pad(p, val[i], 1) : put_val(p, val[i]);
	}
	*p++ = '\n';
	return (size_t)(p - dst);
}

/* --unique: a 32-byte aligned address in the UB region of buffer role r
 * (0 x, 1 y, 2 z; 64 KiB each); the MTE burst register, nBurst (bits 4-15)
 * and lenBurst (16-31, in 32-byte units). */
static uint64_t ub_addr(struct gen *g, unsigned r)
{
	return (uint64_t)r * 0x10000 + (rnd(&g->rng) >> 32 & 0xffe0);
}

static uint64_t burst(struct gen *g)
{
	return (uint64_t)rnd_in(&g->rng, 1, 512) << 16 | (uint64_t)rnd_in(&g->rng, 1, 16) << 4;
}

/* Values of the '%' slots at issue (pv, popped log) and after execution
 * (ev, exec log), and the register state change. */
static void values(struct gen *g, const struct ins *in, uint64_t *pv, uint64_t *ev)
{
	unsigned a = in->arg;
	switch (in->vf) {
	case V_BLK: pv[0] = ev[0] = g->core; break;
	case V_SUB: pv[0] = ev[0] = g->sub; break;
	case V_LD:
		pv[0] = 0;
		ev[0] = g->argbase[a];
		break;
	case V_BLKOFF:   /* X7 = ((blk * 2) + sub) << 26 in three steps */
		if (a == 0) {
			pv[0] = 0, pv[1] = g->core;
			ev[0] = 2ull * g->core, ev[1] = g->core;
		} else if (a == 1) {
			pv[0] = pv[1] = 2ull * g->core, pv[2] = g->sub;
			ev[0] = ev[1] = 2ull * g->core + g->sub, ev[2] = g->sub;
		} else {
			pv[0] = 2ull * g->core + g->sub;
			ev[0] = g->blkoff;
		}
		break;
	case V_BASE:
		pv[0] = pv[1] = g->argbase[a], pv[2] = g->blkoff;
		ev[0] = ev[1] = g->base[a], ev[2] = g->blkoff;
		break;
	case V_BOUND: pv[0] = pv[1] = ev[0] = ev[1] = g->bound; break;
	case V_ADDR:
		pv[0] = ev[0] = g->base[a] + g->off;
		pv[1] = ev[1] = g->base[a];
		pv[2] = ev[2] = g->off;
		break;
	case V_MTEIN: pv[0] = ev[0] = g->base[a] + g->off; break;
	case V_MTEOUT: pv[0] = ev[0] = g->base[2] + g->off; break;
	case V_OFFINC:
		pv[0] = pv[1] = g->off;
		g->off += TILE;
		ev[0] = ev[1] = g->off;
		break;
	case V_SPILL: pv[0] = ev[0] = g->off; break;
	case V_CNT:
		pv[0] = pv[1] = g->it;
		g->it++;
		ev[0] = ev[1] = g->it;
		break;
	case V_CMP: pv[0] = ev[0] = g->it, pv[1] = ev[1] = g->bound; break;
	case V_JMP: pv[0] = ev[0] = (uint64_t)g->taken; break;
	case V_PADSET:
		pv[0] = 0;
		g->padaddr = 0x107f80 + 0x100;
		ev[0] = g->padaddr;
		break;
	case V_PADBOUND: pv[0] = pv[1] = ev[0] = ev[1] = g->padn; break;
	case V_PADST: pv[0] = ev[0] = g->padaddr; break;
	case V_PADINC:
		pv[0] = pv[1] = g->padaddr;
		g->padaddr += 8;
		ev[0] = ev[1] = g->padaddr;
		break;
	case V_PADCNT:
		pv[0] = pv[1] = g->padi;
		g->padi++;
		ev[0] = ev[1] = g->padi;
		break;
	case V_PADCMP: pv[0] = ev[0] = g->padi, pv[1] = ev[1] = g->padn; break;
	case V_PADJMP: pv[0] = ev[0] = g->padi < g->padn; break;
	case V_FLAG: {
		struct flagq *q = &g->flag[in->fsrc][in->fdst][in->fid];
		uint64_t k = in->kind == K_SET ? q->nset++ : q->nwait++;
		pv[0] = ev[0] = in->fid + 2 * (k % 8);
		break;
	}
	case V_UMTEIN:
		pv[0] = ev[0] = ub_addr(g, a);
		pv[1] = ev[1] = g->base[a] + g->off;
		pv[2] = ev[2] = burst(g);
		break;
	case V_UMTEOUT:
		pv[0] = ev[0] = g->base[2] + g->off;
		pv[1] = ev[1] = ub_addr(g, 2);
		pv[2] = ev[2] = burst(g);
		break;
	case V_UMASK: pv[0] = ev[0] = rnd(&g->rng); break;
	case V_UVBIN:      /* repeat, three repeat strides, three block strides */
		pv[0] = ev[0] = ub_addr(g, 2);
		pv[1] = ev[1] = ub_addr(g, 0);
		pv[2] = ev[2] = ub_addr(g, 1);
		pv[3] = ev[3] = (uint64_t)rnd_in(&g->rng, 1, 255) << 56 | (uint64_t)rnd_in(&g->rng, 1, 16) << 40 |
		                (uint64_t)rnd_in(&g->rng, 1, 16) << 32 | (uint64_t)rnd_in(&g->rng, 1, 16) << 24 |
		                (uint64_t)rnd_in(&g->rng, 1, 4) << 16 | (uint64_t)rnd_in(&g->rng, 1, 4) << 8 |
		                rnd_in(&g->rng, 1, 4);
		break;
	case V_UVUN:       /* repeat, src and dst repeat and block strides */
		pv[0] = ev[0] = ub_addr(g, 2);
		pv[1] = ev[1] = ub_addr(g, 0);
		pv[2] = ev[2] = (uint64_t)rnd_in(&g->rng, 1, 255) << 56 | (uint64_t)rnd_in(&g->rng, 1, 16) << 40 |
		                (uint64_t)rnd_in(&g->rng, 1, 16) << 32 | (uint64_t)rnd_in(&g->rng, 1, 4) << 16 |
		                rnd_in(&g->rng, 1, 4);
		break;
	case V_UVRED:      /* repeat, src repeat and block strides, dst repeat stride */
		pv[0] = ev[0] = ub_addr(g, 1);
		pv[1] = ev[1] = ub_addr(g, 2);
		pv[2] = ev[2] = (uint64_t)rnd_in(&g->rng, 1, 255) << 56 | (uint64_t)rnd_in(&g->rng, 1, 16) << 32 |
		                (uint64_t)rnd_in(&g->rng, 1, 4) << 16 | rnd_in(&g->rng, 1, 16);
		break;
	default: break;
	}
}

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

static void run(struct gen *g, unsigned idx)
{
	const struct ins *in = &g->pg->v[idx];
	uint64_t pv[MAXVAL] = { 0 }, ev[MAXVAL] = { 0 };
	uint64_t pop, end, start;
	unsigned p = in->pipe;
	char line[LINEMAX];
	size_t n;

	values(g, in, pv, ev);

	if (in->kind == K_NOP) {
		/* Exec log only, right after the mark (all pipes are drained). */
		uint64_t tick = max64(g->t, g->max_exec) + 1 + (rnd(&g->rng) >> 63);
		struct slot *s = heap_new(g, tick);
		s->len = (unsigned)fmt_line(s->text, g, in, tick, ev);
		g->bytes += s->len;
		g->max_exec = tick;
		g->t = tick;
		g->id++;
		return;
	}

	if (in->kind != K_S && in->kind != K_MARK && g->pipe_free[p] > g->t + QMAX)
		g->t = g->pipe_free[p] - QMAX;       /* queue full: issue stalls */
	if (in->kind == K_MARK)
		g->t = max64(g->t, g->max_exec + 1);
	pop = g->t;
	start = max64(pop + 1, g->pipe_free[p]);

	switch (in->kind) {
	case K_S:
		end = max64(pop + rnd_in(&g->rng, in->lo, in->hi), g->pipe_free[P_S]);
		break;
	case K_WAIT: {
		struct flagq *q = &g->flag[in->fsrc][in->fdst][in->fid];
		uint64_t f = 0;
		if (q->n) {
			f = q->t[q->head];
			q->head = (q->head + 1) % 16;
			q->n--;
		}
		end = max64(start, f) + 1;
		break;
	}
	case K_MARK:
		end = pop + 1;
		break;
	default:   /* K_P, K_SET, K_BAR */
		end = start + rnd_in(&g->rng, in->lo, in->hi);
		break;
	}

	/* Rarely: 2-3 exec lines (micro-ops), each <= 8 cycles after the last. */
	unsigned nuop = 1, gap[3] = { 0, 0, 0 };
	if (in->kind != K_MARK && rnd_in(&g->rng, 1, UOP_ONE_IN) == 1) {
		unsigned span = 0;
		nuop = rnd_in(&g->rng, 2, 3);
		for (unsigned k = 1; k < nuop; k++)
			span += gap[k] = rnd_in(&g->rng, 1, 8);
		if (end < pop + 1 + span)
			end = pop + 1 + span;
		uint64_t tick = end - span;
		for (unsigned k = 0; k < nuop; k++) {
			tick += gap[k];
			struct slot *s = heap_new(g, tick);
			s->len = (unsigned)fmt_line(s->text, g, in, tick, ev);
			g->bytes += s->len;
		}
	} else {
		struct slot *s = heap_new(g, end);
		s->len = (unsigned)fmt_line(s->text, g, in, end, ev);
		g->bytes += s->len;
	}

	g->pipe_free[p] = end;
	g->max_exec = max64(g->max_exec, end);
	if (in->kind == K_SET) {
		struct flagq *q = &g->flag[in->fsrc][in->fdst][in->fid];
		if (q->n == 16)
			die(EXIT_IO, "internal: flag queue overflow");
		q->t[(q->head + q->n++) % 16] = end;
	}
	if (in->kind == K_WAIT && p == P_S)
		g->t = max64(g->t, end);

	n = fmt_line(line, g, in, pop, pv);
	out_write(&g->pop, line, n);
	g->bytes += n;
	g->id++;

	/* Scalar dual issue now and then; a dispatch to a pipe takes a cycle. */
	if (in->kind == K_S)
		g->t += (rnd(&g->rng) & 3) != 0;
	else
		g->t++;
	heap_drain(g, g->t);
}

/* Bytes an instruction adds to both logs, estimated without running it. */
static uint64_t est(const struct gen *g, unsigned idx)
{
	const struct ins *in = &g->pg->v[idx];
	uint64_t line = 8 + 8 + in->headlen + in->name2len + 1 + (g->pg->a5 ? 15 : 0);
	for (unsigned i = 0; i < in->nseg; i++)
		line += in->seglen[i] + (i + 1 < in->nseg ? 8u : 0u);
	return in->kind == K_NOP ? line : 2 * line;
}

static uint64_t est_range(const struct gen *g, unsigned a, unsigned b)
{
	uint64_t s = 0;
	for (unsigned i = a; i < b; i++)
		s += est(g, i);
	return s;
}

static uint64_t gen_subcore(const struct prog *pg, const char *dir, unsigned core,
                            unsigned sub, uint64_t budget, uint64_t rot, uint64_t seed,
                            unsigned *nfiles)
{
	struct gen *g = calloc(1, sizeof *g);
	char stem[96];
	uint64_t x = seed ^ ((uint64_t)core << 32 | sub);

	if (!g)
		die(EXIT_IO, "out of memory");
	g->pg = pg;
	g->core = core;
	g->sub = sub;
	splitmix(&x);
	g->rng = splitmix(&x) | 1;
	g->t = 11035 + (core * 7) % 23 + sub;
	g->id = 0;
	g->argbase[0] = 0x12c00000;
	g->argbase[1] = 0x16c00000;
	g->argbase[2] = 0x1ac00000;
	g->blkoff = (2ull * core + sub) << 26;
	for (int a = 0; a < 3; a++)
		g->base[a] = g->argbase[a] + g->blkoff;

	snprintf(stem, sizeof stem, "core%u.veccore%u.instr_log", core, sub);
	out_init(&g->exe, dir, stem, rot);
	snprintf(stem, sizeof stem, "core%u.veccore%u.instr_popped_log", core, sub);
	out_init(&g->pop, dir, stem, rot);

	uint64_t iter = est_range(g, pg->body0, pg->body1);
	uint64_t pad = est_range(g, pg->pad0, pg->pad1);
	uint64_t tail = est_range(g, pg->body1, pg->pad0) + est_range(g, pg->epi0, pg->n);
	uint64_t head = est_range(g, 0, pg->body0);
	g->bound = budget > head + tail + iter ? (budget - head - tail) / iter : 1;

	for (unsigned i = 0; i < pg->body0; i++)
		run(g, i);
	for (;;) {
		uint64_t before = g->bytes;
		/* The branch at the end says whether another trip follows. */
		g->taken = g->bytes + 2 * iter + tail <= budget;
		for (unsigned i = pg->body0; i < pg->body1; i++)
			run(g, i);
		if (g->bytes - before > iter)
			iter = g->bytes - before;
		if (!g->taken)
			break;
	}
	/* Nearest trip count: the total lands within half a trip of the budget. */
	g->padn = g->bytes + tail < budget ? (budget - g->bytes - tail + pad / 2) / pad : 0;
	for (unsigned i = pg->body1; i < pg->pad0; i++)
		run(g, i);
	for (uint64_t k = 0; k < g->padn; k++)
		for (unsigned i = pg->pad0; i < pg->pad1; i++)
			run(g, i);
	for (unsigned i = pg->epi0; i < pg->n; i++)
		run(g, i);

	heap_drain(g, UINT64_MAX);
	*nfiles += g->exe.nfiles + g->pop.nfiles;
	out_close(&g->exe);
	out_close(&g->pop);
	uint64_t bytes = g->bytes;
	free(g->slots);
	free(g->freel);
	free(g->heap);
	free(g);
	return bytes;
}

/* ---- command line ----------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-s SIZE_MB] [-c CORES] [-r ROTATE_MB] [--soc A2|A5] [--unique] [--seed N] [-v] -o DIR\n"
	      "Write a synthetic camodel dump (instr_log + instr_popped_log of\n"
	      "core<N>.veccore<0|1>) into DIR, SIZE_MB MiB in total (default 20),\n"
	      "for CORES cores (default 1).  With -r, files rotate spdlog-style at\n"
	      "ROTATE_MB MiB (X.dump newest, X.1.dump older, ...).  With --unique,\n"
	      "the loop's operands change on every execution: UB addresses, burst,\n"
	      "mask, repeat and stride values drawn at random, GM addresses and\n"
	      "counters advancing, flag ids cycling through 0-15, so no line of\n"
	      "the loop but its JUMPC repeats any of the last seven of its pc.\n"
	      "Same arguments give byte-identical output.\n", f);
}

static double num_arg(const char *opt, const char *v, double lo, double hi)
{
	char *end;
	double d;
	if (!v)
		die(EXIT_USAGE, "option %s needs a value", opt);
	errno = 0;
	d = strtod(v, &end);
	if (errno || end == v || *end || !(d >= lo && d <= hi))
		die(EXIT_USAGE, "bad value for %s: '%s'", opt, v);
	return d;
}

/* Matches "-x VAL", "-xVAL", "--long VAL", "--long=VAL"; *val gets the value. */
static int opt_is(char **argv, int *i, const char *sh, const char *lg, const char **val)
{
	const char *a = argv[*i];
	size_t ll = lg ? strlen(lg) : 0;
	if (sh && !strncmp(a, sh, 2)) {
		*val = a[2] ? a + 2 : argv[++*i];
		return 1;
	}
	if (lg && !strncmp(a, lg, ll) && (a[ll] == '=' || !a[ll])) {
		*val = a[ll] ? a + ll + 1 : argv[++*i];
		return 1;
	}
	return 0;
}

static void mkdir_p(const char *dir)
{
	char *d = strdup(dir);
	if (!d)
		die(EXIT_IO, "out of memory");
	for (char *p = d + 1;; p++) {
		if (*p == '/' || !*p) {
			char c = *p;
			*p = 0;
			if (mkdir(d, 0755) < 0 && errno != EEXIST)
				die(EXIT_IO, "%s: %s", d, strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	free(d);
}

int main(int argc, char **argv)
{
	double size_mb = 20, rot_mb = 0;
	unsigned cores = 1;
	uint64_t seed = 0x0971aceULL;
	int a5 = 0, unique = 0, verbose = 0;
	const char *dir = NULL, *v;
	struct stat st;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			puts(PROG " 1");
			return 0;
		} else if (!strcmp(a, "-v")) {
			verbose = 1;
		} else if (opt_is(argv, &i, "-s", "--size", &v)) {
			size_mb = num_arg("-s", v, 0, 1e6);
		} else if (opt_is(argv, &i, "-c", "--cores", &v)) {
			cores = (unsigned)num_arg("-c", v, 1, 4096);
		} else if (opt_is(argv, &i, "-r", "--rotate", &v)) {
			rot_mb = num_arg("-r", v, 0, 1e6);
		} else if (opt_is(argv, &i, NULL, "--soc", &v)) {
			if (v && !strcmp(v, "A2"))
				a5 = 0;
			else if (v && !strcmp(v, "A5"))
				a5 = 1;
			else
				die(EXIT_USAGE, "--soc must be A2 or A5");
		} else if (!strcmp(a, "--unique")) {
			unique = 1;
		} else if (opt_is(argv, &i, NULL, "--seed", &v)) {
			seed = (uint64_t)num_arg("--seed", v, 0, 9e15);
		} else if (opt_is(argv, &i, "-o", "--output", &v)) {
			if (!v || !*v)
				die(EXIT_USAGE, "option -o needs a value");
			dir = v;
		} else {
			fprintf(stderr, PROG ": unknown argument '%s'\n", a);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (!dir) {
		usage(stderr);
		return EXIT_USAGE;
	}
	mkdir_p(dir);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))
		die(EXIT_IO, "%s: not a directory", dir);

	struct prog pg;
	struct timespec t0, t1;
	uint64_t target = (uint64_t)(size_mb * MIB), total = 0;
	uint64_t rot = (uint64_t)(rot_mb * MIB);
	uint64_t per = target / (2ull * cores);
	unsigned nfiles = 0;

	build(&pg, a5, unique);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned c = 0; c < cores; c++)
		for (unsigned s = 0; s < 2; s++)
			total += gen_subcore(&pg, dir, c, s, per, rot, seed, &nfiles);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	free(pg.v);
	if (verbose) {
		double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		fprintf(stderr, PROG ": %s: %u files, %llu bytes (target %llu) in %.3f s, %.0f MiB/s\n",
		        dir, nfiles, (unsigned long long)total, (unsigned long long)target, dt,
		        dt > 0 ? (double)total / MIB / dt : 0.0);
	}
	return 0;
}
