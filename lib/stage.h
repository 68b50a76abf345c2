/* A tool's -o DIR set of files, written aside and moved in whole.  From
 * stage_begin until stage_commit succeeds, any exit of the process removes
 * the staging directory with whatever is in it (the exit-time cleanup list
 * of cli.h), so a fatal error leaves nothing of the run behind. */
#ifndef OPTRACE_STAGE_H
#define OPTRACE_STAGE_H

struct wr;

/* Begin the set for DIR; tool names the staging directory inside an
 * existing DIR (.tool.tmpXXXXXX).  0, or -1 with errno. */
int stage_begin(const char *dir, const char *tool);
const char *stage_dir(void);            /* where the files are written */
const char *stage_final(void);          /* DIR */
int stage_check_core(const char *name); /* -1: DIR/name exists, not a directory */
/* A file of the set, name relative to the staging directory: opened
 * with wr_open, and closed; either failure ends the run (EXIT_IO) with one
 * message naming the file as it will be, DIR/name (the exit removes the
 * staging directory). */
struct wr *stage_open(const char *name);
void stage_close(struct wr *w, const char *name);
/* Move the set into DIR: 0, or an errno with *failed (malloc'ed) the path. */
int stage_commit(char **failed);

#endif
