// SPDX-License-Identifier: GPL-2.0-only
/*
 * The drains of a session: the counts BPF took since the last one, their
 * user stacks read back and delivered as samples, the failure sites. See session_priv.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session_priv.h" /* before the skeleton: bpf/abi.h's types */
#include "bpf/unwind.skel.h"
#include "../util/common.h"
#include "../util/log.h"
#include "bpf/ustack_ends.h"
#include "../model/model.h"
#include "count_ledger.h"
#include "offcpu.h"

/* The map of the user stacks under key: short and deep ones have keys of their own. */
static int ustack_map_fd(const struct session *s, uint64_t key)
{
	if (key & UNW_USTACK_DEEP_KEY)
		return bpf_map__fd(s->skel->maps.ustacks_deep);
	return bpf_map__fd(s->skel->maps.ustacks);
}

/*
 * Moves the user stacks from the BPF map fd to the cache. Only keys already
 * copied are deleted, so a stack BPF counts meanwhile is never lost.
 */
static int session__sync_ustack_map(struct session *s, int fd, struct unw_ustack *st)
{
	uint64_t key, next, *done = NULL;
	size_t nr = 0, cap = 0;
	void *prev = NULL;
	int err;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, st))
			continue;
		err = ustack_cache__put(&s->ustacks, key, st);
		if (!err)
			err = grow((void **)&done, &cap, nr, sizeof(*done));
		if (err)
			goto cleanup;
		done[nr++] = key;
	}
	for (size_t i = 0; i < nr; i++)
		bpf_map_delete_elem(fd, &done[i]);
	err = 0;
cleanup:
	free(done);
	return err;
}

static int session__sync_ustacks(struct session *s)
{
	struct unw_ustack *st = malloc(sizeof(*st));
	int err;

	if (!st)
		return -ENOMEM;
	err = session__sync_ustack_map(s, bpf_map__fd(s->skel->maps.ustacks), st);
	if (!err)
		err = session__sync_ustack_map(s, bpf_map__fd(s->skel->maps.ustacks_deep), st);
	free(st);
	return err;
}

static const struct unw_ustack *session__ustack(struct session *s, uint64_t key)
{
	const struct unw_ustack *st = ustack_cache__get(&s->ustacks, key);
	struct unw_ustack *tmp;
	int err;

	if (st || !key)
		return st;
	/* Stored by BPF after the sync: read it now. */
	tmp = malloc(sizeof(*tmp));
	if (!tmp)
		return NULL;
	err = bpf_map_lookup_elem(ustack_map_fd(s, key), &key, tmp) ? -errno : 0;
	if (!err)
		err = ustack_cache__put(&s->ustacks, key, tmp);
	free(tmp);
	return err ? NULL : ustack_cache__get(&s->ustacks, key);
}

static void session__deliver(struct session *s, const struct unw_count_key *k,
			     const struct unw_count *v)
{
	uint64_t kpcs[UNW_KSTACK_DEPTH] = {};
	__u64 upcs[UNW_DEPTH_MAX];
	const struct unw_ustack *us = NULL;
	int nr;
	struct session_sample smp = {
		.pid = k->pid,
		.tid = k->tid,
		.count = v->count,
		.off_cpu_ns = v->ns,
		.flags = k->flags,
	};

	memcpy(smp.comm, v->comm, sizeof(smp.comm));
	smp.comm[sizeof(smp.comm) - 1] = '\0';
	if (k->ustack) {
		us = session__ustack(s, k->ustack);
		if (!us && (k->flags & UNW_SAMPLE_OFF_CPU)) {
			s->off_lost += v->count;
			s->off_lost_ns += v->ns;
			return;
		}
		if (!us) {
			s->lost += v->count;
			return;
		}
		nr = unw_ustack__unfold(us, upcs);
		if (nr < 0) {
			pr_debug("a deep user stack of pid %" PRIu32
				 " whose counts do not add up: lost",
				 k->pid);
			s->lost += v->count;
			return;
		}
		smp.user_pcs = (const uint64_t *)upcs;
		smp.nr_user = (uint32_t)nr;
	}
	if (k->kstack >= 0 &&
	    bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.kstacks), &k->kstack, kpcs) == 0) {
		while (smp.nr_kernel < UNW_KSTACK_DEPTH && kpcs[smp.nr_kernel])
			smp.nr_kernel++;
		smp.kernel_pcs = kpcs;
	}
	if (s->opts.on_sample)
		s->opts.on_sample(s->opts.ctx, &smp);
}

static void deliver_count(void *ctx, const struct unw_count_key *key, const struct unw_count *grown)
{
	session__deliver(ctx, key, grown);
}

/*
 * The samples counted since the last drain, to the caller: every key that
 * grew. flush: the count map is emptied (BPF asked for room, or its names
 * are to be taken again); otherwise only keys that did not grow are
 * deleted. BPF counts the keys it adds (nr_keys), the keys deleted come
 * off that count.
 */
static int session__drain_counts(struct session *s, bool flush)
{
	uint64_t deleted = 0;
	int err;

	err = count_ledger__drain(s->counts, bpf_map__fd(s->skel->maps.counts), flush,
				  deliver_count, s, &deleted);
	__atomic_fetch_sub(&s->skel->bss->nr_keys, deleted, __ATOMIC_SEQ_CST);
	if (err)
		pr_err("draining the count map: %s", strerror(-err));
	return err;
}

/* Where samples failed, to the caller; deleted once told. */
static int session__drain_fails(struct session *s)
{
	int fd = bpf_map__fd(s->skel->maps.fails);
	struct unw_fail_key key, next, *done = NULL;
	size_t nr = 0, cap = 0;
	void *prev = NULL;
	uint64_t n;
	int err = 0;

	while (bpf_map_get_next_key(fd, prev, &next) == 0) {
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &n))
			continue;
		if (s->opts.on_failure)
			s->opts.on_failure(s->opts.ctx, key.pid, key.pc, key.reason, n);
		err = grow((void **)&done, &cap, nr, sizeof(*done));
		if (err)
			break;
		done[nr++] = key;
	}
	for (size_t i = 0; i < nr; i++)
		bpf_map_delete_elem(fd, &done[i]);
	free(done);
	return err;
}

/* Hash maps that grow as they fill (session__maps_grow) are measured at their fullest. */
static void session__map_bytes_peak(struct session *s)
{
	uint64_t now = session__map_bytes(s);

	if (now > s->map_bytes_peak)
		s->map_bytes_peak = now;
}

int session__drain(struct session *s)
{
	bool flush;
	int err;

	if (!s->loaded)
		return -EINVAL;
	flush = s->drain_requested || ++s->drains % COUNTS_FLUSH_DRAINS == 0;
	s->drain_requested = false;
	s->last_drain_ms = now_ms();
	err = session__sync_ustacks(s);
	if (err)
		return err;
	session__map_bytes_peak(s);
	err = session__drain_counts(s, flush);
	if (!err)
		err = session__drain_fails(s);
	if (err)
		return err;
	if (s->opts.on_drained)
		s->opts.on_drained(s->opts.ctx);
	ustack_cache__age(&s->ustacks);
	for (size_t i = 0; i < s->nr_exits; i++) {
		if (s->opts.on_exit)
			s->opts.on_exit(s->opts.ctx, s->exits[i].pid);
		model__remove_process(s->model, s->exits[i].pid);
		session__forget_exited(s, &s->exits[i]);
	}
	s->nr_exits = 0;
	return 0;
}

/* Off-CPU: no more blocks, and the ones the tasks hold counted, their time up to now. */
static int session__stop_off_cpu(struct session *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(s->off_links); i++) {
		bpf_link__destroy(s->off_links[i]);
		s->off_links[i] = NULL;
	}
	return offcpu__end(s->skel);
}

/*
 * Disables every perf event: when the ioctl returns, the sampling program
 * runs no more on that CPU, so the counts and the stats it updated agree and
 * the next drain delivers every sample. Then reads the last events, so that
 * the exits and the new mappings of the last moments are told.
 */
int session__stop(struct session *s)
{
	int err = 0;

	if (!s->loaded)
		return -EINVAL;
	for (size_t i = 0; s->pe_fds && i < s->nr_pe; i++) {
		if (s->pe_fds[i] < 0 || ioctl(s->pe_fds[i], PERF_EVENT_IOC_DISABLE, 0) == 0)
			continue;
		if (!err)
			err = -errno;
		pr_err("cannot stop perf event %zu: %s", i, strerror(errno));
	}
	s->stopped = true;
	if (session__stop_off_cpu(s) && !err)
		err = -EIO;
	s->skel->bss->hold_new_code = 0;
	if (s->rb && ring_buffer__consume(s->rb) < 0 && !err)
		err = -EIO;
	session__reload_dirty(s);
	session__release_all(s);
	return err;
}
