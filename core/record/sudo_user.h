/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Under sudo, the user who ran it: a launched command runs as that user and
 * the files written belong to them, not to root.
 *
 *	struct invoker inv = {};
 *	err = invoker__init(&inv);	set only under sudo, by a user other than root
 *	if (inv.set) ... inv.uid, inv.gid, inv.groups
 *	invoker__exit(&inv);
 */
#ifndef UNWPROF_SUDO_USER_H
#define UNWPROF_SUDO_USER_H

#include <stdbool.h>
#include <sys/types.h>

struct invoker {
	bool set;
	uid_t uid;
	gid_t gid;
	gid_t *groups; /* supplementary groups, from SUDO_USER */
	int nr_groups;
};

/*
 * Under sudo (root, SUDO_UID and SUDO_GID set, not root themselves), the
 * invoking user and their supplementary groups, as initgroups would set
 * them; inv is left unset otherwise. 0, or -EINVAL for an id that is not
 * one (said), -ENOMEM.
 */
int invoker__init(struct invoker *inv);
void invoker__exit(struct invoker *inv);

#endif
