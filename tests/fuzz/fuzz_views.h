/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the profile fuzz targets do with a profile once a reader accepted it:
 * everything `unwprof report` computes from it, so the whole path from bytes
 * to views is fuzzed, with the invariants a reader of the views relies on
 * checked (a broken one aborts, which libFuzzer reports as a crash).
 */
#ifndef UNWPROF_FUZZ_VIEWS_H
#define UNWPROF_FUZZ_VIEWS_H

#include <stddef.h>
#include <stdint.h>

struct profile;

/* Bound of a decompressed input: a gzip bomb must not slow the fuzzer down. */
#define FUZZ_GUNZIP_MAX (16U << 20)

/* Runs filter, top, tree, diff and the writers over p; data steers the filter. */
void fuzz_views(const struct profile *p, const uint8_t *data, size_t size);

/* A reader of `unwprof report`: 0 when it accepted buf into p. */
typedef int (*fuzz_reader_fn)(const char *buf, size_t len, struct profile *p);

/*
 * One input as report takes it: a copy of exactly size bytes (so that ASan
 * catches any read past the end; not NUL-terminated), decompressed when it
 * is gzip (up to FUZZ_GUNZIP_MAX), given to read, then, when read accepts
 * it, to fuzz_views().
 */
void fuzz_profile_input(const uint8_t *data, size_t size, fuzz_reader_fn read);

#endif
