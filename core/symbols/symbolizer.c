// SPDX-License-Identifier: GPL-2.0-only
/*
 * The symbolizer: addresses of the model's processes named from the images
 * of their files (core/model/model.h), JIT code from perf maps, kernel
 * addresses from kallsyms (core/symbols/ksyms.h). See symbolizer.h.
 */
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "../util/common.h"
#include "../util/hashmap.h"
#include "bpf/abi.h"
#include "demangle.h"
#include "ksyms.h"
#include "../elf/elf_file.h"
#include "../model/model.h"
#include "../util/log.h"
#include "../profile/profile.h"
#include "../runtimes/runtimes.h"
#include "cfi_names.h"
#include "jit_map.h"
#include "dwarf_lines.h"
#include "symbolizer.h"
#include "symtab.h"

#define KERNEL_MAPPING "[kernel.kallsyms]"

/*
 * What the symbolizer keeps of a process of the model, or of a pid it never
 * read: its locations outside files and its JIT maps.
 */
struct symbolizer_proc {
	uint32_t pid;
	uint32_t *own; /* its locations outside files, symbolized at its end */
	size_t nr_own, cap_own;
	/* JIT symbols (core/symbols/jit_map.h): its /tmp/perf-NSPID.map, made on the first lookup */
	struct jit_map *perf_map;
	struct jit_map *jitdump; /* the jit-PID.dump it maps, else the one next to the perf map */
	bool jitdump_mapped;	 /* jitdump is the one it maps */
	uint32_t changes_seen;	 /* of its model process's mappings, when last looked at */
	/* The runtimes in it that claim code of no file (core/runtimes/runtimes.h: claims). */
	struct {
		const struct runtime *rt;
		const void *state;
		uint64_t bias;
	} claimers[UNW_UW_NR];
	size_t nr_claimers;
};

/*
 * The location of an (image, file offset, return address): every process
 * that maps a file with that image shares it.
 */
struct shared_entry {
	const struct model_image *image;
	uint64_t file_offset;
	uint32_t id;
	bool return_addr;
};

/* The shared locations seen, and their indexes by key. */
struct shared_index {
	struct shared_entry *v;
	size_t nr, cap;
	struct hashmap by_key; /* indexes into v */
};

/*
 * Shared locations added and not symbolized yet, and the mapping (a copy:
 * the process's array moves; its path and file are the model's) each was
 * first seen in. symbolizer__flush() symbolizes them by image and offset:
 * lookups in address order go forward through a file's DWARF, its units,
 * function trees and rows read while in the cache, where lookups in the
 * order of the stacks jumped across megabytes at each (a fifth of the time
 * of 20,000 lookups in libpython).
 */
struct pending_location {
	struct model_map map;
	uint64_t file_offset;
	uint32_t id;
};

struct pending_locations {
	struct profile *profile;
	struct pending_location *v;
	size_t nr, cap;
};

struct symbolizer {
	struct model *model;
	bool own_model; /* made by symbolizer__new(), freed with it */
	char *kallsyms;
	char *perf_map_dir;
	struct symbolizer_proc *procs; /* sorted by pid */
	size_t nr_procs;
	struct ksyms *ksyms;
	bool ksyms_tried;
	struct ksyms_preload *ksyms_preload; /* symbolizer__preload_kernel()'s, until joined */
	struct shared_index shared;
	struct pending_locations pending;
	bool no_lines;
	struct dwarf_frame frames[DWARF_LINES_MAX_DEPTH]; /* of the last lookup */
	/* The namer of the runtime of each unwinder (core/runtimes/runtimes.h), once it is found. */
	void *namers[UNW_UW_NR];
	/*
	 * By location id: the image + 1 (its model__image() index) of a
	 * location left unnamed for want of symbols, else 0.
	 */
	size_t *unnamed;
	size_t cap_unnamed;
};

/* Processes */

static struct symbolizer_proc *proc_find(const struct symbolizer *sym, uint32_t pid)
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

static struct symbolizer_proc *proc_get(struct symbolizer *sym, uint32_t pid)
{
	struct symbolizer_proc *procs, *p = proc_find(sym, pid);
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
	procs[at] = (struct symbolizer_proc){ .pid = pid };
	return &procs[at];
}

static void proc_free(struct symbolizer_proc *p)
{
	free(p->own);
	jit_map__free(p->perf_map);
	jit_map__free(p->jitdump);
}

static void proc_remove(struct symbolizer *sym, struct symbolizer_proc *p)
{
	size_t at = p - sym->procs;

	proc_free(p);
	memmove(p, p + 1, (sym->nr_procs - at - 1) * sizeof(*p));
	sym->nr_procs--;
}

/* The pid a path names a jitdump of: "jit-PID.dump", as perf looks for it; 0: none. */
static uint32_t jitdump_pid(const char *path)
{
	const char *base = strrchr(path, '/');
	unsigned long pid;
	char *end;

	base = base ? base + 1 : path;
	if (strncmp(base, "jit-", 4) != 0 || !isdigit((unsigned char)base[4]))
		return 0;
	errno = 0;
	pid = strtoul(base + 4, &end, 10);
	return !errno && pid <= UINT32_MAX && strcmp(end, ".dump") == 0 ? (uint32_t)pid : 0;
}

/*
 * The jitdump mapped by m, read as the file it maps: its path as maps
 * shows it, which is its path from the root of its mount (inside the
 * process's root for a container's, unwprof's for a chroot), with no link
 * on the way and that very inode at the end. NULL when neither root has it.
 */
static struct jit_map *mapped_jitdump(struct symbolizer *sym, const struct model_map *m,
				      const struct proc_view *view, uint32_t pid)
{
	struct jit_map_opts opts = {
		.view = view,
		.dev = makedev(m->map.dev_major, m->map.dev_minor),
		.ino = m->map.inode,
		.mapped = true,
		.pid = pid,
	};
	const struct proc_view_rules rules = {
		.max_size = JIT_MAP_MAX_FILE,
		.no_links = true,
		.dev = opts.dev,
		.ino = opts.ino,
	};
	struct proc_view own = *view;
	enum proc_view_refusal why;
	struct stat st;
	int fd;

	fd = proc_view__open(view, m->map.path, &rules, &st, &why);
	if (fd >= 0)
		close(fd);
	if (fd == -ENOENT || (fd == -EPERM && why == PROC_VIEW_REPLACED)) {
		own.root_fd = model__own_root(sym->model);
		opts.view = &own;
	}
	return jit_map__new(m->map.path, JIT_MAP_JITDUMP, &opts);
}

/*
 * A runtime that writes a jitdump maps it, executable, so that perf sees
 * where it is: its path names the file. Looked for whenever the process's
 * mappings changed since the last look.
 */
static int note_jitdump(struct symbolizer *sym, struct symbolizer_proc *p,
			const struct model_proc *mp, const struct proc_view *view)
{
	if (!mp || p->jitdump_mapped || p->changes_seen == mp->changes)
		return 0;
	p->changes_seen = mp->changes;
	for (size_t i = 0; i < mp->nr; i++) {
		const struct model_map *m = &mp->maps[i];
		uint32_t pid = m->map.path ? jitdump_pid(m->map.path) : 0;

		if (pid && m->map.path[0] == '/') {
			/* it replaces the one a lookup before looked for by default */
			jit_map__free(p->jitdump);
			p->jitdump = mapped_jitdump(sym, m, view, pid);
			if (!p->jitdump)
				return -ENOMEM;
			p->jitdump_mapped = true;
			return 0;
		}
	}
	return 0;
}

/*
 * No symbol holds vaddr (a stripped file, a static function of a library
 * with .dynsym alone): the function its CFI says holds it, named by its
 * start, or _start at the entry point.
 */
static void lookup_by_cfi(struct model_image *img, uint64_t vaddr, struct symbol_info *info)
{
	struct cfi_names *names = model__image_cfi_names(img);
	uint64_t start;

	if (!names)
		return;
	info->name = cfi_names__lookup(names, vaddr, &start);
	if (info->name)
		info->offset = vaddr - start;
}

/* Whether img has the symbols a debug file adds: a .symtab of its own or of its debug file. */
static bool has_full_symbols(const struct model_image *img)
{
	struct elf_section sec;

	return img->debug || elf_file__section(img->elf, ".symtab", &sec) == 0;
}

static void lookup_in_image(struct symbolizer *sym, struct model_image *img, uint64_t vaddr,
			    struct symbol_info *info)
{
	const struct symtab_sym *s;
	struct dwarf_lines *dwarf;

	model__image_settled(img);
	s = symtab__find(model__image_symtab(img), vaddr);
	info->build_id = img->build_id;
	info->image = img;
	if (s) {
		info->name = s->name;
		info->offset = vaddr - s->addr;
	} else {
		info->wants_symbols = !has_full_symbols(img);
		lookup_by_cfi(img, vaddr, info);
	}
	dwarf = sym->no_lines ? NULL : model__image_dwarf(img);
	if (dwarf) {
		info->frames = sym->frames;
		info->nr_frames =
			dwarf_lines__lookup(dwarf, vaddr, sym->frames, DWARF_LINES_MAX_DEPTH);
	}
}

/* The mapping m that covers addr, and the symbol there when m's image is known. */
static void lookup_in_map(struct symbolizer *sym, const struct model_map *m, uint64_t addr,
			  struct symbol_info *info)
{
	struct model_image *img = m->file ? m->file->image : NULL;
	uint64_t bias;

	info->file = m->map.path ? m->map.path : "[anon]";
	info->map_start = m->map.start;
	info->map_end = m->map.end;
	info->map_offset = m->map.offset;
	/* The one translation of the model, which the walk uses too. */
	if (img && model__image_bias(img, m->map.start, m->map.offset, 0, &bias))
		lookup_in_image(sym, img, addr - bias, info);
}

/*
 * JIT code: anonymous memory, or memory mapped after the process was last
 * read, named by the runtime's perf map, else by its jitdump, where the
 * process writes them: perf-NSPID.map in its /tmp, under its pid in its own
 * pid namespace, inside its root (as perf does for a container's). Each is
 * read (again) when an address is not named and the file changed.
 */
static void lookup_jit(struct symbolizer *sym, struct symbolizer_proc *p,
		       const struct model_proc *mp, uint64_t addr, struct symbol_info *info)
{
	struct proc_view view;
	char path[PATH_MAX];

	model__view(sym->model, (pid_t)p->pid, &view);
	if (!view.nspid)
		return; /* its pid there is not known: its files cannot be named */
	if (!p->perf_map) {
		snprintf(path, sizeof(path), "%s/perf-%d.map", sym->perf_map_dir, (int)view.nspid);
		p->perf_map = jit_map__new(path, JIT_MAP_PERF_MAP,
					   &(struct jit_map_opts){ .view = &view });
	}
	if (p->perf_map && jit_map__lookup(p->perf_map, addr, &info->name, &info->offset) == 0)
		return;
	if (note_jitdump(sym, p, mp, &view))
		return;
	/* not seen mapped: where runtimes write it by default, next to the perf map */
	if (!p->jitdump) {
		snprintf(path, sizeof(path), "%s/jit-%d.dump", sym->perf_map_dir, (int)view.nspid);
		p->jitdump = jit_map__new(path, JIT_MAP_JITDUMP,
					  &(struct jit_map_opts){ .view = &view,
								  .pid = (uint32_t)view.nspid });
	}
	if (p->jitdump)
		jit_map__lookup(p->jitdump, addr, &info->name, &info->offset);
}

/* Code of no file that a runtime of p claims: named as the runtime names it, one name for all. */
static void lookup_claimed(const struct symbolizer_proc *p, const struct model_map *m,
			   uint64_t addr, struct symbol_info *info)
{
	for (size_t i = 0; i < p->nr_claimers; i++)
		if (p->claimers[i].rt->claims(p->claimers[i].state, p->claimers[i].bias, &m->map)) {
			info->name = p->claimers[i].rt->claimed_name;
			info->offset = addr - m->map.start;
			return;
		}
}

int symbolizer__lookup(struct symbolizer *sym, uint32_t pid, uint64_t addr,
		       struct symbol_info *info)
{
	const struct model_proc *mp = model__process(sym->model, (pid_t)pid);
	const struct model_map *m = mp ? model__proc_find(mp, addr) : NULL;
	struct symbolizer_proc *p;

	memset(info, 0, sizeof(*info));
	if (!mp && !proc_find(sym, pid))
		return -ENOENT;
	p = m && m->map.path ? NULL : proc_get(sym, pid);
	if (p)
		lookup_jit(sym, p, mp, addr, info);
	if (m)
		lookup_in_map(sym, m, addr, info);
	p = m && !(m->file && m->file->image) ? proc_find(sym, pid) : NULL;
	if (m && !info->name && p)
		lookup_claimed(p, m, addr, info);
	return 0;
}

int symbolizer__lookup_file(struct symbolizer *sym, const char *path, uint64_t vaddr,
			    struct symbol_info *info)
{
	struct model_image *img = model__image_of_path(sym->model, path);

	memset(info, 0, sizeof(*info));
	if (!img)
		return -errno;
	info->file = img->path;
	lookup_in_image(sym, img, vaddr, info);
	return 0;
}

/* Kernel symbols */

int symbolizer__preload_kernel(struct symbolizer *sym)
{
	if (sym->ksyms_tried || sym->ksyms_preload)
		return 0;
	sym->ksyms_preload = ksyms__preload(sym->kallsyms);
	return sym->ksyms_preload ? 0 : -errno;
}

/* The kernel's symbols, once: what the preloading thread read, or read now. */
static void symbolizer__load_kernel(struct symbolizer *sym)
{
	if (sym->ksyms_tried)
		return;
	sym->ksyms_tried = true;
	if (sym->ksyms_preload) {
		sym->ksyms = ksyms__preload_join(sym->ksyms_preload);
		sym->ksyms_preload = NULL;
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
	const struct model_map *map; /* when set, pid is not looked at */
};

static int source_lookup(const struct frame_source *src, uint64_t addr, struct symbol_info *info)
{
	if (src->kernel)
		return symbolizer__lookup_kernel(src->sym, addr, info);
	if (!src->map)
		return symbolizer__lookup(src->sym, src->pid, addr, info);
	memset(info, 0, sizeof(*info));
	lookup_in_map(src->sym, src->map, addr, info);
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

static uint64_t shared_hash(const struct model_image *image, uint64_t file_offset, bool return_addr)
{
	uint64_t h = (uintptr_t)image * 0x9e3779b97f4a7c15ULL;

	h ^= (file_offset << 1 | return_addr) * 0xff51afd7ed558ccdULL;
	return h ^ (h >> 31);
}

/* key: a shared_entry, its id unset */
static bool shared_eq(const void *index, size_t i, const void *key)
{
	const struct shared_entry *a = &((const struct shared_index *)index)->v[i], *b = key;

	return a->image == b->image && a->file_offset == b->file_offset &&
	       a->return_addr == b->return_addr;
}

/*
 * The location of addr in mapping m, shared by every process that maps m's
 * file, and symbolized at the next flush (its address is that of the first
 * process, and so is its mapping).
 */
static int shared_location(struct symbolizer *sym, struct profile *p, const struct model_map *m,
			   uint64_t addr, bool return_addr, uint32_t *id)
{
	const struct profile_location loc = {
		.addr = addr,
		.return_addr = return_addr,
		.mapping = PROFILE_NONE,
	};
	struct pending_locations *pl = &sym->pending;
	struct shared_index *ix = &sym->shared;
	struct shared_entry key = {
		.image = m->file->image,
		.file_offset = addr - m->map.start + m->map.offset,
		.return_addr = return_addr,
	};
	uint64_t hash = shared_hash(key.image, key.file_offset, return_addr);
	size_t found = hashmap__find_index(&ix->by_key, hash, shared_eq, ix, &key);
	int err;

	if (found != HASHMAP_NO_INDEX) {
		*id = ix->v[found].id;
		return 0;
	}
	err = grow((void **)&pl->v, &pl->cap, pl->nr, sizeof(*pl->v));
	if (!err)
		err = grow((void **)&ix->v, &ix->cap, ix->nr, sizeof(*ix->v));
	if (!err)
		err = profile__add_location(p, &loc, id);
	if (!err)
		err = hashmap__add(&ix->by_key, hash, hashmap_index_value(ix->nr));
	if (err)
		return err;
	key.id = *id;
	ix->v[ix->nr++] = key;
	pl->profile = p;
	pl->v[pl->nr++] = (struct pending_location){ *m, key.file_offset, *id };
	return 0;
}

/* By image (its path, then the image itself), then offset. */
static int pending_cmp(const void *pa, const void *pb)
{
	const struct pending_location *a = pa, *b = pb;
	const struct model_image *ia = a->map.file->image, *ib = b->map.file->image;

	if (ia != ib) {
		int by_path = strcmp(ia->path, ib->path);

		if (by_path)
			return by_path;
		return (uintptr_t)ia < (uintptr_t)ib ? -1 : 1;
	}
	if (a->file_offset != b->file_offset)
		return a->file_offset < b->file_offset ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Location id stayed unnamed for want of img's symbols. 0 or -ENOMEM. */
static int mark_unnamed(struct symbolizer *sym, uint32_t id, const struct model_image *img)
{
	if (id >= sym->cap_unnamed) {
		size_t cap = sym->cap_unnamed ? sym->cap_unnamed : 1024;
		size_t *v;

		while (cap <= id)
			cap *= 2;
		v = reallocarray(sym->unnamed, cap, sizeof(*v));
		if (!v)
			return -ENOMEM;
		memset(v + sym->cap_unnamed, 0, (cap - sym->cap_unnamed) * sizeof(*v));
		sym->unnamed = v;
		sym->cap_unnamed = cap;
	}
	sym->unnamed[id] = img->index + 1;
	return 0;
}

int symbolizer__flush(struct symbolizer *sym)
{
	struct pending_locations *pl = &sym->pending;
	/* The images whose debug file is on its way keep their locations for a later flush. */
	bool waiting = model__settle_fetches(sym->model);
	size_t kept = 0;
	int err = 0;

	if (!pl->nr)
		return 0; /* and the list may not be allocated */
	qsort(pl->v, pl->nr, sizeof(*pl->v), pending_cmp);
	for (size_t i = 0; !err && i < pl->nr; i++) {
		const struct pending_location *e = &pl->v[i];
		const struct frame_source src = { .sym = sym, .map = &e->map };
		struct symbol_info info;
		uint64_t at;

		if (waiting && e->map.file->image->fetching) {
			pl->v[kept++] = *e;
			continue;
		}
		err = frame_lookup(&src, profile__location(pl->profile, e->id), &info, &at);
		if (!err)
			err = set_symbol(pl->profile, e->id, &info, at);
		if (!err && info.wants_symbols)
			err = mark_unnamed(sym, e->id, info.image);
	}
	pl->nr = kept;
	return err;
}

/* A location of pid's own, symbolized when the process ends. */
static int own_location(struct symbolizer *sym, struct profile *p, uint32_t pid, uint64_t addr,
			bool return_addr, uint32_t *id)
{
	size_t before = profile__nr_locations(p);
	struct symbolizer_proc *pr;
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
	const struct model_proc *mp = model__process(sym->model, (pid_t)pid);
	const struct model_map *m = mp ? model__proc_find(mp, addr) : NULL;

	if (m && m->file && m->file->image)
		return shared_location(sym, p, m, addr, return_addr, id);
	return own_location(sym, p, pid, addr, return_addr, id);
}

/* Runtime rt of pid, which claims code of no file, kept (again: its state may be new). */
static int symbolizer__add_claimer(struct symbolizer *sym, uint32_t pid, const struct runtime *rt,
				   const void *state, uint64_t bias)
{
	struct symbolizer_proc *p = proc_get(sym, pid);
	size_t i = 0;

	if (!p)
		return -1;
	while (i < p->nr_claimers && p->claimers[i].rt != rt)
		i++;
	if (i == ARRAY_SIZE(p->claimers))
		return 0;
	p->claimers[i].rt = rt;
	p->claimers[i].state = state;
	p->claimers[i].bias = bias;
	p->nr_claimers += i == p->nr_claimers;
	return 0;
}

int symbolizer__add_runtime(struct symbolizer *sym, uint32_t pid, const struct runtime *rt,
			    const void *state, uint64_t bias)
{
	unsigned int u = rt->unwinder;

	if (u >= UNW_UW_NR)
		return 0;
	if (rt->claims && symbolizer__add_claimer(sym, pid, rt, state, bias))
		return -ENOMEM;
	if (!rt->namer)
		return 0;
	if (!sym->namers[u])
		sym->namers[u] = rt->namer->new ();
	if (!sym->namers[u])
		return -ENOMEM;
	return rt->namer->add_process(sym->namers[u], pid, state, bias);
}

void symbolizer__code_event(struct symbolizer *sym, const struct unw_event *ev, size_t size)
{
	const struct runtime *rt = runtimes__of_unwinder(ev->unwinder);

	if (rt && rt->namer && sym->namers[rt->unwinder])
		rt->namer->read_code(sym->namers[rt->unwinder], ev, size);
}

int symbolizer__fork(struct symbolizer *sym, uint32_t ppid, uint32_t pid)
{
	int err = 0;

	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR && !err; u++) {
		const struct frame_namer_ops *ops = runtimes__of_unwinder(u)->namer;

		if (sym->namers[u] && ops->fork)
			err = ops->fork(sym->namers[u], ppid, pid);
	}
	return err;
}

/*
 * The location of the frame (code, where) of pid, of runtime rt: one per
 * code and line (what tells a code apart is the namer's key), named when
 * first seen, while the process lives.
 */
static int interp_location(struct symbolizer *sym, struct profile *p, uint32_t pid,
			   const struct runtime *rt, uint64_t code, uint64_t where, uint32_t *id)
{
	struct frame_name name = { "<unknown>", "<unknown>", 0, 0, NULL, 0 };
	void *namer = sym->namers[rt->unwinder];
	struct profile_line lines[FRAME_INLINED_MAX + 1];
	uint64_t key = code;
	size_t n;
	bool added;
	int err;

	if (namer)
		key = rt->namer->name(namer, pid, code, where, &name);
	/* Its kind in the profile is its runtime's unwinder (core/profile/profile.h). */
	err = profile__intern_frame(p, pid, rt->unwinder, key, name.line, id, &added);
	if (err || !added)
		return err;
	err = profile__set_symbol(p, *id, PROFILE_NONE, name.function, NULL, 0);
	if (err || !name.file)
		return err;
	/* The functions inlined where it runs first, innermost first, as DWARF's are. */
	for (n = 0; n < name.nr_inlined && n < ARRAY_SIZE(lines) - 1; n++)
		lines[n] = (struct profile_line){ .function = name.inlined[n].function,
						  .file = name.inlined[n].file ?
								  name.inlined[n].file :
								  "<unknown>",
						  .line = name.inlined[n].line,
						  .start_line = name.inlined[n].first_line };
	lines[n++] = (struct profile_line){ .function = name.function,
					    .file = name.file,
					    .line = name.line,
					    .start_line = name.first_line };
	return profile__set_lines(p, *id, lines, n);
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
 * The location of a frame that stands for others (bpf/abi.h): the
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
	bool gone = !proc_find(sym, st->pid) && !model__process(sym->model, (pid_t)st->pid) &&
		    !pid_alive(st->pid);
	uint32_t n = 0;
	int err = 0;

	/* The words of the frames BPF recorded (bpf/abi.h), leaf first. */
	for (uint32_t i = 0; !err && i < st->nr_user; i++, n++) {
		uint64_t word = st->user_addrs[i];
		unsigned int kind = word >> UNW_FRAME_KIND_SHIFT;

		const struct runtime *rt = runtimes__of_frame_kind(kind);

		if (rt && rt->namer && i + 1 < st->nr_user) {
			err = interp_location(sym, p, st->pid, rt, word & UNW_FRAME_VALUE_MASK,
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
	struct symbolizer_proc *pr = proc_find(sym, pid);
	int err = symbolizer__flush(sym); /* while its mappings are in the model */

	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		if (sym->namers[u])
			runtimes__of_unwinder(u)->namer->remove_process(sym->namers[u], pid);
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

/* Frames unnamed for want of symbols */

struct unnamed_count {
	size_t image; /* model__image() index */
	uint64_t frames;
};

static int unnamed_cmp(const void *pa, const void *pb)
{
	const struct unnamed_count *a = pa, *b = pb;

	if (a->frames != b->frames)
		return a->frames > b->frames ? -1 : 1;
	return a->image < b->image ? -1 : a->image > b->image;
}

ssize_t symbolizer__unnamed(const struct symbolizer *sym, const struct profile *p,
			    struct symbolizer_unnamed *out, size_t max, uint64_t *frames)
{
	size_t nr_images = model__nr_images(sym->model), n = 0;
	struct unnamed_count *c = calloc(nr_images ? nr_images : 1, sizeof(*c));

	*frames = 0;
	if (!c)
		return -ENOMEM;
	for (size_t i = 0; i < nr_images; i++)
		c[i].image = i;
	for (size_t i = 0; i < profile__nr_samples(p); i++) {
		const struct profile_sample *smp = profile__sample(p, i);

		for (uint32_t f = 0; f < smp->nr_user; f++) {
			uint32_t id = smp->user[f];
			size_t img = id < sym->cap_unnamed ? sym->unnamed[id] : 0;

			if (img && img <= nr_images) {
				c[img - 1].frames += smp->count;
				*frames += smp->count;
			}
		}
	}
	qsort(c, nr_images, sizeof(*c), unnamed_cmp);
	while (n < nr_images && c[n].frames) {
		const struct model_image *img = model__image(sym->model, c[n].image);

		if (n < max)
			out[n] = (struct symbolizer_unnamed){ img->path, img->build_id,
							      c[n].frames };
		n++;
	}
	free(c);
	return (ssize_t)n;
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
	sym->model = opts ? opts->model : NULL;
	if (!sym->model) {
		/* It names, it walks nothing: no unwind tables to build. */
		sym->model = model__new(&(struct model_opts){
			.debug_dir = opts ? opts->debug_dir : NULL,
			.no_tables = true,
		});
		sym->own_model = true;
	}
	sym->kallsyms = strdup(kallsyms);
	sym->perf_map_dir = strdup(perf_map_dir);
	if (!sym->model || !sym->kallsyms || !sym->perf_map_dir) {
		symbolizer__free(sym);
		errno = ENOMEM;
		return NULL;
	}
	return sym;
}

struct model *symbolizer__model(const struct symbolizer *sym)
{
	return sym->model;
}

void symbolizer__free(struct symbolizer *sym)
{
	if (!sym)
		return;
	for (size_t i = 0; i < sym->nr_procs; i++)
		proc_free(&sym->procs[i]);
	free(sym->procs);
	free(sym->shared.v);
	hashmap__exit(&sym->shared.by_key);
	free(sym->pending.v);
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		if (sym->namers[u])
			runtimes__of_unwinder(u)->namer->free(sym->namers[u]);
	if (sym->ksyms_preload)
		ksyms__free(ksyms__preload_join(sym->ksyms_preload));
	ksyms__free(sym->ksyms);
	free(sym->kallsyms);
	free(sym->perf_map_dir);
	free(sym->unnamed);
	if (sym->own_model)
		model__free(sym->model);
	free(sym);
}
