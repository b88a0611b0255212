// SPDX-License-Identifier: GPL-2.0-only
/*
 * execer SECONDS MIB NEXT_MIB NEXT: fills MIB MiB of memory, then execs
 * NEXT (a path) with the sizes swapped and itself as the next one's NEXT,
 * again and again until SECONDS have passed since the first of them.
 *
 * With two names of this program (hard links) and one size 0, one of them
 * fills its memory and the other does not: an exec into the second frees
 * the first's memory after its point of no return, where the old user
 * stack is gone, so its samples there belong to the second. The deadline
 * goes along as an absolute time (CLOCK_MONOTONIC, "@SECONDS").
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "workload.h"

#define MIB (1024 * 1024)

int main(int argc, char **argv)
{
	char until[64];
	long mib;

	if (argc != 5) {
		fprintf(stderr, "usage: %s SECONDS MIB NEXT_MIB NEXT\n", argv[0]);
		return 64;
	}
	if (argv[1][0] == '@')
		workload_deadline = strtod(argv[1] + 1, NULL);
	else
		workload_start(argc, argv, 1, 3);
	if (!workload_running())
		return 0;
	/* Filled by the kernel at once: most of the time goes to freeing it, in the exec. */
	mib = atol(argv[2]);
	if (mib > 0 && mmap(NULL, mib * MIB, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0) == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	snprintf(until, sizeof(until), "@%.6f", workload_deadline);
	execl(argv[4], argv[4], until, argv[3], argv[2], argv[0], (char *)NULL);
	perror(argv[4]);
	return 1;
}
