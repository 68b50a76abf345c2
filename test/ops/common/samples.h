/* The sample operators' inputs, arguments and expected results, shared by
 * the host programs of every launch path (op_rt, op_acl). */
#ifndef OPS_SAMPLES_H
#define OPS_SAMPLES_H

#include <math.h>
#include "host.h"

#define MAXBUF 8

struct buf { const char *name; size_t size; void *host; int out; };
struct spec {
	const char *name, *kernel, *entry;
	uint32_t magic;      /* RT_DEV_BINARY_MAGIC_* value */
	uint32_t blocks;
	struct buf b[MAXBUF];   /* kernel arguments, in order */
	int nb;
	int (*verify)(const struct spec *s);   /* number of wrong results */
	unsigned long loops, p1, p2;
};

#define MAGIC_ELF   0x43554245u
#define MAGIC_AIVEC 0x41415246u
#define MAGIC_CUBE  0x41494343u

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);
	if (!p) { fprintf(stderr, "%s: out of memory\n", prog_name); exit(1); }
	return p;
}

static void add_buf(struct spec *s, const char *name, size_t size, int out)
{
	s->b[s->nb++] = (struct buf){ name, size, zalloc(size), out };
}

static int verify_add(const struct spec *s)
{
	const float *x = s->b[0].host, *y = s->b[1].host, *z = s->b[2].host;
	int bad = 0;
	for (size_t i = 0; i < s->b[0].size / 4; i++)
		if (z[i] != x[i] + y[i]) bad++;
	return bad;
}

/* C tile (mi, ni) of tiled A x B, summed in the cube's order. */
static void tile_mm(const float *A, const float *B, float *C, unsigned kt, unsigned nt, unsigned mi, unsigned ni)
{
	for (unsigned k = 0; k < kt; k++) {
		const float *a = A + ((size_t)mi * kt + k) * 4096, *b = B + ((size_t)k * nt + ni) * 4096;
		for (unsigned i = 0; i < 64; i++)
			for (unsigned j = 0; j < 64; j++) {
				float sum = k ? C[i * 64 + j] : 0.0f;
				for (unsigned l = 0; l < 64; l++) sum += a[i * 64 + l] * b[l * 64 + j];
				C[i * 64 + j] = sum;
			}
	}
}

static int close_enough(float a, float b) { return fabsf(a - b) <= 1e-4f * (fabsf(b) + 1.0f); }

static int verify_matmul(const struct spec *s)
{
	unsigned mt = (unsigned)s->p1, nt = (unsigned)s->p1, kt = (unsigned)s->p2;
	const float *A = s->b[0].host, *B = s->b[1].host, *C = s->b[2].host;
	float t[4096];
	int bad = 0;
	for (unsigned mi = 0; mi < mt; mi++)
		for (unsigned ni = 0; ni < nt; ni++) {
			tile_mm(A, B, t, kt, nt, mi, ni);
			const float *c = C + ((size_t)mi * nt + ni) * 4096;
			for (int i = 0; i < 4096; i++)
				if (!close_enough(c[i], t[i])) bad++;
		}
	return bad;
}

static int verify_mixed(const struct spec *s)
{
	const float *A = s->b[0].host, *B = s->b[1].host, *bias = s->b[2].host, *Y = s->b[4].host;
	float t[4096];
	int bad = 0;
	for (unsigned blk = 0; blk < s->blocks; blk++) {
		tile_mm(A + (size_t)blk * 4096, B + (size_t)blk * 4096, t, 1, 1, 0, 0);
		for (int i = 0; i < 4096; i++) {
			float v = t[i] + bias[i % 64];
			if (v < 0) v = 0;
			if (!close_enough(Y[(size_t)blk * 4096 + i], v)) bad++;
		}
	}
	return bad;
}

static int verify_copy(const struct spec *s)
{
	return memcmp(s->b[0].host, s->b[1].host, s->b[0].size) ? 1 : 0;
}

static int verify_count(const struct spec *s)
{
	const float *x = s->b[0].host, *y = s->b[2].host;
	int bad = 0;
	for (size_t i = 0; i < s->b[0].size / 4; i++)
		if (y[i] != (s->p1 ? x[i] * 2 : 0.0f)) bad++;
	return bad;
}

/* Inputs for sample NAME; blocks 0 = the sample's default.  zero: zero-filled
 * count tensor (count sample). */
static int sample_setup(const char *name, unsigned long loops, unsigned long blocks, int zero, struct spec *s)
{
	memset(s, 0, sizeof *s);
	s->name = name;
	s->loops = loops;
	if (!strcmp(name, "add") || !strcmp(name, "add_trace")) {
		size_t elems = 8192;
		s->kernel = !strcmp(name, "add") ? "add_custom.o" : "add_custom_trace.o";
		s->entry = "add_custom";
		s->magic = MAGIC_AIVEC;
		s->blocks = blocks ? (uint32_t)blocks : 2;
		add_buf(s, "x", s->blocks * elems * 4, 0);
		add_buf(s, "y", s->blocks * elems * 4, 0);
		add_buf(s, "z", s->blocks * elems * 4, 1);
		add_buf(s, "tiling", 8, 0);
		fill(s->b[0].host, s->blocks * elems, 1);
		fill(s->b[1].host, s->blocks * elems, 2);
		uint32_t t[2] = { (uint32_t)elems, (uint32_t)loops };
		memcpy(s->b[3].host, t, 8);
		s->verify = verify_add;
	} else if (!strcmp(name, "matmul")) {
		unsigned mt = 2, kt = 2;
		if (blocks == 1) mt = 1;
		s->kernel = "matmul_custom.o";
		s->entry = "matmul_custom";
		s->magic = MAGIC_CUBE;
		s->blocks = mt * mt;
		s->p1 = mt;
		s->p2 = kt;
		add_buf(s, "a", (size_t)mt * kt * 16384, 0);
		add_buf(s, "b", (size_t)kt * mt * 16384, 0);
		add_buf(s, "c", (size_t)mt * mt * 16384, 1);
		add_buf(s, "tiling", 16, 0);
		fill(s->b[0].host, s->b[0].size / 4, 3);
		fill(s->b[1].host, s->b[1].size / 4, 4);
		uint32_t t[4] = { mt, mt, kt, (uint32_t)loops };
		memcpy(s->b[3].host, t, 16);
		s->verify = verify_matmul;
	} else if (!strcmp(name, "mixed")) {
		s->kernel = "mixed_custom.o";
		s->entry = "mixed_custom";
		s->magic = MAGIC_ELF;
		s->blocks = blocks ? (uint32_t)blocks : 2;
		add_buf(s, "a", s->blocks * 16384, 0);
		add_buf(s, "b", s->blocks * 16384, 0);
		add_buf(s, "bias", 256, 0);
		add_buf(s, "workspace", s->blocks * 16384, 0);
		add_buf(s, "y", s->blocks * 16384, 1);
		add_buf(s, "tiling", 8, 0);
		fill(s->b[0].host, s->b[0].size / 4, 5);
		fill(s->b[1].host, s->b[1].size / 4, 6);
		float *bias = s->b[2].host;
		for (int i = 0; i < 64; i++) bias[i] = (float)(i % 8) * -4000.0f;   /* some outputs go negative */
		uint32_t t[2] = { (uint32_t)loops, 0 };
		memcpy(s->b[5].host, t, 8);
		s->verify = verify_mixed;
	} else if (!strcmp(name, "simt")) {
		s->kernel = "simt_custom.o";
		s->entry = "simt_custom";
		s->magic = MAGIC_AIVEC;
		s->blocks = blocks ? (uint32_t)blocks : 2;
		add_buf(s, "x", s->blocks * 4096, 0);
		add_buf(s, "y", s->blocks * 4096, 1);
		add_buf(s, "tiling", 8, 0);
		fill(s->b[0].host, s->b[0].size / 4, 7);
		uint32_t t[2] = { 8, (uint32_t)loops };
		memcpy(s->b[2].host, t, 8);
		s->verify = verify_copy;
	} else if (!strcmp(name, "count") || !strcmp(name, "drain")) {
		int drain = !strcmp(name, "drain");
		s->kernel = drain ? "count_drain.o" : "count_custom.o";
		s->entry = drain ? "count_drain" : "count_custom";
		s->magic = MAGIC_AIVEC;
		s->blocks = blocks ? (uint32_t)blocks : 2;
		s->p1 = zero ? 0 : loops;
		size_t per = (size_t)(s->p1 ? s->p1 : 1) * 8192;
		add_buf(s, "x", s->blocks * per, 0);
		add_buf(s, "counts", s->blocks * 4, 0);
		add_buf(s, "y", s->blocks * per, 1);
		fill(s->b[0].host, s->b[0].size / 4, 8);
		for (uint32_t b = 0; b < s->blocks; b++) ((uint32_t *)s->b[1].host)[b] = (uint32_t)s->p1;
		s->verify = verify_count;
	} else {
		return -1;
	}
	return 0;
}

#define SAMPLE_NAMES "add, add_trace, matmul, mixed, simt (A5 only), count, drain"

#endif
