/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What a walk of PHP's frames needs to know of one interpreter, read from
 * its ELF file (a php executable, as Debian's php8.2 and php-fpm8.2, or a
 * libphp.so): its version (the "X-Powered-By: PHP/8.2.36" its SAPIs send,
 * and its build id, "API20220829,NTS": the extensions' API of its minor
 * version, without threads), the range of its executor (execute_ex),
 * where its executor's globals are (executor_globals), and the offsets of
 * the fields that lead from them to the frames and from a frame to its
 * names and lines; and the widest range of execute_ex's rows (its body,
 * past its prologue), which stands for the code opcache's JIT compiled: in
 * the executor of a php built with GCC's global registers (the hybrid VM,
 * as Debian's), JIT code runs on execute_ex's own frame, jumped to and
 * from its handlers, and its frame unwinds as execute_ex's body does.
 *
 *   executor_globals .current_execute_data -> zend_execute_data .opline
 *   (the zend_op it is at: .lineno), .func (zend_function: .type, a byte
 *   at 0; .common.function_name, a zend_string, NULL for a file's code;
 *   .common.scope, a zend_class_entry, whose .name is one;
 *   .op_array.filename, .line_start, .line_end), .This.u1.type_info (its
 *   call info: ZEND_CALL_TOP, ZEND_CALL_CODE), .prev_execute_data. A
 *   zend_string: .len, .val.
 *
 * Offsets come from a table of minor versions checked against their
 * headers, compiled, and against the interpreter's own code
 * (tests/oracle/php_runtime.py); a version not in it, or a build with
 * threads (ZTS: executor_globals_offset in place of executor_globals), is
 * refused (-ENOTSUP), never guessed.
 */
#ifndef UNWPROF_PHRUNTIME_H
#define UNWPROF_PHRUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct elf_file;

/* Offsets in bytes, of the structures named above. */
struct ph_offsets {
	int32_t eg_current_execute_data;
	int32_t ex_opline, ex_func, ex_call_info, ex_prev;
	int32_t fn_name, fn_scope, fn_filename, fn_line_start, fn_line_end;
	int32_t op_lineno;
	int32_t str_len, str_val;
	int32_t ce_name;
};

struct phruntime {
	uint8_t major, minor, release;	 /* 8, 2, 36 */
	uint32_t api;			 /* 20220829 */
	bool zts;			 /* a build with threads */
	uint64_t execute_lo, execute_hi; /* execute_ex: [lo, hi), ELF addresses */
	uint64_t body_lo, body_hi;	 /* the widest range of its rows; 0, 0: none */
	uint64_t executor_globals;	 /* its ELF address */
	struct ph_offsets off;
};

/*
 * Reads the PHP runtime of ef into *pr. 0; -ENOENT when ef is not a php
 * (no execute_ex, or no version); -ENOTSUP when it is one whose version is
 * not known here, or a build with threads (its version and executor are
 * then set); -EINVAL when what it says lies outside the file.
 */
int phruntime__read(const struct elf_file *ef, struct phruntime *pr);

/* The version and build of a php from its strings (.rodata's bytes): 0, or -ENOENT. */
int phruntime__version(const uint8_t *data, size_t size, struct phruntime *pr);

struct json_writer;
/* What dump-unwind shows of p: lines of its summary, or its "php" member. */
void phruntime__print(FILE *f, const struct phruntime *p);
void phruntime__print_json(struct json_writer *jw, const struct phruntime *p);

/* The offsets of PHP major.minor, from the table checked against its headers; NULL: unknown. */
const struct ph_offsets *phruntime__offsets_of(unsigned int major, unsigned int minor);

#endif
