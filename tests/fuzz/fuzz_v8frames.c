// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target for the readers of V8's heap
 * (core/runtimes/v8/v8frames.c: a SharedFunctionInfo's name, its Script's
 * name and line ends, its bytecode's source position table, V8's strings):
 * whatever the process's memory holds, naming a frame must neither crash,
 * hang, leak nor read out of bounds; and what it accepts must be a name and
 * a file of printable characters, each ending in its buffer, and a line no
 * further than the Script's lines. Built with -Dfuzz=true under clang;
 * replay.c runs the same function over corpus-v8frames/ in every build.
 *
 * An input: the SharedFunctionInfo's address (8 bytes), a frame's bytecode
 * offset (4; its low 16 bits also a pc of compiled code past MEM_BASE, whose
 * inlined functions are read), which layout (1 byte: even node 20's V8
 * 11.3, odd node 24's V8 13.6, as their v8dbg_ symbols give them), then
 * the process's memory from MEM_BASE on.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/util/log.h"
#include "core/runtimes/v8/v8frames.h"
#include "core/runtimes/v8/v8runtime.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define HEAD 13
#define MEM_BASE 0x10000

/* The tags and string kinds, the same in both. */
#define STRING_TAGS                                                                               \
	.first_nonstring = 128, .string_repr_mask = 7, .string_enc_mask = 8, .one_byte_tag = 8,   \
	.seq_tag = 0, .cons_tag = 1, .sliced_tag = 3, .thin_tag = 5, .external_tag = 2,           \
	.string_length = 12, .seq_one_chars = 16, .seq_two_chars = 16, .cons_first = 16,          \
	.cons_second = 24, .thin_actual = 16, .sliced_parent = 16, .sliced_offset = 24, .map = 0, \
	.instance_type = 12, .array_length = 8, .script_name = 16, .script_source = 8,            \
	.script_line_ends = 56, .scope_ncontextlocals = 2

static const struct v8_layout layouts[2] = {
	{ STRING_TAGS, .fn_shared = 24, .sfi_name = 16, .sfi_data = 8, .sfi_script = 32,
	  .bytecode_data = 54, .bytecode_positions = 32, .scope_first_vars = 3,
	  .type_function_first = 2066, .type_function_last = 2080, .type_sfi = 262,
	  .type_script = 167, .type_scope_info = 261, .type_bytecode_array = 191,
	  .type_byte_array = 190, .type_trusted_byte_array = -1, .type_fixed_array = 175 },
	{ STRING_TAGS,
	  .fn_shared = 32,
	  .sfi_name = 24,
	  .sfi_data = 8,
	  .sfi_script = 40,
	  .bytecode_data = 64,
	  .bytecode_positions = 24,
	  .scope_first_vars = 5,
	  .type_instruction_stream = 192,
	  .is_code = 8,
	  .is_instructions = 32,
	  .type_code = 187,
	  .code_stream = 32,
	  .code_instructions = 40,
	  .code_size = 56,
	  .code_deopt = 8,
	  .code_positions = 16,
	  .deopt_inlined_count = 1,
	  .deopt_literals = 3,
	  .deopt_inlining = 8,
	  .deopt_wrapped_sfi = 7,
	  .wrapper_sfi = 8,
	  .type_function_first = 2065,
	  .type_function_last = 2081,
	  .type_sfi = 282,
	  .type_script = 167,
	  .type_scope_info = 280,
	  .type_bytecode_array = 186,
	  .type_byte_array = 217,
	  .type_trusted_byte_array = 196,
	  .type_fixed_array = 205 },
};

struct fake_mem {
	const uint8_t *bytes;
	size_t len;
};

/* All or nothing, as /proc/PID/mem reads. */
static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct fake_mem *m = ctx;

	if (addr < MEM_BASE || addr - MEM_BASE > m->len || len > m->len - (addr - MEM_BASE))
		return -EFAULT;
	memcpy(buf, m->bytes + (addr - MEM_BASE), len);
	return 0;
}

/* A string the readers accepted: it ends in its buffer, every character printable. */
static void check_string(const char *s, size_t size)
{
	size_t n = strnlen(s, size);

	if (n == size)
		__builtin_trap();
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			__builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fake_mem fm;
	struct v8_mem m;
	struct v8_code_frame frames[FRAME_INLINED_MAX + 1];
	uint64_t stream_map = 0;
	struct v8_sfi s;
	char name[256];
	uint64_t sfi;
	uint32_t off, line;
	uint8_t *copy;

	log_level = -1;
	if (size < HEAD)
		return 0;
	memcpy(&sfi, data, 8);
	memcpy(&off, data + 8, 4);
	/* A copy of exactly the memory's bytes: ASan then catches any read past the end. */
	copy = malloc(size - HEAD ? size - HEAD : 1);
	if (!copy)
		return 0;
	memcpy(copy, data + HEAD, size - HEAD);
	fm = (struct fake_mem){ copy, size - HEAD };
	m = (struct v8_mem){ .read = fake_read, .ctx = &fm, .l = &layouts[data[12] & 1] };
	if (v8frames__string(&m, sfi + 1, name, sizeof(name)) == 0)
		check_string(name, sizeof(name));
	if (v8frames__sfi_read(&m, sfi, &s) == 0) {
		check_string(s.name, strlen(s.name) + 1);
		if (s.file)
			check_string(s.file, strlen(s.file) + 1);
		line = v8frames__line(&m, &s, off);
		if (line > s.nr_line_ends + 1 || s.first_line > s.nr_line_ends + 1)
			__builtin_trap();
		v8frames__sfi_clear(&s);
	}
	/* the bytecode offset's word as a pc of compiled code */
	if (v8frames__pc_frames(&m, MEM_BASE + (off & 0xffff), &stream_map, frames,
				FRAME_INLINED_MAX + 1) > FRAME_INLINED_MAX + 1)
		__builtin_trap();
	free(copy);
	return 0;
}
