// SPDX-License-Identifier: GPL-2.0-only
/*
 * The symbolizer: per-process mappings, per-file symbol tables shared by
 * build ID, kernel symbols from kallsyms. See symbolize.h.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/common.h"
#include "bpf/unwprof.h"
#include "../elf/debuginfo.h"
#include "../elf/debuginfod.h"
#include "demangle.h"
#include "dwarf_lines.h"
#include "../elf/elf.h"
#include "../elf/gopclntab.h"
#include "../util/log.h"
#include "../util/radix.h"
#include "../targets/procfs.h"
#include "../targets/procmaps.h"
#include "../profile/profile.h"
#include "../runtimes/pyframes.h"
#include "../runtimes/rbframes.h"
#include "cfi_names.h"
#include "perfmap.h"
#include "symbolize.h"

#define MAX_SEGMENTS 16
#define KERNEL_MAPPING "[kernel.kallsyms]"

struct sym {
	uint64_t addr;
	uint64_t size;	  /* 0 when unknown: covers up to the next symbol */
	const char *name; /* inside the mapped string table */
	int bind;	  /* STB_* */
	bool label;	  /* STT_NOTYPE: an assembler label such as ld.so's _start */
};

struct symfile {
	char *path;
	char *build_id; /* lowercase hex, NULL when the file has none */
	uint64_t dev;	/* identity in /proc/PID/maps, 0 when not from there */
	uint64_t ino;
	struct elf_file *elf;
	struct elf_file *debug; /* its separate debug file, may be NULL */
	/* its debug file is on its way from debuginfod (core/elf/debuginfod.h): lookups wait */
	struct debuginfod *fetching;
	struct elf_load_segment segs[MAX_SEGMENTS];
	size_t nr_segs;
	struct sym *syms; /* sorted by addr, one per address */
	size_t nr_syms;
	bool loaded;		   /* syms read (or found absent) */
	struct dwarf_lines *dwarf; /* of debug, else of elf; NULL when neither has DWARF */
	bool dwarf_tried;
	/* functions without a symbol, named by their CFI (cfi_names.h), read on the first miss */
	struct cfi_names *cfi_names;
	bool cfi_names_tried;
	struct dwarf_frame frames[DWARF_LINES_MAX_DEPTH]; /* of the last lookup */
};

struct proc_map {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	char *path;	      /* NULL for anonymous memory */
	struct symfile *file; /* NULL when it could not be opened */
};

struct proc {
	uint32_t pid;
	struct proc_map *maps; /* sorted by start, not overlapping */
	size_t nr;
	uint32_t *own; /* its locations outside files, symbolized at its end */
	size_t nr_own, cap_own;
	/* JIT symbols (core/symbols/perfmap.h): /tmp/perf-PID.map, made on the first lookup */
	struct jit_map *perf_map;
	struct jit_map *jitdump; /* the jit-PID.dump it maps, else the one next to the perf map */
	bool jitdump_mapped;	 /* jitdump is the one it maps */
};

/*
 * The location of each (file, file offset, return address) seen: every
 * process that maps the file shares it. An empty slot has no file.
 */
struct shared_slot {
	const struct symfile *file;
	uint64_t file_offset;
	uint32_t id;
	bool return_addr;
};

struct shared_index {
	struct shared_slot *slots;
	size_t cap; /* a power of two, or 0 */
	size_t nr;
};

/*
 * Shared locations added and not symbolized yet, and the mapping (a copy:
 * the process's array moves) each was first seen in. symbolizer__flush()
 * symbolizes them by file and offset: lookups in address order go forward
 * through a file's DWARF, its units, function trees and rows read while in
 * the cache, where lookups in the order of the stacks jumped across
 * megabytes at each (a fifth of the time of 20,000 lookups in libpython).
 */
struct pending_location {
	struct proc_map map; /* its file is not owned, nor its path unless path_owned */
	uint64_t file_offset;
	uint32_t id;
	bool path_owned; /* held back past a flush (its file's debug file on its way) */
};

struct pending_locations {
	struct profile *profile;
	struct pending_location *v;
	size_t nr, cap;
};

struct symbolizer {
	char *debug_dir;
	char *kallsyms;
	char *perf_map_dir;
	struct symfile **files;
	size_t nr_files;
	struct proc *procs; /* sorted by pid */
	size_t nr_procs;
	struct ksyms *ksyms;
	bool ksyms_tried;
	/* symbolizer__preload_kernel(): the thread reading them, into preloaded. */
	pthread_t ksyms_thread;
	bool ksyms_loading;
	struct ksyms *preloaded;
	struct symfile *vdso;
	bool vdso_tried;
	struct shared_index shared;
	struct pending_locations pending;
	bool no_lines;
	struct py_namer *python;       /* names Python frames (core/runtimes/pyframes.h) */
	struct rb_namer *ruby;	       /* names Ruby frames (core/runtimes/rbframes.h) */
	struct debuginfod *debuginfod; /* not owned; NULL: no fetches */
	size_t nr_fetching;	       /* files whose debug file is on its way */
};

struct ksyms {
	struct ksym *syms;
	size_t nr;
	char *names; /* every name and module, NUL-separated */
};

/* Symbol tables of one file */

static int bind_rank(int bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static size_t leading_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/*
 * Among aliases at one address the name people know wins: a function with
 * a size before a marker without one (Go's runtime.text on its first
 * function, as perf prefers too), global before weak before local, then
 * fewer leading underscores ("malloc" over "__libc_malloc"), then the
 * shorter, then bytewise, so the choice is stable.
 */
static int sym_cmp(const void *pa, const void *pb)
{
	const struct sym *a = pa, *b = pb;
	size_t ua, ub, la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->label != b->label)
		return a->label ? 1 : -1;
	if (!a->size != !b->size)
		return a->size ? -1 : 1;
	if (bind_rank(a->bind) != bind_rank(b->bind))
		return bind_rank(a->bind) - bind_rank(b->bind);
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static bool in_code(const struct symfile *sf, uint64_t vaddr)
{
	for (size_t i = 0; i < sf->nr_segs; i++)
		if ((sf->segs[i].flags & PF_X) && vaddr >= sf->segs[i].vaddr &&
		    vaddr - sf->segs[i].vaddr < sf->segs[i].memsz)
			return true;
	return false;
}

/*
 * Functions, and untyped symbols in code: hand-written assembly often has no
 * .type (ld.so's _start, at the bottom of every stack during startup). Not
 * "$x"-style mapping symbols or ".L" locals.
 */
static bool sym_wanted(const struct symfile *sf, const Elf64_Sym *es, const char *name)
{
	int type = ELF64_ST_TYPE(es->st_info);

	if (es->st_shndx == SHN_UNDEF || es->st_shndx == SHN_ABS || !es->st_value || !*name)
		return false;
	if (type == STT_FUNC || type == STT_GNU_IFUNC)
		return true;
	return type == STT_NOTYPE && name[0] != '$' && strncmp(name, ".L", 2) != 0 &&
	       in_code(sf, es->st_value);
}

/* Room for one more symbol at the end of sf->syms; NULL when out of memory. */
static struct sym *syms_push(struct symfile *sf, size_t *cap)
{
	if (sf->nr_syms == *cap) {
		size_t new_cap = *cap ? *cap * 2 : 256;
		struct sym *syms = reallocarray(sf->syms, new_cap, sizeof(*syms));

		if (!syms)
			return NULL;
		sf->syms = syms;
		*cap = new_cap;
	}
	return &sf->syms[sf->nr_syms++];
}

/* Appends the function symbols of section symtab (names in strtab) of ef. */
static int syms_add_table(struct symfile *sf, const struct elf_file *ef, const char *symtab,
			  const char *strtab, size_t *cap)
{
	struct elf_section ss, st;
	size_t n;

	if (elf_file__section(ef, symtab, &ss) || elf_file__section(ef, strtab, &st))
		return 0;
	n = ss.size / sizeof(Elf64_Sym);
	for (size_t i = 0; i < n; i++) {
		Elf64_Sym es;
		struct sym *s;

		/* The section need not be aligned in the mapped file. */
		memcpy(&es, ss.data + i * sizeof(es), sizeof(es));
		if (es.st_name >= st.size || !memchr(st.data + es.st_name, 0, st.size - es.st_name))
			continue; /* a name past its table: skip, do not read beyond */
		if (!sym_wanted(sf, &es, (const char *)st.data + es.st_name))
			continue;
		s = syms_push(sf, cap);
		if (!s)
			return -ENOMEM;
		s->addr = es.st_value;
		s->size = es.st_size;
		s->name = (const char *)st.data + es.st_name;
		s->bind = ELF64_ST_BIND(es.st_info);
		s->label = ELF64_ST_TYPE(es.st_info) == STT_NOTYPE;
	}
	return 0;
}

/*
 * sf's symbols in sym_cmp's order: by address with a radix sort, then the
 * few that share an address by sym_cmp. qsort() of them all was most of the
 * time to read a large library's symbols. Without memory for it, qsort().
 */
static void syms_sort(struct symfile *sf)
{
	size_t n = sf->nr_syms;
	struct radix_item *items = malloc(2 * n * sizeof(*items));
	struct sym *sorted = malloc(n * sizeof(*sorted));

	if (!items || !sorted) {
		free(items);
		free(sorted);
		qsort(sf->syms, n, sizeof(*sf->syms), sym_cmp);
		return;
	}
	for (size_t i = 0; i < n; i++)
		items[i] = (struct radix_item){ sf->syms[i].addr, i };
	radix_sort_items(items, items + n, n);
	for (size_t i = 0; i < n; i++)
		sorted[i] = sf->syms[items[i].value];
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && sorted[j].addr == sorted[i].addr; j++)
			;
		if (j - i > 1)
			qsort(sorted + i, j - i, sizeof(*sorted), sym_cmp);
	}
	memcpy(sf->syms, sorted, n * sizeof(*sorted));
	free(sorted);
	free(items);
}

/*
 * Sorts and keeps one symbol per address, the best named, with the largest
 * size seen; a label inside a function with a size is dropped, so the frame
 * keeps the function's name.
 */
static void syms_unique(struct symfile *sf)
{
	uint64_t func_end = 0;
	size_t out = 0;

	if (!sf->nr_syms)
		return;
	syms_sort(sf);
	for (size_t i = 0; i < sf->nr_syms; i++) {
		struct sym *s = &sf->syms[i];

		if (out && sf->syms[out - 1].addr == s->addr) {
			if (s->size > sf->syms[out - 1].size)
				sf->syms[out - 1].size = s->size;
			continue;
		}
		if (s->label && s->addr < func_end)
			continue;
		if (!s->label && s->size && s->addr + s->size > func_end)
			func_end = s->addr + s->size;
		sf->syms[out++] = *s;
	}
	sf->nr_syms = out;
}

/* The last of the first n symbols of sf (sorted) starting at or before addr, or NULL. */
static const struct sym *syms_at_or_before(const struct symfile *sf, size_t n, uint64_t addr)
{
	size_t past = SORTED_PAST(sf->syms, 0, n, addr, addr);

	return past ? &sf->syms[past - 1] : NULL;
}

/* Whether one of the first n symbols of sf (sorted, unique) starts at addr or, sized, holds it. */
static bool syms_cover(const struct symfile *sf, size_t n, uint64_t addr)
{
	const struct sym *s = syms_at_or_before(sf, n, addr);

	return s && (s->addr == addr || (s->size && addr - s->addr < s->size));
}

/*
 * Go binaries keep a function table for the runtime even when built without
 * ELF symbols (-ldflags='-s -w', Debian's Go tools): its functions name what
 * the ELF symbols, sorted before, leave uncovered, so .symtab wins where both
 * name an address. A malformed table is skipped (gopclntab.c says why at
 * debug level): the ELF symbols are still there.
 */
static int syms_add_gopclntab(struct symfile *sf, size_t *cap)
{
	struct gopclntab *t = gopclntab__open_elf(sf->elf);
	size_t n = sf->nr_syms;
	int err = 0;

	if (!t)
		return 0;
	for (size_t i = 0; i < gopclntab__count(t); i++) {
		struct gopclntab_func f;
		struct sym *s;

		/* A function of size 0 names no address. */
		if (gopclntab__func(t, i, &f) || f.end <= f.entry || syms_cover(sf, n, f.entry))
			continue;
		s = syms_push(sf, cap);
		if (!s) {
			err = -ENOMEM;
			break;
		}
		s->addr = f.entry;
		s->size = f.end - f.entry;
		s->name = f.name;
		s->bind = STB_GLOBAL;
		s->label = false;
	}
	pr_debug("%s: %zu functions from the Go function table", sf->path, sf->nr_syms - n);
	gopclntab__free(t);
	return err;
}

/* Reads the symbols on first use: most lookups touch few files. */
static int symfile__load(struct symfile *sf)
{
	size_t cap = 0, nr_elf = 0;
	int err = 0;

	if (sf->loaded)
		return 0;
	sf->loaded = true;
	if (sf->debug)
		err = syms_add_table(sf, sf->debug, ".symtab", ".strtab", &cap);
	if (!err)
		err = syms_add_table(sf, sf->elf, ".symtab", ".strtab", &cap);
	if (!err)
		err = syms_add_table(sf, sf->elf, ".dynsym", ".dynstr", &cap);
	if (!err) {
		syms_unique(sf);
		nr_elf = sf->nr_syms;
		err = syms_add_gopclntab(sf, &cap);
	}
	if (err) {
		free(sf->syms);
		sf->syms = NULL;
		sf->nr_syms = 0;
		return err;
	}
	if (sf->nr_syms != nr_elf)
		syms_unique(sf);
	pr_debug("%s: %zu function symbols", sf->path, sf->nr_syms);
	return 0;
}

static const struct sym *symfile__find(struct symfile *sf, uint64_t vaddr)
{
	const struct sym *s;

	if (symfile__load(sf) || !sf->nr_syms)
		return NULL;
	s = syms_at_or_before(sf, sf->nr_syms, vaddr);
	if (s && s->size && vaddr - s->addr >= s->size)
		return NULL; /* past its end: padding, PLT, code without a symbol */
	return s;
}

/* The ELF virtual address of a file offset, through the PT_LOAD segment that holds it. */
static bool symfile__vaddr(const struct symfile *sf, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < sf->nr_segs; i++) {
		const struct elf_load_segment *seg = &sf->segs[i];

		if (off >= seg->offset && off - seg->offset < seg->filesz) {
			*vaddr = seg->vaddr + (off - seg->offset);
			return true;
		}
	}
	return false;
}

static void symfile__free(struct symfile *sf)
{
	if (!sf)
		return;
	free(sf->syms);
	cfi_names__free(sf->cfi_names);
	dwarf_lines__free(sf->dwarf);
	elf_file__free(sf->debug);
	elf_file__free(sf->elf);
	free(sf->build_id);
	free(sf->path);
	free(sf);
}

static char *build_id_hex(const struct elf_file *ef)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	size_t len = elf_file__build_id(ef, id);
	char *hex;

	if (!len)
		return NULL;
	hex = malloc(2 * len + 1);
	if (!hex)
		return NULL;
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return hex;
}

/* Wraps an opened ELF file; takes ownership of elf. */
static struct symfile *symfile__new(struct elf_file *elf, const char *path)
{
	struct symfile *sf = calloc(1, sizeof(*sf));

	if (!sf || !(sf->path = strdup(path))) {
		free(sf);
		elf_file__free(elf);
		errno = ENOMEM;
		return NULL;
	}
	sf->elf = elf;
	sf->build_id = build_id_hex(elf);
	sf->nr_segs = elf_file__load_segments(elf, sf->segs, MAX_SEGMENTS);
	return sf;
}

/* The file cache */

static struct symfile *cache_by_inode(const struct symbolizer *sym, uint64_t dev, uint64_t ino)
{
	if (!ino)
		return NULL;
	for (size_t i = 0; i < sym->nr_files; i++)
		if (sym->files[i]->ino == ino && sym->files[i]->dev == dev)
			return sym->files[i];
	return NULL;
}

static struct symfile *cache_by_build_id(const struct symbolizer *sym, const char *build_id)
{
	if (!build_id)
		return NULL;
	for (size_t i = 0; i < sym->nr_files; i++)
		if (sym->files[i]->build_id && !strcmp(sym->files[i]->build_id, build_id))
			return sym->files[i];
	return NULL;
}

static struct symfile *cache_by_path(const struct symbolizer *sym, const char *path)
{
	for (size_t i = 0; i < sym->nr_files; i++)
		if (!strcmp(sym->files[i]->path, path))
			return sym->files[i];
	return NULL;
}

static int cache_add(struct symbolizer *sym, struct symfile *sf)
{
	struct symfile **files = reallocarray(sym->files, sym->nr_files + 1, sizeof(*files));

	if (!files)
		return -ENOMEM;
	sym->files = files;
	sym->files[sym->nr_files++] = sf;
	return 0;
}

/*
 * Without a local debug file, a file that lacks symbols or source lines asks
 * debuginfod for one: its lookups wait for the answer (symbolizer__flush()
 * holds its locations back), which comes during the run or by the deadline
 * of its end (debuginfod__finish()).
 */
static void symfile__fetch_debug(struct symbolizer *sym, struct symfile *sf)
{
	struct elf_section sec;

	if (!sym->debuginfod || !sf->build_id ||
	    (!elf_file__section(sf->elf, ".symtab", &sec) &&
	     !elf_file__section(sf->elf, ".debug_line", &sec)))
		return;
	if (debuginfod__request(sym->debuginfod, sf->build_id))
		return;
	sf->fetching = sym->debuginfod;
	sym->nr_fetching++;
}

/*
 * Whether sf's debug file is what it will be: once debuginfod answered, the
 * file it fetched is opened, and what was read of the file without it (a
 * lookup outside symbolizer__flush()) is read again.
 */
static bool symfile__settled(struct symfile *sf)
{
	const char *path = NULL;

	if (!sf->fetching)
		return true;
	switch (debuginfod__poll(sf->fetching, sf->build_id, &path)) {
	case DEBUGINFOD_PENDING:
		return false;
	case DEBUGINFOD_FOUND:
		sf->debug = debuginfo__open_matching(sf->elf, path);
		if (!sf->debug)
			pr_warn("%s: the debug file debuginfod gave, %s, does not match it",
				sf->path, path);
		break;
	default:
		break;
	}
	sf->fetching = NULL;
	if (sf->debug && sf->loaded) {
		free(sf->syms);
		sf->syms = NULL;
		sf->nr_syms = 0;
		sf->loaded = false;
	}
	if (sf->debug && sf->dwarf_tried) {
		dwarf_lines__free(sf->dwarf);
		sf->dwarf = NULL;
		sf->dwarf_tried = false;
	}
	return true;
}

/*
 * The cached file for an opened ELF (freed when the cache has its build ID
 * already), or a new entry with its debug file found inside the root of
 * pid (0: /), where the file is at path.
 */
static struct symfile *cache_insert(struct symbolizer *sym, struct elf_file *elf, const char *path,
				    pid_t pid)
{
	struct debuginfo_opts dopts = { .debug_dir = sym->debug_dir, .pid = pid };
	struct symfile *sf, *known;

	sf = symfile__new(elf, path);
	if (!sf)
		return NULL;
	known = cache_by_build_id(sym, sf->build_id);
	if (known) {
		symfile__free(sf);
		return known;
	}
	if (pid > 0)
		dopts.path = path;
	sf->debug = debuginfo__find(sf->elf, &dopts);
	if (!sf->debug)
		symfile__fetch_debug(sym, sf);
	if (cache_add(sym, sf)) {
		symfile__free(sf);
		errno = ENOMEM;
		return NULL;
	}
	return sf;
}

/* Opening the files of a process */

/*
 * Opens the file of mapping m of pid: by its path resolved inside the
 * process's root, else through map_files (deleted and replaced files), and
 * only when it is the mapped inode (core/targets/procfs.h).
 */
static struct elf_file *open_mapping(uint32_t pid, const struct procmap *m)
{
	struct elf_file *elf;
	int fd;

	fd = procfs__open_mapping(pid, m, NULL);
	if (fd < 0)
		return NULL;
	/* Read through the fd: what was checked is what is read. */
	elf = elf_file__open_fd(fd, m->path, ELF_OPEN_QUIET);
	close(fd);
	return elf;
}

static struct symfile *symbolizer__vdso(struct symbolizer *sym);

/* The symbol file of mapping m of pid, NULL when it cannot be opened (not an error). */
static struct symfile *file_of_mapping(struct symbolizer *sym, uint32_t pid,
				       const struct procmap *m)
{
	uint64_t dev = (uint64_t)m->dev_major << 32 | m->dev_minor;
	struct symfile *sf;
	struct elf_file *elf;

	if (procmap__is_vdso(m))
		return symbolizer__vdso(sym);
	if (m->kind != PROCMAP_FILE || !m->path)
		return NULL;
	sf = cache_by_inode(sym, dev, m->inode);
	if (sf)
		return sf;
	elf = open_mapping(pid, m);
	if (!elf) {
		pr_debug("pid %" PRIu32 ": cannot open %s for symbols", pid, m->path);
		return NULL;
	}
	sf = cache_insert(sym, elf, m->path, pid);
	if (sf && !sf->ino) {
		sf->dev = dev;
		sf->ino = m->inode;
	}
	return sf;
}

/* [vdso] */

/*
 * Every process maps the same vDSO image, so unwprof's own (found through
 * the auxiliary vector) gives the symbols of all of them.
 */
static struct symfile *symbolizer__vdso(struct symbolizer *sym)
{
	struct elf_file *elf;

	if (sym->vdso_tried)
		return sym->vdso;
	sym->vdso_tried = true;
	elf = elf_file__open_vdso();
	if (!elf)
		return NULL;
	sym->vdso = symfile__new(elf, "[vdso]");
	return sym->vdso;
}

/* Processes */

static struct proc *proc_find(const struct symbolizer *sym, uint32_t pid)
{
	size_t lo = 0, hi = sym->nr_procs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sym->procs[mid].pid == pid)
			return &sym->procs[mid];
		if (sym->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static struct proc *proc_get(struct symbolizer *sym, uint32_t pid)
{
	struct proc *procs, *p = proc_find(sym, pid);
	size_t at = 0;

	if (p)
		return p;
	procs = reallocarray(sym->procs, sym->nr_procs + 1, sizeof(*procs));
	if (!procs)
		return NULL;
	sym->procs = procs;
	while (at < sym->nr_procs && procs[at].pid < pid)
		at++;
	memmove(&procs[at + 1], &procs[at], (sym->nr_procs - at) * sizeof(*procs));
	sym->nr_procs++;
	procs[at] = (struct proc){ .pid = pid };
	return &procs[at];
}

static void proc_map_free(struct proc_map *m)
{
	free(m->path);
}

static int proc_map_cmp(const void *pa, const void *pb)
{
	const struct proc_map *a = pa, *b = pb;

	return a->start < b->start ? -1 : a->start > b->start;
}

static bool overlaps_any(const struct procmaps *pm, const struct proc_map *m)
{
	for (size_t i = 0; i < pm->nr; i++)
		if (pm->maps[i].start < m->end && m->start < pm->maps[i].end)
			return true;
	return false;
}

/* Builds the mappings of pm into out (at least pm->nr entries). */
static int fill_maps(struct symbolizer *sym, const struct procmaps *pm, struct proc_map *out)
{
	for (size_t i = 0; i < pm->nr; i++) {
		const struct procmap *m = &pm->maps[i];

		out[i] = (struct proc_map){ .start = m->start, .end = m->end, .offset = m->offset };
		if (m->path && !(out[i].path = strdup(m->path))) {
			while (i--)
				proc_map_free(&out[i]);
			return -ENOMEM;
		}
		out[i].file = file_of_mapping(sym, (uint32_t)pm->pid, m);
	}
	return 0;
}

/* Whether path names a jitdump: "jit-PID.dump", as perf looks for it. */
static bool is_jitdump(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t digits;

	base = base ? base + 1 : path;
	if (strncmp(base, "jit-", 4) != 0)
		return false;
	digits = strspn(base + 4, "0123456789");
	return digits && strcmp(base + 4 + digits, ".dump") == 0;
}

/*
 * A runtime that writes a jitdump maps it, executable, so that perf sees
 * where it is: its path names the file (as the process sees it).
 */
static int note_jitdump(struct proc *p, const struct procmaps *pm)
{
	for (size_t i = 0; !p->jitdump_mapped && i < pm->nr; i++) {
		if (pm->maps[i].path && is_jitdump(pm->maps[i].path)) {
			/* it replaces the one a lookup before looked for by default */
			jit_map__free(p->jitdump);
			p->jitdump = jit_map__new(pm->maps[i].path, JIT_MAP_JITDUMP);
			if (!p->jitdump)
				return -ENOMEM;
			p->jitdump_mapped = true;
		}
	}
	return 0;
}

int symbolizer__add_process(struct symbolizer *sym, const struct procmaps *pm)
{
	struct proc_map *maps;
	struct proc *p;
	size_t nr;
	int err;

	err = symbolizer__flush(sym); /* the mappings they were seen in may be replaced */
	if (err)
		return err;
	p = proc_get(sym, (uint32_t)pm->pid);
	if (!p)
		return -ENOMEM;
	maps = calloc(pm->nr + p->nr + 1, sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	err = fill_maps(sym, pm, maps);
	if (err) {
		free(maps);
		return err;
	}
	/* Earlier mappings stay unless replaced: samples taken before still refer to them. */
	nr = pm->nr;
	for (size_t i = 0; i < p->nr; i++) {
		if (overlaps_any(pm, &p->maps[i]))
			proc_map_free(&p->maps[i]);
		else
			maps[nr++] = p->maps[i];
	}
	qsort(maps, nr, sizeof(*maps), proc_map_cmp);
	free(p->maps);
	p->maps = maps;
	p->nr = nr;
	return note_jitdump(p, pm);
}

int symbolizer__fork(struct symbolizer *sym, uint32_t ppid, uint32_t pid)
{
	struct proc *parent, *child;
	struct proc_map *maps;
	size_t nr;

	parent = proc_find(sym, ppid);
	if (!parent || !parent->nr || proc_find(sym, pid))
		return 0;
	nr = parent->nr;
	maps = calloc(nr, sizeof(*maps));
	if (!maps)
		return -ENOMEM;
	for (size_t i = 0; i < nr; i++) {
		maps[i] = parent->maps[i];
		maps[i].path = parent->maps[i].path ? strdup(parent->maps[i].path) : NULL;
		if (parent->maps[i].path && !maps[i].path) {
			while (i--)
				free(maps[i].path);
			free(maps);
			return -ENOMEM;
		}
	}
	child = proc_get(sym, pid); /* after: the parent's slot may move */
	if (!child) {
		for (size_t i = 0; i < nr; i++)
			free(maps[i].path);
		free(maps);
		return -ENOMEM;
	}
	child->maps = maps;
	child->nr = nr;
	return 0;
}

static void proc_free(struct proc *p)
{
	for (size_t i = 0; i < p->nr; i++)
		proc_map_free(&p->maps[i]);
	free(p->maps);
	free(p->own);
	jit_map__free(p->perf_map);
	jit_map__free(p->jitdump);
}

static void proc_remove(struct symbolizer *sym, struct proc *p)
{
	size_t at = p - sym->procs;

	proc_free(p);
	memmove(p, p + 1, (sym->nr_procs - at - 1) * sizeof(*p));
	sym->nr_procs--;
}

static const struct proc_map *proc_map_find(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

/* The file's DWARF, opened on first use: the debug file's, else its own. */
static struct dwarf_lines *symfile__dwarf(struct symfile *sf)
{
	if (sf->dwarf_tried)
		return sf->dwarf;
	sf->dwarf_tried = true;
	if (sf->debug)
		sf->dwarf = dwarf_lines__open(sf->debug);
	if (!sf->dwarf)
		sf->dwarf = dwarf_lines__open(sf->elf);
	return sf->dwarf;
}

/*
 * No symbol holds vaddr (a stripped file, a static function of a library
 * with .dynsym alone): the function its CFI says holds it, named by its
 * start, or _start at the entry point.
 */
static void lookup_by_cfi(struct symfile *sf, uint64_t vaddr, struct symbol_info *info)
{
	const char *base = strrchr(sf->path, '/');
	uint64_t start;

	if (!sf->cfi_names_tried) {
		sf->cfi_names_tried = true;
		sf->cfi_names = cfi_names__new(sf->elf, base ? base + 1 : sf->path);
	}
	if (!sf->cfi_names)
		return;
	info->name = cfi_names__lookup(sf->cfi_names, vaddr, &start);
	if (info->name)
		info->offset = vaddr - start;
}

static void lookup_in_file(struct symfile *sf, uint64_t vaddr, bool lines, struct symbol_info *info)
{
	const struct sym *s;

	symfile__settled(sf);
	s = symfile__find(sf, vaddr);

	info->build_id = sf->build_id;
	if (s) {
		info->name = s->name;
		info->offset = vaddr - s->addr;
	} else {
		lookup_by_cfi(sf, vaddr, info);
	}
	if (lines && symfile__dwarf(sf)) {
		info->frames = sf->frames;
		info->nr_frames =
			dwarf_lines__lookup(sf->dwarf, vaddr, sf->frames, DWARF_LINES_MAX_DEPTH);
	}
}

/* The mapping m that covers addr, and the symbol there when m's file is known. */
static void lookup_in_map(const struct proc_map *m, uint64_t addr, bool lines,
			  struct symbol_info *info)
{
	uint64_t vaddr;

	info->file = m->path ? m->path : "[anon]";
	info->map_start = m->start;
	info->map_end = m->end;
	info->map_offset = m->offset;
	if (m->file && symfile__vaddr(m->file, addr - m->start + m->offset, &vaddr))
		lookup_in_file(m->file, vaddr, lines, info);
}

/*
 * JIT code: anonymous memory, or memory mapped after the process was last
 * seen, named by the runtime's perf map, else by its jitdump. Each is read
 * (again) when an address is not named and the file changed.
 */
static void lookup_jit(struct symbolizer *sym, struct proc *p, uint64_t addr,
		       struct symbol_info *info)
{
	char path[PATH_MAX];

	if (!p->perf_map) {
		snprintf(path, sizeof(path), "%s/perf-%" PRIu32 ".map", sym->perf_map_dir, p->pid);
		p->perf_map = jit_map__new(path, JIT_MAP_PERF_MAP);
	}
	if (p->perf_map && jit_map__lookup(p->perf_map, addr, &info->name, &info->offset) == 0)
		return;
	/* not seen mapped: where runtimes write it by default, next to the perf map */
	if (!p->jitdump) {
		snprintf(path, sizeof(path), "%s/jit-%" PRIu32 ".dump", sym->perf_map_dir, p->pid);
		p->jitdump = jit_map__new(path, JIT_MAP_JITDUMP);
	}
	if (p->jitdump)
		jit_map__lookup(p->jitdump, addr, &info->name, &info->offset);
}

int symbolizer__lookup(struct symbolizer *sym, uint32_t pid, uint64_t addr,
		       struct symbol_info *info)
{
	struct proc *p = proc_find(sym, pid);
	const struct proc_map *m;

	memset(info, 0, sizeof(*info));
	if (!p)
		return -ENOENT;
	m = proc_map_find(p, addr);
	if (!m || !m->path)
		lookup_jit(sym, p, addr, info);
	if (m)
		lookup_in_map(m, addr, !sym->no_lines, info);
	return 0;
}

int symbolizer__lookup_file(struct symbolizer *sym, const char *path, uint64_t vaddr,
			    struct symbol_info *info)
{
	struct symfile *sf = cache_by_path(sym, path);
	struct elf_file *elf;

	memset(info, 0, sizeof(*info));
	if (!sf) {
		elf = elf_file__open(path);
		if (!elf)
			return -errno;
		sf = cache_insert(sym, elf, path, 0);
		if (!sf)
			return -errno;
	}
	info->file = sf->path;
	lookup_in_file(sf, vaddr, !sym->no_lines, info);
	return 0;
}

/* Kernel symbols */

static int ksym_cmp(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* Text symbols only: t/T, and w/W (weak, in text in practice). */
static bool ksym_type_wanted(char type)
{
	return type == 't' || type == 'T' || type == 'w' || type == 'W';
}

/* Parses "ADDR TYPE NAME[\t[MODULE]]" in place; returns false for lines to skip. */
static bool ksym_parse_line(char *line, uint64_t *addr, char **name, char **module)
{
	char *end, *type, *rest, *mod;
	size_t len;

	errno = 0;
	*addr = strtoull(line, &end, 16);
	if (errno || end == line || *end != ' ')
		return false;
	type = end + 1;
	if (!ksym_type_wanted(type[0]) || type[1] != ' ')
		return false;
	*name = type + 2;
	len = strcspn(*name, "\t\n ");
	if (!len)
		return false;
	rest = (*name)[len] ? *name + len + 1 : *name + len;
	(*name)[len] = '\0';
	*module = NULL;
	mod = strchr(rest, '[');
	if (mod) {
		mod++;
		mod[strcspn(mod, "]\n")] = '\0';
		*module = mod;
	}
	return true;
}

struct ksyms_builder {
	struct ksym *syms;
	size_t nr, cap;
	char *names; /* grows; ksym names are offsets until the end */
	size_t len, names_cap;
	bool nonzero;
};

static int builder_add_str(struct ksyms_builder *b, const char *s, size_t *off)
{
	size_t n = strlen(s) + 1;

	if (b->len + n > b->names_cap) {
		size_t cap = b->names_cap ? b->names_cap * 2 : 1 << 16;
		char *names;

		while (cap < b->len + n)
			cap *= 2;
		names = realloc(b->names, cap);
		if (!names)
			return -ENOMEM;
		b->names = names;
		b->names_cap = cap;
	}
	memcpy(b->names + b->len, s, n);
	*off = b->len;
	b->len += n;
	return 0;
}

static int builder_add(struct ksyms_builder *b, uint64_t addr, uint64_t size, const char *name,
		       const char *module)
{
	size_t name_off, mod_off = SIZE_MAX;
	int err;

	if (b->nr == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 4096;
		struct ksym *syms = reallocarray(b->syms, cap, sizeof(*syms));

		if (!syms)
			return -ENOMEM;
		b->syms = syms;
		b->cap = cap;
	}
	err = builder_add_str(b, name, &name_off);
	if (!err && module)
		err = builder_add_str(b, module, &mod_off);
	if (err)
		return err;
	/* Offsets for now: the names buffer may still move. */
	b->syms[b->nr].addr = addr;
	b->syms[b->nr].size = size;
	b->syms[b->nr].name = (const char *)(uintptr_t)name_off;
	b->syms[b->nr].module = (const char *)(uintptr_t)mod_off;
	b->nr++;
	b->nonzero |= addr != 0;
	return 0;
}

static struct ksyms *builder_finish(struct ksyms_builder *b)
{
	struct ksyms *ks = calloc(1, sizeof(*ks));

	if (!ks)
		return NULL;
	for (size_t i = 0; i < b->nr; i++) {
		size_t mod = (size_t)(uintptr_t)b->syms[i].module;

		b->syms[i].name = b->names + (size_t)(uintptr_t)b->syms[i].name;
		b->syms[i].module = mod == SIZE_MAX ? NULL : b->names + mod;
	}
	if (b->nr)
		qsort(b->syms, b->nr, sizeof(*b->syms), ksym_cmp);
	ks->syms = b->syms;
	ks->nr = b->nr;
	ks->names = b->names;
	return ks;
}

/* Parses one line in place; false for lines to skip. */
typedef bool (*sym_line_fn)(char *line, uint64_t *addr, uint64_t *size, char **name, char **module);

static bool kallsyms_line(char *line, uint64_t *addr, uint64_t *size, char **name, char **module)
{
	*size = 0; /* kallsyms has none: a symbol reaches the next one */
	return ksym_parse_line(line, addr, name, module);
}

/* Reads every line of f into b; 0 or -errno. */
static int symbols_read(FILE *f, const char *name, sym_line_fn parse, struct ksyms_builder *b)
{
	char *line = NULL, *sym_name, *module;
	uint64_t addr, size;
	size_t cap = 0;
	int err = 0;

	while (!err && getline(&line, &cap, f) > 0)
		if (parse(line, &addr, &size, &sym_name, &module))
			err = builder_add(b, addr, size, sym_name, module);
	free(line);
	if (!err && ferror(f)) {
		pr_err("%s: read error", name);
		err = -EIO;
	}
	return err;
}

static struct ksyms *builder_result(struct ksyms_builder *b, int err)
{
	struct ksyms *ks = err ? NULL : builder_finish(b);

	if (!ks) {
		free(b->syms);
		free(b->names);
		errno = err ? -err : ENOMEM;
	}
	return ks;
}

struct ksyms *ksyms__parse(FILE *f, const char *name)
{
	struct ksyms_builder b = {};
	int err = symbols_read(f, name, kallsyms_line, &b);

	if (!err && !b.nonzero) {
		/* kptr_restrict hides addresses from the unprivileged: useless, say so. */
		err = b.nr ? -EPERM : -ENOENT;
		pr_warn("%s: %s; kernel frames will not be symbolized", name,
			b.nr ? "addresses hidden (kptr_restrict)" : "no text symbols");
	}
	return builder_result(&b, err);
}

struct ksyms *ksyms__load(const char *path)
{
	struct ksyms *ks;
	FILE *f = fopen(path, "re");

	if (!f) {
		int err = errno;

		pr_warn("cannot open %s: %s; kernel frames will not be symbolized", path,
			strerror(err));
		errno = err;
		return NULL;
	}
	ks = ksyms__parse(f, path);
	fclose(f);
	return ks;
}

void ksyms__free(struct ksyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->names);
	free(ks);
}

size_t ksyms__count(const struct ksyms *ks)
{
	return ks ? ks->nr : 0;
}

const struct ksym *ksyms__lookup(const struct ksyms *ks, uint64_t addr)
{
	size_t past;

	if (!ks)
		return NULL;
	past = SORTED_PAST(ks->syms, 0, ks->nr, addr, addr);
	return past ? &ks->syms[past - 1] : NULL;
}

static void *ksyms_preload(void *arg)
{
	struct symbolizer *sym = arg;

	sym->preloaded = ksyms__load(sym->kallsyms);
	return NULL;
}

int symbolizer__preload_kernel(struct symbolizer *sym)
{
	sigset_t all, old;
	int err;

	if (sym->ksyms_tried || sym->ksyms_loading)
		return 0;
	/* The thread takes no signal: they are the main thread's, which waits for them. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	err = pthread_create(&sym->ksyms_thread, NULL, ksyms_preload, sym);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err)
		return -err;
	sym->ksyms_loading = true;
	return 0;
}

/* The kernel's symbols, once: what the preloading thread read, or read now. */
static void symbolizer__load_kernel(struct symbolizer *sym)
{
	if (sym->ksyms_tried)
		return;
	sym->ksyms_tried = true;
	if (sym->ksyms_loading) {
		pthread_join(sym->ksyms_thread, NULL);
		sym->ksyms_loading = false;
		sym->ksyms = sym->preloaded;
		return;
	}
	sym->ksyms = ksyms__load(sym->kallsyms);
}

int symbolizer__lookup_kernel(struct symbolizer *sym, uint64_t addr, struct symbol_info *info)
{
	const struct ksym *k;

	memset(info, 0, sizeof(*info));
	symbolizer__load_kernel(sym);
	info->file = KERNEL_MAPPING;
	info->map_end = UINT64_MAX;
	k = ksyms__lookup(sym->ksyms, addr);
	if (k) {
		info->name = k->name;
		info->offset = addr - k->addr;
	}
	return 0;
}

/* Locations of a profile */

/* Where a frame is looked up: a caller's frame (a return address) inside its call. */
static uint64_t lookup_addr(const struct profile_location *l)
{
	return l->return_addr && l->addr ? l->addr - 1 : l->addr;
}

/* The location's mapping, added to p from info; PROFILE_NONE when info has none. */
static int mapping_of(struct profile *p, const struct symbol_info *info, uint32_t *mapping)
{
	struct profile_mapping pm = {
		.start = info->map_start,
		.limit = info->map_end,
		.offset = info->map_offset,
		.file = (char *)info->file,
		.build_id = (char *)info->build_id,
	};

	*mapping = PROFILE_NONE;
	return info->file ? profile__add_mapping(p, &pm, mapping) : 0;
}

/* Where a frame is looked up: the kernel, a process, or one mapping of a process. */
struct frame_source {
	struct symbolizer *sym;
	bool kernel;
	uint32_t pid;
	const struct proc_map *map; /* when set, pid is not looked at */
};

static int source_lookup(const struct frame_source *src, uint64_t addr, struct symbol_info *info)
{
	if (src->kernel)
		return symbolizer__lookup_kernel(src->sym, addr, info);
	if (!src->map)
		return symbolizer__lookup(src->sym, src->pid, addr, info);
	memset(info, 0, sizeof(*info));
	lookup_in_map(src->map, addr, !src->sym->no_lines, info);
	return 0;
}

/*
 * What frame l is, looked up inside its instruction, at *at. A return
 * address whose previous byte no symbol covers is looked up as it is: a
 * signal handler returns to the first instruction of the sigreturn
 * trampoline (glibc's __restore_rt), which a padding byte precedes.
 */
static int frame_lookup(const struct frame_source *src, const struct profile_location *l,
			struct symbol_info *info, uint64_t *at)
{
	struct symbol_info exact;
	int err;

	*at = lookup_addr(l);
	err = source_lookup(src, *at, info);
	if (err || info->name || *at == l->addr)
		return err;
	if (source_lookup(src, l->addr, &exact) == 0 && exact.name) {
		*info = exact;
		*at = l->addr;
	}
	return 0;
}

/*
 * The source lines of location id from the DWARF frames of info. The
 * outermost is named as the symbol (function, when there is one), so that
 * a profile without inlining reads as it does without lines.
 */
static int set_lines(struct profile *p, uint32_t id, const struct symbol_info *info,
		     const char *function)
{
	struct profile_line lines[DWARF_LINES_MAX_DEPTH] = { { 0 } };
	char *readable[DWARF_LINES_MAX_DEPTH] = { NULL };
	size_t n = info->nr_frames < DWARF_LINES_MAX_DEPTH ? info->nr_frames :
							     DWARF_LINES_MAX_DEPTH;
	int err;

	for (size_t i = 0; i < n; i++) {
		const struct dwarf_frame *f = &info->frames[i];
		bool outer = i == n - 1 && function;

		readable[i] = f->name && !outer ? demangle__name(f->name) : NULL;
		lines[i] = (struct profile_line){
			.function = outer	? function :
				    readable[i] ? readable[i] :
						  f->name,
			.system_name = outer ? info->name : f->name,
			.file = f->file,
			.line = f->line,
			.start_line = f->decl_line,
		};
	}
	err = profile__set_lines(p, id, lines, n);
	for (size_t i = 0; i < n; i++)
		free(readable[i]);
	return err;
}

/* Sets location id to what info, looked up at address at, says of it. */
static int set_symbol(struct profile *p, uint32_t id, const struct symbol_info *info, uint64_t at)
{
	const struct profile_location *l = profile__location(p, id);
	uint64_t back = l->addr - at;
	char *readable = NULL;
	uint32_t mapping;
	int err;

	err = mapping_of(p, info, &mapping);
	if (err)
		return err;
	if (info->name && !l->kernel)
		readable = demangle__name(info->name);
	/* The offset is from the sampled address, as pprof and perf show it. */
	err = profile__set_symbol(p, id, mapping, readable ? readable : info->name, info->name,
				  info->name ? info->offset + back : 0);
	if (!err && info->nr_frames)
		err = set_lines(p, id, info, readable ? readable : info->name);
	free(readable);
	return err;
}

static int symbolize_location(struct symbolizer *sym, struct profile *p, uint32_t id)
{
	const struct profile_location *l = profile__location(p, id);
	const struct frame_source src = { .sym = sym, .kernel = l->kernel, .pid = l->pid };
	struct symbol_info info;
	uint64_t at;
	int err;

	err = frame_lookup(&src, l, &info, &at);
	if (err == -ENOENT)
		return 0; /* a process never seen: its frames stay unknown */
	return err ? err : set_symbol(p, id, &info, at);
}

static bool is_shared(const struct profile_location *l)
{
	return !l->kernel && l->pid == 0;
}

static uint64_t shared_hash(const struct symfile *file, uint64_t file_offset, bool return_addr)
{
	uint64_t h = (uintptr_t)file * 0x9e3779b97f4a7c15ULL;

	h ^= (file_offset << 1 | return_addr) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 31);
}

/* The slot of the key, or the empty slot where it would go. */
static struct shared_slot *shared_find(const struct shared_index *ix, const struct symfile *file,
				       uint64_t file_offset, bool return_addr)
{
	size_t mask = ix->cap - 1;

	for (size_t i = shared_hash(file, file_offset, return_addr) & mask;; i = (i + 1) & mask) {
		struct shared_slot *slot = &ix->slots[i];

		if (!slot->file || (slot->file == file && slot->file_offset == file_offset &&
				    slot->return_addr == return_addr))
			return slot;
	}
}

/* Makes room for one more key. */
static int shared_reserve(struct shared_index *ix)
{
	struct shared_index bigger = { .nr = ix->nr };

	if ((ix->nr + 1) * 4 <= ix->cap * 3)
		return 0;
	bigger.cap = ix->cap ? ix->cap * 2 : 1024;
	bigger.slots = calloc(bigger.cap, sizeof(*bigger.slots));
	if (!bigger.slots)
		return -ENOMEM;
	for (size_t i = 0; i < ix->cap; i++) {
		const struct shared_slot *old = &ix->slots[i];

		if (old->file)
			*shared_find(&bigger, old->file, old->file_offset, old->return_addr) = *old;
	}
	free(ix->slots);
	*ix = bigger;
	return 0;
}

/*
 * The location of addr in mapping m, shared by every process that maps m's
 * file, and symbolized at the next flush (its address is that of the first
 * process, and so is its mapping).
 */
static int shared_location(struct symbolizer *sym, struct profile *p, const struct proc_map *m,
			   uint64_t addr, bool return_addr, uint32_t *id)
{
	const struct profile_location loc = {
		.addr = addr,
		.return_addr = return_addr,
		.mapping = PROFILE_NONE,
	};
	struct pending_locations *pl = &sym->pending;
	uint64_t file_offset = addr - m->start + m->offset;
	struct shared_slot *slot;
	int err;

	err = shared_reserve(&sym->shared);
	if (!err)
		err = grow((void **)&pl->v, &pl->cap, pl->nr, sizeof(*pl->v));
	if (err)
		return err;
	slot = shared_find(&sym->shared, m->file, file_offset, return_addr);
	if (slot->file) {
		*id = slot->id;
		return 0;
	}
	err = profile__add_location(p, &loc, id);
	if (err)
		return err;
	pl->profile = p;
	pl->v[pl->nr++] = (struct pending_location){ *m, file_offset, *id, false };
	*slot = (struct shared_slot){ m->file, file_offset, *id, return_addr };
	sym->shared.nr++;
	return 0;
}

/* By file (its path, then the file itself), then offset. */
static int pending_cmp(const void *pa, const void *pb)
{
	const struct pending_location *a = pa, *b = pb;

	if (a->map.file != b->map.file) {
		int by_path = strcmp(a->map.file->path, b->map.file->path);

		if (by_path)
			return by_path;
		return (uintptr_t)a->map.file < (uintptr_t)b->map.file ? -1 : 1;
	}
	if (a->file_offset != b->file_offset)
		return a->file_offset < b->file_offset ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Settles the files whose debug file was on its way (symfile__settled()): whether any still is. */
static bool settle_fetches(struct symbolizer *sym)
{
	size_t left = 0;

	if (!sym->nr_fetching)
		return false;
	for (size_t i = 0; i < sym->nr_files; i++)
		if (sym->files[i]->fetching && !symfile__settled(sym->files[i]))
			left++;
	sym->nr_fetching = left;
	return left;
}

/* Keeps e for a later flush, with its own copy of its path: its mapping may go before. */
static bool hold_back(struct pending_location *e)
{
	char *path;

	if (!e->path_owned && e->map.path) {
		path = strdup(e->map.path);
		if (!path)
			return false; /* then named now, without the debug file */
		e->map.path = path;
	}
	e->path_owned = true;
	return true;
}

int symbolizer__flush(struct symbolizer *sym)
{
	struct pending_locations *pl = &sym->pending;
	bool waiting = settle_fetches(sym);
	size_t kept = 0;
	int err = 0;

	if (!pl->nr)
		return 0; /* and the list may not be allocated */
	qsort(pl->v, pl->nr, sizeof(*pl->v), pending_cmp);
	for (size_t i = 0; i < pl->nr; i++) {
		struct pending_location *e = &pl->v[i];
		const struct frame_source src = { .sym = sym, .map = &e->map };
		struct symbol_info info;
		uint64_t at;

		if (!err && waiting && e->map.file->fetching && hold_back(e)) {
			pl->v[kept++] = *e;
			continue;
		}
		if (!err)
			err = frame_lookup(&src, profile__location(pl->profile, e->id), &info, &at);
		if (!err)
			err = set_symbol(pl->profile, e->id, &info, at);
		if (e->path_owned)
			free(e->map.path);
	}
	pl->nr = kept;
	return err;
}

/* A location of pid's own, symbolized when the process ends. */
static int own_location(struct symbolizer *sym, struct profile *p, uint32_t pid, uint64_t addr,
			bool return_addr, uint32_t *id)
{
	size_t before = profile__nr_locations(p);
	struct proc *pr;
	int err;

	err = profile__intern_location(p, pid, addr, false, return_addr, id);
	if (err || *id < before)
		return err;
	pr = proc_get(sym, pid);
	if (!pr)
		return -ENOMEM;
	if (pr->nr_own == pr->cap_own) {
		size_t cap = pr->cap_own ? pr->cap_own * 2 : 16;
		uint32_t *own = reallocarray(pr->own, cap, sizeof(*own));

		if (!own)
			return -ENOMEM;
		pr->own = own;
		pr->cap_own = cap;
	}
	pr->own[pr->nr_own++] = *id;
	return 0;
}

static bool pid_alive(uint32_t pid)
{
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

static int user_location(struct symbolizer *sym, struct profile *p, uint32_t pid, uint64_t addr,
			 bool return_addr, uint32_t *id)
{
	const struct proc *pr = proc_find(sym, pid);
	const struct proc_map *m = pr ? proc_map_find(pr, addr) : NULL;

	if (m && m->file)
		return shared_location(sym, p, m, addr, return_addr, id);
	return own_location(sym, p, pid, addr, return_addr, id);
}

int symbolizer__add_python(struct symbolizer *sym, uint32_t pid, const struct py_runtime *pr,
			   uint64_t bias)
{
	if (!sym->python)
		sym->python = py_namer__new();
	if (!sym->python)
		return -ENOMEM;
	return py_namer__add_process(sym->python, pid, pr, bias);
}

void symbolizer__python_code(struct symbolizer *sym, const struct unw_py_code_event *e, size_t size)
{
	if (sym->python)
		py_namer__read_code(sym->python, e, size);
}

int symbolizer__add_ruby(struct symbolizer *sym, uint32_t pid, const struct rb_runtime *rr,
			 uint64_t bias)
{
	if (!sym->ruby)
		sym->ruby = rb_namer__new();
	if (!sym->ruby)
		return -ENOMEM;
	return rb_namer__add_process(sym->ruby, pid, rr, bias);
}

void symbolizer__ruby_iseq(struct symbolizer *sym, uint32_t pid, uint64_t iseq, uint64_t where)
{
	if (sym->ruby)
		rb_namer__read_iseq(sym->ruby, pid, iseq, where);
}

/* What an interpreter's frame is named: py_frame_name and rb_frame_name alike. */
struct interp_name {
	const char *function;
	const char *file; /* NULL: none (a Ruby C method) */
	uint32_t line, first_line;
};

/*
 * The location of an interpreter's frame of pid, key (its code and what
 * tells it apart) at line: one per code and line, named when first seen,
 * while the process lives.
 */
static int interp_location(struct profile *p, uint32_t pid, uint8_t kind, uint64_t key,
			   const struct interp_name *name, uint32_t *id)
{
	struct profile_line line = { .function = name->function,
				     .file = name->file,
				     .line = name->line,
				     .start_line = name->first_line };
	bool added;
	int err;

	err = profile__intern_frame(p, pid, kind, key, name->line, id, &added);
	if (err || !added)
		return err;
	err = profile__set_symbol(p, *id, PROFILE_NONE, name->function, NULL, 0);
	return err || !name->file ? err : profile__set_lines(p, *id, &line, 1);
}

/* Python frame (code, where): one location per code object, told apart from an earlier one at its address by its tag. */
static int python_location(struct symbolizer *sym, struct profile *p, uint32_t pid, uint64_t code,
			   uint64_t where, uint32_t *id)
{
	struct py_frame_name name = { "<unknown>", "<unknown>", 0, 0 };

	if (sym->python)
		py_namer__name(sym->python, pid, code, where, &name);
	return interp_location(
		p, pid, PROFILE_FRAME_PYTHON,
		code | (where >> UNW_PY_TAG_SHIFT) << UNW_PY_TAG_SHIFT,
		&(struct interp_name){ name.qualname, name.file, name.line, name.first_line }, id);
}

/*
 * Ruby frame (iseq, where): one location per iseq and line (per method
 * entry for a C method), told apart from an earlier one in its slot by its tag.
 */
static int ruby_location(struct symbolizer *sym, struct profile *p, uint32_t pid, uint64_t iseq,
			 uint64_t where, uint32_t *id)
{
	struct rb_frame_name name = { "<unknown>", "<unknown>", 0, 0 };
	bool cfunc = where & UNW_RB_CFUNC;

	if (sym->ruby)
		rb_namer__name(sym->ruby, pid, iseq, where, &name);
	return interp_location(p, pid, PROFILE_FRAME_RUBY,
			       iseq | (where & ~((1ULL << UNW_RB_TAG_SHIFT) - 1)),
			       &(struct interp_name){ name.label, cfunc ? NULL : name.file,
						      name.line, name.first_line },
			       id);
}

/* "[... 3,412 frames ...]": the frames a deep stack left out, as a frame's name. */
static void elided_name(char *buf, size_t size, uint64_t frames)
{
	char digits[24], grouped[32];
	size_t n, k = 0;

	n = (size_t)snprintf(digits, sizeof(digits), "%" PRIu64, frames);
	for (size_t i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			grouped[k++] = ',';
		grouped[k++] = digits[i];
	}
	grouped[k] = '\0';
	snprintf(buf, size, "[... %s frame%s ...]", grouped, frames == 1 ? "" : "s");
}

/*
 * The location of a frame that stands for others (bpf/unwprof.h): the
 * frames a deep stack left out, one location per number of them, or
 * [exec], one for every program. Shared by every process, and named when
 * first seen, so that the writers name it as any frame.
 */
static int marker_location(struct profile *p, uint64_t word, uint32_t *id)
{
	unsigned int kind = word >> UNW_FRAME_KIND_SHIFT;
	char name[64] = "[exec]";
	bool added;
	int err;

	if (kind == UNW_FRAME_EXEC)
		word = UNW_FRAME_WORD(UNW_FRAME_EXEC, 0);
	err = profile__intern_frame(p, 0, PROFILE_FRAME_NATIVE, word, 0, id, &added);
	if (err || !added)
		return err;
	if (kind == UNW_FRAME_ELIDED)
		elided_name(name, sizeof(name), word & UNW_FRAME_VALUE_MASK);
	return profile__set_symbol(p, *id, PROFILE_NONE, name, NULL, 0);
}

/* The user frames of st: profile_user_locations_fn with the symbolizer as ctx. */
static int user_locations(struct profile *p, const struct profile_stack *st, uint32_t *ids,
			  void *ctx)
{
	struct symbolizer *sym = ctx;
	/*
	 * A process never added and already gone (it exited before its
	 * mappings could be read) will never be added nor end: nothing can
	 * name its frames, and a location per address of each such process
	 * would grow with every one of them. One unknown frame serves all.
	 */
	bool gone = !proc_find(sym, st->pid) && !pid_alive(st->pid);
	uint32_t n = 0;
	int err = 0;

	/* The words of the frames BPF recorded (bpf/unwprof.h), leaf first. */
	for (uint32_t i = 0; !err && i < st->nr_user; i++, n++) {
		uint64_t word = st->user_addrs[i];
		unsigned int kind = word >> UNW_FRAME_KIND_SHIFT;

		if (kind == UNW_FRAME_PYTHON && i + 1 < st->nr_user) {
			err = python_location(sym, p, st->pid, word & UNW_FRAME_VALUE_MASK,
					      st->user_addrs[++i], &ids[n]);
		} else if (kind == UNW_FRAME_RUBY && i + 1 < st->nr_user) {
			err = ruby_location(sym, p, st->pid, word & UNW_FRAME_VALUE_MASK,
					    st->user_addrs[++i], &ids[n]);
		} else if (kind == UNW_FRAME_ELIDED || kind == UNW_FRAME_EXEC) {
			err = marker_location(p, word, &ids[n]);
		} else if (gone || kind != UNW_FRAME_NATIVE) {
			err = profile__intern_location(p, 0, 0, false, n > 0, &ids[n]);
		} else {
			err = user_location(sym, p, st->pid, word, n > 0, &ids[n]);
		}
	}
	return err ? err : (int)n;
}

int symbolizer__add_stack(struct symbolizer *sym, struct profile *p, const struct profile_stack *st,
			  uint64_t count)
{
	return profile__add_stack_with(p, st, count, user_locations, sym);
}

int symbolizer__end_process(struct symbolizer *sym, struct profile *p, uint32_t pid)
{
	struct proc *pr = proc_find(sym, pid);
	int err = symbolizer__flush(sym); /* before its mappings go */

	if (sym->python)
		py_namer__remove_process(sym->python, pid);
	if (sym->ruby)
		rb_namer__remove_process(sym->ruby, pid);
	if (!pr)
		return err;
	for (size_t i = 0; i < pr->nr_own; i++) {
		if (!err)
			err = symbolize_location(sym, p, pr->own[i]);
		if (!err)
			err = profile__retire_location(p, pr->own[i]);
	}
	proc_remove(sym, pr);
	return err;
}

int symbolizer__symbolize_profile(struct symbolizer *sym, struct profile *p)
{
	size_t nr = profile__nr_locations(p);
	int err = symbolizer__flush(sym);

	if (err)
		return err;
	for (size_t i = 0; i < nr; i++) {
		const struct profile_location *l = profile__location(p, (uint32_t)i);

		/* Retired ones were symbolized when their process ended; the pid may be another's now. */
		if (!l->retired && !is_shared(l) && l->kind == PROFILE_FRAME_NATIVE)
			err = symbolize_location(sym, p, (uint32_t)i);
		if (err)
			return err;
	}
	return 0;
}

/* Lifecycle */

struct symbolizer *symbolizer__new(const struct symbolizer_opts *opts)
{
	struct symbolizer *sym = calloc(1, sizeof(*sym));
	const char *kallsyms = opts && opts->kallsyms ? opts->kallsyms : "/proc/kallsyms";
	const char *perf_map_dir = opts && opts->perf_map_dir ? opts->perf_map_dir : "/tmp";

	if (!sym)
		return NULL;
	sym->no_lines = opts && opts->no_lines;
	sym->debuginfod = opts ? opts->debuginfod : NULL;
	sym->kallsyms = strdup(kallsyms);
	sym->perf_map_dir = strdup(perf_map_dir);
	if (opts && opts->debug_dir)
		sym->debug_dir = strdup(opts->debug_dir);
	if (!sym->kallsyms || !sym->perf_map_dir || (opts && opts->debug_dir && !sym->debug_dir)) {
		symbolizer__free(sym);
		errno = ENOMEM;
		return NULL;
	}
	return sym;
}

void symbolizer__free(struct symbolizer *sym)
{
	if (!sym)
		return;
	for (size_t i = 0; i < sym->nr_procs; i++)
		proc_free(&sym->procs[i]);
	free(sym->procs);
	for (size_t i = 0; i < sym->nr_files; i++)
		symfile__free(sym->files[i]);
	free(sym->files);
	symfile__free(sym->vdso);
	free(sym->shared.slots);
	for (size_t i = 0; i < sym->pending.nr; i++)
		if (sym->pending.v[i].path_owned)
			free(sym->pending.v[i].map.path);
	free(sym->pending.v);
	py_namer__free(sym->python);
	rb_namer__free(sym->ruby);
	if (sym->ksyms_loading) {
		pthread_join(sym->ksyms_thread, NULL);
		ksyms__free(sym->preloaded);
	}
	ksyms__free(sym->ksyms);
	free(sym->kallsyms);
	free(sym->perf_map_dir);
	free(sym->debug_dir);
	free(sym);
}
