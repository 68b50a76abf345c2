/* The occupancy view of an on-board run (occupancy.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "mem.h"
#include "occupancy.h"
#include "text.h"

/* An event's value in a sub-core's map: off its kind's list 0. */
static uint64_t val(const uint16_t *list, const uint64_t *vals, size_t n, unsigned id)
{
	size_t k;
	for (k = 0; k < n; k++)
		if (list[k] == id)
			return vals[k];
	return 0;
}

static int listed(const uint16_t *list, size_t n, unsigned id)
{
	size_t k;
	for (k = 0; k < n; k++)
		if (list[k] == id)
			return 1;
	return 0;
}

static uint64_t sum(const uint16_t *list, const uint64_t *vals, size_t n, const unsigned *ids, size_t nids)
{
	uint64_t s = 0;
	size_t i;
	for (i = 0; i < nids; i++)
		s = pmu_sat_add(s, val(list, vals, n, ids[i]));
	return s;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

void occ_metrics_of(enum board_fmt fmt, const uint16_t *list, const uint64_t *vals, size_t n, uint64_t cycles,
                    struct occ_metrics *out)
{
	static const unsigned gm_b[] = { 1292, 1293, 1294 };
	static const unsigned hit_b[] = { 1280, 1284, 1288 };
	static const unsigned miss_b[] = { 1282, 1283, 1286, 1287, 1290, 1291 };
	static const unsigned hit_a5[] = { 1060, 1063, 1066, 1069 };
	static const unsigned simt_a5[] = { 1466, 1467, 1468 };
	uint64_t hit, total;
	size_t i;

	memset(out, 0, sizeof *out);
	if (fmt == BOARD_310P)
		return;     /* the reference has no occupancy metrics for it: zeros */
	out->cycles = cycles;
	if (fmt == BOARD_A2) {
		int all = 1;
		out->throughput = pmu_sat_mul(sum(list, vals, n, gm_b, N(gm_b)), 128);
		for (i = 0; i < N(hit_b); i++)
			all &= listed(list, n, hit_b[i]);
		for (i = 0; i < N(miss_b); i++)
			all &= listed(list, n, miss_b[i]);
		if (!all)
			return;
		hit = sum(list, vals, n, hit_b, N(hit_b));
		total = pmu_sat_add(hit, sum(list, vals, n, miss_b, N(miss_b)));
	} else {
		/* the per-request bytes product drops to 0 on overflow here */
		uint64_t rd = val(list, vals, n, 1058), wr = val(list, vals, n, 1059);
		uint64_t brd = rd && rd > UINT64_MAX / 128 ? 0 : rd * 128, bwr = wr && wr > UINT64_MAX / 128 ? 0 : wr * 128;
		unsigned id;
		out->throughput = pmu_sat_add(brd, bwr);
		hit = sum(list, vals, n, hit_a5, N(hit_a5));
		total = 0;
		for (id = 1060; id <= 1071; id++)
			total = pmu_sat_add(total, val(list, vals, n, id));
		out->simt_cycles = val(list, vals, n, 1284);
		if (out->simt_cycles) {
			out->has_simt = 1;
			out->simt_instr = sum(list, vals, n, simt_a5, N(simt_a5));
		}
	}
	if (total > 0)
		out->hit_rate = (float)(100u * hit) / (float)total;
}

/* ---- building ---- */

struct ent {
	unsigned block, core_id, sub;
	enum board_core core;
	uint64_t cycles;
	size_t n;
	const uint16_t *list;
	uint64_t *vals;
	int used;
};

static void ent_fill(struct ent *e, enum board_fmt fmt, const struct occ_in *in)
{
	size_t k;
	e->block = in->block;
	e->sub = in->sub;
	e->core = in->core;
	e->core_id = in->core_id;
	e->cycles = in->cycles;
	e->list = pmu_replay_events(fmt, in->core, &e->n);
	e->vals = xcalloc(e->n ? e->n : 1, sizeof *e->vals);
	for (k = 0; k < e->n; k++)
		e->vals[k] = pmu_counts_get(in->ev, e->list[k]);
	e->used = 1;
}

static int cmp_in(const void *pa, const void *pb)
{
	const struct occ_in *a = *(const struct occ_in *const *)pa, *b = *(const struct occ_in *const *)pb;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	return a->sub < b->sub ? -1 : a->sub > b->sub;
}

static void sub_of(struct occ_sub *s, const char *type, unsigned id, enum board_fmt fmt, const struct ent *e)
{
	s->type = type;
	s->id = id;
	if (e && e->used)
		occ_metrics_of(fmt, e->list, e->vals, e->n, e->cycles, &s->m);
	else
		occ_metrics_of(fmt, NULL, NULL, 0, 0, &s->m);   /* a sub-core without a row: zeros */
}

static void name_of(char *buf, size_t size, unsigned block, const char *kind, unsigned sub)
{
	snprintf(buf, size, "%u%s%u", block, kind, sub);
}

/* The reference keeps the named metrics in a map: a name given twice
 * keeps the last values, and they come sorted by name. */
static void named_put(struct occ_named *v, size_t *n, const char *name, const struct occ_metrics *m)
{
	size_t i;
	for (i = 0; i < *n; i++)
		if (!strcmp(v[i].name, name)) {
			v[i].m = *m;
			return;
		}
	snprintf(v[*n].name, sizeof v[*n].name, "%s", name);
	v[(*n)++].m = *m;
}

int occ_build(struct occupancy *o, enum board_fmt fmt, const char *op_type, const struct occ_in *in, size_t n)
{
	const struct occ_in **row;
	struct ent *ent;
	struct occ_named *named;
	size_t i, ne = 0, nn = 0;
	int mix = !strcmp(op_type, "mix");

	memset(o, 0, sizeof *o);
	snprintf(o->op_type, sizeof o->op_type, "%s", op_type);
	if (!n)
		return -1;
	row = xcalloc(n, sizeof *row);
	for (i = 0; i < n; i++)
		row[i] = &in[i];
	qsort(row, n, sizeof *row, cmp_in);
	ent = xcalloc(n, sizeof *ent);
	o->core = xcalloc(n, sizeof *o->core);
	named = xcalloc(3 * n, sizeof *named);

	if (mix) {
		/* A cube row opens a core; its vector rows follow it (a vector
		 * row before any cube row has nowhere to go, as in the
		 * reference). */
		struct ent *vec[3] = { 0 };
		size_t c = 0;
		struct ent *cube = NULL;
		for (i = 0; i <= n; i++) {
			const struct occ_in *r = i < n ? row[i] : NULL;
			if (!r || (r->core == BOARD_CUBE && r->sub == 0)) {
				if (cube) {
					struct occ_core *oc = &o->core[c++];
					char name[24];
					oc->block = cube->block;
					oc->nsub = 3;
					sub_of(&oc->sub[0], "cube", 0, fmt, cube);
					sub_of(&oc->sub[1], "vector", 0, fmt, vec[0]);
					sub_of(&oc->sub[2], "vector", 1, fmt, vec[1]);
					name_of(name, sizeof name, oc->block, "cube", 0);
					named_put(named, &nn, name, &oc->sub[0].m);
					name_of(name, sizeof name, oc->block, "vector", 0);
					named_put(named, &nn, name, &oc->sub[1].m);
					name_of(name, sizeof name, oc->block, "vector", 1);
					named_put(named, &nn, name, &oc->sub[2].m);
				}
				if (!r)
					break;
				cube = &ent[ne++];
				ent_fill(cube, fmt, r);
				vec[0] = vec[1] = NULL;
			} else if (r->core == BOARD_VECTOR && r->sub < 2 && cube) {
				struct ent *e = &ent[ne++];
				ent_fill(e, fmt, r);
				vec[r->sub] = e;
			}
		}
		o->ncore = c;
	} else {
		/* Blocks by id, each merged into the first block of its
		 * physical core.  The reference finds a block's row by taking
		 * the block id as an index into the sorted rows, and the entry
		 * to merge into by taking that first block's id as an index
		 * into the entries kept so far; either past the end stops the
		 * walk (so with two blocks per core it keeps two entries). */
		struct ent *m = xcalloc(n, sizeof *m);
		unsigned *first_core = xcalloc(n, sizeof *first_core), *first_block = xcalloc(n, sizeof *first_block);
		size_t nm = 0, nfirst = 0, k, a;
		for (i = 0; i < n; i++)
			ent_fill(&ent[i], fmt, row[i]);
		ne = n;
		for (i = 0; i < n; i++) {
			const struct ent *src;
			if (row[i]->block >= n)
				break;
			src = &ent[row[i]->block];
			for (k = 0; k < nfirst && first_core[k] != row[i]->core_id; k++)
				;
			if (k < nfirst) {
				size_t at = first_block[k];
				if (at >= nm)
					break;
				m[at].cycles = pmu_sat_add(m[at].cycles, src->cycles);
				for (a = 0; a < m[at].n && a < src->n; a++)
					m[at].vals[a] = pmu_sat_add(m[at].vals[a], src->vals[a]);
				continue;
			}
			first_core[nfirst] = row[i]->core_id;
			first_block[nfirst++] = row[i]->block;
			m[nm] = *src;
			m[nm].vals = xmalloc((src->n ? src->n : 1) * sizeof *m[nm].vals);
			memcpy(m[nm].vals, src->vals, src->n * sizeof *src->vals);
			nm++;
		}
		free(first_core);
		free(first_block);
		for (k = 0; k < nm; k++) {
			struct occ_core *oc = &o->core[k];
			char name[24];
			oc->block = m[k].block;
			oc->nsub = 1;
			sub_of(&oc->sub[0], o->op_type, 0, fmt, &m[k]);
			name_of(name, sizeof name, m[k].block, m[k].core == BOARD_VECTOR ? "vector" : "cube", m[k].sub);
			named_put(named, &nn, name, &oc->sub[0].m);
			free(m[k].vals);
		}
		o->ncore = nm;
		free(m);
	}
	o->advice = occ_advice(o->op_type, named, nn);
	for (i = 0; i < ne; i++)
		free(ent[i].vals);
	free(ent);
	free(named);
	free(row);
	return 0;
}

void occ_free(struct occupancy *o)
{
	free(o->core);
	free(o->advice);
	memset(o, 0, sizeof *o);
}

/* ---- advice ---- */

enum { OCC_CYCLES, OCC_THROUGHPUT, OCC_HIT_RATE, OCC_SIMT };

/* "12vector1" -> block 12, kind 'v', sub 1: the names the reference's
 * comparison takes (one or two digits; cube0, vector0, vector1). */
static int name_parse(const char *s, unsigned *block, int *vec, unsigned *sub)
{
	size_t d = 0;
	while (s[d] >= '0' && s[d] <= '9')
		d++;
	if (d < 1 || d > 2)
		return 0;
	*block = (unsigned)atoi(s);
	if (!strcmp(s + d, "cube0")) {
		*vec = 0;
		*sub = 0;
		return 1;
	}
	if (!strncmp(s + d, "vector", 6) && (s[d + 6] == '0' || s[d + 6] == '1') && !s[d + 7]) {
		*vec = 1;
		*sub = (unsigned)(s[d + 6] - '0');
		return 1;
	}
	return 0;
}

struct grp {
	size_t n;
	unsigned *block, *sub;
	double *v;
};

static int cmp_uint(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

static void sb_text(struct sbuf *sb, const char *s)
{
	sb_put(sb, s, strlen(s));
}

static void sb_uint(struct sbuf *sb, unsigned v)
{
	char buf[16];
	int k = snprintf(buf, sizeof buf, "%u", v);
	sb_put(sb, buf, (size_t)k);
}

static void put_list(struct sbuf *sb, const unsigned *v, size_t n)
{
	size_t i;
	for (i = 0; i < n; i++)
	{
		if (i)
			sb_text(sb, ",");
		sb_uint(sb, v[i]);
	}
}

static const char *what_of(int kind)
{
	switch (kind) {
	case OCC_CYCLES: return "take more time than other ";
	case OCC_THROUGHPUT: return "write/read more data than other ";
	case OCC_HIT_RATE: return "cache hit rate lower than other ";
	default: return "execute more instructions than other ";
	}
}

/* One group: scores, then the sub-cores at or above 0.6 into sb. */
static void judge(struct grp *g, int vec, int kind, const char *op_type, struct sbuf *sb, int *count)
{
	double mean = 0, var = 0, inv;
	size_t i, nc = 0;
	unsigned *cube, *vcore, *vmask;
	size_t nv = 0;

	if (!g->n)
		return;
	inv = 1.0 / (double)g->n;
	for (i = 0; i < g->n; i++)
		mean += g->v[i];
	mean *= inv;
	for (i = 0; i < g->n; i++)
		var += (g->v[i] - mean) * (g->v[i] - mean);
	var *= inv;
	if (fabs(var) < 2.220446049250313e-16)
		return;
	inv = 1.0 / sqrt(var);
	cube = xcalloc(g->n, sizeof *cube);
	vcore = xcalloc(g->n, sizeof *vcore);
	vmask = xcalloc(g->n, sizeof *vmask);
	for (i = 0; i < g->n; i++) {
		double z = (g->v[i] - mean) * inv;
		double score = 1.0 / (1.0 + exp(kind == OCC_HIT_RATE ? z : -z));
		unsigned core = !strcmp(op_type, "vector") ? g->block[i] / 2 : g->block[i];
		unsigned sub = !strcmp(op_type, "vector") ? g->block[i] % 2 : g->sub[i];
		size_t k;
		if (score < 0.6)
			continue;
		if (!vec) {
			cube[nc++] = core;
			continue;
		}
		for (k = 0; k < nv && vcore[k] != core; k++)
			;
		if (k == nv) {
			vcore[nv] = core;
			vmask[nv++] = 0;
		}
		vmask[k] += sub == 0 ? 1 : 2;
	}
	if (!vec && nc) {
		qsort(cube, nc, sizeof *cube, cmp_uint);
		sb_text(sb, "\t");
		sb_uint(sb, (unsigned)++*count);
		sb_text(sb, ") cube0 of core[");
		put_list(sb, cube, nc);
		sb_text(sb, "] ");
		sb_text(sb, what_of(kind));
		sb_text(sb, "cube cores.\n");
	} else if (vec && nv) {
		/* cores by id; both sub-cores, then vector0 only, then vector1 */
		static const char *const head[3] = { "vector0, vector1 of core[", "vector0 of core[", "vector1 of core[" };
		unsigned *list = xcalloc(nv, sizeof *list);
		size_t j, nl, parts = 0;
		int h;
		/* sort the cores, carrying their masks */
		for (i = 1; i < nv; i++)
			for (j = i; j > 0 && vcore[j - 1] > vcore[j]; j--) {
				unsigned t = vcore[j];
				vcore[j] = vcore[j - 1];
				vcore[j - 1] = t;
				t = vmask[j];
				vmask[j] = vmask[j - 1];
				vmask[j - 1] = t;
			}
		sb_text(sb, "\t");
		sb_uint(sb, (unsigned)++*count);
		sb_text(sb, ") ");
		for (h = 0; h < 3; h++) {
			for (nl = 0, j = 0; j < nv; j++)
				if ((h == 0 && vmask[j] != 1 && vmask[j] != 2) || (h == 1 && vmask[j] == 1) ||
				    (h == 2 && vmask[j] == 2))
					list[nl++] = vcore[j];
			if (!nl)
				continue;
			if (parts++)
				sb_text(sb, ", ");
			sb_text(sb, head[h]);
			put_list(sb, list, nl);
			sb_text(sb, "]");
		}
		sb_text(sb, " ");
		sb_text(sb, what_of(kind));
		sb_text(sb, "vector cores.\n");
		free(list);
	}
	free(cube);
	free(vcore);
	free(vmask);
}

static int cmp_named(const void *a, const void *b)
{
	return strcmp(((const struct occ_named *)a)->name, ((const struct occ_named *)b)->name);
}

char *occ_advice(const char *op_type, const struct occ_named *v, size_t n)
{
	/* the groups in the reference's order: cycles, throughput, hit
	 * rate (vector, then cube), SIMT instructions (vector) */
	static const struct { int kind, vec; } order[] = {
		{ OCC_CYCLES, 1 }, { OCC_CYCLES, 0 }, { OCC_THROUGHPUT, 1 }, { OCC_THROUGHPUT, 0 },
		{ OCC_HIT_RATE, 1 }, { OCC_HIT_RATE, 0 }, { OCC_SIMT, 1 },
	};
	struct occ_named *s = xcalloc(n ? n : 1, sizeof *s);
	struct grp g;
	struct sbuf sb = { 0 };
	size_t i, o;
	int count = 0;

	memcpy(s, v, n * sizeof *s);
	qsort(s, n, sizeof *s, cmp_named);
	g.block = xcalloc(n ? n : 1, sizeof *g.block);
	g.sub = xcalloc(n ? n : 1, sizeof *g.sub);
	g.v = xcalloc(n ? n : 1, sizeof *g.v);
	for (o = 0; o < N(order); o++) {
		g.n = 0;
		for (i = 0; i < n; i++) {
			unsigned block, sub;
			int vec;
			const struct occ_metrics *m = &s[i].m;
			if (!name_parse(s[i].name, &block, &vec, &sub) || vec != order[o].vec)
				continue;
			if (order[o].kind == OCC_SIMT && !m->has_simt)
				continue;
			g.block[g.n] = block;
			g.sub[g.n] = sub;
			g.v[g.n++] = order[o].kind == OCC_CYCLES       ? (double)m->cycles
			           : order[o].kind == OCC_THROUGHPUT ? (double)m->throughput
			           : order[o].kind == OCC_HIT_RATE   ? (double)m->hit_rate
			                                             : (double)m->simt_instr;
		}
		judge(&g, order[o].vec, order[o].kind, op_type, &sb, &count);
	}
	free(g.block);
	free(g.sub);
	free(g.v);
	free(s);
	return sb.p ? sb.p : xstrdup("");
}

/* ---- JSON ---- */

static void kv_float(struct json *j, const char *key, float f)
{
	char buf[PMU_VALUE_MAX];
	size_t k = pmu_fmt_float(f, buf);
	json_kv_str(j, key, buf, k);
}

static void kv_u64_text(struct json *j, const char *key, uint64_t v)
{
	char buf[24];
	size_t k = json_fmt_uint(buf, v);
	json_kv_str(j, key, buf, k);
}

void occ_json(struct json *j, const struct occupancy *o, const char *soc)
{
	size_t c;
	unsigned s;
	json_begin_object(j);
	json_kv_cstr(j, "advice", o->advice ? o->advice : "");
	json_key(j, "op_detail");
	json_begin_array(j);
	for (c = 0; c < o->ncore; c++) {
		const struct occ_core *oc = &o->core[c];
		json_begin_object(j);
		json_key(j, "core_detail");
		json_begin_array(j);
		for (s = 0; s < oc->nsub; s++) {
			const struct occ_sub *sc = &oc->sub[s];
			char id[16];
			json_begin_object(j);
			kv_float(j, "L2cache_hit_rate", sc->m.hit_rate);
			kv_u64_text(j, "cycles", sc->m.cycles);
			if (sc->m.has_simt) {
				char buf[DBL_TEXT_MAX];
				json_key(j, "simt_vf_instructions");
				json_begin_object(j);
				json_key(j, "instruction_per_cycle");
				json_raw_value(j, buf, dbl_json(buf, (double)sc->m.simt_instr / (double)sc->m.simt_cycles));
				json_kv_uint(j, "instructions", sc->m.simt_instr);
				json_end_object(j);
			}
			snprintf(id, sizeof id, "%u", sc->id);
			json_kv_cstr(j, "subcore_id", id);
			json_kv_cstr(j, "subcore_type", sc->type);
			kv_u64_text(j, "throughput", sc->m.throughput);
			json_end_object(j);
		}
		json_end_array(j);
		json_kv_uint(j, "core_id", oc->block);
		json_end_object(j);
	}
	json_end_array(j);
	json_kv_cstr(j, "op_type", o->op_type);
	json_kv_cstr(j, "soc", soc);
	json_end_object(j);
}
