/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one way unwprof writes a file: profiles, flame graphs, statistics.
 *
 *	o = outfile__open(path, &opts);	 NULL: stdout
 *	write to outfile__stream(o) ...
 *	err = outfile__close(o, ok);	 ok: publish it; !ok: leave nothing
 *
 * A regular file (or one that does not exist yet) is written to an unnamed
 * file (O_TMPFILE) in its directory, the symlink's target's when path is a
 * symlink, and only named and renamed over path at outfile__close(): a run
 * that fails or is killed, even by SIGKILL, leaves no partial file and the
 * old one in place. Where O_TMPFILE is not supported, a named temporary
 * file ".NAME.XXXXXX" next to it is used. A device, a FIFO, /dev/stdout or a
 * dangling symlink (whose target is created) is written in place: renaming
 * over it would replace it. The file gets the mode fopen() would give it.
 *
 * Every error is printed naming path, and the functions return 0 or
 * -errno (-ENOSPC for a full disk).
 */
#ifndef UNWPROF_OUTFILE_H
#define UNWPROF_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct outfile_opts {
	/* Give the file to uid:gid (under sudo, the user who ran it). */
	bool set_owner;
	uid_t uid;
	gid_t gid;
};

struct outfile;

/*
 * Opens path for writing ("-" or NULL: stdout); NULL and errno on failure,
 * printed ("is a directory", "cannot create a file in DIR").
 */
struct outfile *outfile__open(const char *path, const struct outfile_opts *opts);

FILE *outfile__stream(const struct outfile *o);

/* The path as given, "stdout" for stdout. */
const char *outfile__name(const struct outfile *o);

/* True when the output goes to a terminal. */
bool outfile__is_tty(const struct outfile *o);

/*
 * Flushes and checks the stream; when ok and every write succeeded, puts
 * the file in place. Otherwise nothing is left of it (a device or stdout
 * keeps what reached it). Frees o; accepts NULL (returns 0). A write error
 * is printed unless !ok (the caller printed its own error already).
 */
int outfile__close(struct outfile *o, bool ok);

/*
 * Removes the named temporary files of every open outfile: for a signal
 * handler about to let the signal kill the process (async-signal-safe).
 */
void outfile__unlink_all(void);

#endif
