// SPDX-License-Identifier: GPL-2.0-only
/*
 * sigframe [SECONDS]: main -> busy_loop spins for SECONDS (default 3) while
 * a CPU-time timer (ITIMER_PROF) sends SIGPROF every millisecond; the
 * handler, on_sigprof, calls sig_work, which runs for a few milliseconds, so
 * most of the time goes to sig_work, on a stack that the kernel's signal
 * frame and glibc's __restore_rt link to the interrupted busy_loop:
 * main;busy_loop;__restore_rt;on_sigprof;sig_work.
 *
 * The timer fires at the kernel's tick at the earliest, and again as soon
 * as the handler returns when it ran longer than a period: the handler takes
 * most of the time, up to all of it. So the handler itself stops the timer
 * once the time is up, and busy_loop then returns. Built without frame
 * pointers.
 */
#include <signal.h>
#include <sys/time.h>

#include "workload.h"

static volatile sig_atomic_t done;
static unsigned long handled;

NOINLINE static unsigned long sig_work(unsigned long x)
{
	return mix(x, 2000000);
}

NOINLINE static void on_sigprof(int sig)
{
	static const struct itimerval off;

	(void)sig;
	handled = sig_work(handled);
	KEEP();
	if (!workload_running()) {
		setitimer(ITIMER_PROF, &off, NULL);
		done = 1;
	}
}

/* Interrupted anywhere in its loop: no call, so nothing but the signal frame leads here. */
NOINLINE static unsigned long busy_loop(unsigned long x)
{
	while (!done)
		x = mix(x, 1000);
	return x;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigprof, .sa_flags = SA_RESTART };
	struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } };
	unsigned long x;

	workload_start(argc, argv, 1, 3);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL) || setitimer(ITIMER_PROF, &every_ms, NULL)) {
		perror("sigframe: SIGPROF timer");
		return 1;
	}
	x = busy_loop(1);
	KEEP();
	workload_sink = x + handled;
	return 0;
}
