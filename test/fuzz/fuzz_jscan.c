/* libFuzzer target: trace-clean's JSON scanner (cmd/trace-clean/jscan.c).
 *
 * The input goes, in a block of exactly its length, to jval_parse (at a
 * depth from 0 to near J_MAXDEPTH) and, when it starts with '{', to
 * jobj_parse; then, as a whole document in a memory file, to jscan through
 * a window of 64 bytes that may grow to 4 KiB, with handlers that stream
 * the arrays of keys of even length and take the others whole.  A value
 * parsed lies inside the input and ends where *pp was moved to; a string
 * decodes (jstr_decode) into at most its raw length and equals itself
 * (jstr_eq); a number's jnum is finite or flagged; an error points inside
 * the input and has a message; every element's offset is inside the
 * document. */
#include "fuzz.h"
#include "tc.h"

struct ctx {
	size_t size;
	uint64_t values;
};

static void val_ok(const struct jval *v, const char *lo, const char *hi)
{
	CHECK(v->type >= JT_STR && v->type <= JT_NULL);
	CHECK(v->p >= lo && v->p + v->n <= hi);
	if (v->type == JT_STR) {
		char *buf = malloc(v->n ? v->n : 1);
		size_t n;
		CHECK(buf);
		n = jstr_decode(v, buf);
		CHECK(n <= v->n);
		CHECK(jstr_eq(v, buf, n));
		CHECK(v->esc || (n == v->n && !memcmp(buf, v->p, n)));
		free(buf);
	} else if (v->type == JT_NUM) {
		int ok = 1;
		double d = jnum(v->p, v->n, &ok);
		CHECK(ok ? d == d : d == 0);
	}
}

static int on_stream_key(void *c, const struct jval *key)
{
	(void)c;
	return (key->n & 1) == 0;
}

static int on_value(void *c, const struct jval *key, const struct jval *val)
{
	struct ctx *x = c;
	(void)key;
	x->values++;
	val_ok(key, key->p, key->p + key->n);
	val_ok(val, val->p, val->p + val->n);
	return 0;
}

static int on_element(void *c, const struct jval *key, const struct jobj *o, const struct jval *v, uint64_t off)
{
	struct ctx *x = c;
	(void)key;
	CHECK(off < x->size);
	val_ok(v, v->p, v->p + v->n);
	if (o) {
		CHECK(v->type == JT_OBJ);
		for (size_t i = 0; i < o->n; i++) {
			CHECK(o->m[i].key.type == JT_STR);
			CHECK(o->m[i].key.p >= v->p && o->m[i].val.p + o->m[i].val.n <= v->p + v->n);
			val_ok(&o->m[i].key, v->p, v->p + v->n);
			val_ok(&o->m[i].val, v->p, v->p + v->n);
		}
	}
	return ++x->values > 100000;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *p = fuzz_copy(data, size);
	const char *end = p + size, *q;
	struct jval v;
	struct jerr e;
	int k, depths[3] = { 0, J_MAXDEPTH - 8, J_MAXDEPTH };

	for (int d = 0; d < 3; d++) {
		q = p;
		memset(&e, 0, sizeof e);
		k = jval_parse(&q, end, &v, depths[d], &e);
		CHECK(k == J_OK || k == J_MORE || k == J_ERR);
		if (k == J_OK) {
			CHECK(q > p && q <= end);
			val_ok(&v, p, q);
		} else if (k == J_ERR) {
			CHECK(e.msg && *e.msg && e.at >= p && e.at <= end);
		}
	}
	if (size && *p == '{') {
		struct jobj o = { 0 };
		q = p;
		k = jobj_parse(&q, end, &o, &e);
		if (k == J_OK) {
			CHECK(q <= end);
			for (size_t i = 0; i < o.n; i++) {
				val_ok(&o.m[i].key, p, q);
				val_ok(&o.m[i].val, p, q);
			}
		} else if (k == J_ERR) {
			CHECK(e.msg && *e.msg && e.at >= p && e.at <= end);
		}
		jobj_free(&o);
	}
	free(p);

	{
		int fd = fuzz_memfd(data, size);
		struct src s = { 0 };
		struct jbuf jb;
		struct jfail f;
		struct ctx x = { size, 0 };
		static const struct jhandler h = { on_stream_key, on_value, on_element };

		s.rd = rd_fdopen(fd, "fuzz");
		s.name = "fuzz";
		CHECK(s.rd);
		jbuf_init(&jb, &s, 64, 4096);
		memset(&f, 0, sizeof f);
		k = jscan(&jb, &h, &x, &f);
		CHECK(k >= JS_OK && k <= JS_BIG);
		if (k != JS_OK && k != JS_STOP)
			CHECK(f.msg[0] && memchr(f.msg, 0, sizeof f.msg) && f.off <= size);
		jbuf_free(&jb);
		rd_close(s.rd);
		close(fd);
	}
	return 0;
}
