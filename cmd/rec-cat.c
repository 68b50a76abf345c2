/* rec-cat: concatenate record streams, converting their encoding. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "io.h"
#include "rec.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: rec-cat [--json|--bin|--text] [--lz4] [--count] [-q] [-o FILE] [FILE...]\n"
	        "Read optrace record streams (binary, JSON Lines, mixed, lz4) and write them\n"
	        "in one encoding.  --count prints the number of records of each kind instead.\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ "bin", no_argument, NULL, 'b' },
		{ "text", no_argument, NULL, 't' },
		{ "lz4", no_argument, NULL, 'z' },
		{ "count", no_argument, NULL, 'c' },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	int json = 0, bin = 0, text = 0, lz4 = 0, count = 0, c, i, status = EXIT_OK;
	const char *out = "-";
	uint64_t counts[256] = { 0 }, bad = 0;
	struct rec_dec dec = { 0 };
	struct rec_out o = { 0 };

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "ho:qvz", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': cli_version();
		case 'j': json = 1; break;
		case 'b': bin = 1; break;
		case 't': text = 1; break;
		case 'z': lz4 = 1; break;
		case 'c': count = 1; break;
		case 'o': out = optarg; break;
		case 'q': cli_verbosity = 0; break;
		case 'v': cli_verbosity = 2; break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	o.producer = "rec-cat";
	o.w = wr_open(out, lz4 ? WR_LZ4 : 0);
	if (!o.w)
		cli_die(EXIT_IO, "%s: cannot create:", out);
	o.mode = cli_out_mode(json, text, bin, strcmp(out, "-") ? -1 : 1);
	if (lz4 && o.mode == REC_TEXT)
		o.mode = REC_BIN;
	for (i = optind; i < argc || i == optind; i++) {
		const char *path = i < argc ? argv[i] : "-";
		struct rd *r = rd_open(path);
		const char *line, *why;
		size_t len;
		struct rec rec;
		int known = 0;       /* a record of a known kind was read here */

		if (!r) {
			cli_warn("%s: cannot open:", path);
			status = EXIT_UNUSABLE;
			continue;
		}
		while (!cli_interrupted && (line = rd_line(r, &len))) {
			int k = rec_decode(&dec, line, len, &rec, &why);
			if (k == DEC_BAD) {
				if (bad++ < 5)
					cli_warn_at(rd_name(r), rd_lineno(r), "bad record: %s; skipped", why);
				continue;
			}
			if (k == DEC_UNKNOWN) {
				/* A kind of a newer version passes, but only in what
				 * is a record stream: a kind is a letter, and a line
				 * of text before any known record is not a record. */
				int json = line[0] == '{' || line[0] == ' ' || line[0] == '\t';
				unsigned char c0 = (unsigned char)line[0];
				if (!json && !((c0 >= 'A' && c0 <= 'Z') || (c0 >= 'a' && c0 <= 'z')))
					why = "not a record (its kind byte is not a letter)";
				else if (!known)
					why = "not a record stream (no record of a kind this version knows before this line)";
				else if (!json && o.mode == REC_JSON && !count)
					why = "a record of a kind this version does not know cannot be written as JSON";
				if (why) {
					if (bad++ < 5)
						cli_warn_at(rd_name(r), rd_lineno(r), "%s; skipped", why);
					continue;
				}
				counts[(unsigned char)line[0]]++;
				if (!count)
					rec_out_raw(&o, line, len);
				continue;
			}
			known = 1;
			counts[(unsigned char)rec.sc->kind]++;
			if (!count)
				rec_out_put(&o, &rec);
			if (wr_error(o.w))
				break;
		}
		if (rd_error(r)) {
			cli_warn("%s: read error: %s", rd_name(r), rd_strerror(r));
			status = EXIT_IO;
		}
		rd_close(r);
	}
	if (count) {
		uint64_t unknown = 0;
		for (c = 0; c < 256; c++) {
			const struct rec_schema *sc = rec_schema(c);
			if (!sc)
				unknown += counts[c];
			else if (counts[c])
				wr_printf(o.w, "%s\t%llu\n", sc->name, (unsigned long long)counts[c]);
		}
		if (unknown)
			wr_printf(o.w, "unknown\t%llu\n", (unsigned long long)unknown);
	}
	if (bad) {
		cli_warn("%llu line%s skipped: not records this version can read", (unsigned long long)bad,
		         bad == 1 ? "" : "s");
		if (status == EXIT_OK)
			status = EXIT_PARTIAL;
	}
	rec_dec_free(&dec);
	if (status == EXIT_UNUSABLE || status == EXIT_IO) {
		/* An input could not be read: keep whatever -o named before. */
		wr_abort(o.w);
		return status;
	}
	c = wr_close(o.w);
	if (c == EPIPE)
		return status;
	if (c) {
		errno = c;
		cli_warn("%s: write error:", out);
		return EXIT_IO;
	}
	return cli_interrupted ? EXIT_INTR : status;
}
