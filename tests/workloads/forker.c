// SPDX-License-Identifier: GPL-2.0-only
/*
 * forker [COUNT] [MILLISECONDS]: fork and exec COUNT (default 200)
 * short-lived children, one after the other, each running the burn workload
 * (from the forker's directory) for MILLISECONDS (default 20).
 *
 * Every child is a new process with a new executable: its samples are only
 * complete if the profiler loads its tables between exec and the first
 * samples, or falls back without dropping them.
 */
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "workload.h"

/* The burn workload next to /proc/self/exe. */
static int burn_path(char *path, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", path, size - 1);
	char *slash;

	if (n < 0)
		return -1;
	path[n] = '\0';
	slash = strrchr(path, '/');
	if (!slash || (size_t)(slash - path) + sizeof("/burn") > size)
		return -1;
	strcpy(slash, "/burn");
	return 0;
}

static int run_child(const char *path, const char *ms)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		execl(path, "burn", ms, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	int count = argc > 1 ? atoi(argv[1]) : 200;
	const char *ms = argc > 2 ? argv[2] : "20";
	char path[PATH_MAX];
	int failed = 0;

	if (burn_path(path, sizeof(path))) {
		fprintf(stderr, "%s: cannot find the burn workload\n", argv[0]);
		return 1;
	}
	for (int i = 0; i < count; i++)
		failed += run_child(path, ms) != 0;
	if (failed) {
		fprintf(stderr, "%s: %d of %d children failed\n", argv[0], failed, count);
		return 1;
	}
	return 0;
}
