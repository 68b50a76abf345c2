/* Unit tests of timeline-emit's trace splitter (cmd/timeline-emit/split.c):
 * in a per-core trace a flow is kept only when the SET or WAIT slices it
 * joins, of its (pid, tid) lane and holding its time, went before it into
 * the same part.  Random traces whose lanes hold slices in order, out of
 * order, overlapping, far apart (steps past 32 bits of picoseconds) and
 * long (lengths past 32 bits) are split, and the flows left out are
 * compared with a plain search over every slice written before.
 *
 *   make build/unit/test_split && build/unit/test_split
 *
 * Prints one line per failing check, then "N passed, N failed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cmd/timeline-emit/emit.h"

#include "unit.h"

static uint64_t rs = 0x5eed5eedull;
static uint64_t rnd(void) { return unit_xorshift(&rs); }

struct sl {
	int pid, tid;
	uint64_t ts, te;            /* picoseconds (millionths of a microsecond) */
};

static void put_us(FILE *f, const char *key, uint64_t ps)
{
	fprintf(f, "\"%s\":%llu.%06llu", key, (unsigned long long)(ps / 1000000), (unsigned long long)(ps % 1000000));
}

/* One trace of nslices slices and flows mixed; returns the flows a plain
 * search says must be left out. */
static unsigned make_trace(const char *path, unsigned nslices, int kind)
{
	FILE *f = fopen(path, "w");
	struct sl *s = calloc(nslices, sizeof *s);
	uint64_t last[4][3] = { { 0 } };
	unsigned n = 0, cut = 0, i, k;
	if (!f || !s)
		exit(2);
	fprintf(f, "{\"traceEvents\":[\n");
	for (i = 0; i < nslices; i++) {
		int pid = (int)(rnd() % 4), tid = (int)(rnd() % 3);
		uint64_t step = rnd() % 3000000, len = 1 + rnd() % 2500000, ts;
		uint64_t r = rnd() % 100;
		if (kind >= 1 && r < 5)
			step = (1ull << 32) + rnd() % (1ull << 34);       /* far apart */
		if (kind >= 1 && r >= 5 && r < 10)
			len = (1ull << 32) + rnd() % (1ull << 33);        /* long */
		ts = last[pid][tid] + step;
		if (kind >= 2 && r >= 10 && r < 20 && last[pid][tid] > 5000000)
			ts = last[pid][tid] - rnd() % 5000000;            /* out of order */
		else
			last[pid][tid] = ts;
		s[n++] = (struct sl){ pid, tid, ts, ts + len };
		fprintf(f, "{\"name\":\"%s_EVENT%u\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,", rnd() & 1 ? "SET" : "WAIT",
		        i, pid, tid);
		put_us(f, "ts", ts);
		fputc(',', f);
		put_us(f, "dur", len);
		fprintf(f, "},\n");
		/* now and then a flow: an s and its t, each at a time in or near
		 * a slice seen so far, or one to come */
		if (rnd() % 3 == 0) {
			int ok = 1, half;
			for (half = 0; half < 2; half++) {
				const struct sl *at = &s[rnd() % n];
				uint64_t t = at->ts + rnd() % (at->te - at->ts + 1);
				int fp = at->pid, ft = at->tid, found = 0;
				if (rnd() % 8 == 0)
					t = at->te + 1 + rnd() % 1000;            /* just past it */
				if (rnd() % 16 == 0)
					fp = (fp + 1) % 4;                         /* another lane */
				for (k = 0; k < n && !found; k++)
					found = s[k].pid == fp && s[k].tid == ft && s[k].ts <= t && t <= s[k].te;
				ok &= found;
				fprintf(f, "{\"name\":\"flow\",\"ph\":\"%s\",\"id\":%u,\"pid\":%d,\"tid\":%d,", half ? "t" : "s", i,
				        fp, ft);
				put_us(f, "ts", t);
				fprintf(f, "},\n");
			}
			cut += !ok;
		}
	}
	fprintf(f, "{\"name\":\"end\",\"ph\":\"i\",\"pid\":0,\"tid\":0,\"ts\":0}\n]}\n");
	fclose(f);
	free(s);
	return cut;
}

static void one(unsigned nslices, int kind)
{
	char **names = NULL;
	size_t nnames = 0, i;
	uint64_t before = split_flows_cut();
	unsigned want = make_trace(unit_path("trace.json"), nslices, kind);
	int err = split_trace(unit_path("trace.json"), 0, UINT64_MAX, unit_dir, 0, 1ull << 40, &names, &nnames);
	CHECK_INT(err, 0);
	CHECK_MSG(split_flows_cut() - before == want, "%u slices, kind %d: %llu flows left out, want %u", nslices, kind,
	          (unsigned long long)(split_flows_cut() - before), want);
	for (i = 0; i < nnames; i++) {
		remove(unit_path(names[i]));
		free(names[i]);
	}
	free(names);
}

int main(void)
{
	int kind, round;
	unit_workdir("test_split");
	for (kind = 0; kind < 3; kind++)
		for (round = 0; round < 20; round++)
			one(50 + (unsigned)(rnd() % 3000), kind);
	/* a part's worth of slices in one lane's run, far past a block */
	one(40000, 1);
	remove(unit_path("trace.json"));
	remove(unit_dir);
	return unit_done();
}
