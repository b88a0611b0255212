// SPDX-License-Identifier: GPL-2.0-only
/*
 * HotSpot as a runtime (core/runtimes/runtimes.h): a libjvm.so's symbols
 * read from its image (hsruntime.h), the JVM's tables read from each
 * process that runs it, as it is placed, and the value its BPF walk reads
 * (bpf/unwind_hotspot.h, struct unw_hotspot_proc) for a pc in the JVM's
 * code cache. A JVM whose tables lack an entry the walk needs is refused:
 * said once, naming its file and the entry, its code cache's samples
 * counted (hotspot-vmstructs-unsupported) and walked as native code.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "../../util/log.h"
#include "../proc_mem.h"
#include "../runtimes.h"
#include "hotspot.h"
#include "hsframes.h"
#include "hsruntime.h"

/* What HotSpot reads of an image. */
struct hotspot_image {
	struct hsruntime rt;
	char *path;	    /* named in what is said of it */
	bool refused;	    /* the image lacks some of the symbols */
	unsigned int *said; /* a refusal said already (once an image, whichever process) */
};

static void hotspot_free(void *state)
{
	struct hotspot_image *img = state;

	if (!img)
		return;
	free(img->path);
	free(img->said);
	free(img);
}

/* A libjvm.so, by its symbols; one that lacks some of them is said once, here. */
static void *hotspot_read(const struct elf_file *ef, const char *path)
{
	struct hotspot_image *img = calloc(1, sizeof(*img));
	const char *missing;
	int err;

	if (!img)
		return NULL;
	err = hsruntime__read(ef, &img->rt, &missing);
	if (err && err != -ENOTSUP) {
		free(img);
		return NULL;
	}
	img->path = strdup(path ? path : "?");
	img->said = calloc(1, sizeof(*img->said));
	if (!img->path || !img->said) {
		hotspot_free(img);
		return NULL;
	}
	img->refused = err == -ENOTSUP;
	if (img->refused) {
		pr_warn("%s: a JVM without %s: its Java frames are not walked, its samples show "
			"native frames only",
			path, missing);
		*img->said = 1;
	}
	return img;
}

static int hotspot_mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return proc_mem__read(ctx, addr, buf, len);
}

int hotspot__read_process(const struct hsruntime *hr, uint32_t pid, uint64_t bias,
			  struct hotspot_process *hp, const char **missing)
{
	char path[64];
	struct proc_mem m = { .pid = pid };
	int err;

	*hp = (struct hotspot_process){ 0 };
	*missing = NULL;
	snprintf(path, sizeof(path), "/proc/%u/mem", pid);
	m.fd = open(path, O_RDONLY | O_CLOEXEC);
	if (m.fd < 0)
		return -errno;
	err = hsruntime__read_layout(hr, bias, hotspot_mem_read, &m, &hp->layout, missing);
	if (!err)
		err = hsruntime__read_heaps(&hp->layout, hotspot_mem_read, &m, &hp->cache, missing);
	else if (err == -ENOTSUP)
		/* Refused: its code cache, if its tables say where, to count its samples. */
		hsruntime__read_bounds(&hp->layout, hotspot_mem_read, &m, &hp->cache);
	close(m.fd);
	return err;
}

/* The value of a JVM whose tables and code cache were read. */
static struct unw_hotspot_proc hotspot_proc_of(const struct hotspot_process *hp)
{
	const struct hs_layout *l = &hp->layout;
	const struct hs_code_cache *c = &hp->cache;
	struct unw_hotspot_proc v = {
		.codecache_lo = c->low,
		.codecache_hi = c->high,
		.call_stub_return = l->call_stub_return_address,
		.nr_heaps = (__u8)c->nr_heaps,
		.log2_segment = (__u8)c->log2_segment_size,
		.heapblock_size = (__u8)l->heapblock_size,
		.blob_size = (__u16)l->blob_size,
		.blob_frame_size = (__u16)l->blob_frame_size,
		.blob_frame_complete = (__u16)l->blob_frame_complete_offset,
		.blob_code_begin = (__u16)l->blob_code_begin,
		.blob_code_end = (__u16)l->blob_code_end,
		.blob_name = (__u16)l->blob_name,
		.nmethod_method = (__u16)l->nmethod_method,
		.nmethod_compile_id = (__u16)l->nmethod_compile_id,
		.frame_sender_sp = (__s8)l->frame_sender_sp,
		.frame_method = (__s8)l->frame_method,
		.frame_bcp = (__s8)l->frame_bcp,
	};

	for (unsigned int i = 0; i < c->nr_heaps && i < UNW_HS_HEAPS_MAX; i++) {
		v.heaps[i].lo = c->heaps[i].low;
		v.heaps[i].hi = c->heaps[i].high;
		v.heaps[i].segmap = c->heaps[i].segmap;
	}
	return v;
}

/*
 * The code cache of process pid, from the JVM's tables in its memory: none
 * while the JVM has not filled them (it is read again at its next
 * mapping). A JVM whose tables lack an entry is said once; its code cache,
 * when it was found, still counts its samples.
 */
static bool hotspot_place(const void *state, uint32_t pid, uint64_t bias, struct runtime_place *rp)
{
	const struct hotspot_image *img = state;
	struct unw_hotspot_proc v = { .refused = 1 };
	struct hotspot_process hp;
	const char *missing;
	int err;

	if (img->refused)
		return false;
	err = hotspot__read_process(&img->rt, pid, bias, &hp, &missing);
	if (err == -ENOTSUP && !__atomic_exchange_n(img->said, 1, __ATOMIC_RELAXED))
		pr_warn("%s: a JVM whose tables lack %s: its Java frames are not walked, its "
			"samples in its code cache counted as hotspot-vmstructs-unsupported",
			img->path, missing ? missing : "an entry");
	else if (err && err != -EAGAIN)
		pr_debug("process %u: the tables of %s could not be read: %s", pid, img->path,
			 strerror(-err));
	if (err && !(err == -ENOTSUP && hp.cache.high))
		return false;
	if (!err)
		v = hotspot_proc_of(&hp);
	*rp = (struct runtime_place){
		.ranges = { { hp.cache.low, hp.cache.high } },
		.value_size = sizeof(v),
	};
	memcpy(rp->value, &v, sizeof(v));
	return true;
}

static void hotspot_print(FILE *f, const void *state)
{
	const struct hotspot_image *img = state;

	if (!img->refused)
		hsruntime__print(f, &img->rt);
}

static void hotspot_print_json(struct json_writer *jw, const void *state)
{
	const struct hotspot_image *img = state;

	if (!img->refused)
		hsruntime__print_json(jw, &img->rt);
}

/* The namer's operations (hsframes.h). */

static void *hotspot_namer_new(void)
{
	return hsframes__new();
}

static void hotspot_namer_free(void *n)
{
	hsframes__free(n);
}

static int hotspot_add_process(void *n, uint32_t pid, const void *state, uint64_t bias)
{
	const struct hotspot_image *img = state;

	return img->refused ? -ENOENT : hsframes__add_process(n, pid, &img->rt, bias);
}

static void hotspot_remove_process(void *n, uint32_t pid)
{
	hsframes__remove_process(n, pid);
}

/* A method or blob first seen (addr its frame's first word, tag its kind): read now, while it lives. */
static void hotspot_read_code(void *n, const struct unw_event *ev, size_t size)
{
	(void)size;
	hsframes__read(n, ev->pid, ev->addr, ev->tag);
}

/*
 * One location per method and line (an interpreted frame's), per nmethod
 * and PcDesc (a compiled one's, with the methods inlined there), per blob.
 */
static uint64_t hotspot_name(void *n, uint32_t pid, uint64_t what, uint64_t where,
			     struct frame_name *out)
{
	static __thread struct frame_name inlined[FRAME_INLINED_MAX];
	struct hs_frame_name name;
	uint32_t k;

	hsframes__name(n, pid, what, where, &name);
	*out = (struct frame_name){ .function = name.name, .file = name.file, .line = name.line };
	for (k = 0; k < name.nr_inlined && k < ARRAY_SIZE(inlined); k++)
		inlined[k] = (struct frame_name){ .function = name.inlined[k].name,
						  .file = name.inlined[k].file,
						  .line = name.inlined[k].line };
	out->inlined = k ? inlined : NULL;
	out->nr_inlined = k;
	/* An nmethod's frames: by the nmethod and its compile id (where's top bits), and PcDesc. */
	if ((what >> UNW_HS_KIND_SHIFT & 0xff) == UNW_HS_COMPILED)
		what ^= where >> UNW_HS_TAG_SHIFT << 40;
	return hash_u64(what ^ hash_u64(name.key));
}

static const struct frame_namer_ops hotspot_namer = {
	.new = hotspot_namer_new,
	.free = hotspot_namer_free,
	.add_process = hotspot_add_process,
	.remove_process = hotspot_remove_process,
	.read_code = hotspot_read_code,
	.name = hotspot_name,
};

_Static_assert(sizeof(struct unw_hotspot_proc) <= RUNTIME_VALUE_MAX,
	       "HotSpot's value fits a place");
_Static_assert(HS_HEAPS_MAX == UNW_HS_HEAPS_MAX, "every heap read is placed");

const struct runtime runtime_hotspot = {
	.unwinder = UNW_UW_HOTSPOT,
	.name = "hotspot",
	.title = "HotSpot",
	.read = hotspot_read,
	.free = hotspot_free,
	.place = hotspot_place,
	.print = hotspot_print,
	.print_json = hotspot_print_json,
	.namer = &hotspot_namer,
};
