/* --config: a JSON kernel description becomes the launcher's
 * kernel_config.bin (see optrace-capture(5), KERNEL DESCRIPTIONS, The
 * --config kernel description and kernel_config.bin); a kernel_config.bin
 * (written by a replayable capture, or by the reference) is used as it
 * is.  Every check failure is a one-line message naming the file and exit
 * status 2. */
#include "capture.h"

#include <cjson/cJSON.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "mem.h"

static const char *cfg;

static _Noreturn void bad(const char *fmt, const char *what)
{
	char msg[512];
	snprintf(msg, sizeof msg, fmt, what);
	cli_die(EXIT_USAGE, "%s: %s", cfg, msg);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	char *b;
	if (!f)
		cli_die(EXIT_USAGE, "%s: cannot open:", path);
	io_check_input(path, "JSON description", 0);
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > (10 << 20))
		cli_die(EXIT_USAGE, "%s: not a regular file of at most 10 MiB", path);
	b = xmalloc((size_t)st.st_size + 1);
	*len = fread(b, 1, (size_t)st.st_size, f);
	b[*len] = 0;
	fclose(f);
	return b;
}

static const char *str_key(const cJSON *o, const char *k, int required)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	if (!v) {
		if (required)
			bad("the key \"%s\" is missing", k);
		return NULL;
	}
	if (!cJSON_IsString(v))
		bad("\"%s\" should be a string", k);
	return v->valuestring;
}

static int name_ok(const char *s)
{
	size_t n = 0;
	for (; *s; s++, n++)
		if (!(*s == '_' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
			return 0;
	return n > 0 && n <= 255;
}

static int dtype_size(const char *t)
{
	static const struct {
		const char *n;
		int s;
	} tab[] = { { "bool", 1 },    { "int8", 1 },     { "uint8", 1 },   { "int16", 2 },  { "uint16", 2 },
	            { "float16", 2 }, { "bfloat16", 2 }, { "int32", 4 },   { "uint32", 4 }, { "float32", 4 },
	            { "int64", 8 },   { "uint64", 8 },   { "float64", 8 } };
	size_t i;
	for (i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (!strcmp(t, tab[i].n))
			return tab[i].s;
	return 0;
}

/* The largest tensor (and workspace) a description may ask for: the
 * launcher holds every tensor in memory and writes every output, so a
 * typo in a shape must not ask for gigabytes (optrace-capture(5), The
 * --config kernel description). */
#define TENSOR_MAX (1ull << 30)

/* The bytes of tensor p (type and shape), checked against TENSOR_MAX
 * before anything is allocated or written: the message names the
 * tensor. */
static unsigned long long shape_bytes(const cJSON *p)
{
	const char *t = str_key(p, "type", 1), *name = str_key(p, "name", 0);
	const cJSON *shape = cJSON_GetObjectItemCaseSensitive(p, "shape"), *d;
	unsigned long long n = (unsigned long long)dtype_size(t);
	char what[320];
	if (!n)
		bad("unknown data type %s", t);
	if (!cJSON_IsArray(shape))
		bad("\"%s\": shape should be an array", "shape");
	snprintf(what, sizeof what, "%.255s", name ? name : "?");
	cJSON_ArrayForEach(d, shape)
	{
		if (!cJSON_IsNumber(d) || d->valuedouble < 1 || d->valuedouble > 1e12)
			bad("\"%s\": every dimension should be a positive integer", "shape");
		/* compared before the product, which could wrap past 2^64 */
		if ((unsigned long long)d->valuedouble > TENSOR_MAX / n)
			bad("tensor %s: its shape is larger than 1 GiB", what);
		n *= (unsigned long long)d->valuedouble;
	}
	return n;
}

/* The free memory, MemFree of /proc/meminfo, in bytes; 0 when it cannot
 * be read (no limit then). */
static unsigned long long mem_free(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	unsigned long long kb = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "MemFree: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return kb * 1024;
}

/* The reference's limit of a file the launcher reads whole into memory (the
 * kernel binary, an input tensor, the tiling data): at most half of the
 * free memory, looked at before anything of it is read.  The message
 * names the file, its size and the limit; OPTRACE_INPUT_LIMITS=off lifts
 * it, as it lifts the tools' other input limits. */
static void mem_ok(const char *path, const char *what)
{
	const char *lim = getenv("OPTRACE_INPUT_LIMITS");
	unsigned long long half;
	struct stat st;
	char msg[PATH_MAX + 256];
	if ((lim && !strcmp(lim, "off")) || stat(path, &st) || !S_ISREG(st.st_mode) || !(half = mem_free() / 2))
		return;
	if ((unsigned long long)st.st_size <= half)
		return;
	snprintf(msg, sizeof msg, "%s: %llu bytes, over the limit of %s (half of the free memory, MemFree of "
	         "/proc/meminfo: %llu bytes; OPTRACE_INPUT_LIMITS=off lifts it)", path,
	         (unsigned long long)st.st_size, what, half);
	bad("%s", msg);
}

/* A kernel_config.bin's list of sizes (key: "n;n;..."; for
 * tiling_data_path "path;n", the last one), each at most TENSOR_MAX. */
static void sizes_ok(const cJSON *root, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, key);
	const char *s;
	if (!v)
		return;
	s = v->valuestring;
	if (!strcmp(key, "tiling_data_path"))
		s = strrchr(s, ';') ? strrchr(s, ';') + 1 : "";
	for (;;) {
		unsigned long long n = 0;
		int digits = 0;
		for (; *s >= '0' && *s <= '9'; s++, digits++)
			if ((n = n * 10 + (unsigned long long)(*s - '0')) > TENSOR_MAX)
				bad("\"%s\": a size is larger than 1 GiB", key);
		if (!digits || (*s && *s != ';'))
			bad("\"%s\" should be sizes in bytes, separated by ;", key);
		if (!*s++)
			return;
	}
}

/* A kernel_config.bin's files under mem_ok: bin_path, every input_path
 * entry but the null ones ("n"), the file of tiling_data_path. */
static void files_ok(const cJSON *root)
{
	const char *keys[] = { "bin_path", "input_path", "tiling_data_path" };
	const char *what[] = { "a kernel binary", "an input", "tiling data" };
	char path[PATH_MAX];
	size_t i;
	for (i = 0; i < 3; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, keys[i]);
		const char *s = v ? v->valuestring : NULL, *e;
		while (s && *s) {
			size_t n;
			/* tiling_data_path: "path;size", the path to the last ';' */
			e = i == 2 ? strrchr(s, ';') : strchr(s, ';');
			n = e ? (size_t)(e - s) : strlen(s);
			if (n < sizeof path && !(n == 1 && *s == 'n')) {
				memcpy(path, s, n);
				path[n] = 0;
				mem_ok(path, what[i]);
			}
			s = e && i != 2 ? e + 1 : NULL;
		}
	}
}

/* A path in the JSON, relative to the JSON file's directory. */
static void abs_path(char *out, size_t cap, const char *p)
{
	char dir[PATH_MAX], *s;
	if (p[0] == '/') {
		snprintf(out, cap, "%s", p);
		return;
	}
	if (!realpath(cfg, dir))
		snprintf(dir, sizeof dir, "%s", cfg);
	s = strrchr(dir, '/');
	if (s)
		*s = 0;
	else
		snprintf(dir, sizeof dir, ".");
	if ((size_t)snprintf(out, cap, "%s/%s", dir, p) >= cap)
		bad("%s: path too long", p);
	/* Canonical when it exists (no "./" left in the launcher's paths). */
	if (strlen(out) < sizeof dir && realpath(out, dir) && strlen(dir) < cap)
		strcpy(out, dir);
}

static void list_add(char *buf, size_t cap, const char *item)
{
	size_t n = strlen(buf);
	if (n + strlen(item) + 2 >= cap)
		bad("%s: the argument list is too long", "param_desc");
	if (n)
		buf[n++] = ';';
	strcpy(buf + n, item);
}

int config_translate(const char *json_path, const char *dir, char *bin_path, size_t cap)
{
	size_t len;
	char *text, path[PATH_MAX + 64], tmp[PATH_MAX * 2];
	cJSON *root, *cases, *tc, *params, *p, *out;
	const char *kpath, *kname, *magic, *mode;
	const cJSON *v;
	static char inputs[65536], isizes[8192], onames[8192], osizes[8192];
	char num[32];
	unsigned long long workspace = 0;
	int ffts = 0, ntiling = 0;
	char tiling[PATH_MAX * 2] = "";
	char *s;
	FILE *f;

	cfg = json_path;
	inputs[0] = isizes[0] = onames[0] = osizes[0] = 0;
	text = slurp(json_path, &len);
	if (!(root = cJSON_Parse(text)) || !cJSON_IsObject(root))
		bad("%s", "not a JSON object");
	snprintf(bin_path, cap, "%s/kernel_config.bin", dir);
	/* A kernel_config.bin already: every value a string, bin_path set. */
	if (cJSON_GetObjectItemCaseSensitive(root, "bin_path")) {
		cJSON_ArrayForEach(v, root)
			if (!cJSON_IsString(v))
				bad("\"%s\" should be a string", v->string);
		str_key(root, "kernel_name", 1);
		files_ok(root);
		sizes_ok(root, "input_size");
		sizes_ok(root, "output_size");
		sizes_ok(root, "workspace_size");
		sizes_ok(root, "tiling_data_path");
		f = fopen(bin_path, "w");
		if (!f || fwrite(text, 1, len, f) != len || fclose(f))
			cli_die(EXIT_IO, "%s: cannot write", bin_path);
		chmod(bin_path, IO_FILE_MODE);
		free(text);
		cJSON_Delete(root);
		return 0;
	}
	kpath = str_key(root, "kernel_path", 1);
	kname = str_key(root, "kernel_name", 1);
	magic = str_key(root, "magic", 1);
	mode = str_key(root, "mode", 1);
	cases = cJSON_GetObjectItemCaseSensitive(root, "test_cases");
	if (!cases)
		bad("the key \"%s\" is missing", "test_cases");
	if (strcmp(mode, "ca"))
		bad("\"mode\": %s is not the simulator mode \"ca\"", mode);
	if (strcmp(magic, "RT_DEV_BINARY_MAGIC_ELF") && strcmp(magic, "RT_DEV_BINARY_MAGIC_ELF_AIVEC") &&
	    strcmp(magic, "RT_DEV_BINARY_MAGIC_ELF_AICUBE"))
		bad("\"magic\": %s is not a kernel magic", magic);
	if (!name_ok(kname))
		bad("\"kernel_name\": %s should be 1 to 255 of A-Z a-z 0-9 _", kname);
	abs_path(tmp, sizeof tmp, kpath);
	if (access(tmp, R_OK))
		bad("%s: the kernel cannot be read", tmp);
	mem_ok(tmp, "a kernel binary");
	if (!cJSON_IsArray(cases) || cJSON_GetArraySize(cases) != 1)
		bad("\"%s\": exactly one test case is supported", "test_cases");
	tc = cJSON_GetArrayItem(cases, 0);
	params = cJSON_GetObjectItemCaseSensitive(tc, "param_desc");
	if (!cJSON_IsArray(params))
		bad("\"%s\" should be an array", "param_desc");
	cJSON_ArrayForEach(p, params)
	{
		const char *type = str_key(p, "param_type", 1);
		if (!strcmp(type, "input")) {
			const char *dp = str_key(p, "data_path", 1);
			if (!name_ok(str_key(p, "name", 1)))
				bad("input name %s should be 1 to 255 of A-Z a-z 0-9 _", str_key(p, "name", 1));
			if (!strcmp(dp, "null")) {
				list_add(inputs, sizeof inputs, "n");
				list_add(isizes, sizeof isizes, "0");
			} else {
				unsigned long long b = shape_bytes(p);
				struct stat st;
				abs_path(path, sizeof path, dp);
				mem_ok(path, "an input");
				if (stat(path, &st) || (unsigned long long)st.st_size != b)
					bad("%s: missing, or its size is not the shape's", path);
				list_add(inputs, sizeof inputs, path);
				snprintf(num, sizeof num, "%llu", b);
				list_add(isizes, sizeof isizes, num);
			}
		} else if (!strcmp(type, "output")) {
			const char *n = str_key(p, "name", 1);
			if (!name_ok(n))
				bad("output name %s should be 1 to 255 of A-Z a-z 0-9 _", n);
			list_add(onames, sizeof onames, n);
			snprintf(num, sizeof num, "%llu", shape_bytes(p));
			list_add(osizes, sizeof osizes, num);
		} else if (!strcmp(type, "workspace")) {
			v = cJSON_GetObjectItemCaseSensitive(p, "user_workspace_size");
			if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || v->valuedouble > (double)TENSOR_MAX)
				bad("\"%s\" should be a size in (0, 1 GiB]", "user_workspace_size");
			workspace = (unsigned long long)v->valuedouble;
		} else if (!strcmp(type, "tiling")) {
			const char *tp = str_key(p, "tiling_data_path", 1);
			v = cJSON_GetObjectItemCaseSensitive(p, "tiling_data_size");
			if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || v->valuedouble > (double)TENSOR_MAX)
				bad("\"%s\" should be a size in (0, 1 GiB]", "tiling_data_size");
			abs_path(path, sizeof path, tp);
			if (access(path, R_OK))
				bad("%s: the tiling data cannot be read", path);
			mem_ok(path, "tiling data");
			snprintf(tiling, sizeof tiling, "%s;%llu", path, (unsigned long long)v->valuedouble);
			ntiling++;
		} else if (!strcmp(type, "fftsAddr")) {
			ffts = 1;
		} else {
			bad("unknown param_type %s", type);
		}
	}
	if (ntiling > 1)
		bad("%s: more than one tiling parameter", "param_desc");

	/* kernel_config.bin: keys in alphabetical order, values strings. */
	out = cJSON_CreateObject();
	cJSON_AddStringToObject(out, "bin_path", tmp);
	v = cJSON_GetObjectItemCaseSensitive(root, "blockdim");
	/* (bounded before the conversion: a double past INT_MAX has no int) */
	if (v && (!cJSON_IsNumber(v) || !(v->valuedouble >= 1 && v->valuedouble <= 65535)))
		bad("\"%s\" should be an integer from 1 to 65535", "blockdim");
	snprintf(num, sizeof num, "%d", v ? (int)v->valuedouble : 1);
	cJSON_AddStringToObject(out, "block_dim", num);
	v = cJSON_GetObjectItemCaseSensitive(root, "device_id");
	if (v && (!cJSON_IsNumber(v) || !(v->valuedouble >= 0 && v->valuedouble <= 65535)))
		bad("\"%s\" should be an integer from 0 to 65535", "device_id");
	snprintf(num, sizeof num, "%d", v ? (int)v->valuedouble : 0);
	cJSON_AddStringToObject(out, "device_id", num);
	cJSON_AddStringToObject(out, "ffts", ffts ? "Y" : "N");
	cJSON_AddStringToObject(out, "input_path", inputs);
	cJSON_AddStringToObject(out, "input_size", isizes);
	cJSON_AddStringToObject(out, "kernel_name", kname);
	cJSON_AddStringToObject(out, "magic", magic);
	if (onames[0]) {
		const char *od = str_key(root, "output_data_path", 0);
		const char *cn = str_key(tc, "case_name", 0);
		abs_path(path, sizeof path, od ? od : "msopt_test_result");
		if (cn && !name_ok(cn))
			bad("case_name %s should be 1 to 255 of A-Z a-z 0-9 _", cn);
		if ((size_t)snprintf(tmp, sizeof tmp, "%s/%s", path, cn ? cn : "case") >= sizeof tmp)
			bad("%s: path too long", path);
		cJSON_AddStringToObject(out, "output_dir", tmp);
		cJSON_AddStringToObject(out, "output_name", onames);
		cJSON_AddStringToObject(out, "output_size", osizes);
	}
	if (tiling[0])
		cJSON_AddStringToObject(out, "tiling_data_path", tiling);
	v = cJSON_GetObjectItemCaseSensitive(root, "tiling_key");
	if (v) {
		if (!cJSON_IsNumber(v) || v->valuedouble < 0)
			bad("\"%s\" should be an unsigned integer", "tiling_key");
		snprintf(num, sizeof num, "%llu", (unsigned long long)v->valuedouble);
		cJSON_AddStringToObject(out, "tiling_key", num);
	}
	if (workspace) {
		snprintf(num, sizeof num, "%llu", workspace);
		cJSON_AddStringToObject(out, "workspace_size", num);
	}
	s = cJSON_PrintUnformatted(out);
	f = fopen(bin_path, "w");
	if (!s || !f || fputs(s, f) == EOF || fclose(f))
		cli_die(EXIT_IO, "%s: cannot write", bin_path);
	chmod(bin_path, IO_FILE_MODE);
	free(s);
	cJSON_Delete(out);
	cJSON_Delete(root);
	free(text);
	return 0;
}
