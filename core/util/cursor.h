/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bounded reader of little-endian bytes, for the DWARF sections of an
 * untrusted file: a read past the end sets bad, leaves the cursor at the end
 * and gives 0, so a caller checks once after a run of reads.
 */
#ifndef UNWPROF_CURSOR_H
#define UNWPROF_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "leb128.h"

struct cursor {
	const uint8_t *p, *end;
	bool bad;
};

static inline void cursor_fail(struct cursor *c)
{
	c->bad = true;
	c->p = c->end;
}

/* An n-byte value, n at most 8; the files and the host are little-endian (x86_64, aarch64). */
static inline uint64_t get_u(struct cursor *c, size_t n)
{
	uint64_t v = 0;
	uint32_t v32;
	uint16_t v16;

	if ((size_t)(c->end - c->p) < n) {
		cursor_fail(c);
		return 0;
	}
	switch (n) {
	case 1:
		v = *c->p;
		break;
	case 2:
		memcpy(&v16, c->p, 2);
		v = v16;
		break;
	case 4:
		memcpy(&v32, c->p, 4);
		v = v32;
		break;
	case 8:
		memcpy(&v, c->p, 8);
		break;
	default:
		for (size_t i = 0; i < n; i++)
			v |= (uint64_t)c->p[i] << (8 * i);
		break;
	}
	c->p += n;
	return v;
}

static inline uint64_t get_uleb(struct cursor *c)
{
	uint64_t v = 0;

	if (c->p < c->end && !(*c->p & 0x80))
		return *c->p++; /* most values are one byte */
	if (read_uleb(&c->p, c->end, &v)) {
		cursor_fail(c);
		return 0;
	}
	return v;
}

static inline int64_t get_sleb(struct cursor *c)
{
	int64_t v = 0;

	if (c->p < c->end && !(*c->p & 0x80)) {
		uint8_t b = *c->p++;

		return b & 0x40 ? (int64_t)b - 0x80 : b; /* one byte, its sign in bit 6 */
	}
	if (read_sleb(&c->p, c->end, &v)) {
		cursor_fail(c);
		return 0;
	}
	return v;
}

static inline void skip(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		cursor_fail(c);
		return;
	}
	c->p += n;
}

/* A NUL-terminated string inside the cursor; NULL (and bad) when it is not terminated. */
static inline const char *get_str(struct cursor *c)
{
	const uint8_t *nul = c->p < c->end ? memchr(c->p, 0, (size_t)(c->end - c->p)) : NULL;
	const char *s = (const char *)c->p;

	if (!nul) {
		cursor_fail(c);
		return NULL;
	}
	c->p = nul + 1;
	return s;
}

#endif
