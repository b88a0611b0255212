/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The off-CPU side of a session (bpf/offcpu.bpf.c): its programs loaded
 * only when asked for, its limits set, the blocks still held by the tasks
 * counted when the run ends, and what BPF counted of the blocks.
 */
#ifndef UNWPROF_OFFCPU_H
#define UNWPROF_OFFCPU_H

#include <stdint.h>

struct unwind_bpf;
struct bpf_link;
struct session_opts;

#define OFFCPU_NR_LINKS 3

/* Before load: the programs to load and the limits. */
void offcpu__configure(struct unwind_bpf *k, const struct session_opts *opts);

/* Attaches the programs, when loaded, into links (freed by the caller). 0 or -errno, said. */
int offcpu__attach(struct unwind_bpf *k, struct bpf_link *links[OFFCPU_NR_LINKS]);

/*
 * Once the programs are detached: runs off_at_end over every task, which
 * counts the blocks the tasks still hold (short ones added up, those whose
 * walk did not come, the one under way up to now) into the count map, for
 * the drain that follows. 0 or -errno, said.
 */
int offcpu__end(struct unwind_bpf *k);

#endif
