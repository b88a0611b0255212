/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The off-CPU side of a session (bpf/offcpu.bpf.c): its programs loaded
 * only when asked for, their map and limits sized, what BPF counted of the
 * blocks, and the blocks still under way when the run ends.
 */
#ifndef UNWPROF_OFFCPU_H
#define UNWPROF_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

struct unwind_bpf;
struct bpf_link;
struct session_opts;
struct session_stats;
struct session_sample;

/* Threads of the targets blocked at once, or with blocks pending their walk. */
#define OFFCPU_BLOCKS_MAX 65536

#define OFFCPU_NR_LINKS 3

/* Before load: the programs to load, the map's size, the limits. */
void offcpu__configure(struct unwind_bpf *k, const struct session_opts *opts);

/* Attaches the programs, when loaded, into links (freed by the caller). 0 or -errno, said. */
int offcpu__attach(struct unwind_bpf *k, struct bpf_link *links[OFFCPU_NR_LINKS]);

/* What offcpu__flush found when the run ended. */
struct offcpu_end {
	uint64_t pending;   /* blocks that ended, their walk not made yet */
	uint64_t under_way; /* blocks that had not ended: counted up to the end */
	uint64_t ns;	    /* the time of both */
};

/*
 * After the programs are detached: the blocks under way (their time up to
 * now_ns) and those that ended without their walk, each thread's as one
 * [unwalked] sample to deliver(ctx, sample); they are taken out of the map
 * and added to *end.
 */
void offcpu__flush(struct unwind_bpf *k, uint64_t now_ns,
		   void (*deliver)(void *ctx, const struct session_sample *s), void *ctx,
		   struct offcpu_end *end);

/* The off-CPU counts of the summed stats array (UNW_ST_NR values) into st. */
void offcpu__stats(const uint64_t *sum, struct session_stats *st);

#endif
