/* board-code: the on-board code view of a launch's dump (MemoryDetail and
 * Source; optrace-board(5), MEMORYCHART.BIN and BASIC-BLOCK COUNTS): per
 * instruction and per source line, how often it ran (the basic-block
 * counts), the GM bytes it moved (MemoryChart.bin) and, on 910B/A3, its
 * L2 hits and misses in the cache model of lib/dbi.h; the cache-line heat
 * map of the model's sets, the DMA totals PipeUtilization's active
 * bandwidths need; on A5 the PC sampling's stall states beside each
 * instruction and line.  See board-code(1). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "board.h"
#include "chip.h"
#include "cli.h"
#include "dbi.h"
#include "dumpdir.h"
#include "io.h"
#include "json.h"
#include "keytab.h"
#include "mem.h"
#include "order.h"
#include "pcsamp.h"
#include "plot.h"
#include "rec.h"
#include "stage.h"

static const char *out_dir = ".", *soc_option, *code_path;
static int want_memory = -1, want_source = -1, pcs_only;

/* One instruction (a pc offset from the kernel's start). */
struct instr {
	uint64_t off;
	uint64_t count;            /* executions; UINT64_MAX: no basic block holds it */
	uint64_t bytes;            /* GM bytes moved */
	uint64_t hit, miss;        /* L2 model */
	unsigned src, dst;         /* the memory kinds of its first transfer */
	int moved;                 /* has MemoryChart records */
	uint32_t code;             /* index + 1 into codes, 0 none */
	const uint64_t *samples;   /* PC sampling: its nine states, NULL none */
};
static struct instr *ins;
static size_t nins, cap_ins;
static struct keytab ix;       /* off -> index + 1 */

/* A pc's source (src-map's code record): its user entries, "file:line". */
struct code {
	char *inner;               /* "AscendC Inner Code" */
	char **lines;
	size_t nlines;
};
static struct code *codes;
static size_t ncodes;

static int memory, source, model;     /* what this run has */
static int sampling;                  /* PC sampling (A5): pcSampling.bin* */
static struct pcs samp;
static uint64_t samp_stall, samp_all; /* the kept samples' totals */
static uint64_t pc_start;
static int have_start;
static uint64_t nrec, nrec_other;
static struct dbi_l2 l2;
/* DMA totals per block: requests and bytes of each path */
struct dma_blk {
	uint64_t req[DBI_NDMA], bytes[DBI_NDMA];
};
static struct keytab dma;      /* block -> struct dma_blk */

static struct instr *instr_of(uint64_t off)
{
	int fresh;
	uint32_t *k = keytab_get(&ix, off, &fresh);
	if (fresh) {
		if (nins == cap_ins) {
			cap_ins = cap_ins ? 2 * cap_ins : 1024;
			ins = xreallocarray(ins, cap_ins, sizeof *ins);
		}
		memset(&ins[nins], 0, sizeof *ins);
		ins[nins].off = off;
		ins[nins].count = UINT64_MAX;
		*k = (uint32_t)++nins;
	}
	return &ins[*k - 1];
}

/* Whether a sampled pc is one of the code view's instructions. */
static int is_instr(void *ctx, uint64_t off)
{
	(void)ctx;
	return keytab_find(&ix, off) != NULL;
}

static int take_record(void *ctx, const struct dbi_mem *m)
{
	struct instr *in = instr_of(m->pc);
	unsigned p = dbi_dma_path_of(m);
	(void)ctx;
	nrec++;
	if (!in->moved)
		in->src = m->src, in->dst = m->dst;
	in->moved = 1;
	if (m->src == DBI_GM)
		in->bytes += m->src_size;
	else if (m->dst == DBI_GM)
		in->bytes += m->dst_size;
	else
		nrec_other++;
	if (p < DBI_NDMA) {
		struct dma_blk *b = keytab_get(&dma, m->block, NULL);
		b->req[p] += (m->src_size + dbi_dma_req_bytes(p) - 1) / dbi_dma_req_bytes(p);
		b->bytes[p] += m->src_size;
	}
	if (model)
		dbi_l2_record(&l2, m);
	return cli_interrupted;
}

static void read_memchart(const char *dir)
{
	size_t n;
	char err[300];
	unsigned char *data = board_read_all(dir, "MemoryChart.bin", &n);
	if (!data)
		cli_die(errno == ENOENT ? EXIT_UNUSABLE : EXIT_IO, "%s/MemoryChart.bin: cannot read%s", dir,
		        errno == ENOENT ? " (MemoryDetail needs it): nothing written" : ":");
	if (dbi_mem_each(data, n, take_record, NULL, err, sizeof err))
		cli_die(EXIT_UNUSABLE, "%s/MemoryChart.bin: %s: nothing written", dir, err);
	free(data);
}

/* The map and counts files of kernel N, instrumentation M: the first pair
 * in name order. */
static int find_bb_files(const char *dir, char *map, char *cnt, size_t size)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char best[256] = "";
	if (!d)
		cli_die(EXIT_IO, "%s: cannot list:", dir);
	while ((e = readdir(d))) {
		const char *s = e->d_name, *q;
		unsigned long a, b;
		char *end;
		if (strncmp(s, "kernel", 6) || !(q = strstr(s, "Stub.o.bbbmap.")))
			continue;
		a = strtoul(s + 6, &end, 10);
		if (end != q || end == s + 6)
			continue;
		b = strtoul(q + 14, &end, 10);
		if (*end || end == q + 14 || (best[0] && strcmp(s, best) >= 0))
			continue;
		snprintf(best, sizeof best, "%s", s);
		snprintf(map, size, "%s", s);
		snprintf(cnt, size, "kernel%lu.extra.%lu", a, b);
	}
	closedir(d);
	return best[0] != 0;
}

static void read_bb(const char *dir)
{
	char mapn[256], cntn[256], err[300];
	struct dbi_bbmap m;
	unsigned char *text, *cnt;
	size_t n, nc, i;
	if (!find_bb_files(dir, mapn, cntn, sizeof mapn))
		cli_die(EXIT_UNUSABLE, "%s: no kernel<N>Stub.o.bbbmap.<M> (Source needs the basic-block map): nothing "
		        "written", dir);
	if (!(text = board_read_all(dir, mapn, &n)))
		cli_die(EXIT_IO, "%s/%s: cannot read:", dir, mapn);
	if (dbi_bbmap_parse(&m, (const char *)text, n, err, sizeof err))
		cli_die(EXIT_UNUSABLE, "%s/%s: %s: nothing written", dir, mapn, err);
	free(text);
	if (!(cnt = board_read_all(dir, cntn, &nc)))
		cli_die(errno == ENOENT ? EXIT_UNUSABLE : EXIT_IO, "%s/%s: cannot read%s", dir, cntn,
		        errno == ENOENT ? " (the counts of the basic blocks): nothing written" : ":");
	if (dbi_bb_counts(&m, cnt, nc, err, sizeof err))
		cli_die(EXIT_UNUSABLE, "%s/%s: %s: nothing written", dir, cntn, err);
	free(cnt);
	/* Every instruction of a block ran as often as the block. */
	for (i = 0; i < m.n; i++) {
		uint64_t pc;
		for (pc = m.bb[i].begin;; pc += 4) {
			struct instr *in = instr_of(pc);
			in->count = (in->count == UINT64_MAX ? 0 : in->count) + m.bb[i].count;
			if (pc >= m.bb[i].end)
				break;
		}
	}
	dbi_bbmap_free(&m);
}

/* --code FILE: each pc's user entries (src-map(1) code records; pcs are
 * absolute). */
static void read_code(const char *path)
{
	struct rd *r = rd_open(path);
	struct rec_dec dec = { 0 };
	struct rec rec;
	const char *line, *why;
	size_t n;
	if (!r)
		cli_die(EXIT_IO, "%s: cannot open:", path);
	while ((line = rd_line(r, &n))) {
		const struct rec_text *st, *kd;
		const uint32_t *k;
		struct code c = { 0 };
		size_t at = 0, e = 0;
		if (rec_decode(&dec, line, n, &rec, &why) != DEC_OK || rec.sc->kind != K_CODE)
			continue;
		if (rec.n[C_PC].u < pc_start || !(k = keytab_find(&ix, rec.n[C_PC].u - pc_start)))
			continue;
		st = &rec.s[CS_STACK];
		kd = &rec.s[CS_KINDS];
		while (at <= st->n && st->n) {
			const char *nl = memchr(st->p + at, '\n', st->n - at);
			size_t m = nl ? (size_t)(nl - (st->p + at)) : st->n - at;
			int user = e < kd->n ? kd->p[e] == 'u' : 1;
			if (m && !(m >= 2 && !memcmp(st->p + at, "??", 2))) {
				if (!c.inner || (user && !c.nlines))
					free(c.inner), c.inner = xstrndup(st->p + at, m);
				if (user) {
					c.lines = xreallocarray(c.lines, c.nlines + 1, sizeof *c.lines);
					c.lines[c.nlines++] = xstrndup(st->p + at, m);
				}
			}
			e++;
			if (!nl)
				break;
			at += m + 1;
		}
		if (!c.inner)
			continue;
		if (ins[*k - 1].code) {            /* a second record of a pc: the last wins */
			struct code *o = &codes[ins[*k - 1].code - 1];
			free(o->inner);
			free_vec(o->lines, o->nlines);
			*o = c;
		} else {
			codes = xreallocarray(codes, ncodes + 1, sizeof *codes);
			codes[ncodes++] = c;
			ins[*k - 1].code = (uint32_t)ncodes;
		}
	}
	if (rd_error(r))
		cli_die(EXIT_IO, "%s: read error: %s", path, rd_strerror(r));
	rec_dec_free(&dec);
	rd_close(r);
}

/* --pcs: every instruction as an instruction record (absolute pc), for
 * src-map(1). */
static int write_pcs(const char *soc, const char *out)
{
	struct rec_out o = { 0 };
	struct rec rec;
	size_t i;
	int e;
	o.producer = "board-code";
	if (!(o.w = wr_open(out, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", out);
	o.mode = cli_out_mode(0, 0, 0, strcmp(out, "-") ? -1 : 1);
	rec_out_header(&o, soc, 0, "MemoryChart.bin, bbbmap");
	rec_init(&rec, K_INSTR);
	for (i = 0; i < nins; i++) {
		rec.n[I_PC].u = ins[i].off + pc_start;
		rec_out_put(&o, &rec);
	}
	rec_out_trailer(&o, 0, 0, 0);
	if ((e = wr_close(o.w)) && e != EPIPE) {
		errno = e;
		cli_die(EXIT_IO, "%s: cannot write:", out);
	}
	return EXIT_OK;
}

/* ---- outputs ---- */

static struct wr *out_open(const char *name)
{
	char *path = xpath(stage_dir(), name);
	struct wr *w = wr_open(path, 0);
	free(path);
	if (!w)
		cli_die(EXIT_IO, "%s/%s: cannot create:", stage_final(), name);
	return w;
}

static void out_close(struct wr *w, const char *name)
{
	int e = wr_close(w);
	if (e) {
		errno = e;
		cli_die(EXIT_IO, "%s/%s: cannot write:", stage_final(), name);
	}
}

/* The pipe a transfer instruction runs on, from its ends: "" for none
 * (no transfer) or a pair no pipe is known for. */
static const char *instr_pipe(const struct instr *in)
{
	if (!in->moved)
		return "";
	if (in->src == DBI_GM)
		return "MTE2";
	if (in->src == DBI_L0C)
		return "FIXP";
	if (in->dst == DBI_GM || (in->src == DBI_UB && in->dst == DBI_L1))
		return "MTE3";
	if (in->src == DBI_L1 && (in->dst == DBI_L0A || in->dst == DBI_L0B || in->dst == DBI_BT))
		return "MTE1";
	return "";
}

static void put_num(struct wr *w, int have, uint64_t v)
{
	if (have)
		wr_printf(w, ",%llu", (unsigned long long)v);
	else
		wr_puts(w, ",NA");
}

static void put_rate(struct wr *w, uint64_t hit, uint64_t miss)
{
	if (model && hit + miss)
		wr_printf(w, ",%.6f", 100.0 * (double)hit / (double)(hit + miss));
	else
		wr_puts(w, ",NA");
}

/* A text field of a CSV: quoted when it holds a comma or a quote. */
static void put_text(struct wr *w, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		wr_puts(w, s);
		return;
	}
	wr_putc(w, '"');
	for (; *s; s++) {
		if (*s == '"')
			wr_putc(w, '"');
		wr_putc(w, *s);
	}
	wr_putc(w, '"');
}

static int u64_less(const void *a, const void *b)
{
	return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

static int by_off(const void *a, const void *b)
{
	const struct instr *x = a, *y = b;
	return cmp_u64(x->off, y->off);
}

/* "0x" and at least 8 lowercase hex digits. */
static void put_addr(struct json *j, uint64_t pc)
{
	char b[24];
	snprintf(b, sizeof b, "0x%08llx", (unsigned long long)pc);
	json_string(j, b, strlen(b));
}

/* The ranges of sorted absolute pcs, neighbours at most 4 bytes apart
 * merged: [["0x..","0x.."],...]. */
static void put_ranges(struct json *j, const uint64_t *pc, size_t n)
{
	size_t i = 0;
	json_begin_array(j);
	while (i < n) {
		size_t k = i;
		while (k + 1 < n && pc[k + 1] - pc[k] <= 4)
			k++;
		json_begin_array(j);
		put_addr(j, pc[i]);
		put_addr(j, pc[k]);
		json_end_array(j);
		i = k + 1;
	}
	json_end_array(j);
}

/* The source lines: every user entry of an instruction's stack counts it. */
struct line {
	const char *name;          /* "file:line" */
	uint64_t count, bytes, hit, miss;
	uint64_t samples[PCS_STATES];   /* PC sampling, its instructions' */
	int counted, sampled;
	uint64_t *pcs;
	size_t npcs;
};
static struct line *lines;
static size_t nlines;

/* By file, then by line number ("file:line"; the last ':' splits). */
static int by_name(const void *a, const void *b)
{
	const char *x = ((const struct line *)a)->name, *y = ((const struct line *)b)->name;
	const char *cx = strrchr(x, ':'), *cy = strrchr(y, ':');
	size_t nx = cx ? (size_t)(cx - x) : strlen(x), ny = cy ? (size_t)(cy - y) : strlen(y);
	int c = memcmp(x, y, nx < ny ? nx : ny);
	if (c || nx != ny)
		return c ? c : nx < ny ? -1 : 1;
	c = cmp_u64(cx ? strtoull(cx + 1, NULL, 10) : 0, cy ? strtoull(cy + 1, NULL, 10) : 0);
	return c ? c : strcmp(x, y);
}

static void gather_lines(void)
{
	struct keytab names = keytab_make(sizeof(uint32_t), 0);
	size_t i, k;
	for (i = 0; i < nins; i++) {
		const struct code *c = ins[i].code ? &codes[ins[i].code - 1] : NULL;
		for (k = 0; c && k < c->nlines; k++) {
			size_t len = strlen(c->lines[k]);
			uint64_t h = hash_fnv(c->lines[k], len, 2166136261u) | (uint64_t)len << 32;
			uint32_t *slot;
			struct line *l = NULL;
			int fresh;
			/* names are few: a hash, then a compare along the chain of equal hashes */
			for (slot = keytab_get(&names, h, &fresh); !fresh; slot = keytab_get(&names, ++h, &fresh))
				if (!strcmp(lines[*slot - 1].name, c->lines[k])) {
					l = &lines[*slot - 1];
					break;
				}
			if (!l) {
				lines = xreallocarray(lines, nlines + 1, sizeof *lines);
				l = &lines[nlines];
				memset(l, 0, sizeof *l);
				l->name = c->lines[k];
				*slot = (uint32_t)++nlines;
			}
			if (ins[i].count != UINT64_MAX) {
				l->count += ins[i].count;
				l->counted = 1;
			}
			l->bytes += ins[i].bytes;
			if (ins[i].samples) {
				for (unsigned st = 0; st < PCS_STATES; st++)
					l->samples[st] += ins[i].samples[st];
				l->sampled = 1;
			}
			l->hit += ins[i].hit;
			l->miss += ins[i].miss;
			l->pcs = xreallocarray(l->pcs, l->npcs + 1, sizeof *l->pcs);
			l->pcs[l->npcs++] = ins[i].off + pc_start;
		}
	}
	keytab_free(&names);
	if (nlines)
		qsort(lines, nlines, sizeof *lines, by_name);
}

static void put_csvs(void)
{
	struct wr *w = out_open("instr_exe.csv");
	size_t i;
	wr_puts(w, "addr,code,pipe,call_count,process_bytes,l2cache_hit,l2cache_miss,l2cache_hit_rate(%)\n");
	for (i = 0; i < nins; i++) {
		const struct instr *in = &ins[i];
		wr_printf(w, "%llu,", (unsigned long long)(in->off + pc_start));
		put_text(w, in->code ? codes[in->code - 1].inner : "");
		wr_printf(w, ",%s", instr_pipe(in));
		put_num(w, source && in->count != UINT64_MAX, in->count);
		put_num(w, memory, in->bytes);
		put_num(w, model, in->hit);
		put_num(w, model, in->miss);
		put_rate(w, in->hit, in->miss);
		wr_putc(w, '\n');
	}
	out_close(w, "instr_exe.csv");
	if (!nlines)
		return;
	w = out_open("code_exe.csv");
	wr_puts(w, "code,call_count,process_bytes,l2cache_hit,l2cache_miss,l2cache_hit_rate(%)\n");
	for (i = 0; i < nlines; i++) {
		const struct line *l = &lines[i];
		put_text(w, l->name);
		put_num(w, source && l->counted, l->count);
		put_num(w, memory, l->bytes);
		put_num(w, model, l->hit);
		put_num(w, model, l->miss);
		put_rate(w, l->hit, l->miss);
		wr_putc(w, '\n');
	}
	out_close(w, "code_exe.csv");
}

static void put_hit_rate(struct json *j, uint64_t hit, uint64_t miss)
{
	json_key(j, "L2Cache Hit Rate");
	json_double(j, hit + miss ? 100.0 * (double)hit / (double)(hit + miss) : -1.0);
}

/* The PC sampling of an instruction or a line (n: its nine states, NULL
 * none sampled): "Stall Sampling(Not Issue)" (the eight stall states) and
 * "Stall Sampling(All Samples)" (all nine), each {"Percent": its share of
 * the kernel's kept samples as a fraction, "Details": {state: samples}},
 * the states in byte order as the reference's writer sorts keys. */
static void put_sampling(struct json *j, const uint64_t *n)
{
	static unsigned order[PCS_STATES];
	static int sorted;
	unsigned k, a, b;
	if (!sorted++) {
		for (k = 0; k < PCS_STATES; k++)
			order[k] = k;
		for (a = 1; a < PCS_STATES; a++)
			for (b = a; b > 0 && strcmp(pcs_state_name(order[b]), pcs_state_name(order[b - 1])) < 0; b--) {
				unsigned t = order[b];
				order[b] = order[b - 1];
				order[b - 1] = t;
			}
	}
	for (int all = 0; all < 2; all++) {
		uint64_t part = n ? (all ? pcs_all_sum(n) : pcs_stall_sum(n)) : 0, total = all ? samp_all : samp_stall;
		json_key(j, all ? "Stall Sampling(All Samples)" : "Stall Sampling(Not Issue)");
		json_begin_object(j);
		json_key(j, "Percent");
		json_double(j, total ? (double)(float)((double)part / (double)total) : 0.0);
		json_key(j, "Details");
		json_begin_object(j);
		for (k = 0; k < PCS_STATES; k++)
			if (all || order[k] != PCS_STALLS)
				json_kv_uint(j, pcs_state_name(order[k]), n ? n[order[k]] : 0);
		json_end_object(j);
		json_end_object(j);
	}
}

/* The sampling's entries of a Dtype table (100: the viewer's custom
 * percentage, shown on hover). */
static void put_sampling_dtype(struct json *j)
{
	json_kv_uint(j, "Stall Sampling(All Samples)", 100);
	json_kv_uint(j, "Stall Sampling(Not Issue)", 100);
}

/* FILE_API: the lines by file, in the reference's on-board shape. */
static void put_file_api(void)
{
	struct wr *w = out_open("file_api.json");
	struct json J;
	size_t i = 0;
	json_init(&J, w);
	json_begin_object(&J);
	json_key(&J, "Cores");
	json_begin_array(&J);
	json_cstring(&J, "ALL");
	json_end_array(&J);
	json_key(&J, "Files Dtype");
	json_begin_object(&J);
	json_key(&J, "Lines");
	json_begin_object(&J);
	json_kv_uint(&J, "Address Range", 0);
	json_kv_uint(&J, "Line", 1);
	if (sampling)
		put_sampling_dtype(&J);
	if (model)
		json_kv_uint(&J, "L2Cache Hit Rate", 4);
	if (memory)
		json_kv_uint(&J, "Process Bytes", 1);
	json_kv_uint(&J, "Instructions Executed", 1);
	json_end_object(&J);
	json_end_object(&J);
	json_key(&J, "Files");
	json_begin_array(&J);
	while (i < nlines) {
		const char *colon = strrchr(lines[i].name, ':');
		size_t flen = colon ? (size_t)(colon - lines[i].name) : strlen(lines[i].name), k = i;
		json_begin_object(&J);
		json_kv_str(&J, "Source", lines[i].name, flen);
		json_key(&J, "Lines");
		json_begin_array(&J);
		for (; k < nlines && !strncmp(lines[k].name, lines[i].name, flen) && lines[k].name[flen] == ':'; k++) {
			const struct line *l = &lines[k];
			qsort(l->pcs, l->npcs, sizeof *l->pcs, u64_less);
			json_begin_object(&J);
			json_kv_uint(&J, "Line", strtoull(l->name + flen + 1, NULL, 10));
			json_key(&J, "Address Range");
			put_ranges(&J, l->pcs, l->npcs);
			json_key(&J, "Instructions Executed");
			json_begin_array(&J);
			json_uint(&J, l->count);
			json_end_array(&J);
			if (memory) {
				json_key(&J, "Process Bytes");
				json_int(&J, l->bytes ? (int64_t)l->bytes : -1);
			}
			if (model)
				put_hit_rate(&J, l->hit, l->miss);
			if (sampling)
				put_sampling(&J, l->sampled ? l->samples : NULL);
			json_end_object(&J);
		}
		json_end_array(&J);
		json_end_object(&J);
		i = k > i ? k : i + 1;
	}
	json_close_all(&J);
	wr_putc(w, '\n');
	out_close(w, "file_api.json");
}

/* INSTR_API: an entry per instruction, by address. */
static void put_instr_api(void)
{
	struct wr *w = out_open("instr_api.json");
	struct json J;
	size_t i;
	json_init(&J, w);
	json_begin_object(&J);
	json_key(&J, "Cores");
	json_begin_array(&J);
	json_cstring(&J, "ALL");
	json_end_array(&J);
	json_key(&J, "Instructions Dtype");
	json_begin_object(&J);
	json_key(&J, "Instructions");
	json_begin_object(&J);
	json_kv_uint(&J, "Address", 3);
	json_kv_uint(&J, "AscendC Inner Code", 3);
	if (sampling)
		put_sampling_dtype(&J);
	if (model)
		json_kv_uint(&J, "L2Cache Hit Rate", 4);
	if (memory)
		json_kv_uint(&J, "Process Bytes", 1);
	json_kv_uint(&J, "Instructions Executed", 1);
	json_kv_uint(&J, "Pipe", 3);
	json_kv_uint(&J, "Source", 3);
	json_end_object(&J);
	json_end_object(&J);
	json_key(&J, "Instructions");
	json_begin_array(&J);
	for (i = 0; i < nins; i++) {
		const struct instr *in = &ins[i];
		const char *pipe = instr_pipe(in);
		json_begin_object(&J);
		json_key(&J, "Address");
		put_addr(&J, in->off + pc_start);
		json_kv_cstr(&J, "AscendC Inner Code", in->code ? codes[in->code - 1].inner : "");
		/* No disassembler here: a transfer is named by its ends. */
		if (in->moved) {
			char src[40];
			snprintf(src, sizeof src, "%s_TO_%s", dbi_mem_name(in->src), dbi_mem_name(in->dst));
			json_kv_cstr(&J, "Source", src);
		} else {
			json_kv_cstr(&J, "Source", "");
		}
		json_kv_cstr(&J, "Pipe", pipe);
		json_key(&J, "Instructions Executed");
		json_begin_array(&J);
		json_uint(&J, in->count == UINT64_MAX ? 0 : in->count);
		json_end_array(&J);
		if (memory) {
			json_key(&J, "Process Bytes");
			json_int(&J, in->bytes ? (int64_t)in->bytes : -1);
		}
		if (model)
			put_hit_rate(&J, in->hit, in->miss);
		if (sampling)
			put_sampling(&J, in->samples);
		json_end_object(&J);
	}
	json_close_all(&J);
	wr_putc(w, '\n');
	out_close(w, "instr_api.json");
}

/* (set, pc, hit, miss) of the model, by set then pc. */
struct setpc {
	uint64_t set, pc, hit, miss;
};
static int by_set_pc(const void *a, const void *b)
{
	const struct setpc *x = a, *y = b;
	int c = cmp_u64(x->set, y->set);
	return c ? c : cmp_u64(x->pc, y->pc);
}

/* The cache-line heat map (0xE): an entry per L2 set, its hits and
 * misses, their share, and the pcs that hit and missed. */
static void put_cacheline(void)
{
	struct wr *w = out_open("cacheline.json");
	struct json J;
	struct setpc *v = xcalloc(l2.setpc.n + 1, sizeof *v);
	uint64_t *hp = xcalloc(l2.setpc.n + 1, sizeof *hp), *mp = xcalloc(l2.setpc.n + 1, sizeof *mp);
	size_t n = 0, i, at = 0;
	unsigned s;
	for (i = 0; i < l2.setpc.cap; i++)
		if (l2.setpc.used[i]) {
			const struct dbi_l2_setpc *x = (const void *)(l2.setpc.vals + i * l2.setpc.vsize);
			v[n++] = (struct setpc){ l2.setpc.keys[2 * i], l2.setpc.keys[2 * i + 1], x->hit, x->miss };
		}
	if (n)
		qsort(v, n, sizeof *v, by_set_pc);
	json_init(&J, w);
	json_begin_object(&J);
	json_key(&J, "Cacheline Records");
	json_begin_array(&J);
	for (s = 0; s < l2.sets; s++) {
		uint64_t hit = l2.set_hit[s], miss = l2.set_miss[s], tot = hit + miss;
		size_t nh = 0, nm = 0;
		for (; at < n && v[at].set == s; at++) {
			if (v[at].hit)
				hp[nh++] = v[at].pc + pc_start;
			if (v[at].miss)
				mp[nm++] = v[at].pc + pc_start;
		}
		json_begin_object(&J);
		json_kv_uint(&J, "Cacheline Id", s);
		json_key(&J, "Hit");
		json_begin_object(&J);
		json_key(&J, "Value");
		json_begin_array(&J);
		json_uint(&J, hit);
		json_double(&J, tot ? (double)(float)((double)hit / (double)tot) : 0.0);
		json_end_array(&J);
		json_key(&J, "Address Range");
		put_ranges(&J, hp, nh);
		json_end_object(&J);
		json_key(&J, "Miss");
		json_begin_object(&J);
		json_key(&J, "Value");
		json_begin_array(&J);
		json_uint(&J, miss);
		json_double(&J, tot ? (double)(float)((double)miss / (double)tot) : 0.0);
		json_end_array(&J);
		json_key(&J, "Address Range");
		put_ranges(&J, mp, nm);
		json_end_object(&J);
		json_end_object(&J);
	}
	json_close_all(&J);
	wr_putc(w, '\n');
	out_close(w, "cacheline.json");
	free(v);
	free(hp);
	free(mp);
}

/* l2_sets.svg: the hit rate of every set the model touched. */
static void put_sets_svg(void)
{
	struct wr *w = out_open("l2_sets.svg");
	double *rate = xmalloc(l2.sets * sizeof *rate);
	struct plot_sets ps;
	unsigned s;
	for (s = 0; s < l2.sets; s++) {
		uint64_t t = l2.set_hit[s] + l2.set_miss[s];
		rate[s] = t ? 100.0 * (double)l2.set_hit[s] / (double)t : NAN;
	}
	plot_sets_init(&ps, "L2 hit rate per set (cache model of MemoryChart.bin)", "%", rate, l2.sets, 128);
	plot_heatmap(w, &ps.t);
	plot_sets_free(&ps);
	free(rate);
	out_close(w, "l2_sets.svg");
}

/* dbi_dma.csv: per block the requests and bytes of each DMA path. */
static void put_dma(void)
{
	struct wr *w = out_open("dbi_dma.csv");
	uint64_t *blocks = xcalloc(dma.n + 1, sizeof *blocks), key;
	size_t n = 0, i;
	unsigned p;
	for (i = 0; i < dma.cap; i++)
		if (keytab_at(&dma, i, &key))
			blocks[n++] = key;
	if (n)
		qsort(blocks, n, sizeof *blocks, u64_less);
	wr_puts(w, dbi_dma_header());
	wr_putc(w, '\n');
	for (i = 0; i < n; i++) {
		const struct dma_blk *b = keytab_find(&dma, blocks[i]);
		wr_printf(w, "%llu", (unsigned long long)blocks[i]);
		for (p = 0; p < DBI_NDMA; p++)
			wr_printf(w, ",%llu,%llu", (unsigned long long)b->req[p], (unsigned long long)b->bytes[p]);
		wr_putc(w, '\n');
	}
	free(blocks);
	out_close(w, "dbi_dma.csv");
}

static void parse_metrics(const char *list)
{
	const char *p = list;
	want_memory = want_source = 0;
	while (*p) {
		size_t n = strcspn(p, ",");
		if (n == 12 && !strncasecmp(p, "MemoryDetail", n))
			want_memory = 1;
		else if (n == 6 && !strncasecmp(p, "Source", n))
			want_source = 1;
		else if (n)
			cli_die(EXIT_USAGE, "option --aic-metrics: '%.*s' is neither MemoryDetail nor Source", (int)n, p);
		p += n + (p[n] != 0);
	}
	if (!want_memory && !want_source)
		cli_die(EXIT_USAGE, "option --aic-metrics: neither MemoryDetail nor Source given");
}

static const char help[] =
	"usage: board-code [-o DIR] [--aic-metrics=MemoryDetail,Source] [--code FILE] DIR\n"
	"       board-code --pcs [-o FILE] DIR\n"
	"Write the code view of the on-board dump DIR: per instruction and per source\n"
	"line the executions (Source: the basic-block map and counts), the GM bytes\n"
	"moved (MemoryDetail: MemoryChart.bin) and on 910B/A3 the L2 hits and misses\n"
	"of the cache model, on Ascend950 the PC sampling's stall states (pcSampling.bin*);\n"
	"instr_exe.csv, code_exe.csv, file_api.json, instr_api.json, cacheline.json,\n"
	"l2_sets.svg and dbi_dma.csv into DIR (default .).\n"
	"  -o DIR             the output directory (written whole, or not at all)\n"
	"  --aic-metrics=L    MemoryDetail and/or Source (default: whichever files DIR has)\n"
	"  --soc-version=SOC  the SoC (default: Run Soc Version of op_basic_info.txt)\n"
	"  --code FILE        code records (src-map) giving the instructions' source lines\n"
	"  --pcs              write every instruction's pc as instruction records instead\n"
	"                     (for src-map --binary DIR/aicore_binary.o)\n"
	"  -q, -v             fewer / more messages\n"
	"  -h, --help, --version\n"
	"Exit: 0 ok, 1 a pcSampling.bin file skipped or cut (the rest written), 2 usage,\n"
	"3 DIR has no code view file or a malformed one (nothing written), 4 I/O error,\n"
	"130 interrupted.\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "aic-metrics", required_argument, NULL, 'A' },
		{ "soc-version", required_argument, NULL, 's' },
		{ "code", required_argument, NULL, 'C' },
		{ "pcs", no_argument, NULL, 'p' },
		CLI_LONGOPTS_END
	};
	const struct chip *chip;
	struct board_basic basic;
	const char *dir, *out = NULL;
	char *failed;
	size_t skipped = 0;
	int c, e, status = EXIT_OK;

	cli_init("board-code");
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		if (board_opt(c, help, &out, &soc_option))
			continue;
		switch (c) {
		case 'A': parse_metrics(optarg); break;
		case 'C': code_path = optarg; break;
		case 'p': pcs_only = 1; break;
		default: fputs(help, stderr); return EXIT_USAGE;
		}
	}
	if (!(dir = board_dump_operand(argc, argv, optind, help, &basic)))
		return EXIT_USAGE;
	chip = chip_find(soc_option ? soc_option : basic.soc);
	{
		char *p = xpath(dir, "MemoryChart.bin");
		memory = want_memory >= 0 ? want_memory : io_is_file(p);
		free(p);
		char mapn[256], cntn[256];
		source = want_source >= 0 ? want_source : find_bb_files(dir, mapn, cntn, sizeof mapn);
	}
	if (!memory && !source)
		cli_die(EXIT_UNUSABLE, "%s: neither MemoryChart.bin nor a basic-block map (the launch ran without "
		        "MemoryDetail or Source): nothing written", dir);
	have_start = board_start_pc(dir, "pc_start_addr.txt", &pc_start);
	/* The model is 910B/A3's (the reference draws no other chip's). */
	model = memory && (chip->family == CHIP_A2 || chip->family == CHIP_A3);
	if (model)
		dbi_l2_init(&l2, dbi_l2_sets(chip->soc), DBI_L2_WAYS);
	ix = keytab_make(sizeof(uint32_t), 0);
	dma = keytab_make(sizeof(struct dma_blk), 0);
	if (source)
		read_bb(dir);
	if (memory)
		read_memchart(dir);
	if (cli_interrupted)
		return EXIT_INTR;
	/* Per instruction, the model's counts. */
	if (model)
		for (size_t i = 0; i < nins; i++) {
			const struct dbi_l2_stat *st = keytab_find(&l2.pc, ins[i].off);
			if (st)
				ins[i].hit = st->hit, ins[i].miss = st->miss;
		}
	if (nins)
		qsort(ins, nins, sizeof *ins, by_off);
	keytab_free(&ix);
	ix = keytab_make(sizeof(uint32_t), 0);
	for (size_t i = 0; i < nins; i++)
		*(uint32_t *)keytab_get(&ix, ins[i].off, NULL) = (uint32_t)(i + 1);

	if (pcs_only)
		return write_pcs(chip->soc, out ? out : "-");
	/* PC sampling (A5): each instruction's samples; samples at a pc the
	 * code view has no instruction at are dropped and said. */
	if (chip->family == CHIP_A5 && board_pcsampling(dir, &samp, is_instr, NULL, &skipped)) {
		sampling = 1;
		for (size_t i = 0; i < samp.nrows; i++) {
			const uint32_t *k = keytab_find(&ix, samp.rows[i].pc);
			ins[*k - 1].samples = samp.rows[i].n;
			samp_stall += pcs_stall_sum(samp.rows[i].n);
			samp_all += pcs_all_sum(samp.rows[i].n);
		}
		if (samp.dropped)
			cli_warn("%s: %llu of %llu PC samples at %zu pcs that are not instructions of the code view dropped "
			         "(first 0x%llx)", dir, (unsigned long long)samp.dropped, (unsigned long long)samp.records,
			         samp.ndropped, (unsigned long long)samp.dropped_pcs[0]);
	}
	if (code_path)
		read_code(code_path);
	gather_lines();

	if (out)
		out_dir = out;
	if (stage_begin(out_dir, "board-code") < 0)
		cli_die(EXIT_IO, "%s: cannot write the outputs there:", out_dir);
	put_csvs();
	if (nlines)
		put_file_api();
	if (nins)
		put_instr_api();
	if (model) {
		if (have_start)
			put_cacheline();
		else
			cli_warn("%s: no pc_start_addr.txt: no cache-line heat map (cacheline.json)", dir);
		put_sets_svg();
	}
	if (memory)
		put_dma();
	if ((e = stage_commit(&failed))) {
		errno = e;
		cli_die(EXIT_IO, "%s: cannot move into place:", failed);
	}
	if (cli_verbosity >= 2 && memory)
		cli_note("%s/MemoryChart.bin: %llu records, %llu of them between on-chip buffers (no GM bytes)", dir,
		         (unsigned long long)nrec, (unsigned long long)nrec_other);
	if (cli_verbosity >= 1) {
		printf("  code view      %s: %zu instructions, %zu source lines%s%s%s\n", out_dir, nins, nlines,
		       memory ? ", MemoryDetail" : "", source ? ", Source" : "", sampling ? ", PcSampling" : "");
		if (model) {
			uint64_t h = 0, m = 0;
			for (unsigned s = 0; s < l2.sets; s++)
				h += l2.set_hit[s], m += l2.set_miss[s];
			printf("  l2 model       %u sets x %u ways: %llu hits, %llu misses\n", l2.sets, l2.ways,
			       (unsigned long long)h, (unsigned long long)m);
		}
	}
	if (model)
		dbi_l2_free(&l2);
	keytab_free(&ix);
	keytab_free(&dma);
	for (size_t i = 0; i < ncodes; i++) {
		free(codes[i].inner);
		free_vec(codes[i].lines, codes[i].nlines);
	}
	free(codes);
	for (size_t i = 0; i < nlines; i++)
		free(lines[i].pcs);
	free(lines);
	free(ins);
	if (sampling)
		pcs_free(&samp);
	if (skipped)
		status = EXIT_PARTIAL;
	return cli_interrupted ? EXIT_INTR : status;
}
