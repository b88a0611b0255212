#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: in_container.sh ROOT COMMAND [ARGS...]
#
# Runs COMMAND as a container runs it: pid 1 of a pid namespace of its own,
# chrooted into ROOT, with /dev and a /proc of its namespace there, in a
# mount namespace of its own, so that nothing is mounted on the host. A ROOT
# without a /usr of its own (container_root of lib.sh makes one: a /tmp of
# its own) gets the host's. Its files are ROOT's: its /tmp/perf-1.map is
# ROOT/tmp/perf-1.map. A SIGTERM ends it.
set -u
root=$1
shift
# unshare leaves SIGTERM to its child, which as pid 1 of its namespace ignores it
# (it has no handler): a SIGTERM here kills unshare, and --kill-child the namespace.
# shellcheck disable=SC2016 # expanded by the shell inside the namespaces
unshare --pid --fork --kill-child --mount-proc sh -c 'root=$1; shift
	if [ -z "$(ls -A "$root/usr")" ]; then
		mount --rbind /usr "$root/usr"
		for d in bin sbin lib lib32 lib64 libx32; do
			if [ -d "/$d" ] && [ ! -L "/$d" ]; then mount --rbind "/$d" "$root/$d"; fi
		done
	fi
	mount --rbind /dev "$root/dev"
	mount -t proc proc "$root/proc"
	exec chroot "$root" "$@"' sh "$root" "$@" &
child=$!
trap 'kill -KILL "$child"' TERM INT
wait "$child"
