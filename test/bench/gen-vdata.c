/* gen-vdata: a synthetic visualize_data.bin (or trace.json) shaped like the
 * simulator's (see optrace-vdata(5), TRACE.JSON (ALL CORES) and
 * VISUALIZE_DATA.BIN), for trace-clean's benchmark
 * and tests.
 *
 *   gen-vdata [-n EVENTS] [-c CORES] [--seed N] [--json] [--inline-flags] [--no-code] -o FILE
 *
 * CORES AI cores (default 4), each with a cube sub-core and two vector
 * sub-cores, run a double-buffered tile loop until about EVENTS
 * instruction slices (X events, default 2000000) have been made:
 *   vector:  scalar setup, MTE2 loads that overlap (pipelined), SET/WAIT
 *            MTE2->VEC, VADD/VMUL/..., SET/WAIT VEC->MTE3, MTE3 stores;
 *   cube:    MTE2 loads, MTE1 loads (two or three in flight), MMAD on CUBE,
 *            FIXP write-back, with SET/WAIT at each hand-over.
 * Each sub-core's slices are written in (end tick, pc) order as the
 * reference does, then its flags as B/E pairs grouped by detail, with the
 * reference's s/t flow events for matched pairs (--inline-flags: flags in
 * time order among the slices instead), cache misses, and at the end MTE
 * counter events.  Timestamps are the reference's: single-precision
 * ticks / 1850 MHz printed as the double they become.  The file also has a
 * CODE block (not with --no-code: PyPTO's clean_sim_trace reads the
 * block's path as part of its size, and rejects it) and an INSTR_API
 * block (per-pc metrics of every sub-core).
 *
 * Build: cc -std=c11 -D_GNU_SOURCE -O2 -Ilib test/bench/gen-vdata.c build/liboptrace.a -llz4 -lm
 * Same arguments give the same bytes. */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"
#include "vdata.h"

#define MHZ 1850.0
#define PC_BASE 0x10f86000u

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static unsigned between(unsigned lo, unsigned hi)
{
	return lo + (unsigned)(rnd() % (hi - lo + 1));
}

struct ins {
	uint64_t start, end;
	uint32_t pc;
	uint16_t pipe, name;
	int16_t flag;       /* -1, or index of its flag detail */
	uint8_t wait;       /* flag: 1 WAIT, 0 SET */
};

static const char *const pipes[] = { "SCALAR", "MTE2", "MTE1", "CUBE", "VECTOR", "FIXP", "MTE3",
                                     "FLOWCTRL", "ALL", "CACHEMISS" };
enum { P_SCALAR, P_MTE2, P_MTE1, P_CUBE, P_VECTOR, P_FIXP, P_MTE3, P_FLOWCTRL, P_ALL, P_CACHEMISS };
static const char *const cnames[] = { "startup", "thread_state_iowait", "thread_state_running",
                                      "background_memory_dump", "cq_build_failed", "thread_state_unknown",
                                      "rail_response", "cq_build_passed", "good", "thread_state_runnable" };
static const int sort_index[] = { 1, 6, 3, 4, 7, 5, 8, 2, 11, 9 };
static const char *const names[] = {
	"MOV_XD_IMM", "ADD", "LD_XD_XN_IMM", "ST_XD_XN_IMM", "MOV_OUT_TO_UB", "MOV_OUT_TO_L1",
	"LOAD_L1_TO_L0A", "LOAD_L1_TO_L0B", "MMAD", "VADD", "VMUL", "VMAX", "MOV_UB_TO_OUT",
	"FIX_L0C_TO_OUT", "JUMPC", "BAR", "SET_FLAG", "WAIT_FLAG",
};
enum { N_MOV, N_ADD, N_LD, N_ST, N_OUT2UB, N_OUT2L1, N_L0A, N_L0B, N_MMAD, N_VADD, N_VMUL, N_VMAX,
       N_UB2OUT, N_FIX, N_JUMPC, N_BAR, N_SET, N_WAIT };
static const char *const details[] = {
	"XD:X1=0x7f80,IMM:0x7f80,", "dtype:S64,XD:X29=0x107f80,XN:X29=0x107f80,XM:X15=0,",
	"XD:X3=0x0,XN:X2=0x103afe40,IMM:0x60,", "XD:X4=0x1,XN:X2=0x103afe40,IMM:0x68,",
	"Src:OUT,Dst:UB,XD:X9=0x0,XN:X0=0x113f9600,XM:X3=0x100010,",
	"Src:OUT,Dst:L1,XD:X9=0x70000,XN:X0=0x113f9600,XM:X3=0x100010,",
	"XD:X5=0x0,XN:X6=0x0,XM:X7=0x10001,", "XD:X5=0x0,XN:X6=0x8000,XM:X7=0x10001,",
	"XD:X8=0x0,XN:X9=0x0,XM:X10=0x0,XT:X11=0x1001001000,", "XD:X3=0x0,XN:X4=0x0,XM:X5=0x200,Dtype:F32,",
	"XD:X3=0x0,XN:X4=0x0,XM:X5=0x200,Dtype:F32,", "XD:X3=0x0,XN:X4=0x0,XM:X5=0x200,Dtype:F16,",
	"Src:UB,Dst:OUT,XD:X9=0x113f9600,XN:X0=0x0,XM:X3=0x100010,", "XD:X9=0x113f9600,XN:X0=0x0,XM:X3=0x10,",
	"XN:X2=0x1,Offset:0x-40,", "", "", "",
};
static const char *const flag_details[] = {
	"PIPE:MTE2,TRIGGERPIPE:VEC,FLAGID:0,", "PIPE:MTE2,TRIGGERPIPE:VEC,FLAGID:1,",
	"PIPE:VEC,TRIGGERPIPE:MTE3,FLAGID:0,", "PIPE:VEC,TRIGGERPIPE:MTE3,FLAGID:1,",
	"PIPE:MTE2,TRIGGERPIPE:MTE1,FLAGID:0,", "PIPE:MTE2,TRIGGERPIPE:MTE1,FLAGID:1,",
	"PIPE:MTE1,TRIGGERPIPE:CUBE,FLAGID:0,", "PIPE:MTE1,TRIGGERPIPE:CUBE,FLAGID:1,",
	"PIPE:CUBE,TRIGGERPIPE:FIXP,FLAGID:0,", "PIPE:CUBE,TRIGGERPIPE:FIXP,FLAGID:1,",
};
#define NFLAGD (sizeof flag_details / sizeof flag_details[0])

struct sub {
	char name[48];
	struct ins *v;
	size_t n, cap;
	uint64_t pipe_free[10];     /* when each in-order pipe may issue next */
	uint64_t t;                 /* scalar issue clock */
	uint32_t pc;
	size_t xcount;
};

static void add(struct sub *s, uint64_t start, uint64_t end, int pipe, int name, int flag, int wait)
{
	struct ins *i;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 4096;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		if (!s->v) {
			perror("gen-vdata");
			exit(4);
		}
	}
	i = &s->v[s->n++];
	i->start = start;
	i->end = end > start ? end : start + 1;
	i->pc = s->pc;
	s->pc = s->pc + 4 >= PC_BASE + 0x400 ? PC_BASE : s->pc + 4;
	i->pipe = (uint16_t)pipe;
	i->name = (uint16_t)name;
	i->flag = (int16_t)flag;
	i->wait = (uint8_t)wait;
	if (flag < 0 && pipe != P_CACHEMISS)
		s->xcount++;
}

static void scalars(struct sub *s, int k)
{
	while (k--) {
		int dual = rnd() % 4 == 0;
		add(s, s->t, s->t + 1, P_SCALAR, (int)(rnd() % 4), -1, 0);
		if (!dual)
			s->t++;
	}
	if (rnd() % 8 == 0)
		add(s, s->t, s->t + 1, P_FLOWCTRL, N_JUMPC, -1, 0);
	if (rnd() % 16 == 0)
		add(s, s->t, s->t + 1, P_CACHEMISS, N_MOV, -1, 0);
}

/* SET on pipe a (producer) after `ready`, WAIT on pipe b; returns when b may go on. */
static uint64_t handoff(struct sub *s, int a, int b, int fd, uint64_t ready)
{
	uint64_t set_s = ready > s->t ? ready - 1 : s->t, set_e = set_s + 1;
	uint64_t wait_s = s->pipe_free[b] > s->t ? s->pipe_free[b] : s->t;
	uint64_t wait_e = (set_e > wait_s ? set_e : wait_s) + 1;
	add(s, set_s, set_e, a, N_SET, fd, 0);
	add(s, wait_s, wait_e, b, N_WAIT, fd, 1);
	s->t++;
	return wait_e;
}

/* Loads issue every few dozen ticks and take hundreds: several in flight. */
static uint64_t pipelined(struct sub *s, int pipe, int name, unsigned lo, unsigned hi, uint64_t after)
{
	uint64_t st = s->pipe_free[pipe] > after ? s->pipe_free[pipe] : after, e;
	if (st < s->t)
		st = s->t;
	e = st + between(lo, hi);
	add(s, st, e, pipe, name, -1, 0);
	s->pipe_free[pipe] = st + between(lo / 4, lo / 2);
	return e;
}

static uint64_t serial(struct sub *s, int pipe, int name, unsigned lo, unsigned hi, uint64_t after)
{
	uint64_t st = s->pipe_free[pipe] > after ? s->pipe_free[pipe] : after, e = st + between(lo, hi);
	add(s, st, e, pipe, name, -1, 0);
	s->pipe_free[pipe] = e;
	return e;
}

static void vec_tile(struct sub *s, int tile)
{
	int buf = tile & 1, k;
	uint64_t ld, go, v = 0;
	scalars(s, (int)between(3, 8));
	ld = pipelined(s, P_MTE2, N_OUT2UB, 160, 420, 0);
	scalars(s, (int)between(2, 5));
	go = handoff(s, P_MTE2, P_VECTOR, buf, ld);
	for (k = (int)between(2, 4); k > 0; k--)
		v = serial(s, P_VECTOR, N_VADD + (int)(rnd() % 3), 20, 90, go);
	scalars(s, (int)between(2, 5));
	go = handoff(s, P_VECTOR, P_MTE3, 2 + buf, v);
	pipelined(s, P_MTE3, N_UB2OUT, 140, 320, go);
	if (s->t < s->pipe_free[P_MTE2] - 200)
		s->t = s->pipe_free[P_MTE2] - 200;
}

static void cube_tile(struct sub *s, int tile)
{
	int buf = tile & 1, k;
	uint64_t ld, go, m1 = 0, mm;
	scalars(s, (int)between(3, 6));
	ld = pipelined(s, P_MTE2, N_OUT2L1, 200, 500, 0);
	go = handoff(s, P_MTE2, P_MTE1, 4 + buf, ld);
	for (k = (int)between(2, 3); k > 0; k--) {
		uint64_t e = pipelined(s, P_MTE1, k & 1 ? N_L0A : N_L0B, 60, 140, go);
		if (e > m1)
			m1 = e;
	}
	go = handoff(s, P_MTE1, P_CUBE, 6 + buf, m1);
	mm = serial(s, P_CUBE, N_MMAD, 100, 260, go);
	go = handoff(s, P_CUBE, P_FIXP, 8 + buf, mm);
	serial(s, P_FIXP, N_FIX, 40, 120, go);
	if (rnd() % 32 == 0)
		add(s, s->t, s->t + 1, P_ALL, N_BAR, -1, 0);
	if (s->t < s->pipe_free[P_MTE2] - 300)
		s->t = s->pipe_free[P_MTE2] - 300;
}

/* The shortest text that reads back as d (nlohmann's form); the doubles
 * made from floats need 15 to 17 digits. */
static size_t shortest(char *buf, double d)
{
	int prec;
	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, 32, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			return strlen(buf);
	}
	return (size_t)snprintf(buf, 32, "%.17g", d);
}

/* The reference's timestamps: float(ticks / MHz), printed as a double. */
static size_t us(char *buf, uint64_t ticks)
{
	float f = (float)((double)ticks / MHZ);
	return shortest(buf, f);
}

static int by_end(const void *a, const void *b)
{
	const struct ins *x = a, *y = b;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static void comma(struct wr *w, int *first)
{
	wr_puts(w, *first ? "\n" : ",\n");
	*first = 0;
}

static void slice(struct wr *w, int *first, const struct sub *s, const struct ins *i)
{
	char a[32], b[32];
	us(a, i->start);
	comma(w, first);
	if (i->pipe == P_CACHEMISS) {
		us(b, 1);
		wr_printf(w, "{\"args\":{\"detail\":\"size is 0x00000080,type:1,last:0,status is MISS\"},"
		             "\"cname\":\"%s\",\"dur\":%s,\"name\":\"0x%08x\",\"ph\":\"X\",\"pid\":\"%s\","
		             "\"tid\":\"CACHEMISS\",\"ts\":%s}",
		          cnames[i->pipe], b, i->pc + 0x800, s->name, a);
		return;
	}
	{
		/* dur as the reference computes it: float(end) - float(start). */
		float fs = (float)((double)i->start / MHZ), fe = (float)((double)i->end / MHZ);
		shortest(b, (double)fe - (double)fs);
	}
	wr_printf(w, "{\"args\":{\"code\":\"/home/user/op/kernel.cpp:%u\",\"detail\":\"%s\",\"pc_addr\":\"0x%x\"},"
	             "\"cname\":\"%s\",\"dur\":%s,\"name\":\"%s\",\"ph\":\"X\",\"pid\":\"%s\",\"tid\":\"%s\",\"ts\":%s}",
	          20 + (i->pc - PC_BASE) / 16, details[i->name], i->pc, cnames[i->pipe], b, names[i->name], s->name,
	          pipes[i->pipe], a);
}

static void flag_be(struct wr *w, int *first, const struct sub *s, const struct ins *i, unsigned id)
{
	char a[32], b[32];
	/* SET begins one cycle before its end; WAIT at its start. */
	us(a, i->wait ? i->start : i->end - 1);
	us(b, i->end);
	comma(w, first);
	wr_printf(w, "{\"args\":{\"code\":\"\",\"detail\":\"%s\",\"pc_addr\":\"0x%x\"},\"cname\":\"%s\",\"id\":\"%s_%u\","
	             "\"name\":\"%s\",\"ph\":\"B\",\"pid\":\"%s\",\"tid\":\"%s\",\"ts\":%s}",
	          flag_details[i->flag], i->pc, i->wait ? "yellow" : "black", s->name, id, names[i->name], s->name,
	          pipes[i->pipe], a);
	comma(w, first);
	wr_printf(w, "{\"args\":{},\"cname\":\"%s\",\"id\":\"%s_%u\",\"name\":\"%s\",\"ph\":\"E\",\"pid\":\"%s\","
	             "\"tid\":\"%s\",\"ts\":%s}",
	          i->wait ? "yellow" : "black", s->name, id, names[i->name], s->name, pipes[i->pipe], b);
}

static void flow(struct wr *w, int *first, const struct sub *s, const struct ins *set, const struct ins *wait,
                 unsigned id)
{
	char a[32], b[32];
	us(a, set->end);
	us(b, wait->end);
	comma(w, first);
	wr_printf(w, "{\"cat\":\"%sTo%s\",\"id\":\"%s_%u\",\"name\":\"flow\",\"ph\":\"s\",\"pid\":\"%s\",\"tid\":\"%s\",\"ts\":%s}",
	          pipes[set->pipe], pipes[wait->pipe], s->name, id, s->name, pipes[set->pipe], a);
	comma(w, first);
	wr_printf(w, "{\"cat\":\"%sTo%s\",\"id\":\"%s_%u\",\"name\":\"flow\",\"ph\":\"t\",\"pid\":\"%s\",\"tid\":\"%s\",\"ts\":%s}",
	          pipes[set->pipe], pipes[wait->pipe], s->name, id, s->name, pipes[wait->pipe], b);
}

static void write_trace(struct wr *w, struct sub *subs, int nsub, int inline_flags)
{
	int first = 1, k, p;
	unsigned id;
	uint64_t tmax = 0;

	wr_puts(w, "{\"displayTimeUnit\":\"ns\",\"profilingType\":\"op\",\"schemaVersion\":2,\"traceEvents\":[");
	for (k = 0; k < nsub; k++) {
		comma(w, &first);
		wr_printf(w, "{\"args\":{\"sort_index\":%d},\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":\"%s\",\"tid\":\"NA\"}",
		          k + 1, subs[k].name);
	}
	for (k = 0; k < nsub; k++) {
		struct sub *s = &subs[k];
		size_t i, j;
		for (p = 0; p < 10; p++) {
			comma(w, &first);
			wr_printf(w, "{\"args\":{\"sort_index\":%d},\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":\"%s\",\"tid\":\"%s\"}",
			          sort_index[p], s->name, pipes[p]);
		}
		qsort(s->v, s->n, sizeof *s->v, by_end);
		if (s->n && s->v[s->n - 1].end > tmax)
			tmax = s->v[s->n - 1].end;
		for (i = 0; i < s->n; i++) {
			if (s->v[i].flag < 0 && s->v[i].pipe != P_CACHEMISS)
				slice(w, &first, s, &s->v[i]);
			else if (s->v[i].flag >= 0 && inline_flags)
				flag_be(w, &first, s, &s->v[i], (unsigned)i);
		}
		if (!inline_flags) {
			/* Grouped by detail, waits matched FIFO with sets, as the
			 * reference emits them. */
			id = 0;
			for (j = 0; j < NFLAGD; j++) {
				size_t si = 0, wi;
				for (wi = 0; wi < s->n; wi++) {
					const struct ins *wt = &s->v[wi], *st = NULL;
					if (wt->flag != (int)j || !wt->wait)
						continue;
					for (; si < s->n; si++)
						if (s->v[si].flag == (int)j && !s->v[si].wait) {
							st = &s->v[si++];
							break;
						}
					if (st) {
						flag_be(w, &first, s, st, id);
						flag_be(w, &first, s, wt, id);
						flow(w, &first, s, st, wt, id);
					} else {
						flag_be(w, &first, s, wt, id);
					}
					id++;
				}
			}
		}
		for (i = 0; i < s->n; i++)
			if (s->v[i].pipe == P_CACHEMISS)
				slice(w, &first, s, &s->v[i]);
	}
	/* MTE throughput counters, one per us bucket. */
	for (k = 0; k <= (int)(tmax / MHZ) + 1; k++) {
		static const char *const series[] = { "GM_TO_UB", "GM_TO_L1", "GM_TO_TOTAL", "UB_TO_GM", "L1_TO_GM",
		                                      "TOTAL_TO_GM" };
		for (p = 0; p < 6; p++) {
			comma(w, &first);
			wr_printf(w, "{\"args\":{\"throughput(MB/s)\":%u.5},\"name\":\"%s\",\"ph\":\"C\",\"pid\":\"MTE Throughput\",\"tid\":0,\"ts\":%d}",
			          between(0, 9000), series[p], k);
		}
	}
	wr_puts(w, "]}");
}

static void write_instr_api(struct wr *w, struct sub *subs, int nsub)
{
	uint32_t pc;
	int k;
	wr_puts(w, "{\"Cores\":[");
	for (k = 0; k < nsub; k++)
		wr_printf(w, "%s\"%s\"", k ? "," : "", subs[k].name);
	wr_puts(w, "],\"Instructions\":[");
	for (pc = PC_BASE; pc < PC_BASE + 0x400; pc += 4) {
		unsigned nm = (pc / 4) % 14;
		wr_printf(w, "%s{\"Address\":\"0x%x\",\"AscendC Inner Code\":\"/home/user/op/kernel.cpp:%u\",\"Cycles\":[",
		          pc == PC_BASE ? "" : ",", pc, 20 + (pc - PC_BASE) / 16);
		for (k = 0; k < nsub; k++)
			wr_printf(w, "%s%u", k ? "," : "", between(0, 100000));
		wr_puts(w, "],\"GPR Count\":[");
		for (k = 0; k < nsub; k++)
			wr_printf(w, "%s%u", k ? "," : "", between(0, 8));
		wr_puts(w, "],\"Instructions Executed\":[");
		for (k = 0; k < nsub; k++)
			wr_printf(w, "%s%u", k ? "," : "", between(0, 2000));
		wr_printf(w, "],\"Pipe\":\"%s\",\"Process Bytes\":[", pipes[nm % 7]);
		for (k = 0; k < nsub; k++)
			wr_printf(w, "%s%d", k ? "," : "", nm % 7 == 1 ? (int)between(1, 64) * 512 : -1);
		wr_printf(w, "],\"Source\":\"%s %s\",\"UB Read Conflict\":[", names[nm], "XD:X1,XN:X2");
		for (k = 0; k < nsub; k++)
			wr_printf(w, "%s-1", k ? "," : "");
		wr_puts(w, "],\"UB Write Conflict\":[");
		for (k = 0; k < nsub; k++)
			wr_printf(w, "%s-1", k ? "," : "");
		wr_puts(w, "],\"Vector Utilization Percentage\":[");
		for (k = 0; k < nsub; k++)
			wr_printf(w, "%s%s", k ? "," : "", nm % 7 == 4 ? "87.5" : "-1.0");
		wr_puts(w, "]}");
	}
	wr_puts(w, "],\"Instructions Dtype\":{\"Instructions\":{\"Address\":3,\"AscendC Inner Code\":3,\"Cycles\":1,"
	           "\"GPR Count\":1,\"Instructions Executed\":1,\"Pipe\":3,\"Process Bytes\":1,\"Source\":3,"
	           "\"UB Read Conflict\":1,\"UB Write Conflict\":1,\"Vector Utilization Percentage\":4}}}");
}

static void die(const char *what)
{
	fprintf(stderr, "gen-vdata: %s: %s\n", what, strerror(errno));
	exit(4);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "inline-flags", no_argument, NULL, 'i' },
		{ "no-code", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	unsigned long long events = 2000000, ncore = 4, seed = 1;
	const char *out = NULL;
	int json = 0, inline_flags = 0, no_code = 0, c, k, nsub;
	struct sub *subs;
	size_t total = 0;

	while ((c = getopt_long(argc, argv, "n:c:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'n': events = strtoull(optarg, NULL, 10); break;
		case 'c': ncore = strtoull(optarg, NULL, 10); break;
		case 'o': out = optarg; break;
		case 's': seed = strtoull(optarg, NULL, 10); break;
		case 'j': json = 1; break;
		case 'i': inline_flags = 1; break;
		case 'C': no_code = 1; break;
		case 'h':
			printf("usage: gen-vdata [-n EVENTS] [-c CORES] [--seed N] [--json] [--inline-flags] [--no-code] -o FILE\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!out || !ncore || ncore > 1000 || !events) {
		fprintf(stderr, "usage: gen-vdata [-n EVENTS] [-c CORES] [--seed N] [--json] [--inline-flags] [--no-code] -o FILE\n");
		return 2;
	}
	rng ^= seed * 0x2545f4914f6cdd1dull;
	nsub = (int)ncore * 3;
	subs = calloc((size_t)nsub, sizeof *subs);
	for (k = 0; k < nsub; k++) {
		struct sub *s = &subs[k];
		int p;
		if (k % 3 == 0)
			snprintf(s->name, sizeof s->name, "core%d.cubecore0", k / 3);
		else
			snprintf(s->name, sizeof s->name, "core%d.veccore%d", k / 3, k % 3 - 1);
		s->t = 11000 + between(0, 50);
		s->pc = PC_BASE;
		for (p = 0; p < 10; p++)
			s->pipe_free[p] = s->t;
	}
	/* Round robin over the sub-cores until the slices are made. */
	for (k = 0; total < events; k = (k + 1) % nsub) {
		struct sub *s = &subs[k];
		size_t before = s->xcount;
		if (k % 3 == 0)
			cube_tile(s, (int)(s->n & 0xffff));
		else
			vec_tile(s, (int)(s->n & 0xffff));
		total += s->xcount - before;
	}
	if (json) {
		struct wr *w = wr_open(out, 0);
		if (!w)
			die(out);
		write_trace(w, subs, nsub, inline_flags);
		wr_putc(w, '\n');
		if ((errno = wr_close(w)))
			die(out);
	} else {
		int tfd = io_tmpfd(), ifd = io_tmpfd(), e;
		struct wr *tw, *iw;
		struct vdata_w *v;
		static const char code[] = "extern \"C\" __global__ __aicore__ void add_custom(GM_ADDR x) {}\n";
		if (tfd < 0 || ifd < 0)
			die("temporary file");
		tw = wr_fdopen(tfd, "trace", 0);
		iw = wr_fdopen(ifd, "instr", 0);
		write_trace(tw, subs, nsub, inline_flags);
		write_instr_api(iw, subs, nsub);
		if (wr_flush(tw) || wr_flush(iw))
			die("temporary file");
		wr_close(tw);
		wr_close(iw);
		v = vdata_open(out);
		if (!v)
			die(out);
		if ((e = vdata_block_from_fd(v, VDATA_TRACE, VDATA_VERSION, tfd)) ||
		    (!no_code && (e = vdata_block(v, VDATA_CODE, VDATA_VERSION, "/home/user/op/kernel.cpp", code, sizeof code - 1))) ||
		    (e = vdata_block_from_fd(v, VDATA_INSTR_API, VDATA_VERSION_INSTR_API, ifd))) {
			errno = e;
			vdata_abort(v);
			die(out);
		}
		if ((e = vdata_close(v))) {
			errno = e;
			die(out);
		}
		close(tfd);
		close(ifd);
	}
	for (k = 0; k < nsub; k++)
		free(subs[k].v);
	free(subs);
	fprintf(stderr, "gen-vdata: %s: %zu instruction slices on %d sub-cores\n", out, total, nsub);
	return 0;
}
