/* pc -> source lines from src-map's code records (see codetab.h). */
#include "codetab.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io.h"
#include "json.h"
#include "mem.h"
#include "rec.h"

int codetab_read(struct codetab *t, const char *path, char *msg, size_t size)
{
	struct rd *r = rd_open(path);
	struct rec_dec dec = { 0 };
	struct rec rec;
	const char *line, *why;
	size_t n;
	int rc = 0;
	memset(t, 0, sizeof *t);
	t->ix = keytab_make(sizeof(uint32_t), 0);
	if (!r) {
		snprintf(msg, size, "cannot open: %s", strerror(errno));
		return -1;
	}
	while ((line = rd_line(r, &n))) {
		const struct rec_text *st;
		uint32_t *slot;
		int fresh;
		if (rec_decode(&dec, line, n, &rec, &why) != DEC_OK || rec.sc->kind != K_CODE)
			continue;
		st = &rec.s[CS_STACK];
		if (!st->n || (st->n >= 2 && !memcmp(st->p, "??", 2)))
			continue;
		slot = keytab_get(&t->ix, rec.n[C_PC].u, &fresh);
		if (fresh) {
			t->json = xreallocarray(t->json, t->n + 1, sizeof *t->json);
			t->json_n = xreallocarray(t->json_n, t->n + 1, sizeof *t->json_n);
			*slot = (uint32_t)++t->n;
		} else {
			free(t->json[*slot - 1]);
		}
		t->json[*slot - 1] = xmalloc(JW_STR_MAX(st->n));
		t->json_n[*slot - 1] = (size_t)(jw_str(t->json[*slot - 1], st->p, st->n) - t->json[*slot - 1]);
		if (t->json_n[*slot - 1] > t->max)
			t->max = t->json_n[*slot - 1];
	}
	if (rd_error(r)) {
		snprintf(msg, size, "read error: %s", rd_strerror(r));
		rc = -1;
	}
	rec_dec_free(&dec);
	rd_close(r);
	return rc;
}

const char *codetab_json(const struct codetab *t, uint64_t pc, size_t *n)
{
	const uint32_t *k = t->ix.vsize && t->n ? keytab_find(&t->ix, pc) : NULL;
	if (!k)
		return NULL;
	*n = t->json_n[*k - 1];
	return t->json[*k - 1];
}

void codetab_free(struct codetab *t)
{
	size_t i;
	for (i = 0; i < t->n; i++)
		free(t->json[i]);
	free(t->json);
	free(t->json_n);
	if (t->ix.vsize)
		keytab_free(&t->ix);
	memset(t, 0, sizeof *t);
}
