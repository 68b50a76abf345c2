/* The AI Core model of the stand-in simulator.
 *
 * A kernel runs as real code; each intrinsic it calls (camodel_kernel.h) is
 * one instruction.  The model gives it a PC from the call site, times it
 * (in-order issue, per-pipe queues and latencies, flags, barriers, 128-byte
 * icache blocks, 16-byte fetch groups) and turns it into events: popped and
 * executed instruction lines, icache misses and fetches, CCU issue lines and
 * MTE interface requests.  Events are kept in a small per-sub-core heap and
 * written in tick order once no later instruction can produce an earlier
 * tick, which is how the real simulator's logs are ordered. */
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <unistd.h>

#include "camodel.h"
#include "cload.h"
#define CAMODEL_RUNTIME
#include "camodel_kernel.h"
#include "biu.h"
#include "cload.h"
#include "devprof.h"
#include "pmu.h"
#include "runtime/rt.h"

static int dev_mode;                  /* this launch writes on-board files */

enum { P_S, P_MTE1, P_MTE2, P_MTE3, P_V, P_M, P_FIX, P_LD, P_EX, P_ST, NP };
_Static_assert((int)NP == (int)DP_NPIPE && (int)P_V == (int)DP_V && (int)P_M == (int)DP_M && (int)P_EX == (int)DP_EX,
               "devprof.h pipe order");

static const char *const pipe_tok[3][NP] = {
	[FAM_A2] = { "SCALAR", "MTE1", "MTE2", "MTE3", "VEC", "CUBE", "FIXP", "RVECLD", "RVECEX", "RVECST" },
	[FAM_310P] = { "SCALAR", "MTE1", "MTE2", "MTE3", "VECTOR", "CUBE", "FIX_PIPE", "RVECLD", "RVECEX", "RVECST" },
	[FAM_A5] = { "SCALAR", "MTE1", "MTE2", "MTE3", "VEC", "CUBE", "FIXP", "RVECLD", "RVECEX", "RVECST" },
};

/* timing (cycles) */
#define MISS_LAT   24      /* icache refill */
#define QDEPTH     16      /* per-pipe issue queue */
#define GM_LAT     120     /* GM request round trip */
#define GM_BPC     64      /* GM bytes per cycle */
#define REQ_BYTES  512     /* MTE request size */
#define VEC_LAT    6
#define CUBE_LAT   10
#define FIX_LAT    30
#define LD_LAT     20
#define IC_SETS    64
#define IC_WAYS    4       /* 64 x 4 x 128 B = 32 KiB */
#define FLAG_Q     8

/* local memories (bytes) */
#define UB_SIZE    (256u << 10)
#define L1_SIZE    (1024u << 10)
#define L0A_SIZE   (64u << 10)
#define L0B_SIZE   (64u << 10)
#define L0C_SIZE   (256u << 10)

enum ev_type { EV_POP, EV_EXEC, EV_MISS, EV_FETCH, EV_CCU, EV_MTE };
enum mte_op { MO_SEND_REQ, MO_RECV_RSP, MO_SEND_DATA };
static const char *const mte_op_name[] = { "send_req", "recv_rsp", "send_data" };
enum mte_if { MI_BRIF, MI_BWIF, MI_UBW, MI_UBR, MI_L1W, MI_FIXR };
static const char *const mte_if_name[] = { "BRIF", "BWIF", "UB1WIF", "UB1RIF", "L1WIF", "FIXRIF" };

#define TEXT_MAX 480

/* One line's text after the "[info] [tick] " head. */
struct itext {
	uint16_t len, name_end, det_off, det_len;
	char text[TEXT_MAX];
};

struct islot {
	struct islot *next_free;
	uint32_t refs;
	uint64_t pc;
	uint32_t id310;           /* 310P "instr ID is" (0 = none) */
	uint8_t pipe, has_pop;
	const char *name;
	struct itext x;           /* the executed line */
	struct itext pop;         /* the popped line, when its values differ */
};

struct ev {
	uint64_t tick, seq;
	uint64_t a;
	struct islot *slot;
	uint32_t type, x, y, z;
};

struct flagq { uint64_t t[FLAG_Q]; uint8_t h, n; };

struct cross {               /* cube -> vector sets of one block */
	uint64_t *t[16];
	uint32_t n[16], cap[16];
};

struct sub {
	enum fam fam;
	int core, kind, idx;     /* kind: 0 none (310P), 1 vec, 2 cube */
	uint32_t cbid;           /* sub_core_id for callbacks */
	int ctype;               /* CORE_AIV / CORE_AIC / CORE_AICORE */
	int block, subblock;
	uint64_t cur;
	uint64_t pfree[NP], plast[NP];
	uint64_t q[NP][QDEPTH];
	uint8_t qh[NP], qn[NP];
	struct flagq flag[8][8][16];
	uint64_t ic[IC_SETS][IC_WAYS];
	uint8_t icv[IC_SETS][IC_WAYS];
	uint64_t icage[IC_SETS][IC_WAYS], icclock;
	uint64_t last_group;
	uint64_t seq;
	uint32_t next_id, next_id310;
	uint32_t *mte_instr, *mte_req;   /* the core's counters */
	uint64_t mask0, mask1;
	uint64_t regs[32];       /* scalar register values, for the popped lines */
	uint8_t *ub, *l1, *l0a, *l0b, *l0c;
	struct wfile *f_pop, *f_exec, *f_ic, *f_ccu, *f_mte;
	struct ev *heap;
	size_t hn, hcap;
	struct cross *cross;
	uint32_t cross_pos[16];
	uint64_t waits_unmatched;
	struct dp_sub pm;        /* what the PMU counts (device mode) */
	size_t mark_cap;         /* of pm.marks */
	size_t pcs_cap;          /* of pm.pcs */
};

static struct sub *S;            /* the sub-core running now */
static struct dp_dbi dbi;        /* device mode: the code view's records */
static int pcs_on;               /* device mode with PC sampling */
static struct kernel_bin *KB;
static uint32_t cur_block_dim;
static jmp_buf fault_jmp;
static char fault_msg[256];
static struct islot *free_slots;
static int log_on[6] = { 1, 1, 0, 1, 0, 1 };   /* popped instr mte icache ifu ccu */
static int log_list_read;

/* ------------------------------------------------------------------ */

static _Noreturn void fault(const char *msg)
{
	snprintf(fault_msg, sizeof fault_msg, "%s", msg);
	longjmp(fault_jmp, 1);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) fault("out of host memory");
	return p;
}

static struct islot *slot_get(void)
{
	struct islot *s = free_slots;
	if (s) free_slots = s->next_free;
	else s = xmalloc(sizeof *s);
	s->refs = 0;
	s->id310 = 0;
	return s;
}

static void slot_put(struct islot *s)
{
	if (--s->refs == 0) {
		s->next_free = free_slots;
		free_slots = s;
	}
}

static int ev_less(const struct ev *a, const struct ev *b)
{
	return a->tick < b->tick || (a->tick == b->tick && a->seq < b->seq);
}

static void push(struct sub *s, uint64_t tick, uint32_t type, uint64_t a, struct islot *slot,
                 uint32_t x, uint32_t y, uint32_t z)
{
	if (s->hn == s->hcap) {
		size_t nc = s->hcap ? s->hcap * 2 : 1024;
		struct ev *h = realloc(s->heap, nc * sizeof *h);
		if (!h) fault("out of host memory");
		s->heap = h;
		s->hcap = nc;
	}
	struct ev e = { tick, s->seq++, a, slot, type, x, y, z };
	if (slot) slot->refs++;
	size_t i = s->hn++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!ev_less(&e, &s->heap[p])) break;
		s->heap[i] = s->heap[p];
		i = p;
	}
	s->heap[i] = e;
}

static struct ev pop_min(struct sub *s)
{
	struct ev top = s->heap[0];
	struct ev last = s->heap[--s->hn];
	size_t i = 0, n = s->hn;
	for (;;) {
		size_t l = 2 * i + 1, m = i;
		const struct ev *best = &last;
		if (l < n && ev_less(&s->heap[l], best)) { m = l; best = &s->heap[l]; }
		if (l + 1 < n && ev_less(&s->heap[l + 1], best)) m = l + 1;
		if (m == i) break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (n) s->heap[i] = last;
	return top;
}

/* ---- delivery: files or callbacks ---- */

static char *line_head(char *p, enum fam fam, uint64_t tick)
{
	p = fmt_s(p, "[info] [");
	p = fmt_u0(p, tick, 8);
	*p++ = ']';
	if (fam != FAM_310P) *p++ = ' ';
	return p;
}

static void deliver_instr(struct sub *s, const struct ev *e, int popped)
{
	const struct islot *sl = e->slot;
	const struct itext *x = popped && sl->has_pop ? &sl->pop : &sl->x;
	DvcInstrLogCb_t cb = logw_cb[popped ? DVC_INSTR_POPPED_LOG : DVC_INSTR_LOG].instr;
	struct wfile *f = popped ? s->f_pop : s->f_exec;
	if (f && !cb) {
		char *p = logw_begin(f, TEXT_MAX + 80);
		p = line_head(p, s->fam, e->tick);
		memcpy(p, x->text, x->len);
		p += x->len;
		if (sl->id310) {
			p = fmt_s(p, ", instr ID is: ");
			p = fmt_u(p, sl->id310);
			if (popped) {
				p = fmt_s(p, ". pop success ");
				p = fmt_u(p, sl->id310);
			}
		}
		*p++ = '\n';
		logw_end(f, p);
	}
	if (cb) {
		char dec[TEXT_MAX + 1], det[TEXT_MAX + 1];
		memcpy(dec, x->text, x->name_end);
		dec[x->name_end] = 0;
		memcpy(det, x->text + x->det_off, x->det_len);
		det[x->det_len] = 0;
		DvcInstrLogEntry_t en = { (uint32_t)s->core, s->cbid, sl->pc, dec, det };
		cb(e->tick, &en);
	}
}

static void deliver(struct sub *s, const struct ev *e)
{
	char *p;
	switch (e->type) {
	case EV_POP:
	case EV_EXEC:
		deliver_instr(s, e, e->type == EV_POP);
		break;
	case EV_MISS:
		if (s->f_ic && !logw_cb[DVC_ICACHE_LOG].icache) {
			p = logw_begin(s->f_ic, 160);
			if (s->fam == FAM_A2) {
				p = fmt_s(p, "[info] ");
				p = fmt_u(p, e->tick);
				p = fmt_s(p, ": icache read address is 0x");
				p = fmt_x0(p, e->a, 8);
				p = fmt_s(p, ", size is 0x00000080, type:1, last:0, status is MISS\n");
			} else {
				p = fmt_s(p, "[info] [");
				p = fmt_u0(p, e->tick, 8);
				p = fmt_s(p, "]: icache read address is 0x");
				p = fmt_x0(p, e->a, 8);
				p = fmt_s(p, ", size is 0x00000080, status is MISS\n");
			}
			logw_end(s->f_ic, p);
		}
		if (logw_cb[DVC_ICACHE_LOG].icache) {
			DvcIcacheLogEntry_t en = { (uint32_t)s->core, s->cbid, "miss_read", { .miss_read_info = { e->a, 0x80, 1, 0 } } };
			logw_cb[DVC_ICACHE_LOG].icache(e->tick, &en);
		}
		break;
	case EV_FETCH:
		if (s->f_ic && s->fam == FAM_A2 && !logw_cb[DVC_ICACHE_LOG].icache) {
			p = logw_begin(s->f_ic, 80);
			p = fmt_s(p, "[info] ");
			p = fmt_u(p, e->tick);
			p = fmt_s(p, ": lookup_tag is fetch req addr:0x");
			p = fmt_x(p, e->a);
			*p++ = '\n';
			logw_end(s->f_ic, p);
		}
		if (logw_cb[DVC_ICACHE_LOG].icache) {
			DvcIcacheLogEntry_t en = { (uint32_t)s->core, s->cbid, "fetch_req", { .fetch_req_info = { e->a } } };
			logw_cb[DVC_ICACHE_LOG].icache(e->tick, &en);
		}
		break;
	case EV_CCU:
		if (s->f_ccu && !logw_cb[DVC_CCU_LOG].ccu) {
			p = logw_begin(s->f_ccu, 80);
			p = fmt_s(p, "[info] ");
			p = fmt_u(p, e->tick);
			p = fmt_s(p, ": ccu do issue success.issue isa pc :0x");
			p = fmt_x(p, e->a);
			*p++ = '\n';
			logw_end(s->f_ccu, p);
		}
		if (logw_cb[DVC_CCU_LOG].ccu) {
			DvcCcuLogEntry_t en = { (uint32_t)s->core, s->cbid, "ISSUE_SUCCESS",
				{ .issue_success_info = { e->a, e->slot->name, pipe_tok[s->fam][e->slot->pipe] } } };
			logw_cb[DVC_CCU_LOG].ccu(e->tick, &en);
		}
		break;
	case EV_MTE: {
		unsigned op = e->x >> 8, intf = e->x & 0xff;
		uint32_t size = (uint32_t)(e->a >> 40);
		uint64_t addr = e->a & ((1ull << 40) - 1);
		if (s->f_mte && !logw_cb[DVC_MTE_LOG].mte) {
			p = logw_begin(s->f_mte, 200);
			p = fmt_s(p, "[info] ");
			p = fmt_u(p, e->tick);
			*p++ = ':';
			*p++ = ' ';
			p = fmt_s(p, mte_if_name[intf]);
			*p++ = ' ';
			p = fmt_s(p, mte_op_name[op]);
			if (op == MO_RECV_RSP) {
				p = fmt_s(p, ", uop_cnt: 1, tnx_id: 0");
			} else {
				p = fmt_s(p, ", addr: 0x");
				p = fmt_x(p, addr);
				p = fmt_s(p, ", size: ");
				p = fmt_u(p, size);
			}
			p = fmt_s(p, ", tag_id: ");
			p = fmt_u(p, e->z & 31);
			p = fmt_s(p, ", instr_id: ");
			p = fmt_u(p, e->y);
			p = fmt_s(p, ", req_id: ");
			p = fmt_u(p, e->z);
			*p++ = '\n';
			logw_end(s->f_mte, p);
		}
		if (logw_cb[DVC_MTE_LOG].mte) {
			DvcMteLogEntry_t en = { (uint32_t)s->core, 0, mte_op_name[op],
				{ .intf_op_info = { mte_if_name[intf], 0, addr, op == MO_RECV_RSP ? 0 : size,
				                    e->z & 31, e->y, e->z } } };
			logw_cb[DVC_MTE_LOG].mte(e->tick, &en);
		}
		break;
	}
	}
	if (e->slot) slot_put(e->slot);
}

/* Write every event that no later instruction can precede. */
static void settle(struct sub *s, uint64_t upto)
{
	while (s->hn && s->heap[0].tick < upto) {
		struct ev e = pop_min(s);
		deliver(s, &e);
	}
}

/* ---- instruction text ---- */

static _Noreturn void fault(const char *msg);

static uint64_t pc_off;   /* the offset of the intrinsic running now */

/* An instruction's pc: in the call of its intrinsic, 4-byte aligned; a
 * SIMT instruction's 8-byte aligned (align 8), as PC sampling records an
 * address's bits 26..3 (README section 3). */
static inline uint64_t PCalign(void *ra, uintptr_t align)
{
	uintptr_t off = (((uintptr_t)ra - 1) & ~(align - 1)) - KB->base;
	if (off >= KB->size)
		fault("an intrinsic was called from outside the kernel image (a tail call? build kernels with "
		      "-fno-optimize-sibling-calls)");
	pc_off = off;
	return KB->pc_start + off;
}
#define PC() PCalign(__builtin_return_address(0), 4)

static unsigned reg(uint64_t pc, unsigned k)
{
	return (unsigned)(((pc >> 2) * 2654435761u + k * 7u) % 31u);
}

static uint32_t encoding(uint64_t pc, const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *c = name; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
	return h ^ (uint32_t)((pc >> 2) * 0x9e3779b1u);
}

/* "0" or "0x..." as the simulator prints register values */
static char *hv(char *p, uint64_t v)
{
	if (!v) { *p++ = '0'; return p; }
	*p++ = '0';
	*p++ = 'x';
	return fmt_x(p, v);
}

/* "XD:X12=0x40, " */
static char *regv(char *p, const char *role, unsigned r, uint64_t v)
{
	p = fmt_s(p, role);
	*p++ = ':';
	*p++ = 'X';
	p = fmt_u(p, r);
	*p++ = '=';
	p = hv(p, v);
	*p++ = ',';
	*p++ = ' ';
	return p;
}

static void build(const struct sub *s, struct itext *t, uint64_t pc, int pipe, const char *name,
                  const char *det, size_t dlen, uint32_t id)
{
	char *p = t->text, *p0 = p;
	if (dlen > TEXT_MAX - 120) dlen = TEXT_MAX - 120;
	p = fmt_s(p, "(PC: 0x");
	p = fmt_x(p, pc);
	*p++ = ')';
	*p++ = ' ';
	const char *tok = pipe_tok[s->fam][pipe];
	if (s->fam == FAM_310P) {
		p = fmt_s(p, tok);
		p = fmt_s(p, " : (Binary: 0x");
		p = fmt_x0(p, encoding(pc, name), 8);
		p = fmt_s(p, ") ");
		p = fmt_s(p, name);
		t->name_end = (uint16_t)(p - p0);
		if (dlen) *p++ = '(';
		t->det_off = (uint16_t)(p - p0);
		memcpy(p, det, dlen);
		p += dlen;
		t->det_len = (uint16_t)(p - p0 - t->det_off);
		if (dlen) *p++ = ')';
	} else {
		size_t n = strlen(tok);
		memcpy(p, tok, n);
		p += n;
		while (n++ < 9) *p++ = ' ';
		p = fmt_s(p, ": (Binary: 0x");
		p = fmt_x0(p, encoding(pc, name), 8);
		*p++ = ')';
		*p++ = ' ';
		if (s->fam == FAM_A5) {
			p = fmt_s(p, "(ID: ");
			p = fmt_u0(p, id, 6);
			*p++ = ')';
			*p++ = ' ';
		}
		p = fmt_s(p, name);
		t->name_end = (uint16_t)(p - p0);
		if (dlen) {
			*p++ = ' ';
			*p++ = ' ';
		}
		t->det_off = (uint16_t)(p - p0);
		memcpy(p, det, dlen);
		p += dlen;
		/* A2 details end in ",", A5 details in ", " */
		if (dlen && s->fam == FAM_A2 && p[-1] == ' ') p--;
		t->det_len = (uint16_t)(p - p0 - t->det_off);
	}
	t->len = (uint16_t)(p - p0);
}

/* An instruction: CCU issue at t_ccu, popped at start, done at end.  pdet:
 * the popped line's detail when its register values differ (values at
 * issue; the executed line shows them after execution), else NULL. */
static void emit2(struct sub *s, uint64_t pc, int pipe, const char *name, const char *det, size_t dlen,
                  const char *pdet, size_t pdlen, uint64_t t_ccu, uint64_t start, uint64_t end, int has_id310)
{
	struct islot *sl = slot_get();
	uint32_t id = s->fam == FAM_A5 ? ++s->next_id : 0;
	sl->pc = pc;
	sl->pipe = (uint8_t)pipe;
	sl->name = name;
	sl->has_pop = pdet != NULL;
	build(s, &sl->x, pc, pipe, name, det, dlen, id);
	if (pdet) build(s, &sl->pop, pc, pipe, name, pdet, pdlen, id);
	if (s->fam == FAM_310P && has_id310) sl->id310 = ++s->next_id310;
	if (s->fam == FAM_A2) push(s, t_ccu, EV_CCU, pc, sl, 0, 0, 0);
	push(s, start, EV_POP, 0, sl, 0, 0, 0);
	push(s, end, EV_EXEC, 0, sl, 0, 0, 0);
	if (sl->refs == 0) slot_put(sl);
}

static void emit(struct sub *s, uint64_t pc, int pipe, const char *name, const char *det, size_t dlen,
                 uint64_t t_ccu, uint64_t start, uint64_t end, int has_id310)
{
	emit2(s, pc, pipe, name, det, dlen, NULL, 0, t_ccu, start, end, has_id310);
}

/* ---- front end and pipes ---- */

static int icache_lookup(struct sub *s, uint64_t blk)
{
	unsigned set = (unsigned)((blk >> 7) % IC_SETS), victim = 0;
	s->icclock++;
	for (unsigned w = 0; w < IC_WAYS; w++) {
		if (s->icv[set][w] && s->ic[set][w] == blk) {
			s->icage[set][w] = s->icclock;
			return 1;
		}
		if (!s->icv[set][w]) victim = w;
		else if (s->icv[set][victim] && s->icage[set][w] < s->icage[set][victim]) victim = w;
	}
	s->icv[set][victim] = 1;
	s->ic[set][victim] = blk;
	s->icage[set][victim] = s->icclock;
	return 0;
}

/* Fetch and dispatch the instruction at pc to pipe; returns the dispatch
 * (CCU issue) tick. */
static uint64_t dispatch(struct sub *s, uint64_t pc, int pipe)
{
	uint64_t grp = pc & ~(uint64_t)15;
	dp_dbi_exec(&dbi, pc - KB->pc_start);
	settle(s, s->cur);
	if (grp != s->last_group) {
		uint64_t blk = pc & ~(uint64_t)127;
		s->pm.ic_req++;
		if (!icache_lookup(s, blk)) {
			s->pm.ic_miss++;
			push(s, s->cur, EV_MISS, blk, NULL, 0, 0, 0);
			s->cur += MISS_LAT;
		}
		push(s, s->cur, EV_FETCH, grp, NULL, 0, 0, 0);
		s->cur += 1;
		s->last_group = grp;
	}
	uint64_t t = s->cur;
	if (pipe != P_S && s->qn[pipe] == QDEPTH && s->q[pipe][s->qh[pipe]] > t)
		t = s->q[pipe][s->qh[pipe]];
	s->cur = t + 1;
	return t;
}

static void queue(struct sub *s, int pipe, uint64_t start)
{
	unsigned n = s->qn[pipe], h = s->qh[pipe];
	if (n < QDEPTH) {
		s->q[pipe][(h + n) % QDEPTH] = start;
		s->qn[pipe]++;
	} else {
		s->q[pipe][h] = start;
		s->qh[pipe] = (uint8_t)((h + 1) % QDEPTH);
	}
}

/* ---- InstrTimeline: the instrumentation's dfx marks (device mode) ----
 * With CAMODEL_DEVICE_DFX_MAP naming the map bisheng-tune wrote for the
 * kernel (README section 12), an instruction at a pc of the map stamps its
 * region id on its pipe when it starts on the pipe and when it leaves it. */

struct dfx_region { uint64_t pc; uint16_t id; uint8_t pipe; };
static struct dfx_region *dfx_map;
static size_t dfx_n;

static int dfx_by_pc(const void *a, const void *b)
{
	const struct dfx_region *x = a, *y = b;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* The map of this launch: 0, or a 507000 status with a message. */
static int dfx_load(void)
{
	const char *tl = getenv("CAMODEL_DEVICE_TIMELINE"), *path = getenv("CAMODEL_DEVICE_DFX_MAP");
	free(dfx_map);
	dfx_map = NULL;
	dfx_n = 0;
	if (rt_family() != FAM_A5 || !tl || strcasecmp(tl, "InstrTimeline") || !path || !*path) return 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "camodel: %s: %s\n", path, strerror(errno));
		return 507000;
	}
	char line[512];
	size_t cap = 0;
	unsigned long lineno = 0;
	while (fgets(line, sizeof line, f)) {
		unsigned id;
		char pipe[16];
		unsigned long long pc;
		const char *q = strstr(line, ",pc=0x");
		lineno++;
		int k = sscanf(line, "region_id=%u,pipe=%15[A-Za-z0-9],", &id, pipe) == 2 && q &&
		        sscanf(q, ",pc=0x%llx", &pc) == 1 ? biu_pipe_find(pipe, strlen(pipe), 0) : -1;
		if (k < 0 || id >= BIU_IDS) {
			fprintf(stderr, "camodel: %s:%lu: not a region line\n", path, lineno);
			fclose(f);
			return 507000;
		}
		if (dfx_n == cap) {
			struct dfx_region *v = realloc(dfx_map, (cap = cap ? cap * 2 : 256) * sizeof *v);
			if (!v) { fclose(f); return 207001; }
			dfx_map = v;
		}
		dfx_map[dfx_n++] = (struct dfx_region){ pc, (uint16_t)id, (uint8_t)k };
	}
	fclose(f);
	qsort(dfx_map, dfx_n, sizeof *dfx_map, dfx_by_pc);
	return 0;
}

static void dfx_stamp(struct sub *s, uint64_t start, uint64_t end)
{
	size_t lo = 0, hi = dfx_n;
	if (!dfx_n) return;
	while (lo < hi) {
		size_t m = (lo + hi) / 2;
		if (dfx_map[m].pc < pc_off) lo = m + 1;
		else hi = m;
	}
	if (lo == dfx_n || dfx_map[lo].pc != pc_off) return;
	if (s->pm.nmarks + 2 > s->mark_cap) {
		size_t cap = s->mark_cap ? s->mark_cap * 2 : 1024;
		struct dp_mark *v = realloc(s->pm.marks, cap * sizeof *v);
		if (!v) return;   /* a mark lost, as the BIU loses them */
		s->pm.marks = v;
		s->mark_cap = cap;
	}
	uint16_t info = (uint16_t)(biu_pipe_ctrl(dfx_map[lo].pipe) << 12 | dfx_map[lo].id);
	s->pm.marks[s->pm.nmarks++] = (struct dp_mark){ start, info };
	s->pm.marks[s->pm.nmarks++] = (struct dp_mark){ end, info };
}

/* Issue a pipelined instruction: occupies the pipe occ cycles, done lat
 * cycles after that. */
static void pipe_issue(struct sub *s, uint64_t t, int pipe, uint64_t occ, uint64_t lat,
                       uint64_t *start, uint64_t *end)
{
	uint64_t st = t > s->pfree[pipe] ? t : s->pfree[pipe];
	*start = st;
	*end = st + occ + lat;
	s->pfree[pipe] = st + occ;
	s->pm.busy[pipe] += occ;
	s->pm.instr[pipe]++;
	if (*end > s->plast[pipe]) s->plast[pipe] = *end;
	queue(s, pipe, st);
	dfx_stamp(s, st, st + occ);
}

static uint64_t all_done(const struct sub *s)
{
	uint64_t m = 0;
	for (int i = 0; i < NP; i++)
		if (s->plast[i] > m) m = s->plast[i];
	return m;
}

/* ---- memory helpers (functional model) ---- */

static uint8_t *local(uint8_t *buf, uint32_t size, uint64_t off, uint64_t len, const char *what)
{
	if (!buf || off > size || len > size - off) {
		char m[128];
		snprintf(m, sizeof m, "%s access out of range (offset 0x%llx, %llu bytes)", what,
		         (unsigned long long)off, (unsigned long long)len);
		fault(m);
	}
	return buf + off;
}

static uint8_t *gm(uint64_t addr, uint64_t len)
{
	uint8_t *p = rt_dev_ptr(addr, len);
	if (!p) {
		char m[128];
		snprintf(m, sizeof m, "GM access outside any allocation (0x%llx, %llu bytes)",
		         (unsigned long long)addr, (unsigned long long)len);
		fault(m);
	}
	return p;
}

/* ---- MTE interface events ---- */

static void mte_events(struct sub *s, uint64_t start, uint64_t gmaddr, uint64_t laddr, uint64_t bytes,
                       int write_gm, int local_if)
{
	uint32_t instr = s->fam == FAM_A5 ? s->next_id : ++*s->mte_instr;
	uint64_t nreq = (bytes + REQ_BYTES - 1) / REQ_BYTES;
	if (!nreq) nreq = 1;
	for (uint64_t i = 0; i < nreq; i++) {
		uint64_t off = i * REQ_BYTES;
		uint32_t sz = (uint32_t)(bytes - off < REQ_BYTES ? bytes - off : REQ_BYTES);
		uint32_t req = ++*s->mte_req;
		uint64_t t0 = start + i * (REQ_BYTES / GM_BPC);
		int bif = write_gm ? MI_BWIF : MI_BRIF;
		if (i == 0 && write_gm)
			push(s, t0, EV_MTE, laddr | ((uint64_t)sz << 40), NULL, (MO_SEND_REQ << 8) | (uint32_t)local_if, instr, req);
		push(s, t0, EV_MTE, (gmaddr + off) | ((uint64_t)sz << 40), NULL, (MO_SEND_REQ << 8) | (uint32_t)bif, instr, req);
		push(s, t0 + GM_LAT, EV_MTE, 0, NULL, (MO_RECV_RSP << 8) | (uint32_t)bif, instr, req);
		if (i == 0 && !write_gm)
			push(s, t0 + GM_LAT + 1, EV_MTE, laddr | ((uint64_t)sz << 40), NULL,
			     (MO_SEND_REQ << 8) | (uint32_t)local_if, instr, ++*s->mte_req);
	}
}

/* ---- the intrinsics ---- */

static void scalar(struct sub *s, uint64_t pc, const char *name, const char *det, size_t dlen,
                   uint64_t lat, int blocking)
{
	uint64_t t = dispatch(s, pc, P_S);
	emit(s, pc, P_S, name, det, dlen, t, t, t + lat, 0);
	if (blocking) s->cur = t + lat;
	if (t + lat > s->plast[P_S]) s->plast[P_S] = t + lat;
	s->pm.busy[P_S] += blocking ? lat : 1;
	s->pm.instr[P_S]++;
}

/* A scalar instruction writing register rd: the popped line shows rd's
 * value at issue, the executed line the result (d[0]: executed, d[1]:
 * popped). */
static void scalar_rd(struct sub *s, uint64_t pc, const char *name, char d[2][200], const size_t *dl,
                      unsigned rd, uint64_t result, uint64_t lat, int blocking)
{
	uint64_t t = dispatch(s, pc, P_S);
	int differ = dl[0] != dl[1] || memcmp(d[0], d[1], dl[0]);
	emit2(s, pc, P_S, name, d[0], dl[0], differ ? d[1] : NULL, dl[1], t, t, t + lat, 0);
	s->regs[rd % 32] = result;
	if (blocking) s->cur = t + lat;
	if (t + lat > s->plast[P_S]) s->plast[P_S] = t + lat;
	s->pm.busy[P_S] += blocking ? lat : 1;
	s->pm.instr[P_S]++;
}

static int64_t spr(uint64_t pc, const char *sprname, int64_t v)
{
	struct sub *s = S;
	char d[2][200];
	size_t dl[2];
	unsigned rd = reg(pc, 0);
	for (int k = 0; k < 2; k++) {
		/* the popped line shows the special register's value too: the
		 * reference reads logical block ids from popped MOV_XD_SPR lines */
		uint64_t dv = (uint64_t)v;
		char *p = d[k];
		if (s->fam == FAM_310P) {
			p = fmt_s(p, "x[");
			p = fmt_u(p, rd);
			p = fmt_s(p, "]= 0x");
			p = fmt_x(p, dv);
			p = fmt_s(p, ", SPR_");
			p = fmt_s(p, sprname);
			p = fmt_s(p, "= 0x");
			p = fmt_x(p, (uint64_t)v);
		} else {
			p = regv(p, "XD", rd, dv);
			p = fmt_s(p, "SPR:");
			p = fmt_s(p, sprname);
			p = fmt_s(p, ", ");
		}
		dl[k] = (size_t)(p - d[k]);
	}
	scalar_rd(s, pc, s->fam == FAM_310P ? "scalar_mov_xd_special" : "MOV_XD_SPR", d, dl, rd, (uint64_t)v, 1, 0);
	return v;
}

static int64_t alu(uint64_t pc, const char *a2, const char *p310, int nsrc, int64_t r, int64_t x, int64_t y, int imm)
{
	struct sub *s = S;
	char d[2][200];
	size_t dl[2];
	unsigned rd = reg(pc, 0);
	for (int k = 0; k < 2; k++) {
		uint64_t dv = k ? s->regs[rd] : (uint64_t)r;
		char *p = d[k];
		if (s->fam == FAM_310P) {
			p = fmt_s(p, "xd:");
			p = fmt_u(p, rd);
			if (nsrc >= 1) { p = fmt_s(p, ", xn:"); p = fmt_u(p, reg(pc, 1)); }
			if (nsrc >= 2 && !imm) { p = fmt_s(p, ", xm:"); p = fmt_u(p, reg(pc, 2)); }
			p = fmt_s(p, ", xdValue:0x");
			p = fmt_x(p, dv);
			if (nsrc >= 1) { p = fmt_s(p, ", xnValue:0x"); p = fmt_x(p, (uint64_t)x); }
			if (nsrc >= 2) { p = fmt_s(p, imm ? ", imm:0x" : ", xmValue:0x"); p = fmt_x(p, (uint64_t)y); }
		} else {
			if (nsrc >= 1) p = fmt_s(p, "dtype:S64, ");
			p = regv(p, "XD", rd, dv);
			if (nsrc >= 1) p = regv(p, "XN", reg(pc, 1), (uint64_t)x);
			if (nsrc >= 2 && !imm) p = regv(p, "XM", reg(pc, 2), (uint64_t)y);
			if (imm || nsrc == 0) {
				p = fmt_s(p, "IMM:");
				p = hv(p, (uint64_t)(nsrc == 0 ? r : y));
				p = fmt_s(p, ", ");
			}
		}
		dl[k] = (size_t)(p - d[k]);
	}
	scalar_rd(s, pc, s->fam == FAM_310P ? p310 : a2, d, dl, rd, (uint64_t)r, 1, 0);
	return r;
}

__attribute__((noinline)) static int64_t op_block_idx(void) { return spr(PC(), "BLOCKID", S->block); }
__attribute__((noinline)) static int64_t op_block_num(void) { return spr(PC(), "BLOCKDIM", cur_block_dim); }
__attribute__((noinline)) static int64_t op_subblock_idx(void) { return spr(PC(), "SUBBLOCKID", S->subblock); }
__attribute__((noinline)) static int op_core_type(void) { return S->ctype; }

__attribute__((noinline)) static int64_t op_movi(int64_t imm)
{
	return alu(PC(), "MOV_XD_IMM", "scalar_mov_xd_imme16", 0, imm, 0, 0, 1);
}
__attribute__((noinline)) static int64_t op_add(int64_t a, int64_t b)
{
	return alu(PC(), "ADD", "scalar_add", 2, a + b, a, b, 0);
}
__attribute__((noinline)) static int64_t op_addi(int64_t a, int64_t imm)
{
	return alu(PC(), "ADD_IMM", "scalar_add_imm", 2, a + imm, a, imm, 1);
}
__attribute__((noinline)) static int64_t op_mul(int64_t a, int64_t b)
{
	return alu(PC(), "MUL", "scalar_mul", 2, a * b, a, b, 0);
}

static char *ldst_detail(struct sub *s, char *p, uint64_t pc, uint64_t v, uint64_t addr, int bytes)
{
	if (s->fam == FAM_310P) {
		p = fmt_s(p, "xd:");
		p = fmt_u(p, reg(pc, 0));
		p = fmt_s(p, ", xn:");
		p = fmt_u(p, reg(pc, 1));
		p = fmt_s(p, ", xdValue:0x");
		p = fmt_x(p, v);
		p = fmt_s(p, ", xnValue:0x");
		p = fmt_x(p, addr);
		p = fmt_s(p, ", size:");
		p = fmt_u(p, (uint64_t)bytes);
	} else {
		p = fmt_s(p, "dtype:B");
		p = fmt_u(p, (uint64_t)bytes * 8);
		p = fmt_s(p, ", ");
		p = regv(p, "XD", reg(pc, 0), v);
		p = regv(p, "XN", reg(pc, 1), addr);
		p = fmt_s(p, "IMM:0, ");
	}
	return p;
}

__attribute__((noinline)) static uint64_t op_ld_gm(GM_ADDR addr, int bytes)
{
	uint64_t pc = PC();
	struct sub *s = S;
	if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) fault("LD_GM: size must be 1, 2, 4 or 8");
	uint64_t v = 0;
	memcpy(&v, gm(addr, (uint64_t)bytes), (size_t)bytes);
	char d[2][200];
	size_t dl[2];
	unsigned rd = reg(pc, 0);
	dl[0] = (size_t)(ldst_detail(s, d[0], pc, v, addr, bytes) - d[0]);
	dl[1] = (size_t)(ldst_detail(s, d[1], pc, s->regs[rd], addr, bytes) - d[1]);
	scalar_rd(s, pc, s->fam == FAM_310P ? "scalar_ld" : "LD_XD_XN_IMM", d, dl, rd, v, LD_LAT, 1);
	return v;
}

__attribute__((noinline)) static void op_st_gm(GM_ADDR addr, uint64_t val, int bytes)
{
	uint64_t pc = PC();
	struct sub *s = S;
	if (bytes != 1 && bytes != 2 && bytes != 4 && bytes != 8) fault("ST_GM: size must be 1, 2, 4 or 8");
	memcpy(gm(addr, (uint64_t)bytes), &val, (size_t)bytes);
	char d[200], *p = ldst_detail(s, d, pc, val, addr, bytes);
	scalar(s, pc, s->fam == FAM_310P ? "scalar_st" : "ST_XD_XN_IMM", d, (size_t)(p - d), 2, 0);
}

/* A2: "Src:OUT, Dst:UB, XD:X1=0x0, XN:X2=0x40000000, XM:X3=0x100010, " */
static char *mov_detail(struct sub *s, char *p, uint64_t pc, const char *src, const char *dst,
                        uint64_t xd, uint64_t xn, uint64_t xm, int sid, int did)
{
	if (s->fam == FAM_310P) {
		p = fmt_s(p, "xd:");
		p = fmt_u(p, reg(pc, 0));
		p = fmt_s(p, ", xn:");
		p = fmt_u(p, reg(pc, 1));
		p = fmt_s(p, ", xm:");
		p = fmt_u(p, reg(pc, 2));
		p = fmt_s(p, ", xdValue:0x");
		p = fmt_x(p, xd);
		p = fmt_s(p, ", xnValue:0x");
		p = fmt_x(p, xn);
		p = fmt_s(p, ", xmValue:0x");
		p = fmt_x(p, xm);
		p = fmt_s(p, ", srcIDValue:");
		p = fmt_u(p, (uint64_t)sid);
		p = fmt_s(p, ", destIDValue:");
		p = fmt_u(p, (uint64_t)did);
		p = fmt_s(p, ", reluValue:0, padValue:0");
	} else {
		p = fmt_s(p, "Src:");
		p = fmt_s(p, src);
		p = fmt_s(p, ", Dst:");
		p = fmt_s(p, dst);
		p = fmt_s(p, ", ");
		p = regv(p, "XD", reg(pc, 0), xd);
		p = regv(p, "XN", reg(pc, 1), xn);
		p = regv(p, "XM", reg(pc, 2), xm);
	}
	return p;
}

static void mte_copy(uint64_t pc, int pipe, const char *a2, const char *p310, const char *src, const char *dst,
                     int sid, int did, uint64_t xd, uint64_t xn, uint32_t nburst, uint32_t lenburst,
                     int write_gm, int local_if, uint64_t gmaddr, uint64_t laddr)
{
	struct sub *s = S;
	if (nburst == 0 || nburst > 4095 || lenburst == 0 || lenburst > 65535) fault("copy: burst out of range");
	uint64_t bytes = (uint64_t)nburst * lenburst * 32;
	uint64_t xm = ((uint64_t)lenburst << 16) | ((uint64_t)nburst << 4);
	char d[300], *p = mov_detail(s, d, pc, src, dst, xd, xn, xm, sid, did);
	uint64_t t = dispatch(s, pc, pipe), st, en;
	pipe_issue(s, t, pipe, 4 + bytes / GM_BPC, GM_LAT, &st, &en);
	emit(s, pc, pipe, s->fam == FAM_310P ? p310 : a2, d, (size_t)(p - d), t, st, en, 1);
	if (s->fam != FAM_310P && log_on[DVC_MTE_LOG] && (s->f_mte || logw_cb[DVC_MTE_LOG].mte)) mte_events(s, st, gmaddr, laddr, bytes, write_gm, local_if);
}

/* A DMA move as the DBI stub records it (a record per burst, expanded). */
static void dbi_bursts(uint64_t pc, unsigned src, unsigned dst, uint64_t saddr, uint64_t daddr, uint32_t nburst,
                       uint32_t lenburst)
{
	dp_dbi_dma(&dbi, (unsigned)S->block, (unsigned)S->subblock, pc - KB->pc_start, src, dst, saddr, daddr, nburst,
	           lenburst);
}

__attribute__((noinline)) static void op_gm_to_ub(uint32_t ub, GM_ADDR g, uint32_t nburst, uint32_t lenburst)
{
	uint64_t pc = PC(), n = (uint64_t)nburst * lenburst * 32;
	memcpy(local(S->ub, UB_SIZE, ub, n, "UB"), gm(g, n), n);
	S->pm.bytes[DP_GM_TO_UB] += n;
	dbi_bursts(pc, DP_MEM_GM, DP_MEM_UB, g, ub, nburst, lenburst);
	mte_copy(pc, P_MTE2, "MOV_OUT_TO_UB", "mov_out_to_ub", "OUT", "UB", 2, 1, ub, g, nburst, lenburst, 0, MI_UBW, g, ub);
}

__attribute__((noinline)) static void op_ub_to_gm(GM_ADDR g, uint32_t ub, uint32_t nburst, uint32_t lenburst)
{
	uint64_t pc = PC(), n = (uint64_t)nburst * lenburst * 32;
	memcpy(gm(g, n), local(S->ub, UB_SIZE, ub, n, "UB"), n);
	S->pm.bytes[DP_UB_TO_GM] += n;
	dbi_bursts(pc, DP_MEM_UB, DP_MEM_GM, ub, g, nburst, lenburst);
	mte_copy(pc, P_MTE3, "MOV_UB_TO_OUT", "mov_ub_to_out", "UB", "OUT", 1, 2, g, ub, nburst, lenburst, 1, MI_UBR, g, ub);
}

__attribute__((noinline)) static void op_gm_to_l1(uint32_t l1, GM_ADDR g, uint32_t nburst, uint32_t lenburst)
{
	uint64_t pc = PC(), n = (uint64_t)nburst * lenburst * 32;
	memcpy(local(S->l1, L1_SIZE, l1, n, "L1"), gm(g, n), n);
	S->pm.bytes[DP_GM_TO_L1] += n;
	dbi_bursts(pc, DP_MEM_GM, DP_MEM_L1, g, l1, nburst, lenburst);
	mte_copy(pc, P_MTE2, "MOV_OUT_TO_L1", "mov_out_to_l1", "OUT", "L1", 2, 3, l1, g, nburst, lenburst, 0, MI_L1W, g, l1);
}

static void load2d(uint64_t pc, uint8_t *dstbuf, uint32_t dsz, const char *dname, uint32_t dst, uint32_t l1, uint32_t repeat)
{
	struct sub *s = S;
	if (repeat == 0 || repeat > 255) fault("load2d: repeat must be 1..255");
	uint64_t n = (uint64_t)repeat * 512;
	memcpy(local(dstbuf, dsz, dst, n, dname), local(s->l1, L1_SIZE, l1, n, "L1"), n);
	s->pm.bytes[dstbuf == s->l0a ? DP_L1_TO_L0A : DP_L1_TO_L0B] += n;
	dp_dbi_load2d(&dbi, (unsigned)s->block, (unsigned)s->subblock, pc - KB->pc_start,
	              dstbuf == s->l0a ? DP_MEM_L0A : DP_MEM_L0B, l1, dst, repeat);
	char d[300], *p = mov_detail(s, d, pc, "L1", dname, dst, l1, (uint64_t)repeat << 16, 3, 4);
	uint64_t t = dispatch(s, pc, P_MTE1), st, en;
	pipe_issue(s, t, P_MTE1, 2 + n / 128, 6, &st, &en);
	emit(s, pc, P_MTE1, s->fam == FAM_310P ? (dstbuf == s->l0a ? "load_l1_to_l0a_2d" : "load_l1_to_l0b_2d") : "LOAD_2D",
	     d, (size_t)(p - d), t, st, en, 1);
}

__attribute__((noinline)) static void op_l1_to_l0a(uint32_t l0a, uint32_t l1, uint32_t repeat)
{
	load2d(PC(), S->l0a, L0A_SIZE, "L0A", l0a, l1, repeat);
}
__attribute__((noinline)) static void op_l1_to_l0b(uint32_t l0b, uint32_t l1, uint32_t repeat)
{
	load2d(PC(), S->l0b, L0B_SIZE, "L0B", l0b, l1, repeat);
}

__attribute__((noinline)) static void op_mmad(uint32_t c, uint32_t a, uint32_t b, uint32_t m, uint32_t k, uint32_t n, int acc)
{
	uint64_t pc = PC();
	struct sub *s = S;
	if (!m || !k || !n || m > 4095 || k > 4095 || n > 4095) fault("mmad: m, k, n must be 1..4095");
	float *A = (float *)local(s->l0a, L0A_SIZE, a, (uint64_t)m * k * 4, "L0A");
	float *B = (float *)local(s->l0b, L0B_SIZE, b, (uint64_t)k * n * 4, "L0B");
	float *C = (float *)local(s->l0c, L0C_SIZE, c, (uint64_t)m * n * 4, "L0C");
	for (uint32_t i = 0; i < m; i++)
		for (uint32_t j = 0; j < n; j++) {
			float sum = acc ? C[i * n + j] : 0.0f;
			for (uint32_t l = 0; l < k; l++) sum += A[i * k + l] * B[l * n + j];
			C[i * n + j] = sum;
		}
	char d[300], *p = d;
	uint64_t xt = (uint64_t)m | ((uint64_t)k << 12) | ((uint64_t)n << 24) | ((uint64_t)(acc ? 0 : 1) << 62);
	if (s->fam == FAM_310P) {
		p = fmt_s(p, "xd:0x"); p = fmt_x(p, c);
		p = fmt_s(p, ", xn:0x"); p = fmt_x(p, a);
		p = fmt_s(p, ", xm:0x"); p = fmt_x(p, b);
		p = fmt_s(p, ", xtValue:0x"); p = fmt_x(p, xt);
	} else {
		p = fmt_s(p, "Dtype:F32, ");
		p = regv(p, "XD", reg(pc, 0), c);
		p = regv(p, "XN", reg(pc, 1), a);
		p = regv(p, "XM", reg(pc, 2), b);
		p = regv(p, "XT", reg(pc, 3), xt);
	}
	uint64_t fr = (uint64_t)((m + 15) / 16) * ((k + 15) / 16) * ((n + 15) / 16);
	/* the instrumentation's count of an fp32 MMAD: 2 x M x N x K over
	 * 16 x 16 fractals, K in steps of 8 (32 bytes) */
	s->pm.mmad_instr++;
	s->pm.mmad_ops += 2 * (uint64_t)((m + 15) / 16 * 16) * ((n + 15) / 16 * 16) * ((k + 7) / 8 * 8);
	s->pm.bytes[DP_L0A_TO_CUBE] += (uint64_t)m * k * 4;
	s->pm.bytes[DP_L0B_TO_CUBE] += (uint64_t)k * n * 4;
	s->pm.bytes[DP_CUBE_TO_L0C] += (uint64_t)m * n * 4;
	uint64_t t = dispatch(s, pc, P_M), st, en;
	pipe_issue(s, t, P_M, 1 + fr, CUBE_LAT, &st, &en);
	emit(s, pc, P_M, s->fam == FAM_310P ? "mmad" : "MMAD", d, (size_t)(p - d), t, st, en, 1);
}

__attribute__((noinline)) static void op_l0c_to_gm(GM_ADDR g, uint32_t c, uint32_t m, uint32_t n)
{
	uint64_t pc = PC();
	struct sub *s = S;
	if (!m || !n || m > 65535 || n > 4095) fault("fixpipe: m 1..65535, n 1..4095");
	uint64_t bytes = (uint64_t)m * n * 4;
	memcpy(gm(g, bytes), local(s->l0c, L0C_SIZE, c, bytes, "L0C"), bytes);
	s->pm.bytes[DP_L0C_TO_GM] += bytes;
	dp_dbi_mem(&dbi, (unsigned)s->block, (unsigned)s->subblock, pc - KB->pc_start, DP_MEM_L0C, DP_MEM_GM, c, g, bytes,
	           bytes);
	char d[300], *p = d;
	uint64_t xm = ((uint64_t)n << 32) | ((uint64_t)m << 16) | ((uint64_t)n << 4);
	if (s->fam == FAM_310P) {
		p = mov_detail(s, p, pc, "L0C", "OUT", g, c, xm, 5, 2);
	} else {
		p = fmt_s(p, "Src:L0C, Dst:OUT, ");
		p = regv(p, "XD", reg(pc, 0), g);
		p = regv(p, "XN", reg(pc, 1), c);
		p = regv(p, "XM", reg(pc, 2), xm);
		p = regv(p, "XT", reg(pc, 3), 0);
	}
	uint64_t t = dispatch(s, pc, P_FIX), st, en;
	pipe_issue(s, t, P_FIX, 2 + bytes / GM_BPC, FIX_LAT, &st, &en);
	emit(s, pc, P_FIX, s->fam == FAM_310P ? "mov_l0c_to_out" : "FIX_L0C_TO_DST", d, (size_t)(p - d), t, st, en, 1);
	if (s->fam != FAM_310P && log_on[DVC_MTE_LOG] && (s->f_mte || logw_cb[DVC_MTE_LOG].mte)) mte_events(s, st, g, c, bytes, 1, MI_FIXR);
}

/* ---- vector unit ---- */

static const char *const dt_a2[] = { "F32", "F16", "S32", "S16", "U8" };
static const unsigned dt_bytes[] = { 4, 2, 4, 2, 1 };
static const unsigned dt_310[] = { 7, 5, 4, 9, 0 };

__attribute__((noinline)) static void op_set_mask(uint64_t mask, int pos)
{
	uint64_t pc = PC();
	struct sub *s = S;
	if (pos) s->mask1 = mask; else s->mask0 = mask;
	char d[128], *p = d;
	if (s->fam == FAM_310P) {
		p = fmt_s(p, "mask:");
		p = fmt_u(p, pos ? 1 : 0);
		p = fmt_s(p, ", X");
		p = fmt_u(p, reg(pc, 1));
		p = fmt_s(p, ":0x");
		p = fmt_x(p, mask);
	} else {
		p = regv(p, "XN", reg(pc, 1), mask);
		p = fmt_s(p, "Pos:");
		p = fmt_u(p, pos ? 1 : 0);
		p = fmt_s(p, ", ");
	}
	uint64_t t = dispatch(s, pc, P_V), st, en;
	pipe_issue(s, t, P_V, 1, 1, &st, &en);
	emit(s, pc, P_V, s->fam == FAM_310P ? "movemask" : "MOVEMASK", d, (size_t)(p - d), t, st, en, 1);
}

static int lane_on(const struct sub *s, unsigned e)
{
	return e < 64 ? (int)((s->mask0 >> e) & 1) : (int)((s->mask1 >> (e - 64)) & 1);
}

static float fval(const uint8_t *p, int dt)
{
	if (dt == DT_F32) { float f; memcpy(&f, p, 4); return f; }
	if (dt == DT_S32) { int32_t v; memcpy(&v, p, 4); return (float)v; }
	if (dt == DT_S16) { int16_t v; memcpy(&v, p, 2); return (float)v; }
	if (dt == DT_U8) return (float)*p;
	return 0.0f;   /* F16: not computed */
}

static void fstore(uint8_t *p, int dt, float v)
{
	if (dt == DT_F32) memcpy(p, &v, 4);
	else if (dt == DT_S32) { int32_t x = (int32_t)v; memcpy(p, &x, 4); }
	else if (dt == DT_S16) { int16_t x = (int16_t)v; memcpy(p, &x, 2); }
	else if (dt == DT_U8) *p = (uint8_t)v;
}

static char *vec_detail(struct sub *s, char *p, uint64_t pc, int dt, uint32_t repeat, uint64_t xt,
                        uint32_t dst, uint32_t s0, long s1, int has_scalar, float sc)
{
	if (s->fam == FAM_310P) {
		p = fmt_s(p, "repeat:");
		p = fmt_u(p, repeat);
		p = fmt_s(p, ", type:");
		p = fmt_u(p, dt_310[dt]);
		p = fmt_s(p, ", dest_addr:0x");
		p = fmt_x(p, dst);
		p = fmt_s(p, ", dst_stride:1, dst_rep_stride:8, src_addr:0x");
		p = fmt_x(p, s0);
		p = fmt_s(p, ", src_stride:1, src_rep_stride:8");
		if (s1 >= 0) {
			p = fmt_s(p, ", src1_addr:0x");
			p = fmt_x(p, (uint64_t)s1);
			p = fmt_s(p, ", src1_stride:1, src1_rep_stride:8");
		}
	} else {
		p = fmt_s(p, "Dtype:");
		p = fmt_s(p, dt_a2[dt]);
		p = fmt_s(p, ", ");
		p = regv(p, "XD", reg(pc, 0), dst);
		p = regv(p, "XN", reg(pc, 1), s0);
		if (s1 >= 0) p = regv(p, "XM", reg(pc, 2), (uint64_t)s1);
		if (has_scalar) {
			uint32_t bits;
			memcpy(&bits, &sc, 4);
			p = regv(p, "XM", reg(pc, 2), bits);
		}
		p = regv(p, "XT", reg(pc, 3), xt);
	}
	return p;
}

/* A vector instruction of nsrc sources of repeat x 256 bytes, writing
 * wbytes, of type dt (the PMU's counts). */
static void vec_issue(struct sub *s, uint64_t pc, const char *name, const char *d, size_t dlen, uint32_t repeat,
                      int dt, unsigned nsrc, uint64_t wbytes)
{
	uint64_t t = dispatch(s, pc, P_V), st, en;
	s->pm.bytes[DP_UB_TO_VEC] += (uint64_t)nsrc * repeat * 256;
	s->pm.bytes[DP_VEC_TO_UB] += wbytes;
	uint64_t *c = dt == DT_F32 ? &s->pm.vec_f32 : dt == DT_F16 ? &s->pm.vec_f16 : dt == DT_S32 ? &s->pm.vec_s32
	            : dt == DT_S16 ? &s->pm.vec_s16 : NULL;
	if (c) (*c)++;
	pipe_issue(s, t, P_V, 1 + repeat, VEC_LAT, &st, &en);
	emit(s, pc, P_V, name, d, dlen, t, st, en, 1);
}

__attribute__((noinline)) static void op_vbin(int op, uint32_t dst, uint32_t s0, uint32_t s1, uint32_t repeat, int dt)
{
	static const char *const nm[] = { "VADD", "VSUB", "VMUL", "VMAX", "VMIN", "VDIV" };
	uint64_t pc = PC();
	struct sub *s = S;
	if (op < 0 || op > V_DIV || dt < 0 || dt > DT_U8) fault("vbin: bad operation or dtype");
	if (repeat == 0 || repeat > 255) fault("vector repeat must be 1..255");
	uint64_t n = (uint64_t)repeat * 256;
	uint8_t *D = local(s->ub, UB_SIZE, dst, n, "UB"), *A = local(s->ub, UB_SIZE, s0, n, "UB"),
	        *B = local(s->ub, UB_SIZE, s1, n, "UB");
	unsigned eb = dt_bytes[dt], per = 256 / eb;
	if (dt != DT_F16)
		for (uint32_t r = 0; r < repeat; r++)
			for (unsigned e = 0; e < per; e++) {
				if (!lane_on(s, e)) continue;
				size_t o = (size_t)r * 256 + e * eb;
				float x = fval(A + o, dt), y = fval(B + o, dt), z;
				switch (op) {
				case V_ADD: z = x + y; break;
				case V_SUB: z = x - y; break;
				case V_MUL: z = x * y; break;
				case V_MAX: z = x > y ? x : y; break;
				case V_MIN: z = x < y ? x : y; break;
				default: z = y != 0.0f ? x / y : 0.0f; break;
				}
				fstore(D + o, dt, z);
			}
	uint64_t xt = 1 | (1ull << 8) | (1ull << 16) | (8ull << 24) | (8ull << 32) | (8ull << 40) | ((uint64_t)repeat << 56);
	char d[300], *p = vec_detail(s, d, pc, dt, repeat, xt, dst, s0, s1, 0, 0);
	vec_issue(s, pc, s->fam == FAM_310P ? (op == V_ADD ? "vadd" : op == V_SUB ? "vsub" : op == V_MUL ? "vmul" :
	          op == V_MAX ? "vmax" : op == V_MIN ? "vmin" : "vdiv") : nm[op], d, (size_t)(p - d), repeat,
	          dt, 2, n);
}

__attribute__((noinline)) static void op_vuna(int op, uint32_t dst, uint32_t src, float sc, uint32_t repeat, int dt)
{
	static const char *const nm[] = { "VADDS", "VMULS", "VMAXS", "VEXP", "VRELU", "VABS", "VLN" };
	static const char *const nl[] = { "vadds", "vmuls", "vmaxs", "vexp", "vrelu", "vabs", "vln" };
	uint64_t pc = PC();
	struct sub *s = S;
	if (op < 0 || op > V_LN || dt < 0 || dt > DT_U8) fault("vuna: bad operation or dtype");
	if (repeat == 0 || repeat > 255) fault("vector repeat must be 1..255");
	uint64_t n = (uint64_t)repeat * 256;
	uint8_t *D = local(s->ub, UB_SIZE, dst, n, "UB"), *A = local(s->ub, UB_SIZE, src, n, "UB");
	unsigned eb = dt_bytes[dt], per = 256 / eb;
	if (dt != DT_F16)
		for (uint32_t r = 0; r < repeat; r++)
			for (unsigned e = 0; e < per; e++) {
				if (!lane_on(s, e)) continue;
				size_t o = (size_t)r * 256 + e * eb;
				float x = fval(A + o, dt), z;
				switch (op) {
				case V_ADDS: z = x + sc; break;
				case V_MULS: z = x * sc; break;
				case V_MAXS: z = x > sc ? x : sc; break;
				case V_RELU: z = x > 0 ? x : 0; break;
				case V_ABS: z = x < 0 ? -x : x; break;
				default: z = x; break;   /* exp/ln: data passes through */
				}
				fstore(D + o, dt, z);
			}
	uint64_t xt = 1 | (1ull << 16) | (8ull << 32) | (8ull << 40) | ((uint64_t)repeat << 56);
	int has_sc = op <= V_MAXS;
	char d[300], *p = vec_detail(s, d, pc, dt, repeat, xt, dst, src, -1, has_sc, sc);
	vec_issue(s, pc, s->fam == FAM_310P ? nl[op] : nm[op], d, (size_t)(p - d), repeat, dt, 1, n);
}

__attribute__((noinline)) static void op_vreduce_add(uint32_t dst, uint32_t src, uint32_t repeat, int dt)
{
	uint64_t pc = PC();
	struct sub *s = S;
	if (dt < 0 || dt > DT_U8) fault("vreduce: bad dtype");
	if (repeat == 0 || repeat > 255) fault("vector repeat must be 1..255");
	unsigned eb = dt_bytes[dt], per = 256 / eb;
	uint8_t *A = local(s->ub, UB_SIZE, src, (uint64_t)repeat * 256, "UB");
	uint8_t *D = local(s->ub, UB_SIZE, dst, (uint64_t)repeat * eb, "UB");
	if (dt != DT_F16)
		for (uint32_t r = 0; r < repeat; r++) {
			float sum = 0;
			for (unsigned e = 0; e < per; e++)
				if (lane_on(s, e)) sum += fval(A + (size_t)r * 256 + e * eb, dt);
			fstore(D + (size_t)r * eb, dt, sum);
		}
	uint64_t xt = 1 | (1ull << 16) | (8ull << 32) | ((uint64_t)repeat << 56);
	char d[300], *p = vec_detail(s, d, pc, dt, repeat, xt, dst, src, -1, 0, 0);
	vec_issue(s, pc, s->fam == FAM_310P ? "vcadd" : "VCADD", d, (size_t)(p - d), repeat, dt, 1,
	          (uint64_t)repeat * eb);
}

/* ---- synchronisation ---- */

static int mpipe(int kp)
{
	static const int map[] = { P_S, P_MTE1, P_MTE2, P_MTE3, P_V, P_M, P_FIX };
	if (kp < 0 || kp > PIPE_FIX) fault("bad pipe");
	return map[kp];
}

static char *flag_detail(struct sub *s, char *p, int pp, int tp, int id)
{
	if (s->fam == FAM_310P) {
		p = fmt_s(p, "pipe_type: ");
		p = fmt_s(p, pipe_tok[FAM_310P][pp]);
		p = fmt_s(p, ", tigger_pipe: ");
		p = fmt_s(p, pipe_tok[FAM_310P][tp]);
		p = fmt_s(p, ", event_id: ");
		p = fmt_u(p, (uint64_t)id);
	} else {
		p = fmt_s(p, "PIPE:");
		p = fmt_s(p, pipe_tok[s->fam][pp]);
		p = fmt_s(p, ", TRIGGER PIPE:");
		p = fmt_s(p, pipe_tok[s->fam][tp]);
		p = fmt_s(p, ", FLAG ID:");
		p = fmt_u(p, (uint64_t)id);
		p = fmt_s(p, ", ");
	}
	return p;
}

__attribute__((noinline)) static void op_set_flag(int kp, int kt, int id)
{
	uint64_t pc = PC();
	struct sub *s = S;
	int pp = mpipe(kp), tp = mpipe(kt);
	if (id < 0 || id > 15) fault("flag id must be 0..15");
	uint64_t t = dispatch(s, pc, pp);
	uint64_t st = t > s->pfree[pp] ? t : s->pfree[pp];
	uint64_t en = (st > s->plast[pp] ? st : s->plast[pp]) + 1;
	s->pfree[pp] = st + 1;
	s->plast[pp] = en;
	queue(s, pp, st);
	struct flagq *q = &s->flag[kp][kt][id];
	if (q->n == FLAG_Q) { q->h = (uint8_t)((q->h + 1) % FLAG_Q); q->n--; }
	q->t[(q->h + q->n++) % FLAG_Q] = en;
	char d[160], *p = flag_detail(s, d, pp, tp, id);
	emit(s, pc, pp, s->fam == FAM_310P ? "set_event" : "SET_FLAG", d, (size_t)(p - d), t, st, en, pp != P_S);
}

static void wait_until(struct sub *s, uint64_t pc, int tp, uint64_t ready, const char *name, const char *d, size_t dlen)
{
	uint64_t t = dispatch(s, pc, tp);
	uint64_t st = t > s->pfree[tp] ? t : s->pfree[tp];
	uint64_t en = (st > ready ? st : ready) + 1;
	if (ready > st) s->pm.wait[tp] += ready - st;
	s->pfree[tp] = en;
	if (en > s->plast[tp]) s->plast[tp] = en;
	queue(s, tp, st);
	if (tp == P_S && en > s->cur) s->cur = en;
	emit(s, pc, tp, name, d, dlen, t, st, en, tp != P_S);
}

__attribute__((noinline)) static void op_wait_flag(int kp, int kt, int id)
{
	uint64_t pc = PC();
	struct sub *s = S;
	int pp = mpipe(kp), tp = mpipe(kt);
	if (id < 0 || id > 15) fault("flag id must be 0..15");
	struct flagq *q = &s->flag[kp][kt][id];
	uint64_t ready = 0;
	if (q->n) {
		ready = q->t[q->h];
		q->h = (uint8_t)((q->h + 1) % FLAG_Q);
		q->n--;
	} else {
		s->waits_unmatched++;   /* a hang on hardware; the model lets it pass */
	}
	char d[160], *p = flag_detail(s, d, pp, tp, id);
	wait_until(s, pc, tp, ready, s->fam == FAM_310P ? "wait_event" : "WAIT_FLAG", d, (size_t)(p - d));
}

__attribute__((noinline)) static void op_barrier(int kp)
{
	uint64_t pc = PC();
	struct sub *s = S;
	char d[64], *p = d;
	const char *nm = s->fam == FAM_310P ? "barrier" : "BAR";
	if (kp == PIPE_ALL) {
		if (s->fam == FAM_310P) p = fmt_s(p, "pipe_type: ALL");
		else p = fmt_s(p, "PIPE:ALL, ");
		uint64_t t = dispatch(s, pc, P_S);
		uint64_t done = all_done(s);
		uint64_t en = (t > done ? t : done) + 1;
		emit(s, pc, P_S, nm, d, (size_t)(p - d), t, t, en, 0);
		s->cur = en;
		for (int i = 0; i < NP; i++) {
			if (s->pfree[i] < en) s->pfree[i] = en;
			if (s->plast[i] < en) s->plast[i] = en;
		}
		return;
	}
	int pp = mpipe(kp);
	if (s->fam == FAM_310P) { p = fmt_s(p, "pipe_type: "); p = fmt_s(p, pipe_tok[FAM_310P][pp]); }
	else { p = fmt_s(p, "PIPE:"); p = fmt_s(p, pipe_tok[s->fam][pp]); p = fmt_s(p, ", "); }
	uint64_t t = dispatch(s, pc, pp);
	uint64_t st = t > s->pfree[pp] ? t : s->pfree[pp];
	uint64_t en = (st > s->plast[pp] ? st : s->plast[pp]) + 1;
	s->pfree[pp] = en;
	s->plast[pp] = en;
	queue(s, pp, st);
	if (pp == P_S) s->cur = en;
	emit(s, pc, pp, nm, d, (size_t)(p - d), t, st, en, pp != P_S);
}

static void cross_record(struct cross *c, int id, uint64_t t)
{
	if (c->n[id] == c->cap[id]) {
		uint32_t nc = c->cap[id] ? c->cap[id] * 2 : 64;
		uint64_t *a = realloc(c->t[id], nc * sizeof *a);
		if (!a) fault("out of host memory");
		c->t[id] = a;
		c->cap[id] = nc;
	}
	c->t[id][c->n[id]++] = t;
}

static char *cross_detail(struct sub *s, char *p, int pp, int id)
{
	p = fmt_s(p, "PIPE:");
	p = fmt_s(p, pipe_tok[s->fam][pp]);
	if (s->fam == FAM_A5) p = fmt_s(p, ", sync_id:");
	else if (s->fam == FAM_310P) p = fmt_s(p, ", flag_id:");
	else p = fmt_s(p, ", FLAG ID:");
	p = fmt_u(p, (uint64_t)id);
	if (s->fam != FAM_310P) p = fmt_s(p, ", ");
	return p;
}

__attribute__((noinline)) static void op_cross_set(int kp, int id)
{
	uint64_t pc = PC();
	struct sub *s = S;
	int pp = mpipe(kp);
	if (id < 0 || id > 15) fault("cross-core flag id must be 0..15");
	/* A5 addresses each vector sub-core: sync_id n for veccore0, n+16 for veccore1 */
	int nset = (s->fam == FAM_A5 && s->kind == 2) ? 2 : 1;
	for (int k = 0; k < nset; k++) {
		uint64_t t = k ? s->cur : dispatch(s, pc, pp);
		if (k) s->cur++;
		uint64_t st = t > s->pfree[pp] ? t : s->pfree[pp];
		uint64_t en = (st > s->plast[pp] ? st : s->plast[pp]) + 1;
		s->pfree[pp] = st + 1;
		s->plast[pp] = en;
		queue(s, pp, st);
		if (k == 0 && s->cross) cross_record(s->cross, id, en);
		char d[128], *p = cross_detail(s, d, pp, id + 16 * k);
		emit(s, pc + 4u * (unsigned)k, pp, s->fam == FAM_A5 ? "SET_INTRA_BLOCK" : "SET_CROSS_CORE",
		     d, (size_t)(p - d), t, st, en, 1);
	}
}

__attribute__((noinline)) static void op_cross_wait(int kp, int id)
{
	uint64_t pc = PC();
	struct sub *s = S;
	int pp = mpipe(kp);
	if (id < 0 || id > 15) fault("cross-core flag id must be 0..15");
	uint64_t ready = 0;
	if (s->cross && s->cross_pos[id] < s->cross->n[id]) ready = s->cross->t[id][s->cross_pos[id]++];
	else s->waits_unmatched++;
	char d[128], *p = cross_detail(s, d, pp, id);
	wait_until(s, pc, pp, ready, s->fam == FAM_A5 ? "WAIT_INTRA_BLOCK" : "WAIT_CROSS_CORE", d, (size_t)(p - d));
}

/* TRACE_START/STOP: the pipes drain, the mark is written to the loop-count
 * register, and a NOP_PIPE (at the next PC) follows at once, so nothing
 * else completes between them, as in the A2 sample of optrace-dumps(5),
 * TRACE MARKS. */
__attribute__((noinline)) static void op_trace_mark(int start, int id)
{
	uint64_t pc = PC();
	struct sub *s = S;
	if (id < 0 || id > 9) fault("trace mark id must be 0..9");
	uint64_t t = dispatch(s, pc, P_S);
	uint64_t m = all_done(s);
	if (m < t) m = t;
	uint64_t v = (start ? 0x80000000ull : 0xc0000000ull) | (uint64_t)id;
	char d[128], *p = d;
	if (s->fam == FAM_310P) {
		p = fmt_s(p, "SPR:LPCNT, xn:0x");
		p = fmt_x(p, v);
	} else {
		p = fmt_s(p, "SPR:LPCNT, ");
		p = regv(p, "XN", reg(pc, 1), v);
	}
	emit(s, pc, P_S, s->fam == FAM_310P ? "scalar_mov_spr_xn" : "MOV_SPR_XN", d, (size_t)(p - d), t, m, m + 1, 0);
	emit(s, pc + 4, P_MTE2, "NOP_PIPE", "", 0, m + 1, m + 1, m + 2, 1);
	s->cur = m + 2;
	for (int i = 0; i < NP; i++) {
		if (s->pfree[i] < m + 2) s->pfree[i] = m + 2;
		if (s->plast[i] < m + 2) s->plast[i] = m + 2;
	}
}

/* An on-board timestamp dot: kept with the sub-core's cycle and the
 * call's pc for aic_timestamp.bin (device mode; the simulator's dumps
 * have no such file). */
__attribute__((noinline)) static void op_dot(uint32_t desc_id)
{
	uint64_t pc = PC();
	struct sub *s = S;
	if (s->pm.ndots < DP_DOTS_MAX) {
		struct dp_dot *d = &s->pm.dot[s->pm.ndots];
		d->cycle = s->cur;
		d->pc = pc;
		d->id = desc_id;
	}
	s->pm.ndots++;
}

/* SIMT (A5): one instruction per warp; four warp schedulers. */
__attribute__((noinline)) static void op_simt(int op, uint32_t nwarps, uint32_t nlanes)
{
	static const char *const nm[] = { "SIMT_LDG", "SIMT_STG", "SIMT_FADD", "SIMT_FMUL", "SIMT_IADD" };
	static const int pp[] = { P_LD, P_ST, P_EX, P_EX, P_EX };
	static const unsigned lat[] = { 24, 8, 4, 4, 2 };
	uint64_t pc = PCalign(__builtin_return_address(0), 8);
	struct sub *s = S;
	if (op < 0 || op > SIMT_IADD) fault("simt: bad operation");
	if (nwarps == 0 || nwarps > 64 || nlanes == 0 || nlanes > 32) fault("simt: 1..64 warps of 1..32 lanes");
	if (s->fam != FAM_A5) fault("SIMT instructions need an A5 (dav_3510) SoC");
	int p = pp[op];
	uint64_t cur0 = s->cur, req0 = s->pm.ic_req, miss0 = s->pm.ic_miss;
	uint64_t t = dispatch(s, pc, p);
	/* PC sampling: every cycle of every warp is a sample (README section 11) */
	uint64_t fetch = (s->pm.ic_req - req0) + (s->pm.ic_miss - miss0) * MISS_LAT, n[9] = { 0 };
	uint32_t exec = nlanes >= 32 ? 0xffffffffu : ((1u << nlanes) - 1);
	for (uint32_t w = 0; w < nwarps; w++) {
		uint64_t st = t + w / 4;
		if (st < s->pfree[p] + w / 4) st = s->pfree[p] + w / 4;
		uint64_t en = st + lat[op];
		char d[400], *q = d;
		q = fmt_s(q, "[Rd:");
		q = fmt_x(q, reg(pc, 0) % 16);
		q = fmt_s(q, "|R],[Rn:");
		q = fmt_x(q, reg(pc, 1) % 16);
		q = fmt_s(q, "|R],[Rm:");
		q = fmt_x(q, reg(pc, 2) % 16);
		q = fmt_s(q, "|R],[waitBitMask:0],[stallCyc:0],[yeild:0],[inv:0],[warpId:");
		q = fmt_u(q, w);
		q = fmt_s(q, "],[bundleId:");
		q = fmt_u(q, (pc >> 2) & 15);
		q = fmt_s(q, "],[schId:");
		q = fmt_u(q, w % 4);
		q = fmt_s(q, "],[prdctMask:ffffffff],[execMask:");
		q = fmt_x0(q, exec, 8);
		q = fmt_s(q, "],[exec_time:");
		q = fmt_u(q, lat[op]);
		q = fmt_s(q, "], ");
		emit(s, pc, p, nm[op], d, (size_t)(q - d), t, st, en, 0);
		if (en > s->plast[p]) s->plast[p] = en;
		n[0] += fetch;                                  /* IBuf_Empty */
		n[4] += t - cur0 - fetch + w / 4;               /* Resource_conflict */
		n[2] += st - (t + w / 4);                       /* Scoreboard_Not_Ready */
		n[6] += nlanes < 32;                            /* Divergence_Stack_Spill */
		n[8] += 1;                                      /* Active */
	}
	if (pcs_on && dp_pcs_add(&s->pm, &s->pcs_cap, pc - KB->pc_start, n))
		fault("out of memory for the PC samples");
	s->pfree[p] = t + (nwarps + 3) / 4;
	s->cur = t + (nwarps + 3) / 4;
	dfx_stamp(s, t, t + (nwarps + 3) / 4);
	s->pm.busy[p] += (nwarps + 3) / 4;
	s->pm.instr[p] += nwarps;
	/* OperandRecord.bin: each thread's fp32 (FADD, FMUL) or int32 (IADD)
	 * instruction, one operand each; loads and stores count none */
	if (dev_mode && op >= SIMT_FADD) {
		if (!s->pm.simt_ops && !(s->pm.simt_ops = calloc(2 * OPREC_THREADS, sizeof *s->pm.simt_ops)))
			fault("out of memory");
		for (uint32_t w = 0; w < nwarps; w++)
			for (uint32_t l = 0; l < nlanes; l++)
				s->pm.simt_ops[2 * (w * 32 + l) + (op == SIMT_IADD)]++;
	}
}

static const struct camodel_ops ops = {
	CAMODEL_OPS_VERSION,
	op_block_idx, op_block_num, op_subblock_idx, op_core_type,
	op_movi, op_add, op_addi, op_mul, op_ld_gm, op_st_gm,
	op_gm_to_ub, op_ub_to_gm, op_gm_to_l1, op_l1_to_l0a, op_l1_to_l0b, op_mmad, op_l0c_to_gm,
	op_set_mask, op_vbin, op_vuna, op_vreduce_add,
	op_set_flag, op_wait_flag, op_barrier, op_cross_set, op_cross_wait, op_trace_mark,
	op_simt, op_dot,
};

/* ---- a launch ---- */

struct core_out {
	int used;
	uint32_t mte_instr, mte_req;
	struct wfile *tmp[3];
};

/* Does a camodel config file in dir ask for the MTE log ("mte_log" in the
 * [LOG] enable_list, what the capture tool appends for PMSampling)? */
static int config_wants_mte(const char *dir)
{
	static const char *const names[] = { "pem_config_cloud.toml", "Ascend910_93_model.toml", "config_stars.json",
	                                     "config.json", "pem_config.toml" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		char p[4200], buf[65536];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		FILE *f = fopen(p, "r");
		if (!f) continue;
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[n] = 0;
		/* only a setting counts: text after '#' (TOML comments) is ignored */
		for (char *line = buf, *next; line && *line; line = next) {
			next = strchr(line, '\n');
			if (next) *next++ = 0;
			char *hash = strchr(line, '#');
			if (hash) *hash = 0;
			if (strstr(line, "mte_log")) return 1;
		}
	}
	return 0;
}

static void read_log_list(void)
{
	if (log_list_read++) return;
	const char *c = getenv("CAMODEL_CONFIG_PATH");
	log_on[DVC_MTE_LOG] = c && *c && config_wants_mte(c);
	const char *l = getenv("CAMODEL_LOG_LIST");
	if (!l || !*l) return;
	static const char *const names[6] = { "popped", "instr", "mte", "icache", "ifu", "ccu" };
	for (int i = 0; i < 6; i++) {
		const char *p = strstr(l, names[i]);
		log_on[i] = p && (p == l || p[-1] == ',') && (p[strlen(names[i])] == 0 || p[strlen(names[i])] == ',');
	}
}

static void open_files(struct sub *s, const char *dir, struct core_out *co)
{
	char pre[96];
	if (s->kind == 0) snprintf(pre, sizeof pre, "core%d.", s->core);
	else snprintf(pre, sizeof pre, "core%d.%score%d.", s->core, s->kind == 1 ? "vec" : "cube", s->idx);
	char n[160];
	s->f_pop = s->f_exec = s->f_ic = s->f_ccu = s->f_mte = NULL;
	/* a log goes to its file unless file logging is off (DvcSetLogLevel
	 * file level 6) or a callback takes it */
	int on[6];
	for (int i = 0; i < 6; i++) on[i] = logw_file_level <= 2 && log_on[i] && !logw_cb[i].any;
	{
		snprintf(n, sizeof n, "%sinstr_popped_log", pre);
		if (on[DVC_INSTR_POPPED_LOG]) s->f_pop = logw_open(dir, n, ".dump");
		snprintf(n, sizeof n, "%sinstr_log", pre);
		if (on[DVC_INSTR_LOG]) s->f_exec = logw_open(dir, n, ".dump");
		snprintf(n, sizeof n, "%s%s", pre, s->fam == FAM_A2 ? "ifu.icache_log" : "icache_log");
		if (on[DVC_ICACHE_LOG]) s->f_ic = logw_open(dir, n, ".dump");
		snprintf(n, sizeof n, "%sccu_log", pre);
		if (s->fam == FAM_A2 && on[DVC_CCU_LOG]) s->f_ccu = logw_open(dir, n, ".dump");
		if (s->fam != FAM_310P && on[DVC_MTE_LOG]) {
			int k = s->kind == 2 ? 0 : 1 + s->idx;
			if (!co->tmp[k]) co->tmp[k] = logw_tmp(dir);
			s->f_mte = co->tmp[k];
		}
	}
}

static uint64_t line_tick(const char *p, const char *end)
{
	uint64_t v = 0;
	p += 7;   /* "[info] " */
	while (p < end && *p >= '0' && *p <= '9') v = v * 10 + (uint64_t)(*p++ - '0');
	return v;
}

/* Merge a core's per-sub-core MTE lines into core<N>.mte_log.dump by tick. */
static void merge_mte(const char *dir, int core, struct core_out *co)
{
	const char *b[3] = { 0 }, *e[3] = { 0 };
	size_t len[3] = { 0 };
	char *map[3] = { 0 };
	int any = 0;
	for (int k = 0; k < 3; k++) {
		struct wfile *t = co->tmp[k];
		if (!t) continue;
		logw_flush(t);
		len[k] = (size_t)t->written;
		if (!len[k]) continue;
		map[k] = mmap(NULL, len[k], PROT_READ, MAP_PRIVATE, t->fd, 0);
		if (map[k] == MAP_FAILED) { map[k] = NULL; continue; }
		b[k] = map[k];
		e[k] = map[k] + len[k];
		any = 1;
	}
	if (any) {
		char n[64];
		snprintf(n, sizeof n, "core%d.mte_log", core);
		struct wfile *out = logw_open(dir, n, ".dump");
		for (;;) {
			int best = -1;
			uint64_t bt = 0;
			for (int k = 0; k < 3; k++) {
				if (!b[k] || b[k] >= e[k]) continue;
				uint64_t t = line_tick(b[k], e[k]);
				if (best < 0 || t < bt) { best = k; bt = t; }
			}
			if (best < 0) break;
			const char *nl = memchr(b[best], '\n', (size_t)(e[best] - b[best]));
			size_t l = nl ? (size_t)(nl - b[best]) + 1 : (size_t)(e[best] - b[best]);
			if (out) {
				char *p = logw_begin(out, l + 1);
				memcpy(p, b[best], l);
				logw_end(out, p + l);
			}
			b[best] += l;
		}
	}
	for (int k = 0; k < 3; k++) {
		if (map[k]) munmap(map[k], len[k]);
		logw_free_tmp(co->tmp[k]);
		co->tmp[k] = NULL;
	}
}

static void sub_alloc(struct sub *s)
{
	s->ub = calloc(1, UB_SIZE);
	s->l1 = calloc(1, L1_SIZE);
	s->l0a = calloc(1, L0A_SIZE);
	s->l0b = calloc(1, L0B_SIZE);
	s->l0c = calloc(1, L0C_SIZE);
}

static void sub_reset(struct sub *s)
{
	uint8_t *ub = s->ub, *l1 = s->l1, *l0a = s->l0a, *l0b = s->l0b, *l0c = s->l0c;
	struct ev *heap = s->heap;
	size_t hcap = s->hcap;
	memset(s, 0, sizeof *s);
	s->ub = ub; s->l1 = l1; s->l0a = l0a; s->l0b = l0b; s->l0c = l0c;
	s->heap = heap;
	s->hcap = hcap;
	s->last_group = ~(uint64_t)0;
	s->mask0 = ~(uint64_t)0;
	s->mask1 = ~(uint64_t)0;
	memset(ub, 0, UB_SIZE);
	memset(l1, 0, L1_SIZE);
	memset(l0a, 0, L0A_SIZE);
	memset(l0b, 0, L0B_SIZE);
	memset(l0c, 0, L0C_SIZE);
}

typedef void (*kfn_t)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                      uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

static int run_one(struct sub *s, void *entry, const uint64_t *a)
{
	S = s;
	if (setjmp(fault_jmp) != 0) return -1;
	((kfn_t)entry)(a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7],
	               a[8], a[9], a[10], a[11], a[12], a[13], a[14], a[15]);
	return 0;
}

/* ---- device mode (README section 11) ---- */

static uint64_t dev_clock = 1000;     /* task-scheduler ticks: the next launch starts after it */

static uint64_t dev_ticks(enum board_fmt fmt, uint64_t cycles)
{
	const struct pmu_defaults *d = pmu_defaults(fmt);
	return cycles * d->ts_khz / ((uint64_t)d->aicore_mhz * 1000);
}

/* The raw files of a launch into the device-mode directory. */
static int dev_write(const char *dir, enum fam fam, struct dp_sub *sub, size_t n, void *entry, uint32_t block_dim,
                     int mix, int cube)
{
	enum board_fmt fmt = fam == FAM_310P ? BOARD_310P : fam == FAM_A5 ? BOARD_A5 : BOARD_A2;
	const char *e = getenv("CAMODEL_DEVICE_REPLAY");
	unsigned replay = 0;
	if (e && *e) {
		char *end;
		unsigned long v = strtoul(e, &end, 10);
		if (*end || v < 1 || v > dp_replays(fmt)) {
			fprintf(stderr, "camodel: CAMODEL_DEVICE_REPLAY=%s: not a replay number 1..%u\n", e, dp_replays(fmt));
			return 107000;
		}
		replay = (unsigned)v;
	}
	uint64_t base = dev_clock, last = 0;
	int simt = 0;
	for (size_t i = 0; i < n; i++) {
		sub[i].start = base + dev_ticks(fmt, 100);
		sub[i].end = base + dev_ticks(fmt, sub[i].cycles) + 1;
		if (sub[i].end > last) last = sub[i].end;
		simt |= sub[i].instr[DP_EX] != 0;
	}
	Dl_info di;
	const char *name = dladdr(entry, &di) && di.dli_sname ? di.dli_sname : "kernel";
	static unsigned task;
	struct dp_run r = {
		.fmt = fmt, .soc = rt_soc(), .op_name = name, .block_dim = block_dim, .device_id = 0, .stream = 1,
		.task = task++ & 0xfff, .pid = (long)getpid(), .freq_mhz = pmu_defaults(fmt)->aicore_mhz,
		.has_simt = simt, .task_type = fmt == BOARD_A5 ? (mix ? 2u : cube ? 0u : 1u) : 0u,
		.start = base, .end = last + 1, .sub = sub, .nsub = n,
	};
	e = getenv("CAMODEL_DEVICE_RANGE");
	r.append = e && *e && strcmp(e, "0");
	dev_clock = last + 100;
	char err[4400];
	if (dp_write(&r, dir, replay, err, sizeof err) ||
	    (!r.append && dp_dbi_write(&dbi, dir, KB->pc_start, name, err, sizeof err))) {
		fprintf(stderr, "camodel: %s\n", err);
		return 507000;
	}
	return 0;
}

HIDDEN int sim_launch(struct kernel_bin *kb, void *entry, uint32_t block_dim, const uint64_t *args, uint32_t nargs)
{
	static struct sub sub;
	static int allocated;
	enum fam fam = rt_family();
	/* device mode: no simulator dumps, so no log directory either */
	const char *devdir = getenv("CAMODEL_DEVICE_DUMP");
	if (devdir && !*devdir) devdir = NULL;
	dev_mode = devdir != NULL;
	const char *dir = devdir ? devdir : rt_log_dir();
	uint64_t a[16] = { 0 };
	int rc = 0;

	if (nargs > 16) {
		fprintf(stderr, "camodel: a kernel takes at most 16 arguments (got %u)\n", nargs);
		return 107000;
	}
	memcpy(a, args, nargs * sizeof *a);
	if (!allocated++) sub_alloc(&sub);
	if (!sub.ub || !sub.l1 || !sub.l0a || !sub.l0b || !sub.l0c) return 207001;
	read_log_list();
	logw_resync();
	if (devdir) {
		static int dbi_read;
		char err[300];
		if (!dbi_read++ && dp_dbi_env(&dbi, err, sizeof err)) {
			fprintf(stderr, "camodel: %s\n", err);
			return 107000;
		}
		dp_dbi_clear(&dbi);
	}
	if (devdir && (rc = dfx_load())) return rc;
	{
		const char *e = getenv("CAMODEL_DEVICE_PCSAMPLING");
		pcs_on = devdir && e && *e && strcmp(e, "0");
	}

	/* which sub-cores a block runs on */
	int kinds[3], idxs[3], nsub, per_core;
	int mix = kb->magic == RT_DEV_BINARY_MAGIC_ELF;
	if (fam == FAM_310P) { nsub = 1; kinds[0] = 0; idxs[0] = 0; per_core = 1; }
	else if (kb->magic == RT_DEV_BINARY_MAGIC_ELF_AICUBE) { nsub = 1; kinds[0] = 2; idxs[0] = 0; per_core = 1; }
	else if (mix) { nsub = 3; kinds[0] = 2; idxs[0] = 0; kinds[1] = 1; idxs[1] = 0; kinds[2] = 1; idxs[2] = 1; per_core = 1; }
	else { nsub = 1; kinds[0] = 1; idxs[0] = 0; per_core = 2; }   /* AIV: two vector cores per AI Core */

	uint32_t ncores = (block_dim + (uint32_t)per_core - 1) / (uint32_t)per_core;
	struct dp_sub *dsub = devdir ? calloc((size_t)block_dim * (size_t)nsub, sizeof *dsub) : NULL;
	size_t ndsub = 0;
	struct core_out *co = calloc(ncores, sizeof *co);
	if (!co || (devdir && block_dim && !dsub)) {
		free(co);
		free(dsub);
		return 207001;
	}
	struct cross cross;
	KB = kb;
	cur_block_dim = block_dim;
	{
		const struct camodel_ops **slot = dlsym(kb->dl, "camodel_kernel_ops");
		if (!slot) {
			fprintf(stderr, "camodel: the kernel binary does not define camodel_kernel_ops (include camodel_kernel.h)\n");
			free(co);
			free(dsub);
			return 507027;
		}
		*slot = &ops;
	}
	for (uint32_t b = 0; b < block_dim && !rc; b++) {
		memset(&cross, 0, sizeof cross);
		int core = (int)(b / (uint32_t)per_core);
		for (int k = 0; k < nsub && !rc; k++) {
			struct sub *s = &sub;
			sub_reset(s);
			s->fam = fam;
			s->core = core;
			s->kind = kinds[k];
			s->idx = per_core == 2 ? (int)(b % 2) : idxs[k];
			s->cbid = fam == FAM_310P ? 0 : s->kind == 2 ? 0 : (uint32_t)(1 + s->idx);
			s->ctype = fam == FAM_310P ? CORE_AICORE : s->kind == 2 ? CORE_AIC : CORE_AIV;
			s->block = (int)b;
			s->subblock = mix && s->kind == 1 ? s->idx : 0;
			s->mte_instr = &co[core].mte_instr;
			s->mte_req = &co[core].mte_req;
			s->cross = mix ? &cross : NULL;
			s->cur = 100;   /* launch overhead before the first fetch */
			co[core].used = 1;
			if (!devdir) open_files(s, dir, &co[core]);
			if (run_one(s, entry, a) != 0) {
				fprintf(stderr, "camodel: block %u: aicore exception: %s\n", b, fault_msg);
				rc = 507015;
			}
			settle(s, ~(uint64_t)0);
			if (dsub) {
				struct dp_sub *d = &dsub[ndsub++];
				*d = s->pm;
				d->block = b;
				d->sub_block = (unsigned)s->subblock;
				d->core_id = (unsigned)s->core;
				d->core = s->kind == 1 ? BOARD_VECTOR : BOARD_CUBE;
				d->cycles = all_done(s) > s->cur ? all_done(s) : s->cur;
			}
			if (s->waits_unmatched)
				fprintf(stderr, "camodel: block %u: %llu waits without a matching set (would hang on hardware)\n",
				        b, (unsigned long long)s->waits_unmatched);
			S = NULL;
		}
		for (int i = 0; i < 16; i++) free(cross.t[i]);
	}
	for (uint32_t c = 0; c < ncores; c++)
		if (co[c].used) merge_mte(dir, (int)c, &co[c]);
	free(co);
	if (dsub && !rc) rc = dev_write(devdir, fam, dsub, ndsub, entry, block_dim, mix, nsub == 1 && kinds[0] == 2);
	for (size_t i = 0; i < ndsub; i++) {
		free(dsub[i].marks);
		free(dsub[i].simt_ops);
		free(dsub[i].pcs);
	}
	free(dsub);
	if (logw_flush_all()) rc = rc ? rc : 507000;
	return rc;
}
