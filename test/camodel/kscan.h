/* The compiler's dfx_region instrumentation's look at a kernel binary
 * (README section 12): the kernel's functions in the symbol table, the
 * functions they call directly, and in their code the intrinsic calls of
 * the compute and transfer instructions, each given a dfx region id of
 * its pipe.  Every offset and size read from the binary is checked: the
 * bytes are the user's.  Used by bisheng-tune and its fuzz target. */
#ifndef CAMODEL_KSCAN_H
#define CAMODEL_KSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "biu.h"

/* The instructions marked: BIU pipe, the selection token (--dfx-pipe;
 * vector instructions are simd or simt), the opcode name of the map. */
struct ks_kind {
	size_t slot;            /* the entry of struct camodel_ops */
	unsigned pipe;
	unsigned align;         /* of the instruction's pc: 4, SIMT 8 */
	const char *sel, *opcode;
};
extern const struct ks_kind ks_kinds[];
extern const unsigned ks_nkinds;

/* One marked call site: its pc (the offset the simulator gives the call),
 * its kind (index into ks_kinds), its dfx id (0: past the pipe's ids). */
struct ks_site {
	uint64_t pc;
	unsigned kind;
	uint16_t id;
};

struct ks_result {
	char kernel[1024];                /* the kernel's symbol */
	struct ks_site *sites;            /* by pc; malloc'ed */
	size_t n;
	unsigned want[BIU_NPIPES];        /* instructions selected, per pipe */
	unsigned used[BIU_NPIPES];        /* dfx ids given, per pipe */
};

/* Scan the binary d of len bytes for the kernel name (a global function
 * of .text), or for tiling key key (NAME_KEY, NAME_KEY_mix_aic or
 * NAME_KEY_mix_aiv; in a binary of one kernel, that one), or when both are
 * NULL the only kernel; sel: the kinds to mark, a bit each.  0 (r filled),
 * or 2 (several kernels, none named) or 3 (no such kernel, not a kernel
 * binary of the stand-in) with a message in err. */
int ks_scan(const unsigned char *d, size_t len, const char *name, const char *key, unsigned sel,
            struct ks_result *r, char *err, size_t errsize);
void ks_free(struct ks_result *r);

#endif
