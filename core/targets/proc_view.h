/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A profiled process as unwprof reads the files it names rather than maps:
 * a JIT runtime's perf map and jitdump, the debug files its libraries'
 * build IDs and debug links name. They are read as the process sees them
 * (inside its root, /tmp/perf-NSPID.map under its pid in its own pid
 * namespace, as perf does) and as untrusted: the process, or any user who
 * can write where it looks (/tmp), may have planted a FIFO that blocks an
 * open, a link to a file only root may read, a file of gigabytes, another
 * user's names for its code. proc_view__open() opens a file only when it is
 * a regular file, not reached through a link where none may be, of a
 * bounded size and owned by root or by one of the process's users (its
 * user IDs, the root of its user namespace), and says why not otherwise; it
 * never blocks: the checks are made on an O_PATH descriptor, which opens
 * nothing, before the file is opened for reading.
 *
 *	err = proc_view__read(pid, &v);		 its ids; its root is the caller's to open
 *	fd = proc_view__open(&v, "/tmp/perf-1.map", &rules, &st, &why);
 *	proc_view__count(&v, why);		 a refusal, in the counts the view points to
 */
#ifndef UNWPROF_PROC_VIEW_H
#define UNWPROF_PROC_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/*
 * Why a file was not read: its id and what the warning says (--stats-json
 * counts each: SESSION_STATS' files_refused_*, core/session/session.h).
 */
#define PROC_VIEW_REFUSALS(X)                                                             \
	X(LINK, "a symbolic link")                                                        \
	X(NOT_REGULAR, "not a regular file")                                              \
	X(TOO_LARGE, "too large")                                                         \
	X(OWNER, "owned by neither root nor a user of the process")                       \
	/* a jitdump the process maps: another file is at its path now */                 \
	X(REPLACED, "not the file the process maps")                                      \
	/* the reader's: a jitdump's header says it is not one, or not of this process */ \
	X(FORGED, "its header is not of this process")

enum proc_view_refusal {
#define PROC_VIEW_ENUM(id, text) PROC_VIEW_##id,
	PROC_VIEW_REFUSALS(PROC_VIEW_ENUM)
#undef PROC_VIEW_ENUM
		PROC_VIEW_NR,
};

/* Refusals by reason, kept by whoever the views point to (core/model/model.h). */
struct proc_view_counts {
	size_t refused[PROC_VIEW_NR];
};

#define PROC_VIEW_OWNERS 6

struct proc_view {
	int root_fd;	 /* its root (O_PATH), not owned: unwprof's own root is one too */
	pid_t pid;	 /* as unwprof knows it */
	pid_t nspid;	 /* in its own pid namespace: what it names its files after */
	uint64_t pid_ns; /* its pid namespace (the inode of /proc/PID/ns/pid) */
	uid_t euid;	 /* its effective user, the owner of /proc/PID */
	uid_t owners[PROC_VIEW_OWNERS]; /* whose files it may read: root, its users */
	size_t nr_owners;
	struct proc_view_counts *counts; /* where refusals are counted; NULL: nowhere */
};

/* What a reader asks of a file. */
struct proc_view_rules {
	uint64_t max_size; /* larger files are refused */
	/*
	 * Links inside the root are followed to the file (Fedora's
	 * .build-id/xx/rest.debug are links): what is reached is checked.
	 * Otherwise the last component may not be a link.
	 */
	bool follow;
	/* No link anywhere in the path: one the kernel showed resolved (a mapping's). */
	bool no_links;
	/* The file must be this one (a mapping's device and inode); 0, 0: any. */
	dev_t dev;
	ino_t ino;
};

/*
 * The ids of pid: its pid in its namespace, that namespace and its users
 * (root_fd is left -1, counts NULL). 0, -ESRCH when it is gone, or another -errno.
 */
int proc_view__read(pid_t pid, struct proc_view *v);

/*
 * A view for a process whose ids cannot be read (gone, or made up by a
 * test): root_fd, pid as its own namespace's, its files owned by root or
 * by the user unwprof runs as (perf's rule for perf maps).
 */
void proc_view__default(struct proc_view *v, int root_fd, pid_t pid);

/*
 * Opens path, inside v's root, for reading (O_RDONLY | O_NONBLOCK | O_CLOEXEC):
 * the fd, with *st its fstat. -ENOENT and the like when there is no file;
 * -EPERM when it is refused, with *why the reason and *st what was there
 * (for a caller that tells a file it refused before from a new one). Counts
 * nothing: the caller decides what a refusal is worth (proc_view__count()).
 */
int proc_view__open(const struct proc_view *v, const char *path, const struct proc_view_rules *r,
		    struct stat *st, enum proc_view_refusal *why);

/* A refusal counted where v's counts are. */
void proc_view__count(const struct proc_view *v, enum proc_view_refusal why);

/*
 * What a warning says of a refusal: for a file that is not regular, what it
 * is ("a FIFO", "a directory", ...). st may be NULL.
 */
const char *proc_view__refusal_text(enum proc_view_refusal why, const struct stat *st);

#endif
