/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Building DWARF sections byte by byte for the unit tests (.eh_frame and
 * .debug_frame for the CFI and table tests, .debug_info and the sections
 * around it for the DIE reader's): fixed-size values, LEB128, and entries
 * with 32- or 64-bit initial lengths.
 */
#ifndef UNWPROF_DWARF_BUILDER_H
#define UNWPROF_DWARF_BUILDER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SEC_ADDR 0x200000

/* ---- building sections ---- */

struct sec {
	uint8_t d[4096];
	size_t n;
};

static inline void put(struct sec *s, const void *p, size_t len)
{
	if (!len)
		return; /* p may be NULL then */
	if (s->n + len > sizeof(s->d)) {
		fprintf(stderr, "test section overflow\n");
		return;
	}
	memcpy(s->d + s->n, p, len);
	s->n += len;
}

static inline void put8(struct sec *s, uint8_t v)
{
	put(s, &v, 1);
}

static inline void put16(struct sec *s, uint16_t v)
{
	put(s, &v, 2);
}

static inline void put32(struct sec *s, uint32_t v)
{
	put(s, &v, 4);
}

static inline void put64(struct sec *s, uint64_t v)
{
	put(s, &v, 8);
}

static inline void uleb(struct sec *s, uint64_t v)
{
	do {
		uint8_t b = v & 0x7f;

		v >>= 7;
		put8(s, b | (v ? 0x80 : 0));
	} while (v);
}

static inline void sleb(struct sec *s, int64_t v)
{
	bool more = true;

	while (more) {
		uint8_t b = v & 0x7f;

		v >>= 7;
		more = !((v == 0 && !(b & 0x40)) || (v == -1 && (b & 0x40)));
		put8(s, b | (more ? 0x80 : 0));
	}
}

/* Starts an entry; returns its offset. */
static inline size_t entry_begin(struct sec *s, bool dwarf64)
{
	size_t at = s->n;

	if (dwarf64) {
		put32(s, 0xffffffff);
		put64(s, 0);
	} else {
		put32(s, 0);
	}
	return at;
}

static inline void entry_end(struct sec *s, size_t at, bool dwarf64)
{
	if (dwarf64) {
		uint64_t len = s->n - at - 12;

		memcpy(s->d + at + 4, &len, 8);
	} else {
		uint32_t len = (uint32_t)(s->n - at - 4);

		memcpy(s->d + at, &len, 4);
	}
}

#define BYTES(...) (const uint8_t[]){ __VA_ARGS__ }, sizeof((const uint8_t[]){ __VA_ARGS__ })

#endif
