/* board-metrics' compute load (see board-metrics(1), VISUALIZE_DATA.BIN,
 * and optrace-board(5), COMPUTE LOAD): the COMPUTE_LOAD_FIGURE and
 * COMPUTE_LOAD_TABLE blocks, an entry per item of every row, and the A5
 * operand counts of --operand-records (OperandRecord.bin): its size
 * checked when the option is read, its sub-blocks summed, as far as the
 * rows go, when the blocks are written. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bm.h"
#include "cli.h"
#include "cload.h"
#include "json.h"
#include "mem.h"
#include "text.h"
#include "vdata.h"

static const char *oprec_path;
static FILE *oprec_file;
static struct oprec_sum *oprec;      /* per sub-block index, as far as the rows need */
static size_t noprec, nblocks;

void cl_read_operands(const char *path)
{
	const char *why;
	oprec_file = oprec_open(path, &nblocks, &why);
	oprec_path = path;
	if (!oprec_file) {
		if (errno)
			cli_die(EXIT_UNUSABLE, "%s: %s:", path, why);
		cli_die(EXIT_UNUSABLE, "%s: %s: nothing written", path, why);
	}
}

/* The sub-blocks up to the last one a row has, read in order. */
static void read_blocks(const struct run *u)
{
	size_t i, want = 0;
	if (!oprec_file)
		return;
	for (i = 0; i < nblks; i++) {
		size_t at = oprec_index(u->mix, (enum board_core)blks[i]->core, blks[i]->block, blks[i]->sub) + 1;
		if (at > want)
			want = at;
	}
	if (want > nblocks)
		want = nblocks;
	oprec = xcalloc(want ? want : 1, sizeof *oprec);
	for (noprec = 0; noprec < want; noprec++)
		if (oprec_read(oprec_file, &oprec[noprec]))
			cli_die(ferror(oprec_file) ? EXIT_IO : EXIT_UNUSABLE, "%s: block %zu (byte %llu): cannot read",
			        oprec_path, noprec, (unsigned long long)oprec_offset((unsigned)noprec, -1, 0));
	fclose(oprec_file);
	oprec_file = NULL;
}

void cl_free(void)
{
	if (oprec_file)
		fclose(oprec_file);
	oprec_file = NULL;
	free(oprec);
	oprec = NULL;
	noprec = 0;
}

/* The entries of one block: the items of every row that go into it. */
static void cl_json(struct json *j, const struct run *u, int table)
{
	size_t i, k, n;
	json_begin_object(j);
	json_key(j, "advice");
	json_begin_array(j);
	json_end_array(j);
	json_key(j, "subblock_detail");
	json_begin_array(j);
	for (i = 0; i < nblks; i++) {
		const struct blk *b = blks[i];
		struct cload_item it[CLOAD_ITEMS_MAX];
		size_t at = oprec_index(u->mix, (enum board_core)b->core, b->block, b->sub);
		const struct oprec_sum *op = at < noprec ? &oprec[at] : NULL;
		char id[16], buf[DBL_TEXT_MAX > PMU_VALUE_MAX ? DBL_TEXT_MAX : PMU_VALUE_MAX];
		const char *type = u->mix ? (b->core == BOARD_VECTOR ? (b->sub ? "vector1" : "vector0") : "cube0") : u->type;
		n = cload_items((enum board_fmt)fmt, (enum board_core)b->core, &b->ev, u->freq, op, it);
		snprintf(id, sizeof id, "%u", b->block);
		for (k = 0; k < n; k++) {
			if (it[k].table != table)
				continue;
			json_begin_object(j);
			json_kv_cstr(j, "block_id", fmt == BOARD_310P ? "NA" : id);
			json_kv_cstr(j, "block_type", type);
			json_key(j, "name");
			/* a mix op's two vector sub-cores: "Vector All Active0" and "1" */
			if (u->mix && it[k].unit == CL_PER && !strcmp(it[k].name, "Vector All Active")) {
				char nm[CLOAD_NAME_MAX + 1];
				size_t len = strnlen(it[k].name, CLOAD_NAME_MAX - 1);
				memcpy(nm, it[k].name, len);
				nm[len] = (char)('0' + (b->sub & 1));
				nm[len + 1] = 0;
				json_cstring(j, nm);
			} else
				json_cstring(j, it[k].name);
			if (it[k].unit == CL_PER) {
				json_key(j, "origin_value");
				json_raw_value(j, buf, dbl_json(buf, (double)(float)it[k].value));
			}
			json_kv_uint(j, "unit", it[k].unit);
			json_key(j, "value");
			if (it[k].unit == CL_PER)
				json_raw_value(j, buf, dbl_json(buf, (double)cload_percent(it[k].value, b->cycles)));
			else if (it[k].value == PMU_EMPTY)
				json_cstring(j, "NA");
			else
				json_string(j, buf, pmu_fmt_u64(it[k].value, buf));
			json_end_object(j);
		}
	}
	json_end_array(j);
	json_end_object(j);
}

static void cl_figure(struct json *j, const void *u)
{
	cl_json(j, u, 0);
}

static void cl_table(struct json *j, const void *u)
{
	cl_json(j, u, 1);
}

void cl_blocks(struct vdata_w *w, const struct run *u)
{
	read_blocks(u);
	vd_json_block(w, VDATA_COMPUTE_LOAD_FIGURE, cl_figure, u);
	vd_json_block(w, VDATA_COMPUTE_LOAD_TABLE, cl_table, u);
}
