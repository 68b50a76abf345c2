/* vdata-dump: list the blocks of a visualize_data.bin, or extract payloads.
 * A test helper (see README here): golden tests compare its output. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "io.h"
#include "vdata.h"

#define PIECE (1u << 20)

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: vdata-dump [--payload TYPE] [-v] [-q] [-o FILE] FILE...\n"
	        "List the blocks of visualize_data.bin files, one line each:\n"
	        "  type=<name> version=<n> size=<payload bytes> [path=<code path>]\n"
	        "(-v adds offset=<header offset> padding=<n>).  --payload TYPE (a name such\n"
	        "as TRACE, CODE, INSTR_API, or a number) writes the payloads of the blocks of\n"
	        "that type instead, unchanged.  Every file is checked whole before any\n"
	        "output; a corrupt one gives 'vdata-dump: FILE: offset N: message', exit 3.\n");
}

/* Check every block header first, so a corrupt file produces no output. */
static int validate(const char *path)
{
	char err[256];
	struct vdata_blk blk;
	struct vdata_r *r = vdata_ropen(path, err, sizeof err);
	int rc;

	if (!r) {
		cli_warn("%s: %s", path, err);
		return EXIT_UNUSABLE;
	}
	while ((rc = vdata_next(r, &blk, err, sizeof err)) == 1)
		;
	vdata_rclose(r);
	if (rc < 0) {
		int status = errno == EBADMSG ? EXIT_UNUSABLE : EXIT_IO;
		cli_warn("%s: %s", path, err);
		return status;
	}
	return EXIT_OK;
}

static int dump(const char *path, struct wr *out, int want, int verbose)
{
	char err[256];
	struct vdata_blk blk;
	struct vdata_r *r = vdata_ropen(path, err, sizeof err);
	int rc = 0, status = EXIT_OK;

	if (!r) {
		cli_warn("%s: %s", path, err);
		return EXIT_UNUSABLE;
	}
	while (!cli_interrupted && !wr_error(out) && (rc = vdata_next(r, &blk, err, sizeof err)) == 1) {
		const char *name = vdata_type_name(blk.type);
		if (want < 0) {
			if (name)
				wr_printf(out, "type=%s", name);
			else
				wr_printf(out, "type=%d", blk.type);
			wr_printf(out, " version=%d size=%llu", blk.version, (unsigned long long)blk.payload_size);
			if (blk.code_path)
				wr_printf(out, " path=%s", blk.code_path);
			if (verbose)
				wr_printf(out, " offset=%llu padding=%d", (unsigned long long)blk.offset, blk.padding);
			wr_putc(out, '\n');
			continue;
		}
		if (blk.type != want)
			continue;
		for (;;) {
			ssize_t k = vdata_read(r, wr_reserve(out, PIECE), PIECE);
			if (k < 0) {
				cli_warn("%s: offset %llu: read error:", path, (unsigned long long)blk.payload_offset);
				status = EXIT_IO;
				break;
			}
			if (!k)
				break;
			wr_commit(out, (size_t)k);
		}
		if (status)
			break;
	}
	if (!status && rc < 0) {
		/* validate() saw a sound file: it changed since, or a read failed. */
		cli_warn("%s: %s", path, err);
		status = errno == EBADMSG ? EXIT_UNUSABLE : EXIT_IO;
	}
	vdata_rclose(r);
	return status;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "payload", required_argument, NULL, 'p' },
		CLI_LONGOPTS_END
	};
	const char *outpath = "-";
	int c, i, want = -1, status = EXIT_OK;
	struct wr *out;

	cli_init(argv[0]);
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': cli_version();
		case 'p':
			want = vdata_type_parse(optarg);
			if (want < 0) {
				cli_warn("--payload: unknown block type '%s'", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'o': outpath = optarg; break;
		case 'q': cli_verbosity = 0; break;
		case 'v': cli_verbosity = 2; break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	/* Every file is checked before anything is written, so exit 3 always
	 * means no output. */
	for (i = optind; i < argc && !cli_interrupted; i++) {
		int s = validate(argv[i]);
		if (s > status)
			status = s;
	}
	if (status)
		return status;
	out = wr_open(outpath, 0);
	if (!out)
		cli_die(EXIT_IO, "%s: cannot create:", outpath);
	for (i = optind; i < argc && !cli_interrupted && !wr_error(out); i++) {
		int s = dump(argv[i], out, want, cli_verbosity > 1);
		if (s > status)
			status = s;
	}
	if (status == EXIT_UNUSABLE || status == EXIT_IO) {
		/* Keep whatever -o named before. */
		wr_abort(out);
		return status;
	}
	c = wr_close(out);
	if (c == EPIPE)
		return status;
	if (c) {
		errno = c;
		cli_warn("%s: write error:", outpath);
		return EXIT_IO;
	}
	return cli_interrupted ? EXIT_INTR : status;
}
