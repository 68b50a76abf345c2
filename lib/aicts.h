/* The AI Core timestamp dots of an on-board run (dump/aic_timestamp.bin,
 * 910B, A3 and A5; see optrace-board(5), AIC_TIMESTAMP.BIN) and the
 * AI-Core timeline the reference draws from them: a lane per block and
 * sub-block with its run, the AI_CORE task, the user dots paired start to
 * end, the MC2 AICore API dots and the LCCL log dots.
 *
 * Records are little-endian and decoded field by field.  The timeline is
 * streamed through lib/json.h; what it keeps is the records of one file
 * and the blocks of one launch. */
#ifndef OPTRACE_AICTS_H
#define OPTRACE_AICTS_H

#include <stddef.h>
#include <stdint.h>

#include "board.h"
#include "chip.h"

struct json;

#define AICTS_REC_SIZE 24u        /* MsprofAicTimeStampInfo */
#define AICTS_LCCL_SIZE 32u       /* LcclDumpLogInfo */
#define AICTS_USER_DESC 0xffffu   /* user dots: descId from here up */
#define AICTS_OLD_CUBE 50u        /* old block ids: cube blocks from here */
#define AICTS_NAME_MAX 64u        /* a descid_display name */
#define AICTS_NAMES_MAX 1024u     /* descid_display entries */

struct aicts_rec {
	uint64_t syscyc;          /* task-scheduler ticks */
	uint32_t block_id, desc_id;
	uint64_t pc;
	/* set by aicts_classify */
	uint32_t block;           /* logical block */
	unsigned cube;            /* 1: "AIC BLOCK", 0: "AIV BLOCK" */
};

struct aicts_lccl {
	uint32_t log_id, block_id;
	uint64_t syscyc, pc;
	uint32_t op_type, rsv;
};

void aicts_decode(const unsigned char p[AICTS_REC_SIZE], struct aicts_rec *r);
void aicts_lccl_decode(const unsigned char p[AICTS_LCCL_SIZE], struct aicts_lccl *r);

/* A whole file of rec_size-byte records into *v (grown with xrealloc;
 * *n records).  Records whose syscyc is below min are dropped and
 * counted in *dropped.  0; 1 when the file ends in part of a record (the
 * whole ones are kept; msg names the file, the record and its byte); -1
 * when it cannot be opened, -2 on a read error (msg with the system's
 * reason).  The records are
 * decoded as aicts_decode (rec_size 24) or aicts_lccl_decode (32). */
int aicts_read(const char *path, size_t rec_size, uint64_t min, void **v, size_t *n, uint64_t *dropped, char *msg,
               size_t size);

/* Whether the block ids are of the new format (physical core in the high
 * 16 bits): any high half not 0, or, for a run of exactly one cube block
 * and no vector block, any id up to 50.  aic, aiv: the blocks of the
 * DeviceProf records by kind. */
int aicts_new_format(const struct aicts_rec *v, size_t n, size_t aic, size_t aiv);
/* Each record's logical block and kind: new format, by physical core (A2
 * and A3: below 25 a cube core; A5: below 18 or 54..71); old format, ids
 * from 50 are cube block id - 50. */
void aicts_classify(struct aicts_rec *v, size_t n, enum chip_family f, int new_format);

/* The MC2 AICore API of a descId (0x1000 INIT .. 0x1141
 * ALL_TO_ALL_V_PREPARE; even a start, odd an end) and its colour; NULL
 * for another descId. */
const char *aicts_mc2_api(uint32_t desc_id, const char **cname);

/* ---- the custom dot names (--custom-input JSON) ---- */

struct aicts_names {
	int block_time;           /* enable_block_time (default 1) */
	size_t n;
	struct aicts_name { uint64_t id; char name[AICTS_NAME_MAX + 1]; char key[24]; } *v;
};
void aicts_names_init(struct aicts_names *c);
void aicts_names_free(struct aicts_names *c);
/* A descid_display key: decimal, or hex after 0x / 0X; 0 and *id, or -1
 * (empty, not a number, past 64 bits). */
int aicts_desc_key(const char *s, uint64_t *id);
/* A descid_display value: 1..64 of [A-Za-z0-9_ -]. */
int aicts_name_ok(const char *s);
/* The JSON text of the custom input: {"mc2_trace_config":
 * {"enable_block_time":bool, "descid_display":{"<id>":"<name>"}}}.  What
 * does not follow the rules is skipped, counted in *skipped and the first
 * one described in msg.  0, or -1 when the text is no JSON object (msg). */
int aicts_names_parse(struct aicts_names *c, const char *text, size_t len, unsigned *skipped, char *msg,
                      size_t size);
/* The name of a descId, NULL when it has none. */
const char *aicts_name_of(const struct aicts_names *c, uint64_t id);

/* ---- the blocks of the launch (DeviceProf<N>.bin) ---- */

struct aicts_block {
	unsigned block, core, sub;   /* core: BOARD_CUBE / BOARD_VECTOR */
	uint64_t start, end;         /* the last replay's system times */
};
struct aicts_blocks {
	struct aicts_block *v;
	size_t n, cap;
	size_t aic, aiv;             /* keys by kind */
};
/* The (block, core, sub) keys of every DeviceProf<N>.bin of dir (N from
 * 1 up, the last replay's times winning), ordered.  0 (no file: none);
 * 1 a file was bad (the records before the problem are kept; msg); -1 a
 * file cannot be opened (msg). */
int aicts_blocks_read(const char *dir, enum board_fmt fmt, struct aicts_blocks *b, char *msg, size_t size);
void aicts_blocks_free(struct aicts_blocks *b);

/* ---- the timeline ---- */

enum aicts_kind { AICTS_PLAIN, AICTS_MC2, AICTS_LCCL };

/* A dot's source lines (args "code"), JSON-quoted, and their length;
 * NULL for none (codetab_json fits). */
typedef const char *(*aicts_code_fn)(const void *ctx, uint64_t pc, size_t *n);

struct aicts_run {
	enum aicts_kind kind;
	uint64_t min;                 /* the base: records before it are gone */
	uint64_t task_start;          /* the AI Core task's start (AI_CORE) */
	float task_us;                /* Task Duration */
	unsigned khz;                 /* task-scheduler clock */
	const struct aicts_blocks *blocks;
	const struct aicts_names *names;  /* PLAIN only; NULL none */
	aicts_code_fn code;
	const void *code_ctx;
};

struct aicts_stats {
	uint64_t lanes, dots, api_dots, lccl_dots;
	uint64_t unpaired;        /* starts without an end */
	uint64_t outside;         /* pairs outside their block's run */
};

/* The block lanes and their sort indexes, AI_CORE (PLAIN and LCCL), then
 * the dots of v (classified aicts_rec, or aicts_lccl for LCCL), as trace
 * events into J (inside the open traceEvents array). */
void aicts_emit(struct json *J, const struct aicts_run *run, const void *v, size_t n, struct aicts_stats *st);

/* The base of a run: the earlier of start (UINT64_MAX: none) and every
 * block's start. */
uint64_t aicts_base(const struct aicts_blocks *b, uint64_t start);

#endif
