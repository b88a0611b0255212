// SPDX-License-Identifier: GPL-2.0-only
/*
 * The jitdump reader: the records of perf's jitdump format (Linux's
 * tools/perf/Documentation/jitdump-specification.txt), version 1, in the
 * byte order of the host, which wrote it. A header:
 *
 *	u32 magic "JiTD" (0x4a695444), u32 version, u32 total_size,
 *	u32 elf_mach, u32 pad, u32 pid, u64 timestamp, u64 flags
 *
 * then records, each "u32 id, u32 total_size, u64 timestamp" and a body:
 *
 *	0 CODE_LOAD	u32 pid, u32 tid, u64 vma, u64 code_addr, u64 code_size,
 *			u64 code_index, the name (NUL-terminated), the code
 *	1 CODE_MOVE	u32 pid, u32 tid, u64 vma, u64 old_code_addr,
 *			u64 new_code_addr, u64 code_size, u64 code_index
 *	2 DEBUG_INFO	source lines of code loaded next: not read
 *	3 CLOSE		the end
 *	4 UNWINDING_INFO .eh_frame and .eh_frame_hdr of code loaded next:
 *			counted, not used (the BPF side unwinds JIT code by
 *			frame pointers)
 *
 * Records of other ids are skipped by their size. A record cut short (the
 * runtime is writing it) ends the reading: it is read again whole. A header
 * that names another process than the one the file is of (the pid in its
 * name, jit-PID.dump, which the runtime wrote as its own), or flags the
 * specification does not define, makes the file no jitdump of this
 * process: none of it is read.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "../util/cursor.h"
#include "jit_map.h"
#include "jitdump.h"

#define JITDUMP_MAGIC 0x4a695444
#define JITDUMP_RECORD_SIZE 16
#define JITDUMP_FLAGS_KNOWN 1ULL /* JITDUMP_FLAGS_ARCH_TIMESTAMP */

enum {
	JIT_CODE_LOAD = 0,
	JIT_CODE_MOVE = 1,
	JIT_CODE_DEBUG_INFO = 2,
	JIT_CODE_CLOSE = 3,
	JIT_CODE_UNWINDING_INFO = 4,
};

/* CODE_LOAD: the code at code_addr, named. */
static int code_load(struct cursor *c, struct jit_map_builder *b)
{
	uint64_t addr, size;
	const char *name;

	skip(c, 4 + 4 + 8); /* pid, tid, vma */
	addr = get_u(c, 8);
	size = get_u(c, 8);
	skip(c, 8); /* code_index */
	name = get_str(c);
	if (c->bad || !addr) {
		jit_map__builder_refuse(b, JIT_MAP_GARBAGE);
		return 0;
	}
	/* the code follows; a record whose code does not fit lies about its size */
	if ((uint64_t)(c->end - c->p) < size) {
		jit_map__builder_refuse(b,
					size > JIT_MAP_MAX_CODE ? JIT_MAP_HUGE : JIT_MAP_GARBAGE);
		return 0;
	}
	return jit_map__builder_add(b, addr, size, name, strlen(name));
}

/* CODE_MOVE: code loaded before, at old_code_addr, is now at new_code_addr too. */
static int code_move(struct cursor *c, struct jit_map_builder *b)
{
	uint64_t from, to, size;
	const char *name;
	size_t len;

	skip(c, 4 + 4 + 8); /* pid, tid, vma */
	from = get_u(c, 8);
	to = get_u(c, 8);
	size = get_u(c, 8);
	name = c->bad ? NULL : jit_map__builder_find(b, from, &len);
	if (!name || !to) {
		jit_map__builder_refuse(b, JIT_MAP_GARBAGE);
		return 0;
	}
	return jit_map__builder_add(b, to, size, name, len);
}

static int record(uint32_t id, struct cursor *body, struct jit_map_builder *b)
{
	switch (id) {
	case JIT_CODE_LOAD:
		return code_load(body, b);
	case JIT_CODE_MOVE:
		return code_move(body, b);
	case JIT_CODE_UNWINDING_INFO:
		jit_map__builder_unwind_record(b);
		return 0;
	default:
		return 0;
	}
}

int jitdump__parse(const void *buf, size_t len, struct jit_map_builder *b)
{
	struct cursor c = { buf, (const uint8_t *)buf + len, false };
	uint32_t magic, version, header, pid, want = jit_map__builder_pid(b);
	uint64_t flags;
	int err = 0;

	magic = (uint32_t)get_u(&c, 4);
	version = (uint32_t)get_u(&c, 4);
	header = (uint32_t)get_u(&c, 4);
	skip(&c, 4 + 4); /* elf_mach, pad1 */
	pid = (uint32_t)get_u(&c, 4);
	skip(&c, 8); /* timestamp */
	flags = get_u(&c, 8);
	if (c.bad || magic != JITDUMP_MAGIC || version != 1 || header < JITDUMP_HEADER_SIZE ||
	    (want && pid != want) || (flags & ~JITDUMP_FLAGS_KNOWN)) {
		/* another byte order is another machine's file: none of its addresses are ours */
		jit_map__builder_refuse(b, JIT_MAP_GARBAGE);
		return -EINVAL;
	}
	c.p = (const uint8_t *)buf;
	skip(&c, header);
	if (c.bad)
		jit_map__builder_refuse(b, JIT_MAP_TRUNCATED);
	while (!err && !c.bad && c.p < c.end) {
		struct cursor body = c;
		uint32_t id = (uint32_t)get_u(&body, 4), size = (uint32_t)get_u(&body, 4);

		if (!body.bad && size < JITDUMP_RECORD_SIZE) {
			/* nothing says where the next record starts */
			jit_map__builder_refuse(b, JIT_MAP_GARBAGE);
			break;
		}
		if (body.bad || size > (size_t)(c.end - c.p)) {
			jit_map__builder_refuse(b, JIT_MAP_TRUNCATED);
			break;
		}
		if (id == JIT_CODE_CLOSE)
			break;
		body = (struct cursor){ c.p + JITDUMP_RECORD_SIZE, c.p + size, false };
		err = record(id, &body, b);
		c.p += size;
	}
	return err;
}
