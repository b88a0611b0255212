#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# `sudo unwprof record -- CMD` runs CMD as the user who ran sudo, with that
# user's groups, and the files written belong to that user; --as-root keeps
# CMD root. sudo itself is not needed: record reads SUDO_UID, SUDO_GID and
# SUDO_USER, which are set here for a user created for the test (removed at
# the end, even on failure).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

command -v useradd > /dev/null || e2e_skip "useradd is not installed (passwd)"
user="unwprof-t$$"
group="unwprof-g$$"
groupadd "$group" || fail "cannot create group $group"
useradd -M -N -g nogroup -G "$group" -s /usr/sbin/nologin "$user" || { fail "cannot create user $user"; finish; }
trap 'userdel "$user" 2> /dev/null; groupdel "$group" 2> /dev/null; e2e_cleanup' EXIT
uid=$(id -u "$user")
gid=$(id -g "$user")
extra=$(getent group "$group" | cut -d: -f3)
chmod 755 "$tmp"
mkdir "$tmp/home"
chown "$uid:$gid" "$tmp/home"

export SUDO_UID=$uid SUDO_GID=$gid SUDO_USER=$user
# shellcheck disable=SC2016 # the command expands it
record user -F 999 -o "$tmp/home/user.folded" --stats-json "$tmp/home/user.json" -- \
	sh -c 'echo "uid=$(id -u) gid=$(id -g) groups=$(id -G)" >&2; exec "$0" 1' "$WORKLOADS/chain-pie"
expect_rc 0
ids=$(grep '^uid=' "$tmp/user.err")
[ "${ids%% *}" = "uid=$uid" ] || fail "the command ran as '$ids', not as uid $uid"
echo "$ids" | grep -q "gid=$gid " || fail "the command's group is not $gid: $ids"
echo "$ids" | grep -qw "$extra" || fail "the command lacks $user's group $extra: $ids"
for f in user.folded user.json; do
	owner=$(stat -c %u:%g "$tmp/home/$f" 2> /dev/null)
	[ "$owner" = "$uid:$gid" ] || fail "$f belongs to '$owner', not to $uid:$gid"
done
check stacks "$tmp/home/user.folded" --comm chain-pie --leaf leaf \
	--expect '{START};main;f1;f2;f3;f4;f5;f6;f7;f8;leaf' --min-ratio 0.99 --min-samples 200

# shellcheck disable=SC2016
record root --as-root -o "$tmp/home/root.folded" -- sh -c 'echo "uid=$(id -u)" >&2'
expect_rc 0
grep -qx 'uid=0' "$tmp/root.err" || fail "--as-root: the command did not run as root"
unset SUDO_UID SUDO_GID SUDO_USER
finish
