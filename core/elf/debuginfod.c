// SPDX-License-Identifier: GPL-2.0-only
/*
 * The fetcher is a child process that reads build IDs, one per line, from a
 * socket and answers each with "BUILD_ID ERR PATH" once libdebuginfod has
 * it in its cache (ERR 0) or has given up (ERR -errno: -ENOENT when no
 * server has it). A process rather than a thread: a transfer that hangs is
 * ended by SIGKILL at once, where libdebuginfod only looks at a thread's
 * request to cancel between waits of its own, and no transfer is left
 * running when unwprof exits and its libraries are torn down.
 *
 * The parent keeps one entry per build ID asked for: requests are written
 * to the socket as they come (buffered when it is full) and the answers
 * read whenever an entry is polled.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#if UNWPROF_DEBUGINFOD
#include <dlfcn.h>
#include <elfutils/debuginfod.h>
#endif

#include "../util/common.h"
#include "../util/log.h"
#include "debuginfod.h"
#include "elf_file.h"

#define BUILD_ID_HEX_MAX (2 * ELF_BUILD_ID_MAX)
#ifndef P_PIDFD
#define P_PIDFD 3 /* glibc 2.36 has waitid() on a pidfd, not yet its name */
#endif
/* The fetcher's end of the socket, in the fetcher. */
#define FETCHER_FD 3

struct fetch {
	char build_id[BUILD_ID_HEX_MAX + 1];
	enum debuginfod_state state;
	char *path; /* FOUND */
};

struct debuginfod {
	char *urls;
	pid_t pid; /* the fetcher, 0 once stopped */
	/* the fetcher, to signal it though a reaper of all children (launch.c) had it already */
	int pidfd;
	int sock; /* -1 once stopped */
	struct fetch *fetches;
	size_t nr_fetches, cap_fetches;
	char *out; /* requests not yet written */
	size_t out_len, out_cap;
	char in[4096 + 2 * BUILD_ID_HEX_MAX]; /* the start of an answer not read whole */
	size_t in_len;
	int first_error;
};

static bool is_build_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return n == strlen(s) && n >= 2 && n <= BUILD_ID_HEX_MAX && n % 2 == 0;
}

static struct fetch *fetch_find(const struct debuginfod *d, const char *build_id)
{
	for (size_t i = 0; i < d->nr_fetches; i++)
		if (!strcmp(d->fetches[i].build_id, build_id))
			return &d->fetches[i];
	return NULL;
}

/* The fetcher */

#if UNWPROF_DEBUGINFOD
#define DEBUGINFOD_SONAME "libdebuginfod.so.1"

/*
 * libdebuginfod, loaded only when DEBUGINFOD_URLS names servers: linked,
 * it and the twenty-odd libraries of libcurl it brings would be loaded by
 * every run, and add 5 MiB to its memory.
 */
static struct {
	__typeof__(debuginfod_begin) *begin;
	__typeof__(debuginfod_find_debuginfo) *find_debuginfo;
} lib;

static int lib_load(void)
{
	void *h;

	if (lib.begin)
		return 0;
	h = dlopen(DEBUGINFOD_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		pr_debug("debuginfod: %s", dlerror());
		return -ELIBACC;
	}
	lib.find_debuginfo = (__typeof__(lib.find_debuginfo))dlsym(h, "debuginfod_find_debuginfo");
	lib.begin = (__typeof__(lib.begin))dlsym(h, "debuginfod_begin");
	if (!lib.begin || !lib.find_debuginfo) {
		lib.begin = NULL;
		dlclose(h);
		return -ELIBBAD;
	}
	return 0;
}

/* Answers the requests of sock until it closes; the process's whole life. */
static void __attribute__((noreturn)) fetcher_main(int sock)
{
	debuginfod_client *client = lib.begin();
	FILE *in = fdopen(sock, "r");
	char line[BUILD_ID_HEX_MAX + 2];

	while (in && fgets(line, sizeof(line), in)) {
		char *path = NULL;
		int fd;

		line[strcspn(line, "\n")] = '\0';
		fd = client ? lib.find_debuginfo(client, (const unsigned char *)line, 0, &path) :
			      -ENOMEM;
		if (fd >= 0)
			close(fd);
		if (dprintf(sock, "%s %d %s\n", line, fd >= 0 ? 0 : fd,
			    fd >= 0 && path ? path : "") < 0)
			break;
		free(path);
	}
	_exit(0);
}

/*
 * In the child: dies with unwprof, leaves Ctrl-C to it (the end of the run
 * stops the fetcher), keeps stderr (libdebuginfod's DEBUGINFOD_VERBOSE and
 * DEBUGINFOD_PROGRESS) and nothing else of unwprof's files.
 */
static void __attribute__((noreturn)) fetcher_start(int sock, pid_t parent)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
		_exit(1);
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 || dup2(null, STDOUT_FILENO) < 0 ||
	    dup2(sock, FETCHER_FD) < 0)
		_exit(1);
	close_range(FETCHER_FD + 1, ~0U, 0);
	fetcher_main(FETCHER_FD);
}

static int fetcher_fork(struct debuginfod *d)
{
	pid_t parent = getpid();
	int sv[2], err = lib_load();

	if (err)
		return err;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return -errno;
	fflush(NULL);
	d->pid = fork();
	if (d->pid < 0) {
		err = -errno;
		close(sv[0]);
		close(sv[1]);
		return err;
	}
	if (d->pid == 0)
		fetcher_start(sv[1], parent);
	close(sv[1]);
	d->sock = sv[0];
	d->pidfd = (int)syscall(SYS_pidfd_open, d->pid, 0);
	if (d->pidfd < 0)
		return -errno;
	if (fcntl(d->sock, F_SETFL, O_NONBLOCK))
		return -errno;
	return 0;
}
#else
static int fetcher_fork(struct debuginfod *d)
{
	(void)d;
	return -EOPNOTSUPP;
}
#endif

/* The parent's side */

static void fetch_settle(struct debuginfod *d, struct fetch *f, enum debuginfod_state state,
			 int err, const char *path)
{
	if (f->state != DEBUGINFOD_PENDING)
		return;
	f->state = state;
	if (state == DEBUGINFOD_FOUND) {
		f->path = strdup(path);
		if (!f->path)
			f->state = DEBUGINFOD_FAILED;
	}
	if (state == DEBUGINFOD_FAILED && !d->first_error)
		d->first_error = err ? err : -ENOMEM;
	pr_debug("debuginfod: %s: %s", f->build_id,
		 state == DEBUGINFOD_FOUND ? f->path :
		 err			   ? strerror(-err) :
					     "abandoned");
}

/* One answer "BUILD_ID ERR PATH"; a line that is none is ignored. */
static void read_answer(struct debuginfod *d, char *line)
{
	char *sp = strchr(line, ' '), *path, *end;
	struct fetch *f;
	long err;

	if (!sp)
		return;
	*sp = '\0';
	f = fetch_find(d, line);
	errno = 0;
	err = strtol(sp + 1, &end, 10);
	if (!f || errno || *end != ' ' || err > 0 || err < -4095)
		return;
	path = end + 1;
	if (!err && path[0] == '/')
		fetch_settle(d, f, DEBUGINFOD_FOUND, 0, path);
	else
		fetch_settle(d, f, err == -ENOENT ? DEBUGINFOD_ABSENT : DEBUGINFOD_FAILED,
			     err ? (int)err : -EIO, NULL);
}

static void fetcher_stop(struct debuginfod *d);

/* Reads the answers that came; on EOF or an error, the fetcher is stopped. */
static void read_answers(struct debuginfod *d)
{
	while (d->sock >= 0) {
		ssize_t n = read(d->sock, d->in + d->in_len, sizeof(d->in) - 1 - d->in_len);
		char *line, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			fetcher_stop(d);
			return;
		}
		d->in_len += (size_t)n;
		d->in[d->in_len] = '\0';
		line = d->in;
		while ((nl = strchr(line, '\n'))) {
			*nl = '\0';
			read_answer(d, line);
			line = nl + 1;
		}
		d->in_len -= (size_t)(line - d->in);
		memmove(d->in, line, d->in_len);
		if (d->in_len == sizeof(d->in) - 1)
			d->in_len = 0; /* a line longer than any answer: dropped */
	}
}

/* Writes what the socket takes of the requests not yet written. */
static void write_requests(struct debuginfod *d)
{
	size_t done = 0;

	while (d->sock >= 0 && done < d->out_len) {
		ssize_t n = send(d->sock, d->out + done, d->out_len - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n < 0) {
			fetcher_stop(d);
			break;
		}
		done += (size_t)n;
	}
	if (d->sock < 0)
		return; /* stopped: nothing is left to write */
	d->out_len -= done;
	memmove(d->out, d->out + done, d->out_len);
}

/* Ends the fetcher now: what has no answer is abandoned. */
static void fetcher_stop(struct debuginfod *d)
{
	if (d->sock >= 0)
		close(d->sock);
	d->sock = -1;
	if (d->pidfd >= 0) {
		syscall(SYS_pidfd_send_signal, d->pidfd, SIGKILL, NULL, 0);
		/* ECHILD: a reaper of all children (core/targets/launch.c) had it already */
		while (waitid((idtype_t)P_PIDFD, (id_t)d->pidfd, NULL, WEXITED) < 0 &&
		       errno == EINTR)
			;
		close(d->pidfd);
	} else if (d->pid > 0) {
		kill(d->pid, SIGKILL); /* no pidfd: not reaped yet, since started just now */
		waitpid(d->pid, NULL, 0);
	}
	d->pidfd = -1;
	d->pid = 0;
	d->out_len = 0;
	for (size_t i = 0; i < d->nr_fetches; i++)
		fetch_settle(d, &d->fetches[i], DEBUGINFOD_ABANDONED, 0, NULL);
}

struct debuginfod *debuginfod__start(void)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	struct debuginfod *d;
	int err;

	if (!urls || !urls[strspn(urls, " \t")]) {
		errno = ENOENT;
		return NULL;
	}
	d = calloc(1, sizeof(*d));
	if (!d || !(d->urls = strdup(urls))) {
		free(d);
		errno = ENOMEM;
		return NULL;
	}
	d->sock = -1;
	d->pidfd = -1;
	err = fetcher_fork(d);
	if (err) {
		debuginfod__free(d);
		errno = -err;
		return NULL;
	}
	pr_debug("debuginfod: fetching from %s (pid %d)", d->urls, (int)d->pid);
	return d;
}

const char *debuginfod__urls(const struct debuginfod *d)
{
	return d->urls;
}

pid_t debuginfod__pid(const struct debuginfod *d)
{
	return d->pid;
}

static int queue_request(struct debuginfod *d, const char *build_id)
{
	size_t len = strlen(build_id);

	while (d->out_len + len + 1 > d->out_cap) {
		size_t cap = d->out_cap ? 2 * d->out_cap : 1024;
		char *out = realloc(d->out, cap);

		if (!out)
			return -ENOMEM;
		d->out = out;
		d->out_cap = cap;
	}
	memcpy(d->out + d->out_len, build_id, len);
	d->out[d->out_len + len] = '\n';
	d->out_len += len + 1;
	write_requests(d);
	return 0;
}

int debuginfod__request(struct debuginfod *d, const char *build_id)
{
	struct fetch *f;
	int err;

	if (!is_build_id(build_id))
		return -EINVAL;
	if (fetch_find(d, build_id))
		return 0;
	err = grow((void **)&d->fetches, &d->cap_fetches, d->nr_fetches, sizeof(*d->fetches));
	if (err)
		return err;
	f = &d->fetches[d->nr_fetches++];
	*f = (struct fetch){ .state = DEBUGINFOD_PENDING };
	strcpy(f->build_id, build_id);
	if (d->sock < 0) {
		fetch_settle(d, f, DEBUGINFOD_ABANDONED, 0, NULL);
		return -EPIPE;
	}
	err = queue_request(d, build_id);
	if (err)
		fetch_settle(d, f, DEBUGINFOD_FAILED, err, NULL);
	return err;
}

enum debuginfod_state debuginfod__poll(struct debuginfod *d, const char *build_id,
				       const char **path)
{
	struct fetch *f = fetch_find(d, build_id);

	if (!f)
		return DEBUGINFOD_UNKNOWN;
	if (f->state == DEBUGINFOD_PENDING) {
		write_requests(d);
		read_answers(d);
	}
	if (f->state == DEBUGINFOD_FOUND && path)
		*path = f->path;
	return f->state;
}

static bool any_pending(const struct debuginfod *d)
{
	for (size_t i = 0; i < d->nr_fetches; i++)
		if (d->fetches[i].state == DEBUGINFOD_PENDING)
			return true;
	return false;
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void debuginfod__finish(struct debuginfod *d, uint64_t deadline_ns)
{
	while (d->sock >= 0 && any_pending(d)) {
		struct pollfd pfd = { .fd = d->sock, .events = POLLIN };
		uint64_t now = monotonic_ns();

		if (d->out_len)
			pfd.events |= POLLOUT;
		if (now >= deadline_ns)
			break;
		if (poll(&pfd, 1, (int)((deadline_ns - now + 999999) / 1000000)) < 0 &&
		    errno != EINTR)
			break;
		write_requests(d);
		read_answers(d);
	}
	fetcher_stop(d);
}

void debuginfod__stats(const struct debuginfod *d, struct debuginfod_stats *st)
{
	*st = (struct debuginfod_stats){ .requested = d->nr_fetches,
					 .first_error = d->first_error };
	for (size_t i = 0; i < d->nr_fetches; i++) {
		switch (d->fetches[i].state) {
		case DEBUGINFOD_FOUND:
			st->found++;
			break;
		case DEBUGINFOD_ABSENT:
			st->absent++;
			break;
		case DEBUGINFOD_FAILED:
			st->failed++;
			break;
		case DEBUGINFOD_ABANDONED:
			st->abandoned++;
			break;
		default:
			break;
		}
	}
}

void debuginfod__free(struct debuginfod *d)
{
	if (!d)
		return;
	fetcher_stop(d);
	for (size_t i = 0; i < d->nr_fetches; i++)
		free(d->fetches[i].path);
	free(d->fetches);
	free(d->out);
	free(d->urls);
	free(d);
}
