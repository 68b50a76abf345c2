/* Loss accounting shared by the record filters (see loss.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "loss.h"
#include "mem.h"

void loss_init(struct losses *ls, const char *tool, const struct loss_kind *kinds, int nkinds)
{
	if (nkinds < 0 || nkinds > LOSS_MAXKINDS)
		cli_die(EXIT_IO, "%s: %d loss kinds, at most %d", tool, nkinds, LOSS_MAXKINDS);
	memset(ls, 0, sizeof *ls);
	ls->tool = tool;
	ls->kinds = kinds;
	ls->nkinds = nkinds;
}

void loss_free(struct losses *ls)
{
	free_vec(ls->path, ls->npath);
	ls->path = NULL;
	ls->npath = 0;
}

void loss_add(struct losses *ls, int k, uint32_t file, uint64_t line, const char *what)
{
	if (ls->count[k] < LOSS_NEXAMPLES) {
		struct loss_example *e = &ls->example[k][ls->count[k]];
		e->file = file;
		e->line = line;
		snprintf(e->what, sizeof e->what, "%s", what ? what : "");
	}
	ls->count[k]++;
}

void loss_source(struct losses *ls, const struct rec *r)
{
	uint64_t id = r->n[F_FILE].u;
	if (id >= 1u << 20)
		return;
	if (id >= ls->npath) {
		char **p = realloc(ls->path, (id + 1) * sizeof *p);
		if (!p)
			cli_die(EXIT_IO, "out of memory");
		memset(p + ls->npath, 0, (id + 1 - ls->npath) * sizeof *p);
		ls->path = p;
		ls->npath = id + 1;
	}
	free(ls->path[id]);
	if (!(ls->path[id] = strndup(r->s[FS_PATH].p, r->s[FS_PATH].n)))
		cli_die(EXIT_IO, "out of memory");
}

const char *loss_file_name(struct losses *ls, uint32_t id)
{
	if (id < ls->npath && ls->path[id])
		return ls->path[id];
	snprintf(ls->namebuf, sizeof ls->namebuf, "(file %u)", id);
	return ls->namebuf;
}

static int located(const struct losses *ls, const struct loss_example *e)
{
	return ls->by_file ? e->file != LOSS_NOFILE : e->line != 0;
}

void loss_report(struct losses *ls)
{
	int k, i;
	for (k = 0; k < ls->nkinds; k++) {
		if (!ls->count[k] || (cli_verbosity < 1 && !ls->kinds[k].problem))
			continue;
		cli_warn("%llu %s", (unsigned long long)ls->count[k], ls->kinds[k].text);
		for (i = 0; i < LOSS_NEXAMPLES && (uint64_t)i < ls->count[k]; i++) {
			const struct loss_example *e = &ls->example[k][i];
			if (located(ls, e) && (cli_verbosity >= 2 || i < 3))
				cli_warn_at(loss_file_name(ls, e->file), e->line, "%s", e->what);
		}
	}
}

void loss_diag(struct losses *ls, struct rec_out *o)
{
	int k;
	for (k = 0; k < ls->nkinds; k++) {
		const struct loss_example *e = &ls->example[k][0];
		const char *f = "", *text = ls->kinds[k].text;
		struct rec r;
		if (!ls->count[k])
			continue;
		rec_init(&r, K_DIAG);
		r.n[D_LEVEL].u = ls->kinds[k].problem ? 1 : 2;
		r.n[D_COUNT].u = ls->count[k];
		if (located(ls, e)) {
			f = loss_file_name(ls, e->file);
			r.n[D_LINE].u = e->line;
		}
		rec_text_set(&r, DS_TOOL, ls->tool, strlen(ls->tool));
		rec_text_set(&r, DS_FILE, f, strlen(f));
		rec_text_set(&r, DS_MESSAGE, text, strlen(text));
		rec_out_put(o, &r);
	}
}

void loss_totals(const struct losses *ls, uint64_t *bad, uint64_t *dropped, uint64_t *problems)
{
	int k;
	*bad = *dropped = *problems = 0;
	for (k = 0; k < ls->nkinds; k++) {
		if (ls->kinds[k].bad)
			*bad += ls->count[k];
		else
			*dropped += ls->count[k];
		if (ls->kinds[k].problem)
			*problems += ls->count[k];
	}
}
