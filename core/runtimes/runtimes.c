// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of runtimes, made from their list (bpf/runtimes.h). See
 * runtimes.h.
 */
#include "../util/common.h"
#include "runtimes.h"

#define RUNTIME_DECLARE(ID, name) extern const struct runtime runtime_##name;
UNW_RUNTIMES(RUNTIME_DECLARE)
#undef RUNTIME_DECLARE

static const struct runtime *const runtimes[UNW_UW_NR] = {
#define RUNTIME_ENTRY(ID, name) [UNW_UW_##ID] = &runtime_##name,
	UNW_RUNTIMES(RUNTIME_ENTRY)
#undef RUNTIME_ENTRY
};

/* The unwinder of the runtime whose frames are of each kind. */
static const unsigned int unwinder_of_kind[UNW_FRAME_KIND_NR] = {
#define RUNTIME_KIND(ID, name) [UNW_FRAME_##ID] = UNW_UW_##ID,
	UNW_RUNTIMES(RUNTIME_KIND)
#undef RUNTIME_KIND
};

const struct runtime *runtimes__of_unwinder(unsigned int u)
{
	return u < UNW_UW_NR ? runtimes[u] : NULL;
}

const struct runtime *runtimes__of_frame_kind(unsigned int kind)
{
	return kind < UNW_FRAME_KIND_NR ? runtimes__of_unwinder(unwinder_of_kind[kind]) : NULL;
}

void runtimes__read_image(struct image_runtimes *ir, const struct elf_file *ef, const char *path)
{
	*ir = (struct image_runtimes){ 0 };
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		ir->state[u] = runtimes[u]->read(ef, path);
}

void runtimes__free_image(struct image_runtimes *ir)
{
	if (!ir)
		return;
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++) {
		if (ir->state[u])
			runtimes[u]->free(ir->state[u]);
		ir->state[u] = NULL;
	}
}
