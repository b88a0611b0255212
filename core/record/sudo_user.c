// SPDX-License-Identifier: GPL-2.0-only
/* The user who ran sudo, from the environment sudo sets. See sudo_user.h. */
#include <errno.h>
#include <grp.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "../util/log.h"
#include "sudo_user.h"

static int env_id(const char *name, unsigned int *id)
{
	const char *v = getenv(name);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return -ENOENT;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n >= UINT_MAX) {
		pr_err("%s: '%s' is not a user or group id", name, v);
		return -EINVAL;
	}
	*id = (unsigned int)n;
	return 0;
}

int sudo_user__init(struct sudo_user *su)
{
	const char *user = getenv("SUDO_USER");
	unsigned int uid, gid;
	int n = 0, err;

	if (geteuid() != 0)
		return 0;
	err = env_id("SUDO_UID", &uid);
	if (!err)
		err = env_id("SUDO_GID", &gid);
	if (err)
		return err == -ENOENT ? 0 : err;
	if (uid == 0)
		return 0;
	su->uid = uid;
	su->gid = gid;
	if (user && *user && getgrouplist(user, gid, NULL, &n) < 0 && n > 0) {
		su->groups = calloc(n, sizeof(*su->groups));
		if (!su->groups)
			return -ENOMEM;
		if (getgrouplist(user, gid, su->groups, &n) < 0)
			n = 0;
	}
	if (n <= 0) {
		free(su->groups);
		su->groups = malloc(sizeof(*su->groups));
		if (!su->groups)
			return -ENOMEM;
		su->groups[0] = gid;
		n = 1;
	}
	su->nr_groups = n;
	su->set = true;
	pr_debug("running as uid %u gid %u with %d groups under sudo", uid, gid, n);
	return 0;
}

void sudo_user__exit(struct sudo_user *su)
{
	free(su->groups);
	su->groups = NULL;
}
