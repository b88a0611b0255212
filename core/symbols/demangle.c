// SPDX-License-Identifier: GPL-2.0-only
/*
 * Demangling symbol names: Rust's in demangle_rust.c, C++ with libstdc++'s
 * demangler. Names come from the ELF files of profiled processes, so they
 * are untrusted; __cxa_demangle bounds its own work.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "../util/log.h"
#include "demangle.h"
#include "demangle_rust.h"

/*
 * libstdc++, loaded at the first mangled name, not linked: linked, every
 * run of every command would load and relocate it, 3.5 ms of CPU (half of
 * the process's start), where only those that name frames demangle.
 */
#define LIBSTDCXX_SONAME "libstdc++.so.6"

/* cxxabi.h is a C++ header: the demangler's type is declared here. */
typedef char *cxa_demangle_fn(const char *mangled, char *buf, size_t *len, int *status);

static cxa_demangle_fn *cxa_demangle;
static pthread_once_t cxa_once = PTHREAD_ONCE_INIT;

static void cxa_load(void)
{
	void *h = dlopen(LIBSTDCXX_SONAME, RTLD_NOW | RTLD_LOCAL);

	if (h)
		cxa_demangle = (cxa_demangle_fn *)dlsym(h, "__cxa_demangle");
	if (!cxa_demangle)
		pr_warn("C++ and Rust legacy names stay mangled: %s",
			h ? "no __cxa_demangle in " LIBSTDCXX_SONAME : dlerror());
}

char *demangle__itanium(const char *name)
{
	char *out;
	int status = 0;

	pthread_once(&cxa_once, cxa_load);
	if (!cxa_demangle) {
		errno = ELIBACC;
		return NULL;
	}
	out = cxa_demangle(name, NULL, NULL, &status);
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
	out = demangle_rust__name(name, &is_rust);
	if (is_rust)
		return out;
	/* Only Itanium names: __cxa_demangle also accepts bare types ("i" → "int"). */
	if (strncmp(name, "_Z", 2) != 0) {
		errno = EINVAL;
		return NULL;
	}
	return demangle__itanium(name);
}
