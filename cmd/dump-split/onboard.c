/* The on-board dump of one kernel launch (see optrace-board(5)): its
 * op_basic_info.txt as a basic record, each DeviceProf<N>.bin record as a
 * pmu record with the events of its replay, duration.bin's stamps and
 * L2Cache.bin's counters.  A file is mapped (or read) a window of whole
 * records at a time and each record written as it is decoded: memory does
 * not grow with the dump. */
#include "onboard.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "chip.h"
#include "cli.h"
#include "io.h"
#include "mem.h"
#include "pmu.h"

struct replay {
	uint32_t n;          /* the N of DeviceProf<N>.bin */
	char *path;
};

struct onboard {
	char *dir;
	enum board_fmt fmt;
	const struct chip *chip;
	struct board_basic basic;
	struct replay *files;
	size_t nfiles;
};

/* "DeviceProf<N>.bin", N from 1 without a leading zero: N, else 0. */
static uint32_t replay_of(const char *name)
{
	uint64_t v = 0;
	const char *p = name + 10;
	if (strncmp(name, "DeviceProf", 10) || *p < '1' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9' && v <= UINT32_MAX)
		v = v * 10 + (uint64_t)(*p++ - '0');
	return v <= UINT32_MAX && !strcmp(p, ".bin") ? (uint32_t)v : 0;
}

/* Does dir hold an on-board file? */
static int has_board_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;
	if (!d)
		return 0;
	while (!found && (e = readdir(d)))
		found = !strcmp(e->d_name, "op_basic_info.txt") || replay_of(e->d_name) != 0;
	closedir(d);
	return found;
}

char *onboard_dir(const char *in)
{
	char *sub;
	if (!in || !strcmp(in, "-") || !io_is_dir(in))
		return NULL;
	if (has_board_files(in))
		return xstrdup(in);
	sub = xpath(in, "dump");
	if (io_is_dir(sub) && has_board_files(sub))
		return sub;
	free(sub);
	return NULL;
}

static int cmp_replay(const void *a, const void *b)
{
	const struct replay *x = a, *y = b;
	return x->n < y->n ? -1 : x->n > y->n;
}

struct onboard *onboard_open(const char *dir, const char *soc)
{
	struct onboard *b = xcalloc(1, sizeof *b);
	struct board_err err;
	char *info = xpath(dir, "op_basic_info.txt"), text[160];
	struct rd *r;
	DIR *d;
	struct dirent *e;
	size_t cap = 0;
	int fmt;

	b->dir = xstrdup(dir);
	io_check_input(dir, "dump directory", 0);
	board_basic_init(&b->basic);
	if (!(r = rd_open(info)))
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", info);
	if (board_basic_read(r, &b->basic, &err) < 0) {
		/* A key missing from the whole file has no line to name. */
		if (err.line || err.code != BOARD_ERR_FIELD)
			board_err_text(&err, text, sizeof text);
		else
			snprintf(text, sizeof text, "%s", err.what);
		cli_die(EXIT_UNUSABLE, "%s: %s; nothing written", info, text);
	}
	rd_close(r);
	b->chip = chip_find(soc ? soc : b->basic.soc);
	fmt = board_fmt_of(b->chip->family);
	if (fmt < 0)
		cli_die(EXIT_UNUSABLE, "%s: Run Soc Version %s is not a chip with an on-board flow (--soc-version names one)",
		        info, soc ? soc : b->basic.soc);
	b->fmt = (enum board_fmt)fmt;
	free(info);

	if (!(d = opendir(dir)))
		cli_die(EXIT_UNUSABLE, "%s: cannot read:", dir);
	while ((e = readdir(d))) {
		uint32_t n = replay_of(e->d_name);
		if (!n)
			continue;
		if (b->nfiles == cap)
			b->files = xreallocarray(b->files, cap = cap ? 2 * cap : 16, sizeof *b->files);
		b->files[b->nfiles].n = n;
		b->files[b->nfiles].path = xpath(dir, e->d_name);
		if (io_check_input(b->files[b->nfiles].path, "device data file", IO_LIMIT_BINARY) < 0)
			exit(EXIT_UNUSABLE);
		b->nfiles++;
	}
	closedir(d);
	if (!b->nfiles)
		cli_die(EXIT_UNUSABLE, "%s: no DeviceProf<N>.bin (the PMU records of the replays)", dir);
	qsort(b->files, b->nfiles, sizeof *b->files, cmp_replay);
	return b;
}

const char *onboard_soc(const struct onboard *b, unsigned *mhz)
{
	*mhz = b->chip->mhz;
	return b->chip->soc;
}

static void put_basic(const struct onboard *b, struct rec_out *o)
{
	const struct board_basic *x = &b->basic;
	struct rec r;
	rec_init(&r, K_BASIC);
	r.n[B_BLOCKDIM].u = x->block_dim;
	r.n[B_DEVICE].u = x->device_id;
	r.n[B_CURFREQ].i = x->cur_freq;
	r.n[B_RATEDFREQ].i = x->rated_freq;
	r.n[B_MC2].u = (uint64_t)x->is_mc2;
	r.n[B_LCCL].u = (uint64_t)x->is_lccl;
	r.n[B_SIMT].u = (uint64_t)x->has_simt;
	r.n[B_HAVE].u = (x->have_op_name ? REC_BASIC_OPNAME : 0) | (x->have_block_dim ? REC_BASIC_BLOCKDIM : 0) |
	                (x->have_soc ? REC_BASIC_SOC : 0) | (x->have_device_id ? REC_BASIC_DEVICE : 0) |
	                (x->have_pid ? REC_BASIC_PID : 0) | (x->have_cur_freq ? REC_BASIC_CURFREQ : 0) |
	                (x->have_rated_freq ? REC_BASIC_RATEDFREQ : 0);
	rec_text_set(&r, BS_OPNAME, x->op_name, strlen(x->op_name));
	rec_text_set(&r, BS_SOC, x->soc, strlen(x->soc));
	rec_text_set(&r, BS_PID, x->pid, strlen(x->pid));
	rec_text_set(&r, BS_CURFREQ, x->cur_freq_text, strlen(x->cur_freq_text));
	rec_text_set(&r, BS_RATEDFREQ, x->rated_freq_text, strlen(x->rated_freq_text));
	rec_text_set(&r, BS_BLOCKDIM, x->block_dim_text, strlen(x->block_dim_text));
	rec_text_set(&r, BS_DEVICE, x->device_id_text, strlen(x->device_id_text));
	rec_out_put(o, &r);
}

static void warn_err(const char *path, const struct board_err *err)
{
	char text[160];
	board_err_text(err, text, sizeof text);
	cli_warn("%s: %s", path, text);
}

/* The events a capture programmed when they are not the fixed lists
 * (optrace-board(5), PMU_EVENTS.TXT): "aic=" and "aiv=" lines of
 * comma-separated event ids.  1 when the file gave both lists, 0 when
 * there is none, -1 after a bad line (said; the fixed lists are used). */
static int programmed_events(const struct onboard *b, uint16_t ev[2][PMU_EVENTS_MAX], size_t n[2])
{
	char *path = xpath(b->dir, "pmu_events.txt");
	struct rd *in = rd_open(path);
	const char *line;
	size_t len;
	unsigned long lineno = 0;
	int got = 0, rc = 1;
	if (!in) {
		free(path);
		return 0;
	}
	while (rc > 0 && (line = rd_line(in, &len))) {
		size_t i = 4;
		int k;
		lineno++;
		if (len < 4 || (memcmp(line, "aic=", 4) && memcmp(line, "aiv=", 4))) {
			cli_warn("%s:%lu: not an aic= or aiv= line (the fixed event lists are used)", path, lineno);
			rc = -1;
			break;
		}
		k = line[2] == 'v';
		n[k] = 0;
		while (i < len) {
			unsigned v = 0, d = 0;
			while (i < len && line[i] >= '0' && line[i] <= '9' && d < 6)
				v = v * 10 + (unsigned)(line[i++] - '0'), d++;
			if (!d || v > 0xffff || n[k] == PMU_EVENTS_MAX || (i < len && line[i] != ',')) {
				cli_warn("%s:%lu: not a list of event ids (the fixed event lists are used)", path, lineno);
				rc = -1;
				break;
			}
			ev[k][n[k]++] = (uint16_t)v;
			i++;
		}
		got |= 1 << k;
	}
	rd_close(in);
	free(path);
	return rc < 0 ? -1 : got == 3 ? 1 : 0;
}

/* Records per read when the file cannot be mapped: 64 KiB of them. */
#define BLOCK_RECS 512

/* The pmu records of the whole records in [p, p + n), and at the end of
 * the file (last) of what is left too (a cut record: an error).  r: the
 * replay's cube and vector records, their file and events set.  *index
 * counts the records.  The bytes used, or -1 after a bad record (said). */
static long put_block(const struct onboard *b, const struct replay *f, const unsigned char *p, size_t n, int last,
                      uint64_t *index, struct rec_out *o, struct rec r[2])
{
	size_t upto = last ? n : n - n % BOARD_PMU_REC_SIZE, at;
	struct board_pmu pm;
	struct board_err err;
	struct rec *x;
	unsigned i;

	for (at = 0; at < upto; at += BOARD_PMU_REC_SIZE, ++*index) {
		int rc = board_pmu_decode(b->fmt, p + at, upto - at, *index, &pm, &err);
		if (rc < 0) {
			warn_err(f->path, &err);
			return -1;
		}
		if (!rc)
			continue;
		x = &r[pm.core == BOARD_VECTOR];
		x->n[P_INDEX].u = *index;
		x->n[P_COREID].u = pm.core_id;
		x->n[P_BLOCK].u = pm.block_id;
		x->n[P_SUBBLOCK].u = pm.sub_block_id;
		x->n[P_STREAM].u = pm.stream_id;
		x->n[P_TASK].u = pm.task_id;
		x->n[P_CYCLES].u = pm.total_cycles;
		x->n[P_START].u = pm.start_time;
		x->n[P_END].u = pm.end_time;
		/* the slots past nslots stay 0 */
		for (i = 0; i < pm.nslots && i < REC_PMU_SLOTS; i++)
			x->n[P_COUNT0 + i].u = pm.slot[i];
		rec_out_put(o, x);
	}
	return (long)at;
}

/* One replay's records, its file mapped a window at a time (the kernel
 * copies nothing), else read in blocks.  0, or -1 after a bad record
 * (said). */
static int put_replay(const struct onboard *b, const struct replay *f, struct rec_out *o)
{
	static unsigned char buf[BLOCK_RECS * BOARD_PMU_REC_SIZE];
	static uint16_t prog[2][PMU_EVENTS_MAX];
	const uint16_t *list[2];
	const unsigned char *win;
	size_t nlist[2], nprog[2] = { 0, 0 }, got, have = 0, n;
	unsigned slots = board_pmu_slots(b->fmt), i;
	uint64_t index = 0;
	struct rec r[2];
	int k;
	struct rd *in = rd_open(f->path);
	long used = 0;

	if (!in) {
		cli_warn("%s: cannot open:", f->path);
		return -1;
	}
	if (programmed_events(b, prog, nprog) == 1) {
		list[0] = prog[0];
		list[1] = prog[1];
		nlist[0] = nprog[0];
		nlist[1] = nprog[1];
	} else {
		list[0] = pmu_replay_events(b->fmt, BOARD_CUBE, &nlist[0]);
		list[1] = pmu_replay_events(b->fmt, BOARD_VECTOR, &nlist[1]);
	}
	for (k = 0; k < 2; k++) {
		rec_init(&r[k], K_PMU);
		r[k].n[P_FILE].u = f->n;
		r[k].n[P_CORE].u = k ? BOARD_VECTOR : BOARD_CUBE;
		r[k].n[P_NSLOTS].u = slots;
		for (i = 0; i < REC_PMU_SLOTS; i++) {
			uint64_t e = (uint64_t)(f->n - 1) * slots + i;
			r[k].n[P_EVENT0 + i].u = i < slots && e < nlist[k] ? list[k][e] : 0;
		}
	}
	/* A window is a whole number of records but for the file's last. */
	while ((win = rd_map_next(in, &n)) != NULL) {
		used = put_block(b, f, win, n, n % BOARD_PMU_REC_SIZE != 0, &index, o, r);
		if (used < 0 || cli_interrupted || wr_error(o->w))
			break;
	}
	if (!win && n) {
		for (;;) {
			got = rd_read(in, buf + have, sizeof buf - have);
			have += got;
			/* Whole records; at the end, what is left too. */
			if ((used = put_block(b, f, buf, have, !got, &index, o, r)) < 0)
				break;
			memmove(buf, buf + used, have - (size_t)used);
			have -= (size_t)used;
			if (!got || cli_interrupted || wr_error(o->w))
				break;
		}
	}
	if (used >= 0 && rd_error(in)) {
		cli_warn("%s: read error after record %llu: %s", f->path, (unsigned long long)index, rd_strerror(in));
		used = -1;
	}
	rd_close(in);
	return used < 0 ? -1 : 0;
}

/* duration.bin.  0, -1 after a bad record, 1 when there is none. */
static int put_stamps(const struct onboard *b, struct rec_out *o)
{
	char *path = xpath(b->dir, "duration.bin");
	struct rd *in = rd_open(path);
	struct board_stamp st;
	struct board_err err;
	struct rec r;
	uint64_t index = 0;
	int rc;

	if (!in) {
		cli_warn("%s: cannot open: %s (no Task Duration)", path, strerror(errno));
		free(path);
		return 1;
	}
	rec_init(&r, K_STAMP);
	while ((rc = board_stamp_next(in, b->fmt, &index, &st, &err)) > 0) {
		r.n[U_INDEX].u = index - 1;
		r.n[U_EDGE].u = st.kind;
		r.n[U_FUNC].u = st.func_type;
		r.n[U_TASKTYPE].u = st.task_type;
		r.n[U_STREAM].u = st.stream_id;
		r.n[U_TASK].u = st.task_id;
		r.n[U_TIME].u = st.sys_time;
		rec_out_put(o, &r);
	}
	if (rc < 0)
		warn_err(path, &err);
	rd_close(in);
	free(path);
	return rc < 0 ? -1 : 0;
}

/* L2Cache.bin, when there is one.  0, or -1 when it is bad. */
static int put_l2(const struct onboard *b, struct rec_out *o)
{
	char *path = xpath(b->dir, "L2Cache.bin");
	const uint16_t *ev = pmu_l2_events(b->fmt);
	uint64_t val[8];
	struct board_err err;
	struct rd *in;
	struct rec r;
	int i, rc = 0;

	if (b->fmt == BOARD_A5 || !io_is_file(path)) {
		if (b->fmt == BOARD_310P)
			cli_note("%s: none (no L2 hit rate)", path);
		free(path);
		return 0;
	}
	if (!(in = rd_open(path))) {
		cli_warn("%s: cannot open:", path);
		free(path);
		return -1;
	}
	if (board_l2_read(in, val, &err) < 0) {
		warn_err(path, &err);
		rc = -1;
	} else {
		rec_init(&r, K_L2);
		for (i = 0; i < REC_L2_SLOTS; i++) {
			r.n[G_EVENT0 + i].u = ev[i];
			r.n[G_COUNT0 + i].u = val[i];
		}
		rec_out_put(o, &r);
	}
	rd_close(in);
	free(path);
	return rc;
}

int onboard_write(struct onboard *b, struct rec_out *o, uint64_t *bad, uint64_t *dropped)
{
	size_t i;
	int status = EXIT_OK, rc;

	put_basic(b, o);
	for (i = 0; i < b->nfiles && !cli_interrupted && !wr_error(o->w); i++)
		if (put_replay(b, &b->files[i], o) < 0) {
			++*bad;
			status = EXIT_PARTIAL;
		}
	if (cli_interrupted || wr_error(o->w))
		return status;
	if ((rc = put_stamps(b, o)) != 0) {
		if (rc < 0)
			++*bad;
		else
			++*dropped;
		status = EXIT_PARTIAL;
	}
	if (put_l2(b, o) < 0) {
		++*bad;
		status = EXIT_PARTIAL;
	}
	return status;
}

void onboard_free(struct onboard *b)
{
	size_t i;
	if (!b)
		return;
	for (i = 0; i < b->nfiles; i++)
		free(b->files[i].path);
	free(b->files);
	free(b->dir);
	free(b);
}
