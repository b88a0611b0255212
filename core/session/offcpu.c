// SPDX-License-Identifier: GPL-2.0-only
/*
 * The off-CPU side of a session: see offcpu.h and bpf/offcpu.bpf.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session.h" /* before the skeleton: bpf/unwprof.h's types */
#include "bpf/unwind.skel.h"
#include "../util/common.h"
#include "../util/log.h"
#include "../targets/procfs.h"
#include "offcpu.h"

void offcpu__configure(struct unwind_bpf *k, const struct session_opts *opts)
{
	bool on = opts->off_cpu;

	bpf_program__set_autoload(k->progs.on_switch, on);
	bpf_program__set_autoload(k->progs.on_syscall_exit, on);
	bpf_program__set_autoload(k->progs.on_thread_exit, on);
	bpf_map__set_max_entries(k->maps.off_blocks, on ? OFFCPU_BLOCKS_MAX : 1);
	k->rodata->cfg.off_cpu_min_ns = opts->off_cpu_min_ns;
	k->rodata->cfg.off_cpu_walks = opts->off_cpu_walks;
}

int offcpu__attach(struct unwind_bpf *k, struct bpf_link *links[OFFCPU_NR_LINKS])
{
	struct bpf_program *progs[OFFCPU_NR_LINKS] = { k->progs.on_syscall_exit,
						       k->progs.on_thread_exit,
						       k->progs.on_switch };
	int err;

	/* The ends of blocks before their starts, so that no start misses its end. */
	for (size_t i = 0; i < OFFCPU_NR_LINKS; i++) {
		if (!bpf_program__autoload(progs[i]))
			continue;
		links[i] = bpf_program__attach(progs[i]);
		if (!links[i]) {
			err = -errno;
			pr_err("--off-cpu: cannot attach %s: %s", bpf_program__name(progs[i]),
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/* A thread's sample of n blocks of ns off the CPU, unwalked, delivered when there are some. */
static void flush_sample(struct session_sample *smp, uint64_t n, uint64_t ns, uint32_t state,
			 void (*deliver)(void *ctx, const struct session_sample *s), void *ctx)
{
	if (!n)
		return;
	smp->count = n;
	smp->off_cpu_ns = ns;
	smp->flags = SAMPLE_OFF_CPU | SAMPLE_UNWALKED | (state & SAMPLE_STATE_D);
	deliver(ctx, smp);
}

/*
 * One thread's blocks left in the map: the short ones added up, those that
 * ended without their walk, and the one under way (its time up to now_ns),
 * each kind a sample of its state.
 */
static void flush_one(uint32_t tid, const struct unw_off_block *b, uint64_t now_ns,
		      void (*deliver)(void *ctx, const struct session_sample *s), void *ctx,
		      struct offcpu_end *end)
{
	uint64_t under_way = b->start && now_ns > b->start ? now_ns - b->start : 0;
	struct session_sample smp = { .pid = b->pid, .tid = tid };

	if (!b->short_blocks && !b->pending_blocks && !b->start)
		return;
	procfs__thread_comm(b->pid, tid, smp.comm, sizeof(smp.comm));
	flush_sample(&smp, b->short_blocks, b->short_ns, b->short_flags, deliver, ctx);
	flush_sample(&smp, b->pending_blocks, b->pending_ns, b->pending_flags, deliver, ctx);
	flush_sample(&smp, b->start != 0, under_way, b->flags, deliver, ctx);
	end->pending += b->pending_blocks;
	end->under_way += b->start != 0;
	end->ns += b->short_ns + b->pending_ns + under_way;
}

void offcpu__flush(struct unwind_bpf *k, uint64_t now_ns,
		   void (*deliver)(void *ctx, const struct session_sample *s), void *ctx,
		   struct offcpu_end *end)
{
	int fd = bpf_map__fd(k->maps.off_blocks);
	struct unw_off_block b;
	uint32_t key, next;
	bool first = true;

	if (!bpf_program__autoload(k->progs.on_switch))
		return;
	/* Deleting while iterating would restart the walk of the hash: read all, then delete. */
	while (bpf_map_get_next_key(fd, first ? NULL : &key, &next) == 0) {
		first = false;
		key = next;
		if (bpf_map_lookup_elem(fd, &key, &b) == 0)
			flush_one(key, &b, now_ns, deliver, ctx, end);
	}
	while (bpf_map_get_next_key(fd, NULL, &next) == 0)
		if (bpf_map_delete_elem(fd, &next))
			break;
}

void offcpu__stats(const uint64_t *sum, struct session_stats *st)
{
	st->off_blocks = sum[UNW_ST_OFF_BLOCKS];
	st->off_walked = sum[UNW_ST_OFF_WALKED];
	st->off_complete = sum[UNW_ST_OFF_COMPLETE];
	st->off_short = sum[UNW_ST_OFF_SHORT];
	st->off_outside = sum[UNW_ST_OFF_OUTSIDE];
	st->off_capped = sum[UNW_ST_OFF_CAPPED];
	st->off_exited = sum[UNW_ST_OFF_EXITED];
	st->off_lost = sum[UNW_ST_OFF_LOST];
	st->off_ns = sum[UNW_ST_OFF_NS];
	st->off_unwalked_ns = sum[UNW_ST_OFF_UNWALKED_NS];
	st->off_lost_ns = sum[UNW_ST_OFF_LOST_NS];
	st->off_untimed = sum[UNW_ST_OFF_UNTIMED];
	st->off_no_kstack = sum[UNW_ST_OFF_NO_KSTACK];
}
