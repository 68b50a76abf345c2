/* libruntime_camodel.so of the stand-in simulator: the rt* runtime API
 * (device, memory, streams, binary and function registration, launches),
 * DvcSetLogLevel/DvcAttachLogCallback, and the few camodel* entry points
 * the stand-in's ACL library launches through (so an ACL launch is not also
 * seen as an rt* launch, as with CANN).
 *
 * Device memory is host memory behind made-up device addresses handed out
 * in call order, each allocation on its own 2 MiB boundary: the same
 * program gives the same addresses, and the same dumps, on every run, and
 * a replay that allocates the same buffers in the same order (with a few
 * bytes of padding, as kernel-launcher does) gets the same addresses too. */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "camodel.h"
#include "runtime/rt.h"

#define API __attribute__((visibility("default")))

#define GM_BASE      0x100000000ull
#define GM_ALIGN     (2u << 20)   /* every allocation starts on a 2 MiB boundary */
#define PC_BASE      0x11000000ull
#define PC_STRIDE    0x400000ull

/* ---- SoC, family, log directory ---- */

static char soc[64];
static enum fam family;
static char logdir[4096];
/* recursive: a log callback may call the runtime (rtMemcpy ...) */
static pthread_mutex_t big = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static int inited;

static const char *soc_of_dir(const char *d)
{
	if (!strcmp(d, "dav_3510")) return "Ascend950PR_9599";
	if (!strcmp(d, "dav_2002")) return "Ascend310P1";
	if (!strcmp(d, "dav_2201")) return "Ascend910B1";
	return d;
}

/* "<...>/simulator/<name>/lib[/...]" or any "(Ascend...|dav_NNNN)/lib" */
static int soc_from_path(const char *path, char *out, size_t n)
{
	for (const char *p = path; (p = strstr(p, "/lib")) != NULL; p++) {
		if (p[4] && p[4] != '/' && p[4] != ':') continue;
		const char *q = p;
		while (q > path && q[-1] != '/' && q[-1] != ':') q--;
		size_t l = (size_t)(p - q);
		if (l == 0 || l >= 48) continue;
		char name[48];
		memcpy(name, q, l);
		name[l] = 0;
		if (!strncmp(name, "Ascend", 6) || (!strncmp(name, "dav_", 4) && l == 8)) {
			snprintf(out, n, "%s", soc_of_dir(name));
			return 1;
		}
	}
	return 0;
}

static void init_locked(void)
{
	if (inited) return;
	inited = 1;
	const char *e = getenv("CAMODEL_SOC_VERSION");
	Dl_info di;
	if (e && *e) snprintf(soc, sizeof soc, "%s", e);
	else if (!(dladdr((void *)init_locked, &di) && di.dli_fname && soc_from_path(di.dli_fname, soc, sizeof soc))
	         && !((e = getenv("LD_LIBRARY_PATH")) && soc_from_path(e, soc, sizeof soc)))
		snprintf(soc, sizeof soc, "Ascend910B1");
	if (!strncmp(soc, "Ascend310P", 10)) family = FAM_310P;
	else if (!strncmp(soc, "Ascend950", 9) || !strncmp(soc, "dav_3510", 8)) family = FAM_A5;
	else family = FAM_A2;
	e = getenv("CAMODEL_LOG_PATH");
	snprintf(logdir, sizeof logdir, "%s", e && *e ? e : ".");
	logw_init();
}

static void init(void)
{
	pthread_mutex_lock(&big);
	init_locked();
	pthread_mutex_unlock(&big);
}

HIDDEN enum fam rt_family(void) { return family; }
HIDDEN const char *rt_soc(void) { return soc; }
HIDDEN const char *rt_log_dir(void)
{
	struct stat st;
	if (stat(logdir, &st) != 0) {
		/* create the directory (and its parents) like the simulator does */
		char p[4096];
		snprintf(p, sizeof p, "%s", logdir);
		for (char *c = p + 1; *c; c++)
			if (*c == '/') { *c = 0; mkdir(p, 0750); *c = '/'; }
		mkdir(p, 0750);
	}
	return logdir;
}

/* ---- device memory ---- */

struct alloc { uint64_t addr, size; uint8_t *host; int freed; };
static struct alloc *allocs;
static size_t nallocs, capallocs;
static uint64_t gm_next = GM_BASE;

static struct alloc *find_alloc(uint64_t addr)
{
	size_t lo = 0, hi = nallocs;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (allocs[mid].addr + allocs[mid].size <= addr) lo = mid + 1;
		else hi = mid;
	}
	if (lo < nallocs && allocs[lo].addr <= addr && addr < allocs[lo].addr + allocs[lo].size && !allocs[lo].freed)
		return &allocs[lo];
	return NULL;
}

HIDDEN void *rt_dev_ptr(uint64_t addr, uint64_t len)
{
	struct alloc *a = find_alloc(addr);
	if (!a || len > a->size - (addr - a->addr)) return NULL;
	return a->host + (addr - a->addr);
}

static int dev_alloc(uint64_t size, uint64_t *out)
{
	if (size == 0) return ACL_ERROR_RT_PARAM_INVALID;
	if (nallocs == capallocs) {
		size_t nc = capallocs ? capallocs * 2 : 64;
		struct alloc *a = realloc(allocs, nc * sizeof *a);
		if (!a) return ACL_ERROR_RT_MEMORY_ALLOCATION;
		allocs = a;
		capallocs = nc;
	}
	uint8_t *h = calloc(1, size);
	if (!h) return ACL_ERROR_RT_MEMORY_ALLOCATION;
	allocs[nallocs++] = (struct alloc){ gm_next, size, h, 0 };
	*out = gm_next;
	gm_next += (size + GM_ALIGN - 1) / GM_ALIGN * GM_ALIGN;
	return 0;
}

static int dev_free(uint64_t addr)
{
	struct alloc *a = find_alloc(addr);
	if (!a || a->addr != addr) return ACL_ERROR_RT_PARAM_INVALID;
	free(a->host);
	a->host = NULL;
	a->freed = 1;
	return 0;
}

API rtError_t rtMalloc(void **devPtr, uint64_t size, rtMemType_t type, const uint16_t moduleId)
{
	(void)type; (void)moduleId;
	if (!devPtr) return ACL_ERROR_RT_PARAM_INVALID;
	init();
	uint64_t a = 0;
	pthread_mutex_lock(&big);
	int rc = dev_alloc(size, &a);
	pthread_mutex_unlock(&big);
	*devPtr = rc ? NULL : (void *)(uintptr_t)a;
	return rc;
}

API rtError_t rtFree(void *devPtr)
{
	if (!devPtr) return 0;
	pthread_mutex_lock(&big);
	int rc = dev_free((uint64_t)(uintptr_t)devPtr);
	pthread_mutex_unlock(&big);
	return rc;
}

API rtError_t rtMallocHost(void **hostPtr, uint64_t size, const uint16_t moduleId)
{
	(void)moduleId;
	if (!hostPtr || !size) return ACL_ERROR_RT_PARAM_INVALID;
	*hostPtr = calloc(1, size);
	return *hostPtr ? 0 : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

API rtError_t rtFreeHost(void *hostPtr)
{
	free(hostPtr);
	return 0;
}

API rtError_t rtMemset(void *devPtr, uint64_t destMax, uint32_t val, uint64_t cnt)
{
	if (cnt > destMax) return ACL_ERROR_RT_PARAM_INVALID;
	pthread_mutex_lock(&big);
	void *p = rt_dev_ptr((uint64_t)(uintptr_t)devPtr, cnt);
	if (p) memset(p, (int)val, cnt);
	pthread_mutex_unlock(&big);
	return p ? 0 : ACL_ERROR_RT_PARAM_INVALID;
}

API rtError_t rtMemcpy(void *dst, uint64_t destMax, const void *src, uint64_t cnt, rtMemcpyKind_t kind)
{
	if (cnt > destMax || (!dst && cnt) || (!src && cnt)) return ACL_ERROR_RT_PARAM_INVALID;
	if (!cnt) return 0;
	pthread_mutex_lock(&big);
	void *d = dst;
	const void *s = src;
	int dev_dst = kind == RT_MEMCPY_HOST_TO_DEVICE || kind == RT_MEMCPY_DEVICE_TO_DEVICE ||
	              kind == RT_MEMCPY_HOST_TO_DEVICE_EX || kind == RT_MEMCPY_ADDR_DEVICE_TO_DEVICE;
	int dev_src = kind == RT_MEMCPY_DEVICE_TO_HOST || kind == RT_MEMCPY_DEVICE_TO_DEVICE ||
	              kind == RT_MEMCPY_DEVICE_TO_HOST_EX || kind == RT_MEMCPY_ADDR_DEVICE_TO_DEVICE;
	if (kind == RT_MEMCPY_MANAGED) {
		/* default: whichever side is device memory */
		if (rt_dev_ptr((uint64_t)(uintptr_t)dst, cnt)) dev_dst = 1;
		if (rt_dev_ptr((uint64_t)(uintptr_t)src, cnt)) dev_src = 1;
	}
	if (dev_dst) d = rt_dev_ptr((uint64_t)(uintptr_t)dst, cnt);
	if (dev_src) s = rt_dev_ptr((uint64_t)(uintptr_t)src, cnt);
	int rc = 0;
	if (!d || !s) rc = ACL_ERROR_RT_PARAM_INVALID;
	else memmove(d, s, cnt);
	pthread_mutex_unlock(&big);
	return rc;
}

API rtError_t rtMemcpyAsync(void *dst, uint64_t destMax, const void *src, uint64_t cnt, rtMemcpyKind_t kind,
                            rtStream_t stm)
{
	(void)stm;
	return rtMemcpy(dst, destMax, src, cnt, kind);
}

/* ---- devices, contexts, streams ---- */

static int32_t cur_dev = -1;
/* A stream being captured (aclmdlRICaptureBegin) records its launches
 * into cap instead of running them. */
struct model;
struct stream { uint32_t magic; int32_t err; struct model *cap; };
#define STREAM_MAGIC 0x5354524du
static struct stream default_stream = { STREAM_MAGIC, 0, NULL };

API rtError_t rtSetDevice(int32_t devId)
{
	init();
	if (devId < 0 || devId > 63) return ACL_ERROR_RT_INVALID_DEVICEID;
	cur_dev = devId;
	return 0;
}
API rtError_t rtSetDeviceEx(int32_t devId) { return rtSetDevice(devId); }
API rtError_t rtSetDeviceV2(int32_t devId, rtDeviceMode deviceMode) { (void)deviceMode; return rtSetDevice(devId); }

API rtError_t rtDeviceReset(int32_t devId)
{
	(void)devId;
	pthread_mutex_lock(&big);
	logw_flush_all();
	pthread_mutex_unlock(&big);
	return 0;
}
API rtError_t rtDeviceResetEx(int32_t devId) { return rtDeviceReset(devId); }

API rtError_t rtGetDevice(int32_t *devId)
{
	if (!devId) return ACL_ERROR_RT_PARAM_INVALID;
	if (cur_dev < 0) return ACL_ERROR_RT_CONTEXT_NULL;
	*devId = cur_dev;
	return 0;
}

API rtError_t rtGetDeviceCount(int32_t *cnt)
{
	if (!cnt) return ACL_ERROR_RT_PARAM_INVALID;
	*cnt = 1;
	return 0;
}

API rtError_t rtGetDeviceInfo(uint32_t deviceId, int32_t moduleType, int32_t infoType, int64_t *val)
{
	(void)deviceId; (void)moduleType; (void)infoType;
	if (!val) return ACL_ERROR_RT_PARAM_INVALID;
	*val = 0;
	return 0;
}

API rtError_t rtGetSocVersion(char *ver, const uint32_t maxLen)
{
	init();
	if (!ver || maxLen <= strlen(soc)) return ACL_ERROR_RT_PARAM_INVALID;
	memcpy(ver, soc, strlen(soc) + 1);
	return 0;
}

API rtError_t rtGetAiCoreCount(uint32_t *aiCoreCnt)
{
	init();
	if (!aiCoreCnt) return ACL_ERROR_RT_PARAM_INVALID;
	*aiCoreCnt = family == FAM_310P ? 8 : family == FAM_A5 ? 32 : strstr(soc, "910B4") ? 20 : 24;
	return 0;
}

API rtError_t rtCtxCreate(void **createCtx, uint32_t flags, int32_t devId)
{
	(void)flags;
	if (!createCtx) return ACL_ERROR_RT_PARAM_INVALID;
	int rc = rtSetDevice(devId);
	*createCtx = rc ? NULL : (void *)&default_stream;
	return rc;
}
API rtError_t rtCtxCreateV2(void **createCtx, uint32_t flags, int32_t devId, rtDeviceMode deviceMode)
{
	(void)deviceMode;
	return rtCtxCreate(createCtx, flags, devId);
}
API rtError_t rtCtxCreateEx(void **ctx, uint32_t flags, int32_t devId) { return rtCtxCreate(ctx, flags, devId); }

API rtError_t rtDeviceStatusQuery(const uint32_t devId, rtDeviceStatus *deviceStatus)
{
	(void)devId;
	if (!deviceStatus) return ACL_ERROR_RT_PARAM_INVALID;
	*deviceStatus = RT_DEVICE_STATUS_NORMAL;
	return 0;
}

API rtError_t rtStreamCreate(rtStream_t *stream, int32_t priority)
{
	(void)priority;
	if (!stream) return ACL_ERROR_RT_PARAM_INVALID;
	struct stream *s = malloc(sizeof *s);
	if (!s) return ACL_ERROR_RT_MEMORY_ALLOCATION;
	*s = (struct stream){ STREAM_MAGIC, 0, NULL };
	*stream = s;
	return 0;
}

static struct stream *stream_of(rtStream_t stm)
{
	struct stream *s = stm ? stm : &default_stream;
	return s->magic == STREAM_MAGIC ? s : NULL;
}

API rtError_t rtStreamDestroy(rtStream_t stream)
{
	struct stream *s = stream_of(stream);
	if (!s || s == &default_stream) return s ? 0 : ACL_ERROR_RT_PARAM_INVALID;
	s->magic = 0;
	free(s);
	return 0;
}

/* Kernels run at launch; synchronising reports (and clears) the first
 * failure of a kernel launched on the stream since the last sync. */
API rtError_t rtStreamSynchronize(rtStream_t stm)
{
	struct stream *s = stream_of(stm);
	if (!s) return ACL_ERROR_RT_PARAM_INVALID;
	int rc = s->err;
	s->err = 0;
	return rc;
}
API rtError_t rtStreamSynchronizeWithTimeout(rtStream_t stream, int32_t timeout)
{
	(void)timeout;
	return rtStreamSynchronize(stream);
}
API rtError_t rtCtxGetCurrentDefaultStream(rtStream_t *stm)
{
	if (!stm) return ACL_ERROR_RT_PARAM_INVALID;
	*stm = &default_stream;
	return 0;
}

API rtError_t rtCallbackLaunch(rtCallback_t callBackFunc, void *fnData, rtStream_t stm, bool isBlock)
{
	(void)stm; (void)isBlock;
	if (!callBackFunc) return ACL_ERROR_RT_PARAM_INVALID;
	callBackFunc(fnData);
	return 0;
}

API rtError_t rtGetC2cCtrlAddr(uint64_t *addr, uint32_t *fftsLen)
{
	if (!addr) return ACL_ERROR_RT_PARAM_INVALID;
	*addr = 0xf0000000ull;
	if (fftsLen) *fftsLen = 64;
	return 0;
}

/* ---- binaries and functions ---- */

struct ksym { char *name; uint64_t off; };
struct bin {
	struct kernel_bin kb;
	struct ksym *syms;
	size_t nsyms;
	int fd;
};
struct func { struct bin *b; void *entry; uint64_t off; const void *stub; char *name; };

static struct bin **bins;
static size_t nbins;
static struct func *funcs;
static size_t nfuncs, capfuncs;

/* Global functions of .text, from the ELF's dynamic symbol table. */
static int elf_syms(const uint8_t *d, uint64_t len, struct bin *b)
{
	if (len < sizeof(Elf64_Ehdr) || memcmp(d, ELFMAG, SELFMAG) || d[EI_CLASS] != ELFCLASS64) return -1;
	const Elf64_Ehdr *eh = (const void *)d;
	if (eh->e_shoff == 0 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len || eh->e_shstrndx >= eh->e_shnum)
		return -1;
	const Elf64_Shdr *sh = (const void *)(d + eh->e_shoff);
	const Elf64_Shdr *shs = &sh[eh->e_shstrndx];
	if (shs->sh_offset + shs->sh_size > len) return -1;
	int text = -1;
	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_name < shs->sh_size && !strcmp((const char *)d + shs->sh_offset + sh[i].sh_name, ".text"))
			text = i;
	for (int i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_DYNSYM || sh[i].sh_link >= eh->e_shnum) continue;
		const Elf64_Shdr *st = &sh[sh[i].sh_link];
		if (sh[i].sh_offset + sh[i].sh_size > len || st->sh_offset + st->sh_size > len) return -1;
		size_t n = sh[i].sh_size / sizeof(Elf64_Sym);
		const Elf64_Sym *sy = (const void *)(d + sh[i].sh_offset);
		for (size_t k = 0; k < n; k++) {
			if (ELF64_ST_TYPE(sy[k].st_info) != STT_FUNC || ELF64_ST_BIND(sy[k].st_info) != STB_GLOBAL ||
			    sy[k].st_shndx != text || sy[k].st_name >= st->sh_size)
				continue;
			struct ksym *ns = realloc(b->syms, (b->nsyms + 1) * sizeof *ns);
			if (!ns) return -1;
			b->syms = ns;
			b->syms[b->nsyms].name = strndup((const char *)d + st->sh_offset + sy[k].st_name,
			                                 st->sh_size - sy[k].st_name);
			b->syms[b->nsyms++].off = sy[k].st_value;
		}
	}
	return 0;
}

struct span { uintptr_t base, size; };

static int find_span(struct dl_phdr_info *info, size_t n, void *arg)
{
	(void)n;
	struct span *sp = arg;
	if (info->dlpi_addr != sp->base) return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && ph->p_vaddr + ph->p_memsz > sp->size) sp->size = ph->p_vaddr + ph->p_memsz;
	}
	return sp->size != 0;
}

static int bin_load(const void *data, uint64_t length, uint32_t magic, void **hdl)
{
	if (!data || !hdl || length == 0) return ACL_ERROR_RT_PARAM_INVALID;
	if (magic != RT_DEV_BINARY_MAGIC_ELF && magic != RT_DEV_BINARY_MAGIC_ELF_AIVEC &&
	    magic != RT_DEV_BINARY_MAGIC_ELF_AICUBE) {
		fprintf(stderr, "camodel: device binary magic 0x%08x is not an AI Core magic\n", magic);
		return magic == RT_DEV_BINARY_MAGIC_ELF_AICPU ? ACL_ERROR_RT_FEATURE_NOT_SUPPORT : ACL_ERROR_RT_PARAM_INVALID;
	}
	init();
	struct bin *b = calloc(1, sizeof *b);
	if (!b) return ACL_ERROR_RT_MEMORY_ALLOCATION;
	if (elf_syms(data, length, b) != 0) {
		fprintf(stderr, "camodel: the device binary is not a 64-bit ELF kernel image\n");
		free(b);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	b->fd = memfd_create("aicore_binary", MFD_CLOEXEC);
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", b->fd);
	const uint8_t *p = data;
	uint64_t left = length;
	while (b->fd >= 0 && left) {
		ssize_t n = write(b->fd, p, left);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) break;
		p += n;
		left -= (uint64_t)n;
	}
	b->kb.dl = (b->fd >= 0 && !left) ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
	if (!b->kb.dl) {
		fprintf(stderr, "camodel: cannot load the device binary: %s\n", b->fd >= 0 ? dlerror() : strerror(errno));
		if (b->fd >= 0) close(b->fd);
		for (size_t i = 0; i < b->nsyms; i++) free(b->syms[i].name);
		free(b->syms);
		free(b);
		return ACL_ERROR_RT_PARAM_INVALID;
	}
	/* The memfd stays open as long as the binary (never unloaded): the
	 * loader knows a library by its path, and a later binary given the same
	 * /proc/self/fd/N would get this one's handle. */
	struct link_map *lm = NULL;
	dlinfo(b->kb.dl, RTLD_DI_LINKMAP, &lm);
	b->kb.base = lm ? (uintptr_t)lm->l_addr : 0;
	struct span sp = { b->kb.base, 0 };
	dl_iterate_phdr(find_span, &sp);
	b->kb.size = sp.size ? sp.size : PC_STRIDE;
	b->kb.magic = magic;
	pthread_mutex_lock(&big);
	struct bin **nb = realloc(bins, (nbins + 1) * sizeof *nb);
	if (nb) {
		bins = nb;
		b->kb.index = (int)nbins;
		b->kb.pc_start = PC_BASE + PC_STRIDE * nbins;
		bins[nbins++] = b;
	}
	pthread_mutex_unlock(&big);
	if (!nb) return ACL_ERROR_RT_MEMORY_ALLOCATION;
	*hdl = b;
	return 0;
}

static struct bin *bin_of(void *hdl)
{
	for (size_t i = 0; i < nbins; i++)
		if (bins[i] == hdl) return bins[i];
	return NULL;
}

static const struct ksym *sym_named(const struct bin *b, const char *name)
{
	for (size_t i = 0; i < b->nsyms; i++)
		if (!strcmp(b->syms[i].name, name)) return &b->syms[i];
	return NULL;
}

static int ends_with(const char *s, const char *t)
{
	size_t a = strlen(s), b = strlen(t);
	return a >= b && !strcmp(s + a - b, t);
}

/* The kernel of a binary for a tiling key: the only one, or the one named
 * <op>_<key>[_mix_aic|_mix_aiv]. */
static const struct ksym *sym_for_key(const struct bin *b, uint64_t key)
{
	if (b->nsyms == 1) return &b->syms[0];
	char t[3][48];
	snprintf(t[0], sizeof t[0], "_%llu", (unsigned long long)key);
	snprintf(t[1], sizeof t[1], "_%llu_mix_aic", (unsigned long long)key);
	snprintf(t[2], sizeof t[2], "_%llu_mix_aiv", (unsigned long long)key);
	for (int k = 0; k < 3; k++)
		for (size_t i = 0; i < b->nsyms; i++)
			if (ends_with(b->syms[i].name, t[k])) return &b->syms[i];
	return NULL;
}

static struct func *func_add(struct bin *b, const struct ksym *k, const void *stub)
{
	void *entry = dlsym(b->kb.dl, k->name);
	if (!entry) return NULL;
	pthread_mutex_lock(&big);
	struct func *f = NULL;
	if (nfuncs == capfuncs) {
		size_t nc = capfuncs ? capfuncs * 2 : 32;
		struct func *nf = realloc(funcs, nc * sizeof *nf);
		if (nf) { funcs = nf; capfuncs = nc; }
	}
	if (nfuncs < capfuncs) {
		f = &funcs[nfuncs++];
		*f = (struct func){ b, entry, k->off, stub, strdup(k->name) };
	}
	pthread_mutex_unlock(&big);
	return f;
}

static struct func *func_of_stub(const void *stub)
{
	for (size_t i = nfuncs; i-- > 0;)
		if (funcs[i].stub == stub) return &funcs[i];
	return NULL;
}

API rtError_t rtDevBinaryRegister(const rtDevBinary_t *bin, void **hdl)
{
	if (!bin) return ACL_ERROR_RT_PARAM_INVALID;
	return bin_load(bin->data, bin->length, bin->magic, hdl);
}

API rtError_t rtRegisterAllKernel(const rtDevBinary_t *bin, void **hdl)
{
	return rtDevBinaryRegister(bin, hdl);
}

API rtError_t rtDevBinaryUnRegister(void *hdl)
{
	/* the image stays mapped: launches in flight and PCs stay valid */
	return bin_of(hdl) ? 0 : ACL_ERROR_RT_INVALID_HANDLE;
}

API rtError_t rtFunctionRegister(void *binHandle, const void *stubFunc, const char *stubName,
                                 const void *kernelInfoExt, uint32_t funcMode)
{
	(void)funcMode;
	struct bin *b = bin_of(binHandle);
	if (!b || !stubFunc) return ACL_ERROR_RT_PARAM_INVALID;
	const struct ksym *k = NULL;
	if (kernelInfoExt) k = sym_named(b, (const char *)kernelInfoExt);
	if (!k && stubName) k = sym_named(b, stubName);
	if (!k) {
		fprintf(stderr, "camodel: rtFunctionRegister: no kernel %s in the binary\n",
		        kernelInfoExt ? (const char *)kernelInfoExt : stubName ? stubName : "(null)");
		return ACL_ERROR_RT_KERNEL_LOOKUP;
	}
	return func_add(b, k, stubFunc) ? 0 : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

/* Build the kernel's 64-bit arguments from an args blob: the pointer slots,
 * with tiling data and host inputs copied to device memory first. */
static int args_ex(const rtArgsEx_t *ai, uint64_t *out, uint32_t *nout, uint64_t *tmp, int *ntmp)
{
	if (!ai || (!ai->args && ai->argsSize)) return ACL_ERROR_RT_PARAM_INVALID;
	uint32_t size = ai->argsSize, ptr_end = size;
	uint8_t *a = malloc(size ? size : 1);
	if (!a) return ACL_ERROR_RT_MEMORY_ALLOCATION;
	memcpy(a, ai->args, size);
	*ntmp = 0;
	if (ai->hasTiling && ai->tilingDataOffset && ai->tilingDataOffset <= size) ptr_end = ai->tilingDataOffset;
	for (uint16_t i = 0; ai->hostInputInfoPtr && i < ai->hostInputInfoNum; i++)
		if (ai->hostInputInfoPtr[i].dataOffset < ptr_end) ptr_end = ai->hostInputInfoPtr[i].dataOffset;
	/* each block of inline data ends where the next one starts */
	uint32_t starts[70];
	int ns = 0;
	if (ai->hasTiling && ai->tilingDataOffset && ai->tilingDataOffset < size) starts[ns++] = ai->tilingDataOffset;
	for (uint16_t i = 0; ai->hostInputInfoPtr && i < ai->hostInputInfoNum && ns < 64; i++)
		starts[ns++] = ai->hostInputInfoPtr[i].dataOffset;
	int rc = 0;
	for (int k = 0; k < ns && !rc; k++) {
		uint32_t from = starts[k], to = size;
		for (int j = 0; j < ns; j++)
			if (starts[j] > from && starts[j] < to) to = starts[j];
		uint32_t slot;
		if (k == 0 && ai->hasTiling && ai->tilingDataOffset && ai->tilingDataOffset < size) slot = ai->tilingAddrOffset;
		else slot = ai->hostInputInfoPtr[k - (ai->hasTiling && ai->tilingDataOffset && ai->tilingDataOffset < size)].addrOffset;
		if (from >= size || slot + 8 > size) { rc = ACL_ERROR_RT_PARAM_INVALID; break; }
		uint64_t dev;
		pthread_mutex_lock(&big);
		rc = dev_alloc(to - from, &dev);
		if (!rc) {
			memcpy(rt_dev_ptr(dev, to - from), a + from, to - from);
			tmp[(*ntmp)++] = dev;
		}
		pthread_mutex_unlock(&big);
		if (!rc) memcpy(a + slot, &dev, 8);
	}
	*nout = ptr_end / 8;
	if (*nout > 16) rc = ACL_ERROR_RT_PARAM_INVALID;
	if (!rc) memcpy(out, a, *nout * 8);
	free(a);
	return rc;
}

/* ---- captured models (aclmdlRICapture*, aclmdlRIExecuteAsync) ---- */

#define MODEL_MAGIC 0x4d4f444cu
struct model_launch { struct func *f; uint32_t block_dim, nargs; uint64_t args[16]; };
struct model { uint32_t magic; size_t n; struct model_launch *l; };

static int record(struct stream *s, struct func *f, uint32_t blockDim, const uint64_t *args, uint32_t nargs)
{
	struct model *m = s->cap;
	struct model_launch *nl = realloc(m->l, (m->n + 1) * sizeof *nl);
	if (!nl) return ACL_ERROR_RT_MEMORY_ALLOCATION;
	m->l = nl;
	nl[m->n].f = f;
	nl[m->n].block_dim = blockDim;
	nl[m->n].nargs = nargs;
	memset(nl[m->n].args, 0, sizeof nl[m->n].args);
	memcpy(nl[m->n].args, args, nargs * sizeof *args);
	m->n++;
	return 0;
}

API int camodelCaptureBegin(rtStream_t stm)
{
	struct stream *s = stream_of(stm);
	if (!s) return ACL_ERROR_RT_PARAM_INVALID;
	if (s->cap) return ACL_ERROR_RT_PARAM_INVALID;
	if (!(s->cap = calloc(1, sizeof *s->cap))) return ACL_ERROR_RT_MEMORY_ALLOCATION;
	s->cap->magic = MODEL_MAGIC;
	return 0;
}

API int camodelCaptureEnd(rtStream_t stm, void **model)
{
	struct stream *s = stream_of(stm);
	if (!s || !model || !s->cap) return ACL_ERROR_RT_PARAM_INVALID;
	*model = s->cap;
	s->cap = NULL;
	return 0;
}

API int camodelStreamCapturing(rtStream_t stm)
{
	struct stream *s = stream_of(stm);
	return s && s->cap;
}

static int run(struct func *f, uint32_t blockDim, const uint64_t *args, uint32_t nargs, rtStream_t stm);

/* The launches of a model, in the order they were captured. */
API int camodelModelExecute(void *model, rtStream_t stm)
{
	struct model *m = model;
	if (!m || m->magic != MODEL_MAGIC) return ACL_ERROR_RT_PARAM_INVALID;
	for (size_t i = 0; i < m->n; i++) {
		int rc = run(m->l[i].f, m->l[i].block_dim, m->l[i].args, m->l[i].nargs, stm);
		if (rc) return rc;
	}
	return 0;
}

API int camodelModelDestroy(void *model)
{
	struct model *m = model;
	if (!m || m->magic != MODEL_MAGIC) return ACL_ERROR_RT_PARAM_INVALID;
	m->magic = 0;
	free(m->l);
	free(m);
	return 0;
}

static int run(struct func *f, uint32_t blockDim, const uint64_t *args, uint32_t nargs, rtStream_t stm)
{
	struct stream *s = stream_of(stm);
	if (!s) return ACL_ERROR_RT_PARAM_INVALID;
	if (blockDim == 0 || blockDim > 65535) return ACL_ERROR_RT_PARAM_INVALID;
	if (s->cap) return record(s, f, blockDim, args, nargs);
	pthread_mutex_lock(&big);
	int rc = sim_launch(&f->b->kb, f->entry, blockDim, args, nargs);
	pthread_mutex_unlock(&big);
	if (rc && !s->err) s->err = rc;
	return 0;
}

static void free_tmp(const uint64_t *tmp, int n)
{
	pthread_mutex_lock(&big);
	for (int i = 0; i < n; i++) dev_free(tmp[i]);
	pthread_mutex_unlock(&big);
}

API rtError_t rtKernelLaunch(const void *stubFunc, uint32_t blockDim, void *args, uint32_t argsSize,
                             rtSmDesc_t *smDesc, rtStream_t stm)
{
	(void)smDesc;
	struct func *f = func_of_stub(stubFunc);
	if (!f) return ACL_ERROR_RT_KERNEL_LOOKUP;
	if ((!args && argsSize) || argsSize / 8 > 16) return ACL_ERROR_RT_PARAM_INVALID;
	uint64_t a[16] = { 0 };
	if (argsSize) memcpy(a, args, argsSize / 8 * 8);
	return run(f, blockDim, a, argsSize / 8, stm);
}

static rtError_t launch_ex(struct func *f, uint32_t blockDim, rtArgsEx_t *argsInfo, rtStream_t stm)
{
	uint64_t a[16] = { 0 }, tmp[70];
	uint32_t n = 0;
	int nt = 0;
	int rc = args_ex(argsInfo, a, &n, tmp, &nt);
	if (!rc) rc = run(f, blockDim, a, n, stm);
	/* a captured launch keeps its copies for the model's runs */
	if (!camodelStreamCapturing(stm)) free_tmp(tmp, nt);
	return rc;
}

API rtError_t rtKernelLaunchWithFlagV2(const void *stubFunc, uint32_t blockDim, rtArgsEx_t *argsInfo,
                                       rtSmDesc_t *smDesc, rtStream_t stm, uint32_t flags,
                                       const rtTaskCfgInfo_t *cfgInfo)
{
	(void)smDesc; (void)flags; (void)cfgInfo;
	struct func *f = func_of_stub(stubFunc);
	if (!f) return ACL_ERROR_RT_KERNEL_LOOKUP;
	return launch_ex(f, blockDim, argsInfo, stm);
}

static struct func *func_for_key(void *hdl, uint64_t key)
{
	struct bin *b = bin_of(hdl);
	if (!b) return NULL;
	const struct ksym *k = sym_for_key(b, key);
	if (!k) return NULL;
	for (size_t i = 0; i < nfuncs; i++)
		if (funcs[i].b == b && funcs[i].off == k->off && !funcs[i].stub) return &funcs[i];
	return func_add(b, k, NULL);
}

API rtError_t rtKernelLaunchWithHandleV2(void *hdl, const uint64_t tilingKey, uint32_t blockDim,
                                         rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                         const rtTaskCfgInfo_t *cfgInfo)
{
	(void)smDesc; (void)cfgInfo;
	if (!bin_of(hdl)) return ACL_ERROR_RT_INVALID_HANDLE;
	struct func *f = func_for_key(hdl, tilingKey);
	if (!f) {
		fprintf(stderr, "camodel: no kernel for tiling key %llu\n", (unsigned long long)tilingKey);
		return ACL_ERROR_RT_KERNEL_LOOKUP;
	}
	return launch_ex(f, blockDim, argsInfo, stm);
}

API rtError_t rtKernelLaunchWithHandle(void *hdl, const uint64_t tilingKey, uint32_t blockDim,
                                       rtArgsEx_t *argsInfo, rtSmDesc_t *smDesc, rtStream_t stm,
                                       const void *kernelInfo)
{
	(void)kernelInfo;
	return rtKernelLaunchWithHandleV2(hdl, tilingKey, blockDim, argsInfo, smDesc, stm, NULL);
}

API rtError_t rtKernelGetAddrAndPrefCnt(void *hdl, const uint64_t tilingKey, const void *const stubFunc,
                                        const uint32_t flag, void **addr, uint32_t *prefetchCnt)
{
	if (!addr) return ACL_ERROR_RT_PARAM_INVALID;
	struct func *f = flag == 0 ? func_of_stub(stubFunc) : func_for_key(hdl, tilingKey);
	if (!f) return ACL_ERROR_RT_KERNEL_LOOKUP;
	*addr = (void *)(uintptr_t)(f->b->kb.pc_start + f->off);
	if (prefetchCnt) *prefetchCnt = 0;
	return 0;
}

/* ---- for the stand-in's ACL library (not part of CANN's rt API) ---- */

API int camodelBinaryLoad(const void *data, size_t length, uint32_t magic, void **binHandle)
{
	return bin_load(data, length, magic, binHandle);
}

API int camodelGetFunction(void *binHandle, const char *name, void **funcHandle)
{
	struct bin *b = bin_of(binHandle);
	if (!b || !name || !funcHandle) return ACL_ERROR_RT_PARAM_INVALID;
	const struct ksym *k = sym_named(b, name);
	if (!k) {
		char t[2][1100];
		snprintf(t[0], sizeof t[0], "%s_mix_aic", name);
		snprintf(t[1], sizeof t[1], "%s_mix_aiv", name);
		if (!(k = sym_named(b, t[0]))) k = sym_named(b, t[1]);
	}
	if (!k) return ACL_ERROR_RT_KERNEL_LOOKUP;
	*funcHandle = func_add(b, k, NULL);
	return *funcHandle ? 0 : ACL_ERROR_RT_MEMORY_ALLOCATION;
}

API int camodelGetFunctionByKey(void *binHandle, uint64_t key, void **funcHandle)
{
	if (!funcHandle) return ACL_ERROR_RT_PARAM_INVALID;
	*funcHandle = func_for_key(binHandle, key);
	return *funcHandle ? 0 : ACL_ERROR_RT_KERNEL_LOOKUP;
}

API int camodelFunctionAddr(void *funcHandle, uint64_t *addr)
{
	struct func *f = funcHandle;
	if (!f || !addr) return ACL_ERROR_RT_PARAM_INVALID;
	*addr = f->b->kb.pc_start + f->off;
	return 0;
}

API uint32_t camodelFunctionMagic(void *funcHandle)
{
	struct func *f = funcHandle;
	return f ? f->b->kb.magic : 0;
}

/* args: the kernel's pointer arguments, argsSize bytes (a multiple of 8). */
API int camodelLaunch(void *funcHandle, uint32_t blockDim, const void *args, size_t argsSize, void *stream)
{
	struct func *f = funcHandle;
	if (!f || (!args && argsSize) || argsSize / 8 > 16) return ACL_ERROR_RT_PARAM_INVALID;
	uint64_t a[16] = { 0 };
	if (argsSize) memcpy(a, args, argsSize / 8 * 8);
	return run(f, blockDim, a, (uint32_t)(argsSize / 8), stream);
}

/* ---- simulator logs ---- */

API void DvcSetLogLevel(uint32_t file, uint32_t screen, uint32_t flush)
{
	(void)screen; (void)flush;
	init();
	logw_file_level = file;
}

API void DvcAttachLogCallback(DvcLogType_t type, DvcLogCbFnUnion_t fn)
{
	init();
	if ((unsigned)type < 6) logw_cb[type] = fn;
}

__attribute__((destructor)) static void fini(void)
{
	logw_flush_all();
}
