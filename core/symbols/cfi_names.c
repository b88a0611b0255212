// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions named by their CFI: the ranges of .eh_frame's FDEs, sorted,
 * each named when first looked up. See cfi_names.h.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../elf/elf_file.h"
#include "../unwind/cfi.h"
#include "../util/common.h"
#include "cfi_names.h"

#define MAX_SEGMENTS 16

struct cfi_func {
	uint64_t lo, hi; /* [start, end) */
	char *name;	 /* NULL until looked up */
};

struct cfi_names {
	struct cfi_func *funcs; /* sorted by lo, not overlapping */
	size_t nr;
	uint64_t entry; /* e_entry, 0 when none */
	char *label;
	struct elf_load_segment segs[MAX_SEGMENTS];
	size_t nr_segs;
};

static int func_cmp(const void *pa, const void *pb)
{
	const struct cfi_func *a = pa, *b = pb;

	if (a->lo != b->lo)
		return a->lo < b->lo ? -1 : 1;
	return a->hi < b->hi ? -1 : a->hi > b->hi;
}

/*
 * The FDEs' ranges, sorted; of two that overlap (which no compiler writes)
 * the first is cut where the second starts, so a search finds one.
 */
static int cfi_names__collect(struct cfi_names *n, const struct cfi *cfi)
{
	size_t out = 0;

	n->funcs = calloc(cfi->nr_fdes ? cfi->nr_fdes : 1, sizeof(*n->funcs));
	if (!n->funcs)
		return -ENOMEM;
	for (size_t i = 0; i < cfi->nr_fdes; i++)
		if (cfi->fdes[i].hi > cfi->fdes[i].lo)
			n->funcs[n->nr++] =
				(struct cfi_func){ cfi->fdes[i].lo, cfi->fdes[i].hi, NULL };
	qsort(n->funcs, n->nr, sizeof(*n->funcs), func_cmp);
	for (size_t i = 0; i < n->nr; i++) {
		if (out && n->funcs[out - 1].lo == n->funcs[i].lo)
			continue;
		if (out && n->funcs[out - 1].hi > n->funcs[i].lo)
			n->funcs[out - 1].hi = n->funcs[i].lo;
		n->funcs[out++] = n->funcs[i];
	}
	n->nr = out;
	return 0;
}

struct cfi_names *cfi_names__new(const struct elf_file *ef, const char *label)
{
	struct cfi_section sec = { .file = elf_file__path(ef),
				   .name = ".eh_frame",
				   .eh_frame = true,
				   .machine = elf_file__machine(ef) };
	struct elf_section es;
	struct cfi_names *n = NULL;
	struct cfi *cfi = NULL;
	int err;

	err = elf_file__section(ef, ".eh_frame", &es);
	if (err) {
		errno = -err == ENOENT ? ENOENT : EINVAL;
		return NULL;
	}
	sec.data = es.data;
	sec.size = es.size;
	sec.addr = es.addr;
	cfi = cfi__parse(&sec);
	n = calloc(1, sizeof(*n));
	err = !cfi ? -EINVAL : !n ? -ENOMEM : 0;
	if (!err && !(n->label = strdup(label)))
		err = -ENOMEM;
	if (!err)
		err = cfi_names__collect(n, cfi);
	cfi__free(cfi);
	if (err) {
		cfi_names__free(n);
		errno = -err;
		return NULL;
	}
	n->entry = elf_file__entry(ef);
	n->nr_segs = elf_file__load_segments(ef, n->segs, MAX_SEGMENTS);
	return n;
}

void cfi_names__free(struct cfi_names *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->nr; i++)
		free(n->funcs[i].name);
	free(n->funcs);
	free(n->label);
	free(n);
}

/* The offset in the file of vaddr, through the PT_LOAD segment that holds it; vaddr when none. */
static uint64_t file_offset(const struct cfi_names *n, uint64_t vaddr)
{
	for (size_t i = 0; i < n->nr_segs; i++) {
		const struct elf_load_segment *seg = &n->segs[i];

		if (vaddr >= seg->vaddr && vaddr - seg->vaddr < seg->filesz)
			return seg->offset + (vaddr - seg->vaddr);
	}
	return vaddr;
}

/* "_start" at the entry point, else "[LABEL+0xOFFSET]". */
static char *func_name(const struct cfi_names *n, const struct cfi_func *f)
{
	char *name = NULL;

	if (f->lo == n->entry)
		return strdup("_start");
	if (asprintf(&name, "[%s+0x%" PRIx64 "]", n->label, file_offset(n, f->lo)) < 0)
		return NULL;
	return name;
}

const char *cfi_names__lookup(struct cfi_names *n, uint64_t vaddr, uint64_t *start)
{
	size_t past = SORTED_PAST(n->funcs, 0, n->nr, lo, vaddr);
	struct cfi_func *f = past ? &n->funcs[past - 1] : NULL;

	if (!f || vaddr >= f->hi)
		return NULL;
	if (!f->name)
		f->name = func_name(n, f);
	*start = f->lo;
	return f->name;
}
