/* The source of each pc, from the code records src-map puts in the stream
 * (see src-map(1), DESCRIPTION), and what is made of it (optrace-vdata(5),
 * FILE_API, CODE and CSV FILES; timeline-emit(1), The code view): the code
 * argument of every slice,
 * <core>_code_exe.csv, the CODE and FILE_API blocks of visualize_data.bin,
 * and the --report hotspot tables.
 *
 * A code record arrives before the first record that uses its pc, so a
 * slice finds its pc's source when it is drawn.  Memory is per distinct pc
 * and per distinct source line (and per core, per line), never per record. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "emit.h"
#include "io.h"
#include "keytab.h"
#include "rec.h"
#include "vdata.h"

#define SOURCE_MAX (10u << 20)      /* CODE blocks: files up to 10 MiB, as the reference */

static struct srcfile *srcfiles;
static uint32_t nsrcfiles;

static uint32_t codes_cap;
static struct keytab code_ix;   /* pc -> index in emit.codes (arrival order) */
static uint32_t lines_cap, *line_slot, line_mask;
static uint32_t files_cap;

static char *dup_n(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);
	memcpy(d, s, n);
	d[n] = 0;
	return d;
}

static uint32_t file_intern(const char *s, size_t n)
{
	uint32_t i;
	/* Few files (the kernel's sources and headers): a walk will do. */
	for (i = 0; i < nsrcfiles; i++)
		if (srcfiles[i].path_n == n && !memcmp(srcfiles[i].path, s, n))
			return i;
	if (nsrcfiles == files_cap) {
		files_cap = files_cap ? 2 * files_cap : 16;
		srcfiles = xrealloc(srcfiles, files_cap * sizeof *srcfiles);
	}
	memset(&srcfiles[nsrcfiles], 0, sizeof srcfiles[nsrcfiles]);
	srcfiles[nsrcfiles].path = dup_n(s, n);
	srcfiles[nsrcfiles].path_n = n;
	return nsrcfiles++;
}

/* "file:line" -> its id; the file is what comes before the last ':'. */
static uint32_t line_intern(const char *s, size_t n, int user)
{
	uint32_t h = hash_fnv(s, n, HASH_FNV_INIT), k;
	if (!line_slot || 2 * (emit.nsrclines + 1) > line_mask + 1) {
		uint32_t cap = line_slot ? 2 * (line_mask + 1) : 256, i;
		uint32_t *ns = xcalloc(cap, sizeof *ns);
		for (i = 0; i < emit.nsrclines; i++) {
			for (k = emit.srclines[i].hash & (cap - 1); ns[k]; k = (k + 1) & (cap - 1))
				;
			ns[k] = i + 1;
		}
		free(line_slot);
		line_slot = ns;
		line_mask = cap - 1;
	}
	for (k = h & line_mask; line_slot[k]; k = (k + 1) & line_mask) {
		struct srcline *l = &emit.srclines[line_slot[k] - 1];
		if (l->hash == h && l->text_n == n && !memcmp(l->text, s, n)) {
			l->user |= (unsigned char)user;
			return line_slot[k] - 1;
		}
	}
	if (emit.nsrclines == lines_cap) {
		lines_cap = lines_cap ? 2 * lines_cap : 256;
		emit.srclines = xrealloc(emit.srclines, lines_cap * sizeof *emit.srclines);
	}
	{
		struct srcline *l = &emit.srclines[emit.nsrclines];
		const char *c = memrchr(s, ':', n);
		uint64_t v = 0;
		size_t i;
		memset(l, 0, sizeof *l);
		l->text = dup_n(s, n);
		l->text_n = n;
		l->hash = h;
		l->user = (unsigned char)user;
		if (c) {
			for (i = (size_t)(c - s) + 1; i < n && s[i] >= '0' && s[i] <= '9'; i++)
				v = v * 10 + (uint64_t)(s[i] - '0');
			l->line = v;
		}
		l->file = file_intern(s, c ? (size_t)(c - s) : n);
	}
	line_slot[k] = emit.nsrclines + 1;
	return emit.nsrclines++;
}

void code_take(const struct rec *r)
{
	uint64_t pc = r->n[C_PC].u;
	const char *s = r->s[CS_STACK].p, *kinds = r->s[CS_KINDS].p, *f = r->s[CS_FUNC].p;
	size_t n = r->s[CS_STACK].n, nk = r->s[CS_KINDS].n, nf = r->s[CS_FUNC].n, e;
	uint32_t *slot, lines[64];
	int fresh;
	struct codeent *c;
	unsigned nl = 0, inner = 0, found_user = 0;

	if (!n)
		return;
	if (!code_ix.vsize)
		code_ix = keytab_make(sizeof(uint32_t), 0);
	slot = keytab_get(&code_ix, pc, &fresh);
	if (!fresh) {
		c = &emit.codes[*slot];          /* a second record of a pc: the last wins */
		free(c->json);
		free(c->lines);
		free(c->func);
	} else {
		if (emit.ncodes == codes_cap) {
			codes_cap = codes_cap ? 2 * codes_cap : 1024;
			emit.codes = xrealloc(emit.codes, codes_cap * sizeof *emit.codes);
		}
		*slot = emit.ncodes;
		c = &emit.codes[emit.ncodes++];
	}
	memset(c, 0, sizeof *c);
	c->pc = pc;
	c->json = xmalloc(JW_STR_MAX(n));
	c->json_n = (uint32_t)(jw_str(c->json, s, n) - c->json);
	if (c->json_n > emit.code_json_max)
		emit.code_json_max = c->json_n;
	/* Entries, one per LF-separated piece, 'u' user or 'l' library. */
	for (e = 0; e <= n && nl < sizeof lines / sizeof lines[0];) {
		const char *nlp = memchr(s + e, '\n', n - e);
		size_t m = nlp ? (size_t)(nlp - (s + e)) : n - e;
		int user = nl < nk ? kinds[nl] == 'u' : 1;
		lines[nl] = line_intern(s + e, m, user);
		if (user && !found_user) {
			inner = nl;
			found_user = 1;
		}
		c->user_mask |= user && nl < 64 ? 1ull << nl : 0;
		nl++;
		if (!nlp)
			break;
		e += m + 1;
	}
	c->lines = xmalloc(nl * sizeof *c->lines);
	memcpy(c->lines, lines, nl * sizeof *lines);
	c->nlines = nl;
	/* "AscendC Inner Code": the first user entry, else the first. */
	c->inner = lines[inner];
	{
		/* The inner entry's function, for the report. */
		unsigned k = 0;
		size_t a = 0;
		while (k < inner && a < nf) {
			const char *q = memchr(f + a, '\n', nf - a);
			if (!q) {
				a = nf;
				break;
			}
			a = (size_t)(q - f) + 1;
			k++;
		}
		{
			const char *q = a < nf ? memchr(f + a, '\n', nf - a) : NULL;
			size_t m = a < nf ? (q ? (size_t)(q - (f + a)) : nf - a) : 0;
			c->func = dup_n(f + a, m);
		}
	}
}

const struct codeent *code_of(uint64_t pc)
{
	static uint32_t last;       /* index + 1: codes moves as it grows */
	uint32_t k;
	if (last && last <= emit.ncodes && emit.codes[last - 1].pc == pc)
		return &emit.codes[last - 1];
	k = keytab_index(&code_ix, pc);
	if (k == UINT32_MAX)
		return NULL;
	last = k + 1;
	return &emit.codes[k];
}

/* ---- per core, per line: <core>_code_exe.csv ---- */

void code_stats(struct core *c, uint64_t pc, uint32_t *code_ix, int fresh, uint64_t start, uint64_t end,
                int count)
{
	const struct codeent *e;
	unsigned i;
	if (fresh) {
		e = code_of(pc);
		*code_ix = e ? (uint32_t)(e - emit.codes) + 1 : 0;
	}
	if (!*code_ix || !count)
		return;
	e = &emit.codes[*code_ix - 1];
	if (c->nline_alloc < emit.nsrclines) {
		uint32_t cap = c->nline_alloc ? c->nline_alloc : 64;
		while (cap < emit.nsrclines)
			cap *= 2;
		c->lines = xrealloc(c->lines, cap * sizeof *c->lines);
		memset(c->lines + c->nline_alloc, 0, (cap - c->nline_alloc) * sizeof *c->lines);
		c->nline_alloc = cap;
	}
	/* Every user entry of the stack counts the instruction, as the
	 * reference's per-line table does (an inlined call counts on its
	 * line and on the line it was inlined into). */
	for (i = 0; i < e->nlines; i++) {
		struct linestat *l;
		if (!(i < 64 && (e->user_mask >> i & 1)))
			continue;
		l = &c->lines[e->lines[i]];
		l->count++;
		l->cycles += end > start ? end - start : 0;
		if (!l->run.max)
			ival_init(&l->run, 16);
		ival_add(&l->run, start, end);
	}
}

static const struct core *sort_core;

static int line_by_cycles(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct linestat *p = &sort_core->lines[x], *q = &sort_core->lines[y];
	if (p->cycles != q->cycles)
		return p->cycles > q->cycles ? -1 : 1;
	return strcmp(emit.srclines[x].text, emit.srclines[y].text);
}

static void put_field(struct wr *w, const char *s, size_t n)
{
	if (!memchr(s, ',', n) && !memchr(s, '"', n) && !memchr(s, '\n', n)) {
		wr_put(w, s, n);
		return;
	}
	/* The reference writes paths as they are. */
	csv_put_quoted(w, s, n);
}

void code_csv_rows(struct wr *w, struct core *c)
{
	uint32_t *rows, n = 0, i;
	if (!c->nline_alloc)
		return;
	rows = xmalloc(c->nline_alloc * sizeof *rows);
	for (i = 0; i < c->nline_alloc && i < emit.nsrclines; i++)
		if (c->lines[i].count)
			rows[n++] = i;
	sort_core = c;
	qsort(rows, n, sizeof *rows, line_by_cycles);
	for (i = 0; i < n; i++) {
		const struct linestat *l = &c->lines[rows[i]];
		char run[TICK_FMT_MAX];
		tick_fmt_centi(run, tick_centi_us(ival_total(&l->run), emit.mhz), 1);
		put_field(w, emit.srclines[rows[i]].text, emit.srclines[rows[i]].text_n);
		wr_printf(w, ",%llu,%llu,%s\n", (unsigned long long)l->count, (unsigned long long)l->cycles, run);
	}
	free(rows);
}

void code_free_core(struct core *c)
{
	uint32_t i;
	for (i = 0; i < c->nline_alloc; i++)
		ival_free(&c->lines[i].run);
	free(c->lines);
	c->lines = NULL;
	c->nline_alloc = 0;
}

void code_release(void)
{
	uint32_t i;
	for (i = 0; i < emit.ncodes; i++) {
		free(emit.codes[i].json);
		free(emit.codes[i].lines);
		free(emit.codes[i].func);
	}
	for (i = 0; i < emit.nsrclines; i++)
		free(emit.srclines[i].text);
	for (i = 0; i < nsrcfiles; i++)
		free(srcfiles[i].path);
	free(emit.codes);
	keytab_free(&code_ix);
	free(emit.srclines);
	free(line_slot);
	free(srcfiles);
	emit.codes = NULL;
	emit.srclines = NULL;
	srcfiles = NULL;
	line_slot = NULL;
	emit.ncodes = emit.nsrclines = nsrcfiles = 0;
	codes_cap = lines_cap = line_mask = files_cap = 0;
}

/* ---- visualize_data.bin: CODE blocks and FILE_API ---- */

/* One CODE block per user source file that can be read; 0 or an errno of
 * the container.  Files that cannot be read are named once. */
int code_blocks(struct vdata_w *w)
{
	uint32_t i, unread = 0;
	const char *first = NULL;
	char firstwhy[128] = "";
	for (i = 0; i < nsrcfiles; i++) {
		struct srcfile *f = &srcfiles[i];
		struct stat st;
		char *buf;
		int fd, err;
		ssize_t k;
		f->user = 0;
		{
			uint32_t j;
			for (j = 0; j < emit.nsrclines && !f->user; j++)
				f->user = emit.srclines[j].file == i && emit.srclines[j].user;
		}
		if (!f->user)
			continue;
		fd = open(f->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size > SOURCE_MAX ||
		    f->path_n >= VDATA_PATH_SIZE) {
			if (!unread++) {
				first = f->path;
				snprintf(firstwhy, sizeof firstwhy, "%s",
				         fd < 0 ? strerror(errno) : f->path_n >= VDATA_PATH_SIZE ? "path too long" :
				         !S_ISREG(st.st_mode) ? "not a regular file" : "larger than 10 MiB");
			}
			if (fd >= 0)
				close(fd);
			continue;
		}
		buf = xmalloc((size_t)st.st_size + 1);
		k = pread(fd, buf, (size_t)st.st_size, 0);
		close(fd);
		if (k != st.st_size) {
			if (!unread++) {
				first = f->path;
				snprintf(firstwhy, sizeof firstwhy, "cannot read it");
			}
			free(buf);
			continue;
		}
		f->readable = 1;
		err = k ? vdata_block(w, VDATA_CODE, VDATA_VERSION, f->path, buf, (size_t)k) : 0;
		free(buf);
		if (err)
			return err;
	}
	if (unread)
		cli_warn("%u source file%s not in the code view (%s: %s)", unread, unread > 1 ? "s" : "", first,
		         firstwhy);
	return 0;
}

/* A core's row of one line for FILE_API: sums over the line's pcs. */
struct fline {
	uint64_t cycles, count;
	int64_t bytes;
	int32_t gpr;
};

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

struct lineref {
	uint32_t line;
	uint32_t file;
	uint64_t no;
};

static int lineref_cmp(const void *a, const void *b)
{
	const struct lineref *x = a, *y = b;
	int k = strcmp(srcfiles[x->file].path, srcfiles[y->file].path);
	if (k)
		return k;
	if (x->no != y->no) {
		/* By the line number's text (10 before 9), the order of the
		 * reference's table, keyed on it as a string. */
		char p[24], q[24];
		snprintf(p, sizeof p, "%llu", (unsigned long long)x->no);
		snprintf(q, sizeof q, "%llu", (unsigned long long)y->no);
		k = strcmp(p, q);
		if (k)
			return k;
		return x->no < y->no ? -1 : 1;
	}
	return x->line < y->line ? -1 : x->line > y->line;
}

static void put_addr(struct json *j, uint64_t pc)
{
	char b[24];
	snprintf(b, sizeof b, "0x%08llx", (unsigned long long)pc);
	json_string(j, b, strlen(b));
}

/* The FILE_API JSON into w; 0 when no pc of the selected cores maps to a
 * user line (nothing written). */
int code_file_api(struct wr *w, struct core **cores, size_t n)
{
	struct fline *fl;
	uint64_t **pcv;
	uint32_t *npc, *cappc, *dix, i, nref = 0, nd = 0;
	struct lineref *ref;
	struct json j;
	size_t k;
	int any = 0;

	if (!emit.nsrclines)
		return 0;
	/* The user lines some instruction ran, numbered densely: the tables
	 * below are per such line and core. */
	dix = xcalloc(emit.nsrclines, sizeof *dix);
	for (k = 0; k < n; k++)
		for (i = 0; i < cores[k]->pcs.n; i++) {
			const struct pcstat *p = &cores[k]->pcs.v[i];
			unsigned m;
			if (!p->code || !p->count)
				continue;
			for (m = 0; m < emit.codes[p->code - 1].nlines && m < 64; m++)
				if ((emit.codes[p->code - 1].user_mask >> m & 1) && !dix[emit.codes[p->code - 1].lines[m]])
					dix[emit.codes[p->code - 1].lines[m]] = ++nd;
		}
	fl = xcalloc((size_t)nd * n, sizeof *fl);
	pcv = xcalloc(nd, sizeof *pcv);
	npc = xcalloc(nd, sizeof *npc);
	cappc = xcalloc(nd, sizeof *cappc);
	for (k = 0; k < n; k++) {
		const struct core *c = cores[k];
		for (i = 0; i < c->pcs.n; i++) {
			const struct pcstat *p = &c->pcs.v[i];
			const struct codeent *e;
			unsigned m;
			if (!p->code || !p->count)
				continue;
			e = &emit.codes[p->code - 1];
			for (m = 0; m < e->nlines; m++) {
				uint32_t l;
				struct fline *f;
				if (!(m < 64 && (e->user_mask >> m & 1)))
					continue;
				l = dix[e->lines[m]] - 1;
				f = &fl[(size_t)l * n + k];
				if (!f->count) {
					f->bytes = -1;
					f->gpr = -1;
				}
				/* Marks count and take time on the line, as in the
				 * reference, but have no registers or bytes. */
				f->cycles += p->cycles;
				f->count += p->count;
				if (p->icount && p->gpr > f->gpr)
					f->gpr = p->gpr;
				/* Only real byte counts add up (the reference also sums
				 * the -1 of "not applicable"). */
				if (p->icount && p->bytes > 0)
					f->bytes = sat_add_i64(f->bytes > 0 ? f->bytes : 0, p->bytes);
				if (npc[l] == cappc[l]) {
					cappc[l] = cappc[l] ? 2 * cappc[l] : 4;
					pcv[l] = xrealloc(pcv[l], cappc[l] * sizeof **pcv);
				}
				pcv[l][npc[l]++] = p->pc;
				any = 1;
			}
		}
	}
	if (!any)
		goto out;
	ref = xmalloc(nd * sizeof *ref);
	for (i = 0; i < emit.nsrclines; i++)
		if (dix[i]) {
			ref[nref].line = i;
			ref[nref].file = emit.srclines[i].file;
			ref[nref].no = emit.srclines[i].line;
			nref++;
		}
	qsort(ref, nref, sizeof *ref, lineref_cmp);

	json_init(&j, w);
	json_begin_object(&j);
	json_key(&j, "Cores");
	json_begin_array(&j);
	for (k = 0; k < n; k++)
		json_string(&j, cores[k]->name, cores[k]->name_n);
	json_end_array(&j);
	json_key(&j, "Files");
	json_begin_array(&j);
	for (i = 0; i < nref;) {
		uint32_t file = ref[i].file;
		json_begin_object(&j);
		json_key(&j, "Lines");
		json_begin_array(&j);
		for (; i < nref && ref[i].file == file; i++) {
			uint32_t l = dix[ref[i].line] - 1, a;
			uint64_t *v = pcv[l];
			json_begin_object(&j);
			/* Address ranges: the line's pcs, sorted, runs of pcs at
			 * most 4 apart merged. */
			qsort(v, npc[l], sizeof *v, u64_cmp);
			json_key(&j, "Address Range");
			json_begin_array(&j);
			for (a = 0; a < npc[l];) {
				uint32_t b = a;
				while (b + 1 < npc[l] && v[b + 1] - v[b] <= 4)
					b++;
				json_begin_array(&j);
				put_addr(&j, v[a]);
				put_addr(&j, v[b]);
				json_end_array(&j);
				a = b + 1;
			}
			json_end_array(&j);
			json_key(&j, "Cycles");
			json_begin_array(&j);
			for (k = 0; k < n; k++)
				json_uint(&j, fl[(size_t)l * n + k].cycles);
			json_end_array(&j);
			json_key(&j, "GPR Count");
			json_begin_array(&j);
			for (k = 0; k < n; k++)
				json_int(&j, fl[(size_t)l * n + k].gpr);
			json_end_array(&j);
			json_key(&j, "Instructions Executed");
			json_begin_array(&j);
			for (k = 0; k < n; k++)
				json_uint(&j, fl[(size_t)l * n + k].count);
			json_end_array(&j);
			json_kv_uint(&j, "Line", emit.srclines[ref[i].line].line);
			json_key(&j, "Process Bytes");
			json_begin_array(&j);
			for (k = 0; k < n; k++) {
				const struct fline *f = &fl[(size_t)l * n + k];
				json_int(&j, f->count ? f->bytes : -1);
			}
			json_end_array(&j);
			json_end_object(&j);
		}
		json_end_array(&j);
		json_kv_str(&j, "Source", srcfiles[file].path, srcfiles[file].path_n);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "Files Dtype");
	json_begin_object(&j);
	json_key(&j, "Lines");
	json_begin_object(&j);
	json_kv_uint(&j, "Address Range", 0);
	json_kv_uint(&j, "Cycles", 1);
	json_kv_uint(&j, "GPR Count", 1);
	json_kv_uint(&j, "Instructions Executed", 1);
	json_kv_uint(&j, "Line", 1);
	json_kv_uint(&j, "Process Bytes", 1);
	json_close_all(&j);
	free(ref);
out:
	for (i = 0; i < nd; i++)
		free(pcv[i]);
	free(dix);
	free(pcv);
	free(npc);
	free(cappc);
	free(fl);
	return any;
}

/* ---- --report: the hotspots of each core on the terminal ---- */

struct hot {
	uint64_t cycles, count;
	uint32_t key;           /* line id, or pcstat index */
};

static int hot_cmp(const void *a, const void *b)
{
	const struct hot *x = a, *y = b;
	if (x->cycles != y->cycles)
		return x->cycles > y->cycles ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void pct(char *b, size_t n, uint64_t part, uint64_t whole)
{
	snprintf(b, n, "%.1f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

static int core_by_name(const void *a, const void *b)
{
	return strcmp((*(const struct core *const *)a)->name, (*(const struct core *const *)b)->name);
}

void code_report(struct core **sel, size_t ncores, unsigned top, FILE *out)
{
	struct core **v = xmalloc((ncores + 1) * sizeof *v);
	size_t k;

	memcpy(v, sel, ncores * sizeof *v);
	qsort(v, ncores, sizeof *v, core_by_name);
	if (!emit.ncodes)
		fprintf(out, "\nNo source lines: the stream has no code records (run src-map --binary "
		             "aicore_binary.o before timeline-emit); instructions only.\n");
	for (k = 0; k < ncores; k++) {
		const struct core *c = v[k];
		struct hot *lines = xcalloc(emit.nsrclines + 1, sizeof *lines), *ins;
		uint64_t total = 0, nosrc = 0, nosrc_n = 0;
		uint32_t i, nl = 0, ni = 0;
		char share[16];

		ins = xmalloc((c->pcs.n + 1) * sizeof *ins);
		for (i = 0; i < c->pcs.n; i++) {
			const struct pcstat *p = &c->pcs.v[i];
			if (!p->icount)
				continue;       /* a mark's pc only */
			total += p->icycles;
			ins[ni].cycles = p->icycles;
			ins[ni].count = p->icount;
			ins[ni].key = i;
			ni++;
			if (p->code) {
				/* Each pc counts once, on its inner line, so the lines
				 * add up to the core's cycles. */
				uint32_t l = emit.codes[p->code - 1].inner;
				lines[l].cycles += p->icycles;
				lines[l].count += p->icount;
				lines[l].key = l;
			} else {
				nosrc += p->icycles;
				nosrc_n += p->icount;
			}
		}
		fprintf(out, "\n%s: %llu instruction cycles (the shares below are of these)\n", c->name,
		        (unsigned long long)total);
		if (emit.ncodes) {
			for (i = 0; i < emit.nsrclines; i++)
				if (lines[i].count)
					lines[nl++] = lines[i];
			qsort(lines, nl, sizeof *lines, hot_cmp);
			fprintf(out, "  top source lines\n  %12s %7s %10s  %s\n", "cycles", "share", "executed", "line");
			for (i = 0; i < nl && i < top; i++) {
				const struct srcline *l = &emit.srclines[lines[i].key];
				pct(share, sizeof share, lines[i].cycles, total);
				fprintf(out, "  %12llu %7s %10llu  %.*s\n", (unsigned long long)lines[i].cycles, share,
				        (unsigned long long)lines[i].count, (int)l->text_n, l->text);
			}
			if (nosrc_n) {
				pct(share, sizeof share, nosrc, total);
				fprintf(out, "  %12llu %7s %10llu  (no source line)\n", (unsigned long long)nosrc, share,
				        (unsigned long long)nosrc_n);
			}
		}
		qsort(ins, ni, sizeof *ins, hot_cmp);
		fprintf(out, "  top instructions\n  %12s %7s %10s  %-12s %-10s %-16s %s\n", "cycles", "share", "executed",
		        "pc", "pipe", "instruction", "line");
		for (i = 0; i < ni && i < top; i++) {
			const struct pcstat *p = &c->pcs.v[ins[i].key];
			char pcb[24];
			pcb[fmt_pc(pcb, p->pc)] = 0;
			pct(share, sizeof share, p->icycles, total);
			fprintf(out, "  %12llu %7s %10llu  %-12s %-10.*s %-16.*s %.*s\n", (unsigned long long)p->icycles, share,
			        (unsigned long long)p->icount, pcb, (int)emit.lanes[p->lane].len, emit.lanes[p->lane].name,
			        (int)p->name_n, p->name, p->code ? (int)emit.srclines[emit.codes[p->code - 1].inner].text_n : 0,
			        p->code ? emit.srclines[emit.codes[p->code - 1].inner].text : "");
		}
		free(lines);
		free(ins);
	}
	free(v);
}
