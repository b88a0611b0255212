#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""reuse_pid.py FIRST -- SECOND: runs the command FIRST (its words separated
by spaces) to its end, then runs SECOND under the same pid, forced through
/proc/sys/kernel/ns_last_pid (root), and waits for it. Prints "pid N" once
for both. Exit status: 0, or 1 when the pid could not be reused."""
import os
import sys


def spawn(argv, want=None):
    """Forks a child that execs argv once the parent allows it (a pipe)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        if os.read(r, 1) != b"x":
            os._exit(0)
        os.execv(argv[0], argv)
    os.close(r)
    if want is not None and pid != want:
        os.close(w)  # the child exits without exec
        os.waitpid(pid, 0)
        return None
    os.write(w, b"x")
    os.close(w)
    return pid


def main():
    sep = sys.argv.index("--")
    first, second = sys.argv[1:sep], sys.argv[sep + 1:]
    pid = spawn(first)
    print(f"pid {pid}", file=sys.stderr, flush=True)
    os.waitpid(pid, 0)
    for _ in range(1000):
        with open("/proc/sys/kernel/ns_last_pid", "w") as f:
            f.write(str(pid - 1))
        again = spawn(second, want=pid)
        if again:
            os.waitpid(again, 0)
            return 0
    print(f"reuse_pid.py: pid {pid} was not reused after 1000 tries", file=sys.stderr)
    return 1


sys.exit(main())
