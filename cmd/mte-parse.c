/* mte-parse: MTE request records and the MTE bandwidth chart from the
 * simulator's core<N>.mte_log.dump lines (see optrace-sidelogs(5), MTE LOG:
 * Tokens, Requests and directions, The bandwidth chart).
 *
 * Each MTE file is an independent table instr_id -> {type, requests}, as in
 * the reference.  Lines of the B (bus) interface give a request's time and
 * size; lines of any other interface classify the instruction.  A request's
 * bytes go into the 1-us bucket of its last B event, in its instruction's
 * column.  The chart needs every bucket until the end, but the tables do
 * not: an instruction that has seen no line for --window ticks of its file
 * is retired (its records written, its bytes added to the chart, its
 * requests freed) and kept as a small tombstone for another window, so a
 * line arriving later is noticed and counted rather than silently merged. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip.h"
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "keytab.h"
#include "loss.h"
#include "mem.h"
#include "mline.h"
#include "rec.h"
#include "scan.h"

#define NIL UINT32_MAX
#define SMALL_FILE 500                  /* the reference skips files up to this size */
#define MAX_BUCKET 60000000u            /* the reference drops buckets beyond 60 s */
#define MIB_PER_BYTE_US 0.95367431640625 /* 10^6 / 2^20: bytes per us -> MiB/s */

/* ---- loss accounting ---- */

enum loss { LOSS_UNPARSED, LOSS_NO_ID, LOSS_RW, LOSS_UNDETERMINED, LOSS_LATE, LOSS_SMALL,
            LOSS_BEYOND, LOSS_BAD_RECORD, LOSS_NKINDS };
static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	/* text, problem (exit status 1), bad (lines; else dropped data) in the trailer */
	[LOSS_UNPARSED] = { "lines not in the MTE log grammar", 1, 1 },
	[LOSS_NO_ID] = { "interface lines without a numeric instr_id (or, on the B interface, req_id/gid)", 1, 1 },
	[LOSS_RW] = { "interface lines whose type is neither R nor W", 1, 1 },
	[LOSS_UNDETERMINED] = { "instructions whose direction was never determined (only B-interface lines): "
	                        "left out of the chart", 0, 0 },
	[LOSS_LATE] = { "lines for an instruction already retired (more than --window ticks after its previous line)",
	                1, 0 },
	[LOSS_SMALL] = { "MTE files of 500 bytes or less skipped, as the reference does (--keep-small reads them)",
	                 0, 0 },
	[LOSS_BEYOND] = { "requests in buckets beyond 60,000,000 us left out of the chart", 0, 0 },
	[LOSS_BAD_RECORD] = FILTER_LOSS_BAD_RECORD,
};
static struct losses losses;

/* ---- tables ---- */

struct req {
	uint64_t id, tick, bytes;   /* tick of its last B event; first non-zero size */
	uint32_t next;
};

struct instr {
	uint64_t id, last;          /* last: tick of its latest line, for retirement */
	uint32_t file, core;        /* file: index into files[] */
	uint32_t prev, next;        /* the file's list, oldest line first */
	uint32_t req_head, req_tail;
	int8_t type;                /* enum mte_path, MTE_UNKNOWN until classified */
	uint8_t retired, counted_undetermined;
};

struct mfile {
	uint32_t id;                /* file id in the stream */
	uint64_t bytes, lines, now; /* now: greatest tick seen in the file */
	uint32_t head, tail;        /* instructions by time of their latest line */
	int committed;              /* larger than SMALL_FILE: retirement allowed */
};

static struct instr *instrs;
static uint32_t ninstrs, capinstrs, free_instr = NIL;
static struct req *reqs;
static uint32_t nreqs, capreqs, free_req = NIL;
/* (file index, instr_id) -> index into instrs, (instr index, request id)
 * -> index into reqs. */
static struct keytab instr_tab = { .vsize = sizeof(uint32_t), .pairs = 1 },
                     req_tab = { .vsize = sizeof(uint32_t), .pairs = 1 };
static struct mfile *files;
static uint32_t nfiles;

static uint64_t window = 1000000; /* ticks; 0 = keep everything until the end */
static int keep_small;
static unsigned mhz;

/* The chart: six columns per 1-us bucket. */
static double (*chart)[6];
static uint64_t chart_cap, chart_max;
static int chart_used;

/* The run: its output is flt.out. */
static struct filter flt;

static uint32_t new_instr(void)
{
	uint32_t i;
	if (free_instr != NIL) {
		i = free_instr;
		free_instr = instrs[i].next;
		return i;
	}
	if (ninstrs == capinstrs) {
		capinstrs = capinstrs ? 2 * capinstrs : 1024;
		instrs = xrealloc(instrs, (size_t)capinstrs * sizeof *instrs);
	}
	return ninstrs++;
}

static uint32_t new_req(void)
{
	uint32_t i;
	if (free_req != NIL) {
		i = free_req;
		free_req = reqs[i].next;
		return i;
	}
	if (nreqs == capreqs) {
		if (capreqs >= UINT32_MAX / 2)
			cli_die(EXIT_IO, "too many MTE requests in flight (lower --window)");
		capreqs = capreqs ? 2 * capreqs : 4096;
		reqs = xrealloc(reqs, (size_t)capreqs * sizeof *reqs);
	}
	return nreqs++;
}

static struct mfile *file_for(uint32_t id)
{
	static uint32_t last = NIL;
	uint32_t i;
	if (last != NIL && files[last].id == id)
		return &files[last];
	for (i = 0; i < nfiles; i++)
		if (files[i].id == id)
			return &files[last = i];
	files = xrealloc(files, (nfiles + 1) * sizeof *files);
	memset(&files[nfiles], 0, sizeof files[nfiles]);
	files[nfiles].id = id;
	files[nfiles].head = files[nfiles].tail = NIL;
	return &files[last = nfiles++];
}

static void list_unlink(struct mfile *f, uint32_t i)
{
	struct instr *in = &instrs[i];
	if (in->prev != NIL)
		instrs[in->prev].next = in->next;
	else
		f->head = in->next;
	if (in->next != NIL)
		instrs[in->next].prev = in->prev;
	else
		f->tail = in->prev;
}

static void list_append(struct mfile *f, uint32_t i)
{
	instrs[i].prev = f->tail;
	instrs[i].next = NIL;
	if (f->tail != NIL)
		instrs[f->tail].next = i;
	else
		f->head = i;
	f->tail = i;
}

/* ts = round3(tick / MHz) us; its bucket floor(ts), in integers. */
static uint64_t bucket_of(uint64_t tick)
{
	uint64_t r;
	if (tick > UINT64_MAX / 2000)
		return UINT64_MAX;
	r = (tick * 2000 + mhz) / (2 * (uint64_t)mhz);
	return r / 1000;
}

static void chart_add(uint64_t bucket, int type, uint64_t bytes, uint32_t file, uint64_t instr)
{
	double v = (double)bytes * MIB_PER_BYTE_US;
	if (bucket > MAX_BUCKET) {
		char what[64];
		snprintf(what, sizeof what, "instr_id %llu", (unsigned long long)instr);
		loss_add(&losses, LOSS_BEYOND, file, 0, what);
		return;
	}
	if (bucket >= chart_cap) {
		uint64_t cap = chart_cap ? chart_cap : 1024;
		while (cap <= bucket)
			cap *= 2;
		chart = xrealloc(chart, cap * sizeof *chart);
		memset(chart + chart_cap, 0, (cap - chart_cap) * sizeof *chart);
		chart_cap = cap;
	}
	if (!chart_used || bucket > chart_max)
		chart_max = bucket;
	chart_used = 1;
	chart[bucket][type == MTE_GM_TO_UB ? 0 : type == MTE_GM_TO_L1 ? 1 : type == MTE_GM_TO_OTHER ? 2 :
	              type == MTE_UB_TO_GM ? 3 : type == MTE_L1_TO_GM ? 4 : 5] += v;
	if (type == MTE_GM_TO_UB || type == MTE_GM_TO_L1)
		chart[bucket][2] += v;
	else if (type == MTE_UB_TO_GM || type == MTE_L1_TO_GM)
		chart[bucket][5] += v;
}

static void free_reqs(struct instr *in)
{
	uint32_t r = in->req_head;
	while (r != NIL) {
		uint32_t next = reqs[r].next;
		keytab_del2(&req_tab, (uint64_t)(in - instrs), reqs[r].id);
		reqs[r].next = free_req;
		free_req = r;
		r = next;
	}
	in->req_head = in->req_tail = NIL;
}

/* Write an instruction's requests and add them to the chart; free them. */
static void retire(struct instr *in, int emit)
{
	struct mfile *f = &files[in->file];
	uint32_t r;
	if (emit && in->req_head != NIL && in->type == MTE_UNKNOWN && !in->counted_undetermined) {
		char what[64];
		snprintf(what, sizeof what, "instr_id %llu", (unsigned long long)in->id);
		loss_add(&losses, LOSS_UNDETERMINED, f->id, 0, what);
		in->counted_undetermined = 1;
	}
	for (r = in->req_head; emit && r != NIL; r = reqs[r].next) {
		struct rec x;
		rec_init(&x, K_MTEXFER);
		x.n[X_CORE].u = in->core;
		x.n[X_INSTR_ID].u = in->id;
		x.n[X_REQ_ID].u = reqs[r].id;
		x.n[X_PATH].u = (uint64_t)in->type;
		x.n[X_BYTES].u = reqs[r].bytes;
		x.n[X_TICK].u = reqs[r].tick;
		rec_out_put(&flt.out, &x);
		if (in->type != MTE_UNKNOWN)
			chart_add(bucket_of(reqs[r].tick), in->type, reqs[r].bytes, f->id, in->id);
	}
	free_reqs(in);
	in->retired = 1;
}

static void forget(struct mfile *f, uint32_t i)
{
	list_unlink(f, i);
	keytab_del2(&instr_tab, (uint64_t)(f - files), instrs[i].id);
	instrs[i].next = free_instr;
	free_instr = i;
}

/* Retire what has been quiet for a window; forget tombstones after two. */
static void advance(struct mfile *f)
{
	while (f->head != NIL) {
		uint32_t i = f->head;
		struct instr *in = &instrs[i];
		if (in->last + window >= f->now)
			return;
		if (!in->retired) {
			retire(in, 1);
			/* Back of the queue: its tombstone lives one more window. */
			list_unlink(f, i);
			in->last += window;
			list_append(f, i);
		} else {
			forget(f, i);
		}
	}
}

static int classify(const struct mline *m)
{
	int w = m->rw == 'W';
	if (m->unit_n == 2 && !memcmp(m->unit, "L1", 2))
		return w ? MTE_GM_TO_L1 : MTE_L1_TO_GM;
	if (m->unit_n >= 2 && !memcmp(m->unit, "UB", 2))
		return w ? MTE_GM_TO_UB : MTE_UB_TO_GM;
	return w ? MTE_GM_TO_OTHER : MTE_OTHER_TO_GM;
}

static void take_line(const struct rec *in)
{
	const char *text = in->s[LS_TEXT].p, *why = "";
	size_t len = in->s[LS_TEXT].n;
	uint32_t fid = (uint32_t)in->n[L_FILE].u;
	uint64_t lineno = in->n[L_LINE].u;
	struct mfile *f = file_for(fid);
	struct mline m;
	uint32_t *hs;
	int fresh;
	struct instr *ins;
	uint32_t idx;
	int is_b, k;

	f->bytes += len + 1;
	f->lines++;
	if (!f->committed && (f->bytes > SMALL_FILE || keep_small))
		f->committed = 1;
	if (len && text[len - 1] == '\r')
		len--;
	k = mline_parse(text, len, &m, &why);
	if (k == ML_BAD) {
		loss_add(&losses, LOSS_UNPARSED, fid, lineno, why);
		return;
	}
	if (k == ML_IGNORED)
		return;         /* no interface: the reference ignores it too */
	is_b = m.unit_n == 1 && m.unit[0] == 'B';
	if (!m.has_instr || (is_b && !m.has_req && !m.has_gid)) {
		loss_add(&losses, LOSS_NO_ID, fid, lineno, m.has_instr ? "no req_id or gid" : "no instr_id");
		return;
	}
	if (!is_b && m.rw != 'R' && m.rw != 'W') {
		loss_add(&losses, LOSS_RW, fid, lineno, "");
		return;
	}
	if (m.tick > f->now)
		f->now = m.tick;
	hs = keytab_get2(&instr_tab, (uint64_t)(f - files), m.instr_id, &fresh);
	if (fresh) {
		idx = new_instr();
		*hs = idx;
		ins = &instrs[idx];
		memset(ins, 0, sizeof *ins);
		ins->id = m.instr_id;
		ins->file = (uint32_t)(f - files);
		ins->core = (uint32_t)in->n[L_CORE].u;
		ins->type = MTE_UNKNOWN;
		ins->req_head = ins->req_tail = NIL;
		list_append(f, idx);
	} else {
		idx = *hs;
		ins = &instrs[idx];
		if (ins->retired) {
			/* Classifying a known instruction changes nothing. */
			if (is_b || ins->type == MTE_UNKNOWN)
				loss_add(&losses, LOSS_LATE, fid, lineno, "");
			ins->retired = 0;
		}
		list_unlink(f, idx);
		list_append(f, idx);
	}
	ins->last = m.tick > ins->last ? m.tick : ins->last;
	if (is_b) {
		uint64_t rid = m.has_req ? m.req_id : m.gid;
		uint32_t *rs = keytab_get2(&req_tab, idx, rid, &fresh);
		struct req *r;
		if (fresh) {
			uint32_t ri = new_req();
			*rs = ri;
			r = &reqs[ri];
			r->id = rid;
			r->tick = m.tick;
			r->bytes = m.size;
			r->next = NIL;
			if (ins->req_tail != NIL)
				reqs[ins->req_tail].next = ri;
			else
				ins->req_head = ri;
			ins->req_tail = ri;
		} else {
			r = &reqs[*rs];
			if (!r->bytes)
				r->bytes = m.size;
			if (m.tick > r->tick)
				r->tick = m.tick;
		}
	} else if (ins->type == MTE_UNKNOWN) {
		ins->type = (int8_t)classify(&m);
	}
	if (window && f->committed)
		advance(f);
}

/* At the end: every file's remaining instructions, then the chart. */
static void finish(void)
{
	uint32_t fi, i;
	uint64_t b;

	for (fi = 0; fi < nfiles; fi++) {
		struct mfile *f = &files[fi];
		int use = f->committed || keep_small;
		if (!use) {
			char what[64];
			snprintf(what, sizeof what, "%llu bytes, %llu lines skipped", (unsigned long long)f->bytes,
			         (unsigned long long)f->lines);
			loss_add(&losses, LOSS_SMALL, f->id, 0, what);
		}
		while ((i = f->head) != NIL) {
			if (!instrs[i].retired)
				retire(&instrs[i], use);
			forget(f, i);
		}
	}
	if (!chart_used)
		return;
	for (b = 0; b <= chart_max + 1; b++) {
		struct rec w;
		int c;
		rec_init(&w, K_MTEBW);
		w.n[W_BUCKET].u = b;
		for (c = 0; c < 6; c++)
			w.n[W_GM_TO_UB + c].f = b <= chart_max ? chart[b][c] : 0;
		rec_out_put(&flt.out, &w);
		if (wr_error(flt.out.w))
			return;
	}
}

/* ---- main ---- */


static void release_all(void)
{
	free(instrs);
	free(reqs);
	keytab_free(&instr_tab);
	keytab_free(&req_tab);
	free(files);
	free(chart);
	loss_free(&losses);
}

/* The clock: the option's SoC, else the header's clock, else the header's
 * SoC, else the default. */
static void start(struct filter *f, const struct chip *chip)
{
	mhz = !f->soc && f->up.mhz ? f->up.mhz : chip->mhz;
	f->header_mhz = mhz;
	if (!f->soc && f->up.soc && *f->up.soc)
		f->header_soc = f->up.soc;
}

static int record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	(void)f, (void)line, (void)len;
	if (k != DEC_OK || r->sc->kind != K_LINE || r->n[L_LOG].u != LOG_MTE)
		return 0;
	take_line(r);
	return 1;
}

static int finish_output(struct filter *f)
{
	(void)f;
	if (!cli_interrupted)
		finish();
	return 1;
}

static const char help[] =
	"usage: mte-parse [options] [FILE...]\n"
	"Turn MTE log line records (from dump-split) into MTE request records and\n"
	"1-us bandwidth records; other records pass through.\n"
	"  --window=TICKS     retire an instruction after TICKS quiet ticks (default 1000000;\n"
	"                     0 = keep every instruction until the end)\n"
	"  --keep-small       also read MTE files of 500 bytes or less (the reference skips them)\n";

static int option(struct filter *f, int c, const char *arg)
{
	(void)f;
	switch (c) {
	case 'w': window = cli_num("--window", arg); break;
	case 'k': keep_small = 1; break;
	default: return 0;
	}
	return 1;
}

static int ready(struct filter *f)
{
	f->ls->by_file = 1;         /* whole-file and per-instruction losses have no line */
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FILTER_LONGOPTS,
		FILTER_LONGOPT_SOC,
		{ "window", required_argument, NULL, 'w' },
		{ "keep-small", no_argument, NULL, 'k' },
		FILTER_LONGOPTS_END
	};
	static const struct filter_cli cli = { .longopts = longopts, .loss_kinds = loss_kinds,
	                                       .loss_nkinds = LOSS_NKINDS, .option = option, .help = help, .soc = 1,
	                                       .ready = ready };
	int status;

	flt = (struct filter){ .tool = "mte-parse", .ls = &losses, .bad_kind = LOSS_BAD_RECORD,
	                       .bad_file = LOSS_NOFILE, .start = start, .record = record,
	                       .finish = finish_output };
	status = filter_main(&flt, &cli, argc, argv);
	release_all();
	return status;
}
