/* SPDX-License-Identifier: GPL-2.0-only */
/* Building the made-up profiles of the unit tests. */
#ifndef UNWPROF_TEST_PROFILES_H
#define UNWPROF_TEST_PROFILES_H

#include "core/profile/profile.h"

/* Counts a stack of thread tid of process pid: profile__add_stack() without the struct. */
static inline int add_stack(struct profile *p, uint32_t pid, uint32_t tid, const char *comm,
			    const uint64_t *user, uint32_t nr_user, const uint64_t *kernel,
			    uint32_t nr_kernel, uint64_t count)
{
	struct profile_stack st = {
		.pid = pid,
		.tid = tid,
		.comm = comm,
		.user_addrs = user,
		.nr_user = nr_user,
		.kernel_addrs = kernel,
		.nr_kernel = nr_kernel,
	};

	return profile__add_stack(p, &st, count);
}

#endif
