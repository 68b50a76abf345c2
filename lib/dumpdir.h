/* The operand of the on-board tools that read one launch's dump directory
 * (biu-timeline, warp-timeline, pc-stall, mc2-timeline): the directory
 * and its op_basic_info.txt (optrace-board(5), OP_BASIC_INFO.TXT). */
#ifndef OPTRACE_DUMPDIR_H
#define OPTRACE_DUMPDIR_H

#include <stdint.h>

#include "board.h"

/* argv[first] when it is the only operand: a directory whose
 * op_basic_info.txt is read into *basic.  NULL, with the help on stderr,
 * when there is not exactly one operand (the caller exits EXIT_USAGE);
 * ends the run with EXIT_UNUSABLE and one message naming the file when
 * the directory or its basic info is unusable. */
const char *board_dump_operand(int argc, char **argv, int first, const char *help, struct board_basic *basic);

/* The hex pc at the start of dir/name's first line (pc_start_addr.txt:
 * "0x" optional, up to 16 hex digits, read to the first other character);
 * 1 and *pc, or 0 when the file is absent or its line starts with no hex
 * digit. */
int board_start_pc(const char *dir, const char *name, uint64_t *pc);

/* The whole of dir/name (NUL-terminated past *n): NULL with errno when it
 * cannot be read.  For the small side files of a dump. */
unsigned char *board_read_all(const char *dir, const char *name, size_t *n);

#endif
