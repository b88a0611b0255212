/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Readable names for mangled symbols: C++ (Itanium ABI, through libstdc++'s
 * __cxa_demangle) and Rust legacy names, which are Itanium-mangled too and
 * end in a "::h<16 hex digits>" hash that is dropped. The raw name is never
 * changed: callers keep it (pprof's system_name).
 */
#ifndef UNWPROF_DEMANGLE_H
#define UNWPROF_DEMANGLE_H

/*
 * The demangled form of name, to be freed by the caller, or NULL when name
 * is not mangled or cannot be demangled (errno EINVAL), or on ENOMEM.
 */
char *demangle__name(const char *name);

#endif
