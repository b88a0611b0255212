// SPDX-License-Identifier: GPL-2.0-only
/*
 * fg_chain OUT.svg: writes the flame graph of a made-up profile shaped like
 * the chain workload, so the viewer can be tested without root:
 *
 *	chain: _start → __libc_start_main → main → f1 → ... → f8 → leaf   900
 *	chain: ... main → f1 → f2 → f3 → f4                                 60
 *	chain: ... main → f1 → leaf, kernel asm_sysvec → irq_exit           30
 *	chain: ... main → [chain+0x1234]                                    10
 *	other: main → spin<int, 'x'>                                        100
 *
 * 1100 samples: f1..f4 cover 990 (90%), leaf 930.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/profile/flamegraph.h"
#include "core/profile/profile.h"

#define CHAIN_PID 4242
#define BASE 0x1000

static const char *const chain_names[] = {
	"_start", "__libc_start_main", "main", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8",
	"leaf",
};

static int add(struct profile *p, uint32_t pid, const char *comm, const uint64_t *root_first,
	       uint32_t nr, const uint64_t *kernel, uint32_t nr_kernel, uint64_t count)
{
	uint64_t user[16];
	struct profile_stack st = {
		.pid = pid,
		.tid = pid,
		.comm = comm,
		.user_addrs = user,
		.nr_user = nr,
		.kernel_addrs = kernel,
		.nr_kernel = nr_kernel,
	};

	for (uint32_t i = 0; i < nr; i++)
		user[i] = root_first[nr - 1 - i];
	return profile__add_stack(p, &st, count);
}

/* Location addresses BASE + index of chain_names, kernel ones at 0xffffffff8100000N. */
static int name_locations(struct profile *p, uint32_t mapping)
{
	int err = 0;

	for (uint32_t i = 0; !err && i < profile__nr_locations(p); i++) {
		const struct profile_location *l = profile__location(p, i);
		uint64_t k = l->addr - 0xffffffff81000000ULL, u = l->addr - BASE;
		const char *fn = NULL;

		if (l->kernel)
			fn = k == 0 ? "asm_sysvec_apic_timer_interrupt" : "irq_exit_rcu";
		else if (u < sizeof(chain_names) / sizeof(chain_names[0]))
			fn = chain_names[u];
		else if (l->addr == 0x2000)
			fn = "spin<int, 'x'>";
		err = profile__set_symbol(p, i, fn ? PROFILE_NONE : mapping, fn, fn, 0);
	}
	return err;
}

static struct profile *chain_profile(void)
{
	struct profile_mapping m = { .start = 0x1000000, .limit = 0x2000000, .file = "/bin/chain" };
	uint64_t stack[12], other[] = { BASE + 2, 0x2000 },
			    kern[] = { 0xffffffff81000001ULL, 0xffffffff81000000ULL };
	struct profile *p = profile__new();
	uint32_t mapping;
	int err;

	if (!p)
		return NULL;
	for (uint32_t i = 0; i < 12; i++)
		stack[i] = BASE + i;
	err = add(p, CHAIN_PID, "chain", stack, 12, NULL, 0, 900);
	if (!err)
		err = add(p, CHAIN_PID, "chain", stack, 7, NULL, 0, 60);
	stack[4] = BASE + 11; /* main → f1 → leaf */
	if (!err)
		err = add(p, CHAIN_PID, "chain", stack, 5, kern, 2, 30);
	stack[3] = 0x1001234; /* main → an address without a symbol */
	if (!err)
		err = add(p, CHAIN_PID, "chain", stack, 4, NULL, 0, 10);
	if (!err)
		err = add(p, 77, "other", other, 2, NULL, 0, 100);
	if (!err)
		err = profile__add_mapping(p, &m, &mapping);
	if (!err)
		err = name_locations(p, mapping);
	if (err) {
		profile__free(p);
		errno = -err;
		return NULL;
	}
	return p;
}

int main(int argc, char **argv)
{
	struct flamegraph_opts opts = {
		.title = "fg_chain <test & check>",
		.subtitle = "1100 samples",
		.kernel = true,
	};
	struct profile *p;
	FILE *f;
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: fg_chain OUT.svg\n");
		return 64;
	}
	p = chain_profile();
	if (!p) {
		fprintf(stderr, "fg_chain: building the profile: %s\n", strerror(errno));
		return 1;
	}
	f = fopen(argv[1], "w");
	if (!f) {
		fprintf(stderr, "fg_chain: %s: %s\n", argv[1], strerror(errno));
		profile__free(p);
		return 1;
	}
	err = flamegraph__write(f, p, &opts);
	if (fclose(f) && !err)
		err = -errno;
	profile__free(p);
	if (err) {
		fprintf(stderr, "fg_chain: %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
