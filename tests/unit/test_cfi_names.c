// SPDX-License-Identifier: GPL-2.0-only
/*
 * Functions named by their CFI (core/symbols/cfi_names.c), checked against
 * the symbol table of the fixture chain-pie, which they do not read: each
 * function's FDE starts at its symbol, the entry point is _start's. Then
 * files whose .eh_frame is broken or absent.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/elf/elf_file.h"
#include "core/symbols/cfi_names.h"
#include "test.h"

static struct elf_file *fixture(const char *name)
{
	const char *dir = getenv("UNWPROF_FIXTURES");
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir ? dir : "tests/fixtures/bin", name);
	return elf_file__open(path);
}

static void test_functions(void)
{
	static const char *const funcs[] = { "main", "f1", "f2", "f3", "leaf" };
	struct elf_file *ef = fixture("chain-pie");
	struct cfi_names *n = ef ? cfi_names__new(ef, "chain-pie") : NULL;
	struct elf_symbol_query q[] = { { .name = "_start", .type = 2 /* STT_FUNC */ } };
	uint64_t start = 0;

	CHECK(n != NULL);
	if (!n)
		goto cleanup;
	CHECK_EQ_INT(elf_file__find_symbols(ef, q, 1), 0);
	CHECK(q[0].found && q[0].value == elf_file__entry(ef));
	CHECK_EQ_STR(cfi_names__lookup(n, q[0].value + 5, &start), "_start");
	CHECK_EQ_INT(start, q[0].value);
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++) {
		struct elf_symbol_query f = { .name = funcs[i], .type = 2 };
		char want[64];

		CHECK_EQ_INT(elf_file__find_symbols(ef, &f, 1), 0);
		CHECK(f.found && f.size > 1);
		/* chain-pie's code is at the same offset in the file as in memory */
		snprintf(want, sizeof(want), "[chain-pie+0x%" PRIx64 "]", f.value);
		CHECK_EQ_STR(cfi_names__lookup(n, f.value, &start), want);
		CHECK_EQ_INT(start, f.value);
		CHECK_EQ_STR(cfi_names__lookup(n, f.value + f.size - 1, &start), want);
		CHECK_EQ_INT(start, f.value);
	}
	CHECK(cfi_names__lookup(n, 0, &start) == NULL);		 /* the ELF header */
	CHECK(cfi_names__lookup(n, UINT64_MAX, &start) == NULL); /* past everything */
cleanup:
	cfi_names__free(n);
	elf_file__free(ef);
}

/* An .eh_frame whose first entry runs past the section: refused whole, no crash. */
static void test_broken(void)
{
	struct elf_file *ef = fixture("chain-pie"), *bad = NULL;
	struct elf_section es;
	size_t size = 0;
	const uint8_t *image = ef ? elf_file__image(ef, &size) : NULL;
	uint8_t *copy = image ? malloc(size) : NULL;
	bool eh_frame = ef && elf_file__section(ef, ".eh_frame", &es) == 0;
	struct cfi_names *n;

	CHECK(copy != NULL && eh_frame);
	if (!copy || !eh_frame)
		goto cleanup;
	memcpy(copy, image, size);
	memset(copy + es.offset, 0x7f, 4); /* a length of 2 GiB */
	bad = elf_file__open_mem(copy, size, "broken");
	CHECK(bad != NULL);
	n = bad ? cfi_names__new(bad, "broken") : NULL;
	CHECK(n == NULL && errno == EINVAL);
	cfi_names__free(n);
cleanup:
	elf_file__free(bad);
	elf_file__free(ef);
	free(copy);
}

/* CFI in .debug_frame only: no .eh_frame to name functions by. */
static void test_no_eh_frame(void)
{
	struct elf_file *ef = fixture("libdframe.so");
	struct cfi_names *n = ef ? cfi_names__new(ef, "libdframe.so") : NULL;
	uint64_t start;

	CHECK(ef != NULL);
	/* an empty .eh_frame, or none: nothing is named either way */
	CHECK(!n || cfi_names__lookup(n, 0x1000, &start) == NULL);
	cfi_names__free(n);
	elf_file__free(ef);
}

int main(void)
{
	RUN(test_functions);
	RUN(test_broken);
	RUN(test_no_eh_frame);
	return test_summary();
}
