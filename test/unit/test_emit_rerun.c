/* timeline-emit run twice in one process (timeline_emit_main, then its
 * own timeline_emit_reset): the second run of the same stream writes the
 * same files as the first.  The fuzz target runs the tool this way; its
 * finding was the core looked up last, kept across runs and used after
 * the first run had freed it (under AddressSanitizer: a use after free;
 * without it, whatever the freed block held). */
#include <fcntl.h>
#include <getopt.h>
#include <unistd.h>

#include "emit.h"
#include "io.h"
#include "rec.h"
#include "unit.h"

static void put(struct rec_out *o, uint64_t core, uint64_t sub, uint64_t tick, const char *pipe, const char *name)
{
	struct rec r;

	rec_init(&r, K_INSTR);
	r.n[I_CORE].u = core;
	r.n[I_SUBTYPE].u = sub;
	r.n[I_SUBIDX].u = 0;
	r.n[I_BLOCK].i = -1;
	r.n[I_SUBBLOCK].i = -1;
	r.n[I_START].u = tick;
	r.n[I_END].u = tick + 7;
	r.n[I_PC].u = 0x1000 + 4 * (tick % 16);
	r.n[I_WARP].i = -1;
	r.n[I_SCH].i = -1;
	r.n[I_THREADS].i = -1;
	r.n[I_GPR].i = -1;
	r.n[I_BYTES].i = -1;
	r.n[I_VECUTIL].f = -1;
	r.n[I_UBREAD].i = -1;
	r.n[I_UBWRITE].i = -1;
	r.n[I_ICACHE].u = REC_NONE;
	r.n[I_CCU].u = REC_NONE;
	rec_text_set(&r, IS_PIPE, pipe, strlen(pipe));
	rec_text_set(&r, IS_NAME, name, strlen(name));
	rec_text_set(&r, IS_DETAIL, "", 0);
	rec_out_put(o, &r);
}

/* One stream of two cores, each with its vector and scalar lanes. */
static void write_stream(const char *path)
{
	struct wr *w = wr_open(path, 0);
	struct rec_out o = { .w = w, .mode = REC_BIN, .producer = "instr-parse" };
	uint64_t t;

	CHECK(w != NULL);
	if (!w)
		exit(2);
	rec_out_header(&o, "Ascend910B1", 1850, "test");
	for (t = 100; t < 400; t += 10) {
		put(&o, 0, SUB_VEC, t, "VECTOR", "VADD");
		put(&o, 0, SUB_VEC, t + 3, "SCALAR", "ADD");
		put(&o, 1, SUB_CUBE, t + 1, "CUBE", "MMAD");
	}
	rec_out_trailer(&o, 0, 0, 0);
	CHECK_INT(wr_close(w), 0);
}

static int run(const char *in, const char *out)
{
	char *argv[] = { "timeline-emit", "-q", "-o", (char *)out, (char *)in, NULL };
	int saved, null, status;

	/* the summary goes to standard output: not into this test's lines */
	fflush(stdout);
	saved = dup(1);
	null = open("/dev/null", O_WRONLY);
	if (saved < 0 || null < 0 || dup2(null, 1) < 0)
		exit(2);
	close(null);
	optind = 0;
	status = timeline_emit_main(5, argv);
	fflush(stdout);
	if (dup2(saved, 1) < 0)
		exit(2);
	close(saved);
	return status;
}

static void same_file(const char *a, const char *b)
{
	size_t na, nb;
	char *pa = unit_read_file(a, &na), *pb = unit_read_file(b, &nb);

	CHECK_MSG(pa && pb && na == nb && !memcmp(pa, pb, na), "%s and %s differ", a, b);
	free(pa);
	free(pb);
}

int main(void)
{
	char in[512], first[512], second[512], third[512], fa[600], fb[600];

	unit_workdir("emit_rerun");
	snprintf(in, sizeof in, "%s", unit_path("in.rec"));
	snprintf(first, sizeof first, "%s", unit_path("first"));
	snprintf(second, sizeof second, "%s", unit_path("second"));
	snprintf(third, sizeof third, "%s", unit_path("third"));
	write_stream(in);

	CHECK_INT(run(in, first), 0);
	CHECK_INT(run(in, second), 0);
	CHECK_INT(run(in, third), 0);
	snprintf(fa, sizeof fa, "%s/trace.json", first);
	snprintf(fb, sizeof fb, "%s/trace.json", second);
	CHECK(io_is_file(fa));
	same_file(fa, fb);
	snprintf(fb, sizeof fb, "%s/trace.json", third);
	same_file(fa, fb);

	CHECK_INT(io_rm_tree(unit_dir), 0);
	return unit_done();
}
