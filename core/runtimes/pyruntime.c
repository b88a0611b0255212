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
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

#include "../util/common.h"
#include "../elf/elf.h"
#include "../util/log.h"
#include "pyruntime.h"
#include "../unwind/table.h"

#define N PY_OFF_NONE
#define OFF(f) offsetof(struct py_offsets, f)

const struct py_offset_name py_offset_names[] = {
	{ "runtime.interpreters_head", OFF(runtime_interpreters_head) },
	{ "runtime.autoTSSkey", OFF(runtime_tss_key) },
	{ "interp.next", OFF(interp_next) },
	{ "interp.threads_head", OFF(interp_threads_head) },
	{ "tstate.next", OFF(tstate_next) },
	{ "tstate.thread_id", OFF(tstate_thread_id) },
	{ "tstate.native_thread_id", OFF(tstate_native_thread_id) },
	{ "tstate.frame", OFF(tstate_frame) },
	{ "cframe.current_frame", OFF(cframe_current_frame) },
	{ "frame.previous", OFF(frame_previous) },
	{ "frame.code", OFF(frame_code) },
	{ "frame.instr", OFF(frame_instr) },
	{ "frame.owner", OFF(frame_owner) },
	{ "frame.is_entry", OFF(frame_is_entry) },
	{ "code.co_name", OFF(code_name) },
	{ "code.co_qualname", OFF(code_qualname) },
	{ "code.co_filename", OFF(code_filename) },
	{ "code.co_firstlineno", OFF(code_firstlineno) },
	{ "code.co_linetable", OFF(code_linetable) },
	{ "code.co_lnotab", OFF(code_lnotab) },
	{ "code.co_code", OFF(code_code) },
	{ "code.co_code_adaptive", OFF(code_adaptive) },
	{ "bytes.ob_sval", OFF(bytes_sval) },
	{ "str.length", OFF(str_length) },
	{ "str.state", OFF(str_state) },
	{ "str.data", OFF(str_data) },
	{ "str.ascii_bit", OFF(str_ascii_bit) },
	{ "str.compact_bit", OFF(str_compact_bit) },
};
const size_t py_offset_names_count = ARRAY_SIZE(py_offset_names);

_Static_assert(sizeof(struct py_offsets) == ARRAY_SIZE(py_offset_names) * sizeof(int32_t),
	       "every offset has a name");

int32_t py_offsets__get(const struct py_offsets *off, size_t i)
{
	int32_t v;

	if (i >= py_offset_names_count)
		return PY_OFF_NONE;
	memcpy(&v, (const char *)off + py_offset_names[i].field, sizeof(v));
	return v;
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

static void set_version_hex(struct py_runtime *pr, uint32_t hex)
{
	pr->version_hex = hex;
	pr->major = hex >> 24;
	pr->minor = hex >> 16;
	pr->micro = hex >> 8;
}

static int version_from_symbol(const struct elf_file *ef, const struct elf_symbol_query *s,
			       struct py_runtime *pr)
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
				   struct py_runtime *pr)
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

/* ---- 3.13: _Py_DebugOffsets ---- */

/*
 * The layout of _Py_DebugOffsets in 3.13 (Include/internal/pycore_runtime.h):
 * u64 words, each group starting with the size of the struct it describes.
 */
enum {
	DO_COOKIE = 0,
	DO_VERSION = 8,
	DO_FREE_THREADED = 16,
	DO_RUNTIME_SIZE = 24,
	DO_RUNTIME_INTERPRETERS_HEAD = 40,
	DO_INTERP_SIZE = 48,
	DO_INTERP_NEXT = 64,
	DO_INTERP_THREADS_HEAD = 72,
	DO_TSTATE_SIZE = 152,
	DO_TSTATE_NEXT = 168,
	DO_TSTATE_CURRENT_FRAME = 184,
	DO_TSTATE_THREAD_ID = 192,
	DO_TSTATE_NATIVE_THREAD_ID = 200,
	DO_FRAME_SIZE = 224,
	DO_FRAME_PREVIOUS = 232,
	DO_FRAME_EXECUTABLE = 240,
	DO_FRAME_INSTR_PTR = 248,
	DO_FRAME_OWNER = 264,
	DO_CODE_SIZE = 272,
	DO_CODE_FILENAME = 280,
	DO_CODE_NAME = 288,
	DO_CODE_QUALNAME = 296,
	DO_CODE_LINETABLE = 304,
	DO_CODE_FIRSTLINENO = 312,
	DO_CODE_ADAPTIVE = 344,
	DO_STR_SIZE = 536,
	DO_STR_STATE = 544,
	DO_STR_LENGTH = 552,
	DO_STR_ASCII_SIZE = 560,
	DO_SIZE_3_13 = 584,
};

#define DEBUG_COOKIE "xdebugpy"
/* No struct of CPython's is this large: a bigger size is not a 3.13 table. */
#define DO_STRUCT_MAX (1 << 20)

static uint64_t do_word(const uint8_t *t, size_t at)
{
	uint64_t v;

	memcpy(&v, t + at, sizeof(v));
	return v;
}

/*
 * Field at of a struct whose size is at size_at, into *out: it must lie
 * inside the struct, with room for width bytes.
 */
static int do_field(const uint8_t *t, size_t size_at, size_t at, unsigned int width, int32_t *out)
{
	uint64_t size = do_word(t, size_at), v = do_word(t, at);

	if (size > DO_STRUCT_MAX || v > size || width > size - v)
		return -EINVAL;
	*out = (int32_t)v;
	return 0;
}

static int read_debug_offsets(const struct elf_file *ef, const struct elf_symbol_query *runtime,
			      struct py_runtime *pr)
{
	struct py_offsets *o = &pr->off;
	const struct {
		size_t size_at, at;
		unsigned int width;
		int32_t *out;
	} fields[] = {
		{ DO_RUNTIME_SIZE, DO_RUNTIME_INTERPRETERS_HEAD, 8, &o->runtime_interpreters_head },
		{ DO_INTERP_SIZE, DO_INTERP_NEXT, 8, &o->interp_next },
		{ DO_INTERP_SIZE, DO_INTERP_THREADS_HEAD, 8, &o->interp_threads_head },
		{ DO_TSTATE_SIZE, DO_TSTATE_NEXT, 8, &o->tstate_next },
		{ DO_TSTATE_SIZE, DO_TSTATE_CURRENT_FRAME, 8, &o->tstate_frame },
		{ DO_TSTATE_SIZE, DO_TSTATE_THREAD_ID, 8, &o->tstate_thread_id },
		{ DO_TSTATE_SIZE, DO_TSTATE_NATIVE_THREAD_ID, 4, &o->tstate_native_thread_id },
		{ DO_FRAME_SIZE, DO_FRAME_PREVIOUS, 8, &o->frame_previous },
		{ DO_FRAME_SIZE, DO_FRAME_EXECUTABLE, 8, &o->frame_code },
		{ DO_FRAME_SIZE, DO_FRAME_INSTR_PTR, 8, &o->frame_instr },
		{ DO_FRAME_SIZE, DO_FRAME_OWNER, 1, &o->frame_owner },
		{ DO_CODE_SIZE, DO_CODE_FILENAME, 8, &o->code_filename },
		{ DO_CODE_SIZE, DO_CODE_NAME, 8, &o->code_name },
		{ DO_CODE_SIZE, DO_CODE_QUALNAME, 8, &o->code_qualname },
		{ DO_CODE_SIZE, DO_CODE_LINETABLE, 8, &o->code_linetable },
		{ DO_CODE_SIZE, DO_CODE_FIRSTLINENO, 4, &o->code_firstlineno },
		/* the instructions start there: the code object is larger */
		{ DO_CODE_SIZE, DO_CODE_ADAPTIVE, 0, &o->code_adaptive },
		{ DO_STR_SIZE, DO_STR_STATE, 4, &o->str_state },
		{ DO_STR_SIZE, DO_STR_LENGTH, 8, &o->str_length },
		{ DO_STR_SIZE, DO_STR_ASCII_SIZE, 0, &o->str_data },
	};
	const uint8_t *t;

	if (runtime->size < DO_SIZE_3_13 ||
	    !(t = elf_file__vaddr_bytes(ef, runtime->value, DO_SIZE_3_13))) {
		pr_debug("%s: _PyRuntime is too small for _Py_DebugOffsets or lies past the file",
			 elf_file__path(ef));
		return -EINVAL;
	}
	if (memcmp(t + DO_COOKIE, DEBUG_COOKIE, 8)) {
		pr_debug("%s: _PyRuntime does not start with _Py_DebugOffsets", elf_file__path(ef));
		return -EINVAL;
	}
	if (do_word(t, DO_VERSION) != pr->version_hex) {
		pr_debug("%s: _Py_DebugOffsets is of version %#llx, Py_Version says %#x",
			 elf_file__path(ef), (unsigned long long)do_word(t, DO_VERSION),
			 pr->version_hex);
		return -EINVAL;
	}
	if (do_word(t, DO_FREE_THREADED)) {
		pr_debug("%s: a free-threaded build: its objects are laid out differently",
			 elf_file__path(ef));
		return -ENOTSUP;
	}
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		if (do_field(t, fields[i].size_at, fields[i].at, fields[i].width, fields[i].out)) {
			pr_debug("%s: _Py_DebugOffsets word %zu lies outside its struct",
				 elf_file__path(ef), fields[i].at);
			return -EINVAL;
		}
	}
	/* In the layout of the headers of 3.13, which the table does not describe. */
	o->runtime_tss_key = PY_OFF_NONE;
	o->cframe_current_frame = PY_OFF_NONE;
	o->frame_is_entry = PY_OFF_NONE;
	o->code_lnotab = PY_OFF_NONE;
	o->code_code = PY_OFF_NONE;
	o->bytes_sval = PY_OFF_NONE;
	o->str_ascii_bit = 6;
	o->str_compact_bit = 5;
	pr->offsets_source = PY_OFFSETS_DEBUG_OFFSETS;
	return 0;
}

/* ---- all of it ---- */

static int read_offsets(const struct elf_file *ef, const struct elf_symbol_query *syms,
			struct py_runtime *pr)
{
	if (pr->minor == 13)
		return read_debug_offsets(ef, &syms[SYM_RUNTIME], pr);
	for (size_t i = 0; i < ARRAY_SIZE(py_table); i++) {
		if (py_table[i].minor == pr->minor) {
			pr->off = py_table[i].off;
			pr->offsets_source = PY_OFFSETS_TABLE;
			return 0;
		}
	}
	return -ENOTSUP;
}

/* The anchor of the thread list and the TLS key, once the version is known. */
static int read_anchors(const struct elf_file *ef, const struct elf_symbol_query *syms,
			struct py_runtime *pr)
{
	const struct elf_symbol_query *anchor =
		&syms[pr->minor == 6 ? SYM_INTERP_HEAD : SYM_RUNTIME];

	pr->runtime_symbol = py_sym_names[pr->minor == 6 ? SYM_INTERP_HEAD : SYM_RUNTIME].name;
	if (!anchor->found) {
		pr_debug("%s: CPython %u.%u without %s (stripped?)", elf_file__path(ef), pr->major,
			 pr->minor, pr->runtime_symbol);
		return -ENOTSUP;
	}
	/* Nothing lives at 0 (0 is "none" here): the ELF header is there, or nothing. */
	if (!anchor->value || (uint64_t)pr->off.runtime_interpreters_head + 8 > anchor->size ||
	    !elf_file__vaddr_mapped(ef, anchor->value, anchor->size)) {
		pr_debug("%s: %s lies outside the file or is too small", elf_file__path(ef),
			 pr->runtime_symbol);
		return -EINVAL;
	}
	pr->runtime = anchor->value;
	if (pr->minor == 6 && syms[SYM_TLS_KEY].found && syms[SYM_TLS_KEY].size == 4 &&
	    syms[SYM_TLS_KEY].value)
		pr->tls_key = syms[SYM_TLS_KEY].value;
	if (pr->off.runtime_tss_key != PY_OFF_NONE) {
		/* Py_tss_t: int _is_initialized; pthread_key_t _key */
		if ((uint64_t)pr->off.runtime_tss_key + 8 > anchor->size) {
			pr_debug("%s: autoTSSkey lies past the end of _PyRuntime",
				 elf_file__path(ef));
			return -EINVAL;
		}
		pr->tls_key = anchor->value + pr->off.runtime_tss_key + 4;
	}
	return 0;
}

/* ---- the eval loop's .cold part, in a stripped file ---- */

#define COLD_MIN_JUMPS 16	/* jumps back into the loop a .cold part makes, at least */
#define COLD_LEAD 4		/* ...and this many times as many as any other function */
#define COLD_MAX_LEN (1u << 20) /* a function longer than this is not looked into */

uint32_t py_jumps_into(const uint8_t *code, size_t len, uint64_t vaddr, uint64_t lo, uint64_t hi)
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
	n = code ? py_jumps_into(code, hi - lo, lo, cs->eval_lo, cs->eval_hi) : 0;
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
static void find_cold(const struct elf_file *ef, struct py_runtime *pr)
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
		     struct py_runtime *pr)
{
	const struct elf_symbol_query *e = &syms[SYM_EVAL], *c = &syms[SYM_EVAL_COLD];

	if (!e->value || !e->size || e->value + e->size < e->value ||
	    !elf_file__vaddr_bytes(ef, e->value, e->size)) {
		pr_debug("%s: _PyEval_EvalFrameDefault lies outside the file", elf_file__path(ef));
		return -EINVAL;
	}
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

int py_runtime__read(const struct elf_file *ef, struct py_runtime *pr)
{
	struct elf_symbol_query syms[SYM_NR];
	unsigned int name_minor;
	int err;

	memset(pr, 0, sizeof(*pr));
	memcpy(syms, py_sym_names, sizeof(syms));
	/* the local symbols (3.6's anchors, .cold) are only in .symtab */
	err = elf_file__find_symbols(ef, syms, SYM_NR);
	if (err)
		return err;
	if (!syms[SYM_EVAL].found || (!syms[SYM_RUNTIME].found && !syms[SYM_INTERP_HEAD].found))
		return -ENOENT;
	if (elf_file__machine(ef) != EM_X86_64) {
		pr_debug("%s: CPython's offsets are known on x86_64 only", elf_file__path(ef));
		return -ENOTSUP;
	}
	if (syms[SYM_PY_VERSION].found)
		err = version_from_symbol(ef, &syms[SYM_PY_VERSION], pr);
	else if (syms[SYM_GETVERSION].found)
		err = version_from_getversion(ef, &syms[SYM_GETVERSION], pr);
	else
		err = -ENOTSUP;
	if (err) {
		pr_debug("%s: the CPython version cannot be read", elf_file__path(ef));
		return err;
	}
	if (pr->major != 3 || pr->minor < 6 || pr->minor > 13) {
		pr_debug("%s: CPython %u.%u is not supported", elf_file__path(ef), pr->major,
			 pr->minor);
		return -ENOTSUP;
	}
	name_minor = minor_from_name(elf_file__path(ef));
	if ((name_minor && name_minor != pr->minor) ||
	    (pr->minor >= 11) != syms[SYM_PY_VERSION].found) {
		pr_debug("%s: the file says CPython %u.%u, its name or its symbols another",
			 elf_file__path(ef), pr->major, pr->minor);
		return -EINVAL;
	}
	pr->frame_layout = pr->minor >= 11 ? PY_FRAME_INTERPRETER : PY_FRAME_OBJECT;
	err = read_offsets(ef, syms, pr);
	if (!err)
		err = read_anchors(ef, syms, pr);
	if (!err)
		err = read_eval(ef, syms, pr);
	if (err) {
		struct py_runtime clean = {};

		*pr = clean;
	}
	return err;
}

const char *py_runtime__version_str(const struct py_runtime *pr, char *buf, size_t size)
{
	unsigned int level = (pr->version_hex >> 4) & 0xf, serial = pr->version_hex & 0xf;
	const char *lv = level == 0xa ? "a" : level == 0xb ? "b" : level == 0xc ? "rc" : "";

	if (level == 0xf)
		snprintf(buf, size, "%u.%u.%u", pr->major, pr->minor, pr->micro);
	else
		snprintf(buf, size, "%u.%u.%u%s%u", pr->major, pr->minor, pr->micro, lv, serial);
	return buf;
}
