/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The maps and global variables the BPF units share: the contract with user
 * space (bpf/abi.h gives their keys and values) and the state the units
 * hand each other. Each is defined here once, __weak, so that every unit
 * that includes this header has it and the linker (bpftool gen object)
 * keeps one. Every map is sized by user space before load; 1 is a
 * placeholder. Maps private to one part of the walk are defined with it.
 */
#ifndef UNWPROF_MAPS_BPF_H
#define UNWPROF_MAPS_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>

#include "abi.h"

const volatile struct unw_config cfg __weak = {};

/* The source of a new, empty process info (too large for the BPF stack). */
struct unw_proc empty_proc __weak = {};

/* The last gen (struct unw_proc) BPF gave a process entry, odd as BPF's are; 64 bits for the atomic add. */
__u64 proc_gen_last __weak = 1;

/*
 * Writes and deletions of process entries (procs), by BPF or by user space,
 * each counted once done: while the count has not changed since a CPU last
 * looked up the process it samples, the entry is there with the gen it had
 * (struct scratch: last_pid), and the sample needs no lookup.
 */
__u64 procs_written __weak = 0;

/*
 * Keys in the count map: BPF adds one for each key it adds, user space
 * takes off those it deletes (core/session/count_ledger.h).
 */
__u64 nr_keys __weak = 0;

/*
 * Set by user space while it can let held processes go on (see
 * event_send_hold): from attach to stop, for a launched command's tree.
 */
__u32 hold_new_code __weak = 0;

/*
 * The unwind tables (bpf/abi.h). The rows: one shard per inner map, of
 * 8-byte values holding two rows each, created by user space when the
 * packer first fills it (mmapable: filled through mmap), so the memory
 * follows the tables loaded, up to --max-shards. Rows are looked up one at
 * a time by index so the search index stays an imprecise scalar for the
 * verifier, which then prunes the search paths instead of exploding; both
 * lookups are inlined by the verifier.
 */
struct shard_rows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, UNW_SHARD_VALUES);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u64));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct shard_rows);
} shards SEC(".maps") __weak;

/* Where each page's rows are, the pages of a table one after the other. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, UNW_PAGES_MAX);
	__type(key, __u32);
	__type(value, struct unw_page);
} pages SEC(".maps") __weak;

/* Every distinct rule of the tables loaded, once. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, UNW_RULES_MAX);
	__type(key, __u32);
	__type(value, struct unw_rule);
} rules SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_exec);
} execs SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_proc);
} procs SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct unw_file_key);
	__type(value, struct unw_file);
} files SEC(".maps") __weak;

/* Pids sampled when not system-wide. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} targets SEC(".maps") __weak;

/* With cfg.only_threads, the only threads of the targets sampled (-t). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u8);
} threads SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct unw_count_key);
	__type(value, struct unw_count);
} counts SEC(".maps") __weak;

/* User stacks of up to UNW_USTACK_SHORT frames (even keys)... */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u64));
	__uint(value_size, UNW_USTACK_SHORT_SIZE);
} ustacks SEC(".maps") __weak;

/* ...and deeper ones (odd keys). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct unw_ustack);
} ustacks_deep SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_STACK_TRACE);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, UNW_KSTACK_DEPTH * sizeof(__u64));
} kstacks SEC(".maps") __weak;

/*
 * The programs a walk goes on in, by tail call (bpf/walk.bpf.h): at
 * WALKER_NATIVE the native walk (sample, or walk_tc for kernels without
 * bpf_loop: FRAMES_PER_PROG frames a program, tail calls for more), at each
 * runtime's unwinder its program, which user space loads when a process of
 * it is found. off_walkers holds the same for the walks of off-CPU blocks.
 */
#define WALKER_NATIVE 0

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, UNW_UW_NR);
	__type(key, __u32);
	__type(value, __u32);
} walkers SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, UNW_UW_NR);
	__type(key, __u32);
	__type(value, __u32);
} off_walkers SEC(".maps") __weak;

/* The runtimes whose programs are in the walkers: bit unwinder (set by user space). */
__u64 runtimes_loaded __weak = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 * 1024);
} events SEC(".maps") __weak;

/* Last time an event of a type was sent for a pid: rate limiting. */
struct event_key {
	__u32 pid;
	__u32 type;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct event_key);
	__type(value, __u64);
} event_times SEC(".maps") __weak;

/* Where samples failed (see errors_flush): drained by user space with the counts. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, UNW_FAIL_SITES);
	__type(key, struct unw_fail_key);
	__type(value, __u64);
} fails SEC(".maps") __weak;

/* The stats, the samples' costs and the histogram of their times (struct unw_tally). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct unw_tally);
} tally SEC(".maps") __weak;

/*
 * Each runtime's processes, by pid: what its program reads there (struct
 * unw_NAME_proc of its header, bpf/runtimes.h), written by user space with
 * the process's entry, gone with it (bpf/procs.bpf.c).
 */
#define RUNTIME_PROCS_MAP(ID, name)                      \
	struct {                                         \
		__uint(type, BPF_MAP_TYPE_HASH);         \
		__uint(max_entries, 1);                  \
		__type(key, __u32);                      \
		__type(value, struct unw_##name##_proc); \
	} name##_procs SEC(".maps") __weak;
UNW_RUNTIMES(RUNTIME_PROCS_MAP)
#undef RUNTIME_PROCS_MAP

#endif
