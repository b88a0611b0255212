// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of core/runtimes/python/pyframes.c: a code object is named from the copies
 * its first-sight event holds (struct unw_py_code_event), placed at
 * addresses this process does not map, so that nothing can come from its
 * memory; an event cut short is ignored; a part left out is read from the
 * process (and here cannot be); a frame of another code object at the
 * same address (another tag) is not named after the first.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "../../bpf/abi.h"
#include "../../core/runtimes/python/pyframes.h"
#include "../../core/runtimes/python/pyruntime.h"

/* Addresses below the kernel's mmap_min_addr: never mapped. */
#define CODE 0x1000
#define NAME 0x2000
#define FILE_ 0x3000
#define TABLE 0x4000
#define FIRST_LINE 40

/* A layout of 3.8's kind (f_lasti in bytes, co_lnotab), at offsets of its own. */
static struct pyruntime runtime(void)
{
	struct pyruntime pr = { .major = 3, .minor = 8, .frame_layout = PY_FRAME_OBJECT };
	struct py_offsets *o = &pr.off;

	memset(o, 0xff, sizeof(*o)); /* every offset PY_OFF_NONE */
	o->code_name = 0x20;
	o->code_filename = 0x28;
	o->code_firstlineno = 0x30;
	o->code_lnotab = 0x38;
	o->bytes_sval = 0x20;
	o->str_length = 0x10;
	o->str_state = 0x20;
	o->str_data = 0x30;
	o->str_ascii_bit = 6;
	o->str_compact_bit = 5;
	return pr;
}

/* Appends part (at addr in the process, len bytes of bytes) to the event. */
static size_t add_part(struct unw_py_code_event *e, size_t off, int part, uint64_t addr,
		       const void *bytes, size_t len)
{
	memcpy(e->data + off, bytes, len);
	e->copies[part] = (struct unw_py_copy){ .addr = addr, .len = len };
	return off + len;
}

/* A compact ASCII str object holding s, as the layout above has it. */
static size_t str_object(uint8_t *buf, const char *s)
{
	uint64_t len = strlen(s);
	uint32_t state = 1u << 6 | 1u << 5;

	memset(buf, 0, 0x30);
	memcpy(buf + 0x10, &len, sizeof(len));
	memcpy(buf + 0x20, &state, sizeof(state));
	memcpy(buf + 0x30, s, len);
	return 0x30 + len;
}

/* The event of the code object "spin" of /srv/app.py: its size; parts in skip left out. */
static size_t event(struct unw_py_code_event *e, unsigned skip)
{
	uint8_t code[0x40] = { 0 }, str[0x80], table[0x24] = { 0 };
	uint64_t name = NAME, file = FILE_, tab = TABLE, table_len = 4;
	uint32_t first = FIRST_LINE;
	/* lnotab: line +1 at byte 0, +2 more from byte 10 on */
	static const uint8_t lnotab[] = { 0, 1, 10, 2 };
	size_t off = 0, len;

	memset(e, 0, sizeof(*e));
	e->ev = (struct unw_event){ .type = UNW_EV_CODE,
				    .unwinder = UNW_UW_PYTHON,
				    .pid = (uint32_t)getpid(),
				    .addr = CODE,
				    .tag = UNW_PY_TAG(file) };
	memcpy(code + 0x20, &name, 8);
	memcpy(code + 0x28, &file, 8);
	memcpy(code + 0x30, &first, 4);
	memcpy(code + 0x38, &tab, 8);
	if (!(skip & 1 << UNW_PY_PART_CODE))
		off = add_part(e, off, UNW_PY_PART_CODE, CODE, code, sizeof(code));
	len = str_object(str, "spin");
	if (!(skip & 1 << UNW_PY_PART_NAME))
		off = add_part(e, off, UNW_PY_PART_NAME, NAME, str, len);
	len = str_object(str, "/srv/app.py");
	if (!(skip & 1 << UNW_PY_PART_FILE))
		off = add_part(e, off, UNW_PY_PART_FILE, FILE_, str, len);
	memcpy(table + UNW_PY_VAR_SIZE, &table_len, 8);
	memcpy(table + 0x20, lnotab, sizeof(lnotab));
	if (!(skip & 1 << UNW_PY_PART_TABLE))
		off = add_part(e, off, UNW_PY_PART_TABLE, TABLE, table, sizeof(table));
	return offsetof(struct unw_py_code_event, data) + off;
}

/* The frame at f_lasti of code object CODE, with the tag of file pointer file. */
static struct py_frame_name name_frame(struct pyframes *n, uint64_t lasti, uint64_t file)
{
	struct py_frame_name out;
	uint64_t where = lasti | (uint64_t)UNW_PY_TAG(file) << UNW_PY_TAG_SHIFT;

	CHECK_EQ_INT(pyframes__name(n, (uint32_t)getpid(), CODE, where, &out), 0);
	return out;
}

static struct pyframes *namer(void)
{
	struct pyruntime pr = runtime();
	struct pyframes *n = pyframes__new();

	CHECK(n != NULL);
	CHECK_EQ_INT(pyframes__add_process(n, (uint32_t)getpid(), &pr, 0), 0);
	return n;
}

static void test_named_from_copies(void)
{
	static struct unw_py_code_event e;
	struct pyframes *n = namer();
	struct py_frame_name f;

	pyframes__read_code(n, &e, event(&e, 0));
	f = name_frame(n, 4, FILE_);
	CHECK_EQ_STR(f.qualname, "spin");
	CHECK_EQ_STR(f.file, "/srv/app.py");
	CHECK_EQ_INT(f.first_line, FIRST_LINE);
	CHECK_EQ_INT(f.line, FIRST_LINE + 1);
	f = name_frame(n, 12, FILE_);
	CHECK_EQ_INT(f.line, FIRST_LINE + 3);
	/* another code object at the same address later: not this one's name */
	f = name_frame(n, 4, FILE_ + 0x10000);
	CHECK_EQ_STR(f.qualname, "<unknown>");
	pyframes__free(n);
}

static void test_cut_short(void)
{
	static struct unw_py_code_event e;
	struct pyframes *n = namer();
	size_t size = event(&e, 0);

	/* the copies say more bytes than the event has: none of it is used */
	pyframes__read_code(n, &e, size - 1);
	pyframes__read_code(n, &e, 8);
	CHECK_EQ_STR(name_frame(n, 4, FILE_).qualname, "<unknown>");
	pyframes__free(n);
}

static void test_parts_left_out(void)
{
	static struct unw_py_code_event e;
	struct pyframes *n = namer();
	struct py_frame_name f;

	/* a line table too big to copy: named, its line unknown (0) */
	pyframes__read_code(n, &e, event(&e, 1 << UNW_PY_PART_TABLE));
	f = name_frame(n, 4, FILE_);
	CHECK_EQ_STR(f.qualname, "spin");
	CHECK_EQ_STR(f.file, "/srv/app.py");
	CHECK_EQ_INT(f.line, 0);
	pyframes__free(n);

	/* no copy of the name: the file is still known */
	n = namer();
	pyframes__read_code(n, &e, event(&e, 1 << UNW_PY_PART_NAME));
	f = name_frame(n, 4, FILE_);
	CHECK_EQ_STR(f.qualname, "<unknown>");
	CHECK_EQ_STR(f.file, "/srv/app.py");
	CHECK_EQ_INT(f.line, FIRST_LINE + 1);
	pyframes__free(n);
}

int main(void)
{
	RUN(test_named_from_copies);
	RUN(test_cut_short);
	RUN(test_parts_left_out);
	return test_summary();
}
