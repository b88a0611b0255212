/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The pprof reader (pprof.h): files by unwprof and by other producers
 * (Go's runtime/pprof, perf converters). A location's Lines (inlined
 * functions, innermost first) become its source lines (profile__lines()),
 * the location named as the last one. The value used as the sample count
 * is the sample type "samples", else the first with unit "count", else the
 * default or the last one. Frames in a mapping named "[kernel...]" are
 * kernel frames, in one named as an interpreter's kind's made-up mapping
 * (core/profile/frames.h) that interpreter's. Labels pid, tid and comm fill
 * the sample's; a profile with no comm label at all (Go's) takes the name
 * of its main binary, the file of mapping[0].
 */
#ifndef UNWPROF_PPROF_READER_H
#define UNWPROF_PPROF_READER_H

#include <stddef.h>

#include "pprof.h"

struct profile;

/*
 * Decodes an uncompressed pprof protocol buffer into p (which should be
 * empty) and fills meta. Errors are printed naming name and say what is
 * wrong; returns -EBADMSG for data that is not a valid profile, -EFBIG
 * for one that needs more than PPROF_MAX_SIZE of memory to decode.
 */
int pprof_reader__decode(const void *buf, size_t len, const char *name, struct profile *p,
			 struct pprof_meta *meta);

#endif
