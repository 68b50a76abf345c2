/* The dump directory operand of the on-board tools (see dumpdir.h). */
#include "dumpdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "mem.h"
#include "order.h"
#include "scan.h"

int board_opt(int c, const char *help, const char **out, const char **soc)
{
	switch (c) {
	case 'h':
		fputs(help, stdout);
		exit(cli_stdout_done(EXIT_OK));
	case 'V': cli_version();
	case 'o': *out = optarg; return 1;
	case 'q': cli_verbosity = 0; return 1;
	case 'v': cli_verbosity = 2; return 1;
	case 's': *soc = cli_soc(optarg)->soc; return 1;
	default: return 0;
	}
}

unsigned board_clock(const char *opt, const char *arg, unsigned max, const char *unit)
{
	unsigned long long v = cli_num(opt, arg);
	if (!v || v > max)
		cli_die(EXIT_USAGE, "option %s: %s is not a clock in %s (1..%u)", opt, arg, unit, max);
	return (unsigned)v;
}

const struct chip *board_chip(const char *dir, const char *soc, const struct board_basic *basic,
                              unsigned families, const char *what, const char *why)
{
	const char *name = soc ? soc : basic->soc;
	const struct chip *chip = chip_find(name);
	if (!(families & BOARD_FAMILY(chip->family)))
		cli_die(EXIT_USAGE, "%s: %s is not supported on this chip (%s): %s: nothing written", dir, what, name,
		        why);
	return chip;
}

const char *board_dump_operand(int argc, char **argv, int first, const char *help, struct board_basic *basic)
{
	struct board_err err;
	char *info, text[160];
	const char *dir;
	struct rd *r;

	if (first != argc - 1) {
		cli_warn("one dump directory expected");
		fputs(help, stderr);
		return NULL;
	}
	dir = argv[first];
	if (!io_is_dir(dir))
		cli_die(EXIT_UNUSABLE, "%s: not a directory", dir);
	io_check_input(dir, "dump directory", 0);
	board_basic_init(basic);
	info = xpath(dir, "op_basic_info.txt");
	if (!(r = rd_open(info)))
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", info);
	if (board_basic_read(r, basic, &err) < 0) {
		board_err_text(&err, text, sizeof text);
		cli_die(EXIT_UNUSABLE, "%s: %s; nothing written", info, text);
	}
	rd_close(r);
	free(info);
	return dir;
}

int board_start_pc(const char *dir, const char *name, uint64_t *pc)
{
	char *path = xpath(dir, name);
	struct rd *r = io_is_file(path) ? rd_open(path) : NULL;
	const char *s;
	size_t n, i = 2, k = 0;
	uint64_t v = 0;
	int ok = 0;
	free(path);
	if (!r)
		return 0;
	if ((s = rd_line(r, &n))) {
		/* as strtoull in base 16 reads it: "0x" optional, up to the first
		 * character that is no hex digit */
		if (!(n > 2 && s[0] == '0' && (s[1] | 0x20) == 'x'))
			i = 0;
		for (; i < n && k < 16 && hexval((unsigned char)s[i]) >= 0; i++, k++)
			v = v << 4 | (uint64_t)hexval((unsigned char)s[i]);
		ok = k > 0;
	}
	rd_close(r);
	if (ok)
		*pc = v;
	return ok;
}

unsigned char *board_read_all(const char *dir, const char *name, size_t *n)
{
	/* Read as stored: a binary file may begin with an lz4 frame's magic. */
	char *path = xpath(dir, name);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char *buf = NULL;
	size_t cap = 0, have = 0;
	ssize_t got;
	free(path);
	if (fd < 0)
		return NULL;
	for (;;) {
		if (cap - have < 65536) {
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap + 1);
		}
		got = read(fd, buf + have, cap - have);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		have += (size_t)got;
	}
	if (got < 0) {
		int e = errno;
		free(buf);
		close(fd);
		errno = e;
		return NULL;
	}
	close(fd);
	buf[have] = 0;
	*n = have;
	return buf;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* PcOffset.bin: the instrumentation's pc offset (u64), else 0. */
static uint64_t pc_offset(const char *dir)
{
	char *path = xpath(dir, "PcOffset.bin");
	struct rd *r = io_is_file(path) ? rd_open(path) : NULL;
	unsigned char b[8];
	uint64_t v = 0;
	int k;
	if (r && rd_read(r, b, 8) == 8)
		for (k = 7; k >= 0; k--)
			v = v << 8 | b[k];
	else if (r)
		cli_warn("%s: shorter than 8 bytes: the pc offset taken as 0", path);
	if (r)
		rd_close(r);
	free(path);
	return v;
}

size_t board_pcsampling(const char *dir, struct pcs *s, pcs_known_fn *known, void *ctx, size_t *skipped)
{
	char **files = NULL;
	size_t nfiles = 0, cap = 0, i;
	uint64_t start = 0;
	unsigned char *chunk;
	struct dirent *e;
	DIR *d;

	if (!(d = opendir(dir)))
		cli_die(EXIT_UNUSABLE, "%s: cannot read:", dir);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, PCS_FILE, strlen(PCS_FILE)))
			continue;
		if (nfiles == cap)
			files = xreallocarray(files, cap = cap ? 2 * cap : 8, sizeof *files);
		files[nfiles++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (nfiles > 1)
		qsort(files, nfiles, sizeof *files, cmp_name);
	if (!board_start_pc(dir, "pc_start_pcsampling.txt", &start))
		board_start_pc(dir, "pc_start_addr.txt", &start);
	pcs_init(s, start, nfiles ? pc_offset(dir) : 0, known, ctx);
	chunk = nfiles ? xmalloc(PCS_CHUNK_SIZE) : NULL;
	for (i = 0; i < nfiles && !cli_interrupted; i++) {
		char *path = xpath(dir, files[i]);
		struct rd *r = rd_open(path);
		size_t got;
		uint64_t at = 0;
		if (!r) {
			cli_warn("%s: cannot open: skipped:", path);
			++*skipped;
			free(path);
			continue;
		}
		while ((got = rd_read(r, chunk, PCS_CHUNK_SIZE)) == PCS_CHUNK_SIZE && !cli_interrupted) {
			pcs_chunk(s, chunk);
			at++;
		}
		if (rd_error(r))
			cli_die(EXIT_IO, "%s: cannot read: %s", path, rd_strerror(r));
		if (got && !cli_interrupted) {
			cli_warn("%s: cut: %zu bytes after %llu whole chunks of %u bytes are left out", path, got,
			         (unsigned long long)at, PCS_CHUNK_SIZE);
			++*skipped;
		}
		rd_close(r);
		free(path);
	}
	free(chunk);
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	if (cli_interrupted)
		cli_die(EXIT_INTR, "interrupted: nothing written");
	pcs_finish(s);
	return nfiles;
}
