// SPDX-License-Identifier: GPL-2.0-only
/*
 * threads [SECONDS]: two threads with distinct call chains for SECONDS
 * (default 3): thread A runs a1 -> a2 -> leaf_a, thread B runs
 * b1 -> b2 -> leaf_b. Prints "threads: thread a is tid TID" (and b) on stderr
 * so a test can check that each chain is attributed to its own thread.
 * Thread B names itself "worker-b" (pthread_setname_np); A keeps the name of
 * the process.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <unistd.h>

#include "workload.h"

NOINLINE static unsigned long leaf_a(unsigned long x)
{
	return mix(x, 20000);
}

NOINLINE static unsigned long a2(unsigned long x)
{
	unsigned long r = leaf_a(mix(x, 16));

	KEEP();
	return r + x;
}

NOINLINE static unsigned long a1(unsigned long x)
{
	unsigned long r = a2(mix(x, 16));

	KEEP();
	return r + x;
}

/* Different work than A's leaf, so the two leaves are never folded together. */
NOINLINE static unsigned long leaf_b(unsigned long x)
{
	return mix(x ^ 0x5bd1e995, 20001);
}

NOINLINE static unsigned long b2(unsigned long x)
{
	unsigned long r = leaf_b(mix(x, 17));

	KEEP();
	return r ^ x;
}

NOINLINE static unsigned long b1(unsigned long x)
{
	unsigned long r = b2(mix(x, 17));

	KEEP();
	return r ^ x;
}

static pthread_mutex_t print_lock = PTHREAD_MUTEX_INITIALIZER;

static void announce(const char *name)
{
	pthread_mutex_lock(&print_lock);
	fprintf(stderr, "threads: thread %s is tid %d\n", name, gettid());
	pthread_mutex_unlock(&print_lock);
}

NOINLINE static void *thread_a(void *arg)
{
	unsigned long x = 1;

	announce("a");
	while (workload_running()) {
		x = a1(x);
		KEEP();
	}
	*(unsigned long *)arg = x;
	return NULL;
}

NOINLINE static void *thread_b(void *arg)
{
	unsigned long x = 2;

	pthread_setname_np(pthread_self(), "worker-b");
	announce("b");
	while (workload_running()) {
		x = b1(x);
		KEEP();
	}
	*(unsigned long *)arg = x;
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned long ra = 0, rb = 0;
	pthread_t ta, tb;

	workload_start(argc, argv, 1, 3);
	if (pthread_create(&ta, NULL, thread_a, &ra) || pthread_create(&tb, NULL, thread_b, &rb)) {
		fprintf(stderr, "%s: cannot create threads\n", argv[0]);
		return 1;
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	workload_sink = ra ^ rb;
	return 0;
}
