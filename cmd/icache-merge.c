/* icache-merge: turn icache-log line records into cache-miss instruction
 * records (the CACHEMISS lane) and scalar fetch records, and optionally
 * annotate passing instruction records with the fetch tick of their pc.
 *
 * One pass, one line at a time: a miss becomes a record at once, so memory
 * holds only the per-pc fetch history of --annotate (a fixed number of
 * ticks per distinct pc), never the log. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip.h"
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "keytab.h"
#include "line.h"
#include "loss.h"
#include "mem.h"
#include "rec.h"

/* Fetch ticks kept per pc for --annotate (the newest ones). */
#define FETCH_KEEP 16
/* A2/A3 fetch blocks: four instructions, 4 bytes apart (see
 * optrace-sidelogs(5), ICACHE LOG, Fetch requests (A2/A3)). */
#define FETCH_BLOCK 4
#define FETCH_GAP 4

/* ---- loss accounting, as in instr-parse ---- */

enum loss { LOSS_UNPARSED, LOSS_BAD_RECORD, LOSS_NKINDS };
static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	/* text, problem (exit status 1), bad (else dropped, in the trailer) */
	{ "icache miss lines not in the icache grammar", 1, 1 },
	FILTER_LOSS_BAD_RECORD,
};
static struct losses losses;

/* ---- cores ---- */

/* The newest fetch ticks of a pc on a unit (--annotate). */
struct pcfetch {
	uint32_t n;                 /* ticks kept, ascending */
	uint64_t tick[FETCH_KEEP];
};

struct unit {
	uint32_t core, subtype, subidx;
	struct keytab fetch;        /* --annotate: struct pcfetch per pc */
};
static struct unit *units;
static size_t nunits;

static uint32_t unit_id(uint32_t core, uint32_t subtype, uint32_t subidx)
{
	static size_t last;
	size_t i;
	if (last < nunits && units[last].core == core && units[last].subtype == subtype &&
	    units[last].subidx == subidx)
		return (uint32_t)last;
	for (i = 0; i < nunits; i++)
		if (units[i].core == core && units[i].subtype == subtype && units[i].subidx == subidx)
			return (uint32_t)(last = i);
	units = xreallocarray(units, nunits + 1, sizeof *units);
	units[nunits].core = core;
	units[nunits].subtype = subtype;
	units[nunits].subidx = subidx;
	units[nunits].fetch = keytab_make(sizeof(struct pcfetch), 0);
	return (uint32_t)(last = nunits++);
}

/* ---- --annotate: the newest fetch ticks of each (core, pc) ---- */

static struct pcfetch *pc_slot(uint32_t unit, uint64_t pc, int create)
{
	if (create)
		return keytab_get(&units[unit].fetch, pc, NULL);
	return keytab_find(&units[unit].fetch, pc);
}

/* Keep the tick in the pc's ascending, de-duplicated list (the reference's
 * per-pc set), dropping the oldest when the list is full. */
static void remember_fetch(uint32_t unit, uint64_t pc, uint64_t tick)
{
	struct pcfetch *f = pc_slot(unit, pc, 1);
	uint32_t i = f->n;
	while (i > 0 && f->tick[i - 1] > tick)
		i--;
	if (i > 0 && f->tick[i - 1] == tick)
		return;
	if (f->n == FETCH_KEEP) {
		if (i == 0)
			return;         /* older than everything kept */
		memmove(f->tick, f->tick + 1, (i - 1) * sizeof *f->tick);
		f->tick[i - 1] = tick;
		return;
	}
	memmove(f->tick + i + 1, f->tick + i, (f->n - i) * sizeof *f->tick);
	f->tick[i] = tick;
	f->n++;
}

static uint64_t n_annotated, n_no_fetch, n_evicted;

/* The (unit, pc) pairs with fetches kept. */
static size_t pcs_tracked(void)
{
	size_t i, n = 0;
	for (i = 0; i < nunits; i++)
		n += units[i].fetch.n;
	return n;
}

static void annotate(struct rec *r)
{
	struct pcfetch *f;
	uint32_t i;
	if (r->n[I_ICACHE].u != REC_NONE)
		return;         /* set upstream (scalar-merge): keep it */
	if (r->s[IS_PIPE].n == 9 && !memcmp(r->s[IS_PIPE].p, "CACHEMISS", 9))
		return;
	f = pc_slot(unit_id((uint32_t)r->n[I_CORE].u, (uint32_t)r->n[I_SUBTYPE].u, (uint32_t)r->n[I_SUBIDX].u),
	            r->n[I_PC].u, 0);
	if (!f) {
		n_no_fetch++;
		return;
	}
	for (i = f->n; i > 0 && f->tick[i - 1] > r->n[I_START].u; i--)
		;
	if (!i) {
		/* A fetch at or before the start may have been dropped as old
		 * (or never happened): leave the field empty. */
		n_evicted += f->n == FETCH_KEEP;
		n_no_fetch += f->n < FETCH_KEEP;
		return;
	}
	r->n[I_ICACHE].u = f->tick[i - 1];
	n_annotated++;
}

/* ---- the icache lines ---- */

static enum grammar want_grammar;
static int annotating;
static uint64_t n_lines, n_miss[G_NGRAMMARS], n_fetch, n_hit, n_other;

/* The miss record: the fields that never change are set once. */
static struct rec miss_rec;

static void put_miss(struct rec_out *o, const struct rec *in, const struct miss *m)
{
	struct rec *r = &miss_rec;
	char detail[MISS_DETAIL_MAX];

	if (!r->sc) {
		rec_init(r, K_INSTR);
		r->n[I_BLOCK].i = -1;
		r->n[I_SUBBLOCK].i = -1;
		r->n[I_WARP].i = r->n[I_SCH].i = r->n[I_THREADS].i = -1;
		r->n[I_GPR].i = 0;
		r->n[I_BYTES].i = -1;
		r->n[I_VECUTIL].f = -1;
		r->n[I_UBREAD].i = r->n[I_UBWRITE].i = -1;
		r->n[I_ICACHE].u = REC_NONE;
		r->n[I_CCU].u = REC_NONE;
		rec_text_set(r, IS_PIPE, "CACHEMISS", 9);
	}
	r->n[I_CORE].u = in->n[L_CORE].u;
	r->n[I_SUBTYPE].u = in->n[L_SUBTYPE].u;
	r->n[I_SUBIDX].u = in->n[L_SUBIDX].u;
	r->n[I_START].u = m->tick;
	r->n[I_END].u = m->tick + 1;
	r->n[I_PC].u = m->addr;
	rec_text_set(r, IS_NAME, m->addr_s, m->addr_n);
	rec_text_set(r, IS_DETAIL, detail, miss_detail(detail, m));
	rec_out_put(o, r);
}

static void put_fetch(struct rec_out *o, const struct rec *in, uint64_t tick, uint64_t addr)
{
	struct rec r;
	rec_init(&r, K_FETCH);
	r.n[S_CORE].u = in->n[L_CORE].u;
	r.n[S_SUBTYPE].u = in->n[L_SUBTYPE].u;
	r.n[S_SUBIDX].u = in->n[L_SUBIDX].u;
	r.n[S_TICK].u = tick;
	r.n[S_PC].u = addr;
	rec_out_put(o, &r);
	n_fetch++;
	if (annotating) {
		uint32_t u = unit_id((uint32_t)in->n[L_CORE].u, (uint32_t)in->n[L_SUBTYPE].u,
		                     (uint32_t)in->n[L_SUBIDX].u);
		int k;
		for (k = 0; k < FETCH_BLOCK; k++)
			remember_fetch(u, addr + (uint64_t)k * FETCH_GAP, tick);
	}
}

static void take_line(struct rec_out *o, const struct rec *in)
{
	struct miss m;
	uint64_t tick, addr;

	n_lines++;
	switch (icache_parse(in->s[LS_TEXT].p, in->s[LS_TEXT].n, &m, &tick, &addr)) {
	case IC_MISS:
		n_miss[m.g]++;
		put_miss(o, in, &m);
		break;
	case IC_FETCH:
		put_fetch(o, in, tick, addr);
		break;
	case IC_HIT:
		n_hit++;
		break;
	case IC_UNPARSED:
		loss_add(&losses, LOSS_UNPARSED, (uint32_t)in->n[L_FILE].u, in->n[L_LINE].u, "icache");
		break;
	default:
		n_other++;
	}
}

/* ---- main ---- */


static void release_all(void)
{
	loss_free(&losses);
	for (size_t i = 0; i < nunits; i++)
		keytab_free(&units[i].fetch);
	free(units);
}

static const char help[] =
	"usage: icache-merge [options] [FILE...]\n"
	"Turn icache-log line records (from dump-split) into cache-miss instruction\n"
	"records (pipe CACHEMISS) and scalar fetch records; other records pass through.\n"
	"  --annotate         set icache_tick of passing instruction records to the\n"
	"                     latest fetch tick of their pc at or before their start\n";

static enum grammar grammar_of(enum chip_family f)
{
	switch (f) {
	case CHIP_A2:
	case CHIP_A3: return G_A2;
	case CHIP_310B: return G_310B;
	default: return G_310P;
	}
}

/* The SoC of the stream, known at the header. */
static const struct chip *chip;

static void start(struct filter *f, const struct chip *c)
{
	(void)f;
	chip = c;
	want_grammar = grammar_of(c->family);
}

static int record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)line, (void)len;
	if (k != DEC_OK)
		return 0;
	if (r->sc->kind == K_LINE && r->n[L_LOG].u == LOG_ICACHE) {
		take_line(&f->out, r);
		return 1;
	}
	if (r->sc->kind == K_INSTR && annotating)
		annotate(r);
	return 0;
}

static void report(struct filter *f)
{
	int k;
	uint64_t other = 0;
	loss_report(f->ls);
	for (k = 0; k < G_NGRAMMARS; k++)
		if (k != (int)want_grammar)
			other += n_miss[k];
	if (other)
		cli_note("%llu miss lines in another chip's grammar than %s's %s (accepted)",
		         (unsigned long long)other, chip->soc, grammar_name[want_grammar]);
	if (n_evicted)
		cli_note("%llu instruction records left without icache_tick: the %d newest fetch ticks kept "
		         "for their pc are all after their start", (unsigned long long)n_evicted, FETCH_KEEP);
	if (cli_verbosity >= 2) {
		cli_note("%llu icache lines: %llu misses (%llu %s, %llu %s, %llu %s), %llu fetch blocks, "
		         "%llu hits, %llu other lines ignored",
		         (unsigned long long)n_lines,
		         (unsigned long long)(n_miss[G_A2] + n_miss[G_310P] + n_miss[G_310B]),
		         (unsigned long long)n_miss[G_A2], grammar_name[G_A2],
		         (unsigned long long)n_miss[G_310P], grammar_name[G_310P],
		         (unsigned long long)n_miss[G_310B], grammar_name[G_310B],
		         (unsigned long long)n_fetch, (unsigned long long)n_hit, (unsigned long long)n_other);
		if (annotating)
			cli_note("--annotate: %llu instruction records annotated, %llu without a fetch at or "
			         "before their start, %llu pcs tracked",
			         (unsigned long long)n_annotated, (unsigned long long)(n_no_fetch + n_evicted),
			         (unsigned long long)pcs_tracked());
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FILTER_LONGOPTS,
		FILTER_LONGOPT_SOC,
		{ "annotate", no_argument, &annotating, 1 },
		FILTER_LONGOPTS_END
	};
	static const struct filter_cli cli = { .longopts = longopts, .loss_kinds = loss_kinds,
	                                       .loss_nkinds = LOSS_NKINDS, .help = help, .soc = 1 };
	struct filter f = { .tool = "icache-merge", .ls = &losses, .bad_kind = LOSS_BAD_RECORD, .bad_file = 0,
	                    .start = start, .record = record, .report = report };
	int status = filter_main(&f, &cli, argc, argv);
	release_all();
	return status;
}
