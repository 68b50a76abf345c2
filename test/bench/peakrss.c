/* peakrss: run a command, report its wall time and peak memory.
 *
 *   peakrss [-o FILE] -- CMD [ARGS...]
 *
 * Prints one line to stderr (or appends it to FILE):
 *   wall_s=<seconds> maxrss_kb=<KiB> status=<exit status>
 * and exits with the command's status (128+N if it died of signal N).
 *
 * maxrss_kb is ru_maxrss of getrusage(RUSAGE_CHILDREN): the peak resident
 * set of the largest single process among all waited-for descendants, not a
 * sum.  For a pipeline run it through a shell (peakrss -- sh -c 'a | b'):
 * the shell waits for every stage, so they all count. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROG "peakrss"

static void usage(FILE *f)
{
	fputs("usage: " PROG " [-o FILE] -- CMD [ARGS...]\n"
	      "Run CMD; print 'wall_s=S maxrss_kb=K status=N' to stderr or append\n"
	      "it to FILE; exit with CMD's status.  maxrss_kb is the peak RSS of\n"
	      "the largest descendant process (getrusage RUSAGE_CHILDREN).\n", f);
}

int main(int argc, char **argv)
{
	const char *outfile = NULL;
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(a, "--version")) {
			puts(PROG " 1");
			return 0;
		} else if (!strcmp(a, "-o")) {
			if (++i >= argc) {
				fputs(PROG ": option -o needs a value\n", stderr);
				return 2;
			}
			outfile = argv[i];
		} else if (!strncmp(a, "-o", 2)) {
			outfile = a + 2;
		} else if (a[0] == '-' && a[1]) {
			fprintf(stderr, PROG ": unknown option '%s'\n", a);
			usage(stderr);
			return 2;
		} else {
			break;   /* the command, without a "--" */
		}
	}
	if (i >= argc) {
		usage(stderr);
		return 2;
	}

	/* Open the report file first: a bad path is a usage problem, found
	 * before the (possibly long) run. */
	int outfd = -1;
	if (outfile) {
		outfd = open(outfile, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
		if (outfd < 0) {
			fprintf(stderr, PROG ": %s: %s\n", outfile, strerror(errno));
			return 4;
		}
	}

	/* Like time(1): the terminal's ^C and ^\ go to the command; we stay to
	 * report how it ended. */
	struct sigaction ign, old_int, old_quit;
	memset(&ign, 0, sizeof ign);
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);

	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid < 0) {
		fprintf(stderr, PROG ": fork: %s\n", strerror(errno));
		return 4;
	}
	if (pid == 0) {
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGQUIT, &old_quit, NULL);
		execvp(argv[i], argv + i);
		int e = errno;
		fprintf(stderr, PROG ": %s: %s\n", argv[i], strerror(e));
		_exit(e == ENOENT ? 127 : 126);
	}

	int ws;
	while (waitpid(pid, &ws, 0) < 0) {
		if (errno != EINTR) {
			fprintf(stderr, PROG ": waitpid: %s\n", strerror(errno));
			return 4;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);

	struct rusage ru;
	if (getrusage(RUSAGE_CHILDREN, &ru) < 0) {
		fprintf(stderr, PROG ": getrusage: %s\n", strerror(errno));
		return 4;
	}
	int status = WIFEXITED(ws) ? WEXITSTATUS(ws)
	           : WIFSIGNALED(ws) ? 128 + WTERMSIG(ws) : 1;
	double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

	char line[192];
	double cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	             (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	int n = snprintf(line, sizeof line, "wall_s=%.3f cpu_s=%.3f maxrss_kb=%ld status=%d\n",
	                 wall, cpu, (long)ru.ru_maxrss, status);
	if (outfd >= 0) {
		if (write(outfd, line, (size_t)n) != n || close(outfd) < 0) {
			fprintf(stderr, PROG ": %s: %s\n", outfile, strerror(errno));
			return 4;
		}
	} else {
		fputs(line, stderr);
	}
	return status;
}
