/* The temporary file of trace-clean's sorts and anchors: lib/spill.h's
 * sorter and io_tmpfd, with one warning when there is none (everything
 * then stays in memory). */
#include "cli.h"
#include "io.h"
#include "tc.h"

int xs_tmpfd(void)
{
	static int failed;
	int fd;
	if (failed)
		return -1;
	fd = io_tmpfd();
	if (fd < 0) {
		/* Said once; from then on everything stays in memory. */
		cli_warn("cannot create a temporary file (anchors and flags kept in memory):");
		failed = 1;
	}
	return fd;
}
