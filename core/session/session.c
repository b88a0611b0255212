// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF profiling session: sizes and loads the unwinder, uploads unwind
 * tables and process info, attaches the sampling perf events and the process
 * tracepoints, follows the events BPF sends, and drains the in-kernel counts
 * (its files: session_priv.h). Which mappings get tables, in which order they
 * are packed and where each row goes is core/unwind/loader.c's, the same
 * code `unwprof shards` prints, so the two cannot disagree; the bytes uploaded
 * are core/unwind/encoder.c's.
 *
 * The rows live in shards created as the tables need them
 * (session_tables.c):
 *
 *  - -p and a launched command: session__load() first reads the mappings of
 *    the targets and builds their tables, so they are uploaded right after
 *    load, before sampling starts, in one batch of the loader (smallest
 *    first).
 *  - the cap, --max-shards, defaults to 256 shards (256 MiB) but to no more
 *    than 1/64 of physical memory (128 MiB on an 8 GiB box), and never to
 *    less than 32: a one-shot profiler must not take a noticeable part of a
 *    small machine's memory. Measured here: GCC 12's cc1 and cc1plus take 8
 *    shards each, LLVM 14's library 15, ld.bfd and libc one or less.
 *
 * What does not fit is walked with frame pointers and counted
 * (rows_unplaced), with one warning for the whole run.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session_priv.h" /* before the skeleton: bpf/abi.h's types */
#include "bpf/unwind.skel.h"
#include "../util/common.h"
#include "../util/log.h"
#include "../model/model.h"
#include "../targets/procfs.h"
#include "../runtimes/runtimes.h"
#include "bpf_features.h"
#include "count_ledger.h"
#include "offcpu.h"
#include "runtime_walks.h"
#include "../unwind/unwind_table.h"
#include "../unwind/encoder.h"
#include "../unwind/loader.h"

int session__check_environment(void)
{
	int err = bpf_features__check_privileges();

	return err ? err : bpf_features__check_kernel();
}

/*
 * Chooses the programs the kernel can run: the walk in one program with
 * bpf_loop (5.17+), else in tail calls of 32 frames a program (walk_tc). The test hook
 * UNWPROF_BPF_TAIL_CALLS=1 forces the latter, to test it on a recent kernel.
 */
static void session__choose_programs(struct session *s)
{
	const char *force = test_hook("UNWPROF_BPF_TAIL_CALLS");
	struct unwind_bpf *k = s->skel;
	bool find_vma = bpf_features__have_helper(BPF_FUNC_find_vma);

	s->tail_calls = (force && *force == '1') || !bpf_features__have_helper(BPF_FUNC_loop);
	bpf_program__set_autoload(k->progs.sample, !s->tail_calls);
	bpf_program__set_autoload(k->progs.sample_tc, s->tail_calls);
	bpf_program__set_autoload(k->progs.walk_tc, s->tail_calls);
	bpf_program__set_autoload(k->progs.on_sys_exit, find_vma);
	k->rodata->cfg.have_find_vma = find_vma;
	if (s->tail_calls)
		pr_info("walking stacks with tail calls (no bpf_loop)");
}

/*
 * The runtimes the targets read before load run (their images' runtimes):
 * their programs load with the session's, verified once with the rest.
 * Those found later are loaded as they are found (runtime_walks.h).
 */
static void session__choose_runtimes(struct session *s)
{
	for (size_t i = 0; i < model__nr_images(s->model); i++) {
		const struct model_image *e = model__image(s->model, i);

		for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
			if (e->rt.state[u])
				runtime_walks__choose(s->walks, u);
	}
}

/* The default --max-shards: 256, but at most 1/64 of memory, and at least 32. */
static size_t default_max_shards(const struct encoder *enc)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
	size_t shard = encoder__geometry(enc)->shard_bytes, n;

	if (pages <= 0 || page <= 0)
		return DEFAULT_MAX_SHARDS;
	n = (size_t)pages / SHARD_RAM_SHARE / (shard / page);
	if (n > DEFAULT_MAX_SHARDS)
		return DEFAULT_MAX_SHARDS;
	return n < MIN_DEFAULT_MAX_SHARDS ? MIN_DEFAULT_MAX_SHARDS : n;
}

/*
 * Processes of a launched command's tree alive at once: what keeps every
 * CPU busy (make -jN runs a few per job), PROCS_PER_CPU a CPU.
 */
static size_t session__tree_procs(void)
{
	int cpus = libbpf_num_possible_cpus();
	size_t n = cpus > 0 ? (size_t)cpus * PROCS_PER_CPU : PROCS_TREE_MIN;

	return n < PROCS_TREE_MIN ? PROCS_TREE_MIN : n;
}

/*
 * Entries of the maps of stacks: every sample of a drain interval may be a
 * stack not seen before, freq on each CPU sampled; DRAINS_OF_ROOM such
 * intervals, a power of two within [STACK_ENTRIES_MIN, STACK_ENTRIES_MAX].
 * A stack that finds its map full is counted as lost, never dropped
 * silently.
 */
static size_t session__stacks_needed(const struct session *s)
{
	int possible = libbpf_num_possible_cpus();
	uint64_t cpus = s->opts.cpus ? s->opts.nr_cpus : possible > 0 ? (uint64_t)possible : 1;
	uint64_t need = (uint64_t)s->opts.freq * cpus * DRAINS_OF_ROOM * DRAIN_INTERVAL_MS / 1000;
	size_t n = STACK_ENTRIES_MIN;

	while (n < need && n < STACK_ENTRIES_MAX)
		n <<= 1;
	return n;
}

struct session *session__new(const struct session_opts *opts)
{
	struct session *s = NULL;
	int err;

	err = session__check_environment();
	if (err)
		goto cleanup;
	err = -ENOMEM;
	s = calloc(1, sizeof(*s));
	if (!s)
		goto cleanup;
	s->opts = *opts;
	s->enc = encoder__new(ENCODER_COMPACT);
	s->counts = count_ledger__new();
	if (!s->enc || !s->counts)
		goto cleanup;
	if (!s->opts.freq)
		s->opts.freq = 99;
	if (!s->opts.max_shards)
		s->opts.max_shards = default_max_shards(s->enc);
	if (!s->opts.count_map_entries)
		s->opts.count_map_entries = session__stacks_needed(s) * COUNTS_PER_STACK;
	s->max_execs = s->opts.system_wide ? LOADER_EXECS_SYSTEM : LOADER_EXECS_TARGETS;
	s->loader = loader__new(&(struct loader_opts){
		.enc = s->enc,
		.max_shards = s->opts.max_shards,
		.max_execs = s->max_execs,
	});
	if (!s->loader) {
		err = -errno;
		goto cleanup;
	}
	s->model = opts->model;
	if (!s->model) {
		s->model = model__new(&(struct model_opts){ .no_tables = opts->fp_only });
		s->own_model = true;
	}
	if (!s->model) {
		err = -errno;
		goto cleanup;
	}
	s->skel = unwind_bpf__open();
	if (!s->skel) {
		err = -errno;
		pr_err("cannot open the BPF object: %s", strerror(-err));
		goto cleanup;
	}
	s->walks = runtime_walks__new(s->skel, opts->off_cpu);
	err = s->walks ? 0 : -ENOMEM;
cleanup:
	if (err) {
		session__free(s);
		errno = -err;
		return NULL;
	}
	return s;
}

/*
 * Rows the tables of the targets need, reading their mappings into the
 * model and building the tables on the way, queued in the loader: one
 * batch, packed after load.
 */
static size_t session__target_rows(struct session *s)
{
	struct loader_proc *lp = malloc(sizeof(*lp));
	size_t rows = 0;

	for (size_t i = 0; lp && i < s->opts.nr_pids; i++) {
		struct model_proc *mp = model__read_process(s->model, s->opts.pids[i]);

		if (mp) /* else reported by session__add_process */
			loader__add_process(s->loader, mp, lp);
	}
	free(lp);
	for (size_t i = 0; i < model__nr_images(s->model); i++) {
		const struct model_image *e = model__image(s->model, i);

		if (e->table)
			rows += e->table->nr_rows;
	}
	return rows;
}

/*
 * The hash maps sized for the worst case (the stacks of a second at 999 Hz
 * on every CPU, every process of -a) take memory as they fill where the
 * kernel allows it, else their whole size at load.
 */
static void map_grows(struct bpf_map *map)
{
	bpf_map__set_map_flags(map, bpf_map__map_flags(map) | BPF_F_NO_PREALLOC);
}

static void session__maps_grow(struct session *s)
{
	struct unwind_bpf *k = s->skel;
	struct bpf_map *maps[] = { k->maps.counts, k->maps.ustacks, k->maps.ustacks_deep,
				   k->maps.procs,  k->maps.files,   k->maps.targets,
				   k->maps.threads };

	if (!bpf_features__growing_maps()) {
		pr_info("BPF hash maps preallocated: the kernel has no others for perf events");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(maps); i++)
		map_grows(maps[i]);
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		map_grows(runtime_walks__procs_map(s->walks, u));
}

static void session__size_maps(struct session *s)
{
	struct unwind_bpf *k = s->skel;
	size_t procs, counts = s->opts.count_map_entries, stacks = session__stacks_needed(s);

	/* Built now, before the first sample; uploaded after load, smallest first. */
	if (!s->opts.fp_only) {
		uint64_t t = now_ms();
		size_t rows = session__target_rows(s);

		pr_info("unwind tables of the targets built: %zu rows, %" PRIu64 " ms", rows,
			now_ms() - t);
	}
	procs = s->opts.system_wide	? PROCS_SYSTEM :
		s->opts.follow_children ? session__tree_procs() :
					  64;
	if (procs < s->opts.nr_pids + 16)
		procs = s->opts.nr_pids + 16;
	bpf_map__set_max_entries(k->maps.shards, s->opts.fp_only ? 1 : s->opts.max_shards);
	/* The index of the tables: none without them. */
	bpf_map__set_max_entries(k->maps.pages, s->opts.fp_only ? 1 : UNW_PAGES_MAX);
	bpf_map__set_max_entries(k->maps.rules, s->opts.fp_only ? 1 : UNW_RULES_MAX);
	bpf_map__set_max_entries(k->maps.execs, s->max_execs);
	bpf_map__set_max_entries(k->maps.files, s->max_execs * 2);
	bpf_map__set_max_entries(k->maps.procs, procs);
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		bpf_map__set_max_entries(runtime_walks__procs_map(s->walks, u), procs);
	bpf_map__set_max_entries(k->maps.targets, procs * 4);
	bpf_map__set_max_entries(k->maps.threads, s->opts.nr_tids ? s->opts.nr_tids : 1);
	k->rodata->cfg.only_threads = s->opts.nr_tids > 0;
	bpf_map__set_max_entries(k->maps.counts, counts);
	bpf_map__set_max_entries(k->maps.ustacks, stacks);
	bpf_map__set_max_entries(k->maps.ustacks_deep, stacks / STACKS_DEEP_SHARE);
	bpf_map__set_max_entries(k->maps.kstacks, stacks);
	session__maps_grow(s);

	k->rodata->cfg.drain_at = counts / 2;
	k->rodata->cfg.system_wide = s->opts.system_wide;
	k->rodata->cfg.fp_only = s->opts.fp_only;
	k->rodata->cfg.kernel_stacks = s->opts.kernel_stacks;
	k->rodata->cfg.follow_children = s->opts.follow_children;
	k->rodata->cfg.page_size = sysconf(_SC_PAGESIZE);
	k->rodata->cfg.frames_per_sec = (uint64_t)s->opts.freq * FRAMES_PER_SAMPLE;
	k->rodata->cfg.off_frames_per_sec = (uint64_t)s->opts.off_cpu_walks * FRAMES_PER_SAMPLE;
	k->rodata->cfg.frames_burst = FRAMES_BURST;
	/* Short: a process that just exec'd maps its libraries within milliseconds. */
	k->rodata->cfg.event_interval_ns = 5000000ULL;
	offcpu__configure(k, &s->opts);
}

/* -v: how long the maps' creation and the programs' verification took, and each program's size. */
static void session__say_loaded(const struct session *s, uint64_t ms)
{
	struct bpf_program *prog;

	pr_info("BPF maps created, programs verified: %" PRIu64 " ms", ms);
	bpf_object__for_each_program(prog, s->skel->obj)
	{
		struct bpf_prog_info info = {};
		uint32_t len = sizeof(info);

		if (bpf_program__fd(prog) < 0 ||
		    bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		pr_debug("  %s: %u instructions verified", bpf_program__name(prog),
			 info.verified_insns);
	}
}

int session__load(struct session *s)
{
	uint64_t t;
	int err;

	session__size_maps(s);
	session__choose_programs(s);
	session__choose_runtimes(s);
	t = now_ms();
	err = unwind_bpf__load(s->skel);
	if (err) {
		pr_err("cannot load the BPF programs: %s%s", strerror(-err),
		       log_level < 3 ? " (-vvv shows the verifier log)" : "");
		return err;
	}
	s->loaded = true;
	session__say_loaded(s, now_ms() - t);
	err = runtime_walks__start(s->walks, s->tail_calls);
	if (err)
		return err;
	if (!s->opts.fp_only) {
		err = session__map_dictionary(s);
		if (err)
			return err;
	}
	s->shard_mem = calloc(s->opts.max_shards, sizeof(*s->shard_mem));
	s->shard_fds = calloc(s->opts.max_shards, sizeof(*s->shard_fds));
	if (!s->shard_mem || !s->shard_fds)
		return -ENOMEM;
	/* The tables of the targets, read before load. */
	t = now_ms();
	err = loader__pack(s->loader, session__upload_placed, s);
	if (err)
		return err;
	session__publish_files(s);
	pr_info("unwind tables of the targets uploaded: %" PRIu64 " ms", now_ms() - t);
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events), session__on_event, s, NULL);
	if (!s->rb) {
		err = -errno;
		pr_err("cannot open the event ring buffer: %s", strerror(-err));
		return err;
	}
	return 0;
}

int session__load_runtime(struct session *s, unsigned int u)
{
	if (!s->loaded)
		return -EINVAL;
	return runtime_walks__enable(s->walks, u);
}

static int session__add_target(struct session *s, pid_t pid)
{
	uint8_t one = 1;
	uint32_t key = pid;

	if (s->opts.system_wide)
		return 0;
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.targets), &key, &one, BPF_ANY))
		return -errno;
	return 0;
}

/*
 * The mappings of target pid as session__load() read them, when they still
 * hold its program: /proc/PID/exe is one of the files they map. NULL when
 * it was not read, or has exec'd since (a launched command read before its
 * exec): it is read again.
 */
static struct model_proc *session__read_at_load(struct session *s, pid_t pid)
{
	struct model_proc *mp = model__process(s->model, pid);
	char exe[64];
	struct stat st;

	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	if (!mp || !mp->nr_current || stat(exe, &st))
		return NULL;
	for (size_t i = 0; i < mp->nr; i++) {
		const struct procmap *m = &mp->maps[i].map;

		if (mp->maps[i].current && m->inode == st.st_ino &&
		    makedev(m->dev_major, m->dev_minor) == st.st_dev)
			return mp;
	}
	return NULL;
}

int session__add_process(struct session *s, pid_t pid)
{
	int err;

	if (!s->loaded)
		return -EINVAL;
	if (pid <= 0 || (kill(pid, 0) && errno == ESRCH)) {
		pr_err("process %d does not exist", (int)pid);
		return -ESRCH;
	}
	err = session__add_target(s, pid);
	if (err)
		return err;
	return session__load_process(s, pid, session__read_at_load(s, pid), false);
}

/*
 * The perf event of task pid (-1: every task) on cpu (-1: wherever pid runs)
 * as event i, the sampler attached. 0, 1 when there is nothing to sample there
 * (an offline CPU, a thread that exited), or -errno (said, for a CPU's).
 */
static int session__open_event(struct session *s, pid_t pid, int cpu, size_t i)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_freq = s->opts.freq,
		.freq = 1,
		/*
		 * A CPU's idle task is never a target: its ticks do not run the
		 * sampler at all, which on a VM costs a cold start of about a
		 * microsecond each. -a counts them (the summary's idle line).
		 */
		.exclude_idle = !s->opts.system_wide,
		/* A thread's event goes on in the threads (and processes) it starts. */
		.inherit = pid >= 0,
	};
	int fd, err;

	fd = syscall(__NR_perf_event_open, &attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		err = -errno;
		if ((pid < 0 && err == -ENODEV) || (pid >= 0 && err == -ESRCH))
			return 1;
		if (pid < 0)
			pr_err("perf_event_open on CPU %d: %s", cpu, strerror(-err));
		return err;
	}
	s->pe_fds[i] = fd;
	s->pe_links[i] = bpf_program__attach_perf_event(
		s->tail_calls ? s->skel->progs.sample_tc : s->skel->progs.sample, fd);
	if (!s->pe_links[i]) {
		err = -errno;
		if (pid < 0)
			pr_err("cannot attach the sampler on CPU %d: %s", cpu, strerror(-err));
		return err;
	}
	return 0;
}

/* Room for n perf events, none open. */
static int session__events_alloc(struct session *s, size_t n)
{
	s->pe_fds = malloc(n * sizeof(*s->pe_fds));
	s->pe_links = calloc(n, sizeof(*s->pe_links));
	if (!s->pe_fds || !s->pe_links)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s->pe_fds[i] = -1;
	s->nr_pe = n;
	return 0;
}

static void session__events_free(struct session *s)
{
	for (size_t i = 0; s->pe_links && i < s->nr_pe; i++)
		bpf_link__destroy(s->pe_links[i]);
	for (size_t i = 0; s->pe_fds && i < s->nr_pe; i++)
		if (s->pe_fds[i] >= 0)
			close(s->pe_fds[i]);
	free(s->pe_links);
	free(s->pe_fds);
	s->pe_links = NULL;
	s->pe_fds = NULL;
	s->nr_pe = 0;
}

/*
 * The threads of the -p targets, at most TASK_EVENTS_MAX, into tids: how
 * many, or 0 when there are more, or when -a, -C or -t asks for other events.
 */
static size_t session__target_threads(const struct session *s, pid_t *tids)
{
	size_t n = 0;

	if (s->opts.system_wide || s->opts.cpus || s->opts.nr_tids)
		return 0;
	for (size_t i = 0; i < s->opts.nr_pids; i++) {
		ssize_t got = procfs__threads(s->opts.pids[i], tids + n, TASK_EVENTS_MAX - n);

		if (got < 0 || (size_t)got > TASK_EVENTS_MAX - n)
			return 0;
		n += got;
	}
	return n;
}

/* Whether every thread of the -p targets is one of tids[0..n). */
static bool session__threads_same(const struct session *s, const pid_t *tids, size_t n)
{
	pid_t now[TASK_EVENTS_MAX];
	size_t nr = session__target_threads(s, now);

	for (size_t i = 0; i < nr; i++) {
		size_t k = 0;

		while (k < n && tids[k] != now[i])
			k++;
		if (k == n)
			return false;
	}
	return nr > 0;
}

/*
 * For -p, one perf event a thread of the targets, inherited by the threads
 * they start: the sampler runs for the targets' samples only, where an
 * event a CPU runs it for every process there, each run leaving at once but
 * paying a cold start. 0 when they are attached; 1 when the events of the
 * CPUs are to be used: -a, -C, -t, more than TASK_EVENTS_MAX threads, or a
 * thread started while the events were opened by one not yet followed,
 * which no event would cover (they are closed again then); or -errno.
 */
static int session__attach_threads(struct session *s)
{
	pid_t tids[TASK_EVENTS_MAX];
	size_t n = session__target_threads(s, tids);
	int err;

	if (!n)
		return 1;
	err = session__events_alloc(s, n);
	for (size_t i = 0; i < n && err >= 0; i++)
		err = session__open_event(s, tids[i], -1, i);
	if (err >= 0 && session__threads_same(s, tids, n)) {
		pr_info("perf events attached to the targets' threads, one each: %zu", n);
		return 0;
	}
	if (err < 0 && err != -ENOMEM)
		pr_info("perf events of the targets' threads: %s; one a CPU instead",
			strerror(-err));
	session__events_free(s);
	return err == -ENOMEM ? err : 1;
}

/* One perf event a CPU, or one a CPU of -C. */
static int session__attach_cpus(struct session *s)
{
	int err;

	s->nr_cpus = libbpf_num_possible_cpus();
	if (s->nr_cpus <= 0)
		return s->nr_cpus ? s->nr_cpus : -EINVAL;
	err = session__events_alloc(s, s->nr_cpus);
	for (int cpu = 0; cpu < s->nr_cpus && !s->opts.cpus && err >= 0; cpu++)
		err = session__open_event(s, -1, cpu, cpu);
	for (size_t i = 0; i < s->opts.nr_cpus && s->opts.cpus && err >= 0; i++) {
		int cpu = s->opts.cpus[i];

		if (cpu < 0 || cpu >= s->nr_cpus) {
			pr_err("CPU %d: no such CPU (0..%d)", cpu, s->nr_cpus - 1);
			return -EINVAL;
		}
		err = session__open_event(s, -1, cpu, cpu);
		if (err == 1) {
			pr_err("CPU %d is offline", cpu);
			err = -ENODEV;
		}
	}
	return err < 0 ? err : 0;
}

/*
 * Faults the tests inject (UNWPROF_BPF_FAULT) to reach reasons that only a
 * failing kernel would otherwise produce, so that their counting is tested:
 * "tail-call" empties the walker's program array, so every tail call of the
 * walk fails; "shard" takes the shards out of their array of maps, so every
 * row lookup finds its shard missing. Applied at attach, after the tables
 * the targets need were loaded.
 */
static void session__inject_faults(struct session *s)
{
	const char *fault = test_hook("UNWPROF_BPF_FAULT");
	uint32_t key = 0;

	if (!fault)
		return;
	if (strcmp(fault, "tail-call") == 0) {
		bpf_map_delete_elem(bpf_map__fd(s->skel->maps.walkers), &key);
	} else if (strcmp(fault, "shard") == 0) {
		for (key = 0; key < s->nr_shards; key++)
			bpf_map_delete_elem(bpf_map__fd(s->skel->maps.shards), &key);
	} else {
		pr_warn("UNWPROF_BPF_FAULT=%s: no such fault (tail-call, shard)", fault);
		return;
	}
	pr_warn("injected fault: %s", fault);
}

int session__attach(struct session *s)
{
	struct bpf_program *tps[4] = { s->skel->progs.on_exec, s->skel->progs.on_exit,
				       s->skel->progs.on_fork, s->skel->progs.on_sys_exit };
	int err;

	if (!s->loaded)
		return -EINVAL;
	for (size_t i = 0; i < s->opts.nr_tids; i++) {
		uint32_t key = s->opts.tids[i];
		uint8_t one = 1;

		if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.threads), &key, &one, BPF_ANY))
			return -errno;
	}
	for (size_t i = 0; i < s->opts.nr_pids; i++) {
		if (session__proc_find(s, s->opts.pids[i]))
			continue;
		err = session__add_process(s, s->opts.pids[i]);
		if (err)
			return err;
	}
	for (size_t i = 0; i < ARRAY_SIZE(tps); i++) {
		if (!bpf_program__autoload(tps[i]))
			continue;
		s->tp_links[i] = bpf_program__attach(tps[i]);
		if (!s->tp_links[i]) {
			err = -errno;
			pr_err("cannot attach %s: %s", bpf_program__name(tps[i]), strerror(-err));
			return err;
		}
	}
	err = offcpu__attach(s->skel, s->off_links);
	if (err)
		return err;
	session__inject_faults(s);
	err = session__attach_threads(s);
	if (err == 1)
		err = session__attach_cpus(s);
	if (err)
		return err;
	s->last_drain_ms = now_ms() - (DRAIN_INTERVAL_MS - FIRST_DRAIN_MS);
	s->skel->bss->hold_new_code = s->opts.hold_new_code && !s->opts.fp_only;
	return 0;
}

void session__free(struct session *s)
{
	if (!s)
		return;
	session__events_free(s);
	for (size_t i = 0; i < ARRAY_SIZE(s->tp_links); i++)
		bpf_link__destroy(s->tp_links[i]);
	for (size_t i = 0; i < ARRAY_SIZE(s->off_links); i++)
		bpf_link__destroy(s->off_links[i]);
	/* A hold sent after the last stop is in the ring buffer: no process is left stopped. */
	if (s->rb)
		ring_buffer__consume(s->rb);
	session__release_all(s);
	free(s->held);
	ring_buffer__free(s->rb);
	for (size_t i = 0; i < s->nr_shards; i++) {
		munmap(s->shard_mem[i], encoder__geometry(s->enc)->shard_bytes);
		close(s->shard_fds[i]);
	}
	free(s->shard_mem);
	free(s->shard_fds);
	if (s->rules_mem)
		munmap(s->rules_mem, s->rules_bytes);
	if (s->pages_mem)
		munmap(s->pages_mem, s->pages_bytes);
	runtime_walks__free(s->walks);
	unwind_bpf__destroy(s->skel);
	loader__free(s->loader);
	if (s->own_model)
		model__free(s->model);
	encoder__free(s->enc);
	free(s->procs);
	free(s->exits);
	free(s->dirty);
	free(s->execs);
	ustack_cache__free(&s->ustacks);
	count_ledger__free(s->counts);
	free(s);
}
