/* SPDX-License-Identifier: GPL-2.0-only */
/* The executable mappings of a process, from /proc/PID/maps. */
#ifndef UNWPROF_PROCMAPS_H
#define UNWPROF_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

struct elf_file;

enum procmap_kind {
	PROCMAP_FILE,	 /* backed by a file: has unwind tables and symbols */
	PROCMAP_ANON,	 /* anonymous executable memory: JIT code */
	PROCMAP_SPECIAL, /* [vdso], [vsyscall], ... */
};

struct procmap {
	uint64_t start;
	uint64_t end;
	uint64_t offset; /* file offset of start */
	uint64_t inode;
	uint32_t dev_major;
	uint32_t dev_minor;
	enum procmap_kind kind;
	char *path; /* as in /proc/PID/maps; NULL when anonymous */
};

struct procmaps {
	pid_t pid;
	struct procmap *maps; /* executable mappings only, sorted by start */
	size_t nr;
};

/* The mappings of a maps file's text (procfs__read_maps reads a process's); name is for messages. */
struct procmaps *procmaps__parse(FILE *f, pid_t pid, const char *name);
void procmaps__free(struct procmaps *pm);
const struct procmap *procmaps__find(const struct procmaps *pm, uint64_t addr);

/* Whether m is the [vdso]: not a file, but an ELF image with tables and symbols. */
bool procmaps__is_vdso(const struct procmap *m);

#endif
