// SPDX-License-Identifier: GPL-2.0-only
/*
 * pingpong [ROUND_TRIPS]: a context-switch storm, for the cost of
 * record --off-cpu (tests/bench/offcpu.py): two threads pass a byte back
 * and forth over two pipes, ROUND_TRIPS times (default 200000), each
 * blocking in read() until the other writes: two blocks and two switches a
 * round trip. Prints "pingpong: N round trips in NS ns" on stderr, the time
 * measured around the round trips.
 */
#include <pthread.h>
#include <unistd.h>

#include "workload.h"

static int ping[2], pong[2];
static long rounds = 200000;

NOINLINE static void *ponger(void *arg)
{
	char c;

	for (long i = 0; i < rounds; i++) {
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(1);
		KEEP();
	}
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	pthread_t t;
	char c = 'x';

	if (argc > 1)
		rounds = atol(argv[1]);
	if (rounds <= 0 || pipe(ping) || pipe(pong) || pthread_create(&t, NULL, ponger, NULL))
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < rounds; i++) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 1;
		KEEP();
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	pthread_join(t, NULL);
	fprintf(stderr, "pingpong: %ld round trips in %lld ns\n", rounds,
		(long long)(b.tv_sec - a.tv_sec) * 1000000000LL + (b.tv_nsec - a.tv_nsec));
	return 0;
}
