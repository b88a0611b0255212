// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading what a walk of PHP's frames needs from an interpreter's ELF
 * file. See phruntime.h. Every symbol and string comes from the file and
 * is checked against it.
 */
#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "../../util/common.h"
#include "../../elf/elf_file.h"
#include "../../util/log.h"
#include "../../util/json.h"
#include "../../unwind/unwind_table.h"
#include "bpf/abi.h"
#include "phruntime.h"

/*
 * The offsets of each minor version known, from its headers
 * (zend_globals.h, zend_compile.h, zend_types.h) as Debian builds it
 * (without threads, x86_64): 8.2 from Debian 12's php8.2-dev, 8.4 from
 * Debian sid's php8.4 (tests/oracle/php_runtime.py compiles each field's
 * offset against the installed headers, and reads the executor's and a
 * frame's from the code of each interpreter's own
 * zend_get_executed_filename_ex). From 8.2 to 8.4 the fields before a
 * zend_op_array's filename grew by 16 bytes; no other field read here
 * moved.
 */
#define PH_OFFSETS_COMMON                                                                  \
	.eg_current_execute_data = 488, .ex_opline = 0, .ex_func = 24, .ex_call_info = 40, \
	.ex_prev = 48, .fn_name = 8, .fn_scope = 16, .op_lineno = 24, .str_len = 16,       \
	.str_val = 24, .ce_name = 8

static const struct {
	uint8_t major, minor;
	uint32_t api;
	struct ph_offsets off;
} ph_table[] = {
	{ 8,
	  2,
	  20220829,
	  { PH_OFFSETS_COMMON, .fn_filename = 152, .fn_line_start = 160, .fn_line_end = 164 } },
	{ 8,
	  4,
	  20240924,
	  { PH_OFFSETS_COMMON, .fn_filename = 168, .fn_line_start = 176, .fn_line_end = 180 } },
};

enum { SYM_EXECUTE, SYM_GLOBALS, SYM_GLOBALS_OFFSET, SYM_NR };

static const struct elf_symbol_query ph_sym_names[SYM_NR] = {
	[SYM_EXECUTE] = { "execute_ex", STT_FUNC },
	[SYM_GLOBALS] = { "executor_globals", STT_OBJECT },
	[SYM_GLOBALS_OFFSET] = { "executor_globals_offset", STT_OBJECT },
};

const struct ph_offsets *phruntime__offsets_of(unsigned int major, unsigned int minor)
{
	for (size_t i = 0; i < ARRAY_SIZE(ph_table); i++)
		if (ph_table[i].major == major && ph_table[i].minor == minor)
			return &ph_table[i].off;
	return NULL;
}

/* The API of the extensions of major.minor (its build id's); 0: unknown. */
static uint32_t api_of(unsigned int major, unsigned int minor)
{
	for (size_t i = 0; i < ARRAY_SIZE(ph_table); i++)
		if (ph_table[i].major == major && ph_table[i].minor == minor)
			return ph_table[i].api;
	return 0;
}

/*
 * Whether the fields the BPF walk reads lie in the bytes it reads at once
 * (bpf/unwind_php.h), and its offsets fit their bytes of struct
 * unw_php_proc.
 */
static bool offsets_fit(const struct ph_offsets *o)
{
	return o->ex_opline >= 0 && o->ex_opline + 8 <= UNW_PH_EX_READ && o->ex_func >= 0 &&
	       o->ex_func + 8 <= UNW_PH_EX_READ && o->ex_call_info >= 0 &&
	       o->ex_call_info + 4 <= UNW_PH_EX_READ && o->ex_prev >= 0 &&
	       o->ex_prev + 8 <= UNW_PH_EX_READ && o->fn_name >= 1 &&
	       o->fn_name + 8 <= UNW_PH_FN_READ && o->op_lineno >= 0 && o->op_lineno <= 255 &&
	       o->eg_current_execute_data >= 0 && o->fn_filename >= 0 &&
	       o->fn_filename + 16 <= 255 && o->fn_line_start == o->fn_filename + 8 &&
	       o->fn_line_end == o->fn_filename + 12 && o->str_val >= 0 && o->str_val <= 255;
}

/* The number of decimal digits at s (of n bytes), up to max, into *v. */
static size_t digits(const uint8_t *s, size_t n, size_t max, uint32_t *v)
{
	size_t i;

	*v = 0;
	for (i = 0; i < n && i < max && s[i] >= '0' && s[i] <= '9'; i++)
		*v = *v * 10 + (uint32_t)(s[i] - '0');
	return i;
}

/*
 * The build id "API20220829,NTS" (or ",TS"), a string of its own among
 * data: its API into pr->api, its threads into pr->zts. 0, or -ENOENT.
 */
static int read_build_id(const uint8_t *data, size_t size, struct phruntime *pr)
{
	static const char api[] = "API";
	const uint8_t *p = data, *end = data + size;

	while (p < end && (p = memmem(p, (size_t)(end - p), api, 3))) {
		const uint8_t *d = p + 3;
		uint32_t v;
		size_t n = digits(d, (size_t)(end - d), 9, &v);
		size_t left = (size_t)(end - d) - n;

		if ((p == data || p[-1] == '\0') && n == 8 && left >= 5 &&
		    (!memcmp(d + n, ",NTS", 4) || !memcmp(d + n, ",TS", 3))) {
			pr->api = v;
			pr->zts = d[n + 1] == 'T';
			return 0;
		}
		p += 3;
	}
	return -ENOENT;
}

int phruntime__version(const uint8_t *data, size_t size, struct phruntime *pr)
{
	static const char powered[] = "X-Powered-By: PHP/";
	const size_t plen = sizeof(powered) - 1;
	const uint8_t *p = memmem(data, size, powered, plen), *end = data + size;
	uint32_t v[3];

	if (!p)
		return -ENOENT;
	p += plen;
	for (int i = 0; i < 3; i++) {
		size_t n = digits(p, (size_t)(end - p), 3, &v[i]);

		if (!n || v[i] > 255 || (i < 2 && (p + n >= end || p[n] != '.')))
			return -ENOENT;
		p += n + (i < 2);
	}
	pr->major = (uint8_t)v[0];
	pr->minor = (uint8_t)v[1];
	pr->release = (uint8_t)v[2];
	return read_build_id(data, size, pr);
}

/*
 * execute_ex's body, for the JIT code that runs on its frame: none when its
 * CFI cannot say, and then JIT code is walked by frame pointers as before.
 */
static void read_body(const struct elf_file *ef, struct phruntime *pr)
{
	uint64_t lo, hi;

	if (unwind_table__widest_rows(ef, pr->execute_lo, &lo, &hi) || lo < pr->execute_lo ||
	    hi > pr->execute_hi || hi - lo < 2) {
		pr_debug("%s: no rows of execute_ex's body: its JIT code is not walked",
			 elf_file__path(ef));
		return;
	}
	pr->body_lo = lo;
	pr->body_hi = hi;
}

int phruntime__read(const struct elf_file *ef, struct phruntime *pr)
{
	struct elf_symbol_query syms[SYM_NR];
	const struct elf_symbol_query *execute = &syms[SYM_EXECUTE], *eg = &syms[SYM_GLOBALS];
	const struct ph_offsets *off;
	struct elf_section rodata;
	int err;

	memset(pr, 0, sizeof(*pr));
	memcpy(syms, ph_sym_names, sizeof(syms));
	err = elf_file__find_symbols(ef, syms, SYM_NR);
	if (err)
		return err;
	if (!execute->found || elf_file__section(ef, ".rodata", &rodata) ||
	    phruntime__version(rodata.data, rodata.size, pr))
		return -ENOENT;
	if (!execute->size || !elf_file__vaddr_bytes(ef, execute->value, execute->size)) {
		pr_debug("%s: execute_ex lies outside the file", elf_file__path(ef));
		return -EINVAL;
	}
	/* Known first, so that the samples of a version refused are counted there. */
	pr->execute_lo = execute->value;
	pr->execute_hi = execute->value + execute->size;
	if (elf_file__machine(ef) != EM_X86_64) {
		pr_debug("%s: PHP's offsets are known on x86_64 only", elf_file__path(ef));
		return -ENOTSUP;
	}
	off = phruntime__offsets_of(pr->major, pr->minor);
	if (!off || api_of(pr->major, pr->minor) != pr->api) {
		pr_debug("%s: PHP %u.%u (API %u) is not supported", elf_file__path(ef), pr->major,
			 pr->minor, pr->api);
		return -ENOTSUP;
	}
	if (!offsets_fit(off)) {
		pr_debug("%s: PHP %u.%u's offsets lie outside what the walk reads",
			 elf_file__path(ef), pr->major, pr->minor);
		return -ENOTSUP;
	}
	if (pr->zts || !eg->found || syms[SYM_GLOBALS_OFFSET].found) {
		pr->zts = true;
		pr_debug("%s: no executor_globals: a php with threads (ZTS)", elf_file__path(ef));
		return -ENOTSUP;
	}
	if (eg->size < (uint64_t)off->eg_current_execute_data + 8 ||
	    !elf_file__vaddr_mapped(ef, eg->value, eg->size)) {
		pr_debug("%s: executor_globals is not one", elf_file__path(ef));
		return -EINVAL;
	}
	pr->executor_globals = eg->value;
	pr->off = *off;
	read_body(ef, pr);
	return 0;
}

/* What a walk of PHP's frames reads in this file, as dump-unwind shows it. */
void phruntime__print(FILE *f, const struct phruntime *p)
{
	fprintf(f,
		"PHP:         %u.%u.%u (API %u), execute_ex %#" PRIx64 "-%#" PRIx64
		" (body %#" PRIx64 "-%#" PRIx64 "), executor_globals %#" PRIx64 "\n",
		p->major, p->minor, p->release, p->api, p->execute_lo, p->execute_hi, p->body_lo,
		p->body_hi, p->executor_globals);
}

void phruntime__print_json(struct json_writer *jw, const struct phruntime *p)
{
	const struct ph_offsets *o = &p->off;
	const struct {
		const char *name;
		int32_t value;
	} fields[] = {
		{ "eg.current_execute_data", o->eg_current_execute_data },
		{ "ex.opline", o->ex_opline },
		{ "ex.func", o->ex_func },
		{ "ex.call_info", o->ex_call_info },
		{ "ex.prev", o->ex_prev },
		{ "fn.name", o->fn_name },
		{ "fn.scope", o->fn_scope },
		{ "fn.filename", o->fn_filename },
		{ "fn.line_start", o->fn_line_start },
		{ "fn.line_end", o->fn_line_end },
		{ "op.lineno", o->op_lineno },
		{ "str.len", o->str_len },
		{ "str.val", o->str_val },
		{ "ce.name", o->ce_name },
	};

	json__key(jw, "php");
	json__object_start(jw);
	json__key(jw, "version");
	json__stringf(jw, "%u.%u.%u", p->major, p->minor, p->release);
	json__key(jw, "api");
	json__int(jw, p->api);
	json__key(jw, "execute_ex");
	json__array_start(jw);
	json__stringf(jw, "%#" PRIx64, p->execute_lo);
	json__stringf(jw, "%#" PRIx64, p->execute_hi);
	json__array_end(jw);
	json__key(jw, "execute_ex_body");
	json__array_start(jw);
	json__stringf(jw, "%#" PRIx64, p->body_lo);
	json__stringf(jw, "%#" PRIx64, p->body_hi);
	json__array_end(jw);
	json__key(jw, "executor_globals");
	json__stringf(jw, "%#" PRIx64, p->executor_globals);
	json__key(jw, "offsets");
	json__object_start(jw);
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		json__key(jw, fields[i].name);
		json__int(jw, fields[i].value);
	}
	json__object_end(jw);
	json__object_end(jw);
}
