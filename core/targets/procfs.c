// SPDX-License-Identifier: GPL-2.0-only
/*
 * Opening a profiled process's files inside its root. The kernel resolves
 * "/proc/PID/root/x" by jumping into the process's root and then following
 * every symlink below it from the reader's root, so a container that plants
 * /x -> /etc/shadow would make unwprof read the host's file. openat2 with
 * RESOLVE_IN_ROOT keeps the whole walk under the root; before Linux 5.6 the
 * same is done here one component at a time.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/log.h"
#include "procmaps.h"
#include "procfs.h"

#define PROCFS_MAX_LINKS 40 /* as the kernel's own walk */
#define PROCFS_RETRIES 8    /* openat2 says EAGAIN when a rename races the walk */
#define DELETED_SUFFIX " (deleted)"

static bool no_openat2;

int procfs__open_root(pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/root", (int)pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	return fd;
}

static bool flags_ok(int flags)
{
	return !(flags & O_CREAT) && (flags & O_TMPFILE) != O_TMPFILE;
}

static int resolve_in_root(int root_fd, const char *path, int flags, bool no_links);

static int open_in_root(int root_fd, const char *path, int flags, bool no_links)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS |
			   (no_links ? RESOLVE_NO_SYMLINKS : 0),
	};
	long fd = -1;

	if (!flags_ok(flags))
		return -EINVAL;
	for (int i = 0; !no_openat2 && i < PROCFS_RETRIES; i++) {
		fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));
		if (fd >= 0)
			return fd;
		if (errno == ENOSYS) {
			no_openat2 = true;
			break;
		}
		if (errno != EAGAIN)
			return -errno;
	}
	if (!no_openat2)
		return -EAGAIN;
	return resolve_in_root(root_fd, path, flags, no_links);
}

int procfs__open_in_root(int root_fd, const char *path, int flags)
{
	return open_in_root(root_fd, path, flags, false);
}

int procfs__open_in_root_no_links(int root_fd, const char *path, int flags)
{
	return open_in_root(root_fd, path, flags, true);
}

/* The directories walked so far; dirs[0] is the root, not ours to close. */
struct walk {
	int dirs[PATH_MAX / 2];
	size_t depth;
	char *todo; /* what is left of the path, owned */
	int links;
	bool no_links; /* a symlink is -ELOOP, not followed (RESOLVE_NO_SYMLINKS) */
};

static int walk__cur(const struct walk *w)
{
	return w->dirs[w->depth];
}

static void walk__pop(struct walk *w, bool to_root)
{
	while (w->depth > 0) {
		close(w->dirs[w->depth--]);
		if (!to_root)
			break;
	}
}

/* Replaces the path left with target + "/" + rest (a symlink's text before the rest). */
static int walk__follow(struct walk *w, const char *target, const char *rest)
{
	size_t tn = strlen(target), rn = strlen(rest);
	char *n;

	if (++w->links > PROCFS_MAX_LINKS)
		return -ELOOP;
	if (tn + rn + 2 > PATH_MAX)
		return -ENAMETOOLONG;
	n = malloc(tn + rn + 2);
	if (!n)
		return -ENOMEM;
	memcpy(n, target, tn);
	n[tn] = '/';
	memcpy(n + tn + 1, rest, rn + 1);
	free(w->todo);
	w->todo = n;
	if (target[0] == '/')
		walk__pop(w, true);
	return 0;
}

/*
 * One component, name, with rest (inside w->todo) after it: descends into a
 * directory, follows a symlink, or opens the last component into *out and
 * returns 1. 0: go on with w->todo.
 */
static int walk__step(struct walk *w, const char *name, const char *rest, int flags, int *out)
{
	char target[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd, err;

	fd = openat(walk__cur(w), name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		goto cleanup;
	}
	/* A last component with O_NOFOLLOW is opened below, as open(2) does: a link then fails. */
	if (S_ISLNK(st.st_mode) && (*rest || !(flags & O_NOFOLLOW))) {
		err = -ELOOP;
		if (w->no_links)
			goto cleanup;
		n = readlinkat(fd, "", target, sizeof(target) - 1);
		err = n < 0 ? -errno : 0;
		if (!err) {
			target[n] = '\0';
			err = walk__follow(w, target, rest);
		}
		goto cleanup;
	}
	if (!*rest) {
		/* The last one: O_NOFOLLOW, so a symlink swapped in since fails. */
		*out = openat(walk__cur(w), name, flags | O_NOFOLLOW | O_CLOEXEC);
		err = *out < 0 ? -errno : 1;
		goto cleanup;
	}
	err = S_ISDIR(st.st_mode) ? -ENAMETOOLONG : -ENOTDIR;
	if (!S_ISDIR(st.st_mode) || w->depth + 1 >= ARRAY_SIZE(w->dirs))
		goto cleanup;
	w->dirs[++w->depth] = fd;
	memmove(w->todo, rest, strlen(rest) + 1);
	return 0;
cleanup:
	close(fd);
	return err;
}

/* Splits off the first component of w->todo into name; 0 when none is left. */
static int walk__next(struct walk *w, char *name, size_t size, const char **rest)
{
	const char *p = w->todo, *end;

	while (*p == '/')
		p++;
	if (!*p)
		return 0;
	end = strchrnul(p, '/');
	if ((size_t)(end - p) >= size)
		return -ENAMETOOLONG;
	memcpy(name, p, end - p);
	name[end - p] = '\0';
	while (*end == '/')
		end++;
	*rest = end;
	return 1;
}

static int resolve_in_root(int root_fd, const char *path, int flags, bool no_links)
{
	char name[NAME_MAX + 1];
	struct walk *w = NULL;
	const char *rest;
	int err, fd = -1;

	if (!flags_ok(flags) || !path)
		return -EINVAL;
	err = -ENOMEM;
	w = calloc(1, sizeof(*w));
	if (!w)
		goto cleanup;
	w->dirs[0] = root_fd;
	w->no_links = no_links;
	w->todo = strdup(path);
	if (!w->todo)
		goto cleanup;
	for (;;) {
		err = walk__next(w, name, sizeof(name), &rest);
		if (err <= 0)
			break;
		if (!strcmp(name, ".") || !strcmp(name, "..")) {
			if (name[1] == '.')
				walk__pop(w, false); /* clamped at the root */
			memmove(w->todo, rest, strlen(rest) + 1);
			continue;
		}
		err = walk__step(w, name, rest, flags, &fd);
		if (err)
			break;
	}
	if (err == 0) {
		/* The path names a directory: the one reached. */
		fd = openat(walk__cur(w), ".", flags | O_CLOEXEC);
		err = fd < 0 ? -errno : 1;
	}
cleanup:
	if (w) {
		walk__pop(w, true);
		free(w->todo);
	}
	free(w);
	return err < 0 ? err : fd;
}

int procfs__resolve_in_root(int root_fd, const char *path, int flags)
{
	return resolve_in_root(root_fd, path, flags, false);
}

static bool is_deleted(const char *path)
{
	size_t n = strlen(path), s = strlen(DELETED_SUFFIX);

	return n > s && !strcmp(path + n - s, DELETED_SUFFIX);
}

/* Whether fd is the file of mapping m: same device and inode. */
static bool is_mapped_file(int fd, const struct procmap *m)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_ino == m->inode &&
	       major(st.st_dev) == m->dev_major && minor(st.st_dev) == m->dev_minor;
}

/* fd when it is the file of m, else closes it; -errno from open is passed through. */
static int check_mapped(int fd, const struct procmap *m)
{
	if (fd < 0 || is_mapped_file(fd, m))
		return fd;
	close(fd);
	return -ESTALE;
}

/*
 * The file of m open for reading, from path_fd, which opens nothing (O_PATH),
 * or -errno passed through: reopened only once it is the mapped inode, so
 * that a FIFO swapped in at its path (which an open would wait on) or a
 * device is never opened.
 */
static int reopen_mapped(int path_fd, const struct procmap *m)
{
	char self[64];
	int fd;

	path_fd = check_mapped(path_fd, m);
	if (path_fd < 0)
		return path_fd;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", path_fd);
	fd = open(self, O_RDONLY | O_CLOEXEC);
	fd = check_mapped(fd < 0 ? -errno : fd, m);
	close(path_fd);
	return fd;
}

static int open_by_path(pid_t pid, const struct procmap *m)
{
	int root, fd;

	root = procfs__open_root(pid);
	if (root < 0)
		return root;
	fd = procfs__open_in_root(root, m->path, O_PATH);
	close(root);
	return reopen_mapped(fd, m);
}

int procfs__open_mapping(pid_t pid, const struct procmap *m, bool *replaced)
{
	char path[96];
	int fd = -ENOENT, mfd;

	if (replaced)
		*replaced = false;
	if (m->path && m->path[0] == '/' && !is_deleted(m->path)) {
		fd = open_by_path(pid, m);
		if (fd >= 0 || fd == -ESRCH)
			return fd;
	}
	if (replaced)
		*replaced = fd == -ESTALE;
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%" PRIx64, (int)pid, m->start,
		 m->end);
	mfd = open(path, O_PATH | O_CLOEXEC);
	mfd = reopen_mapped(mfd < 0 ? -errno : mfd, m);
	if (mfd >= 0 || fd == -ESTALE)
		return mfd >= 0 ? mfd : -ESTALE;
	return mfd;
}

/* Whether pid is gone or exiting: no such process, a zombie, or dead. */
static bool process_gone(pid_t pid)
{
	char path[64], buf[256], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return true;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	/* "pid (comm) S ...": comm may hold ") ", so the last one ends it. */
	p = strrchr(buf, ')');
	return !p || p[1] != ' ' || p[2] == 'Z' || p[2] == 'X' || p[2] == 'x';
}

/* The whole of an open /proc file into *buf (NUL-terminated); its length or -errno. */
static ssize_t read_all(int fd, char **buf)
{
	size_t len = 0, cap = 16384;
	char *b = malloc(cap), *n;
	ssize_t r;

	for (;;) {
		if (!b) {
			*buf = NULL;
			return -ENOMEM;
		}
		if (len + 1 >= cap) {
			cap *= 2;
			n = realloc(b, cap);
			if (!n)
				free(b);
			b = n;
			continue;
		}
		r = read(fd, b + len, cap - len - 1);
		if (r == 0)
			break;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			r = -errno;
			free(b);
			*buf = NULL;
			return r;
		}
		len += r;
	}
	b[len] = '\0';
	*buf = b;
	return len;
}

struct procmaps *procfs__read_maps(pid_t pid)
{
	struct procmaps *pm = NULL;
	char path[64], *text = NULL;
	ssize_t len;
	FILE *f;
	int fd, err;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		err = errno == ENOENT ? -ESRCH : -errno;
		goto cleanup;
	}
	len = read_all(fd, &text);
	close(fd);
	err = len < 0 ? (int)len : 0;
	if (err)
		goto cleanup;
	if (len == 0) {
		/* Only a process without memory (exiting, or a kernel thread) has no maps. */
		pm = calloc(1, sizeof(*pm));
		err = pm ? 0 : -ENOMEM;
		if (pm)
			pm->pid = pid;
		goto cleanup;
	}
	f = fmemopen(text, len, "r");
	err = f ? 0 : -errno;
	if (f) {
		pm = procmaps__parse(f, pid, path);
		err = pm ? 0 : -errno;
		fclose(f);
	}
cleanup:
	free(text);
	if (err && err != -ENOMEM && err != -EINVAL && process_gone(pid))
		err = -ESRCH;
	if (err && err != -ESRCH)
		pr_err("%s: %s", path, strerror(-err));
	if (err) {
		errno = -err;
		return NULL;
	}
	return pm;
}

/* The first line of a small /proc file, NUL-terminated in buf. 0 or -errno. */
static int read_name(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd, err = 0;

	if (!size)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		err = -errno;
	close(fd);
	if (err)
		return err;
	while (n > 0 && buf[n - 1] == '\n')
		n--;
	buf[n] = '\0';
	return n ? 0 : -ENODATA;
}

int procfs__comm(pid_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	return read_name(path, buf, size);
}

int procfs__thread_comm(pid_t pid, pid_t tid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid, (int)tid);
	return read_name(path, buf, size);
}

ssize_t procfs__threads(pid_t pid, pid_t *tids, size_t max)
{
	char path[64];
	struct dirent *de;
	ssize_t n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long tid = strtol(de->d_name, &end, 10);

		if (*end || tid <= 0)
			continue; /* "." and ".." */
		if ((size_t)n < max)
			tids[n] = (pid_t)tid;
		n++;
	}
	closedir(d);
	return n;
}

/* A small /proc file whole into buf, NUL-terminated. 0, -ESRCH when it is gone, or -errno. */
static int read_small(const char *path, char *buf, size_t size)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return errno == ESRCH ? -ESRCH : -EIO;
	buf[n] = '\0';
	return 0;
}

/* The numbers of the line that key ("\nName:") begins in text, up to max into v; how many. */
static size_t status_numbers(const char *text, const char *key, long long *v, size_t max)
{
	const char *p = strstr(text, key);
	size_t n = 0;
	char *end;

	if (!p)
		return 0;
	p += strlen(key);
	while (n < max && (*p == ' ' || *p == '\t')) {
		long long x = strtoll(p, &end, 10);

		if (end == p)
			break;
		v[n++] = x;
		p = end;
	}
	return n;
}

/* The user ID uid_map maps 0 to: the root of the process's user namespace; -1 when none. */
static uid_t userns_root(pid_t pid)
{
	char path[64], text[4096];
	const char *p = text;

	snprintf(path, sizeof(path), "/proc/%d/uid_map", (int)pid);
	if (read_small(path, text, sizeof(text)))
		return (uid_t)-1;
	/* "inside outside count" a line */
	while (p && *p) {
		unsigned long long in, out, count;

		if (sscanf(p, "%llu %llu %llu", &in, &out, &count) == 3 && in == 0 && count)
			return (uid_t)out;
		p = (p = strchr(p, '\n')) ? p + 1 : NULL;
	}
	return (uid_t)-1;
}

int procfs__ids(pid_t pid, struct procfs_ids *ids)
{
	char path[64], text[8192];
	long long v[32];
	size_t n;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	err = read_small(path, text, sizeof(text));
	if (err)
		return err;
	n = status_numbers(text, "\nUid:", v, ARRAY_SIZE(ids->uids));
	if (n != ARRAY_SIZE(ids->uids))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		ids->uids[i] = (uid_t)v[i];
	/* NSpid: outermost first; without it (before Linux 4.1) one namespace */
	n = status_numbers(text, "\nNSpid:", v, ARRAY_SIZE(v));
	ids->nspid = n && v[n - 1] > 0 ? (pid_t)v[n - 1] : pid;
	ids->ns_root = userns_root(pid);
	return 0;
}
