/* The vector add of add_custom.c built after a helper function: every pc
 * of the kernel moves, its source lines (those of add_custom.c) stay, as
 * after a recompile that changed something else in the file. */
#include "camodel_kernel.h"

__attribute__((used)) static int64_t shift_pcs(int64_t v)
{
	v = S_ADDI(v, 1);
	v = S_ADDI(v, 2);
	v = S_MUL(v, 3);
	return S_ADDI(v, 4);
}

#include "add_custom.c"
