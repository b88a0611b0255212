// SPDX-License-Identifier: GPL-2.0-only
/*
 * many_threads COUNT [SECONDS]: starts COUNT threads (default 500), prints
 * "tid N" for each on stdout, and waits, asleep, for SIGUSR1. Then every
 * thread runs worker -> spin_outer -> spin_leaf for SECONDS (default 3),
 * and sleeps again until the process is killed. The threads only take the
 * CPUs while a test wants them to: a profiler starting or stopping beside
 * them is not starved. At nice 10, to leave some CPU to the rest.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

static volatile sig_atomic_t go;
static double spin_seconds = 3;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void nap(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

NOINLINE static unsigned long spin_leaf(unsigned long x)
{
	return mix(x, 5000);
}

NOINLINE static unsigned long spin_outer(unsigned long x)
{
	unsigned long r = spin_leaf(mix(x, 8));

	KEEP();
	return r + x;
}

NOINLINE static void *worker(void *arg)
{
	unsigned long x = (unsigned long)arg;
	double until;

	printf("tid %d\n", gettid());
	while (!go)
		nap(10);
	until = workload_now() + spin_seconds;
	while (workload_now() < until) {
		x = spin_outer(x);
		KEEP();
	}
	workload_sink = x;
	for (;;)
		nap(1000);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	pthread_attr_t attr;
	pthread_t thread;
	int nr;

	nr = argc > 1 ? atoi(argv[1]) : 500;
	spin_seconds = argc > 2 ? atof(argv[2]) : 3;
	if (nr < 1 || spin_seconds <= 0) {
		fprintf(stderr, "usage: %s [COUNT [SECONDS]]\n", argv[0]);
		return 64;
	}
	if (nice(10) < 0)
		perror("nice");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < nr; i++) {
		if (pthread_create(&thread, &attr, worker, (void *)(unsigned long)i)) {
			fprintf(stderr, "%s: cannot create thread %d\n", argv[0], i);
			return 1;
		}
	}
	for (;;)
		nap(1000);
}
