/* board-metrics: the metric CSVs of an on-board run from its records (the
 * pmu, stamp, l2 and basic records dump-split writes; optrace-board(5)).
 *
 * A sink on the record runtime (lib/filter.h): each block's event counts
 * are merged over the replays as they come (the first count of an event
 * is kept; cycles and times are the last replay's), the task stamps give
 * the span, and at the end OpBasicInfo.csv and one CSV per metric group
 * are written into a staging directory and moved into -o DIR whole
 * (lib/stage.h).  See board-metrics(1). */
#include <errno.h>
#include <math.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bm.h"
#include "board.h"
#include "cli.h"
#include "dbi.h"
#include "filter.h"
#include "io.h"
#include "keytab.h"
#include "loss.h"
#include "mem.h"
#include "plot.h"
#include "pmu.h"
#include "rec.h"
#include "roofline.h"
#include "stage.h"
#include "storage.h"

enum { LOSS_BAD, LOSS_NKINDS };
static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	FILTER_LOSS_BAD_RECORD,
};
static struct losses losses;

struct blk **blks;
size_t nblks;
static size_t capblks;
static struct keytab blk_index;        /* key -> index + 1 in blks */
static int have_basic, have_l2, full_table;
int fmt = -1;
struct board_basic basic;
static struct board_span span;
static uint64_t l2_event[REC_L2_SLOTS], l2_count[REC_L2_SLOTS];
static unsigned groups_on = (1u << GRP_COUNT) - 1;
static int occ_on, roofline_on;        /* Occupancy, Roofline in --aic-metrics */
static const char *out_dir;
static uint64_t npmu;
/* --dbi-dma: the memory-detail DMA bytes per block (910B/A3) */
static const char *dbi_path;
static struct keytab dbi_rows;          /* block -> struct dbi_dma_row */
static const char *oprec_path;          /* --operand-records (A5) */

static uint64_t blk_key(unsigned block, unsigned core, unsigned sub)
{
	return (uint64_t)block << 32 | (uint64_t)core << 16 | sub;
}

static struct blk *blk_of(unsigned block, unsigned core, unsigned sub)
{
	int fresh;
	uint32_t *at = keytab_get(&blk_index, blk_key(block, core, sub), &fresh);
	struct blk *b;
	if (!fresh)
		return blks[*at - 1];
	if (nblks == capblks)
		blks = xreallocarray(blks, capblks = capblks ? 2 * capblks : 64, sizeof *blks);
	b = xcalloc(1, sizeof *b);
	b->block = block;
	b->core = core;
	b->sub = sub;
	pmu_counts_init(&b->ev);
	blks[nblks++] = b;
	*at = (uint32_t)nblks;
	return b;
}

static void take_basic(const struct rec *r)
{
	const struct rec_text *s = r->s;
	uint64_t have = r->n[B_HAVE].u;
	board_basic_init(&basic);
#define TEXT(dst, i) snprintf(dst, sizeof dst, "%.*s", (int)s[i].n, s[i].p)
	TEXT(basic.op_name, BS_OPNAME);
	TEXT(basic.soc, BS_SOC);
	TEXT(basic.pid, BS_PID);
	TEXT(basic.cur_freq_text, BS_CURFREQ);
	TEXT(basic.rated_freq_text, BS_RATEDFREQ);
	TEXT(basic.block_dim_text, BS_BLOCKDIM);
	TEXT(basic.device_id_text, BS_DEVICE);
#undef TEXT
	basic.block_dim = r->n[B_BLOCKDIM].u;
	basic.device_id = (unsigned)r->n[B_DEVICE].u;
	basic.cur_freq = r->n[B_CURFREQ].i;
	basic.rated_freq = r->n[B_RATEDFREQ].i;
	basic.has_simt = r->n[B_SIMT].u != 0;
	basic.have_pid = (have & REC_BASIC_PID) != 0;
	basic.have_cur_freq = (have & REC_BASIC_CURFREQ) != 0;
	basic.have_rated_freq = (have & REC_BASIC_RATEDFREQ) != 0;
	have_basic = 1;
}

static void take_pmu(struct filter *f, const struct rec *r)
{
	unsigned core = (unsigned)r->n[P_CORE].u, i, n = (unsigned)r->n[P_NSLOTS].u;
	struct blk *b;
	if (core > 1 || n > REC_PMU_SLOTS) {
		filter_bad(f, LOSS_BAD, "a pmu record with a core kind or slot count optrace-records(5) does not allow");
		return;
	}
	b = blk_of((unsigned)r->n[P_BLOCK].u, core, (unsigned)r->n[P_SUBBLOCK].u);
	b->cycles = r->n[P_CYCLES].u;
	b->core_id = (unsigned)r->n[P_COREID].u;
	for (i = 0; i < n; i++)
		if (pmu_counts_merge(&b->ev, (unsigned)r->n[P_EVENT0 + i].u, r->n[P_COUNT0 + i].u) < 0)
			full_table = 1;
	npmu++;
}

static void take_stamp(const struct rec *r)
{
	struct board_stamp st = { 0 };
	st.kind = r->n[U_EDGE].u <= BOARD_STAMP_END ? (enum board_stamp_kind)r->n[U_EDGE].u : BOARD_STAMP_OTHER;
	st.func_type = (unsigned)r->n[U_FUNC].u;
	st.task_type = (unsigned)r->n[U_TASKTYPE].u;
	st.stream_id = (unsigned)r->n[U_STREAM].u;
	st.task_id = (unsigned)r->n[U_TASK].u;
	st.sys_time = r->n[U_TIME].u;
	board_span_add((enum board_fmt)fmt, &span, &st);
}

static void run_start(struct filter *f, const struct chip *chip)
{
	(void)f;
	fmt = board_fmt_of(chip->family);
	if (fmt < 0)
		cli_die(EXIT_UNUSABLE, "%s: no on-board metrics for this chip (the stream's SoC; --soc-version names another)",
		        chip->soc);
	if (occ_on && fmt == BOARD_310P)
		cli_die(EXIT_USAGE, "%s: option --aic-metrics: Occupancy is not available on 310P (as in the reference)",
		        chip->soc);
}

static int run_record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	int i;
	(void)line;
	(void)len;
	if (k != DEC_OK)
		return 1;       /* a sink: kinds it does not know are not its business */
	switch (r->sc->kind) {
	case K_BASIC:
		take_basic(r);
		break;
	case K_PMU:
		take_pmu(f, r);
		break;
	case K_STAMP:
		take_stamp(r);
		break;
	case K_L2:
		for (i = 0; i < REC_L2_SLOTS; i++) {
			l2_event[i] = r->n[G_EVENT0 + i].u;
			l2_count[i] = r->n[G_COUNT0 + i].u;
		}
		have_l2 = 1;
		break;
	default:
		break;
	}
	return 1;
}

/* Rows in the reference's order: block id, then cube0 < vector0 < vector1. */
static int cmp_blk(const void *pa, const void *pb)
{
	const struct blk *a = *(struct blk *const *)pa, *b = *(struct blk *const *)pb;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	return a->sub < b->sub ? -1 : a->sub > b->sub;
}

/* What the op is: mix, cube, vector; AiCore on 310P. */
static const char *op_type(size_t *nvec)
{
	size_t i, ncube = 0;
	*nvec = 0;
	for (i = 0; i < nblks; i++) {
		if (blks[i]->core == BOARD_VECTOR)
			++*nvec;
		else
			ncube++;
	}
	if (fmt == BOARD_310P)
		return "AiCore";
	return ncube && *nvec ? "mix" : ncube ? "cube" : "vector";
}

static void ctx_of(struct pmu_ctx *x, const struct run *u, const struct blk *b)
{
	const struct dbi_dma_row *d = dbi_path ? keytab_find(&dbi_rows, b->block) : NULL;
	pmu_ctx_init(x, (enum board_fmt)fmt, u->soc, &b->ev, b->cycles, u->freq, u->cores, basic.block_dim,
	             u->mix && u->duration > 0 ? u->duration : 0.0f);
	if (d) {
		x->dbi_gm_to_l0a = d->bytes[DBI_GM_TO_L0A];
		x->dbi_gm_to_l0b = d->bytes[DBI_GM_TO_L0B];
		x->dbi_gm_to_l1 = d->bytes[DBI_GM_TO_L1];
	}
}

/* --dbi-dma FILE: board-code's dbi_dma.csv, a row per block. */
static void read_dbi(const char *path)
{
	struct rd *r = rd_open(path);
	const char *line, *why;
	size_t n, lineno = 0;
	dbi_rows = keytab_make(sizeof(struct dbi_dma_row), 0);
	if (!r)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	while ((line = rd_line(r, &n))) {
		struct dbi_dma_row row;
		lineno++;
		if (lineno == 1) {
			size_t k = strlen(dbi_dma_header());
			if (n && line[n - 1] == '\r')
				n--;
			if (n != k || memcmp(line, dbi_dma_header(), k))
				cli_die(EXIT_UNUSABLE, "%s:1: not the header of board-code's dbi_dma.csv", path);
			continue;
		}
		if (dbi_dma_parse(line, n, &row, &why))
			cli_die(EXIT_UNUSABLE, "%s:%zu: %s", path, lineno, why);
		*(struct dbi_dma_row *)keytab_get(&dbi_rows, row.block, NULL) = row;
	}
	if (rd_error(r))
		cli_die(EXIT_IO, "%s: read error: %s", path, rd_strerror(r));
	if (!lineno)
		cli_die(EXIT_UNUSABLE, "%s: empty (no header)", path);
	rd_close(r);
}

static void put_basic_csv(const struct run *u, size_t nvec)
{
	const char *const *cols = pmu_basic_columns((enum board_fmt)fmt);
	const char *v[16];
	char dur[PMU_VALUE_MAX], mixdim[32];
	size_t n = 0, ncols;
	struct wr *w = stage_open("OpBasicInfo.csv");

	for (ncols = 0; cols[ncols]; ncols++)
		;
	pmu_csv_line(w, cols, ncols);
	if (u->duration >= 0)
		pmu_fmt_float(u->duration, dur);
	else
		strcpy(dur, "NA");
	/* What the reference has no value for is NA: Mix Block Dim of an op
	 * that is not mix, a key op_basic_info.txt does not have. */
	if (u->mix)
		snprintf(mixdim, sizeof mixdim, "%zu", nvec);
	else
		strcpy(mixdim, "NA");
	v[n++] = basic.op_name;
	v[n++] = u->type;
	v[n++] = dur;
	v[n++] = basic.block_dim_text;     /* as written, as the reference does */
	if (fmt != BOARD_310P)
		v[n++] = mixdim;
	v[n++] = basic.device_id_text;
	v[n++] = basic.have_pid ? basic.pid : "NA";
	v[n++] = basic.have_cur_freq ? basic.cur_freq_text : "NA";
	v[n++] = basic.have_rated_freq ? basic.rated_freq_text : "NA";
	pmu_csv_line(w, v, n);
	stage_close(w, "OpBasicInfo.csv");
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The 910B PipeUtilization columns: the fixed ones, then the
 * scalar_wait_id columns of the events some block counted non-zero (the
 * aic_ ones sorted as strings, then the aiv_ ones).  *extra: what to free. */
static const char **pipe_columns(const char *const *fixed, char ***extra, size_t *nextra)
{
	static const unsigned first[2] = { 1792, 1780 };
	const char **cols;
	size_t nfixed, n = 0, i, k;
	char **names = NULL;
	int core;

	for (nfixed = 0; fixed[nfixed]; nfixed++)
		;
	if (fmt == BOARD_A2) {
		names = xcalloc(2 * 16, sizeof *names);
		for (core = 0; core < 2; core++) {
			size_t from = n;
			for (k = 0; k < 2; k++) {
				unsigned e;
				for (e = first[k]; e < first[k] + 8; e++) {
					for (i = 0; i < nblks; i++) {
						uint64_t v;
						if (blks[i]->core != (unsigned)core)
							continue;
						v = pmu_counts_get(&blks[i]->ev, e);
						if (v != PMU_EMPTY && v != 0)
							break;
					}
					if (i < nblks) {
						const char *base = pmu_scalar_wait_name(e);
						size_t len = strlen(base) + 5;
						names[n] = xmalloc(len);
						snprintf(names[n++], len, "%s%s", core ? "aiv_" : "aic_", base);
					}
				}
			}
			qsort(names + from, n - from, sizeof *names, cmp_str);
		}
	}
	/* with memory detail, the two active bandwidths of its DMA bytes */
	const char *const *dbi = fmt == BOARD_A2 && dbi_path ? pmu_pipe_dbi_columns() : NULL;
	size_t ndbi = 0;
	while (dbi && dbi[ndbi])
		ndbi++;
	cols = xcalloc(nfixed + n + ndbi + 1, sizeof *cols);
	memcpy(cols, fixed, nfixed * sizeof *cols);
	for (i = 0; i < n; i++)
		cols[nfixed + i] = names[i];
	for (i = 0; i < ndbi; i++)
		cols[nfixed + n + i] = dbi[i];
	*extra = names;
	*nextra = n;
	return cols;
}

static void put_group_csv(const struct run *u, enum pmu_group g)
{
	const char *const *fixed = pmu_columns((enum board_fmt)fmt, g), **cols = NULL;
	char name[64], **extra = NULL, block[16], sub[16];
	size_t ncols, nextra = 0, i;
	struct wr *w;

	snprintf(name, sizeof name, "%s.csv", pmu_group_name(g));
	if (g == GRP_PIPE)
		fixed = cols = pipe_columns(fixed, &extra, &nextra);
	for (ncols = 0; fixed[ncols]; ncols++)
		;
	w = stage_open(name);
	pmu_csv_line(w, fixed, ncols);
	for (i = 0; i < nblks; i++) {
		const struct blk *b = blks[i];
		struct pmu_ctx x;
		ctx_of(&x, u, b);
		snprintf(block, sizeof block, "%u", b->block);
		snprintf(sub, sizeof sub, "%s%u", b->core == BOARD_VECTOR ? "vector" : "cube", b->sub);
		pmu_csv_row(w, &x, fixed, (enum board_core)b->core, block, sub);
	}
	stage_close(w, name);
	free(cols);
	for (i = 0; i < nextra; i++)
		free(extra[i]);
	free(extra);
}

/* The pipe of PipeUtilization with the largest busy ratio over all rows. */
/* A PipeUtilization busy-ratio column ("aic_mte2_ratio"): its pipe in
 * capitals ("MTE2") into label; 0 for any other column. */
static int ratio_pipe(const char *col, char label[32])
{
	size_t n = strlen(col), k;
	if (n < 11 || strcmp(col + n - 6, "_ratio") || n - 10 >= 32)
		return 0;
	for (k = 0; k < n - 10; k++)
		label[k] = (char)(col[4 + k] >= 'a' && col[4 + k] <= 'z' ? col[4 + k] - 32 : col[4 + k]);
	label[n - 10] = 0;
	return 1;
}

static void busiest(const struct run *u, char *buf, size_t size)
{
	const char *const *cols = pmu_columns((enum board_fmt)fmt, GRP_PIPE);
	char best[32] = "";
	float top = -1.0f;
	unsigned top_block = 0;
	const struct blk *tb = NULL;
	size_t i;

	for (i = 0; i < nblks; i++) {
		const struct blk *b = blks[i];
		const char *const *c;
		struct pmu_ctx x;
		ctx_of(&x, u, b);
		for (c = cols; *c; c++) {
			char v[PMU_VALUE_MAX], *end, pipe[32];
			float r;
			if (!ratio_pipe(*c, pipe) || !strcmp(pipe, "SCALAR") ||
			    !pmu_column_of((enum board_fmt)fmt, *c, (enum board_core)b->core))
				continue;
			pmu_metric(&x, *c, v);
			r = strtof(v, &end);
			if (end == v || *end)
				continue;   /* NA */
			if (r > top) {
				top = r;
				strcpy(best, pipe);
				top_block = b->block;
				tb = b;
			}
		}
	}
	if (!tb) {
		snprintf(buf, size, "NA (no pipe counts)");
		return;
	}
	snprintf(buf, size, "%s, %.1f%% of the cycles of block %u %s%u", best, 100.0 * top, top_block,
	         tb->core == BOARD_VECTOR ? "vector" : "cube", tb->sub);
}

/* ---- pictures (see optrace-board(5), PICTURES) ---- */

#define PIPES_MAX 32

/* The busy ratio (percent) of every pipe of every (block, sub-core) row:
 * the PipeUtilization "_ratio" columns, one column per pipe (aic_ and aiv_
 * of one pipe share it), no value where a row has no such pipe. */
struct pipe_table {
	unsigned npipes;
	char pipe[PIPES_MAX][32];
	const char *col[PIPES_MAX];
	char **rowname;
	double *value;
};

static void pipe_table(const struct run *u, struct pipe_table *t)
{
	const char *const *cols = pmu_columns((enum board_fmt)fmt, GRP_PIPE), *const *c;
	size_t i;
	memset(t, 0, sizeof *t);
	for (c = cols; *c; c++) {
		char label[32];
		unsigned j;
		if (!ratio_pipe(*c, label))
			continue;
		for (j = 0; j < t->npipes && strcmp(t->pipe[j], label); j++)
			;
		if (j == t->npipes && t->npipes < PIPES_MAX) {
			strcpy(t->pipe[j], label);
			t->col[j] = t->pipe[j];
			t->npipes++;
		}
	}
	t->rowname = xcalloc(nblks ? nblks : 1, sizeof *t->rowname);
	t->value = xmalloc((nblks ? nblks : 1) * (t->npipes ? t->npipes : 1) * sizeof *t->value);
	for (i = 0; i < nblks * t->npipes; i++)
		t->value[i] = NAN;
	for (i = 0; i < nblks; i++) {
		const struct blk *b = blks[i];
		struct pmu_ctx x;
		char name[64];
		snprintf(name, sizeof name, "%u %s%u", b->block, b->core == BOARD_VECTOR ? "vector" : "cube", b->sub);
		t->rowname[i] = xstrdup(name);
		ctx_of(&x, u, b);
		for (c = cols; *c; c++) {
			char v[PMU_VALUE_MAX], *end, label[32];
			unsigned j;
			float r;
			if (!ratio_pipe(*c, label) || !pmu_column_of((enum board_fmt)fmt, *c, (enum board_core)b->core))
				continue;
			for (j = 0; j < t->npipes && strcmp(t->pipe[j], label); j++)
				;
			if (j == t->npipes)
				continue;
			pmu_metric(&x, *c, v);
			r = strtof(v, &end);
			if (end != v && !*end)
				t->value[i * t->npipes + j] = 100.0 * r;
		}
	}
}

static void pipe_table_free(struct pipe_table *t)
{
	free_vec(t->rowname, nblks);
	free(t->value);
}

/* A picture of the staging directory; cli_die on failure. */
static void put_svg(const char *name, const struct roofline *r, const struct plot_table *t)
{
	struct wr *w = stage_open(name);
	if (r)
		plot_roofline(w, r);
	else
		plot_heatmap(w, t);
	stage_close(w, name);
}

struct roofline roof;
int roof_built;
static char verdict[300];

/* roofline.csv: the numbers of roofline.svg, a line per point, for
 * scripts and prof-diff (see board-metrics(1), ROOFLINE.CSV). */
static void put_roofline_csv(const struct roofline *r)
{
	struct wr *w = stage_open("roofline.csv");
	unsigned i, j;
	wr_puts(w, "title,unit,bytes,bandwidth(TB/s),ops,peak(TOPS),arithmetic intensity(ops/byte),"
	           "performance(TOPS),ratio,\n");
	for (i = 0; i < r->ntitle; i++) {
		const struct roof_title *t = &r->title[i];
		for (j = 0; j < t->n; j++) {
			const struct roof_line *l = &t->line[j];
			wr_printf(w, "%s,%s,%llu,%.6f,%llu,%.6f,%.6f,%.6f,%s,\n", t->title, l->bw_name,
			          (unsigned long long)l->bytes, l->bw, (unsigned long long)t->prop.ops, t->prop.peak,
			          l->x, l->y, l->ratio);
		}
	}
	stage_close(w, "roofline.csv");
}

/* An event of a row as the reference's per-kind maps hold it: off the
 * kind's replay list 0, a missing count UINT64_MAX; no row, 0. */
static uint64_t ev_of(const struct blk *b, unsigned id)
{
	const uint16_t *list;
	size_t n, k;
	if (!b)
		return 0;
	list = pmu_replay_events((enum board_fmt)fmt, (enum board_core)b->core, &n);
	for (k = 0; k < n; k++)
		if (list[k] == id)
			return pmu_counts_get(&b->ev, id);
	return 0;
}

/* The roofline's advice weighs what the reference's storage-access view
 * computes per block: the units' busy ratios (Cube: event 10, Vector:
 * event 8, over the sub-core's cycles) and each pipe's active rate
 * (MTE1 770 (310P: 11), MTE2 12, MTE3 13, FIXP 771, Scalar 9, over the
 * same cycles); a mix op's vector sub-cores have MTE2, MTE3 and Scalar
 * only. */
static void storage_ratios(const struct run *u)
{
	size_t i;
	for (i = 0; i < nblks; i++) {
		const struct blk *b = blks[i], *v0 = NULL, *v1 = NULL;
		size_t k;
		if (u->mix) {
			if (b->core != BOARD_CUBE || b->sub != 0)
				continue;
			for (k = i + 1; k < nblks && !(blks[k]->core == BOARD_CUBE && blks[k]->sub == 0); k++)
				if (blks[k]->core == BOARD_VECTOR && blks[k]->sub < 2)
					*(blks[k]->sub ? &v1 : &v0) = blks[k];
			roof_pipe_ratio(&roof, "Cube", st_percent(ev_of(b, 10), b->cycles));
			roof_pipe_ratio(&roof, "Vector", st_percent(ev_of(v0, 8), v0 ? v0->cycles : 0));
			roof_pipe_ratio(&roof, "Vector1", st_percent(ev_of(v1, 8), v1 ? v1->cycles : 0));
			roof_pipe_ratio(&roof, "MTE1", st_percent(ev_of(b, 770), b->cycles));
			roof_pipe_ratio(&roof, "FIXP", st_percent(ev_of(b, 771), b->cycles));
			for (k = 0; k < 3; k++) {
				const struct blk *s = k == 0 ? b : k == 1 ? v0 : v1;
				uint64_t c = s ? s->cycles : 0;
				roof_pipe_ratio(&roof, "MTE2", st_percent(ev_of(s, 12), c));
				roof_pipe_ratio(&roof, "MTE3", st_percent(ev_of(s, 13), c));
				roof_pipe_ratio(&roof, "Scalar", st_percent(ev_of(s, 9), c));
			}
			continue;
		}
		if (strcmp(u->type, "vector"))
			roof_pipe_ratio(&roof, "Cube", st_percent(ev_of(b, 10), b->cycles));
		if (strcmp(u->type, "cube"))
			roof_pipe_ratio(&roof, "Vector", st_percent(ev_of(b, 8), b->cycles));
		roof_pipe_ratio(&roof, "MTE1", st_percent(ev_of(b, fmt == BOARD_310P ? 11 : 770), b->cycles));
		roof_pipe_ratio(&roof, "MTE2", st_percent(ev_of(b, 12), b->cycles));
		roof_pipe_ratio(&roof, "MTE3", st_percent(ev_of(b, 13), b->cycles));
		if (fmt != BOARD_310P)
			roof_pipe_ratio(&roof, "FIXP", st_percent(ev_of(b, 771), b->cycles));
		roof_pipe_ratio(&roof, "Scalar", st_percent(ev_of(b, 9), b->cycles));
	}
}

/* roofline.svg (not on Ascend950: its roofline needs the operand records)
 * and pipes.svg, the busy ratio of each pipe of each row; the verdict for
 * the summary. */
static void put_pictures(const struct run *u)
{
	struct pipe_table pt;
	struct plot_table t = { 0 };
	size_t i;
	int cube = 0, vec = 0;

	pipe_table(u, &pt);
	if (fmt != BOARD_A5) {
		/* the reference's roofline takes the device's AI Core clock, not
		 * Current Freq: the chip's default here */
		roof_init(&roof, (enum board_fmt)fmt, u->soc, 0, (int64_t)pmu_defaults((enum board_fmt)fmt)->aicore_mhz,
		          u->cores, u->duration > 0 ? u->duration : 0);
		roof.l2_evict = u->l2_evict;
		for (i = 0; i < nblks; i++) {
			roof_add(&roof, (enum board_core)blks[i]->core, &blks[i]->ev);
			cube |= blks[i]->core == BOARD_CUBE;
			vec |= blks[i]->core == BOARD_VECTOR;
		}
		storage_ratios(u);
		roof_build(&roof, cube || fmt == BOARD_310P, vec || fmt == BOARD_310P);
		roof_built = 1;
		put_svg("roofline.svg", &roof, NULL);
		put_roofline_csv(&roof);
		plot_roof_verdict(&roof, verdict, sizeof verdict);
	}
	t.title = "Pipe busy ratio per block and sub-core";
	t.unit = "%";
	t.rows = (unsigned)nblks;
	t.cols = pt.npipes;
	t.row = (const char *const *)pt.rowname;
	t.col = pt.col;
	t.value = pt.value;
	put_svg("pipes.svg", NULL, &t);
	pipe_table_free(&pt);
}

static struct run run;
static char summary_pipe[160];

static int run_finish(struct filter *f)
{
	const struct pmu_defaults *d;
	char *failed;
	size_t nvec, i;
	int e, g;

	if (!have_basic)
		cli_die(EXIT_UNUSABLE, "no basic record (op_basic_info.txt) in the input: not an on-board stream? nothing written");
	if (!nblks)
		cli_die(EXIT_UNUSABLE, "no pmu record (DeviceProf<N>.bin) in the input; nothing written");
	if (full_table)
		cli_warn("a block counted more than %d events: the others were left out", PMU_EVENTS_MAX);
	if (f->up.bad || f->up.dropped)
		cli_warn("the stream upstream left out %llu bad records and %llu files or lines (its trailer): the "
		         "metrics cover what it read", (unsigned long long)f->up.bad, (unsigned long long)f->up.dropped);
	f->problems += f->up.bad + f->up.dropped + (uint64_t)full_table;
	qsort(blks, nblks, sizeof *blks, cmp_blk);
	d = pmu_defaults((enum board_fmt)fmt);
	run.soc = basic.soc[0] ? basic.soc : f->header_soc;
	if (f->soc)
		run.soc = f->soc;
	run.freq = basic.cur_freq > 0 ? basic.cur_freq : (int64_t)d->aicore_mhz;
	run.cores = d->cores;
	run.duration = board_span_us(&span, d->ts_khz);
	run.type = op_type(&nvec);
	run.mix = !strcmp(run.type, "mix");
	run.l2_evict = fmt == BOARD_A2 && have_l2 ? (int64_t)l2_count[4] : -1;
	if (run.duration < 0) {
		cli_warn("no AI Core start and end stamps (duration.bin): Task Duration NA");
		f->problems++;
	}
	if (fmt == BOARD_310P && have_l2)
		for (i = 0; i < nblks; i++)
			for (g = 0; g < 3; g++)
				pmu_counts_merge(&blks[i]->ev, (unsigned)l2_event[g], l2_count[g]);

	if (stage_begin(out_dir, "board-metrics") < 0)
		cli_die(EXIT_IO, errno == ENOTDIR ? "%s: not a directory" : "%s: cannot create:", out_dir);
	put_basic_csv(&run, nvec);
	for (g = 0; g < GRP_COUNT; g++)
		if (groups_on & (1u << g))
			put_group_csv(&run, (enum pmu_group)g);
	put_pictures(&run);
	vd_pictures(&run, occ_on);
	if (vd_wanted())
		vd_write(&run, occ_on, roofline_on);
	if ((e = stage_commit(&failed))) {
		errno = e;
		cli_die(EXIT_IO, "%s: cannot move the outputs into place:", failed);
	}
	vd_commit();
	busiest(&run, summary_pipe, sizeof summary_pipe);
	return 1;
}

static void run_report(struct filter *f)
{
	char dur[PMU_VALUE_MAX];
	(void)f;
	if (run.duration >= 0)
		snprintf(dur, sizeof dur, "%.3f us", (double)run.duration);
	else
		strcpy(dur, "NA");
	if (cli_verbosity >= 1) {
		printf("op %s (%s, %s)\n", basic.op_name, run.type, basic.soc);
		printf("  task duration  %s\n", dur);
		printf("  block dim      %llu (%zu sub-core rows)\n", (unsigned long long)basic.block_dim, nblks);
		printf("  busiest pipe   %s\n", summary_pipe);
		if (verdict[0])
			printf("  roofline       %s\n", verdict);
		printf("  written        %s/OpBasicInfo.csv, %d metric CSVs, %spipes.svg\n", out_dir,
		       __builtin_popcount(groups_on), fmt != BOARD_A5 ? "roofline.svg, " : "");
		cli_flush(stdout);
	}
	loss_report(&losses);
	if (cli_verbosity >= 2)
		cli_note("%llu pmu records, %zu keys", (unsigned long long)npmu, nblks);
}

/* --aic-metrics=LIST: metric groups by name (either spelling, any case);
 * Default is all seven; Roofline adds the roofline block to them, and
 * Occupancy the occupancy block and picture (no group of its own). */
static void parse_groups(const char *list)
{
	const char *p = list;
	int named = 0;
	groups_on = 0;
	while (*p) {
		const char *e = strchr(p, ',');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		char name[64];
		int g;
		if (n == 0 || n >= sizeof name)
			cli_die(EXIT_USAGE, "option --aic-metrics: an empty or overlong group name in '%s'", list);
		memcpy(name, p, n);
		name[n] = 0;
		if (!strcasecmp(name, "Default"))
			groups_on = (1u << GRP_COUNT) - 1;
		else if (!strcasecmp(name, "Roofline")) {
			groups_on = (1u << GRP_COUNT) - 1;
			roofline_on = 1;
		} else if (!strcasecmp(name, "Occupancy"))
			occ_on = 1;
		else if ((g = pmu_group_find(name)) >= 0)
			groups_on |= 1u << g;
		else
			cli_die(EXIT_USAGE, "option --aic-metrics: '%s' is not a metric group (ArithmeticUtilization, "
			        "L2Cache, Memory, MemoryL0, MemoryUB, PipeUtilization, ResourceConflictRatio, Default, "
			        "Occupancy, Roofline)", name);
		named = 1;
		p += n + (e != NULL);
	}
	if (!named)
		cli_die(EXIT_USAGE, "option --aic-metrics: no group given");
}

static int option(struct filter *f, int c, const char *arg)
{
	switch (c) {
	case 'A':
		parse_groups(arg);
		return 1;
	case 'o':
		f->outpath = out_dir = arg;
		return 1;
	case 'V':
		vd_set_path(arg);
		return 1;
	case 'T':
		vd_set_trace(arg);
		return 1;
	case 'B':
		vd_add_block(arg);
		return 1;
	case 'D':
		dbi_path = arg;
		return 1;
	case 'O':
		oprec_path = arg;
		return 1;
	default:
		return 0;
	}
}

static int ready(struct filter *f)
{
	if (!out_dir || !*out_dir || !strcmp(out_dir, "-")) {
		cli_warn("-o DIR is required: the directory the CSVs go into");
		filter_help(f, stderr);
		return EXIT_USAGE;
	}
	if (dbi_path)
		read_dbi(dbi_path);
	if (oprec_path)
		cl_read_operands(oprec_path);
	return -1;
}

static const char help[] =
	"usage: board-metrics -o DIR [--aic-metrics=LIST] [OPTION]... [FILE...]\n"
	"Read the records of an on-board run (dump-split of an on-board dump) and write\n"
	"OpBasicInfo.csv and the metric-group CSVs into DIR, all or none.\n"
	"  -o DIR             the output directory (created; files replaced only on success)\n"
	"  --aic-metrics=LIST groups, comma-separated: ArithmeticUtilization, L2Cache,\n"
	"                     Memory, MemoryL0, MemoryUB, PipeUtilization,\n"
	"                     ResourceConflictRatio, Default (all seven, the default);\n"
	"                     Roofline (Default and the roofline block), Occupancy\n"
	"                     (the occupancy block and occupancy.svg)\n"
	"  --vdata FILE       write visualize_data.bin (MindStudio Insight) to FILE\n"
	"  --vdata-trace FILE its TRACE block: FILE (a trace.json), if not empty\n"
	"  --vdata-block TYPE=FILE  append a block of TYPE (name or number) holding\n"
	"                     FILE's JSON (repeatable; in the order given)\n"
	"  --dbi-dma FILE     board-code's dbi_dma.csv: PipeUtilization (910B/A3) gains\n"
	"                     aic_mte1_active_bw(GB/s) and aic_mte2_active_bw(GB/s)\n"
	"  --operand-records FILE  OperandRecord.bin (A5): the vector sub-cores'\n"
	"                     instructions by operand type in the compute load\n";

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "aic-metrics", required_argument, NULL, 'A' },
		{ "vdata", required_argument, NULL, 'V' },
		{ "vdata-trace", required_argument, NULL, 'T' },
		{ "vdata-block", required_argument, NULL, 'B' },
		{ "dbi-dma", required_argument, NULL, 'D' },
		{ "operand-records", required_argument, NULL, 'O' },
		FILTER_LONGOPT_SOC,
		FILTER_LONGOPTS,
		FILTER_LONGOPTS_END
	};
	static const struct filter_cli cli = { .longopts = longopts, .loss_kinds = loss_kinds,
	                                       .loss_nkinds = LOSS_NKINDS, .option = option, .help = help,
	                                       .soc = 1, .ready = ready };
	struct filter f = { .tool = "board-metrics", .ls = &losses, .bad_kind = LOSS_BAD, .sink = 1,
	                    .start = run_start, .record = run_record, .finish = run_finish,
	                    .report = run_report };
	size_t i;
	int status;

	blk_index = keytab_make(sizeof(uint32_t), 3);
	status = filter_main(&f, &cli, argc, argv);
	/* A summary that cannot be written is said; the set is in place
	 * (board-metrics(1), EXIT STATUS), so the status stands. */
	(void)cli_stdout_done(status);
	for (i = 0; i < nblks; i++)
		free(blks[i]);
	free(blks);
	keytab_free(&blk_index);
	if (dbi_path)
		keytab_free(&dbi_rows);
	cl_free();
	loss_free(&losses);
	return status;
}
