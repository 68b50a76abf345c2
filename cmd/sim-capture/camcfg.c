/* The simulator's configuration as msprof op simulator adjusts it
 * (see optrace-capture(5), SIMULATOR CONFIGURATION): a config file of the
 * simulator directory is copied
 * into the run's private config directory, with its replacements, only
 * when one applies; CAMODEL_CONFIG_PATH then names that directory.
 *
 * Unlike the reference, the Ascend950 family's files are looked up in the
 * simulator directory actually used (dav_3510), not in one named after the
 * full SoC string, which does not exist. */
#include "capture.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chip.h"
#include "cli.h"
#include "mem.h"

static char *load(const char *dir, const char *name)
{
	char path[8192];
	FILE *f;
	struct stat st;
	char *b;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "rb")))
		return NULL;
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > (4 << 20)) {
		fclose(f);
		return NULL;
	}
	b = xmalloc((size_t)st.st_size + 1);
	b[fread(b, 1, (size_t)st.st_size, f)] = 0;
	fclose(f);
	return b;
}

/* Replace every occurrence of from by to in *text; 1 if any. */
static int replace(char **text, const char *from, const char *to)
{
	size_t fl = strlen(from), tl = strlen(to), n = 0;
	char *p, *out, *o;
	const char *s;
	for (p = *text; (p = strstr(p, from)); p += fl)
		n++;
	if (!n)
		return 0;
	out = xmalloc(strlen(*text) + n * (tl > fl ? tl - fl : 0) + 1);
	for (s = *text, o = out; (p = strstr(s, from)); s = p + fl) {
		memcpy(o, s, (size_t)(p - s));
		o += p - s;
		memcpy(o, to, tl);
		o += tl;
	}
	strcpy(o, s);
	free(*text);
	*text = out;
	return 1;
}

/* The first line of text at or after from that starts with word. */
static char *line_starting(char *text, char *from, const char *word)
{
	size_t n = strlen(word);
	char *p;
	for (p = from; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if ((p == text || p[-1] == '\n') && !strncmp(p, word, n))
			return p;
	return NULL;
}

/* "mte_log" first in the enable_list of the [LOG] section (lines, not
 * comments, that start with them). */
static int add_mte_log(char **text)
{
	char *sec = line_starting(*text, *text, "[LOG]"), *el, *br, *next, *eol, *out;
	size_t at;
	if (!sec)
		return 0;
	el = line_starting(*text, sec, "enable_list");
	next = line_starting(*text, sec + 5, "[");
	if (!el || (next && el > next) || !(br = strchr(el, '[')))
		return 0;
	eol = strchr(el, '\n');
	if ((eol && br > eol) || (strstr(el, "\"mte_log\"") && (!eol || strstr(el, "\"mte_log\"") < eol)))
		return 0;
	at = (size_t)(br + 1 - *text);
	out = xmalloc(strlen(*text) + 12);
	memcpy(out, *text, at);
	strcpy(out + at, "\"mte_log\", ");
	strcat(out, *text + at);
	free(*text);
	*text = out;
	return 1;
}

static void save(const char *outdir, const char *name, const char *text)
{
	char path[8192];
	int fd;
	size_t n = strlen(text);
	mkdir(outdir, 0750);
	snprintf(path, sizeof path, "%s/%s", outdir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0 || write(fd, text, n) != (ssize_t)n || fchmod(fd, 0400) || close(fd))
		cli_die(EXIT_IO, "%s: cannot write:", path);
}

/* One file: load, apply, save if changed.  Returns 1 if saved, 0 if no
 * replacement applied, -1 if the file does not exist. */
static int rewrite(const char *libdir, const char *outdir, const char *name, int pms,
                   const char *const *pairs)
{
	char *t = load(libdir, name);
	int changed = 0;
	if (!t)
		return -1;
	for (; pairs && pairs[0]; pairs += 2)
		changed |= replace(&t, pairs[0], pairs[1]);
	if (pms)
		changed |= add_mte_log(&t);
	if (changed)
		save(outdir, name, t);
	free(t);
	return changed;
}

int camodel_config(const char *libdir, const char *soc, int pmsampling, const char *outdir)
{
	static const char *const parsim_toml[] = { "parsim = 0", "parsim = 1", "parsim_thd_limit = 0",
	                                           "parsim_thd_limit = 24", NULL };
	static const char *const parsim_json[] = { "\"parsim\": 0,", "\"parsim\": 1,", "\"parsim_thd_limit\": 0",
	                                           "\"parsim_thd_limit\": 24", NULL };
	static const char *const cache_toml[] = { "cache_enable                = 0",
	                                          "cache_enable                = 1", NULL };
	static const char *const cache_json[] = { "\"cache_enable\": 0,", "\"cache_enable\": 1,", NULL };
	static const char *const flush_spec[] = { "flush_level = \"3\"", "flush_level = \"2\"", NULL };
	static const char *const flush_json[] = { "\"flush_level\": 3", "\"flush_level\": 2", NULL };
	enum chip_family fam = chip_find(soc)->family;
	int any = 0, r;
	switch (fam) {
	case CHIP_A2:
	case CHIP_A3:
		if ((r = rewrite(libdir, outdir, "Ascend910_93_model.toml", 0, parsim_toml)) < 0)
			r = rewrite(libdir, outdir, "config_stars.json", 0, parsim_json);
		any |= r > 0;
		if ((r = rewrite(libdir, outdir, "pem_config_cloud.toml", pmsampling, cache_toml)) < 0)
			r = rewrite(libdir, outdir, "config.json", pmsampling, cache_json);
		any |= r > 0;
		break;
	case CHIP_310P:
		r = rewrite(libdir, outdir, "davinci_vec_core.spec", 0, flush_spec);
		any |= r > 0;
		{
			int r2 = rewrite(libdir, outdir, "davinci_mini.spec", 0, flush_spec);
			any |= r2 > 0;
			if (r < 0 && r2 < 0)
				any |= rewrite(libdir, outdir, "config.json", 0, flush_json) > 0;
		}
		if (any) {
			/* The spec files include it: it goes along unchanged. */
			char *t = load(libdir, "common.spec");
			if (t)
				save(outdir, "common.spec", t);
			free(t);
		}
		break;
	case CHIP_A5:
		any |= rewrite(libdir, outdir, "config.json", 0, flush_json) > 0;
		break;
	default:
		break;
	}
	return any;
}
