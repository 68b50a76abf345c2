/* Loading a profile from an OPPROF tree: the per-core CSVs and traces of a
 * simulator tree, the CSVs of an on-board launch (see prof-diff(1), INPUTS).
 * Every file is read once, line by line; memory is per core, pipe, pc and
 * source line. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "io.h"
#include "mem.h"
#include "pd.h"
#include "scan.h"
#include "text.h"

/* ---- the model's tables ---- */

struct pd_core *pd_core_get(struct prof *p, const char *name, size_t n)
{
	size_t i;
	struct pd_core *c;
	for (i = 0; i < p->ncore; i++)
		if (strlen(p->core[i].name) == n && !memcmp(p->core[i].name, name, n))
			return &p->core[i];
	p->core = xreallocarray(p->core, p->ncore + 1, sizeof *p->core);
	c = &p->core[p->ncore++];
	memset(c, 0, sizeof *c);
	c->name = xstrndup(name, n);
	c->start = UINT64_MAX;
	c->pc_ix = keytab_make(sizeof(uint32_t), 0);
	c->line_ix = keytab_make(sizeof(uint32_t), 0);
	return c;
}

struct pd_pipe *pd_pipe_get(struct pd_core *c, const char *name, size_t n)
{
	size_t i;
	for (i = 0; i < c->npipe; i++)
		if (strlen(c->pipe[i].name) == n && !memcmp(c->pipe[i].name, name, n))
			return &c->pipe[i];
	c->pipe = xreallocarray(c->pipe, c->npipe + 1, sizeof *c->pipe);
	memset(&c->pipe[c->npipe], 0, sizeof *c->pipe);
	c->pipe[c->npipe].name = xstrndup(name, n);
	return &c->pipe[c->npipe++];
}

struct pd_instr *pd_instr_get(struct pd_core *c, uint64_t pc, int *fresh)
{
	uint32_t *ix = keytab_get(&c->pc_ix, pc, fresh);
	struct pd_instr *in;
	if (!*fresh)
		return &c->instr[*ix];
	if (c->ninstr == c->instr_cap) {
		c->instr_cap = c->instr_cap ? 2 * c->instr_cap : 64;
		c->instr = xreallocarray(c->instr, c->instr_cap, sizeof *c->instr);
	}
	*ix = (uint32_t)c->ninstr;
	in = &c->instr[c->ninstr++];
	memset(in, 0, sizeof *in);
	in->pc = pc;
	return in;
}

struct pd_line *pd_line_get(struct pd_core *c, const char *code, size_t n)
{
	uint64_t h = hash_words(code, n);
	int fresh;
	uint32_t *ix;
	size_t i;
	struct pd_line *l;
	for (;; h++) {
		ix = keytab_get(&c->line_ix, h, &fresh);
		if (fresh)
			break;
		l = &c->line[*ix];
		if (strlen(l->code) == n && !memcmp(l->code, code, n))
			return l;
		/* another text of the same hash: the next key */
	}
	if (c->nline == c->line_cap) {
		c->line_cap = c->line_cap ? 2 * c->line_cap : 64;
		c->line = xreallocarray(c->line, c->line_cap, sizeof *c->line);
	}
	i = c->nline++;
	*ix = (uint32_t)i;
	l = &c->line[i];
	memset(l, 0, sizeof *l);
	l->code = xstrndup(code, n);
	return l;
}

const struct pd_line *pd_line_find(const struct pd_core *c, const char *code)
{
	size_t n = strlen(code);
	uint64_t h = hash_words(code, n);
	const uint32_t *ix;
	for (; (ix = keytab_find(&c->line_ix, h)); h++)
		if (!strcmp(c->line[*ix].code, code))
			return &c->line[*ix];
	return NULL;
}

const struct pd_group *pd_group_find(const struct prof *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->ngroup; i++)
		if (!strcmp(p->group[i].name, name))
			return &p->group[i];
	return NULL;
}

/* ---- CSV ---- */

/* The fields of one CSV line (quotes as the tools write them: a quoted
 * field, a quote inside doubled), into f[] (pointers into buf, which
 * holds the unquoted texts).  A trailing empty field after the last comma
 * counts as a field.  Returns the count, or -1 for an unclosed quote. */
static int csv_split(const char *s, size_t n, struct sbuf *buf, size_t *off, size_t *len, int max)
{
	size_t i = 0;
	int nf = 0;
	buf->n = 0;
	for (;;) {
		size_t start = buf->n;
		if (nf == max)
			return nf;
		if (i < n && s[i] == '"') {
			i++;
			for (;;) {
				if (i >= n)
					return -1;
				if (s[i] == '"') {
					if (i + 1 < n && s[i + 1] == '"') {
						sb_put(buf, "\"", 1);
						i += 2;
						continue;
					}
					i++;
					break;
				}
				sb_put(buf, s + i, 1);
				i++;
			}
			if (i < n && s[i] != ',')
				return -1;
		} else {
			const char *c = memchr(s + i, ',', n - i);
			size_t e = c ? (size_t)(c - s) : n;
			sb_put(buf, s + i, e - i);
			i = e;
		}
		off[nf] = start;
		len[nf] = buf->n - start;
		nf++;
		if (i >= n)
			return nf;
		i++; /* the comma */
	}
}

#define CSV_MAXF 256

struct csv {
	struct rd *r;
	const char *path;
	struct sbuf buf;
	size_t off[CSV_MAXF], len[CSV_MAXF];
	int nf;
};

static int csv_open(struct csv *c, const char *path)
{
	memset(c, 0, sizeof *c);
	c->path = path;
	c->r = rd_open(path);
	return c->r ? 0 : -1;
}

/* The next line's fields: 1, or 0 at the end; a bad line ends the run. */
static int csv_next(struct csv *c)
{
	size_t n;
	const char *s;
	for (;;) {
		s = rd_line(c->r, &n);
		if (!s) {
			if (rd_error(c->r))
				cli_die(EXIT_IO, "%s: %s", c->path, rd_strerror(c->r));
			return 0;
		}
		if (n && s[n - 1] == '\r')
			n--;
		if (n)
			break;
	}
	c->nf = csv_split(s, n, &c->buf, c->off, c->len, CSV_MAXF);
	if (c->nf < 0)
		cli_die(EXIT_UNUSABLE, "%s:%llu: an unclosed quote", c->path, (unsigned long long)rd_lineno(c->r));
	return 1;
}

static const char *csv_f(const struct csv *c, int i, size_t *n)
{
	*n = c->len[i];
	return c->buf.p + c->off[i];
}

static int csv_is(const struct csv *c, int i, const char *lit)
{
	size_t n;
	const char *f = csv_f(c, i, &n);
	return n == strlen(lit) && !memcmp(f, lit, n);
}

static void csv_close(struct csv *c)
{
	rd_close(c->r);
	sb_free(&c->buf);
}

static int num_u64(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;
	if (!n)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	*v = x;
	return 0;
}

static uint64_t csv_u64(const struct csv *c, int i)
{
	size_t n;
	const char *f = csv_f(c, i, &n);
	uint64_t v;
	if (num_u64(f, n, &v) < 0)
		cli_die(EXIT_UNUSABLE, "%s:%llu: field %d is not a count: '%.*s'", c->path,
		        (unsigned long long)rd_lineno(c->r), i + 1, (int)(n > 40 ? 40 : n), f);
	return v;
}

/* ---- the simulator tree ---- */

static int has_file(const char *dir, const char *name)
{
	char *p = xpath(dir, name);
	int r = io_is_file(p);
	free(p);
	return r;
}

static int has_dir(const char *dir, const char *name)
{
	char *p = xpath(dir, name);
	int r = io_is_dir(p);
	free(p);
	return r;
}

/* <core>/<core>_instr_exe.csv: instr,addr,pipe,call_count,cycles,... */
static void load_instr_csv(struct prof *p, struct pd_core *c, const char *path)
{
	struct csv v;
	if (csv_open(&v, path) < 0)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	if (!csv_next(&v) || v.nf < 5 || !csv_is(&v, 0, "instr") || !csv_is(&v, 1, "addr") ||
	    !csv_is(&v, 2, "pipe") || !csv_is(&v, 3, "call_count") || !csv_is(&v, 4, "cycles"))
		cli_die(EXIT_UNUSABLE, "%s:1: not an instruction table (instr,addr,pipe,call_count,cycles,...)", path);
	while (csv_next(&v)) {
		size_t nn, pn;
		const char *name, *pipe;
		struct pd_instr *in;
		uint64_t pc, calls, cycles;
		int fresh;
		if (v.nf < 5)
			cli_die(EXIT_UNUSABLE, "%s:%llu: %d fields, 5 at least expected", path,
			        (unsigned long long)rd_lineno(v.r), v.nf);
		name = csv_f(&v, 0, &nn);
		pipe = csv_f(&v, 2, &pn);
		pc = csv_u64(&v, 1);
		calls = csv_u64(&v, 3);
		cycles = csv_u64(&v, 4);
		in = pd_instr_get(c, pc, &fresh);
		if (!fresh) {
			cli_warn_at(path, rd_lineno(v.r), "pc 0x%llx a second time: its counts are added",
			            (unsigned long long)pc);
			p->problems++;
		} else {
			in->name = xstrndup(name, nn);
			in->pipe = xstrndup(pipe, pn);
			in->stack = xstrndup("", 0);
		}
		in->calls += calls;
		in->cycles += cycles;
		/* trace marks are rows too, but not instructions of a pipe */
		if (!(pn == 8 && !memcmp(pipe, "USERMARK", 8))) {
			struct pd_pipe *pp = pd_pipe_get(c, pipe, pn);
			pp->cycles += cycles;
			pp->count += calls;
		}
	}
	csv_close(&v);
}

/* <core>/<core>_code_exe.csv: code,call_count,cycles,running_time(us) */
static void load_code_csv(struct pd_core *c, const char *path)
{
	struct csv v;
	if (csv_open(&v, path) < 0)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	if (!csv_next(&v))
		cli_die(EXIT_UNUSABLE, "%s: empty (a code table has a header line)", path);
	if (v.nf < 3 || !csv_is(&v, 0, "code") || !csv_is(&v, 1, "call_count") || !csv_is(&v, 2, "cycles"))
		cli_die(EXIT_UNUSABLE, "%s:1: not a code table (code,call_count,cycles,...)", path);
	while (csv_next(&v)) {
		size_t n;
		const char *code;
		struct pd_line *l;
		if (v.nf < 3)
			cli_die(EXIT_UNUSABLE, "%s:%llu: %d fields, 3 at least expected", path,
			        (unsigned long long)rd_lineno(v.r), v.nf);
		code = csv_f(&v, 0, &n);
		l = pd_line_get(c, code, n);
		l->calls += csv_u64(&v, 1);
		l->cycles += csv_u64(&v, 2);
	}
	csv_close(&v);
}

/* ---- the per-core trace.json ---- */

/* The value after "key": at or after p (one event a line, keys in the
 * writer's order; a key's text cannot occur inside a string, whose quotes
 * are escaped). */
static const char *jfind(const char *p, const char *end, const char *key)
{
	size_t kn = strlen(key);
	const char *q = text_find(p, (size_t)(end - p), key, kn);
	return q ? q + kn : NULL;
}

/* A JSON number with up to 6 decimals, as an integer of 10^-6 units. */
static int fixed6(const char *p, const char *end, uint64_t *v)
{
	uint64_t x = 0;
	int d = -1, any = 0;
	for (; p < end; p++) {
		if (*p >= '0' && *p <= '9') {
			if (d >= 6)
				return -1;
			x = x * 10 + (uint64_t)(*p - '0');
			any = 1;
			if (d >= 0)
				d++;
		} else if (*p == '.' && d < 0) {
			d = 0;
		} else
			break;
	}
	if (!any)
		return -1;
	if (d < 0)
		d = 0;
	for (; d < 6; d++)
		x *= 10;
	*v = x;
	return 0;
}

/* A JSON string's text (after its opening quote) into b; -1 when bad. */
static int jtext(const char *p, const char *end, struct sbuf *b)
{
	size_t used, n;
	b->n = 0;
	n = jstr_unescape(p, (size_t)(end - p), sb_room(b, (size_t)(end - p)), 0, &used);
	if (n == (size_t)-1 || p + used >= end || p[used] != '"')
		return -1;
	b->n = n;
	b->p[n] = 0;
	return 0;
}

/* The pipe a per-core trace lane counts on: a scalar instruction that
 * writes a register is drawn on SCALARLDST but is a SCALAR instruction
 * (its pipe in the CSV and the summary). */
static void lane_pipe(const char **s, size_t *n)
{
	if (*n == 10 && !memcmp(*s, "SCALARLDST", 10)) {
		*s = "SCALAR";
		*n = 6;
	}
}

static void load_trace(struct prof *p, struct pd_core *c, const char *path)
{
	struct rd *r = rd_open(path);
	const char *s;
	size_t n;
	struct sbuf code = { 0 };
	if (!r)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	while ((s = rd_line(r, &n))) {
		const char *end = s + n, *q, *cat, *ce;
		if (cli_interrupted)
			cli_die(EXIT_INTR, "interrupted: nothing written");
		uint64_t ts, dur, pc = 0;
		size_t catn;
		int has_pc = 0;
		if (!TEXT_FIND(s, n, "\"ph\":\"X\""))
			continue;
		if (TEXT_FIND(s, n, "{\"name\":\"cache_time\"") || TEXT_FIND(s, n, "{\"name\":\"ccu_time\""))
			continue;
		cat = jfind(s, end, "\"cat\":\"");
		ce = cat ? memchr(cat, '"', (size_t)(end - cat)) : NULL;
		q = jfind(s, end, "\"ts\":");
		if (!cat || !ce || !q || fixed6(q, end, &ts) < 0 || !(q = jfind(q, end, "\"dur\":")) ||
		    fixed6(q, end, &dur) < 0) {
			cli_warn_at(path, rd_lineno(r), "a slice without cat, ts or dur: left out");
			p->problems++;
			continue;
		}
		catn = (size_t)(ce - cat);
		if ((catn == 9 && !memcmp(cat, "CACHEMISS", 9)) || (catn == 8 && !memcmp(cat, "USERMARK", 8)))
			continue;
		lane_pipe(&cat, &catn);
		c->timed = 1;
		if (ts < c->start)
			c->start = ts;
		if (ts + dur > c->end)
			c->end = ts + dur;
		ival_add(&c->run, ts, ts + dur);
		ival_add(&pd_pipe_get(c, cat, catn)->busy, ts, ts + dur);
		if ((q = jfind(q, end, "\"pc_addr\":\"0x"))) {
			has_pc = 1;
			for (; q < end && hexval(*q) >= 0; q++)
				pc = pc << 4 | (uint64_t)hexval(*q);
		}
		if (has_pc && (q = jfind(q, end, "\"code\":\""))) {
			uint32_t ix = keytab_index(&c->pc_ix, pc);
			if (ix != UINT32_MAX && !c->instr[ix].stack[0]) {
				if (jtext(q, end, &code) < 0) {
					cli_warn_at(path, rd_lineno(r), "a bad code text: left out");
					p->problems++;
				} else if (code.n) {
					free(c->instr[ix].stack);
					c->instr[ix].stack = xstrndup(code.p, code.n);
					p->code_view = 1;
				}
			}
		}
	}
	if (rd_error(r))
		cli_die(EXIT_IO, "%s: %s", path, rd_strerror(r));
	rd_close(r);
	sb_free(&code);
}

/* A core's trace: trace.json, or the parts trace.1.json, trace.2.json...
 * of a split one. */
static void load_core_trace(struct prof *p, struct pd_core *c, const char *dir)
{
	char name[64];
	unsigned k;
	if (has_file(dir, "trace.json")) {
		char *t = xpath(dir, "trace.json");
		load_trace(p, c, t);
		free(t);
		return;
	}
	for (k = 1;; k++) {
		char *t;
		snprintf(name, sizeof name, "trace.%u.json", k);
		if (!has_file(dir, name))
			break;
		t = xpath(dir, name);
		load_trace(p, c, t);
		free(t);
	}
	if (k == 1) {
		cli_warn("%s: no trace.json: the core's times are unknown", dir);
		p->problems++;
	}
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct pd_core *)a)->name, ((const struct pd_core *)b)->name);
}

/* The SoC and clock a manifest.json names, when there is one. */
static void read_manifest(struct prof *p, const char *dir)
{
	char *path = xpath(dir, "manifest.json");
	struct rd *r = rd_open(path);
	const char *s, *q;
	size_t n;
	struct sbuf b = { 0 };
	free(path);
	if (!r)
		return;
	while ((s = rd_line(r, &n))) {
		const char *end = s + n;
		if (!p->soc[0] && ((q = jfind(s, end, "\"soc\": \"")) || (q = jfind(s, end, "\"soc_version\": \""))) &&
		    jtext(q, end, &b) == 0) {
			free(p->soc);
			p->soc = xstrndup(b.p, b.n);
		}
		if (!p->mhz && (q = jfind(s, end, "\"mhz\": "))) {
			uint64_t v = 0;
			for (; q < end && *q >= '0' && *q <= '9'; q++)
				v = v * 10 + (uint64_t)(*q - '0');
			if (v && v < 100000)
				p->mhz = (unsigned)v;
		}
	}
	rd_close(r);
	sb_free(&b);
}

static void load_sim(struct prof *p, const char *sim)
{
	DIR *d = opendir(sim);
	struct dirent *e;
	size_t i;
	if (!d)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", sim);
	while ((e = readdir(d))) {
		char *dir, *csv, fname[600];
		struct pd_core *c;
		if (e->d_name[0] == '.' || strlen(e->d_name) > 256)
			continue;
		dir = xpath(sim, e->d_name);
		snprintf(fname, sizeof fname, "%s_instr_exe.csv", e->d_name);
		if (!io_is_dir(dir) || !has_file(dir, fname)) {
			free(dir);
			continue;
		}
		c = pd_core_get(p, e->d_name, strlen(e->d_name));
		csv = xpath(dir, fname);
		load_instr_csv(p, c, csv);
		free(csv);
		snprintf(fname, sizeof fname, "%s_code_exe.csv", e->d_name);
		if (has_file(dir, fname)) {
			csv = xpath(dir, fname);
			load_code_csv(c, csv);
			free(csv);
		}
		load_core_trace(p, c, dir);
		free(dir);
	}
	closedir(d);
	if (!p->ncore)
		cli_die(EXIT_UNUSABLE, "%s: no core directory with an instruction table (<core>/<core>_instr_exe.csv)",
		        sim);
	/* pc_ix and line_ix index into each core's arrays, which qsort of the
	 * cores moves but does not reorder */
	qsort(p->core, p->ncore, sizeof *p->core, by_name);
	for (i = 0; i < p->ncore; i++)
		if (!p->core[i].timed)
			p->core[i].start = 0;
}

/* ---- the on-board launch ---- */

static void load_group(struct prof *p, const char *dir, const char *file)
{
	char *path = xpath(dir, file);
	struct csv v;
	struct pd_group *g;
	int j;
	if (csv_open(&v, path) < 0)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	p->group = xreallocarray(p->group, p->ngroup + 1, sizeof *p->group);
	g = &p->group[p->ngroup++];
	memset(g, 0, sizeof *g);
	g->name = xstrndup(file, strlen(file) - 4);
	if (!csv_next(&v))
		cli_die(EXIT_UNUSABLE, "%s: empty (a metric table has a header line)", path);
	/* the writers end every line with a comma */
	if (v.nf > 1 && !v.len[v.nf - 1])
		v.nf--;
	g->ncol = (size_t)v.nf;
	g->col = xcalloc(g->ncol, sizeof *g->col);
	for (j = 0; j < v.nf; j++) {
		size_t n;
		const char *f = csv_f(&v, j, &n);
		g->col[j] = xstrndup(f, n);
	}
	/* Rows keyed by block and sub-core, or (roofline.csv) by title and
	 * memory unit. */
	g->key_cols = g->ncol >= 2 && ((!strcmp(g->col[0], "block_id") && !strcmp(g->col[1], "sub_block_id")) ||
	                               (!strcmp(g->col[0], "title") && !strcmp(g->col[1], "unit"))) ? 2 : 0;
	while (csv_next(&v)) {
		char **row;
		if (v.nf > 1 && !v.len[v.nf - 1] && (size_t)v.nf == g->ncol + 1)
			v.nf--;
		if ((size_t)v.nf != g->ncol)
			cli_die(EXIT_UNUSABLE, "%s:%llu: %d fields where the header has %zu", path,
			        (unsigned long long)rd_lineno(v.r), v.nf, g->ncol);
		row = xcalloc(g->ncol, sizeof *row);
		for (j = 0; j < v.nf; j++) {
			size_t n;
			const char *f = csv_f(&v, j, &n);
			row[j] = xstrndup(f, n);
		}
		g->row = xreallocarray(g->row, g->nrow + 1, sizeof *g->row);
		g->row[g->nrow++] = row;
	}
	csv_close(&v);
	free(path);
}

static int by_group(const void *a, const void *b)
{
	return strcmp(((const struct pd_group *)a)->name, ((const struct pd_group *)b)->name);
}

static void load_board(struct prof *p, const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	const struct pd_group *basic;
	if (!d)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", dir);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.' || n < 5 || strcmp(e->d_name + n - 4, ".csv") || !has_file(dir, e->d_name))
			continue;
		load_group(p, dir, e->d_name);
	}
	closedir(d);
	if (p->ngroup)
		qsort(p->group, p->ngroup, sizeof *p->group, by_group);
	basic = pd_group_find(p, "OpBasicInfo");
	if (!basic || basic->nrow != 1)
		cli_die(EXIT_UNUSABLE, "%s/OpBasicInfo.csv: not one row of basic info", dir);
}

/* ---- which tree ---- */

/* What dir is: 2 an on-board launch, 1 a tree (or launch) holding
 * simulator/, 3 a simulator directory itself, 0 none of these. */
static int what(const char *dir)
{
	DIR *d;
	struct dirent *e;
	int r = 0;
	if (has_file(dir, "OpBasicInfo.csv"))
		return 2;
	if (has_dir(dir, "simulator"))
		return 1;
	if (!(d = opendir(dir)))
		return 0;
	while (!r && (e = readdir(d))) {
		char *sub, name[600];
		if (e->d_name[0] == '.' || strlen(e->d_name) > 256)
			continue;
		sub = xpath(dir, e->d_name);
		snprintf(name, sizeof name, "%s_instr_exe.csv", e->d_name);
		if (io_is_dir(sub) && has_file(sub, name))
			r = 3;
		free(sub);
	}
	closedir(d);
	return r;
}

/* The launches under dir, depth first, at most depth levels down (dump/
 * and records/ are never one). */
struct found {
	char **v;
	size_t n;
};

static void find_launches(const char *dir, int depth, struct found *found)
{
	DIR *d;
	struct dirent *e;
	if (what(dir)) {
		found->v = xreallocarray(found->v, found->n + 1, sizeof *found->v);
		found->v[found->n++] = xstrdup(dir);
		return;
	}
	if (!depth || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char *sub;
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "dump") || !strcmp(e->d_name, "records"))
			continue;
		sub = xpath(dir, e->d_name);
		if (io_is_dir(sub))
			find_launches(sub, depth - 1, found);
		free(sub);
	}
	closedir(d);
}

void pd_load(struct prof *p, const char *arg)
{
	struct stat st;
	struct found found = { 0 };
	int w;
	char *dir;
	memset(p, 0, sizeof *p);
	p->arg = arg;
	p->soc = xstrdup("");
	if (stat(arg, &st) < 0)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", arg);
	if (!S_ISDIR(st.st_mode)) {
		p->where = xstrdup(arg);
		p->kind = PD_SIM;
		if (!pd_load_stream(p, arg))
			cli_die(EXIT_UNUSABLE, "%s: neither an OPPROF tree nor a record stream", arg);
		return;
	}
	find_launches(arg, 4, &found);
	if (!found.n)
		cli_die(EXIT_UNUSABLE, "%s: not an OPPROF tree: no simulator/ directory or OpBasicInfo.csv under it", arg);
	if (found.n > 1)
		cli_die(EXIT_UNUSABLE, "%s: holds %zu launches (%s, %s%s): name one of them", arg, found.n,
		        found.v[0], found.v[1], found.n > 2 ? ", ..." : "");
	dir = found.v[0];
	found.v[0] = NULL;
	free_vec(found.v, found.n);
	w = what(dir);
	p->where = dir;
	read_manifest(p, arg);
	if (strcmp(arg, dir))
		read_manifest(p, dir);
	if (w == 2) {
		p->kind = PD_BOARD;
		load_board(p, dir);
	} else if (w == 1) {
		char *sim = xpath(dir, "simulator");
		p->kind = PD_SIM;
		load_sim(p, sim);
		free(sim);
	} else {
		p->kind = PD_SIM;
		load_sim(p, dir);
	}
}

void pd_free(struct prof *p)
{
	size_t i, j, k;
	for (i = 0; i < p->ncore; i++) {
		struct pd_core *c = &p->core[i];
		for (j = 0; j < c->npipe; j++) {
			free(c->pipe[j].name);
			ival_free(&c->pipe[j].busy);
		}
		for (j = 0; j < c->ninstr; j++) {
			free(c->instr[j].name);
			free(c->instr[j].pipe);
			free(c->instr[j].stack);
		}
		for (j = 0; j < c->nline; j++)
			free(c->line[j].code);
		free(c->pipe);
		free(c->instr);
		free(c->line);
		keytab_free(&c->pc_ix);
		keytab_free(&c->line_ix);
		ival_free(&c->run);
		free(c->name);
	}
	for (i = 0; i < p->ngroup; i++) {
		struct pd_group *g = &p->group[i];
		for (j = 0; j < g->nrow; j++) {
			for (k = 0; k < g->ncol; k++)
				free(g->row[j][k]);
			free(g->row[j]);
		}
		for (k = 0; k < g->ncol; k++)
			free(g->col[k]);
		free(g->row);
		free(g->col);
		free(g->name);
	}
	free(p->core);
	free(p->group);
	free(p->where);
	free(p->soc);
}
