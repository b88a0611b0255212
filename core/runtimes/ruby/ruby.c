// SPDX-License-Identifier: GPL-2.0-only
/*
 * Ruby as a runtime (core/runtimes/runtimes.h): libruby read from an image
 * (rbruntime.h), the value its BPF walk reads (bpf/unwind_ruby.h, struct
 * unw_ruby_proc) at rb_vm_exec, the way to each thread's control frames,
 * and its frames named (rbframes.h). A version whose frames are not read
 * is refused: only rb_vm_exec is kept, where its samples are counted
 * (ruby-version-unsupported).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/log.h"
#include "../runtimes.h"
#include "rbframes.h"
#include "rbruntime.h"

/* What Ruby reads of an image. */
struct ruby_image {
	struct rbruntime rt;
	bool refused; /* a version not known: rb_vm_exec only */
};

/* A Ruby that cannot be read is said once; a version not known keeps rb_vm_exec (refused). */
static void *ruby_read(const struct elf_file *ef, const char *path)
{
	struct ruby_image *img = calloc(1, sizeof(*img));
	const struct rbruntime *r;
	int err;

	if (!img)
		return NULL;
	r = &img->rt;
	err = rbruntime__read(ef, &img->rt);
	img->refused = err == -ENOTSUP && r->major && r->vm_exec_lo &&
		       !rbruntime__offsets_of(r->major, r->minor);
	if (img->refused)
		pr_warn("%s: Ruby %u.%u.%u is not supported: its samples show the interpreter's "
			"native frames only, counted as ruby-version-unsupported",
			path, r->major, r->minor, r->teeny);
	else if (err == -ENOTSUP)
		pr_warn("%s: a Ruby whose frames this unwprof cannot read "
			"(core/runtimes/ruby/rbruntime.h): its samples show the interpreter's "
			"native frames",
			path);
	if (err == 0 || img->refused)
		return img;
	free(img);
	return NULL;
}

static void ruby_free(void *state)
{
	free(state);
}

/* rb_vm_exec, and the way to each thread's control frames. */
static bool ruby_place(const void *state, uint64_t bias, struct runtime_place *rp)
{
	const struct ruby_image *img = state;
	const struct rbruntime *rr = &img->rt;
	const struct rb_offsets *o = &rr->off;
	struct unw_ruby_proc v = { .refused = 1 };

	if (!img->refused)
		v = (struct unw_ruby_proc){ .ec_module_got = rr->ec_module_got + bias,
					    .ec_offset = rr->ec_offset,
					    .ec_vm_stack = o->ec_vm_stack,
					    .ec_vm_stack_size = o->ec_vm_stack_size,
					    .ec_cfp = o->ec_cfp,
					    .cfp_size = o->cfp_size,
					    .cfp_pc = o->cfp_pc,
					    .cfp_iseq = o->cfp_iseq,
					    .cfp_ep = o->cfp_ep,
					    .iseq_body = o->iseq_body,
					    .me_def = o->me_def };
	*rp = (struct runtime_place){
		.ranges = { { rr->vm_exec_lo + bias, rr->vm_exec_hi + bias } },
		.value_size = sizeof(v),
	};
	memcpy(rp->value, &v, sizeof(v));
	return true;
}

/* dump-unwind shows a Ruby it reads; a refused one was said when it was read. */
static void ruby_print(FILE *f, const void *state)
{
	const struct ruby_image *img = state;

	if (!img->refused)
		rbruntime__print(f, &img->rt);
}

static void ruby_print_json(struct json_writer *jw, const void *state)
{
	const struct ruby_image *img = state;

	if (!img->refused)
		rbruntime__print_json(jw, &img->rt);
}

/* The namer's operations (rbframes.h). */

static void *ruby_namer_new(void)
{
	return rbframes__new();
}

static void ruby_namer_free(void *n)
{
	rbframes__free(n);
}

static int ruby_add_process(void *n, uint32_t pid, const void *state, uint64_t bias)
{
	const struct ruby_image *img = state;

	return img->refused ? -ENOENT : rbframes__add_process(n, pid, &img->rt, bias);
}

static void ruby_remove_process(void *n, uint32_t pid)
{
	rbframes__remove_process(n, pid);
}

static int ruby_fork(void *n, uint32_t ppid, uint32_t pid)
{
	return rbframes__fork(n, ppid, pid);
}

/* The event carries the iseq's word's top 16 bits, its tag, as where has them. */
static void ruby_read_code(void *n, const struct unw_event *ev, size_t size)
{
	(void)size;
	rbframes__read_iseq(n, ev->pid, ev->addr, (uint64_t)ev->tag << UNW_RB_TAG_SHIFT);
}

/*
 * One location per iseq and line (per method entry for a C method), told
 * apart from an earlier one in its slot by its tag; a C method has no file.
 */
static uint64_t ruby_name(void *n, uint32_t pid, uint64_t iseq, uint64_t where,
			  struct frame_name *out)
{
	struct rb_frame_name name = { out->function, out->file, out->line, out->first_line };

	rbframes__name(n, pid, iseq, where, &name);
	*out = (struct frame_name){ .function = name.label,
				    .file = where & UNW_RB_CFUNC ? NULL : name.file,
				    .line = name.line,
				    .first_line = name.first_line };
	return iseq | (where & ~((1ULL << UNW_RB_TAG_SHIFT) - 1));
}

static const struct frame_namer_ops ruby_namer = {
	.new = ruby_namer_new,
	.free = ruby_namer_free,
	.add_process = ruby_add_process,
	.remove_process = ruby_remove_process,
	.fork = ruby_fork,
	.read_code = ruby_read_code,
	.name = ruby_name,
};

_Static_assert(sizeof(struct unw_ruby_proc) <= RUNTIME_VALUE_MAX, "Ruby's value fits a place");

const struct runtime runtime_ruby = {
	.unwinder = UNW_UW_RUBY,
	.name = "ruby",
	.title = "Ruby",
	.read = ruby_read,
	.free = ruby_free,
	.place = ruby_place,
	.print = ruby_print,
	.print_json = ruby_print_json,
	.namer = &ruby_namer,
};
