// SPDX-License-Identifier: GPL-2.0-only
/*
 * libdlwork.so: the library the dlopen workload loads half-way through its
 * run. dl_entry -> dl_mid -> dl_leaf, built without frame pointers like the
 * executables.
 */
#include "workload.h"

unsigned long dl_entry(unsigned long x);

NOINLINE static unsigned long dl_leaf(unsigned long x)
{
	return mix(x, 20000);
}

NOINLINE static unsigned long dl_mid(unsigned long x)
{
	unsigned long r = dl_leaf(mix(x, 16));

	KEEP();
	return r + x;
}

NOINLINE unsigned long dl_entry(unsigned long x)
{
	unsigned long r = dl_mid(mix(x, 16));

	KEEP();
	return r + x;
}
