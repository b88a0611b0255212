// SPDX-License-Identifier: GPL-2.0-only
/*
 * waits [SECONDS [DIR]]: threads that wait in known ways for SECONDS
 * (default 2), each timing its own waits, for the off-CPU tests:
 *
 *   compute  computes, never waits (compute_main -> compute_spin)
 *   sleeper  nanosleep of 5 ms at a time (sleeper_main -> sleep_once)
 *   reader   read() on a pipe (reader_main -> read_once) ...
 *   feeder   ... that writes a byte to it every 8 ms (feeder_main -> feed_once)
 *   waiter   pthread_mutex_lock of a mutex (waiter_main -> lock_once), then
 *            a nap of 1 ms (nap_once) ...
 *   holder   ... held 12 ms at a time (holder_main -> hold_once, asleep
 *            inside), then let go for 4 ms (rest_once)
 *   syncer   writes 64 KiB and fsync()s it, in DIR (default .) (syncer_main -> sync_once),
 *            in a file it makes (open_file) and closes at the end (close_file),
 *            which wait on the disk too
 *
 * Each thread names itself as above (pthread_setname_np) and, at the end,
 * prints a line on stderr for each function that waits: "waits: NAME tid
 * TID FUNCTION NS ns N calls R ns runnable B blocks", NS the time spent off the CPU
 * inside its waiting calls: around each, the monotonic time it took less
 * the thread's CPU time in it (an fsync writes pages on the CPU too). Every
 * wait of a thread is in one of these functions. NS counts the time the
 * thread was runnable but not running, too: R of it, as the kernel's
 * scheduler statistics tell (/proc/thread-self/schedstat's run delay; -1
 * when the kernel keeps none). Time off the CPU as a profiler sees it,
 * from leaving the CPU blocked to running again, is between NS - R (the
 * time blocked alone) and NS (with the time it waited for a CPU after a
 * preemption, which a profiler counts as on-CPU demand, not off-CPU). B
 * is how many times it blocked (left the CPU of its own accord: getrusage's
 * voluntary context switches).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "workload.h"

#define WAIT_KINDS 3

struct waits {
	const char *name;
	void *(*fn)(void *);
	const char *what[WAIT_KINDS]; /* the functions that wait */
	long long ns[WAIT_KINDS];     /* off the CPU in their waiting calls */
	unsigned long calls[WAIT_KINDS];
	long long runnable_ns[WAIT_KINDS]; /* of ns, runnable, waiting for a CPU */
	long blocks[WAIT_KINDS];	   /* the times it blocked in them */
	int schedstat_fd;		   /* /proc/thread-self/schedstat; -1: none */
	pid_t tid;
};

static int pipe_fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const char *sync_dir = ".";
static volatile int stop;

static long long clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_ms(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* The ns the thread of w has waited runnable for a CPU in its life (the second field). */
static long long run_delay_ns(const struct waits *w)
{
	char buf[96];
	long long ran, delay;
	ssize_t n;

	if (w->schedstat_fd < 0)
		return 0;
	n = pread(w->schedstat_fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	return sscanf(buf, "%lld %lld", &ran, &delay) == 2 ? delay : 0;
}

/* The times the calling thread has blocked: its voluntary context switches. */
static long blocks_so_far(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw;
}

/* Times one waiting call of w, of the kind-th function that waits: its time off the CPU. */
#define TIMED(w, kind, call)                                                                       \
	do {                                                                                       \
		long long r0 = run_delay_ns(w), b0 = blocks_so_far();                              \
		long long t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);  \
		call;                                                                              \
		(w)->ns[kind] +=                                                                   \
			clock_ns(CLOCK_MONOTONIC) - t0 - (clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0); \
		(w)->runnable_ns[kind] += run_delay_ns(w) - r0;                                    \
		(w)->blocks[kind] += blocks_so_far() - b0;                                         \
		(w)->calls[kind]++;                                                                \
		KEEP();                                                                            \
	} while (0)

NOINLINE static void compute_spin(struct waits *w)
{
	workload_sink = mix(w->calls[0]++, 20000);
}

static void *compute_main(void *arg)
{
	while (!stop) {
		compute_spin(arg);
		KEEP();
	}
	return arg;
}

NOINLINE static void sleep_once(struct waits *w)
{
	TIMED(w, 0, sleep_ms(5));
}

static void *sleeper_main(void *arg)
{
	while (!stop) {
		sleep_once(arg);
		KEEP();
	}
	return arg;
}

NOINLINE static int read_once(struct waits *w)
{
	char c = 0;
	ssize_t n;

	TIMED(w, 0, n = read(pipe_fds[0], &c, 1));
	return n == 1 && c != 'q';
}

static void *reader_main(void *arg)
{
	while (read_once(arg))
		KEEP();
	return arg;
}

NOINLINE static void feed_once(struct waits *w, char c)
{
	TIMED(w, 0, sleep_ms(8));
	if (write(pipe_fds[1], &c, 1) != 1)
		exit(1);
}

static void *feeder_main(void *arg)
{
	while (!stop) {
		feed_once(arg, 'x');
		KEEP();
	}
	feed_once(arg, 'q');
	return arg;
}

NOINLINE static void lock_once(struct waits *w)
{
	TIMED(w, 0, pthread_mutex_lock(&lock));
	pthread_mutex_unlock(&lock);
}

NOINLINE static void nap_once(struct waits *w)
{
	TIMED(w, 1, sleep_ms(1));
}

static void *waiter_main(void *arg)
{
	while (!stop) {
		lock_once(arg);
		nap_once(arg);
		KEEP();
	}
	return arg;
}

/* Takes the lock (timed too: the waiter may hold it for a moment), sleeps 12 ms holding it. */
NOINLINE static void hold_once(struct waits *w)
{
	TIMED(w, 0, pthread_mutex_lock(&lock));
	TIMED(w, 0, sleep_ms(12));
	pthread_mutex_unlock(&lock);
}

NOINLINE static void rest_once(struct waits *w)
{
	TIMED(w, 1, sleep_ms(4));
}

static void *holder_main(void *arg)
{
	while (!stop) {
		hold_once(arg);
		rest_once(arg);
		KEEP();
	}
	return arg;
}

static void write_and_sync(int fd, const char *buf, size_t len)
{
	if (pwrite(fd, buf, len, 0) != (ssize_t)len || fsync(fd))
		exit(1);
}

/* The write waits too, on the pages the last fsync is still writing back. */
NOINLINE static void sync_once(struct waits *w, int fd, const char *buf, size_t len)
{
	TIMED(w, 0, write_and_sync(fd, buf, len));
}

/* Makes the file the syncer writes, unlinked: creating it waits on the file system's journal. */
NOINLINE static int open_file(struct waits *w)
{
	char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/waits-sync.XXXXXX", sync_dir);
	TIMED(w, 1, fd = mkstemp(path); if (fd >= 0) unlink(path));
	if (fd < 0) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* Its last close waits for the blocks of the unlinked file to be freed. */
NOINLINE static void close_file(struct waits *w, int fd)
{
	TIMED(w, 2, close(fd));
}

static void *syncer_main(void *arg)
{
	static char buf[65536];
	int fd = open_file(arg);

	while (!stop) {
		memset(buf, (int)((struct waits *)arg)->calls[0], sizeof(buf));
		sync_once(arg, fd, buf, sizeof(buf));
		KEEP();
	}
	close_file(arg, fd);
	return arg;
}

static void *start(void *arg)
{
	struct waits *w = arg;

	w->tid = (pid_t)syscall(SYS_gettid);
	w->schedstat_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
	pthread_setname_np(pthread_self(), w->name);
	return w->fn(w);
}

int main(int argc, char **argv)
{
	struct waits ws[] = {
		{ .name = "compute", .fn = compute_main, .what = { "compute_spin" } },
		{ .name = "sleeper", .fn = sleeper_main, .what = { "sleep_once" } },
		{ .name = "reader", .fn = reader_main, .what = { "read_once" } },
		{ .name = "feeder", .fn = feeder_main, .what = { "feed_once" } },
		{ .name = "waiter", .fn = waiter_main, .what = { "lock_once", "nap_once" } },
		{ .name = "holder", .fn = holder_main, .what = { "hold_once", "rest_once" } },
		{ .name = "syncer",
		  .fn = syncer_main,
		  .what = { "sync_once", "open_file", "close_file" } },
	};
	pthread_t t[sizeof(ws) / sizeof(ws[0])];
	double seconds = argc > 1 ? atof(argv[1]) : 2.0;

	if (argc > 2)
		sync_dir = argv[2];
	if (pipe(pipe_fds))
		return 1;
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		if (pthread_create(&t[i], NULL, start, &ws[i]))
			return 1;
	sleep_ms((long)(seconds * 1000));
	stop = 1;
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		pthread_join(t[i], NULL);
	for (size_t i = 0; i < sizeof(ws) / sizeof(ws[0]); i++)
		for (int k = 0; k < WAIT_KINDS && ws[i].what[k]; k++)
			fprintf(stderr,
				"waits: %s tid %d %s %lld ns %lu calls %lld ns runnable %ld blocks\n",
				ws[i].name, (int)ws[i].tid, ws[i].what[k], ws[i].ns[k],
				ws[i].calls[k], ws[i].schedstat_fd < 0 ? -1 : ws[i].runnable_ns[k],
				ws[i].blocks[k]);
	return 0;
}
