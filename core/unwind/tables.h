/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The unwind tables of the files processes map, built the way record loads
 * them: each mapped file is opened once (by device and inode) as its process
 * sees it, resolved inside /proc/PID/root so that no symlink it plants leads
 * out (core/targets/procfs.h), and only when it is the mapped inode; its separate
 * debug file is looked up inside the same root; each table is built once per key, the file's GNU build
 * ID or, without one, 'H' and a hash of its contents. A library shared by
 * many processes (or by containers with their own copy) is built once and
 * packed once.
 *
 *	ts = tables__new(&opts);
 *	f = tables__get_mapping(ts, &pm->maps[i], pid);	 file of a mapping
 *	f->table->table					 its unwind table, or NULL
 *	tables__free(ts);
 *
 * Pointers returned stay valid until tables__free().
 */
#ifndef UNWPROF_TABLES_H
#define UNWPROF_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/common.h"
#include "../elf/elf.h"
#include "../runtimes/goruntime.h"
#include "../runtimes/pyruntime.h"
#include "../runtimes/rbruntime.h"

struct procmap;
struct tables;

/* Build ID, or 'H' and a 64-bit content hash. */
#define TABLES_KEY_MAX (ELF_BUILD_ID_MAX + 1)
#define TABLES_MAX_SEGS 16

struct tables_opts {
	bool no_tables;	   /* open files (segments) but build no table: frame pointers only */
	bool no_debuginfo; /* do not look for separate debug files */
};

/* One table, shared by every file with its key. */
struct tables_entry {
	uint8_t key[TABLES_KEY_MAX];
	size_t key_len;
	size_t build_id_len;	    /* 0: the key is a content hash */
	char *path;		    /* the first path it was seen under */
	struct unwind_table *table; /* NULL when it could not be built */
	size_t index;		    /* its place in tables__get() order */
	bool has_go;		    /* a Go binary whose stack switch the walk follows: */
	struct go_runtime go;	    /* its functions and offsets, ELF addresses */
	bool has_py;		    /* a CPython interpreter (or libpython) the walk reads: */
	struct py_runtime py;	    /* its version, eval loop and offsets, ELF addresses */
	bool has_rb;		    /* a Ruby interpreter (libruby) the walk reads: */
	struct rb_runtime rb;	    /* its version, VM loop and offsets, ELF addresses */
	/*
	 * An interpreter of a version (or build) whose frames are not read:
	 * py or rb then holds its version and loop only, where its samples
	 * are counted (python-version-unsupported, ruby-version-unsupported).
	 */
	bool py_refused, rb_refused;
};

/* One mapped file, by device and inode. */
struct tables_file {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	struct tables_entry *table; /* NULL: not readable as ELF, or no_tables */
	struct elf_load_segment segs[TABLES_MAX_SEGS];
	size_t nr_segs;
	/* Its executable segments, as BPF's file map holds them (one translation for both). */
	struct unw_seg exec_segs[UNW_FILE_SEGS];
	uint32_t nr_exec_segs;
	bool published; /* the caller's: record's file map entry is written */
	/*
	 * Its process exited before the file could be opened: no table yet,
	 * and the next process that maps it is asked again. A file that could
	 * not be read for its own reasons is not asked again.
	 */
	bool unopened;
};

/* Mapped files that could not be opened, by reason. */
struct tables_stats {
	/*
	 * The path inside the process's root led to another file than the
	 * mapped one (a planted symlink, a replaced file; overlayfs before
	 * Linux 6.8 too): the mapped file was then opened by map_files when
	 * it could be, and skipped otherwise.
	 */
	size_t files_replaced;
	size_t files_gone;	 /* the process exited first */
	size_t files_unreadable; /* not openable as the mapped inode, or not ELF */
};

/* NULL and errno on failure. */
struct tables *tables__new(const struct tables_opts *opts);
void tables__free(struct tables *ts);

/*
 * The file of the file-backed mapping m of process pid, opened and its table
 * built on first use. NULL and errno ENOMEM only on allocation failure: a
 * file that cannot be read is returned with a NULL table (frame pointers
 * there), reported at debug level, and a table that cannot be built with a
 * warning.
 *
 * The [vdso] mapping (procmap__is_vdso()) of every process is one file, read
 * from unwprof's own vDSO: the kernel maps the same image into each of them.
 * It has no device and inode (0), and its table's path is "[vdso]". A [vdso]
 * of another length than unwprof's own is another image (a process restored
 * from another kernel): it gets a file without a table.
 */
struct tables_file *tables__get_mapping(struct tables *ts, const struct procmap *m, pid_t pid);

/*
 * The table of the ELF file at path (debug files looked up from /). NULL and
 * errno on failure, after a message naming the file.
 */
struct tables_entry *tables__get_path(struct tables *ts, const char *path);

void tables__stats(const struct tables *ts, struct tables_stats *st);

/* Distinct tables, in the order they were first seen. */
size_t tables__count(const struct tables *ts);
struct tables_entry *tables__get(const struct tables *ts, size_t i);

/* The key of ef's table into key (TABLES_KEY_MAX bytes); returns its length. */
size_t tables__key(const struct elf_file *ef, uint8_t *key, size_t *build_id_len);

/*
 * Table pc = pc - *bias for the pcs of mapping m of file f whose table has
 * base address base (unw_file__bias() of bpf/unwind_step.h, which BPF runs
 * too). Returns false when no executable segment maps m.
 */
bool tables_file__bias(const struct tables_file *f, const struct procmap *m, uint64_t base,
		       uint64_t *bias);

#endif
