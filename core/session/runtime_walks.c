// SPDX-License-Identifier: GPL-2.0-only
/*
 * The runtimes' BPF programs of a session. See runtime_walks.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "session.h" /* before the skeleton: bpf/abi.h's types */
#include "bpf/unwind.skel.h"
#include "../runtimes/runtimes.h"
#include "../util/common.h"
#include "../util/log.h"
#include "runtime_walks.h"

/* Where the programs of a walk family go on (bpf/maps.bpf.h). */
#define WALKER_NATIVE 0

/* The walks of a runtime: the samples' (in walkers), the off-CPU blocks' (in off_walkers). */
enum walk_kind {
	WALK_SAMPLES,
	WALK_OFF_CPU,
	WALK_KINDS,
};

struct runtime_walks {
	struct unwind_bpf *skel;
	bool off_cpu;
	bool in_skel[UNW_UW_NR];	   /* chosen: its programs load with skel */
	struct bpf_object *own[UNW_UW_NR]; /* else loaded later, in an object of their own */
	bool loaded[UNW_UW_NR];		   /* in the walkers */
	int failed[UNW_UW_NR];		   /* -errno of a load that failed, said once */
};

/* The program of walk kind k of runtime u in obj (name_walk, name_walk_off); NULL: none. */
static struct bpf_program *runtime_program(struct bpf_object *obj, unsigned int u, enum walk_kind k)
{
	const struct runtime *rt = runtimes__of_unwinder(u);
	char name[64];

	if (!rt)
		return NULL;
	snprintf(name, sizeof(name), "%s_walk%s", rt->name, k == WALK_OFF_CPU ? "_off" : "");
	return bpf_object__find_program_by_name(obj, name);
}

/* The program array of walk kind k. */
static struct bpf_map *walkers_of(const struct runtime_walks *rw, enum walk_kind k)
{
	return k == WALK_OFF_CPU ? rw->skel->maps.off_walkers : rw->skel->maps.walkers;
}

/* Whether the session walks in kind k at all: off-CPU walks only with --off-cpu. */
static bool walks_kind(const struct runtime_walks *rw, enum walk_kind k)
{
	return k == WALK_SAMPLES || rw->off_cpu;
}

struct runtime_walks *runtime_walks__new(struct unwind_bpf *skel, bool off_cpu)
{
	struct runtime_walks *rw = calloc(1, sizeof(*rw));

	if (!rw)
		return NULL;
	rw->skel = skel;
	rw->off_cpu = off_cpu;
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		for (int k = 0; k < WALK_KINDS; k++)
			bpf_program__set_autoload(runtime_program(skel->obj, u, k), false);
	return rw;
}

void runtime_walks__choose(struct runtime_walks *rw, unsigned int u)
{
	if (u < UNW_UW_RUNTIME || u >= UNW_UW_NR || rw->in_skel[u])
		return;
	rw->in_skel[u] = true;
	for (int k = 0; k < WALK_KINDS; k++)
		bpf_program__set_autoload(runtime_program(rw->skel->obj, u, k), walks_kind(rw, k));
}

/* Puts prog at index i of the walkers of kind k: 0 or -errno. */
static int walker_put(struct runtime_walks *rw, enum walk_kind k, unsigned int i,
		      struct bpf_program *prog)
{
	int fd = bpf_program__fd(prog);
	uint32_t key = i;

	if (fd < 0)
		return -EINVAL;
	if (bpf_map_update_elem(bpf_map__fd(walkers_of(rw, k)), &key, &fd, BPF_ANY))
		return -errno;
	return 0;
}

/* The programs of u in obj, loaded, put in the walkers and told to BPF. 0 or -errno. */
static int runtime_walks__put(struct runtime_walks *rw, unsigned int u, struct bpf_object *obj)
{
	int err;

	for (int k = 0; k < WALK_KINDS; k++) {
		if (!walks_kind(rw, k))
			continue;
		err = walker_put(rw, k, u, runtime_program(obj, u, k));
		if (err)
			return err;
	}
	/* After the walkers: a walk that reads the bit finds the program. */
	__atomic_or_fetch(&rw->skel->bss->runtimes_loaded, 1ULL << u, __ATOMIC_SEQ_CST);
	rw->loaded[u] = true;
	return 0;
}

int runtime_walks__start(struct runtime_walks *rw, bool tail_calls)
{
	struct unwind_bpf *k = rw->skel;
	int err;

	err = walker_put(rw, WALK_SAMPLES, WALKER_NATIVE,
			 tail_calls ? k->progs.walk_tc : k->progs.sample);
	if (!err && rw->off_cpu)
		err = walker_put(rw, WALK_OFF_CPU, WALKER_NATIVE, k->progs.on_syscall_exit);
	if (err) {
		pr_err("cannot set up the stack walkers: %s", strerror(-err));
		return err;
	}
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++) {
		if (!rw->in_skel[u])
			continue;
		err = runtime_walks__put(rw, u, k->obj);
		if (err) {
			pr_err("cannot set up the walk of %s: %s", runtimes__of_unwinder(u)->title,
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/*
 * The programs of u, in an object of their own opened from the session's
 * ELF, every map the session's (the same names, the same layouts): only
 * they are loaded. 0 or -errno.
 */
static int runtime_walks__load_own(struct runtime_walks *rw, unsigned int u)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .object_name = bpf_object__name(rw->skel->obj));
	struct bpf_program *prog;
	struct bpf_object *obj;
	struct bpf_map *map;
	const void *elf;
	size_t size;
	int err;

	elf = unwind_bpf__elf_bytes(&size);
	obj = bpf_object__open_mem(elf, size, &opts);
	if (!obj)
		return -errno;
	bpf_object__for_each_program(prog, obj) bpf_program__set_autoload(prog, false);
	for (int k = 0; k < WALK_KINDS; k++)
		bpf_program__set_autoload(runtime_program(obj, u, k), walks_kind(rw, k));
	bpf_object__for_each_map(map, obj)
	{
		struct bpf_map *mine =
			bpf_object__find_map_by_name(rw->skel->obj, bpf_map__name(map));

		err = mine ? bpf_map__reuse_fd(map, bpf_map__fd(mine)) : -ENOENT;
		if (err)
			goto fail;
	}
	err = bpf_object__load(obj);
	if (!err)
		err = runtime_walks__put(rw, u, obj);
	if (err)
		goto fail;
	rw->own[u] = obj;
	return 0;
fail:
	bpf_object__close(obj);
	return err;
}

int runtime_walks__enable(struct runtime_walks *rw, unsigned int u)
{
	const struct runtime *rt = runtimes__of_unwinder(u);
	int err;

	if (!rt)
		return -EINVAL;
	if (rw->loaded[u])
		return 0;
	if (rw->failed[u])
		return rw->failed[u];
	err = runtime_walks__load_own(rw, u);
	if (err) {
		rw->failed[u] = err;
		pr_warn("cannot load the walk of %s: %s%s; its code is walked as native code, its "
			"samples counted as runtime-not-loaded",
			rt->title, strerror(-err),
			log_level < 3 ? " (-vvv shows the verifier log)" : "");
		return err;
	}
	pr_info("walk of %s loaded", rt->title);
	return 0;
}

struct bpf_map *runtime_walks__procs_map(const struct runtime_walks *rw, unsigned int u)
{
	const struct runtime *rt = runtimes__of_unwinder(u);
	char name[64];

	if (!rt)
		return NULL;
	snprintf(name, sizeof(name), "%s_procs", rt->name);
	return bpf_object__find_map_by_name(rw->skel->obj, name);
}

/*
 * The walkers emptied: a program in a program array it uses holds that
 * array, which the kernel empties only some time after its last file
 * descriptor is closed. Emptied here, every object is gone when unwprof
 * exits.
 */
static void walkers_clear(struct runtime_walks *rw)
{
	for (int k = 0; k < WALK_KINDS; k++) {
		int fd = bpf_map__fd(walkers_of(rw, k));

		for (uint32_t i = 0; fd >= 0 && i < UNW_UW_NR; i++)
			bpf_map_delete_elem(fd, &i);
	}
}

void runtime_walks__free(struct runtime_walks *rw)
{
	if (!rw)
		return;
	walkers_clear(rw);
	for (unsigned int u = UNW_UW_RUNTIME; u < UNW_UW_NR; u++)
		bpf_object__close(rw->own[u]);
	free(rw);
}
