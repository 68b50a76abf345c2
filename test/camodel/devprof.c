/* The on-board raw files (see optrace-board(5), DEVICEPROF<N>.BIN,
 * DURATION.BIN, L2CACHE.BIN and OP_BASIC_INFO.TXT) from what the
 * timing model counted: see devprof.h. */
#include "devprof.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "biu.h"
#include "cload.h"
#include "dbi.h"
#include "mem.h"
#include "pmu.h"

/* Bytes per L2 request (the main-memory request size of every family). */
#define L2_REQ 128

unsigned dp_subs_per_block(enum board_fmt fmt, int mix)
{
	return fmt != BOARD_310P && mix ? 3 : 1;
}

unsigned dp_replays(enum board_fmt fmt)
{
	size_t na, nv, slots = board_pmu_slots(fmt);
	pmu_replay_events(fmt, BOARD_CUBE, &na);
	pmu_replay_events(fmt, BOARD_VECTOR, &nv);
	size_t n = na > nv ? na : nv;
	return (unsigned)((n + slots - 1) / slots);
}

/* The events the device was programmed with (CAMODEL_DEVICE_PMU_AIC and
 * _AIV, comma-separated, as a capture of some groups in application replay
 * gives them; README section 11), read once; NULL when not set. */
static const uint16_t *dp_programmed(enum board_core core, size_t *len)
{
	static uint16_t ev[2][PMU_EVENTS_MAX];
	static size_t n[2];
	static int read, set[2];
	if (!read) {
		for (int k = 0; k < 2; k++) {
			const char *e = getenv(k ? "CAMODEL_DEVICE_PMU_AIV" : "CAMODEL_DEVICE_PMU_AIC");
			char *end;
			if (!e || !*e)
				continue;
			set[k] = 1;
			while (*e && n[k] < PMU_EVENTS_MAX) {
				unsigned long v = strtoul(e, &end, 10);
				if (end == e || v > 0xffff)
					break;
				ev[k][n[k]++] = (uint16_t)v;
				e = *end == ',' ? end + 1 : end;
			}
		}
		read = 1;
	}
	*len = n[core == BOARD_VECTOR];
	return set[core == BOARD_VECTOR] ? ev[core == BOARD_VECTOR] : NULL;
}

unsigned dp_slot_event(enum board_fmt fmt, enum board_core core, unsigned n, unsigned i)
{
	size_t len, slots = board_pmu_slots(fmt);
	const uint16_t *ev = dp_programmed(fmt == BOARD_310P ? BOARD_CUBE : core, &len);
	if (!ev)
		ev = pmu_replay_events(fmt, fmt == BOARD_310P ? BOARD_CUBE : core, &len);
	size_t k = (size_t)(n - 1) * slots + i;
	return n >= 1 && i < slots && k < len ? ev[k] : 0;
}

static uint64_t req(uint64_t bytes, uint64_t size)
{
	return (bytes + size - 1) / size;
}

/* GM reads and writes of a sub-core, in L2 requests. */
static uint64_t gm_reads(const struct dp_sub *s)
{
	return req(s->bytes[DP_GM_TO_UB], L2_REQ) + req(s->bytes[DP_GM_TO_L1], L2_REQ);
}
static uint64_t gm_writes(const struct dp_sub *s)
{
	return req(s->bytes[DP_UB_TO_GM], L2_REQ) + req(s->bytes[DP_L0C_TO_GM], L2_REQ);
}
/* The model's L2 keeps three requests in four: a quarter miss. */
static uint64_t hits(uint64_t n) { return n - n / 4; }
static uint64_t misses(uint64_t n) { return n / 4; }

/* Events A2/A3 and 310P number alike: 1 if id is one (*v its count). */
static int event_common(const struct dp_sub *s, unsigned id, uint64_t *v)
{
	const uint64_t *b = s->bytes;
	switch (id) {
	case 1: *v = s->instr[DP_V]; return 1;
	case 3: *v = s->instr[DP_M]; return 1;
	case 4: *v = s->instr[DP_MTE1]; return 1;
	case 5: *v = s->instr[DP_MTE2]; return 1;
	case 6: *v = s->instr[DP_MTE3]; return 1;
	case 8: *v = s->busy[DP_V]; return 1;
	case 9: *v = s->busy[DP_S]; return 1;
	case 10: case 73: *v = s->busy[DP_M]; return 1;
	case 12: *v = s->busy[DP_MTE2]; return 1;
	case 13: *v = s->busy[DP_MTE3]; return 1;
	case 76: *v = s->vec_f16; return 1;
	case 78: *v = s->vec_s32; return 1;
	case 186: *v = s->vec_s16; return 1;
	case 84: *v = s->ic_req; return 1;
	case 85: *v = s->ic_miss; return 1;
	case 88: *v = s->wait[DP_M]; return 1;
	case 89: *v = s->wait[DP_V]; return 1;
	case 50: *v = req(b[DP_GM_TO_L1], 256); return 1;
	case 27: *v = req(b[DP_L0A_TO_CUBE], 512); return 1;
	case 33: *v = req(b[DP_L0B_TO_CUBE], 512); return 1;
	case 34: *v = req(b[DP_L1_TO_L0B], 128); return 1;
	case 42: *v = req(b[DP_CUBE_TO_L0C], 1024); return 1;
	default: return 0;
	}
}

static uint64_t event_a2(const struct dp_sub *s, unsigned id)
{
	const uint64_t *b = s->bytes;
	uint64_t v;
	if (event_common(s, id, &v)) return v;
	switch (id) {
	/* the float instructions, fp16 ones too (the compute load's fp32 is
	 * 75 - 76) */
	case 75: return s->vec_f32 + s->vec_f16;
	case 1032: return s->instr[DP_M];
	case 770: return s->busy[DP_MTE1];
	case 771: return s->busy[DP_FIX];
	case 112: return s->instr[DP_S];
	case 61: return req(b[DP_UB_TO_GM], 128);
	case 62: return req(b[DP_GM_TO_UB], 128);
	case 49: return req(b[DP_L1_TO_L0A] + b[DP_L1_TO_L0B], 128);
	case 524: return req(b[DP_L0C_TO_GM], 128);
	case 28: return req(b[DP_L1_TO_L0A], 256);
	case 67: return req(b[DP_UB_TO_VEC], 256);
	case 68: return req(b[DP_VEC_TO_UB], 256);
	case 1292: return gm_writes(s);
	case 1293: return gm_reads(s);
	case 1280: return hits(gm_writes(s));
	case 1282: return misses(gm_writes(s));
	case 1284: return hits(gm_reads(s));
	case 1286: return misses(gm_reads(s));
	default: return 0;
	}
}

/* 310P: other request sizes (optrace-board(5), METRICS) */
static uint64_t event_310p(const struct dp_sub *s, unsigned id)
{
	const uint64_t *b = s->bytes;
	uint64_t v;
	if (event_common(s, id, &v)) return v;
	switch (id) {
	case 75: return s->vec_f32;
	case 11: return s->busy[DP_MTE1];
	case 18: return req(b[DP_GM_TO_UB] + b[DP_GM_TO_L1], 512);
	case 19: return req(b[DP_UB_TO_GM] + b[DP_L0C_TO_GM], 512);
	case 49: return req(b[DP_L1_TO_L0A] + b[DP_L1_TO_L0B], 512);
	case 61: return req(b[DP_UB_TO_GM], 16);
	case 62: return req(b[DP_GM_TO_UB], 16);
	case 67: return req(b[DP_UB_TO_VEC], 32);
	case 68: return req(b[DP_VEC_TO_UB], 32);
	case 28: return req(b[DP_L1_TO_L0A], 512);
	default: return 0;
	}
}

static uint64_t event_a5(const struct dp_sub *s, unsigned id)
{
	const uint64_t *b = s->bytes;
	switch (id) {
	case 1: return s->busy[DP_S];
	case 810: case 808: return s->busy[DP_M];
	case 768: case 789: return s->instr[DP_M];
	case 1281: case 1282: return s->busy[DP_V];
	case 1284: return s->busy[DP_EX];
	case 1466: return s->instr[DP_LD];
	case 1467: return s->instr[DP_EX];
	case 1468: return s->instr[DP_ST];
	case 1792: return s->instr[DP_MTE1];
	case 1794: return s->busy[DP_MTE1];
	case 512: return s->instr[DP_MTE2];
	case 514: return s->busy[DP_MTE2];
	case 513: return s->instr[DP_MTE3];
	case 515: return s->busy[DP_MTE3];
	case 1812: return s->busy[DP_FIX];
	case 52: return s->ic_req;
	case 53: return s->ic_miss;
	case 1058: return gm_reads(s);
	case 1059: return gm_writes(s);
	case 1799: return req(b[DP_L1_TO_L0A] + b[DP_L1_TO_L0B], 256);
	case 1801: return req(b[DP_GM_TO_L1], 128);
	case 772: return req(b[DP_L0A_TO_CUBE], 64);
	case 774: return req(b[DP_L0B_TO_CUBE], 256);
	case 776: return req(b[DP_CUBE_TO_L0C], 1024);
	case 1795: return req(b[DP_L1_TO_L0A], 256);
	case 1797: return req(b[DP_L1_TO_L0B], 256);
	case 1393: return req(b[DP_UB_TO_VEC], 256);
	case 1394: return req(b[DP_VEC_TO_UB], 256);
	case 1060: return hits(gm_reads(s));
	case 1061: return misses(gm_reads(s));
	case 1066: return hits(gm_writes(s));
	case 1067: return misses(gm_writes(s));
	default: return 0;
	}
}

uint64_t dp_event(enum board_fmt fmt, const struct dp_sub *s, unsigned id)
{
	if (!id) return 0;
	return fmt == BOARD_A5 ? event_a5(s, id) : fmt == BOARD_310P ? event_310p(s, id) : event_a2(s, id);
}

static void put16(uint8_t *p, uint64_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint64_t v) { put16(p, v); put16(p + 2, v >> 16); }
static void put64(uint8_t *p, uint64_t v) { put32(p, v); put32(p + 4, v >> 32); }

void dp_pmu_record(enum board_fmt fmt, const struct dp_sub *s, unsigned n, unsigned stream, unsigned task,
                   uint8_t out[BOARD_PMU_REC_SIZE])
{
	unsigned slots = board_pmu_slots(fmt);
	memset(out, 0, BOARD_PMU_REC_SIZE);
	size_t at;
	if (fmt == BOARD_310P) {   /* no stream, task or block fields */
		put64(out + 16, s->cycles);
		at = 32;
	} else {
		put16(out + 4, stream);
		put16(out + 6, task);
		if (fmt == BOARD_A5) {
			put16(out, BOARD_A5_FUNC_BLOCK_PMU);
			put64(out + 8, s->cycles);
			put16(out + 20, (unsigned)s->core | (s->core_id & 0xff) << 8);
			put16(out + 24, s->sub_block);
			put16(out + 26, s->block);
			at = 32;
		} else {
			put16(out + 20, (unsigned)s->core | (s->core_id & 0x7f) << 1);
			put16(out + 28, s->sub_block);
			put16(out + 30, s->block);
			put64(out + 32, s->cycles);
			at = 48;
		}
		put64(out + 112, s->start);
		put64(out + 120, s->end);
	}
	for (unsigned i = 0; i < slots; i++)
		put64(out + at + 8 * i, dp_event(fmt, s, dp_slot_event(fmt, s->core, n, i)));
}

size_t dp_stamp(enum board_fmt fmt, int end, unsigned task_type, unsigned stream, unsigned task, uint64_t t,
                uint8_t out[64])
{
	size_t n = board_stamp_size(fmt);
	memset(out, 0, n);
	if (fmt == BOARD_310P) {
		out[0] = (uint8_t)(end ? 1 : 0);
		put16(out + 2, stream);
		put16(out + 4, task);
	} else {
		put16(out, (unsigned)(end ? 1 : 0) | (task_type & 0x3f) << 10);
		put16(out + 4, stream);
		put16(out + 6, task);
	}
	put64(out + 8, t);
	return n;
}

void dp_l2(enum board_fmt fmt, const uint64_t t[DP_NPATH], uint8_t out[BOARD_L2_SIZE])
{
	uint64_t r = req(t[DP_GM_TO_UB], L2_REQ) + req(t[DP_GM_TO_L1], L2_REQ);
	uint64_t w = req(t[DP_UB_TO_GM], L2_REQ) + req(t[DP_L0C_TO_GM], L2_REQ);
	uint64_t v[8] = { 0 };
	if (fmt == BOARD_310P) {
		/* hits, read requests, write requests */
		v[0] = hits(r + w);
		v[1] = r;
		v[2] = w;
	} else {
		/* reads, writes, read hits, write hits, evictions (of the write misses) */
		v[0] = r;
		v[1] = w;
		v[2] = hits(r);
		v[3] = hits(w);
		v[4] = misses(w) / 2;
	}
	memset(out, 0, BOARD_L2_SIZE);
	for (int i = 0; i < 8; i++) put64(out + 8 + 8 * i, v[i]);
}

/* ---- files ---- */

struct outf {
	char path[4200], tmp[4300];
	FILE *f;
};

static int out_open(struct outf *o, const char *dir, const char *name, char *err, size_t es)
{
	snprintf(o->path, sizeof o->path, "%s/%s", dir, name);
	snprintf(o->tmp, sizeof o->tmp, "%s/.%s.tmp", dir, name);
	o->f = fopen(o->tmp, "wb");
	if (!o->f) {
		snprintf(err, es, "%s: %s", o->tmp, strerror(errno));
		return -1;
	}
	setvbuf(o->f, NULL, _IOFBF, 1 << 20);
	return 0;
}

static int out_close(struct outf *o, char *err, size_t es)
{
	int bad = ferror(o->f);
	if (fclose(o->f) != 0) bad = 1;
	if (bad || rename(o->tmp, o->path) != 0) {
		snprintf(err, es, "%s: %s", o->path, strerror(errno ? errno : EIO));
		unlink(o->tmp);
		return -1;
	}
	return 0;
}

static void out_abort(struct outf *o)
{
	fclose(o->f);
	unlink(o->tmp);
}

static int mkdirs(const char *dir, char *err, size_t es)
{
	char p[4096];
	snprintf(p, sizeof p, "%s", dir);
	for (char *c = p + 1; *c; c++)
		if (*c == '/') {
			*c = 0;
			mkdir(p, 0750);
			*c = '/';
		}
	if (mkdir(p, 0750) != 0 && errno != EEXIST) {
		snprintf(err, es, "%s: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}

static const struct dp_sub *sub_at(const struct dp_run *r, size_t i, struct dp_sub *tmp)
{
	if (r->sub) return &r->sub[i];
	r->gen(r->ctx, i, tmp);
	return tmp;
}

/* Range replay: this launch's records after those of the launches before
 * it in the range (each file is only ever appended to: a reader sees
 * whole records once the range's run is over). */
static int append_to(const char *dir, const char *name, const void *p, size_t len, char *err, size_t es)
{
	char path[4200];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "ab");
	int bad = !f || fwrite(p, 1, len, f) != len;
	if (f && fclose(f) != 0) bad = 1;
	if (bad) snprintf(err, es, "%s: %s", path, strerror(errno ? errno : EIO));
	return bad ? -1 : 0;
}

static int dp_append(const struct dp_run *r, const char *dir, unsigned n, char *err, size_t es)
{
	struct dp_sub tmp;
	uint8_t rec[BOARD_PMU_REC_SIZE], st[2][64];
	char name[64];
	size_t a, b;
	struct outf o;
	snprintf(name, sizeof name, "DeviceProf%u.bin", n ? n : 1);
	for (size_t i = 0; i < r->nsub; i++) {
		dp_pmu_record(r->fmt, sub_at(r, i, &tmp), n ? n : 1, r->stream, r->task, rec);
		if (append_to(dir, name, rec, sizeof rec, err, es)) return -1;
	}
	a = dp_stamp(r->fmt, 0, r->task_type, r->stream, r->task, r->start, st[0]);
	b = dp_stamp(r->fmt, 1, r->task_type, r->stream, r->task, r->end, st[1]);
	if (append_to(dir, "duration.bin", st[0], a, err, es) || append_to(dir, "duration.bin", st[1], b, err, es))
		return -1;
	/* CAMODEL_DEVICE_NO_FREQ=1: a device whose frequencies cannot be read */
	const char *nf = getenv("CAMODEL_DEVICE_NO_FREQ");
	if (nf && *nf && strcmp(nf, "0")) return 0;
	if (out_open(&o, dir, "freq.txt", err, es)) return -1;
	fprintf(o.f, "Current Freq=%u\nRated Freq=%u\n", r->freq_mhz, r->freq_mhz);
	return out_close(&o, err, es);
}

int dp_write(const struct dp_run *r, const char *dir, unsigned n, char *err, size_t es)
{
	struct outf o;
	struct dp_sub tmp;
	uint8_t rec[BOARD_PMU_REC_SIZE];
	unsigned k = dp_replays(r->fmt);
	if (n > k) {
		snprintf(err, es, "replay %u: the family has %u replays", n, k);
		return -1;
	}
	if (mkdirs(dir, err, es)) return -1;
	if (r->append) return dp_append(r, dir, n, err, es);
	for (unsigned f = n ? n : 1; f <= (n ? n : k); f++) {
		char name[64];
		snprintf(name, sizeof name, "DeviceProf%u.bin", f);
		if (out_open(&o, dir, name, err, es)) return -1;
		for (size_t i = 0; i < r->nsub; i++) {
			dp_pmu_record(r->fmt, sub_at(r, i, &tmp), f, r->stream, r->task, rec);
			fwrite(rec, 1, sizeof rec, o.f);
		}
		if (out_close(&o, err, es)) return -1;
	}

	uint8_t st[64];
	unsigned mc2 = 0;   /* communication turns of an MC2 op (A2/A3) */
	if (r->fmt == BOARD_A2 && dp_mc2_env(&mc2, err, es)) return -1;
	if (out_open(&o, dir, "duration.bin", err, es)) return -1;
	fwrite(st, 1, dp_stamp(r->fmt, 0, r->task_type, r->stream, r->task, r->start, st), o.f);
	fwrite(st, 1, dp_stamp(r->fmt, 1, r->task_type, r->stream, r->task, r->end, st), o.f);
	if (mc2) dp_mc2_stamps(r, mc2, o.f);
	if (out_close(&o, err, es)) return -1;

	if (r->fmt != BOARD_A5) {
		uint64_t t[DP_NPATH] = { 0 };
		uint8_t l2[BOARD_L2_SIZE];
		for (size_t i = 0; i < r->nsub; i++) {
			const struct dp_sub *s = sub_at(r, i, &tmp);
			for (int p = 0; p < DP_NPATH; p++) t[p] += s->bytes[p];
		}
		dp_l2(r->fmt, t, l2);
		if (out_open(&o, dir, "L2Cache.bin", err, es)) return -1;
		fwrite(l2, 1, sizeof l2, o.f);
		if (out_close(&o, err, es)) return -1;
	}

	if (out_open(&o, dir, "op_basic_info.txt", err, es)) return -1;
	if (strchr(r->op_name, '\n') || strchr(r->soc, '\n')) {
		out_abort(&o);
		snprintf(err, es, "op_basic_info.txt: a name with a line break");
		return -1;
	}
	{
		struct dp_timeline t;
		if (dp_timeline_env(&t, err, es)) {
			out_abort(&o);
			return -1;
		}
		/* The timeline is a replay of its own: written once. */
		if (t.mode != DP_TL_NONE && r->fmt == BOARD_A5 && n <= 1 && dp_timeline_write(r, &t, dir, err, es)) {
			out_abort(&o);
			return -1;
		}
		/* The operand counts, as the warps, come with the first replay. */
		if (r->fmt == BOARD_A5 && n <= 1 && dp_oprec_write(r, dir, err, es)) {
			out_abort(&o);
			return -1;
		}
		/* SIMT warps are always instrumented on A5; PC sampling when asked. */
		const char *pcs = getenv("CAMODEL_DEVICE_PCSAMPLING");
		if (r->fmt == BOARD_A5 && r->has_simt && n <= 1 &&
		    dp_simt_write(r, pcs && *pcs && strcmp(pcs, "0"), dir, err, es)) {
			out_abort(&o);
			return -1;
		}
	}
	if (mc2 && dp_mc2_write(r, mc2, dir, err, es)) {
		out_abort(&o);
		return -1;
	}
	/* every replay: its stamps go with its DeviceProf file and duration.bin */
	if (r->fmt != BOARD_310P && dp_aic_write(r, mc2, dir, err, es)) {
		out_abort(&o);
		return -1;
	}
	fprintf(o.f,
	        "Op Name=%s\nBlock Dim=%llu\nRun Soc Version=%s\nDevice Id=%u\nPid=%ld\n"
	        "Current Freq=%u\nRated Freq=%u\nIs MC2=%d\nIs Lccl=0\nHas Simt=%d\n",
	        r->op_name, (unsigned long long)r->block_dim, r->soc, r->device_id, r->pid, r->freq_mhz, r->freq_mhz,
	        mc2 ? 1 : 0, r->has_simt ? 1 : 0);
	return out_close(&o, err, es);
}

/* ---- A5 OperandRecord.bin ---- */

/* One record: instructions, operands, function type (0 here). */
static void oprec_put(FILE *f, uint64_t off, uint64_t instr, uint64_t ops)
{
	uint8_t rec[OPREC_REC] = { 0 };
	put64(rec, instr);
	put64(rec + 8, ops);
	fseeko(f, (off_t)off, SEEK_SET);
	fwrite(rec, 1, sizeof rec, f);
}

int dp_oprec_write(const struct dp_run *r, const char *dir, char *err, size_t es)
{
	struct outf o;
	struct dp_sub tmp;
	uint64_t nb = r->block_dim * 3 > OPREC_BLOCKS_MAX ? OPREC_BLOCKS_MAX : r->block_dim * 3;
	uint8_t head[OPREC_HEAD] = { 0 };
	int mix = r->task_type == 2;
	if (out_open(&o, dir, "OperandRecord.bin", err, es)) return -1;
	put32(head, OPREC_MAGIC);
	fwrite(head, 1, sizeof head, o.f);
	for (size_t i = 0; i < r->nsub; i++) {
		const struct dp_sub *s = sub_at(r, i, &tmp);
		size_t b = oprec_index(mix, s->core, s->block, s->sub_block);
		if (b >= nb) continue;   /* no room for it, as on the device */
		if (s->mmad_instr) oprec_put(o.f, oprec_offset((unsigned)b, -1, OPREC_F32), s->mmad_instr, s->mmad_ops);
		for (unsigned t = 0; s->simt_ops && t < OPREC_THREADS; t++)
			for (unsigned k = 0; k < 2; k++)
				if (s->simt_ops[2 * t + k])
					oprec_put(o.f, oprec_offset((unsigned)b, (int)t, k ? OPREC_S32 : OPREC_F32),
					          s->simt_ops[2 * t + k], s->simt_ops[2 * t + k]);
	}
	/* the blocks nothing ran on are zeros (a hole) */
	if (fflush(o.f) || ftruncate(fileno(o.f), (off_t)(OPREC_HEAD + nb * OPREC_BLOCK_BYTES))) {
		snprintf(err, es, "%s/OperandRecord.bin: cannot write: %s", dir, strerror(errno));
		out_abort(&o);
		return -1;
	}
	return out_close(&o, err, es);
}

/* ---- the A5 BIU timeline ---- */

/* The timing model's pipe of each BIU pipe. */
static const int tl_model_pipe[BIU_NPIPES] = { DP_S, DP_V, DP_M, DP_MTE1, DP_MTE2, DP_MTE3, DP_FIX };
/* Opcodes a pipe's static instructions are named after, in turn. */
static const char *const tl_opcodes[BIU_NPIPES][3] = {
	{ "scalar_op", "scalar_op", "scalar_op" },
	{ "vadd", "vmul", "vconv" },
	{ "mmad", "mmad", "mmad" },
	{ "load_cbuf_to_ca", "load_cbuf_to_cb", "load_cbuf_to_ca" },
	{ "copy_gm_to_ubuf", "copy_gm_to_cbuf", "copy_gm_to_ubuf" },
	{ "copy_ubuf_to_gm", "copy_ubuf_to_gm", "copy_ubuf_to_gm" },
	{ "fix_matrix_cc_to_gm", "fix_matrix_cc_to_gm", "fix_matrix_cc_to_gm" },
};

static uint64_t tl_pc(unsigned pipe, unsigned k)
{
	return 0x100 + ((uint64_t)pipe * DP_DFX_IDS_A5 + k) * 8;
}

int dp_timeline_env(struct dp_timeline *t, char *err, size_t es)
{
	const char *m = getenv("CAMODEL_DEVICE_TIMELINE"), *p = getenv("CAMODEL_DEVICE_TIMELINE_PIPES");
	const char *b = getenv("CAMODEL_DEVICE_TIMELINE_BODY"), *d = getenv("CAMODEL_DEVICE_TIMELINE_DROP");
	const char *map = getenv("CAMODEL_DEVICE_DFX_MAP");
	char *end;
	memset(t, 0, sizeof *t);
	t->pipes = ((1u << BIU_NPIPES) - 1) & ~(1u << BIU_SCALAR);
	t->body = 32;
	if (!m || !*m)
		return 0;
	if (!strcasecmp(m, "InstrTimeline"))
		t->mode = DP_TL_INSTR;
	else if (!strcasecmp(m, "PipeTimeline"))
		t->mode = DP_TL_PIPE;
	else {
		snprintf(err, es, "CAMODEL_DEVICE_TIMELINE=%s: neither InstrTimeline nor PipeTimeline", m);
		return -1;
	}
	if (p && *p) {
		t->pipes = 0;
		while (*p) {
			size_t n = strcspn(p, "|,");
			int k = biu_pipe_find(p, n, 0);
			if (k < 0) {
				snprintf(err, es, "CAMODEL_DEVICE_TIMELINE_PIPES: '%.*s' is not one of cube fixp vector mte1 mte2 mte3",
				         (int)n, p);
				return -1;
			}
			t->pipes |= 1u << k;
			p += n + (p[n] != 0);
		}
	}
	if (b && *b) {
		unsigned long v = strtoul(b, &end, 10);
		if (*end || v < 1 || v > 100000) {
			snprintf(err, es, "CAMODEL_DEVICE_TIMELINE_BODY=%s: not a count 1..100000", b);
			return -1;
		}
		t->body = (unsigned)v;
	}
	if (d && *d) {
		unsigned long long v = strtoull(d, &end, 10);
		if (*end || v == 1) {
			snprintf(err, es, "CAMODEL_DEVICE_TIMELINE_DROP=%s: not a count 0 or 2.. (every Nth record lost)", d);
			return -1;
		}
		t->drop = v;
	}
	if (t->mode == DP_TL_INSTR && map && *map)
		t->map = map;
	return 0;
}

/* One channel's records, cut into chunks as they fill. */
struct tl_chan {
	FILE *f;
	unsigned char head[BIU_HEAD_SIZE];
	unsigned char *data;
	size_t n;
	uint64_t last, written, drop;
	unsigned busy;
};

static void tl_flush(struct tl_chan *c)
{
	uint32_t v = (uint32_t)c->n;
	c->head[4] = (unsigned char)v;
	c->head[5] = (unsigned char)(v >> 8);
	c->head[6] = (unsigned char)(v >> 16);
	c->head[7] = (unsigned char)(v >> 24);
	memset(c->data + c->n, 0, BIU_DATA_SIZE - c->n);
	fwrite(c->head, 1, BIU_HEAD_SIZE, c->f);
	fwrite(c->data, 1, BIU_DATA_SIZE, c->f);
	c->n = 0;
}

static void tl_rec(struct tl_chan *c, unsigned cycles, unsigned info)
{
	if (c->drop && ++c->written % c->drop == 0)
		return;
	if (c->n == BIU_DATA_SIZE)
		tl_flush(c);
	c->data[c->n++] = (unsigned char)cycles;
	c->data[c->n++] = (unsigned char)(cycles >> 8);
	c->data[c->n++] = (unsigned char)info;
	c->data[c->n++] = (unsigned char)(info >> 8);
}

/* A record at cycle t: the cycles since the last one, in steps of at most
 * 65535 (pipe samples of the same state carry the rest). */
static void tl_at(struct tl_chan *c, uint64_t t, unsigned info)
{
	uint64_t d = t - c->last;
	while (d > 0xffff) {
		tl_rec(c, 0xffff, 0xF000 | c->busy);
		d -= 0xffff;
	}
	tl_rec(c, (unsigned)d, info);
	c->last = t;
}

/* A pipe of one sub-core: n instructions of dur cycles every step. */
struct tl_pipe {
	uint64_t n, i, dur, step;
	int started;            /* instruction i has started */
};

static uint64_t tl_next(const struct tl_pipe *p)
{
	return p->i * p->step + (p->started ? p->dur : 0);
}

/* The cycles from the BIU's start to the kernel's first instruction (the
 * instrumentation's prologue). */
#define TL_START 100

struct tl_mark {
	uint64_t t;
	size_t i;
	uint16_t info;
};

static int by_time(const void *a, const void *b)
{
	const struct tl_mark *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* instrprof_end: the ids that flush the BIU buffer, NOPs, the last id
 * again. */
static void tl_end_stub(struct tl_chan *c)
{
	for (unsigned p = 0; p < 8; p++)
		tl_at(c, c->last + 1, 0x0D88 + 0x11 * p);
	tl_at(c, c->last + 3500, 0xF000 | c->busy);
	tl_at(c, c->last + 1, 0x0DFF);
}

/* The marks the instrumented instructions stamped, in time order (a
 * sub-core's pipes run side by side; equal times keep their issue order). */
static int tl_marks(const struct dp_sub *s, struct tl_chan *c)
{
	struct tl_mark *v = s->nmarks ? malloc(s->nmarks * sizeof *v) : NULL;
	if (s->nmarks && !v)
		return -1;
	for (size_t i = 0; i < s->nmarks; i++) {
		v[i].t = s->marks[i].t;
		v[i].i = i;
		v[i].info = s->marks[i].info;
	}
	qsort(v, s->nmarks, sizeof *v, by_time);
	for (size_t i = 0; i < s->nmarks; i++)
		tl_at(c, v[i].t, v[i].info);
	free(v);
	tl_end_stub(c);
	return 0;
}

static void tl_sub(const struct dp_sub *s, const struct dp_timeline *t, struct tl_chan *c)
{
	struct tl_pipe pp[BIU_NPIPES];
	unsigned p;
	uint64_t span = s->cycles ? s->cycles : 1;
	for (p = 0; p < BIU_NPIPES; p++) {
		int m = tl_model_pipe[p];
		uint64_t n = s->instr[m], busy = s->busy[m] < span ? s->busy[m] : span;
		if (t->mode == DP_TL_INSTR && !(t->pipes >> p & 1))
			n = 0;
		if (n && busy < n)
			busy = n;
		pp[p].n = n;
		pp[p].i = 0;
		pp[p].dur = n ? busy / n : 0;
		pp[p].step = n ? (span > busy ? span : busy) / n : 0;
		if (pp[p].step < pp[p].dur)
			pp[p].step = pp[p].dur;
		pp[p].started = 0;
	}
	for (;;) {
		uint64_t at = UINT64_MAX;
		unsigned best = BIU_NPIPES;
		for (p = 0; p < BIU_NPIPES; p++)
			if (pp[p].i < pp[p].n && tl_next(&pp[p]) < at) {
				at = tl_next(&pp[p]);
				best = p;
			}
		if (best == BIU_NPIPES)
			break;
		struct tl_pipe *q = &pp[best];
		at += TL_START;
		unsigned k = (unsigned)(q->i % t->body);
		if (t->mode == DP_TL_INSTR) {
			/* Both ends of a run carry the instruction's id; ids past the
			 * chip's count were never given out. */
			if (best != BIU_SCALAR && k < DP_DFX_IDS_A5)
				tl_at(c, at, (unsigned)biu_pipe_ctrl(best) << 12 | dp_dfx_id(k));
		} else {
			unsigned busy = q->started ? c->busy & ~(1u << best) : c->busy | 1u << best;
			/* Back to back: the pipe stays busy. */
			if (q->started && q->step == q->dur && q->i + 1 < q->n)
				busy = c->busy;
			if (busy != c->busy) {
				c->busy = busy;
				tl_at(c, at, 0xF000 | busy);
			}
		}
		if (q->started)
			q->i++;
		q->started = !q->started;
	}
	tl_end_stub(c);
}

int dp_timeline_write(const struct dp_run *r, const struct dp_timeline *t, const char *dir, char *err, size_t es)
{
	struct outf o;
	struct dp_sub tmp;
	struct tl_chan c;
	uint64_t most[BIU_NPIPES] = { 0 };
	unsigned p, k;

	if (mkdirs(dir, err, es) || out_open(&o, dir, "timeline.bin", err, es))
		return -1;
	memset(&c, 0, sizeof c);
	if (!(c.data = malloc(BIU_DATA_SIZE))) {
		out_abort(&o);
		snprintf(err, es, "timeline.bin: out of memory");
		return -1;
	}
	c.f = o.f;
	c.drop = t->drop;
	for (size_t i = 0; i < r->nsub; i++) {
		const struct dp_sub *s = sub_at(r, i, &tmp);
		unsigned type = s->core == BOARD_CUBE ? 0 : 1 + (s->sub_block & 1);
		for (p = 0; p < BIU_NPIPES; p++)
			if (s->instr[tl_model_pipe[p]] > most[p])
				most[p] = s->instr[tl_model_pipe[p]];
		c.head[0] = (unsigned char)s->core_id;
		c.head[1] = (unsigned char)(s->core_id >> 8);
		c.head[2] = (unsigned char)type;
		c.head[3] = 0;
		c.n = 0;
		c.last = 0;
		c.busy = 0;
		if (!t->map)
			tl_sub(s, t, &c);
		else if (tl_marks(s, &c)) {
			free(c.data);
			out_abort(&o);
			snprintf(err, es, "timeline.bin: out of memory");
			return -1;
		}
		tl_flush(&c);
	}
	free(c.data);
	if (out_close(&o, err, es))
		return -1;
	if (t->mode != DP_TL_INSTR || t->map)
		return 0;

	/* The compiler's side files: a line per stamped static instruction,
	 * and the pipes it ran out of ids on. */
	if (out_open(&o, dir, "dfx_region_map.txt", err, es))
		return -1;
	for (p = 1; p < BIU_NPIPES; p++) {
		uint64_t body = most[p] < t->body ? most[p] : t->body;
		if (!(t->pipes >> p & 1))
			continue;
		for (k = 0; k < body && k < DP_DFX_IDS_A5; k++) {
			char pipe[8];
			fprintf(o.f, "region_id=%u,pipe=%s,kind=instr,pc=0x%llx,opcode=%s\n", dp_dfx_id(k), biu_pipe_lower(p, pipe),
			        (unsigned long long)tl_pc(p, k), tl_opcodes[p][k % 3]);
		}
	}
	if (out_close(&o, err, es) || out_open(&o, dir, "dfx_tune.log", err, es))
		return -1;
	fprintf(o.f, "[INFO] dfx region instrumentation of %s\n", r->op_name);
	for (p = 1; p < BIU_NPIPES; p++) {
		char pipe[8];
		if ((t->pipes >> p & 1) && (most[p] < t->body ? most[p] : t->body) > DP_DFX_IDS_A5)
			fprintf(o.f, "[ERROR] TUNE-ERROR: all dfx ids consumed[pipe=%s]\n", biu_pipe_lower(p, pipe));
	}
	return out_close(&o, err, es);
}

/* ---- the A5 SIMT warp timeline and PC sampling ---- */

static void put_le(unsigned char *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The warp file's core type of a sub-core: 0 and 1 its vector core (a
 * vector kernel's blocks go two to a core), 2 the cube core. */
static unsigned simt_vec(const struct dp_run *r, const struct dp_sub *s)
{
	if (s->core == BOARD_CUBE)
		return 2;
	return (r->task_type == 2 ? s->sub_block : s->block) & 1;
}

int dp_pcs_add(struct dp_sub *s, size_t *cap, uint64_t off, const uint64_t n[9])
{
	size_t i;
	/* A kernel has few SIMT instructions: the last one found first. */
	for (i = s->npcs; i-- > 0;)
		if (s->pcs[i].off == off)
			break;
	if (i == (size_t)-1) {
		if (s->npcs == *cap) {
			size_t c = *cap ? *cap * 2 : 16;
			struct dp_pcs *v = realloc(s->pcs, c * sizeof *v);
			if (!v)
				return -1;
			s->pcs = v;
			*cap = c;
		}
		i = s->npcs++;
		memset(&s->pcs[i], 0, sizeof s->pcs[i]);
		s->pcs[i].off = off;
	}
	for (unsigned k = 0; k < 9; k++)
		s->pcs[i].n[k] += n[k];
	return 0;
}

/* One PC-sampling record: the sampled address's bits 26..3, nine counters. */
static void pcs_record(unsigned char *q, uint64_t off, const uint64_t n[9])
{
	memset(q, 0, 16);
	put_le(q, (off + (DP_SIMT_START_PC & 0x7FFFFFF) + DP_SIMT_PC_OFFSET) >> 3, 3);
	for (unsigned k = 0; k < 9; k++)
		q[3 + k] = (unsigned char)n[k];
}

int dp_simt_write(const struct dp_run *r, int pcsampling, const char *dir, char *err, size_t es)
{
	struct outf o;
	struct dp_sub tmp;
	unsigned char blk[16 + 64 * 16 + 64];
	if (mkdirs(dir, err, es) || out_open(&o, dir, "WarpTimeline.bin", err, es))
		return -1;
	/* A sub-core's warps: one per warp instruction it ran, at most 64,
	 * warp w from cycle 100 + 7w for the SIMT pipe's busy cycles + 1. */
	for (size_t i = 0; i < r->nsub; i++) {
		const struct dp_sub *s = sub_at(r, i, &tmp);
		uint64_t nw = s->instr[DP_EX], len = s->busy[DP_EX] + 1;
		memset(blk, 0, sizeof blk);
		if (s->instr[DP_EX]) {
			if (nw > 64) nw = 64;
			put_le(blk, 0x5A5A5A5Au, 4);
			put_le(blk + 4, nw, 4);
			put_le(blk + 8, s->core_id, 4);
			put_le(blk + 12, simt_vec(r, s), 4);
			for (uint64_t w = 0; w < nw; w++) {
				put_le(blk + 16 + 16 * w, 100 + 7 * w, 8);
				put_le(blk + 16 + 16 * w + 8, 100 + 7 * w + len, 8);
			}
		}
		fwrite(blk, 1, sizeof blk, o.f);
	}
	if (out_close(&o, err, es))
		return -1;
	if (!pcsampling)
		return 0;

	unsigned char *chunk = malloc(BIU_CHUNK_SIZE);
	if (!chunk) {
		snprintf(err, es, "pcSampling.bin.0: out of memory");
		return -1;
	}
	if (out_open(&o, dir, "pcSampling.bin.0", err, es)) {
		free(chunk);
		return -1;
	}
	/* A chunk per SIMT sub-core (more when its records fill one); a pc's
	 * samples past a counter's 255 go on in further records of it. */
	for (size_t i = 0; i < r->nsub; i++) {
		const struct dp_sub *s = sub_at(r, i, &tmp);
		size_t at = 0;
		if (!s->instr[DP_EX])
			continue;
		memset(chunk, 0, BIU_CHUNK_SIZE);
		put_le(chunk, s->core_id, 2);
		put_le(chunk + 2, simt_vec(r, s) == 2 ? 0 : 1 + simt_vec(r, s), 2);
		for (size_t p = 0; p <= s->npcs; p++) {
			/* last, the instrumentation stub's own sample */
			static const uint64_t stub[9] = { 0, 1, 0, 0, 0, 0, 0, 0, 1 };
			uint64_t left[9], part[9], more;
			memcpy(left, p < s->npcs ? s->pcs[p].n : stub, sizeof left);
			do {
				more = 0;
				for (unsigned k = 0; k < 9; k++) {
					part[k] = left[k] < 255 ? left[k] : 255;
					left[k] -= part[k];
					more |= left[k];
				}
				if (at == BIU_DATA_SIZE) {
					put_le(chunk + 4, at, 4);
					fwrite(chunk, 1, BIU_CHUNK_SIZE, o.f);
					memset(chunk + 8, 0, BIU_DATA_SIZE);
					at = 0;
				}
				pcs_record(chunk + 8 + at, p < s->npcs ? s->pcs[p].off : DP_SIMT_STUB_PC, part);
				at += 16;
			} while (more);
		}
		put_le(chunk + 4, at, 4);
		fwrite(chunk, 1, BIU_CHUNK_SIZE, o.f);
	}
	free(chunk);
	if (out_close(&o, err, es) || out_open(&o, dir, "pc_start_pcsampling.txt", err, es))
		return -1;
	fprintf(o.f, "0x%x\n", DP_SIMT_START_PC);
	if (out_close(&o, err, es) || out_open(&o, dir, "PcOffset.bin", err, es))
		return -1;
	unsigned char off[8];
	put_le(off, DP_SIMT_PC_OFFSET, 8);
	fwrite(off, 1, 8, o.f);
	return out_close(&o, err, es);
}

/* ---- the MC2 op's AI CPU records ---- */

int dp_mc2_env(unsigned *turns, char *err, size_t es)
{
	const char *e = getenv("CAMODEL_DEVICE_MC2");
	char *end;
	unsigned long v;
	*turns = 0;
	if (!e || !*e)
		return 0;
	v = strtoul(e, &end, 10);
	if (*end || v > DP_MC2_TURNS_MAX) {
		snprintf(err, es, "CAMODEL_DEVICE_MC2=%s: not a count of communication turns 0..%u", e, DP_MC2_TURNS_MAX);
		return -1;
	}
	*turns = (unsigned)v;
	return 0;
}

/* The HCCL tasks of a turn, in order: item id (the hash of the type's
 * name), the ACSQ task type of its stamps. */
static const struct { uint64_t item; unsigned acsq; } mc2_steps[DP_MC2_STEPS] = {
	{ 0xab44b101f36f4b07ULL, 7 },    /* Notify_Wait, NOTIFY_WAIT_SQE */
	{ 0x628f0043a268d0cfULL, 11 },   /* Memcpy, SDMA_SQE */
	{ 0x9eb5886f0b5ef22fULL, 6 },    /* Notify_Record, NOTIFY_RECORD_SQE */
};

/* Turn k's seven timestamps: the kernel's span cut into n turns, each
 * turn into its phases by the weights 1 1 2 1 4 1 (tenths). */
static void mc2_times(const struct dp_run *r, unsigned n, unsigned k, uint64_t t[7])
{
	static const unsigned w[6] = { 1, 1, 2, 1, 4, 1 };
	uint64_t len = r->end > r->start ? r->end - r->start : 1;
	uint64_t a = r->start + len * k / n, b = r->start + len * (k + 1) / n;
	unsigned i, sum = 0;
	for (i = 0; i < 7; i++) {
		t[i] = a + (b - a) * sum / 10;
		if (i < 6)
			sum += w[i];
	}
}

/* Step j of turn k runs in the turn's TaskExecute phase, a third of it. */
static void mc2_step_span(const uint64_t t[7], unsigned j, uint64_t *s, uint64_t *e)
{
	uint64_t a = t[4], len = t[5] - t[4];
	*s = a + len * j / DP_MC2_STEPS + 1;
	*e = a + len * (j + 1) / DP_MC2_STEPS;
	if (*e <= *s)
		*e = *s + 1;
}

void dp_mc2_stamps(const struct dp_run *r, unsigned n, FILE *f)
{
	uint8_t st[64];
	uint64_t len = r->end > r->start ? r->end - r->start : 1, pre = len / 10 < r->start ? len / 10 : 0;
	unsigned k, j;
	/* the AI CPU kernel that serves the turns, a little before and after */
	fwrite(st, 1, dp_stamp(r->fmt, 0, 1, DP_MC2_CPU_STREAM, r->task, r->start - pre, st), f);
	fwrite(st, 1, dp_stamp(r->fmt, 1, 1, DP_MC2_CPU_STREAM, r->task, r->end + len / 10, st), f);
	for (k = 0; k < n; k++) {
		uint64_t t[7], s, e;
		mc2_times(r, n, k, t);
		for (j = 0; j < DP_MC2_STEPS; j++) {
			unsigned task = DP_MC2_TASK0 + k * DP_MC2_STEPS + j;
			mc2_step_span(t, j, &s, &e);
			fwrite(st, 1, dp_stamp(r->fmt, 0, mc2_steps[j].acsq, DP_MC2_HCCL_STREAM, task, s, st), f);
			fwrite(st, 1, dp_stamp(r->fmt, 1, mc2_steps[j].acsq, DP_MC2_HCCL_STREAM, task, e, st), f);
		}
	}
}

static void mc2_head(uint8_t *rec, unsigned type, unsigned len)
{
	memset(rec, 0, 256);
	put16(rec, 0x5a5a);
	put16(rec + 2, 6000);
	put32(rec + 4, type);
	put32(rec + 12, len);
}

int dp_mc2_write(const struct dp_run *r, unsigned n, const char *dir, char *err, size_t es)
{
	struct outf o;
	struct dp_sub tmp;
	uint8_t rec[256], *p = rec + 24;
	uint64_t bytes = 0;
	unsigned k, j, i = 0;
	for (size_t s = 0; s < r->nsub; s++) {
		const struct dp_sub *sub = sub_at(r, s, &tmp);
		bytes += sub->bytes[DP_UB_TO_GM] + sub->bytes[DP_L0C_TO_GM];
	}
	/* each turn sends its share of what the kernel wrote */
	bytes = n ? bytes / n : 0;
	if (bytes < 4096)
		bytes = 4096;
	if (out_open(&o, dir, "aicpu.bin", err, es))
		return -1;
	for (k = 0; k < n; k++) {
		uint64_t t[7];
		mc2_times(r, n, k, t);
		mc2_head(rec, 4, 80);
		for (j = 0; j < 7; j++)
			put64(p + 8 * j, t[j]);
		put64(p + 56, bytes);
		put32(p + 64, r->device_id);
		put16(p + 68, DP_MC2_CPU_STREAM);
		put16(p + 70, r->task);
		p[72] = 1;
		p[73] = (uint8_t)n;
		p[74] = (uint8_t)k;
		fwrite(rec, 1, sizeof rec, o.f);
	}
	/* the HCCL task infos, two to a record (116 bytes each); an odd last
	 * one beside an empty one (group 0) */
	for (k = 0; k < n; k++)
		for (j = 0; j < DP_MC2_STEPS; j++, i++) {
			uint8_t *h = p + (i % 2) * 116;
			if (i % 2 == 0)
				mc2_head(rec, 13, 232);
			put64(h, mc2_steps[j].item);
			put64(h + 8, 0x6d6332ULL);             /* ccl tag */
			put64(h + 16, 0x68636c5f77726c64ULL);  /* group */
			put32(h + 24, 0);                       /* local rank */
			put32(h + 28, 1);                       /* remote rank */
			put32(h + 32, 2);                       /* rank size */
			put64(h + 40, k);                       /* notify id */
			put64(h + 80, j == 1 ? bytes : 4);      /* the copy moves the data, notifies 4 bytes */
			put32(h + 88, DP_MC2_TASK0 + k * DP_MC2_STEPS + j);
			put16(h + 96, DP_MC2_HCCL_STREAM);
			put16(h + 98, k % 2);                   /* plane: turns alternate */
			h[101] = 3;                             /* FP16 */
			h[102] = 1;                             /* HCCS */
			if (i % 2)
				fwrite(rec, 1, sizeof rec, o.f);
		}
	if (i % 2)
		fwrite(rec, 1, sizeof rec, o.f);
	return out_close(&o, err, es);
}

/* ---- the code view's instrumentation (MemoryDetail, Source) ---- */

int dp_dbi_env(struct dp_dbi *d, char *err, size_t es)
{
	const char *e = getenv("CAMODEL_DEVICE_DBI");
	memset(d, 0, sizeof *d);
	d->exec = keytab_make(sizeof(uint64_t), 0);
	while (e && *e) {
		size_t n = strcspn(e, ",");
		if (n == 12 && !strncasecmp(e, "MemoryDetail", n))
			d->memory = 1;
		else if (n == 6 && !strncasecmp(e, "Source", n))
			d->source = 1;
		else if (n) {
			snprintf(err, es, "CAMODEL_DEVICE_DBI: '%.*s' is neither MemoryDetail nor Source", (int)n, e);
			return -1;
		}
		e += n + (e[n] != 0);
	}
	return 0;
}

void dp_dbi_mem(struct dp_dbi *d, unsigned block, unsigned sub_block, uint64_t off, unsigned src, unsigned dst,
                uint64_t src_addr, uint64_t dst_addr, uint64_t src_size, uint64_t dst_size)
{
	struct dbi_mem m = { src_addr, dst_addr, src_size, dst_size, off, d->serial++, block, sub_block, src, dst };
	if (!d->memory)
		return;
	if (d->nmem == d->cap) {
		d->cap = d->cap ? 2 * d->cap : 1024;
		d->mem = xreallocarray(d->mem, d->cap, DBI_MEMREC_SIZE);
	}
	dbi_mem_encode(&m, d->mem + d->nmem++ * DBI_MEMREC_SIZE);
}

/* One record in a packet of its own, expanded into d. */
struct dbi_sink {
	struct dp_dbi *d;
	unsigned sub_block;
};

static int dbi_take(void *ctx, const struct dbi_mem *m)
{
	struct dbi_sink *k = ctx;
	dp_dbi_mem(k->d, m->block, k->sub_block, m->pc, m->src, m->dst, m->src_addr, m->dst_addr, m->src_size,
	           m->dst_size);
	return 0;
}

static void dbi_one(struct dp_dbi *d, unsigned block, unsigned sub_block, unsigned type, const uint8_t *rec,
                    size_t n)
{
	uint8_t pk[DBI_PACKET_HEAD + 64] = { 0 };
	struct dbi_sink k = { d, sub_block };
	struct dbi_loss loss = { 0 };
	const char *path;
	size_t pl;
	put64(pk, 1);
	put16(pk + 24, block);
	put32(pk + DBI_PACKET_HEAD, type);
	put32(pk + DBI_PACKET_HEAD + 4, DBI_RECORD_MAGIC);
	memcpy(pk + DBI_PACKET_HEAD + 8, rec, n);
	dbi_packet(pk, DBI_PACKET_HEAD + 8 + n, dbi_take, &k, &loss, &path, &pl);
}

void dp_dbi_dma(struct dp_dbi *d, unsigned block, unsigned sub_block, uint64_t off, unsigned src, unsigned dst,
                uint64_t src_addr, uint64_t dst_addr, unsigned nburst, unsigned lenburst)
{
	uint8_t r[DBI_DMA_MOV_SIZE - 8] = { 0 };
	if (!d->memory)
		return;
	put64(r, dst_addr);
	put64(r + 8, src_addr);
	put64(r + 16, off);
	put16(r + 32, nburst);
	put16(r + 34, lenburst);
	r[42] = (uint8_t)dst;
	r[43] = (uint8_t)src;
	dbi_one(d, block, sub_block, DBI_REC_DMA_MOV, r, sizeof r);
}

void dp_dbi_load2d(struct dp_dbi *d, unsigned block, unsigned sub_block, uint64_t off, unsigned dst,
                   uint64_t src_addr, uint64_t dst_addr, unsigned repeat)
{
	uint8_t r[DBI_LOAD_2D_SIZE - 8] = { 0 };
	if (!d->memory)
		return;
	put64(r, dst_addr);
	put64(r + 8, src_addr);
	put64(r + 16, off);
	put16(r + 36, 1);      /* srcStride, dstStride: one fractal */
	put16(r + 38, 1);
	r[40] = (uint8_t)repeat;
	r[41] = (uint8_t)dst;
	r[42] = DP_MEM_L1;
	dbi_one(d, block, sub_block, DBI_REC_LOAD_2D, r, sizeof r);
}

void dp_dbi_exec(struct dp_dbi *d, uint64_t off)
{
	if (d->source)
		++*(uint64_t *)keytab_get(&d->exec, off, NULL);
}

void dp_dbi_clear(struct dp_dbi *d)
{
	d->nmem = 0;
	d->serial = 0;
	keytab_free(&d->exec);
	d->exec = keytab_make(sizeof(uint64_t), 0);
}

static int u64_less(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int dp_dbi_write(const struct dp_dbi *d, const char *dir, uint64_t pc_start, const char *func, char *err, size_t es)
{
	struct outf o;
	if (!d->memory && !d->source)
		return 0;
	if (mkdirs(dir, err, es))
		return -1;
	if (d->memory) {
		if (out_open(&o, dir, "MemoryChart.bin", err, es))
			return -1;
		fwrite(d->mem, DBI_MEMREC_SIZE, d->nmem, o.f);
		if (out_close(&o, err, es))
			return -1;
	}
	if (d->source) {
		size_t n = 0, i;
		uint64_t *pcs = xcalloc(d->exec.n + 1, sizeof *pcs), key;
		for (i = 0; i < d->exec.cap; i++)
			if (keytab_at(&d->exec, i, &key))
				pcs[n++] = key;
		qsort(pcs, n, sizeof *pcs, u64_less);
		if (out_open(&o, dir, "kernel0Stub.o.bbbmap.0", err, es)) {
			free(pcs);
			return -1;
		}
		fprintf(o.f, "InstrumentBlockCount\nfunction: %s\nstart addr: 0x000000\n", func);
		for (i = 0; i < n; i++)
			fprintf(o.f, "BBB id:%zu Offset: 0x%06llx end: 0x%06llx\n", i, (unsigned long long)pcs[i],
			        (unsigned long long)pcs[i]);
		if (out_close(&o, err, es) || out_open(&o, dir, "kernel0.extra.0", err, es)) {
			free(pcs);
			return -1;
		}
		for (i = 0; i < n; i++) {
			uint64_t c = *(const uint64_t *)keytab_find(&d->exec, pcs[i]);
			unsigned char b[4];
			put32(b, c > UINT32_MAX ? UINT32_MAX : c);   /* the device's counters are 32 bits */
			fwrite(b, 1, 4, o.f);
		}
		free(pcs);
		if (out_close(&o, err, es))
			return -1;
	}
	if (out_open(&o, dir, "pc_start_addr.txt", err, es))
		return -1;
	fprintf(o.f, "0x%llx\n", (unsigned long long)pc_start);
	return out_close(&o, err, es);
}

/* ---- the AI Core timestamp dots ---- */

unsigned dp_aic_physical(enum board_fmt fmt, const struct dp_sub *s)
{
	unsigned c = s->core_id;
	if (fmt == BOARD_A5) {
		if (s->core == BOARD_CUBE)
			return c < 18 ? c : 54 + (c - 18) % 18;
		c = 2 * c + s->sub_block;
		return c < 36 ? 18 + c : 72 + (c - 36) % 36;
	}
	if (s->core == BOARD_CUBE)
		return c % 25;
	return 25 + (2 * c + s->sub_block) % 50;
}

static void aic_rec(FILE *f, uint64_t t, uint32_t block_id, uint32_t desc, uint64_t pc)
{
	uint8_t b[24];
	put64(b, t);
	put32(b + 8, block_id);
	put32(b + 12, desc);
	put64(b + 16, pc);
	fwrite(b, 1, sizeof b, f);
}

/* The MC2 AICore API dots of a sub-core's run [s, e]: INIT, a COMMIT and
 * a WAIT per turn, FINALIZE; each a start (even descId) and an end. */
static void aic_mc2(FILE *f, uint64_t s, uint64_t e, uint32_t id, unsigned turns)
{
	uint64_t len = e - s, slot = len / (2 * (uint64_t)turns + 3);
	unsigned k = 0, i;
	uint32_t api[2 * DP_MC2_TURNS_MAX + 2];
	api[k++] = 0x1000;
	for (i = 0; i < turns; i++) {
		api[k++] = 0x1010;
		api[k++] = 0x1020;
	}
	api[k++] = 0x1040;
	if (!slot)
		return;
	for (i = 0; i < k; i++) {
		uint64_t a = s + slot * (i + 1), b = a + slot / 2 + 1;
		aic_rec(f, a, id, api[i], 0x100 + 0x20 * api[i]);
		aic_rec(f, b, id, api[i] + 1, 0x100 + 0x20 * api[i] + 4);
	}
}

int dp_aic_write(const struct dp_run *r, unsigned turns, const char *dir, char *err, size_t es)
{
	const struct pmu_defaults *d = pmu_defaults(r->fmt);
	struct outf o;
	struct dp_sub tmp;
	size_t i, dots = 0;
	/* the runtime writes the file for a kernel that dots (or an MC2 op) */
	for (i = 0; i < r->nsub; i++)
		dots += sub_at(r, i, &tmp)->ndots;
	if (!dots && !turns)
		return 0;
	if (out_open(&o, dir, "aic_timestamp.bin", err, es))
		return -1;
	for (i = 0; i < r->nsub; i++) {
		const struct dp_sub *s = sub_at(r, i, &tmp);
		/* the logical block: a mix kernel's vector sub-cores count two a block */
		int mix = r->nsub == 3 * (size_t)r->block_dim;
		uint32_t logical = mix && s->core == BOARD_VECTOR ? 2 * s->block + s->sub_block : s->block;
		uint32_t id = dp_aic_physical(r->fmt, s) << 16 | (logical & 0xffff);
		unsigned k;
		aic_rec(o.f, s->start, id, 0, 0);
		for (k = 0; k < s->ndots && k < DP_DOTS_MAX; k++) {
			/* the sub-core's cycles count from 100, its start */
			uint64_t c = s->dot[k].cycle > 100 ? s->dot[k].cycle - 100 : 0;
			uint64_t t = s->start + c * d->ts_khz / ((uint64_t)d->aicore_mhz * 1000);
			aic_rec(o.f, t < s->end ? t : s->end, id, s->dot[k].id, s->dot[k].pc);
		}
		if (turns && s->end > s->start)
			aic_mc2(o.f, s->start, s->end, id, turns);
		aic_rec(o.f, s->end, id, 1, 0);
	}
	return out_close(&o, err, es);
}
