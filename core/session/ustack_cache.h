/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * User stacks already read from the BPF map, by their key there. A stack
 * is only needed by the counts of the drain that read it, or of the next
 * one when BPF counted it again just as it was moved here; older ones are
 * dropped, so memory does not grow with the length of a run. A cache
 * starts zeroed.
 */
#ifndef UNWPROF_USTACK_CACHE_H
#define UNWPROF_USTACK_CACHE_H

#include <stdint.h>

#include "bpf/abi.h"
#include "../util/hashmap.h"

struct ustack_cache {
	struct hashmap by_key; /* struct cached_ustack */
	uint32_t gen;	       /* the current drain */
};

/* Keeps a copy of st under key, used by the current drain. 0 or -ENOMEM. */
int ustack_cache__put(struct ustack_cache *c, uint64_t key, const struct unw_ustack *st);
/* The stack under key, now used by the current drain; NULL when not kept. */
const struct unw_ustack *ustack_cache__get(struct ustack_cache *c, uint64_t key);
/* A drain ended: the stacks the last two did not use are dropped. */
void ustack_cache__age(struct ustack_cache *c);
void ustack_cache__free(struct ustack_cache *c);

#endif
