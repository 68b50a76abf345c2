/* src-map's private parts: the system symbolizer as a coprocess, and a
 * look at the kernel binary's ELF sections. */
#ifndef SRC_MAP_SYM_H
#define SRC_MAP_SYM_H

#include <stddef.h>
#include <stdint.h>

/* One frame of an address's inline stack (innermost first); line 0 when
 * unknown, file "??" when unknown. */
struct frame {
	const char *file, *func;
	size_t file_n, func_n;
	uint64_t line;
};

/* 1: the ELF file has DWARF line or debug information; 0: it has none
 * (built without -g); -1: it cannot be read or is not ELF (why says so). */
int elf_has_debug(const char *path, char *why, size_t whyn);

/* The symbolizer to run: the given command, else llvm-symbolizer, else
 * addr2line from PATH; NULL when none is found. */
const char *sym_find(const char *given);

struct sym;
/* Start it on the binary; NULL with the reason in why. */
struct sym *sym_start(const char *cmd, const char *binary, char *why, size_t whyn);
/* Look up n addresses, writing them and reading the answers at the same
 * time (so neither pipe fills while the other waits); done(ctx, i, frames,
 * nframes) is called for each address, in order.  0, or -1 with the reason
 * in why (the coprocess is then unusable). */
int sym_resolve(struct sym *s, const uint64_t *addr, size_t n,
                void (*done)(void *ctx, size_t i, const struct frame *f, size_t nf), void *ctx,
                char *why, size_t whyn);
/* The first line it wrote on its standard error ("" if none). */
const char *sym_stderr(struct sym *s);
/* Close its input, wait for it; frees s. */
void sym_stop(struct sym *s);

#endif
