/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The profile model every writer and reader shares: samples aggregated by
 * (pid, tid, comm, walk flags, user frames, kernel frames), each frame a
 * location with an address, a mapping and, once symbolized, a function.
 * record builds it from the BPF counts; report reads pprof into it. Nothing
 * here is specific to one output format.
 *
 * Locations and mappings are numbered from 0 in the order they were added;
 * PROFILE_NONE stands for "none". Pointers returned by the accessors stay
 * valid until the next call that adds to the profile.
 */
#ifndef UNWPROF_PROFILE_H
#define UNWPROF_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PROFILE_NONE UINT32_MAX
#define PROFILE_COMM_LEN 16 /* the kernel's TASK_COMM_LEN, with its NUL */

struct profile_mapping {
	uint64_t start;	 /* address range in the process (or the kernel) */
	uint64_t limit;	 /* one past the end */
	uint64_t offset; /* file offset of start */
	char *file;	 /* path as the process saw it, or "[vdso]", "[kernel.kallsyms]" */
	char *build_id;	 /* lowercase hex, NULL when unknown */
};

/*
 * What a location is a frame of: machine code, or a function of a runtime's
 * language, whose kind is the runtime's unwinder (bpf/runtimes.h): addr is
 * its code (a code object, an iseq; what the runtime's namer keys it by),
 * line its line. core/profile/frames.h names the kinds.
 */
enum profile_frame_kind {
	PROFILE_FRAME_NATIVE = 0, /* addr is a pc (kernel when .kernel is set) */
};

struct profile_location {
	uint64_t addr; /* as sampled: the leaf pc or a return address */
	uint8_t kind;  /* enum profile_frame_kind */
	uint32_t line; /* an interpreter's frame: the line being run, part of what it is */
	/*
	 * Whose address space: 0 for the kernel's, and for a location that
	 * every process mapping one file shares (core/symbols/symbolizer.h), whose addr
	 * is then in the address space of its mapping.
	 */
	uint32_t pid;
	bool kernel;
	bool return_addr;     /* a caller's frame: its call is at addr - 1 */
	uint32_t mapping;     /* PROFILE_NONE when no mapping covers addr */
	char *function;	      /* readable (demangled) name, NULL when unknown */
	char *system_name;    /* the raw symbol name, NULL when unknown */
	uint64_t func_offset; /* addr - start of the function */
	bool retired;	      /* its process exited: no longer merged with new samples */
};

/*
 * One function of a location's source: a location in code the compiler
 * inlined into its caller has one per function of the chain, innermost
 * first, its last the function that holds the code (pprof's Line order).
 */
struct profile_line {
	const char *function;	 /* readable (demangled) name, NULL when unknown */
	const char *system_name; /* the raw name, NULL when unknown */
	const char *file;	 /* source file, NULL when unknown */
	uint32_t line;		 /* 0 when unknown */
	uint32_t start_line;	 /* where the function starts, 0 when unknown */
};

/*
 * Flags of a sample that the writers read (the values of SAMPLE_* of
 * core/session/session.h): off-CPU samples count blocks of a thread and
 * their time (off_cpu_ns), in state D (uninterruptible) or else S, and an
 * unwalked one has no user stack.
 */
#define PROFILE_SAMPLE_OFF_CPU (1u << 4)
#define PROFILE_SAMPLE_STATE_D (1u << 5)
#define PROFILE_SAMPLE_UNWALKED (1u << 6)

struct profile_sample {
	uint32_t pid;
	uint32_t tid;
	char comm[PROFILE_COMM_LEN];
	/* comm is the process's name (its main thread's), thread the thread's; "" when unknown */
	char thread[PROFILE_COMM_LEN];
	uint32_t flags; /* SAMPLE_* of core/session/session.h */
	uint32_t *user; /* location ids, leaf first */
	uint32_t nr_user;
	uint32_t *kernel; /* location ids, leaf first */
	uint32_t nr_kernel;
	uint64_t count;
	/*
	 * An off-CPU sample (flags: SAMPLE_OFF_CPU of core/session/session.h)
	 * counts blocks of its thread in count and their time here; 0 otherwise.
	 */
	uint64_t off_cpu_ns;
};

/* A stack by its raw addresses, as the BPF side reports it. */
struct profile_stack {
	uint32_t pid;
	uint32_t tid;
	const char *comm;   /* process name; need not be NUL-terminated within PROFILE_COMM_LEN */
	const char *thread; /* thread name, the same way; NULL when unknown */
	uint32_t flags;
	const uint64_t *user_addrs; /* leaf first */
	uint32_t nr_user;
	const uint64_t *kernel_addrs; /* leaf first */
	uint32_t nr_kernel;
	uint64_t off_cpu_ns; /* as profile_sample's */
};

struct profile;

struct profile *profile__new(void);
void profile__free(struct profile *p);

/*
 * Counts a stack given by addresses: one location per distinct
 * (pid, address, kernel, leaf or caller), identical stacks merged.
 */
int profile__add_stack(struct profile *p, const struct profile_stack *st, uint64_t count);

/*
 * The same with the user frames' location ids set by user(), which decides
 * what a user frame is (core/symbols/symbolizer.h shares them between processes, and
 * names interpreters' frames, several words of st->user_addrs each): it
 * returns how many it wrote to ids (at most st->nr_user), or -errno. Kernel
 * frames are interned as above.
 */
typedef int (*profile_user_locations_fn)(struct profile *p, const struct profile_stack *st,
					 uint32_t *ids, void *ctx);
int profile__add_stack_with(struct profile *p, const struct profile_stack *st, uint64_t count,
			    profile_user_locations_fn user, void *ctx);

/*
 * Counts a sample whose frames are location ids (s->user, s->kernel); its
 * arrays are copied. Samples with the same key are merged.
 */
int profile__add_sample(struct profile *p, const struct profile_sample *s);

/* Adds a mapping (strings copied) and sets *id; identical mappings share one id. */
int profile__add_mapping(struct profile *p, const struct profile_mapping *m, uint32_t *id);

/*
 * The id of the location of (pid, addr) (pid ignored for the kernel), added
 * unsymbolized when new; retired locations are not matched.
 */
int profile__intern_location(struct profile *p, uint32_t pid, uint64_t addr, bool kernel,
			     bool return_addr, uint32_t *id);

/*
 * The id of the location of an interpreter's frame (kind), code object addr
 * of process pid at line, added without a name when new: the caller names
 * it (profile__set_symbol, profile__set_lines).
 */
int profile__intern_frame(struct profile *p, uint32_t pid, uint8_t kind, uint64_t addr,
			  uint32_t line, uint32_t *id, bool *added);

/* Adds a location (strings copied, not merged with others) and sets *id. */
int profile__add_location(struct profile *p, const struct profile_location *loc, uint32_t *id);

/* Sets what a location resolved to; function and system_name are copied (may be NULL). */
int profile__set_symbol(struct profile *p, uint32_t id, uint32_t mapping, const char *function,
			const char *system_name, uint64_t func_offset);

/*
 * Sets a location's source lines (innermost inlined function first); the
 * strings are copied, once per profile. n == 0 removes them.
 */
int profile__set_lines(struct profile *p, uint32_t id, const struct profile_line *lines, size_t n);
/* A location's lines and their number in *n (0 and NULL when it has none). */
const struct profile_line *profile__lines(const struct profile *p, uint32_t id, size_t *n);

/*
 * Retires a location of a process that exited: samples added later (by a
 * new process with the same pid) get a location of their own.
 */
int profile__retire_location(struct profile *p, uint32_t id);

size_t profile__nr_samples(const struct profile *p);
const struct profile_sample *profile__sample(const struct profile *p, size_t i);
size_t profile__nr_locations(const struct profile *p);
const struct profile_location *profile__location(const struct profile *p, uint32_t id);
size_t profile__nr_mappings(const struct profile *p);
const struct profile_mapping *profile__mapping(const struct profile *p, uint32_t id);

/* Sum of the counts of every sample. */
uint64_t profile__total(const struct profile *p);

/* Whether p has off-CPU samples. */
bool profile__has_off_cpu(const struct profile *p);

/*
 * The time a sample stands for: an on-CPU one's count times period_ns (the
 * CPU time of a sample), an off-CPU one's time blocked.
 */
uint64_t profile__sample_time_ns(const struct profile_sample *s, uint64_t period_ns);

#endif
