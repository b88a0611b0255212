/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The names a JIT runtime gives the code it generates, in the two files
 * perf reads them from:
 *
 *  - a perf map, /tmp/perf-PID.map, text: one "START SIZE NAME" a line,
 *    START and SIZE in hex with or without "0x" (node --perf-basic-prof
 *    writes "3ef414a0c0 5c LazyCompile:~main a.js:1", the JVM's
 *    `jcmd PID Compiler.perfmap` and -XX:+DumpPerfMapAtExit
 *    "0x00007f3c2d0e5a20 0x0000000000000128 long Spin.work(int)"); the
 *    name is the rest of the line, whole;
 *  - a jitdump, jit-PID.dump (core/symbols/jitdump.h): the binary records
 *    of perf's jitdump specification, which the process maps to say where
 *    it is (CPython's -X perf_jit, the JVM's agents, wasmtime).
 *
 * Runtimes write these files while they run, add to them, or write them
 * once at their end, so a jit_map is read on the first lookup and read
 * again whenever an address is not named and the file changed (inode,
 * size, modification time) since it was last read: a lookup after the
 * process exited sees everything it wrote.
 *
 * The files are the process's and untrusted. A file is looked up inside
 * the process's root and read only when core/targets/proc_view.h accepts
 * it: a regular file, not a link, of at most JIT_MAP_MAX_FILE bytes, owned
 * by root or a user of the process, and for a jitdump the process maps,
 * that very file; a jitdump whose header is not one, or names another
 * process than its file name, is refused too. A refused file is warned
 * about once, counted where the view counts, and names nothing. In a file
 * read, an entry that cannot be right is refused, counted by reason
 * (jit_map__stats), and the others kept. Where entries overlap, the later
 * one in the file wins, as the runtime wrote it after the code it replaced.
 */
#ifndef UNWPROF_JIT_MAP_H
#define UNWPROF_JIT_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum jit_map_format {
	JIT_MAP_PERF_MAP,
	JIT_MAP_JITDUMP,
};

/* Why an entry was refused. */
enum jit_map_reason {
	JIT_MAP_GARBAGE,   /* not "START SIZE NAME", or a record that is not one */
	JIT_MAP_EMPTY,	   /* size 0: names no address */
	JIT_MAP_HUGE,	   /* larger than JIT_MAP_MAX_CODE, or past the end of the address space */
	JIT_MAP_OVERLAP,   /* overlaps an entry written after it */
	JIT_MAP_TRUNCATED, /* cut short: the last line without its newline, a record cut */
	JIT_MAP_NR_REASONS,
};

/* No function a JIT compiles is this large; a larger size is a corrupt entry. */
#define JIT_MAP_MAX_CODE (64ULL << 20)
/* Nor is a name this long. */
#define JIT_MAP_MAX_NAME 65536
/* A file is read whole: a larger one is not read. */
#define JIT_MAP_MAX_FILE (1ULL << 30)

struct jit_map_stats {
	size_t entries;			    /* kept by the last read */
	size_t refused[JIT_MAP_NR_REASONS]; /* by the last read */
	size_t reads;			    /* of the file, the first included */
	size_t unwind_records;		    /* jitdump: unwinding information, not used */
};

/* "garbage", "empty", ... */
const char *jit_map__reason_name(enum jit_map_reason r);

struct jit_map;
struct proc_view;

/* Whose file a map is, and what it must be. */
struct jit_map_opts {
	/* the process (core/targets/proc_view.h): the root it is found in, who may own it */
	const struct proc_view *view;
	/* a jitdump the process maps: no link in its path, and the mapped file (0, 0: any) */
	dev_t dev;
	ino_t ino;
	bool mapped;
	/* a jitdump's header must name this pid, its file name's (0: any) */
	uint32_t pid;
};

/*
 * The map of the file at path, in format, as opts say; nothing is read
 * yet. opts NULL: a map only ever given its text (jit_map__parse()). NULL
 * and errno on failure.
 */
struct jit_map *jit_map__new(const char *path, enum jit_map_format format,
			     const struct jit_map_opts *opts);
void jit_map__free(struct jit_map *m);

/*
 * The entry that holds addr: its name (valid as long as m) and addr's
 * offset in it. The file is read first when it never was, or when no entry
 * holds addr and it changed since it was last read. 0, or -ENOENT when no
 * entry holds addr (the file may not exist).
 */
int jit_map__lookup(struct jit_map *m, uint64_t addr, const char **name, uint64_t *offset);

/*
 * Replaces the entries of m by those of buf, len bytes in m's format, and
 * m then never reads its file: for the tests and the fuzz targets.
 */
int jit_map__parse(struct jit_map *m, const void *buf, size_t len);

const struct jit_map_stats *jit_map__stats(const struct jit_map *m);

/*
 * Parsing, for the format readers: an entry read (start, size, the name's
 * len bytes, which need no NUL), or one refused. add() checks the size and
 * returns 0 or -ENOMEM.
 */
struct jit_map_builder;
int jit_map__builder_add(struct jit_map_builder *b, uint64_t start, uint64_t size, const char *name,
			 size_t len);
void jit_map__builder_refuse(struct jit_map_builder *b, enum jit_map_reason r);
/* The name of the latest entry that starts at start, and its size, for a jitdump's moves. */
const char *jit_map__builder_find(const struct jit_map_builder *b, uint64_t start, size_t *len);
void jit_map__builder_unwind_record(struct jit_map_builder *b);
/* The pid a jitdump's header must name; 0: any. */
uint32_t jit_map__builder_pid(const struct jit_map_builder *b);

#endif
