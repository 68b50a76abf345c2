/* biu-timeline: the A5 pipe or instruction timeline of an on-board dump
 * (dump/timeline.bin*, dfx_region_map.txt, dfx_tune.log; optrace-board(5))
 * as a trace.json of the reference's shape: one lane per pipe per
 * sub-core, events written as the decoder completes them (lib/biu.h), the
 * stamps the device lost counted per sub-core and pipe.  See
 * biu-timeline(1). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "biu.h"
#include "board.h"
#include "dumpdir.h"
#include "chip.h"
#include "cli.h"
#include "codetab.h"
#include "io.h"
#include "json.h"
#include "mem.h"
#include "keytab.h"
#include "pmu.h"
#include "rec.h"
#include "tick.h"

static enum biu_mode mode = BIU_INSTR_TIMELINE;
static unsigned pipes_on = (1u << BIU_NPIPES) - 1;
static const char *out_path = "-", *soc_option;
static unsigned mhz_option;

static struct json J;
static struct wr *W;
static unsigned mhz;
static struct biu_map map;
static char chan_json[BIU_CHANNELS][32];   /* "\"core<c>.<sub>\"" */
static size_t chan_json_n[BIU_CHANNELS];
static unsigned lanes[BIU_CHANNELS];        /* pipes drawn, bit per pipe */
static uint64_t drawn, drawn_kind[4];
static int summary;                          /* the summary lines on stdout */
static const char *code_path;               /* --code: src-map's code records */
static const char *dfx_dir;                 /* --dfx-dir: the compiler's files */
static int pcs_only;                         /* --pcs */
/* The code argument of each map pc, JSON-quoted: pc -> index + 1. */
static struct codetab codes;

/* v in lowercase hex, at least 8 digits (the reference's pc_addr). */
static char *hex8(char *p, uint64_t v)
{
	int n = 8, i;
	while (n < 16 && v >> (4 * n))
		n++;
	for (i = n - 1; i >= 0; i--)
		*p++ = "0123456789abcdef"[v >> (4 * i) & 15];
	return p;
}

static void event(void *ctx, const struct biu_event *e)
{
	const struct biu_map_entry *m = NULL;
	const char *name, *cname;
	size_t name_n;
	char idname[24], *p;
	(void)ctx;
	if (!(pipes_on >> e->pipe & 1))
		return;
	switch (e->kind) {
	case BIU_EV_BUSY:
		name = biu_pipe_name(e->pipe);
		name_n = strlen(name);
		cname = biu_pipe_cname(e->pipe);
		break;
	case BIU_EV_REGION:
		name_n = (size_t)snprintf(idname, sizeof idname, "Region%u", e->id);
		name = idname;
		cname = biu_colour(e->id);
		break;
	case BIU_EV_INSTR:
		if ((m = biu_map_get(&map, e->pipe, e->id))) {
			name = biu_map_name(&map, m, &name_n);
			cname = biu_map_colour(&map, m);
			break;
		}
		name_n = (size_t)snprintf(idname, sizeof idname, "Instr%u", e->id);
		name = idname;
		cname = biu_pipe_cname(e->pipe);
		break;
	default:
		name_n = (size_t)snprintf(idname, sizeof idname, "MarkStamp%u", e->id);
		name = idname;
		cname = biu_pipe_cname(e->pipe);
		break;
	}
	p = json_value_start(&J, 200 + JW_STR_MAX(name_n) + chan_json_n[e->ch] + codes.max);
	p = JW_LIT(p, "{\"name\":");
	p = jw_str(p, name, name_n);
	p = JW_LIT(p, ",\"cname\":\"");
	p = jw_raw(p, cname, strlen(cname));
	p = JW_LIT(p, "\",\"ph\":\"X\",\"ts\":");
	p = jw_fixed(p, tick_us6(e->start, mhz), 6);
	p = JW_LIT(p, ",\"dur\":");
	p = jw_fixed(p, tick_us6(e->dur, mhz), 6);
	p = JW_LIT(p, ",\"pid\":");
	p = jw_raw(p, chan_json[e->ch], chan_json_n[e->ch]);
	p = JW_LIT(p, ",\"tid\":\"");
	p = jw_raw(p, biu_pipe_name(e->pipe), strlen(biu_pipe_name(e->pipe)));
	*p++ = '"';
	if (m) {
		size_t cn;
		const char *code = codetab_json(&codes, m->pc, &cn);
		/* The reference's order of the keys: code, pc_addr. */
		p = JW_LIT(p, ",\"args\":{\"code\":");
		if (code)
			p = jw_raw(p, code, cn);
		else
			p = JW_LIT(p, "\"\"");
		p = JW_LIT(p, ",\"pc_addr\":\"0x");
		p = hex8(p, m->pc);
		p = JW_LIT(p, "\"}");
	}
	*p++ = '}';
	json_value_done(&J, p);
	lanes[e->ch] |= 1u << e->pipe;
	drawn++;
	drawn_kind[e->kind]++;
}

/* The lanes' order: sub-cores by channel, pipes in their bit order. */
static void sort_meta(void)
{
	unsigned c, p;
	for (c = 0; c < BIU_CHANNELS; c++) {
		char *q;
		if (!lanes[c])
			continue;
		q = json_value_start(&J, 120 + chan_json_n[c]);
		q = JW_LIT(q, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":");
		q = jw_raw(q, chan_json[c], chan_json_n[c]);
		q = JW_LIT(q, ",\"args\":{\"sort_index\":");
		q = jw_uint(q, c);
		q = JW_LIT(q, "}}");
		json_value_done(&J, q);
		for (p = 0; p < BIU_NPIPES; p++) {
			if (!(lanes[c] >> p & 1))
				continue;
			q = json_value_start(&J, 140 + chan_json_n[c]);
			q = JW_LIT(q, "{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":");
			q = jw_raw(q, chan_json[c], chan_json_n[c]);
			q = JW_LIT(q, ",\"tid\":\"");
			q = jw_raw(q, biu_pipe_name(p), strlen(biu_pipe_name(p)));
			q = JW_LIT(q, "\",\"args\":{\"sort_index\":");
			q = jw_uint(q, p);
			q = JW_LIT(q, "}}");
			json_value_done(&J, q);
		}
	}
}

/* pc_start_addr.txt: the pc of the kernel's offset 0 (0x0 or none: 0). */
static uint64_t start_pc(const char *dir)
{
	uint64_t v = 0;
	return board_start_pc(dir, "pc_start_addr.txt", &v) ? v : 0;
}

static int map_status = EXIT_OK;   /* EXIT_PARTIAL: the map could not be read */

static void read_map(const char *dir)
{
	char *path = xpath(dfx_dir ? dfx_dir : dir, "dfx_region_map.txt");
	uint64_t pc0 = start_pc(dir);
	struct rd *r;
	const char *s;
	size_t n, lines = 0;
	if (!io_is_file(path)) {
		cli_note("%s: none: instructions are named Instr<id>, without pcs", path);
		free(path);
		return;
	}
	if (!(r = rd_open(path))) {
		cli_warn("%s: cannot open: instructions are named Instr<id>:", path);
		map_status = EXIT_PARTIAL;
		free(path);
		return;
	}
	while ((s = rd_line(r, &n))) {
		lines++;
		biu_map_line(&map, s, n, pc0);
	}
	if (rd_error(r)) {
		cli_warn("%s: read error after line %zu: %s", path, lines, rd_strerror(r));
		map_status = EXIT_PARTIAL;
	}
	if (cli_verbosity >= 2)
		cli_note("%s: %zu of %zu lines name an instruction", path, map.entries, lines);
	rd_close(r);
	free(path);
}

/* dfx_tune.log: the pipes the compiler ran out of ids on (bit per pipe). */
static unsigned read_tune(const char *dir)
{
	char *path = xpath(dfx_dir ? dfx_dir : dir, "dfx_tune.log");
	struct rd *r = io_is_file(path) ? rd_open(path) : NULL;
	const char *s;
	size_t n;
	unsigned mask = 0;
	int p;
	free(path);
	if (!r)
		return 0;
	while ((s = rd_line(r, &n)))
		if ((p = biu_tune_line(s, n)) >= 0)
			mask |= 1u << p;
	rd_close(r);
	return mask;
}

static int cmp_name(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	size_t nx = strlen(x), ny = strlen(y);
	/* timeline.bin, then timeline.bin.<n> by n. */
	return nx != ny ? (nx < ny ? -1 : 1) : strcmp(x, y);
}

/* The timeline.bin* files of dir, sorted; NULL-terminated. */
static char **list_files(const char *dir, size_t *count)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;
	size_t n = 0, cap = 0;
	if (!d)
		cli_die(EXIT_UNUSABLE, "%s: cannot read:", dir);
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "timeline.bin", 12))
			continue;
		if (n + 1 >= cap)
			v = xreallocarray(v, cap = cap ? 2 * cap : 8, sizeof *v);
		v[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, cmp_name);
	*count = n;
	return v;
}

/* --pcs: the map's pcs as instruction records (opcode and pipe), for
 * src-map(1) to find their source lines. */
static int write_pcs(const char *soc)
{
	struct rec_out o = { 0 };
	struct rec rec;
	unsigned p, id;
	int e;
	o.producer = "biu-timeline";
	if (!(o.w = wr_open(out_path, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", out_path);
	o.mode = cli_out_mode(0, 0, 0, strcmp(out_path, "-") ? -1 : 1);
	rec_out_header(&o, soc, mhz, "dfx_region_map.txt");
	rec_init(&rec, K_INSTR);
	for (p = 0; p < BIU_NPIPES; p++)
		for (id = 0; id < BIU_IDS; id++) {
			const struct biu_map_entry *m = biu_map_get(&map, p, id);
			size_t n;
			const char *name;
			if (!m)
				continue;
			name = biu_map_name(&map, m, &n);
			rec.n[I_PC].u = m->pc;
			rec.n[I_ID].u = id;
			rec_text_set(&rec, IS_PIPE, biu_pipe_name(p), strlen(biu_pipe_name(p)));
			rec_text_set(&rec, IS_NAME, name, n);
			rec_out_put(&o, &rec);
		}
	rec_out_trailer(&o, 0, 0, 0);
	if ((e = wr_close(o.w)) && e != EPIPE) {
		errno = e;
		cli_die(EXIT_IO, "%s: cannot write:", out_path);
	}
	return EXIT_OK;
}

static const char help[] =
	"usage: biu-timeline [-o FILE] [--aic-metrics=InstrTimeline|PipeTimeline] [--pipe=LIST] DIR\n"
	"Write the A5 instruction (default) or pipe timeline of the on-board dump DIR\n"
	"(timeline.bin*, dfx_region_map.txt, dfx_tune.log) as a trace.json; stamps the\n"
	"device lost are counted per sub-core and pipe on stderr and in the summary.\n"
	"  -o FILE            the trace (default stdout; replaced only on success)\n"
	"  --aic-metrics=M    InstrTimeline (one slice per instruction run) or\n"
	"                     PipeTimeline (pipe busy spans, marks, user regions)\n"
	"  --pipe=LIST        pipes drawn, joined by '|' or ',': cube fixp vector\n"
	"                     mte1 mte2 mte3 (and scalar, PipeTimeline); default all\n"
	"  --soc-version=SOC  the SoC (default: Run Soc Version of op_basic_info.txt)\n"
	"  --aicore-freq=MHZ  the clock of the cycles (default: Current Freq, else 1650)\n"
	"  --code FILE        code records (src-map) giving the instructions' source lines\n"
	"  --dfx-dir DIR      read dfx_region_map.txt and dfx_tune.log from DIR\n"
	"                     (launch 0's dump, for the other launches of a kernel)\n"
	"  --pcs              write the region map's pcs as instruction records instead\n"
	"                     (for src-map --binary DIR/aicore_binary.o)\n"
	"  -q, -v             fewer / more messages\n"
	"  -h, --help, --version\n"
	"Exit: 0 ok, 1 stamps were lost (the trace has the rest), 2 usage or a chip\n"
	"without the timeline, 3 no timeline in DIR, 4 I/O error, 130 interrupted.\n";

static void parse_pipes(const char *list)
{
	const char *p = list;
	pipes_on = 0;
	while (*p) {
		size_t n = strcspn(p, "|,");
		const char *s = p;
		int k;
		while (n && *s == ' ')
			s++, n--;
		while (n && s[n - 1] == ' ')
			n--;
		if (!n || (k = biu_pipe_find(s, n, 1)) < 0)
			cli_die(EXIT_USAGE, "option --pipe: '%s' is not a list of pipes (cube, fixp, vector, mte1, mte2, "
			        "mte3, scalar) joined by '|' or ','", list);
		pipes_on |= 1u << k;
		p = s + n;
		while (*p == ' ')
			p++;
		if (*p)
			p++;
	}
	if (!pipes_on)
		cli_die(EXIT_USAGE, "option --pipe: no pipe given");
}

static const char *kind_word(void)
{
	return mode == BIU_INSTR_TIMELINE ? "instructions" : "regions";
}

/* The losses, per sub-core and pipe; how many (sub-core, pipe) pairs lost
 * something. */
static unsigned report_losses(const struct biu *b, const char *dir, unsigned tune)
{
	const struct biu_stats *st = biu_stats(b);
	unsigned c, p, hit = 0;
	char name[32], pipes[80];
	for (c = 0; c < BIU_CHANNELS; c++)
		for (p = 0; p < BIU_NPIPES; p++) {
			const struct biu_loss *l = &st->loss[c][p];
			uint64_t lost = l->open + l->overwritten + l->unpaired;
			if (!(pipes_on >> p & 1) || !lost)
				continue;
			biu_channel_name(c, name, sizeof name);
			hit++;
			if (mode == BIU_INSTR_TIMELINE) {
				uint16_t ids[4];
				size_t n = biu_open_ids(b, c, p, ids, 4), i;
				char list[64];
				int at = 0;
				for (i = 0; i < n && i < 4; i++)
					at += snprintf(list + at, sizeof list - (size_t)at, "%s%u", i ? "," : "", ids[i]);
				cli_warn("%s: %llu of %llu %s %s lost on %s (a start stamp without its end; ids %s%s)", dir,
				         (unsigned long long)lost, (unsigned long long)(lost + l->pairs),
				         biu_pipe_name(p), kind_word(), name, list, n > 4 ? ",..." : "");
				if (summary)
					printf("  lost           %llu of %llu %s %s on %s\n", (unsigned long long)lost,
				       (unsigned long long)(lost + l->pairs), biu_pipe_name(p), kind_word(), name);
			} else {
				cli_warn("%s: %llu of %llu %s regions lost on %s (%llu overwritten, %llu ends without a "
				         "start, %llu never ended)", dir, (unsigned long long)lost,
				         (unsigned long long)(lost + l->pairs), biu_pipe_name(p), name,
				         (unsigned long long)l->overwritten, (unsigned long long)l->unpaired,
				         (unsigned long long)l->open);
				if (summary)
					printf("  lost           %llu of %llu %s regions on %s\n", (unsigned long long)lost,
				       (unsigned long long)(lost + l->pairs), biu_pipe_name(p), name);
			}
		}
	if (hit)
		cli_warn("%s: the device dropped timeline stamps: the %s is partial; fewer pipes "
		         "(--instr-timeline-pipe), PipeTimeline, or the simulator (sim-flow) show the rest", dir,
		         mode == BIU_INSTR_TIMELINE ? "InstrTimeline" : "PipeTimeline");
	tune &= pipes_on;
	if (tune && mode == BIU_INSTR_TIMELINE) {
		biu_tune_pipes(tune, pipes, sizeof pipes);
		cli_warn("%s: InstrTimeline of pipes [%s] is incomplete: more than %u instructions (dfx_tune.log); "
		         "fewer pipes (--instr-timeline-pipe), PipeTimeline, or the simulator (sim-flow) show the rest",
		         dir, pipes, BIU_INSTR_IDS);
		if (summary)
			printf("  incomplete     InstrTimeline of pipes [%s]: more than %u instructions\n", pipes, BIU_INSTR_IDS);
		hit++;
	}
	/* (a validLen past 2 MiB is named with its file and chunk, above) */
	if (st->bad_type || st->bad_channel) {
		cli_warn("%s: %llu chunks of a core type past 2 and %llu of a core past 5 were skipped", dir,
		         (unsigned long long)st->bad_type, (unsigned long long)st->bad_channel);
		hit++;
	}
	return hit;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "aic-metrics", required_argument, NULL, 'A' },
		{ "pipe", required_argument, NULL, 'P' },
		{ "instr-timeline-pipe", required_argument, NULL, 'P' },
		{ "soc-version", required_argument, NULL, 's' },
		{ "aicore-freq", required_argument, NULL, 'f' },
		{ "code", required_argument, NULL, 'C' },
		{ "pcs", no_argument, NULL, 'p' },
		{ "dfx-dir", required_argument, NULL, 'D' },
		CLI_LONGOPTS_END
	};
	const struct chip *chip;
	struct board_basic basic;
	struct biu *b;
	char **files, msg[300];
	const char *dir;
	size_t nfiles, i;
	unsigned tune, hit;
	int c, status = EXIT_OK, rc;

	cli_init("biu-timeline");
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		if (board_opt(c, help, &out_path, &soc_option))
			continue;
		switch (c) {
		case 'f': mhz_option = board_clock("--aicore-freq", optarg, 100000, "MHz"); break;
		case 'P': parse_pipes(optarg); break;
		case 'C': code_path = optarg; break;
		case 'p': pcs_only = 1; break;
		case 'D': dfx_dir = optarg; break;
		case 'A':
			if (!strcasecmp(optarg, "InstrTimeline"))
				mode = BIU_INSTR_TIMELINE;
			else if (!strcasecmp(optarg, "PipeTimeline"))
				mode = BIU_PIPE_TIMELINE;
			else
				cli_die(EXIT_USAGE, "option --aic-metrics: '%s' is neither InstrTimeline nor PipeTimeline", optarg);
			break;
		default: fputs(help, stderr); return EXIT_USAGE;
		}
	}
	if (!(dir = board_dump_operand(argc, argv, optind, help, &basic)))
		return EXIT_USAGE;

	chip = board_chip(dir, soc_option, &basic, BOARD_FAMILY(CHIP_A5),
	                  mode == BIU_INSTR_TIMELINE ? "InstrTimeline" : "PipeTimeline",
	                  "the dfx_region timeline is Ascend950's (A5); PipeUtilization gives the pipe ratios here");
	mhz = mhz_option ? mhz_option
	      : basic.cur_freq > 0 ? (unsigned)basic.cur_freq : pmu_defaults(BOARD_A5)->aicore_mhz;

	if (pcs_only) {
		read_map(dir);
		rc = write_pcs(chip->soc);
		biu_map_free(&map);
		return rc;
	}
	if (code_path && codetab_read(&codes, code_path, msg, sizeof msg))
		cli_warn("%s: %s: no source lines", code_path, msg);
	files = list_files(dir, &nfiles);
	if (!nfiles)
		cli_die(EXIT_UNUSABLE, "%s: no timeline.bin (the device wrote no %s stamps): nothing written", dir,
		        mode == BIU_INSTR_TIMELINE ? "InstrTimeline" : "PipeTimeline");
	for (i = 0; i < nfiles; i++) {
		char *path = xpath(dir, files[i]);
		board_check_data(path);
		free(path);
	}
	if (mode == BIU_INSTR_TIMELINE)
		read_map(dir);
	tune = mode == BIU_INSTR_TIMELINE ? read_tune(dir) : 0;
	for (c = 0; c < (int)BIU_CHANNELS; c++) {
		char name[24];
		size_t n = biu_channel_name((unsigned)c, name, sizeof name);
		chan_json_n[c] = (size_t)(jw_str(chan_json[c], name, n) - chan_json[c]);
	}

	if (!(W = wr_open(out_path, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", out_path);
	json_init(&J, W);
	json_trace_begin(&J);

	b = biu_new(mode, event, NULL);
	for (i = 0; i < nfiles && !cli_interrupted && !wr_error(W); i++) {
		char *path = xpath(dir, files[i]);
		rc = biu_read_file(b, path, msg, sizeof msg);
		if (rc == -2) {
			/* the device's stamps themselves cannot be read */
			wr_abort(W);
			cli_die(EXIT_IO, "%s: %s: nothing written", path, msg);
		}
		if (rc) {
			cli_warn("%s: %s", path, msg);
			status = EXIT_PARTIAL;
		}
		free(path);
		free(files[i]);
	}
	for (; i < nfiles; i++)
		free(files[i]);
	free(files);
	biu_finish(b);
	sort_meta();
	json_close_all(&J);
	wr_putc(W, '\n');
	if (cli_interrupted) {
		status = EXIT_INTR;
	} else if (!drawn) {
		wr_abort(W);
		cli_die(EXIT_UNUSABLE, "%s: the timeline.bin files hold no %s of the pipes asked for: nothing written",
		        dir, mode == BIU_INSTR_TIMELINE ? "instruction" : "pipe event");
	}
	/* EPIPE: the reader went away; the run ends as usual, quietly */
	if ((rc = wr_close(W)) && rc != EPIPE) {
		errno = rc;
		cli_die(EXIT_IO, "%s: cannot write:", out_path);
	}
	summary = cli_verbosity >= 1 && strcmp(out_path, "-");
	if (summary) {
		unsigned ncores = 0, nlanes = 0;
		for (c = 0; c < (int)BIU_CHANNELS; c++) {
			ncores += lanes[c] != 0;
			nlanes += (unsigned)__builtin_popcount(lanes[c]);
		}
		if (mode == BIU_INSTR_TIMELINE)
			printf("  timeline       %s (InstrTimeline: %llu instruction runs on %u lanes of %u sub-cores)\n",
			       out_path, (unsigned long long)drawn, nlanes, ncores);
		else
			printf("  timeline       %s (PipeTimeline: %llu busy spans, %llu regions, %llu marks on %u lanes of "
			       "%u sub-cores)\n", out_path, (unsigned long long)drawn_kind[BIU_EV_BUSY],
			       (unsigned long long)drawn_kind[BIU_EV_REGION], (unsigned long long)drawn_kind[BIU_EV_MARK],
			       nlanes, ncores);
	}
	hit = report_losses(b, dir, tune);
	cli_flush(stdout);
	if ((hit || map_status) && status == EXIT_OK)
		status = EXIT_PARTIAL;
	if (cli_verbosity >= 2)
		cli_note("%llu records, %llu ignored, %llu chunks, %llu events after the end markers dropped",
		         (unsigned long long)biu_stats(b)->records, (unsigned long long)biu_stats(b)->ignored,
		         (unsigned long long)biu_stats(b)->chunks, (unsigned long long)biu_stats(b)->erased);
	biu_free(b);
	biu_map_free(&map);
	codetab_free(&codes);
	/* A summary that cannot be written is said; the trace is in place,
	 * so the status stands. */
	(void)cli_stdout_done(status);
	return status;
}
