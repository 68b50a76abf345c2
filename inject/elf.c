/* Kernel names from a device binary's ELF symbol table: global functions
 * defined in .text (see optrace-capture(5), THE RUN DIRECTORY, Kernel names),
 * with their offset from the image
 * start.  Every offset and size is bounds-checked: the bytes come from the
 * application. */
#include "inject.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

static int in(uint64_t off, uint64_t size, uint64_t len)
{
	return off <= len && size <= len - off;
}

size_t inj_elf_kernels(const unsigned char *d, uint64_t len, struct inj_sym **out)
{
	Elf64_Ehdr eh;
	const Elf64_Shdr *sh;
	uint64_t i, nsec, text = 0, symsec = 0;
	const char *shstr;
	uint64_t shstrlen;
	struct inj_sym *v = NULL;
	size_t n = 0, cap = 0;
	int pass;

	*out = NULL;
	if (len < sizeof eh || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64 ||
	    d[EI_DATA] != ELFDATA2LSB)
		return 0;
	memcpy(&eh, d, sizeof eh);
	nsec = eh.e_shnum;
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || !in(eh.e_shoff, nsec * sizeof(Elf64_Shdr), len) ||
	    eh.e_shstrndx >= nsec || (eh.e_shoff & 7))
		return 0;
	sh = (const Elf64_Shdr *)(d + eh.e_shoff);
	if (!in(sh[eh.e_shstrndx].sh_offset, sh[eh.e_shstrndx].sh_size, len))
		return 0;
	shstr = (const char *)d + sh[eh.e_shstrndx].sh_offset;
	shstrlen = sh[eh.e_shstrndx].sh_size;
	for (i = 1; i < nsec; i++) {
		/* ".text" and its NUL inside the table (a name cut by the
		 * table's end, such as ".te", is not ".text") */
		if (sh[i].sh_name < shstrlen && shstrlen - sh[i].sh_name >= 6 &&
		    !memcmp(shstr + sh[i].sh_name, ".text", 6) && !text)
			text = i;
	}
	/* .symtab when present, else .dynsym. */
	for (pass = 0; pass < 2 && !symsec; pass++)
		for (i = 1; i < nsec; i++)
			if (sh[i].sh_type == (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM)) {
				symsec = i;
				break;
			}
	if (!text || !symsec || sh[symsec].sh_link >= nsec)
		return 0;
	{
		const Elf64_Shdr *ss = &sh[symsec], *st = &sh[ss->sh_link];
		uint64_t nsym, k;
		if (ss->sh_entsize != sizeof(Elf64_Sym) || !in(ss->sh_offset, ss->sh_size, len) ||
		    !in(st->sh_offset, st->sh_size, len) || (ss->sh_offset & 7))
			return 0;
		nsym = ss->sh_size / sizeof(Elf64_Sym);
		for (k = 1; k < nsym; k++) {
			const Elf64_Sym *s = (const Elf64_Sym *)(d + ss->sh_offset) + k;
			const char *name;
			size_t nl;
			if (ELF64_ST_BIND(s->st_info) != STB_GLOBAL || ELF64_ST_TYPE(s->st_info) != STT_FUNC ||
			    s->st_shndx != text || s->st_name >= st->sh_size)
				continue;
			name = (const char *)d + st->sh_offset + s->st_name;
			nl = strnlen(name, st->sh_size - s->st_name);
			if (nl == 0 || nl >= 1024 || nl == st->sh_size - s->st_name)
				continue;
			if (n == cap) {
				struct inj_sym *nv = realloc(v, (cap ? cap * 2 : 16) * sizeof *v);
				if (!nv)
					break;
				v = nv;
				cap = cap ? cap * 2 : 16;
			}
			v[n].name = strndup(name, nl);
			v[n].off = s->st_value;
			if (v[n].name)
				n++;
		}
	}
	*out = v;
	return n;
}
