/* The on-board code view's raw files (optrace-board(5), MEMORYCHART.BIN
 * and BASIC-BLOCK COUNTS): the 56-byte transfer records of MemoryChart.bin,
 * the basic-block map (kernel<N>Stub.o.bbbmap.<M>) and its execution
 * counts (kernel<N>.extra.<M>), each decoded with every malformed input an
 * error naming the record or line; the L2 cache model that replays the GM
 * transfers (512-byte lines, LRU, write-back and write-allocate), with its
 * counts per pc and per set. */
#ifndef OPTRACE_DBI_H
#define OPTRACE_DBI_H

#include <stddef.h>
#include <stdint.h>

#include "keytab.h"

/* ---- MemoryChart.bin ---- */

#define DBI_MEMREC_SIZE 56
#define DBI_MEM_SIZE_MAX (1ull << 32)
/* Memory kinds of a transfer's ends. */
enum dbi_mem_type { DBI_L1, DBI_L0A, DBI_L0B, DBI_L0C, DBI_UB, DBI_BT, DBI_GM, DBI_REG, DBI_PRIVATE,
                    DBI_INVALID, DBI_NMEM };

struct dbi_mem {
	uint64_t src_addr, dst_addr, src_size, dst_size, pc, serial;
	unsigned block, sub_block;
	unsigned src, dst;          /* enum dbi_mem_type */
};

/* "GM", "L1", ... ("?" past the table). */
const char *dbi_mem_name(unsigned type);
/* Record p (DBI_MEMREC_SIZE bytes) into *m: 0, or -1 with why (a static
 * text) when a memory kind is past INVALID or a size past
 * DBI_MEM_SIZE_MAX. */
int dbi_mem_decode(const unsigned char *p, struct dbi_mem *m, const char **why);
/* The record of *m, the inverse of dbi_mem_decode. */
void dbi_mem_encode(const struct dbi_mem *m, unsigned char *p);

/* Every record of a MemoryChart.bin image of n bytes, in order, to fn
 * (which returns nonzero to stop).  0, or -1 with a message in err naming
 * the record ("record 3 (offset 168): ..."); a size that is no multiple of
 * the record names the last, cut record. */
int dbi_mem_each(const unsigned char *data, size_t n, int (*fn)(void *ctx, const struct dbi_mem *m),
                 void *ctx, char *err, size_t errsize);

/* ---- the instrumentation's packets, before expansion ----
 * A packet: a 28-byte header (u64 count, u64 length, u64 overflow, u16
 * blockId, u8 endFlag, padding), then count records, each a u32 type and
 * the u32 magic DBI_RECORD_MAGIC before a body of its type (every body
 * begins with u64 dst, src, pc, recordId).  The host expands each record
 * into transfer records (optrace-board(5), MEMORYCHART.BIN).  An end
 * packet (endFlag set) holds the dump path instead of records. */
#define DBI_PACKET_HEAD 28
#define DBI_RECORD_MAGIC 0x5A5A5A5Au
enum dbi_rec_type { DBI_REC_INVALID = 0, DBI_REC_DMA_MOV = 3, DBI_REC_MOV_ALIGN = 4, DBI_REC_LOAD_2D = 6,
                    DBI_REC_LOAD_2DV2 = 12, DBI_NREC = 20 };
/* The bytes of a record (type, magic and body) of the expanded types. */
#define DBI_DMA_MOV_SIZE (8 + 48)
#define DBI_MOV_ALIGN_SIZE (8 + 56)
#define DBI_LOAD_2D_SIZE (8 + 44)
#define DBI_LOAD_2DV2_SIZE (8 + 48)
/* What the packets held and what of it could not be read. */
struct dbi_loss {
	uint64_t packets, processed, dropped;   /* records read; of header counts not reached */
	uint64_t overflow;                      /* the device's count of records it could not store */
	uint64_t invalid_data;                  /* a record header past the packet's end */
	uint64_t corrupt;                       /* a bad magic (the packet's rest is not read) */
	uint64_t invalid_type;                  /* a type the host does not know */
	uint64_t unexpanded;                    /* a known type this build does not expand */
	uint64_t out_of_bounds;                 /* a body past the packet's end */
	uint64_t type_processed[DBI_NREC], type_failed[DBI_NREC];
};
/* Packet p (n bytes): its records expanded to fn in order, losses
 * counted into *loss.  1 for an end packet (its path at *path, *pathlen),
 * 0 for records, -1 for a packet shorter than its header. */
int dbi_packet(const unsigned char *p, size_t n, int (*fn)(void *ctx, const struct dbi_mem *m), void *ctx,
               struct dbi_loss *loss, const char **path, size_t *pathlen);
/* Any count of *l non-zero (the reference's "Some data of [MemoryChart]
 * parse failed."). */
int dbi_loss_any(const struct dbi_loss *l);

/* Per launch, the DMA totals of the records by path (the active
 * bandwidth of PipeUtilization): requests of the path's request size and
 * the bytes read. */
enum dbi_dma_path { DBI_GM_TO_L0A, DBI_GM_TO_L0B, DBI_GM_TO_L1, DBI_GM_TO_UB, DBI_UB_TO_GM, DBI_L0C_TO_GM,
                    DBI_NDMA };
const char *dbi_dma_name(unsigned path);    /* "GM_TO_L0A", ... */
unsigned dbi_dma_req_bytes(unsigned path);  /* 256, 128, ... */
/* The path of a record, or DBI_NDMA for none of them. */
unsigned dbi_dma_path_of(const struct dbi_mem *m);

/* dbi_dma.csv (board-code(1) writes it, board-metrics(1) reads it): a
 * header, then per block its id and, per path, the requests and the bytes
 * ("GM_TO_L0A,GM_TO_L0A_DATA,..."). */
struct dbi_dma_row {
	unsigned block;
	uint64_t req[DBI_NDMA], bytes[DBI_NDMA];
};
/* The header line, without LF. */
const char *dbi_dma_header(void);
/* A row line (without LF) into *r: 0, or -1 with why (a static text). */
int dbi_dma_parse(const char *line, size_t n, struct dbi_dma_row *r, const char **why);

/* ---- the basic-block map and its counts ---- */

struct dbi_bb {
	uint64_t begin, end;        /* absolute: start addr + offsets, end inclusive */
	unsigned id;
	uint64_t count;             /* executions (dbi_bb_counts) */
};
struct dbi_bbmap {
	struct dbi_bb *bb;          /* in file order */
	size_t n;
	char **func;                /* the functions, in order */
	size_t nfunc;
	unsigned max_id;
};

/* The map text (n bytes) into *m; 0, or -1 with a message in err naming
 * the line.  Each line is "InstrumentBlockCount", "function: NAME",
 * "start addr: 0xHEX" or "BBB id:N Offset: 0xHEX end: 0xHEX", the last
 * after the first two. */
int dbi_bbmap_parse(struct dbi_bbmap *m, const char *text, size_t n, char *err, size_t errsize);
/* The counts file (u32 little endian, one per block id, n bytes) onto the
 * map's blocks; 0, or -1 with a message in err (a size that is no
 * multiple of 4, fewer counts than the map has ids). */
int dbi_bb_counts(struct dbi_bbmap *m, const unsigned char *data, size_t n, char *err, size_t errsize);
/* The block holding pc, or NULL. */
const struct dbi_bb *dbi_bb_of(const struct dbi_bbmap *m, uint64_t pc);
void dbi_bbmap_free(struct dbi_bbmap *m);

/* ---- the L2 cache model ---- */

#define DBI_L2_LINE 512u
#define DBI_L2_WAYS 24u
/* The sets of a SoC's L2 (16384 when the name is unknown). */
unsigned dbi_l2_sets(const char *soc);

/* What an access did, line by line. */
struct dbi_l2_stat {
	uint64_t hit, miss, allocate, evict_write, evict_clean;
};

struct dbi_l2 {
	unsigned sets, ways;
	uint64_t *line;             /* sets x ways: line id + 1, 0 empty */
	uint64_t *used;             /* last use, for LRU */
	unsigned char *dirty;
	uint64_t clock;
	/* per set */
	uint64_t *set_hit, *set_miss;
	/* per pc: struct dbi_l2_stat; per (set, pc): struct dbi_l2_setpc */
	struct keytab pc, setpc;
};
struct dbi_l2_setpc {
	uint64_t hit, miss;
};

void dbi_l2_init(struct dbi_l2 *c, unsigned sets, unsigned ways);
void dbi_l2_free(struct dbi_l2 *c);
/* A load or store of [addr, addr + len) by the instruction at pc; what it
 * did (also added to pc's and the sets' counts). */
struct dbi_l2_stat dbi_l2_load(struct dbi_l2 *c, uint64_t addr, uint64_t len, uint64_t pc);
struct dbi_l2_stat dbi_l2_store(struct dbi_l2 *c, uint64_t addr, uint64_t len, uint64_t pc);
/* A MemoryChart record: a load when its source is GM, else a store when
 * its destination is; 0, or -1 when neither end is GM (nothing done). */
int dbi_l2_record(struct dbi_l2 *c, const struct dbi_mem *m);

#endif
