/* kernel-launcher for the stand-in CANN tree: runs one compiled kernel from
 * a description, as the catlass / msopprof --config path does
 * (see optrace-capture(5), KERNEL DESCRIPTIONS).
 *
 *   kernel-launcher -c kernel_config.bin     the host's translated config:
 *                                            one JSON object, string values
 *   kernel-launcher --config=case.json       the user's --config JSON
 *                                            (kernel_path, test_cases, ...)
 *
 * Old mode (default): rt* API (rtDevBinaryRegister + rtFunctionRegister +
 * rtKernelLaunch, or with a tiling key rtRegisterAllKernel +
 * rtKernelLaunchWithHandleV2 with the tiling data inline).  "old_mode":"0":
 * aclrt* API (aclrtBinaryLoadFromFile, aclrtKernelArgs*,
 * aclrtLaunchKernelWithConfig).  Arguments, in order: [ffts] inputs outputs
 * workspaces [tiling].  Outputs are written to <output_dir>/<name>.bin.
 *
 * Exit: 0 done; 1 the config cannot be read or the launch failed (the
 * reference exits 0 on launch failures; a script wants to know). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "acl/acl.h"
#include "runtime/rt.h"

#define MAXARG 16

enum kind { K_INPUT, K_OUTPUT, K_WORKSPACE, K_TILING, K_FFTS };
struct arg { enum kind kind; char *path; char *name; uint64_t size; void *dev; };

struct job {
	char *bin, *kernel, *magic, *outdir;
	uint32_t block_dim;
	int32_t device;
	int has_key, old_mode;
	uint64_t key;
	struct arg a[MAXARG];
	int n;
};

static const char *prog = "kernel-launcher";

static void die(const char *fmt, const char *s)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, s);
	fputc('\n', stderr);
	exit(1);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f) return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	size_t r;
	while (b && (r = fread(b + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *nb = realloc(b, cap * 2 + 1);
			if (!nb) { free(b); b = NULL; break; }
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b) b[n] = 0;
	if (len) *len = n;
	return b;
}

static uint32_t magic_value(const char *m)
{
	if (!strcmp(m, "RT_DEV_BINARY_MAGIC_ELF")) return RT_DEV_BINARY_MAGIC_ELF;
	if (!strcmp(m, "RT_DEV_BINARY_MAGIC_ELF_AIVEC")) return RT_DEV_BINARY_MAGIC_ELF_AIVEC;
	if (!strcmp(m, "RT_DEV_BINARY_MAGIC_ELF_AICUBE")) return RT_DEV_BINARY_MAGIC_ELF_AICUBE;
	die("magic value is invalid: %s", m);
	return 0;
}

static int valid_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 255) return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
	return 1;
}

static uint64_t dec(const char *key, const char *s)
{
	char *e;
	errno = 0;
	unsigned long long v = strtoull(s, &e, 10);
	if (!*s || *e || errno) die("%s is not a decimal number", key);
	return v;
}

static void add(struct job *j, enum kind k, const char *path, const char *name, uint64_t size)
{
	if (j->n == MAXARG) die("%s", "too many kernel arguments");
	j->a[j->n++] = (struct arg){ k, path ? strdup(path) : NULL, name ? strdup(name) : NULL, size, NULL };
}

/* "a;b;c" -> parts (in place) */
static int split(char *s, char **out, int max)
{
	int n = 0;
	for (char *p = s; n < max;) {
		out[n++] = p;
		char *q = strchr(p, ';');
		if (!q) break;
		*q = 0;
		p = q + 1;
	}
	return n;
}

static const char *str(const cJSON *o, const char *key, int required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v) {
		if (required) die("Json config error, param:[%s] is not exist.", key);
		return NULL;
	}
	if (!cJSON_IsString(v)) die("Json config error, param:[%s] input data type is not correct.", key);
	return v->valuestring;
}

/* kernel_config.bin (see optrace-capture(5), KERNEL DESCRIPTIONS,
 * kernel_config.bin): every value a string. */
static void parse_kernel_config(struct job *j, const cJSON *o)
{
	static const char *const known[] = { "bin_path", "block_dim", "device_id", "ffts", "input_path", "input_size",
		"kernel_name", "magic", "output_dir", "output_name", "output_size", "workspace_size", "tiling_data_path",
		"tiling_key", "old_mode" };
	for (const cJSON *it = o->child; it; it = it->next) {
		size_t k = 0;
		while (k < sizeof known / sizeof *known && strcmp(known[k], it->string)) k++;
		if (k == sizeof known / sizeof *known) fprintf(stderr, "%s: warning: unknown key %s\n", prog, it->string);
	}
	j->bin = strdup(str(o, "bin_path", 1));
	j->kernel = strdup(str(o, "kernel_name", 1));
	if (!valid_name(j->kernel)) die("kernel_name is invalid: %s", j->kernel);
	j->magic = strdup(str(o, "magic", 1));
	magic_value(j->magic);
	j->block_dim = (uint32_t)dec("block_dim", str(o, "block_dim", 1));
	const char *s = str(o, "device_id", 0);
	j->device = s ? (int32_t)dec("device_id", s) : 0;
	if ((s = str(o, "ffts", 0)) && !strcmp(s, "Y")) add(j, K_FFTS, NULL, NULL, 64);
	const char *ip = str(o, "input_path", 0), *is = str(o, "input_size", 0);
	if (ip || is) {
		if (!ip || !is) die("%s", "input_path and input_size go together");
		char *p = strdup(ip), *z = strdup(is), *pp[MAXARG], *zz[MAXARG];
		int np = split(p, pp, MAXARG), nz = split(z, zz, MAXARG);
		if (np != nz) die("%s", "input_size count differs from input_path count");
		for (int i = 0; i < np; i++)
			add(j, K_INPUT, strcmp(pp[i], "n") ? pp[i] : NULL, NULL, dec("input_size", zz[i]));
		free(p);
		free(z);
	}
	const char *on = str(o, "output_name", 0), *os = str(o, "output_size", 0);
	if (on || os) {
		if (!on || !os) die("%s", "output_name and output_size go together");
		char *p = strdup(on), *z = strdup(os), *pp[MAXARG], *zz[MAXARG];
		int np = split(p, pp, MAXARG), nz = split(z, zz, MAXARG);
		if (np != nz) die("%s", "output_size count differs from output_name count");
		for (int i = 0; i < np; i++) add(j, K_OUTPUT, NULL, pp[i], dec("output_size", zz[i]));
		free(p);
		free(z);
	}
	if ((s = str(o, "workspace_size", 0)) && dec("workspace_size", s) > 0)
		add(j, K_WORKSPACE, NULL, NULL, dec("workspace_size", s));
	if ((s = str(o, "tiling_data_path", 0))) {
		char *p = strdup(s), *semi = strrchr(p, ';');
		if (!semi) die("%s", "tiling_data_path needs \";size\"");
		*semi = 0;
		add(j, K_TILING, p, NULL, dec("tiling_data_path size", semi + 1));
		free(p);
	}
	if ((s = str(o, "tiling_key", 0))) { j->has_key = 1; j->key = dec("tiling_key", s); }
	s = str(o, "old_mode", 0);
	j->old_mode = !s || strcmp(s, "0");
	j->outdir = (s = str(o, "output_dir", 0)) ? strdup(s) : NULL;
}

static uint64_t dtype_size(const char *t)
{
	static const char *const one[] = { "bool", "int8", "uint8" }, *const two[] = { "int16", "uint16", "float16", "bfloat16" },
	                         *const four[] = { "int32", "uint32", "float32" }, *const eight[] = { "int64", "uint64", "float64" };
	for (int i = 0; i < 3; i++) if (!strcmp(t, one[i])) return 1;
	for (int i = 0; i < 4; i++) if (!strcmp(t, two[i])) return 2;
	for (int i = 0; i < 3; i++) if (!strcmp(t, four[i])) return 4;
	for (int i = 0; i < 3; i++) if (!strcmp(t, eight[i])) return 8;
	die("unknown data type %s", t);
	return 0;
}

static uint64_t tensor_size(const cJSON *p)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(p, "type"), *sh = cJSON_GetObjectItemCaseSensitive(p, "shape");
	if (!cJSON_IsString(t) || !cJSON_IsArray(sh)) die("%s", "a tensor needs \"type\" and \"shape\"");
	uint64_t n = dtype_size(t->valuestring);
	for (const cJSON *d = sh->child; d; d = d->next) {
		if (!cJSON_IsNumber(d) || d->valuedouble <= 0) die("%s", "shape dimensions must be positive numbers");
		n *= (uint64_t)d->valuedouble;
	}
	return n;
}

static uint64_t num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!cJSON_IsNumber(v) || v->valuedouble <= 0) die("Json config error, param:[%s] is not exist or not a positive number.", key);
	return (uint64_t)v->valuedouble;
}

/* The user's --config JSON (see optrace-capture(5), KERNEL DESCRIPTIONS, The
 * --config kernel description). */
static void parse_user_config(struct job *j, const cJSON *o)
{
	j->bin = strdup(str(o, "kernel_path", 1));
	j->kernel = strdup(str(o, "kernel_name", 1));
	if (!valid_name(j->kernel)) die("kernel_name is invalid: %s", j->kernel);
	j->magic = strdup(str(o, "magic", 1));
	magic_value(j->magic);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, "blockdim");
	j->block_dim = cJSON_IsNumber(v) ? (uint32_t)v->valuedouble : 1;
	if (j->block_dim == 0) die("%s", "blockdim value is invalid.");
	v = cJSON_GetObjectItemCaseSensitive(o, "device_id");
	j->device = cJSON_IsNumber(v) ? (int32_t)v->valuedouble : 0;
	v = cJSON_GetObjectItemCaseSensitive(o, "tiling_key");
	if (v) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 0) die("%s", "tiling_key must be an unsigned integer");
		j->has_key = 1;
		j->key = (uint64_t)v->valuedouble;
	}
	j->old_mode = 1;
	const cJSON *cases = cJSON_GetObjectItemCaseSensitive(o, "test_cases");
	if (!cJSON_IsArray(cases) || cJSON_GetArraySize(cases) != 1) die("%s", "Only support one case for kernel.");
	const cJSON *c = cases->child;
	const char *cname = str(c, "case_name", 1);
	if (!valid_name(cname)) die("case_name is invalid: %s", cname);
	const char *odp = str(o, "output_data_path", 0);
	char od[4096];
	snprintf(od, sizeof od, "%s/%s", odp ? odp : "./msopt_test_result", cname);
	j->outdir = strdup(od);
	const cJSON *pd = cJSON_GetObjectItemCaseSensitive(c, "param_desc");
	if (!cJSON_IsArray(pd)) die("%s", "Json config error, param:[param_desc] is not exist.");
	/* the launcher's argument order: ffts, inputs, outputs, workspaces, tiling */
	static const char *const order[] = { "fftsAddr", "input", "output", "workspace", "tiling" };
	for (int pass = 0; pass < 5; pass++)
		for (const cJSON *p = pd->child; p; p = p->next) {
			const char *t = str(p, "param_type", 1);
			if (strcmp(t, order[pass])) continue;
			if (pass == 0) add(j, K_FFTS, NULL, NULL, 64);
			else if (pass == 1) {
				const char *dp = str(p, "data_path", 1);
				if (!strcmp(dp, "null")) add(j, K_INPUT, NULL, str(p, "name", 1), 0);
				else add(j, K_INPUT, dp, str(p, "name", 1), tensor_size(p));
			} else if (pass == 2) add(j, K_OUTPUT, NULL, str(p, "name", 1), tensor_size(p));
			else if (pass == 3) add(j, K_WORKSPACE, NULL, NULL, num(p, "user_workspace_size"));
			else add(j, K_TILING, str(p, "tiling_data_path", 1), NULL, num(p, "tiling_data_size"));
		}
}

/* Host bytes of an input or tiling file, which must have the given size. */
static void *load_input(const struct arg *a)
{
	size_t n;
	char *d = slurp(a->path, &n);
	if (!d) die("cannot read %s", a->path);
	if (n != a->size) {
		fprintf(stderr, "%s: %s: %zu bytes, expected %llu\n", prog, a->path, n, (unsigned long long)a->size);
		exit(1);
	}
	return d;
}

#define TRY(call) do { int rc_ = (int)(call); if (rc_) { \
	fprintf(stderr, "%s: %s failed: %d\n", prog, #call, rc_); return 1; } } while (0)

static char stub[256];

static int run_rt(struct job *j, const void *kbin, size_t klen)
{
	rtStream_t s;
	void *hdl;
	uint64_t ptr[MAXARG] = { 0 };
	int nptr = 0, tiling = -1;
	TRY(rtSetDevice(j->device));
	TRY(rtStreamCreate(&s, 0));
	rtDevBinary_t bin = { magic_value(j->magic), 0, kbin, klen };
	snprintf(stub, sizeof stub, "%s", j->kernel);
	if (j->has_key) TRY(rtRegisterAllKernel(&bin, &hdl));
	else {
		TRY(rtDevBinaryRegister(&bin, &hdl));
		TRY(rtFunctionRegister(hdl, stub, j->kernel, j->kernel, 0));
	}
	for (int i = 0; i < j->n; i++) {
		struct arg *a = &j->a[i];
		if (a->kind == K_FFTS) {
			uint64_t f;
			uint32_t len;
			TRY(rtGetC2cCtrlAddr(&f, &len));
			if (j->has_key) { ptr[nptr++] = f; continue; }
			TRY(rtMalloc(&a->dev, 64, RT_MEMORY_DDR_NC, 0));
			TRY(rtMemcpy(a->dev, 64, &f, 8, RT_MEMCPY_HOST_TO_DEVICE));
		} else if (a->kind == K_INPUT || a->kind == K_TILING) {
			if (!a->path) { ptr[nptr++] = 0; continue; }
			if (a->kind == K_TILING) tiling = i;
			void *h;
			TRY(rtMallocHost(&h, a->size, 0));
			void *d = load_input(a);
			memcpy(h, d, a->size);
			free(d);
			TRY(rtMalloc(&a->dev, (a->size + 31) / 32 * 32 + 32, RT_MEMORY_DDR_NC, 0));
			TRY(rtMemcpy(a->dev, a->size, h, a->size, RT_MEMCPY_HOST_TO_DEVICE));
			TRY(rtFreeHost(h));
			if (a->kind == K_TILING && j->has_key) continue;   /* inline, below */
		} else if (a->kind == K_OUTPUT) {
			TRY(rtMalloc(&a->dev, a->size, RT_MEMORY_DDR_NC, 0));
		} else {
			TRY(rtMalloc(&a->dev, a->size + (16u << 20), RT_MEMORY_DDR_NC, 0));
		}
		ptr[nptr++] = (uint64_t)(uintptr_t)a->dev;
	}
	if (j->has_key) {
		size_t tsz = tiling >= 0 ? j->a[tiling].size : 0;
		unsigned char *args = calloc(1, (size_t)(nptr + 1) * 8 + tsz);
		if (!args) return 1;
		memcpy(args, ptr, (size_t)nptr * 8);
		rtArgsEx_t ai;
		memset(&ai, 0, sizeof ai);
		ai.args = args;
		ai.argsSize = (uint32_t)(nptr * 8);
		if (tiling >= 0) {
			void *d = load_input(&j->a[tiling]);
			memcpy(args + (size_t)(nptr + 1) * 8, d, tsz);
			free(d);
			ai.argsSize = (uint32_t)((size_t)(nptr + 1) * 8 + tsz);
			ai.tilingAddrOffset = (uint32_t)(nptr * 8);
			ai.tilingDataOffset = (uint32_t)((nptr + 1) * 8);
			ai.hasTiling = 1;
		}
		TRY(rtKernelLaunchWithHandleV2(hdl, j->key, j->block_dim, &ai, NULL, s, NULL));
		free(args);
	} else {
		TRY(rtKernelLaunch(stub, j->block_dim, ptr, (uint32_t)(nptr * 8), NULL, s));
	}
	TRY(rtStreamSynchronize(s));
	for (int i = 0; i < j->n; i++) {
		struct arg *a = &j->a[i];
		if (a->kind == K_OUTPUT && j->outdir) {
			char p[4200];
			void *h = malloc(a->size);
			if (!h) return 1;
			TRY(rtMemcpy(h, a->size, a->dev, a->size, RT_MEMCPY_DEVICE_TO_HOST));
			snprintf(p, sizeof p, "%s/%s.bin", j->outdir, a->name);
			FILE *f = fopen(p, "wb");
			if (!f || fwrite(h, 1, a->size, f) != a->size || fclose(f) != 0) die("cannot write %s", p);
			free(h);
		}
		if (a->dev) TRY(rtFree(a->dev));
	}
	TRY(rtDevBinaryUnRegister(hdl));
	TRY(rtStreamDestroy(s));
	TRY(rtDeviceReset(j->device));
	return 0;
}

static int run_acl(struct job *j)
{
	aclrtStream s;
	aclrtBinHandle bh;
	aclrtFuncHandle fh;
	aclrtArgsHandle ah;
	aclrtParamHandle ph;
	uint64_t ptr[MAXARG] = { 0 };
	int nptr = 0, made_json = 0;
	char json[4200];
	/* the kernel type comes from <bin without extension>.json */
	snprintf(json, sizeof json, "%s", j->bin);
	char *dot = strrchr(json, '.'), *sl = strrchr(json, '/');
	if (!dot || (sl && dot < sl)) dot = json + strlen(json);
	snprintf(dot, sizeof json - (size_t)(dot - json), ".json");
	if (access(json, F_OK) != 0) {
		FILE *f = fopen(json, "w");
		if (f) { fprintf(f, "{\"intercoreSync\":0,\"magic\":\"%s\"}\n", j->magic); fclose(f); made_json = 1; }
	}
	TRY(aclrtSetDevice(j->device));
	TRY(aclrtCreateStream(&s));
	int rc = aclrtBinaryLoadFromFile(j->bin, NULL, &bh);
	if (made_json) unlink(json);
	TRY(rc);
	if (j->has_key) TRY(aclrtBinaryGetFunctionByEntry(bh, j->key, &fh));
	else TRY(aclrtBinaryGetFunction(bh, j->kernel, &fh));
	TRY(aclrtKernelArgsInit(fh, &ah));
	for (int i = 0; i < j->n; i++) {
		struct arg *a = &j->a[i];
		if (a->kind == K_FFTS) continue;   /* taken from the binary's meta data */
		if ((a->kind == K_INPUT || a->kind == K_TILING) && !a->path) { ptr[nptr++] = 0; continue; }
		uint64_t size = a->kind == K_WORKSPACE ? a->size + (16u << 20) : a->size;
		TRY(aclrtMalloc(&a->dev, size, ACL_MEM_MALLOC_HUGE_FIRST));
		if (a->kind == K_INPUT || a->kind == K_TILING) {
			void *d = load_input(a);
			TRY(aclrtMemcpy(a->dev, a->size, d, a->size, ACL_MEMCPY_HOST_TO_DEVICE));
			free(d);
		}
		ptr[nptr++] = (uint64_t)(uintptr_t)a->dev;
	}
	TRY(aclrtKernelArgsAppend(ah, ptr, (size_t)nptr * 8, &ph));
	TRY(aclrtKernelArgsFinalize(ah));
	TRY(aclrtLaunchKernelWithConfig(fh, j->block_dim, s, NULL, ah, NULL));
	TRY(aclrtSynchronizeStream(s));
	for (int i = 0; i < j->n; i++) {
		struct arg *a = &j->a[i];
		if (a->kind == K_OUTPUT && j->outdir) {
			char p[4200];
			void *h = malloc(a->size);
			if (!h) return 1;
			TRY(aclrtMemcpy(h, a->size, a->dev, a->size, ACL_MEMCPY_DEVICE_TO_HOST));
			snprintf(p, sizeof p, "%s/%s.bin", j->outdir, a->name);
			FILE *f = fopen(p, "wb");
			if (!f || fwrite(h, 1, a->size, f) != a->size || fclose(f) != 0) die("cannot write %s", p);
			free(h);
		}
		if (a->dev) TRY(aclrtFree(a->dev));
	}
	TRY(aclrtBinaryUnLoad(bh));
	TRY(aclrtDestroyStream(s));
	TRY(aclrtResetDevice(j->device));
	return 0;
}

static void mkdirs(const char *dir)
{
	char p[4096];
	snprintf(p, sizeof p, "%s", dir);
	for (char *c = p + 1; *c; c++)
		if (*c == '/') { *c = 0; mkdir(p, 0750); *c = '/'; }
	mkdir(p, 0750);
}

int main(int argc, char **argv)
{
	const char *cfg = NULL;
	int user = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-c") && i + 1 < argc) cfg = argv[++i];
		else if (!strncmp(argv[i], "--config=", 9)) { cfg = argv[i] + 9; user = 1; }
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: kernel-launcher -c kernel_config.bin | --config=case.json\n");
			return 0;
		}
	}
	if (!cfg) {
		fprintf(stderr, "usage: kernel-launcher -c kernel_config.bin | --config=case.json\n");
		return 1;
	}
	size_t n;
	char *text = slurp(cfg, &n);
	if (!text) die("cannot read %s", cfg);
	cJSON *o = cJSON_Parse(text);
	if (!cJSON_IsObject(o)) die("%s: not a JSON object", cfg);
	struct job j;
	memset(&j, 0, sizeof j);
	if (user) parse_user_config(&j, o);
	else parse_kernel_config(&j, o);
	size_t klen;
	char *kbin = slurp(j.bin, &klen);
	if (!kbin || !klen) die("cannot read kernel %s", j.bin);
	if (j.outdir) mkdirs(j.outdir);
	int rc = j.old_mode ? run_rt(&j, kbin, klen) : run_acl(&j);
	cJSON_Delete(o);
	free(text);
	free(kbin);
	if (!rc) printf("%s: %s on %u blocks: done\n", prog, j.kernel, j.block_dim);
	return rc ? 1 : 0;
}
