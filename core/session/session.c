// SPDX-License-Identifier: GPL-2.0-only
/*
 * The BPF profiling session: sizes and loads the unwinder, uploads unwind
 * tables and process info, attaches the sampling perf events and the process
 * tracepoints, follows the events BPF sends, and drains the in-kernel counts.
 * Which mappings get tables, in which order they are packed and where each
 * row goes is core/unwind/table_loader.c's, the same code `unwprof shards` prints, so
 * the two cannot disagree; the bytes uploaded are core/unwind/table_encoding.c's.
 *
 * The rows. Map sizes cannot change after load, so the rows live in an
 * array of maps: one inner map per shard of UNW_SHARD_ROWS rows (1 MiB, mmapable,
 * kernel memory that is neither swapped nor shared), created when the
 * packer first fills it. A launched command that execs a compiler, a
 * dlopen of a big library, a new process under -a: each gets the shards it
 * needs while the run goes on, and a run takes only what its tables take.
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
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/capability.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "config.h"
#include "../util/common.h"
#include "../util/hashmap.h"
#include "bpf/unwind.skel.h"
#include "count_ledger.h"
#include "bpf/sample_time_hist.h"
#include "bpf/ustack_ends.h"
#include "../util/log.h"
#include "../model/model.h"
#include "../targets/proc_maps.h"
#include "../targets/procfs.h"
#include "../runtimes/runtimes.h"
#include "offcpu.h"
#include "runtime_walks.h"
#include "session.h"
#include "../unwind/shard_packer.h"
#include "../unwind/table.h"
#include "../unwind/table_encoding.h"
#include "../unwind/table_loader.h"

#define DEFAULT_MAX_SHARDS 256
#define MIN_DEFAULT_MAX_SHARDS 32
#define SHARD_RAM_SHARE 64 /* the default cap is at most 1/64 of memory */
/*
 * The most entries of the maps that hold what BPF took between two drains
 * (a busy machine's), and the fewest; in between, what the sample rate
 * needs (session__stacks_needed).
 */
#define STACK_ENTRIES_MAX 8192
#define STACK_ENTRIES_MIN 1024
#define STACKS_DEEP_SHARE 8 /* stacks deeper than UNW_USTACK_SHORT (4 KiB each): 1 in 8 */
#define COUNTS_PER_STACK 2  /* a stack counted in several threads, with and without kernel */
#define DRAINS_OF_ROOM 4    /* a drain may come late: user space busy loading tables */
#define DRAIN_INTERVAL_MS 1000
/*
 * Counts stay in their map while they grow (count_ledger.h), but their
 * names (comm) are those their threads had when the keys were added: the
 * map is emptied every so many drains, so that a name is at most that old.
 */
#define COUNTS_FLUSH_DRAINS 10
/*
 * The first drain comes early, so that the first stacks are symbolized (their
 * files' DWARF read, compressed sections inflated) while the run goes on
 * rather than after its end: the end of a run of one second was mostly the
 * reading of libc's separate debug file.
 */
#define FIRST_DRAIN_MS 250
/* Entries of the process map: every process of -a; a launched tree's, by CPU (8 KiB each). */
#define PROCS_SYSTEM 2048
#define PROCS_TREE_MIN 256
#define PROCS_PER_CPU 64
/* Threads of the -p targets sampled with perf events of their own, at most (two fds each). */
#define TASK_EVENTS_MAX 128

/* A live process whose mappings were read; freed when BPF reports its exit. */
struct sess_proc {
	pid_t pid;
	bool over_limit; /* more than UNW_MAPS_MAX executable mappings */
	bool in_map;	 /* its process info was written to BPF */
};

/*
 * User stacks already read from the BPF map, by their key there. A stack
 * is only needed by the counts of the drain that read it, or of the next
 * one when BPF counted it again just as it was moved here; older ones are
 * dropped, so memory does not grow with the length of a run.
 */
struct ustack_cache {
	struct hashmap by_key; /* struct cached_ustack */
	uint32_t gen;	       /* the current drain */
};

struct cached_ustack {
	uint64_t key;
	uint32_t gen;	      /* the drain that last used it */
	struct unw_ustack st; /* allocated for its own frames only */
};

struct session {
	struct session_opts opts;
	struct unwind_bpf *skel;
	bool loaded;
	int nr_cpus;
	/* The perf events that run the sampler: one a CPU, or one a thread of the -p targets. */
	size_t nr_pe;
	int *pe_fds;
	struct bpf_link **pe_links;
	struct bpf_link *tp_links[4];
	struct bpf_link *off_links[OFFCPU_NR_LINKS]; /* core/session/offcpu.h */
	bool tail_calls;			     /* sample_tc and walk_tc instead of sample */
	struct runtime_walks *walks;		     /* the runtimes' programs, loaded as needed */
	struct ring_buffer *rb;

	struct encoder *enc;   /* the wire format of the rows and of their index */
	struct loader *loader; /* files, tables and where they go: as `unwprof shards` shows */
	struct model *model;   /* the caller's: processes, files and their images */
	bool own_model;	       /* none given: made by session__new(), freed with it */
	void *rules_mem;       /* the rule dictionary, mmapped */
	void *pages_mem;       /* the page map, mmapped */
	size_t rules_bytes, pages_bytes;
	uint64_t rows_unindexed; /* placed, but their table's pages did not fit */
	bool unindexed_warned;
	void **shard_mem; /* per shard created: its inner map, mmapped */
	int *shard_fds;	  /* and its fd, which shows it as unwprof's */
	size_t nr_shards; /* created and in the outer map */
	size_t max_execs;
	/* Tables uploaded, and how many of them were when their files were last published. */
	size_t tables_placed, tables_published;

	struct sess_proc *procs; /* live ones only */
	size_t nr_procs, cap_procs;
	uint32_t proc_gen_last;	  /* of the process entries written here (struct unw_proc): even */
	uint64_t procs_seen;	  /* every process ever read, for the stats */
	uint64_t maps_over_limit; /* of them, with more than UNW_MAPS_MAX mappings */
	pid_t *exits;		  /* exited, reported after the next drain */
	size_t nr_exits, cap_exits;
	bool stopped; /* the perf events are disabled */
	pid_t *dirty; /* mappings to read again after this batch of events */
	size_t nr_dirty, cap_dirty;
	pid_t *held; /* stopped by BPF until their tables are loaded (hold_new_code) */
	size_t nr_held, cap_held;
	uint64_t holds;
	/*
	 * execs whose tables are being loaded, and the histogram of their times
	 * (bpf/sample_time_hist.h)
	 */
	struct exec_start {
		pid_t pid;
		uint64_t ns; /* CLOCK_MONOTONIC */
	} * execs;
	size_t nr_execs, cap_execs;
	uint64_t exec_hist[UNW_HIST_BUCKETS];

	struct ustack_cache ustacks;
	struct count_ledger *counts; /* what the counts in the map were at the last drain */
	uint32_t drains;
	bool drain_requested;
	uint64_t last_drain_ms;
	/* The most the maps held, read at each drain, before it deletes counts. */
	uint64_t map_bytes_peak;
	uint64_t lost;			/* samples whose user stack could not be read back */
	uint64_t off_lost, off_lost_ns; /* the same for off-CPU counts */
	uint64_t procs_gone;		/* exited while their mappings were read */
	bool procs_full_warned;
	bool unplaced_warned;
	bool maps_limit_warned;
};

static const char *const error_names[UNW_E_NR] = {
#define ERROR_NAME(id, name, what) [UNW_E_##id] = name,
	UNW_ALL_ERRORS(ERROR_NAME)
#undef ERROR_NAME
};

const char *session__error_name(unsigned int reason)
{
	return reason < UNW_E_NR ? error_names[reason] : NULL;
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000ULL + ts.tv_nsec / 1000000;
}

/* libbpf's own messages only at -vvv. */
__attribute__((format(printf, 2, 0))) static int libbpf_print(enum libbpf_print_level level,
							      const char *fmt, va_list ap)
{
	(void)level;
	if (log_level < 3)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* Root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN covers both). */
static int check_privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = {};
	const int cap_perfmon = 38, cap_bpf = 39, cap_sys_admin = 21;
	uint64_t eff;

	if (syscall(SYS_capget, &hdr, data))
		return -errno;
	eff = data[0].effective | (uint64_t)data[1].effective << 32;
	if (eff & (1ULL << cap_sys_admin))
		return 0;
	if ((eff & (1ULL << cap_bpf)) && (eff & (1ULL << cap_perfmon)))
		return 0;
	pr_err("record needs root or CAP_BPF and CAP_PERFMON");
	return -EPERM;
}

static int check_kernel(void)
{
	libbpf_set_print(libbpf_print);
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		pr_err("/sys/kernel/btf/vmlinux: the kernel has no BTF (needs CONFIG_DEBUG_INFO_BTF=y)");
		return -ENOTSUP;
	}
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_task_pt_regs, NULL) <= 0) {
		pr_err("the kernel lacks the bpf_task_pt_regs helper (Linux 5.15 or later is needed)");
		return -ENOTSUP;
	}
	return 0;
}

int session__check_environment(void)
{
	int err = check_privileges();

	return err ? err : check_kernel();
}

/*
 * A hook of the test suite, read from the environment only in a build made
 * for it (-Dtest_hooks=true): a binary to install, run as root, takes no
 * such orders from its environment. NULL when unset or not built in.
 */
static const char *test_hook(const char *name)
{
	return UNWPROF_TEST_HOOKS ? getenv(name) : NULL;
}

static bool have_helper(enum bpf_func_id id)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, id, NULL) > 0;
}

/* Loads a program of type that looks key 0 up in map_fd: its fd, or -errno. */
static int load_lookup_prog(enum bpf_prog_type type, int map_fd)
{
	/* r1 = map; *(u32 *)(r10 - 4) = 0; r2 = r10 - 4; call lookup; r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{ .code = BPF_LD | BPF_DW | BPF_IMM,
		  .dst_reg = BPF_REG_1,
		  .src_reg = BPF_PSEUDO_MAP_FD,
		  .imm = map_fd },
		{ 0 },
		{ .code = BPF_ST | BPF_MEM | BPF_W, .dst_reg = BPF_REG_10, .off = -4 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_X, .dst_reg = BPF_REG_2, .src_reg = BPF_REG_10 },
		{ .code = BPF_ALU64 | BPF_ADD | BPF_K, .dst_reg = BPF_REG_2, .imm = -4 },
		{ .code = BPF_JMP | BPF_CALL, .imm = BPF_FUNC_map_lookup_elem },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};

	return bpf_prog_load(type, NULL, "GPL", insns, ARRAY_SIZE(insns), NULL);
}

/*
 * Whether a perf_event program may use hash maps that allocate their
 * elements as they are added (BPF_F_NO_PREALLOC: Linux 6.1 and later; before,
 * only preallocated ones): a map of one such element is created and a
 * program that looks it up loaded. The test hook UNWPROF_BPF_PREALLOC=1
 * answers no, to test the maps of older kernels on a recent one.
 */
static bool have_growing_maps(void)
{
	const char *force = test_hook("UNWPROF_BPF_PREALLOC");
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_NO_PREALLOC);
	int map_fd, prog_fd;

	if (force && *force == '1')
		return false;
	map_fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 4, 8, 1, &mo);
	if (map_fd < 0)
		return false;
	prog_fd = load_lookup_prog(BPF_PROG_TYPE_PERF_EVENT, map_fd);
	close(map_fd);
	if (prog_fd < 0)
		return false;
	close(prog_fd);
	return true;
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
	bool find_vma = have_helper(BPF_FUNC_find_vma);

	s->tail_calls = (force && *force == '1') || !have_helper(BPF_FUNC_loop);
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

/* ---- uploading ---- */

/* Creates the inner maps of the shard map up to shard, which the packer has just opened. */
static int session__shard_create(struct session *s, size_t shard)
{
	LIBBPF_OPTS(bpf_map_create_opts, mo, .map_flags = BPF_F_MMAPABLE);
	const struct encoder_geometry *g = encoder__geometry(s->enc);
	size_t len = g->shard_bytes;
	int outer = bpf_map__fd(s->skel->maps.shards);

	while (s->nr_shards <= shard) {
		uint32_t key = s->nr_shards;
		void *rows;
		int fd;

		fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unw_shard", sizeof(uint32_t),
				    g->shard_value_size, g->shard_entries, &mo);
		if (fd < 0) {
			pr_err("cannot create unwind shard %u: %s", key, strerror(errno));
			return -errno;
		}
		rows = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (rows == MAP_FAILED || bpf_map_update_elem(outer, &key, &fd, BPF_ANY)) {
			int err = -errno;

			if (rows != MAP_FAILED)
				munmap(rows, len);
			close(fd);
			pr_err("cannot set up unwind shard %u: %s", key, strerror(-err));
			return err;
		}
		s->shard_mem[s->nr_shards] = rows;
		s->shard_fds[s->nr_shards++] = fd;
	}
	return 0;
}

/* A table the loader placed: rows first, then the index that points to them. */
static int session__upload_placed(void *ctx, struct model_image *e,
				  const struct shards_placement *pl)
{
	struct session *s = ctx;
	void *index = NULL;
	int err;

	for (size_t i = 0; i < pl->nr_chunks; i++) {
		const struct shards_chunk *c = &pl->chunks[i];

		err = session__shard_create(s, c->shard);
		if (!err)
			err = encoder__rows(s->enc, e->table, c, s->shard_mem[c->shard]);
		if (err)
			return err;
	}
	index = malloc(encoder__geometry(s->enc)->index_bytes);
	if (!index)
		return -ENOMEM;
	err = encoder__index(s->enc, pl, index);
	if (err == -ENOSPC || err == -E2BIG) {
		/* Published empty: its pcs get frame pointers, its rows are counted as left out. */
		if (!s->unindexed_warned)
			pr_warn("%s: the unwind page map is full: frame pointers for this "
				"and later tables",
				e->path);
		s->unindexed_warned = true;
		s->rows_unindexed += pl->rows_placed;
		err = 0;
	}
	if (err)
		goto cleanup;
	if (pl->rows_unplaced && !s->unplaced_warned) {
		/* Once: under -a every later executable would repeat it. */
		pr_warn("unwind tables exceed %zu shards: frame pointers where rows do not fit "
			"(raise --max-shards)",
			s->opts.max_shards);
		s->unplaced_warned = true;
	}
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.execs), &pl->id, index, BPF_ANY)) {
		err = -errno;
		goto cleanup;
	}
	/* In the map for the rest of the run: a copy here would only take memory. */
	unwind_table__release_rows(e->table);
	s->tables_placed++;
cleanup:
	free(index);
	return err;
}

/* Lets BPF walk this file in processes whose mappings user space has not read yet. */
static void session__publish_file(struct session *s, struct model_file *f, uint32_t exec_id)
{
	const struct model_image *img = f->image;
	struct unw_file_key key = { .ino = f->inode, .dev = f->dev_major << 20 | f->dev_minor };
	struct unw_file val = {
		.exec_id = exec_id,
		.nr_segs = img->nr_exec_segs,
		.base = img->table->base,
	};

	if (f->published || !f->inode || !img->nr_exec_segs)
		return;
	memcpy(val.segs, img->exec_segs, sizeof(val.segs));
	if (bpf_map_update_elem(bpf_map__fd(s->skel->maps.files), &key, &val, BPF_ANY) == 0)
		f->published = true;
}

/*
 * Every file of the model whose table is in BPF, published: BPF then walks
 * it in a process that maps it before user space has read its mappings, as
 * a library mapped right after an exec, where no process entry written yet
 * holds it (under -a, whose processes are read as they are first seen, and
 * no exec is held, the library a launched command maps was not walked until
 * user space read the command again: its first tens of milliseconds, on a
 * busy machine, ended their stacks there).
 */
static void session__publish_files(struct session *s)
{
	if (s->tables_published == s->tables_placed)
		return;
	for (size_t i = 0; i < model__nr_files(s->model); i++) {
		struct model_file *f = model__file(s->model, i);
		uint32_t exec_id;

		if (f->published || !f->image || !f->image->table)
			continue;
		exec_id = loader__exec_id(s->loader, f->image);
		if (exec_id)
			session__publish_file(s, f, exec_id);
	}
	s->tables_published = s->tables_placed;
}

static void session__fill_mapping(struct session *s, const struct loader_map *lm, pid_t pid,
				  struct unw_mapping *um)
{
	const struct procmap *m = lm->map;
	bool vdso = procmap__is_vdso(m);
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
	if (!model_image__bias(f->image, m->start, m->offset, f->image->table->base, &bias)) {
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

/*
 * Runtime u (core/runtimes/runtimes.h) in process pid: the first mapping of
 * a file that has it gets its pc ranges cut out with u's unwinder, u's
 * programs are loaded if they were not, and what they read is written to
 * its map; a runtime whose frames are named from the process's memory is
 * told where it is. A process without it has no entry.
 */
static void session__add_runtime(struct session *s, pid_t pid, const struct loader_proc *lp,
				 struct unw_proc *info, unsigned int u)
{
	const struct runtime *rt = runtime_of_unwinder(u);
	int fd = bpf_map__fd(runtime_walks__procs_map(s->walks, u));
	uint32_t key = pid;

	for (size_t i = 0; i < lp->nr_maps; i++) {
		const struct procmap *m = lp->maps[i].map;
		struct model_file *f = lp->maps[i].file;
		const void *state = f && f->image ? f->image->rt.state[u] : NULL;
		struct runtime_place rp;
		uint64_t bias;

		if (m->kind != PROCMAP_FILE || !state || !f->image->table ||
		    !model_image__bias(f->image, m->start, m->offset, 0, &bias) ||
		    !rt->place(state, bias, &rp))
			continue;
		if (!proc_info__cut(info, rp.ranges[0].lo, rp.ranges[0].hi, u))
			continue;
		for (size_t k = 1; k < ARRAY_SIZE(rp.ranges); k++)
			if (rp.ranges[k].hi)
				proc_info__cut(info, rp.ranges[k].lo, rp.ranges[k].hi, u);
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

static struct sess_proc *session__proc_find(struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_procs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

static struct sess_proc *session__proc_add(struct session *s, pid_t pid)
{
	struct sess_proc *p = session__proc_find(s, pid);

	if (p)
		return p;
	if (grow((void **)&s->procs, &s->cap_procs, s->nr_procs, sizeof(*s->procs)))
		return NULL;
	p = &s->procs[s->nr_procs++];
	*p = (struct sess_proc){ .pid = pid };
	s->procs_seen++;
	return p;
}

static bool session__exit_pending(const struct session *s, pid_t pid)
{
	for (size_t i = 0; i < s->nr_exits; i++)
		if (s->exits[i] == pid)
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
static int session__write_proc(struct session *s, const struct model_proc *mp, struct sess_proc *p)
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
	info->gen = s->proc_gen_last += 2;
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
static int session__load_process(struct session *s, pid_t pid, struct model_proc *mp, bool quiet)
{
	int pidfd = syscall(SYS_pidfd_open, pid, 0);
	struct sess_proc *p;
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

/* ---- sizing and loading ---- */

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

	if (!have_growing_maps()) {
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
	/* Short: a process that just exec'd maps its libraries within milliseconds. */
	k->rodata->cfg.event_interval_ns = 5000000ULL;
	offcpu__configure(k, &s->opts);
}

static int session__on_event(void *ctx, void *data, size_t size);

/* Maps map (entries x size bytes) into *mem, where the encoder writes it. */
static int session__mmap_map(struct bpf_map *map, size_t bytes, void **mem)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, bpf_map__fd(map), 0);

	if (p == MAP_FAILED) {
		int err = -errno;

		pr_err("cannot map %s: %s", bpf_map__name(map), strerror(-err));
		return err;
	}
	*mem = p;
	return 0;
}

/* The rule dictionary and the page map: the encoder fills them in place from now on. */
static int session__map_dictionary(struct session *s)
{
	const struct encoder_geometry *g = encoder__geometry(s->enc);
	int err;

	s->rules_bytes = g->max_rules * g->rule_bytes;
	s->pages_bytes = g->max_pages * g->page_bytes;
	err = session__mmap_map(s->skel->maps.rules, s->rules_bytes, &s->rules_mem);
	if (!err)
		err = session__mmap_map(s->skel->maps.pages, s->pages_bytes, &s->pages_mem);
	if (err)
		return err;
	encoder__set_maps(s->enc, s->rules_mem, s->pages_mem);
	return 0;
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

/* ---- attaching ---- */

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

/* ---- events ---- */

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

static void session__release_all(struct session *s)
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

static void session__reload_dirty(struct session *s)
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
	struct sess_proc *p = session__proc_find(s, pid);

	session__unmark_dirty(s, pid);
	session__release(s, pid, true);
	if (p)
		*p = s->procs[--s->nr_procs];
	/* A child that exited before it was read has its parent's mappings in the model. */
	else if (!model__process(s->model, pid))
		return;
	if (grow((void **)&s->exits, &s->cap_exits, s->nr_exits, sizeof(*s->exits)) == 0)
		s->exits[s->nr_exits++] = pid;
}

/*
 * Whether a sampled pid without process info is to be read. Not when its
 * info did not fit in the map, nor when BPF holds it now (the sample came
 * before the write); but when it vanished (a lost exit event: the pid is
 * another process now).
 */
static bool session__proc_unknown(struct session *s, pid_t pid)
{
	struct sess_proc *p = session__proc_find(s, pid);
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

static int session__on_event(void *ctx, void *data, size_t size)
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

/* ---- draining ---- */

/* The bytes of st that hold its frames: most stacks are far shorter than the limit. */
static size_t ustack_size(const struct unw_ustack *st)
{
	size_t nr = st->nr < UNW_DEPTH_MAX ? st->nr : UNW_DEPTH_MAX;

	return offsetof(struct unw_ustack, pcs) + nr * sizeof(st->pcs[0]);
}

static bool cached_ustack_is(const void *value, const void *key)
{
	return ((const struct cached_ustack *)value)->key == *(const uint64_t *)key;
}

/* The stack under key, marked used by the current drain; NULL when not here. */
static struct cached_ustack *ustack_cache__find(struct ustack_cache *c, uint64_t key)
{
	struct cached_ustack *e = hashmap__find(&c->by_key, hash_u64(key), cached_ustack_is, &key);

	if (e)
		e->gen = c->gen;
	return e;
}

static int ustack_cache__put(struct ustack_cache *c, uint64_t key, const struct unw_ustack *st)
{
	struct cached_ustack *e;

	if (ustack_cache__find(c, key))
		return 0;
	e = malloc(offsetof(struct cached_ustack, st) + ustack_size(st));
	if (!e)
		return -ENOMEM;
	e->key = key;
	e->gen = c->gen;
	memcpy(&e->st, st, ustack_size(st));
	if (hashmap__add(&c->by_key, hash_u64(key), e)) {
		free(e);
		return -ENOMEM;
	}
	return 0;
}

static const struct unw_ustack *ustack_cache__get(struct ustack_cache *c, uint64_t key)
{
	struct cached_ustack *e = ustack_cache__find(c, key);

	return e ? &e->st : NULL;
}

#define USTACK_CACHE_KEEP 4096 /* below this many stacks, nothing is dropped */

/* The end of a drain: drops the stacks neither it nor the one before used. */
static void ustack_cache__age(struct ustack_cache *c)
{
	uint32_t min_gen = c->gen > 1 ? c->gen - 1 : 0;

	c->gen++;
	if (c->by_key.nr <= USTACK_CACHE_KEEP)
		return;
	for (size_t i = 0; i < c->by_key.cap;) {
		struct cached_ustack *e = c->by_key.slots[i].value;

		if (e && e->gen < min_gen) {
			hashmap__remove(&c->by_key, c->by_key.slots[i].hash, e);
			free(e);
			continue; /* another stack may have moved into slot i */
		}
		i++;
	}
	hashmap__shrink(&c->by_key);
}

static void ustack_cache__free(struct ustack_cache *c)
{
	for (size_t i = 0; i < c->by_key.cap; i++)
		free(c->by_key.slots[i].value);
	hashmap__exit(&c->by_key);
}

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

static uint64_t session__map_bytes(const struct session *s);

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
			s->opts.on_exit(s->opts.ctx, s->exits[i]);
		model__remove_process(s->model, s->exits[i]);
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

/* ---- stats and teardown ---- */

/* The memlock of map m, as /proc/self/fdinfo shows it; 0 when unknown. */
/* Kernel memory charged for the BPF map behind fd (memlock in fdinfo); 0 when unknown. */
static uint64_t map_memlock_fd(int fd)
{
	char path[64], line[128];
	uint64_t bytes = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "memlock: %" SCNu64, &bytes) == 1)
			break;
	fclose(f);
	return bytes;
}

static uint64_t map_memlock(const struct bpf_map *m)
{
	return map_memlock_fd(bpf_map__fd(m));
}

static uint64_t session__map_bytes(const struct session *s)
{
	const struct bpf_map *m;
	uint64_t sum = 0;

	bpf_object__for_each_map(m, s->skel->obj) sum += map_memlock(m);
	for (size_t i = 0; i < s->nr_shards; i++)
		sum += map_memlock_fd(s->shard_fds[i]);
	return sum;
}

/* What BPF counted on every CPU, summed into sum (bpf/abi.h). 0 or -errno (sum then all 0). */
static int session__tally(const struct session *s, struct unw_tally *sum)
{
	int ncpu = libbpf_num_possible_cpus(), err = 0;
	struct unw_tally *vals;
	uint32_t zero = 0;

	memset(sum, 0, sizeof(*sum));
	if (!s || !s->loaded)
		return -EINVAL;
	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	/* Per-CPU values are 8-byte aligned: the tally is a whole number of words. */
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(s->skel->maps.tally), &zero, vals)) {
		err = -errno;
		goto cleanup;
	}
	for (int c = 0; c < ncpu; c++) {
		for (size_t i = 0; i < UNW_ST_NR; i++)
			sum->stats[i] += vals[c].stats[i];
		for (size_t i = 0; i < UNW_E_NR; i++)
			sum->errors[i] += vals[c].errors[i];
		for (size_t i = 0; i < UNW_UW_NR; i++) {
			sum->runtime_samples[i] += vals[c].runtime_samples[i];
			sum->runtime_frames[i] += vals[c].runtime_frames[i];
		}
		for (size_t i = 0; i < UNW_COST_NR; i++) {
			sum->costs[i].samples += vals[c].costs[i].samples;
			sum->costs[i].ns += vals[c].costs[i].ns;
		}
		for (size_t i = 0; i < UNW_HIST_BUCKETS; i++)
			sum->sample_ns[i] += vals[c].sample_ns[i];
	}
cleanup:
	free(vals);
	return err;
}

void session__stats(const struct session *s, struct session_stats *st)
{
	struct unw_tally tally;
	const uint64_t *sum = (const uint64_t *)tally.stats;
	struct model_stats ms;
	struct loader_stats ls;
	struct encoder_cost cost;

	memset(st, 0, sizeof(*st));
	if (!s || !s->loaded)
		return;
	session__tally(s, &tally); /* all 0 when it cannot be read */
#define UNW_STAT_COPY(id, field, ...) st->field = sum[UNW_ST_##id];
	UNW_STATS(UNW_STAT_COPY)
	UNW_OFF_STATS(UNW_STAT_COPY)
#undef UNW_STAT_COPY
	st->fp += st->fp_complete; /* BPF counts those apart */
	st->lost += s->lost;	   /* and user space those it could not read back */
	memcpy(st->runtime_samples, tally.runtime_samples, sizeof(st->runtime_samples));
	memcpy(st->runtime_frames, tally.runtime_frames, sizeof(st->runtime_frames));
	memcpy(st->errors, tally.errors, sizeof(st->errors));
	st->processes = s->procs_seen;
	st->holds = s->holds;
	sample_times__of(s->exec_hist, &st->exec_to_tables);
	st->maps_over_limit = s->maps_over_limit;
	loader__stats(s->loader, &ls);
	st->rows_loaded = ls.rows_placed;
	encoder__cost(s->enc, ls.rows_placed, &cost);
	st->bytes_loaded = cost.bytes;
	st->rules_loaded = cost.rules;
	st->pages_loaded = cost.pages;
	st->rows_unplaced = ls.rows_unplaced + ls.rows_dropped + s->rows_unindexed;
	st->processes_gone = s->procs_gone;
	model__stats(s->model, &ms);
	st->files_replaced = ms.files_replaced;
	st->files_skipped = ms.files_unreadable;
	st->map_bytes = session__map_bytes(s);
	if (st->map_bytes < s->map_bytes_peak)
		st->map_bytes = s->map_bytes_peak;
	/* Off-CPU blocks walked in BPF, but whose user stack could not be read back. */
	st->off_walked -= s->off_lost < st->off_walked ? s->off_lost : st->off_walked;
	st->off_ns -= s->off_lost_ns < st->off_ns ? s->off_lost_ns : st->off_ns;
	st->off_lost += s->off_lost;
	st->off_lost_ns += s->off_lost_ns;
}

int session__prog_stats(const struct session *s, uint64_t *run_time_ns, uint64_t *run_cnt)
{
	const struct bpf_program *prog;
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	*run_time_ns = 0;
	*run_cnt = 0;
	if (!s || !s->loaded)
		return -EINVAL;
	/* The one program attached to every perf event. */
	prog = s->tail_calls ? s->skel->progs.sample_tc : s->skel->progs.sample;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return -errno;
	*run_time_ns = info.run_time_ns;
	*run_cnt = info.run_cnt;
	return 0;
}

int session__sample_ns(const struct session *s, uint64_t buckets[UNW_HIST_BUCKETS])
{
	struct unw_tally sum;
	int err = session__tally(s, &sum);

	memcpy(buckets, sum.sample_ns, sizeof(sum.sample_ns));
	return err;
}

int session__sample_costs(const struct session *s, struct unw_cost_sum sums[UNW_COST_NR])
{
	struct unw_tally sum;
	int err = session__tally(s, &sum);

	memcpy(sums, sum.costs, sizeof(sum.costs));
	return err;
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
