/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Opening the files of a profiled process as that process sees them, without
 * trusting it: every path is resolved inside its root (/proc/PID/root), so a
 * symlink a container plants (absolute, "../../..", a /proc magic link) can
 * never make unwprof read a host file.
 *
 *	root = procfs__open_root(pid);
 *	fd = procfs__open_in_root(root, "/usr/lib/debug/x.debug", O_RDONLY);
 *	fd = procfs__open_mapping(pid, &pm->maps[i], &replaced);
 *	pm = procfs__read_maps(pid);
 *	n = procfs__threads(pid, tids, max);
 *	err = procfs__ids(pid, &ids);		 its pid and users as its files know them
 */
#ifndef UNWPROF_PROCFS_H
#define UNWPROF_PROCFS_H

#include <stdbool.h>
#include <sys/types.h>

struct procmap;
struct procmaps;

/* /proc/PID/root as an O_PATH directory: the fd, or -ESRCH when the process is gone. */
int procfs__open_root(pid_t pid);

/* Who process pid is, to the files it names (/proc/PID/status, /proc/PID/uid_map). */
struct procfs_ids {
	pid_t nspid;   /* its pid in its own pid namespace (the last of NSpid): perf-NSPID.map */
	uid_t uids[4]; /* real, effective, saved and filesystem user IDs */
	/* The user ID that is root in its user namespace (0 in the machine's); -1 when none. */
	uid_t ns_root;
};

/* The ids of process pid. 0, -ESRCH when it is gone, or another -errno. */
int procfs__ids(pid_t pid, struct procfs_ids *ids);

/*
 * The name of process pid (/proc/PID/comm: its main thread's, what ps
 * shows), NUL-terminated in buf, without the newline. 0 or -errno.
 */
int procfs__comm(pid_t pid, char *buf, size_t size);
/* The name of thread tid of process pid, the same way. */
int procfs__thread_comm(pid_t pid, pid_t tid, char *buf, size_t size);

/*
 * The threads of process pid (/proc/PID/task): up to max of them into tids,
 * in the order listed. Returns how many there are, which may be more than
 * max, or -errno (-ENOENT when the process is gone).
 */
ssize_t procfs__threads(pid_t pid, pid_t *tids, size_t max);

/*
 * Opens path as if root_fd were "/": absolute symlinks start again at root_fd,
 * ".." stops there, magic links are refused. flags are open(2)'s, for reading
 * (O_CREAT and O_TMPFILE are refused with -EINVAL); O_CLOEXEC is added.
 * Uses openat2(RESOLVE_IN_ROOT), or procfs__resolve_in_root() on kernels
 * before 5.6. Returns the fd or -errno.
 */
int procfs__open_in_root(int root_fd, const char *path, int flags);

/*
 * The same, following no symlink at all (RESOLVE_NO_SYMLINKS): one in the
 * path is -ELOOP, but for a last one opened with O_PATH | O_NOFOLLOW, which
 * is opened itself. For a path the kernel showed resolved (a mapping's).
 */
int procfs__open_in_root_no_links(int root_fd, const char *path, int flags);

/*
 * The same without openat2: component by component with O_PATH|O_NOFOLLOW,
 * reading each symlink and resolving its text under root_fd (so a magic
 * link is only its text). Exposed for tests.
 */
int procfs__resolve_in_root(int root_fd, const char *path, int flags);

/*
 * The file mapped by the file-backed mapping m of pid, read-only: its path
 * inside the process's root, else /proc/PID/map_files/START-END (the kernel's
 * own reference, which also reaches deleted files), and in either case only
 * when its device and inode are those of the maps line, checked before it
 * is opened (a FIFO put at its path is never opened). *replaced (may be
 * NULL) tells that the path led to another file. Returns the fd, -ESTALE
 * when no file with that identity could be opened, -ESRCH when the process
 * is gone, or another -errno.
 */
int procfs__open_mapping(pid_t pid, const struct procmap *m, bool *replaced);

/*
 * The executable mappings of pid. NULL and errno ESRCH, silently, when the
 * process does not exist or exits while its maps are read; other errors are
 * reported.
 */
struct procmaps *procfs__read_maps(pid_t pid);

#endif
