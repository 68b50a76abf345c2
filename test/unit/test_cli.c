/* Unit tests of lib/cli.c's end of a run on standard output
 * (cli_flush, cli_stdout_done): each case runs in a child whose stdout is
 * /dev/full, a pipe without a reader, or /dev/null, and reports the status
 * cli_stdout_done gave and what it said on stderr.
 *
 * Prints one line per failing check, then "N passed, N failed"; exits 0
 * only when nothing failed. */
#include "cli.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"

enum { TO_FULL, TO_GONE, TO_NULL };

/* A child prints "summary" on stdout, going to where, flushes with
 * cli_flush when flush is set, and exits with cli_stdout_done(status).
 * Its status; its stderr in msg. */
static int run_child(int where, int flush, int status, char *msg, size_t cap)
{
	int err[2], out[2] = { -1, -1 }, st;
	ssize_t n;
	size_t got = 0;
	pid_t pid;

	if (pipe(err) || (where == TO_GONE && pipe(out)))
		exit(2);
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		exit(2);
	if (pid == 0) {
		int fd = where == TO_FULL ? open("/dev/full", O_WRONLY) : where == TO_NULL ? open("/dev/null", O_WRONLY) : out[1];
		if (where == TO_GONE)
			close(out[0]);
		dup2(fd, 1);
		dup2(err[1], 2);
		close(err[0]);
		cli_init("test_cli");
		printf("summary\n");
		if (flush)
			cli_flush(stdout);
		_exit(cli_stdout_done(status));
	}
	close(err[1]);
	if (where == TO_GONE) {
		close(out[0]);
		close(out[1]);
	}
	while (got + 1 < cap && (n = read(err[0], msg + got, cap - 1 - got)) > 0)
		got += (size_t)n;
	msg[got] = 0;
	close(err[0]);
	if (waitpid(pid, &st, 0) != pid)
		exit(2);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(void)
{
	char msg[512];

	/* A disk full under the summary: said, with its cause, and status 4 */
	CHECK_INT(run_child(TO_FULL, 1, 0, msg, sizeof msg), EXIT_IO);
	CHECK_MSG(!strcmp(msg, "test_cli: (stdout): cannot write: No space left on device\n"), "message: %s", msg);
	/* the same when only the end flushes; 1 becomes 4, 130 stays */
	CHECK_INT(run_child(TO_FULL, 0, 1, msg, sizeof msg), EXIT_IO);
	CHECK_MSG(strstr(msg, "No space left on device") != NULL, "message: %s", msg);
	CHECK_INT(run_child(TO_FULL, 1, EXIT_INTR, msg, sizeof msg), EXIT_INTR);
	/* the reader gone away: not an error, nothing said */
	CHECK_INT(run_child(TO_GONE, 1, 0, msg, sizeof msg), 0);
	CHECK_MSG(msg[0] == 0, "message: %s", msg);
	CHECK_INT(run_child(TO_GONE, 0, 1, msg, sizeof msg), 1);
	/* written: the status as it was */
	CHECK_INT(run_child(TO_NULL, 1, 1, msg, sizeof msg), 1);
	CHECK_MSG(msg[0] == 0, "message: %s", msg);
	return unit_done();
}
