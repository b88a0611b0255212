// SPDX-License-Identifier: GPL-2.0-only
/*
 * Perl as a runtime (core/runtimes/runtimes.h): a perl read from an image
 * (plruntime.h), the value its BPF walk reads (bpf/unwind_perl.h, struct
 * unw_perl_proc) at Perl_runops_standard, the way to each thread's
 * interpreter, and its frames named (plframes.h). A version or build
 * whose frames are not read is refused: only the run loop is kept, where
 * its samples are counted (perl-version-unsupported).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "../../util/log.h"
#include "../runtimes.h"
#include "plframes.h"
#include "plruntime.h"

/* What Perl reads of an image. */
struct perl_image {
	struct plruntime rt;
	bool refused; /* a version or build not known: the run loop only */
};

/* A perl whose frames are not read is said once, with its version and file. */
static void *perl_read(const struct elf_file *ef, const char *path)
{
	struct perl_image *img = calloc(1, sizeof(*img));
	const struct plruntime *r;
	int err;

	if (!img)
		return NULL;
	r = &img->rt;
	err = plruntime__read(ef, &img->rt);
	img->refused = err == -ENOTSUP && r->runops_lo;
	if (img->refused)
		pr_warn("%s: Perl %u.%u.%u%s is not supported: its samples show the interpreter's "
			"native frames only, counted as perl-version-unsupported",
			path, r->revision, r->version, r->subversion,
			plruntime__offsets_of(r->revision, r->version) ?
				" (a build without threads)" :
				"");
	if (err == 0 || img->refused)
		return img;
	free(img);
	return NULL;
}

static void perl_free(void *state)
{
	free(state);
}

/* Perl_runops_standard, and the way to each thread's interpreter. */
static bool perl_place(const void *state, uint64_t bias, struct runtime_place *rp)
{
	const struct perl_image *img = state;
	const struct plruntime *pr = &img->rt;
	const struct pl_offsets *o = &pr->off;
	struct unw_perl_proc v = { .refused = 1 };

	if (!img->refused)
		v = (struct unw_perl_proc){ .tls_got = pr->tls_got + bias,
					    .tls_offset = (__u32)pr->tls_offset,
					    .tls_static = pr->tls_static,
					    .interp_op = (__u16)o->interp_op,
					    .interp_curcop = (__u16)o->interp_curcop,
					    .interp_curstackinfo = (__u16)o->interp_curstackinfo,
					    .si_cxstack = (__u8)o->si_cxstack,
					    .si_prev = (__u8)o->si_prev,
					    .si_cxix = (__u8)o->si_cxix,
					    .si_cxmax = (__u8)o->si_cxmax,
					    .si_type = (__u8)o->si_type,
					    .cx_size = (__u8)o->cx_size,
					    .cx_oldcop = (__u8)o->cx_oldcop,
					    .cx_retop = (__u8)o->cx_retop,
					    .cx_cv = (__u8)o->cx_cv,
					    .sv_flags = (__u8)o->sv_flags,
					    .sv_u = (__u8)o->sv_u,
					    .cv_gv = (__u8)o->cv_gv,
					    .cv_flags = (__u8)o->cv_flags,
					    .cv_start = (__u8)o->cv_start,
					    .gp_egv = (__u8)o->gp_egv,
					    .cop_line = (__u8)o->cop_line,
					    .cop_file = (__u8)o->cop_file,
					    .op_type = (__u8)o->op_type,
					    .op_nextstate = o->op_nextstate,
					    .op_dbstate = o->op_dbstate,
					    .op_mapstart = o->op_mapstart,
					    .op_mapwhile = o->op_mapwhile,
					    .op_grepstart = o->op_grepstart,
					    .op_grepwhile = o->op_grepwhile };
	*rp = (struct runtime_place){
		.ranges = { { pr->runops_lo + bias, pr->runops_hi + bias } },
		.value_size = sizeof(v),
	};
	memcpy(rp->value, &v, sizeof(v));
	return true;
}

/* dump-unwind shows a perl it reads; a refused one was said when it was read. */
static void perl_print(FILE *f, const void *state)
{
	const struct perl_image *img = state;

	if (!img->refused)
		plruntime__print(f, &img->rt);
}

static void perl_print_json(struct json_writer *jw, const void *state)
{
	const struct perl_image *img = state;

	if (!img->refused)
		plruntime__print_json(jw, &img->rt);
}

/* The namer's operations (plframes.h). */

static void *perl_namer_new(void)
{
	return plframes__new();
}

static void perl_namer_free(void *n)
{
	plframes__free(n);
}

static int perl_add_process(void *n, uint32_t pid, const void *state, uint64_t bias)
{
	const struct perl_image *img = state;

	return img->refused ? -ENOENT : plframes__add_process(n, pid, &img->rt, bias);
}

static void perl_remove_process(void *n, uint32_t pid)
{
	plframes__remove_process(n, pid);
}

static int perl_fork(void *n, uint32_t ppid, uint32_t pid)
{
	return plframes__fork(n, ppid, pid);
}

/*
 * The event is of a sub first seen (its frame's first word's value), or of
 * a COP: its address and its tag, as where has them, and a copy of its
 * line and file (struct unw_pl_cop_event) when it has one, NUL-terminated.
 */
static void perl_read_code(void *n, const struct unw_event *ev, size_t size)
{
	const struct unw_pl_cop_event *e = (const struct unw_pl_cop_event *)ev;
	size_t head = offsetof(struct unw_pl_cop_event, file);
	uint64_t where = ev->addr | (uint64_t)ev->tag << UNW_PL_TAG_SHIFT;

	if (ev->tag == UNW_PL_NAME_TAG) {
		plframes__read_name(n, ev->pid, ev->addr);
		return;
	}
	if (size >= head && e->len && e->len <= UNW_PL_FILE_MAX && size >= head + e->len &&
	    e->file[e->len - 1] == '\0')
		plframes__read_cop(n, ev->pid, where, e->file, e->line);
	else
		plframes__read_cop(n, ev->pid, where, NULL, 0);
}

/* One location per sub (or eval, sort BLOCK, main program) and COP. */
static uint64_t perl_name(void *n, uint32_t pid, uint64_t what, uint64_t where,
			  struct frame_name *out)
{
	struct pl_frame_name name;

	plframes__name(n, pid, what, where, &name);
	*out = (struct frame_name){ .function = name.name, .file = name.file, .line = name.line };
	return hash_u64(what ^ hash_u64(where));
}

static const struct frame_namer_ops perl_namer = {
	.new = perl_namer_new,
	.free = perl_namer_free,
	.add_process = perl_add_process,
	.remove_process = perl_remove_process,
	.fork = perl_fork,
	.read_code = perl_read_code,
	.name = perl_name,
};

_Static_assert(sizeof(struct unw_perl_proc) <= RUNTIME_VALUE_MAX, "Perl's value fits a place");

const struct runtime runtime_perl = {
	.unwinder = UNW_UW_PERL,
	.name = "perl",
	.title = "Perl",
	.read = perl_read,
	.free = perl_free,
	.place = perl_place,
	.print = perl_print,
	.print_json = perl_print_json,
	.namer = &perl_namer,
};
