/* The record filters' shared skeleton (see filter.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "filter.h"
#include "mem.h"

int upstream_record(struct upstream *u, int k, const struct rec *r)
{
	u->trailer = 0;
	if (k != DEC_OK || r->sc->kind != K_HEADER)
		return 0;
	if (!u->got_header) {
		u->soc = strndup(r->s[HS_SOC].p, r->s[HS_SOC].n);
		u->origin = strndup(r->s[HS_ORIGIN].p, r->s[HS_ORIGIN].n);
		u->mhz = (unsigned)r->n[H_MHZ].u;
		u->got_header = 1;
	}
	return 1;
}

void upstream_trailer(struct upstream *u, const struct rec *r)
{
	u->trailer = 1;
	u->bad += r->n[T_BAD].u;
	u->dropped += r->n[T_DROPPED].u;
	u->interrupted |= r->n[T_INTERRUPTED].u != 0;
}

void upstream_free(struct upstream *u)
{
	free(u->soc);
	free(u->origin);
	u->soc = u->origin = NULL;
}

void upstream_check_end(const struct upstream *u, const struct rec_out *o, int read_failed)
{
	if (!cli_interrupted && !u->trailer && !read_failed && cli_verbosity >= 1 && !(o && wr_error(o->w)))
		cli_warn("input ended without a trailer record: the stream upstream was cut short");
}

void upstream_put_trailer(const struct upstream *u, struct losses *ls, struct rec_out *o,
                          uint64_t bad, uint64_t dropped)
{
	loss_diag(ls, o);
	/* An input that ended without its trailer was cut short upstream:
	 * what comes of it is incomplete too, and says so downstream. */
	rec_out_trailer(o, u->bad + bad, u->dropped + dropped, cli_interrupted || u->interrupted || !u->trailer);
}

struct rd **filter_open_inputs(int argc, char **argv, int first, int *nin)
{
	struct rd **in;
	int i, n = argc > first ? argc - first : 1;
	in = xcalloc((size_t)n, sizeof *in);
	for (i = 0; i < n; i++) {
		const char *path = argc > first ? argv[first + i] : "-";
		if (!(in[i] = rd_open(path)))
			cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	}
	*nin = n;
	return in;
}

void filter_close_inputs(struct rd **in, int nin)
{
	int i;
	for (i = 0; i < nin; i++)
		rd_close(in[i]);
	free(in);
}

void filter_bad_record(struct losses *ls, int k, uint32_t file, const struct rd *in, const char *why)
{
	loss_add(ls, k, file, 0, why);
	if (ls->count[k] <= 3)
		cli_warn_at(rd_name(in), rd_lineno(in), "bad record: %s", why);
}

int filter_read_error(const struct rd *in)
{
	if (!rd_error(in))
		return 0;
	cli_warn("%s: read error: %s", rd_name(in), rd_strerror(in));
	return 1;
}

void filter_open_output(struct rec_out *o, const char *producer, const char *path,
                        int json, int text, int bin, int lz4)
{
	o->producer = producer;
	cli_refuse_tty(path, lz4);
	/* A named output is aborted by any exit before filter_close_output
	 * (the writer keeps it on the exit-time cleanup list). */
	if (!(o->w = wr_open(path, lz4 ? WR_LZ4 : 0)))
		cli_die(EXIT_IO, "%s: cannot create:", path);
	o->mode = cli_out_mode(json, text, bin, strcmp(path, "-") ? -1 : 1);
	if (lz4 && o->mode == REC_TEXT)
		o->mode = REC_BIN;
}

int filter_close_output(struct rec_out *o, const char *path, int read_failed,
                        uint64_t problems, const struct upstream *u)
{
	int e;
	if (read_failed) {
		/* Keep whatever -o named: the input could not be read. */
		wr_abort(o->w);
		return EXIT_IO;
	}
	e = wr_close(o->w);
	if (e == EPIPE)
		return EXIT_OK;
	if (e) {
		errno = e;
		cli_warn("%s: write error:", strcmp(path, "-") ? path : "standard output");
		return EXIT_IO;
	}
	if (cli_interrupted)
		return EXIT_INTR;
	return problems || (u && !u->trailer) ? EXIT_PARTIAL : EXIT_OK;
}

const struct chip *upstream_chip(const struct upstream *u, const char *soc_option)
{
	if (soc_option)
		return chip_find(soc_option);
	return chip_find(u->soc && *u->soc ? u->soc : NULL);
}

int filter_option(struct filter *f, int c, const char *arg)
{
	switch (c) {
	case 'V': cli_version();
	case 'j': f->json = 1; break;
	case 't': f->text = 1; break;
	case 'b': f->bin = 1; break;
	case 'z': f->lz4 = 1; break;
	case 'o': f->outpath = arg; break;
	case 's': f->soc = cli_soc(arg)->soc; break;
	case 'q': cli_verbosity = 0; break;
	case 'v': cli_verbosity = 2; break;
	default: return 0;
	}
	return 1;
}

/* The header, once: the SoC is known now (origin: of the first input with a
 * record, or "" when none came). */
static void start(struct filter *f, const char *origin)
{
	const struct chip *chip = upstream_chip(&f->up, f->soc);
	f->header_soc = chip->soc;
	f->header_mhz = chip->mhz;
	if (f->start)
		f->start(f, chip);
	if (!f->sink && !f->verbatim)
		rec_out_header(&f->out, f->header_soc, f->header_mhz, f->up.origin ? f->up.origin : origin);
}

void filter_bad(struct filter *f, int k, const char *why)
{
	loss_add(f->ls, k, f->bad_file, 0, why);
	if (f->ls->count[k] <= 3)
		cli_warn_at(rd_name(f->in), f->lineno, "bad record: %s", why);
}

/* One record of the input the way of every record: decoded, counted when
 * bad, absorbed when a header or trailer, else given to the record hook
 * and passed on when it does not take it.  Returns 0 when the reading is
 * to stop (the sink's stop, or the output failed). */
static inline int one(struct filter *f, struct rec_dec *dec, const char *line, size_t len, int *started)
{
	const char *why;
	struct rec r;
	int k = rec_decode(dec, line, len, &r, &why);

	if (k == DEC_BAD) {
		filter_bad(f, f->bad_kind, why);
		return 1;
	}
	if (upstream_record(&f->up, k, &r) && !f->verbatim)
		return 1;
	if (!*started) {
		start(f, rd_name(f->in));
		*started = 1;
	}
	if (k == DEC_OK && r.sc->kind == K_TRAILER) {
		upstream_trailer(&f->up, &r);
		if (!f->verbatim)
			return 1;
	}
	if (k == DEC_OK && r.sc->kind == K_SOURCE)
		loss_source(f->ls, &r);
	if (!f->record(f, k, &r, line, len) && !f->sink) {
		if (k == DEC_OK)
			rec_out_put(&f->out, &r);
		else
			rec_out_raw(&f->out, line, len);
	}
	/* The rest would go nowhere; the reader has no error while it still
	 * gives lines. */
	return !(f->sink ? f->stop : wr_error(f->out.w));
}

/* The input in blocks: once the header is out, the records of the kinds
 * with a hook to it, the others to one().  Returns 0 when the reading is
 * to stop. */
typedef int block_hook(struct filter *f, struct rec_block *b);

static int by_blocks(struct filter *f, struct rd *in, struct rec_block *b, block_hook *const *hooks,
                     struct rec_dec *dec, int *started)
{
	rec_block_start(b, in);
	while (!cli_interrupted && rec_block_read(b)) {
		uint64_t kept = 0;
		int hot = *started, go = 1, seen = 0;
		/* The walk's place in a local: hooks see b, never move it. */
		struct rec_block_at at = rec_block_get(b);

		while (rec_block_step(b, &at)) {
			block_hook *hook = hooks[(unsigned char)b->line[0]];
			int h = FILTER_DECODE;
			if (hot && hook && b->len)
				h = hook(f, b);
			if (h == FILTER_KEEP) {
				kept++;
				seen = 1;
				continue;
			}
			rec_block_take(b);
			if (h == FILTER_DROP) {
				seen = 1;
				continue;
			}
			/* A record after a trailer: the stream goes on (as
			 * upstream_record has it). */
			if (seen)
				f->up.trailer = 0;
			seen = 0;
			f->lineno = b->lineno;
			if (!one(f, dec, b->line, b->len, started)) {
				go = 0;
				break;
			}
			hot = *started;
		}
		if (seen)
			f->up.trailer = 0;
		rec_block_put(b, at);
		rec_block_end(b);
		f->out.records += kept;
		if (!go || wr_error(f->out.w)) {
			rec_block_end(b);
			return 0;
		}
	}
	rec_block_end(b);
	return 1;
}

int filter_run(struct filter *f, int argc, char **argv, int first)
{
	struct rec_dec dec = { 0 };
	struct rec_block blk;
	block_hook *hooks[256] = { 0 };
	struct rd **in;
	int i, nin, started = 0, ok, blocks;
	uint64_t bad, dropped, problems;

	if (!f->outpath)
		f->outpath = "-";
	if (f->opened) {
		in = &f->opened;
		nin = 1;
	} else {
		in = filter_open_inputs(argc, argv, first, &nin);
	}
	if (!f->sink)
		filter_open_output(&f->out, f->tool, f->outpath, f->json, f->text, f->bin, f->lz4);
	/* Blocks only pay where records can go on as bytes. */
	blocks = f->block && !f->sink && f->out.mode == REC_BIN;
	if (blocks) {
		const struct filter_block *e;
		for (e = f->block; e->kind; e++)
			hooks[(unsigned char)e->kind] = e->hook;
		hooks[K_HEADER] = hooks[K_TRAILER] = hooks[K_SOURCE] = NULL;
		rec_block_init(&blk, f->out.w);
	}

	for (i = 0; i < nin && !cli_interrupted; i++) {
		const char *line;
		size_t len;
		f->in = in[i];
		f->input = i;
		if (blocks) {
			if (!by_blocks(f, in[i], &blk, hooks, &dec, &started))
				goto stopped;
		} else {
			while (!cli_interrupted && (line = rd_line(in[i], &len))) {
				f->lineno = rd_lineno(in[i]);
				if (!one(f, &dec, line, len, &started))
					goto stopped;
			}
		}
		if (filter_read_error(in[i]))
			f->read_failed = 1;
	}
stopped:
	if (!started)
		start(f, "");
	if (f->drain)
		f->drain(f);
	if (!f->verbatim)
		upstream_check_end(&f->up, f->sink ? NULL : &f->out, f->read_failed || f->stop);
	ok = !(f->sink ? f->stop : wr_error(f->out.w)) && !f->read_failed;
	if (ok && f->finish)
		ok = f->finish(f) && (f->sink || !wr_error(f->out.w));
	loss_totals(f->ls, &bad, &dropped, &problems);
	if (ok) {
		if (!f->sink && !f->verbatim)
			upstream_put_trailer(&f->up, f->ls, &f->out, bad, dropped);
		/* Counts of a run cut short by an output error would mislead. */
		if (f->report)
			f->report(f);
		else
			loss_report(f->ls);
	}
	upstream_free(&f->up);
	f->in = NULL;
	if (!f->opened)
		filter_close_inputs(in, nin);
	rec_dec_free(&dec);
	if (blocks)
		rec_block_free(&blk);
	problems += f->problems;
	if (!f->sink)
		return filter_close_output(&f->out, f->outpath, f->read_failed, problems,
		                           f->verbatim ? NULL : &f->up);
	if (f->read_failed || !ok)
		return EXIT_IO;
	if (cli_interrupted)
		return EXIT_INTR;
	return problems || (!f->verbatim && !f->up.trailer) ? EXIT_PARTIAL : EXIT_OK;
}

void filter_help(const struct filter *f, FILE *out)
{
	const struct filter_cli *cli = f->cli;
	if (cli->usage) {
		cli->usage(out);
		return;
	}
	fputs(cli->help, out);
	if (cli->soc)
		fputs(FILTER_USAGE_SOC, out);
	fputs(FILTER_USAGE, out);
}

int filter_main(struct filter *f, const struct filter_cli *cli, int argc, char **argv)
{
	int c, status;

	f->cli = cli;
	cli_init(argv[0]);
	loss_init(f->ls, f->tool, cli->loss_kinds, cli->loss_nkinds);
	while ((c = getopt_long(argc, argv, FILTER_SHORTOPTS, cli->longopts, NULL)) != -1) {
		if (c == 0)
			continue;       /* an entry with a flag: getopt_long set it */
		if (cli->option && cli->option(f, c, optarg))
			continue;
		if (filter_option(f, c, optarg))
			continue;
		filter_help(f, c == 'h' ? stdout : stderr);
		return c == 'h' ? EXIT_OK : EXIT_USAGE;
	}
	if (cli->ready && (status = cli->ready(f)) >= 0)
		return status;
	return filter_run(f, argc, argv, optind);
}
