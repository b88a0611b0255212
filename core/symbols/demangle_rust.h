/* SPDX-License-Identifier: GPL-2.0-only */
/* The Rust half of demangle__name() (demangle.h), for demangle.c. */
#ifndef UNWPROF_DEMANGLE_RUST_H
#define UNWPROF_DEMANGLE_RUST_H

#include <stdbool.h>

/*
 * *is_rust: whether name is a Rust name (v0 "_R...", or legacy "_ZN...E"
 * ending in a hash); then the demangled name as demangle__name() gives it,
 * or NULL and errno. When it is not, NULL and the caller goes on.
 */
char *demangle_rust__name(const char *name, bool *is_rust);

#endif
