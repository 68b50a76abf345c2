/* sim-capture: run an application in the CANN simulator under the optrace
 * preload library and keep each captured kernel launch's dumps in
 *   OUT/OPPROF_<stamp>_<16 A-Z>/device0/<kernel>/<n>/dump/
 * with aicore_binary.o and pc_start_addr.txt, plus capture.rec (launch and
 * host API records) and manifest.json.  --live streams the simulator's
 * events as records on stdout instead of writing dumps.  See sim-capture(1). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "biu.h"
#include "board.h"
#include "capture.h"
#include "chip.h"
#include "cli.h"
#include "mem.h"
#include "io.h"
#include "pmu.h"
#include "json.h"
#include "rec.h"

extern char **environ;

static const char usage_text[] =
	"usage: sim-capture [options] [--] app [args...]\n"
	"       sim-capture [options] --config=FILE\n"
	"Run app in the CANN simulator and capture its kernel launches into OUT/OPPROF_<stamp>_<letters>/.\n"
	"  -o, --output=DIR        where the OPPROF_* directory goes (default .)\n"
	"      --soc-version=SOC   simulator to use (default: from LD_LIBRARY_PATH, else Ascend910B1)\n"
	"      --kernel-name=N|N2  capture kernels whose name starts with or matches (*) a token\n"
	"      --launch-count=N    capture at most N launches per process (1..5000, default 1)\n"
	"      --launch-skip-before-match=N  never capture the first N launches of a process (0..1000)\n"
	"      --mstx=on|off       capture only inside the application's mstx ranges (default off)\n"
	"      --mstx-include=M|M2 with --mstx=on: only inside ranges with one of these messages\n"
	"      --timeout=MIN       stop the application after MIN minutes (1..2880; Ns: seconds)\n"
	"      --dump=on|off       keep the simulator's dump files (default on; off with --live)\n"
	"      --live              stream the simulator's events as records on stdout, no dumps\n"
	"      --device            run on the device (ROOT/lib64's runtime, no simulator): each launch's\n"
	"                          raw PMU files (DeviceProf<N>.bin, duration.bin, ...) in its dump/\n"
	"      --replay-mode=M     --device: kernel (default), application or range (with --mstx=on)\n"
	"      --warm-up=N         --device: launches of a captured kernel run before measuring (0..500, default 5)\n"
	"      --kill=on|off       --device: end the application after its last captured launch (default off)\n"
	"      --replay            also save what --config needs to replay each captured kernel\n"
	"      --config=FILE       run one kernel described by a JSON file (or a kernel_config.bin)\n"
	"      --core-id=0|3       cores to parse later (recorded in the manifest for sim-flow)\n"
	"      --aic-metrics=LIST  metrics (with PMSampling the simulator writes MTE logs; with --device on\n"
	"                          Ascend950, InstrTimeline instruments each captured kernel, PipeTimeline)\n"
	"      --instr-timeline-pipe=P|...  (or --pipe) InstrTimeline's pipes: cube fixp vector mte1 mte2 mte3\n"
	"      --cann-root=DIR     CANN root (default $ASCEND_HOME_PATH, else the bundled stand-in)\n"
	"      --no-api-spans      do not record host API calls\n"
	"  -q, -v                  quieter, more verbose\n"
	"  -h, --help, --version\n";

/* ---- options ---- */

static const char *aic_metrics;
static const char *instr_pipes;   /* --instr-timeline-pipe */
static const char *out_dir, *soc_opt, *kernel_names, *core_ids, *cann_root, *config_file;
static unsigned long launch_count = 1, launch_skip;
static unsigned long timeout_s;
static int dump_on = -1, live, replay, no_spans, device;
static int mstx_on;
/* --device: how each captured launch is measured (see device_plan) */
enum replay_mode { REPLAY_KERNEL, REPLAY_APPLICATION, REPLAY_RANGE };
static const char *const replay_mode_names[] = { "kernel", "application", "range" };
static enum replay_mode replay_mode = REPLAY_KERNEL;
static unsigned long warm_up = 5;
static int kill_on;
static char *mstx_include; /* --mstx-include, blanks removed; NULL when none */
static char **app;

static volatile sig_atomic_t sigints;

/* SIGINT and SIGTERM alike: the first stops, the second aborts. */
static void on_sigint(int sig)
{
	(void)sig;
	sigints++;
}

static int take(const char *arg, const char *name, int *i, int argc, char **argv, const char **val)
{
	size_t n = strlen(name);
	if (strncmp(arg, name, n))
		return 0;
	if (arg[n] == '=') {
		*val = arg + n + 1;
		return 1;
	}
	if (arg[n])
		return 0;
	if (*i + 1 >= argc)
		cli_die(EXIT_USAGE, "%s needs a value", name);
	*val = argv[++*i];
	return 1;
}

static unsigned long ranged(const char *opt, const char *s, unsigned long lo, unsigned long hi)
{
	char *end;
	unsigned long v;
	errno = 0;
	if (!*s || strlen(s) > 8 || *s == '-' || *s == '+')
		cli_die(EXIT_USAGE, "%s=%s: should be a number in [%lu, %lu]", opt, s, lo, hi);
	v = strtoul(s, &end, 10);
	if (*end || errno || v < lo || v > hi)
		cli_die(EXIT_USAGE, "%s=%s: should be a number in [%lu, %lu]", opt, s, lo, hi);
	return v;
}

static void check_kernel_names(const char *s)
{
	const char *p;
	size_t tok = 0;
	if (strlen(s) >= 1023)
		cli_die(EXIT_USAGE, "--kernel-name: longer than 1022 characters");
	for (p = s;; p++) {
		if (*p == '|' || !*p) {
			if (tok == 0)
				cli_die(EXIT_USAGE, "--kernel-name=%s: an empty name", s);
			tok = 0;
			if (!*p)
				break;
			continue;
		}
		if (!(*p == '_' || *p == '*' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
		      (*p >= 'A' && *p <= 'Z')))
			cli_die(EXIT_USAGE, "--kernel-name=%s: '%c' is not allowed (A-Z a-z 0-9 _ *)", s, *p);
		tok++;
	}
}

/* --mstx-include: the reference's normalisation (every blank removed) and
 * checks, in its order and words.  Returns the list, or NULL when empty. */
static char *check_mstx_include(const char *v)
{
	char *s = xstrdup(v), *o = s;
	const char *p;
	size_t tok = 0;
	for (p = s; *p; p++)
		if (*p != ' ')
			*o++ = *p;
	*o = 0;
	if (!*s) {
		free(s);
		return NULL;
	}
	if (!mstx_on)
		cli_die(EXIT_USAGE, "--mstx-include only support when --mstx=on");
	if (strlen(s) >= 1023)
		cli_die(EXIT_USAGE, "--mstx-include input length exceeds limitation");
	/* Messages are the '|'-separated pieces; a '|' at the very end adds
	 * none (the reference's split), an empty piece elsewhere is one. */
	for (p = s;; p++) {
		if (*p == '|' || !*p) {
			int trailing = !*p && p[-1] == '|'; /* s is not empty here */
			if (tok == 0 && !trailing)
				cli_die(EXIT_USAGE, "invalid include string, include string is too long or use unsupported "
				        "character in include string. Support characters in one message are: A-Z a-z 0-9 _");
			tok = 0;
			if (!*p)
				break;
			continue;
		}
		if (!(*p == '_' || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
			cli_die(EXIT_USAGE, "invalid include string, include string is too long or use unsupported "
			        "character in include string. Support characters in one message are: A-Z a-z 0-9 _");
		tok++;
	}
	return s;
}

static void check_core_ids(const char *s)
{
	const char *p = s;
	if (strlen(s) > 200)
		cli_die(EXIT_USAGE, "--core-id: longer than 200 characters");
	while (*p) {
		unsigned v = 0, n = 0;
		while (*p >= '0' && *p <= '9' && n < 4) {
			v = v * 10 + (unsigned)(*p++ - '0');
			n++;
		}
		if (!n || v > 49 || (*p && *p != '|'))
			cli_die(EXIT_USAGE, "--core-id=%s: core ids are integers in [0, 49] separated by '|'", s);
		if (*p)
			p++;
	}
}

/* The next name of a comma-separated metric list at *p, lower-cased into
 * tok (64 bytes; empty names skipped); 0 at the end. */
static int next_metric(const char **p, char *tok)
{
	for (;;) {
		const char *s = *p, *e;
		size_t n, i;
		if (!*s)
			return 0;
		e = strchr(s, ',');
		if (!e)
			e = s + strlen(s);
		*p = *e ? e + 1 : e;
		n = (size_t)(e - s);
		if (n == 0)
			continue;
		if (n >= 64)
			n = 63;
		for (i = 0; i < n; i++)
			tok[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
		tok[n] = 0;
		return 1;
	}
}

/* The element of the list s that reads tok in any case, as the user
 * wrote it (tok itself when none does). */
static const char *metric_as_given(const char *s, const char *tok, size_t *len)
{
	size_t tn = strlen(tok);
	while (*s) {
		size_t n = strcspn(s, ",");
		if (n == tn && !strncasecmp(s, tok, n)) {
			*len = n;
			return s;
		}
		s += n + (s[n] != 0);
	}
	*len = tn;
	return tok;
}


/* --aic-metrics: names of the reference, any case, comma separated.
 * from names where the list came from, for the message. */
static void check_metrics(const char *s, const char *from, int sim)
{
	static const char *const known[] = {
		"pipeutilization", "arithmeticutilization", "l2cache", "memory", "memoryl0", "memoryub",
		"resourceconflictratio", "default", "kernelscale", "occupancy", "timelinedetail", "roofline",
		"pipetimeline", "instrtimeline", "pcsampling", "basicinfo", "source", "memorydetail",
		"pmsampling", "overhead", NULL };
	char tok[64];
	const char *p = s;
	if (strlen(s) > 200)
		cli_die(EXIT_USAGE, "%s: longer than 200 characters", from);
	while (next_metric(&p, tok)) {
		size_t i;
		int ok = 0;
		for (i = 0; known[i]; i++)
			ok |= !strcmp(tok, known[i]);
		if (!ok)
			cli_die(EXIT_USAGE, "%s=%s: unknown metric %s", from, s, tok);
		if (sim && !strcmp(tok, "timelinedetail"))
			cli_die(EXIT_USAGE, "%s=TimelineDetail is invalid in simulator", from);
	}
}

/* ---- --device: the metric groups as capture modes ---- */

/* The PMU groups, in the reference's order (ProfMetrics): what decides the
 * events a replay programs. */
enum { G_PIPE, G_ARITH, G_L2, G_MEMORY, G_CONFLICT, G_L0, G_UB, G_OCCUPANCY, G_ROOFLINE, G_NPMU };
#define G_ALL ((1u << G_NPMU) - 1)
static const char *const pmu_group_names[G_NPMU] = {
	"PipeUtilization", "ArithmeticUtilization", "L2Cache", "Memory", "ResourceConflictRatio", "MemoryL0",
	"MemoryUB", "Occupancy", "Roofline" };

/* What --aic-metrics asks of a device run, as the reference reads it: no
 * list (or an empty one) turns every PMU group on; a list turns on what it
 * names (Default: the PMU groups; Roofline and MemoryDetail: every group
 * too; PcSampling also Source; KernelScale alone: every group). */
static struct {
	unsigned pmu;             /* bits G_* */
	int given;                /* a list was given */
	int basic_info, kernel_scale, timeline_detail, source, memory_detail, pipe_tl, instr_tl, pcsampling;
} dev;

/* Chips a device metric runs on (the reference's on-board table). */
enum { ON_A2 = 1, ON_A3 = 2, ON_310P = 4, ON_A5 = 8, ON_ALL = 15 };

static unsigned chip_bit(enum chip_family f)
{
	return f == CHIP_A2 ? ON_A2 : f == CHIP_A3 ? ON_A3 : f == CHIP_310P ? ON_310P : f == CHIP_A5 ? ON_A5 : 0;
}

static void device_metrics(const char *s, enum chip_family fam)
{
	static const struct { const char *name; unsigned chips; } table[] = {
		{ "pipeutilization", ON_ALL }, { "arithmeticutilization", ON_ALL }, { "l2cache", ON_ALL },
		{ "memory", ON_ALL }, { "resourceconflictratio", ON_ALL }, { "memoryl0", ON_ALL },
		{ "memoryub", ON_ALL }, { "occupancy", ON_A2 | ON_A3 | ON_A5 }, { "roofline", ON_ALL },
		{ "default", ON_ALL }, { "kernelscale", ON_A2 | ON_A3 | ON_A5 },
		{ "timelinedetail", ON_A2 | ON_A3 | ON_A5 }, { "basicinfo", ON_ALL },
		{ "source", ON_A2 | ON_A3 | ON_A5 }, { "memorydetail", ON_A2 | ON_A3 | ON_A5 },
		{ "pipetimeline", ON_A5 }, { "instrtimeline", ON_A5 }, { "pcsampling", ON_A5 }, { NULL, 0 } };
	char tok[64];
	const char *p;
	int ntok = 0, only_scale = 0;
	dev.pmu = G_ALL;
	if (!s || !*s)
		return;
	dev.given = 1;
	dev.pmu = 0;
	/* First the flags of every name, then the checks, as the reference
	 * parses the whole list before checking it. */
	for (int pass = 0; pass < 2; pass++)
		for (p = s; next_metric(&p, tok);) {
			size_t i;
			if (pass == 1) {
				if (dev.pipe_tl && dev.instr_tl)
					cli_die(EXIT_USAGE, "Unexpected argument --aic-metrics, 'PipeTimeline' and 'InstrTimeline' "
					        "cannot be specified together.");
				for (i = 0; table[i].name && strcmp(table[i].name, tok); i++)
					;
				if (!table[i].name)
					cli_die(EXIT_USAGE, "Unexpected argument in --aic-metrics, maybe in wrong run mode");
				if (!(table[i].chips & chip_bit(fam))) {
					/* the reference's words, then which name and chip */
					size_t n = 0;
					const char *b = metric_as_given(s, tok, &n);
					cli_die(EXIT_USAGE, "Unexpected argument in --aic-metrics, maybe in wrong soc platform: "
					        "--aic-metrics=%.*s: not supported on this chip (%s)", (int)n, b,
					        soc_opt ? soc_opt : CHIP_DEFAULT_SOC);
				}
				continue;
			}
			ntok++;
			if (!strcmp(tok, "default") || !strcmp(tok, "roofline") || !strcmp(tok, "memorydetail"))
				dev.pmu = G_ALL;
			if (!strcmp(tok, "kernelscale"))
				dev.kernel_scale = only_scale = 1;
			else if (!strcmp(tok, "basicinfo"))
				dev.basic_info = 1;
			else if (!strcmp(tok, "timelinedetail"))
				dev.timeline_detail = 1;
			else if (!strcmp(tok, "source"))
				dev.source = 1;
			else if (!strcmp(tok, "memorydetail"))
				dev.memory_detail = 1;
			else if (!strcmp(tok, "pipetimeline"))
				dev.pipe_tl = 1;
			else if (!strcmp(tok, "instrtimeline"))
				dev.instr_tl = 1;
			else if (!strcmp(tok, "pcsampling"))
				dev.pcsampling = dev.source = 1;
			for (i = 0; i < G_NPMU; i++)
				if (!strcasecmp(tok, pmu_group_names[i]))
					dev.pmu |= 1u << i;
		}
	if (only_scale && ntok == 1)
		dev.pmu = G_ALL;
}

/* The replays of a captured launch (kernel replay: kernel launches measured;
 * range replay: runs of its mstx range; application replay: runs of the
 * application), as the reference
 * counts them: the PMU replays of the fixed event lists (10 on Atlas A2/A3,
 * 7 on 310P, 6 on Ascend950; kernel and range replay always program the
 * whole lists), one when only BasicInfo is asked for (the task's duration). */
static unsigned long dev_replays;
/* The events programmed (aic, aiv): the fixed lists, or in application
 * replay of some groups only theirs (pmu_program_events). */
static uint16_t dev_events[2][PMU_EVENTS_MAX];
static size_t dev_nevents[2];
static int dev_trimmed;

static void device_plan(void)
{
	enum board_fmt fmt = board_fmt_of(chip_find(soc_opt ? soc_opt : CHIP_DEFAULT_SOC)->family);
	size_t slots, k, most = 0;
	if ((int)fmt < 0)
		return; /* said by find_device */
	slots = board_pmu_slots(fmt);
	dev_trimmed = replay_mode == REPLAY_APPLICATION && dev.pmu && dev.pmu != G_ALL && fmt != BOARD_310P;
	for (k = 0; k < 2; k++) {
		const uint16_t *fix;
		enum board_core core = k ? BOARD_VECTOR : BOARD_CUBE;
		if (fmt == BOARD_310P && k) {
			dev_nevents[k] = 0;
			continue;
		}
		if (dev_trimmed) {
			dev_nevents[k] = pmu_program_events(fmt, core, dev.pmu, dev_events[k], PMU_EVENTS_MAX);
		} else {
			fix = pmu_replay_events(fmt, core, &dev_nevents[k]);
			memcpy(dev_events[k], fix, dev_nevents[k] * sizeof *fix);
		}
		if (dev_nevents[k] > most)
			most = dev_nevents[k];
	}
	/* At least one, for the task's stamps. */
	dev_replays = dev.pmu && most ? (most + slots - 1) / slots : 1;
}

static void events_text(char *buf, size_t cap, int k, char sep)
{
	size_t i, n = 0;
	buf[0] = 0;
	for (i = 0; i < dev_nevents[k] && n + 8 < cap; i++)
		n += (size_t)snprintf(buf + n, cap - n, "%s%u", i ? (char[]){ sep, 0 } : "", dev_events[k][i]);
}

/* --replay-mode, --warm-up, --kill: the reference's checks and words. */
static void device_options(const char *kill_s, const char *mode_s, const char *warm_s)
{
	enum chip_family fam = chip_find(soc_opt ? soc_opt : CHIP_DEFAULT_SOC)->family;
	int range_ok = fam == CHIP_A2 || fam == CHIP_A3 || fam == CHIP_A5;
	if (kill_s && *kill_s) {
		if (strcmp(kill_s, "on") && strcmp(kill_s, "off"))
			cli_die(EXIT_USAGE, "Kill should be on/off");
		kill_on = !strcmp(kill_s, "on");
	}
	if (mode_s && *mode_s) {
		if (!strcmp(mode_s, "kernel"))
			replay_mode = REPLAY_KERNEL;
		else if (!strcmp(mode_s, "application"))
			replay_mode = REPLAY_APPLICATION;
		else if (!strcmp(mode_s, "range") && range_ok)
			replay_mode = REPLAY_RANGE;
		else
			cli_die(EXIT_USAGE, "Replay mode should be %s", range_ok ? "application/kernel/range"
			                                                         : "application/kernel");
	}
	if (replay_mode == REPLAY_APPLICATION && dev.timeline_detail)
		cli_die(EXIT_USAGE, "--aic-metrics=TimelineDetail is invalid when --replay-mode=application");
	if (replay_mode == REPLAY_RANGE) {
		if (!mstx_on)
			cli_die(EXIT_USAGE, "--replay-mode=range only support when --mstx=on");
		if (fam == CHIP_A5 && (dev.pcsampling || (dev.pmu & 1u << G_ROOFLINE) || dev.source || dev.pipe_tl ||
		                       dev.instr_tl))
			cli_die(EXIT_USAGE, "--aic-metrics=Source/PcSampling/Roofline/PipeTimeline/InstrTimeline is invalid "
			        "when --replay-mode=range on Ascend 950");
		if (dev.timeline_detail || dev.source || dev.memory_detail)
			cli_die(EXIT_USAGE, "--aic-metrics=TimelineDetail/Source/MemoryDetail is invalid when "
			        "--replay-mode=range");
	}
	if (warm_s && *warm_s) {
		/* A number (an optional sign, digits) that fits an int32. */
		const char *d = warm_s + (*warm_s == '+' || *warm_s == '-');
		long long v;
		if (!*d || strlen(d) > 10 || strspn(d, "0123456789") != strlen(d) ||
		    (v = strtoll(warm_s, NULL, 10)) > INT32_MAX || v < INT32_MIN)
			cli_die(EXIT_USAGE, "Warm up times should be number and within [0, 500]");
		if (v < 0 || v > 500)
			cli_die(EXIT_USAGE, "Warm up times should within [0, 500]");
		warm_up = (unsigned long)v;
	}
	/* What the reference does and optrace does not: the device-to-simulator
	 * replay of TimelineDetail. */
	if (dev.timeline_detail)
		cli_die(EXIT_USAGE, "--aic-metrics=TimelineDetail: the device-to-simulator replay is not supported "
		        "(capture the kernel in the simulator instead)");
	device_plan();
}

/* Does the --aic-metrics list name metric (lower case)? */
static int metric_on(const char *m, const char *metric)
{
	size_t n = strlen(metric);
	for (const char *p = m; p && *p; p += strcspn(p, ",") + (p[strcspn(p, ",")] != 0))
		if (strcspn(p, ",") == n && !strncasecmp(p, metric, n))
			return 1;
	return 0;
}

/* InstrTimeline / PipeTimeline (on the device only) and
 * --instr-timeline-pipe: the reference's rules; the chip is checked
 * with the SoC (timeline_chip). */
static void check_timeline(void)
{
	int instr = metric_on(aic_metrics, "instrtimeline"), pipe = metric_on(aic_metrics, "pipetimeline");
	if (instr && pipe)
		cli_die(EXIT_USAGE, "--aic-metrics: 'PipeTimeline' and 'InstrTimeline' cannot be specified together");
	if (!instr_pipes)
		return;
	if (!instr)
		cli_die(EXIT_USAGE, "--instr-timeline-pipe only works with --aic-metrics=InstrTimeline");
	for (const char *p = instr_pipes; *p;) {
		size_t n = strcspn(p, "|");
		if (biu_pipe_find(p, n, 0) < 0)
			cli_die(EXIT_USAGE, "--instr-timeline-pipe=%s: pipes are cube fixp vector mte1 mte2 mte3, "
			        "separated by '|'", instr_pipes);
		p += n + (p[n] != 0);
	}
}

/* PMSampling (the simulator's MTE log) only when a metric list names it,
 * as the reference: its default turns the PMU groups on, not sampling. */
static int pmsampling_on(const char *m)
{
	const char *p;
	if (!m || !*m)
		return 0;
	for (p = m; *p; p++)
		if (!strncasecmp(p, "pmsampling", 10))
			return 1;
	return 0;
}

static void parse_timeout(const char *s)
{
	size_t n = strlen(s);
	if (n > 1 && s[n - 1] == 's') {
		char num[16];
		if (n > sizeof num)
			cli_die(EXIT_USAGE, "--timeout=%s: too long", s);
		memcpy(num, s, n - 1);
		num[n - 1] = 0;
		timeout_s = ranged("--timeout", num, 1, 2880ul * 60);
	} else {
		timeout_s = ranged("--timeout", s, 1, 2880) * 60;
	}
}

/* Options are taken first and checked after, in the reference's order
 * (the application, then --kernel-name, --launch-count, --mstx,
 * --mstx-include, --aic-metrics, --core-id, --dump), whatever their order
 * on the command line; then the options the reference does not have and
 * the combinations. */
static void parse_args(int argc, char **argv)
{
	int i;
	const char *v;
	const char *count_s = NULL, *skip_s = NULL, *timeout_str = NULL, *dump_s = NULL, *mstx_s = NULL;
	const char *include_s = NULL, *kill_s = NULL, *mode_s = NULL, *warm_s = NULL;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (a[0] != '-' || !a[1])
			break;
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(usage_text, stdout);
			exit(0);
		} else if (!strcmp(a, "--version")) {
			cli_version();
		} else if (!strcmp(a, "-q")) {
			cli_verbosity = 0;
		} else if (!strcmp(a, "-v")) {
			cli_verbosity = 2;
		} else if (!strcmp(a, "--live")) {
			live = 1;
		} else if (!strcmp(a, "--device")) {
			device = 1;
		} else if (!strcmp(a, "--replay")) {
			replay = 1;
		} else if (!strcmp(a, "--no-api-spans")) {
			no_spans = 1;
		} else if (take(a, "-o", &i, argc, argv, &v) || take(a, "--output", &i, argc, argv, &v)) {
			out_dir = *v ? v : NULL;
		} else if (take(a, "--soc-version", &i, argc, argv, &v)) {
			/* The table's spelling names the simulator directory; a
			 * name not in the table is checked against those
			 * installed, which the error then lists. */
			soc_opt = !*v ? NULL : chip_find(v)->family != CHIP_UNKNOWN ? chip_find(v)->soc : v;
		} else if (take(a, "--kernel-name", &i, argc, argv, &v)) {
			kernel_names = v;
		} else if (take(a, "--launch-count", &i, argc, argv, &v)) {
			count_s = v;
		} else if (take(a, "--launch-skip-before-match", &i, argc, argv, &v)) {
			skip_s = v;
		} else if (take(a, "--timeout", &i, argc, argv, &v)) {
			timeout_str = v;
		} else if (take(a, "--dump", &i, argc, argv, &v)) {
			dump_s = v;
		} else if (take(a, "--mstx", &i, argc, argv, &v)) {
			mstx_s = v;
		} else if (take(a, "--mstx-include", &i, argc, argv, &v)) {
			include_s = v;
		} else if (take(a, "--aic-metrics", &i, argc, argv, &v)) {
			aic_metrics = v;
		} else if (take(a, "--instr-timeline-pipe", &i, argc, argv, &v) || take(a, "--pipe", &i, argc, argv, &v)) {
			instr_pipes = v;
		} else if (take(a, "--core-id", &i, argc, argv, &v)) {
			core_ids = v;
		} else if (take(a, "--cann-root", &i, argc, argv, &v)) {
			cann_root = v;
		} else if (take(a, "--config", &i, argc, argv, &v)) {
			config_file = v;
		} else if (take(a, "--replay-mode", &i, argc, argv, &v)) {
			mode_s = v;
		} else if (take(a, "--warm-up", &i, argc, argv, &v)) {
			warm_s = v;
		} else if (take(a, "--kill", &i, argc, argv, &v)) {
			kill_s = v;
		} else {
			cli_warn("unknown option %s", a);
			fputs(usage_text, stderr);
			exit(EXIT_USAGE);
		}
	}
	if (!device && (kill_s || mode_s || warm_s))
		cli_die(EXIT_USAGE, "%s applies to --device only", kill_s ? "--kill" : mode_s ? "--replay-mode" : "--warm-up");
	if (device && (live || config_file || dump_s))
		cli_die(EXIT_USAGE, "--device cannot be used with %s", live ? "--live" : config_file ? "--config" : "--dump");
	app = argv + i;
	if (!!config_file + !!app[0] != 1) {
		cli_warn(config_file ? "--config and an application cannot be used together"
		                     : "no application to run (or --config=FILE)");
		fputs(usage_text, stderr);
		exit(EXIT_USAGE);
	}
	if (kernel_names) {
		if (config_file)
			cli_die(EXIT_USAGE, "--kernel-name only works with an application, not with --config");
		check_kernel_names(kernel_names);
	}
	if (count_s)
		launch_count = ranged("--launch-count", count_s, 1, 5000);
	/* An empty value keeps the default, as with the reference. */
	if (mstx_s && *mstx_s) {
		if (strcmp(mstx_s, "on") && strcmp(mstx_s, "off"))
			cli_die(EXIT_USAGE, "--mstx should use on/off");
		mstx_on = !strcmp(mstx_s, "on");
	}
	if (include_s)
		mstx_include = check_mstx_include(include_s);
	if (aic_metrics)
		check_metrics(aic_metrics, "--aic-metrics", !device);
	if (device)
		device_metrics(aic_metrics, chip_find(soc_opt ? soc_opt : CHIP_DEFAULT_SOC)->family);
	check_timeline();
	if (core_ids)
		check_core_ids(core_ids);
	if (dump_s) {
		if (strcmp(dump_s, "on") && strcmp(dump_s, "off"))
			cli_die(EXIT_USAGE, "--dump should be on or off");
		dump_on = !strcmp(dump_s, "on");
	}
	if (skip_s)
		launch_skip = ranged("--launch-skip-before-match", skip_s, 0, 1000);
	if (device)
		device_options(kill_s, mode_s, warm_s);
	if (timeout_str)
		parse_timeout(timeout_str);
	if (config_file && soc_opt)
		cli_die(EXIT_USAGE, "--soc-version does not apply to --config: the simulator comes from LD_LIBRARY_PATH");
	if (live && dump_on == 1)
		cli_die(EXIT_USAGE, "--live and --dump=on cannot be used together");
	if (dump_on == 0)
		live = 1;
	if (live && launch_count > 1)
		cli_die(EXIT_USAGE, "--live streams one launch: --launch-count must be 1 (or capture dumps)");
	if (live && isatty(1))
		cli_die(EXIT_USAGE, "--live writes records to stdout: redirect it or pipe it to instr-parse");
}

/* ---- GE_PROFILING_OPTIONS: defaults in the graph engine's convention ---- */

static char ge_output[4096], ge_metrics[256];

/* A string member of the options object; absent is fine, anything else
 * than a string is an error, as a malformed object is: a profile taken
 * with options silently dropped is not the profile that was asked for. */
static void ge_string(const cJSON *root, const char *key, char *buf, size_t cap)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, key);
	if (!it)
		return;
	if (!cJSON_IsString(it))
		cli_die(EXIT_USAGE, "GE_PROFILING_OPTIONS: \"%s\" should be a string", key);
	if (strlen(it->valuestring) >= cap)
		cli_die(EXIT_USAGE, "GE_PROFILING_OPTIONS: \"%s\" is longer than %zu characters", key, cap - 1);
	strcpy(buf, it->valuestring);
}

static void ge_defaults(void)
{
	const char *mode = getenv("GE_PROFILING_MODE"), *opts = getenv("GE_PROFILING_OPTIONS");
	const char *end = NULL;
	cJSON *root;
	if (!mode || (strcmp(mode, "true") && strcmp(mode, "1")) || !opts)
		return;
	root = cJSON_ParseWithOpts(opts, &end, 1);
	if (!root) {
		/* Where the parser stopped, and a few characters from there
		 * (control characters shown as '?', so the message stays one line). */
		size_t at = end && end >= opts ? (size_t)(end - opts) : 0, i;
		char near[24];
		for (i = 0; i < sizeof near - 1 && opts[at + i]; i++)
			near[i] = (unsigned char)opts[at + i] < 0x20 || opts[at + i] == 0x7f ? '?' : opts[at + i];
		near[i] = 0;
		if (!opts[at])
			cli_die(EXIT_USAGE, "GE_PROFILING_OPTIONS: not valid JSON: it ends at character %zu before the "
			        "object is complete", at + 1);
		cli_die(EXIT_USAGE, "GE_PROFILING_OPTIONS: not valid JSON at character %zu (at \"%s\")", at + 1, near);
	}
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		cli_die(EXIT_USAGE, "GE_PROFILING_OPTIONS: should be a JSON object");
	}
	ge_string(root, "output", ge_output, sizeof ge_output);
	ge_string(root, "aic_metrics", ge_metrics, sizeof ge_metrics);
	cJSON_Delete(root);
	if (!out_dir && ge_output[0]) {
		out_dir = ge_output;
		if (cli_verbosity > 1)
			cli_note("output directory %s from GE_PROFILING_OPTIONS", out_dir);
	}
	if (!aic_metrics && ge_metrics[0]) {
		check_metrics(ge_metrics, "GE_PROFILING_OPTIONS: aic_metrics", !device);
		aic_metrics = ge_metrics;
		if (device) {
			/* The device's groups, and what they allow, from the options. */
			memset(&dev, 0, sizeof dev);
			device_metrics(aic_metrics, chip_find(soc_opt ? soc_opt : CHIP_DEFAULT_SOC)->family);
			device_options(NULL, NULL, NULL);
		}
	}
}

/* ---- paths ---- */

static char exe_dir[PATH_MAX];

static void find_exe_dir(void)
{
	ssize_t n = readlink("/proc/self/exe", exe_dir, sizeof exe_dir - 1);
	char *s;
	if (n <= 0)
		n = 0;
	exe_dir[n] = 0;
	if ((s = strrchr(exe_dir, '/')))
		*s = 0;
}

static char inject_lib[PATH_MAX];

static void find_inject(void)
{
	const char *e = getenv("OPTRACE_INJECT_LIB");
	static const char *const rel[] = { "../lib/liboptrace-inject.so", "../lib/optrace/liboptrace-inject.so" };
	size_t i;
	char p[PATH_MAX * 2];
	if (e && *e) {
		if (!io_is_file(e))
			cli_die(EXIT_UNUSABLE, "OPTRACE_INJECT_LIB=%s: no such file", e);
		snprintf(inject_lib, sizeof inject_lib, "%s", e);
		return;
	}
	for (i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/%s", exe_dir, rel[i]);
		if (io_is_file(p) && realpath(p, inject_lib))
			return;
	}
	cli_die(EXIT_UNUSABLE, "the preload library liboptrace-inject.so is not installed next to %s/ "
	        "(set OPTRACE_INJECT_LIB)", exe_dir);
}

/* ---- the simulator ---- */

static char root[PATH_MAX], soc[128], sim_lib[PATH_MAX * 2];

/* The on-board metrics only Ascend950 has (the timelines, PC sampling),
 * on another chip: refused before the run. */
static void timeline_chip(void)
{
	static const char *const a5_only[][2] = {
		{ "instrtimeline", "InstrTimeline" }, { "pipetimeline", "PipeTimeline" }, { "pcsampling", "PcSampling" } };
	if (chip_find(soc)->family == CHIP_A5)
		return;
	for (size_t i = 0; i < sizeof a5_only / sizeof a5_only[0]; i++)
		if (metric_on(aic_metrics, a5_only[i][0]))
			cli_die(EXIT_USAGE, "--aic-metrics=%s: not supported on this chip (%s): the on-board instruction "
			        "and pipe timelines and PC sampling are Ascend950's", a5_only[i][1], soc);
}

/* The device's side of a timeline: what it stamps, and for InstrTimeline
 * the compiler's instrumentation of each captured kernel (bisheng-tune
 * in ROOT/compiler/ccec_compiler/bin, run by the preload library). */
static void timeline_env(struct env *env)
{
	char tool[PATH_MAX * 2];
	int instr = metric_on(aic_metrics, "instrtimeline");
	env_unset(env, "OPTRACE_DFX_TUNE");
	env_unset(env, "OPTRACE_DFX_PIPES");
	env_unset(env, "CAMODEL_DEVICE_DFX_MAP");
	if (!instr && !metric_on(aic_metrics, "pipetimeline"))
		return;
	env_set(env, "CAMODEL_DEVICE_TIMELINE", instr ? "InstrTimeline" : "PipeTimeline");
	if (!instr)
		return;
	snprintf(tool, sizeof tool, "%s/compiler/ccec_compiler/bin/bisheng-tune", root);
	if (access(tool, X_OK))
		cli_die(EXIT_UNUSABLE, "--aic-metrics=InstrTimeline: the compiler's instrumentation is missing: %s:", tool);
	env_set(env, "OPTRACE_DFX_TUNE", tool);
	if (instr_pipes)
		env_set(env, "OPTRACE_DFX_PIPES", instr_pipes);
}

/* --device: the runtime an application links, in ROOT/lib64 (on a real
 * machine the driver's, here the stand-in's device mode); the SoC from
 * --soc-version, else the default. */
static void find_device(void)
{
	char p[PATH_MAX * 2];
	snprintf(soc, sizeof soc, "%s", soc_opt ? soc_opt : CHIP_DEFAULT_SOC);
	if (board_fmt_of(chip_find(soc)->family) < 0)
		cli_die(EXIT_USAGE, "--device: %s has no on-board PMU data (the on-board flow knows Atlas A2/A3, 310P "
		        "and Ascend950)", soc);
	if (snprintf(sim_lib, sizeof sim_lib, "%s/lib64", root) >= (int)sizeof sim_lib ||
	    snprintf(p, sizeof p, "%s/libruntime.so", sim_lib) >= (int)sizeof p)
		cli_die(EXIT_USAGE, "%s: path too long", root);
	if (!io_is_file(p))
		cli_die(EXIT_UNUSABLE, "no device runtime found: %s is missing", p);
	timeline_chip();
}

static void find_simulator(void)
{
	const char *r = cann_root ? cann_root : getenv("ASCEND_HOME_PATH");
	char p[PATH_MAX * 2], dir[PATH_MAX * 2], fromld[128];
	const char *simdir;
	const struct chip *ch;
	if (!r || !*r) {
		snprintf(p, sizeof p, "%s/../cann", exe_dir);
		if (!io_is_dir(p))
			cli_die(EXIT_UNUSABLE, "no %s found: set ASCEND_HOME_PATH or --cann-root "
			        "(and the bundled stand-in is not built: %s)", device ? "CANN runtime" : "simulator", p);
		r = p;
	}
	if (!realpath(r, root))
		cli_die(EXIT_UNUSABLE, "%s: no such CANN root:", r);
	/* The simulator's libraries go into LD_LIBRARY_PATH, where ':' and ';'
	 * separate directories: such a root cannot be named there at all. */
	if (strpbrk(root, ":;"))
		cli_die(EXIT_USAGE, "%s: a CANN root whose path holds ':' or ';' cannot go into LD_LIBRARY_PATH", root);
	if (device) {
		find_device();
		return;
	}
	snprintf(dir, sizeof dir, "%s/tools/simulator", root);
	if (!io_is_dir(dir))
		cli_die(EXIT_UNUSABLE, "no simulator found: %s is not a directory", dir);
	if (soc_opt) {
		snprintf(soc, sizeof soc, "%s", soc_opt);
	} else if (soc_from_ld_path(getenv("LD_LIBRARY_PATH"), root, fromld, sizeof fromld)) {
		snprintf(soc, sizeof soc, "%s", fromld);
	} else {
		snprintf(soc, sizeof soc, "%s", CHIP_DEFAULT_SOC);
	}
	ch = chip_find(soc);
	/* The Ascend950 family shares one simulator: dav_3510. */
	simdir = !strncmp(soc, "Ascend950", 9) && ch->family == CHIP_A5 ? "dav_3510" : soc;
	if (snprintf(p, sizeof p, "%s/%s", dir, simdir) >= (int)sizeof p)
		cli_die(EXIT_USAGE, "%s: path too long", dir);
	if (!io_is_dir(p)) {
		DIR *d = opendir(dir);
		struct dirent *e;
		char list[1024] = "";
		size_t n = 0;
		while (d && (e = readdir(d)))
			if ((!strncmp(e->d_name, "Ascend", 6) || !strncmp(e->d_name, "dav_", 4)) &&
			    n + strlen(e->d_name) + 2 < sizeof list)
				n += (size_t)snprintf(list + n, sizeof list - n, " %s", e->d_name);
		if (d)
			closedir(d);
		if (n == 0)
			cli_die(EXIT_UNUSABLE, "no simulator found in %s", dir);
		cli_die(EXIT_USAGE, "unknown SoC %s: %s has:%s", soc, dir, list);
	}
	if (snprintf(sim_lib, sizeof sim_lib, "%s/lib", p) >= (int)sizeof sim_lib ||
	    snprintf(p, sizeof p, "%s/libruntime_camodel.so", sim_lib) >= (int)sizeof p)
		cli_die(EXIT_USAGE, "%s: path too long", dir);
	if (!io_is_file(p))
		cli_die(EXIT_UNUSABLE, "no simulator found: %s is missing", p);
}

/* The application: a path with '/' as is, else the first executable in
 * PATH (not the current directory first, as the reference does). */
static void check_app(const char *a)
{
	struct stat st;
	char p[PATH_MAX * 2];
	const char *path = getenv("PATH"), *s, *e;
	if (strchr(a, '/')) {
		if (stat(a, &st) || S_ISDIR(st.st_mode) || access(a, X_OK))
			cli_die(EXIT_USAGE, "%s: the application does not exist or is not executable", a);
		return;
	}
	for (s = path ? path : "/usr/bin:/bin"; s; s = e ? e + 1 : NULL) {
		e = strchr(s, ':');
		snprintf(p, sizeof p, "%.*s/%s", e ? (int)(e - s) : (int)strlen(s), *s && s != e ? s : ".", a);
		if (stat(p, &st) == 0 && !S_ISDIR(st.st_mode) && access(p, X_OK) == 0)
			return;
	}
	cli_die(EXIT_USAGE, "%s: the application is not found in PATH or is not executable", a);
}

/* ---- the run directory ---- */

static int run_kept; /* an exit before this leaves no run directory */

static char run[PATH_MAX], dev0[PATH_MAX + 16], tmpd[PATH_MAX + 32], fifo[PATH_MAX + 32];

static void mkdir_p(const char *path)
{
	char buf[PATH_MAX];
	char *p;
	snprintf(buf, sizeof buf, "%s", path);
	for (p = buf + 1; *p; p++)
		if (*p == '/') {
			*p = 0;
			mkdir(buf, 0750);
			*p = '/';
		}
	if (mkdir(buf, 0750) && errno != EEXIST)
		cli_die(EXIT_IO, "%s: cannot create:", path);
}

/* On the exit-time cleanup list once the run directory exists. */
static void drop_run(void *arg)
{
	(void)arg;
	if (!run_kept && run[0])
		io_rm_tree(run);
}

static void make_run_dir(void)
{
	const char *o = out_dir ? out_dir : ".";
	char abs[PATH_MAX], stamp[32];
	time_t now = time(NULL);
	int tries;
	const char *bad;
	for (bad = o; *bad; bad++)
		if (*bad == '\n' || *bad == '\r' || *bad == '\t' || *bad == '\f' || *bad == '\v' ||
		    *bad == '\b' || *bad == 0x7f)
			cli_die(EXIT_USAGE, "--output: the path contains a control character");
	/* Followed when a link, as any path; what the run makes in it is
	 * new (mkdir, which no link planted there passes). */
	switch (io_out_dir(o)) {
	case 1:
		break;
	case 0:
		mkdir_p(o);
		break;
	default:
		if (errno == ENOTDIR)
			cli_die(EXIT_USAGE, "%s: the output path exists and is not a directory", o);
		cli_die(EXIT_IO, "%s:", o);
	}
	if (!realpath(o, abs))
		cli_die(EXIT_IO, "%s:", o);
	strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", localtime(&now));
	for (tries = 0; tries < 100; tries++) {
		unsigned char rnd[16];
		char letters[17];
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), i;
		if (fd < 0 || read(fd, rnd, sizeof rnd) != (ssize_t)sizeof rnd)
			cli_die(EXIT_IO, "/dev/urandom:");
		close(fd);
		for (i = 0; i < 16; i++)
			letters[i] = (char)('A' + rnd[i] % 26);
		letters[16] = 0;
		if ((size_t)snprintf(run, sizeof run, "%s/OPPROF_%s_%s", abs, stamp, letters) >= sizeof run - 64)
			cli_die(EXIT_USAGE, "%s: the output path is too long", abs);
		if (mkdir(run, 0750) == 0)
			break;
		if (errno != EEXIST)
			cli_die(EXIT_IO, "%s: cannot create:", run);
	}
	cli_cleanup_add(drop_run, NULL);
	snprintf(dev0, sizeof dev0, "%s/device0", run);
	snprintf(tmpd, sizeof tmpd, "%s/tmp_dump", dev0);
	if (mkdir(dev0, 0750) || mkdir(tmpd, 0750))
		cli_die(EXIT_IO, "%s: cannot create:", tmpd);
	{
		char p[PATH_MAX + 64];
		snprintf(p, sizeof p, "%s/host", tmpd);
		mkdir(p, 0750);
		snprintf(p, sizeof p, "%s/bin", tmpd);
		mkdir(p, 0750);
	}
}

/* ---- after the run ---- */

struct kernel {
	char *name, *dir;
	int order;
	unsigned block_dim;
};
static struct kernel *kernels;
static size_t nkernels;
static unsigned long long nlaunches, nspans, ndropped, nmstx_skipped;
static char *launched_names;

/* What could not be written: capture.rec (records_err, an errno), and the
 * files of launch directories the library or the rescue could not save,
 * each a path relative to the run and its message ("dump not saved: ...").
 * Any of them makes the exit status 4. */
static int records_err;
struct problem {
	char *file, *msg;
};
static struct problem *problems;
static size_t nproblems;

/* A path of the run as the manifest and capture.rec give it: relative to
 * the OPPROF directory, so that a tree moved elsewhere stays right. */
static const char *rel(const char *p, size_t n, size_t *outn)
{
	size_t rl = strlen(run);
	if (n > rl && !strncmp(p, run, rl) && p[rl] == '/') {
		*outn = n - rl - 1;
		return p + rl + 1;
	}
	*outn = n;
	return p;
}

static char *rel_dup(const char *p)
{
	size_t n;
	const char *r = rel(p, strlen(p), &n);
	return xstrndup(r, n);
}

static void add_problem(const char *file, size_t n, const char *msg, size_t mn)
{
	size_t rn;
	const char *r = rel(file, n, &rn);
	problems = xrealloc(problems, (nproblems + 1) * sizeof *problems);
	problems[nproblems].file = xstrndup(r, rn);
	problems[nproblems].msg = xstrndup(msg, mn);
	cli_warn("%s/%s: %s", run, problems[nproblems].file, problems[nproblems].msg);
	nproblems++;
}

/* A problem belongs to the launch whose directory holds its file. */
static int problem_of(const struct problem *pr, const struct kernel *k)
{
	size_t n = strlen(k->dir);
	return !strncmp(pr->file, k->dir, n) && pr->file[n] == '/';
}

static int kernel_complete(const struct kernel *k)
{
	size_t i;
	for (i = 0; i < nproblems; i++)
		if (problem_of(&problems[i], k))
			return 0;
	return 1;
}

static void note_name(const char *name, size_t len)
{
	size_t have = launched_names ? strlen(launched_names) : 0;
	char *p, n[1024];
	if (have > 4000 || len == 0 || len >= sizeof n)
		return;
	memcpy(n, name, len);
	n[len] = 0;
	if (launched_names) {
		for (p = launched_names; (p = strstr(p, n)); p += len)
			if ((p == launched_names || p[-1] == ' ') && (p[len] == ' ' || !p[len]))
				return;
	}
	launched_names = xrealloc(launched_names, have + len + 2);
	if (have)
		launched_names[have++] = ' ';
	memcpy(launched_names + have, n, len);
	launched_names[have + len] = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_kernels(void)
{
	size_t i;
	for (i = 0; i < nkernels; i++) {
		free(kernels[i].name);
		free(kernels[i].dir);
	}
	for (i = 0; i < nproblems; i++) {
		free(problems[i].file);
		free(problems[i].msg);
	}
	free(problems);
	free(kernels);
	free(launched_names);
}

/* The per-process host record files into OPPROF/capture.rec. */
static void merge_host_records(void)
{
	char dir[PATH_MAX + 64], path[PATH_MAX * 2];
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, i;
	struct wr *w;
	struct rec_out out;
	struct rec_dec dec = { 0 };
	snprintf(dir, sizeof dir, "%s/host", tmpd);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.') {
			names = xrealloc(names, (n + 1) * sizeof *names);
			names[n++] = xstrdup(e->d_name);
		}
	closedir(d);
	if (n)
		qsort(names, n, sizeof *names, cmp_str);
	snprintf(path, sizeof path, "%s/capture.rec", run);
	if (!(w = wr_open(path, 0))) {
		records_err = errno;
		cli_warn("%s:", path);
	}
	out.w = w;
	out.mode = REC_BIN;
	out.records = 0;
	out.producer = "sim-capture";
	if (w)
		rec_out_header(&out, soc, chip_find(soc)->mhz, app ? app[0] : config_file);
	for (i = 0; i < n; i++) {
		struct rd *r;
		const char *line;
		size_t len;
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		if (!(r = rd_open(path)))
			continue;
		while ((line = rd_line(r, &len))) {
			struct rec rc;
			const char *why;
			if (!len || rec_decode(&dec, line, len, &rc, &why) != DEC_OK)
				continue;
			if (rc.sc->kind == K_HEADER || rc.sc->kind == K_TRAILER)
				continue;
			if (rc.sc->kind == K_LAUNCH) {
				nlaunches++;
				note_name(rc.s[NS_NAME].p, rc.s[NS_NAME].n);
				rc.s[NS_DIR].p = rel(rc.s[NS_DIR].p, rc.s[NS_DIR].n, &rc.s[NS_DIR].n);
				if (rc.n[N_ORDER].i >= 0) {
					kernels = xrealloc(kernels, (nkernels + 1) * sizeof *kernels);
					kernels[nkernels].name = xstrndup(rc.s[NS_NAME].p, rc.s[NS_NAME].n);
					kernels[nkernels].dir = xstrndup(rc.s[NS_DIR].p, rc.s[NS_DIR].n);
					kernels[nkernels].order = (int)rc.n[N_ORDER].i;
					kernels[nkernels].block_dim = (unsigned)rc.n[N_BLOCKDIM].u;
					nkernels++;
				}
			} else if (rc.sc->kind == K_API) {
				nspans++;
			} else if (rc.sc->kind == K_DIAG && rc.s[DS_TOOL].n == 14 &&
			           !memcmp(rc.s[DS_TOOL].p, "optrace-inject", 14)) {
				if (rc.n[D_LEVEL].u == 2) {
					/* A note: a launch outside the mstx ranges. */
					if (rc.s[DS_MESSAGE].n >= 5 && !memcmp(rc.s[DS_MESSAGE].p, "mstx:", 5))
						nmstx_skipped += rc.n[D_COUNT].u;
				} else {
					/* Something of a captured launch that the
					 * library could not write (a full disk...). */
					add_problem(rc.s[DS_FILE].p, rc.s[DS_FILE].n, rc.s[DS_MESSAGE].p,
					            rc.s[DS_MESSAGE].n);
					rc.s[DS_FILE].p = rel(rc.s[DS_FILE].p, rc.s[DS_FILE].n, &rc.s[DS_FILE].n);
				}
			}
			if (w)
				rec_out_put(&out, &rc);
		}
		rd_close(r);
		free(names[i]);
	}
	free(names);
	rec_dec_free(&dec);
	if (!w)
		return;
	rec_out_trailer(&out, 0, 0, sigints > 0);
	if ((records_err = wr_close(w)))
		cli_warn("%s/capture.rec: %s", run, strerror(records_err));
}

/* A launch cut short (Ctrl+C, timeout, crash): its dumps are still in
 * tmp_dump; object_dump.txt says where they belong. */
static void rescue_interrupted(void)
{
	char path[PATH_MAX + 64], dest[PATH_MAX + 8];
	FILE *f;
	DIR *d;
	struct dirent *e;
	size_t n;
	snprintf(path, sizeof path, "%s/object_dump.txt", tmpd);
	if (!(f = fopen(path, "r")))
		return;
	if (!fgets(dest, sizeof dest, f)) {
		fclose(f);
		return;
	}
	fclose(f);
	n = strlen(dest);
	if (n && dest[n - 1] == '\n')
		dest[--n] = 0;
	/* Only a directory of this run. */
	if (strncmp(dest, dev0, strlen(dev0)) || strstr(dest, "/../") || !io_is_dir(dest))
		return;
	if (!(d = opendir(tmpd)))
		return;
	while ((e = readdir(d))) {
		char src[PATH_MAX * 2], dst[PATH_MAX * 2];
		struct stat st;
		if (e->d_name[0] == '.' || !strstr(e->d_name, "dump") || !strcmp(e->d_name, "object_dump.txt"))
			continue;
		snprintf(src, sizeof src, "%s/%s", tmpd, e->d_name);
		snprintf(dst, sizeof dst, "%s/%s", dest, e->d_name);
		if (lstat(src, &st) || !S_ISREG(st.st_mode) || st.st_size == 0)
			continue;
		if (rename(src, dst)) {
			char msg[160];
			snprintf(msg, sizeof msg, "dump not saved: %s", strerror(errno));
			add_problem(dst, strlen(dst), msg, strlen(msg));
		}
	}
	closedir(d);
	/* Its launch record was never written: list it from the path
	 * (<dev0>/<kernel>/<n>/dump). */
	{
		char *k = xstrdup(dest + strlen(dev0) + 1), *slash, *num, *rd = rel_dup(dest);
		size_t i;
		int dup = 0;
		for (i = 0; i < nkernels; i++)
			dup |= !strcmp(kernels[i].dir, rd);
		if (k && !dup && (slash = strchr(k, '/'))) {
			*slash = 0;
			num = slash + 1;
			kernels = xrealloc(kernels, (nkernels + 1) * sizeof *kernels);
			kernels[nkernels].name = k;
			kernels[nkernels].dir = rd;
			kernels[nkernels].order = atoi(num);
			kernels[nkernels].block_dim = 0;
			nkernels++;
		} else {
			free(k);
			free(rd);
		}
	}
	if (cli_verbosity)
		cli_note("kept what the interrupted launch wrote in %s", dest);
}

/* Launch directories whose launch record was lost (an application that
 * killed itself mid-launch, closed the library's record file...). */
static void scan_launch_dirs(void)
{
	DIR *d = opendir(dev0), *kd;
	struct dirent *k, *n;
	char kp[PATH_MAX * 2], dp[PATH_MAX * 3], *rdp;
	size_t i;
	while (d && (k = readdir(d))) {
		if (k->d_name[0] == '.' || !strcmp(k->d_name, "tmp_dump"))
			continue;
		snprintf(kp, sizeof kp, "%s/%s", dev0, k->d_name);
		if (!(kd = opendir(kp)))
			continue;
		while ((n = readdir(kd))) {
			int known = 0;
			if (n->d_name[0] < '0' || n->d_name[0] > '9')
				continue;
			snprintf(dp, sizeof dp, "%s/%s/dump", kp, n->d_name);
			if (!io_is_dir(dp))
				continue;
			rdp = rel_dup(dp);
			for (i = 0; i < nkernels; i++)
				known |= !strcmp(kernels[i].dir, rdp);
			if (known) {
				free(rdp);
				continue;
			}
			kernels = xrealloc(kernels, (nkernels + 1) * sizeof *kernels);
			kernels[nkernels].name = xstrdup(k->d_name);
			kernels[nkernels].dir = rdp;
			kernels[nkernels].order = atoi(n->d_name);
			kernels[nkernels].block_dim = 0;
			nkernels++;
		}
		closedir(kd);
	}
	if (d)
		closedir(d);
}

static void write_manifest(int app_status, int timed_out, const char *live_note)
{
	char path[PATH_MAX + 32];
	struct wr *w;
	struct json j;
	size_t i;
	int e;
	char **a;
	snprintf(path, sizeof path, "%s/manifest.json", run);
	/* Without a manifest the run is still what was captured: kept. */
	run_kept = 1;
	if (!(w = wr_open(path, 0)))
		cli_die(EXIT_IO, "%s:", path);
	json_init(&j, w);
	json_lines_at(&j, 1);
	json_begin_object(&j);
	json_kv_cstr(&j, "producer", "sim-capture " OPTRACE_VERSION);
	json_key(&j, "command");
	json_begin_array(&j);
	if (app)
		for (a = app; *a; a++)
			json_cstring(&j, *a);
	json_end_array(&j);
	if (config_file)
		json_kv_cstr(&j, "config", config_file);
	json_kv_cstr(&j, "soc", soc);
	json_kv_uint(&j, "mhz", chip_find(soc)->mhz);
	json_kv_cstr(&j, device ? "runtime" : "simulator", sim_lib);
	json_kv_cstr(&j, "mode", device ? "device" : live ? "live" : "dump");
	if (kernel_names)
		json_kv_cstr(&j, "kernel_name", kernel_names);
	json_kv_uint(&j, "launch_count", launch_count);
	if (launch_skip)
		json_kv_uint(&j, "launch_skip_before_match", launch_skip);
	if (mstx_on) {
		json_kv_cstr(&j, "mstx", "on");
		if (mstx_include)
			json_kv_cstr(&j, "mstx_include", mstx_include);
	}
	if (core_ids)
		json_kv_cstr(&j, "core_id", core_ids);
	if (aic_metrics)
		json_kv_cstr(&j, "aic_metrics", aic_metrics);
	if (device) {
		size_t g;
		json_kv_cstr(&j, "replay_mode", replay_mode_names[replay_mode]);
		json_key(&j, "groups");
		json_begin_array(&j);
		for (g = 0; g < G_NPMU; g++)
			if (dev.pmu >> g & 1)
				json_cstring(&j, pmu_group_names[g]);
		if (dev.basic_info)
			json_cstring(&j, "BasicInfo");
		if (dev.kernel_scale)
			json_cstring(&j, "KernelScale");
		if (dev.source)
			json_cstring(&j, "Source");
		if (dev.memory_detail)
			json_cstring(&j, "MemoryDetail");
		if (dev.pipe_tl)
			json_cstring(&j, "PipeTimeline");
		if (dev.instr_tl)
			json_cstring(&j, "InstrTimeline");
		if (dev.pcsampling)
			json_cstring(&j, "PcSampling");
		json_end_array(&j);
		json_kv_uint(&j, "replays", dev_replays);
		for (g = 0; g < 2; g++) {
			size_t e;
			json_key(&j, g ? "events_aiv" : "events_aic");
			json_begin_array(&j);
			for (e = 0; e < dev_nevents[g]; e++)
				json_uint(&j, dev_events[g][e]);
			json_end_array(&j);
		}
		json_kv_uint(&j, "app_runs", replay_mode == REPLAY_APPLICATION ? dev_replays : 1);
		json_kv_uint(&j, "warm_up", warm_up);
		json_key(&j, "kill");
		json_bool(&j, kill_on);
	}
	if (ge_output[0])
		json_kv_cstr(&j, "ge_output", ge_output);
	json_kv_uint(&j, "launches", nlaunches);
	if (mstx_on)
		json_kv_uint(&j, "mstx_skipped", nmstx_skipped);
	json_key(&j, "kernels");
	json_begin_array(&j);
	for (i = 0; i < nkernels; i++) {
		size_t p;
		json_begin_object(&j);
		json_kv_cstr(&j, "name", kernels[i].name);
		json_kv_uint(&j, "n", (uint64_t)kernels[i].order);
		json_kv_uint(&j, "block_dim", kernels[i].block_dim);
		json_kv_cstr(&j, "dir", kernels[i].dir);
		json_key(&j, "dumps_complete");
		json_bool(&j, kernel_complete(&kernels[i]));
		json_key(&j, "not_saved");
		json_begin_array(&j);
		for (p = 0; p < nproblems; p++)
			if (problem_of(&problems[p], &kernels[i])) {
				const char *why = strstr(problems[p].msg, "not saved: ");
				json_begin_object(&j);
				json_kv_cstr(&j, "file", problems[p].file + strlen(kernels[i].dir) + 1);
				json_kv_cstr(&j, "error", why ? why + 11 : problems[p].msg);
				json_end_object(&j);
			}
		json_end_array(&j);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "dumps_complete");
	json_bool(&j, nproblems == 0);
	json_key(&j, "records_complete");
	json_bool(&j, !records_err);
	if (records_err) {
		char msg[160];
		snprintf(msg, sizeof msg, "capture.rec: %s", strerror(records_err));
		json_kv_cstr(&j, "records_error", msg);
	}
	json_kv_uint(&j, "api_spans", nspans);
	json_kv_uint(&j, "dropped", ndropped);
	json_key(&j, "app_status");
	if (WIFEXITED(app_status))
		json_int(&j, WEXITSTATUS(app_status));
	else
		json_int(&j, -(int64_t)WTERMSIG(app_status));
	json_key(&j, "interrupted");
	json_bool(&j, sigints > 0);
	json_key(&j, "timed_out");
	json_bool(&j, timed_out);
	if (live_note)
		json_kv_cstr(&j, "note", live_note);
	json_end_object(&j);
	wr_putc(w, '\n');
	if ((e = wr_close(w)))
		cli_die(EXIT_IO, "%s: %s", path, strerror(e));
}

/* Application replay of some groups: each captured launch's dump directory
 * names the events its replays counted (optrace-board(5), PMU_EVENTS.TXT),
 * which are not the fixed lists the parse would assume. */
static void write_pmu_events(void)
{
	char path[PATH_MAX * 2], ev[PMU_EVENTS_MAX * 6 + 8];
	size_t i;
	int e;
	if (!device || !dev_trimmed)
		return;
	for (i = 0; i < nkernels; i++) {
		struct wr *w;
		snprintf(path, sizeof path, "%s/%s/pmu_events.txt", run, kernels[i].dir);
		if (!(w = wr_open(path, 0))) {
			add_problem(path, strlen(path), "not saved", 9);
			continue;
		}
		events_text(ev, sizeof ev, 0, ',');
		wr_printf(w, "aic=%s\n", ev);
		events_text(ev, sizeof ev, 1, ',');
		wr_printf(w, "aiv=%s\n", ev);
		if ((e = wr_close(w))) {
			char msg[160];
			snprintf(msg, sizeof msg, "not saved: %s", strerror(e));
			add_problem(path, strlen(path), msg, strlen(msg));
		}
	}
}

/* ---- live stream: FIFO -> stdout ---- */

static struct wr *live_out;
static struct rec_out live_rec;
static char lbuf[1 << 16];
static size_t llen;
static struct rec_dec live_dec;
static unsigned long long live_bad;

static void live_lines(int final)
{
	size_t start = 0;
	char *nl;
	while ((nl = memchr(lbuf + start, '\n', llen - start))) {
		size_t len = (size_t)(nl - (lbuf + start));
		const char *line = lbuf + start;
		struct rec r;
		const char *why;
		int st = len ? rec_decode(&live_dec, line, len, &r, &why) : DEC_BAD;
		start += len + 1;
		if (st == DEC_BAD) {
			live_bad++;
			continue;
		}
		if (st == DEC_OK && r.sc->kind == K_TRAILER) {
			ndropped += r.n[T_DROPPED].u;
			continue;
		}
		if (st == DEC_OK && r.sc->kind == K_HEADER)
			continue;
		if (st == DEC_OK)
			rec_out_put(&live_rec, &r);
		else
			rec_out_raw(&live_rec, line, len);
	}
	memmove(lbuf, lbuf + start, llen - start);
	llen -= start;
	if (final && llen) {
		live_bad++;
		llen = 0;
	}
}

static int live_read(int fd)
{
	ssize_t n;
	int any = 0;
	while ((n = read(fd, lbuf + llen, sizeof lbuf - llen)) > 0) {
		llen += (size_t)n;
		any = 1;
		live_lines(0);
		if (llen == sizeof lbuf) { /* a line longer than the buffer */
			live_bad++;
			llen = 0;
		}
	}
	return any;
}

/* The launcher of --config, which reads kernel_config.bin (see
 * optrace-capture(5), KERNEL DESCRIPTIONS, kernel_config.bin; sim-capture(1),
 * --config). */
static int find_launcher(char *buf, size_t cap)
{
	const char *e = getenv("OPTRACE_KERNEL_LAUNCHER");
	if (e && *e) {
		snprintf(buf, cap, "%s", e);
		return access(buf, X_OK) == 0;
	}
	snprintf(buf, cap, "%s/tools/msopt/bin/kernel-launcher", root);
	if (access(buf, X_OK) == 0)
		return 1;
	snprintf(buf, cap, "%s/../ops/bin/kernel-launcher", exe_dir);
	if (access(buf, X_OK) == 0)
		return 1;
	snprintf(buf, cap, "%s/kernel-launcher", exe_dir);
	return access(buf, X_OK) == 0;
}

/* ---- the application's process group ---- */

/* The application runs in a process group of its own (its id is the
 * application's pid), so that stopping it reaches everything it started;
 * sim-capture is a child subreaper, so its orphaned descendants become
 * sim-capture's children and are reaped here, never left as zombies that
 * would keep the group alive. */
static pid_t app_pid;
static int app_status, app_done;

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void reap(void)
{
	int st;
	pid_t w;
	while ((w = waitpid(-1, &st, WNOHANG)) > 0)
		if (w == app_pid) {
			app_status = st;
			app_done = 1;
		}
}

/* Anything left in the application's group (running, or a zombie not yet
 * reaped). */
static int group_alive(void)
{
	return kill(-app_pid, 0) == 0 || errno == EPERM;
}

static void signal_group(int sig)
{
	if (kill(-app_pid, sig) && errno == ESRCH && !app_done)
		kill(app_pid, sig); /* not yet in its group (setpgid failed?) */
}

/* Grace periods of a stop: SIGINT (what Ctrl+C gives a program), SIGTERM
 * when the application has not ended 3 s later or as soon as it has ended
 * and something it started is still there, SIGKILL 2 s after SIGTERM. */
#define STOP_TERM_MS 3000
#define STOP_KILL_MS 2000

/* ---- the phases of a capture, in the order main runs them ---- */

/* Find what the run needs (the preload library, the simulator, the
 * application) and make the run directory. */
static void prepare(void)
{
	ge_defaults();
	find_exe_dir();
	find_inject();
	/* With --config the simulator comes from LD_LIBRARY_PATH (or the
	 * default), as --soc-version is refused. */
	find_simulator();
	if (!config_file)
		check_app(app[0]);
	if (live && chip_find(soc)->family != CHIP_A2 && chip_find(soc)->family != CHIP_A3)
		cli_die(EXIT_USAGE, "--live: the simulator streams its events only on Atlas A2/A3 SoCs, not %s "
		        "(use the dump files)", soc);
	make_run_dir();
}

/* The command to run: the application, or with --config the
 * kernel-launcher over the translated kernel description. */
static char **child_command(void)
{
	static char *cfg_argv[4];
	static char cfgbin[PATH_MAX + 64];
	char buf[PATH_MAX * 2];

	if (!config_file)
		return app;
	config_translate(config_file, tmpd, cfgbin, sizeof cfgbin);
	if (!find_launcher(buf, sizeof buf)) {
		io_rm_tree(run);
		cli_die(EXIT_UNUSABLE, "no kernel-launcher found: set OPTRACE_KERNEL_LAUNCHER, or install it in "
		        "%s/tools/msopt/bin", root);
	}
	cfg_argv[0] = xstrdup(buf);
	cfg_argv[1] = "-c";
	cfg_argv[2] = cfgbin;
	cfg_argv[3] = NULL;
	return cfg_argv;
}

static void device_env(struct env *env);
static void capture_env(struct env *env);

/* The application's environment: the preload library ahead of the
 * simulator, the simulator's settings, and what the library reads. */
static void child_env(struct env *env)
{
	char buf[PATH_MAX * 2], lib64[PATH_MAX + 16], cfg[PATH_MAX + 64];
	const char *ld;

	if (device) {
		device_env(env);
		capture_env(env);
		return;
	}

	snprintf(buf, sizeof buf, "%s:libruntime_camodel.so", inject_lib);
	env_prepend(env, "LD_PRELOAD", buf);
	env_prepend(env, "LD_LIBRARY_PATH", sim_lib);
	/* The toolkit's own libraries (ACL, libruntime.so) after everything
	 * else, when set_env.sh has not put them there. */
	ld = env_get(env, "LD_LIBRARY_PATH");
	snprintf(lib64, sizeof lib64, "%s/lib64", root);
	if (io_is_dir(lib64) && ld && !strstr(ld, lib64)) {
		char *v = xmalloc(strlen(ld) + strlen(lib64) + 2);
		sprintf(v, "%s:%s", ld, lib64);
		env_set(env, "LD_LIBRARY_PATH", v);
		free(v);
	}
	if (config_file) {
		/* kernel-launcher links libruntime.so: make it resolve to the
		 * preload library, which forwards to the simulator. */
		snprintf(buf, sizeof buf, "%s/libruntime.so", tmpd);
		unlink(buf);
		if (symlink(inject_lib, buf))
			cli_warn("%s:", buf);
		env_prepend(env, "LD_LIBRARY_PATH", tmpd);
	}
	env_set(env, "CAMODEL_SOC_VERSION", soc);
	env_set(env, "CAMODEL_LOG_PATH", tmpd);
	snprintf(cfg, sizeof cfg, "%s/config", tmpd);
	if (camodel_config(sim_lib, soc, pmsampling_on(aic_metrics), cfg))
		env_set(env, "CAMODEL_CONFIG_PATH", cfg);
	else
		env_unset(env, "CAMODEL_CONFIG_PATH");
	env_set(env, "IS_SIMULATOR_ENV", "true");
	env_set(env, "TASK_QUEUE_ENABLE", "0");
	env_set(env, "GE_INIT_DISABLE", "1");
	env_unset(env, "ASCEND_RT_VISIBLE_DEVICES");
	env_unset(env, "OPTRACE_DEVICE");
	capture_env(env);
	env_set(env, "OPTRACE_MTE", pmsampling_on(aic_metrics) ? "1" : "0");
}

/* --device: the preload library ahead of the runtime in ROOT/lib64, no
 * simulator; each captured launch's raw PMU files go to its dump
 * directory, the others to a scratch directory of the run's. */
static void device_env(struct env *env)
{
	char buf[PATH_MAX * 2];

	env_prepend(env, "LD_PRELOAD", inject_lib);
	env_prepend(env, "LD_LIBRARY_PATH", sim_lib);
	env_set(env, "CAMODEL_SOC_VERSION", soc);
	snprintf(buf, sizeof buf, "%s/uncaptured", tmpd);
	if (mkdir(buf, 0700) && errno != EEXIST)
		cli_die(EXIT_IO, "%s:", buf);
	env_set(env, "CAMODEL_DEVICE_DUMP", buf);
	env_unset(env, "CAMODEL_LOG_PATH");
	env_unset(env, "CAMODEL_CONFIG_PATH");
	env_unset(env, "IS_SIMULATOR_ENV");
	env_set(env, "OPTRACE_DEVICE", "1");
	env_set(env, "OPTRACE_MTE", "0");
	/* How each captured launch is measured (inject/README, Device mode). */
	env_set(env, "OPTRACE_REPLAY_MODE", replay_mode_names[replay_mode]);
	snprintf(buf, sizeof buf, "%lu", dev_replays);
	env_set(env, "OPTRACE_DEVICE_REPLAYS", buf);
	snprintf(buf, sizeof buf, "%lu", warm_up);
	env_set(env, "OPTRACE_WARM_UP", buf);
	env_set(env, "OPTRACE_KILL", kill_on ? "1" : "0");
	env_unset(env, "OPTRACE_APP_REPLAY");
	/* The groups that instrument the kernel, for the device's runtime (the
	 * stand-in reads these; a list that names none leaves them as set). */
	if (dev.pipe_tl || dev.instr_tl)
		env_set(env, "CAMODEL_DEVICE_TIMELINE", dev.pipe_tl ? "PipeTimeline" : "InstrTimeline");
	if (dev.pcsampling)
		env_set(env, "CAMODEL_DEVICE_PCSAMPLING", "1");
	/* The device is programmed with the capture's events. */
	if (dev_trimmed) {
		char ev[PMU_EVENTS_MAX * 6 + 8];
		events_text(ev, sizeof ev, 0, ',');
		env_set(env, "CAMODEL_DEVICE_PMU_AIC", ev);
		events_text(ev, sizeof ev, 1, ',');
		env_set(env, "CAMODEL_DEVICE_PMU_AIV", ev);
	} else {
		env_unset(env, "CAMODEL_DEVICE_PMU_AIC");
		env_unset(env, "CAMODEL_DEVICE_PMU_AIV");
	}
	timeline_env(env);
}

/* What the preload library reads in both modes: where the run goes and
 * which launches it takes. */
static void capture_env(struct env *env)
{
	char buf[64];

	env_set(env, "ASCEND_HOME_PATH", root);
	env_set(env, "OPTRACE_CAPTURE_DIR", run);
	snprintf(buf, sizeof buf, "%lu", launch_count);
	env_set(env, "OPTRACE_LAUNCH_COUNT", buf);
	snprintf(buf, sizeof buf, "%lu", launch_skip);
	env_set(env, "OPTRACE_LAUNCH_SKIP", buf);
	if (kernel_names)
		env_set(env, "OPTRACE_KERNEL_NAME", kernel_names);
	else
		env_unset(env, "OPTRACE_KERNEL_NAME");
	env_set(env, "OPTRACE_MSTX", mstx_on ? "1" : "0");
	if (mstx_include)
		env_set(env, "OPTRACE_MSTX_INCLUDE", mstx_include);
	else
		env_unset(env, "OPTRACE_MSTX_INCLUDE");
	/* The application's mstx library then finds the preload library (it
	 * exports InitInjectionMstx) by name rather than by a search of the
	 * process, which another tool's library could answer first. */
	if (mstx_on)
		env_set(env, "MSTX_INJECTION_PATH", inject_lib);
	env_set(env, "OPTRACE_SPANS", no_spans ? "0" : "1");
	env_set(env, "OPTRACE_REPLAY", replay ? "1" : "0");
	env_unset(env, "OPTRACE_LIVE");
}

/* --live: the FIFO the preload library streams into (named in env), and
 * the stream's header on stdout.  Its descriptor, or -1 without --live. */
static int open_live(struct env *env)
{
	int fd;

	if (!live)
		return -1;
	snprintf(fifo, sizeof fifo, "%s/live.fifo", dev0);
	if (mkfifo(fifo, 0600))
		cli_die(EXIT_IO, "%s:", fifo);
	/* Read-write: the FIFO never reports end-of-file while we wait. */
	fd = open(fifo, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		cli_die(EXIT_IO, "%s:", fifo);
	fcntl(fd, F_SETPIPE_SZ, 1 << 20);
	env_set(env, "OPTRACE_LIVE", fifo);
	live_out = wr_fdopen(1, "stdout", 0);
	live_rec.w = live_out;
	live_rec.mode = REC_BIN;
	live_rec.producer = "sim-capture";
	live_rec.records = 0;
	rec_out_header(&live_rec, soc, chip_find(soc)->mhz, "live");
	wr_flush(live_out);
	return fd;
}

/* Ctrl+C: the first stops the application and keeps what was collected,
 * the second aborts. */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_sigint;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1) && cli_verbosity > 1)
		cli_note("not a child subreaper: %s", strerror(errno));
}

/* Start the application in a process group of its own, with the signals
 * it would have had from a shell. */
static void start_child(char **argv, struct env *env)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t defsigs, none;
	int rc;

	posix_spawn_file_actions_init(&fa);
	if (live) /* stdout carries the records: the application's goes to stderr */
		posix_spawn_file_actions_adddup2(&fa, 2, 1);
	posix_spawnattr_init(&attr);
	sigemptyset(&defsigs);
	sigaddset(&defsigs, SIGPIPE);
	sigaddset(&defsigs, SIGINT);
	sigaddset(&defsigs, SIGTERM);
	sigaddset(&defsigs, SIGHUP);
	sigemptyset(&none);
	posix_spawnattr_setsigdefault(&attr, &defsigs);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETPGROUP);
	if (cli_verbosity > 1)
		cli_note("running %s in simulator %s (%s)", argv[0], soc, sim_lib);
	rc = posix_spawnp(&app_pid, argv[0], &fa, &attr, argv, env->v);
	if (rc) {
		errno = rc;
		io_rm_tree(run);
		cli_die(EXIT_UNUSABLE, "%s: cannot start:", argv[0]);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
}

/* Until the application has ended and nothing of its group is left,
 * streaming --live events from fd meanwhile; a Ctrl+C or the timeout
 * stops the group (SIGINT, then SIGTERM, then SIGKILL).  Returns 1 when a
 * second Ctrl+C aborted the capture, else 0 with *timed_out. */
static int supervise(int fd, int *timed_out)
{
	uint64_t started = now_ms(), term_at = 0, kill_at = 0;
	int stopping = 0, term_sent = 0, kill_sent = 0;

	*timed_out = 0;
	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int handled = sigints;
		uint64_t now;
		if (live) {
			if (poll(&pf, 1, 50) > 0)
				live_read(fd);
		} else {
			struct timespec ts = { 0, 50000000 };
			nanosleep(&ts, NULL);
		}
		reap();
		if (app_done && !group_alive())
			return 0;
		if (sigints >= 2)
			return 1;
		now = now_ms();
		if (handled && !stopping) {
			if (cli_verbosity)
				cli_note("interrupted: stopping the application (Ctrl+C again to abort)");
			stopping = 1;
		}
		if (timeout_s && !*timed_out && !stopping && now - started >= (uint64_t)timeout_s * 1000) {
			*timed_out = 1;
			stopping = 1;
			cli_warn("the timeout of %lus has been reached: stopping the application", timeout_s);
		}
		if (stopping == 1) {
			signal_group(SIGINT);
			term_at = now + STOP_TERM_MS;
			stopping = 2;
		}
		/* The application has ended: what it left running goes too
		 * (it would go on writing into a run that is being closed). */
		if (!term_sent && ((app_done && group_alive()) || (term_at && now >= term_at))) {
			if (app_done && cli_verbosity > 1)
				cli_note("the application has ended: stopping what it left running");
			signal_group(SIGTERM);
			term_sent = 1;
			kill_at = now + STOP_KILL_MS;
		}
		if (!kill_sent && kill_at && now >= kill_at) {
			signal_group(SIGKILL);
			kill_sent = 1;
		}
		/* A process that SIGKILL does not end (not ours to signal, or
		 * stuck in the kernel) is not waited for forever. */
		if (kill_sent && now >= kill_at + STOP_KILL_MS) {
			cli_warn("processes of the application's group (%ld) did not end; not waiting for them",
			         (long)app_pid);
			if (!app_done)
				app_status = SIGKILL; /* as if killed */
			return 0;
		}
	}
}

/* The second Ctrl+C: everything goes at once; the run is kept as it is. */
static int abort_capture(int fd)
{
	signal_group(SIGKILL);
	while (group_alive() && waitpid(-1, NULL, 0) > 0)
		;
	if (live_out) {
		/* What was streamed stays whole, and says it was cut. */
		while (live_read(fd))
			;
		live_lines(1);
		rec_out_trailer(&live_rec, live_bad, ndropped, 1);
		wr_close(live_out);
	}
	io_rm_tree(tmpd);
	run_kept = 1;
	cli_warn("aborted; %s is incomplete", run);
	return EXIT_INTR;
}

/* --live: the events still in the FIFO once the application has ended.
 * Returns the manifest's note on the stream, or NULL. */
static const char *drain_live(int fd)
{
	if (!live)
		return NULL;
	while (live_read(fd))
		;
	live_lines(1);
	close(fd);
	unlink(fifo);
	return live_rec.records ? NULL
	       : "no live events: the simulator has no log callbacks, dump files were kept";
}

static void close_live(int timed_out)
{
	int e;

	if (!live)
		return;
	rec_out_trailer(&live_rec, live_bad, ndropped, sigints > 0 || timed_out);
	e = wr_close(live_out);
	if (e && e != EPIPE) /* a reader that stopped early is not an error */
		cli_warn("stdout: %s", strerror(e));
}

/* --replay-mode=range: the replayed ranges' raw files into the launches'
 * dump directories; what cannot be split is a problem of the run (exit 4)
 * and tmp_dump stays for a look. */
static void split_ranges(void)
{
	struct range_stats st;
	char err[PATH_MAX * 3];
	enum board_fmt fmt = board_fmt_of(chip_find(soc_opt ? soc_opt : CHIP_DEFAULT_SOC)->family);
	if (range_split(run, fmt, (unsigned)dev_replays, &st, err, sizeof err)) {
		char msg[PATH_MAX * 4];
		int n = snprintf(msg, sizeof msg, "range replay not split: %s (the raw files are kept in %s/tmp_dump)",
		                 err, run);
		add_problem(st.file, strlen(st.file), msg, n > 0 && (size_t)n < sizeof msg ? (size_t)n : strlen(msg));
		return;
	}
	if (cli_verbosity > 1)
		cli_note("range replay: %lu range%s split into %lu launch directories", st.ranges,
		         st.ranges == 1 ? "" : "s", st.launches);
	if (st.skipped)
		cli_warn("range replay: %lu output lines or record runs skipped", st.skipped);
}

/* Say how the application ended, write the manifest, and give the exit
 * status of the capture. */
static int finish(const char *command, int timed_out, const char *live_note)
{
	int status = app_status;
	int stopped = kill_on && WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGKILL);

	/* --kill=on: the library ended the application after its last
	 * captured launch; that is no failure (the reference's rule too). */
	if (stopped) {
		if (cli_verbosity > 1)
			cli_note("the application was ended after its last captured launch (--kill=on)");
		status = 0;
	}
	if (WIFSIGNALED(status) && !sigints && !timed_out)
		cli_warn("the application was killed by signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
	else if (WIFEXITED(status) && WEXITSTATUS(status) && !sigints && !timed_out)
		cli_warn("the application exited with status %d", WEXITSTATUS(status));

	if (nkernels == 0) {
		io_rm_tree(run);
		if (sigints)
			return EXIT_INTR;
		if (nlaunches == 0)
			cli_die(EXIT_UNUSABLE, "no kernel launched by %s", command);
		if (mstx_on && nmstx_skipped >= nlaunches) {
			if (mstx_include)
				cli_die(EXIT_UNUSABLE, "no kernel launched inside an mstx range of --mstx-include=%s "
				        "(launched outside: %s)", mstx_include, launched_names ? launched_names : "");
			cli_die(EXIT_UNUSABLE, "no kernel launched inside an mstx range of its thread (launched outside: %s)",
			        launched_names ? launched_names : "");
		}
		if (kernel_names)
			cli_die(EXIT_UNUSABLE, "no kernel matched --kernel-name=%s (launched: %s)", kernel_names,
			        launched_names ? launched_names : "");
		cli_die(EXIT_UNUSABLE, "no kernel captured (%llu launches)", nlaunches);
	}
	write_manifest(app_status, timed_out, live_note);
	run_kept = 1;
	if (cli_verbosity && nmstx_skipped)
		cli_note("%llu launch%s outside the mstx ranges not captured", nmstx_skipped,
		         nmstx_skipped == 1 ? "" : "es");
	if (cli_verbosity)
		cli_note("%zu launch%s captured in %s", nkernels, nkernels == 1 ? "" : "es", run);
	if (ndropped || live_bad)
		cli_warn("%llu live events dropped, %llu bad lines", ndropped, live_bad);
	if (records_err || nproblems) {
		cli_warn("%s is incomplete: %s%s%s", run, records_err ? "capture.rec not written" : "",
		         records_err && nproblems ? ", " : "", nproblems ? "files of captured launches not saved" : "");
		return EXIT_IO;
	}
	if (sigints)
		return EXIT_INTR;
	if (timed_out || ndropped || live_bad || !WIFEXITED(status) || WEXITSTATUS(status))
		return EXIT_PARTIAL;
	return EXIT_OK;
}

/* --replay-mode=application: the application runs again for each further
 * replay (OPTRACE_APP_REPLAY names it to the preload library, which gives
 * each captured launch the directory it had in the first run and has the
 * device count that replay's events).  The launch and API records are
 * those of the first run.  Returns 1 when a second Ctrl+C aborted. */
static int app_replays(char **command, struct env *env, int *timed_out)
{
	char host[PATH_MAX + 64], first[PATH_MAX + 64], buf[32];
	unsigned long k;
	int status = app_status, rc = 0;
	snprintf(host, sizeof host, "%s/host", tmpd);
	snprintf(first, sizeof first, "%s/host.first", tmpd);
	if (rename(host, first) || mkdir(host, 0750))
		cli_die(EXIT_IO, "%s:", host);
	for (k = 2; k <= dev_replays && !sigints && !*timed_out; k++) {
		if (cli_verbosity > 1)
			cli_note("application replay %lu of %lu", k, dev_replays);
		snprintf(buf, sizeof buf, "%lu", k);
		env_set(env, "OPTRACE_APP_REPLAY", buf);
		app_done = 0;
		start_child(command, env);
		if ((rc = supervise(-1, timed_out)))
			break;
		/* The first run's status, unless a later one failed. */
		if (!(WIFEXITED(app_status) && WEXITSTATUS(app_status) == 0) && WIFEXITED(status) && !WEXITSTATUS(status))
			status = app_status;
	}
	app_status = status;
	io_rm_tree(host);
	if (rename(first, host))
		cli_die(EXIT_IO, "%s:", host);
	return rc;
}

/* ---- main ---- */

int main(int argc, char **argv)
{
	struct env env;
	char **command;
	const char *live_note;
	int fd, timed_out;

	cli_init("sim-capture");
	atexit(free_kernels);
	parse_args(argc, argv);
	prepare();
	command = child_command();

	env_init(&env, environ);
	child_env(&env);
	fd = open_live(&env);
	catch_signals();
	start_child(command, &env);
	if (supervise(fd, &timed_out) ||
	    (device && replay_mode == REPLAY_APPLICATION && dev_replays > 1 && app_replays(command, &env, &timed_out))) {
		env_free(&env);
		return abort_capture(fd);
	}
	env_free(&env);

	/* What the application left: its live events, the host records and
	 * the dumps of each launch, gathered into the run directory. */
	live_note = drain_live(fd);
	merge_host_records();
	if (device && replay_mode == REPLAY_RANGE)
		split_ranges();
	rescue_interrupted();
	scan_launch_dirs();
	write_pmu_events();
	io_rm_tree(tmpd);
	close_live(timed_out);
	return finish(command[0], timed_out, live_note);
}
