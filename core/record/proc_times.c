// SPDX-License-Identifier: GPL-2.0-only
/*
 * The time of each process of a run: see proc_times.h. The processes are
 * kept sorted by pid, found by binary search: a run sees a few hundred.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "proc_times.h"
#include "../session/session.h"

struct proc_times {
	struct proc_time *v;
	size_t nr, cap;
	bool sorted_by_time; /* after proc_times__sort: no more adds */
};

struct proc_times *proc_times__new(void)
{
	return calloc(1, sizeof(struct proc_times));
}

/* The index of pid, or where it goes. */
static size_t find(const struct proc_times *pt, uint32_t pid)
{
	size_t lo = 0, hi = pt->nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (pt->v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct proc_time *insert(struct proc_times *pt, size_t i, uint32_t pid, const char *comm)
{
	if (pt->nr == pt->cap) {
		size_t cap = pt->cap ? pt->cap * 2 : 16;
		struct proc_time *v = reallocarray(pt->v, cap, sizeof(*v));

		if (!v)
			return NULL;
		pt->v = v;
		pt->cap = cap;
	}
	memmove(&pt->v[i + 1], &pt->v[i], (pt->nr - i) * sizeof(*pt->v));
	pt->nr++;
	memset(&pt->v[i], 0, sizeof(pt->v[i]));
	pt->v[i].pid = pid;
	strncpy(pt->v[i].comm, comm ? comm : "", sizeof(pt->v[i].comm) - 1);
	return &pt->v[i];
}

int proc_times__add(struct proc_times *pt, uint32_t pid, const char *comm, uint32_t flags,
		    uint64_t count, uint64_t off_cpu_ns)
{
	size_t i;
	struct proc_time *t;

	if (pt->sorted_by_time)
		return -EINVAL;
	i = find(pt, pid);
	t = i < pt->nr && pt->v[i].pid == pid ? &pt->v[i] : insert(pt, i, pid, comm);
	if (!t)
		return -ENOMEM;
	if (!(flags & SAMPLE_OFF_CPU)) {
		t->on_cpu_samples += count;
		return 0;
	}
	t->off_blocks += count;
	if (flags & SAMPLE_UNWALKED)
		t->off_unwalked_ns += off_cpu_ns;
	else
		t->off_walked_ns += off_cpu_ns;
	return 0;
}

uint64_t proc_times__on_cpu_ns(const struct proc_time *t, uint64_t period_ns)
{
	return t->on_cpu_samples * period_ns;
}

uint64_t proc_times__total_ns(const struct proc_time *t, uint64_t period_ns)
{
	return proc_times__on_cpu_ns(t, period_ns) + t->off_walked_ns + t->off_unwalked_ns;
}

static int by_time(const void *pa, const void *pb, void *ctx)
{
	const struct proc_time *a = pa, *b = pb;
	uint64_t period_ns = *(const uint64_t *)ctx;
	uint64_t ta = proc_times__total_ns(a, period_ns), tb = proc_times__total_ns(b, period_ns);

	if (ta != tb)
		return ta > tb ? -1 : 1;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

void proc_times__sort(struct proc_times *pt, uint64_t period_ns)
{
	if (pt->nr)
		qsort_r(pt->v, pt->nr, sizeof(*pt->v), by_time, &period_ns);
	pt->sorted_by_time = true;
}

size_t proc_times__count(const struct proc_times *pt)
{
	return pt ? pt->nr : 0;
}

const struct proc_time *proc_times__get(const struct proc_times *pt, size_t i)
{
	return i < pt->nr ? &pt->v[i] : NULL;
}

void proc_times__free(struct proc_times *pt)
{
	if (!pt)
		return;
	free(pt->v);
	free(pt);
}
