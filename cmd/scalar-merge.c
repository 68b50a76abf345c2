/* scalar-merge: the scalar head overhead of A2/A3 (spec 4.3).  Fills the
 * icache_tick and ccu_tick of instruction records from the CCU log's issue
 * lines and the icache's fetch records.
 *
 * Per core it keeps, per pc, the CCU ticks in file order and, per fetch
 * block address, the fetch ticks; a fetch block covers pc..pc+12, so the
 * fetch set of a pc is the union of the blocks at pc, pc-4, pc-8 and pc-12
 * and each fetch record is stored once, not four times.  The first
 * instruction record of a core closes its inputs: the merge runs then, and
 * from there each record takes the next CCU entry of its pc, so the records
 * of a pc must come in start order (instr-parse writes them so: the n-th
 * pop of a pc pairs with its n-th execution). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chip.h"
#include "cli.h"
#include "filter.h"
#include "io.h"
#include "loss.h"
#include "rec.h"
#include "scan.h"


/* ---- loss accounting ---- */

enum loss { LOSS_UNPARSED, LOSS_BAD_RECORD, LOSS_LATE, LOSS_ORDER, LOSS_NKINDS };
static const struct loss_kind loss_kinds[LOSS_NKINDS] = {
	/* text, problem (exit status 1), bad (else dropped, in the trailer):
	 * unparsed lines and undecodable records go into the trailer's "bad" */
	{ "CCU issue lines not in the grammar", 1, 1 },
	{ "records that could not be decoded", 1, 1 },
	{ "CCU lines or fetch records after their core's instructions (ignored)", 1, 0 },
	{ "instruction records of a pc out of start order (assigned in arrival order)", 1, 0 },
};
static struct losses losses;

static void *xrealloc(void *p, size_t n)
{
	if (!(p = realloc(p, n ? n : 1)))
		cli_die(EXIT_IO, "out of memory");
	return p;
}

/* ---- per-pc state in an open-addressing table ---- */

struct pcst {
	uint64_t pc;
	uint64_t *ccu;              /* CCU ticks in file order */
	uint64_t *icache;           /* after the merge: fetch tick per entry, REC_NONE = MAX */
	uint64_t *fetch;            /* ticks of fetch blocks starting at pc */
	uint32_t nccu, capccu, nfetch, capfetch;
	uint32_t next;              /* next CCU entry to hand out */
	uint64_t last_start;
	unsigned char stopped, seen;
};

struct unit {
	uint32_t core, subtype, subidx;
	struct pcst *slots;         /* pc == UINT64_MAX: empty */
	size_t cap, n;
	uint64_t nccu, nfetch, ninstr, assigned;
	int closed;                 /* the merge has run */
};

static struct unit **units;
static size_t nunits;

static size_t hash_pc(uint64_t pc, size_t cap)
{
	pc ^= pc >> 29;
	pc *= 0x9e3779b97f4a7c15ull;
	return (size_t)(pc >> 17) & (cap - 1);
}

static struct pcst *pc_find(const struct unit *u, uint64_t pc)
{
	size_t i;
	if (!u->cap)
		return NULL;
	for (i = hash_pc(pc, u->cap); u->slots[i].pc != UINT64_MAX; i = (i + 1) & (u->cap - 1))
		if (u->slots[i].pc == pc)
			return &u->slots[i];
	return NULL;
}

static struct pcst *pc_get(struct unit *u, uint64_t pc)
{
	size_t i;
	struct pcst *s;
	if (u->cap && (s = pc_find(u, pc)))
		return s;
	if (2 * (u->n + 1) > u->cap) {
		size_t ncap = u->cap ? 2 * u->cap : 256, k;
		struct pcst *old = u->slots;
		u->slots = xrealloc(NULL, ncap * sizeof *u->slots);
		memset(u->slots, 0, ncap * sizeof *u->slots);
		for (k = 0; k < ncap; k++)
			u->slots[k].pc = UINT64_MAX;
		for (k = 0; k < u->cap; k++)
			if (old[k].pc != UINT64_MAX) {
				for (i = hash_pc(old[k].pc, ncap); u->slots[i].pc != UINT64_MAX; i = (i + 1) & (ncap - 1))
					;
				u->slots[i] = old[k];
			}
		free(old);
		u->cap = ncap;
	}
	for (i = hash_pc(pc, u->cap); u->slots[i].pc != UINT64_MAX; i = (i + 1) & (u->cap - 1))
		;
	u->slots[i].pc = pc;
	u->n++;
	return &u->slots[i];
}

static struct unit *unit_for(uint32_t core, uint32_t subtype, uint32_t subidx)
{
	static struct unit *last;
	size_t i;
	struct unit *u;

	if (last && last->core == core && last->subtype == subtype && last->subidx == subidx)
		return last;
	for (i = 0; i < nunits; i++)
		if (units[i]->core == core && units[i]->subtype == subtype && units[i]->subidx == subidx)
			return last = units[i];
	u = xrealloc(NULL, sizeof *u);
	memset(u, 0, sizeof *u);
	u->core = core;
	u->subtype = subtype;
	u->subidx = subidx;
	units = xrealloc(units, (nunits + 1) * sizeof *units);
	units[nunits++] = u;
	return last = u;
}

static void push(uint64_t **v, uint32_t *n, uint32_t *cap, uint64_t x)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 4;
		*v = xrealloc(*v, *cap * sizeof **v);
	}
	(*v)[(*n)++] = x;
}

/* ---- the CCU line grammar ---- */

/* regex_search \[info\] ([0-9]+): (is_single_issue instr, pc|ccu do issue
 * success.issue isa pc ):(0x[0-9a-f]+) at its leftmost match. */
static int ccu_at(const char *p, const char *end, uint64_t *tick, uint64_t *pc)
{
	static const char single[] = "is_single_issue instr, pc";
	static const char issue1[] = "ccu do issue success", issue2[] = "issue isa pc ";
	size_t nd = scan_dec(p, end, tick);
	uint64_t x = 0;
	int digits = 0;

	if (!nd)
		return -1;
	p += nd;
	if (end - p < 2 || p[0] != ':' || p[1] != ' ')
		return -1;
	p += 2;
	if ((size_t)(end - p) >= sizeof single - 1 && !memcmp(p, single, sizeof single - 1)) {
		p += sizeof single - 1;
	} else if ((size_t)(end - p) >= sizeof issue1 + sizeof issue2 - 1 &&
	           !memcmp(p, issue1, sizeof issue1 - 1) && p[sizeof issue1 - 1] != '\n' &&
	           p[sizeof issue1 - 1] != '\r' &&
	           !memcmp(p + sizeof issue1, issue2, sizeof issue2 - 1)) {
		p += sizeof issue1 + sizeof issue2 - 1;
	} else {
		return -1;
	}
	if (end - p < 4 || p[0] != ':' || p[1] != '0' || p[2] != 'x')
		return -1;
	for (p += 3; p < end; p++) {
		unsigned c = (unsigned char)*p;
		unsigned d = c - '0' < 10 ? c - '0' : c - 'a' < 6 ? c - 'a' + 10 : 16;
		if (d > 15)
			break;
		x = (x << 4) | d;
		digits++;
	}
	if (!digits)
		return -1;
	*pc = x;
	return 0;
}

/* memmem for short words in short lines: glibc's memmem costs more to set
 * up than these lines take to scan. */
static const char *find(const char *p, const char *end, const char *w, size_t n)
{
	while ((size_t)(end - p) >= n && (p = memchr(p, w[0], (size_t)(end - p) - n + 1))) {
		if (!memcmp(p, w, n))
			return p;
		p++;
	}
	return NULL;
}

/* 0 = an issue line, 1 = another CCU line, -1 = looks like an issue line
 * but is not in the grammar. */
static int ccu_parse(const char *s, size_t n, uint64_t *tick, uint64_t *pc)
{
	const char *end = s + n, *p = s;
	while ((p = find(p, end, "[info] ", 7))) {
		p += 7;
		if (!ccu_at(p, end, tick, pc))
			return 0;
	}
	if (find(s, end, "_single_issue", 13) || find(s, end, "ccu do issue", 12))
		return -1;
	return 1;
}

/* ---- the merge (spec 4.3 step 1) ---- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* The greatest fetch tick strictly less than t among the blocks that cover
 * pc, or REC_NONE. */
static uint64_t fetch_before(const struct unit *u, uint64_t pc, uint64_t t)
{
	uint64_t best = REC_NONE, d;
	for (d = 0; d <= 12 && d <= pc; d += 4) {
		const struct pcst *b = pc_find(u, pc - d);
		size_t lo = 0, hi;
		if (!b || !b->nfetch)
			continue;
		hi = b->nfetch;
		while (lo < hi) {           /* lower_bound(t) */
			size_t mid = lo + (hi - lo) / 2;
			if (b->fetch[mid] < t)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo && (best == REC_NONE || b->fetch[lo - 1] > best))
			best = b->fetch[lo - 1];
	}
	return best;
}

static void close_unit(struct unit *u)
{
	size_t i;
	u->closed = 1;
	if (!u->nccu || !u->nfetch)
		return;             /* both tables must exist */
	for (i = 0; i < u->cap; i++) {
		struct pcst *s = &u->slots[i];
		if (s->pc != UINT64_MAX && s->nfetch > 1) {
			size_t k, m = 1;
			qsort(s->fetch, s->nfetch, sizeof *s->fetch, cmp_u64);
			for (k = 1; k < s->nfetch; k++)     /* a set: no duplicates */
				if (s->fetch[k] != s->fetch[m - 1])
					s->fetch[m++] = s->fetch[k];
			s->nfetch = (uint32_t)m;
		}
	}
	for (i = 0; i < u->cap; i++) {
		struct pcst *s = &u->slots[i];
		uint32_t k;
		int stop = 0;
		if (s->pc == UINT64_MAX || !s->nccu)
			continue;
		s->icache = xrealloc(NULL, s->nccu * sizeof *s->icache);
		for (k = 0; k < s->nccu; k++) {
			if (!stop && (s->icache[k] = fetch_before(u, s->pc, s->ccu[k])) == REC_NONE)
				stop = 1;   /* the rest keep icacheTick = MAX */
			if (stop)
				s->icache[k] = REC_NONE;
		}
	}
	/* The fetch sets are not needed any more. */
	for (i = 0; i < u->cap; i++) {
		free(u->slots[i].fetch);
		u->slots[i].fetch = NULL;
	}
}

/* ---- step 2: one instruction record ---- */

static void assign(struct unit *u, struct rec *r)
{
	uint64_t start = r->n[I_START].u;
	struct pcst *s;

	u->ninstr++;
	if (!u->closed)
		close_unit(u);
	if (!u->nccu || !u->nfetch || !(s = pc_find(u, r->n[I_PC].u)) || !s->nccu)
		return;
	if (s->seen && start < s->last_start)
		loss_add(&losses, LOSS_ORDER, 0, 0, NULL);
	s->seen = 1;
	s->last_start = start;
	if (s->stopped)
		return;
	if (s->next >= s->nccu || s->ccu[s->next] > start) {
		s->stopped = 1;     /* the rest of this pc is skipped */
		return;
	}
	r->n[I_CCU].u = s->ccu[s->next];
	r->n[I_ICACHE].u = s->icache[s->next];
	if (s->icache[s->next] != REC_NONE)
		u->assigned++;
	s->next++;
}

/* ---- main ---- */


static void release_all(void)
{
	size_t i, k;
	for (i = 0; i < nunits; i++) {
		struct unit *u = units[i];
		for (k = 0; k < u->cap; k++) {
			free(u->slots[k].ccu);
			free(u->slots[k].icache);
			free(u->slots[k].fetch);
		}
		free(u->slots);
		free(u);
	}
	free(units);
	loss_free(&losses);
}

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: scalar-merge [options] [FILE...]\n"
	        "Fill the icache and CCU ticks of instruction records (the A2/A3 scalar head\n"
	        "overhead) from CCU log line records and fetch records; other records pass through.\n"
	        "  --soc-version=SOC  SoC of the dump (default: the stream header, else %s)\n"
	        "  --json | --text    output encoding (default binary; text on a terminal)\n"
	        "  --lz4              compress the output\n"
	        "  -o FILE            write to FILE (replaced only on success)\n"
	        "  -q, -v             fewer / more messages\n"
	        "  -h, --help, --version\n", CHIP_DEFAULT_SOC);
}

/* What each core got, as notes: missing inputs are not errors. */
static void notes(void)
{
	size_t i;
	for (i = 0; i < nunits; i++) {
		const struct unit *u = units[i];
		char core[48];
		rec_core_name(core, u->core, u->subtype, u->subidx);
		if (!u->ninstr)
			continue;
		if (!u->nccu && !u->nfetch)
			cli_note("%s: no CCU log and no fetch records: no scalar overhead", core);
		else if (!u->nccu)
			cli_note("%s: no CCU log: no scalar overhead", core);
		else if (!u->nfetch)
			cli_note("%s: no fetch records (icache log through icache-merge): no scalar overhead", core);
		else if (cli_verbosity >= 2)
			cli_note("%s: %llu CCU issues, %llu fetches, %llu of %llu instructions with overhead", core,
			         (unsigned long long)u->nccu, (unsigned long long)u->nfetch,
			         (unsigned long long)u->assigned, (unsigned long long)u->ninstr);
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ "json", no_argument, NULL, 'j' },
		{ "text", no_argument, NULL, 't' },
		{ "bin", no_argument, NULL, 'b' },
		{ "lz4", no_argument, NULL, 'z' },
		{ "output", required_argument, NULL, 'o' },
		{ "soc-version", required_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 }
	};
	int json = 0, text = 0, bin = 0, lz4 = 0, c, i, nin, started = 0, active = 0;
	int read_failed = 0;
	uint64_t bad, dropped, problems;
	const char *out = "-", *soc = NULL;
	const struct chip *chip = NULL;
	struct rec_dec dec = { 0 };
	struct rec_out o = { 0 };
	struct upstream up = { 0 };
	struct rd **in;

	cli_init(argv[0]);
	loss_init(&losses, "scalar-merge", loss_kinds, LOSS_NKINDS);
	while ((c = getopt_long(argc, argv, "ho:qvz", longopts, NULL)) != -1) {
		switch (c) {
		case 'h': usage(stdout); return EXIT_OK;
		case 'V': cli_version();
		case 'j': json = 1; break;
		case 't': text = 1; break;
		case 'b': bin = 1; break;
		case 'z': lz4 = 1; break;
		case 'o': out = optarg; break;
		case 's': soc = optarg; break;
		case 'q': cli_verbosity = 0; break;
		case 'v': cli_verbosity = 2; break;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (soc && chip_find(soc)->family == CHIP_UNKNOWN)
		cli_die(EXIT_USAGE, "unknown SoC '%s' (e.g. Ascend910B1, Ascend910_9391)", soc);

	in = filter_open_inputs(argc, argv, optind, &nin);
	filter_open_output(&o, "scalar-merge", out, json, text, bin, lz4);

	for (i = 0; i < nin && !cli_interrupted; i++) {
		const char *line, *why;
		size_t len;
		struct rec r;
		while (!cli_interrupted && (line = rd_line(in[i], &len))) {
			int k = rec_decode(&dec, line, len, &r, &why);
			if (k == DEC_BAD) {
				filter_bad_record(&losses, LOSS_BAD_RECORD, 0, in[i], why);
				continue;
			}
			if (upstream_record(&up, k, &r))
				continue;
			if (!started) {
				chip = upstream_chip(&up, soc);
				active = chip->family == CHIP_A2 || chip->family == CHIP_A3;
				if (!active)
					cli_note("%s is not an A2/A3 SoC: no scalar overhead, records pass through",
					         chip->soc);
				rec_out_header(&o, chip->soc, chip->mhz, up.origin ? up.origin : rd_name(in[i]));
				started = 1;
			}
			if (k == DEC_UNKNOWN) {
				rec_out_raw(&o, line, len);
				continue;
			}
			switch (active ? r.sc->kind : 0) {
			case K_TRAILER:
				break;
			case K_SOURCE:
				loss_source(&losses, &r);
				break;
			case K_LINE:
				if (r.n[L_LOG].u == LOG_CCU) {
					struct unit *u = unit_for((uint32_t)r.n[L_CORE].u, (uint32_t)r.n[L_SUBTYPE].u,
					                          (uint32_t)r.n[L_SUBIDX].u);
					uint64_t tick, pc;
					int got = ccu_parse(r.s[LS_TEXT].p, r.s[LS_TEXT].n, &tick, &pc);
					if (got < 0)
						loss_add(&losses, LOSS_UNPARSED, (uint32_t)r.n[L_FILE].u, r.n[L_LINE].u, "ccu");
					if (got)
						continue;
					if (u->closed) {
						loss_add(&losses, LOSS_LATE, (uint32_t)r.n[L_FILE].u, r.n[L_LINE].u, "after the instructions");
						continue;
					}
					{
						struct pcst *s = pc_get(u, pc);
						push(&s->ccu, &s->nccu, &s->capccu, tick);
					}
					u->nccu++;
					continue;
				}
				break;
			case K_FETCH: {
				struct unit *u = unit_for((uint32_t)r.n[S_CORE].u, (uint32_t)r.n[S_SUBTYPE].u,
				                          (uint32_t)r.n[S_SUBIDX].u);
				struct pcst *s;
				if (u->closed) {
					loss_add(&losses, LOSS_LATE, 0, 0, NULL);
					break;
				}
				s = pc_get(u, r.n[S_PC].u);
				push(&s->fetch, &s->nfetch, &s->capfetch, r.n[S_TICK].u);
				u->nfetch++;
				break;
			}
			case K_INSTR:
				/* Cache misses (icache-merge writes them while the
				 * icache log passes) take no overhead and do not
				 * mean the core's instructions have begun. */
				if (r.s[IS_PIPE].n == 9 && !memcmp(r.s[IS_PIPE].p, "CACHEMISS", 9))
					break;
				assign(unit_for((uint32_t)r.n[I_CORE].u, (uint32_t)r.n[I_SUBTYPE].u,
				                (uint32_t)r.n[I_SUBIDX].u), &r);
				break;
			}
			if (r.sc->kind == K_TRAILER) {
				upstream_trailer(&up, &r);
				continue;
			}
			rec_out_put(&o, &r);
			if (wr_error(o.w))
				break;
		}
		if (filter_read_error(in[i]))
			read_failed = 1;
		if (wr_error(o.w))
			break;
	}
	if (!started) {
		chip = upstream_chip(&up, soc);
		rec_out_header(&o, chip->soc, chip->mhz, up.origin ? up.origin : "");
	}
	upstream_check_end(&up, &o, read_failed);
	loss_totals(&losses, &bad, &dropped, &problems);
	if (!wr_error(o.w) && !read_failed) {
		upstream_put_trailer(&up, &losses, &o, bad, dropped);
		notes();
		loss_report(&losses);
	}
	release_all();
	upstream_free(&up);
	filter_close_inputs(in, nin);
	rec_dec_free(&dec);
	return filter_close_output(&o, out, read_failed, problems, &up);
}
