/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The model of what is profiled, as perf's machine → thread → maps → dso:
 * the processes, by pid, each with its executable mappings; the files they
 * map, by device and inode; and the ELF images of those files, by GNU build
 * ID or, without one, 'H' and a hash of their contents. The BPF session, the
 * loader of unwind tables and the symbolizer share one model, so that each
 * mapped file is opened once and each image parsed once per run, however
 * many processes (or containers with their own copy) map it.
 *
 * A file is opened as its process sees it, resolved inside /proc/PID/root
 * so that no symlink it plants leads out (core/targets/procfs.h), and only
 * when it is the mapped inode. Its image is parsed when first seen: its
 * separate debug file looked up inside the same root (else asked of
 * debuginfod, for the symbolizer: model__image_settled()), its segments and
 * the one translation between a mapping's addresses and ELF addresses, its
 * unwind table, the runtimes found in it; its symbols, source lines and
 * functions named by their CFI are read on first use (model__image_symtab(),
 * model__image_dwarf(), model__image_cfi_names()).
 *
 *	md = model__new(&opts);
 *	p = model__read_process(md, pid);	 /proc/PID/maps read once, its files opened
 *	p->maps[i].file->image->table		 a mapping's unwind table, or NULL
 *	model__fork(md, ppid, pid);		 a child runs its parent's mappings
 *	model__exec(md, pid);			 its view is checked at its next read
 *	model__view(md, pid, &v);		 how it sees the files it names
 *	model__remove_process(md, pid);		 it exited
 *	model__free(md);
 *
 * Files, images and the paths of mappings stay valid until model__free(); a
 * process until it is removed or read again.
 */
#ifndef UNWPROF_MODEL_H
#define UNWPROF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../util/common.h"
#include "../elf/elf_file.h"
#include "../runtimes/runtimes.h"
#include "../targets/procmaps.h"
#include "../targets/proc_view.h"

struct cfi_names;
struct debuginfod;
struct dwarf_lines;
struct model;
struct symtab;
struct unwind_table;

/* Build ID, or 'H' and a 64-bit content hash. */
#define MODEL_KEY_MAX (ELF_BUILD_ID_MAX + 1)
#define MODEL_MAX_SEGS 16

struct model_opts {
	bool no_tables;	   /* open files (segments, symbols) but build no table: frame pointers */
	bool no_debuginfo; /* do not look for separate debug files */
	const char *debug_dir; /* where debug files are looked up; NULL for /usr/lib/debug */
	/*
	 * Fetches the debug files missing here (core/elf/debuginfod.h); not
	 * owned, and to be finished before the last symbolizer__flush(), which
	 * holds back the locations of an image whose debug file is on its way.
	 * NULL: none.
	 */
	struct debuginfod *debuginfod;
};

/* One ELF image, shared by every file with its key. */
struct model_image {
	uint8_t key[MODEL_KEY_MAX];
	size_t key_len;
	size_t build_id_len; /* 0: the key is a content hash */
	char *build_id;	     /* lowercase hex, NULL without one */
	char *path;	     /* the first path it was seen under */
	size_t index;	     /* its place in model__image() order */
	struct elf_file *elf;
	struct elf_file *debug; /* its separate debug file, NULL when none was found */
	/* its debug file is on its way from debuginfod: model__image_settled() is false */
	struct debuginfod *fetching;
	struct elf_load_segment segs[MODEL_MAX_SEGS];
	size_t nr_segs;
	/* Its executable segments, as BPF's file map holds them (one translation for both). */
	struct unw_seg exec_segs[UNW_FILE_SEGS];
	uint32_t nr_exec_segs;
	struct unwind_table *table; /* NULL when it could not be built, or no_tables */
	struct image_runtimes rt;   /* what each runtime read of it (core/runtimes/runtimes.h) */
	/* Read on first use: model__image_symtab(), model__image_dwarf(), model__image_cfi_names(). */
	struct symtab *symtab;
	struct dwarf_lines *dwarf;
	struct cfi_names *cfi_names;
	bool symtab_tried, dwarf_tried, cfi_names_tried;
};

/* One mapped file, by device and inode. */
struct model_file {
	uint32_t dev_major, dev_minor;
	uint64_t inode;
	struct model_image *image; /* NULL: not readable as ELF */
	bool published;		   /* the session's: BPF's file map has its entry */
	/*
	 * Its process exited before the file could be opened: no image yet,
	 * and the next process that maps it is asked again. A file that could
	 * not be read for its own reasons is not asked again.
	 */
	bool unopened;
};

/* One executable mapping of a process. */
struct model_map {
	struct procmap map;	 /* as /proc/PID/maps says; its path is the model's */
	struct model_file *file; /* file-backed or the [vdso]; NULL: anonymous, or not opened */
	bool current;		 /* in the last read of the maps; else kept for earlier samples */
};

/*
 * One process: its mappings sorted by start, not overlapping. Those of the
 * last read of its maps are current; earlier ones that no current mapping
 * overlaps stay, so that samples taken before still find them.
 */
struct model_root;
struct model_proc {
	pid_t pid;
	struct model_map *maps;
	size_t nr, nr_current;
	uint32_t changes; /* bumped whenever its mappings change: readers notice it */
	/*
	 * How it sees the files it names (core/targets/proc_view.h), read with
	 * its mappings: its root, kept open until it is removed (a file it
	 * names is read after it exited), its pid there, its users. root NULL:
	 * never read (model__view() then gives unwprof's own root).
	 */
	struct proc_view view;
	struct model_root *root;
	bool exec; /* it exec'd since it was read: its view is checked (model__exec()) */
};

/* Mapped files that could not be opened, by reason, and what was opened. */
struct model_stats {
	/*
	 * The path inside the process's root led to another file than the
	 * mapped one (a planted symlink, a replaced file; overlayfs before
	 * Linux 6.8 too): the mapped file was then opened by map_files when
	 * it could be, and skipped otherwise.
	 */
	size_t files_replaced;
	size_t files_gone;	 /* the process exited first */
	size_t files_unreadable; /* not openable as the mapped inode, or not ELF */
	size_t files_opened;	 /* distinct files (device and inode) opened, each once */
	size_t images_parsed;	 /* distinct images (key) parsed, each once */
	size_t maps_read;	 /* times a process's maps were read */
	/* Files named by a process (debug files, JIT maps) refused, by reason (proc_view.h). */
	size_t files_refused[PROC_VIEW_NR];
};

/* NULL and errno on failure. */
struct model *model__new(const struct model_opts *opts);
void model__free(struct model *md);

/*
 * The file of the file-backed mapping m of process pid, opened and its image
 * parsed on first use. NULL and errno ENOMEM only on allocation failure: a
 * file that cannot be read is returned without an image (frame pointers
 * there), reported at debug level, and a table that cannot be built with a
 * warning.
 *
 * The [vdso] mapping (procmaps__is_vdso()) of every process is one file, read
 * from unwprof's own vDSO: the kernel maps the same image into each of them.
 * It has no device and inode (0), and its image's path is "[vdso]". A [vdso]
 * of another length than unwprof's own is another image (a process restored
 * from another kernel): it gets a file without an image.
 */
struct model_file *model__file_of(struct model *md, const struct procmap *m, pid_t pid);

/*
 * The image of the ELF file at path (debug files looked up from /). NULL and
 * errno on failure, after a message naming the file.
 */
struct model_image *model__image_of_path(struct model *md, const char *path);

void model__stats(const struct model *md, struct model_stats *st);

/* Distinct images, in the order they were first seen. */
size_t model__nr_images(const struct model *md);
struct model_image *model__image(const struct model *md, size_t i);
/* Mapped files, in the order they were first seen. */
size_t model__nr_files(const struct model *md);
struct model_file *model__file(const struct model *md, size_t i);

/* The key of ef into key (MODEL_KEY_MAX bytes); returns its length. */
size_t model__key(const struct elf_file *ef, uint8_t *key, size_t *build_id_len);

/*
 * The one translation between a mapping's addresses and its image's: an
 * ELF address is addr - *bias for the addresses of a mapping of img at
 * start, of file offset offset, and a table pc that minus base too
 * (unw_file__bias() of bpf/unwind_step.h, which BPF runs). False when no
 * executable segment maps it.
 */
bool model__image_bias(const struct model_image *img, uint64_t start, uint64_t offset,
		       uint64_t base, uint64_t *bias);

/*
 * Whether img's debug file is what it will be: once debuginfod answered,
 * the file it fetched is opened, and what was read of the image without it
 * (symbols, DWARF) is read again on next use. Never waits.
 */
bool model__image_settled(struct model_image *img);

/* Settles every image whose debug file was on its way: whether any still is. */
bool model__settle_fetches(struct model *md);

/* What is read of an image on first use; NULL when it has none (or no memory). */
struct symtab *model__image_symtab(struct model_image *img);
struct dwarf_lines *model__image_dwarf(struct model_image *img);
struct cfi_names *model__image_cfi_names(struct model_image *img);

/*
 * Reads the executable mappings of pid and makes them its current ones,
 * their files opened (model__file_of()). NULL and errno ESRCH, silently,
 * when the process does not exist or exits meanwhile; other errors are
 * reported.
 */
struct model_proc *model__read_process(struct model *md, pid_t pid);

/* The same with the mappings pm, read elsewhere (a test's). NULL and errno ENOMEM. */
struct model_proc *model__add_maps(struct model *md, const struct procmaps *pm);

/* Process pid, NULL when it was never read nor forked. */
struct model_proc *model__process(const struct model *md, pid_t pid);

/*
 * Process pid was forked by ppid: until its own mappings are read (its
 * exec), it runs its parent's, which it gets a copy of, so that the samples
 * it takes between its fork and its exec are named. Nothing when pid is
 * known already or ppid is not. 0 or -ENOMEM.
 */
int model__fork(struct model *md, pid_t ppid, pid_t pid);

/*
 * Process pid exec'd: at its next read, its view is read again unless it
 * kept its namespaces, its root and its user (an exec may enter a container
 * or change users). Nothing when pid is not known.
 */
void model__exec(struct model *md, pid_t pid);

/* Forgets process pid (it exited); its files stay for the others. */
void model__remove_process(struct model *md, pid_t pid);

/*
 * How process pid sees the files it names, into *v: as read with its
 * mappings (its root, valid until it is removed), else unwprof's root, its
 * pid as its namespace's and the owners of proc_view__default(). Refusals
 * are counted in the model's stats (files_refused).
 */
void model__view(struct model *md, pid_t pid, struct proc_view *v);

/* unwprof's own root (O_PATH), the model's; -1 when it cannot be opened. */
int model__own_root(struct model *md);

/* The mapping of p that holds addr, or NULL. */
const struct model_map *model__proc_find(const struct model_proc *p, uint64_t addr);

#endif
