/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * gzip on zlib, for pprof profiles and the files report reads:
 *
 *	gz = gzip__new(f);			 NULL and errno: ENOMEM
 *	err = gzip__write(gz, buf, len);	 compressed and written to f as it comes
 *	err = gzip__finish(gz);			 the end of the stream; f is not flushed
 *	gzip__free(gz);
 *
 *	if (gzip__has_magic(buf, len))
 *		err = gzip__decompress(buf, len, max, &out, &out_len);
 *
 * What is written has a fixed header (mtime 0, no name, OS Unix), so the
 * same bytes in give the same bytes out from run to run. What is read is
 * untrusted: its size once decompressed is bounded, and concatenated
 * members (files joined with cat) are read as one.
 */
#ifndef UNWPROF_GZIP_H
#define UNWPROF_GZIP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A gzip stream written to a file as it is compressed. */
struct gzip;

struct gzip *gzip__new(FILE *f);
/* 0, or -errno of the write (-ENOSPC for a full disk), -EFBIG, -EIO from zlib. */
int gzip__write(struct gzip *gz, const void *buf, size_t len);
/* Writes what is left and the trailer; the same errors. */
int gzip__finish(struct gzip *gz);
void gzip__free(struct gzip *gz);

/* True when buf starts with the gzip magic. */
bool gzip__has_magic(const void *buf, size_t len);

/*
 * Decompresses a gzip buffer into *out (malloc'd, NUL-terminated, *out_len
 * without the NUL). More than max bytes is -EFBIG; corrupt data -EBADMSG;
 * data that ends early -ENODATA.
 */
int gzip__decompress(const void *buf, size_t len, size_t max, char **out, size_t *out_len);

#endif
