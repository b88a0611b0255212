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

/*
 * One LEB128 value at *pp: its low 64 bits in *val, and in *shift the bits
 * it had (at most 64, for sign extension), its last byte in *last.
 */
static inline int read_leb(const uint8_t **pp, const uint8_t *end, uint64_t *val,
			   unsigned int *shift, uint8_t *last)
{
	const uint8_t *p = *pp;
	uint64_t v = 0;
	unsigned int s = 0;

	while (p < end) {
		uint8_t b = *p++;

		if (s < 64) {
			v |= (uint64_t)(b & 0x7f) << s;
			s += 7;
		}
		if (!(b & 0x80)) {
			*pp = p;
			*val = v;
			*shift = s;
			*last = b;
			return 0;
		}
	}
	return -EINVAL;
}

static inline int read_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *val)
{
	unsigned int shift;
	uint8_t last;

	return read_leb(pp, end, val, &shift, &last);
}

static inline int read_sleb(const uint8_t **pp, const uint8_t *end, int64_t *val)
{
	unsigned int shift;
	uint64_t v;
	uint8_t last;

	if (read_leb(pp, end, &v, &shift, &last))
		return -EINVAL;
	if (shift < 64 && (last & 0x40))
		v |= ~(uint64_t)0 << shift;
	*val = (int64_t)v;
	return 0;
}

#endif
