// SPDX-License-Identifier: GPL-2.0-only
/*
 * The events BPF sends a session: processes new, changed, held until their
 * tables are loaded, exited; code of a runtime first seen. See session_priv.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <signal.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session_priv.h" /* before the skeleton: bpf/abi.h's types */
#include "bpf/unwind.skel.h"
#include "../util/common.h"
#include "../util/log.h"
#include "bpf/sample_time_hist.h"
#include "../model/model.h"

/* Mappings of pid to read again once the current batch of events is handled. */
static void session__mark_dirty(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_dirty; i++)
		if (s->dirty[i] == pid)
			return;
	if (grow((void **)&s->dirty, &s->cap_dirty, s->nr_dirty, sizeof(*s->dirty)) == 0)
		s->dirty[s->nr_dirty++] = pid;
}

static void session__unmark_dirty(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_dirty; i++) {
		if (s->dirty[i] != pid)
			continue;
		s->dirty[i] = s->dirty[--s->nr_dirty];
		return;
	}
}

static bool session__is_target(struct session *s, pid_t pid)
{
	uint32_t key = pid;
	uint8_t val;

	return s->opts.system_wide ||
	       bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.targets), &key, &val) == 0;
}

/* A process BPF stopped until its tables are loaded. */
static void session__hold(struct session *s, pid_t pid)
{
	s->holds++;
	for (size_t i = 0; i < s->nr_held; i++)
		if (s->held[i] == pid)
			return;
	if (grow((void **)&s->held, &s->cap_held, s->nr_held, sizeof(*s->held)) == 0)
		s->held[s->nr_held++] = pid;
	else
		kill(pid, SIGCONT); /* not remembered: never left stopped */
}

/* Lets pid go on if BPF stopped it; exited: only forgotten. */
static void session__release(struct session *s, pid_t pid, bool exited)
{
	for (size_t i = 0; i < s->nr_held; i++) {
		if (s->held[i] != pid)
			continue;
		if (!exited)
			kill(pid, SIGCONT);
		s->held[i] = s->held[--s->nr_held];
		return;
	}
}

void session__release_all(struct session *s)
{
	while (s->nr_held)
		session__release(s, s->held[0], false);
}

static void session__exec_started(struct session *s, pid_t pid, uint64_t ns)
{
	if (ns && grow((void **)&s->execs, &s->cap_execs, s->nr_execs, sizeof(*s->execs)) == 0)
		s->execs[s->nr_execs++] = (struct exec_start){ pid, ns };
}

/* pid's tables are loaded: the time since its exec, if it is one, counted. */
static void session__exec_loaded(struct session *s, pid_t pid)
{
	struct timespec now;
	uint64_t ns;

	for (size_t i = 0; i < s->nr_execs; i++) {
		if (s->execs[i].pid != pid)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = (uint64_t)now.tv_sec * 1000000000ULL + (uint64_t)now.tv_nsec;
		if (ns > s->execs[i].ns)
			s->exec_hist[unw_hist__bucket(ns - s->execs[i].ns)]++;
		s->execs[i--] = s->execs[--s->nr_execs];
	}
}

void session__reload_dirty(struct session *s)
{
	/* A target that exited since has no entry left: its pid is not read again. */
	for (size_t i = 0; i < s->nr_dirty; i++) {
		if (session__is_target(s, s->dirty[i]))
			session__load_process(s, s->dirty[i], NULL, true);
		session__release(s, s->dirty[i], false);
		session__exec_loaded(s, s->dirty[i]);
	}
	s->nr_dirty = 0;
	s->nr_execs = 0; /* of processes that exited before: not timed */
}

/*
 * BPF deleted the process's entries at its exit, in kernel order: a process
 * forked under the same pid later in this batch has its own events. Frees
 * the rest; the callback is told after the next drain, which delivers the
 * process's last samples.
 */
static void session__proc_exit(struct session *s, pid_t pid)
{
	struct session_proc *p = session__proc_find(s, pid);
	struct session_exit e = { .pid = pid, .gen = p && p->in_map ? p->gen : 0 };

	session__unmark_dirty(s, pid);
	session__release(s, pid, true);
	if (p)
		*p = s->procs[--s->nr_procs];
	/* A child that exited before it was read has its parent's mappings in the model. */
	else if (!model__process(s->model, pid))
		return;
	if (grow((void **)&s->exits, &s->cap_exits, s->nr_exits, sizeof(*s->exits)) == 0)
		s->exits[s->nr_exits++] = e;
}

/*
 * Whether a sampled pid without process info is to be read. Not when its
 * info did not fit in the map, nor when BPF holds it now (the sample came
 * before the write); but when it vanished (a lost exit event: the pid is
 * another process now).
 */
static bool session__proc_unknown(struct session *s, pid_t pid)
{
	struct session_proc *p = session__proc_find(s, pid);
	uint32_t key = pid;
	struct unw_proc *info;
	bool gone;

	if (!p)
		return true;
	if (!p->in_map)
		return false;
	info = malloc(sizeof(*info));
	if (!info)
		return false;
	gone = bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.procs), &key, info) != 0 &&
	       errno == ENOENT;
	free(info);
	return gone;
}

int session__on_event(void *ctx, void *data, size_t size)
{
	struct session *s = ctx;
	const struct unw_event *ev = data;

	if (size < sizeof(*ev))
		return 0;
	if (ev->flags & UNW_EVF_HELD)
		session__hold(s, ev->pid);
	switch (ev->type) {
	case UNW_EV_UNKNOWN_PROC:
		if (session__proc_unknown(s, ev->pid))
			session__mark_dirty(s, ev->pid);
		break;
	case UNW_EV_NOT_COVERED:
		pr_debug("process %u: pc %#" PRIx64 " in no known mapping: re-reading its maps",
			 ev->pid, (uint64_t)ev->addr);
		session__mark_dirty(s, ev->pid);
		break;
	case UNW_EV_FORK:
		/* Its samples until its mappings are read are named with its parent's. */
		if (model__fork(s->model, (pid_t)ev->addr, ev->pid))
			pr_debug("process %u: forked, out of memory for its parent's mappings",
				 ev->pid);
		if (s->opts.on_fork)
			s->opts.on_fork(s->opts.ctx, (uint32_t)ev->addr, ev->pid);
		session__mark_dirty(s, ev->pid);
		break;
	case UNW_EV_EXEC:
		session__exec_started(s, ev->pid, ev->addr);
		model__exec(s->model, ev->pid);
		session__mark_dirty(s, ev->pid);
		break;
	case UNW_EV_MAPPED:
		session__mark_dirty(s, ev->pid);
		break;
	case UNW_EV_EXIT:
		session__proc_exit(s, ev->pid);
		break;
	case UNW_EV_DRAIN:
		s->drain_requested = true;
		break;
	case UNW_EV_CODE:
		if (s->opts.on_code)
			s->opts.on_code(s->opts.ctx, ev, size);
		break;
	}
	return 0;
}

int session__poll(struct session *s, int timeout_ms)
{
	int err;

	if (!s->rb)
		return -EINVAL;
	err = ring_buffer__poll(s->rb, timeout_ms);
	if (err < 0 && err != -EINTR)
		return err;
	session__reload_dirty(s);
	if (s->drain_requested || now_ms() - s->last_drain_ms >= DRAIN_INTERVAL_MS) {
		int derr = session__drain(s);

		if (derr)
			return derr;
	}
	return err == -EINTR ? -EINTR : 0;
}
