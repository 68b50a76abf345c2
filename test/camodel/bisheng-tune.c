/* bisheng-tune, the stand-in of the compiler's dfx_region instrumentation
 * (README, section 12): for one kernel of a device binary it finds the
 * compute and transfer instructions (the intrinsic call sites of the
 * pipes MTE1, MTE2, MTE3, CUBE, FIXP and the vector ones, SIMD and SIMT;
 * never scalar ones; kscan.c), gives each a dfx region id of its pipe and
 * writes dfx_region_map.txt (the id -> pc map of the instructions, pc =
 * the offset the simulator gives the call) and dfx_tune.log. */
#include "kscan.h"

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "biu.h"
#include "cli.h"
#include "devprof.h"
#include "io.h"
#include "mem.h"

static const char usage_text[] =
	"usage: bisheng-tune --action=instru-dfx [--kernel-name=NAME | --tiling-key=KEY] [--dfx-pipe=LIST]\n"
	"                    [-o DIR] KERNEL.o\n"
	"Mark the compute and transfer instructions of one kernel of KERNEL.o with dfx\n"
	"region ids and write DIR/dfx_region_map.txt and DIR/dfx_tune.log (DIR: .).\n"
	"  --kernel-name=NAME  the kernel (a global function of .text)\n"
	"  --tiling-key=KEY    the kernel NAME_KEY (also NAME_KEY_mix_aic, NAME_KEY_mix_aiv)\n"
	"  --dfx-pipe=LIST     pipes to mark, joined by '|' or ',': cube fixp vector (= simd and\n"
	"                      simt) simd simt mte1 mte2 mte3 (default all)\n"
	"Exit: 0 done, 1 a pipe ran out of dfx ids (1024 a pipe; the rest unmarked, the files\n"
	"written), 2 usage, 3 no such kernel or not a kernel binary, 4 I/O error.\n";

/* A pipe list: BIU pipes and the simd/simt halves of the vector pipe,
 * as bits of the kinds' selection tokens. */
static unsigned pick_pipes(const char *list)
{
	unsigned bits = 0;
	const char *p = list;
	while (*p) {
		size_t n = strcspn(p, "|,");
		unsigned hit = 0;
		for (unsigned k = 0; k < ks_nkinds; k++)
			if ((strlen(ks_kinds[k].sel) == n && !strncasecmp(p, ks_kinds[k].sel, n)) ||
			    (n == 6 && !strncasecmp(p, "vector", 6) && ks_kinds[k].pipe == BIU_VECTOR))
				hit |= 1u << k;
		if (!hit)
			cli_die(EXIT_USAGE, "--dfx-pipe: '%.*s' is not one of cube fixp vector simd simt mte1 mte2 mte3",
			        (int)n, p);
		bits |= hit;
		p += n + (p[n] != 0);
	}
	if (!bits)
		cli_die(EXIT_USAGE, "--dfx-pipe: no pipe given");
	return bits;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "action", required_argument, NULL, 'a' },
		{ "kernel-name", required_argument, NULL, 'k' },
		{ "tiling-key", required_argument, NULL, 't' },
		{ "dfx-pipe", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *action = NULL, *name = NULL, *key = NULL, *dir = ".";
	unsigned sel = (1u << ks_nkinds) - 1;
	int c;

	cli_init("bisheng-tune");
	while ((c = getopt_long(argc, argv, "ho:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a': action = optarg; break;
		case 'k': name = optarg; break;
		case 't': key = optarg; break;
		case 'p': sel = pick_pipes(optarg); break;
		case 'o': dir = optarg[0] == '=' ? optarg + 1 : optarg; break;
		case 'h': fputs(usage_text, stdout); return cli_stdout_done(EXIT_OK);
		default: fputs(usage_text, stderr); return EXIT_USAGE;
		}
	}
	if (optind + 1 != argc)
		cli_die(EXIT_USAGE, "one kernel binary expected (--help for usage)");
	if (!action || strcmp(action, "instru-dfx"))
		cli_die(EXIT_USAGE, "--action=%s: the stand-in does instru-dfx only", action ? action : "(none)");
	if (key && (!*key || strspn(key, "0123456789") != strlen(key)))
		cli_die(EXIT_USAGE, "--tiling-key=%s: not a decimal number", key);
	if (name && !*name)
		cli_die(EXIT_USAGE, "--kernel-name: empty name");
	if (!io_is_dir(dir))
		cli_die(EXIT_USAGE, "%s: not a directory", dir);

	const char *path = argv[optind];
	struct rd *r = rd_open(path);
	if (!r)
		cli_die(EXIT_UNUSABLE, "%s:", path);
	size_t len = 0, cap = 0, got;
	unsigned char *d = NULL;
	do {
		if (cap - len < 65536)
			d = xrealloc(d, cap = cap ? cap * 2 : 1 << 20);
		got = rd_read(r, d + len, cap - len);
		len += got;
	} while (got);
	if (rd_error(r))
		cli_die(EXIT_IO, "%s: %s", path, rd_strerror(r));
	rd_close(r);

	struct ks_result res;
	char err[1200];
	int st = ks_scan(d, len, name, key, sel, &res, err, sizeof err);
	if (st)
		cli_die(st, "%s: %s", path, err);
	const struct ks_site *all = res.sites;
	size_t nall = res.n;
	const unsigned *used = res.used, *want = res.want;
	const char *kname = res.kernel;

	char *mpath = xpath(dir, "dfx_region_map.txt"), *lpath = xpath(dir, "dfx_tune.log");
	struct wr *m = wr_open(mpath, 0), *l = wr_open(lpath, 0);
	if (!m || !l)
		cli_die(EXIT_IO, "%s:", !m ? mpath : lpath);
	for (size_t i = 0; i < nall; i++) {
		char pb[8];
		if (all[i].id)
			wr_printf(m, "region_id=%u,pipe=%s,kind=%s,pc=0x%llx,opcode=%s\n", all[i].id,
			          biu_pipe_lower(ks_kinds[all[i].kind].pipe, pb), ks_kinds[all[i].kind].sel,
			          (unsigned long long)all[i].pc, ks_kinds[all[i].kind].opcode);
	}
	int status = EXIT_OK;
	wr_printf(l, "[INFO] TUNE-INFO: dfx region instrumentation of %s (%s)\n", kname, path);
	for (unsigned p = 0; p < BIU_NPIPES; p++) {
		char pb[8];
		if (!want[p])
			continue;
		wr_printf(l, "[INFO] TUNE-INFO: pipe=%s instructions=%u dfx ids=%u\n", biu_pipe_lower(p, pb), want[p], used[p]);
		if (want[p] > used[p]) {
			wr_printf(l, "[ERROR] TUNE-ERROR: all dfx ids consumed[pipe=%s]\n", pb);
			cli_warn("%s: %s: pipe %s has %u instructions, %u dfx ids: %u left unmarked", path, kname, pb, want[p],
			         DP_DFX_IDS_A5, want[p] - used[p]);
			status = EXIT_PARTIAL;
		}
	}
	if (wr_close(m) || wr_close(l))
		cli_die(EXIT_IO, "%s: cannot write the instrumentation's files", dir);
	free(mpath);
	free(lpath);
	ks_free(&res);
	free(d);
	return status;
}
