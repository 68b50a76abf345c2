/* Synchronisation instructions: their kind and what their detail says
 * (see sync.h). */
#include "sync.h"

#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum rec_sync sync_kind(const char *name, size_t n)
{
	static const struct {
		const char *name;
		unsigned char n;
		unsigned char kind;
	} names[] = {
		{ "SET_FLAG", 8, SYNC_SET }, { "WAIT_FLAG", 9, SYNC_WAIT },
		{ "set_event", 9, SYNC_SET }, { "wait_event", 10, SYNC_WAIT },
		{ "SET_INTRA_BLOCK", 15, SYNC_SET_INTRA }, { "SET_INTRA_BLOCKI", 16, SYNC_SET_INTRA },
		{ "WAIT_INTRA_BLOCK", 16, SYNC_WAIT_INTRA }, { "WAIT_INTRA_BLOCKI", 17, SYNC_WAIT_INTRA },
		{ "BAR", 3, SYNC_BAR },
	};
	size_t i;
	char c = n ? name[0] : 0;
	/* Every instruction asks: most names fail on the first byte. */
	if (n < 3 || n > 17 || (c != 'S' && c != 'W' && c != 's' && c != 'w' && c != 'B'))
		return SYNC_NONE;
	for (i = 0; i < sizeof names / sizeof names[0]; i++)
		if (names[i].n == n && !memcmp(names[i].name, name, n))
			return (enum rec_sync)names[i].kind;
	return SYNC_NONE;
}

/* Blanks around and inside keys and values: a log line has spaces and
 * tabs; a trace's JSON text may also hold line ends. */
static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void trim(const char **s, size_t *n)
{
	while (*n && blank(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && blank((*s)[*n - 1]))
		(*n)--;
}

/* Is key (n bytes) want, blanks inside it aside ("TRIGGER PIPE")? */
static inline int key_is(const char *key, size_t n, const char *want)
{
	size_t i, j = 0;
	/* Mostly the key as it is (the details come without spaces). */
	if (n == strlen(want) && !memcmp(key, want, n))
		return 1;
	for (i = 0; i < n; i++) {
		if (blank(key[i]))
			continue;
		if (!want[j] || key[i] != want[j])
			return 0;
		j++;
	}
	return !want[j];
}

/* Which field a trimmed key names: 1 the producing pipe, 2 the consuming
 * one, 3 the flag id, 0 none.  A key can only be a name that starts with
 * its first byte (a blank never does), so that picks the names to try. */
static int key_field(const char *key, size_t n)
{
	switch (n ? key[0] : 0) {
	case 'P': return key_is(key, n, "PIPE");
	case 'p': return key_is(key, n, "pipe_type");
	case 'T': return 2 * key_is(key, n, "TRIGGERPIPE");
	case 't': return 2 * (key_is(key, n, "tigger_pipe") || key_is(key, n, "trigger_pipe"));
	case 'F': return 3 * key_is(key, n, "FLAGID");
	case 'e': return 3 * key_is(key, n, "event_id");
	case 's': return 3 * key_is(key, n, "sync_id");
	default: return 0;
	}
}

#ifdef __SSE2__
/* A bit per byte of the sixteen at q that is a ',' or a ':'. */
static inline unsigned marks16(const char *q)
{
	__m128i x = _mm_loadu_si128((const __m128i *)(const void *)q);
	return (unsigned)_mm_movemask_epi8(
		_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')), _mm_cmpeq_epi8(x, _mm_set1_epi8(':'))));
}
#endif

/* The first ',' or ':' from q on, end when none: sixteen bytes a round,
 * the last round over the sixteen before end (those before q left out)
 * when the detail from d has them. */
static inline const char *next_mark(const char *q, const char *end, const char *d)
{
#ifdef __SSE2__
	unsigned m;
	for (; end - q >= 16; q += 16)
		if ((m = marks16(q)))
			return q + __builtin_ctz(m);
	if (q < end && end - d >= 16) {
		m = marks16(end - 16) >> (16 - (end - q));
		return m ? q + __builtin_ctz(m) : end;
	}
#else
	(void)d;
#endif
	while (q < end && *q != ',' && *q != ':')
		q++;
	return q;
}

void sync_parse(const char *d, size_t n, struct sync_fields *out)
{
	const char *p = d, *end = d + n, *q = d;

	out->prod = out->cons = out->flag = "";
	out->prod_n = out->cons_n = out->flag_n = 0;
	/* The ',' and ':' bytes in order (pieces are a few bytes: a search
	 * per piece and per colon costs more than they do); a ',' or the
	 * end closes a piece, whose first ':' parts key and value. */
	while (p < end) {
		const char *piece_end, *colon = NULL;
		while ((piece_end = next_mark(q, end, d)) < end && *piece_end == ':') {
			if (!colon)
				colon = piece_end;
			q = piece_end + 1;
		}
		if (colon) {
			const char *key = p, *val = colon + 1;
			size_t kn = (size_t)(colon - p), vn = (size_t)(piece_end - val);
			trim(&key, &kn);
			trim(&val, &vn);
			switch (key_field(key, kn)) {
			case 1:
				out->prod = val;
				out->prod_n = vn;
				break;
			case 2:
				out->cons = val;
				out->cons_n = vn;
				break;
			case 3:
				out->flag = val;
				out->flag_n = vn;
				break;
			}
		}
		p = q = piece_end + 1;
	}
}
