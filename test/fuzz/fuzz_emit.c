/* libFuzzer target: timeline-emit's record handling (cmd/timeline-emit.c
 * and cmd/timeline-emit/, run whole through timeline_emit_main).
 *
 * The first byte of the input chooses how the rest becomes a record
 * stream and the options given:
 *   - bit 7 set: the rest is the stream itself (instr-parse's output, or
 *     anything);
 *   - else the rest is cut into 8-byte groups, each one record of a stream
 *     built here after a header of the SoC bits 0-1 choose (Ascend910B1,
 *     Ascend310P3, Ascend950DT_9571, none: the default): an instruction of
 *     one of a few pipes and names (SET_FLAG / WAIT_FLAG and set_event /
 *     wait_event with their sync fields, BAR, cache misses, scalar ALU ops
 *     writing XD), a user mark, a code record or an MTE bandwidth bucket,
 *     of one of a few cores and sub-cores, its ticks moving forward (or,
 *     for some, back) from the last; a trailer ends it unless bit 6 says
 *     not;
 *   - bits 2-5: --max-size small enough to split the traces, --core-id,
 *     --from/--to, --aic-metrics with PMSampling and Overhead.
 * The stream, in a memory file, goes to timeline-emit -o DIR (a fresh
 * directory under a private one, removed after).  exit is wrapped
 * (-Wl,--wrap=exit): the exit of a fatal error returns here through
 * longjmp; the exit-time cleanups then run (cli_cleanup_run) and
 * timeline_emit_reset puts the tool back, so what the cut-off run had
 * allocated on its stack stays allocated (leak detection is off for this
 * target) and the descriptors it had open are closed here.
 * The exit status is 0, 1 or 3 (not a record stream, no records), or 2
 * when a metric asked for is not on the stream's chip; with 0
 * or 1, DIR holds trace.json (or its parts) and every .json file under DIR
 * is one JSON document; with 3, DIR does not exist. */
#include <dirent.h>
#include <getopt.h>
#include <setjmp.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "cli.h"
#include "emit.h"
#include "fuzz.h"
#include "io.h"
#include "rec.h"

static jmp_buf died;
static int in_run, died_status;

_Noreturn void __real_exit(int status);
_Noreturn void __wrap_exit(int status);
_Noreturn void __wrap_exit(int status)
{
	if (in_run) {
		died_status = status;
		longjmp(died, 1);
	}
	__real_exit(status);
}

static const char *const pipes[] = { "SCALAR", "VECTOR", "MTE2", "MTE3", "CUBE", "FIXP", "FLOWCTRL",
                                     "CACHEMISS" };
static const char *const names[] = { "ADD", "SET_FLAG", "WAIT_FLAG", "BAR", "VADD", "MOV", "set_event",
                                     "wait_event" };
static const char *const socs[] = { "Ascend910B1", "Ascend310P3", "Ascend950DT_9571", "" };

static void put_instr(struct rec_out *o, const uint8_t *p, uint64_t core, uint64_t sub, uint64_t tick)
{
	struct rec r;
	const char *name = names[p[5] & 7], *pipe = pipes[(p[5] >> 3) & 7];
	char detail[64];

	rec_init(&r, K_INSTR);
	r.n[I_CORE].u = core;
	r.n[I_SUBTYPE].u = sub;
	r.n[I_SUBIDX].u = p[6] & 1;
	r.n[I_BLOCK].i = p[6] & 2 ? (int64_t)(p[6] >> 4) : -1;
	r.n[I_SUBBLOCK].i = -1;
	r.n[I_START].u = tick;
	r.n[I_END].u = tick + (p[4] & 0x3f);
	r.n[I_PC].u = 0x1000 + 4 * (uint64_t)(p[1] & 31);
	r.n[I_WARP].i = p[7] & 0x80 ? (int64_t)(p[7] & 3) : -1;
	r.n[I_SCH].i = -1;
	r.n[I_THREADS].i = -1;
	r.n[I_GPR].i = p[7] & 15;
	r.n[I_BYTES].i = p[7] & 0x40 ? (int64_t)p[4] * 32 : -1;
	r.n[I_VECUTIL].f = p[7] & 0x20 ? (double)(p[4] % 101) : -1;
	r.n[I_UBREAD].i = -1;
	r.n[I_UBWRITE].i = -1;
	r.n[I_ICACHE].u = p[7] & 0x10 ? tick - (tick > 3 ? 3 : 0) : REC_NONE;
	r.n[I_CCU].u = p[7] & 0x10 ? tick : REC_NONE;
	detail[0] = 0;
	if (!strcmp(name, "SET_FLAG") || !strcmp(name, "WAIT_FLAG") || !strcmp(name, "set_event") ||
	    !strcmp(name, "wait_event")) {
		r.n[I_SYNC].u = name[0] == 'S' || name[0] == 's' ? SYNC_SET : SYNC_WAIT;
		if (p[6] & 8)
			r.n[I_SYNC].u += SYNC_SET_INTRA - SYNC_SET;
		rec_text_set(&r, IS_PROD, "PIPE_S", 6);
		rec_text_set(&r, IS_CONS, p[6] & 4 ? "PIPE_V" : "PIPE_MTE2", p[6] & 4 ? 6 : 9);
		snprintf(detail, sizeof detail, "PIPE:PIPE_S,TRIGGERPIPE:PIPE_V,FLAGID:%u", p[4] & 3);
		rec_text_set(&r, IS_FLAG, detail + strlen(detail) - 1, 1);
	} else if (!strcmp(name, "BAR")) {
		r.n[I_SYNC].u = SYNC_BAR;
		snprintf(detail, sizeof detail, "PIPE:PIPE_ALL");
	} else if (p[4] & 0x40) {
		snprintf(detail, sizeof detail, "XD:X%u,XN:X%u", p[4] & 7, p[1] & 7);
	}
	rec_text_set(&r, IS_PIPE, pipe, strlen(pipe));
	rec_text_set(&r, IS_NAME, name, strlen(name));
	rec_text_set(&r, IS_DETAIL, detail, strlen(detail));
	rec_out_put(o, &r);
}

/* A stream built from the groups of data. */
static void build(struct wr *w, const char *soc, const uint8_t *p, size_t n, int trailer)
{
	struct rec_out o = { .w = w, .mode = REC_BIN, .producer = "instr-parse" };
	uint64_t tick = 5000;
	char text[64];

	rec_out_header(&o, *soc ? soc : NULL, 1850, "fuzz");
	for (; n >= 8; p += 8, n -= 8) {
		struct rec r;
		uint64_t core = (p[0] >> 2) & 3, sub = (p[0] >> 4) & 3;
		uint64_t d = (uint64_t)p[2] << 8 | p[3];

		if (p[0] & 0x80)
			tick = tick > d ? tick - d : 0;
		else
			tick += d >> 4;
		switch (p[0] & 3) {
		case 0:
		case 1:
			put_instr(&o, p, core, sub, tick);
			break;
		case 2:
			rec_init(&r, K_MARK);
			r.n[M_CORE].u = core;
			r.n[M_SUBTYPE].u = sub;
			r.n[M_SUBIDX].u = p[6] & 1;
			r.n[M_BLOCK].i = -1;
			r.n[M_SUBBLOCK].i = -1;
			r.n[M_MARK].u = p[4];
			r.n[M_START].u = tick;
			r.n[M_END].u = tick + p[5];
			r.n[M_STARTPC].u = 0x1000 + 4 * (uint64_t)(p[1] & 31);
			r.n[M_ENDPC].u = r.n[M_STARTPC].u + 8;
			snprintf(text, sizeof text, "mark%u", p[7] & 3);
			rec_text_set(&r, MS_NAME, text, strlen(text));
			rec_text_set(&r, MS_DETAIL, "", 0);
			rec_out_put(&o, &r);
			break;
		default:
			if (p[4] & 1) {
				rec_init(&r, K_CODE);
				r.n[C_PC].u = 0x1000 + 4 * (uint64_t)(p[1] & 31);
				r.n[C_OFFSET].u = r.n[C_PC].u - 0x1000;
				snprintf(text, sizeof text, "/nonexistent/k%u.cpp:%u", p[5] & 3, p[6]);
				rec_text_set(&r, CS_STACK, text, strlen(text));
				rec_text_set(&r, CS_KINDS, "", 0);
				rec_text_set(&r, CS_FUNC, p[7] & 1 ? "kernel" : "", p[7] & 1 ? 6 : 0);
			} else {
				int k;
				rec_init(&r, K_MTEBW);
				r.n[W_BUCKET].u = tick / 1850;
				for (k = W_GM_TO_UB; k < W_NNUM; k++)
					r.n[k].f = (double)p[4 + (k & 3)] * 10.5;
			}
			rec_out_put(&o, &r);
		}
	}
	if (trailer)
		rec_out_trailer(&o, 0, 0, 0);
}

/* Every .json file under path parses; returns the count. */
static int json_ok(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int count = 0;

	CHECK(d);
	while ((e = readdir(d))) {
		char sub[512];
		struct stat st;
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
		CHECK(lstat(sub, &st) == 0);
		if (S_ISDIR(st.st_mode)) {
			count += json_ok(sub);
		} else if (n > 5 && !strcmp(e->d_name + n - 5, ".json")) {
			FILE *f = fopen(sub, "rb");
			char *text;
			cJSON *j;
			CHECK(f);
			text = malloc((size_t)st.st_size + 1);
			CHECK(text && fread(text, 1, (size_t)st.st_size, f) == (size_t)st.st_size);
			text[st.st_size] = 0;
			fclose(f);
			j = cJSON_Parse(text);
			if (!j)
				fprintf(stderr, "fuzz_emit: %s is not JSON\n", sub);
			CHECK(j);
			cJSON_Delete(j);
			free(text);
			count++;
		}
	}
	closedir(d);
	return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char out[96];
	char in[64];
	char *argv[16];
	int argc = 0, fd, lowfd, status, k, metrics = 0;
	struct stat st;

	if (!size)
		return 0;
	if (!out[0])
		snprintf(out, sizeof out, "%s/out", fuzz_workdir("fuzz_emit"));
	if (data[0] & 0x80) {
		fd = fuzz_memfd(data + 1, size - 1);
	} else {
		struct wr *w;
		fd = fuzz_memfd("", 0);
		w = wr_fdopen(fd, "(fuzz)", 0);
		CHECK(w);
		build(w, socs[data[0] & 3], data + 1, size - 1, !(data[0] & 0x40));
		CHECK(wr_close(w) == 0);
	}
	snprintf(in, sizeof in, "/proc/self/fd/%d", fd);
	lowfd = dup(0);
	CHECK(lowfd >= 0);
	close(lowfd);

	argv[argc++] = "timeline-emit";
	argv[argc++] = "-q";
	if (data[0] & 4)
		argv[argc++] = "--max-size=4k";
	if (data[0] & 8)
		argv[argc++] = "--core-id=0,2-3";
	if ((data[0] & 0x30) == 0x10) {
		argv[argc++] = "--from=3";
		argv[argc++] = "--to=40";
	} else if ((data[0] & 0x30) == 0x20) {
		argv[argc++] = "--aic-metrics=PipeUtilization,ResourceConflictRatio,PMSampling,Overhead";
		metrics = 1;
	} else if ((data[0] & 0x30) == 0x30) {
		argv[argc++] = "--aic-metrics=PipeUtilization";
		argv[argc++] = "--report=3";
	}
	argv[argc++] = "-o";
	argv[argc++] = out;
	argv[argc++] = in;
	argv[argc] = NULL;

	optind = 0;
	in_run = 1;
	if (setjmp(died) == 0) {
		status = timeline_emit_main(argc, argv);
		in_run = 0;
	} else {
		in_run = 0;
		status = died_status;
		cli_cleanup_run();
		timeline_emit_reset();
		for (k = lowfd; k < lowfd + 256; k++)
			close(k);
	}
	close(fd);
	/* 2: a metric the stream's chip does not have (Overhead and
	 * PMSampling are not on every chip), said as a usage error */
	if (status == 2 && metrics)
		status = 3;
	if (status != 0 && status != 1 && status != 3)
		fprintf(stderr, "fuzz_emit: exit status %d\n", status);
	CHECK(status == 0 || status == 1 || status == 3);
	if (status == 3) {
		CHECK(lstat(out, &st) < 0);
	} else {
		CHECK(json_ok(out) > 0);
		CHECK(io_rm_tree(out) == 0);
	}
	return 0;
}
