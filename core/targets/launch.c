// SPDX-License-Identifier: GPL-2.0-only
/*
 * The launched command: forked and held on a pipe until the session is
 * loaded, stopped by ptrace right after its exec until its tables are
 * loaded, and at the end ended with every process it started, found by
 * their parents in /proc (the caller is their subreaper). See launch.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../util/common.h"
#include "launch.h"
#include "../util/log.h"

/* From the signal to SIGKILL, and from SIGKILL to giving up on a process. */
#define LAUNCH_GRACE_MS 1000
/* How often the tree is looked at meanwhile: a scan reads every /proc/PID/stat. */
#define LAUNCH_STEP_MS 20

struct launch {
	char *name; /* argv[0], for messages */
	pid_t pid;
	/*
	 * Write a byte: the child may exec. The read end is kept open too, so
	 * that writing to a child that died meanwhile is no SIGPIPE.
	 */
	int go[2];
	int err_fd; /* the child's errno when exec failed; EOF on success */
	int status; /* of waitpid, once exited */
	bool exited;
	bool finished;
	bool subreaper;	   /* set by launch__new, was_subreaper restored by free */
	int was_subreaper; /* PR_GET_CHILD_SUBREAPER before */
	int last_signal;   /* the last signal launch__finish sent to the tree */
	pid_t spare;	   /* a child of the caller outside the tree */
};

/* The descendants of the caller at the last scan, and those sent the signal of the round. */
struct tree {
	pid_t self;
	pid_t *pids;
	size_t nr;
	pid_t *sent;
	size_t nr_sent;
};

struct proc_parent {
	pid_t pid;
	pid_t ppid;
};

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static int wait_pid(pid_t pid, int *status, int flags)
{
	pid_t got;

	do
		got = waitpid(pid, status, flags);
	while (got < 0 && errno == EINTR);
	return got;
}

/* The child */

/* Drops root for the user asked for, groups first, uid last. */
static int become_user(const struct launch_opts *opts)
{
	if (!opts->set_user)
		return 0;
	if (setgroups(opts->nr_groups, opts->groups) || setgid(opts->gid) || setuid(opts->uid))
		return -1;
	return 0;
}

/*
 * The child stops at its exec so that its tables are loaded after exec (its
 * own mappings) and before it runs a single instruction of user code:
 * PTRACE_TRACEME makes a successful execve stop it with SIGTRAP; the parent
 * adds the process, attaches, then detaches, which lets it run. ptrace is
 * used rather than perf's enable_on_exec because the tables, not only the
 * sampling, must be in place at exec. It first waits on a pipe so that it
 * does not exec before the session exists; execvp's errno comes back on a
 * close-on-exec pipe. The caller's handlers of SIGINT and SIGTERM would run
 * in the child until its exec: a Ctrl-C meanwhile must end it.
 */
static void child_run(const struct launch_opts *opts, int go_fd, int err_fd)
{
	char c;
	int e;

	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (read(go_fd, &c, 1) != 1)
		_exit(EXIT_FAIL); /* the parent gave up */
	if (opts->stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(EXIT_FAIL);
	if (become_user(opts) == 0 && ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		execvp(opts->argv[0], opts->argv);
	e = errno;
	if (write(err_fd, &e, sizeof(e)) < 0)
		_exit(EXIT_FAIL);
	_exit(EXIT_FAIL);
}

/* The parent */

static int launch_fork(struct launch *l, const struct launch_opts *opts)
{
	int errp[2] = { -1, -1 };
	int err;

	if (prctl(PR_GET_CHILD_SUBREAPER, &l->was_subreaper) || prctl(PR_SET_CHILD_SUBREAPER, 1))
		return -errno;
	l->subreaper = true;
	if (pipe2(l->go, O_CLOEXEC) || pipe2(errp, O_CLOEXEC) || (l->pid = fork()) < 0) {
		err = -errno;
		l->pid = 0;
		close_fd(&errp[0]);
		close_fd(&errp[1]);
		return err;
	}
	if (l->pid == 0) {
		close(l->go[1]);
		close(errp[0]);
		child_run(opts, l->go[0], errp[1]);
	}
	close(errp[1]);
	l->err_fd = errp[0];
	return 0;
}

struct launch *launch__new(const struct launch_opts *opts)
{
	struct launch *l = calloc(1, sizeof(*l));
	int err;

	if (!l)
		return NULL;
	l->go[0] = l->go[1] = l->err_fd = -1;
	l->name = strdup(opts->argv[0]);
	l->spare = opts->spare;
	err = l->name ? launch_fork(l, opts) : -ENOMEM;
	if (err) {
		pr_err("cannot start '%s': %s", opts->argv[0], strerror(-err));
		launch__free(l);
		errno = -err;
		return NULL;
	}
	return l;
}

pid_t launch__pid(const struct launch *l)
{
	return l->pid;
}

int launch__exec(struct launch *l)
{
	int status, child_errno = 0;
	char c = 1;

	if (write(l->go[1], &c, 1) != 1)
		return -errno;
	close_fd(&l->go[0]);
	close_fd(&l->go[1]);
	if (wait_pid(l->pid, &status, 0) != l->pid)
		return -errno;
	if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP)
		return 0;
	if (read(l->err_fd, &child_errno, sizeof(child_errno)) == sizeof(child_errno))
		pr_err("cannot run '%s': %s", l->name, strerror(child_errno));
	else if (WIFSIGNALED(status))
		pr_err("cannot run '%s': %s before its exec", l->name, strsignal(WTERMSIG(status)));
	else
		pr_err("cannot run '%s': it stopped before exec", l->name);
	if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
		kill(l->pid, SIGKILL);
		wait_pid(l->pid, &status, 0);
	}
	l->status = status;
	l->exited = true;
	return -ENOEXEC;
}

int launch__detach(struct launch *l)
{
	int err;

	if (ptrace(PTRACE_DETACH, l->pid, NULL, NULL) == 0)
		return 0;
	err = -errno;
	pr_err("cannot let '%s' run: %s", l->name, strerror(-err));
	return err;
}

/* Reaps every child that has exited: the command, and the orphans of its tree. */
static void reap(struct launch *l)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == l->pid && !l->exited && (WIFEXITED(status) || WIFSIGNALED(status))) {
			l->status = status;
			l->exited = true;
		}
	}
}

bool launch__exited(struct launch *l)
{
	reap(l);
	return l->exited;
}

/* The tree */

/* The parent of pid, from /proc/PID/stat: 0 or -errno (-ENOENT once it is gone). */
static int read_ppid(pid_t pid, pid_t *ppid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd, v;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ENOENT;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID ...", where COMM may hold spaces and parentheses */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %d", &v) != 1)
		return -EINVAL;
	*ppid = v;
	return 0;
}

static bool has(const pid_t *pids, size_t nr, pid_t pid)
{
	for (size_t i = 0; i < nr; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

static int push(pid_t **pids, size_t *nr, pid_t pid)
{
	pid_t *p = reallocarray(*pids, *nr + 1, sizeof(*p));

	if (!p)
		return -ENOMEM;
	p[(*nr)++] = pid;
	*pids = p;
	return 0;
}

/* Every process of /proc with its parent. */
static int list_processes(struct proc_parent **out, size_t *nr)
{
	struct proc_parent *all = NULL, *grown;
	DIR *d = opendir("/proc");
	size_t n = 0, cap = 0;
	struct dirent *de;
	pid_t pid, ppid;
	char *end;

	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		pid = (pid_t)strtol(de->d_name, &end, 10);
		if (pid <= 0 || *end || read_ppid(pid, &ppid))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			grown = reallocarray(all, cap, sizeof(*all));
			if (!grown) {
				free(all);
				closedir(d);
				return -ENOMEM;
			}
			all = grown;
		}
		all[n++] = (struct proc_parent){ pid, ppid };
	}
	closedir(d);
	*out = all;
	*nr = n;
	return 0;
}

/*
 * The caller's descendants now, zombies included: their parent reaps them,
 * or they are reparented to the caller and reaped here. Without /proc, the
 * command alone.
 */
static int tree_scan(struct launch *l, struct tree *t)
{
	struct proc_parent *all = NULL;
	size_t nr_all = 0;
	bool grew = true;
	int err;

	t->nr = 0;
	err = list_processes(&all, &nr_all);
	if (err) {
		pr_debug("cannot list the processes of '%s': %s", l->name, strerror(-err));
		return l->exited ? 0 : push(&t->pids, &t->nr, l->pid);
	}
	/* Parents are not listed before their children once pids wrap: until nothing is added. */
	while (!err && grew) {
		grew = false;
		for (size_t i = 0; !err && i < nr_all; i++) {
			if (!all[i].pid || all[i].pid == l->spare ||
			    (all[i].ppid != t->self && !has(t->pids, t->nr, all[i].ppid)))
				continue;
			err = push(&t->pids, &t->nr, all[i].pid);
			all[i].pid = 0;
			grew = true;
		}
	}
	free(all);
	return err;
}

/*
 * sig to pid if it is still in the tree: the pidfd holds the process while
 * its parent is read again, so that a pid freed and reused since the scan is
 * never signalled. SIGCONT after it: a stopped process acts on it only then.
 */
static void tree_kill(const struct tree *t, pid_t pid, int sig)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	pid_t ppid;

	if (fd < 0)
		return; /* gone */
	if (read_ppid(pid, &ppid) == 0 && (ppid == t->self || has(t->pids, t->nr, ppid))) {
		syscall(SYS_pidfd_send_signal, fd, sig, NULL, 0);
		if (sig != SIGKILL)
			syscall(SYS_pidfd_send_signal, fd, SIGCONT, NULL, 0);
	}
	close(fd);
}

/*
 * Reaps, scans, and sends sig to each descendant once (SIGKILL every time);
 * the number of descendants left, or -errno.
 */
static int tree_signal(struct launch *l, struct tree *t, int sig)
{
	int err;

	reap(l);
	err = tree_scan(l, t);
	if (err)
		return err;
	for (size_t i = 0; i < t->nr; i++) {
		if (sig != SIGKILL && (has(t->sent, t->nr_sent, t->pids[i]) ||
				       push(&t->sent, &t->nr_sent, t->pids[i])))
			continue;
		tree_kill(t, t->pids[i], sig);
	}
	return (int)t->nr;
}

/* sig to the tree until nothing is left of it, LAUNCH_GRACE_MS at most: what is left. */
static int tree_end(struct launch *l, struct tree *t, int sig)
{
	int left = 0;

	l->last_signal = sig;
	t->nr_sent = 0;
	for (int ms = 0; ms <= LAUNCH_GRACE_MS; ms += LAUNCH_STEP_MS) {
		left = tree_signal(l, t, sig);
		if (left <= 0)
			return left;
		usleep(LAUNCH_STEP_MS * 1000);
	}
	return left;
}

void launch__finish(struct launch *l, int sig)
{
	struct tree t = { .self = getpid() };
	int left;

	if (l->finished || l->pid <= 0)
		return;
	l->finished = true;
	left = tree_end(l, &t, sig);
	if (left != 0 && sig != SIGKILL)
		left = tree_end(l, &t, SIGKILL);
	if (!l->exited)
		pr_warn("'%s' (pid %d) is still running", l->name, (int)l->pid);
	else if (left > 0)
		pr_warn("%d processes started by '%s' are still running", left, l->name);
	else if (left < 0)
		pr_warn("cannot end the processes started by '%s': %s", l->name, strerror(-left));
	free(t.pids);
	free(t.sent);
}

int launch__exit_code(const struct launch *l)
{
	if (!l->exited)
		return l->last_signal ? 128 + l->last_signal : EXIT_FAIL;
	if (WIFEXITED(l->status))
		return WEXITSTATUS(l->status);
	if (WIFSIGNALED(l->status))
		return 128 + WTERMSIG(l->status);
	return EXIT_FAIL;
}

void launch__free(struct launch *l)
{
	if (!l)
		return;
	/* A child still held before its exec reads EOF and exits. */
	close_fd(&l->go[0]);
	close_fd(&l->go[1]);
	close_fd(&l->err_fd);
	launch__finish(l, SIGKILL);
	if (l->subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, l->was_subreaper);
	free(l->name);
	free(l);
}
