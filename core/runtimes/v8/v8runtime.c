// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading what a walk of V8's frames needs from a node's or a libnode's
 * ELF file: V8's own metadata (its v8dbg_ symbols). See v8runtime.h.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../../elf/elf_file.h"
#include "../../util/log.h"
#include "../../util/json.h"
#include "bpf/abi.h"
#include "v8runtime.h"

#define NAMES_MAX 3

/* A field of struct v8_layout and the v8dbg_ symbols that give it, the first found winning. */
struct v8_entry {
	const char *key; /* what dump-unwind calls it */
	size_t off;	 /* in struct v8_layout */
	bool optional;	 /* -1 when none is found: placed by v8runtime__read */
	const char *names[NAMES_MAX];
};

#define L(field) offsetof(struct v8_layout, field)

static const struct v8_entry entries[] = {
	{ "fp.marker", L(fp_marker), false, { "off_fp_context_or_frame_type", "off_fp_context" } },
	{ "fp.function", L(fp_function), false, { "off_fp_function" } },
	{ "fp.bytecode_array", L(fp_bytecode_array), false, { "off_fp_bytecode_array" } },
	{ "fp.bytecode_offset", L(fp_bytecode_offset), false, { "off_fp_bytecode_offset" } },
	{ "HeapObject.map", L(map), false, { "class_HeapObject__map__Map" } },
	{ "Map.instance_type", L(instance_type), false, { "class_Map__instance_type__uint16_t" } },
	{ "JSFunction.shared",
	  L(fn_shared),
	  false,
	  { "class_JSFunction__shared__SharedFunctionInfo",
	    "class_JSFunction__shared__Tagged_SharedFunctionInfo_" } },
	{ "SharedFunctionInfo.name_or_scope_info",
	  L(sfi_name),
	  false,
	  { "class_SharedFunctionInfo__name_or_scope_info__Object",
	    "class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_",
	    "class_SharedFunctionInfo__name_or_scope_info__Tagged_NameOrScopeInfoT_" } },
	{ "SharedFunctionInfo.function_data",
	  L(sfi_data),
	  true,
	  { "class_SharedFunctionInfo__function_data__Object",
	    "class_SharedFunctionInfo__function_data__Tagged_Object_" } },
	{ "SharedFunctionInfo.script",
	  L(sfi_script),
	  false,
	  { "class_SharedFunctionInfo__script_or_debug_info__HeapObject",
	    "class_SharedFunctionInfo__script__Tagged_HeapObject_",
	    "class_SharedFunctionInfo__raw_script__Tagged_Object_" } },
	{ "Script.name", L(script_name), false, { "class_Script__name__Object" } },
	{ "Script.source", L(script_source), false, { "class_Script__source__Object" } },
	{ "Script.line_ends", L(script_line_ends), true, { "class_Script__line_ends__Object" } },
	{ "FixedArrayBase.length", L(array_length), false, { "class_FixedArrayBase__length__SMI" } },
	{ "String.length", L(string_length), false, { "class_String__length__int32_t" } },
	{ "SeqOneByteString.chars",
	  L(seq_one_chars),
	  false,
	  { "class_SeqOneByteString__chars__char" } },
	{ "SeqTwoByteString.chars",
	  L(seq_two_chars),
	  false,
	  { "class_SeqTwoByteString__chars__char" } },
	{ "ConsString.first", L(cons_first), false, { "class_ConsString__first__String" } },
	{ "ConsString.second", L(cons_second), false, { "class_ConsString__second__String" } },
	{ "ThinString.actual", L(thin_actual), false, { "class_ThinString__actual__String" } },
	{ "SlicedString.parent", L(sliced_parent), false, { "class_SlicedString__parent__String" } },
	{ "SlicedString.offset", L(sliced_offset), false, { "class_SlicedString__offset__SMI" } },
	{ "BytecodeArray.data",
	  L(bytecode_data),
	  false,
	  { "class_BytecodeArray__data__uintptr_t" } },
	{ "BytecodeArray.source_position_table",
	  L(bytecode_positions),
	  true,
	  { "class_BytecodeArray__source_position_table__Object",
	    "class_BytecodeArray__source_position_table__Tagged_HeapObject_" } },
	{ "ScopeInfo.first_vars", L(scope_first_vars), false, { "scopeinfo_idx_first_vars" } },
	{ "ScopeInfo.ncontextlocals",
	  L(scope_ncontextlocals),
	  false,
	  { "scopeinfo_idx_ncontextlocals" } },
	{ "type.JSFunction.first",
	  L(type_function_first),
	  false,
	  { "FirstJSFunctionType", "type_JSFunction__JS_FUNCTION_TYPE" } },
	{ "type.JSFunction.last", L(type_function_last), true, { "LastJSFunctionType" } },
	{ "type.SharedFunctionInfo",
	  L(type_sfi),
	  false,
	  { "type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE" } },
	{ "type.Script", L(type_script), false, { "type_Script__SCRIPT_TYPE" } },
	{ "type.ScopeInfo", L(type_scope_info), false, { "type_ScopeInfo__SCOPE_INFO_TYPE" } },
	{ "type.BytecodeArray",
	  L(type_bytecode_array),
	  false,
	  { "type_BytecodeArray__BYTECODE_ARRAY_TYPE" } },
	{ "type.ByteArray", L(type_byte_array), false, { "type_ByteArray__BYTE_ARRAY_TYPE" } },
	{ "type.TrustedByteArray",
	  L(type_trusted_byte_array),
	  true,
	  { "type_TrustedByteArray__TRUSTED_BYTE_ARRAY_TYPE" } },
	{ "type.FixedArray", L(type_fixed_array), false, { "type_FixedArray__FIXED_ARRAY_TYPE" } },
	{ "FirstNonstringType", L(first_nonstring), false, { "FirstNonstringType" } },
	{ "StringRepresentationMask", L(string_repr_mask), false, { "StringRepresentationMask" } },
	{ "StringEncodingMask", L(string_enc_mask), false, { "StringEncodingMask" } },
	{ "OneByteStringTag", L(one_byte_tag), false, { "OneByteStringTag" } },
	{ "SeqStringTag", L(seq_tag), false, { "SeqStringTag" } },
	{ "ConsStringTag", L(cons_tag), false, { "ConsStringTag" } },
	{ "SlicedStringTag", L(sliced_tag), false, { "SlicedStringTag" } },
	{ "ThinStringTag", L(thin_tag), false, { "ThinStringTag" } },
	{ "ExternalStringTag", L(external_tag), false, { "ExternalStringTag" } },
	{ "type.InstructionStream",
	  L(type_instruction_stream),
	  true,
	  { "type_InstructionStream__INSTRUCTION_STREAM_TYPE" } },
	{ "InstructionStream.instruction_start",
	  L(is_instructions),
	  true,
	  { "class_InstructionStream__instruction_start__uintptr_t" } },
	{ "type.Code", L(type_code), true, { "type_Code__CODE_TYPE" } },
	{ "Code.instruction_stream",
	  L(code_stream),
	  true,
	  { "class_Code__instruction_stream__Tagged_InstructionStream_" } },
	{ "Code.instruction_start",
	  L(code_instructions),
	  true,
	  { "class_Code__instruction_start__Address" } },
	{ "Code.instruction_size", L(code_size), true, { "class_Code__instruction_size__int" } },
	{ "Code.deoptimization_data",
	  L(code_deopt),
	  true,
	  { "class_Code__deoptimization_data__FixedArray" } },
	{ "Code.source_position_table",
	  L(code_positions),
	  true,
	  { "class_Code__source_position_table__ByteArray" } },
	{ "DeoptimizationData.shared_function_info",
	  L(deopt_sfi),
	  true,
	  { "DeoptimizationDataSharedFunctionInfoIndex" } },
	{ "DeoptimizationData.wrapped_shared_function_info",
	  L(deopt_wrapped_sfi),
	  true,
	  { "DeoptimizationDataWrappedSharedFunctionInfoIndex" } },
	{ "SharedFunctionInfoWrapper.shared_info",
	  L(wrapper_sfi),
	  true,
	  { "class_SharedFunctionInfoWrapper__shared_info__Tagged_SharedFunctionInfo_" } },
	{ "DeoptimizationData.inlined_function_count",
	  L(deopt_inlined_count),
	  true,
	  { "DeoptimizationDataInlinedFunctionCountIndex" } },
	{ "DeoptimizationData.literal_array",
	  L(deopt_literals),
	  true,
	  { "DeoptimizationDataLiteralArrayIndex" } },
	{ "DeoptimizationData.inlining_positions",
	  L(deopt_inlining),
	  true,
	  { "DeoptimizationDataInliningPositionsIndex" } },
};

/* The tags the walk and the namer take as fixed: a 64-bit V8 without pointer compression. */
static const struct {
	const char *name;
	int32_t value;
} fixed[] = {
	{ "HeapObjectTag", 1 }, { "HeapObjectTagMask", 3 }, { "SmiTagMask", 1 },
	{ "SmiShiftSize", 31 }, { "SystemPointerSize", 8 },
};

enum { SYM_MAJOR, SYM_MINOR, SYM_BUILD, SYM_PATCH, SYM_BLOB, SYM_BLOB_SIZE, SYM_FIXED };

#define NR_ENTRY_SYMS (ARRAY_SIZE(entries) * NAMES_MAX)
#define NR_SYMS (SYM_FIXED + ARRAY_SIZE(fixed) + NR_ENTRY_SYMS)

static const struct elf_symbol_query head_syms[SYM_FIXED] = {
	[SYM_MAJOR] = { "_ZN2v88internal7Version6major_E", STT_OBJECT },
	[SYM_MINOR] = { "_ZN2v88internal7Version6minor_E", STT_OBJECT },
	[SYM_BUILD] = { "_ZN2v88internal7Version6build_E", STT_OBJECT },
	[SYM_PATCH] = { "_ZN2v88internal7Version6patch_E", STT_OBJECT },
	[SYM_BLOB] = { "v8_Default_embedded_blob_code_", STT_NOTYPE },
	[SYM_BLOB_SIZE] = { "v8_Default_embedded_blob_code_size_", STT_NOTYPE },
};

/*
 * The int of symbol q: from the file, or 0 for one in memory the loader
 * zeroes (.bss: V8 leaves the zeros there). -EINVAL when it is neither.
 */
static int sym_int(const struct elf_file *ef, const struct elf_symbol_query *q, int32_t *v)
{
	const uint8_t *b = elf_file__vaddr_bytes(ef, q->value, sizeof(*v));

	if (b) {
		memcpy(v, b, sizeof(*v));
		return 0;
	}
	if (!elf_file__vaddr_mapped(ef, q->value, sizeof(*v)))
		return -EINVAL;
	*v = 0;
	return 0;
}

/* The queries of every symbol read, the v8dbg_ names built in names (freed by the caller). */
static int build_queries(struct elf_symbol_query *qs, char **names)
{
	size_t k = SYM_FIXED;

	memcpy(qs, head_syms, sizeof(head_syms));
	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++, k++) {
		names[k] = NULL;
		if (asprintf(&names[k], "v8dbg_%s", fixed[i].name) < 0)
			return -ENOMEM;
		qs[k] = (struct elf_symbol_query){ .name = names[k], .type = STT_OBJECT };
	}
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++)
		for (size_t j = 0; j < NAMES_MAX; j++, k++) {
			names[k] = NULL;
			qs[k] = (struct elf_symbol_query){ .name = "", .type = 0xff };
			if (!entries[i].names[j])
				continue;
			if (asprintf(&names[k], "v8dbg_%s", entries[i].names[j]) < 0)
				return -ENOMEM;
			qs[k] = (struct elf_symbol_query){ .name = names[k], .type = STT_OBJECT };
		}
	return 0;
}

static void read_version(const struct elf_file *ef, const struct elf_symbol_query *qs,
			 struct v8runtime *r)
{
	uint32_t *out[] = { &r->major, &r->minor, &r->build, &r->patch };

	for (size_t i = 0; i < ARRAY_SIZE(out); i++) {
		int32_t v = 0;

		if (qs[i].found && sym_int(ef, &qs[i], &v) == 0 && v >= 0)
			*out[i] = (uint32_t)v;
	}
}

/* The embedded builtins' code, when .symtab says where it is. */
static void read_builtins(const struct elf_file *ef, const struct elf_symbol_query *qs,
			  struct v8runtime *r)
{
	const struct elf_symbol_query *blob = &qs[SYM_BLOB], *size = &qs[SYM_BLOB_SIZE];
	int32_t n = 0;

	if (!blob->found || !size->found || sym_int(ef, size, &n) || n <= 0 ||
	    !elf_file__vaddr_bytes(ef, blob->value, (size_t)n))
		return;
	r->builtins_lo = blob->value;
	r->builtins_hi = blob->value + (uint64_t)n;
}

/* The covered ranges of .eh_frame's FDEs, as .eh_frame_hdr's table lists them. */
struct fde_range {
	uint64_t lo, hi;
};

static int range_cmp(const void *a, const void *b)
{
	const struct fde_range *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

static int32_t le_s32(const uint8_t *p)
{
	int32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The ranges of the FDEs .eh_frame_hdr's table lists (the encodings gcc
 * and clang emit on x86-64: a table of datarel sdata4 pairs, FDEs whose
 * initial location is pcrel sdata4, their range a 4-byte length), sorted,
 * in *out (malloc'd); their number, or 0 when they are not so.
 */
static size_t fde_ranges(const struct elf_file *ef, struct fde_range **out)
{
	struct elf_section hdr, eh;
	struct fde_range *r;
	uint32_t n;

	*out = NULL;
	if (elf_file__section(ef, ".eh_frame_hdr", &hdr) ||
	    elf_file__section(ef, ".eh_frame", &eh) || hdr.size < 12 || hdr.data[0] != 1 ||
	    hdr.data[2] != 0x03 || hdr.data[3] != 0x3b)
		return 0;
	memcpy(&n, hdr.data + 8, sizeof(n));
	if (!n || n > (hdr.size - 12) / 8 || !(r = calloc(n, sizeof(*r))))
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t loc = hdr.addr + (uint64_t)(int64_t)le_s32(hdr.data + 12 + 8 * i);
		uint64_t fde = hdr.addr + (uint64_t)(int64_t)le_s32(hdr.data + 16 + 8 * i);
		uint64_t at = fde - eh.addr;

		/* length, CIE pointer, initial location (pcrel), range */
		if (fde < eh.addr || at + 16 > eh.size ||
		    fde + 8 + (uint64_t)(int64_t)le_s32(eh.data + at + 8) != loc) {
			free(r);
			return 0;
		}
		r[i] = (struct fde_range){ loc, loc + (uint32_t)le_s32(eh.data + at + 12) };
	}
	qsort(r, n, sizeof(*r), range_cmp);
	*out = r;
	return n;
}

/*
 * Where .symtab does not say (a stripped libnode), the embedded builtins'
 * code is the largest stretch of .text that no FDE covers: V8 emits its
 * builtins without CFI, as one blob, the only such stretch of megabytes.
 * Taken when it is at least BUILTINS_MIN bytes.
 */
#define BUILTINS_MIN (512u << 10)

static void find_builtins(const struct elf_file *ef, struct v8runtime *r)
{
	struct elf_section text;
	struct fde_range *fr;
	size_t n = fde_ranges(ef, &fr);
	uint64_t at, best = 0, lo = 0;

	if (!n || elf_file__section(ef, ".text", &text)) {
		free(fr);
		return;
	}
	at = text.addr;
	for (size_t i = 0; i <= n; i++) {
		uint64_t next = i < n ? fr[i].lo : text.addr + text.size;

		if (next > text.addr + text.size)
			next = text.addr + text.size;
		if (next > at && next - at > best) {
			best = next - at;
			lo = at;
		}
		if (i < n && fr[i].hi > at)
			at = fr[i].hi;
	}
	free(fr);
	if (best >= BUILTINS_MIN) {
		r->builtins_lo = lo;
		r->builtins_hi = lo + best;
		r->builtins_guessed = true;
	}
}

/*
 * The fields the metadata lost, placed as V8's classes lay them out: a
 * SharedFunctionInfo's function data before its name (V8 12 and later:
 * its trusted function data, two words before), a BytecodeArray's source
 * position table after its wrapper (V8 12) or three words past its length;
 * the JSFunction's subclasses (its constructors' kinds) after it.
 */
static void place_lost(struct v8runtime *r)
{
	struct v8_layout *l = &r->l;

	if (l->sfi_data < 0)
		l->sfi_data = l->sfi_name - (r->major >= 12 ? 16 : 8);
	if (l->bytecode_positions < 0)
		l->bytecode_positions = l->array_length + (r->major >= 12 ? 16 : 24);
	if (l->type_function_last < 0)
		l->type_function_last = l->type_function_first + 14;
	/*
	 * A Code: in V8 12 and later its deoptimization data and source
	 * position table are the two words after its map; in V8 11 (whose
	 * metadata has those two) its instruction stream, instructions' start
	 * and their size are where V8 12 has them. An instruction stream's
	 * Code is the word after its map.
	 */
	l->is_code = -1;
	if (r->major >= 12 && l->code_stream >= 24) {
		l->code_deopt = 8;
		l->code_positions = 16;
		l->is_code = 8;
	} else if (r->major == 11 && l->code_deopt > 0 && l->code_positions > 0 &&
		   l->code_stream < 0 && l->code_instructions < 0 && l->code_size < 0) {
		l->code_stream = 32;
		l->code_instructions = 40;
		l->code_size = 56;
		l->is_code = 8;
	} else {
		l->code_deopt = l->code_positions = -1;
	}
}

/* Whether the frame's slots lie where the walk reads them (bpf/unwind_v8.h). */
static bool layout_fits(const struct v8_layout *l)
{
	const int32_t slots[] = { l->fp_marker, l->fp_function, l->fp_bytecode_offset };

	for (size_t i = 0; i < ARRAY_SIZE(slots); i++)
		if (slots[i] < -UNW_V8_FP_BELOW || slots[i] > -8 || slots[i] % 8)
			return false;
	return l->map >= 0 && l->map < 256 && l->instance_type >= 0 && l->instance_type < 256 &&
	       l->fn_shared >= 0 && l->fn_shared < 256 && l->sfi_name >= 0 && l->sfi_name < 256 &&
	       l->type_function_first > 0 && l->type_function_last >= l->type_function_first &&
	       l->type_function_last < 65536;
}

static int read_layout(const struct elf_file *ef, const struct elf_symbol_query *qs,
		       struct v8runtime *r)
{
	const struct elf_symbol_query *q = qs + SYM_FIXED;

	for (size_t i = 0; i < ARRAY_SIZE(fixed); i++, q++) {
		int32_t v;

		if (!q->found || sym_int(ef, q, &v) || v != fixed[i].value) {
			r->missing = fixed[i].name;
			return -ENOTSUP;
		}
	}
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++, q += NAMES_MAX) {
		int32_t *field = (int32_t *)((char *)&r->l + entries[i].off);
		size_t j = 0;

		while (j < NAMES_MAX && !q[j].found)
			j++;
		*field = -1;
		if (j < NAMES_MAX && sym_int(ef, &q[j], field) == 0)
			continue;
		*field = -1;
		if (!entries[i].optional) {
			r->missing = entries[i].names[0];
			return -ENOTSUP;
		}
	}
	place_lost(r);
	if (!layout_fits(&r->l)) {
		r->missing = "off_fp_function";
		return -ENOTSUP;
	}
	return 0;
}

int v8runtime__read(const struct elf_file *ef, struct v8runtime *r)
{
	struct elf_symbol_query qs[NR_SYMS];
	char *names[NR_SYMS] = { 0 };
	bool any = false;
	int err;

	memset(r, 0, sizeof(*r));
	err = build_queries(qs, names);
	if (!err)
		err = elf_file__find_symbols(ef, qs, NR_SYMS);
	for (size_t k = SYM_FIXED; k < NR_SYMS && !err; k++)
		any |= qs[k].found;
	if (!err && !any)
		err = -ENOENT;
	if (!err) {
		read_version(ef, qs, r);
		read_builtins(ef, qs, r);
		if (!r->builtins_hi)
			find_builtins(ef, r);
		if (elf_file__machine(ef) != EM_X86_64) {
			r->missing = "an x86-64 build";
			err = -ENOTSUP;
		} else {
			err = read_layout(ef, qs, r);
		}
	}
	for (size_t k = 0; k < NR_SYMS; k++)
		free(names[k]);
	return err;
}

void v8runtime__print(FILE *f, const struct v8runtime *r)
{
	fprintf(f, "V8:          %u.%u.%u.%u, ", r->major, r->minor, r->build, r->patch);
	if (r->builtins_hi)
		fprintf(f, "embedded builtins %#" PRIx64 "-%#" PRIx64 "%s, ", r->builtins_lo,
			r->builtins_hi, r->builtins_guessed ? " (code without CFI)" : "");
	else
		fprintf(f, "embedded builtins not known, ");
	fprintf(f, "JSFunction at fp%+d, bytecode offset at fp%+d, JSFunction types %d-%d\n",
		r->l.fp_function, r->l.fp_bytecode_offset, r->l.type_function_first,
		r->l.type_function_last);
}

void v8runtime__print_json(struct json_writer *jw, const struct v8runtime *r)
{
	json__key(jw, "v8");
	json__object_start(jw);
	json__key(jw, "version");
	json__stringf(jw, "%u.%u.%u.%u", r->major, r->minor, r->build, r->patch);
	json__key(jw, "builtins");
	json__array_start(jw);
	json__stringf(jw, "%#" PRIx64, r->builtins_lo);
	json__stringf(jw, "%#" PRIx64, r->builtins_hi);
	json__array_end(jw);
	json__key(jw, "layout");
	json__object_start(jw);
	for (size_t i = 0; i < ARRAY_SIZE(entries); i++) {
		json__key(jw, entries[i].key);
		json__int(jw, *(const int32_t *)((const char *)&r->l + entries[i].off));
	}
	/* the fields placed where the metadata has none (-1: not read) */
	json__key(jw, "InstructionStream.code");
	json__int(jw, r->l.is_code);
	json__object_end(jw);
	json__object_end(jw);
}
