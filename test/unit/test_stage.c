/* lib/stage.c: a tool's -o DIR set, made aside and moved in whole, with
 * the modes of an output tree; and two sets in one process (a tool run
 * more than once, as the fuzz targets run timeline-emit), the second into
 * the DIR the first made. */
#include "io.h"
#include "stage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit.h"

/* One set: DIR/name holding text; the stage_commit result. */
static int one_set(const char *dir, const char *name, const char *text)
{
	char path[1400], *failed = NULL;
	struct wr *w;
	int err;

	if (stage_begin(dir, "test") < 0)
		return errno;
	snprintf(path, sizeof path, "%s/%s", stage_dir(), name);
	w = wr_open(path, 0);
	CHECK(w != NULL);
	wr_puts(w, text);
	CHECK(wr_close(w) == 0);
	err = stage_commit(&failed);
	free(failed);
	return err;
}

static mode_t mode_of(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? st.st_mode & 0777 : 07777;
}

int main(void)
{
	char dir[1200], a[1300], b[1300];
	size_t n;
	char *t;

	unit_workdir("test_stage");
	snprintf(dir, sizeof dir, "%s/out", unit_dir);
	snprintf(a, sizeof a, "%s/a.txt", dir);
	snprintf(b, sizeof b, "%s/b.txt", dir);

	/* a DIR that did not exist: made whole, an output directory's mode */
	CHECK_INT(one_set(dir, "a.txt", "first\n"), 0);
	CHECK_MSG(mode_of(dir) == io_dir_mode(), "DIR mode %o, want %o", (unsigned)mode_of(dir),
		  (unsigned)io_dir_mode());
	CHECK_MSG(mode_of(a) == io_file_mode(), "file mode %o, want %o", (unsigned)mode_of(a),
		  (unsigned)io_file_mode());
	/* the second set goes into the DIR that now exists, beside the
	 * first's file */
	CHECK_INT(one_set(dir, "b.txt", "second\n"), 0);
	t = unit_read_file(b, &n);
	CHECK(t && n == 7 && !memcmp(t, "second\n", 7));
	free(t);
	t = unit_read_file(a, &n);
	CHECK(t && n == 6 && !memcmp(t, "first\n", 6));
	free(t);
	CHECK_INT(unit_entries(dir, ""), 2);
	io_rm_tree(unit_dir);
	return unit_done();
}
