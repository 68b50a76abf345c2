/* gen-stages: the icache, CCU and MTE logs of a dump made by gen-dump, in
 * the simulator's line formats (see optrace-sidelogs(5), ICACHE LOG, CCU LOG,
 * MTE LOG), for the
 * benchmarks and tests of icache-merge, scalar-merge and mte-parse.
 *
 *   gen-stages [--all-miss] DIR
 *
 * For every DIR/core<N>.<sub>.instr_popped_log.dump it reads the popped
 * lines (tick, pc, pipe) in order and writes next to it:
 *   core<N>.<sub>.ifu.icache_log.dump  a fetch line ("lookup_tag is fetch
 *       req addr") when the pc enters another 16-byte fetch block, then the
 *       icache read of the pc (a MISS for 1 block in 8, else a HIT) and a
 *       refill line now and then; with --all-miss, one MISS line per pop;
 *   core<N>.<sub>.ccu_log.dump  one issue line per pop, a few ticks before
 *       it, in tick order (both CCU grammars alternate);
 * and per physical core core<N>.mte_log.dump, from its first sub-core's
 * pops (so that it is in tick order): for every MOV_OUT_TO_UB and
 * MOV_UB_TO_OUT four requests, each a send_req and a recv_rsp on the GM
 * interface (BRIF / BWIF) and a send_req on the UB interface (UB1WIF /
 * UB1RIF), lines in tick order within an instruction.
 * Deterministic: the same DIR gives the same logs. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

static FILE *xopen(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (!(f = fopen(path, "w"))) {
		perror(path);
		exit(1);
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

static void xclose(FILE *f)
{
	if (fflush(f) || ferror(f) || fclose(f)) {
		perror("gen-stages: write");
		exit(1);
	}
}

static uint64_t instr_id = 1, req_id = 1;

static void mte(FILE *f, uint64_t tick, int store)
{
	int k;
	for (k = 0; k < 4; k++) {
		uint64_t r = req_id++, t = tick + (uint64_t)k * 4;
		if (!store) {
			fprintf(f, "[info] %llu: BRIF send_req, addr: 0x%llx, size: 256, tag_id: %d, instr_id: %llu, req_id: %llu\n",
			        (unsigned long long)t, 0x10f74400ull + r * 256, k, (unsigned long long)instr_id, (unsigned long long)r);
			fprintf(f, "[info] %llu: BRIF recv_rsp, uop_cnt: 1, tnx_id: 0, tag_id: %d, instr_id: %llu, req_id: %llu\n",
			        (unsigned long long)t + 1, k, (unsigned long long)instr_id, (unsigned long long)r);
			fprintf(f, "[info] %llu: UB1WIF send_req, addr: 0x%llx, size: 256, tag_id: %d, instr_id: %llu, req_id: %llu\n",
			        (unsigned long long)t + 2, (unsigned long long)(r * 256 & 0x3ffff), k, (unsigned long long)instr_id, (unsigned long long)r);
		} else {
			fprintf(f, "[info] %llu: UB1RIF send_req, addr: 0x%llx, size: 256, tag_id: %d, instr_id: %llu, req_id: %llu\n",
			        (unsigned long long)t, (unsigned long long)(r * 256 & 0x3ffff), k, (unsigned long long)instr_id, (unsigned long long)r);
			fprintf(f, "[info] %llu: BWIF send_req, addr: 0x%llx, size: 256, tag_id: %d, instr_id: %llu, req_id: %llu\n",
			        (unsigned long long)t + 1, 0x10f84400ull + r * 256, k, (unsigned long long)instr_id, (unsigned long long)r);
			fprintf(f, "[info] %llu: BWIF recv_rsp, uop_cnt: 1, tnx_id: 0, tag_id: %d, instr_id: %llu, req_id: %llu\n",
			        (unsigned long long)t + 2, k, (unsigned long long)instr_id, (unsigned long long)r);
		}
	}
	instr_id++;
}

static void one_core(const char *dir, const char *popped, int all_miss, FILE **mtef, unsigned *mte_core)
{
	char name[4096], line[8192];
	size_t plen = strlen(popped) - strlen("instr_popped_log.dump");
	unsigned core = (unsigned)strtoul(popped + 4, NULL, 10);
	uint64_t last_block = UINT64_MAX, ccu_last = 0, n = 0;
	FILE *in, *ic, *cc;
	int mtef_here = 0;

	snprintf(name, sizeof name, "%s/%s", dir, popped);
	if (!(in = fopen(name, "r"))) {
		perror(name);
		exit(1);
	}
	snprintf(name, sizeof name, "%.*sifu.icache_log.dump", (int)plen, popped);
	ic = xopen(dir, name);
	snprintf(name, sizeof name, "%.*sccu_log.dump", (int)plen, popped);
	cc = xopen(dir, name);
	if (!*mtef || *mte_core != core) {
		mtef_here = 1;
		if (*mtef)
			xclose(*mtef);
		snprintf(name, sizeof name, "core%u.mte_log.dump", core);
		*mtef = xopen(dir, name);   /* sub-cores of a core: veccore0 first, in name order */
		*mte_core = core;
	}
	while (fgets(line, sizeof line, in)) {
		/* [info] [00011035] (PC: 0x10f86000) SCALAR   : ... */
		char *p = strchr(line, '['), *q;
		uint64_t tick, pc, ccu, block;
		if (!p || !(p = strchr(p + 1, '[')))
			continue;
		tick = strtoull(p + 1, &q, 10);
		if (!(p = strstr(q, "(PC: 0x")))
			continue;
		pc = strtoull(p + 7, &q, 16);
		while (*q == ')' || *q == ' ')
			q++;
		ccu = tick > 3 ? tick - 1 - n % 3 : 0;
		if (ccu < ccu_last)
			ccu = ccu_last;     /* in tick order, never after the pop */
		ccu_last = ccu;
		fprintf(cc, n % 2 ? "[info] %llu: is_single_issue instr, pc:0x%llx\n"
		                  : "[info] %llu: ccu do issue success.issue isa pc :0x%llx\n",
		        (unsigned long long)ccu, (unsigned long long)pc);
		block = pc & ~(uint64_t)15;
		if (all_miss) {
			fprintf(ic, "[info] %llu: icache read address is 0x%llx, size is 0x%08x, type:%d, last:%d, status is MISS\n",
			        (unsigned long long)ccu, (unsigned long long)pc, n % 5 ? 0x80 : 0x40, (int)(n % 3),
			        (int)(n % 7 == 0));
		} else {
			uint64_t f = ccu > 5 ? ccu - 5 : 0;
			if (block != last_block) {
				fprintf(ic, "[info] %llu: lookup_tag is fetch req addr:0x%llx\n", (unsigned long long)f,
				        (unsigned long long)block);
				last_block = block;
			}
			fprintf(ic, "[info] %llu: icache read address is 0x%llx, size is 0x00000080, type:1, last:0, status is %s\n",
			        (unsigned long long)f, (unsigned long long)pc, (block >> 4) % 8 ? "HIT" : "MISS");
			if (n % 16 == 0)
				fprintf(ic, "[info] %llu: icache refill request, id is %llu\n", (unsigned long long)f,
				        (unsigned long long)(n % 8));
		}
		if (mtef_here && (strstr(q, ") MOV_OUT_TO_UB ") || strstr(q, ") MOV_UB_TO_OUT ")))
			mte(*mtef, tick, !!strstr(q, ") MOV_UB_TO_OUT "));
		n++;
	}
	fclose(in);
	xclose(ic);
	xclose(cc);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int all_miss = 0, i;
	const char *dir;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, k;
	FILE *mtef = NULL;
	unsigned mte_core = 0;

	if (argc > 1 && !strcmp(argv[1], "--all-miss")) {
		all_miss = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: gen-stages [--all-miss] DIR\n");
		return 2;
	}
	dir = argv[1];
	if (!(d = opendir(dir))) {
		perror(dir);
		return 1;
	}
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);
		if (l > 26 && !strncmp(e->d_name, "core", 4) && !strcmp(e->d_name + l - 21, "instr_popped_log.dump")) {
			names = realloc(names, (n + 1) * sizeof *names);
			names[n++] = strdup(e->d_name);
		}
	}
	closedir(d);
	qsort(names, n, sizeof *names, cmp_str);
	for (k = 0; k < n; k++)
		one_core(dir, names[k], all_miss, &mtef, &mte_core);
	if (mtef)
		xclose(mtef);
	for (i = 0; i < (int)n; i++)
		free(names[i]);
	free(names);
	if (!n) {
		fprintf(stderr, "gen-stages: %s: no instr_popped_log.dump files (make them with gen-dump)\n", dir);
		return 1;
	}
	return 0;
}
