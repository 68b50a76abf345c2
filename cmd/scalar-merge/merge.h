/* scalar-merge's whole run as a function, for a caller that runs it more
 * than once in one process (the fuzz target).  The tool's main is only
 * scalar_merge_main; a build defining OPTRACE_FUZZ leaves main out. */
#ifndef SCALAR_MERGE_MERGE_H
#define SCALAR_MERGE_MERGE_H

/* The tool over its command line (argv[0] first, as main gets it): the
 * exit status main would return.  getopt's state is the caller's (set
 * optind to 0 before a second call).  Everything the run held is freed
 * and put back to its initial state before it returns. */
int scalar_merge_main(int argc, char **argv);
/* Free the run's state and put every option back to its default; what
 * scalar_merge_main does at its end, for a caller whose run was cut off
 * by a fatal error. */
void scalar_merge_reset(void);

#endif
