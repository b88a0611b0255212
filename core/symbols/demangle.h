/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Readable names for mangled symbols: C++ (Itanium ABI, through libstdc++'s
 * __cxa_demangle), Rust legacy names, which are Itanium-mangled too, and Rust
 * v0 names ("_R...", RFC 2603). Rust names come out as rustc-demangle's
 * "{:#}" form shows them, without hashes: "std::time::Instant::now",
 * "<alloc::vec::Vec<u8> as core::ops::drop::Drop>::drop". The raw name is
 * never changed: callers keep it (pprof's system_name).
 */
#ifndef UNWPROF_DEMANGLE_H
#define UNWPROF_DEMANGLE_H

/*
 * The demangled form of name, to be freed by the caller, or NULL when name
 * is not mangled or cannot be demangled (errno EINVAL), or on ENOMEM. Names
 * may come from untrusted files: malformed ones, ones nested too deeply or
 * demangling to more than 256 KiB are refused with EINVAL, in bounded time.
 */
char *demangle__name(const char *name);

/*
 * libstdc++'s __cxa_demangle of an Itanium name, to be freed by the caller,
 * or NULL: errno EINVAL for a name it refuses, ENOMEM, or ELIBACC when
 * libstdc++ cannot be loaded (said once). For demangle_rust.c's legacy
 * names, which are Itanium-mangled.
 */
char *demangle__itanium(const char *name);

#endif
