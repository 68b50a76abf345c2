/* DIR/visualize_data.bin, the file MindStudio Insight opens (see
 * optrace-vdata(5), VISUALIZE_DATA.BIN, Container and Block types):
 *
 *   TRACE      the all-cores trace, written straight into the file as it
 *              is drawn (trace.json and the split traces are made from it)
 *   CODE...    one per user source file that can be read } only with code
 *   FILE_API   per user source line                      } records (src-map)
 *   INSTR_API  per instruction address, version byte 0; only when some
 *              core executed something
 *
 * Nothing is held whole in memory: the trace is a streamed block (its
 * size set in its header at the end, lib/vdata), and the INSTR_API JSON is streamed into an
 * unlinked temporary file first (the block header needs its size), from
 * the per-pc counts stats.c already keeps for the CSVs.  lib/vdata writes
 * the file under a temporary name and renames it when complete. */
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
#include "text.h"
#include "vdata.h"

static struct vdata_w *vis_w;

void vis_release(void)
{
	vis_w = NULL;
}

static void vis_abort(void)
{
	if (vis_w)
		vdata_abort(vis_w);
	vis_w = NULL;
}

/* ---- source: CODE blocks, then FILE_API (code.c) ---- */
static int source_blocks(struct vdata_w *w, struct core **cores, size_t n, const char **what)
{
	int err, t;
	struct wr *fw;

	if (!emit.ncodes)
		return 0;
	err = code_blocks(w);
	if (err)
		return err;
	t = io_tmpfd();
	fw = t < 0 ? NULL : wr_fdopen(t, "(FILE_API)", 0);
	if (!fw) {
		err = errno ? errno : EIO;
		*what = "cannot create a temporary file";
		if (t >= 0)
			close(t);
		return err;
	}
	if (code_file_api(fw, cores, n)) {
		err = wr_flush(fw);
		if (err)
			*what = "cannot write a temporary file";
		else
			err = vdata_block_from_fd(w, VDATA_FILE_API, VDATA_VERSION, t);
	}
	wr_abort(fw);
	close(t);
	return err;
}

/* ---- INSTR_API ---- */

/* One core's row of one pc. */
struct ent {
	const struct pcstat *p;
	uint32_t core;          /* index in Cores */
	char addr[20];          /* as in pc_addr: 0x10f86000 */
};

static int ent_cmp(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;
	/* The reference sorts by the address string: 0x10 before 0x9. */
	int k = strcmp(x->addr, y->addr);
	if (k)
		return k;
	return x->core < y->core ? -1 : x->core > y->core;
}

static int core_cmp(const void *a, const void *b)
{
	const struct core *x = *(const struct core *const *)a, *y = *(const struct core *const *)b;
	return strcmp(x->name, y->name);
}

/* "Source" (see optrace-vdata(5)): name + " " + detail, but for a SET/WAIT
 * flag whose record carries its pipes and flag id (the sync fields), name
 * + " " + "<pipe> ID:<flag>" (stats.c keeps that part, see take_instr);
 * then cut as src_cut does.  A flag is what its record's sync fields say:
 * without them its detail is not read for pipes (no src_text rewrite). */
static void source_text(struct sbuf *out, const struct pcstat *p)
{
	const char *rest = p->sync_src ? p->sync_src : p->detail;
	size_t rn = p->sync_src ? p->sync_src_n : p->detail_n;
	char *d;

	out->n = 0;
	d = sb_room(out, p->name_n + 1 + rn);
	memcpy(d, p->name, p->name_n);
	d[p->name_n] = ' ';
	memcpy(d + p->name_n + 1, rest, rn);
	out->n = src_cut(d, p->name_n + 1 + rn);
}

enum col { COL_CCU, COL_CYCLES, COL_GPR, COL_ICACHE, COL_COUNT, COL_BYTES, COL_SCALAR, COL_UBR, COL_UBW, COL_VEC };

/* One per-core array: a value for every core of Cores, the default where
 * the core never ran this pc. */
static void put_col(struct json *j, const char *key, enum col col, const struct pcstat *const *row, size_t n)
{
	size_t i;
	json_key(j, key);
	json_begin_array(j);
	for (i = 0; i < n; i++) {
		const struct pcstat *p = row[i];
		switch (col) {
		case COL_CCU: json_int(j, p ? p->ccu_cyc : 0); break;
		case COL_CYCLES: json_uint(j, p ? p->cycles : 0); break;
		case COL_GPR: json_int(j, p ? p->gpr : 0); break;
		case COL_ICACHE: json_int(j, p ? p->icache_cyc : 0); break;
		case COL_COUNT: json_uint(j, p ? p->count : 0); break;
		/* 0 bytes is shown as -1, "NA", like no bytes at all. */
		case COL_BYTES: json_int(j, p && p->bytes ? p->bytes : -1); break;
		case COL_SCALAR: json_int(j, p ? sat_add_i64(p->icache_cyc, p->ccu_cyc) : 0); break;
		case COL_UBR: json_int(j, p ? p->ubr : -1); break;
		case COL_UBW: json_int(j, p ? p->ubw : -1); break;
		case COL_VEC: {
			char b[DBL_TEXT_MAX];
			size_t k = dbl_float(b, p ? p->vec : -1.0);
			json_raw_value(j, b, k);
			break;
		}
		}
	}
	json_end_array(j);
}

/* The INSTR_API JSON into w, keys in the reference's (sorted) order.
 * Returns 0 when there is no instruction at all (nothing written). */
static int instr_api(struct wr *w, struct core **cores, size_t n)
{
	struct json j;
	struct ent *v;
	const struct pcstat **row;
	struct sbuf src = { 0 };
	size_t total = 0, i, k;
	int scalar = 0;

	for (i = 0; i < n; i++)
		total += cores[i]->pcs.n;
	if (!total)
		return 0;
	v = xmalloc(total * sizeof *v);
	row = xcalloc(n, sizeof *row);
	for (i = 0, k = 0; i < n; i++) {
		uint32_t q;
		for (q = 0; q < cores[i]->pcs.n; q++, k++) {
			const struct pcstat *p = &cores[i]->pcs.v[q];
			v[k].p = p;
			v[k].core = (uint32_t)i;
			v[k].addr[fmt_pc(v[k].addr, p->pc)] = 0;
			/* The optional columns appear when some core has a
			 * positive scalar-head total for some pc. */
			if (sat_add_i64(p->icache_cyc, p->ccu_cyc) > 0)
				scalar = 1;
		}
	}
	qsort(v, total, sizeof *v, ent_cmp);

	json_init(&j, w);
	json_begin_object(&j);
	json_key(&j, "Cores");
	json_begin_array(&j);
	for (i = 0; i < n; i++)
		json_string(&j, cores[i]->name, cores[i]->name_n);
	json_end_array(&j);

	json_key(&j, "Instructions");
	json_begin_array(&j);
	for (i = 0; i < total;) {
		const struct pcstat *first = v[i].p;  /* the first core's row names the pc */
		size_t e;
		for (e = i; e < total && v[e].p->pc == first->pc; e++)
			row[v[e].core] = v[e].p;
		source_text(&src, first);
		json_begin_object(&j);
		json_kv_cstr(&j, "Address", v[i].addr);
		if (first->code) {
			const struct srcline *l = &emit.srclines[emit.codes[first->code - 1].inner];
			json_kv_str(&j, "AscendC Inner Code", l->text, l->text_n);
		} else {
			json_kv_cstr(&j, "AscendC Inner Code", "");
		}
		if (scalar)
			put_col(&j, "CcuCycles", COL_CCU, row, n);
		put_col(&j, "Cycles", COL_CYCLES, row, n);
		put_col(&j, "GPR Count", COL_GPR, row, n);
		if (scalar)
			put_col(&j, "ICacheCycles", COL_ICACHE, row, n);
		put_col(&j, "Instructions Executed", COL_COUNT, row, n);
		json_kv_str(&j, "Pipe", emit.lanes[first->lane].name, emit.lanes[first->lane].len);
		put_col(&j, "Process Bytes", COL_BYTES, row, n);
		if (scalar)
			put_col(&j, "ScalarCycles", COL_SCALAR, row, n);
		json_kv_str(&j, "Source", src.p, src.n);
		put_col(&j, "UB Read Conflict", COL_UBR, row, n);
		put_col(&j, "UB Write Conflict", COL_UBW, row, n);
		put_col(&j, "Vector Utilization Percentage", COL_VEC, row, n);
		json_end_object(&j);
		for (; i < e; i++)
			row[v[i].core] = NULL;
	}
	json_end_array(&j);

	/* Column types: 1 int, 3 string, 4 percentage (0 hidden, 2 float). */
	json_key(&j, "Instructions Dtype");
	json_begin_object(&j);
	json_key(&j, "Instructions");
	json_begin_object(&j);
	json_kv_uint(&j, "Address", 3);
	json_kv_uint(&j, "AscendC Inner Code", 3);
	if (scalar)
		json_kv_uint(&j, "CcuCycles", 1);
	json_kv_uint(&j, "Cycles", 1);
	json_kv_uint(&j, "GPR Count", 1);
	if (scalar)
		json_kv_uint(&j, "ICacheCycles", 1);
	json_kv_uint(&j, "Instructions Executed", 1);
	json_kv_uint(&j, "Pipe", 3);
	json_kv_uint(&j, "Process Bytes", 1);
	if (scalar)
		json_kv_uint(&j, "ScalarCycles", 1);
	json_kv_uint(&j, "Source", 3);
	json_kv_uint(&j, "UB Read Conflict", 1);
	json_kv_uint(&j, "UB Write Conflict", 1);
	json_kv_uint(&j, "Vector Utilization Percentage", 4);
	json_close_all(&j);

	sb_free(&src);
	free(row);
	free(v);
	return 1;
}

/* ---- the file ---- */

struct wr *vis_begin(void)
{
	char *path = xmalloc(strlen(emit.opt.dir) + 24);
	struct wr *w = NULL;
	int e;

	sprintf(path, "%s/visualize_data.bin", emit.opt.dir);
	vis_w = vdata_open(path);
	if (vis_w) {
		w = vdata_stream_begin(vis_w, VDATA_TRACE, VDATA_VERSION);
		if (!w) {
			e = errno;
			vis_abort();
			errno = e;
		}
	}
	e = errno;
	free(path);
	errno = e;
	return w;
}

int vis_trace_end(uint64_t bytes)
{
	int err = vdata_stream_end(vis_w, bytes);
	if (err)
		vis_abort();
	return err;
}

int vis_write(struct core **sel, size_t n, const char **what)
{
	struct core **cores = xmalloc((n + 1) * sizeof *cores);
	int err = 0;

	*what = "cannot write";
	/* Cores in name order, as the trace's process order. */
	memcpy(cores, sel, n * sizeof *cores);
	qsort(cores, n, sizeof *cores, core_cmp);

	err = source_blocks(vis_w, cores, n, what);
	if (!err) {
		int t = io_tmpfd();
		struct wr *w = t < 0 ? NULL : wr_fdopen(t, "(INSTR_API)", 0);
		if (!w) {
			err = errno ? errno : EIO;
			*what = "cannot create a temporary file";
			if (t >= 0)
				close(t);
			goto out;
		}
		if (instr_api(w, cores, n)) {
			err = wr_flush(w);
			if (err)
				*what = "cannot write a temporary file";
			else
				err = vdata_block_from_fd(vis_w, VDATA_INSTR_API, VDATA_VERSION_INSTR_API, t);
		}
		wr_abort(w);    /* not its own fd: frees the writer only */
		close(t);
	}
	if (!err) {
		err = vdata_close(vis_w);
		vis_w = NULL;
	}
out:
	if (err)
		vis_abort();
	free(cores);
	return err;
}
