# SPDX-License-Identifier: GPL-2.0-only
"""busy.py [SECONDS]: a CPU loop for SECONDS (default 3) through the parts of
CPython that have native stacks of their own: the eval loop calling back into
itself through C (sorted with a key, map), json, re, str formatting, dicts
and big integers."""
import json
import re
import sys
import time


def key(rec):
    return (rec["n"] % 7, rec["name"])


def round_of_work(i):
    recs = [{"n": j * 7919 % 1000, "name": f"rec{j:04d}", "tags": [j, str(j)]}
            for j in range(300)]
    text = json.dumps(recs)
    back = json.loads(text)
    back.sort(key=key)
    words = re.findall(r"rec(\d+)", text)
    total = sum(map(int, words))
    counts = {}
    for w in words:
        counts[w[-1]] = counts.get(w[-1], 0) + 1
    return total + len(back) + (3 ** (i % 200 + 100)) % 1000003 + len(counts)


def main():
    end = time.monotonic() + (float(sys.argv[1]) if len(sys.argv) > 1 else 3)
    i = acc = 0
    while time.monotonic() < end:
        acc += round_of_work(i)
        i += 1
    print(f"{i} rounds, {acc}")


main()
