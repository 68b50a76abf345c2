/* --replay-mode=range: the split of a replayed range's raw files into the
 * dump directories of its launches (see sim-capture(1), RANGE REPLAY).
 *
 * <run>/tmp_dump/device<N>/<pid>/<n>/ holds output.txt (a line per launch
 * of the range, in launch order: its dump directory, or -1 when it is not
 * captured), freq.txt and, for each replay k, DeviceProf<k>.bin with the
 * records of every launch of the range one after the other, and
 * duration.bin with their stamps.  The i-th run of consecutive records of
 * one (stream, task) is the i-th launch; the stamps of a launch are those
 * of its (stream, task) in duration.bin, given with the first replay's
 * records.  Each captured launch's op_basic_info.txt gets the Current Freq
 * and Rated Freq lines of freq.txt (NA when it has none). */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "board.h"
#include "capture.h"
#include "io.h"
#include "mem.h"

struct rs {
	const char *run;
	enum board_fmt fmt;
	char *err;
	size_t es;
	struct range_stats *st;
};

/* The split stops: file is what failed, err says how. */
static void fail(struct rs *rs, const char *file, const char *fmt, ...)
{
	va_list ap;
	snprintf(rs->st->file, sizeof rs->st->file, "%s", file);
	va_start(ap, fmt);
	vsnprintf(rs->err, rs->es, fmt, ap);
	va_end(ap);
}

static int all_digits(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (!n || n > max)
		return 0;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

/* a/b into out; past cap an empty path, which names nothing */
static void join(char *out, size_t cap, const char *a, const char *b)
{
	int n = snprintf(out, cap, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= cap)
		out[0] = 0;
}

/* The whole of a file, or NULL with errno (ENOENT: none). */
static char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	char *buf;
	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return NULL;
	}
	buf = xmalloc((size_t)st.st_size + 1);
	if (io_pread_full(fd, buf, (size_t)st.st_size, 0) != (ssize_t)st.st_size) {
		int e = errno ? errno : EIO;
		close(fd);
		free(buf);
		errno = e;
		return NULL;
	}
	close(fd);
	buf[st.st_size] = 0;
	*len = (size_t)st.st_size;
	return buf;
}

/* path gets n bytes, written aside and renamed; append: after what it has. */
static int put_file(const char *path, const void *p, size_t n, int append)
{
	char tmp[PATH_MAX + 16];
	const char *slash = strrchr(path, '/');
	int fd, rc = 0;
	snprintf(tmp, sizeof tmp, "%.*s/.%s.tmp", (int)(slash - path), path, slash + 1);
	if (strlen(path) + 6 >= sizeof tmp) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (append) {
		/* op_basic_info.txt: a line added at its end */
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return -1;
		if (write(fd, p, n) != (ssize_t)n)
			rc = -1;
		if (close(fd))
			rc = -1;
		return rc;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0640);
	if (fd < 0)
		return -1;
	if (n && write(fd, p, n) != (ssize_t)n)
		rc = -1;
	if (close(fd))
		rc = -1;
	if (rc || rename(tmp, path)) {
		int e = errno ? errno : EIO;
		unlink(tmp);
		errno = e;
		return -1;
	}
	return 0;
}

struct group {
	unsigned stream, task;
	char *p;
	size_t n;
};

static struct group *find_group(struct group *g, size_t n, unsigned stream, unsigned task)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].stream == stream && g[i].task == task)
			return &g[i];
	return NULL;
}

/* One range directory; 0, or -1 with the message in rs->err. */
static int split_one(struct rs *rs, const char *dir, unsigned replays)
{
	char path[PATH_MAX + 64], freq[2][128];
	size_t len, nout = 0, ndur = 0, i;
	char *text, **out = NULL, *line, *save = NULL;
	struct group *dur = NULL;
	int rc = -1;
	unsigned k;

	join(path, sizeof path, dir, "output.txt");
	if (!(text = slurp(path, &len))) {
		fail(rs, path, "%s", strerror(errno));
		return -1;
	}
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct stat st;
		size_t rl = strlen(rs->run);
		out = xrealloc(out, (nout + 1) * sizeof *out);
		/* a launch directory of this run, or -1 */
		if (strcmp(line, "-1") && (strncmp(line, rs->run, rl) || line[rl] != '/' || strstr(line, "/../") ||
		                           lstat(line, &st) || !S_ISDIR(st.st_mode))) {
			fprintf(stderr, "sim-capture: %s: line %zu: %s is not a launch directory of the run: skipped\n",
			        path, nout + 1, line);
			rs->st->skipped++;
			line = "-1";
		}
		out[nout++] = line;
	}

	/* freq.txt: its Current Freq= and Rated Freq= lines, NA without them */
	strcpy(freq[0], "Current Freq=NA");
	strcpy(freq[1], "Rated Freq=NA");
	join(path, sizeof path, dir, "freq.txt");
	{
		size_t fl;
		char *ft = slurp(path, &fl), *fs = NULL, *f;
		for (f = ft ? strtok_r(ft, "\n", &fs) : NULL; f; f = strtok_r(NULL, "\n", &fs)) {
			int which = !strncmp(f, "Current Freq", 12) ? 0 : !strncmp(f, "Rated Freq", 10) ? 1 : -1;
			if (which >= 0 && strlen(f) < sizeof freq[0])
				strcpy(freq[which], f);
		}
		free(ft);
	}

	/* duration.bin: the stamps of each (stream, task) */
	join(path, sizeof path, dir, "duration.bin");
	{
		size_t dl = 0, ss = board_stamp_size(rs->fmt);
		char *d = slurp(path, &dl);
		for (i = 0; d && i + ss <= dl; i += ss) {
			struct board_stamp st;
			struct board_err be;
			struct group *g;
			if (board_stamp_decode(rs->fmt, d + i, ss, i / ss, &st, &be) < 0)
				continue;
			if (!(g = find_group(dur, ndur, st.stream_id, st.task_id))) {
				dur = xrealloc(dur, (ndur + 1) * sizeof *dur);
				g = &dur[ndur++];
				*g = (struct group){ st.stream_id, st.task_id, NULL, 0 };
			}
			g->p = xrealloc(g->p, g->n + ss);
			memcpy(g->p + g->n, d + i, ss);
			g->n += ss;
		}
		free(d);
	}

	for (k = 1; k <= replays; k++) {
		size_t pl = 0, idx = 0, start = 0;
		char *p;
		int have = 0;
		unsigned cs = 0, ct = 0;
		char name[32];
		snprintf(name, sizeof name, "DeviceProf%u.bin", k);
		join(path, sizeof path, dir, name);
		if (!(p = slurp(path, &pl))) {
			if (errno == ENOENT)
				continue; /* a replay that counted nothing of the range */
			fail(rs, path, "%s", strerror(errno));
			goto out;
		}
		if (pl % BOARD_PMU_REC_SIZE) {
			fail(rs, path, "record %zu cut short (%zu bytes)", pl / BOARD_PMU_REC_SIZE,
			         pl);
			free(p);
			goto out;
		}
		for (i = 0; i <= pl; i += BOARD_PMU_REC_SIZE) {
			struct board_pmu r;
			struct board_err be;
			int end = i == pl, d = 0;
			if (!end) {
				d = board_pmu_decode(rs->fmt, p + i, BOARD_PMU_REC_SIZE, i / BOARD_PMU_REC_SIZE, &r, &be);
				if (d < 0) {
					char et[200];
					board_err_text(&be, et, sizeof et);
					fail(rs, path, "%s", et);
					free(p);
					goto out;
				}
				if (d == 0)
					continue; /* not a block record: with the launch it is in */
			}
			if (have && (end || r.stream_id != cs || r.task_id != ct)) {
				/* the records of launch idx: [start, i) */
				if (idx >= nout) {
					fprintf(stderr, "sim-capture: %s: records of a launch past the %zu lines of output.txt: "
					        "skipped\n", path, nout);
					rs->st->skipped++;
				} else if (strcmp(out[idx], "-1")) {
					char dst[PATH_MAX + 64];
					struct group *g;
					join(dst, sizeof dst, out[idx], name);
					if (put_file(dst, p + start, i - start, 0)) {
						fail(rs, dst, "%s", strerror(errno));
						free(p);
						goto out;
					}
					if (k == 1 && (g = find_group(dur, ndur, cs, ct)) && g->n) {
						join(dst, sizeof dst, out[idx], "duration.bin");
						if (put_file(dst, g->p, g->n, 0)) {
							fail(rs, dst, "%s", strerror(errno));
							free(p);
							goto out;
						}
						g->n = 0;
					}
				}
				idx++;
				start = i;
			}
			if (!end && (!have || r.stream_id != cs || r.task_id != ct)) {
				have = 1;
				cs = r.stream_id;
				ct = r.task_id;
				start = i;
			}
		}
		free(p);
	}
	for (i = 0; i < nout; i++) {
		char dst[PATH_MAX + 64], lines[300];
		int n;
		if (!strcmp(out[i], "-1"))
			continue;
		join(dst, sizeof dst, out[i], "op_basic_info.txt");
		n = snprintf(lines, sizeof lines, "%s\n%s\n", freq[0], freq[1]);
		if (put_file(dst, lines, (size_t)n, 1)) {
			fail(rs, dst, "%s", strerror(errno));
			goto out;
		}
		rs->st->launches++;
	}
	rs->st->ranges++;
	rc = 0;
out:
	for (i = 0; i < ndur; i++)
		free(dur[i].p);
	free(dur);
	free(out);
	free(text);
	return rc;
}

/* aic_timestamp.bin of tmp_dump/device<N>/ into every dump directory of
 * <run>/device<N>/<kernel>/<n>/. */
static int copy_stamp(struct rs *rs, const char *devname, const char *src)
{
	char dev[PATH_MAX + 64], kd[PATH_MAX * 2], dst[PATH_MAX * 3];
	size_t len;
	char *data = slurp(src, &len);
	DIR *d, *e;
	struct dirent *k, *n;
	if (!data)
		return 0;
	join(dev, sizeof dev, rs->run, devname);
	if (!(d = opendir(dev))) {
		free(data);
		return 0;
	}
	while ((k = readdir(d))) {
		if (k->d_name[0] == '.')
			continue;
		join(kd, sizeof kd, dev, k->d_name);
		if (!(e = opendir(kd)))
			continue;
		while ((n = readdir(e))) {
			struct stat st;
			if (n->d_name[0] == '.')
				continue;
			join(dst, sizeof dst, kd, n->d_name);
			strncat(dst, "/dump", sizeof dst - strlen(dst) - 1);
			if (lstat(dst, &st) || !S_ISDIR(st.st_mode))
				continue;
			strncat(dst, "/aic_timestamp.bin", sizeof dst - strlen(dst) - 1);
			if (put_file(dst, data, len, 0)) {
				fail(rs, dst, "%s", strerror(errno));
				closedir(e);
				closedir(d);
				free(data);
				return -1;
			}
		}
		closedir(e);
	}
	closedir(d);
	free(data);
	return 0;
}

int range_split(const char *run, enum board_fmt fmt, unsigned replays, struct range_stats *st, char *err,
                size_t es)
{
	char tmp[PATH_MAX + 16], dd[PATH_MAX * 2], pd[PATH_MAX * 3], od[PATH_MAX * 4];
	struct rs rs = { run, fmt, err, es, st };
	DIR *t, *dv, *pv;
	struct dirent *a, *b, *c;
	int rc = 0;
	memset(st, 0, sizeof *st);
	join(tmp, sizeof tmp, run, "tmp_dump");
	if (!(t = opendir(tmp)))
		return errno == ENOENT ? 0 : (fail(&rs, tmp, "%s", strerror(errno)), -1);
	while (!rc && (a = readdir(t))) {
		if (strncmp(a->d_name, "device", 6))
			continue;
		join(dd, sizeof dd, tmp, a->d_name);
		if (!(dv = opendir(dd)))
			continue;
		while (!rc && (b = readdir(dv))) {
			if (!all_digits(b->d_name, 32))
				continue;
			join(pd, sizeof pd, dd, b->d_name);
			if (!(pv = opendir(pd)))
				continue;
			while (!rc && (c = readdir(pv))) {
				if (!all_digits(c->d_name, 3))
					continue;
				join(od, sizeof od, pd, c->d_name);
				rc = split_one(&rs, od, replays);
			}
			closedir(pv);
		}
		closedir(dv);
		if (!rc) {
			join(pd, sizeof pd, dd, "aic_timestamp.bin");
			rc = copy_stamp(&rs, a->d_name, pd);
		}
	}
	closedir(t);
	if (!rc)
		io_rm_tree(tmp);
	return rc;
}
