/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * LEB128 decoding for DWARF: bounded by end, so a truncated value is an
 * error (-EINVAL) instead of a read past the buffer. Bits beyond 64 are
 * dropped, as readelf and libgcc do.
 */
#ifndef UNWPROF_LEB128_H
#define UNWPROF_LEB128_H

#include <errno.h>
#include <stdint.h>

static inline int read_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *val)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned int shift = 0;

	while (p < end) {
		uint8_t b = *p++;

		if (shift < 64) {
			v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		}
		if (!(b & 0x80)) {
			*pp = p;
			*val = v;
			return 0;
		}
	}
	return -EINVAL;
}

static inline int read_sleb(const uint8_t **pp, const uint8_t *end, int64_t *val)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned int shift = 0;

	while (p < end) {
		uint8_t b = *p++;

		if (shift < 64) {
			v |= (uint64_t)(b & 0x7f) << shift;
			shift += 7;
		}
		if (!(b & 0x80)) {
			if (shift < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << shift;
			*pp = p;
			*val = (int64_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

#endif
