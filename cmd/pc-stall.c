/* pc-stall: the A5 PC sampling of an on-board dump (dump/pcSampling.bin*;
 * optrace-board(5)) as two CSVs: the stall states sampled at each
 * instruction, and the top stall reasons over the kernel.  See
 * pc-stall(1). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "board.h"
#include "dumpdir.h"
#include "chip.h"
#include "cli.h"
#include "io.h"
#include "mem.h"
#include "order.h"
#include "pcsamp.h"
#include "scan.h"

static const char *out_dir = ".", *soc_option, *instrs_path;

static const char help[] =
	"usage: pc-stall [-o DIR] [--instrs FILE] DUMPDIR\n"
	"The PC sampling of the Ascend950 on-board dump directory DUMPDIR\n"
	"(pcSampling.bin*, pc_start_pcsampling.txt, PcOffset.bin) as\n"
	"DIR/PcSampling.csv (the stall states sampled at each instruction) and\n"
	"DIR/TopStallReason.csv (the stall reasons over the kernel), and the\n"
	"reasons as the visualize_data.bin block TOP_STALL_REASON holds them,\n"
	"DIR/top_stall_reason.json (when any stall was sampled).\n"
	"  -o DIR             where the CSVs go (default: .)\n"
	"  --instrs FILE      the kernel's instruction pcs, one hex offset a line;\n"
	"                     samples at other pcs are dropped (default: none is)\n"
	"  --soc-version=SOC  the SoC (default: Run Soc Version of op_basic_info.txt)\n"
	"  -q, -v             quieter, more verbose\n"
	"  -h, --help, --version\n"
	"Exit: 0 ok, 1 a file skipped or cut (the CSVs written), 2 usage\n"
	"or an operator without SIMT, 3 no usable sample, 4 I/O error, 130 interrupted.\n";

static uint64_t *instrs;
static size_t ninstrs;

static int is_instr(void *ctx, uint64_t pc)
{
	size_t lo = 0, hi = ninstrs;
	(void)ctx;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (instrs[mid] < pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ninstrs && instrs[lo] == pc;
}

static int cmp_pc(const void *a, const void *b)
{
	return cmp_u64(*(const uint64_t *)a, *(const uint64_t *)b);
}

/* A hex number ("0x" optional) leading a line, white space around it;
 * -1 when the line holds something else. */
static int hex_line(const char *s, size_t n, uint64_t *v)
{
	const char *e = s + n;
	size_t k;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		e--;
	if (e - s > 2 && s[0] == '0' && (s[1] | 0x20) == 'x')
		s += 2;
	k = scan_hex(s, e, v);
	return k && k <= 16 && s + k == e ? 0 : -1;
}

static void read_instrs(const char *path)
{
	struct rd *r = rd_open(path);
	const char *s;
	size_t n, cap = 0;
	if (!r)
		cli_die(EXIT_UNUSABLE, "%s: cannot open:", path);
	while ((s = rd_line(r, &n))) {
		uint64_t pc;
		size_t i = 0;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n || s[i] == '#' || (i + 1 == n && s[i] == '\r'))
			continue;
		if (hex_line(s, n, &pc) < 0)
			cli_die(EXIT_UNUSABLE, "%s:%llu: not an instruction pc (a hex number): nothing written", path,
			        (unsigned long long)rd_lineno(r));
		if (ninstrs == cap)
			instrs = xreallocarray(instrs, cap = cap ? 2 * cap : 256, sizeof *instrs);
		instrs[ninstrs++] = pc;
	}
	if (rd_error(r))
		cli_die(EXIT_IO, "%s: cannot read: %s", path, rd_strerror(r));
	rd_close(r);
	if (ninstrs > 1)
		qsort(instrs, ninstrs, sizeof *instrs, cmp_pc);
}

static void percent(struct wr *w, uint64_t part, uint64_t total)
{
	/* six decimals, rounded */
	uint64_t x = total ? (uint64_t)((double)part * 1e8 / (double)total + 0.5) : 0;
	wr_printf(w, "%llu.%06llu", (unsigned long long)(x / 1000000), (unsigned long long)(x % 1000000));
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		CLI_LONGOPTS,
		{ "instrs", required_argument, NULL, 'I' },
		{ "soc-version", required_argument, NULL, 's' },
		CLI_LONGOPTS_END
	};
	struct board_basic basic;
	struct pcs s;
	struct wr *wi, *wt;
	const char *dir;
	char *p1, *p2;
	size_t i, skipped = 0;
	uint64_t total = 0, all = 0;
	unsigned k, order[PCS_STALLS];
	int c, status = EXIT_OK, rc;

	cli_init("pc-stall");
	while ((c = getopt_long(argc, argv, "ho:qv", longopts, NULL)) != -1) {
		if (board_opt(c, help, &out_dir, &soc_option))
			continue;
		switch (c) {
		case 'I': instrs_path = optarg; break;
		default: fputs(help, stderr); return EXIT_USAGE;
		}
	}
	if (!(dir = board_dump_operand(argc, argv, optind, help, &basic)))
		return EXIT_USAGE;
	if (!io_is_dir(out_dir))
		cli_die(EXIT_USAGE, "%s: not a directory", out_dir);

	board_chip(dir, soc_option, &basic, BOARD_FAMILY(CHIP_A5), "PC sampling", "it samples Ascend950's (A5) SIMT warps");
	if (!basic.has_simt)
		cli_die(EXIT_USAGE, "%s: PC sampling is not supported on this operator (%s): it has no SIMT code "
		        "(op_basic_info.txt: Has Simt=0): nothing written", dir, basic.op_name);
	if (instrs_path)
		read_instrs(instrs_path);

	if (!board_pcsampling(dir, &s, instrs_path ? is_instr : NULL, NULL, &skipped))
		cli_die(EXIT_UNUSABLE, "%s: no pcSampling.bin (the device wrote no PC samples): nothing written", dir);
	for (k = 0; k < PCS_STALLS; k++)
		total += s.top[k];
	for (i = 0; i < s.nrows; i++)
		all += pcs_all_sum(s.rows[i].n);
	if (!s.nrows)
		cli_die(EXIT_UNUSABLE, "%s: no sample at an instruction of the kernel (%llu records, %llu at %zu pcs "
		        "that are not instructions): nothing written", dir, (unsigned long long)s.records,
		        (unsigned long long)s.dropped, s.ndropped);

	p1 = xpath(out_dir, "PcSampling.csv");
	p2 = xpath(out_dir, "TopStallReason.csv");
	if (!(wi = wr_open(p1, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", p1);
	if (!(wt = wr_open(p2, 0)))
		cli_die(EXIT_IO, "%s: cannot create:", p2);
	wr_puts(wi, "pc");
	for (k = 0; k < PCS_STATES; k++)
		wr_printf(wi, ",%s", pcs_state_name(k));
	wr_puts(wi, ",Stall Sampling(Not Issue)(%),Stall Sampling(All Samples)(%)\n");
	for (i = 0; i < s.nrows; i++) {
		const struct pcs_row *row = &s.rows[i];
		wr_printf(wi, "0x%llx", (unsigned long long)row->pc);
		for (k = 0; k < PCS_STATES; k++)
			wr_printf(wi, ",%llu", (unsigned long long)row->n[k]);
		wr_putc(wi, ',');
		percent(wi, pcs_stall_sum(row->n), total);
		wr_putc(wi, ',');
		percent(wi, pcs_all_sum(row->n), all);
		wr_putc(wi, '\n');
	}
	wr_puts(wt, "Stall Reason,Samples,Percent(%)\n");
	for (k = 0; k < PCS_STALLS; k++) {
		wr_printf(wt, "%s,%llu,", pcs_state_name(k), (unsigned long long)s.top[k]);
		percent(wt, s.top[k], total);
		wr_putc(wt, '\n');
	}
	if ((rc = wr_close(wi)) || (rc = wr_close(wt))) {
		errno = rc;
		cli_die(EXIT_IO, "%s: cannot write:", out_dir);
	}
	if (total) {
		/* {"top_stall_reason_table":{NAME:samples,...}}, the names in
		 * byte order as the reference's writer sorts them */
		char *p3 = xpath(out_dir, "top_stall_reason.json");
		struct wr *wj = wr_open(p3, 0);
		if (!wj)
			cli_die(EXIT_IO, "%s: cannot create:", p3);
		for (k = 0; k < PCS_STALLS; k++)
			order[k] = k;
		for (unsigned a = 1; a < PCS_STALLS; a++)
			for (unsigned b = a; b > 0 && strcmp(pcs_state_name(order[b]), pcs_state_name(order[b - 1])) < 0; b--) {
				unsigned t = order[b];
				order[b] = order[b - 1];
				order[b - 1] = t;
			}
		wr_puts(wj, "{\"top_stall_reason_table\":{");
		for (k = 0; k < PCS_STALLS; k++)
			wr_printf(wj, "%s\"%s\":%llu", k ? "," : "", pcs_state_name(order[k]),
			          (unsigned long long)s.top[order[k]]);
		wr_puts(wj, "}}");
		if ((rc = wr_close(wj))) {
			errno = rc;
			cli_die(EXIT_IO, "%s: cannot write:", p3);
		}
		free(p3);
	}

	if (cli_verbosity >= 1) {
		unsigned a, b;
		for (k = 0; k < PCS_STALLS; k++)
			order[k] = k;
		for (a = 1; a < PCS_STALLS; a++)   /* by samples, the table's order among equals */
			for (b = a; b > 0 && s.top[order[b]] > s.top[order[b - 1]]; b--) {
				unsigned t = order[b];
				order[b] = order[b - 1];
				order[b - 1] = t;
			}
		printf("  pc sampling    %s (%zu instructions, %llu stall samples)\n", p1, s.nrows,
		       (unsigned long long)total);
		printf("  top stall reasons (%s)\n", p2);
		for (k = 0; k < 3 && s.top[order[k]]; k++) {
			uint64_t x = total ? (s.top[order[k]] * 1000 + total / 2) / total : 0;
			printf("    %-24s %llu (%llu.%llu%%)\n", pcs_state_name(order[k]),
			       (unsigned long long)s.top[order[k]], (unsigned long long)(x / 10), (unsigned long long)(x % 10));
		}
		fflush(stdout);
	}
	if (s.dropped) {
		cli_warn("%s: %llu of %llu samples at %zu pcs that are not instructions of the kernel dropped (first "
		         "0x%llx)", dir, (unsigned long long)s.dropped, (unsigned long long)s.records, s.ndropped,
		         (unsigned long long)s.dropped_pcs[0]);
	}
	if (skipped)
		status = EXIT_PARTIAL;
	free(p1);
	free(p2);
	free(instrs);
	pcs_free(&s);
	return status;
}
