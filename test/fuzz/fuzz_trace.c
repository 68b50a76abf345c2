/* libFuzzer target: trace-clean's trace reader (cmd/trace-clean/clean.c,
 * through the scanner of jscan.c): a trace.json's events rebuilt into the
 * cleaned trace.
 *
 * The input is a whole trace.json (object with traceEvents, or a bare
 * array of events) in a memory file.  It is scanned as trace-clean scans
 * it (traceEvents streamed, profilingType and schemaVersion to
 * clean_top_value, every event to clean_trace_event) and, when the document
 * is whole, finished (clean_finish) into /dev/null, with and without
 * --keep-scalar (by the input's length).  A stop comes with a message in
 * clean_error; the statistics add up (kept events are at most the events
 * read).  clean_free puts everything back for the next input. */
#include <fcntl.h>

#include "fuzz.h"
#include "tc.h"

static int on_key(void *c, const struct jval *key)
{
	(void)c;
	return jstr_eq(key, "traceEvents", 11);
}

static int on_value(void *c, const struct jval *key, const struct jval *val)
{
	(void)c;
	if (jstr_eq(key, "traceEvents", 11))
		return 1;
	clean_top_value(key, val);
	return 0;
}

static int on_element(void *c, const struct jval *key, const struct jobj *o, const struct jval *v, uint64_t off)
{
	(void)c, (void)key, (void)v;
	return clean_trace_event(o, off) ? 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int devnull = -1;
	static const struct jhandler h = { on_key, on_value, on_element };
	struct clean_opts opts = { (int)(size & 1) };
	int fd = fuzz_memfd(data, size), st;
	struct src s = { 0 };
	struct jbuf jb;
	struct jfail f;
	struct wr *w;

	if (devnull < 0)
		CHECK((devnull = open("/dev/null", O_WRONLY)) >= 0);
	w = wr_fdopen(devnull, "trace.json", 0);     /* not closed by wr_close */
	CHECK(w);
	s.rd = rd_fdopen(fd, "fuzz");
	s.name = "fuzz";
	CHECK(s.rd);
	clean_begin(w, &opts);
	jbuf_init(&jb, &s, 256, 1 << 16);
	st = jscan(&jb, &h, NULL, &f);
	if (st == JS_OK)
		CHECK(clean_finish() == 0);
	else
		clean_abort_close();
	CHECK(cstats.kept <= cstats.events);
	jbuf_free(&jb);
	clean_free();
	CHECK(wr_close(w) == 0);
	rd_close(s.rd);
	close(fd);
	return 0;
}
