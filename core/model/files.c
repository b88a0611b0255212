// SPDX-License-Identifier: GPL-2.0-only
/*
 * The files of the model and their images: each mapped file opened once,
 * each image parsed once per key, what the symbolizer needs of it read on
 * first use. See model.h.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/unwind_step.h"
#include "../elf/debuginfo.h"
#include "../elf/debuginfod.h"
#include "../symbols/cfi_names.h"
#include "../symbols/dwarf_lines.h"
#include "../symbols/symtab.h"
#include "../targets/procfs.h"
#include "../unwind/shards.h"
#include "../unwind/unwind_table.h"
#include "../util/log.h"
#include "internal.h"

static void model__image_free(struct model_image *img)
{
	if (!img)
		return;
	symtab__free(img->symtab);
	dwarf_lines__free(img->dwarf);
	cfi_names__free(img->cfi_names);
	unwind_table__free(img->table);
	runtimes__free_image(&img->rt);
	elf_file__free(img->debug);
	elf_file__free(img->elf);
	free(img->build_id);
	free(img->path);
	free(img);
}

void model__free_files(struct model *md)
{
	for (size_t i = 0; i < md->nr_images; i++)
		model__image_free(md->images[i]);
	for (size_t i = 0; i < md->nr_files; i++)
		free(md->files[i]);
	free(md->images);
	free(md->files);
	hashmap__exit(&md->files_by_id);
	hashmap__exit(&md->images_by_key);
	hashmap__exit(&md->images_by_path);
}

size_t model__nr_images(const struct model *md)
{
	return md->nr_images;
}

struct model_image *model__image(const struct model *md, size_t i)
{
	return i < md->nr_images ? md->images[i] : NULL;
}

size_t model__nr_files(const struct model *md)
{
	return md->nr_files;
}

struct model_file *model__file(const struct model *md, size_t i)
{
	return i < md->nr_files ? md->files[i] : NULL;
}

size_t model__key(const struct elf_file *ef, uint8_t *key, size_t *build_id_len)
{
	size_t len = elf_file__build_id(ef, key);
	const void *img;
	uint64_t h;

	if (build_id_len)
		*build_id_len = len;
	if (len)
		return len;
	img = elf_file__image(ef, &len);
	h = shards__hash(img, img ? len : 0, 0);
	key[0] = 'H';
	memcpy(key + 1, &h, sizeof(h));
	return 1 + sizeof(h);
}

/* ---- images ---- */

struct image_key {
	const uint8_t *key;
	size_t len;
};

static bool image_has_key(const void *value, const void *key)
{
	const struct model_image *img = value;
	const struct image_key *k = key;

	return img->key_len == k->len && memcmp(img->key, k->key, k->len) == 0;
}

/* The executable segments of img, the ones a mapping of code can be made for. */
static void model__image_exec_segs(struct model_image *img)
{
	img->nr_exec_segs = 0;
	for (size_t i = 0; i < img->nr_segs; i++) {
		const struct elf_load_segment *sg = &img->segs[i];

		if (!(sg->flags & PF_X) || !sg->filesz)
			continue;
		if (img->nr_exec_segs == UNW_FILE_SEGS) {
			pr_debug("%s: more than %d executable segments: frame pointers in the rest",
				 img->path, UNW_FILE_SEGS);
			return;
		}
		img->exec_segs[img->nr_exec_segs++] = (struct unw_seg){
			.vaddr = sg->vaddr,
			.offset = sg->offset,
			.filesz = sg->filesz,
		};
	}
}

static char *build_id_hex(const uint8_t *id, size_t len)
{
	char *hex = len ? malloc(2 * len + 1) : NULL;

	for (size_t i = 0; hex && i < len; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	return hex;
}

/* The unwind table and runtimes of img, with its debug file's CFI. */
static void model__image_build(struct model *md, struct model_image *img)
{
	const struct elf_file *ef = img->elf;

	if (md->opts.no_tables)
		return;
	img->table = unwind_table__build(ef, img->debug);
	runtimes__read_image(&img->rt, ef, img->path);
	if (img->table &&
	    (elf_file__truncated(ef) || (img->debug && elf_file__truncated(img->debug)))) {
		/* Rows read from the zeros of a truncated file would unwind wrongly. */
		unwind_table__free(img->table);
		img->table = NULL;
		errno = ESTALE;
	}
	if (!img->table)
		pr_warn("%s: no unwind table (%s): frame pointers there", img->path,
			strerror(errno));
}

/* A new image of ef (taken), its key known; NULL on allocation failure (ef freed). */
static struct model_image *model__new_image(struct model *md, struct elf_file *ef,
					    const struct image_key *k, size_t id_len,
					    const char *path)
{
	struct model_image *img = calloc(1, sizeof(*img));

	if (!img || !(img->path = strdup(path)) ||
	    grow((void **)&md->images, &md->cap_images, md->nr_images, sizeof(*md->images)) ||
	    hashmap__add(&md->images_by_key, hash_bytes(k->key, k->len), img)) {
		if (img)
			free(img->path);
		free(img);
		elf_file__free(ef);
		errno = ENOMEM;
		return NULL;
	}
	img->elf = ef;
	memcpy(img->key, k->key, k->len);
	img->key_len = k->len;
	img->build_id_len = id_len;
	img->build_id = build_id_hex(k->key, id_len);
	img->index = md->nr_images;
	md->images[md->nr_images++] = img;
	md->stats.images_parsed++;
	return img;
}

/*
 * Without a local debug file, an image that lacks symbols or source lines
 * asks debuginfod for one: the symbolizer's lookups wait for the answer
 * (symbolizer__flush() holds its locations back), which comes during the
 * run or by the deadline of its end (debuginfod__finish()). Its unwind
 * table is built without it.
 */
static void model__image_fetch_debug(struct model *md, struct model_image *img)
{
	struct elf_section sec;

	if (!md->opts.debuginfod || !img->build_id ||
	    (!elf_file__section(img->elf, ".symtab", &sec) &&
	     !elf_file__section(img->elf, ".debug_line", &sec)))
		return;
	if (debuginfod__request(md->opts.debuginfod, img->build_id))
		return;
	img->fetching = md->opts.debuginfod;
	md->nr_fetching++;
}

/*
 * The image of ef (taken: freed when its key is known already), parsed on
 * first sight; debug files are looked up as view says (NULL: on the host),
 * where ef is at path, which names it in messages.
 */
static struct model_image *model__image_of(struct model *md, struct elf_file *ef,
					   const struct proc_view *view, const char *path)
{
	struct debuginfo_opts dopts = { .debug_dir = md->opts.debug_dir, .view = view };
	uint8_t key[MODEL_KEY_MAX];
	size_t id_len, len = model__key(ef, key, &id_len);
	struct image_key k = { key, len };
	struct model_image *img;

	img = hashmap__find(&md->images_by_key, hash_bytes(key, len), image_has_key, &k);
	if (img) {
		pr_info("%s: the image of %s (the same %s)", path, img->path,
			id_len ? "build ID" : "contents");
		elf_file__free(ef);
		return img;
	}
	img = model__new_image(md, ef, &k, id_len, path);
	if (!img)
		return NULL;
	img->nr_segs = elf_file__load_segments(ef, img->segs, MODEL_MAX_SEGS);
	model__image_exec_segs(img);
	if (view)
		dopts.path = path;
	if (!md->opts.no_debuginfo)
		img->debug = debuginfo__find(ef, &dopts);
	if (!img->debug)
		model__image_fetch_debug(md, img);
	pr_info("%s: parsed once%s%s", path, img->debug ? ", its debug file " : "",
		img->debug ? elf_file__path(img->debug) : "");
	model__image_build(md, img);
	return img;
}

static bool image_has_path(const void *value, const void *key)
{
	/* The path it was first asked for is its first path. */
	return strcmp(((const struct model_image *)value)->path, key) == 0;
}

struct model_image *model__image_of_path(struct model *md, const char *path)
{
	uint64_t h = hash_str(path);
	struct model_image *img = hashmap__find(&md->images_by_path, h, image_has_path, path);
	struct elf_file *ef;

	if (img)
		return img;
	ef = elf_file__open(path);
	if (!ef)
		return NULL;
	img = model__image_of(md, ef, NULL, path);
	if (img && !strcmp(img->path, path) && hashmap__add(&md->images_by_path, h, img)) {
		errno = ENOMEM;
		return NULL;
	}
	return img;
}

/* ---- files ---- */

static uint64_t file_id_hash(uint32_t major, uint32_t minor, uint64_t inode)
{
	return hash_u64(inode ^ hash_u64((uint64_t)major << 32 | minor));
}

static bool file_is(const void *value, const void *key)
{
	const struct model_file *f = value;
	const struct procmap *m = key;

	return f->inode == m->inode && f->dev_major == m->dev_major && f->dev_minor == m->dev_minor;
}

/*
 * Opens the file of mapping m as the process sees it, inside its root and
 * checked to be the mapped inode; NULL when it cannot be, counted.
 */
static struct elf_file *model__open_mapping(struct model *md, const struct procmap *m, pid_t pid,
					    bool *gone)
{
	struct elf_file *ef;
	bool replaced;
	int fd;

	*gone = false;
	fd = procfs__open_mapping(pid, m, &replaced);
	if (replaced) {
		md->stats.files_replaced++;
		pr_debug("%s (pid %d): the path leads to another file than the mapped one", m->path,
			 (int)pid);
	}
	if (fd == -ESRCH) {
		/* Not the file's fault: the next process that maps it is asked. */
		md->stats.files_gone++;
		*gone = true;
		pr_debug("%s (pid %d): the process exited before its file was opened", m->path,
			 (int)pid);
		return NULL;
	}
	if (fd < 0) {
		md->stats.files_unreadable++;
		pr_info("%s (pid %d): no table: cannot open the mapped file: %s", m->path, (int)pid,
			strerror(-fd));
		return NULL;
	}
	/* Read through the fd: what was checked is what is read. */
	ef = elf_file__open_fd(fd, m->path, ELF_OPEN_QUIET);
	close(fd);
	if (!ef)
		md->stats.files_unreadable++;
	return ef;
}

/* A new file for mapping m, kept until model__free(); NULL on allocation failure. */
static struct model_file *model__add_file(struct model *md, const struct procmap *m)
{
	struct model_file *f;

	if (grow((void **)&md->files, &md->cap_files, md->nr_files, sizeof(*md->files)))
		return NULL;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev_major = m->dev_major;
	f->dev_minor = m->dev_minor;
	f->inode = m->inode;
	/* An inode of 0 is no identity: such files are never found again. */
	if (f->inode &&
	    hashmap__add(&md->files_by_id, file_id_hash(f->dev_major, f->dev_minor, f->inode), f)) {
		free(f);
		return NULL;
	}
	md->files[md->nr_files++] = f;
	return f;
}

/* unwprof's own vDSO, read on first use; its debug files are looked up from /. */
static struct model_file *model__own_vdso(struct model *md, const struct procmap *m)
{
	struct elf_file *ef;
	size_t size;
	long page;

	if (md->vdso)
		return md->vdso;
	md->vdso = model__add_file(md, m);
	if (!md->vdso)
		return NULL;
	ef = elf_file__open_vdso();
	if (!ef) {
		pr_debug("[vdso]: cannot read unwprof's own: frame pointers there");
		return md->vdso;
	}
	elf_file__image(ef, &size);
	page = sysconf(_SC_PAGESIZE);
	md->vdso_len = (size + page - 1) & ~(uint64_t)(page - 1);
	md->stats.files_opened++;
	md->vdso->image = model__image_of(md, ef, NULL, "[vdso]");
	return md->vdso->image ? md->vdso : NULL;
}

static struct model_file *model__vdso(struct model *md, const struct procmap *m)
{
	struct model_file *f = model__own_vdso(md, m);

	/* Unread (vdso_len 0), it has no image for any [vdso]. */
	if (!f || !md->vdso_len || m->end - m->start == md->vdso_len)
		return f;
	/* Not the image unwprof has: its table would unwind wrongly. */
	if (!md->vdso_other) {
		pr_debug("[vdso] of %#" PRIx64 " bytes, unwprof's own has %#" PRIx64
			 ": frame pointers there",
			 m->end - m->start, md->vdso_len);
		md->vdso_other = model__add_file(md, m);
	}
	return md->vdso_other;
}

struct model_file *model__file_of(struct model *md, const struct procmap *m, pid_t pid)
{
	struct model_file *f = NULL;
	struct proc_view view;
	struct elf_file *ef;

	if (procmaps__is_vdso(m))
		return model__vdso(md, m);
	if (m->inode)
		f = hashmap__find(&md->files_by_id,
				  file_id_hash(m->dev_major, m->dev_minor, m->inode), file_is, m);
	if (f && !f->unopened)
		return f;
	if (!f)
		f = model__add_file(md, m);
	if (!f)
		return NULL;
	ef = m->path ? model__open_mapping(md, m, pid, &f->unopened) : NULL;
	if (!ef) {
		if (!f->unopened)
			pr_info("%s (pid %d): no table: not readable as ELF, frame pointers there",
				m->path ? m->path : "[anon]", (int)pid);
		return f;
	}
	f->unopened = false;
	md->stats.files_opened++;
	pr_info("%s: opened once (device %u:%u, inode %" PRIu64 ")", m->path, m->dev_major,
		m->dev_minor, m->inode);
	model__view(md, pid, &view);
	f->image = model__image_of(md, ef, &view, m->path);
	return f->image ? f : NULL;
}

/* ---- the translation, and what is read on first use ---- */

static uint64_t page_size(void)
{
	static uint64_t page;

	if (!page)
		page = (uint64_t)sysconf(_SC_PAGESIZE);
	return page;
}

bool model__image_bias(const struct model_image *img, uint64_t start, uint64_t offset,
		       uint64_t base, uint64_t *bias)
{
	long i = unw_segs__find(img->exec_segs, img->nr_exec_segs, offset, page_size());

	if (i < 0)
		return false;
	*bias = unw_seg__bias(&img->exec_segs[i], start, offset, base);
	return true;
}

bool model__image_settled(struct model_image *img)
{
	const char *path = NULL;

	if (!img->fetching)
		return true;
	switch (debuginfod__poll(img->fetching, img->build_id, &path)) {
	case DEBUGINFOD_PENDING:
		return false;
	case DEBUGINFOD_FOUND:
		img->debug = debuginfo__open_matching(img->elf, path);
		if (!img->debug)
			pr_warn("%s: the debug file debuginfod gave, %s, does not match it",
				img->path, path);
		break;
	default:
		break;
	}
	img->fetching = NULL;
	if (img->debug && img->symtab_tried) {
		symtab__free(img->symtab);
		img->symtab = NULL;
		img->symtab_tried = false;
	}
	if (img->debug && img->dwarf_tried) {
		dwarf_lines__free(img->dwarf);
		img->dwarf = NULL;
		img->dwarf_tried = false;
	}
	return true;
}

bool model__settle_fetches(struct model *md)
{
	size_t left = 0;

	if (!md->nr_fetching)
		return false;
	for (size_t i = 0; i < md->nr_images; i++)
		if (md->images[i]->fetching && !model__image_settled(md->images[i]))
			left++;
	md->nr_fetching = left;
	return left;
}

struct symtab *model__image_symtab(struct model_image *img)
{
	if (!img->symtab_tried) {
		img->symtab_tried = true;
		img->symtab = symtab__load(img->elf, img->debug, img->segs, img->nr_segs);
	}
	return img->symtab;
}

/* The DWARF of its debug file, else its own. */
struct dwarf_lines *model__image_dwarf(struct model_image *img)
{
	if (img->dwarf_tried)
		return img->dwarf;
	img->dwarf_tried = true;
	if (img->debug)
		img->dwarf = dwarf_lines__open(img->debug);
	if (!img->dwarf)
		img->dwarf = dwarf_lines__open(img->elf);
	return img->dwarf;
}

struct cfi_names *model__image_cfi_names(struct model_image *img)
{
	const char *base = strrchr(img->path, '/');

	if (!img->cfi_names_tried) {
		img->cfi_names_tried = true;
		img->cfi_names = cfi_names__new(img->elf, base ? base + 1 : img->path);
	}
	return img->cfi_names;
}
