/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Finding the separate debug file of an ELF file: an explicit path, then
 * /usr/lib/debug/.build-id/xx/rest.debug, then .gnu_debuglink next to the
 * file, in its .debug/ directory and under /usr/lib/debug. A candidate is
 * taken only when its build ID (or the debug link's CRC) matches.
 */
#ifndef UNWPROF_DEBUGINFO_H
#define UNWPROF_DEBUGINFO_H

struct elf_file;

struct debuginfo_opts {
	const char *root; /* prefix for every path looked up, e.g. /proc/PID/root; NULL for / */
	const char *debug_dir; /* default /usr/lib/debug */
};

/*
 * The debug file of elf (opened at path, relative to opts->root), or NULL
 * with errno ENOENT when there is none. Never fails loudly: a missing debug
 * file is normal.
 */
struct elf_file *debuginfo__find(const struct elf_file *elf, const struct debuginfo_opts *opts);

#endif
