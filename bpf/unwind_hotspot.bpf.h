/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The walk of HotSpot's code cache (bpf/unwind_hotspot.h,
 * core/runtimes/hotspot/): the program the native walk hands a frame whose
 * pc is in a JVM's code cache over to (UNW_UW_HOTSPOT). Its process entries
 * are hotspot_procs (bpf/maps.bpf.h). A JVM whose tables lack an entry
 * the walk needs is counted there (hotspot-vmstructs-unsupported), and its
 * frame stepped as the native walk steps code without a table.
 */
#ifndef UNWPROF_UNWIND_HOTSPOT_BPF_H
#define UNWPROF_UNWIND_HOTSPOT_BPF_H

#include "walk.bpf.h"

/* HotSpot's walk of frame s->n, handed over by the native walk. */
static __always_inline __u32 hotspot_step(struct scratch *sc, struct walk_saved *s)
{
	const struct unw_hotspot_proc *hs = bpf_map_lookup_elem(&hotspot_procs, &s->pid);

	if (hs && hs->refused)
		err_inc(sc, UNW_E_HS_TABLES);
	return RESUME_FRAME;
}

UNW_RUNTIME_PROGRAMS(hotspot)

#endif
