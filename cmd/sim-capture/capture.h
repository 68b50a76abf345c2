/* sim-capture's private parts. */
#ifndef SIM_CAPTURE_H
#define SIM_CAPTURE_H

#include <stddef.h>

/* A growable NULL-terminated list of "KEY=value" strings. */
struct env {
	char **v;
	size_t n, cap;
};
/* Start from the inherited environment (entries without '=' are kept). */
void env_init(struct env *e, char **environ_);
/* Set KEY (replacing every inherited KEY=...). */
void env_set(struct env *e, const char *key, const char *val);
/* KEY=val:old, or KEY=val when unset or empty. */
void env_prepend(struct env *e, const char *key, const char *val);
void env_unset(struct env *e, const char *key);
void env_free(struct env *e);
const char *env_get(const struct env *e, const char *key);

/* The SoC named in LD_LIBRARY_PATH: an entry under dirname(root) holding
 * "<Ascend\d{3}...|dav_\d{4}>/lib"; dav_ names map to a SoC.  buf gets it;
 * returns buf or NULL. */
char *soc_from_ld_path(const char *ldpath, const char *root, char *buf, size_t cap);

/* --config: check the JSON kernel description and write kernel_config.bin
 * (see optrace-capture(5), KERNEL DESCRIPTIONS, kernel_config.bin) into dir.
 * Returns 0, or exits with a message. */
int config_translate(const char *json_path, const char *dir, char *bin_path, size_t cap);

/* The simulator's config files with msprof's replacements (see
 * optrace-capture(5), SIMULATOR CONFIGURATION)
 * into outdir; 1 if any was written (then CAMODEL_CONFIG_PATH=outdir). */
int camodel_config(const char *libdir, const char *soc, int pmsampling, const char *outdir);

/* --replay-mode=range: split <run>/tmp_dump's replayed ranges into the
 * dump directories of their launches (DeviceProf<k>.bin for k = 1..replays,
 * duration.bin, the frequency lines of op_basic_info.txt), copy
 * aic_timestamp.bin, and remove tmp_dump.  0, or -1 with the file in
 * st->file, what went wrong in err, and tmp_dump left as it is. */
struct range_stats {
	unsigned long ranges, launches, skipped;
	char file[4096 * 3];   /* on failure: the file that stopped the split */
};
#include "board.h"
int range_split(const char *run, enum board_fmt fmt, unsigned replays, struct range_stats *st, char *err,
                size_t es);

#endif
