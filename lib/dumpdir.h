/* What the on-board tools that read one launch's dump directory share
 * (aic-timeline, biu-timeline, board-code, mc2-timeline, pc-stall,
 * warp-timeline): the directory operand and its op_basic_info.txt
 * (optrace-board(5), OP_BASIC_INFO.TXT), the options they all take, the
 * chip check, and the dump's small side files. */
#ifndef OPTRACE_DUMPDIR_H
#define OPTRACE_DUMPDIR_H

#include <stdint.h>

#include "board.h"
#include "chip.h"
#include "pcsamp.h"

/* The options every one of them takes, in its getopt loop: -h (the help,
 * exit 0), --version, -o into *out, -q, -v, --soc-version into *soc.  1
 * when c was one of them, 0 for the tool's own. */
int board_opt(int c, const char *help, const char **out, const char **soc);

/* A clock option's value (--aicore-freq in MHz, --ts-freq in kHz): 1..max,
 * else the run ends with a usage error naming the option and the unit. */
unsigned board_clock(const char *opt, const char *arg, unsigned max, const char *unit);

/* The chip of the dump (soc, the --soc-version, first; else its Run Soc
 * Version); one whose family is not in families (bits 1 << CHIP_...) ends
 * the run with EXIT_USAGE and "DIR: WHAT is not supported on this chip
 * (SOC): WHY: nothing written". */
const struct chip *board_chip(const char *dir, const char *soc, const struct board_basic *basic,
                              unsigned families, const char *what, const char *why);
#define BOARD_FAMILY(f) (1u << (f))

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

/* The PC sampling of dir (optrace-board(5), PCSAMPLING.BIN): every
 * pcSampling.bin* file by name, chunk by chunk into s, initialised here
 * with the recovery of a pc (the start pc of pc_start_pcsampling.txt,
 * else of pc_start_addr.txt, else 0; the offset of PcOffset.bin, else 0)
 * and known (NULL: every pc is kept).  A file that cannot be opened or is
 * not whole chunks is said (warned) and counted in *skipped; a read error
 * ends the run (EXIT_IO), an interrupt too (EXIT_INTR, "nothing
 * written").  The files read; 0 (s empty) when dir has none. */
size_t board_pcsampling(const char *dir, struct pcs *s, pcs_known_fn *known, void *ctx, size_t *skipped);

#endif
