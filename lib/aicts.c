/* AI Core timestamp dots and their timeline (see aicts.h). */
#include "aicts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "biu.h"
#include "io.h"
#include "json.h"
#include "keytab.h"
#include "mc2.h"
#include "mem.h"

#define CNAME_CUBE "thread_state_runnable"   /* the reference's grass green */
#define CNAME_VEC "good"                     /* its green */

static uint64_t le(const unsigned char *p, unsigned n)
{
	uint64_t v = 0;
	while (n--)
		v = v << 8 | p[n];
	return v;
}

void aicts_decode(const unsigned char p[AICTS_REC_SIZE], struct aicts_rec *r)
{
	r->syscyc = le(p, 8);
	r->block_id = (uint32_t)le(p + 8, 4);
	r->desc_id = (uint32_t)le(p + 12, 4);
	r->pc = le(p + 16, 8);
	r->block = r->block_id;
	r->cube = 0;
}

void aicts_lccl_decode(const unsigned char p[AICTS_LCCL_SIZE], struct aicts_lccl *r)
{
	r->log_id = (uint32_t)le(p, 4);
	r->block_id = (uint32_t)le(p + 4, 4);
	r->syscyc = le(p + 8, 8);
	r->pc = le(p + 16, 8);
	r->op_type = (uint32_t)le(p + 24, 4);
	r->rsv = (uint32_t)le(p + 28, 4);
}

int aicts_read(const char *path, size_t rec_size, uint64_t min, void **v, size_t *n, uint64_t *dropped, char *msg,
               size_t size)
{
	unsigned char buf[AICTS_LCCL_SIZE];
	size_t got = 0, cap = 0, esize = rec_size == AICTS_REC_SIZE ? sizeof(struct aicts_rec) : sizeof(struct aicts_lccl);
	uint64_t index = 0;
	char *out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	*v = NULL;
	*n = 0;
	*dropped = 0;
	if (fd < 0) {
		snprintf(msg, size, "cannot open: %s", strerror(errno));
		return -1;
	}
	for (;;) {
		ssize_t k = read(fd, buf + got, rec_size - got);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			snprintf(msg, size, "read error at record %llu (byte %llu): %s", (unsigned long long)index,
			         (unsigned long long)(index * rec_size + got), strerror(errno));
			close(fd);
			free(out);
			return -2;
		}
		if (k == 0)
			break;
		if ((got += (size_t)k) < rec_size)
			continue;
		got = 0;
		index++;
		if (*n == cap)
			out = xreallocarray(out, cap = cap ? 2 * cap : 256, esize);
		if (rec_size == AICTS_REC_SIZE) {
			struct aicts_rec *r = (struct aicts_rec *)(void *)out + *n;
			aicts_decode(buf, r);
			if (r->syscyc < min) {
				++*dropped;
				continue;
			}
		} else {
			struct aicts_lccl *r = (struct aicts_lccl *)(void *)out + *n;
			aicts_lccl_decode(buf, r);
			if (r->syscyc < min) {
				++*dropped;
				continue;
			}
		}
		++*n;
	}
	close(fd);
	*v = out;
	if (got) {
		snprintf(msg, size, "record %llu (byte %llu) cut short: %zu of %zu bytes (the file is no whole number of "
		         "records)", (unsigned long long)index, (unsigned long long)(index * rec_size), got, rec_size);
		return 1;
	}
	return 0;
}

int aicts_new_format(const struct aicts_rec *v, size_t n, size_t aic, size_t aiv)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (v[i].block_id >> 16)
			return 1;
	/* one cube block alone: ids up to 50 can only be new-format ones */
	if (aic == 1 && aiv == 0)
		for (i = 0; i < n; i++)
			if (v[i].block_id <= AICTS_OLD_CUBE)
				return 1;
	return 0;
}

void aicts_classify(struct aicts_rec *v, size_t n, enum chip_family f, int new_format)
{
	size_t i;
	for (i = 0; i < n; i++) {
		struct aicts_rec *r = &v[i];
		if (!new_format) {
			r->cube = r->block_id >= AICTS_OLD_CUBE;
			r->block = r->cube ? r->block_id - AICTS_OLD_CUBE : r->block_id;
			continue;
		}
		unsigned phys = r->block_id >> 16;
		r->block = r->block_id & 0xffff;
		if (f == CHIP_A5)
			r->cube = phys < 18 || (phys > 53 && phys < 72);
		else
			r->cube = phys < 25;
	}
}

/* The MC2 AICore APIs: the start's descId, the name, the colour. */
static const struct { uint32_t id; const char *name, *cname; } mc2_apis[] = {
	{ 0x1000, "INIT", "thread_state_iowait" },
	{ 0x1010, "COMMIT", "thread_state_unknown" },
	{ 0x1020, "WAIT", "heap_dump_child_node_arrow" },
	{ 0x1030, "QUERY", "thread_state_running" },
	{ 0x1040, "FINALIZE", "startup" },
	{ 0x1050, "GROUP_SYNC", "background_memory_dump" },
	{ 0x1060, "GET_WINDOW_IN", "rail_response" },
	{ 0x1062, "GET_WINDOW_OUT", "thread_state_runnable" },
	{ 0x1064, "GET_RANK_ID", "good" },
	{ 0x1066, "GET_RANK_DIM", "thread_state_iowait" },
	{ 0x1068, "SET_CCTILING", "thread_state_unknown" },
	{ 0x1100, "ALL_REDUCE_PREPARE", "thread_state_running" },
	{ 0x1110, "ALL_GATHER_PREPARE", "thread_state_running" },
	{ 0x1120, "REDUCE_SCATTER_PREPARE", "thread_state_running" },
	{ 0x1130, "ALL_TO_ALL_PREPARE", "thread_state_running" },
	{ 0x1140, "ALL_TO_ALL_V_PREPARE", "thread_state_running" },
};
#define NAPIS (sizeof mc2_apis / sizeof *mc2_apis)

static int mc2_api_index(uint32_t desc_id)
{
	size_t i;
	for (i = 0; i < NAPIS; i++)
		if ((desc_id & ~1u) == mc2_apis[i].id)
			return (int)i;
	return -1;
}

const char *aicts_mc2_api(uint32_t desc_id, const char **cname)
{
	int i = mc2_api_index(desc_id);
	if (i < 0)
		return NULL;
	if (cname)
		*cname = mc2_apis[i].cname;
	return mc2_apis[i].name;
}

/* ---- names ---- */

void aicts_names_init(struct aicts_names *c)
{
	memset(c, 0, sizeof *c);
	c->block_time = 1;
}

void aicts_names_free(struct aicts_names *c)
{
	free(c->v);
	aicts_names_init(c);
}

int aicts_desc_key(const char *s, uint64_t *id)
{
	unsigned base = 10;
	uint64_t v = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return -1;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = (unsigned)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned)(*s - 'A' + 10);
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*id = v;
	return 0;
}

int aicts_name_ok(const char *s)
{
	size_t n = 0;
	for (; *s; s++, n++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '-' ||
		      *s == '_' || *s == ' '))
			return 0;
	return n >= 1 && n <= AICTS_NAME_MAX;
}

const char *aicts_name_of(const struct aicts_names *c, uint64_t id)
{
	size_t i;
	if (!c)
		return NULL;
	for (i = 0; i < c->n; i++)
		if (c->v[i].id == id)
			return c->v[i].name;
	return NULL;
}

/* ---- blocks ---- */

static int cmp_block(const void *pa, const void *pb)
{
	const struct aicts_block *a = pa, *b = pb;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->core != b->core)
		return a->core < b->core ? -1 : 1;
	return a->sub < b->sub ? -1 : a->sub > b->sub;
}

int aicts_blocks_read(const char *dir, enum board_fmt fmt, struct aicts_blocks *b, char *msg, size_t size)
{
	struct keytab index = keytab_make(sizeof(uint32_t), 3);
	unsigned f;
	int rc = 0;
	memset(b, 0, sizeof *b);
	/* the replays in order: the last one's times stay */
	for (f = 1; f <= 64; f++) {
		char name[32], *path;
		struct board_pmu p;
		struct board_err err;
		uint64_t i = 0;
		struct rd *r;
		int k;
		snprintf(name, sizeof name, "DeviceProf%u.bin", f);
		path = xpath(dir, name);
		if (!io_is_file(path)) {
			free(path);
			continue;
		}
		if (!(r = rd_open(path))) {
			snprintf(msg, size, "%s: cannot open: %s", path, strerror(errno));
			free(path);
			rc = -1;
			break;
		}
		while ((k = board_pmu_next(r, fmt, &i, &p, &err)) > 0) {
			int fresh;
			uint32_t *at = keytab_get(&index, (uint64_t)p.block_id << 32 | (uint64_t)p.core << 16 | p.sub_block_id,
			                          &fresh);
			struct aicts_block *e;
			if (fresh) {
				if (b->n == b->cap)
					b->v = xreallocarray(b->v, b->cap = b->cap ? 2 * b->cap : 64, sizeof *b->v);
				*at = (uint32_t)b->n++;
				b->v[*at].block = p.block_id;
				b->v[*at].core = p.core;
				b->v[*at].sub = p.sub_block_id;
				if (p.core == BOARD_CUBE)
					b->aic++;
				else
					b->aiv++;
			}
			e = &b->v[*at];
			e->start = p.start_time;
			e->end = p.end_time;
		}
		if (k < 0 && !rc) {
			char text[160];
			board_err_text(&err, text, sizeof text);
			snprintf(msg, size, "%s: %s: the records after it are not read", path, text);
			rc = 1;
		}
		rd_close(r);
		free(path);
	}
	keytab_free(&index);
	if (b->n)
		qsort(b->v, b->n, sizeof *b->v, cmp_block);
	return rc;
}

void aicts_blocks_free(struct aicts_blocks *b)
{
	free(b->v);
	memset(b, 0, sizeof *b);
}

uint64_t aicts_base(const struct aicts_blocks *b, uint64_t start)
{
	size_t i;
	for (i = 0; i < b->n; i++)
		if (b->v[i].start < start)
			start = b->v[i].start;
	return start;
}

/* ---- the timeline ---- */

enum op_kind { OP_CUBE, OP_VECTOR, OP_MIX };

/* A lane of the block timeline: its kind and dot index, its run. */
struct lane {
	unsigned cube, dots;
	uint64_t start, end;
};

struct tl {
	struct json *J;
	const struct aicts_run *run;
	enum op_kind op;
	unsigned vec_per;          /* vector sub-cores per core, as the lanes were laid out */
	struct lane *lanes;
	size_t nlanes;
};

static uint64_t us6(const struct tl *t, uint64_t from, uint64_t to)
{
	return to > from ? mc2_us6(to - from, t->run->khz) : 0;
}

/* "core<c>.cubecore0" / "core<c>.veccore<v>" of a lane (the reference's
 * group name), "NA" when the vector sub-cores are unknown. */
static size_t lane_tid(const struct tl *t, unsigned cube, unsigned dots, char *buf, size_t n)
{
	int k;
	if (t->op == OP_CUBE || (t->op == OP_MIX && cube))
		k = snprintf(buf, n, "core%u.cubecore0", dots);
	else if (!t->vec_per)
		k = snprintf(buf, n, "NA");
	else
		k = snprintf(buf, n, "core%u.veccore%u", dots / t->vec_per, dots % t->vec_per);
	return k > 0 && (size_t)k < n ? (size_t)k : 0;
}

static const struct lane *lane_of(const struct tl *t, unsigned cube, unsigned dots)
{
	size_t i;
	/* the reference keeps the last lane of a (kind, index) */
	for (i = t->nlanes; i-- > 0;)
		if (t->lanes[i].cube == cube && t->lanes[i].dots == dots)
			return &t->lanes[i];
	return NULL;
}

static char *kv_time(char *p, const char *key, uint64_t v6)
{
	p = jw_raw(p, key, strlen(key));
	return jw_fixed(p, v6, 6);
}

static void block_event(struct tl *t, const char *cname, const char *name, const char *tid, size_t tn, uint64_t ts6,
                        uint64_t dur6)
{
	char *p = json_value_start(t->J, 400);
	p = JW_LIT(p, "{\"cname\":");
	p = jw_str(p, cname, strlen(cname));
	p = kv_time(p, ",\"dur\":", dur6);
	p = JW_LIT(p, ",\"name\":");
	p = jw_str(p, name, strlen(name));
	p = JW_LIT(p, ",\"ph\":\"X\",\"pid\":\"BLOCK\",\"tid\":");
	p = jw_str(p, tid, tn);
	p = kv_time(p, ",\"ts\":", ts6);
	*p++ = '}';
	json_value_done(t->J, p);
}

static void sort_event(struct tl *t, unsigned core, const char *sub, unsigned order)
{
	char *p = json_value_start(t->J, 200);
	p = JW_LIT(p, "{\"args\":{\"sort_index\":");
	p = jw_uint(p, order);
	p = JW_LIT(p, "},\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":\"BLOCK\",\"tid\":\"core");
	p = jw_uint(p, core);
	*p++ = '.';
	p = jw_raw(p, sub, strlen(sub));
	p = JW_LIT(p, "\"}");
	json_value_done(t->J, p);
}

/* The block lanes: a slice per (block, sub-block) of its run, or with
 * enable_block_time off two zero-length marks; then the sort indexes. */
static void emit_blocks(struct tl *t, struct aicts_stats *st)
{
	const struct aicts_blocks *b = t->run->blocks;
	int block_time = t->run->kind != AICTS_PLAIN || !t->run->names || t->run->names->block_time;
	unsigned cube_per = t->op == OP_VECTOR ? 0 : 1, nblocks = 0, order = 1, c, k;
	size_t i, j;
	t->vec_per = 0;
	t->lanes = xreallocarray(NULL, b->n ? b->n : 1, sizeof *t->lanes);
	t->nlanes = 0;
	for (i = 0; i < b->n; i = j) {
		unsigned nsub;
		for (j = i; j < b->n && b->v[j].block == b->v[i].block; j++)
			;
		nsub = (unsigned)(j - i);
		nblocks++;
		if (t->op == OP_MIX)
			t->vec_per = nsub - 1;
		else if (t->op == OP_VECTOR)
			t->vec_per = nsub;
		for (k = 0; k < nsub; k++) {
			const struct aicts_block *e = &b->v[i + k];
			unsigned cube = t->op == OP_CUBE || (t->op == OP_MIX && k == 0);
			unsigned dots = e->block;
			struct lane *l = &t->lanes[t->nlanes++];
			char tid[48], name[64];
			size_t tn;
			if (t->op == OP_MIX && k > 0)
				dots = e->block * (nsub - 1) + k - 1;
			l->cube = cube;
			l->dots = dots;
			l->start = e->start;
			l->end = e->end;
			tn = lane_tid(t, cube, dots, tid, sizeof tid);
			if (block_time) {
				block_event(t, cube ? CNAME_CUBE : CNAME_VEC, cube ? "cube time" : "vector time", tid, tn,
				            us6(t, t->run->min, e->start), us6(t, e->start, e->end));
			} else {
				snprintf(name, sizeof name, "%s%u START", cube ? "AIC BLOCK" : "AIV BLOCK", dots);
				block_event(t, cube ? CNAME_CUBE : CNAME_VEC, name, tid, tn, us6(t, t->run->min, e->start), 0);
				snprintf(name, sizeof name, "%s%u END", cube ? "AIC BLOCK" : "AIV BLOCK", dots);
				block_event(t, cube ? CNAME_CUBE : CNAME_VEC, name, tid, tn, us6(t, t->run->min, e->end), 0);
			}
			st->lanes++;
		}
	}
	for (c = 0; c < nblocks; c++) {
		for (k = 0; k < cube_per; k++)
			sort_event(t, c, "cubecore0", order++);
		for (k = 0; k < t->vec_per; k++) {
			char sub[24];
			snprintf(sub, sizeof sub, "veccore%u", k);
			sort_event(t, c, sub, order++);
		}
	}
}

static void emit_ai_core(struct tl *t)
{
	char *p = json_value_start(t->J, 300);
	float us = t->run->task_us > 0 ? t->run->task_us : 0;
	p = JW_LIT(p, "{\"args\":{},\"cname\":\"" CNAME_CUBE "\",\"dur\":");
	p = jw_fixed(p, (uint64_t)((double)us * 1e6 + 0.5), 6);
	p = JW_LIT(p, ",\"name\":\"AI_CORE\",\"ph\":\"X\",\"pid\":\"AI CORE\",\"tid\":\"AI_CORE\"");
	p = kv_time(p, ",\"ts\":", us6(t, t->run->min, t->run->task_start));
	*p++ = '}';
	json_value_done(t->J, p);
}

/* A dot's slice: args (code, the name for a user dot, pc_addr), cname,
 * dur, name, ph, pid, tid, ts. */
static void dot_event(struct tl *t, const char *name, int name_arg, const char *cname, unsigned cube, unsigned block,
                      uint64_t start, uint64_t end, uint64_t pc)
{
	size_t cn = 0;
	const char *code = t->run->code ? t->run->code(t->run->code_ctx, pc, &cn) : NULL;
	char tid[48], *p = json_value_start(t->J, 400 + cn + 2 * JW_STR_MAX(strlen(name)));
	size_t tn = lane_tid(t, cube, block, tid, sizeof tid);
	p = JW_LIT(p, "{\"args\":{\"code\":");
	if (code)
		p = jw_raw(p, code, cn);
	else
		p = JW_LIT(p, "\"\"");
	if (name_arg) {
		p = JW_LIT(p, ",\"name\":");
		p = jw_str(p, name, strlen(name));
	}
	p = JW_LIT(p, ",\"pc_addr\":\"0x");
	p += sprintf(p, "%08llx", (unsigned long long)pc);
	p = JW_LIT(p, "\"},\"cname\":");
	p = jw_str(p, cname, strlen(cname));
	p = kv_time(p, ",\"dur\":", us6(t, start, end));
	p = JW_LIT(p, ",\"name\":");
	p = jw_str(p, name, strlen(name));
	p = JW_LIT(p, ",\"ph\":\"X\",\"pid\":\"BLOCK\",\"tid\":");
	p = jw_str(p, tid, tn);
	p = kv_time(p, ",\"ts\":", us6(t, t->run->min, start));
	*p++ = '}';
	json_value_done(t->J, p);
}

static int inside(const struct tl *t, unsigned cube, unsigned block, uint64_t start, uint64_t end)
{
	const struct lane *l = lane_of(t, cube, block);
	uint64_t ls = l ? l->start : 0, le_ = l ? l->end : 0;
	return ls <= start && le_ >= end;
}

/* The MC2 AICore API dots, in the order their ends come: an even descId
 * starts an (API, kind, block), the next odd one ends it; a pair outside
 * the block's run stays open (a later end may close it), as the
 * reference's does. */
static void emit_mc2(struct tl *t, const struct aicts_rec *v, size_t n, struct aicts_stats *st)
{
	struct keytab open = keytab_make(sizeof(uint32_t), 3);
	struct op { uint64_t start, end, pc; unsigned block, cube, started, ended; } *ops = NULL;
	size_t nops = 0, i;
	for (i = 0; i < n; i++) {
		const struct aicts_rec *r = &v[i];
		int a = mc2_api_index(r->desc_id), fresh;
		uint32_t *at;
		struct op *o;
		if (a < 0)
			continue;
		at = keytab_get(&open, (uint64_t)a << 40 | (uint64_t)r->cube << 32 | r->block, &fresh);
		if (fresh) {
			ops = xreallocarray(ops, nops + 1, sizeof *ops);
			memset(&ops[nops], 0, sizeof *ops);
			*at = (uint32_t)nops++;
		}
		o = &ops[*at];
		if (!(r->desc_id & 1)) {
			if (!o->started) {
				o->start = r->syscyc;
				o->pc = r->pc;
				o->block = r->block;
				o->cube = r->cube;
				o->started = 1;
			}
		} else if (o->started) {
			o->end = r->syscyc;
			o->ended = 1;
		}
		if (!o->started || !o->ended)
			continue;
		if (!inside(t, r->cube, r->block, o->start, o->end)) {
			st->outside++;
			continue;
		}
		dot_event(t, mc2_apis[a].name, 0, mc2_apis[a].cname, o->cube, o->block, o->start, o->end, o->pc);
		st->api_dots++;
		o->started = o->ended = 0;
	}
	for (i = 0; i < nops; i++)
		st->unpaired += ops[i].started;
	free(ops);
	keytab_free(&open);
}

/* User dots grouped by (block, descId, kind): "AIC BLOCK" before "AIV
 * BLOCK", file order within. */
static int cmp_user(const void *pa, const void *pb)
{
	const struct aicts_rec *a = *(const struct aicts_rec *const *)pa, *b = *(const struct aicts_rec *const *)pb;
	if (a->block != b->block)
		return a->block < b->block ? -1 : 1;
	if (a->desc_id != b->desc_id)
		return a->desc_id < b->desc_id ? -1 : 1;
	if (a->cube != b->cube)
		return a->cube ? -1 : 1;
	return a < b ? -1 : a > b;
}

static int same_key(const struct aicts_rec *a, const struct aicts_rec *b)
{
	return a->block == b->block && a->desc_id == b->desc_id && a->cube == b->cube;
}

static int cmp_u32(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	return a < b ? -1 : a > b;
}

/* The user dots: within a (block, descId, kind) records alternate start
 * and end; the colour is the rank of the descId among those that ended. */
static void emit_user(struct tl *t, const struct aicts_rec *v, size_t n, struct aicts_stats *st)
{
	const struct aicts_rec **u = xreallocarray(NULL, n ? n : 1, sizeof *u);
	uint32_t *ended = xreallocarray(NULL, n ? n : 1, sizeof *ended);
	size_t nu = 0, ne = 0, i, j;
	for (i = 0; i < n; i++)
		if (v[i].desc_id >= AICTS_USER_DESC)
			u[nu++] = &v[i];
	qsort(u, nu, sizeof *u, cmp_user);
	/* the descIds with an end, each once */
	for (i = 0; i < nu; i = j) {
		for (j = i; j < nu && same_key(u[i], u[j]); j++)
			;
		if (j - i >= 2)
			ended[ne++] = u[i]->desc_id;
	}
	qsort(ended, ne, sizeof *ended, cmp_u32);
	for (i = j = 0; i < ne; i++)
		if (!j || ended[j - 1] != ended[i])
			ended[j++] = ended[i];
	ne = j;
	for (i = 0; i < nu; i = j) {
		size_t k;
		for (j = i; j < nu && same_key(u[i], u[j]); j++)
			;
		for (k = i; k < j; k += 2) {
			const struct aicts_rec *s = u[k], *e = k + 1 < j ? u[k + 1] : NULL;
			const char *alias;
			char num[16];
			size_t rank = 0;
			if (!e) {
				st->unpaired++;
				continue;
			}
			if (e->syscyc <= s->syscyc || s->syscyc < t->run->min)
				continue;
			if (!inside(t, s->cube, s->block, s->syscyc, e->syscyc)) {
				st->outside++;
				continue;
			}
			while (rank < ne && ended[rank] < s->desc_id)
				rank++;
			alias = t->run->kind == AICTS_PLAIN ? aicts_name_of(t->run->names, s->desc_id) : NULL;
			snprintf(num, sizeof num, "%u", s->desc_id);
			dot_event(t, alias ? alias : num, 1, biu_colour(rank), s->cube, s->block, s->syscyc, e->syscyc, s->pc);
			st->dots++;
		}
	}
	free(ended);
	free(u);
}

/* The LCCL log dots: the first record of a (log, block) starts it, the
 * next one at or after it ends it; blocks keep their raw ids, from 50
 * cube ones. */
static void emit_lccl(struct tl *t, const struct aicts_lccl *v, size_t n, struct aicts_stats *st)
{
	static const char *const names[3] = { "OVERALL", "INIT", "PROCESS" };
	static const char *const cnames[3] = { "thread_state_iowait", "thread_state_unknown",
	                                       "heap_dump_child_node_arrow" };
	struct keytab open = keytab_make(sizeof(uint32_t), 3);
	size_t i;
	for (i = 0; i < n; i++) {
		const struct aicts_lccl *r = &v[i];
		const struct aicts_lccl *s;
		const struct lane *l;
		unsigned cube = r->block_id >= AICTS_OLD_CUBE, block = r->block_id & 0xffff;
		uint32_t *at;
		int fresh;
		char tid[48], *p;
		size_t tn;
		if (r->log_id > 2) {
			st->unpaired++;
			continue;
		}
		at = keytab_get(&open, (uint64_t)r->log_id << 32 | r->block_id, &fresh);
		if (fresh || !*at) {
			*at = (uint32_t)(i + 1);
			continue;
		}
		s = &v[*at - 1];
		if (r->syscyc < s->syscyc)
			continue;
		*at = 0;
		l = lane_of(t, cube, block);
		if (l && (l->start > s->syscyc || l->end < r->syscyc)) {
			st->outside++;
			continue;
		}
		tn = lane_tid(t, cube, block, tid, sizeof tid);
		p = json_value_start(t->J, 500);
		p += sprintf(p, "{\"args\":{\"curPc\":\"0x%llx\",\"operationType\":\"%u\",\"rsv\":\"%u\"},\"cname\":\"%s\"",
		             (unsigned long long)s->pc, s->op_type, s->rsv, cnames[s->log_id]);
		p = kv_time(p, ",\"dur\":", us6(t, s->syscyc, r->syscyc));
		p += sprintf(p, ",\"name\":\"%s\",\"ph\":\"X\",\"pid\":\"BLOCK\",\"tid\":", names[s->log_id]);
		p = jw_str(p, tid, tn);
		p = kv_time(p, ",\"ts\":", us6(t, t->run->min, s->syscyc));
		*p++ = '}';
		json_value_done(t->J, p);
		st->lccl_dots++;
	}
	for (i = 0; i < open.cap; i++) {
		uint64_t key;
		uint32_t *at = keytab_at(&open, i, &key);
		if (at && *at)
			st->unpaired++;
	}
	keytab_free(&open);
}

void aicts_emit(struct json *J, const struct aicts_run *run, const void *v, size_t n, struct aicts_stats *st)
{
	struct tl t = { J, run, OP_VECTOR, 0, NULL, 0 };
	const struct aicts_blocks *b = run->blocks;
	memset(st, 0, sizeof *st);
	t.op = b->aic && b->aiv ? OP_MIX : b->aic ? OP_CUBE : OP_VECTOR;
	emit_blocks(&t, st);
	if (run->kind != AICTS_MC2)
		emit_ai_core(&t);
	if (run->kind == AICTS_LCCL) {
		emit_lccl(&t, v, n, st);
	} else {
		if (run->kind == AICTS_MC2)
			emit_mc2(&t, v, n, st);
		emit_user(&t, v, n, st);
	}
	free(t.lanes);
}
