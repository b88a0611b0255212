// SPDX-License-Identifier: GPL-2.0-only
/*
 * PHP as a runtime (core/runtimes/runtimes.h): a php read from an image
 * (phruntime.h), the value its BPF walk reads (bpf/unwind_php.h, struct
 * unw_php_proc) at execute_ex, the way to its executor's frames, and its
 * frames named (phframes.h). A version or build whose frames are not read
 * is refused: only the executor is kept, where its samples are counted
 * (php-version-unsupported).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/hashmap.h"
#include "../../util/log.h"
#include "../../targets/procmaps.h"
#include "../runtimes.h"
#include "phframes.h"
#include "phruntime.h"

/* What PHP reads of an image. */
struct php_image {
	struct phruntime rt;
	bool refused; /* a version or build not known: the executor only */
};

/* A php whose frames are not read is said once, with its version and file. */
static void *php_read(const struct elf_file *ef, const char *path)
{
	struct php_image *img = calloc(1, sizeof(*img));
	const struct phruntime *r;
	int err;

	if (!img)
		return NULL;
	r = &img->rt;
	err = phruntime__read(ef, &img->rt);
	img->refused = err == -ENOTSUP && r->execute_lo;
	if (img->refused)
		pr_warn("%s: PHP %u.%u.%u%s is not supported: its samples show the interpreter's "
			"native frames only, counted as php-version-unsupported",
			path, r->major, r->minor, r->release,
			r->zts ? " (a build with threads, ZTS)" : "");
	if (err == 0 || img->refused)
		return img;
	free(img);
	return NULL;
}

static void php_free(void *state)
{
	free(state);
}

/* execute_ex, and where its executor's current frame is. */
static bool php_place(const void *state, uint32_t pid, uint64_t bias, struct runtime_place *rp)
{
	const struct php_image *img = state;
	const struct phruntime *pr = &img->rt;
	const struct ph_offsets *o = &pr->off;
	struct unw_php_proc v = { .refused = 1 };

	(void)pid; /* what it reads is all in the image */
	if (!img->refused)
		v = (struct unw_php_proc){ .current_execute_data =
						   pr->executor_globals + bias +
						   (uint64_t)o->eg_current_execute_data,
					   .ex_opline = (__u8)o->ex_opline,
					   .ex_func = (__u8)o->ex_func,
					   .ex_call_info = (__u8)o->ex_call_info,
					   .ex_prev = (__u8)o->ex_prev,
					   .fn_name = (__u8)o->fn_name,
					   .op_lineno = (__u8)o->op_lineno,
					   .fn_filename = (__u8)o->fn_filename,
					   .str_val = (__u8)o->str_val };
	*rp = (struct runtime_place){
		.ranges = { { pr->execute_lo + bias, pr->execute_hi + bias } },
		.value_size = sizeof(v),
	};
	memcpy(rp->value, &v, sizeof(v));
	return true;
}

/*
 * The code opcache's JIT compiled: the end of its shared memory (mapped
 * MAP_SHARED | MAP_ANONYMOUS, which /proc names /dev/zero), made
 * executable; a php has no other code there. In the hybrid executor (GCC's
 * global registers, as Debian's php), it runs on execute_ex's frame,
 * jumped to and from its handlers: it walks as execute_ex's body does.
 */
static uint64_t php_claims(const void *state, uint64_t bias, const struct procmap *m)
{
	const struct php_image *img = state;
	const struct phruntime *pr = &img->rt;

	if (img->refused || !pr->body_hi || !m->path || strcmp(m->path, "/dev/zero (deleted)"))
		return 0;
	return pr->body_lo + (pr->body_hi - pr->body_lo) / 2 + bias;
}

/* dump-unwind shows a php it reads; a refused one was said when it was read. */
static void php_print(FILE *f, const void *state)
{
	const struct php_image *img = state;

	if (!img->refused)
		phruntime__print(f, &img->rt);
}

static void php_print_json(struct json_writer *jw, const void *state)
{
	const struct php_image *img = state;

	if (!img->refused)
		phruntime__print_json(jw, &img->rt);
}

/* The namer's operations (phframes.h). */

static void *php_namer_new(void)
{
	return phframes__new();
}

static void php_namer_free(void *n)
{
	phframes__free(n);
}

static int php_add_process(void *n, uint32_t pid, const void *state, uint64_t bias)
{
	const struct php_image *img = state;

	return img->refused ? -ENOENT : phframes__add_process(n, pid, &img->rt, bias);
}

static void php_remove_process(void *n, uint32_t pid)
{
	phframes__remove_process(n, pid);
}

static int php_fork(void *n, uint32_t ppid, uint32_t pid)
{
	return phframes__fork(n, ppid, pid);
}

/*
 * The event is of a function first seen: its frame word's value and its
 * tag; of a file's or an eval's code, with a copy of its lines and file
 * (struct unw_ph_code_event), NUL-terminated, when it has one.
 */
static void php_read_code(void *n, const struct unw_event *ev, size_t size)
{
	const struct unw_ph_code_event *e = (const struct unw_ph_code_event *)ev;
	size_t head = offsetof(struct unw_ph_code_event, file);

	if (size >= head && e->len && e->len <= UNW_PH_FILE_MAX && size >= head + e->len &&
	    e->file[e->len - 1] == '\0')
		phframes__read_code(n, ev->pid, ev->addr, (uint16_t)ev->tag, e->file, e->line_start,
				    e->line_end);
	else
		phframes__read_function(n, ev->pid, ev->addr, (uint16_t)ev->tag);
}

/* One location per function and line. */
static uint64_t php_name(void *n, uint32_t pid, uint64_t what, uint64_t where,
			 struct frame_name *out)
{
	struct ph_frame_name name;

	phframes__name(n, pid, what, where, &name);
	*out = (struct frame_name){ .function = name.name,
				    .file = name.file,
				    .line = name.line,
				    .first_line = name.first_line };
	return hash_u64(what ^ hash_u64(where));
}

static const struct frame_namer_ops php_namer = {
	.new = php_namer_new,
	.free = php_namer_free,
	.add_process = php_add_process,
	.remove_process = php_remove_process,
	.fork = php_fork,
	.read_code = php_read_code,
	.name = php_name,
};

_Static_assert(sizeof(struct unw_php_proc) <= RUNTIME_VALUE_MAX, "PHP's value fits a place");

const struct runtime runtime_php = {
	.unwinder = UNW_UW_PHP,
	.name = "php",
	.title = "PHP",
	.read = php_read,
	.free = php_free,
	.place = php_place,
	.claims = php_claims,
	.claimed_name = "[PHP JIT]",
	.print = php_print,
	.print_json = php_print_json,
	.namer = &php_namer,
};
