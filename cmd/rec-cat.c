/* rec-cat: concatenate record streams, converting their encoding.
 *
 * A verbatim filter on the record runtime (lib/filter.h): every record goes
 * out as it came, headers and trailers included; what rec-cat adds is the
 * judgement of lines of kinds this version does not know, and --count.
 * Binary records of known kinds, to binary, are read in blocks and passed
 * on as runs of bytes (the block hook of lib/filter.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "filter.h"
#include "loss.h"
#include "rec.h"

enum loss { LOSS_SKIPPED, LOSS_NKINDS };
static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	/* text, problem (exit status 1), bad */
	{ "lines skipped: not records this version can read", 1, 1 },
};
static struct losses losses;

static int count;                   /* --count */
static uint64_t counts[256];        /* records by kind byte */
static int known_input = -1;        /* the input where a known kind was read */

/* Why a line of a kind this version does not know is not passed on, or
 * NULL to pass it: a kind is a letter, a record of a newer version only
 * counts within a record stream (after a known record of its input, not
 * in a text file given by mistake), and binary of an unknown kind cannot
 * become JSON. */
static const char *unknown_refused(const struct filter *f, const char *line)
{
	unsigned char c0 = (unsigned char)line[0];
	int json = c0 == '{' || c0 == ' ' || c0 == '\t';
	if (!json && !((c0 >= 'A' && c0 <= 'Z') || (c0 >= 'a' && c0 <= 'z')))
		return "not a record (its kind byte is not a letter)";
	if (known_input != f->input)
		return "not a record stream (no record of a kind this version knows before this line)";
	if (!json && f->out.mode == REC_JSON && !count)
		return "a record of a kind this version does not know cannot be written as JSON";
	return NULL;
}

static int record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	const char *why;
	(void)len;
	if (k == DEC_OK) {
		known_input = f->input;
		counts[(unsigned char)r->sc->kind]++;
		return count;
	}
	if ((why = unknown_refused(f, line))) {
		filter_bad(f, LOSS_SKIPPED, why);
		return 1;
	}
	counts[(unsigned char)line[0]]++;
	return count;
}

/* A binary record of a known kind, to binary: it goes on as it came once
 * its view says it is well formed, as its decoding and encoding would
 * write it again (the records of a kind the view does not cover, and bad
 * ones, take the decoder). */
static const struct rec_layout *layouts[256];

static int block(struct filter *f, struct rec_block *b)
{
	struct rec_view v;
	unsigned char c = (unsigned char)b->line[0];
	if (!rec_block_view(b, &v, layouts[c], 0))
		return FILTER_DECODE;
	known_input = f->input;
	counts[c]++;
	return count ? FILTER_DROP : FILTER_KEEP;
}

static struct filter_block blocks[256];

/* --count: one "name<TAB>count" line per kind read, the unknown ones
 * together. */
static int put_counts(struct filter *f)
{
	uint64_t unknown = 0;
	int c;
	if (!count)
		return 1;
	for (c = 0; c < 256; c++) {
		const struct rec_schema *sc = rec_schema(c);
		if (!sc)
			unknown += counts[c];
		else if (counts[c])
			wr_printf(f->out.w, "%s\t%llu\n", sc->name, (unsigned long long)counts[c]);
	}
	if (unknown)
		wr_printf(f->out.w, "unknown\t%llu\n", (unsigned long long)unknown);
	return !wr_error(f->out.w);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: rec-cat [--json|--bin|--text] [--lz4] [--count] [-q] [-o FILE] [FILE...]\n"
	        "Read optrace record streams (binary, JSON Lines, mixed, lz4) and write them\n"
	        "in one encoding, headers and trailers included.\n"
	        "  --count            print the number of records of each kind instead\n"
	        "  --bin              binary records (never to a terminal)\n"
	        FILTER_USAGE);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FILTER_LONGOPTS,
		{ "count", no_argument, &count, 1 },
		FILTER_LONGOPTS_END
	};
	static const struct filter_cli cli = { .longopts = longopts, .loss_kinds = loss_kinds,
	                                       .loss_nkinds = LOSS_NKINDS, .usage = usage };
	struct filter f = { .tool = "rec-cat", .ls = &losses, .bad_kind = LOSS_SKIPPED, .bad_file = 0,
	                    .verbatim = 1, .record = record, .finish = put_counts };
	int c, n = 0, status;

	for (c = 1; c < 256; c++)
		if ((layouts[c] = rec_layout(c)))
			blocks[n++] = (struct filter_block){ c, block };
	f.block = blocks;
	status = filter_main(&f, &cli, argc, argv);
	loss_free(&losses);
	return status;
}
