/* Unit tests of the preload library's ELF reader (inject/elf.c,
 * inj_elf_kernels): kernel names from a device binary built here in
 * memory, with a .text section, a symbol table and its strings.
 *
 *   cc -std=c11 -D_GNU_SOURCE -Ilib -Iinject -g -o /tmp/test_elf \
 *       test/unit/test_elf.c inject/elf.c */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "inject.h"
#include "unit.h"

/* The image being built, n bytes so far. */
struct image {
	unsigned char b[1024];
	size_t n;
};

/* s (with its NUL when nul) at the end of the image: its offset. */
static size_t put_str(struct image *im, const char *s, int nul)
{
	size_t at = im->n, k = strlen(s) + (nul ? 1 : 0);
	memcpy(im->b + im->n, s, k);
	im->n += k;
	return at;
}

/* An image whose sections are: null, [a section named ".te" whose name is
 * cut by the end of the name table,] .text, .symtab, .strtab, .shstrtab;
 * one global function "add_custom" at 0x40 in .text. */
static size_t build(struct image *im, int cut_name)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh[6];
	Elf64_Sym sym[2];
	size_t str_off, str_n, sym_off, shs_off, shs_n, n_text, n_sym, n_str, n_shs, n_te = 0;
	int ns = cut_name ? 6 : 5, text = cut_name ? 2 : 1;

	memset(im, 0, sizeof *im);
	memset(&eh, 0, sizeof eh);
	memset(sh, 0, sizeof sh);
	memset(sym, 0, sizeof sym);
	im->n = sizeof eh;
	str_off = im->n;
	put_str(im, "", 1);
	put_str(im, "add_custom", 1);
	str_n = im->n - str_off;
	im->n = (im->n + 7) & ~(size_t)7;
	sym_off = im->n;
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[1].st_shndx = (Elf64_Section)text;
	sym[1].st_value = 0x40;
	memcpy(im->b + im->n, sym, sizeof sym);
	im->n += sizeof sym;
	shs_off = im->n;
	put_str(im, "", 1);
	n_text = put_str(im, ".text", 1) - shs_off;
	n_sym = put_str(im, ".symtab", 1) - shs_off;
	n_str = put_str(im, ".strtab", 1) - shs_off;
	n_shs = put_str(im, ".shstrtab", 1) - shs_off;
	if (cut_name)
		n_te = put_str(im, ".te", 0) - shs_off;
	shs_n = im->n - shs_off;
	im->n = (im->n + 7) & ~(size_t)7;

	if (cut_name) {
		sh[1].sh_name = (Elf64_Word)n_te;
		sh[1].sh_type = SHT_PROGBITS;
	}
	sh[text].sh_name = (Elf64_Word)n_text;
	sh[text].sh_type = SHT_PROGBITS;
	sh[text + 1].sh_name = (Elf64_Word)n_sym;
	sh[text + 1].sh_type = SHT_SYMTAB;
	sh[text + 1].sh_offset = sym_off;
	sh[text + 1].sh_size = sizeof sym;
	sh[text + 1].sh_entsize = sizeof(Elf64_Sym);
	sh[text + 1].sh_link = (Elf64_Word)(text + 2);
	sh[text + 2].sh_name = (Elf64_Word)n_str;
	sh[text + 2].sh_type = SHT_STRTAB;
	sh[text + 2].sh_offset = str_off;
	sh[text + 2].sh_size = str_n;
	sh[text + 3].sh_name = (Elf64_Word)n_shs;
	sh[text + 3].sh_type = SHT_STRTAB;
	sh[text + 3].sh_offset = shs_off;
	sh[text + 3].sh_size = shs_n;

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_shoff = im->n;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = (Elf64_Half)ns;
	eh.e_shstrndx = (Elf64_Half)(text + 3);
	memcpy(im->b, &eh, sizeof eh);
	memcpy(im->b + im->n, sh, (size_t)ns * sizeof(Elf64_Shdr));
	im->n += (size_t)ns * sizeof(Elf64_Shdr);
	return im->n;
}

static void test_kernels(void)
{
	static struct image im;
	struct inj_sym *v;
	size_t n, i;

	n = inj_elf_kernels(im.b, build(&im, 0), &v);
	CHECK_INT(n, 1);
	CHECK_MSG(n == 1 && !strcmp(v[0].name, "add_custom") && v[0].off == 0x40, "add_custom at 0x40");
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);

	/* ".te" at the end of the name table is not ".text" */
	n = inj_elf_kernels(im.b, build(&im, 1), &v);
	CHECK_INT(n, 1);
	CHECK_MSG(n == 1 && !strcmp(v[0].name, "add_custom"), "add_custom after a section named \".te\"");
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);

	/* cut anywhere: no kernel, no read past the end (under ASan) */
	for (size_t cut = 0; cut < im.n; cut += 7) {
		unsigned char *p = malloc(cut ? cut : 1);
		memcpy(p, im.b, cut);
		n = inj_elf_kernels(p, cut, &v);
		CHECK_MSG(n == 0, "image cut at %zu: %zu kernels", cut, n);
		for (i = 0; i < n; i++)
			free(v[i].name);
		free(v);
		free(p);
	}
}

int main(void)
{
	test_kernels();
	return unit_done();
}
