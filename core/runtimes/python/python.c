// SPDX-License-Identifier: GPL-2.0-only
/*
 * CPython as a runtime (core/runtimes/runtimes.h): its interpreter read
 * from an image (pyruntime.h), the value its BPF walk reads
 * (bpf/unwind_python.h, struct unw_python_proc) at the eval loop and its
 * .cold part, and its frames named (pyframes.h). An interpreter of a
 * version or build whose frames are not read is refused: only its eval
 * loop is kept, where its samples are counted (python-version-unsupported).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../util/log.h"
#include "../runtimes.h"
#include "pyframes.h"
#include "pyruntime.h"

/* What Python reads of an image. */
struct python_image {
	struct pyruntime rt;
	bool refused; /* a version or build not known: its eval loop only */
};

/*
 * A CPython that cannot be read is said once, with its version and why: a
 * version or build not known keeps its eval loop (refused), where its
 * samples are counted.
 */
static void *python_read(const struct elf_file *ef, const char *path)
{
	struct python_image *img = calloc(1, sizeof(*img));
	char ver[32];
	int err;

	if (!img)
		return NULL;
	err = pyruntime__read(ef, &img->rt);
	img->refused = err == -ENOTSUP && img->rt.version_hex && img->rt.eval_lo;
	if (img->refused)
		pr_warn("%s: CPython %s%s is not supported (%s): its samples show the "
			"interpreter's native frames only, counted as python-version-unsupported",
			path, pyruntime__version_str(&img->rt, ver, sizeof(ver)),
			img->rt.free_threaded ? " (free-threaded)" : "", img->rt.why);
	else if (err == -ENOTSUP || err == -EINVAL)
		pr_warn("%s: a CPython whose frames are not read: %s", path, img->rt.why);
	if (err == 0 || img->refused)
		return img;
	free(img);
	return NULL;
}

static void python_free(void *state)
{
	free(state);
}

/* Bytes of a frame the Python walk reads: up to 8 past the last field it needs. */
static uint8_t python_frame_len(const struct unw_python_proc *v)
{
	uint32_t offs[] = { v->frame_code, v->frame_previous, v->frame_instr, v->frame_owner };
	uint32_t end = 0;

	for (size_t i = 0; i < ARRAY_SIZE(offs); i++)
		if (offs[i] + 8 > end)
			end = offs[i] + 8;
	return end <= 128 ? end : 0; /* 0: more than BPF reads at once, no Python frames */
}

/* Bytes of a code object the event of its first sight copies: 8 past the last field named. */
static uint16_t python_code_len(const struct py_offsets *o)
{
	int32_t offs[] = { o->code_name,	o->code_qualname,  o->code_filename,
			   o->code_firstlineno, o->code_linetable, o->code_lnotab };
	int32_t end = 0;

	for (size_t i = 0; i < ARRAY_SIZE(offs); i++)
		if (offs[i] != PY_OFF_NONE && offs[i] + 8 > end)
			end = offs[i] + 8;
	return end <= UNW_PY_CODE_MAX ? end : 0;
}

/* What the Python walk reads of an interpreter pr loaded with bias (bpf/unwind_python.h). */
static struct unw_python_proc python_proc_of(const struct pyruntime *pr, uint64_t bias)
{
	const struct py_offsets *o = &pr->off;
	struct unw_python_proc v = {
		.runtime = pr->runtime + bias,
		.interp_head = o->runtime_interpreters_head,
		.threads_head = o->interp_threads_head,
		.tstate_next = o->tstate_next,
		.tstate_thread_id = o->tstate_thread_id,
		.tstate_frame = o->tstate_frame,
		.cframe_frame = o->cframe_current_frame,
		.frame_code = o->frame_code,
		.frame_previous = o->frame_previous,
		.frame_instr = o->frame_instr,
		.instr_is_index = pr->frame_layout == PY_FRAME_OBJECT,
		.owner_cstack = 3, /* FRAME_OWNED_BY_CSTACK, 3.12 and 3.13 */
	};

	if (pr->frame_layout == PY_FRAME_OBJECT) {
		v.entry = UNW_PY_ENTRY_EACH;
	} else if (o->frame_is_entry != PY_OFF_NONE) {
		v.entry = UNW_PY_ENTRY_FLAG;
		v.frame_owner = o->frame_is_entry;
	} else {
		v.entry = UNW_PY_ENTRY_SHIM;
		v.frame_owner = o->frame_owner;
	}
	v.code_id = o->code_filename;
	v.frame_len = python_frame_len(&v);
	v.code_name = pyruntime__code_name_off(o);
	v.code_table = pyruntime__code_table_off(o);
	v.code_len = python_code_len(o);
	v.str_length = o->str_length;
	v.str_data = o->str_data;
	v.bytes_data = pyruntime__bytes_data_off(o);
	return v;
}

/* The eval loop and its .cold part; of a version refused, only to count its samples there. */
static bool python_place(const void *state, uint64_t bias, struct runtime_place *rp)
{
	const struct python_image *img = state;
	const struct pyruntime *pr = &img->rt;
	struct unw_python_proc v = img->refused ? (struct unw_python_proc){ .refused = 1 } :
						  python_proc_of(pr, bias);

	*rp = (struct runtime_place){
		.ranges = { { pr->eval_lo + bias, pr->eval_hi + bias } },
		.value_size = sizeof(v),
	};
	if (pr->cold_hi) {
		rp->ranges[1].lo = pr->cold_lo + bias;
		rp->ranges[1].hi = pr->cold_hi + bias;
	}
	memcpy(rp->value, &v, sizeof(v));
	return true;
}

static void python_print(FILE *f, const void *state)
{
	const struct python_image *img = state;

	pyruntime__print(f, &img->rt, img->refused);
}

static void python_print_json(struct json_writer *jw, const void *state)
{
	const struct python_image *img = state;

	pyruntime__print_json(jw, &img->rt, img->refused);
}

/* The namer's operations (pyframes.h). */

static void *python_namer_new(void)
{
	return pyframes__new();
}

static void python_namer_free(void *n)
{
	pyframes__free(n);
}

static int python_add_process(void *n, uint32_t pid, const void *state, uint64_t bias)
{
	const struct python_image *img = state;

	return img->refused ? -ENOENT : pyframes__add_process(n, pid, &img->rt, bias);
}

static void python_remove_process(void *n, uint32_t pid)
{
	pyframes__remove_process(n, pid);
}

static void python_read_code(void *n, const struct unw_event *ev, size_t size)
{
	pyframes__read_code(n, (const struct unw_py_code_event *)ev, size);
}

/* A code object is told apart from an earlier one at its address by its tag (where's top bits). */
static uint64_t python_name(void *n, uint32_t pid, uint64_t code, uint64_t where,
			    struct frame_name *out)
{
	struct py_frame_name name = { out->function, out->file, out->line, out->first_line };

	pyframes__name(n, pid, code, where, &name);
	*out = (struct frame_name){ .function = name.qualname,
				    .file = name.file,
				    .line = name.line,
				    .first_line = name.first_line };
	return code | (where >> UNW_PY_TAG_SHIFT) << UNW_PY_TAG_SHIFT;
}

static const struct frame_namer_ops python_namer = {
	.new = python_namer_new,
	.free = python_namer_free,
	.add_process = python_add_process,
	.remove_process = python_remove_process,
	.read_code = python_read_code,
	.name = python_name,
};

_Static_assert(sizeof(struct unw_python_proc) <= RUNTIME_VALUE_MAX, "Python's value fits a place");

const struct runtime runtime_python = {
	.unwinder = UNW_UW_PYTHON,
	.name = "python",
	.title = "Python",
	.read = python_read,
	.free = python_free,
	.place = python_place,
	.print = python_print,
	.print_json = python_print_json,
	.namer = &python_namer,
};
