/* src-map: put the source of every pc in the stream ahead of the records
 * that use it (see src-map(1), DESCRIPTION).  Every record passes through
 * unchanged; before
 * the first record that uses a pc not seen yet (an instruction's or cache
 * miss's pc, a mark's start and end pc) comes a code record with the pc's
 * inline stack of file:line entries, each marked user or library.
 *
 * Each distinct pc is looked up once, through the system symbolizer
 * (llvm-symbolizer, else addr2line) kept running as a coprocess and fed in
 * batches: records that wait for their batch are held (in memory, a few
 * MiB) and go out, in their order, right after its code records.  The
 * address looked up is pc - start pc, the start pc coming from --pc-start
 * (pc_start_addr.txt); without one it is the lowest pc of the stream, so
 * the whole stream is held first (spilled to an unlinked temporary file)
 * and the lookup runs at its end.
 *
 * Whatever stops the code view (no binary, no -g, no symbolizer, a
 * symbolizer that fails) costs only the code records: the stream still
 * goes through, and one warning says why. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "chip.h"
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "keytab.h"
#include "loss.h"
#include "mem.h"
#include "rec.h"
#include "sym.h"
#include "text.h"

#define BATCH_DEFAULT 8192
#define BATCH_DEFAULT_TEXT "8192"   /* the same, for the help text */
#define HOLD_BYTES (8u << 20)       /* held while a batch fills (--pc-start) */
#define SPOOL_BYTES (64u << 20)     /* held in memory before the temporary file */
#define TOOLKIT "ascend-toolkit"

enum loss { LOSS_BAD_RECORD, LOSS_NKINDS };
static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	FILTER_LOSS_BAD_RECORD,
};
static struct losses losses;

/* ---- distinct pcs ---- */

static struct keytab pcs = { .vsize = 0 };   /* a set: no values */

/* 1 when pc was not in the set (it is now). */
static int pc_add(uint64_t pc)
{
	int fresh;
	keytab_get(&pcs, pc, &fresh);
	return fresh;
}

/* ---- the state of the run ---- */

static struct filter flt;        /* flt.out: the output */
static struct rec_dec dec2;
static const char *binary, *symbolizer_opt;
static uint64_t start_pc = REC_NONE, min_pc = REC_NONE;
static int hold_all;                /* no start pc: hold the stream to its end */
static size_t batch_max = BATCH_DEFAULT;

static uint64_t *batch;             /* new pcs waiting for their lookup */
static size_t batch_n, batch_cap;

static struct sym *sym;
static const char *sym_cmd;
static int code_off;                /* the code view is off: why[] says why */
static char why[640], sym_said[256];
static uint64_t n_lookups, n_mapped, n_below, n_batches, n_code;
static double lookup_secs;

/* Records waiting for their batch: raw lines, LF-terminated. */
static char *held;
static size_t held_n, held_cap;
static int spool_fd = -1;
static struct wr *spool;

static void hold(const char *line, size_t len)
{
	if (held_n + len + 1 > held_cap) {
		while (held_n + len + 1 > held_cap)
			held_cap = held_cap ? 2 * held_cap : 1 << 16;
		held = xrealloc(held, held_cap);
	}
	memcpy(held + held_n, line, len);
	held[held_n + len] = '\n';
	held_n += len + 1;
	if (hold_all && held_n >= SPOOL_BYTES) {
		if (!spool) {
			spool_fd = io_tmpfd();
			if (spool_fd < 0 || !(spool = wr_fdopen(spool_fd, "(spool)", WR_LZ4)))
				cli_die(EXIT_IO, "cannot create a temporary file:");
		}
		wr_put(spool, held, held_n);
		if (wr_error(spool)) {
			errno = wr_error(spool);
			cli_die(EXIT_IO, "cannot write a temporary file:");
		}
		held_n = 0;
	}
}

/* One record out: binary lines as they are when the output is binary. */
static void put_line(const char *line, size_t len)
{
	struct rec r;
	const char *w;
	int k;
	if (flt.out.mode == REC_BIN && len && line[0] != '{') {
		wr_put(flt.out.w, line, len);
		wr_putc(flt.out.w, '\n');
		flt.out.records++;
		return;
	}
	k = rec_decode(&dec2, line, len, &r, &w);
	if (k == DEC_OK)
		rec_out_put(&flt.out, &r);
	else
		rec_out_raw(&flt.out, line, len);
}

static void release_held(void)
{
	const char *p = held, *e = held + held_n, *nl;
	if (spool) {
		struct rd *rd;
		const char *line;
		size_t len;
		int err = wr_close(spool);  /* ends the lz4 frame; the fd stays ours */
		spool = NULL;
		if (err) {
			errno = err;
			cli_die(EXIT_IO, "cannot write a temporary file:");
		}
		if (lseek(spool_fd, 0, SEEK_SET) < 0 || !(rd = rd_fdopen(spool_fd, "(spool)")))
			cli_die(EXIT_IO, "cannot read back a temporary file:");
		while ((line = rd_line(rd, &len)))
			put_line(line, len);
		if (rd_error(rd))
			cli_die(EXIT_IO, "cannot read back a temporary file: %s", rd_strerror(rd));
		rd_close(rd);
		close(spool_fd);
		spool_fd = -1;
	}
	while (p < e && (nl = memchr(p, '\n', (size_t)(e - p)))) {
		put_line(p, (size_t)(nl - p));
		p = nl + 1;
	}
	held_n = 0;
}

/* ---- from frames to a code record: the frames kept run from the innermost
 * to the outermost user frame with a known line (see src-map(1),
 * DESCRIPTION) ---- */

static struct sbuf stack, kinds, funcs, entry;

static int is_toolkit(const struct frame *f)
{
	return memmem(f->file, f->file_n, TOOLKIT, sizeof TOOLKIT - 1) != NULL;
}

/* The chain kept for a pc is frames[0..i] for the outermost frame i with
 * a line, outside the toolkit; frames[0..0] when there is none but the
 * outermost frame is in the toolkit; nothing otherwise. */
static void looked_up(void *ctx, size_t i, const struct frame *f, size_t nf)
{
	const uint64_t *pcv = ctx;
	long last = -1;
	size_t k;
	struct rec r;

	for (k = 0; k < nf; k++)
		if (f[k].line && !is_toolkit(&f[k]) && !(f[k].file_n == 2 && !memcmp(f[k].file, "??", 2)))
			last = (long)k;
	if (last < 0 && nf && is_toolkit(&f[nf - 1]))
		last = 0;
	if (last < 0)
		return;
	stack.n = kinds.n = funcs.n = 0;
	for (k = 0; k <= (size_t)last; k++) {
		char num[24];
		int nn = snprintf(num, sizeof num, ":%llu", (unsigned long long)f[k].line);
		const char *s = stack.p;
		size_t left = stack.n, m;
		int dup = 0;
		entry.n = 0;
		sb_put(&entry, f[k].file, f[k].file_n);
		sb_put(&entry, num, (size_t)nn);
		/* Entries are unique: an inlined call on the same line once. */
		while (left) {
			const char *nl = memchr(s, '\n', left);
			m = nl ? (size_t)(nl - s) : left;
			if (m == entry.n && !memcmp(s, entry.p, m))
				dup = 1;
			if (!nl)
				break;
			left -= m + 1;
			s = nl + 1;
		}
		if (dup)
			continue;
		if (stack.n) {
			sb_put(&stack, "\n", 1);
			sb_put(&funcs, "\n", 1);
		}
		sb_put(&stack, entry.p, entry.n);
		sb_put(&kinds, is_toolkit(&f[k]) ? "l" : "u", 1);
		sb_put(&funcs, f[k].func, f[k].func_n);
	}
	rec_init(&r, K_CODE);
	r.n[C_PC].u = pcv[i];
	r.n[C_OFFSET].u = pcv[i] - start_pc;
	rec_text_set(&r, CS_STACK, stack.p, stack.n);
	rec_text_set(&r, CS_KINDS, kinds.p, kinds.n);
	rec_text_set(&r, CS_FUNC, funcs.p, funcs.n);
	rec_out_put(&flt.out, &r);
	n_mapped++;
}

static void turn_off(void)
{
	code_off = 1;
	sym_stop(sym);
	sym = NULL;
}

/* Look up the batch's pcs and write their code records. */
static void lookup_batch(void)
{
	uint64_t *addr;
	size_t i, n = 0;
	struct timespec t0, t1;

	if (!batch_n)
		return;
	if (code_off) {
		batch_n = 0;
		return;
	}
	if (!sym) {
		sym = sym_start(sym_cmd, binary, why, sizeof why);
		if (!sym) {
			turn_off();
			batch_n = 0;
			return;
		}
	}
	/* Pcs below the start pc have no offset in the binary. */
	for (i = 0; i < batch_n; i++) {
		if (batch[i] < start_pc)
			n_below++;
		else
			batch[n++] = batch[i];
	}
	addr = xmalloc((n + 1) * sizeof *addr);
	for (i = 0; i < n; i++)
		addr[i] = batch[i] - start_pc;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (n && sym_resolve(sym, addr, n, looked_up, batch, why, sizeof why) < 0)
		turn_off();
	clock_gettime(CLOCK_MONOTONIC, &t1);
	lookup_secs += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	n_lookups += n;
	n_batches += n > 0;
	free(addr);
	batch_n = 0;
}

static void want(uint64_t pc)
{
	if (pc == REC_NONE || !pc_add(pc))
		return;
	if (pc < min_pc)
		min_pc = pc;
	if (batch_n == batch_cap) {
		batch_cap = batch_cap ? 2 * batch_cap : 1024;
		batch = xreallocarray(batch, batch_cap, sizeof *batch);
	}
	batch[batch_n++] = pc;
}

/* The start pc from --pc-start: an address, or a file whose first line is
 * one (pc_start_addr.txt). */
static void read_pc_start(const char *arg)
{
	char buf[128], *end;
	unsigned long long v;
	struct stat st;
	const char *s = arg;

	if (stat(arg, &st) == 0) {
		FILE *f = fopen(arg, "r");
		if (!f || !fgets(buf, sizeof buf, f)) {
			if (f)
				fclose(f);
			cli_warn("%s: cannot read the start pc%s%s; using the lowest pc of the stream", arg,
			         errno ? ": " : "", errno ? strerror(errno) : "");
			return;
		}
		fclose(f);
		s = buf;
	}
	errno = 0;
	while (*s == ' ' || *s == '\t')
		s++;
	v = strtoull(s, &end, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	if (errno || end == s || *end) {
		if (s == arg)
			cli_die(EXIT_USAGE, "option --pc-start: '%s' is neither a file nor an address (0x10f86000)", arg);
		cli_warn_at(arg, 1, "not an address; using the lowest pc of the stream");
		return;
	}
	/* 0x0 in pc_start_addr.txt means none (see optrace-capture(5), A launch
	 * directory); given on the
	 * command line it is the address it says. */
	if (v || s == arg)
		start_pc = v;
}

/* ---- main ---- */

static const char help[] =
	"usage: src-map --binary FILE [options] [FILE...]\n"
	"Pass a record stream through, with a code record (the pc's inline stack of\n"
	"file:line) ahead of the first record that uses each pc.\n"
	"  --binary FILE      the kernel binary (aicore_binary.o), built with -g\n"
	"  --pc-start FILE|ADDR  the pc of the binary's address 0: an address, or a\n"
	"                     file whose first line is one (pc_start_addr.txt, where\n"
	"                     0x0 means none); default: the lowest pc of the stream,\n"
	"                     which holds the stream back until its end\n"
	"  --symbolizer CMD   llvm-symbolizer or addr2line (default: the first found)\n"
	"  --batch N          pcs looked up at a time (default " BATCH_DEFAULT_TEXT ")\n";

static int record(struct filter *f, int k, struct rec *r, const char *line, size_t len)
{
	size_t before = batch_n;
	if (!code_off && k == DEC_OK) {
		if (r->sc->kind == K_INSTR) {
			want(r->n[I_PC].u);
		} else if (r->sc->kind == K_MARK) {
			want(r->n[M_STARTPC].u);
			want(r->n[M_ENDPC].u);
		} else if (r->sc->kind == K_CODE) {
			/* Mapped upstream already: ours replace them. */
			return 1;
		}
	}
	if (hold_all || batch_n > before || held_n) {
		hold(line, len);
		if (!hold_all && (batch_n >= batch_max || held_n >= HOLD_BYTES)) {
			lookup_batch();
			release_held();
		}
	} else if (k == DEC_OK && f->out.mode != REC_BIN) {
		rec_out_put(&f->out, r);
	} else {
		put_line(line, len);
	}
	return 1;
}

static void drain(struct filter *f)
{
	if (!wr_error(f->out.w)) {
		/* The input is over (not stopped by the output). */
		if (hold_all)
			start_pc = min_pc;
		/* In pieces of --batch, so the symbolizer's pipes stay bounded. */
		while (batch_n && !wr_error(f->out.w)) {
			size_t n = batch_n, take = n < batch_max ? n : batch_max;
			uint64_t *rest = batch + take;
			size_t left = n - take;
			batch_n = take;
			lookup_batch();
			memmove(batch, rest, left * sizeof *batch);
			batch_n = left;
		}
		if (!wr_error(f->out.w))
			release_held();
	}
	if (sym) {
		/* What it complained about, for the note below. */
		snprintf(sym_said, sizeof sym_said, "%s", sym_stderr(sym));
		sym_stop(sym);
		sym = NULL;
	}
}

/* Why the code view is empty, as a diag record before the trailer. */
static int finish(struct filter *f)
{
	if (!code_off && pcs.n && !n_mapped) {
		code_off = 1;
		snprintf(why, sizeof why, "none of the %zu pcs maps to a source line of %s (another kernel's binary, "
		         "or a wrong --pc-start?)%s%s", pcs.n, binary, *sym_said ? "; the symbolizer said: " : "",
		         sym_said);
	}
	if (code_off && !cli_interrupted) {
		struct rec d;
		char msg[768];
		snprintf(msg, sizeof msg, "the code view is empty: %s", why);
		rec_init(&d, K_DIAG);
		d.n[D_LEVEL].u = 1;
		d.n[D_COUNT].u = 1;
		rec_text_set(&d, DS_TOOL, "src-map", 7);
		rec_text_set(&d, DS_FILE, binary, strlen(binary));
		rec_text_set(&d, DS_MESSAGE, msg, strlen(msg));
		rec_out_put(&f->out, &d);
		cli_warn("%s", msg);
		f->problems++;
	}
	return 1;
}

static void report(struct filter *f)
{
	loss_report(f->ls);
	n_code = n_mapped;
	if (cli_verbosity >= 2)
		cli_note("%zu distinct pcs, %llu looked up in %llu batches with %s in %.3f s, %llu mapped to "
		         "source, %llu below the start pc 0x%llx", pcs.n, (unsigned long long)n_lookups,
		         (unsigned long long)n_batches, sym_cmd ? sym_cmd : "no symbolizer", lookup_secs,
		         (unsigned long long)n_code, (unsigned long long)n_below,
		         (unsigned long long)(start_pc == REC_NONE ? 0 : start_pc));
}

static void release_all(void)
{
	sym_stop(sym);
	sym = NULL;
	loss_free(&losses);
	keytab_free(&pcs);
	free(batch);
	free(held);
	sb_free(&stack);
	sb_free(&kinds);
	sb_free(&funcs);
	sb_free(&entry);
	rec_dec_free(&dec2);
}

enum { OPT_BINARY = 256, OPT_PCSTART, OPT_SYMBOLIZER, OPT_BATCH };
static const char *pc_start_arg;

static int option(struct filter *f, int c, const char *arg)
{
	(void)f;
	switch (c) {
	case OPT_BINARY: binary = arg; break;
	case OPT_PCSTART: pc_start_arg = arg; break;
	case OPT_SYMBOLIZER: symbolizer_opt = arg; break;
	case OPT_BATCH:
		batch_max = (size_t)cli_num("--batch", arg);
		if (!batch_max || batch_max > 1000000)
			cli_die(EXIT_USAGE, "option --batch: %zu is not in 1..1000000", batch_max);
		break;
	default: return 0;
	}
	return 1;
}

/* The binary and the start pc, and why the code view would be empty,
 * before reading anything. */
static int ready(struct filter *f)
{
	if (!binary) {
		cli_warn("--binary FILE is required (the kernel's aicore_binary.o)");
		filter_help(f, stderr);
		return EXIT_USAGE;
	}
	if (io_check_input(binary, "kernel binary", IO_LIMIT_BINARY) < 0)
		return EXIT_UNUSABLE;
	if (pc_start_arg)
		read_pc_start(pc_start_arg);
	hold_all = start_pc == REC_NONE;

	if (elf_has_debug(binary, why, sizeof why) <= 0) {
		code_off = 1;
	} else if (!(sym_cmd = sym_find(symbolizer_opt))) {
		code_off = 1;
		if (symbolizer_opt)
			snprintf(why, sizeof why, "symbolizer '%s' not found", symbolizer_opt);
		else
			snprintf(why, sizeof why, "no symbolizer: neither llvm-symbolizer nor addr2line is in PATH");
	}
	if (code_off)
		hold_all = 0;       /* nothing to look up: just pass through */
	return -1;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		FILTER_LONGOPTS,
		{ "binary", required_argument, NULL, OPT_BINARY },
		{ "pc-start", required_argument, NULL, OPT_PCSTART },
		{ "symbolizer", required_argument, NULL, OPT_SYMBOLIZER },
		{ "batch", required_argument, NULL, OPT_BATCH },
		FILTER_LONGOPT_SOC,
		FILTER_LONGOPTS_END
	};
	static const struct filter_cli cli = { .longopts = longopts, .loss_kinds = loss_kinds,
	                                       .loss_nkinds = LOSS_NKINDS, .option = option, .help = help, .soc = 1,
	                                       .ready = ready };
	int status;

	flt = (struct filter){ .tool = "src-map", .ls = &losses, .bad_kind = LOSS_BAD_RECORD, .bad_file = 0,
	                       .record = record, .drain = drain, .finish = finish, .report = report };
	status = filter_main(&flt, &cli, argc, argv);
	release_all();
	return status;
}
