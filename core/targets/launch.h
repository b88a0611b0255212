/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Launching the command to profile, and ending it with everything it
 * started.
 *
 *	l = launch__new(&opts);		forks; the child waits before its exec
 *	launch__exec(l);		lets it exec, waits for it stopped there
 *	launch__detach(l);		lets it run (its tables are loaded by now)
 *	while (!launch__exited(l)) ...	reaps as it goes
 *	launch__finish(l, SIGTERM);	ends the whole tree, SIGKILL if it must
 *	code = launch__exit_code(l);
 *	launch__free(l);
 *
 * The command stays in the caller's process group, so the terminal treats
 * it as before: Ctrl-C reaches it directly, and it may read the terminal.
 * Its tree is found by parentage instead: launch__new makes the caller a
 * child subreaper (PR_SET_CHILD_SUBREAPER), so a descendant whose parent
 * exits becomes the caller's child rather than init's, and every process
 * the command started stays a descendant of the caller, even one that left
 * the process group or the session. While a launch lives it owns the
 * caller's children: launch__exited() and launch__finish() reap all of them.
 */
#ifndef UNWPROF_LAUNCH_H
#define UNWPROF_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct launch_opts {
	char *const *argv; /* NULL-terminated; argv[0] is searched in PATH */
	/* Run as uid, gid and groups (set in the child before its exec), not as the caller. */
	bool set_user;
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int nr_groups;
	/*
	 * The command's standard output goes to its standard error: for a
	 * caller that writes its own data to standard output.
	 */
	bool stdout_to_stderr;
	/*
	 * A child of the caller that is not the command's and stays out of its
	 * tree (the debuginfod fetcher, core/elf/debuginfod.h); 0: none.
	 */
	pid_t spare;
};

struct launch;

/*
 * Forks the command, held before its exec until launch__exec(). NULL and
 * errno on failure ("cannot start '%s'" is printed).
 */
struct launch *launch__new(const struct launch_opts *opts);
pid_t launch__pid(const struct launch *l);
/*
 * Lets the command exec and waits until it is stopped right after the exec
 * (ptrace), before a single instruction of its own: its mappings are those
 * of the new program. 0, or -ENOEXEC when it could not be executed ("cannot
 * run '%s': ..." is printed).
 */
int launch__exec(struct launch *l);
/* Lets the command stopped at its exec run. 0 or -errno (printed). */
int launch__detach(struct launch *l);
/* True once the command itself has exited; reaps every child that has. */
bool launch__exited(struct launch *l);
/*
 * Ends every process left of the command's tree: sends them sig (with
 * SIGCONT, so that a stopped one acts on it), then SIGKILL to those still
 * there after a second, and reaps them. Returns when none is left, or warns
 * when some would not die.
 */
void launch__finish(struct launch *l, int sig);
/*
 * The command's exit status as a shell gives it: its own, 128+N when signal
 * N killed it, 128+SIGKILL when it was still dying after launch__finish(),
 * 1 when it never exited.
 */
int launch__exit_code(const struct launch *l);
/* Ends what is left of the tree with SIGKILL; accepts NULL. */
void launch__free(struct launch *l);

#endif
