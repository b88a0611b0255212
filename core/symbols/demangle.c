// SPDX-License-Identifier: GPL-2.0-only
/*
 * Demangling symbol names: Rust's in demangle_rust.c, C++ with libstdc++'s
 * demangler. Names come from the ELF files of profiled processes, so they
 * are untrusted; __cxa_demangle bounds its own work.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "demangle.h"
#include "demangle_rust.h"

/* From libstdc++ (cxxabi.h is a C++ header, so it is declared here). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static char *demangle_cxx(const char *name)
{
	char *out;
	int status = 0;

	out = __cxa_demangle(name, NULL, NULL, &status);
	if (!out)
		errno = status == -1 ? ENOMEM : EINVAL;
	return out;
}

char *demangle__name(const char *name)
{
	bool is_rust;
	char *out;

	if (!name) {
		errno = EINVAL;
		return NULL;
	}
	out = demangle__rust(name, &is_rust);
	if (is_rust)
		return out;
	/* Only Itanium names: __cxa_demangle also accepts bare types ("i" → "int"). */
	if (strncmp(name, "_Z", 2) != 0) {
		errno = EINVAL;
		return NULL;
	}
	return demangle_cxx(name);
}
