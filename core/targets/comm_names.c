// SPDX-License-Identifier: GPL-2.0-only
/*
 * Process names for samples. See comm_names.h.
 */
#include <search.h>
#include <stdio.h>
#include <stdlib.h>

#include "comm_names.h"
#include "procfs.h"
#include "../profile/profile.h"

struct proc_name {
	uint32_t pid;
	char name[PROFILE_COMM_LEN];
};

struct comm_names {
	void *root; /* tsearch tree of struct proc_name, by pid */
};

static int proc_name_cmp(const void *a, const void *b)
{
	uint32_t x = ((const struct proc_name *)a)->pid, y = ((const struct proc_name *)b)->pid;

	return x < y ? -1 : x > y;
}

struct comm_names *comm_names__new(void)
{
	return calloc(1, sizeof(struct comm_names));
}

void comm_names__free(struct comm_names *n)
{
	if (!n)
		return;
	tdestroy(n->root, free);
	free(n);
}

const char *comm_names__get(struct comm_names *n, uint32_t pid, uint32_t tid, const char *comm)
{
	struct proc_name key = { .pid = pid }, *e, **found;

	if (pid == tid || !n)
		return comm;
	found = tfind(&key, &n->root, proc_name_cmp);
	if (found)
		return (*found)->name;
	e = calloc(1, sizeof(*e));
	if (!e)
		return comm;
	e->pid = pid;
	if (procfs__comm((pid_t)pid, e->name, sizeof(e->name)))
		snprintf(e->name, sizeof(e->name), "%.*s", PROFILE_COMM_LEN - 1, comm);
	found = tsearch(e, &n->root, proc_name_cmp);
	if (!found || *found != e) {
		free(e);
		return found ? (*found)->name : comm;
	}
	return e->name;
}

void comm_names__forget(struct comm_names *n, uint32_t pid)
{
	struct proc_name key = { .pid = pid }, **found;
	struct proc_name *e;

	if (!n)
		return;
	found = tfind(&key, &n->root, proc_name_cmp);
	if (!found)
		return;
	e = *found;
	tdelete(&key, &n->root, proc_name_cmp);
	free(e);
}
