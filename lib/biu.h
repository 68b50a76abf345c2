/* The A5 (Ascend950) pipe and instruction timeline: the BIU records of
 * dump/timeline.bin* (dfx_region stamps and pipe busy samples), the
 * compiler's dump/dfx_region_map.txt and dump/dfx_tune.log, and the rules
 * that turn them into trace events (see optrace-board(5), TIMELINE.BIN).
 *
 * The decoder streams: it keeps, per channel, a cycle counter, the open
 * pipe-busy spans, the open starts of the region or instruction ids (a
 * fixed table per channel and pipe, allocated when the pair is first
 * seen) and the events held back while an end-marker sequence may be
 * under way.  Memory is bounded by the id space, never by the trace. */
#ifndef OPTRACE_BIU_H
#define OPTRACE_BIU_H

#include <stddef.h>
#include <stdint.h>

#define BIU_HEAD_SIZE 8u
#define BIU_DATA_SIZE (2u << 20)
#define BIU_CHUNK_SIZE (BIU_HEAD_SIZE + BIU_DATA_SIZE)
#define BIU_REC_SIZE 4u
#define BIU_SUBS 3u          /* cubecore, veccore0, veccore1 */
#define BIU_CHANNELS 18u     /* cores 0..5 */
#define BIU_IDS 4096u        /* 12-bit dfx ids */
/* Instruction ids are those with bits 9 and 10 set: 1024 per pipe, the
 * most instructions of one pipe the compiler can stamp. */
#define BIU_INSTR_IDS 1024u
/* Events held back on a channel after the first end marker; past this
 * the sequence is taken for data (see optrace-board(5)). */
#define BIU_HOLD_MAX 65536u

/* Pipes in the order of the busy-sample bits. */
enum biu_pipe { BIU_SCALAR, BIU_VECTOR, BIU_CUBE, BIU_MTE1, BIU_MTE2, BIU_MTE3, BIU_FIXP, BIU_NPIPES };

/* "SCALAR", "VECTOR", "CUBE", "MTE1", "MTE2", "MTE3", "FIXP". */
const char *biu_pipe_name(unsigned pipe);
/* The name as the compiler's map and tune log write it ("mte2"), in buf. */
const char *biu_pipe_lower(unsigned pipe, char buf[8]);
/* The pipe's default colour (the trace's cname). */
const char *biu_pipe_cname(unsigned pipe);
/* A pipe by name, any case; -1 when it is none.  scalar: whether SCALAR
 * counts (the compiler's map and tune log name only the other six). */
int biu_pipe_find(const char *s, size_t n, int scalar);
/* The pipe a dfx-mark ctrl nibble stamps (0..5 and 0xA), or -1. */
int biu_ctrl_pipe(unsigned ctrl);
/* The ctrl nibble of a pipe's dfx marks (the inverse of biu_ctrl_pipe). */
unsigned biu_pipe_ctrl(unsigned pipe);
/* The reference's table of twelve colours, for regions and opcodes. */
#define BIU_NCOLOURS 12u
const char *biu_colour(size_t i);   /* i modulo the table */

/* A chunk head. */
struct biu_head {
	unsigned core_id, core_type;
	uint32_t valid;
};
void biu_head_decode(const unsigned char p[BIU_HEAD_SIZE], struct biu_head *h);
/* The head's channel (core_id * 3 + core_type); -1 when core_type is not
 * 0..2, -2 when the channel is past the 18th. */
int biu_channel(const struct biu_head *h);
/* "core<c>.cubecore", "core<c>.veccore0" or "core<c>.veccore1" into buf;
 * its length. */
size_t biu_channel_name(unsigned ch, char *buf, size_t size);

enum biu_mode { BIU_PIPE_TIMELINE, BIU_INSTR_TIMELINE };
enum biu_kind {
	BIU_EV_BUSY,     /* a pipe busy from start for dur (PipeTimeline) */
	BIU_EV_MARK,     /* MarkStamp<id>, dur 1 (PipeTimeline) */
	BIU_EV_REGION,   /* Region<id> of a user trace pair (PipeTimeline) */
	BIU_EV_INSTR     /* one run of instruction id (InstrTimeline) */
};
struct biu_event {
	uint64_t start, dur;    /* cycles of the channel */
	uint16_t id;            /* mark id, region (0..1023) or instruction id */
	uint8_t ch, pipe, kind;
};

/* What went missing on one channel and pipe. */
struct biu_loss {
	uint64_t pairs;        /* regions or instructions drawn */
	uint64_t open;         /* starts that never ended */
	uint64_t overwritten;  /* region starts replaced by a second start */
	uint64_t unpaired;     /* region ends without a start */
};
struct biu_stats {
	uint64_t records;      /* records decoded */
	uint64_t ignored;      /* records of another ctrl (no cycles counted) */
	uint64_t erased;       /* events after an end-marker sequence */
	uint64_t held_over;    /* sequences let through past BIU_HOLD_MAX */
	uint64_t chunks;       /* chunk heads read */
	uint64_t bad_type;     /* chunks of a core type past 2, skipped */
	uint64_t bad_channel;  /* chunks of a channel past the 18th, skipped */
	uint64_t long_valid;   /* chunks whose validLen passed 2 MiB (cut to it) */
	uint32_t seen;         /* channels with data, bit per channel */
	struct biu_loss loss[BIU_CHANNELS][BIU_NPIPES];
};

typedef void (*biu_emit_fn)(void *ctx, const struct biu_event *e);
struct biu;
struct biu *biu_new(enum biu_mode mode, biu_emit_fn emit, void *ctx);
void biu_free(struct biu *b);
/* The records of n bytes of channel ch's data (a cut last record is
 * ignored); events go to emit as they complete. */
void biu_data(struct biu *b, unsigned ch, const unsigned char *p, size_t n);
/* The end: events after an end-marker sequence are dropped, open starts
 * counted.  Call once, after the last biu_data. */
void biu_finish(struct biu *b);
const struct biu_stats *biu_stats(const struct biu *b);
/* A channel's cycle counter. */
uint64_t biu_cycles(const struct biu *b, unsigned ch);
/* A channel's end-marker state: 1 with the index of the first event to
 * drop (events so far on the channel when the sequence began) and the
 * index of the next id of the sequence expected (8: complete); 0 when no
 * sequence is under way. */
int biu_endmark(const struct biu *b, unsigned ch, uint64_t *start, unsigned *next);
/* The ids of open starts of (ch, pipe), ascending, into ids (up to max);
 * how many there are. */
size_t biu_open_ids(const struct biu *b, unsigned ch, unsigned pipe, uint16_t *ids, size_t max);

/* One timeline.bin file: each chunk's valid bytes go to biu_data, the
 * rest of the chunk is skipped unread.  0; 1 when the size is not a
 * multiple of the chunk (the whole chunks are read, msg says what was
 * cut) or chunks claim a validLen past 2 MiB (read to it; msg names the
 * first chunk's byte and count); -1 when the file cannot be opened, -2 on a read error (msg with
 * the system's reason). */
int biu_read_file(struct biu *b, const char *path, char *msg, size_t size);

/* dfx_region_map.txt: (pipe, id) -> pc and opcode. */
struct biu_map_entry {
	uint64_t pc;           /* the line's offset + the start pc */
	uint32_t op;           /* index of the opcode */
	uint32_t have;
};
struct biu_map {
	struct biu_map_entry *e;   /* BIU_NPIPES * BIU_IDS, NULL while empty */
	char *names;               /* the opcodes, one after another */
	size_t nnames, capnames;
	struct biu_opcode { uint32_t at, len, hash, colour; } *ops;
	size_t nops, capops;
	size_t entries;            /* lines taken */
	uint32_t ncolours;         /* opcodes given a colour so far */
};
void biu_map_init(struct biu_map *m);
/* One line of the map (without its newline); 1 when it named a region of
 * a valid pipe (a later line of the same pipe and id wins), 0 when it is
 * skipped. */
int biu_map_line(struct biu_map *m, const char *s, size_t n, uint64_t start_pc);
/* The entry of (pipe, id), or NULL. */
const struct biu_map_entry *biu_map_get(const struct biu_map *m, unsigned pipe, unsigned id);
const char *biu_map_name(const struct biu_map *m, const struct biu_map_entry *e, size_t *len);
/* The opcode's colour: the order in which opcodes are first asked for,
 * modulo the table (the first drawn opcode gets the first colour). */
const char *biu_map_colour(struct biu_map *m, const struct biu_map_entry *e);
void biu_map_free(struct biu_map *m);

/* A dfx_tune.log line: the pipe (BIU_*) of "TUNE-ERROR: all dfx ids
 * consumed[pipe=<name>]", or -1. */
int biu_tune_line(const char *s, size_t n);
/* "cube, mte2, mte3": the pipes of mask, lowercase, in name order, into
 * buf; its length. */
size_t biu_tune_pipes(unsigned mask, char *buf, size_t size);

#endif
