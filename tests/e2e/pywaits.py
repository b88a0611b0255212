# SPDX-License-Identifier: GPL-2.0-only
"""pywaits.py SECONDS: Python threads that wait in known ways, timing their own waits.

- thread "sleeper": sleeper_main -> nap -> time.sleep(0.005)
- thread "getter":  getter_main -> take -> queue.get(), which "putter" feeds every 8 ms
- thread "locker":  locker_main -> grab -> threading.Lock.acquire(), held 10 ms at a
                    time by "holder", which sleeps 3 ms between holds
At the end, a line on stderr per thread: "pywaits: NAME tid TID waited NS ns" (its
monotonic time in the waiting call, less its CPU time there).
"""
import queue
import sys
import threading
import time

END = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 2)
LOCK = threading.Lock()
Q = queue.Queue()
WAITED = {}


def timed(name, call):
    t0, c0 = time.monotonic_ns(), time.thread_time_ns()
    r = call()
    WAITED[name] = WAITED.get(name, 0) + time.monotonic_ns() - t0 - (time.thread_time_ns() - c0)
    return r


def nap():
    timed("sleeper", lambda: time.sleep(0.005))


def sleeper_main():
    while time.monotonic() < END:
        nap()


def take():
    return timed("getter", Q.get)


def getter_main():
    while take() is not None:
        pass


def putter_main():
    while time.monotonic() < END:
        time.sleep(0.008)
        Q.put(1)
    Q.put(None)


def grab():
    timed("locker", LOCK.acquire)
    LOCK.release()


def locker_main():
    time.sleep(0.001)
    while time.monotonic() < END:
        grab()
        time.sleep(0.001)


def holder_main():
    while time.monotonic() < END:
        with LOCK:
            time.sleep(0.010)
        time.sleep(0.003)


def main():
    tids = {}

    def run(name, fn):
        def body():
            tids[name] = threading.get_native_id()
            fn()
        return threading.Thread(target=body, name=name)

    threads = [run("sleeper", sleeper_main), run("getter", getter_main),
               run("putter", putter_main), run("locker", locker_main),
               run("holder", holder_main)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name in ("sleeper", "getter", "locker"):
        print(f"pywaits: {name} tid {tids[name]} waited {WAITED.get(name, 0)} ns",
              file=sys.stderr)


main()
