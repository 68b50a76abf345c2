/* The dump directory operand of the on-board tools (see dumpdir.h). */
#include "dumpdir.h"

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

void board_check_data(const char *path)
{
	if (io_check_input(path, "device data file", IO_LIMIT_BINARY) < 0)
		exit(EXIT_UNUSABLE);
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
