/* Internal interfaces of the stand-in simulator (not installed). */
#ifndef CAMODEL_INTERNAL_H
#define CAMODEL_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "dvc_log.h"

#define HIDDEN __attribute__((visibility("hidden")))

/* SoC families: they differ in file names and line grammars. */
enum fam { FAM_A2, FAM_310P, FAM_A5 };

/* ---- logw.c: dump files, rotation, callbacks ---- */

struct wfile {
	char *stem;         /* "<dir>/core0.veccore0.instr_log" */
	const char *ext;    /* ".dump" */
	int fd;
	int rotate;         /* 0 for private temporaries */
	char *buf;
	size_t used;
	uint64_t written;   /* bytes in the file on disk */
	struct wfile *next;
};

extern HIDDEN uint32_t logw_file_level;          /* DvcSetLogLevel file level */
extern HIDDEN DvcLogCbFnUnion_t logw_cb[6];      /* attached callbacks */
extern HIDDEN uint64_t logw_max_size;

HIDDEN void logw_init(void);
/* The file <dir>/<name><ext>, opened (truncated) on first use in this
 * process and kept open in append mode. */
HIDDEN struct wfile *logw_open(const char *dir, const char *name, const char *ext);
/* An unlinked temporary file in dir (no rotation). */
HIDDEN struct wfile *logw_tmp(const char *dir);
HIDDEN void logw_free_tmp(struct wfile *f);
/* Room for one line of at most max bytes; rotates first when the line could
 * take the file over the size limit. */
HIDDEN char *logw_begin(struct wfile *f, size_t max);
HIDDEN void logw_end(struct wfile *f, char *end);
HIDDEN int logw_flush(struct wfile *f);
HIDDEN int logw_flush_all(void);
/* Before a launch: take the sizes on disk again (the capture tool truncates
 * the files between launches). */
HIDDEN void logw_resync(void);

/* number formatting */
HIDDEN char *fmt_u(char *p, uint64_t v);
HIDDEN char *fmt_u0(char *p, uint64_t v, int width);
HIDDEN char *fmt_x(char *p, uint64_t v);          /* lower-case hex, no prefix */
HIDDEN char *fmt_x0(char *p, uint64_t v, int width);
HIDDEN char *fmt_s(char *p, const char *s);

/* ---- sim.c: the AI Core model ---- */

struct kernel_bin;

/* Run one launch: blockDim blocks of entry (in binary kb) with the given
 * 64-bit arguments.  Returns 0 or an rt error code. */
HIDDEN int sim_launch(struct kernel_bin *kb, void *entry, uint32_t block_dim,
                      const uint64_t *args, uint32_t nargs);

/* ---- rt.c: runtime state the model needs ---- */

struct kernel_bin {
	uint32_t magic;
	void *dl;             /* dlopen handle */
	uintptr_t base;       /* load base of the image */
	uintptr_t size;       /* end of its last loaded segment, from base */
	uint64_t pc_start;    /* device address of the image */
	int index;
};

HIDDEN enum fam rt_family(void);
HIDDEN const char *rt_soc(void);
HIDDEN const char *rt_log_dir(void);
/* Host address of device range [addr, addr+len), or NULL. */
HIDDEN void *rt_dev_ptr(uint64_t addr, uint64_t len);

#endif
