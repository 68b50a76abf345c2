/* The code-view fixture: a kernel with a hot loop that inlines a toolkit
 * function and calls another (src-map.bats, timeline-emit.bats; built with
 * cc -g -O0 -I ascend-toolkit/include). */
#include "kernel_operator.h"

int hot(int *a, int n) /* HOT_ENTRY */
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += tk_scale(a[i]); /* HOT_LOOP */
	return s + tk_call(s); /* HOT_RET */
}
