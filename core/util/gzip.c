// SPDX-License-Identifier: GPL-2.0-only
/* gzip streams written and buffers read, on zlib (see gzip.h). */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "gzip.h"

/* Writing */

struct gzip {
	z_stream zs;
	gz_header header; /* zlib reads it when it writes the first bytes */
	FILE *f;
	uint8_t out[1 << 16];
};

/* A fixed header (mtime 0, no name) keeps the bytes the same from run to run. */
struct gzip *gzip__new(FILE *f)
{
	struct gzip *gz = calloc(1, sizeof(*gz));

	if (!gz)
		return NULL;
	gz->f = f;
	gz->header.os = 3; /* Unix */
	if (deflateInit2(&gz->zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(gz);
		errno = ENOMEM;
		return NULL;
	}
	deflateSetHeader(&gz->zs, &gz->header);
	return gz;
}

static int gzip__run(struct gzip *gz, const void *buf, size_t len, int flush)
{
	if (len > UINT_MAX)
		return -EFBIG;
	gz->zs.next_in = (Bytef *)buf;
	gz->zs.avail_in = (uInt)len;
	do {
		size_t have;

		gz->zs.next_out = gz->out;
		gz->zs.avail_out = sizeof(gz->out);
		if (deflate(&gz->zs, flush) == Z_STREAM_ERROR)
			return -EIO;
		have = sizeof(gz->out) - gz->zs.avail_out;
		errno = 0;
		if (have && fwrite(gz->out, 1, have, gz->f) != have)
			return errno ? -errno : -EIO;
	} while (gz->zs.avail_out == 0);
	return 0;
}

int gzip__write(struct gzip *gz, const void *buf, size_t len)
{
	return gzip__run(gz, buf, len, Z_NO_FLUSH);
}

int gzip__finish(struct gzip *gz)
{
	return gzip__run(gz, NULL, 0, Z_FINISH);
}

void gzip__free(struct gzip *gz)
{
	if (gz)
		deflateEnd(&gz->zs);
	free(gz);
}

/* Reading */

bool gzip__has_magic(const void *buf, size_t len)
{
	const uint8_t *b = buf;

	return len >= 2 && b[0] == 0x1f && b[1] == 0x8b;
}

static int gzip__grow(char **out, size_t *cap, size_t max)
{
	size_t n = *cap ? *cap * 2 : 1 << 16;
	char *p;

	if (*cap > max)
		return -EFBIG;
	if (n > max + 2)
		n = max + 2; /* one byte over max tells it was exceeded */
	p = realloc(*out, n);
	if (!p)
		return -ENOMEM;
	*out = p;
	*cap = n;
	return 0;
}

/* Inflates members one after another (concatenated gzip files are one file). */
static int gzip__inflate(z_stream *zs, size_t len, size_t max, char **out, size_t *cap)
{
	for (;;) {
		int ret, err;

		if (zs->total_out + 1 >= *cap) {
			err = gzip__grow(out, cap, max);
			if (err)
				return err;
		}
		zs->next_out = (Bytef *)*out + zs->total_out;
		zs->avail_out = (uInt)(*cap - 1 - zs->total_out);
		ret = inflate(zs, Z_NO_FLUSH);
		if (zs->total_out > max)
			return -EFBIG;
		if (ret == Z_STREAM_END) {
			if (zs->total_in == len)
				return 0;
			if (!gzip__has_magic(zs->next_in, zs->avail_in))
				return -EBADMSG;
			ret = inflateReset2(zs, 15 + 16);
		}
		if (ret == Z_BUF_ERROR && zs->avail_in == 0)
			return -ENODATA;
		if (ret == Z_MEM_ERROR)
			return -ENOMEM;
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			return -EBADMSG;
	}
}

int gzip__decompress(const void *buf, size_t len, size_t max, char **out, size_t *out_len)
{
	z_stream zs = {};
	size_t cap = 0;
	int err;

	*out = NULL;
	*out_len = 0;
	if (len > UINT_MAX)
		return -EFBIG;
	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return -ENOMEM;
	zs.next_in = (Bytef *)buf;
	zs.avail_in = (uInt)len;
	err = gzip__inflate(&zs, len, max, out, &cap);
	*out_len = zs.total_out;
	inflateEnd(&zs);
	if (err) {
		free(*out);
		*out = NULL;
		*out_len = 0;
		return err;
	}
	(*out)[*out_len] = '\0';
	return 0;
}
