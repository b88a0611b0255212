// SPDX-License-Identifier: GPL-2.0-only
/*
 * The process entries of a session: a process's mappings read, the tables
 * they need uploaded, its runtimes placed, its entry written for BPF. See session_priv.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <poll.h>
#include <sys/syscall.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session_priv.h" /* before the skeleton: bpf/abi.h's types */
#include "bpf/unwind.skel.h"
#include "../util/common.h"
#include "../util/log.h"
#include "../model/model.h"
#include "../runtimes/runtimes.h"
#include "../targets/procmaps.h"
#include "../unwind/unwind_table.h"
#include "../unwind/loader.h"
#include "runtime_walks.h"

static void session__fill_mapping(struct session *s, const struct loader_map *lm, pid_t pid,
				  struct unw_mapping *um)
{
	const struct procmap *m = lm->map;
	bool vdso = procmaps__is_vdso(m);
	struct model_file *f = lm->file;
	uint32_t exec_id;
	uint64_t bias;

	um->start = m->start;
	um->end = m->end;
	/* Frame pointers, until the mapping is known to have a table. */
	um->unwinder = UNW_UW_FP;
	if (m->kind != PROCMAP_FILE && !vdso)
		return;
	if (!f || !f->image || !f->image->table)
		return;
	exec_id = loader__exec_id(s->loader, f->image);
	if (!exec_id)
		return;
	/*
	 * The file map is keyed by device and inode, which BPF takes from the
	 * file of a VMA: the [vdso] has neither, so BPF could never find it
	 * there; it is walked from the process info alone.
	 */
	if (!vdso)
		session__publish_file(s, f, exec_id);
	if (!model__image_bias(f->image, m->start, m->offset, f->image->table->base, &bias)) {
		pr_info("%s (pid %d): no table for the mapping at %#" PRIx64 " (offset %#" PRIx64
			"): in no executable segment, frame pointers there",
			m->path, (int)pid, m->start, m->offset);
		return;
	}
	um->unwinder = UNW_UW_TABLE;
	um->bias = bias;
	um->exec_id = exec_id;
}

/*
 * Cuts [lo, hi) out of the mapping of info that holds it whole, as a
 * mapping of its own walked by unwinder (bpf/abi.h: a pc range with an
 * unwinder of its own); the rest keeps the mapping's. False when no mapping
 * holds it or there is no room for the pieces.
 */
static bool proc_info__cut(struct unw_proc *info, uint64_t lo, uint64_t hi, uint8_t unwinder)
{
	struct unw_mapping pieces[3];
	size_t n = 0, i;

	for (i = 0; i < info->nr_maps; i++)
		if (info->maps[i].start <= lo && hi <= info->maps[i].end && lo < hi)
			break;
	if (i == info->nr_maps)
		return false;
	for (int k = 0; k < 3; k++)
		pieces[k] = info->maps[i];
	if (pieces[0].start < lo)
		pieces[n++].end = lo;
	pieces[n] = info->maps[i];
	pieces[n].start = lo;
	pieces[n].end = hi;
	pieces[n++].unwinder = unwinder;
	if (hi < info->maps[i].end) {
		pieces[n] = info->maps[i];
		pieces[n++].start = hi;
	}
	if (info->nr_maps + n - 1 > UNW_MAPS_MAX)
		return false;
	memmove(&info->maps[i + n], &info->maps[i + 1],
		(info->nr_maps - i - 1) * sizeof(info->maps[0]));
	memcpy(&info->maps[i], pieces, n * sizeof(pieces[0]));
	info->nr_maps += n - 1;
	return true;
}

/* The mapping of info that holds pc and has a table; NULL: none. */
static const struct unw_mapping *proc_info__table_at(const struct unw_proc *info, uint64_t pc)
{
	for (uint32_t k = 0; k < info->nr_maps; k++)
		if (info->maps[k].start <= pc && pc < info->maps[k].end && info->maps[k].exec_id)
			return &info->maps[k];
	return NULL;
}

/*
 * The mappings of no table of lp that runtime u, placed with state at
 * bias, claims: u's, each pc of them walked with the row of the pc its
 * runtime names (bpf/abi.h: UNW_MAP_ONE_ROW).
 */
static void session__claim_mappings(const struct loader_proc *lp, struct unw_proc *info,
				    unsigned int u, const void *state, uint64_t bias)
{
	const struct runtime *rt = runtimes__of_unwinder(u);

	for (size_t i = 0; i < lp->nr_maps && rt->claims; i++) {
		const struct procmap *m = lp->maps[i].map;
		uint64_t pc = rt->claims(state, bias, m);
		const struct unw_mapping *row = pc ? proc_info__table_at(info, pc) : NULL;

		if (!row)
			continue;
		for (uint32_t k = 0; k < info->nr_maps; k++) {
			struct unw_mapping *um = &info->maps[k];

			if (um->start != m->start || um->end != m->end || um->exec_id)
				continue;
			um->unwinder = (uint8_t)u;
			um->exec_id = row->exec_id;
			um->bias = pc - row->bias;
			um->flags = UNW_MAP_ONE_ROW;
		}
	}
}

/*
 * Cuts [lo, hi) out of every mapping of info it overlaps (proc_info__cut):
 * a runtime's range may span mappings, as a JVM's code cache does, whose
 * committed parts are mappings of their own. False when none was cut.
 */
static bool proc_info__cut_over(struct unw_proc *info, uint64_t lo, uint64_t hi, uint8_t unwinder)
{
	struct {
		uint64_t lo, hi;
	} parts[UNW_MAPS_MAX];
	size_t n = 0;
	bool cut = false;

	for (size_t i = 0; i < info->nr_maps && n < ARRAY_SIZE(parts); i++) {
		uint64_t a = info->maps[i].start > lo ? info->maps[i].start : lo;
		uint64_t b = info->maps[i].end < hi ? info->maps[i].end : hi;

		if (a < b) {
			parts[n].lo = a;
			parts[n++].hi = b;
		}
	}
	for (size_t k = 0; k < n; k++)
		cut |= proc_info__cut(info, parts[k].lo, parts[k].hi, unwinder);
	return cut;
}

/*
 * The mappings of info that are executable memory of no file (JIT code,
 * walked by frame pointers) walked by unwinder instead.
 */
static void proc_info__take_jit(struct unw_proc *info, const struct loader_proc *lp,
				uint8_t unwinder)
{
	for (size_t i = 0; i < lp->nr_maps; i++) {
		const struct procmap *m = lp->maps[i].map;

		if (m->kind != PROCMAP_ANON)
			continue;
		for (size_t k = 0; k < info->nr_maps; k++)
			if (info->maps[k].start == m->start && info->maps[k].unwinder == UNW_UW_FP)
				info->maps[k].unwinder = unwinder;
	}
}

/*
 * Runtime u (core/runtimes/runtimes.h) in process pid: the first mapping of
 * a file that has it gets its pc ranges cut out with u's unwinder, and the
 * mappings of no file it claims get it too; u's programs are loaded if
 * they were not, and what they read is written to its map; a runtime whose
 * frames are named from the process's memory is told where it is. A
 * process without it has no entry.
 */
static void session__add_runtime(struct session *s, pid_t pid, const struct loader_proc *lp,
				 struct unw_proc *info, unsigned int u)
{
	const struct runtime *rt = runtimes__of_unwinder(u);
	int fd = bpf_map__fd(runtime_walks__procs_map(s->walks, u));
	uint32_t key = pid;

	for (size_t i = 0; i < lp->nr_maps; i++) {
		const struct procmap *m = lp->maps[i].map;
		struct model_file *f = lp->maps[i].file;
		const void *state = f && f->image ? f->image->rt.state[u] : NULL;
		struct runtime_place rp;
		uint64_t bias;

		if (m->kind != PROCMAP_FILE || !state || !f->image->table ||
		    !model__image_bias(f->image, m->start, m->offset, 0, &bias) ||
		    !rt->place(state, (uint32_t)pid, bias, &rp))
			continue;
		if (!proc_info__cut_over(info, rp.ranges[0].lo, rp.ranges[0].hi, u))
			continue;
		for (size_t k = 1; k < ARRAY_SIZE(rp.ranges); k++)
			if (rp.ranges[k].hi)
				proc_info__cut_over(info, rp.ranges[k].lo, rp.ranges[k].hi, u);
		session__claim_mappings(lp, info, u, state, bias);
		if (rp.jit)
			proc_info__take_jit(info, lp, u);
		runtime_walks__enable(s->walks, u);
		if (bpf_map_update_elem(fd, &key, rp.value, BPF_ANY) == 0)
			pr_debug("process %d: %s in %s", (int)pid, rt->title, m->path);
		else
			pr_warn("process %d: %s in %s, which the walk cannot follow: %s", (int)pid,
				rt->title, m->path, strerror(errno));
		if (rt->namer && s->opts.on_runtime)
			s->opts.on_runtime(s->opts.ctx, pid, rt, state, bias);
		return;
	}
	bpf_map_delete_elem(fd, &key);
}

/*
 * The process info of p, after the tables it needs: the mappings the loader
 * keeps (the lowest and highest past UNW_MAPS_MAX), their new tables packed
 * and uploaded in one batch. Returns whether mappings were left out.
 */
static bool session__fill_mappings(struct session *s, const struct model_proc *p,
				   struct unw_proc *info)
{
	struct loader_proc *lp = malloc(sizeof(*lp));
	bool over;

	if (!lp)
		return false;
	/*
	 * Short of memory, or an upload that failed: the tables not in place
	 * have no id, and their mappings are walked with frame pointers.
	 */
	loader__add_process(s->loader, p, lp);
	loader__pack(s->loader, session__upload_placed, s);
	session__publish_files(s);
	over = lp->nr_left_out > 0;
	/* Once: the process is read again at every new mapping. */
	if (over && !s->maps_limit_warned)
		pr_warn("process %d: %zu executable mappings, tables for %d of them", (int)p->pid,
			p->nr_current, UNW_MAPS_MAX);
	s->maps_limit_warned |= over;
	for (size_t i = 0; i < lp->nr_maps; i++)
		session__fill_mapping(s, &lp->maps[i], p->pid, &info->maps[info->nr_maps++]);
	/* Runtimes whose pc ranges have walks of their own. */
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		session__add_runtime(s, p->pid, lp, info, u);
	free(lp);
	return over;
}

struct session_proc *session__proc_find(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_procs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static struct session_proc *session__proc_add(struct session *s, pid_t pid)
{
	struct session_proc *p = session__proc_find(s, pid);

	if (p)
		return p;
	if (grow((void **)&s->procs, &s->cap_procs, s->nr_procs, sizeof(*s->procs)))
		return NULL;
	p = &s->procs[s->nr_procs++];
	*p = (struct session_proc){ .pid = pid };
	s->procs_seen++;
	return p;
}

static bool session__exit_pending(const struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_exits; i++)
		if (s->exits[i].pid == pid)
			return true;
	return false;
}

/*
 * Counts a write or a deletion of a process entry, once done: BPF knows an
 * entry it looked up is unchanged while the count is (procs_written).
 */
static void session__procs_changed(struct session *s)
{
	__atomic_fetch_add(&s->skel->bss->procs_written, 1, __ATOMIC_SEQ_CST);
}

/*
 * The process info of pid was written after reading its mappings, and the
 * process may have exited meanwhile: BPF then deleted its entries at the
 * exit, before this write, which would stay forever. The pidfd, opened
 * before the read, tells; the exit event, still to be read, frees the rest.
 */
static void session__check_alive(struct session *s, int pidfd, pid_t pid)
{
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	uint32_t key = pid;

	if (poll(&pfd, 1, 0) == 1 &&
	    bpf_map_delete_elem(bpf_map__fd(s->skel->maps.procs), &key) == 0)
		session__procs_changed(s);
}

/*
 * The exit of e's process was told, a drain ago: BPF deleted its entries at
 * the exit, unless user space wrote them after it, in the moment between
 * the exit and the pidfd telling of it (session__check_alive), where they
 * would stay forever. Deleted now if no process holds the pid any more (one
 * that does may be a new process under it, whose entries they are) and the
 * process entry is still the one written last.
 */
void session__forget_exited(struct session *s, const struct session_exit *e)
{
	int pidfd = syscall(SYS_pidfd_open, e->pid, 0);
	struct pollfd pfd = { .fd = pidfd, .events = POLLIN };
	struct unw_proc *info;
	uint32_t key = e->pid;
	bool ours;

	if (!e->gen)
		return;
	if (pidfd >= 0) {
		bool alive = poll(&pfd, 1, 0) != 1;

		close(pidfd);
		if (alive)
			return;
	} else if (errno != ESRCH) {
		return;
	}
	info = malloc(sizeof(*info));
	if (!info)
		return;
	ours = bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.procs), &key, info) == 0 &&
	       info->gen == e->gen;
	free(info);
	if (!ours)
		return;
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		bpf_map_delete_elem(bpf_map__fd(runtime_walks__procs_map(s->walks, u)), &key);
	if (bpf_map_delete_elem(bpf_map__fd(s->skel->maps.procs), &key) == 0) {
		session__procs_changed(s);
		pr_debug("process %u: its entries, written as it exited, deleted", key);
	}
}

/* Whether [start, end) overlaps a mapping of info. */
static bool proc_info__overlaps(const struct unw_proc *info, uint64_t start, uint64_t end)
{
	for (uint32_t i = 0; i < info->nr_maps; i++)
		if (info->maps[i].start < end && start < info->maps[i].end)
			return true;
	return false;
}

/*
 * Adds to info the mappings BPF put in the process's entry (an mmap, as the
 * dynamic loader maps a library) that the mappings read from /proc do not
 * cover: made after the read, which a slow read would otherwise overwrite,
 * leaving the library's frames without a table until the next read. A
 * mapping BPF added that was gone by the read overlaps nothing of it, and
 * no pc of the process falls in it.
 */
static void session__keep_bpf_mappings(struct session *s, uint32_t pid, struct unw_proc *info)
{
	struct unw_proc *cur = malloc(sizeof(*cur));
	uint32_t kept = 0;

	if (!cur || bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.procs), &pid, cur) ||
	    !(cur->gen & 1)) {
		free(cur);
		return;
	}
	for (uint32_t i = 0; i < cur->nr_maps && i < UNW_MAPS_MAX; i++) {
		const struct unw_mapping *m = &cur->maps[i];
		uint32_t at = 0;

		if (info->nr_maps >= UNW_MAPS_MAX || proc_info__overlaps(info, m->start, m->end))
			continue;
		while (at < info->nr_maps && info->maps[at].start < m->start)
			at++;
		memmove(&info->maps[at + 1], &info->maps[at],
			(info->nr_maps - at) * sizeof(info->maps[0]));
		info->maps[at] = *m;
		info->nr_maps++;
		kept++;
	}
	if (kept)
		pr_debug("process %u: %u mappings made after its mappings were read, kept", pid,
			 kept);
	free(cur);
}

/* Writes the process info of mp; a full map is warned about once, not an error. */
static int session__write_proc(struct session *s, const struct model_proc *mp,
			       struct session_proc *p)
{
	struct unw_proc *info = calloc(1, sizeof(*info));
	uint32_t key = mp->pid;

	if (!info)
		return -ENOMEM;
	if (session__fill_mappings(s, mp, info) && !p->over_limit) {
		p->over_limit = true;
		s->maps_over_limit++;
	}
	/* BPF's gens are odd: an entry BPF wrote last may hold mappings newer than the read. */
	session__keep_bpf_mappings(s, key, info);
	info->gen = p->gen = s->proc_gen_last += 2;
	p->in_map = bpf_map_update_elem(bpf_map__fd(s->skel->maps.procs), &key, info, BPF_ANY) == 0;
	if (p->in_map) {
		session__procs_changed(s);
	} else {
		if (!s->procs_full_warned)
			pr_warn("process %d: process map full (%s): frame pointers for new processes",
				(int)mp->pid, strerror(errno));
		s->procs_full_warned = true;
	}
	free(info);
	return 0;
}

/* The mappings of pid read into the model; NULL when they cannot be (said unless quiet). */
static struct model_proc *session__read_process(struct session *s, pid_t pid, bool quiet)
{
	struct model_proc *mp = model__read_process(s->model, pid);

	if (mp)
		return mp;
	/* Exited meanwhile: normal under -a and with forking targets. */
	if (errno == ESRCH && quiet)
		s->procs_gone++;
	else if (!quiet)
		pr_err(errno == ESRCH ? "process %d does not exist" :
					"process %d: cannot read its mappings",
		       (int)pid);
	return NULL;
}

/*
 * Uploads the tables the mappings of mp need and then the process info:
 * mp is read now when NULL. quiet: the process may be gone (events), not an
 * error. Once stopped, only the model is read (symbols of the last samples).
 */
int session__load_process(struct session *s, pid_t pid, struct model_proc *mp, bool quiet)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	struct session_proc *p;
	int err = 0;

	/* The exit of an earlier process under this pid is told first, and forgotten. */
	if (session__exit_pending(s, pid)) {
		err = session__drain(s);
		mp = NULL;
		if (err)
			goto cleanup;
	}
	if (mp && pidfd < 0) {
		/* Read before, and gone since: as if read now. */
		mp = NULL;
	}
	if (!mp)
		mp = session__read_process(s, pid, quiet);
	if (!mp) {
		err = -errno;
		goto cleanup;
	}
	err = -ENOMEM;
	p = session__proc_add(s, pid);
	if (!p)
		goto cleanup;
	err = s->stopped ? 0 : session__write_proc(s, mp, p);
	if (err)
		goto cleanup;
	if (s->opts.on_process)
		s->opts.on_process(s->opts.ctx, pid);
	if (pidfd >= 0 && !s->stopped)
		session__check_alive(s, pidfd, pid);
cleanup:
	if (pidfd >= 0)
		close(pidfd);
	return err;
}
