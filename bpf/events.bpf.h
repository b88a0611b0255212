/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What BPF tells user space as it goes: counters (the stats of the per-CPU tally)
 * and events on the ring buffer, rate-limited or not, and the hold of a
 * process at new code until its tables are loaded.
 */
#ifndef UNWPROF_EVENTS_BPF_H
#define UNWPROF_EVENTS_BPF_H

#include "maps.bpf.h"
#include "kernel.h"

/* This CPU's tally: stats, costs and times of samples (bpf/abi.h). */
static __always_inline struct unw_tally *tally_here(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&tally, &zero);
}

static __always_inline void stat_add(__u32 idx, __u64 n)
{
	struct unw_tally *t = tally_here();

	if (t && idx < UNW_ST_NR)
		t->stats[idx] += n;
}

static __always_inline void stat_inc(__u32 idx)
{
	stat_add(idx, 1);
}

static __always_inline void event_send(__u32 type, __u32 pid, __u64 addr)
{
	struct event_key k = { .pid = pid, .type = type };
	struct unw_event ev = { .type = type, .pid = pid, .addr = addr };
	__u64 now = bpf_ktime_get_ns();
	__u64 *last = bpf_map_lookup_elem(&event_times, &k);

	if (last && now - *last < cfg.event_interval_ns)
		return;
	bpf_map_update_elem(&event_times, &k, &now, BPF_ANY);
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/* Events that must not be rate-limited (exec, exit, fork, drain). */
static __always_inline void event_send_now(__u32 type, __u32 pid, __u64 addr)
{
	struct unw_event ev = { .type = type, .pid = pid, .addr = addr };

	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0))
		stat_inc(UNW_ST_EVENTS_LOST);
}

/*
 * An event about new code of the current process (exec, mmap); when some of
 * it has no table yet (unknown) and hold_new_code is set, the process is
 * stopped before it runs that code, and user space, told by UNW_EVF_HELD,
 * lets it go on once the tables are in place: no sample of it is left to
 * frame pointers. Stopped first, so the event cannot be handled before the
 * stop; an event that cannot be sent undoes the stop, as nobody would end it.
 */
static __always_inline void event_send_hold(__u32 type, __u32 pid, __u64 addr, int unknown)
{
	struct unw_event ev = { .type = type, .pid = pid, .addr = addr };

	if (unknown && hold_new_code && bpf_send_signal(SIGSTOP) == 0)
		ev.flags = UNW_EVF_HELD;
	if (bpf_ringbuf_output(&events, &ev, sizeof(ev), 0) == 0)
		return;
	stat_inc(UNW_ST_EVENTS_LOST);
	if (ev.flags & UNW_EVF_HELD)
		bpf_send_signal(SIGCONT);
}

#endif
