// SPDX-License-Identifier: GPL-2.0-only
/*
 * The unwinders of runtimes' pc ranges. See runtimes.h.
 */
#include <errno.h>

#include "../util/common.h"
#include "../util/log.h"
#include "runtimes.h"

/*
 * Go's stack switch (core/runtimes/goruntime.h): runtime.systemstack,
 * runtime.morestack and runtime.mcall of a Go binary, the vDSO's callers
 * time.now and runtime.nanotime1 where they are read, and the offsets that
 * lead from a thread on its system stack to the goroutine it works for.
 */
static bool go_place(const struct file_runtimes *fr, uint64_t bias, struct runtime_place *rp)
{
	const struct go_runtime *g = &fr->go;

	if (!fr->has_go)
		return false;
	*rp = (struct runtime_place){
		.ranges = { { g->systemstack_lo + bias, g->systemstack_hi + bias },
			    { g->morestack_lo + bias, g->morestack_hi + bias },
			    { g->mcall_lo + bias, g->mcall_hi + bias },
			    { g->now_lo + bias, g->now_hi ? g->now_hi + bias : 0 },
			    { g->nanotime_lo + bias, g->nanotime_hi ? g->nanotime_hi + bias : 0 } },
		.value.go = { .morestack_lo = g->morestack_lo + bias,
			      .morestack_hi = g->morestack_hi + bias,
			      .mcall_lo = g->mcall_lo + bias,
			      .mcall_hi = g->mcall_hi + bias,
			      .now_lo = g->now_lo + bias,
			      .now_hi = g->now_hi ? g->now_hi + bias : 0,
			      .nanotime_lo = g->nanotime_lo + bias,
			      .nanotime_hi = g->nanotime_hi ? g->nanotime_hi + bias : 0,
			      .m_vdso_pc = g->m_vdso_pc,
			      .m_vdso_sp = g->m_vdso_sp,
			      .tls_g = g->tls_g,
			      .g_m = g->g_m,
			      .m_g0 = g->m_g0,
			      .m_curg = g->m_curg,
			      .sched_sp = g->sched_sp,
			      .sched_pc = g->sched_pc,
			      .sched_bp = g->sched_bp },
	};
	return true;
}

/* Bytes of a frame the Python unwinder reads: up to 8 past the last field it needs. */
static uint8_t py_frame_len(const struct unw_py_proc *v)
{
	uint32_t offs[] = { v->frame_code, v->frame_previous, v->frame_instr, v->frame_owner };
	uint32_t end = 0;

	for (size_t i = 0; i < ARRAY_SIZE(offs); i++)
		if (offs[i] + 8 > end)
			end = offs[i] + 8;
	return end <= 128 ? end : 0; /* 0: more than BPF reads at once, no Python frames */
}

/* Bytes of a code object the event of its first sight copies: 8 past the last field named. */
static uint16_t py_code_len(const struct py_offsets *o)
{
	int32_t offs[] = { o->code_name,	o->code_qualname,  o->code_filename,
			   o->code_firstlineno, o->code_linetable, o->code_lnotab };
	int32_t end = 0;

	for (size_t i = 0; i < ARRAY_SIZE(offs); i++)
		if (offs[i] != PY_OFF_NONE && offs[i] + 8 > end)
			end = offs[i] + 8;
	return end <= UNW_PY_CODE_MAX ? end : 0;
}

/* What the Python unwinder reads of an interpreter pr loaded with bias (bpf/abi.h). */
static struct unw_py_proc py_proc_of(const struct py_runtime *pr, uint64_t bias)
{
	const struct py_offsets *o = &pr->off;
	struct unw_py_proc v = {
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
	v.frame_len = py_frame_len(&v);
	v.code_name = py_code_name_off(o);
	v.code_table = py_code_table_off(o);
	v.code_len = py_code_len(o);
	v.str_length = o->str_length;
	v.str_data = o->str_data;
	v.bytes_data = py_bytes_data_off(o);
	return v;
}

/*
 * CPython (core/runtimes/pyruntime.h): the eval loop and its .cold part;
 * of a version refused, only to count its samples there.
 */
static bool py_place(const struct file_runtimes *fr, uint64_t bias, struct runtime_place *rp)
{
	const struct py_runtime *pr = &fr->py;

	if (!fr->has_py && !fr->py_refused)
		return false;
	*rp = (struct runtime_place){
		.ranges = { { pr->eval_lo + bias, pr->eval_hi + bias } },
		.value.py = fr->has_py ? py_proc_of(pr, bias) :
					 (struct unw_py_proc){ .refused = 1 },
	};
	if (pr->cold_hi) {
		rp->ranges[1].lo = pr->cold_lo + bias;
		rp->ranges[1].hi = pr->cold_hi + bias;
	}
	return true;
}

/* Ruby (core/runtimes/rbruntime.h): rb_vm_exec, and the way to each thread's control frames. */
static bool rb_place(const struct file_runtimes *fr, uint64_t bias, struct runtime_place *rp)
{
	const struct rb_runtime *rr = &fr->rb;
	const struct rb_offsets *o = &rr->off;

	if (fr->rb_refused) {
		*rp = (struct runtime_place){
			.ranges = { { rr->vm_exec_lo + bias, rr->vm_exec_hi + bias } },
			.value.rb = { .refused = 1 },
		};
		return true;
	}
	if (!fr->has_rb)
		return false;
	*rp = (struct runtime_place){
		.ranges = { { rr->vm_exec_lo + bias, rr->vm_exec_hi + bias } },
		.value.rb = { .ec_module_got = rr->ec_module_got + bias,
			      .ec_offset = rr->ec_offset,
			      .ec_vm_stack = o->ec_vm_stack,
			      .ec_vm_stack_size = o->ec_vm_stack_size,
			      .ec_cfp = o->ec_cfp,
			      .cfp_size = o->cfp_size,
			      .cfp_pc = o->cfp_pc,
			      .cfp_iseq = o->cfp_iseq,
			      .cfp_ep = o->cfp_ep,
			      .iseq_body = o->iseq_body,
			      .me_def = o->me_def },
	};
	return true;
}

static void go_read(struct file_runtimes *fr, const struct elf_file *ef, const char *path)
{
	(void)path;
	fr->has_go = go_runtime__read(ef, &fr->go) == 0;
}

/*
 * A CPython that cannot be read is said once, with its version and why: a
 * version or build not known keeps its eval loop (py_refused), where its
 * samples are counted.
 */
static void py_read(struct file_runtimes *fr, const struct elf_file *ef, const char *path)
{
	int err = py_runtime__read(ef, &fr->py);
	char ver[32];

	fr->has_py = err == 0;
	fr->py_refused = err == -ENOTSUP && fr->py.version_hex && fr->py.eval_lo;
	if (fr->py_refused)
		pr_warn("%s: CPython %s%s is not supported (%s): its samples show the "
			"interpreter's native frames only, counted as python-version-unsupported",
			path, py_runtime__version_str(&fr->py, ver, sizeof(ver)),
			fr->py.free_threaded ? " (free-threaded)" : "", fr->py.why);
	else if (err == -ENOTSUP || err == -EINVAL)
		pr_warn("%s: a CPython whose frames are not read: %s", path, fr->py.why);
}

/* The same for Ruby: a version not known keeps rb_vm_exec (rb_refused). */
static void rb_read(struct file_runtimes *fr, const struct elf_file *ef, const char *path)
{
	int err = rb_runtime__read(ef, &fr->rb);
	const struct rb_runtime *r = &fr->rb;

	fr->has_rb = err == 0;
	fr->rb_refused = err == -ENOTSUP && r->major && r->vm_exec_lo &&
			 !rb_offsets__of(r->major, r->minor);
	if (fr->rb_refused)
		pr_warn("%s: Ruby %u.%u.%u is not supported: its samples show the interpreter's "
			"native frames only, counted as ruby-version-unsupported",
			path, r->major, r->minor, r->teeny);
	else if (err == -ENOTSUP)
		pr_warn("%s: a Ruby whose frames this unwprof cannot read (core/runtimes/rbruntime.h): "
			"its samples show the interpreter's native frames",
			path);
}

static void go_print(FILE *f, const struct file_runtimes *fr)
{
	if (fr->has_go)
		go_runtime__print(f, &fr->go);
}

static void go_print_json(struct json_writer *jw, const struct file_runtimes *fr)
{
	if (fr->has_go)
		go_runtime__print_json(jw, &fr->go);
}

static void py_print(FILE *f, const struct file_runtimes *fr)
{
	if (fr->has_py || fr->py_refused)
		py_runtime__print(f, &fr->py, fr->py_refused);
}

static void py_print_json(struct json_writer *jw, const struct file_runtimes *fr)
{
	if (fr->has_py || fr->py_refused)
		py_runtime__print_json(jw, &fr->py, fr->py_refused);
}

static void rb_print(FILE *f, const struct file_runtimes *fr)
{
	if (fr->has_rb)
		rb_runtime__print(f, &fr->rb);
}

static void rb_print_json(struct json_writer *jw, const struct file_runtimes *fr)
{
	if (fr->has_rb)
		rb_runtime__print_json(jw, &fr->rb);
}

const struct runtime_unwinder runtime_unwinders[] = {
	{ .unwinder = UNW_UW_GO_SWITCH,
	  .name = "Go's stack switch",
	  .read = go_read,
	  .place = go_place,
	  .print = go_print,
	  .print_json = go_print_json },
	{ .unwinder = UNW_UW_PYTHON,
	  .name = "Python",
	  .read = py_read,
	  .place = py_place,
	  .print = py_print,
	  .print_json = py_print_json,
	  .namer = &py_frame_namer },
	{ .unwinder = UNW_UW_RUBY,
	  .name = "Ruby",
	  .read = rb_read,
	  .place = rb_place,
	  .print = rb_print,
	  .print_json = rb_print_json,
	  .namer = &rb_frame_namer },
};
const size_t nr_runtime_unwinders = ARRAY_SIZE(runtime_unwinders);
_Static_assert(ARRAY_SIZE(runtime_unwinders) <= RUNTIMES_MAX, "RUNTIMES_MAX is too small");

void file_runtimes__read(struct file_runtimes *fr, const struct elf_file *ef, const char *path)
{
	*fr = (struct file_runtimes){ 0 };
	for (size_t i = 0; i < ARRAY_SIZE(runtime_unwinders); i++)
		runtime_unwinders[i].read(fr, ef, path);
}

const struct runtime_unwinder *runtime_of_frame_kind(unsigned int kind)
{
	for (size_t i = 0; i < ARRAY_SIZE(runtime_unwinders); i++)
		if (runtime_unwinders[i].namer && runtime_unwinders[i].namer->frame_kind == kind)
			return &runtime_unwinders[i];
	return NULL;
}

const struct runtime_unwinder *runtime_of_code_event(uint32_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(runtime_unwinders); i++)
		if (runtime_unwinders[i].namer && runtime_unwinders[i].namer->code_event == type)
			return &runtime_unwinders[i];
	return NULL;
}
