/* biu-bench DIR: the BIU decoder's rate (lib/biu.h) over the timeline.bin
 * files of an on-board dump, events counted but not written: MB of
 * timeline.bin per CPU-second, both modes, the files read through the
 * page cache as biu-timeline reads them. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "biu.h"
#include "mem.h"

static uint64_t events;

static void count(void *ctx, const struct biu_event *e)
{
	(void)ctx;
	(void)e;
	events++;
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "PipeTimeline", "InstrTimeline" };
	struct timespec t0, t1;
	char msg[300];
	int m;
	if (argc != 2) {
		fprintf(stderr, "usage: biu-bench DIR\n");
		return 2;
	}
	for (m = 0; m < 2; m++) {
		struct biu *b = biu_new(m ? BIU_INSTR_TIMELINE : BIU_PIPE_TIMELINE, count, NULL);
		DIR *d = opendir(argv[1]);
		struct dirent *e;
		uint64_t bytes = 0;
		double secs;
		if (!d) {
			perror(argv[1]);
			return 3;
		}
		events = 0;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
		while ((e = readdir(d))) {
			char *path;
			struct stat sb;
			if (strncmp(e->d_name, "timeline.bin", 12))
				continue;
			path = xpath(argv[1], e->d_name);
			if (biu_read_file(b, path, msg, sizeof msg) < 0) {
				fprintf(stderr, "biu-bench: %s: %s\n", path, msg);
				return 3;
			}
			if (!stat(path, &sb))
				bytes += (uint64_t)sb.st_size;
			free(path);
		}
		closedir(d);
		biu_finish(b);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (secs < 1e-6)
			secs = 1e-6;
		printf("biu-bench: %s decode of %.1f MB of timeline.bin (%llu records, %llu events): %.3f CPU-s, %.0f MB "
		       "per CPU-second\n", names[m], (double)bytes / 1e6, (unsigned long long)biu_stats(b)->records,
		       (unsigned long long)events, secs, (double)bytes / 1e6 / secs);
		biu_free(b);
	}
	return 0;
}
