// SPDX-License-Identifier: GPL-2.0-only
/*
 * The files a profiled process names, opened as it sees them and as
 * untrusted. See proc_view.h.
 *
 * A file is first opened with O_PATH, which opens nothing: no FIFO waits
 * for a writer, no device is touched, and a link at the end of the path is
 * the link itself, not what it points to. Its fstat decides; only then is
 * that very file opened for reading, through /proc/self/fd (the kernel's
 * reference to what was checked, so a file swapped in since is not read).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../util/common.h"
#include "procfs.h"
#include "proc_view.h"

static const char *const refusal_texts[PROC_VIEW_NR] = {
#define PROC_VIEW_TEXT(id, text) [PROC_VIEW_##id] = text,
	PROC_VIEW_REFUSALS(PROC_VIEW_TEXT)
#undef PROC_VIEW_TEXT
};

static void add_owner(struct proc_view *v, uid_t uid)
{
	if (uid == (uid_t)-1 || v->nr_owners == PROC_VIEW_OWNERS)
		return;
	for (size_t i = 0; i < v->nr_owners; i++)
		if (v->owners[i] == uid)
			return;
	v->owners[v->nr_owners++] = uid;
}

int proc_view__read(pid_t pid, struct proc_view *v)
{
	struct procfs_ids ids;
	char path[64];
	struct stat st;
	int err = procfs__ids(pid, &ids);

	if (err)
		return err;
	snprintf(path, sizeof(path), "/proc/%d/ns/pid", (int)pid);
	if (stat(path, &st))
		return errno == ENOENT ? -ESRCH : -errno;
	*v = (struct proc_view){ .root_fd = -1,
				 .pid = pid,
				 .nspid = ids.nspid,
				 .pid_ns = st.st_ino,
				 .euid = ids.uids[1] };
	add_owner(v, 0);
	/* The root of its user namespace owns its container's files, as seen from here. */
	add_owner(v, ids.ns_root);
	for (size_t i = 0; i < ARRAY_SIZE(ids.uids); i++)
		add_owner(v, ids.uids[i]);
	return 0;
}

void proc_view__default(struct proc_view *v, int root_fd, pid_t pid)
{
	*v = (struct proc_view){ .root_fd = root_fd, .pid = pid, .nspid = pid };
	add_owner(v, 0);
	add_owner(v, geteuid());
}

static bool owned_by(const struct proc_view *v, uid_t uid)
{
	for (size_t i = 0; i < v->nr_owners; i++)
		if (v->owners[i] == uid)
			return true;
	return false;
}

/* Why the file of st may not be read; PROC_VIEW_NR when it may. */
static enum proc_view_refusal check(const struct proc_view *v, const struct proc_view_rules *r,
				    const struct stat *st)
{
	if (S_ISLNK(st->st_mode))
		return PROC_VIEW_LINK;
	if (!S_ISREG(st->st_mode))
		return PROC_VIEW_NOT_REGULAR;
	if (r->ino && (st->st_dev != r->dev || st->st_ino != r->ino))
		return PROC_VIEW_REPLACED;
	if (!owned_by(v, st->st_uid))
		return PROC_VIEW_OWNER;
	if ((uint64_t)st->st_size > r->max_size)
		return PROC_VIEW_TOO_LARGE;
	return PROC_VIEW_NR;
}

/* The file behind the O_PATH fd path_fd, opened for reading; it must still be st's. */
static int reopen(int path_fd, const struct stat *st)
{
	char proc_path[64];
	struct stat now;
	int fd;

	snprintf(proc_path, sizeof(proc_path), "/proc/self/fd/%d", path_fd);
	fd = open(proc_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &now) || now.st_dev != st->st_dev || now.st_ino != st->st_ino) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

int proc_view__open(const struct proc_view *v, const char *path, const struct proc_view_rules *r,
		    struct stat *st, enum proc_view_refusal *why)
{
	int flags = O_PATH | (r->follow ? 0 : O_NOFOLLOW), pfd, fd;

	pfd = r->no_links ? procfs__open_in_root_no_links(v->root_fd, path, flags) :
			    procfs__open_in_root(v->root_fd, path, flags);
	if (pfd == -ELOOP) {
		/* a link in the path where none may be: itself unread */
		memset(st, 0, sizeof(*st));
		st->st_mode = S_IFLNK;
		*why = PROC_VIEW_LINK;
		return -EPERM;
	}
	if (pfd < 0)
		return pfd;
	if (fstat(pfd, st)) {
		fd = -errno;
		goto cleanup;
	}
	*why = check(v, r, st);
	fd = *why == PROC_VIEW_NR ? reopen(pfd, st) : -EPERM;
cleanup:
	close(pfd);
	return fd;
}

void proc_view__count(const struct proc_view *v, enum proc_view_refusal why)
{
	if (v->counts && why < PROC_VIEW_NR)
		v->counts->refused[why]++;
}

const char *proc_view__refusal_text(enum proc_view_refusal why, const struct stat *st)
{
	if (why == PROC_VIEW_NOT_REGULAR && st) {
		switch (st->st_mode & S_IFMT) {
		case S_IFIFO:
			return "a FIFO, not a regular file";
		case S_IFSOCK:
			return "a socket, not a regular file";
		case S_IFCHR:
			return "a character device, not a regular file";
		case S_IFBLK:
			return "a block device, not a regular file";
		case S_IFDIR:
			return "a directory, not a regular file";
		default:
			break;
		}
	}
	return why < PROC_VIEW_NR ? refusal_texts[why] : "refused";
}
