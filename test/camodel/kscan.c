/* The kernel scan of the stand-in's dfx_region instrumentation (see
 * kscan.h, README section 12).
 *
 * The stand-in's kernels are x86-64 code compiled with gcc -O0 (README,
 * section 2): an intrinsic is a call through camodel_kernel_ops, loaded
 * from the GOT, then the table entry loaded into a register, then an
 * indirect call of that register.  The scan recognises that sequence;
 * which table entry was loaded says which instruction it is. */
#define CAMODEL_RUNTIME
#include "camodel_kernel.h"
#include "kscan.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "devprof.h"
#include "mem.h"

const struct ks_kind ks_kinds[] = {
	{ offsetof(struct camodel_ops, gm_to_ub), BIU_MTE2, 4, "mte2", "copy_gm_to_ubuf" },
	{ offsetof(struct camodel_ops, gm_to_l1), BIU_MTE2, 4, "mte2", "copy_gm_to_cbuf" },
	{ offsetof(struct camodel_ops, ub_to_gm), BIU_MTE3, 4, "mte3", "copy_ubuf_to_gm" },
	{ offsetof(struct camodel_ops, l1_to_l0a), BIU_MTE1, 4, "mte1", "load_cbuf_to_ca" },
	{ offsetof(struct camodel_ops, l1_to_l0b), BIU_MTE1, 4, "mte1", "load_cbuf_to_cb" },
	{ offsetof(struct camodel_ops, mmad), BIU_CUBE, 4, "cube", "mmad" },
	{ offsetof(struct camodel_ops, l0c_to_gm), BIU_FIXP, 4, "fixp", "fix_matrix_cc_to_gm" },
	{ offsetof(struct camodel_ops, vbin), BIU_VECTOR, 4, "simd", "vbinary" },
	{ offsetof(struct camodel_ops, vuna), BIU_VECTOR, 4, "simd", "vunary" },
	{ offsetof(struct camodel_ops, vreduce_add), BIU_VECTOR, 4, "simd", "vcadd" },
	{ offsetof(struct camodel_ops, simt), BIU_VECTOR, 8, "simt", "simt_vf" },
};
const unsigned ks_nkinds = sizeof ks_kinds / sizeof ks_kinds[0];

struct elf {
	const unsigned char *d;
	size_t len;
	const Elf64_Shdr *sh;
	size_t nsec;
};

static int in(uint64_t off, uint64_t size, uint64_t len)
{
	return off <= len && size <= len - off;
}

/* String n of string table st, "" when st or the string lies outside the
 * file (a SHT_NOBITS section's offset and size are no bytes of it). */
static const char *str_at(const struct elf *e, const Elf64_Shdr *st, uint64_t n)
{
	if (st->sh_type == SHT_NOBITS || !in(st->sh_offset, st->sh_size, e->len) || n >= st->sh_size)
		return "";
	const char *s = (const char *)e->d + st->sh_offset + n;
	return memchr(s, 0, st->sh_size - n) ? s : "";
}

static const char *sec_name(const struct elf *e, const Elf64_Shdr *s)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)e->d;
	return str_at(e, &e->sh[eh->e_shstrndx], s->sh_name);
}

static const char *sym_name(const struct elf *e, const Elf64_Shdr *symsec, const Elf64_Sym *s)
{
	return str_at(e, &e->sh[symsec->sh_link], s->st_name);
}

/* The sections of an x86-64 ELF shared object, bounds-checked; NULL if it
 * is none. */
static const char *elf_open(struct elf *e, const unsigned char *d, size_t len)
{
	Elf64_Ehdr eh;
	e->d = d;
	e->len = len;
	if (len < sizeof eh || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64 || d[EI_DATA] != ELFDATA2LSB)
		return "not a 64-bit little-endian ELF file";
	memcpy(&eh, d, sizeof eh);
	if (eh.e_machine != EM_X86_64)
		return "not code the stand-in runs (x86-64)";
	if (eh.e_shentsize != sizeof(Elf64_Shdr) || (eh.e_shoff & 7) ||
	    !in(eh.e_shoff, (uint64_t)eh.e_shnum * sizeof(Elf64_Shdr), len) || eh.e_shstrndx >= eh.e_shnum)
		return "bad section table";
	e->sh = (const Elf64_Shdr *)(d + eh.e_shoff);
	e->nsec = eh.e_shnum;
	for (size_t i = 1; i < e->nsec; i++)
		if (e->sh[i].sh_type != SHT_NOBITS && !in(e->sh[i].sh_offset, e->sh[i].sh_size, len))
			return "a section lies outside the file";
	return NULL;
}

static const Elf64_Shdr *elf_section(const struct elf *e, const char *name, size_t *idx)
{
	for (size_t i = 1; i < e->nsec; i++)
		if (!strcmp(sec_name(e, &e->sh[i]), name)) {
			if (idx)
				*idx = i;
			return &e->sh[i];
		}
	return NULL;
}

static const Elf64_Shdr *elf_symtab(const struct elf *e, unsigned type)
{
	for (size_t i = 1; i < e->nsec; i++)
		if (e->sh[i].sh_type == type && e->sh[i].sh_entsize == sizeof(Elf64_Sym) && !(e->sh[i].sh_offset & 7) &&
		    e->sh[i].sh_link < e->nsec)
			return &e->sh[i];
	return NULL;
}

/* The GOT slot of camodel_kernel_ops (its R_X86_64_GLOB_DAT relocation). */
static uint64_t ops_got(const struct elf *e)
{
	const Elf64_Shdr *dyn = elf_symtab(e, SHT_DYNSYM);
	for (size_t i = 1; dyn && i < e->nsec; i++) {
		const Elf64_Shdr *r = &e->sh[i];
		if (r->sh_type != SHT_RELA || r->sh_entsize != sizeof(Elf64_Rela) || (r->sh_offset & 7))
			continue;
		for (uint64_t k = 0; k < r->sh_size / sizeof(Elf64_Rela); k++) {
			const Elf64_Rela *a = (const Elf64_Rela *)(e->d + r->sh_offset) + k;
			uint64_t si = ELF64_R_SYM(a->r_info);
			if (ELF64_R_TYPE(a->r_info) != R_X86_64_GLOB_DAT || si >= dyn->sh_size / sizeof(Elf64_Sym))
				continue;
			if (!strcmp(sym_name(e, dyn, (const Elf64_Sym *)(e->d + dyn->sh_offset) + si), "camodel_kernel_ops"))
				return a->r_offset;
		}
	}
	return 0;
}

/* [lo, hi) cut to the bytes of .text (its end past 2^64 taken as 2^64);
 * empty (hi = lo) when they miss it. */
static void in_text(const Elf64_Shdr *text, uint64_t *lo, uint64_t *hi)
{
	uint64_t b = text->sh_addr, e = b + text->sh_size;
	if (e < b)
		e = UINT64_MAX;
	if (*lo < b)
		*lo = b;
	if (*hi > e)
		*hi = e;
	if (*hi < *lo)
		*hi = *lo;
}

/* The intrinsic calls in [lo, hi) of .text: mov GOT(%rip),%rax;
 * mov (%rax),%rax; mov disp(%rax),%reg; ... call *%reg. */
static size_t scan(const struct elf *e, const Elf64_Shdr *text, uint64_t lo, uint64_t hi, uint64_t got,
                   struct ks_site **out)
{
	const unsigned char *t = e->d + text->sh_offset;
	uint64_t base = text->sh_addr, n = 0, cap = 0;
	struct ks_site *v = NULL;
	in_text(text, &lo, &hi);
	/* a <= hi throughout: the lengths left are hi - a, never a sum that wraps */
	for (uint64_t a = lo; hi - a >= 14; a++) {
		const unsigned char *p = t + (a - base);
		int32_t rel;
		if (p[0] != 0x48 || p[1] != 0x8b || p[2] != 0x05)
			continue;
		memcpy(&rel, p + 3, 4);
		if (a + 7 + (uint64_t)(int64_t)rel != got || p[7] != 0x48 || p[8] != 0x8b || p[9] != 0x00)
			continue;
		/* mov disp8/disp32(%rax), %reg */
		const unsigned char *m = p + 10;
		if ((m[0] != 0x48 && m[0] != 0x4c) || m[1] != 0x8b || (m[2] & 7) != 0)
			continue;
		unsigned mod = m[2] >> 6, reg = ((m[2] >> 3) & 7) | (m[0] == 0x4c ? 8u : 0u);
		uint64_t slot, after;
		if (mod == 1) {
			slot = m[3];
			after = a + 14;
		} else if (mod == 2 && hi - a >= 17) {
			uint32_t d32;
			memcpy(&d32, m + 3, 4);
			slot = d32;
			after = a + 17;
		} else
			continue;
		unsigned k;
		for (k = 0; k < ks_nkinds && ks_kinds[k].slot != slot; k++)
			;
		if (k == ks_nkinds)
			continue;   /* scalar, synchronisation, ...: never marked */
		/* the call of that register */
		for (uint64_t c = after; hi - c >= 2 && c - after < 512; c++) {
			const unsigned char *q = t + (c - base);
			int hit = reg < 8 ? q[0] == 0xff && q[1] == (0xd0 | reg) && t[c - base - 1] != 0x41
			                  : hi - c >= 3 && q[0] == 0x41 && q[1] == 0xff && q[2] == (0xd0 | (reg - 8));
			if (!hit)
				continue;
			uint64_t ret = c + (reg < 8 ? 2 : 3);
			if (n == cap)
				v = xreallocarray(v, cap = cap ? cap * 2 : 64, sizeof *v);
			v[n].pc = (ret - 1) & ~(uint64_t)(ks_kinds[k].align - 1);
			v[n].kind = k;
			v[n].id = 0;
			n++;
			a = after - 1;
			break;
		}
	}
	*out = v;
	return n;
}

static int by_pc(const void *a, const void *b)
{
	const struct ks_site *x = a, *y = b;
	return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Does symbol name s stand for tiling key key: NAME_KEY, NAME_KEY_mix_aic
 * or NAME_KEY_mix_aiv? */
static int has_key(const char *s, const char *key)
{
	size_t n = strlen(s), k = strlen(key);
	static const char *const tails[] = { "", "_mix_aic", "_mix_aiv" };
	for (unsigned i = 0; i < 3; i++) {
		size_t t = strlen(tails[i]);
		if (n > k + t + 1 && !strcmp(s + n - t, tails[i]) && s[n - t - k - 1] == '_' &&
		    !strncmp(s + n - t - k, key, k))
			return 1;
	}
	return 0;
}

int ks_scan(const unsigned char *d, size_t len, const char *name, const char *key, unsigned sel,
            struct ks_result *res, char *err, size_t es)
{
	struct elf e = { 0 };
	const char *why = elf_open(&e, d, len);
	size_t ti = 0;
	const Elf64_Shdr *text = why ? NULL : elf_section(&e, ".text", &ti);
	const Elf64_Shdr *sym = why ? NULL : elf_symtab(&e, SHT_SYMTAB);
	if (!why && !sym)
		sym = elf_symtab(&e, SHT_DYNSYM);
	uint64_t gotslot = why ? 0 : ops_got(&e);
	if (!why && (!text || text->sh_type == SHT_NOBITS))
		why = "no .text section";
	else if (!why && !sym)
		why = "no symbol table";
	else if (!why && !gotslot)
		why = "no camodel_kernel_ops (not a kernel of the stand-in)";
	memset(res, 0, sizeof *res);
	if (why) {
		snprintf(err, es, "%s", why);
		return 3;
	}

	/* The kernels asked for (global functions of .text) and the
	 * functions they call, directly or not: the kernel's code. */
	struct fn { uint64_t lo, hi; int in, global; const char *name; } *fns = NULL;
	size_t nfn = 0, nkern = 0, nglobal = 0;
	for (uint64_t k = 1; k < sym->sh_size / sizeof(Elf64_Sym); k++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(d + sym->sh_offset) + k;
		const char *sn = sym_name(&e, sym, s);
		if (ELF64_ST_TYPE(s->st_info) != STT_FUNC || s->st_shndx != ti || !s->st_size)
			continue;
		fns = xreallocarray(fns, nfn + 1, sizeof *fns);
		fns[nfn].lo = s->st_value;
		fns[nfn].hi = s->st_value + s->st_size;
		fns[nfn].in = 0;
		fns[nfn].name = sn;
		fns[nfn].global = ELF64_ST_BIND(s->st_info) == STB_GLOBAL && *sn;
		nfn++;
		if (!fns[nfn - 1].global)
			continue;
		nglobal++;
		if (name ? strcmp(sn, name) : key ? !has_key(sn, key) : 0)
			continue;
		fns[nfn - 1].in = 1;
		if (!nkern++)
			snprintf(res->kernel, sizeof res->kernel, "%s", sn);
	}
	/* neither named: every global function was taken, there must be one */
	if (!name && !key && nglobal != 1) {
		free(fns);
		snprintf(err, es, "%zu kernels: name one (--kernel-name or --tiling-key)", nglobal);
		return 2;
	}
	/* A launch by tiling key of a binary with one kernel runs that one
	 * (README section 2): so does the instrumentation. */
	if (!nkern && key && nglobal == 1)
		for (size_t i = 0; i < nfn; i++)
			if (fns[i].global) {
				fns[i].in = 1;
				nkern = 1;
				snprintf(res->kernel, sizeof res->kernel, "%s", fns[i].name);
			}
	if (!nkern) {
		free(fns);
		if (name)
			snprintf(err, es, "no kernel named %s", name);
		else
			snprintf(err, es, "no kernel for tiling key %s (no function NAME_%s)", key, key);
		return 3;
	}
	/* direct calls (e8 rel32) to the start of a function */
	for (int more = 1; more;) {
		more = 0;
		for (size_t i = 0; i < nfn; i++) {
			if (fns[i].in != 1)
				continue;
			fns[i].in = 2;
			uint64_t lo = fns[i].lo, hi = fns[i].hi;
			/* (only then a pointer into .text: one made from an
			 * address outside it could wrap) */
			in_text(text, &lo, &hi);
			for (uint64_t a = lo; hi - a >= 5; a++) {
				const unsigned char *p = d + text->sh_offset + (a - text->sh_addr);
				int32_t rel;
				if (p[0] != 0xe8)
					continue;
				memcpy(&rel, p + 1, 4);
				for (size_t j = 0; j < nfn; j++)
					if (!fns[j].in && fns[j].lo == a + 5 + (uint64_t)(int64_t)rel) {
						fns[j].in = 1;
						more = 1;
					}
			}
		}
	}
	struct ks_site *all = NULL;
	size_t nall = 0;
	for (size_t i = 0; i < nfn; i++) {
		struct ks_site *v;
		size_t n;
		if (!fns[i].in)
			continue;
		n = scan(&e, text, fns[i].lo, fns[i].hi, gotslot, &v);
		all = xreallocarray(all, nall + n + 1, sizeof *all);
		if (n)   /* a function without intrinsic calls has no sites (v NULL) */
			memcpy(all + nall, v, n * sizeof *v);
		nall += n;
		free(v);
	}
	free(fns);

	/* Ids in program order, per pipe: 0x600 + k, then 0xE00 + k - 512
	 * (bits 9 and 10 set: instruction marks). */
	qsort(all, nall, sizeof *all, by_pc);
	unsigned *used = res->used, *want = res->want;
	for (size_t i = 0; i < nall; i++) {
		unsigned p = ks_kinds[all[i].kind].pipe;
		if (!(sel >> all[i].kind & 1))
			continue;
		if (want[p]++ < DP_DFX_IDS_A5)
			all[i].id = dp_dfx_id(used[p]++);
	}
	res->sites = all;
	res->n = nall;
	return 0;
}

void ks_free(struct ks_result *r)
{
	free(r->sites);
	r->sites = NULL;
	r->n = 0;
}
