/* Pass 2 of instr-parse: the pairing of popped and executed lines.  The
 * spools are read merged by tick; each pc (on A5 each id) queues what is
 * in flight, and the n-th pop pairs with the n-th execution, after the
 * reference's prune rules where the counts differ (see instr-parse(1),
 * Pairing). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mem.h"
#include "state.h"


static void push(struct node **h, struct node **t, struct node *n)
{
	n->next = NULL;
	if (*t)
		(*t)->next = n;
	else
		*h = n;
	*t = n;
}

static struct node *pop_front(struct node **h, struct node **t)
{
	struct node *n = *h;
	*h = n->next;
	if (!*h)
		*t = NULL;
	return n;
}

/* The first pairing run only learns which pcs pair at least once and the
 * state the writers' latest pairs leave.  Pass 1 knows both when (pc mode)
 * every pc's first pair, as the prune rules form it, has its pop no later
 * than its exec, and every writer pc pairs all its pops in order, the last
 * one validly, always setting the same variables.  Then fill in what the
 * run would have found and skip it. */
int can_skip_first_run(struct pairing *pg)
{
	size_t i;
	if (pg->ip->by_id)
		return 0;
	for (i = 0; i < pg->keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = keytab_at(pg->keys, i, &key);
		uint64_t p1, e1;
		if (!k || !k->n)
			continue;
		p1 = k->prune_pop ? k->pop_run_end : k->first_pop;
		e1 = k->prune_exec ? k->exec_run_end : k->first_exec;
		if (p1 > e1)
			return 0;
		/* A writer's latest pop pairs with its last exec line when
		 * all pops pair: equal counts, or execs pruned to exactly the
		 * number of pops (the kept exec of the last run is the last). */
		if (k->writes &&
		    (k->writes_mixed || !k->pops_ordered || k->last_pop > k->last_exec ||
		     !(k->npop == k->nexec ||
		       (k->prune_exec && !k->prune_pop && k->exec_kept == k->npop))))
			return 0;
	}
	for (i = 0; i < pg->keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = keytab_at(pg->keys, i, &key);
		struct pcinfo *pi;
		int v;
		if (!k || !k->n)
			continue;
		pi = keytab_get(&pg->pcs, key, NULL);
		for (v = 0; v < CALC_VEC_NVARS; v++)
			if ((k->writes >> v) & 1) {
				pi->vec_val[v] = k->writes_val[v];
				pi->vec_written |= 1u << v;
			}
	}
	return 1;
}

/* Pair what is ready at the head of a key's queues. */
static void drain_key(struct pairing *pg, struct keyinfo *k, uint64_t key)
{
	while (k->pop_h && k->exec_h) {
		struct node *p = pop_front(&k->pop_h, &k->pop_t);
		struct node *e = pop_front(&k->exec_h, &k->exec_t);
		if (pg->ip->by_id || k->paired < k->n) {
			emit_pair(pg, k, key, p, e);
			k->paired++;
		} else {
			/* Beyond min(len): the reference drops the tail. */
			if (pg->final) {
				loss_add(&pg->ip->losses, LOSS_POP_UNMATCHED, p->file, p->line, "beyond the shorter log");
				loss_add(&pg->ip->losses, LOSS_EXEC_UNMATCHED, e->file, e->line, "beyond the shorter log");
			}
		}
		node_free(pg->ip, p);
		node_free(pg->ip, e);
	}
}

static void decide(struct keyinfo *k)
{
	uint64_t e = k->nexec, p = k->npop;
	k->prune_exec = k->prune_pop = 0;
	if (k->nexec != k->npop) {
		if (k->nexec > k->npop) {
			k->prune_exec = 1;
			e = k->exec_kept;
		}
		if (e < k->npop) {
			k->prune_pop = 1;
			p = k->pop_kept;
		}
	}
	k->n = e < p ? e : p;
}

/* Inlined at its two calls, each with is_pop constant: the hottest loop of
 * pass 2. */
static inline void feed(struct pairing *pg, struct node *n, int is_pop)
{
	uint64_t key = pg->ip->by_id ? n->id : n->pc;
	int fresh = 0;
	struct keyinfo *k = n->k ? n->k : keytab_get(pg->keys, key, &fresh);
	struct node **pend;
	int merge;

	if (pg->ip->by_id && fresh)
		k->n = UINT64_MAX;
	pend = is_pop ? &k->pend_pop : &k->pend_exec;
	if (is_pop ? k->prune_pop : k->prune_exec) {
		/* Hold one entry back: the next one may replace it. */
		if (*pend) {
			merge = is_pop ? n->tick - (*pend)->tick == 1 : n->tick - (*pend)->tick <= 8;
			if (merge) {
				if (pg->final)
					loss_add(&pg->ip->losses, LOSS_PRUNED, (*pend)->file, (*pend)->line, is_pop ? "pop" : "exec");
				node_free(pg->ip, *pend);
			} else if (is_pop) {
				push(&k->pop_h, &k->pop_t, *pend);
			} else {
				push(&k->exec_h, &k->exec_t, *pend);
			}
		}
		*pend = n;
	} else if (is_pop) {
		push(&k->pop_h, &k->pop_t, n);
	} else {
		push(&k->exec_h, &k->exec_t, n);
	}
	drain_key(pg, k, key);
	if (pg->ip->by_id && !k->pop_h && !k->exec_h && !k->pend_pop && !k->pend_exec)
		keytab_del(pg->keys, key);
}

static void leftovers(struct pairing *pg, struct node **h, struct node **t, enum loss kind)
{
	while (*h) {
		struct node *n = pop_front(h, t);
		if (pg->final)
			loss_add(&pg->ip->losses, kind, n->file, n->line, "no partner");
		node_free(pg->ip, n);
	}
}

static void flush_key(struct pairing *pg, struct keyinfo *k, uint64_t key)
{
	if (k->pend_pop) {
		push(&k->pop_h, &k->pop_t, k->pend_pop);
		k->pend_pop = NULL;
	}
	if (k->pend_exec) {
		push(&k->exec_h, &k->exec_t, k->pend_exec);
		k->pend_exec = NULL;
	}
	drain_key(pg, k, key);
	leftovers(pg, &k->pop_h, &k->pop_t, LOSS_POP_UNMATCHED);
	leftovers(pg, &k->exec_h, &k->exec_t, LOSS_EXEC_UNMATCHED);
}

/* At the end of a run the entries held back by the prune walks pair last:
 * flush them in the order of their exec ticks, not in hash order, so the
 * records still come out close to completion order. */
struct held {
	uint64_t tick, key;
};

static int cmp_held(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	if (x->tick != y->tick)
		return x->tick < y->tick ? -1 : 1;
	return x->key < y->key ? -1 : x->key > y->key;
}

static void flush_in_order(struct pairing *pg)
{
	struct held *h = NULL;
	size_t i, n = 0, cap = 0;

	for (i = 0; i < pg->keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = keytab_at(pg->keys, i, &key);
		if (!k || (!k->pend_pop && !k->pend_exec && !k->pop_h && !k->exec_h))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 64;
			h = xreallocarray(h, cap, sizeof *h);
		}
		h[n].key = key;
		h[n].tick = k->exec_h ? k->exec_h->tick : k->pend_exec ? k->pend_exec->tick : UINT64_MAX;
		n++;
	}
	if (n)
		qsort(h, n, sizeof *h, cmp_held);
	for (i = 0; i < n; i++)
		flush_key(pg, keytab_find(pg->keys, h[i].key), h[i].key);
	free(h);
	for (i = 0; i < pg->keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = keytab_at(pg->keys, i, &key);
		if (k)
			k->paired = 0;      /* ready for the next run */
	}
}

void decide_all(struct keytab *keys)
{
	size_t i;
	for (i = 0; i < keys->cap; i++) {
		uint64_t key;
		struct keyinfo *k = keytab_at(keys, i, &key);
		if (k)
			decide(k);
	}
}

void pair_run(struct pairing *pg)
{
	struct unit *u = pg->u;
	struct node *np, *ne;
	unsigned fed = 0;

	rewind_unit(u);
	/* Merge the two logs by tick so each key's queue only holds what is
	 * in flight between issue and completion. */
	np = node_read(u, pg->final);
	ne = exec_read(u);
	while (np || ne) {
		if (np && (!ne || np->tick <= ne->tick)) {
			feed(pg, np, 1);
			np = node_read(u, pg->final);
		} else {
			feed(pg, ne, 0);
			ne = exec_read(u);
		}
		/* A failed output ends the run (looked at now and then:
		 * nothing is written after the error anyway). */
		if (pg->final && !(++fed & 255) && wr_error(pg->out->w))
			break;
	}
	flush_in_order(pg);
	if (np)
		node_free(pg->ip, np);
	if (ne)
		node_free(pg->ip, ne);
}
