/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Finding the separate debug file of an ELF file: an explicit path, then
 * /usr/lib/debug/.build-id/xx/rest.debug, then .gnu_debuglink next to the
 * file, in its .debug/ directory and under /usr/lib/debug. A candidate is
 * taken only when its build ID (or the debug link's CRC) matches, and read
 * only when it is a regular file (never a FIFO, which would block).
 */
#ifndef UNWPROF_DEBUGINFO_H
#define UNWPROF_DEBUGINFO_H

#include <sys/types.h>

struct elf_file;
struct proc_view;

struct debuginfo_opts {
	/*
	 * A trusted directory of the host prefixed to every path looked up;
	 * NULL for /. Symlinks below it are followed from the host's root: for
	 * the files of a process, set pid instead.
	 */
	const char *root;
	const char *debug_dir; /* default /usr/lib/debug */
	/*
	 * A process's view of its files (core/targets/proc_view.h): every path
	 * is looked up inside its root, links resolved there, so the process
	 * cannot point a lookup at a host file; a candidate is read only when
	 * proc_view__open() accepts it (a refusal is warned about and counted
	 * where the view says). root is then ignored. Found files are named by
	 * their path inside the root.
	 */
	const struct proc_view *view;
	const char *path; /* elf's path inside the root; NULL: elf_file__path(elf) */
};

/*
 * The debug file of elf (opened at path, relative to opts->root), or NULL
 * with errno ENOENT when there is none. Never fails loudly: a missing debug
 * file is normal.
 */
struct elf_file *debuginfo__find(const struct elf_file *elf, const struct debuginfo_opts *opts);

/*
 * The debug file of elf at path, a host path outside any root (one
 * debuginfod fetched, core/elf/debuginfod.h), when it is a regular ELF file
 * that matches elf's build ID; NULL otherwise.
 */
struct elf_file *debuginfo__open_matching(const struct elf_file *elf, const char *path);

#endif
