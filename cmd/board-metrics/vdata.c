/* board-metrics' visualize_data.bin (see board-metrics(1),
 * VISUALIZE_DATA.BIN, and optrace-board(5), VISUALIZE BLOCKS): the
 * blocks of an on-board run in the reference's order, OP_BASIC_INFO,
 * the storage-access heat map (910B/A3), the occupancy and roofline
 * views, the TRACE block copied from the timeline tools' trace.json and
 * the JSON blocks other tools made; and occupancy.svg and memory.svg. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "bm.h"
#include "cli.h"
#include "io.h"
#include "json.h"
#include "mem.h"
#include "occupancy.h"
#include "plot.h"
#include "stage.h"
#include "storage.h"
#include "text.h"
#include "vdata.h"

static const char *vd_path, *vd_trace;
static struct { int type; const char *file; } *extra;
static size_t nextra;
static struct vdata_w *aside;      /* a file outside -o DIR, renamed after the set */
static char *aside_path;

void vd_set_path(const char *path)
{
	if (!*path)
		cli_die(EXIT_USAGE, "option --vdata: an empty file name");
	if (!strcmp(path, "-"))
		cli_die(EXIT_USAGE, "option --vdata: not to standard output (the summary goes there); name a file");
	vd_path = path;
}

void vd_set_trace(const char *path)
{
	vd_trace = path;
}

void vd_add_block(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char name[32];
	int type;
	if (!eq || eq == arg || !eq[1] || (size_t)(eq - arg) >= sizeof name)
		cli_die(EXIT_USAGE, "option --vdata-block: '%s' is not TYPE=FILE", arg);
	memcpy(name, arg, (size_t)(eq - arg));
	name[eq - arg] = 0;
	type = vdata_type_parse(name);
	if (type < 0)
		cli_die(EXIT_USAGE, "option --vdata-block: '%s' is not a block type (a name such as CACHELINE_HEATMAP, or "
		        "a number)", name);
	if (type == VDATA_CODE)
		cli_die(EXIT_USAGE, "option --vdata-block: a CODE block needs its source path; not from a file");
	extra = xreallocarray(extra, nextra + 1, sizeof *extra);
	extra[nextra].type = type;
	extra[nextra++].file = eq + 1;
}

int vd_wanted(void)
{
	if (!vd_path && (vd_trace || nextra))
		cli_die(EXIT_USAGE, "--vdata-trace and --vdata-block need --vdata FILE");
	return vd_path != NULL;
}

/* ---- the blocks' JSON ---- */

/* A float as the reference's JSON numbers print it (a double). */
static void raw_float(struct json *j, float v)
{
	char buf[DBL_TEXT_MAX];
	json_raw_value(j, buf, dbl_json(buf, (double)v));
}

/* The sub-core durations of a block, in us (310P: times its time factor). */
static float blk_us(const struct run *u, const struct blk *b)
{
	struct pmu_ctx x;
	float tf = 1.0f;
	if (fmt == BOARD_310P) {
		pmu_ctx_init(&x, (enum board_fmt)fmt, u->soc, &b->ev, b->cycles, u->freq, u->cores, basic.block_dim, 0);
		tf = x.tf;
	}
	if (u->freq == 0)
		return 0.0f;
	return (float)b->cycles / (float)u->freq * tf;
}

/* block_detail / mix_block_detail: the header, a row per block id. */
static void detail_json(struct json *j, const struct run *u, const char *const *h, size_t nh, size_t nrows)
{
	int p310 = fmt == BOARD_310P;
	size_t i;
	json_key(j, u->mix ? "mix_block_detail" : "block_detail");
	json_begin_object(j);
	json_key(j, "head_name");
	json_begin_array(j);
	for (i = 0; i < nh; i++)
		json_cstring(j, h[i]);
	json_end_array(j);
	json_key(j, "row");
	json_begin_array(j);
	for (i = 0; i < nblks;) {
		size_t k = i;
		char id[16];
		json_begin_object(j);
		json_key(j, "value");
		json_begin_array(j);
		if (!p310) {
			snprintf(id, sizeof id, "%u", blks[i]->block);
			json_cstring(j, id);
		}
		if (p310 || !u->mix)
			json_cstring(j, u->type);
		for (; k < nblks && blks[k]->block == blks[i]->block; k++) {
			char v[PMU_VALUE_MAX];
			json_string(j, v, pmu_fmt_float(blk_us(u, blks[k]), v));
		}
		json_end_array(j);
		json_end_object(j);
		i = k;
	}
	json_end_array(j);
	json_key(j, "size");
	json_begin_array(j);
	json_uint(j, nrows + 1);
	json_uint(j, nh);
	json_end_array(j);
	json_end_object(j);
}

static void basic_json(struct json *j, const struct run *u)
{
	static const char *const head_mix[] = { "Block ID", "Cube0 Duration (\xce\xbcs)", "Vector0 Duration (\xce\xbcs)",
	                                        "Vector1 Duration (\xce\xbcs)" };
	static const char *const head[] = { "Block ID", "Core Type", "Duration (\xce\xbcs)" };
	int p310 = fmt == BOARD_310P;
	const char *const *h = u->mix && !p310 ? head_mix : p310 ? head + 1 : head;
	size_t nh = u->mix && !p310 ? 4 : p310 ? 2 : 3, i, nrows = 0, nvec = 0;
	char mixdim[24];

	for (i = 0; i < nblks; i++) {
		nvec += blks[i]->core == BOARD_VECTOR;
		if (i == 0 || blks[i]->block != blks[i - 1]->block)
			nrows++;
	}
	json_begin_object(j);
	json_key(j, "advice");
	json_begin_array(j);
	if (board_low_freq(&basic))
		json_cstring(j, BOARD_LOW_FREQ_ADVICE);
	json_end_array(j);
	if (!u->mix)
		detail_json(j, u, h, nh, nrows);
	json_kv_cstr(j, "block_dim", basic.block_dim_text);
	json_kv_cstr(j, "cur_freq", basic.have_cur_freq ? basic.cur_freq_text : "");
	json_kv_cstr(j, "device_id", basic.device_id_text);
	json_key(j, "duration");
	raw_float(j, u->duration >= 0 ? u->duration : 0.0f);
	if (u->mix)
		detail_json(j, u, h, nh, nrows);
	snprintf(mixdim, sizeof mixdim, "%zu", nvec);
	json_kv_cstr(j, "mix_block_dim", u->mix ? mixdim : "");
	json_kv_cstr(j, "name", basic.op_name);
	json_kv_cstr(j, "op_type", u->type);
	json_kv_cstr(j, "pid", basic.have_pid ? basic.pid : "");
	json_kv_cstr(j, "rated_freq", basic.have_rated_freq ? basic.rated_freq_text : "");
	json_kv_cstr(j, "soc", basic.soc);
	json_end_object(j);
}

static int occ_view(const struct run *u, struct occupancy *o)
{
	struct occ_in *in = xcalloc(nblks ? nblks : 1, sizeof *in);
	size_t i;
	int r;
	for (i = 0; i < nblks; i++) {
		in[i].block = blks[i]->block;
		in[i].sub = blks[i]->sub;
		in[i].core_id = blks[i]->core_id;
		in[i].core = (enum board_core)blks[i]->core;
		in[i].cycles = blks[i]->cycles;
		in[i].ev = &blks[i]->ev;
	}
	r = occ_build(o, (enum board_fmt)fmt, u->type, in, nblks);
	free(in);
	return r;
}

static void roof_json(struct json *j)
{
	unsigned t, l;
	json_begin_object(j);
	json_kv_cstr(j, "advice", roof_advice(&roof));
	json_key(j, "multiple_rooflines");
	json_begin_array(j);
	for (t = 0; t < roof.ntitle; t++) {
		const struct roof_title *rt = &roof.title[t];
		json_begin_object(j);
		json_key(j, "rooflines");
		json_begin_array(j);
		for (l = 0; l < rt->n; l++) {
			const struct roof_line *rl = &rt->line[l];
			json_begin_object(j);
			json_key(j, "bw");
			raw_float(j, rl->bw);
			json_kv_cstr(j, "bw_name", rl->bw_name);
			json_key(j, "computility");
			raw_float(j, rt->prop.peak);
			json_kv_cstr(j, "computility_name", rt->prop.name);
			json_key(j, "point");
			json_begin_array(j);
			raw_float(j, rl->x);
			raw_float(j, rl->y);
			json_end_array(j);
			json_kv_cstr(j, "ratio", rl->ratio);
			json_end_object(j);
		}
		json_end_array(j);
		json_kv_cstr(j, "title", rt->title);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

/* The storage-access view, a block per block id (310P: one block); the
 * views hold pointers into blks. */
struct st_view {
	size_t n;
	unsigned *block;
	struct st_block *b;
	struct pmu_ctx (*x)[3];    /* per block: the block (a mix op's cube), vector0, vector1 */
	unsigned char (*have)[3];
	int64_t evict;
	unsigned adv;              /* Ascend950: the pipes' advice so far */
};

static const struct blk *sub_of(size_t from, size_t to, unsigned core, unsigned sub)
{
	size_t k;
	for (k = from; k < to; k++)
		if (blks[k]->core == core && blks[k]->sub == sub)
			return blks[k];
	return NULL;
}

static void st_one(const struct run *u, const struct st_view *v, size_t i, struct st_tables *t)
{
	const struct pmu_ctx *x0 = v->have[i][1] ? &v->x[i][1] : NULL, *x1 = v->have[i][2] ? &v->x[i][2] : NULL;
	if (fmt == BOARD_310P)
		st_block_310p(&v->b[i], t, &v->x[i][0]);
	else if (fmt == BOARD_A5)
		st_block_a5(&v->b[i], t, u->type, &v->x[i][0], x0, x1, basic.has_simt, &((struct st_view *)v)->adv);
	else {
		st_block_910b(&v->b[i], u->type, &v->x[i][0], x0, x1, v->evict);
		if (t)
			st_table_910b(t, u->type, &v->x[i][0], x0, x1, v->evict);
	}
}

/* Called for each block of a view walked one block at a time: its values
 * are at index 0, and v->n blocks came before it. */
typedef void st_each_fn(const struct run *u, const struct st_view *v, void *arg);

/* The view of every block (each NULL), or of one block at a time handed
 * to each: memory then does not grow with the blocks. */
static void st_walk(const struct run *u, struct st_view *v, st_each_fn *each, void *arg)
{
	size_t i, k, per = u->mix ? 3 : 1, cap = each ? 1 : nblks ? nblks : 1;
	memset(v, 0, sizeof *v);
	v->evict = -1;
	/* the evictions are shared evenly by the blocks, counted as the
	 * reference counts them: sub-cores over three for a mix op */
	if (fmt == BOARD_A2 && u->l2_evict >= 0 && nblks / per)
		v->evict = (int64_t)((uint64_t)u->l2_evict / (nblks / per));
	v->block = xcalloc(cap, sizeof *v->block);
	v->b = xcalloc(cap, sizeof *v->b);
	v->x = xcalloc(cap, sizeof *v->x);
	v->have = xcalloc(cap, sizeof *v->have);
	for (i = 0; i < nblks; i = k) {
		const struct blk *s[3] = { blks[i], NULL, NULL };
		float d = 0.0f;
		size_t at = each ? 0 : v->n;
		unsigned j;
		for (k = i; k < nblks && blks[k]->block == blks[i]->block; k++)
			;
		if (u->mix) {
			/* the reference takes a mix op's rates over its duration,
			 * one microsecond when it has none */
			d = u->duration > 0 ? u->duration : 1.0f;
			s[0] = sub_of(i, k, BOARD_CUBE, 0);
			s[1] = sub_of(i, k, BOARD_VECTOR, 0);
			s[2] = sub_of(i, k, BOARD_VECTOR, 1);
			if (!s[0])
				continue;
		}
		if (each) {
			memset(&v->b[0], 0, sizeof v->b[0]);
			memset(&v->x[0], 0, sizeof v->x[0]);
			memset(&v->have[0], 0, sizeof v->have[0]);
		}
		for (j = 0; j < 3; j++)
			if (s[j]) {
				pmu_ctx_init(&v->x[at][j], (enum board_fmt)fmt, u->soc, &s[j]->ev, s[j]->cycles, u->freq,
				             u->cores, basic.block_dim, d);
				v->have[at][j] = 1;
			}
		v->block[at] = s[0]->block;
		st_one(u, v, at, NULL);
		if (each)
			each(u, v, arg);
		v->n++;
	}
}

static void st_view(const struct run *u, struct st_view *v)
{
	st_walk(u, v, NULL, NULL);
}

static void st_free(struct st_view *v)
{
	free(v->block);
	free(v->b);
	free(v->x);
	free(v->have);
}

static void st_unit_json(struct json *j, const struct st_unit *su)
{
	const char *sfx = su->path == ST_L2_TO_GM && fmt == BOARD_A2 ? "(theoretical value)" : "";
	char bw[PMU_VALUE_MAX] = "NA", req[PMU_VALUE_MAX] = "NA";
	if (su->request != ST_NA) {
		pmu_fmt_float(su->bw, bw);
		pmu_fmt_u64(su->request, req);
	}
	/* the suffixes: none on Ascend950, "requests_suffix" on 310P */
	json_begin_object(j);
	json_kv_cstr(j, "bandwidth", bw);
	if (fmt != BOARD_A5)
		json_kv_cstr(j, "bandwidth_suffix", sfx);
	json_kv_uint(j, "display", 1);
	json_kv_uint(j, "memory_path", su->path);
	json_kv_cstr(j, "peak_ratio", su->peak);
	json_kv_cstr(j, "request", req);
	if (fmt != BOARD_A5)
		json_kv_cstr(j, fmt == BOARD_310P ? "requests_suffix" : "request_suffix", sfx);
	json_end_object(j);
}

static void st_use_json(struct json *j, const struct st_use *su)
{
	json_key(j, su->name);
	json_begin_object(j);
	json_kv_uint(j, "cycle", su->cycle);
	json_key(j, "ratio");
	raw_float(j, su->ratio);
	json_kv_uint(j, "total_cycles", su->total);
	json_end_object(j);
}

static void st_figure_json(struct json *j, const struct run *u, const struct st_view *v)
{
	size_t i;
	unsigned k;
	json_begin_object(j);
	json_key(j, "core_memory_map");
	json_begin_array(j);
	for (i = 0; i < v->n; i++) {
		const struct st_block *b = &v->b[i];
		char buf[PMU_VALUE_MAX];
		/* Ascend950 sums checked, the others as unchecked sums wrap */
		uint64_t all = fmt == BOARD_A5 ? pmu_sat_add(b->hit, b->miss) : b->hit + b->miss;
		/* unknown misses make all NA; on Ascend950 unknown hits too,
		 * but for the misses themselves */
		int na = b->miss == ST_NA || (fmt == BOARD_A5 && b->hit == ST_NA);
		json_begin_object(j);
		/* "Cube", "L2cache", "Vector", "Vector1": byte order */
		for (k = 0; k < b->nuse && !strcmp(b->use[k].name, "Cube"); k++)
			st_use_json(j, &b->use[k]);
		json_key(j, "L2cache");
		json_begin_object(j);
		json_kv_cstr(j, "hit", na && (fmt != BOARD_A5 || b->hit == ST_NA) ? "NA" : (pmu_fmt_u64(b->hit, buf), buf));
		json_kv_cstr(j, "hit_ratio", na ? "NA" : (pmu_fmt_float(st_percent(b->hit, all), buf), buf));
		json_kv_cstr(j, "miss", na && (fmt != BOARD_A5 || b->miss == ST_NA) ? "NA" : (pmu_fmt_u64(b->miss, buf), buf));
		json_kv_cstr(j, "total_request", na ? "NA" : (pmu_fmt_u64(all, buf), buf));
		json_end_object(j);
		for (; k < b->nuse; k++)
			st_use_json(j, &b->use[k]);
		json_key(j, "advice");
		json_begin_array(j);
		for (k = 0; k < b->nuse; k++)
			if (b->use[k].ratio < 20.0f)
				json_cstring(j, strcmp(b->use[k].name, "Cube") ? "aivector compute usage lower than 20%"
				                                               : "aicore compute usage lower than 20%");
		json_end_array(j);
		snprintf(buf, sizeof buf, "%u", v->block[i]);
		json_kv_cstr(j, "core_no", fmt == BOARD_310P ? "NA" : buf);
		if (fmt == BOARD_A5)
			json_kv_cstr(j, "memory_detail", "0");
		json_key(j, "memory_unit");
		json_begin_array(j);
		for (k = 0; k < b->nunit; k++)
			st_unit_json(j, &b->unit[k]);
		json_end_array(j);
		json_kv_cstr(j, "op_type", u->type);
		json_kv_cstr(j, "soc", fmt == BOARD_310P ? "310P" : fmt == BOARD_A5 ? "910A5" : "910B");
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
}

/* STORAGE_ACCESS_TABLE: a table set per block, computed block by block. */
static void st_table_json(struct json *j, const struct run *u, const struct st_view *v)
{
	struct st_tables *t = xmalloc(sizeof *t);
	size_t i;
	unsigned k, r, c;
	json_begin_object(j);
	json_key(j, "table_per_block");
	json_begin_array(j);
	for (i = 0; i < v->n; i++) {
		char id[16];
		st_one(u, v, i, t);
		json_begin_object(j);
		json_key(j, "advice");
		json_begin_array(j);
		for (k = 0; k < t->nadvice; k++)
			json_cstring(j, t->advice[k]);
		json_end_array(j);
		snprintf(id, sizeof id, "%u", v->block[i]);
		json_kv_cstr(j, "block_id", fmt == BOARD_310P ? "NA" : id);
		json_key(j, "table_detail");
		json_begin_array(j);
		for (k = 0; k < t->n; k++) {
			const struct st_table *tb = &t->t[k];
			unsigned nh = 0;
			while (tb->head[nh])
				nh++;
			json_begin_object(j);
			json_key(j, "header_name");
			json_begin_array(j);
			for (c = 0; c < nh; c++)
				json_cstring(j, tb->head[c]);
			json_end_array(j);
			json_key(j, "row");
			json_begin_array(j);
			for (r = 0; r < tb->nrow; r++) {
				json_begin_object(j);
				json_kv_cstr(j, "name", tb->row[r].name);
				if (tb->row[r].n) {
					json_key(j, "value");
					json_begin_array(j);
					for (c = 0; c < tb->row[r].n; c++)
						json_cstring(j, tb->row[r].v[c]);
					json_end_array(j);
				}
				json_end_object(j);
			}
			json_end_array(j);
			json_key(j, "size");
			json_begin_array(j);
			json_uint(j, tb->nrow);
			json_uint(j, nh - 1);
			json_end_array(j);
			json_kv_cstr(j, "table_name", tb->name);
			json_end_object(j);
		}
		json_end_array(j);
		json_kv_cstr(j, "table_op_type", u->type);
		json_end_object(j);
	}
	json_end_array(j);
	json_end_object(j);
	free(t);
}

/* ---- writing ---- */

static const char *target;          /* as named, for messages */

static void fail(int e, const char *what)
{
	errno = e;
	cli_die(EXIT_IO, "%s: %s:", target, what);
}

enum blk_kind { BK_BASIC, BK_OCC, BK_ROOF, BK_STORAGE, BK_STORAGE_TABLE };

/* A block whose JSON is written here: through a temporary file, so any
 * size streams. */
void vd_json_block(struct vdata_w *w, int type, void (*put)(struct json *, const void *), const void *arg)
{
	int t = io_tmpfd(), e;
	struct wr *tw = t < 0 ? NULL : wr_fdopen(t, "(visualize block)", 0);
	struct json j;
	if (!tw)
		fail(errno ? errno : EIO, "cannot create a temporary file");
	json_init(&j, tw);
	put(&j, arg);
	if ((e = wr_flush(tw)))
		fail(e, "cannot write a temporary file");
	if ((e = vdata_block_from_fd(w, type, VDATA_VERSION, t)))
		fail(e, "cannot write");
	wr_abort(tw);
	close(t);
}

struct bk_arg {
	enum blk_kind k;
	const struct run *u;
	void *view;
};

static void bk_put(struct json *j, const void *arg)
{
	const struct bk_arg *a = arg;
	if (a->k == BK_BASIC)
		basic_json(j, a->u);
	else if (a->k == BK_OCC)
		occ_json(j, a->view, basic.soc);
	else if (a->k == BK_STORAGE)
		st_figure_json(j, a->u, a->view);
	else if (a->k == BK_STORAGE_TABLE)
		st_table_json(j, a->u, a->view);
	else
		roof_json(j);
}

static void json_block(struct vdata_w *w, int type, enum blk_kind k, const struct run *u, void *view)
{
	struct bk_arg a = { k, u, view };
	vd_json_block(w, type, bk_put, &a);
}

/* A block copied from a file: 0 written, 1 skipped (empty); cli_die for
 * a file that cannot be read (or, check set, is not one JSON
 * document). */
static int file_block(struct vdata_w *w, int type, const char *file, const char *opt, int check)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NONBLOCK), e;
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		cli_die(EXIT_IO, "%s %s: cannot read:", opt, file);
	if (!S_ISREG(st.st_mode))
		cli_die(EXIT_UNUSABLE, "%s %s: not a regular file", opt, file);
	if (st.st_size == 0) {
		close(fd);
		return 1;
	}
	if (check) {
		char *buf = xmalloc((size_t)st.st_size + 1);
		ssize_t n = io_pread_full(fd, buf, (size_t)st.st_size, 0);
		cJSON *doc;
		const char *end = NULL;
		if (n != st.st_size)
			cli_die(EXIT_IO, "%s %s: cannot read:", opt, file);
		buf[n] = 0;
		doc = cJSON_ParseWithLengthOpts(buf, (size_t)n, &end, 0);
		if (doc && end)
			while (end < buf + n && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
				end++;
		if (doc && end && end != buf + n) {
			cJSON_Delete(doc);
			doc = NULL;        /* more after the document */
		}
		if (!doc) {
			size_t at = end && end >= buf ? (size_t)(end - buf) : 0;
			size_t line = 1, i;
			for (i = 0; i < at && i < (size_t)n; i++)
				line += buf[i] == '\n';
			cli_die(EXIT_UNUSABLE, "%s %s:%zu: not one JSON document (byte %zu): nothing written", opt, file,
			        line, at);
		}
		cJSON_Delete(doc);
		free(buf);
	}
	e = vdata_block_from_fd(w, type, type == VDATA_INSTR_API ? VDATA_VERSION_INSTR_API : VDATA_VERSION, fd);
	close(fd);
	if (e)
		fail(e, "cannot write");
	return 0;
}

/* Does path's directory name DIR (the set's)? */
static int in_set(const char *path, char **base)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? xstrndup(path, (size_t)(slash - path) + (slash == path)) : xstrdup(".");
	struct stat a, b;
	int same;
	*base = xstrdup(slash ? slash + 1 : path);
	if (stat(dir, &a) == 0 && stat(stage_final(), &b) == 0)
		same = a.st_dev == b.st_dev && a.st_ino == b.st_ino;
	else {
		/* DIR is new: the same name is the same place */
		const char *x0 = dir, *y0 = stage_final();
		char *x, *y;
		size_t nx, ny;
		while (x0[0] == '.' && x0[1] == '/')
			x0 += 2;
		while (y0[0] == '.' && y0[1] == '/')
			y0 += 2;
		x = xstrdup(x0);
		y = xstrdup(y0);
		nx = strlen(x);
		ny = strlen(y);
		while (nx > 1 && x[nx - 1] == '/')
			x[--nx] = 0;
		while (ny > 1 && y[ny - 1] == '/')
			y[--ny] = 0;
		same = !strcmp(x, y);
		free(x);
		free(y);
	}
	free(dir);
	return same && **base;
}

void vd_write(const struct run *u, int occupancy, int roofline)
{
	struct vdata_w *w;
	char *base, *path;
	size_t i, skipped = 0;
	int e;

	target = vd_path;
	if (in_set(vd_path, &base)) {
		path = xpath(stage_dir(), base);
	} else {
		path = xstrdup(vd_path);
		aside_path = path;
	}
	free(base);
	w = vdata_open(path);
	if (!w)
		fail(errno ? errno : EIO, "cannot create");
	json_block(w, VDATA_OP_BASIC_INFO, BK_BASIC, u, NULL);
	cl_blocks(w, u);
	{
		struct st_view sv;
		st_view(u, &sv);
		if (sv.n) {
			json_block(w, VDATA_STORAGE_FIGURE, BK_STORAGE, u, &sv);
			json_block(w, VDATA_STORAGE_TABLE, BK_STORAGE_TABLE, u, &sv);
		}
		st_free(&sv);
	}
	if (occupancy) {
		struct occupancy o;
		if (occ_view(u, &o) == 0)
			json_block(w, VDATA_OCCUPANCY, BK_OCC, u, &o);
		occ_free(&o);
	}
	if (roofline && roof_built)
		json_block(w, VDATA_ROOFLINE, BK_ROOF, u, NULL);
	if (vd_trace && io_is_file(vd_trace))
		skipped += (size_t)file_block(w, VDATA_TRACE, vd_trace, "--vdata-trace", 0);
	for (i = 0; i < nextra; i++)
		skipped += (size_t)file_block(w, extra[i].type, extra[i].file, "--vdata-block", 1);
	if (skipped && cli_verbosity >= 1)
		cli_note("%zu empty block files left out of %s", skipped, vd_path);
	if (aside_path) {
		aside = w;
		return;
	}
	if ((e = vdata_close(w)))
		fail(e, "cannot write");
	free(path);
}

void vd_commit(void)
{
	int e;
	if (!aside)
		return;
	e = vdata_close(aside);
	aside = NULL;
	if (e) {
		errno = e;
		cli_die(EXIT_IO, "%s: cannot write (the CSVs are in place):", vd_path);
	}
	free(aside_path);
	aside_path = NULL;
}

/* ---- pictures ---- */

/* A heat map of the set, t's other fields already set. */
static void put_heat(const char *name, struct plot_table *t, const char *title, const char *unit, char **rows,
                     size_t nrows, const char *const *cols, unsigned ncols, const double *v)
{
	struct wr *w;
	t->title = title;
	t->unit = unit;
	t->rows = (unsigned)nrows;
	t->cols = ncols;
	t->row = (const char *const *)rows;
	t->col = cols;
	t->value = v;
	w = stage_open(name);
	plot_heatmap(w, t);
	stage_close(w, name);
}

static void occ_picture(const struct run *u)
{
	struct occupancy o;
	struct plot_table t = { 0 };
	static const char *const cols[] = { "cycles", "throughput (bytes)", "L2 hit rate (%)" };
	char **rows;
	double *v;
	size_t nrows = 0, c, i;
	unsigned s;

	if (occ_view(u, &o) < 0)
		return;
	for (c = 0; c < o.ncore; c++)
		nrows += o.core[c].nsub;
	rows = xcalloc(nrows ? nrows : 1, sizeof *rows);
	v = xcalloc((nrows ? nrows : 1) * 3, sizeof *v);
	for (i = 0, c = 0; c < o.ncore; c++)
		for (s = 0; s < o.core[c].nsub; s++, i++) {
			const struct occ_sub *sc = &o.core[c].sub[s];
			char name[64];
			snprintf(name, sizeof name, "%u %s%u", o.core[c].block, sc->type, sc->id);
			rows[i] = xstrdup(name);
			v[3 * i] = (double)sc->m.cycles;
			v[3 * i + 1] = (double)sc->m.throughput;
			v[3 * i + 2] = (double)sc->m.hit_rate;
		}
	t.by_column = 1;
	put_heat("occupancy.svg", &t, "Occupancy per block and sub-core", "", rows, nrows, cols, 3, v);
	free_vec(rows, nrows);
	free(v);
	occ_free(&o);
}

/* A path's sub-core row in memory.svg: 0 the block's first (cube0, the
 * GM/L2 paths), 1 vector0, 2 vector1 (a mix op's); its column, vector1's
 * paths folded onto vector0's. */
static unsigned mem_sub(enum st_path p)
{
	if ((p >= ST_L2_TO_UB_1 && p <= ST_VEC_TO_UB_1) || p == ST_FIXP_TO_UB_1 || p == ST_L2_TO_DCACHE_1 ||
	    p == ST_DCACHE_TO_L2_1 || p == ST_VEC_TO_DCACHE_1 || p == ST_DCACHE_TO_VEC_1)
		return 2;
	if ((p >= ST_L2_TO_UB && p <= ST_VEC_TO_UB) || p == ST_FIXP_TO_UB || p == ST_L2_TO_DCACHE ||
	    p == ST_DCACHE_TO_L2 || p == ST_VEC_TO_DCACHE || p == ST_DCACHE_TO_VEC)
		return 1;
	return 0;
}

static enum st_path mem_fold(enum st_path p)
{
	if (p >= ST_L2_TO_UB_1 && p <= ST_VEC_TO_UB_1)
		return p - (ST_L2_TO_UB_1 - ST_L2_TO_UB);
	if (mem_sub(p) == 2 || p == ST_L1_TO_UB_1 || p == ST_UB_TO_L1_1)
		return p - 1;
	return p;
}

/* memory.svg: a row per block and sub-core (310P: the one AiCore row), a
 * column per memory path (the paths no row has left out), each cell the
 * path's bandwidth. */
/* memory.svg's rows, filled one block at a time. */
#define ST_COLUMNS_MAX 40
struct mem_rows {
	int colof[ST_PATHS];
	int used[ST_COLUMNS_MAX];
	unsigned ncol;
	char **rows;
	double *v;
	size_t nrows, cap;
};

static void mem_block(const struct run *u, const struct st_view *sv, void *arg)
{
	struct mem_rows *m = arg;
	/* sub-core rows: cube0 (the GM/L2 paths with it), vector0,
	 * vector1; a vector op's block is one vector0 row */
	size_t base = m->nrows, i;
	int vec_op = !strcmp(u->type, "vector");
	unsigned nsub = u->mix ? 3 : 1, k;
	if (m->nrows + nsub > m->cap) {
		size_t old = m->cap;
		m->cap = m->cap ? 2 * m->cap : 3 * 64;
		m->rows = xreallocarray(m->rows, m->cap, sizeof *m->rows);
		m->v = xreallocarray(m->v, m->cap * m->ncol, sizeof *m->v);
		for (i = old * m->ncol; i < m->cap * m->ncol; i++)
			m->v[i] = NAN;
	}
	for (k = 0; k < nsub; k++) {
		char name[48];
		if (fmt == BOARD_310P)
			snprintf(name, sizeof name, "AiCore");
		else
			snprintf(name, sizeof name, "%u %s", sv->block[0],
			         k == 0 ? (vec_op ? "vector0" : "cube0") : k == 1 ? "vector0" : "vector1");
		m->rows[m->nrows++] = xstrdup(name);
	}
	for (k = 0; k < sv->b[0].nunit; k++) {
		const struct st_unit *su = &sv->b[0].unit[k];
		unsigned sub = u->mix ? mem_sub(su->path) : 0;
		int col = (unsigned)su->path < ST_PATHS ? m->colof[su->path] : -1;
		if (col < 0 || su->request == ST_NA)
			continue;
		m->v[(base + sub) * m->ncol + (unsigned)col] = (double)su->bw;
		m->used[col] = 1;
	}
}

static void mem_picture(const struct run *u)
{
	/* the columns, in the order of the data's flow */
	static const enum st_path order[] = {
		ST_GM_TO_L2, ST_L2_TO_GM, ST_L2_TO_L1, ST_L1_TO_L2, ST_L2_UB_TO_L1, ST_TO_L0A, ST_TO_L0B, ST_GM_TO_L0A,
		ST_GM_TO_L0B, ST_L1_TO_L0A, ST_L1_TO_L0B, ST_L1_TO_L0A_310P, ST_L2_L1_TO_L0B, ST_L0A_TO_CUBE,
		ST_L0B_TO_CUBE, ST_CUBE_TO_L0C, ST_L0C_TO_CUBE, ST_L0C_TO_L1, ST_L0C_TO_L2, ST_L0C_TO_FIXP,
		ST_FIXP_TO_L1, ST_FIXP_TO_L2, ST_FIXP_TO_UB, ST_VEC_TO_L0C, ST_L0C_TO_VEC, ST_L1_TO_UB, ST_UB_TO_L1,
		ST_L2_TO_UB, ST_L2_L1_TO_UB, ST_UB_TO_L2, ST_UB_TO_VEC, ST_VEC_TO_UB, ST_L2_TO_DCACHE, ST_DCACHE_TO_L2,
		ST_VEC_TO_DCACHE, ST_DCACHE_TO_VEC
	};
	enum { NCOL = sizeof order / sizeof order[0] };
	_Static_assert(NCOL <= ST_COLUMNS_MAX, "memory.svg's columns fit struct mem_rows");
	struct st_view sv;
	struct mem_rows m = { .ncol = NCOL };
	struct plot_table t = { 0 };
	const char *cols[NCOL];
	double *v;
	size_t nrows, i, r;
	unsigned c, ncol = 0;

	for (i = 0; i < ST_PATHS; i++)
		m.colof[i] = -1;
	for (c = 0; c < NCOL; c++)
		m.colof[order[c]] = (int)c;
	for (i = 0; i < ST_PATHS; i++)
		if (m.colof[i] < 0)
			m.colof[i] = m.colof[mem_fold((enum st_path)i)];
	/* one block at a time: what is kept is the picture's own table */
	st_walk(u, &sv, mem_block, &m);
	st_free(&sv);
	if (sv.n == 0) {
		free(m.rows);
		free(m.v);
		return;
	}
	v = m.v;
	nrows = m.nrows;
	/* drop the columns no row has */
	for (c = 0; c < NCOL; c++) {
		if (!m.used[c])
			continue;
		for (r = 0; r < nrows; r++)
			v[r * NCOL + ncol] = v[r * NCOL + c];
		cols[ncol++] = st_path_name(order[c]);
	}
	for (r = 0; r < nrows; r++)
		memmove(v + r * ncol, v + r * NCOL, ncol * sizeof *v);
	put_heat("memory.svg", &t, "Memory path bandwidth per block and sub-core", "GB/s", m.rows, nrows, cols, ncol, v);
	free_vec(m.rows, nrows);
	free(v);
}

void vd_pictures(const struct run *u, int occupancy)
{
	if (occupancy)
		occ_picture(u);
	mem_picture(u);
}
