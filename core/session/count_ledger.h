/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The count map, read by difference. BPF adds each sample to a count under
 * its key (pid, thread, stacks, flags: bpf/walk.bpf.h count_add); the first
 * sample of a key pays for an allocation and the store of its user stack,
 * ten times the add that every later one pays. So the keys stay in the map
 * from drain to drain: a drain reads every count and hands on what it grew
 * by since the drain before, which the ledger remembers. A key that did not
 * grow over a whole interval is deleted, its last growth read in the same
 * step, and so is every key when the map is to be emptied (a flush).
 *
 *	l = count_ledger__new();
 *	err = count_ledger__drain(l, fd, flush, on_count, ctx, &deleted);
 *	count_ledger__free(l);
 */
#ifndef UNWPROF_COUNT_LEDGER_H
#define UNWPROF_COUNT_LEDGER_H

#include <stdbool.h>
#include <stdint.h>

#include "../../bpf/abi.h"

struct count_ledger;

/* What key's count and off-CPU time grew by since the last drain: never both 0. */
typedef void count_ledger_fn(void *ctx, const struct unw_count_key *key,
			     const struct unw_count *grown);

/* NULL and errno on failure. */
struct count_ledger *count_ledger__new(void);

/*
 * Reads the count map fd: on_count for every key that grew. A key that did
 * not is deleted; with flush, every key is. *deleted: the keys deleted,
 * for BPF's count of the keys in the map. 0 or a negative errno; a kernel
 * that cannot delete one key with its value (before Linux 5.14) makes
 * every later drain a flush.
 */
int count_ledger__drain(struct count_ledger *l, int fd, bool flush, count_ledger_fn *on_count,
			void *ctx, uint64_t *deleted);

/* Keys the ledger knows: those in the map at the last drain. */
uint64_t count_ledger__keys(const struct count_ledger *l);

void count_ledger__free(struct count_ledger *l);

#endif
