/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Under sudo, the user who ran it: a launched command runs as that user and
 * the files written belong to them, not to root.
 *
 *	struct sudo_user su = {};
 *	err = sudo_user__init(&su);	set only under sudo, by a user other than root
 *	if (su.set) ... su.uid, su.gid, su.groups
 *	sudo_user__exit(&su);
 */
#ifndef UNWPROF_SUDO_USER_H
#define UNWPROF_SUDO_USER_H

#include <stdbool.h>
#include <sys/types.h>

struct sudo_user {
	bool set;
	uid_t uid;
	gid_t gid;
	gid_t *groups; /* supplementary groups, from SUDO_USER */
	int nr_groups;
};

/*
 * Under sudo (root, SUDO_UID and SUDO_GID set, not root themselves), the
 * invoking user and their supplementary groups, as initgroups would set
 * them; su is left unset otherwise. 0, or -EINVAL for an id that is not
 * one (said), -ENOMEM.
 */
int sudo_user__init(struct sudo_user *su);
void sudo_user__exit(struct sudo_user *su);

#endif
