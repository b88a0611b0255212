# SPDX-License-Identifier: GPL-2.0-only
"""pythreads.py SECONDS: Python frames of known chains on three threads.

- thread "alpha": alpha_main -> Alpha.a1 (a method) -> a2 (a generator) -> spin_alpha
- thread "beta":  beta_main -> b1 -> spin_beta, and recursion: beta_main -> rec(6) -> ... -> spin_beta
- the main thread: main -> sorter -> sorted() (C) -> keyfn (a callback from C) -> spin_key
Each spin_* burns CPU in pure Python, so its samples have the chain above it.
"""
import sys
import threading
import time

END = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 3)


def burn(n):
    x = 0
    for i in range(n):
        x += i * i % 7
    return x


def spin_alpha():
    return burn(2000)


def a2():
    yield spin_alpha()


class Alpha:
    def a1(self):
        for v in a2():
            return v


def alpha_main():
    alpha = Alpha()
    while time.monotonic() < END:
        alpha.a1()


def spin_beta():
    return burn(2000)


def b1():
    return spin_beta()


def rec(n):
    if n == 0:
        return spin_beta()
    return rec(n - 1)


def beta_main():
    while time.monotonic() < END:
        b1()
        rec(6)


def spin_key(v):
    return burn(300) + v


def keyfn(v):
    return spin_key(v)


def sorter():
    while time.monotonic() < END:
        sorted(range(50), key=keyfn)


def main():
    threads = [threading.Thread(target=alpha_main, name="alpha"),
               threading.Thread(target=beta_main, name="beta")]
    for t in threads:
        t.start()
    sorter()
    for t in threads:
        t.join()


main()
