/* <OUT>/raw_simulator: the input trace and its simulator siblings
 * (visualize_data.bin, trace.json, the per-core directories), so an
 * output directory given with -o stands on its own.  Only those names are
 * copied: a visualize_data.bin lying in a home directory must not drag the
 * directory along.  Symbolic links are not followed; the destination is
 * never copied into itself; every file is written under a temporary name
 * and renamed, so a failed copy leaves no half file. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "io.h"
#include "tc.h"

#define MAX_DEPTH 4

struct dst {
	dev_t dev[3];
	ino_t ino[3];
	int n;
};

/* coreN or coreN.<letters>M: the per-core directories of simulator/. */
static int core_dir_name(const char *s)
{
	const char *p = s + 4;
	if (strncmp(s, "core", 4) || *p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	if (!*p)
		return 1;
	if (*p++ != '.')
		return 0;
	if (*p < 'a' || *p > 'z')
		return 0;
	while (*p >= 'a' && *p <= 'z')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	while (*p >= '0' && *p <= '9')
		p++;
	return !*p;
}

/* to: where the copy is written; shown: its name in messages (the place
 * it will have once the output set is moved into place). */
static int copy_file(const char *from, const char *to, const char *shown)
{
	int fd = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	struct wr *w;
	char *buf;
	int e = 0;

	if (fd < 0) {
		cli_warn("%s: cannot open:", from);
		return -1;
	}
	w = wr_open(to, 0);
	if (!w) {
		cli_warn("%s: cannot create:", shown);
		close(fd);
		return -1;
	}
	buf = xmalloc(1u << 20);
	for (;;) {
		ssize_t k = read(fd, buf, 1u << 20);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			e = errno;
			cli_warn("%s: read error:", from);
			break;
		}
		if (!k)
			break;
		wr_put(w, buf, (size_t)k);
		if (cli_interrupted) {
			e = EINTR;
			break;
		}
	}
	free(buf);
	close(fd);
	if (e) {
		wr_abort(w);
		return -1;
	}
	e = wr_close(w);
	if (e) {
		errno = e;
		cli_warn("%s: write error:", shown);
		return -1;
	}
	return 0;
}

static int is_dst(const struct dst *d, const struct stat *st)
{
	int i;
	for (i = 0; i < d->n; i++)
		if (d->dev[i] == st->st_dev && d->ino[i] == st->st_ino)
			return 1;
	return 0;
}

static int copy_tree(const char *from, const char *to, const char *shown, const struct dst *d, int depth,
                     int *copied)
{
	DIR *dir;
	struct dirent *de;
	int status = 0;

	if (depth > MAX_DEPTH)
		return 0;
	if (mkdir(to, IO_DIR_MODE) < 0 && errno != EEXIST) {
		cli_warn("%s: cannot create:", shown);
		return -1;
	}
	dir = opendir(from);
	if (!dir) {
		cli_warn("%s: cannot open:", from);
		return -1;
	}
	while (!status && (de = readdir(dir))) {
		char *a, *b, *bs;
		struct stat st;
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		a = xpath(from, de->d_name);
		b = xpath(to, de->d_name);
		bs = xpath(shown, de->d_name);
		if (lstat(a, &st) == 0 && !is_dst(d, &st)) {
			if (S_ISREG(st.st_mode)) {
				status = copy_file(a, b, bs);
				*copied += !status;
			} else if (S_ISDIR(st.st_mode)) {
				status = copy_tree(a, b, bs, d, depth + 1, copied);
			}
		}
		free(a);
		free(b);
		free(bs);
	}
	closedir(dir);
	return status;
}

int rawcopy(const char *srcdir, const char *input, const char *outdir, const char *shown_dir,
            const char *final_dir, int *copied)
{
	struct dst d = { { 0 }, { 0 }, 0 };
	struct stat st;
	char *to = xpath(outdir, "raw_simulator"), *shown = xpath(shown_dir, "raw_simulator");
	const char *base = strrchr(input, '/');
	DIR *dir;
	struct dirent *de;
	int status = 0;

	*copied = 0;
	base = base ? base + 1 : input;
	/* never a link planted there */
	if (io_tree_dir(to) < 0 || lstat(to, &st) < 0) {
		if (errno == ENOTDIR)
			cli_warn("%s: not a directory (a symbolic link is not followed)", shown);
		else
			cli_warn("%s: cannot create:", shown);
		free(to);
		free(shown);
		return -1;
	}
	d.dev[d.n] = st.st_dev;
	d.ino[d.n++] = st.st_ino;
	if (stat(outdir, &st) == 0) {
		d.dev[d.n] = st.st_dev;
		d.ino[d.n++] = st.st_ino;
	}
	if (stat(final_dir, &st) == 0) {
		d.dev[d.n] = st.st_dev;
		d.ino[d.n++] = st.st_ino;
	}
	dir = opendir(srcdir);
	if (!dir) {
		cli_warn("%s: cannot open:", srcdir);
		free(to);
		free(shown);
		return -1;
	}
	while (!status && (de = readdir(dir))) {
		const char *n = de->d_name;
		char *a, *b, *bs;
		int is_input = !strcmp(n, base);
		if (!is_input && strcmp(n, "visualize_data.bin") && strcmp(n, "trace.json") && !core_dir_name(n))
			continue;
		a = xpath(srcdir, n);
		b = xpath(to, n);
		bs = xpath(shown, n);
		if (lstat(a, &st) == 0 && !is_dst(&d, &st)) {
			if (S_ISREG(st.st_mode)) {
				status = copy_file(a, b, bs);
				*copied += !status;
			} else if (S_ISDIR(st.st_mode) && core_dir_name(n)) {
				status = copy_tree(a, b, bs, &d, 1, copied);
			}
		}
		free(a);
		free(b);
		free(bs);
	}
	closedir(dir);
	free(to);
	free(shown);
	return status;
}
