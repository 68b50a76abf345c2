/* dump-split's on-board input: the raw files of a device run (see
 * optrace-board(5)) as pmu, stamp, l2 and basic records. */
#ifndef DUMP_SPLIT_ONBOARD_H
#define DUMP_SPLIT_ONBOARD_H

#include <stdint.h>

#include "rec.h"

/* The on-board dump directory of in (in itself, or its dump/ directory,
 * when it holds op_basic_info.txt or a DeviceProf<N>.bin), malloc'ed, or
 * NULL when in is no such directory. */
char *onboard_dir(const char *in);

struct onboard;
/* Read dir's op_basic_info.txt and list its files; a missing or bad
 * op_basic_info.txt, no DeviceProf<N>.bin, or a SoC without an on-board
 * flow end the run (EXIT_UNUSABLE).  soc: --soc-version, or NULL. */
struct onboard *onboard_open(const char *dir, const char *soc);
/* The SoC of the header (the table's spelling of Run Soc Version) and its
 * clock. */
const char *onboard_soc(const struct onboard *b, unsigned *mhz);
/* Write the records after the header; the bad records and dropped files
 * are added to *bad and *dropped.  EXIT_OK, or EXIT_PARTIAL after a bad
 * file (each said on stderr as file: what at record N (byte B)). */
int onboard_write(struct onboard *b, struct rec_out *o, uint64_t *bad, uint64_t *dropped);
void onboard_free(struct onboard *b);

#endif
