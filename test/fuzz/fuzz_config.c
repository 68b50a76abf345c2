/* libFuzzer target: sim-capture's --config reader
 * (cmd/sim-capture/config.c, config_translate): a JSON kernel description
 * translated to kernel_config.bin, or a kernel_config.bin taken as it is.
 *
 * The input is the file given to --config, written to a private directory
 * beside it.  cli_die (the one-line message and exit status 2 of a bad
 * file) is wrapped (-Wl,--wrap=cli_die): its message is formatted and the
 * call returns here through longjmp, so what the reader allocated before
 * is not freed (leak detection is off for this target).  A description
 * accepted gives a kernel_config.bin that is a JSON object of strings only,
 * with bin_path and kernel_name, whose input and output sizes are decimal
 * numbers of at most 30 GiB, the outputs' not 0. */
#include <setjmp.h>
#include <stdarg.h>

#include <cjson/cJSON.h>

#include "capture.h"
#include "cli.h"
#include "fuzz.h"

static jmp_buf died;

_Noreturn void __wrap_cli_die(int status, const char *fmt, ...);
_Noreturn void __wrap_cli_die(int status, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;
	CHECK(status == EXIT_USAGE || status == EXIT_IO);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	longjmp(died, 1);
}

/* "n;n;..." of decimal sizes in (lo, 30 GiB] */
static void sizes_ok(const cJSON *o, const char *key, unsigned long long lo)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	const char *s;
	if (!v)
		return;
	s = v->valuestring;
	while (*s) {
		char *e;
		unsigned long long n = strtoull(s, &e, 10);
		CHECK(e > s && (*e == ';' || !*e));
		CHECK(n >= lo && n <= (30ull << 30));
		s = *e ? e + 1 : e;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char json[96];
	const char *dir = fuzz_workdir("fuzz_config");
	char bin[256];
	FILE *f;

	if (!json[0])
		snprintf(json, sizeof json, "%s/config.json", dir);
	f = fopen(json, "wb");
	CHECK(f && fwrite(data, 1, size, f) == size && !fclose(f));
	snprintf(bin, sizeof bin, "%s/kernel_config.bin", dir);
	unlink(bin);
	if (setjmp(died) == 0) {
		char got[256], *text;
		long n;
		cJSON *o, *v;
		CHECK(config_translate(json, dir, got, sizeof got) == 0);
		CHECK(!strcmp(got, bin));
		f = fopen(bin, "rb");
		CHECK(f);
		fseek(f, 0, SEEK_END);
		n = ftell(f);
		rewind(f);
		text = malloc((size_t)n + 1);
		CHECK(text && fread(text, 1, (size_t)n, f) == (size_t)n);
		text[n] = 0;
		fclose(f);
		o = cJSON_Parse(text);
		CHECK(cJSON_IsObject(o));
		cJSON_ArrayForEach(v, o)
			CHECK(cJSON_IsString(v));
		CHECK(cJSON_GetObjectItemCaseSensitive(o, "bin_path"));
		CHECK(cJSON_GetObjectItemCaseSensitive(o, "kernel_name"));
		if ((size_t)n != size || memcmp(text, data, size)) {
			/* translated, not a kernel_config.bin taken as it is */
			sizes_ok(o, "output_size", 1);
			sizes_ok(o, "input_size", 0);
		}
		cJSON_Delete(o);
		free(text);
	}
	return 0;
}
