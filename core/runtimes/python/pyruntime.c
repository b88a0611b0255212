// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading what a walk of CPython's frames needs from an interpreter's ELF
 * file. See pyruntime.h.
 *
 * Every symbol, address and size comes from the file and is checked
 * against it: a read goes through elf_file__vaddr_bytes(), which only returns bytes
 * that a PT_LOAD segment holds in the file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "../../util/common.h"
#include "../../elf/elf_file.h"
#include "../../util/log.h"
#include "../../util/json.h"
#include "pyruntime.h"
#include "../../unwind/unwind_table.h"

#define N PY_OFF_NONE
#define OFF(f) offsetof(struct py_offsets, f)

const struct py_offset_name py_offset_names[] = {
	[PY_O_RUNTIME_INTERPRETERS_HEAD] = { "runtime.interpreters_head",
					     OFF(runtime_interpreters_head) },
	[PY_O_RUNTIME_TSS_KEY] = { "runtime.autoTSSkey", OFF(runtime_tss_key) },
	[PY_O_INTERP_NEXT] = { "interp.next", OFF(interp_next) },
	[PY_O_INTERP_THREADS_HEAD] = { "interp.threads_head", OFF(interp_threads_head) },
	[PY_O_TSTATE_NEXT] = { "tstate.next", OFF(tstate_next) },
	[PY_O_TSTATE_THREAD_ID] = { "tstate.thread_id", OFF(tstate_thread_id) },
	[PY_O_TSTATE_NATIVE_THREAD_ID] = { "tstate.native_thread_id",
					   OFF(tstate_native_thread_id) },
	[PY_O_TSTATE_FRAME] = { "tstate.frame", OFF(tstate_frame) },
	[PY_O_CFRAME_CURRENT_FRAME] = { "cframe.current_frame", OFF(cframe_current_frame) },
	[PY_O_FRAME_PREVIOUS] = { "frame.previous", OFF(frame_previous) },
	[PY_O_FRAME_CODE] = { "frame.code", OFF(frame_code) },
	[PY_O_FRAME_INSTR] = { "frame.instr", OFF(frame_instr) },
	[PY_O_FRAME_OWNER] = { "frame.owner", OFF(frame_owner) },
	[PY_O_FRAME_IS_ENTRY] = { "frame.is_entry", OFF(frame_is_entry) },
	[PY_O_CODE_NAME] = { "code.co_name", OFF(code_name) },
	[PY_O_CODE_QUALNAME] = { "code.co_qualname", OFF(code_qualname) },
	[PY_O_CODE_FILENAME] = { "code.co_filename", OFF(code_filename) },
	[PY_O_CODE_FIRSTLINENO] = { "code.co_firstlineno", OFF(code_firstlineno) },
	[PY_O_CODE_LINETABLE] = { "code.co_linetable", OFF(code_linetable) },
	[PY_O_CODE_LNOTAB] = { "code.co_lnotab", OFF(code_lnotab) },
	[PY_O_CODE_CODE] = { "code.co_code", OFF(code_code) },
	[PY_O_CODE_ADAPTIVE] = { "code.co_code_adaptive", OFF(code_adaptive) },
	[PY_O_BYTES_SVAL] = { "bytes.ob_sval", OFF(bytes_sval) },
	[PY_O_STR_LENGTH] = { "str.length", OFF(str_length) },
	[PY_O_STR_STATE] = { "str.state", OFF(str_state) },
	[PY_O_STR_DATA] = { "str.data", OFF(str_data) },
	[PY_O_STR_ASCII_BIT] = { "str.ascii_bit", OFF(str_ascii_bit) },
	[PY_O_STR_COMPACT_BIT] = { "str.compact_bit", OFF(str_compact_bit) },
};
const size_t py_offset_names_count = ARRAY_SIZE(py_offset_names);

_Static_assert(sizeof(struct py_offsets) == ARRAY_SIZE(py_offset_names) * sizeof(int32_t) &&
		       ARRAY_SIZE(py_offset_names) == PY_O_NR && PY_O_NR <= 32,
	       "every offset has a name, and a bit in from_debug_offsets");

int32_t pyruntime__offset(const struct py_offsets *off, size_t i)
{
	int32_t v;

	if (i >= py_offset_names_count)
		return PY_OFF_NONE;
	memcpy(&v, (const char *)off + py_offset_names[i].field, sizeof(v));
	return v;
}

const char *pyruntime__offset_source(const struct pyruntime *pr, size_t i)
{
	if (i < PY_O_NR && (pr->from_debug_offsets & (1u << i)))
		return "_Py_DebugOffsets";
	return pr->offsets_source == PY_OFFSETS_TABLE ? "table" : "constant";
}

/* Says why ef is refused, in pr->why and at debug level; returns err. */
__attribute__((format(printf, 4, 5))) static int
py_refuse(const struct elf_file *ef, struct pyruntime *pr, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pr->why, sizeof(pr->why), fmt, ap);
	va_end(ap);
	pr_debug("%s: %s", elf_file__path(ef), pr->why);
	return err;
}

/*
 * The versions without _Py_DebugOffsets, by minor version, x86_64 (LP64):
 * equal to the DWARF of the pyenv builds 3.6.15, 3.7.16, 3.8.18, 3.9.18,
 * 3.10.13, 3.11.7 and 3.12.1, and Debian's 3.11.2 walks with 3.11.7's
 * (tests/oracle/python_runtime.py, python_live.py). A minor version is
 * taken to keep these layouts through its patch releases, as CPython's ABI
 * is kept within one; the oracle tests check every build they find.
 */
struct py_table_entry {
	uint8_t minor;
	struct py_offsets off;
};

/* The string layout shared by 3.6-3.11 (PyASCIIObject still has wstr). */
#define STR_WSTR \
	.str_length = 16, .str_state = 32, .str_data = 48, .str_ascii_bit = 6, .str_compact_bit = 5
#define STR_NO_WSTR \
	.str_length = 16, .str_state = 32, .str_data = 40, .str_ascii_bit = 6, .str_compact_bit = 5
/* What 3.6-3.10 do not have. */
#define NOT_BEFORE_3_11                                                            \
	.tstate_native_thread_id = N, .cframe_current_frame = N, .frame_owner = N, \
	.frame_is_entry = N, .code_qualname = N, .code_adaptive = N

static const struct py_table_entry py_table[] = {
	{ 6,
	  { .runtime_interpreters_head = 0,
	    .runtime_tss_key = N,
	    .interp_next = 0,
	    .interp_threads_head = 8,
	    .tstate_next = 8,
	    .tstate_thread_id = 152,
	    .tstate_frame = 24,
	    .frame_previous = 24,
	    .frame_code = 32,
	    .frame_instr = 120,
	    .code_name = 104,
	    .code_filename = 96,
	    .code_firstlineno = 36,
	    .code_linetable = N,
	    .code_lnotab = 112,
	    .code_code = 40,
	    .bytes_sval = 32,
	    NOT_BEFORE_3_11,
	    STR_WSTR } },
	{ 7,
	  { .runtime_interpreters_head = 24,
	    .runtime_tss_key = 1504,
	    .interp_next = 0,
	    .interp_threads_head = 8,
	    .tstate_next = 8,
	    .tstate_thread_id = 176,
	    .tstate_frame = 24,
	    .frame_previous = 24,
	    .frame_code = 32,
	    .frame_instr = 104,
	    .code_name = 104,
	    .code_filename = 96,
	    .code_firstlineno = 36,
	    .code_linetable = N,
	    .code_lnotab = 112,
	    .code_code = 40,
	    .bytes_sval = 32,
	    NOT_BEFORE_3_11,
	    STR_WSTR } },
	{ 8,
	  { .runtime_interpreters_head = 32,
	    .runtime_tss_key = 1392,
	    .interp_next = 0,
	    .interp_threads_head = 8,
	    .tstate_next = 8,
	    .tstate_thread_id = 176,
	    .tstate_frame = 24,
	    .frame_previous = 24,
	    .frame_code = 32,
	    .frame_instr = 104,
	    .code_name = 112,
	    .code_filename = 104,
	    .code_firstlineno = 40,
	    .code_linetable = N,
	    .code_lnotab = 120,
	    .code_code = 48,
	    .bytes_sval = 32,
	    NOT_BEFORE_3_11,
	    STR_WSTR } },
	{ 9,
	  { .runtime_interpreters_head = 32,
	    .runtime_tss_key = 584,
	    .interp_next = 0,
	    .interp_threads_head = 8,
	    .tstate_next = 8,
	    .tstate_thread_id = 176,
	    .tstate_frame = 24,
	    .frame_previous = 24,
	    .frame_code = 32,
	    .frame_instr = 104,
	    .code_name = 112,
	    .code_filename = 104,
	    .code_firstlineno = 40,
	    .code_linetable = N,
	    .code_lnotab = 120,
	    .code_code = 48,
	    .bytes_sval = 32,
	    NOT_BEFORE_3_11,
	    STR_WSTR } },
	{ 10,
	  { .runtime_interpreters_head = 32,
	    .runtime_tss_key = 584,
	    .interp_next = 0,
	    .interp_threads_head = 8,
	    .tstate_next = 8,
	    .tstate_thread_id = 176,
	    .tstate_frame = 24,
	    .frame_previous = 24,
	    .frame_code = 32,
	    .frame_instr = 96,
	    .code_name = 112,
	    .code_filename = 104,
	    .code_firstlineno = 40,
	    .code_linetable = 120,
	    .code_lnotab = N,
	    .code_code = 48,
	    .bytes_sval = 32,
	    NOT_BEFORE_3_11,
	    STR_WSTR } },
	{ 11,
	  { .runtime_interpreters_head = 40,
	    .runtime_tss_key = 592,
	    .interp_next = 0,
	    .interp_threads_head = 16,
	    .tstate_next = 8,
	    .tstate_thread_id = 152,
	    .tstate_native_thread_id = 160,
	    .tstate_frame = 56,
	    .cframe_current_frame = 8,
	    .frame_previous = 48,
	    .frame_code = 32,
	    .frame_instr = 56,
	    .frame_owner = 69,
	    .frame_is_entry = 68,
	    .code_name = 120,
	    .code_qualname = 128,
	    .code_filename = 112,
	    .code_firstlineno = 72,
	    .code_linetable = 136,
	    .code_lnotab = N,
	    .code_code = N,
	    .code_adaptive = 184,
	    .bytes_sval = N,
	    STR_WSTR } },
	{ 12,
	  { .runtime_interpreters_head = 40,
	    .runtime_tss_key = 1544,
	    .interp_next = 0,
	    .interp_threads_head = 72,
	    .tstate_next = 8,
	    .tstate_thread_id = 136,
	    .tstate_native_thread_id = 144,
	    .tstate_frame = 56,
	    .cframe_current_frame = 0,
	    .frame_previous = 8,
	    .frame_code = 0,
	    .frame_instr = 56,
	    .frame_owner = 70,
	    .frame_is_entry = N,
	    .code_name = 120,
	    .code_qualname = 128,
	    .code_filename = 112,
	    .code_firstlineno = 68,
	    .code_linetable = 136,
	    .code_lnotab = N,
	    .code_code = N,
	    .code_adaptive = 192,
	    .bytes_sval = N,
	    STR_NO_WSTR } },
};

/* ---- the file ---- */

/* The symbols looked for, by name. */
enum {
	SYM_RUNTIME,
	SYM_EVAL,
	SYM_EVAL_COLD,
	SYM_PY_VERSION,
	SYM_GETVERSION,
	SYM_INTERP_HEAD,
	SYM_TLS_KEY,
	SYM_NR,
};

/* Each entry's name and type; what was found fills the rest. */
static const struct elf_symbol_query py_sym_names[SYM_NR] = {
	[SYM_RUNTIME] = { "_PyRuntime", STT_OBJECT },
	[SYM_EVAL] = { "_PyEval_EvalFrameDefault", STT_FUNC },
	[SYM_EVAL_COLD] = { "_PyEval_EvalFrameDefault.cold", STT_FUNC },
	[SYM_PY_VERSION] = { "Py_Version", STT_OBJECT },
	[SYM_GETVERSION] = { "Py_GetVersion", STT_FUNC },
	[SYM_INTERP_HEAD] = { "interp_head", STT_OBJECT },
	[SYM_TLS_KEY] = { "autoTLSkey", STT_OBJECT },
};

/* ---- the version ---- */

static void set_version_hex(struct pyruntime *pr, uint32_t hex)
{
	pr->version_hex = hex;
	pr->major = hex >> 24;
	pr->minor = hex >> 16;
	pr->micro = hex >> 8;
}

static int version_from_symbol(const struct elf_file *ef, const struct elf_symbol_query *s,
			       struct pyruntime *pr)
{
	const uint8_t *p;
	uint32_t hex;

	if (s->size < sizeof(hex) || !(p = elf_file__vaddr_bytes(ef, s->value, sizeof(hex))))
		return -EINVAL;
	memcpy(&hex, p, sizeof(hex));
	set_version_hex(pr, hex);
	pr->version_source = PY_VERSION_FROM_PY_VERSION;
	return 0;
}

/* "3.10.13", "3.13.0rc1", "3.8.18+" as PY_VERSION_HEX; -EINVAL when s is not one. */
static int parse_version(const char *s, uint32_t *hex)
{
	unsigned int v[3], level = 0xf, serial = 0;
	int n = 0;

	for (int i = 0; i < 3; i++) {
		if (*s < '0' || *s > '9')
			return -EINVAL;
		v[i] = 0;
		while (*s >= '0' && *s <= '9' && v[i] < 1000)
			v[i] = v[i] * 10 + (*s++ - '0');
		if (v[i] > 255 || (i < 2 && *s++ != '.'))
			return -EINVAL;
	}
	if (s[0] == 'a' || s[0] == 'b' || (s[0] == 'r' && s[1] == 'c')) {
		level = s[0] == 'a' ? 0xa : s[0] == 'b' ? 0xb : 0xc;
		s += s[0] == 'r' ? 2 : 1;
		if (sscanf(s, "%u%n", &serial, &n) != 1 || serial > 15)
			return -EINVAL;
		s += n;
	}
	if (*s == '+')
		s++;
	if (*s)
		return -EINVAL;
	*hex = v[0] << 24 | v[1] << 16 | v[2] << 8 | level << 4 | serial;
	return 0;
}

/*
 * Py_GetVersion() calls PyOS_snprintf(buf, 250, "%.80s (%.80s) %.80s",
 * PY_VERSION, Py_GetBuildInfo(), Py_GetCompiler()): on x86_64 the format is
 * loaded into rdx and PY_VERSION into rcx with lea disp32(%rip). The
 * string is not found by searching the file: the linker merges it into the
 * tail of a longer one (the install prefix of pyenv's builds ends with it).
 */
static int version_from_getversion(const struct elf_file *ef, const struct elf_symbol_query *s,
				   struct pyruntime *pr)
{
	static const char format[] = "%.80s (%.80s) %.80s";
	uint64_t fmt_at = 0, ver_at = 0;
	const uint8_t *code;
	const char *str;
	uint32_t hex;
	size_t size = s->size;

	if (elf_file__machine(ef) != EM_X86_64 || size < 7 || size > 512 ||
	    !(code = elf_file__vaddr_bytes(ef, s->value, size)))
		return -ENOTSUP;
	for (size_t i = 0; i + 7 <= size; i++) {
		int32_t disp;
		uint64_t target;

		/* lea disp32(%rip), %rcx / %rdx: 48 8d 0d / 48 8d 15 */
		if (code[i] != 0x48 || code[i + 1] != 0x8d ||
		    (code[i + 2] != 0x0d && code[i + 2] != 0x15))
			continue;
		memcpy(&disp, &code[i + 3], sizeof(disp));
		target = s->value + i + 7 + (int64_t)disp;
		if (code[i + 2] == 0x0d && !ver_at)
			ver_at = target;
		else if (code[i + 2] == 0x15 && !fmt_at)
			fmt_at = target;
	}
	str = fmt_at ? elf_file__vaddr_string(ef, fmt_at, sizeof(format)) : NULL;
	if (!str || strcmp(str, format) || !ver_at)
		return -ENOTSUP;
	str = elf_file__vaddr_string(ef, ver_at, 32);
	if (!str || parse_version(str, &hex))
		return -ENOTSUP;
	set_version_hex(pr, hex);
	pr->version_source = PY_VERSION_FROM_GETVERSION;
	return 0;
}

/*
 * The minor version the file name says (libpython3.10.so.1.0,
 * libpython3.6m.so, python3.11), 0 when it names none.
 */
static unsigned int minor_from_name(const char *path)
{
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	unsigned int minor = 0;
	const char *p;

	if (!strncmp(base, "lib", 3))
		base += 3;
	if (strncmp(base, "python3.", 8))
		return 0;
	p = base + 8;
	while (*p >= '0' && *p <= '9' && minor < 1000)
		minor = minor * 10 + (*p++ - '0');
	/* what may follow: an ABI flag (3.6, 3.7: m), .so, the end */
	while (*p == 'm' || *p == 'd' || *p == 'u')
		p++;
	return *p == '\0' || *p == '.' ? minor : 0;
}

/* ---- 3.13 on: _Py_DebugOffsets ---- */

/*
 * Where _Py_DebugOffsets (Include/internal/pycore_debug_offsets.h; in
 * pycore_runtime.h in 3.13) keeps what the walk needs, by minor version.
 * It is u64 words in groups, one per struct of CPython's, each starting
 * with the size of that struct. Its own layout moves with each minor
 * version (3.14 added fields to the groups of the interpreter and the
 * thread, 3.15 to the thread's and a group before the frame's), which
 * moves the groups after them; it stays the same through a minor
 * version's patch releases, whose moved fields it then tells. A field's
 * place from its group's start is the same in every version here but the
 * thread's id. Each layout is checked against the DWARF of struct
 * _Py_DebugOffsets of its builds (tests/oracle/python_runtime.py). A
 * minor version not here is refused: reading it with another's layout
 * would be a guess.
 */
struct do_layout {
	uint8_t minor;
	uint16_t size;						   /* of _Py_DebugOffsets */
	uint16_t runtime, interp, tstate, frame, code, bytes, str; /* where each group starts */
	uint8_t tstate_thread_id; /* from its group; native_thread_id is the word after */
};

static const struct do_layout do_layouts[] = {
	{ 13, 584, 24, 48, 152, 224, 272, 512, 536, 40 },
	{ 14, 760, 24, 48, 176, 248, 312, 592, 616, 40 },
	{ 15, 888, 24, 48, 176, 312, 376, 688, 712, 64 },
};

/* The words of the groups' fields, from the group's start (its size). */
enum {
	DO_RUNTIME_INTERPRETERS_HEAD = 16,
	DO_INTERP_NEXT = 16,
	DO_INTERP_THREADS_HEAD = 24,
	DO_TSTATE_NEXT = 16,
	DO_TSTATE_CURRENT_FRAME = 32,
	DO_FRAME_PREVIOUS = 8,
	DO_FRAME_EXECUTABLE = 16,
	DO_FRAME_INSTR_PTR = 24,
	DO_FRAME_OWNER = 40,
	DO_CODE_FILENAME = 8,
	DO_CODE_NAME = 16,
	DO_CODE_QUALNAME = 24,
	DO_CODE_LINETABLE = 32,
	DO_CODE_FIRSTLINENO = 40,
	DO_CODE_ADAPTIVE = 72,
	DO_BYTES_SVAL = 16,
	DO_STR_STATE = 8,
	DO_STR_LENGTH = 16,
	DO_STR_ASCII_SIZE = 24,
};

#define DO_COOKIE "xdebugpy"
#define DO_VERSION 8
#define DO_FREE_THREADED 16
/* No struct of CPython's is this large: a bigger size is no size. */
#define DO_STRUCT_MAX (1 << 20)

static const struct do_layout *do_layout_of(unsigned int minor)
{
	for (size_t i = 0; i < ARRAY_SIZE(do_layouts); i++)
		if (do_layouts[i].minor == minor)
			return &do_layouts[i];
	return NULL;
}

static uint64_t do_word(const uint8_t *t, size_t at)
{
	uint64_t v;

	memcpy(&v, t + at, sizeof(v));
	return v;
}

/* One offset read from _Py_DebugOffsets: the field at at of the group at group. */
struct do_field {
	uint16_t group, at;
	uint8_t width; /* bytes the walk reads there: the offset leaves room for them */
	uint8_t name;  /* its index in py_offset_names */
};

/*
 * The fields the walk and the namer read, placed by layout l. The
 * instructions and a string's characters start where their field says:
 * the objects are larger than these structs, so nothing need fit there.
 */
static size_t do_fields(const struct do_layout *l, struct do_field *f)
{
	const struct do_field all[] = {
		{ l->runtime, DO_RUNTIME_INTERPRETERS_HEAD, 8, PY_O_RUNTIME_INTERPRETERS_HEAD },
		{ l->interp, DO_INTERP_NEXT, 8, PY_O_INTERP_NEXT },
		{ l->interp, DO_INTERP_THREADS_HEAD, 8, PY_O_INTERP_THREADS_HEAD },
		{ l->tstate, DO_TSTATE_NEXT, 8, PY_O_TSTATE_NEXT },
		{ l->tstate, DO_TSTATE_CURRENT_FRAME, 8, PY_O_TSTATE_FRAME },
		{ l->tstate, l->tstate_thread_id, 8, PY_O_TSTATE_THREAD_ID },
		{ l->tstate, l->tstate_thread_id + 8, 4, PY_O_TSTATE_NATIVE_THREAD_ID },
		{ l->frame, DO_FRAME_PREVIOUS, 8, PY_O_FRAME_PREVIOUS },
		{ l->frame, DO_FRAME_EXECUTABLE, 8, PY_O_FRAME_CODE },
		{ l->frame, DO_FRAME_INSTR_PTR, 8, PY_O_FRAME_INSTR },
		{ l->frame, DO_FRAME_OWNER, 1, PY_O_FRAME_OWNER },
		{ l->code, DO_CODE_FILENAME, 8, PY_O_CODE_FILENAME },
		{ l->code, DO_CODE_NAME, 8, PY_O_CODE_NAME },
		{ l->code, DO_CODE_QUALNAME, 8, PY_O_CODE_QUALNAME },
		{ l->code, DO_CODE_LINETABLE, 8, PY_O_CODE_LINETABLE },
		{ l->code, DO_CODE_FIRSTLINENO, 4, PY_O_CODE_FIRSTLINENO },
		{ l->code, DO_CODE_ADAPTIVE, 0, PY_O_CODE_ADAPTIVE },
		{ l->bytes, DO_BYTES_SVAL, 0, PY_O_BYTES_SVAL },
		{ l->str, DO_STR_STATE, 4, PY_O_STR_STATE },
		{ l->str, DO_STR_LENGTH, 8, PY_O_STR_LENGTH },
		{ l->str, DO_STR_ASCII_SIZE, 0, PY_O_STR_DATA },
	};

	memcpy(f, all, sizeof(all));
	return ARRAY_SIZE(all);
}

#define DO_FIELDS_MAX 24

/* Offset f of the table t into *o: it must lie inside its struct, with room for its width. */
static int do_read_field(const uint8_t *t, const struct do_field *f, struct py_offsets *o)
{
	uint64_t size = do_word(t, f->group), v = do_word(t, f->group + f->at);
	int32_t off = (int32_t)v;

	if (size > DO_STRUCT_MAX || v > size || f->width > size - v)
		return -EINVAL;
	memcpy((char *)o + py_offset_names[f->name].field, &off, sizeof(off));
	return 0;
}

/*
 * The table at the start of _PyRuntime (the symbol runtime), checked:
 * its cookie, its version (Py_Version's), its build (not free-threaded),
 * the size of _PyRuntimeState it declares (the symbol's), and each
 * offset inside the struct it belongs to.
 */
static int do_check(const struct elf_file *ef, const struct elf_symbol_query *runtime,
		    const struct do_layout *l, const uint8_t **table, struct pyruntime *pr)
{
	const uint8_t *t;

	if (runtime->size < l->size || !(t = elf_file__vaddr_bytes(ef, runtime->value, l->size)))
		return py_refuse(ef, pr, -EINVAL,
				 "_PyRuntime (%" PRIu64 " bytes) is too small for the %u bytes of "
				 "_Py_DebugOffsets of 3.%u, or lies past the file",
				 runtime->size, l->size, l->minor);
	if (memcmp(t, DO_COOKIE, 8))
		return py_refuse(ef, pr, -EINVAL,
				 "_PyRuntime does not start with _Py_DebugOffsets (its cookie)");
	if (do_word(t, DO_VERSION) != pr->version_hex)
		return py_refuse(ef, pr, -EINVAL,
				 "_Py_DebugOffsets is of version %#" PRIx64 ", Py_Version says %#x",
				 do_word(t, DO_VERSION), pr->version_hex);
	if (do_word(t, DO_FREE_THREADED)) {
		pr->free_threaded = true;
		return py_refuse(ef, pr, -ENOTSUP,
				 "a free-threaded build, whose objects and frames are laid out "
				 "otherwise");
	}
	if (do_word(t, l->runtime) != runtime->size)
		return py_refuse(ef, pr, -EINVAL,
				 "_Py_DebugOffsets says _PyRuntime is %" PRIu64
				 " bytes, its symbol %" PRIu64,
				 do_word(t, l->runtime), runtime->size);
	*table = t;
	return 0;
}

static int read_debug_offsets(const struct elf_file *ef, const struct elf_symbol_query *runtime,
			      struct pyruntime *pr)
{
	const struct do_layout *l = do_layout_of(pr->minor);
	struct do_field fields[DO_FIELDS_MAX];
	struct py_offsets *o = &pr->off;
	const uint8_t *t = NULL;
	size_t n;
	int err;

	if (!l)
		return py_refuse(ef, pr, -ENOTSUP,
				 "no layout of _Py_DebugOffsets is known for 3.%u here", pr->minor);
	err = do_check(ef, runtime, l, &t, pr);
	if (err)
		return err;
	n = do_fields(l, fields);
	for (size_t i = 0; i < n; i++) {
		if (do_read_field(t, &fields[i], o))
			return py_refuse(ef, pr, -EINVAL,
					 "_Py_DebugOffsets: %s (word %u) lies outside its struct",
					 py_offset_names[fields[i].name].name,
					 fields[i].group + fields[i].at);
		pr->from_debug_offsets |= 1u << fields[i].name;
	}
	/* Not in the layouts of 3.13 on, or not in _Py_DebugOffsets: their constants. */
	o->runtime_tss_key = PY_OFF_NONE;
	o->cframe_current_frame = PY_OFF_NONE;
	o->frame_is_entry = PY_OFF_NONE;
	o->code_lnotab = PY_OFF_NONE;
	o->code_code = PY_OFF_NONE;
	o->str_ascii_bit = 6;
	o->str_compact_bit = 5;
	pr->offsets_source = PY_OFFSETS_DEBUG_OFFSETS;
	return 0;
}

/* ---- all of it ---- */

/*
 * _PyRuntime.autoTSSkey on aarch64, where it alone of the table's offsets
 * differs: the GIL's two mutexes before it are pthread_mutex_t, 48 bytes
 * there and 40 on x86_64. Checked for 3.11 against python3.11-dbg's arm64
 * DWARF; unknown for the others (only dump-unwind shows it: the walk finds
 * threads without it).
 */
static int32_t aarch64_tss_key(unsigned int minor)
{
	return minor == 11 ? 608 : PY_OFF_NONE;
}

static int read_offsets(const struct elf_file *ef, const struct elf_symbol_query *syms,
			struct pyruntime *pr)
{
	pr->frame_layout = pr->minor >= 11 ? PY_FRAME_INTERPRETER : PY_FRAME_OBJECT;
	if (pr->minor >= 13)
		return read_debug_offsets(ef, &syms[SYM_RUNTIME], pr);
	for (size_t i = 0; i < ARRAY_SIZE(py_table); i++) {
		if (py_table[i].minor == pr->minor) {
			pr->off = py_table[i].off;
			pr->offsets_source = PY_OFFSETS_TABLE;
			if (elf_file__machine(ef) == EM_AARCH64)
				pr->off.runtime_tss_key = aarch64_tss_key(pr->minor);
			return 0;
		}
	}
	return py_refuse(ef, pr, -ENOTSUP, "no offsets of CPython 3.%u are known here", pr->minor);
}

/* The anchor of the thread list and the TLS key, once the version is known. */
static int read_anchors(const struct elf_file *ef, const struct elf_symbol_query *syms,
			struct pyruntime *pr)
{
	const struct elf_symbol_query *anchor =
		&syms[pr->minor == 6 ? SYM_INTERP_HEAD : SYM_RUNTIME];

	pr->runtime_symbol = py_sym_names[pr->minor == 6 ? SYM_INTERP_HEAD : SYM_RUNTIME].name;
	if (!anchor->found)
		return py_refuse(ef, pr, -ENOTSUP, "no symbol %s (stripped?)", pr->runtime_symbol);
	/* Nothing lives at 0 (0 is "none" here): the ELF header is there, or nothing. */
	if (!anchor->value || (uint64_t)pr->off.runtime_interpreters_head + 8 > anchor->size ||
	    !elf_file__vaddr_mapped(ef, anchor->value, anchor->size))
		return py_refuse(ef, pr, -EINVAL, "%s lies outside the file or is too small",
				 pr->runtime_symbol);
	pr->runtime = anchor->value;
	if (pr->minor == 6 && syms[SYM_TLS_KEY].found && syms[SYM_TLS_KEY].size == 4 &&
	    syms[SYM_TLS_KEY].value)
		pr->tls_key = syms[SYM_TLS_KEY].value;
	if (pr->off.runtime_tss_key != PY_OFF_NONE) {
		/* Py_tss_t: int _is_initialized; pthread_key_t _key */
		if ((uint64_t)pr->off.runtime_tss_key + 8 > anchor->size)
			return py_refuse(ef, pr, -EINVAL,
					 "autoTSSkey lies past the end of _PyRuntime");
		pr->tls_key = anchor->value + pr->off.runtime_tss_key + 4;
	}
	return 0;
}

/* ---- the eval loop's .cold part, in a stripped file ---- */

#define COLD_MIN_JUMPS 16	/* jumps back into the loop a .cold part makes, at least */
#define COLD_LEAD 4		/* ...and this many times as many as any other function */
#define COLD_MAX_LEN (1u << 20) /* a function longer than this is not looked into */

uint32_t pyruntime__jumps_into(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t lo,
			       uint64_t hi)
{
	uint32_t n = 0;

	for (size_t i = 0; i + 5 <= len; i++) {
		size_t at, end;
		int32_t rel;

		if (code[i] == 0xe9) { /* jmp rel32 */
			at = i + 1;
			end = i + 5;
		} else if (code[i] == 0x0f && i + 6 <= len && (code[i + 1] & 0xf0) == 0x80) {
			at = i + 2; /* jcc rel32 */
			end = i + 6;
		} else {
			continue;
		}
		memcpy(&rel, code + at, sizeof(rel));
		if (vaddr + end + rel >= lo && vaddr + end + rel < hi)
			n++;
	}
	return n;
}

struct cold_search {
	const struct elf_file *ef;
	uint64_t eval_lo, eval_hi;
	uint64_t lo, hi;      /* the best candidate */
	uint32_t best, other; /* its jumps, and the most of any other */
};

static int cold_candidate(void *ctx, uint64_t lo, uint64_t hi)
{
	struct cold_search *cs = ctx;
	const uint8_t *code;
	uint32_t n;

	if ((lo < cs->eval_hi && hi > cs->eval_lo) || hi - lo > COLD_MAX_LEN)
		return 0;
	code = elf_file__vaddr_bytes(cs->ef, lo, hi - lo);
	n = code ? pyruntime__jumps_into(code, hi - lo, lo, cs->eval_lo, cs->eval_hi) : 0;
	if (n > cs->best) {
		cs->other = cs->best;
		cs->best = n;
		cs->lo = lo;
		cs->hi = hi;
	} else if (n > cs->other) {
		cs->other = n;
	}
	return 0;
}

/*
 * The .cold part of the eval loop when no symbol names it (Debian's
 * python3.11): gcc moves the loop's rarely run paths into a function of
 * their own, which has its FDE and goes back into the loop by jumps; no
 * other function jumps into the middle of it. The FDE that jumps into it
 * most, far more than any other, is that part.
 */
static void find_cold(const struct elf_file *ef, struct pyruntime *pr)
{
	struct cold_search cs = { .ef = ef, .eval_lo = pr->eval_lo, .eval_hi = pr->eval_hi };

	if (elf_file__machine(ef) != EM_X86_64 || unwind_table__each_fde(ef, cold_candidate, &cs))
		return;
	if (cs.best < COLD_MIN_JUMPS || cs.best < COLD_LEAD * cs.other)
		return;
	pr->cold_lo = cs.lo;
	pr->cold_hi = cs.hi;
	pr->cold_from_fde = true;
	pr_debug("%s: _PyEval_EvalFrameDefault.cold at %#" PRIx64 "-%#" PRIx64
		 " (.eh_frame; %u jumps into the loop, at most %u from elsewhere)",
		 elf_file__path(ef), cs.lo, cs.hi, cs.best, cs.other);
}

static int read_eval(const struct elf_file *ef, const struct elf_symbol_query *syms,
		     struct pyruntime *pr)
{
	const struct elf_symbol_query *e = &syms[SYM_EVAL], *c = &syms[SYM_EVAL_COLD];

	if (!e->value || !e->size || e->value + e->size < e->value ||
	    !elf_file__vaddr_bytes(ef, e->value, e->size))
		return py_refuse(ef, pr, -EINVAL, "_PyEval_EvalFrameDefault lies outside the file");
	pr->eval_lo = e->value;
	pr->eval_hi = e->value + e->size;
	if (c->found && c->value && c->size && c->value + c->size > c->value &&
	    elf_file__vaddr_bytes(ef, c->value, c->size)) {
		pr->cold_lo = c->value;
		pr->cold_hi = c->value + c->size;
	} else {
		find_cold(ef, pr);
	}
	return 0;
}

/* The version (Py_Version, or Py_GetVersion's string), which the file's name must not contradict. */
static int read_version(const struct elf_file *ef, const struct elf_symbol_query *syms,
			struct pyruntime *pr)
{
	unsigned int name_minor;
	int err;

	if (syms[SYM_PY_VERSION].found)
		err = version_from_symbol(ef, &syms[SYM_PY_VERSION], pr);
	else if (syms[SYM_GETVERSION].found)
		err = version_from_getversion(ef, &syms[SYM_GETVERSION], pr);
	else
		err = -ENOTSUP;
	if (err) {
		pr->version_hex = 0;
		return py_refuse(ef, pr, err, "the CPython version cannot be read");
	}
	if (pr->major != 3 || pr->minor < 6)
		return py_refuse(ef, pr, -ENOTSUP,
				 "CPython %u.%u: versions before 3.6 are not read", pr->major,
				 pr->minor);
	name_minor = minor_from_name(elf_file__path(ef));
	if ((name_minor && name_minor != pr->minor) ||
	    (pr->minor >= 11) != syms[SYM_PY_VERSION].found)
		return py_refuse(ef, pr, -EINVAL,
				 "the file says CPython %u.%u, its name or its symbols another",
				 pr->major, pr->minor);
	return 0;
}

/*
 * What a failed read leaves: the reason; after -ENOTSUP, also the version
 * and the eval loop, by which the samples of a refused interpreter are
 * counted.
 */
static void pyruntime__clear(struct pyruntime *pr, int err)
{
	struct pyruntime keep = {};

	memcpy(keep.why, pr->why, sizeof(keep.why));
	if (err == -ENOTSUP) {
		set_version_hex(&keep, pr->version_hex);
		keep.version_source = pr->version_source;
		keep.free_threaded = pr->free_threaded;
		keep.eval_lo = pr->eval_lo;
		keep.eval_hi = pr->eval_hi;
		keep.cold_lo = pr->cold_lo;
		keep.cold_hi = pr->cold_hi;
		keep.cold_from_fde = pr->cold_from_fde;
	}
	*pr = keep;
}

int pyruntime__read(const struct elf_file *ef, struct pyruntime *pr)
{
	struct elf_symbol_query syms[SYM_NR];
	int err;

	memset(pr, 0, sizeof(*pr));
	memcpy(syms, py_sym_names, sizeof(syms));
	/* the local symbols (3.6's anchors, .cold) are only in .symtab */
	err = elf_file__find_symbols(ef, syms, SYM_NR);
	if (err)
		return err;
	if (!syms[SYM_EVAL].found || (!syms[SYM_RUNTIME].found && !syms[SYM_INTERP_HEAD].found))
		return -ENOENT;
	if (elf_file__machine(ef) != EM_X86_64 && elf_file__machine(ef) != EM_AARCH64)
		return py_refuse(ef, pr, -ENOTSUP,
				 "CPython's offsets are known on x86_64 and aarch64 only");
	err = read_version(ef, syms, pr);
	if (!err)
		err = read_offsets(ef, syms, pr);
	if (!err)
		err = read_anchors(ef, syms, pr);
	/* A refused interpreter's eval loop too, where its samples are counted. */
	if ((!err || (err == -ENOTSUP && pr->version_hex)) && read_eval(ef, syms, pr))
		err = -EINVAL;
	if (err)
		pyruntime__clear(pr, err);
	return err;
}

const char *pyruntime__version_str(const struct pyruntime *pr, char *buf, size_t size)
{
	unsigned int level = (pr->version_hex >> 4) & 0xf, serial = pr->version_hex & 0xf;
	const char *lv = level == 0xa ? "a" : level == 0xb ? "b" : level == 0xc ? "rc" : "";

	if (level == 0xf)
		snprintf(buf, size, "%u.%u.%u", pr->major, pr->minor, pr->micro);
	else
		snprintf(buf, size, "%u.%u.%u%s%u", pr->major, pr->minor, pr->micro, lv, serial);
	return buf;
}

static const char *const py_version_sources[] = {
	[PY_VERSION_FROM_PY_VERSION] = "Py_Version",
	[PY_VERSION_FROM_GETVERSION] = "Py_GetVersion",
};

static const char *py_frames_str(const struct pyruntime *p)
{
	return p->frame_layout == PY_FRAME_OBJECT ? "PyFrameObject" : "_PyInterpreterFrame";
}

/* What a walk of CPython's frames reads in this file, as dump-unwind shows it; of one refused, why. */
void pyruntime__print(FILE *f, const struct pyruntime *p, bool refused)
{
	size_t n = 0;
	char ver[32];

	if (refused) {
		fprintf(f, "Python:      CPython %s%s, frames not read: %s\n",
			pyruntime__version_str(p, ver, sizeof(ver)),
			p->free_threaded ? " (free-threaded)" : "", p->why);
		return;
	}
	fprintf(f, "Python:      CPython %s (%s), offsets from %s, %s frames\n",
		pyruntime__version_str(p, ver, sizeof(ver)), py_version_sources[p->version_source],
		p->offsets_source == PY_OFFSETS_TABLE ? "unwprof's table" : "_Py_DebugOffsets",
		py_frames_str(p));
	fprintf(f, "             %s %#" PRIx64 ", TLS key ", p->runtime_symbol, p->runtime);
	if (p->tls_key)
		fprintf(f, "at %#" PRIx64, p->tls_key);
	else
		fprintf(f, "none");
	fprintf(f, ", _PyEval_EvalFrameDefault %#" PRIx64 "-%#" PRIx64, p->eval_lo, p->eval_hi);
	if (p->cold_lo)
		fprintf(f, ", .cold %#" PRIx64 "-%#" PRIx64 "%s", p->cold_lo, p->cold_hi,
			p->cold_from_fde ? " (from .eh_frame)" : "");
	/* the offsets the version has, four a line */
	for (size_t i = 0; i < py_offset_names_count; i++) {
		int32_t v = pyruntime__offset(&p->off, i);

		if (v == PY_OFF_NONE)
			continue;
		fprintf(f, "%s%s %d", n++ % 4 ? ", " : "\n             ", py_offset_names[i].name,
			v);
	}
	fprintf(f, "\n");
}

/* Opens the "python" member with the version: the part every CPython found has. */
static void print_json_version(struct json_writer *jw, const struct pyruntime *p)
{
	char ver[32];

	json__key(jw, "python");
	json__object_start(jw);
	json__key(jw, "version");
	json__string(jw, pyruntime__version_str(p, ver, sizeof(ver)));
	json__key(jw, "version_hex");
	json__stringf(jw, "%#x", p->version_hex);
}

/* A CPython whose frames are not read: its version and why, nothing to read with. */
static void print_json_refused(struct json_writer *jw, const struct pyruntime *p)
{
	print_json_version(jw, p);
	json__key(jw, "free_threaded");
	json__bool(jw, p->free_threaded);
	json__key(jw, "refused");
	json__string(jw, p->why);
	json__object_end(jw);
}

void pyruntime__print_json(struct json_writer *jw, const struct pyruntime *p, bool refused)
{
	if (refused) {
		print_json_refused(jw, p);
		return;
	}
	print_json_version(jw, p);
	json__key(jw, "version_source");
	json__string(jw, py_version_sources[p->version_source]);
	json__key(jw, "offsets_source");
	json__string(jw, p->offsets_source == PY_OFFSETS_TABLE ? "table" : "_Py_DebugOffsets");
	json__key(jw, "frames");
	json__string(jw, py_frames_str(p));
	json__key(jw, "runtime_symbol");
	json__string(jw, p->runtime_symbol);
	json__key(jw, "runtime");
	json__stringf(jw, "%#" PRIx64, p->runtime);
	json__key(jw, "tls_key");
	if (p->tls_key)
		json__stringf(jw, "%#" PRIx64, p->tls_key);
	else
		json__null(jw);
	json__key(jw, "eval_frame");
	json__array_start(jw);
	for (int i = 0; i < 2; i++) {
		uint64_t lo = i ? p->cold_lo : p->eval_lo, hi = i ? p->cold_hi : p->eval_hi;

		if (!lo)
			continue;
		json__array_start(jw);
		json__stringf(jw, "%#" PRIx64, lo);
		json__stringf(jw, "%#" PRIx64, hi);
		json__array_end(jw);
	}
	json__array_end(jw);
	json__key(jw, "cold_from");
	if (p->cold_lo)
		json__string(jw, p->cold_from_fde ? ".eh_frame" : "symbol");
	else
		json__null(jw);
	json__key(jw, "offsets");
	json__object_start(jw);
	for (size_t i = 0; i < py_offset_names_count; i++) {
		int32_t v = pyruntime__offset(&p->off, i);

		if (v == PY_OFF_NONE)
			continue;
		json__key(jw, py_offset_names[i].name);
		json__int(jw, v);
	}
	json__object_end(jw);
	json__key(jw, "offset_sources");
	json__object_start(jw);
	for (size_t i = 0; i < py_offset_names_count; i++) {
		if (pyruntime__offset(&p->off, i) == PY_OFF_NONE)
			continue;
		json__key(jw, py_offset_names[i].name);
		json__string(jw, pyruntime__offset_source(p, i));
	}
	json__object_end(jw);
	json__object_end(jw);
}
