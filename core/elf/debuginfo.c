// SPDX-License-Identifier: GPL-2.0-only
/*
 * Finding separate debug files the way gdb and elfutils do: first by build
 * ID under the debug directory, then by the .gnu_debuglink name next to the
 * file, in its .debug/ directory and under the debug directory. Every path is
 * looked up under opts->root (a process's /proc/PID/root), and a candidate
 * is taken only when it matches (build ID, or the debug link's CRC when the
 * file has no build ID), since a stale debug file would give wrong unwind
 * rows.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/common.h"
#include "debuginfo.h"
#include "elf_file.h"
#include "../util/log.h"
#include "../targets/procfs.h"
#include "../targets/proc_view.h"

#define DEBUGINFO_DEFAULT_DIR "/usr/lib/debug"

/*
 * A debug file inside a process's root: links followed there (Fedora's
 * .build-id entries are links), what they reach checked; no larger than
 * elf_file reads.
 */
static const struct proc_view_rules debug_rules = {
	.max_size = ELF_FILE_MAX,
	.follow = true,
};

struct debuginfo_search {
	const struct elf_file *elf;
	const char *root;	      /* "" when none */
	const struct proc_view *view; /* paths are resolved inside its root; root is "" */
	const char *path;	      /* elf's path inside the root */
	const char *debug_dir;
	struct stat self; /* the file itself, never its own debug file */
	bool have_self;
};

/*
 * The path of elf inside the root. elf may have been opened through the
 * root (/proc/PID/root/usr/lib/x.so) or by its path inside it; either way
 * the debug link is resolved relative to the inner path.
 */
static const char *inner_path(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (n && strncmp(path, root, n) == 0 && path[n] == '/')
		return path + n;
	return path;
}

static bool same_file(const struct debuginfo_search *s, const struct stat *st)
{
	return s->have_self && st->st_dev == s->self.st_dev && st->st_ino == s->self.st_ino;
}

/*
 * path (already under the root) without opening it (O_PATH), inside the
 * view's root when there is one: where elf itself is.
 */
static int open_path(const struct debuginfo_search *s, const char *path)
{
	int fd;

	if (s->view)
		return procfs__open_in_root(s->view->root_fd, path, O_PATH);
	fd = open(path, O_PATH | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * path (already under the root) opened for reading when it is a regular
 * file: through the view's checks, or on the host without blocking on a
 * FIFO. The fd, or -errno.
 */
static int open_candidate(const struct debuginfo_search *s, const char *path, struct stat *st)
{
	enum proc_view_refusal why;
	int fd;

	if (s->view) {
		fd = proc_view__open(s->view, path, &debug_rules, st, &why);
		if (fd == -EPERM) {
			pr_warn("%s: debug file candidate %s (inside the root of process %d) not "
				"read: %s",
				s->path, path, (int)s->view->pid, proc_view__refusal_text(why, st));
			proc_view__count(s->view, why);
		}
		return fd;
	}
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) || !S_ISREG(st->st_mode)) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

/* The ELF file at path, a regular file that is not elf itself; NULL otherwise. */
static struct elf_file *open_regular(const struct debuginfo_search *s, const char *path)
{
	struct elf_file *debug = NULL;
	struct stat st;
	int fd;

	fd = open_candidate(s, path, &st);
	if (fd < 0)
		return NULL;
	/* Through the fd: what was checked is what is read. */
	if (!same_file(s, &st)) {
		debug = elf_file__open_fd(fd, path, ELF_OPEN_QUIET);
		if (!debug)
			pr_debug("%s: debug file candidate %s is not a readable ELF file", s->path,
				 path);
	}
	close(fd);
	return debug;
}

/* Opens path (already under the root) when it exists and matches; NULL otherwise. */
static struct elf_file *try_candidate(const struct debuginfo_search *s, const char *path)
{
	struct elf_file *debug = open_regular(s, path);

	if (!debug)
		return NULL;
	if (!elf_file__debug_matches(s->elf, debug)) {
		pr_debug("%s: debug file candidate %s does not match (build ID or CRC)", s->path,
			 path);
		elf_file__free(debug);
		return NULL;
	}
	pr_debug("%s: debug file %s", s->path, path);
	return debug;
}

static struct elf_file *find_by_build_id(const struct debuginfo_search *s)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	char path[PATH_MAX];
	size_t len;
	int n;

	len = elf_file__build_id(s->elf, id);
	if (len < 2)
		return NULL;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	n = snprintf(path, sizeof(path), "%s%s/.build-id/%.2s/%s.debug", s->root, s->debug_dir, hex,
		     hex + 2);
	if (n < 0 || (size_t)n >= sizeof(path))
		return NULL;
	return try_candidate(s, path);
}

static struct elf_file *find_by_debuglink(const struct debuginfo_search *s)
{
	static const char *const subdirs[] = { "", ".debug/" };
	const char *link, *inner, *slash;
	char dir[PATH_MAX], path[PATH_MAX];
	struct elf_file *debug = NULL;
	int n;

	link = elf_file__debuglink(s->elf, NULL);
	if (!link)
		return NULL;
	/* The directory of the file with its trailing slash; "" for a bare file name. */
	inner = s->path;
	slash = strrchr(inner, '/');
	n = snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - inner + 1) : 0, inner);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return NULL;
	/* A relative path cannot be put under a root. */
	if (s->root[0] && dir[0] != '/')
		return NULL;

	/* Next to the file, in .debug/ next to it, then under the debug directory. */
	for (size_t i = 0; i < ARRAY_SIZE(subdirs) && !debug; i++) {
		n = snprintf(path, sizeof(path), "%s%s%s%s", s->root, dir, subdirs[i], link);
		if (n > 0 && (size_t)n < sizeof(path))
			debug = try_candidate(s, path);
	}
	/* Only an absolute directory can be mirrored under the debug directory. */
	if (!debug && dir[0] == '/') {
		n = snprintf(path, sizeof(path), "%s%s%s%s", s->root, s->debug_dir, dir, link);
		if (n > 0 && (size_t)n < sizeof(path))
			debug = try_candidate(s, path);
	}
	return debug;
}

struct elf_file *debuginfo__find(const struct elf_file *elf, const struct debuginfo_opts *opts)
{
	struct debuginfo_search s = {
		.elf = elf,
		.root = opts && opts->root ? opts->root : "",
		.view = opts ? opts->view : NULL,
		.debug_dir = opts && opts->debug_dir ? opts->debug_dir : DEBUGINFO_DEFAULT_DIR,
	};
	struct elf_file *debug = NULL;
	size_t root_len = strlen(s.root);
	char root_buf[PATH_MAX], self[PATH_MAX];
	int n, fd;

	if (s.view) {
		s.root = "";
		root_len = 0;
	}
	/* "/" and "/x/" as root mean the same as "" and "/x". */
	if (root_len && s.root[root_len - 1] == '/') {
		snprintf(root_buf, sizeof(root_buf), "%.*s", (int)root_len - 1, s.root);
		s.root = root_buf;
	}
	s.path = opts && opts->path ? opts->path : inner_path(elf_file__path(elf), s.root);
	n = snprintf(self, sizeof(self), "%s%s", s.root, s.path);
	fd = n > 0 && (size_t)n < sizeof(self) ? open_path(&s, self) : -ENAMETOOLONG;
	s.have_self = fd >= 0 && fstat(fd, &s.self) == 0;
	if (fd >= 0)
		close(fd);

	debug = find_by_build_id(&s);
	if (!debug)
		debug = find_by_debuglink(&s);
	if (!debug)
		errno = ENOENT;
	return debug;
}

struct elf_file *debuginfo__open_matching(const struct elf_file *elf, const char *path)
{
	const struct debuginfo_search s = {
		.elf = elf,
		.root = "",
		.path = elf_file__path(elf),
	};

	return try_candidate(&s, path);
}
