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

int invoker__init(struct invoker *inv)
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
	inv->uid = uid;
	inv->gid = gid;
	if (user && *user && getgrouplist(user, gid, NULL, &n) < 0 && n > 0) {
		inv->groups = calloc(n, sizeof(*inv->groups));
		if (!inv->groups)
			return -ENOMEM;
		if (getgrouplist(user, gid, inv->groups, &n) < 0)
			n = 0;
	}
	if (n <= 0) {
		free(inv->groups);
		inv->groups = malloc(sizeof(*inv->groups));
		if (!inv->groups)
			return -ENOMEM;
		inv->groups[0] = gid;
		n = 1;
	}
	inv->nr_groups = n;
	inv->set = true;
	pr_debug("running as uid %u gid %u with %d groups under sudo", uid, gid, n);
	return 0;
}

void invoker__exit(struct invoker *inv)
{
	free(inv->groups);
	inv->groups = NULL;
}
