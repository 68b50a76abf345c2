/* dump-split: turn a CANN simulator dump (a directory, one dump file, or a
 * tar bundle of one) into a record stream of its raw log lines, core by
 * core, oldest rotated file first.  See dump-split(1). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chip.h"
#include "cli.h"
#include "io.h"
#include "mem.h"
#include "rec.h"

#include "bundle.h"
#include "onboard.h"

/* What a dump file name says. */
struct dname {
	uint32_t core, subidx, part;   /* part: rotation index, 0 = the base file */
	int sub, log;
};

/* What happens to a dump file. */
enum { ST_USE, ST_EMPTY, ST_GAP, ST_DUP, ST_UNSEL };

struct dfile {
	struct dname d;
	int state;
	uint64_t size;
	char *path;      /* what to open */
	char *shown;     /* what messages and source records say */
};

static struct dfile *files;
static size_t nfiles, capfiles;
static char **others;            /* entries that are not dump logs */
static size_t nothers, capothers;
static int status = EXIT_OK;

/* Cleaned up at exit, whatever the way out. */
static struct wr *out_w;
static char *tmpdir;

/* ---- file names ---- */

/* Order of the log kinds within a core (indexed by enum rec_log). */
static const int log_order[LOG_NKINDS] = {
	[LOG_POPPED] = 0, [LOG_INSTR] = 1, [LOG_ICACHE] = 2, [LOG_CCU] = 3,
	[LOG_MTE] = 4, [LOG_REG] = 5, [LOG_OTHER] = 6
};

static const char *digits32(const char *p, const char *end, uint32_t *v)
{
	uint64_t x = 0;
	const char *s = p;
	while (p < end && *p >= '0' && *p <= '9' && p - s < 10)
		x = x * 10 + (uint64_t)(*p++ - '0');
	if (p == s || x > UINT32_MAX || (p < end && *p >= '0' && *p <= '9'))
		return NULL;
	*v = (uint32_t)x;
	return p;
}

static int is_sep(int c) { return c == '.' || c == '_'; }

/* "core<N>" optionally followed by "<sep><vec|cube|mix>core<M>".  Returns the
 * end of the core part or NULL. */
static const char *parse_core(const char *p, const char *end, struct dname *d)
{
	static const struct { const char *w; int sub; } subs[] = {
		{ "veccore", SUB_VEC }, { "cubecore", SUB_CUBE }, { "mixcore", SUB_MIX }
	};
	size_t i;

	if (end - p < 5 || memcmp(p, "core", 4) || !(p = digits32(p + 4, end, &d->core)))
		return NULL;
	d->sub = SUB_NONE;
	d->subidx = 0;
	if (p == end || !is_sep(*p))
		return p;
	for (i = 0; i < sizeof subs / sizeof subs[0]; i++) {
		size_t n = strlen(subs[i].w);
		if ((size_t)(end - p) > n + 1 && !memcmp(p + 1, subs[i].w, n) &&
		    p[1 + n] >= '0' && p[1 + n] <= '9') {
			d->sub = subs[i].sub;
			return digits32(p + 1 + n, end, &d->subidx);
		}
	}
	return p;
}

/* A rotation index: digits without a leading zero, at least 1. */
static const char *rot_index(const char *p, const char *end, uint32_t *v)
{
	if (p == end || *p == '0')
		return NULL;
	p = digits32(p, end, v);
	return p && *v ? p : NULL;
}

static int tail_is(const char *p, const char *end, const char *s)
{
	size_t n = strlen(s);
	return (size_t)(end - p) == n && !memcmp(p, s, n);
}

/* Is this (base) name a simulator dump log?  Fills *d when it is. */
static int parse_name(const char *s, struct dname *d)
{
	static const struct { const char *w; int log; } kinds[] = {
		{ "instr_popped_log", LOG_POPPED }, { "instr_log", LOG_INSTR },
		{ "ifu.icache_log", LOG_ICACHE }, { "icache_log", LOG_ICACHE },
		{ "ccu_log", LOG_CCU }, { "mte_log", LOG_MTE }, { "reg_log", LOG_REG }
	};
	size_t n = strlen(s), i;
	const char *end, *p;

	if (n > 4 && !memcmp(s + n - 4, ".lz4", 4))
		n -= 4;            /* a compressed capture; rd_open inflates it */
	end = s + n;
	p = parse_core(s, end, d);
	if (!p || p == end || !is_sep(*p))
		return 0;
	p++;
	d->log = -1;
	for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
		size_t k = strlen(kinds[i].w);
		if ((size_t)(end - p) > k && !memcmp(p, kinds[i].w, k) && p[k] == '.') {
			d->log = kinds[i].log;
			p += k;
			break;
		}
	}
	if (d->log < 0)
		return 0;
	d->part = 0;
	/* p is at ".dump", ".log" (310B icache), ".<k>.dump", ".dump.<k>" (MTE). */
	if (tail_is(p, end, ".dump") || (d->log == LOG_ICACHE && tail_is(p, end, ".log")))
		return 1;
	if (d->log == LOG_MTE && (size_t)(end - p) > 6 && !memcmp(p, ".dump.", 6)) {
		const char *q = rot_index(p + 6, end, &d->part);
		return q == end;
	}
	p = rot_index(p + 1, end, &d->part);
	return p && (tail_is(p, end, ".dump") || (d->log == LOG_ICACHE && tail_is(p, end, ".log")));
}

/* ---- the file list ---- */

static char *join(const char *a, const char *sep, const char *b, const char *close)
{
	char *p = xmalloc(strlen(a) + strlen(sep) + strlen(b) + strlen(close) + 1);
	sprintf(p, "%s%s%s%s", a, sep, b, close);
	return p;
}

static void add_file(const struct dname *d, char *path, char *shown, uint64_t size)
{
	struct dfile *f;
	if (nfiles == capfiles) {
		capfiles = capfiles ? 2 * capfiles : 64;
		files = xrealloc(files, capfiles * sizeof *files);
	}
	f = &files[nfiles++];
	f->d = *d;
	f->path = path;
	f->shown = shown;
	f->size = size;
	f->state = size ? ST_USE : ST_EMPTY;
}

/* What the capture flow itself puts beside the dump logs (sim-capture, the
 * preload library, the simulator, the reference's tree): expected, so not
 * worth a note; anything else is. */
static int flow_file(const char *name)
{
	static const char *const names[] = {
		"aicore_binary.o", "pc_start_addr.txt", "manifest.json", "capture.rec",
		"kernel_config.bin", "input_tiling.bin", "object_dump.txt", "kernel_data"
	};
	const char *base = strrchr(name, '/');
	size_t i;

	base = base ? base + 1 : name;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (!strcmp(base, names[i]))
			return 1;
	return 0;
}

static void add_other(const char *name)
{
	if (flow_file(name)) {
		if (cli_verbosity >= 2)
			cli_note("not read: %s (written by the capture, not a dump log)", name);
		return;
	}
	if (nothers == capothers) {
		capothers = capothers ? 2 * capothers : 16;
		others = xrealloc(others, capothers * sizeof *others);
	}
	others[nothers++] = xstrdup(name);
}

static void scan_dir(const char *dir)
{
	DIR *dp = opendir(dir);
	const char *sep = dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/";
	struct dirent *de;

	if (!dp)
		cli_die(EXIT_UNUSABLE, "%s: cannot open directory:", dir);
	io_check_input(dir, "dump directory", 0);
	for (;;) {
		struct dname d;
		struct stat st;
		char *path;

		errno = 0;
		if (!(de = readdir(dp)))
			break;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (!parse_name(de->d_name, &d)) {
			add_other(de->d_name);
			continue;
		}
		path = join(dir, sep, de->d_name, "");
		if (stat(path, &st) < 0) {
			cli_warn("%s: cannot access:", path);
			status = EXIT_PARTIAL;
			free(path);
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			add_other(de->d_name);
			free(path);
			continue;
		}
		if (io_check_input(path, "dump log", 0) < 0)
			exit(EXIT_UNUSABLE);
		add_file(&d, path, xstrdup(path), (uint64_t)st.st_size);
	}
	if (errno)
		cli_die(EXIT_UNUSABLE, "%s: cannot read directory:", dir);
	closedir(dp);
}

/* ---- tar bundles: dump members are extracted to a private directory ---- */

/* On the exit-time cleanup list from its creation: whatever the way out,
 * the extracted members go with the tool. */
static void remove_tmpdir(void *arg)
{
	DIR *dp;
	struct dirent *de;

	(void)arg;
	if (!tmpdir)
		return;
	if ((dp = opendir(tmpdir))) {
		while ((de = readdir(dp)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(dp), de->d_name, 0);
		closedir(dp);
	}
	rmdir(tmpdir);
	free(tmpdir);
	tmpdir = NULL;
}

static void make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	if (!base || !*base)
		base = "/tmp";
	tmpdir = join(base, "/", "dump-split.XXXXXX", "");
	if (!mkdtemp(tmpdir)) {
		free(tmpdir);
		tmpdir = NULL;
		cli_die(EXIT_IO, "%s: cannot make a temporary directory:", base);
	}
	cli_cleanup_add(remove_tmpdir, NULL);
}

/* An absolute name or one with a ".." component could escape; refuse it
 * even though members are only ever written under their base name. */
static int unsafe_name(const char *s)
{
	const char *p = s;
	if (*s == '/')
		return 1;
	while ((p = strstr(p, ".."))) {
		if ((p == s || p[-1] == '/') && (p[2] == 0 || p[2] == '/'))
			return 1;
		p += 2;
	}
	return 0;
}

static void write_all(int fd, const char *p, size_t n, const char *path)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			cli_die(EXIT_IO, "%s: cannot write:", path);
		}
		p += k;
		n -= (size_t)k;
	}
}

static void extract(struct bundle *b, const char *bundle, const char *member,
                    const char *base, const struct dname *d)
{
	char *path, *shown;
	const void *data;
	size_t got;
	uint64_t size = 0;
	int fd;

	if (!tmpdir)
		make_tmpdir();
	path = join(tmpdir, "/", base, "");
	shown = join(bundle, "(", member, ")");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EEXIST) {
		/* The same member twice: the later copy wins, as with tar -x. */
		size_t i;
		cli_warn("%s: member %s appears more than once; using the last copy", bundle, member);
		status = EXIT_PARTIAL;
		for (i = 0; i < nfiles; i++)
			if (!strcmp(files[i].path, path)) {
				free(files[i].path);
				free(files[i].shown);
				files[i] = files[--nfiles];
				break;
			}
		fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	}
	if (fd < 0)
		cli_die(EXIT_IO, "%s: cannot create:", path);
	while (!cli_interrupted && bundle_data(b, &data, &got)) {
		write_all(fd, data, got, path);
		size += got;
	}
	if (close(fd) < 0)
		cli_die(EXIT_IO, "%s: cannot write:", path);
	if (bundle_truncated(b)) {
		cli_warn("%s: the bundle ends inside this member; its last line may be cut", shown);
		status = EXIT_PARTIAL;
	}
	add_file(d, path, shown, size);
}

/* Returns 0 when the input is not a tar archive at all. */
static int read_bundle(const char *in)
{
	int is_stdin = !strcmp(in, "-");
	int fd = is_stdin ? 0 : open(in, O_RDONLY | O_CLOEXEC);
	const char *bundle = is_stdin ? "(stdin)" : in;
	char *dir = NULL;             /* the directory of the first dump member */
	size_t dirlen = 0, elsewhere = 0;
	struct rd *r = fd < 0 ? NULL : rd_fdopen(fd, bundle);
	struct bundle *b;
	struct bundle_member m;
	int k;

	if (!r)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", in);
	b = bundle_open_fd(r, fd);
	k = bundle_next(b, &m);
	if (k < 0 && !bundle_started(b)) {
		if (bundle_read_error(b) > 0) {
			errno = bundle_read_error(b);
			cli_die(EXIT_UNUSABLE, "%s: cannot read:", bundle);
		}
		bundle_close(b);
		rd_close(r);
		if (!is_stdin)
			close(fd);
		return 0;
	}
	for (; k > 0 && !cli_interrupted; k = bundle_next(b, &m)) {
		const char *base = strrchr(m.name, '/');
		struct dname d;

		base = base ? base + 1 : m.name;
		if (m.pax_why) {
			cli_warn("%s: member %s: malformed pax header (%s); %s", bundle, m.name,
			         m.pax_why, m.no_data ? "the bundle cannot be read past it"
			                              : "using the name of its tar header");
			status = EXIT_PARTIAL;
		}
		if (m.type == BUNDLE_DIR || m.no_data)
			continue;
		if (unsafe_name(m.name)) {
			cli_warn("%s: member %s: absolute or '..' name, skipped", bundle, m.name);
			status = EXIT_PARTIAL;
			continue;
		}
		if (m.type != BUNDLE_FILE || !parse_name(base, &d)) {
			add_other(m.name);
			continue;
		}
		if (!dir) {
			dir = xstrndup(m.name, dirlen = (size_t)(base - m.name));
		} else if ((size_t)(base - m.name) != dirlen || memcmp(dir, m.name, dirlen)) {
			/* Two kernels' dumps would mix under one core name. */
			elsewhere++;
			if (cli_verbosity >= 2)
				cli_note("%s: member %s: outside '%s', skipped", bundle, m.name,
				         *dir ? dir : "./");
			status = EXIT_PARTIAL;
			continue;
		}
		extract(b, bundle, m.name, base, &d);
		if (bundle_truncated(b))
			break;
	}
	if (elsewhere)
		cli_warn("%s: holds dumps in more than one directory; used those in '%s' "
		         "and skipped %zu dump file%s elsewhere", bundle, *dir ? dir : "./",
		         elsewhere, elsewhere == 1 ? "" : "s");
	if (k < 0 && !bundle_truncated(b) && !cli_interrupted) {
		if (bundle_read_error(b))
			cli_warn("%s: read error: %s", bundle, bundle_read_strerror(b));
		else
			cli_warn("%s: %s; using the members before it", bundle, bundle_why(b));
		status = EXIT_PARTIAL;
	}
	free(dir);
	bundle_close(b);
	rd_close(r);
	if (!is_stdin)
		close(fd);
	return 1;
}

/* ---- selection ---- */

static struct cli_range *ranges;
static size_t nranges;
static struct dname *want_cores;
static char **want_names;
static int *want_hit;
static size_t nwant;
static unsigned log_mask;        /* bit per enum rec_log; 0 = all */

static void parse_core_ids(const char *spec)
{
	free(ranges);
	if (cli_core_ids(spec, &ranges, &nranges) < 0)
		cli_die(EXIT_USAGE, "--core-id: bad core list '%s' (want numbers and ranges "
		        "joined by '|' or ',', e.g. 0|31 or 0-2,12-14)", spec);
}

static void parse_logs(const char *spec)
{
	const char *p = spec;
	for (;;) {
		const char *c = strchr(p, ',');
		size_t n = c ? (size_t)(c - p) : strlen(p);
		int k = rec_log_parse(p, n);
		if (k < 0 || k == LOG_OTHER)
			cli_die(EXIT_USAGE, "--log: unknown log kind '%.*s' (want instr, popped, "
			        "icache, ccu, mte, reg)", (int)n, p);
		log_mask |= 1u << k;
		if (!c)
			return;
		p = c + 1;
	}
}

static void add_want(const char *name)
{
	struct dname d;
	const char *end = name + strlen(name);
	if (parse_core(name, end, &d) != end)
		cli_die(EXIT_USAGE, "--core: bad core name '%s' (want e.g. core0.veccore1 or core3)", name);
	want_cores = xrealloc(want_cores, (nwant + 1) * sizeof *want_cores);
	want_names = xrealloc(want_names, (nwant + 1) * sizeof *want_names);
	want_hit = xrealloc(want_hit, (nwant + 1) * sizeof *want_hit);
	want_cores[nwant] = d;
	want_names[nwant] = (char *)name;
	want_hit[nwant++] = 0;
}

static int same_core(const struct dname *a, const struct dname *b)
{
	return a->core == b->core && a->sub == b->sub && a->subidx == b->subidx;
}

/* --core-id and --core each narrow the selection. */
static int core_selected(const struct dname *d)
{
	size_t i;
	int ok = !nranges;
	for (i = 0; i < nranges && !ok; i++)
		ok = d->core >= ranges[i].lo && d->core <= ranges[i].hi;
	if (!ok)
		return 0;
	if (!nwant)
		return 1;
	for (i = 0; i < nwant; i++)
		if (same_core(d, &want_cores[i]))
			return want_hit[i] = 1;
	return 0;
}

/* ---- order and rotation ---- */

static int cmp_file(const void *pa, const void *pb)
{
	const struct dfile *a = pa, *b = pb;
	if (a->d.core != b->d.core)
		return a->d.core < b->d.core ? -1 : 1;
	if (a->d.sub != b->d.sub)
		return a->d.sub < b->d.sub ? -1 : 1;
	if (a->d.subidx != b->d.subidx)
		return a->d.subidx < b->d.subidx ? -1 : 1;
	if (a->d.log != b->d.log)
		return log_order[a->d.log] < log_order[b->d.log] ? -1 : 1;
	/* Oldest first: .k ... .2, .1, then the base file (part 0). */
	if (a->d.part != b->d.part)
		return a->d.part > b->d.part ? -1 : 1;
	return strcmp(a->shown, b->shown);
}

static int same_log(const struct dfile *a, const struct dfile *b)
{
	return same_core(&a->d, &b->d) && a->d.log == b->d.log;
}

/* Mark duplicates and the rotated files beyond a missing index, which the
 * reference never reads either (it stops at the first missing index). */
static void check_rotation(void)
{
	size_t i = 0, j, g;

	while (i < nfiles) {
		uint32_t expect = 1;
		for (j = i + 1; j < nfiles && same_log(&files[i], &files[j]); j++)
			;
		for (g = i + 1; g < j; g++) {
			if (files[g].state == ST_UNSEL || files[g].d.part != files[g - 1].d.part ||
			    files[g - 1].state == ST_UNSEL)
				continue;
			files[g].state = ST_DUP;
			cli_warn("%s: same log as %s; skipped", files[g].shown, files[g - 1].shown);
			status = EXIT_PARTIAL;
		}
		/* Walk the group upwards from .1. */
		for (g = j; g-- > i;) {
			struct dfile *f = &files[g];
			if (f->d.part == 0 || f->state == ST_UNSEL || f->state == ST_DUP)
				continue;
			if (f->d.part == expect) {
				expect++;
				continue;
			}
			f->state = ST_GAP;
			cli_warn("%s: skipped: rotated file %u of this log is missing", f->shown, expect);
			status = EXIT_PARTIAL;
		}
		i = j;
	}
}

/* ---- the SoC, when --soc-version is not given ----
 *
 * A capture knows its SoC: sim-capture writes it into manifest.json (and
 * the header of capture.rec) at the top of its tree, a few directories
 * above each dump directory.  Failing that, the line format tells the
 * family apart; the clock within a family is then a guess. */

/* Levels above the dump directory: OPPROF_x/device0/<kernel>/<n>/dump. */
#define SOC_SEARCH_UP 4

/* The "soc" string of a manifest, or NULL. */
static const struct chip *manifest_soc(const char *path, char *raw, size_t cap)
{
	static char buf[1 << 16];
	FILE *f = fopen(path, "r");
	size_t n;
	const char *p, *q;

	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	for (p = buf; (p = strstr(p, "\"soc\"")); p += 5) {
		p += 5;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p != ':')
			continue;
		p++;
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			p++;
		if (*p != '"' || !(q = strchr(p + 1, '"')) || (size_t)(q - p - 1) >= cap)
			return NULL;
		memcpy(raw, p + 1, (size_t)(q - p - 1));
		raw[q - p - 1] = 0;
		return chip_find(raw);
	}
	return NULL;
}

/* The SoC of a capture.rec header, or NULL. */
static const struct chip *records_soc(const char *path, char *raw, size_t cap)
{
	struct rd *r = rd_open(path);
	struct rec_dec dec = { 0 };
	const struct chip *c = NULL;
	const char *line, *why;
	size_t len;
	struct rec rec;

	if (!r)
		return NULL;
	if ((line = rd_line(r, &len)) && rec_decode(&dec, line, len, &rec, &why) == DEC_OK &&
	    rec.sc->kind == K_HEADER && rec.s[HS_SOC].n && rec.s[HS_SOC].n < cap) {
		memcpy(raw, rec.s[HS_SOC].p, rec.s[HS_SOC].n);
		raw[rec.s[HS_SOC].n] = 0;
		c = chip_find(raw);
	}
	rec_dec_free(&dec);
	rd_close(r);
	return c;
}

/* Look for the capture's SoC in dir and the directories above it.
 * *where receives the file it came from (owned). */
static const struct chip *capture_soc(const char *dir, char **where)
{
	static const char *const names[] = { "manifest.json", "capture.rec" };
	char *d = realpath(dir, NULL), raw[128];
	const struct chip *c = NULL;
	int up;
	size_t i;

	for (up = 0; d && up <= SOC_SEARCH_UP && !c; up++) {
		char *slash;
		for (i = 0; i < sizeof names / sizeof names[0] && !c; i++) {
			char *path = join(d, "/", names[i], "");
			c = i ? records_soc(path, raw, sizeof raw) : manifest_soc(path, raw, sizeof raw);
			if (c && c->family == CHIP_UNKNOWN) {
				cli_warn("%s: unknown SoC '%s'; not used", path, raw);
				c = NULL;
			}
			if (c)
				*where = path;
			else
				free(path);
		}
		if (!(slash = strrchr(d, '/')) || slash == d)
			break;
		*slash = 0;
	}
	free(d);
	return c;
}

/* The family a dump line's format says: an "(ID: n)" before the name
 * (A5, 310B), and "name(args)" (310P, 310B) or "NAME  args" (A2, A5). */
static enum chip_family line_family(const char *p, size_t n)
{
	const char *end = p + n, *b = memmem(p, n, ": (Binary: 0x", 13), *q;
	int id = 0;

	if (!b || !memmem(p, (size_t)(b - p), "(PC: 0x", 7))
		return CHIP_UNKNOWN;
	if (!(q = memchr(b + 13, ')', (size_t)(end - b - 13))) || ++q == end || *q++ != ' ')
		return CHIP_UNKNOWN;
	if (end - q > 5 && !memcmp(q, "(ID: ", 5)) {
		if (!(q = memchr(q, ')', (size_t)(end - q))) || ++q == end || *q++ != ' ')
			return CHIP_UNKNOWN;
		id = 1;
	}
	while (q < end && ((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') ||
	                   (*q >= 'A' && *q <= 'Z') || *q == '_' || *q == '-'))
		q++;
	if (q < end && *q == '(')
		return id ? CHIP_310B : CHIP_310P;
	if (end - q >= 2 && (q[0] == ' ' || q[0] == '\t') && (q[1] == ' ' || q[1] == '\t'))
		return id ? CHIP_A5 : CHIP_A2;
	return CHIP_UNKNOWN;
}

/* The lines read ahead of the output to guess the family: they are
 * written from here, and the file goes on from the reader kept open, so no
 * file is read twice. */
#define AHEAD_LINES 200
static struct {
	struct rd *r;
	size_t file;                 /* its index in files[] */
	char *line[AHEAD_LINES];
	size_t len[AHEAD_LINES], n;
} ahead;

/* The family every recognised line of the first instruction log (popped
 * or executed) agrees on, or CHIP_UNKNOWN (none recognised, or they
 * disagree). */
static enum chip_family dump_family(const char **from)
{
	enum chip_family fam = CHIP_UNKNOWN;
	const char *line;
	size_t i, len;
	int mixed = 0;

	for (i = 0; i < nfiles; i++)
		if (files[i].state == ST_USE && (files[i].d.log == LOG_INSTR || files[i].d.log == LOG_POPPED))
			break;
	if (i == nfiles || !(ahead.r = rd_open(files[i].path)))
		return CHIP_UNKNOWN;     /* the output loop says why it cannot */
	ahead.file = i;
	*from = files[i].shown;
	while (ahead.n < AHEAD_LINES && (line = rd_line(ahead.r, &len))) {
		enum chip_family l = line_family(line, len);
		ahead.line[ahead.n] = xstrndup(line, len);
		ahead.len[ahead.n++] = len;
		if (l == CHIP_UNKNOWN)
			continue;
		mixed |= fam != CHIP_UNKNOWN && l != fam;
		fam = l;
	}
	return mixed ? CHIP_UNKNOWN : fam;
}

/* The SoC of the header, and what the origin says of it (NULL: nothing).
 * in is the dump directory or file; NULL for a bundle. */
static const char *pick_soc(const char *in, int is_dir, char **note)
{
	static const struct { enum chip_family fam; const char *soc; } guess[] = {
		/* The reference's choice for each simulator directory. */
		{ CHIP_A5, "Ascend950PR_9599" }, { CHIP_310P, "Ascend310P1" }, { CHIP_310B, "Ascend310B1" }
	};
	const struct chip *c;
	const char *from = NULL;
	char *where = NULL, *dir;
	enum chip_family fam;
	size_t i;

	*note = NULL;
	if (in) {
		const char *slash = strrchr(in, '/');
		if (is_dir || !slash) {
			dir = xstrdup(is_dir ? in : ".");
		} else {
			dir = xstrdup(in);
			dir[slash == in ? 1 : slash - in] = 0;
		}
		c = capture_soc(dir, &where);
		free(dir);
		if (c) {
			if (cli_verbosity >= 2)
				cli_note("SoC %s from %s", c->soc, where);
			*note = join(" (SoC from ", where, "", ")");
			free(where);
			return c->soc;
		}
	}
	fam = dump_family(&from);
	for (i = 0; i < sizeof guess / sizeof guess[0]; i++)
		if (guess[i].fam == fam) {
			cli_warn("%s: no --soc-version and no manifest.json of a capture: the lines are "
			         "those of the %s family, so %s (%u MHz) is assumed; give --soc-version "
			         "for the exact clock", from, chip_family_name(fam), guess[i].soc,
			         chip_find(guess[i].soc)->mhz);
			*note = xstrdup(" (SoC guessed from the line format)");
			return guess[i].soc;
		}
	return CHIP_DEFAULT_SOC;
}

/* ---- output ---- */

/* The lines read ahead, when the output loop did not get to them. */
static void free_ahead(void)
{
	size_t i;

	rd_close(ahead.r);
	ahead.r = NULL;
	for (i = 0; i < ahead.n; i++)
		free(ahead.line[i]);
	ahead.n = 0;
}

/* Open the output; *fd is the descriptor to ask isatty about, or -1. */
static struct wr *open_out(const char *out, int lz4, int *fd)
{
	struct wr *w;
	struct stat st;
	int flags = lz4 ? WR_LZ4 : 0;

	*fd = -1;
	cli_refuse_tty(out, lz4);
	if (!strcmp(out, "-")) {
		*fd = 1;
		w = wr_fdopen(1, "(stdout)", flags);
	} else if (stat(out, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or FIFO (/dev/null, /dev/stdout, a named pipe) is
		 * written in place: wr_open would rename a temporary file
		 * over it. */
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			cli_die(EXIT_IO, "%s: cannot create:", out);
		}
		if ((*fd = open(out, O_WRONLY | O_CLOEXEC)) < 0)
			cli_die(EXIT_IO, "%s: cannot open:", out);
		w = wr_fdopen(*fd, out, flags);
	} else {
		w = wr_open(out, flags);
	}
	if (!w)
		cli_die(EXIT_IO, "%s: cannot create:", out);
	out_w = w;
	return w;
}

/* Close the output; the tool's exit status. */
static int close_out(const char *out)
{
	int err = wr_close(out_w);
	out_w = NULL;
	if (err == EPIPE)
		return status;      /* the reader went away: end quietly */
	if (err) {
		errno = err;
		cli_warn("%s: write error:", strcmp(out, "-") ? out : "standard output");
		return EXIT_IO;
	}
	return cli_interrupted ? EXIT_INTR : status;
}

static int list_cores(const char *out, int lz4)
{
	int fd;
	struct wr *w = open_out(out, lz4, &fd);
	char name[48], *unlisted = NULL;
	size_t i = 0, j, nun = 0, len = 0;

	while (i < nfiles) {
		int listed = 0, selected = 0;
		for (j = i; j < nfiles && same_core(&files[i].d, &files[j].d); j++) {
			selected |= files[j].state != ST_UNSEL;
			listed |= files[j].state == ST_USE &&
			          (files[j].d.log == LOG_INSTR || files[j].d.log == LOG_POPPED);
		}
		rec_core_name(name, files[i].d.core, (uint64_t)files[i].d.sub, files[i].d.subidx);
		if (listed) {
			wr_puts(w, name);
			wr_putc(w, '\n');
		} else if (selected) {
			unlisted = xrealloc(unlisted, len + strlen(name) + 3);
			len += (size_t)sprintf(unlisted + len, "%s%s", nun++ ? ", " : "", name);
		}
		i = j;
	}
	if (nun)
		cli_note("not listed (no non-empty instr or popped log): %s", unlisted);
	free(unlisted);
	return close_out(out);
}

static int show_progress;

static void progress(size_t idx, uint64_t bytes, int done)
{
	static time_t last;
	static int shown;
	time_t now;

	if (done) {
		if (shown)
			fputs("\r\033[K", stderr);
		return;
	}
	now = time(NULL);
	if (now == last)
		return;
	if (!last) {
		/* Nothing to say for runs shorter than a second. */
		last = now;
		return;
	}
	last = now;
	shown = 1;
	fprintf(stderr, "\r%s: file %zu of %zu, %llu MiB read", cli_prog, idx + 1, nfiles,
	        (unsigned long long)(bytes >> 20));
}

/* Write the lines of one file (those read ahead first, when it is theirs).
 * Returns the number of lines. */
static uint64_t emit_file(struct rec_out *o, struct rec *line, const struct dfile *f,
                          struct rd *r, uint64_t bytes_before, size_t idx)
{
	uint64_t n = 0;
	const char *p;
	size_t len, k = 0;

	line->n[L_CORE].u = f->d.core;
	line->n[L_SUBTYPE].u = (uint64_t)f->d.sub;
	line->n[L_SUBIDX].u = f->d.subidx;
	line->n[L_LOG].u = (uint64_t)f->d.log;
	if (r != ahead.r)
		k = ahead.n;
	while (k < ahead.n || (p = rd_line(r, &len))) {
		if (k < ahead.n) {
			p = ahead.line[k];
			len = ahead.len[k++];
		}
		line->n[L_LINE].u = ++n;
		line->s[LS_TEXT].p = p;
		line->s[LS_TEXT].n = len;
		rec_out_put(o, line);
		if (cli_interrupted)
			break;
		if (!(n & 0xffff)) {
			if (wr_error(o->w))
				break;
			if (show_progress)
				progress(idx, bytes_before + rd_offset(r), 0);
		}
	}
	return n;
}

static int split(const char *in, const char *out, int lz4, int json, int text, const char *soc,
                 const char *soc_note)
{
	struct rec_out o = { 0 };
	struct rec src, line;
	uint64_t dropped = 0, bytes = 0, unopened = 0;
	uint32_t id = 0;
	size_t i;
	int fd;

	o.producer = "dump-split";
	o.w = open_out(out, lz4, &fd);
	o.mode = cli_out_mode(json, text, 0, fd);
	show_progress = cli_verbosity >= 1 && isatty(2);
	{
		char *origin = join(in, soc_note ? soc_note : "", "", "");
		rec_out_header(&o, soc, chip_find(soc)->mhz, origin);
		free(origin);
	}
	rec_init(&src, K_SOURCE);
	rec_init(&line, K_LINE);
	for (i = 0; i < nfiles && !cli_interrupted && !wr_error(o.w); i++) {
		const struct dfile *f = &files[i];
		struct rd *r;
		uint64_t n;
		int err;

		if (f->state != ST_USE) {
			dropped += f->state == ST_GAP || f->state == ST_DUP;
			continue;
		}
		if (ahead.r && i == ahead.file) {
			r = ahead.r;
		} else if (!(r = rd_open(f->path))) {
			cli_warn("%s: cannot open:", f->shown);
			status = EXIT_PARTIAL;
			dropped++;
			unopened++;
			continue;
		}
		src.n[F_FILE].u = ++id;
		src.n[F_CORE].u = f->d.core;
		src.n[F_SUBTYPE].u = (uint64_t)f->d.sub;
		src.n[F_SUBIDX].u = f->d.subidx;
		src.n[F_LOG].u = (uint64_t)f->d.log;
		src.n[F_PART].u = f->d.part;
		rec_text_set(&src, FS_PATH, f->shown, strlen(f->shown));
		rec_out_put(&o, &src);
		line.n[L_FILE].u = id;
		n = emit_file(&o, &line, f, r, bytes, i);
		bytes += rd_offset(r);
		if ((err = rd_error(r))) {
			/* The file is cut short: count it in the trailer too, so a
			 * consumer's status shows the loss. */
			if (n)
				cli_warn_at(f->shown, n, "read error after this line: %s", rd_strerror(r));
			else
				cli_warn("%s: read error: %s", f->shown, rd_strerror(r));
			status = EXIT_PARTIAL;
			dropped++;
		}
		rd_close(r);
		if (r == ahead.r)
			ahead.r = NULL;
	}
	if (show_progress)
		progress(0, 0, 1);
	if (!id && unopened) {
		/* Not one file could be read: nothing is produced. */
		wr_abort(out_w);
		out_w = NULL;
		cli_warn("no dump file could be read");
		return EXIT_UNUSABLE;
	}
	rec_out_trailer(&o, 0, dropped, cli_interrupted != 0);
	return close_out(out);
}

/* An on-board dump: its records after the header, then the trailer. */
static int split_board(const char *dir, const char *in, const char *out, int lz4, int json, int text,
                       const char *soc)
{
	struct onboard *b = onboard_open(dir, soc);
	struct rec_out o = { 0 };
	uint64_t bad = 0, dropped = 0;
	unsigned mhz;
	int fd;

	o.producer = "dump-split";
	o.w = open_out(out, lz4, &fd);
	o.mode = cli_out_mode(json, text, 0, fd);
	soc = onboard_soc(b, &mhz);
	rec_out_header(&o, soc, mhz, in);
	status = onboard_write(b, &o, &bad, &dropped);
	onboard_free(b);
	rec_out_trailer(&o, bad, dropped, cli_interrupted != 0);
	return close_out(out);
}

/* ---- main ---- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: dump-split [OPTION]... [DUMP]\n"
	        "Write the raw lines of a CANN simulator dump (a directory, one dump file,\n"
	        "or a .tar/.tar.lz4 bundle; '-' or none = a bundle on stdin) as optrace\n"
	        "records, core by core, oldest rotated file first.  An on-board dump\n"
	        "directory (op_basic_info.txt, DeviceProf<N>.bin, duration.bin, L2Cache.bin,\n"
	        "or a launch directory holding it as dump/) gives its PMU samples, task\n"
	        "stamps, L2 counters and basic information as records.\n"
	        "\n"
	        "  -o, --output=FILE     write FILE instead of standard output\n"
	        "      --json            JSON Lines      --text   readable text\n"
	        "      --lz4             compress the output (lz4 frame)\n"
	        "      --soc-version=SOC SoC named in the header, any case (default: the capture's\n"
	        "                        manifest.json, else the line format, else " CHIP_DEFAULT_SOC ")\n"
	        "      --list-cores      print the cores found, one per line\n"
	        "      --core-id=SPEC    physical core numbers: 0|31, 0-2,12-14\n"
	        "      --core=NAME       one core, e.g. core0.veccore1 (repeatable)\n"
	        "      --log=KINDS       instr,popped,icache,ccu,mte,reg\n"
	        "  -q, --quiet           no notes        -v, --verbose  more notes\n"
	        "  -h, --help            this help           --version\n"
	        "Exit: 0 ok, 1 input problems, 2 usage, 3 input unusable, 4 I/O error, 130 interrupted.\n");
}

/* What the command line asks for. */
struct opts {
	int json, text, lz4, list;
	const char *out, *soc, *core_spec, *in;
};

/* The options and the one operand; returns -1 to go on, else the exit
 * status. */
static int options(int argc, char **argv, struct opts *o)
{
	enum { OPT_VERSION = 256, OPT_JSON, OPT_TEXT, OPT_LZ4, OPT_SOC, OPT_LIST, OPT_COREID, OPT_CORE, OPT_LOG };
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "output", required_argument, NULL, 'o' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "text", no_argument, NULL, OPT_TEXT },
		{ "lz4", no_argument, NULL, OPT_LZ4 },
		{ "soc-version", required_argument, NULL, OPT_SOC },
		{ "list-cores", no_argument, NULL, OPT_LIST },
		{ "core-id", required_argument, NULL, OPT_COREID },
		{ "core", required_argument, NULL, OPT_CORE },
		{ "log", required_argument, NULL, OPT_LOG },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	o->out = "-";
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		case OPT_VERSION: cli_version();
		case 'o': o->out = optarg; break;
		case 'q': cli_verbosity = 0; break;
		case 'v': cli_verbosity = 2; break;
		case OPT_JSON: o->json = 1; o->text = 0; break;
		case OPT_TEXT: o->text = 1; o->json = 0; break;
		case OPT_LZ4: o->lz4 = 1; break;
		case OPT_SOC: o->soc = cli_soc(optarg)->soc; break;
		case OPT_LIST: o->list = 1; break;
		case OPT_COREID: parse_core_ids(o->core_spec = optarg); break;
		case OPT_CORE: add_want(optarg); break;
		case OPT_LOG: parse_logs(optarg); break;
		default:
			fprintf(stderr, "Try 'dump-split --help'.\n");
			return EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		cli_warn("one dump at a time (got %d operands)", argc - optind);
		return EXIT_USAGE;
	}
	o->in = optind < argc ? argv[optind] : "-";
	if (!strcmp(o->in, "-") && isatty(0)) {
		cli_warn("no dump given, and standard input is a terminal");
		fprintf(stderr, "Try 'dump-split --help'.\n");
		return EXIT_USAGE;
	}
	if (!*o->out)
		cli_die(EXIT_USAGE, "-o: empty file name");
	return -1;
}

/* The dump files of in: a directory, one dump file, a tar bundle (a file
 * or standard input).  *in_dir and *in_bundle say which. */
static void find_dumps(const char *in, int *in_dir, int *in_bundle)
{
	struct stat st;
	size_t i;

	if (!strcmp(in, "-")) {
		*in_bundle = 1;
		if (!read_bundle(in))
			cli_die(EXIT_UNUSABLE, "standard input is not a tar bundle");
	} else if (stat(in, &st) < 0) {
		cli_die(EXIT_UNUSABLE, "%s: cannot access:", in);
	} else if (S_ISDIR(st.st_mode)) {
		*in_dir = 1;
		scan_dir(in);
	} else {
		const char *base = strrchr(in, '/');
		struct dname d;
		base = base ? base + 1 : in;
		if (S_ISREG(st.st_mode) && parse_name(base, &d)) {
			if (io_check_input(in, "dump log", 0) < 0)
				exit(EXIT_UNUSABLE);
			add_file(&d, xstrdup(in), xstrdup(in), (uint64_t)st.st_size);
		}
		else if (!(*in_bundle = read_bundle(in)))
			cli_die(EXIT_UNUSABLE, "%s: not a simulator dump file, dump directory or tar bundle", in);
	}
	if (!nfiles && !cli_interrupted)
		cli_die(EXIT_UNUSABLE, "no simulator dump files in %s", in);

	if (nothers) {
		cli_note("skipped %zu %s%s", nothers, nothers == 1 ?
		         "file that is not a simulator dump log" : "files that are not simulator dump logs",
		         cli_verbosity < 2 ? " (-v names them)" : "");
		qsort(others, nothers, sizeof *others, cmp_str);
		for (i = 0; i < nothers && cli_verbosity >= 2; i++)
			cli_note("skipped %s: not a simulator dump log", others[i]);
	}
	for (i = 0; i < nfiles && files[i].state == ST_EMPTY; i++)
		;
	if (i == nfiles && nfiles && !cli_interrupted)
		cli_die(EXIT_UNUSABLE, "%s: every simulator dump file is empty", in);
}

/* Select the files the options ask for, order them, check rotation, and
 * say what is skipped. */
static void select_files(const struct opts *o)
{
	size_t i, nempty = 0, nsel = 0;

	for (i = 0; i < nfiles; i++) {
		struct dfile *f = &files[i];
		if (!core_selected(&f->d) || (!o->list && log_mask && !(log_mask & (1u << f->d.log))))
			f->state = ST_UNSEL;
		else
			nsel++;
	}
	if (nfiles)     /* none when interrupted before the first member */
		qsort(files, nfiles, sizeof *files, cmp_file);
	for (i = 0; i < nwant; i++)
		if (!want_hit[i]) {
			cli_warn("no core %s in %s", want_names[i], o->in);
			status = EXIT_PARTIAL;
		}
	if (!nsel && o->core_spec && !nwant) {
		cli_warn("--core-id=%s selects no core in %s", o->core_spec, o->in);
		status = EXIT_PARTIAL;
	} else if (!nsel && !nwant) {
		cli_warn("no dump file of the selected log kinds in %s", o->in);
		status = EXIT_PARTIAL;
	}
	if (!o->list)
		check_rotation();
	for (i = 0; i < nfiles; i++)
		if (files[i].state == ST_EMPTY) {
			nempty++;
			if (cli_verbosity >= 2)
				cli_note("skipped %s: empty", files[i].shown);
		}
	if (nempty)
		cli_note("skipped %zu empty dump file%s", nempty, nempty == 1 ? "" : "s");
}

/* Free what the leak checker would otherwise report. */
static void free_all(void)
{
	size_t i;
	free_ahead();
	for (i = 0; i < nfiles; i++) {
		free(files[i].path);
		free(files[i].shown);
	}
	free_vec(others, nothers);
	free(files);
	free(ranges);
	free(want_cores);
	free(want_names);
	free(want_hit);
}

int main(int argc, char **argv)
{
	struct opts o = { 0 };
	char *soc_note = NULL;
	int in_dir = 0, in_bundle = 0, c;

	cli_init(argv[0]);
	if ((c = options(argc, argv, &o)) >= 0)
		return c;
	if (!o.list && (soc_note = onboard_dir(o.in))) {
		c = split_board(soc_note, o.in, o.out, o.lz4, o.json, o.text, o.soc);
		free(soc_note);
		free_all();
		return c;
	}
	find_dumps(o.in, &in_dir, &in_bundle);
	select_files(&o);
	if (!o.list && !o.soc)
		o.soc = pick_soc(in_bundle ? NULL : o.in, in_dir, &soc_note);
	c = o.list ? list_cores(o.out, o.lz4) : split(o.in, o.out, o.lz4, o.json, o.text, o.soc, soc_note);
	free(soc_note);
	free_all();
	return c;
}
