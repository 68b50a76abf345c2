/* --config: the JSON kernel description (capture.md 6.1) into
 * kernel_config.bin (6.2) for the kernel launcher. */
#include "capture.h"

#include <stdio.h>

#include "cli.h"

int config_translate(const char *json_path, const char *dir, char *bin_path, size_t cap)
{
	(void)dir;
	(void)bin_path;
	(void)cap;
	cli_die(EXIT_USAGE, "%s: --config is not supported by this build yet", json_path);
}
