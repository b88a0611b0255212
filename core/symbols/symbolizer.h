/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Turning addresses into function names.
 *
 * User space: the processes and the files they map are the model's
 * (core/model/model.h), which the BPF session reads them into, so a process
 * that exits before the end of the run is still symbolized. A mapping's
 * address becomes an ELF address of its file's image by the model's one
 * translation, the walk's; the image's symbols (core/symbols/symtab.h),
 * and its source lines and inlined frames from the DWARF of its debug file
 * (found here, else fetched by debuginfod: core/elf/debuginfod.h),
 * else of the file (core/symbols/dwarf_lines.h), are read on the first
 * lookup in it. The [vdso] is unwprof's own, which is the same kernel image
 * in every process. Anonymous executable memory (JIT code) is named from
 * the runtime's /tmp/perf-PID.map, or the jitdump it maps.
 *
 * Kernel: /proc/kallsyms (core/symbols/ksyms.h), read once, on the first
 * kernel lookup or before it in a thread of its own.
 */
#ifndef UNWPROF_SYMBOLIZER_H
#define UNWPROF_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct dwarf_frame;
struct model;
struct model_image;
struct profile;
struct profile_stack;

struct symbolizer_opts {
	struct model *model;   /* the processes and files; NULL: one of its own, without tables */
	const char *debug_dir; /* of the model of its own: NULL for /usr/lib/debug */
	const char *kallsyms;  /* NULL for /proc/kallsyms */
	const char *perf_map_dir; /* where JIT runtimes write perf-PID.map; NULL for /tmp */
	bool no_lines;		  /* functions only: no source lines, no inlined frames */
};

struct symbol_info {
	const char *name;     /* the raw symbol name, NULL when no symbol covers the address */
	uint64_t offset;      /* address - start of the symbol */
	const char *file;     /* path of the mapping, NULL when no mapping covers the address */
	const char *build_id; /* lowercase hex, NULL when unknown */
	uint64_t map_start;   /* the mapping: its range and the file offset of its start */
	uint64_t map_end;
	uint64_t map_offset;
	/*
	 * What the file's DWARF (core/symbols/dwarf_lines.h) says of the address:
	 * innermost inlined function first. nr_frames is 0 without DWARF; the
	 * array is valid until the next lookup.
	 */
	const struct dwarf_frame *frames;
	size_t nr_frames;
	/*
	 * No symbol holds the address, and its file has none but its dynamic
	 * ones (stripped, no debug file found): a debug file would name it. The
	 * image is then in image.
	 */
	bool wants_symbols;
	const struct model_image *image;
};

struct symbolizer;

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts);
void symbolizer__free(struct symbolizer *sym);

/* The model it names the addresses of processes from: opts.model, or its own. */
struct model *symbolizer__model(const struct symbolizer *sym);

/*
 * Process pid runs runtime rt (core/runtimes/runtimes.h), its state read of
 * a file loaded at bias: the runtime's frames of its stacks are named from
 * its memory by rt's namer. 0 for a runtime whose frames are native ones.
 */
struct runtime;
int symbolizer__add_runtime(struct symbolizer *sym, uint32_t pid, const struct runtime *rt,
			    const void *state, uint64_t bias);
/* An event of size bytes telling a runtime's code object first seen: read now by its namer. */
struct unw_event;
void symbolizer__code_event(struct symbolizer *sym, const struct unw_event *ev, size_t size);
/* pid was forked from ppid: its interpreter's frames are named as its parent's are. */
int symbolizer__fork(struct symbolizer *sym, uint32_t ppid, uint32_t pid);

/*
 * What addr of process pid is. Returns 0 with *info filled (name NULL when no
 * symbol covers it, file NULL when no mapping does), -ENOENT when the model
 * has no such process. Strings stay valid as long as the symbolizer and its
 * model.
 */
int symbolizer__lookup(struct symbolizer *sym, uint32_t pid, uint64_t addr,
		       struct symbol_info *info);

/* The same for a kernel address, through kallsyms; the mapping is "[kernel.kallsyms]". */
int symbolizer__lookup_kernel(struct symbolizer *sym, uint64_t addr, struct symbol_info *info);

/*
 * Starts reading the kernel's symbols in a thread of its own, for the
 * first symbolizer__lookup_kernel(): the kernel takes tens of milliseconds
 * to list /proc/kallsyms, which a run then spends while it samples rather
 * than between its end and its output. Once at most; 0, or -errno (they are
 * then read at the first lookup, as without it).
 */
int symbolizer__preload_kernel(struct symbolizer *sym);

/* The symbol at ELF virtual address vaddr of the file at path (opened once, by the model). */
int symbolizer__lookup_file(struct symbolizer *sym, const char *path, uint64_t vaddr,
			    struct symbol_info *info);

/*
 * Profiles. Symbolizing sets a location's mapping and function: demangled
 * name in function, raw name in system_name; and, from DWARF, its source
 * lines (profile__set_lines): the functions inlined there, innermost first,
 * the last one named as the symbol is. A caller's frame (a return
 * address) is looked up at addr - 1, inside its call instruction.
 */

/*
 * Counts a stack in p as profile__add_stack() does, resolving its user
 * frames now. An address in a mapped file gets the location that every
 * process mapping that file shares at that file offset, symbolized at the
 * next symbolizer__flush(): the locations, and the memory they take,
 * follow the distinct code addresses, not the processes. Other user
 * addresses (anonymous memory, a process not added) get locations of the
 * process's own, which symbolizer__end_process() or
 * symbolizer__symbolize_profile() symbolize. A symbolizer adds stacks to
 * one profile only.
 */
int symbolizer__add_stack(struct symbolizer *sym, struct profile *p, const struct profile_stack *st,
			  uint64_t count);

/*
 * Symbolizes the shared locations added since the last flush, by file and
 * address: in that order a file's DWARF is read forward, and lookups cost
 * a fraction of what they cost in the order the stacks came. The recorder
 * flushes at the end of each drain; ending a process and symbolizing the
 * profile flush first. The locations of an image whose debug file is on its
 * way from debuginfod (core/model/model.h) are held back for a later flush.
 * 0 or -ENOMEM.
 */
int symbolizer__flush(struct symbolizer *sym);

/*
 * Process pid exited: symbolizes the locations of its own (JIT code, say)
 * and retires them, so that a new process with the same pid gets its own,
 * then forgets what it kept of it. Called while the model still has the
 * process, which is removed then (core/session/session.c does): memory
 * depends on the live processes, not on every one seen.
 */
int symbolizer__end_process(struct symbolizer *sym, struct profile *p, uint32_t pid);

/*
 * Symbolizes every location of p not symbolized yet: those of the
 * processes still running, the kernel's, and all of a profile whose stacks
 * were added with profile__add_stack().
 */
int symbolizer__symbolize_profile(struct symbolizer *sym, struct profile *p);

/* A file whose frames stayed unnamed for want of symbols, and how many. */
struct symbolizer_unnamed {
	const char *file;     /* its path, as the process that mapped it first named it */
	const char *build_id; /* lowercase hex, NULL without one */
	uint64_t frames;      /* frames of p's samples, each sample's count times */
};

/*
 * After symbolizer__symbolize_profile(): the files whose frames stayed
 * unnamed for want of symbols (info.wants_symbols), the most first, up to
 * max into out; returns how many there are (which may be more than max),
 * and their frames in all in *frames. Strings stay valid as long as the
 * symbolizer's model. -ENOMEM on failure.
 */
ssize_t symbolizer__unnamed(const struct symbolizer *sym, const struct profile *p,
			    struct symbolizer_unnamed *out, size_t max, uint64_t *frames);

#endif
