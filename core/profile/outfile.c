// SPDX-License-Identifier: GPL-2.0-only
/*
 * Output files written whole or not at all (see outfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "../util/common.h"
#include "../util/log.h"

struct outfile {
	char *name;	  /* as given, for messages */
	char *final_path; /* the symlink's target resolved; NULL when written in place */
	char *tmp_path;	  /* named temporary file; NULL while unnamed or in place */
	FILE *f;
	int tmp_fd; /* O_TMPFILE descriptor of f, linked in at the end; -1 */
	int slot;   /* in tmp_names; -1 */
};

/* Temporary names a signal handler removes; a slot is set only while its name exists. */
static char *volatile tmp_names[8];

static void slot_set(struct outfile *o)
{
	for (size_t i = 0; o->slot < 0 && i < ARRAY_SIZE(tmp_names); i++) {
		if (!tmp_names[i]) {
			tmp_names[i] = o->tmp_path;
			o->slot = (int)i;
		}
	}
}

static void slot_clear(struct outfile *o)
{
	if (o->slot >= 0)
		tmp_names[o->slot] = NULL;
	o->slot = -1;
}

void outfile__unlink_all(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(tmp_names); i++)
		if (tmp_names[i])
			unlink(tmp_names[i]);
}

/* The directory part of path and its last component: "x/y.pb.gz" -> "x", "y.pb.gz". */
static int split_path(const char *path, char **dir, char **base)
{
	char *d = strdup(path), *b = strdup(path);

	*dir = *base = NULL;
	if (d && b) {
		*dir = strdup(dirname(d));
		*base = strdup(basename(b));
	}
	free(d);
	free(b);
	if (*dir && *base)
		return 0;
	free(*dir);
	free(*base);
	*dir = *base = NULL;
	return -ENOMEM;
}

/* A named temporary file, for file systems without O_TMPFILE; -1 and errno. */
static int open_named(struct outfile *o, const char *dir, const char *base)
{
	mode_t mask;
	int fd;

	if (asprintf(&o->tmp_path, "%s/.%s.XXXXXX", dir, base) < 0) {
		o->tmp_path = NULL;
		errno = ENOMEM;
		return -1;
	}
	/* close-on-exec: a launched command must not inherit a file being written */
	fd = mkostemp(o->tmp_path, O_CLOEXEC);
	if (fd < 0) {
		free(o->tmp_path);
		o->tmp_path = NULL;
		return -1;
	}
	slot_set(o);
	/* mkostemp gives 0600; give the file the mode a plain fopen would. */
	mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask))
		pr_debug("%s: cannot set the mode: %s", o->tmp_path, strerror(errno));
	return fd;
}

static int open_tmp(struct outfile *o, const char *path, const struct outfile_opts *opts)
{
	char *dir = NULL, *base = NULL;
	int fd, err;

	o->final_path = realpath(path, NULL);
	if (!o->final_path)
		o->final_path = strdup(path); /* does not exist yet */
	err = o->final_path ? split_path(o->final_path, &dir, &base) : -ENOMEM;
	if (err)
		goto cleanup;
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd >= 0)
		o->tmp_fd = fd;
	else if (errno == EOPNOTSUPP || errno == EISDIR)
		fd = open_named(o, dir, base);
	if (fd < 0) {
		err = -errno;
		pr_err("%s: cannot create a file in %s: %s", path, dir, strerror(errno));
		goto cleanup;
	}
	if (opts && opts->set_owner && fchown(fd, opts->uid, opts->gid))
		pr_warn("%s: cannot give it to uid %d: %s", path, (int)opts->uid, strerror(errno));
	o->f = fdopen(fd, "w");
	if (!o->f) {
		err = -errno;
		pr_err("%s: %s", path, strerror(errno));
		close(fd);
		o->tmp_fd = -1;
	}
cleanup:
	free(dir);
	free(base);
	return err;
}

static int open_in_place(struct outfile *o, const char *path)
{
	o->f = fopen(path, "we");
	if (o->f)
		return 0;
	pr_err("%s: cannot open: %s", path, strerror(errno));
	return -errno;
}

static void outfile__free(struct outfile *o)
{
	if (!o)
		return;
	if (o->tmp_path)
		unlink(o->tmp_path);
	slot_clear(o);
	free(o->tmp_path);
	free(o->final_path);
	free(o->name);
	free(o);
}

struct outfile *outfile__open(const char *path, const struct outfile_opts *opts)
{
	struct outfile *o = calloc(1, sizeof(*o));
	struct stat st;
	int err;

	if (!o)
		return NULL;
	o->tmp_fd = -1;
	o->slot = -1;
	o->name = strdup(path && strcmp(path, "-") ? path : "stdout");
	if (!o->name) {
		free(o);
		errno = ENOMEM;
		return NULL;
	}
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return o;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		pr_err("%s: is a directory: give a file name", path);
		err = -EISDIR;
	} else if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		err = open_in_place(o, path);
	} else if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && stat(path, &st) < 0) {
		/* A dangling symlink: fopen creates its target, a rename would replace the link. */
		err = open_in_place(o, path);
	} else {
		err = open_tmp(o, path, opts);
	}
	if (err) {
		outfile__free(o);
		errno = -err;
		return NULL;
	}
	return o;
}

FILE *outfile__stream(const struct outfile *o)
{
	return o->f;
}

const char *outfile__name(const struct outfile *o)
{
	return o->name;
}

bool outfile__is_tty(const struct outfile *o)
{
	return isatty(fileno(o->f)) == 1;
}

/* Gives the unnamed file a temporary name next to the final one. */
static int link_tmp(struct outfile *o)
{
	char *dir = NULL, *base = NULL, proc[64];
	int err;

	err = split_path(o->final_path, &dir, &base);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", o->tmp_fd);
	for (int i = 0; !err && i < 100; i++) {
		free(o->tmp_path);
		if (asprintf(&o->tmp_path, "%s/.%s.%d.%d", dir, base, (int)getpid(), i) < 0) {
			o->tmp_path = NULL;
			err = -ENOMEM;
			break;
		}
		slot_set(o);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp_path, AT_SYMLINK_FOLLOW) == 0)
			break;
		slot_clear(o);
		err = errno == EEXIST ? 0 : -errno;
		free(o->tmp_path);
		o->tmp_path = NULL;
		if (!err && i == 99)
			err = -EEXIST;
	}
	if (err)
		pr_err("%s: cannot name the file written: %s", o->final_path, strerror(-err));
	free(dir);
	free(base);
	return err;
}

int outfile__close(struct outfile *o, bool ok)
{
	int err = 0;

	if (!o)
		return 0;
	errno = 0;
	if (fflush(o->f) || ferror(o->f))
		err = errno ? -errno : -EIO;
	/* After a failed write, the same error again says nothing new. */
	if (err && ok)
		pr_err("%s: cannot write: %s", o->name, strerror(-err));
	if (ok && !err && o->tmp_fd >= 0)
		err = link_tmp(o);
	if (o->f != stdout && fclose(o->f) && !err) {
		err = -errno;
		if (ok)
			pr_err("%s: cannot write: %s", o->name, strerror(errno));
	}
	if (ok && !err && o->tmp_path) {
		if (rename(o->tmp_path, o->final_path)) {
			err = -errno;
			pr_err("%s: cannot rename %s to it: %s", o->final_path, o->tmp_path,
			       strerror(errno));
		} else {
			slot_clear(o);
			free(o->tmp_path);
			o->tmp_path = NULL;
		}
	}
	outfile__free(o);
	return err;
}
