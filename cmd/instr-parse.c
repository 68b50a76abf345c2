/* instr-parse: pair instr_log and instr_popped_log lines into instruction
 * records, with trace marks and the per-instruction calculators.
 *
 * Per core, so memory holds only per-pc state and what is in flight, never
 * the trace:
 *   1. parse every line as it arrives; spool pops and execs (compactly, see
 *      "Spool entries" in instr-parse/state.h); count, per pc, the lines and
 *      what the reference's prune walks would keep.  A line whose text after
 *      the PC repeats the pc's previous line of its log reuses that line's
 *      parse and results (instr-parse/cache.c);
 *   2. at the end of input, read both spools merged by tick and pair them
 *      position by position per pc (or per id on A5), applying exactly the
 *      prune and truncation the reference applies to that pc: once to learn
 *      which pcs pair and the vector state they leave (skipped when pass 1
 *      already knows), then (instr-parse/pair.c)
 *   3. with what depends on the whole core in (pc, start) order (live GPRs,
 *      vector-mask state) worked out per pc, once more to write the records
 *      (instr-parse/walk.c).
 * The record stream around it (inputs, header, trailer, bad records, the
 * exit status) is the shared filter run of lib/filter.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip.h"
#include "cli.h"
#include "filter.h"
#include "state.h"

static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	/* text, problem (exit status 1), bad (else dropped, in the trailer) */
	{ "lines not in the instr/popped grammar", 1, 1 },
	{ "popped lines without an executed partner", 0, 0 },
	{ "executed lines without a popped partner", 0, 0 },
	{ "pairs dropped because the pop tick is after the exec tick", 0, 0 },
	{ "micro-op lines merged by the prune rules", 0, 0 },
	FILTER_LOSS_BAD_RECORD,
	{ "trace marks removed (nested, orphan or unclosed)", 1, 0 },
};

/* The filter and the run's state: the hooks get the filter, the first
 * member. */
struct instr_parse {
	struct filter f;
	struct ip ip;
};

static struct ip *ip_of(struct filter *f)
{
	return &((struct instr_parse *)(void *)f)->ip;
}

static enum calc_family calc_family_of(enum chip_family f)
{
	switch (f) {
	case CHIP_A2:
	case CHIP_A3: return CALC_A2;
	case CHIP_A5: return CALC_A5;
	case CHIP_310P: return CALC_310P;
	case CHIP_310B: return CALC_310B;
	default: return CALC_OTHER;
	}
}

/* The SoC is known: it decides the calculators and the pairing key. */
static void start(struct filter *f, const struct chip *chip)
{
	ip_of(f)->family = calc_family_of(chip->family);
	ip_of(f)->by_id = chip->family == CHIP_A5;
}

/* The instr and popped lines are ours; every other record passes. */
static int record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	struct line_in in;
	(void)line;
	(void)len;
	if (k != DEC_OK || r->sc->kind != K_LINE || (r->n[L_LOG].u != LOG_INSTR && r->n[L_LOG].u != LOG_POPPED))
		return 0;
	in.core = (uint32_t)r->n[L_CORE].u;
	in.subtype = (uint32_t)r->n[L_SUBTYPE].u;
	in.subidx = (uint32_t)r->n[L_SUBIDX].u;
	in.file = (uint32_t)r->n[L_FILE].u;
	in.lineno = r->n[L_LINE].u;
	in.is_pop = r->n[L_LOG].u == LOG_POPPED;
	in.text = r->s[LS_TEXT].p;
	in.len = r->s[LS_TEXT].n;
	take_line(ip_of(f), &in);
	return 1;
}

/* The same for a binary line record where it lies in its block (the
 * filter's block path): its numbers and text read in place, without
 * decoding the record, and any other line record left in the block's run
 * as it came.  A record the view does not cover (an escape in its text, a
 * record that does not add up) takes the decoder's way. */
static const struct rec_layout *lay_line;

static int block_line(struct filter *f, struct rec_block *b)
{
	struct rec_view v;
	struct line_in in;
	uint64_t log;

	if (!rec_block_view(b, &v, lay_line, 0))
		return FILTER_DECODE;
	log = rec_view_num(&v, L_LOG);
	if (log != LOG_INSTR && log != LOG_POPPED)
		return FILTER_KEEP;
	if (!rec_view_text(&v, LS_TEXT, &in.text, &in.len))
		return FILTER_DECODE;
	in.core = (uint32_t)rec_view_num(&v, L_CORE);
	in.subtype = (uint32_t)rec_view_num(&v, L_SUBTYPE);
	in.subidx = (uint32_t)rec_view_num(&v, L_SUBIDX);
	in.file = (uint32_t)rec_view_num(&v, L_FILE);
	in.lineno = rec_view_num(&v, L_LINE);
	in.is_pop = log == LOG_POPPED;
	take_line(ip_of(f), &in);
	return FILTER_DROP;
}

static const struct filter_block blocks[] = { { K_LINE, block_line }, { 0, NULL } };

/* The input was read: pair each core and write its records. */
static int finish(struct filter *f)
{
	struct ip *ip = ip_of(f);
	size_t i;
	for (i = 0; i < ip->nunits && !wr_error(f->out.w) && !cli_interrupted; i++)
		finish_unit(ip->units[i], &f->out);
	return 1;
}

static const char help[] =
	"usage: instr-parse [options] [FILE...]\n"
	"Pair instr_log and instr_popped_log line records (from dump-split) into\n"
	"instruction records; other records pass through.\n";

/* -v also turns on the notes of the pairing (then left to filter_option). */
static int option(struct filter *f, int c, const char *arg)
{
	(void)arg;
	if (c == 'v')
		ip_of(f)->verbose = 1;
	return 0;
}

static int ready(struct filter *f)
{
	const char *mem = getenv("OPTRACE_SPOOL_MEM");
	(void)f;
	if (mem)
		spool_set_budget((size_t)cli_num("OPTRACE_SPOOL_MEM", mem) << 20);
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FILTER_LONGOPTS,
		FILTER_LONGOPT_SOC,
		FILTER_LONGOPTS_END
	};
	static const struct filter_cli cli = { .longopts = longopts, .loss_kinds = loss_kinds,
	                                       .loss_nkinds = LOSS_NKINDS, .option = option, .help = help, .soc = 1,
	                                       .ready = ready };
	static struct instr_parse run = {
		.f = {
			.tool = "instr-parse",
			.ls = &run.ip.losses,
			.bad_kind = LOSS_BAD_RECORD,
			.start = start,
			.record = record,
			.finish = finish,
			.block = blocks,
		},
	};
	int status;
	lay_line = rec_layout(K_LINE);
	status = filter_main(&run.f, &cli, argc, argv);
	ip_free(&run.ip);
	return status;
}
