/* The spool entries of instr-parse: pass 1 writes each pop and execution
 * of a unit to its spools, pass 2 reads them back as nodes. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "mem.h"
#include "state.h"

static inline char *put_uv(char *o, uint64_t v)
{
	while (v >= 0x80) {
		*o++ = (char)(v | 0x80);
		v >>= 7;
	}
	*o++ = (char)v;
	return o;
}

static inline uint64_t zz(uint64_t d)
{
	return (d << 1) ^ (uint64_t)((int64_t)d >> 63);
}

static inline uint64_t unzz(uint64_t v)
{
	return (v >> 1) ^ (0 - (v & 1));
}

static void spool_damaged(void)
{
	cli_die(EXIT_IO, "temporary file damaged or unreadable");
}

static inline uint64_t get_uv(const unsigned char **pp, const unsigned char *end)
{
	const unsigned char *p = *pp;
	uint64_t v = 0;
	unsigned sh = 0;
	if (p < end && !(*p & 0x80)) {   /* most are one byte */
		*pp = p + 1;
		return *p;
	}
	for (;;) {
		if (p >= end || sh > 63)
			spool_damaged();
		v |= (uint64_t)(*p & 0x7f) << sh;
		if (!(*p++ & 0x80))
			break;
		sh += 7;
	}
	*pp = p;
	return v;
}

static void grow_ent(struct ip *ip, size_t n)
{
	if (ip->ent_cap < n) {
		ip->ent_cap = 2 * n;
		ip->ent_buf = xrealloc(ip->ent_buf, ip->ent_cap);
	}
}

/* Spool one pop.  Unless same, its text fields are written as differences
 * from c (the pc's previous spooled pop). */
void spool_pop(struct unit *u, const struct popcache *c, int same, const struct iline *l,
               uint64_t lineno, uint32_t file, const char *sd, size_t sdn,
               const char *npipe, int warp, int sch, unsigned wmask)
{
	struct ip *ip = u->ip;
	size_t nn = l->name_n > SPOOL_TEXT_MAX ? SPOOL_TEXT_MAX : l->name_n;
	size_t dn = sdn > SPOOL_TEXT_MAX ? SPOOL_TEXT_MAX : sdn;
	size_t len, pre = 0, suf = 0, bn = 0, pn = 0;
	const char *base = NULL;
	char *o, *start;

	grow_ent(ip, 160 + nn + dn);
	start = o = ip->ent_buf + 4;
	*o++ = (char)(same ? POP_SAME : 0);
	o = put_uv(o, zz(l->tick - u->wpop.tick));
	o = put_uv(o, zz(l->pc - u->wpop.key));
	o = put_uv(o, zz(lineno - u->wpop.line));
	o = put_uv(o, file);
	if (ip->by_id)
		o = put_uv(o, zz(l->id - u->wpop.id));
	u->wpop.tick = l->tick;
	u->wpop.key = l->pc;
	u->wpop.line = lineno;
	u->wpop.id = l->id;
	if (!same) {
		/* The pipe, name and SIMT ids mostly stay those of the pc's
		 * previous pop when its operands change. */
		int head = c->valid && c->npipe == npipe && c->warp == warp && c->sch == sch &&
		           !c->wmask == !wmask && c->rel.name_n == l->name_n &&
		           !memcmp(c->buf + c->rel.name, l->name, l->name_n);
		if (head)
			start[0] |= POP_HEAD;
		if (c->valid) {
			base = c->buf + c->rest_n;
			bn = c->sdetail_n;
			size_t m = bn < dn ? bn : dn;
			uint64_t x, y;
			/* Eight bytes a round; in the first word that differs,
			 * the equal bytes are its low (prefix) or high (suffix)
			 * zero bytes of x ^ y (words are loaded little-endian). */
			while (pre + 8 <= m && (memcpy(&x, base + pre, 8), memcpy(&y, sd + pre, 8), x == y))
				pre += 8;
			if (pre + 8 <= m)
				pre += (size_t)__builtin_ctzll(x ^ y) >> 3;
			else
				while (pre < m && base[pre] == sd[pre])
					pre++;
			while (suf + 8 <= m - pre &&
			       (memcpy(&x, base + bn - suf - 8, 8), memcpy(&y, sd + dn - suf - 8, 8), x == y))
				suf += 8;
			if (suf + 8 <= m - pre)
				suf += (size_t)__builtin_clzll(x ^ y) >> 3;
			else
				while (suf < m - pre && base[bn - 1 - suf] == sd[dn - 1 - suf])
					suf++;
		}
		if (!head) {
			o = put_uv(o, zz((uint64_t)(int64_t)(int16_t)warp));
			o = put_uv(o, zz((uint64_t)(int64_t)(int16_t)sch));
			*o++ = (char)(wmask != 0);
			pn = strlen(npipe);
			if (pn > 9)
				pn = 9;
			*o++ = (char)pn;
			memcpy(o, npipe, pn);
			o += pn;
			o = put_uv(o, nn);
			memcpy(o, l->name, nn);
			o += nn;
		}
		o = put_uv(o, pre);
		o = put_uv(o, suf);
		o = put_uv(o, dn - pre - suf);
		memcpy(o, sd + pre, dn - pre - suf);
		o += dn - pre - suf;
	}
	len = (size_t)(o - start);
	if (len < 0x8000) {
		start -= 2;
		start[0] = (char)len;
		start[1] = (char)(len >> 8);
	} else {
		start -= 4;
		start[0] = (char)len;
		start[1] = (char)((len >> 8) | 0x80);
		start[2] = (char)(len >> 15);
		start[3] = (char)(len >> 23);
	}
	spool_put(u->pops, start, (size_t)(o - start));
}

void spool_exec(struct unit *u, uint64_t tick, uint64_t key, uint64_t lineno, uint32_t file,
                int threads)
{
	char b[64], *o = b + 1;
	o = put_uv(o, zz(tick - u->wexec.tick));
	o = put_uv(o, zz(key - u->wexec.key));
	o = put_uv(o, zz(lineno - u->wexec.line));
	o = put_uv(o, file);
	o = put_uv(o, zz((uint64_t)(int64_t)threads));
	u->wexec.tick = tick;
	u->wexec.key = key;
	u->wexec.line = lineno;
	b[0] = (char)(o - b - 1);
	spool_put(u->execs, b, (size_t)(o - b));
}

static struct node *node_alloc(struct ip *ip)
{
	struct node *n = ip->free_nodes;
	if (n)
		ip->free_nodes = n->next;
	else
		n = xcalloc(1, sizeof *n);
	return n;
}

void free_nodes(struct ip *ip)
{
	while (ip->free_nodes) {
		struct node *n = ip->free_nodes;
		ip->free_nodes = n->next;
		free(n->text);
		free(n);
	}
}

struct node *node_read(struct unit *u, int all_text)
{
	struct ip *ip = u->ip;
	unsigned char hb[2], hb2[2];
	const unsigned char *p, *end, *h, *h2;
	const void *hp;
	size_t len, got = spool_read(u->pops, 2, hb, &hp);
	struct node *n;
	struct rdtext *t;
	uint64_t pc;
	int flags;

	if (got == 0)
		return NULL;
	if (got != 2)
		spool_damaged();
	h = hp;
	len = h[0] | (size_t)(h[1] & 0x7f) << 8;
	if (h[1] & 0x80) {
		if (spool_read(u->pops, 2, hb2, &hp) != 2)
			spool_damaged();
		h2 = hp;
		len |= (size_t)h2[0] << 15 | (size_t)h2[1] << 23;
	}
	if (ip->rd_cap < len) {
		ip->rd_cap = 2 * len;
		ip->rd_buf = xrealloc(ip->rd_buf, ip->rd_cap);
	}
	if (!len || !(p = spool_next(u->pops, len, ip->rd_buf)))
		spool_damaged();
	end = p + len;
	flags = *p++;
	n = node_alloc(ip);
	n->next = NULL;
	n->k = NULL;
	n->tick = u->rpop.tick += unzz(get_uv(&p, end));
	pc = u->rpop.key += unzz(get_uv(&p, end));
	n->pc = pc;
	n->line = u->rpop.line += unzz(get_uv(&p, end));
	n->file = (uint32_t)get_uv(&p, end);
	n->id = ip->by_id ? (u->rpop.id += unzz(get_uv(&p, end))) : 0;
	if (!ip->by_id) {
		/* Every spooled line's pc has its keyinfo, and pass 2 adds
		 * none: the pointer stays valid. */
		if (!(n->k = keytab_find(&u->keys, pc)))
			spool_damaged();
		t = &n->k->rd;
	} else {
		t = keytab_get(&u->rdpc, pc, NULL);
	}
	if (!(flags & POP_SAME)) {
		uint64_t pn, nn, pre, suf, mid;
		size_t need;
		const char *name;
		if (flags & POP_HEAD) {
			/* Pipe, ids and name as in the pc's previous pop. */
			if (!t->valid)
				spool_damaged();
			nn = t->name_n;
			name = t->text;
		} else {
			t->warp = (int16_t)unzz(get_uv(&p, end));
			t->sch = (int16_t)unzz(get_uv(&p, end));
			if (end - p < 2)
				spool_damaged();
			t->writes_vec = *p++;
			pn = *p++;
			if (pn > 9 || (uint64_t)(end - p) < pn)
				spool_damaged();
			memset(t->pipe, 0, sizeof t->pipe);
			memcpy(t->pipe, p, pn);
			t->pipe_n = (uint8_t)pn;
			p += pn;
			nn = get_uv(&p, end);
			if ((uint64_t)(end - p) < nn)
				spool_damaged();
			name = (const char *)p;
			p += nn;
		}
		{
			pre = get_uv(&p, end);
			suf = get_uv(&p, end);
			mid = get_uv(&p, end);
			if ((uint64_t)(end - p) != mid || pre + suf > t->detail_n || pre > t->detail_n)
				spool_damaged();
			need = nn + pre + mid + suf + 1;
			if (pre + suf == 0) {
				/* Nothing kept from the previous text (but its name
				 * when the head is the same). */
				if (t->cap < need) {
					t->cap = need < 128 ? 128 : 2 * need;
					if (flags & POP_HEAD) {
						t->text = xrealloc(t->text, t->cap);
						name = t->text;
					} else {
						free(t->text);
						t->text = xmalloc(t->cap);
					}
				}
				if (name != t->text)
					memcpy(t->text, name, nn);
				memcpy(t->text + nn, p, mid);
			} else {
				/* Old detail's prefix and suffix around the new middle. */
				char *nt;
				size_t c;
				if (t->altcap < need) {
					free(t->alt);
					t->altcap = need < 128 ? 128 : 2 * need;
					t->alt = xmalloc(t->altcap);
				}
				nt = t->alt;
				memcpy(nt, name, nn);
				memcpy(nt + nn, t->text + t->name_n, pre);
				memcpy(nt + nn + pre, p, mid);
				memcpy(nt + nn + pre + mid, t->text + t->name_n + t->detail_n - suf, suf);
				t->alt = t->text;
				t->text = nt;
				c = t->altcap;
				t->altcap = t->cap;
				t->cap = c;
			}
			t->name_n = (uint32_t)nn;
			t->detail_n = (uint32_t)(pre + mid + suf);
		}
		t->valid = 1;
		t->ver = ++ip->text_versions;
	} else if (!t->valid || p != end) {
		spool_damaged();
	}
	n->warp = t->warp;
	n->sch = t->sch;
	n->threads = -1;
	n->ver = t->ver;
	memcpy(n->pipe, t->pipe, sizeof t->pipe);
	n->pipe[sizeof t->pipe] = 0;
	n->pipe_n = t->pipe_n;
	if (!all_text && !t->writes_vec) {
		n->name_n = n->detail_n = 0;
		return n;
	}
	len = (size_t)t->name_n + t->detail_n;
	if (n->cap < len + 1) {
		free(n->text);
		n->cap = len + 1 < 128 ? 128 : len + 1;
		n->text = xmalloc(n->cap);
	}
	memcpy(n->text, t->text, len);
	n->name_n = t->name_n;
	n->detail_n = t->detail_n;
	return n;
}

struct node *exec_read(struct unit *u)
{
	struct ip *ip = u->ip;
	unsigned char hb, h;
	const unsigned char *p, *end;
	const void *hp;
	struct node *n;
	size_t got = spool_read(u->execs, 1, &hb, &hp);
	char b[256];

	if (got == 0)
		return NULL;
	h = *(const unsigned char *)hp;
	if (!h || !(p = spool_next(u->execs, h, b)))
		spool_damaged();
	end = p + h;
	n = node_alloc(ip);
	n->next = NULL;
	n->tick = u->rexec.tick += unzz(get_uv(&p, end));
	n->pc = n->id = u->rexec.key += unzz(get_uv(&p, end));
	n->k = NULL;
	if (!ip->by_id && !(n->k = keytab_find(&u->keys, n->pc)))
		spool_damaged();
	n->line = u->rexec.line += unzz(get_uv(&p, end));
	n->file = (uint32_t)get_uv(&p, end);
	n->threads = (int)(int64_t)unzz(get_uv(&p, end));
	if (p != end)
		spool_damaged();
	n->name_n = n->detail_n = 0;
	return n;
}


void free_rdpc(struct unit *u)
{
	size_t i;
	for (i = 0; i < u->keys.cap; i++) {
		uint64_t key;
		struct keyinfo *k = keytab_at(&u->keys, i, &key);
		if (k) {
			free(k->rd.text);
			free(k->rd.alt);
			memset(&k->rd, 0, sizeof k->rd);
			k->pi = NULL;
		}
	}
	for (i = 0; i < u->rdpc.cap; i++) {
		uint64_t pc;
		struct rdtext *t = keytab_at(&u->rdpc, i, &pc);
		if (t) {
			free(t->text);
			free(t->alt);
		}
	}
	keytab_free(&u->rdpc);
}

void rewind_unit(struct unit *u)
{
	spool_rewind(u->pops);
	spool_rewind(u->execs);
	memset(&u->rpop, 0, sizeof u->rpop);
	memset(&u->rexec, 0, sizeof u->rexec);
	free_rdpc(u);
}

