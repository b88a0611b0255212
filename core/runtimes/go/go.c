// SPDX-License-Identifier: GPL-2.0-only
/*
 * Go's stack switch as a runtime (core/runtimes/runtimes.h):
 * runtime.systemstack, runtime.morestack and runtime.mcall of a Go binary,
 * the vDSO's callers time.now and runtime.nanotime1 where they are read,
 * and the offsets that lead from a thread on its system stack to the
 * goroutine it works for (goruntime.h), which its BPF walk reads
 * (bpf/unwind_go.bpf.h). Its frames are native ones: it has no namer.
 */
#include <stdlib.h>
#include <string.h>

#include "../../util/common.h"
#include "../runtimes.h"
#include "goruntime.h"

static void *go_read(const struct elf_file *ef, const char *path)
{
	struct goruntime *g = malloc(sizeof(*g));

	(void)path;
	if (g && goruntime__read(ef, g) == 0)
		return g;
	free(g);
	return NULL;
}

static void go_free(void *state)
{
	free(state);
}

/* A function's range, loaded at bias; hi 0 (not read) stays 0. */
static uint64_t go_hi(uint64_t hi, uint64_t bias)
{
	return hi ? hi + bias : 0;
}

static bool go_place(const void *state, uint32_t pid, uint64_t bias, struct runtime_place *rp)
{
	const struct goruntime *g = state;
	struct unw_go_proc v = {
		.morestack_lo = g->morestack_lo + bias,
		.morestack_hi = g->morestack_hi + bias,
		.mcall_lo = g->mcall_lo + bias,
		.mcall_hi = g->mcall_hi + bias,
		.now_lo = g->now_lo + bias,
		.now_hi = go_hi(g->now_hi, bias),
		.nanotime_lo = g->nanotime_lo + bias,
		.nanotime_hi = go_hi(g->nanotime_hi, bias),
		.m_vdso_pc = g->m_vdso_pc,
		.m_vdso_sp = g->m_vdso_sp,
		.tls_g = g->tls_g,
		.g_m = g->g_m,
		.m_g0 = g->m_g0,
		.m_curg = g->m_curg,
		.sched_sp = g->sched_sp,
		.sched_pc = g->sched_pc,
		.sched_bp = g->sched_bp,
	};

	(void)pid; /* what it reads is all in the image */
	*rp = (struct runtime_place){
		.ranges = { { g->systemstack_lo + bias, g->systemstack_hi + bias },
			    { g->morestack_lo + bias, g->morestack_hi + bias },
			    { g->mcall_lo + bias, g->mcall_hi + bias },
			    { g->now_lo + bias, go_hi(g->now_hi, bias) },
			    { g->nanotime_lo + bias, go_hi(g->nanotime_hi, bias) } },
		.value_size = sizeof(v),
	};
	memcpy(rp->value, &v, sizeof(v));
	return true;
}

static void go_print(FILE *f, const void *state)
{
	goruntime__print(f, state);
}

static void go_print_json(struct json_writer *jw, const void *state)
{
	goruntime__print_json(jw, state);
}

_Static_assert(sizeof(struct unw_go_proc) <= RUNTIME_VALUE_MAX, "Go's value fits a place");

const struct runtime runtime_go = {
	.unwinder = UNW_UW_GO,
	.name = "go",
	.title = "Go's stack switch",
	.read = go_read,
	.free = go_free,
	.place = go_place,
	.print = go_print,
	.print_json = go_print_json,
};
