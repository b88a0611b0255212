// SPDX-License-Identifier: GPL-2.0-only
/*
 * V8 as a runtime (core/runtimes/runtimes.h): a V8 read from a node or a
 * libnode (v8runtime.h), the value its BPF walk reads (bpf/unwind_v8.h,
 * struct unw_v8_proc) in its embedded builtins and in the process's JIT
 * code, and its frames named (v8frames.h). A V8 whose layout its metadata
 * does not describe is refused: its code is walked by frame pointers
 * alone, where its samples are counted (v8-version-unsupported).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "../../util/log.h"
#include "../runtimes.h"
#include "v8frames.h"
#include "v8runtime.h"

struct v8_image {
	struct v8runtime rt;
	bool refused;
};

/* A V8 whose frames are not read is said once, with its version, file and what it lacks. */
static void *v8_read(const struct elf_file *ef, const char *path)
{
	struct v8_image *img = calloc(1, sizeof(*img));
	const struct v8runtime *r;
	int err;

	if (!img)
		return NULL;
	r = &img->rt;
	err = v8runtime__read(ef, &img->rt);
	img->refused = err == -ENOTSUP;
	if (img->refused)
		pr_warn("%s: V8 %u.%u.%u is not supported, its metadata lacks v8dbg_%s: its samples "
			"show V8's native frames only, counted as v8-version-unsupported",
			path, r->major, r->minor, r->build, r->missing ? r->missing : "?");
	if (err == 0 || img->refused)
		return img;
	free(img);
	return NULL;
}

static void v8_free(void *state)
{
	free(state);
}

/* The embedded builtins, and the JIT code; the layout the walk reads. */
static bool v8_place(const void *state, uint32_t pid, uint64_t bias, struct runtime_place *rp)
{
	const struct v8_image *img = state;
	const struct v8runtime *r = &img->rt;
	const struct v8_layout *l = &r->l;
	struct unw_v8_proc v = { .refused = 1 };

	(void)pid; /* what it reads is all in the image */
	if (!r->builtins_hi)
		return false;
	if (!img->refused)
		v = (struct unw_v8_proc){ .builtins_lo = r->builtins_lo + bias,
					  .builtins_hi = r->builtins_hi + bias,
					  .fp_marker = (__s8)l->fp_marker,
					  .fp_function = (__s8)l->fp_function,
					  .fp_bytecode_offset = (__s8)l->fp_bytecode_offset,
					  .map = (__u8)l->map,
					  .instance_type = (__u8)l->instance_type,
					  .shared = (__u8)l->fn_shared,
					  .sfi_name = (__u8)l->sfi_name,
					  .type_function_first = (__u16)l->type_function_first,
					  .type_function_last = (__u16)l->type_function_last };
	*rp = (struct runtime_place){
		.ranges = { { r->builtins_lo + bias, r->builtins_hi + bias } },
		.jit = !img->refused,
		.value_size = sizeof(v),
	};
	memcpy(rp->value, &v, sizeof(v));
	return true;
}

static void v8_print(FILE *f, const void *state)
{
	const struct v8_image *img = state;

	if (!img->refused)
		v8runtime__print(f, &img->rt);
}

static void v8_print_json(struct json_writer *jw, const void *state)
{
	const struct v8_image *img = state;

	if (!img->refused)
		v8runtime__print_json(jw, &img->rt);
}

/* The namer's operations (v8frames.h). */

static void *v8_namer_new(void)
{
	return v8frames__new();
}

static void v8_namer_free(void *n)
{
	v8frames__free(n);
}

static int v8_add_process(void *n, uint32_t pid, const void *state, uint64_t bias)
{
	const struct v8_image *img = state;

	(void)bias;
	return img->refused ? -ENOENT : v8frames__add_process(n, pid, &img->rt);
}

static void v8_remove_process(void *n, uint32_t pid)
{
	v8frames__remove_process(n, pid);
}

static int v8_fork(void *n, uint32_t ppid, uint32_t pid)
{
	return v8frames__fork(n, ppid, pid);
}

/* The event of a SharedFunctionInfo, or a pc of JIT code, first seen: read while it lives. */
static void v8_read_code(void *n, const struct unw_event *ev, size_t size)
{
	(void)size;
	if (ev->tag == UNW_V8_PC_TAG)
		v8frames__read_pc(n, ev->pid, ev->addr);
	else if (ev->tag >= UNW_V8_SFI_TAG && ev->tag <= UNW_V8_SFI_TAG + 0xff)
		v8frames__read_sfi(n, ev->pid,
				   ev->addr | (uint64_t)(ev->tag - UNW_V8_SFI_TAG)
						      << UNW_V8_TAG_SHIFT);
}

/* One location per function (its tag: another at its address is another) and line. */
static uint64_t v8_name(void *n, uint32_t pid, uint64_t sfi, uint64_t where, struct frame_name *out)
{
	struct v8_frame_name name;

	v8frames__name(n, pid, sfi, where, &name);
	*out = (struct frame_name){ .function = name.name,
				    .file = name.file,
				    .line = name.line,
				    .first_line = name.first_line,
				    .inlined = name.inlined,
				    .nr_inlined = name.nr_inlined };
	/* compiled code: one per pc, whose inlined functions are its own */
	if (where >> UNW_V8_KIND_SHIFT == UNW_V8_PC && name.nr_inlined)
		return hash_u64(sfi ^ hash_u64(where));
	return hash_u64(sfi ^ hash_u64(name.line));
}

static const struct frame_namer_ops v8_namer = {
	.new = v8_namer_new,
	.free = v8_namer_free,
	.add_process = v8_add_process,
	.remove_process = v8_remove_process,
	.fork = v8_fork,
	.read_code = v8_read_code,
	.name = v8_name,
};

_Static_assert(sizeof(struct unw_v8_proc) <= RUNTIME_VALUE_MAX, "V8's value fits a place");

const struct runtime runtime_v8 = {
	.unwinder = UNW_UW_V8,
	.name = "v8",
	.title = "V8",
	.read = v8_read,
	.free = v8_free,
	.place = v8_place,
	.print = v8_print,
	.print_json = v8_print_json,
	.namer = &v8_namer,
};
