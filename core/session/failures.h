/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Where samples failed to be walked, by file and reason: what the summary
 * names so that a user knows which binary to look at ("cc1plus:
 * pc-without-cfi 84"). BPF keeps the pc where each failing sample first met
 * a reason; the caller names its file and adds it here.
 *
 *	fs = failures__new();
 *	failures__add(fs, "/usr/lib/gcc/.../cc1plus", reason, samples);
 *	failures__sort(fs);			most samples first
 *	for (i = 0; i < failures__count(fs); i++) failures__get(fs, i)
 *	failures__free(fs);
 */
#ifndef UNWPROF_FAILURES_H
#define UNWPROF_FAILURES_H

#include <stddef.h>
#include <stdint.h>

struct failure {
	char *file; /* the mapped file of the pc, "[unknown]" when none */
	unsigned int reason;
	uint64_t samples;
};

struct failures;

/* NULL and errno on failure. */
struct failures *failures__new(void);
/* file NULL: a pc in no known mapping. 0 or -ENOMEM. */
int failures__add(struct failures *fs, const char *file, unsigned int reason, uint64_t samples);
/* Most samples first; ties by file, then reason, so the order is stable. */
void failures__sort(struct failures *fs);
size_t failures__count(const struct failures *fs);
const struct failure *failures__get(const struct failures *fs, size_t i);
void failures__free(struct failures *fs);

#endif
