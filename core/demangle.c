// SPDX-License-Identifier: GPL-2.0-only
/* Demangling C++ and Rust legacy symbol names with libstdc++'s demangler. */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"

/* From libstdc++ (cxxabi.h is a C++ header, so it is declared here). */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

#define RUST_HASH_LEN 17 /* 'h' and 16 hex digits */

/*
 * Rust legacy names demangle to "path::to::fn::h0123456789abcdef": the hash
 * only tells builds apart, so it is dropped as rustc-demangle does.
 */
static void strip_rust_hash(char *name)
{
	size_t len = strlen(name);
	char *hash;

	if (len < RUST_HASH_LEN + 2)
		return;
	hash = name + len - RUST_HASH_LEN;
	if (hash[-2] != ':' || hash[-1] != ':' || hash[0] != 'h')
		return;
	for (size_t i = 1; i < RUST_HASH_LEN; i++)
		if (!isxdigit((unsigned char)hash[i]))
			return;
	hash[-2] = '\0';
}

/* A Rust legacy name is a _ZN...E path whose last element is "17h" and 16 hex digits. */
static bool is_rust_legacy(const char *name)
{
	size_t len = strlen(name);
	const char *tail;

	if (strncmp(name, "_ZN", 3) != 0 || len < 3 + 3 + 16 + 1 || name[len - 1] != 'E')
		return false;
	tail = name + len - 1 - 16;
	if (strncmp(tail - 3, "17h", 3) != 0)
		return false;
	for (size_t i = 0; i < 16; i++)
		if (!isxdigit((unsigned char)tail[i]))
			return false;
	return true;
}

char *demangle__name(const char *name)
{
	char *out;
	int status = 0;

	/* Only Itanium names: __cxa_demangle also accepts bare types ("i" → "int"). */
	if (!name || strncmp(name, "_Z", 2) != 0) {
		errno = EINVAL;
		return NULL;
	}
	out = __cxa_demangle(name, NULL, NULL, &status);
	if (!out) {
		errno = status == -1 ? ENOMEM : EINVAL;
		return NULL;
	}
	if (is_rust_legacy(name))
		strip_rust_hash(out);
	return out;
}
