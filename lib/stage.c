/* A tool's -o DIR set, all or nothing.
 *
 * Every file of a run (trace.json, the per-core directories, the CSVs,
 * visualize_data.bin, the split traces) is written into a staging
 * directory, and only when all of them are complete and fsync'ed do they
 * become visible:
 *   - DIR did not exist: the staging directory is its sibling DIR.tmpXXXXXX
 *     and is renamed to DIR in one step;
 *   - DIR exists: the staging directory is DIR/.<tool>.tmpXXXXXX;
 *     its files are moved into DIR one by one, each older file first moved
 *     aside into the staging directory, so that a failure part way puts
 *     the older ones back.
 * A failure before that point removes the staging directory: the older
 * set, if any, is as it was, and a DIR that did not exist still does not.
 * The removal is on the exit-time cleanup list (cli_cleanup_add) from
 * stage_begin until the set is in place, so it happens at whatever exit
 * ends the run first: a fatal error anywhere, out of memory included. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stage.h"

#include "cli.h"
#include "io.h"
#include "mem.h"

static char *stage_path;      /* the staging directory, NULL when none */
static const char *final_dir; /* DIR as the user named it */
static int fresh_dir;         /* DIR did not exist: rename the whole */

const char *stage_final(void) { return final_dir; }

static void stage_abort(void *unused);

int stage_begin(const char *dir, const char *tool)
{
	size_t n = strlen(dir);
	int exists;

	final_dir = dir;
	fresh_dir = 0;
	/* DIR itself is followed when a link; what the set puts in it never
	 * is (io_tree_dir, the renames). */
	if ((exists = io_out_dir(dir)) < 0)
		return -1;
	if (exists) {
		size_t k = n + strlen(tool) + 16;
		stage_path = xmalloc(k);
		snprintf(stage_path, k, "%s/.%s.tmpXXXXXX", dir, tool);
	} else {
		fresh_dir = 1;
		stage_path = xmalloc(n + 16);
		/* A trailing slash would put the sibling inside. */
		while (n > 1 && dir[n - 1] == '/')
			n--;
		snprintf(stage_path, n + 16, "%.*s.tmpXXXXXX", (int)n, dir);
	}
	if (!mkdtemp(stage_path)) {
		free(stage_path);
		stage_path = NULL;
		return -1;
	}
	/* mkdtemp makes 0700: give an output directory's mode. */
	chmod(stage_path, io_dir_mode());
	cli_cleanup_add(stage_abort, NULL);
	return 0;
}

const char *stage_dir(void) { return stage_path; }

struct wr *stage_open(const char *name)
{
	char *path = xpath(stage_path, name);
	struct wr *w = wr_open(path, 0);
	free(path);
	if (!w)
		cli_die(EXIT_IO, "%s/%s: cannot create:", final_dir, name);
	return w;
}

void stage_close(struct wr *w, const char *name)
{
	int e = wr_close(w);
	if (e) {
		errno = e;
		cli_die(EXIT_IO, "%s/%s: cannot write:", final_dir, name);
	}
}

/* Remove the staging directory and all in it (also what the writers still
 * hold open: their own cleanups have run first, being later on the list). */
static void stage_abort(void *unused)
{
	(void)unused;
	cli_cleanup_remove(stage_abort, NULL);
	if (!stage_path)
		return;
	io_rm_tree(stage_path);
	free(stage_path);
	stage_path = NULL;
}

static int fsync_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;
	if (fd < 0)
		return errno;
	if (fsync(fd) < 0 && errno != EINVAL)
		err = errno;
	close(fd);
	return err;
}

/* The staged files, relative to the staging directory, and its
 * directories (for their fsync). */
static char **files, **dirs;
static size_t nfiles, ndirs;

static int list_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	const char *rel = path + strlen(stage_path);
	(void)st;
	(void)f;
	if (*rel == '/')
		rel++;
	if (flag == FTW_F) {
		files = xrealloc(files, (nfiles + 1) * sizeof *files);
		files[nfiles++] = xstrdup(rel);
	} else if (flag == FTW_D) {
		dirs = xrealloc(dirs, (ndirs + 1) * sizeof *dirs);
		dirs[ndirs++] = xstrdup(path);
	}
	return 0;
}

static void list_free(void)
{
	size_t i;
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	for (i = 0; i < ndirs; i++)
		free(dirs[i]);
	free(files);
	free(dirs);
	files = dirs = NULL;
	nfiles = ndirs = 0;
}

/* One file moved in: what to undo. */
struct moved {
	char *final, *staged, *old;     /* old: where the older file waits, or NULL */
};

static void undo(struct moved *m, size_t n, char **made, size_t nmade)
{
	while (n--) {
		if (m[n].old)
			rename(m[n].old, m[n].final);
		else
			unlink(m[n].final);
	}
	while (nmade--)
		rmdir(made[nmade]);
}

int stage_commit(char **failed)
{
	struct moved *m;
	char **made = NULL;
	size_t i, nm = 0, nmade = 0;
	int err = 0;

	*failed = NULL;
	if (nftw(stage_path, list_one, 16, FTW_PHYS) < 0)
		return errno ? errno : EIO;
	for (i = 0; i < ndirs && !err; i++)
		err = fsync_dir(dirs[i]);
	if (err) {
		*failed = xstrdup(final_dir);
		list_free();
		return err;
	}
	if (fresh_dir) {
		if (rename(stage_path, final_dir) == 0) {
			char *parent = xstrdup(final_dir), *slash = strrchr(parent, '/');
			if (slash)
				*(slash == parent ? slash + 1 : slash) = 0;
			fsync_dir(slash ? parent : ".");
			free(parent);
			free(stage_path);
			stage_path = NULL;
			cli_cleanup_remove(stage_abort, NULL);
			list_free();
			return 0;
		}
		if (errno != EEXIST && errno != ENOTEMPTY) {
			err = errno;
			*failed = xstrdup(final_dir);
			list_free();
			return err;
		}
		/* DIR appeared meanwhile: move the files in one by one. */
		if (mkdir(final_dir, IO_DIR_MODE) < 0 && errno != EEXIST) {
			err = errno;
			*failed = xstrdup(final_dir);
			list_free();
			return err;
		}
	}
	m = xcalloc(nfiles + 1, sizeof *m);
	for (i = 0; i < nfiles && !err; i++) {
		struct moved *x = &m[nm];
		struct stat st;
		char *slash;

		x->final = xpath(final_dir, files[i]);
		x->staged = xpath(stage_path, files[i]);
		/* Its directory (a core's): made if missing, never a link. */
		slash = strrchr(files[i], '/');
		if (slash) {
			char *d = xmalloc(strlen(final_dir) + (size_t)(slash - files[i]) + 2);
			sprintf(d, "%s/%.*s", final_dir, (int)(slash - files[i]), files[i]);
			int k = io_tree_dir(d);
			if (k < 0) {
				err = errno;
			} else if (k) {
				made = xrealloc(made, (nmade + 1) * sizeof *made);
				made[nmade++] = d;
				d = NULL;
			}
			if (err) {
				*failed = d;
				free(x->final);
				free(x->staged);
				break;
			}
			free(d);
		}
		if (lstat(x->final, &st) == 0) {
			char name[40];
			snprintf(name, sizeof name, ".old.%zu", i);
			x->old = xpath(stage_path, name);
			if (rename(x->final, x->old) < 0) {
				err = errno;
				free(x->old);
				x->old = NULL;
			}
		}
		if (!err && rename(x->staged, x->final) < 0) {
			err = errno;
			if (x->old)
				rename(x->old, x->final);
			free(x->old);
			x->old = NULL;
		}
		if (err) {
			*failed = x->final;
			free(x->staged);
			break;
		}
		nm++;
	}
	for (i = 0; !err && i < nmade; i++)
		err = fsync_dir(made[i]);
	if (!err)
		err = fsync_dir(final_dir);
	if (err) {
		if (!*failed)
			*failed = xstrdup(final_dir);
		undo(m, nm, made, nmade);
	}
	for (i = 0; i < nm; i++) {
		if (m[i].final != *failed)
			free(m[i].final);
		free(m[i].staged);
		free(m[i].old);
	}
	free(m);
	for (i = 0; i < nmade; i++)
		if (made[i] != *failed)
			free(made[i]);
	free(made);
	list_free();
	if (!err)
		stage_abort(NULL);     /* what is left: the older files moved aside */
	return err;
}

int stage_check_core(const char *name)
{
	struct stat st;
	char *p;
	int bad;

	if (fresh_dir)
		return 0;
	p = xpath(final_dir, name);
	bad = lstat(p, &st) == 0 && !S_ISDIR(st.st_mode);
	free(p);
	return bad ? -1 : 0;
}
