/* The dump directory operand of the on-board tools (see dumpdir.h). */
#include "dumpdir.h"

#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "io.h"
#include "mem.h"

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
