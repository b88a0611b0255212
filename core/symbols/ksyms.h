/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Kernel symbols: the text symbols of /proc/kallsyms, the kernel's and its
 * modules', sorted by address (libbpf-tools' trace_helpers.h has the same
 * lifecycle). The symbolizer names kernel frames with them
 * (core/symbols/symbolizer.h).
 *
 *	ks = ksyms__load("/proc/kallsyms");	or ksyms__parse(f, name)
 *	k = ksyms__lookup(ks, addr);		the symbol at or before addr
 *	ksyms__free(ks);
 *
 * The kernel takes tens of milliseconds to list /proc/kallsyms: a run
 * reads it in a thread of its own while it samples, rather than between
 * its end and its output (ksyms__preload(), ksyms__preload_join()).
 */
#ifndef UNWPROF_KSYMS_H
#define UNWPROF_KSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Kernel symbols, sorted by address. */
struct ksyms;

struct ksym {
	uint64_t addr;
	uint64_t size; /* 0 when unknown (kallsyms): up to the next symbol */
	const char *name;
	const char *module; /* NULL for the kernel image */
};

/*
 * Parses text in the /proc/kallsyms format, keeping text symbols. name is
 * for messages. Returns NULL and sets errno on failure; all-zero addresses
 * (kptr_restrict, no privilege) give EPERM.
 */
struct ksyms *ksyms__parse(FILE *f, const char *name);
/* The same from the file at path, with a warning when it cannot be opened. */
struct ksyms *ksyms__load(const char *path);
/* Accepts NULL. */
void ksyms__free(struct ksyms *ks);
/* The symbol at or before addr, or NULL (also when ks is NULL). */
const struct ksym *ksyms__lookup(const struct ksyms *ks, uint64_t addr);
size_t ksyms__count(const struct ksyms *ks);

/*
 * ksyms__load(path) in a thread of its own, which takes no signal. NULL
 * and errno when it cannot start. ksyms__preload_join() waits for it, frees
 * pl and returns what ksyms__load() did (NULL and its errno on failure).
 */
struct ksyms_preload;
struct ksyms_preload *ksyms__preload(const char *path);
struct ksyms *ksyms__preload_join(struct ksyms_preload *pl);

#endif
