/* Unit tests of the kernel scan of the stand-in's dfx_region
 * instrumentation (test/camodel/kscan.c, ks_scan): a kernel binary built
 * here in memory, with .text holding the code gcc -O0 makes of two
 * intrinsic calls (COPY_GM_TO_UB and SIMT_OP) and a direct call of a
 * helper, .dynsym, .dynstr and the GOT relocation of camodel_kernel_ops.
 *
 * Three cases come from the fuzz target (fuzz_kscan): a helper without an
 * intrinsic call (its empty site list was copied from a NULL pointer), a
 * function symbol that starts before .text (a pointer was made from an
 * address outside .text before the bounds were checked; under clang's
 * UBSan), both stopping a run under the sanitizers, and a string table of
 * type NOBITS whose offset lies outside the file (read all the same: a
 * crash). */
#define CAMODEL_RUNTIME
#include "camodel_kernel.h"
#include "kscan.h"

#include <elf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "unit.h"

#define TEXT_ADDR 0x1000u
#define GOT_ADDR 0x3000u

struct image {
	unsigned char b[4096];
	size_t n;
};

static size_t put(struct image *im, const void *p, size_t n)
{
	size_t at = im->n;
	memcpy(im->b + im->n, p, n);
	im->n += n;
	return at;
}

/* The code of one intrinsic call at address a of the text t (at its
 * offset a - TEXT_ADDR): the GOT load, the table, the entry at slot into
 * %rdx, a mov, call *%rdx.  The return address. */
static uint32_t intrinsic(unsigned char *t, uint32_t a, size_t slot)
{
	unsigned char *p = t + (a - TEXT_ADDR);
	int32_t rel = (int32_t)(GOT_ADDR - (a + 7));
	uint32_t d32 = (uint32_t)slot;
	p[0] = 0x48, p[1] = 0x8b, p[2] = 0x05;
	memcpy(p + 3, &rel, 4);
	p[7] = 0x48, p[8] = 0x8b, p[9] = 0x00;
	p[10] = 0x48, p[11] = 0x8b, p[12] = 0x90;          /* mov disp32(%rax), %rdx */
	memcpy(p + 13, &d32, 4);
	p[17] = 0xb9, p[18] = 8, p[19] = p[20] = p[21] = 0;   /* mov $8, %ecx */
	p[22] = 0xff, p[23] = 0xd2;                          /* call *%rdx */
	return a + 24;
}

struct layout {
	uint32_t ret_copy, ret_simt;        /* the calls' return addresses */
	int64_t helper_value;               /* where the helper's symbol says it starts */
	int got;                            /* the relocation of camodel_kernel_ops */
	int second_kernel;                  /* a second global function */
	int nobits;                         /* 5: .shstrtab, 3: .dynstr of type NOBITS, far outside the file */
};

/* Sections: null, .text, .dynsym, .dynstr, .rela.dyn, .shstrtab.  Symbols:
 * camodel_kernel_ops, the kernel k (global), helper (local, called by k),
 * and with second_kernel k2 (global). */
static size_t build(struct image *im, struct layout *l)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh[6];
	Elf64_Sym sym[5];
	Elf64_Rela rela;
	unsigned char text[256];
	static const char dynstr[] = "\0camodel_kernel_ops\0k\0helper\0k2";
	static const char shstr[] = "\0.text\0.dynsym\0.dynstr\0.rela.dyn\0.shstrtab";
	size_t text_off, sym_off, str_off, rela_off, shs_off;
	int nsym = l->second_kernel ? 5 : 4;

	memset(im, 0, sizeof *im);
	memset(&eh, 0, sizeof eh);
	memset(sh, 0, sizeof sh);
	memset(sym, 0, sizeof sym);
	memset(text, 0x90, sizeof text);                     /* nops */
	/* k at 0x1000: COPY_GM_TO_UB at 0x1000, call helper at 0x1040, SIMT_OP at 0x1050 */
	l->ret_copy = intrinsic(text, TEXT_ADDR, offsetof(struct camodel_ops, gm_to_ub));
	{
		int32_t rel = (int32_t)(TEXT_ADDR + 0x80 - (TEXT_ADDR + 0x40 + 5));
		text[0x40] = 0xe8;
		memcpy(text + 0x41, &rel, 4);
	}
	l->ret_simt = intrinsic(text, TEXT_ADDR + 0x50, offsetof(struct camodel_ops, simt));
	text[0x70] = 0xc3;
	/* helper at 0x1080: no intrinsic call */
	text[0x80] = 0xc3;

	im->n = sizeof eh;
	im->n = (im->n + 15) & ~(size_t)15;
	text_off = put(im, text, sizeof text);
	sym[1].st_name = 1;
	sym[1].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
	sym[2].st_name = 20;
	sym[2].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[2].st_shndx = 1;
	sym[2].st_value = TEXT_ADDR;
	sym[2].st_size = 0x71;
	sym[3].st_name = 22;
	sym[3].st_info = ELF64_ST_INFO(STB_LOCAL, STT_FUNC);
	sym[3].st_shndx = 1;
	sym[3].st_value = (Elf64_Addr)l->helper_value;
	sym[3].st_size = TEXT_ADDR + 0x81 - (Elf64_Addr)l->helper_value;
	sym[4].st_name = 29;
	sym[4].st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
	sym[4].st_shndx = 1;
	sym[4].st_value = TEXT_ADDR + 0x90;
	sym[4].st_size = 1;
	sym_off = put(im, sym, (size_t)nsym * sizeof *sym);
	str_off = put(im, dynstr, sizeof dynstr);
	im->n = (im->n + 7) & ~(size_t)7;
	rela.r_offset = GOT_ADDR;
	rela.r_info = ELF64_R_INFO(1, l->got ? R_X86_64_GLOB_DAT : R_X86_64_JUMP_SLOT);
	rela.r_addend = 0;
	rela_off = put(im, &rela, sizeof rela);
	shs_off = put(im, shstr, sizeof shstr);
	im->n = (im->n + 7) & ~(size_t)7;

	sh[1] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS, .sh_addr = TEXT_ADDR, .sh_offset = text_off,
	                      .sh_size = sizeof text };
	sh[2] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_DYNSYM, .sh_offset = sym_off,
	                      .sh_size = (size_t)nsym * sizeof *sym, .sh_link = 3, .sh_entsize = sizeof *sym };
	sh[3] = (Elf64_Shdr){ .sh_name = 15, .sh_type = SHT_STRTAB, .sh_offset = str_off, .sh_size = sizeof dynstr };
	sh[4] = (Elf64_Shdr){ .sh_name = 23, .sh_type = SHT_RELA, .sh_offset = rela_off, .sh_size = sizeof rela,
	                      .sh_link = 2, .sh_entsize = sizeof rela };
	sh[5] = (Elf64_Shdr){ .sh_name = 33, .sh_type = SHT_STRTAB, .sh_offset = shs_off, .sh_size = sizeof shstr };

	if (l->nobits) {
		sh[l->nobits].sh_type = SHT_NOBITS;
		sh[l->nobits].sh_offset = 0x7fffffff00000000;
	}

	memcpy(eh.e_ident, ELFMAG, SELFMAG);
	eh.e_ident[EI_CLASS] = ELFCLASS64;
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_VERSION] = EV_CURRENT;
	eh.e_machine = EM_X86_64;
	eh.e_shoff = im->n;
	eh.e_shentsize = sizeof(Elf64_Shdr);
	eh.e_shnum = 6;
	eh.e_shstrndx = 5;
	memcpy(im->b, &eh, sizeof eh);
	put(im, sh, sizeof sh);
	return im->n;
}

/* ks_scan over an exact-size copy (ASan sees a read past the end). */
static int scan(const struct image *im, const char *name, unsigned sel, struct ks_result *r, char *err, size_t es)
{
	unsigned char *p = malloc(im->n);
	memcpy(p, im->b, im->n);
	int st = ks_scan(p, im->n, name, NULL, sel, r, err, es);
	free(p);
	return st;
}

static void test_sites(void)
{
	static struct image im;
	struct layout l = { .helper_value = TEXT_ADDR + 0x80, .got = 1 };
	struct ks_result r;
	char err[1200];
	unsigned all = (1u << ks_nkinds) - 1;

	build(&im, &l);
	CHECK_INT(scan(&im, NULL, all, &r, err, sizeof err), 0);
	CHECK(!strcmp(r.kernel, "k"));
	CHECK_INT(r.n, 2);
	if (r.n == 2) {
		/* the offset the simulator gives the call: in it, 4-byte aligned,
		 * a SIMT one 8-byte aligned */
		CHECK_INT(r.sites[0].pc, (l.ret_copy - 1) & ~3u);
		CHECK(!strcmp(ks_kinds[r.sites[0].kind].opcode, "copy_gm_to_ubuf"));
		CHECK_INT(r.sites[0].id, 0x600);
		CHECK_INT(r.sites[1].pc, (l.ret_simt - 1) & ~7u);
		CHECK(!strcmp(ks_kinds[r.sites[1].kind].sel, "simt"));
		CHECK_INT(r.sites[1].id, 0x600);
	}
	CHECK_INT(r.want[BIU_MTE2], 1);
	CHECK_INT(r.used[BIU_VECTOR], 1);
	ks_free(&r);

	/* only the MTE2 kind: the SIMT site stays, without an id */
	unsigned mte2 = 0;
	for (unsigned k = 0; k < ks_nkinds; k++)
		if (!strcmp(ks_kinds[k].sel, "mte2"))
			mte2 |= 1u << k;
	CHECK_INT(scan(&im, "k", mte2, &r, err, sizeof err), 0);
	CHECK_INT(r.n, 2);
	if (r.n == 2)
		CHECK_INT(r.sites[1].id, 0);
	CHECK_INT(r.used[BIU_VECTOR], 0);
	ks_free(&r);

	/* a helper whose symbol starts before .text: the part inside is
	 * scanned, nothing outside is touched */
	l.helper_value = 0x10;
	build(&im, &l);
	CHECK_INT(scan(&im, "k", all, &r, err, sizeof err), 0);
	CHECK_INT(r.n, 2);
	ks_free(&r);
	l.helper_value = -(int64_t)0x100;   /* near 2^64: its end wraps */
	build(&im, &l);
	CHECK_INT(scan(&im, "k", all, &r, err, sizeof err), 0);
	CHECK_INT(r.n, 2);
	ks_free(&r);
	l.helper_value = TEXT_ADDR + 0x80;

	/* refusals: several kernels, none named; no such kernel; not a
	 * kernel of the stand-in */
	l.second_kernel = 1;
	build(&im, &l);
	CHECK_INT(scan(&im, NULL, all, &r, err, sizeof err), 2);
	CHECK(strstr(err, "2 kernels") != NULL);
	CHECK(!r.sites);
	CHECK_INT(scan(&im, "k2", all, &r, err, sizeof err), 0);
	CHECK_INT(r.n, 0);
	ks_free(&r);
	CHECK_INT(scan(&im, "nope", all, &r, err, sizeof err), 3);
	CHECK(strstr(err, "no kernel named nope") != NULL);
	l.second_kernel = 0;
	l.got = 0;
	build(&im, &l);
	CHECK_INT(scan(&im, NULL, all, &r, err, sizeof err), 3);
	CHECK(strstr(err, "camodel_kernel_ops") != NULL);

	/* a string table of type NOBITS has no bytes in the file: its offset
	 * and size are not read (they were, for the section names) */
	l.got = 1;
	l.nobits = 5;
	build(&im, &l);
	CHECK_INT(scan(&im, NULL, all, &r, err, sizeof err), 3);
	CHECK(strstr(err, "no .text") != NULL);
	l.nobits = 3;
	build(&im, &l);
	CHECK_INT(scan(&im, NULL, all, &r, err, sizeof err), 3);
	l.nobits = 0;

	/* cut anywhere: refused or scanned, never a read past the end */
	l.got = 1;
	build(&im, &l);
	size_t whole = im.n;
	for (size_t cut = 0; cut < whole; cut += 5) {
		int st;
		im.n = cut;
		st = scan(&im, NULL, all, &r, err, sizeof err);
		CHECK_MSG(st == 0 || st == 3, "cut at %zu: status %d", cut, st);
		ks_free(&r);
	}
}

int main(void)
{
	test_sites();
	return unit_done();
}
