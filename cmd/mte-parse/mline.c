/* mte-parse's tokenizer (mline.h). */
#include "mline.h"

#include <string.h>

#include "scan.h"

/* A value: from 2 chars after the ':' to the next ',' (or the end, less a
 * trailing '.'); its leading decimal digits. */
static int value_of(const char *v, const char *end, uint64_t *x)
{
	const char *ve;
	if (v >= end)
		return 0;
	ve = memchr(v, ',', (size_t)(end - v));
	if (!ve) {
		ve = end;
		if (ve > v && ve[-1] == '.')
			ve--;
	}
	return ve > v && scan_dec(v, ve, x) > 0;
}

int mline_parse(const char *s, size_t n, struct mline *m, const char **why)
{
	const char *end = s + n, *p, *colon, *name, *sp, *c;
	size_t nl;

	if (n < 8 || memcmp(s, "[info]", 6)) {
		*why = "no [info] at column 0";
		return ML_BAD;
	}
	p = s + 7;
	colon = memchr(p, ':', (size_t)(end - p));
	if (!colon) {
		*why = "no tick";
		return ML_BAD;
	}
	if (*p == '-') {
		*why = "negative tick";
		return ML_BAD;
	}
	if (*p == '+')
		p++;
	if (p == colon || scan_dec(p, colon, &m->tick) != (size_t)(colon - p)) {
		*why = "tick not a number";
		return ML_BAD;
	}
	name = colon + 2;
	if (name >= end)
		return ML_IGNORED;
	sp = memchr(name, ' ', (size_t)(end - name));
	if (!sp)
		sp = end;
	nl = (size_t)(sp - name);
	if (nl >= 2 && name[nl - 2] == 'I' && name[nl - 1] == 'F') {
		if (nl < 3)
			return ML_IGNORED;
		m->rw = name[nl - 3];
		m->unit = name;
		m->unit_n = nl - 3;
	} else {
		const char *f = memmem(name, nl, "IF.", 3), *u;
		if (!f || f == name)
			return ML_IGNORED;
		m->rw = f[-1];
		for (u = f - 1; u > name && u[-1] != '.'; u--)
			;
		m->unit = u;
		m->unit_n = (size_t)(f - 1 - u);
	}
	m->has_instr = m->has_req = m->has_gid = 0;
	m->size = 0;
	/* key: value pairs; the key is the word before each ':'. */
	for (c = sp; c < end && (c = memchr(c, ':', (size_t)(end - c))); c++) {
		const char *k = c;
		size_t kn;
		uint64_t x;
		while (k > sp && k[-1] != ' ')
			k--;
		kn = (size_t)(c - k);
		if (kn == 4 && !memcmp(k, "size", 4)) {
			m->size = value_of(c + 2, end, &x) ? x : 0;
		} else if (kn == 8 && !memcmp(k, "instr_id", 8)) {
			m->has_instr = value_of(c + 2, end, &m->instr_id);
		} else if (kn == 6 && !memcmp(k, "req_id", 6)) {
			m->has_req = value_of(c + 2, end, &m->req_id);
		} else if (kn == 3 && !memcmp(k, "gid", 3)) {
			m->has_gid = value_of(c + 2, end, &m->gid);
		}
	}
	return ML_OK;
}
