#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Tests of `unwprof shards`, one case per run.

Usage: shards_test.py CASE UNWPROF FIXTURES_BIN_DIR

Cases:
  split     tables split into chunks exactly as core/unwind/shards.h promises: a
            chunk that stops before its table's end ends where a 64 KiB page
            of the table ends, the last such place that fits its room, or
            the next page starts a shard of its own; chunks are contiguous,
            their pcs match dump-unwind's rows, and no shard is overfilled.
            libLLVM-14 at the default shard size when it is installed, libc
            and the fixtures with smaller shards; the bytes per row of libc,
            libstdc++ and libLLVM-14 (rows, page map and rules) are at most 4.5.
  tiny      a small --shard-rows forces many shards; the text output agrees.
  many      40 libraries: ids, order, and which shard holds which.
  overflow  --max-shards, and a page of more rows than a shard holds, leave
            rows unplaced: totals.unplaced_rows and the text report them.
  dedup     -p on two processes of the same program: each table is packed
            once, dedup_saved_rows is what the second process would have
            added. Exit 77 when /proc/PID/root cannot be read (unless
            UNWPROF_REQUIRE_BPF=1).
  record    the totals equal record's "unwind rows loaded" for the same
            process. Needs root and BPF: exit 77 without them (unless
            UNWPROF_REQUIRE_BPF=1).
  usage     exit status 64 on usage errors, 1 on a missing pid or a file that
            is not ELF (the good files still shown), --help, determinism.
  layout    shards -p shows what record -p loads, shard by shard: a process
            with more than 256 executable mappings (tests/faults/dlmany.c
            with 300 libraries) beside one that maps libLLVM-14
            (tests/faults/llvm_user.c, when installed), with and without a
            --max-shards that cuts LLVM. What record loaded is read back
            from its BPF maps with bpftool while it runs: where the rows of
            every executable id are (its pages in the page map), the shards
            it created, and the process info (which mappings have which id). Needs root, BPF, bpftool
            and FAULTS (the build folder of tests/faults) in the
            environment: exit 77 without them (unless UNWPROF_REQUIRE_BPF=1).
"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

TIMEOUT = 60
LLVM = "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1"
LIBC_DIRS = ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64")
SHARD_ROWS = 262144
PAGE_SHIFT = 16
PAGE_BYTES, RULE_BYTES = 8, 16  # an entry of the page map, a rule of the dictionary

failures = 0


def fail(msg):
    global failures
    failures += 1
    print("FAIL: " + msg, file=sys.stderr)


def skip(msg):
    if os.environ.get("UNWPROF_REQUIRE_BPF") == "1":
        print("FAIL: %s (UNWPROF_REQUIRE_BPF=1, so this is not skipped)" % msg, file=sys.stderr)
        sys.exit(1)
    print("SKIP: " + msg, file=sys.stderr)
    sys.exit(77)


def run(args, want=0):
    print("$ unwprof " + " ".join(args), file=sys.stderr)
    p = subprocess.run([UNWPROF] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=TIMEOUT, text=True)
    if want is not None and p.returncode != want:
        fail("unwprof %s: exit %d, want %d; stderr:\n%s" % (" ".join(args), p.returncode, want,
                                                             p.stderr))
    for word in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
        if word in p.stderr:
            fail("unwprof %s: sanitizer report:\n%s" % (" ".join(args), p.stderr))
    return p


def shards_json(args, want=0):
    p = run(["shards", "--json"] + args, want)
    try:
        return json.loads(p.stdout)
    except ValueError as e:
        fail("shards %s: output is not JSON: %s" % (" ".join(args), e))
        sys.exit(1)


def libc():
    for d in LIBC_DIRS:
        path = os.path.join(d, "libc.so.6")
        if os.path.exists(path):
            return path
    print("FAIL: no libc.so.6 in " + ", ".join(LIBC_DIRS), file=sys.stderr)
    sys.exit(1)


def check_shape(doc, where):
    for key in ("schema", "shard_rows", "row_bytes", "max_shards", "shards", "executables",
                "totals"):
        if key not in doc:
            fail("%s: no \"%s\" in the JSON" % (where, key))
            return False
    if doc["schema"] != 1:
        fail("%s: schema %r" % (where, doc["schema"]))
    for key in ("rows", "bytes", "used_bytes", "pages", "rules", "shards", "unplaced_rows",
                "dedup_saved_rows"):
        if not isinstance(doc["totals"].get(key), int):
            fail("%s: totals.%s missing or not a number" % (where, key))
            return False
    for s in doc["shards"]:
        for key in ("index", "rows", "executables"):
            if key not in s:
                fail("%s: shard without \"%s\"" % (where, key))
    for x in doc["executables"]:
        for key in ("path", "build_id", "rows", "chunks", "shards", "bytes"):
            if key not in x:
                fail("%s: executable without \"%s\"" % (where, key))
    return True


def check_layout(doc, where):
    """What holds for every packing: shards not overfilled, chunks disjoint, totals add up."""
    shard_rows = doc["shard_rows"]
    used = {}
    placed = unplaced = 0
    for x in doc["executables"]:
        chunks = x["chunk_index"]
        if len(chunks) != x["chunks"]:
            fail("%s: %s: %d chunks listed, \"chunks\" says %d" %
                 (where, x["path"], len(chunks), x["chunks"]))
        row = 0
        for c in chunks:
            if c["first_row"] != row:
                fail("%s: %s: chunk at row %d, want %d" % (where, x["path"], c["first_row"], row))
            if not 0 <= c["low"] < c["high"] <= shard_rows:
                fail("%s: %s: chunk rows [%d, %d) outside a shard of %d" %
                     (where, x["path"], c["low"], c["high"], shard_rows))
            used.setdefault(c["shard"], []).append((c["low"], c["high"], x["path"]))
            row += c["high"] - c["low"]
        if row + x["unplaced_rows"] != x["rows"]:
            fail("%s: %s: %d rows placed + %d unplaced != %d rows" %
                 (where, x["path"], row, x["unplaced_rows"], x["rows"]))
        if sorted(set(c["shard"] for c in chunks)) != x["shards"]:
            fail("%s: %s: \"shards\" %r does not match its chunks" % (where, x["path"], x["shards"]))
        # Alone: its rows, at least a page and a rule per row at most.
        low = doc["row_bytes"] * x["rows"]
        high = low + (PAGE_BYTES + RULE_BYTES) * x["rows"] + PAGE_BYTES
        if x["rows"] and not low < x["bytes"] <= high or not x["rows"] and x["bytes"]:
            fail("%s: %s: %d bytes for %d rows" % (where, x["path"], x["bytes"], x["rows"]))
        placed += row
        unplaced += x["unplaced_rows"]
    for i, s in enumerate(doc["shards"]):
        spans = sorted(used.get(i, []))
        for a, b in zip(spans, spans[1:]):
            if a[1] > b[0]:
                fail("%s: shard %d: %s and %s overlap" % (where, i, a[2], b[2]))
        if s["index"] != i or s["rows"] != sum(h - lo for lo, h, _ in spans):
            fail("%s: shard %d: %d rows, its chunks hold %d" %
                 (where, i, s["rows"], sum(h - lo for lo, h, _ in spans)))
    t = doc["totals"]
    if len(doc["shards"]) != t["shards"] or set(used) - set(range(t["shards"])):
        fail("%s: %d shards listed, totals say %d" % (where, len(doc["shards"]), t["shards"]))
    if t["rows"] != placed or t["unplaced_rows"] != unplaced:
        fail("%s: totals %d rows / %d unplaced, the executables add up to %d / %d" %
             (where, t["rows"], t["unplaced_rows"], placed, unplaced))
    if t["bytes"] != t["shards"] * shard_rows * doc["row_bytes"] or \
       t["used_bytes"] != placed * doc["row_bytes"] + t["pages"] * PAGE_BYTES + \
       t["rules"] * RULE_BYTES:
        fail("%s: totals.bytes %d != %d shards x %d rows x %d bytes, or used_bytes %d" %
             (where, t["bytes"], t["shards"], shard_rows, doc["row_bytes"], t["used_bytes"]))
    if doc["max_shards"] and t["shards"] > doc["max_shards"]:
        fail("%s: %d shards over --max-shards %d" % (where, t["shards"], doc["max_shards"]))


def dump_rows(path):
    p = run(["dump-unwind", "--json", path], want=None)
    if p.returncode not in (0, 1) or not p.stdout:
        fail("dump-unwind %s: exit %d" % (path, p.returncode))
        return None
    doc = json.loads(p.stdout)
    return [(int(r["pc"], 16), bool(r.get("end"))) for r in doc["rows"]]


def page(rows, k):
    """The page of row k: a table's pcs, and so its pages, count from its first row."""
    return (rows[k][0] - rows[0][0]) >> PAGE_SHIFT


def page_ends(rows, lo, hi):
    """The row indexes k in (lo, hi] where a page ends: row k starts another page."""
    return [k for k in range(lo + 1, min(hi, len(rows) - 1) + 1) if page(rows, k) != page(rows, k - 1)]


def check_splits(path, shard_rows):
    """A chunk that stops before the table's end (the room ran out) ends where
    a page ends, at the last such place within its room; the next chunk then
    starts its shard when its first page did not fit the room left
    (core/unwind/shards.h). Each chunk's pcs are those of its rows, so
    lookups through the pages find the same row as in the whole table."""
    where = "%s (--shard-rows %d)" % (os.path.basename(path), shard_rows)
    doc = shards_json(["--shard-rows", str(shard_rows), path])
    if not check_shape(doc, where):
        return
    check_layout(doc, where)
    rows = dump_rows(path)
    if rows is None:
        return
    x = doc["executables"][0]
    if x["rows"] != len(rows):
        fail("%s: %d rows, dump-unwind has %d" % (where, x["rows"], len(rows)))
        return
    chunks = x["chunk_index"]
    for i, c in enumerate(chunks):
        pos, take = c["first_row"], c["high"] - c["low"]
        if int(c["pc_lo"], 16) != rows[pos][0]:
            fail("%s: chunk %d starts at %s, its first row at %#x" % (where, i, c["pc_lo"],
                                                                        rows[pos][0]))
        last = pos + take == len(rows)
        if last != (c["pc_hi"] is None):
            fail("%s: chunk %d: pc_hi %r for the %s chunk" %
                 (where, i, c["pc_hi"], "last" if last else "inner"))
        if last:
            continue
        if int(c["pc_hi"], 16) != rows[pos + take][0]:
            fail("%s: chunk %d ends at %s, the next row is at %#x" %
                 (where, i, c["pc_hi"], rows[pos + take][0]))
        room = shard_rows - c["low"]
        if page(rows, pos + take) == page(rows, pos + take - 1):
            fail("%s: chunk %d ends inside a page (row %d)" % (where, i, pos + take))
        if page_ends(rows, pos + take, pos + room):
            fail("%s: chunk %d: %d rows, but a page ends within its room of %d" %
                 (where, i, take, room))
        if i + 1 < len(chunks):
            n = chunks[i + 1]
            if n["shard"] != c["shard"] + 1 or n["low"] != 0:
                fail("%s: chunk %d does not start the next shard" % (where, i + 1))
    print("%s: %d chunks, all split between pages" % (where, len(chunks)), file=sys.stderr)
    return len(chunks)


def check_bytes_per_row(paths):
    """Rows, page map and rules of each file alone, and of all together: <= 4.5 bytes a row."""
    doc = shards_json(paths)
    for x in doc["executables"]:
        if x["rows"] and x["bytes"] / x["rows"] > 4.5:
            fail("%s: %.2f bytes a row" % (x["path"], x["bytes"] / x["rows"]))
    t = doc["totals"]
    if t["used_bytes"] / t["rows"] > 4.5:
        fail("%d files: %.2f bytes a row" % (len(paths), t["used_bytes"] / t["rows"]))
    print("%s: %.2f bytes a row" % (", ".join(map(os.path.basename, paths)),
                                   t["used_bytes"] / t["rows"]), file=sys.stderr)


def case_split():
    if os.path.exists(LLVM):
        res = check_splits(LLVM, SHARD_ROWS)
        if res is not None and res < 2:
            fail("libLLVM-14: %d chunk(s): its table should exceed one shard" % res)
    else:
        print("note: %s is not installed; libc with small shards only" % LLVM, file=sys.stderr)
    res = check_splits(libc(), 4096)
    if res is not None and res < 5:
        fail("libc with 4096-row shards: only %d chunks" % res)
    check_splits(os.path.join(BIN, "chain-static"), 2048)
    for name in ("libdframe.so", "both"):
        check_splits(os.path.join(BIN, name), 64)
    libs = [libc()] + [p for p in (os.path.join(os.path.dirname(libc()), "libstdc++.so.6"), LLVM)
                       if os.path.exists(p)]
    check_bytes_per_row(libs)


def case_tiny():
    path = libc()
    doc = shards_json(["--shard-rows", "4096", path])
    if not check_shape(doc, "tiny"):
        return
    check_layout(doc, "tiny")
    rows = doc["executables"][0]["rows"]
    t = doc["totals"]
    want = -(-rows // 4096)
    if t["shards"] < want or t["shards"] < 5:
        fail("tiny: %d rows in %d shards of 4096 rows: want at least %d" %
             (rows, t["shards"], want))
    if doc["shard_rows"] != 4096 or t["unplaced_rows"] != 0:
        fail("tiny: shard_rows %d, unplaced %d" % (doc["shard_rows"], t["unplaced_rows"]))
    text = run(["shards", "--shard-rows", "4096", path]).stdout
    if not re.search(r"^%d shards of 4096 rows:" % t["shards"], text, re.M):
        fail("tiny: the text does not say '%d shards of 4096 rows':\n%s" % (t["shards"], text[:400]))
    lines = [l for l in text.splitlines() if re.match(r"^\s*\d+\s+\d+\s+\d+\.\d%\s+libc\.so\.6$", l)]
    if len(lines) != t["shards"]:
        fail("tiny: %d shard lines in the text, want %d" % (len(lines), t["shards"]))
    if not re.search(r"^\s+rows placed\s+%d\s" % t["rows"], text, re.M):
        fail("tiny: the text does not give %d rows placed" % t["rows"])


def many_libraries(n):
    """n shared libraries of the system, ELF and distinct, sorted by name."""
    d = os.path.dirname(libc())
    found = []
    for name in sorted(os.listdir(d)):
        path = os.path.join(d, name)
        if not re.match(r"^lib[\w+-]+\.so\.\d+$", name) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            if f.read(4) == b"\x7fELF":
                found.append(path)
        if len(found) == n:
            break
    return found


def case_many():
    """More tables than the packer's first allocation, in shards of 8192 rows."""
    libs = many_libraries(40)
    if len(libs) < 20:
        print("FAIL: fewer than 20 shared libraries found", file=sys.stderr)
        sys.exit(1)
    doc = shards_json(["--shard-rows", "8192"] + libs)
    if not check_shape(doc, "many"):
        return
    check_layout(doc, "many")
    if [x["path"] for x in doc["executables"]] != libs:
        fail("many: the executables are not the files in the order given")
    ids = [x["id"] for x in doc["executables"] if x["rows"]]
    if ids != list(range(1, len(ids) + 1)):
        fail("many: executable ids %r, want 1.. in order" % ids)
    seen = [n for s in doc["shards"] for n in s["executables"]]
    want = [os.path.basename(x["path"]) for x in doc["executables"] for _ in x["shards"]]
    if seen != want:
        fail("many: the shards' executables do not follow the chunks")


def case_overflow():
    path = libc()
    doc = shards_json(["--shard-rows", "4096", "--max-shards", "4", path])
    if not check_shape(doc, "overflow"):
        return
    check_layout(doc, "overflow")
    t = doc["totals"]
    rows = doc["executables"][0]["rows"]
    if doc["max_shards"] != 4 or t["shards"] != 4:
        fail("overflow: max_shards %r, %d shards: want 4 and 4" % (doc["max_shards"], t["shards"]))
    if t["unplaced_rows"] <= 0 or t["rows"] + t["unplaced_rows"] != rows or t["rows"] > 4 * 4096:
        fail("overflow: %d placed + %d unplaced of %d rows in 4 x 4096" %
             (t["rows"], t["unplaced_rows"], rows))
    if doc["executables"][0].get("status") != "partial":
        fail("overflow: status %r, want partial" % doc["executables"][0].get("status"))
    text = run(["shards", "--shard-rows", "4096", "--max-shards", "4", path]).stdout
    if not re.search(r"^\s+rows unplaced\s+%d\s.*--max-shards 4" % t["unplaced_rows"], text, re.M):
        fail("overflow: the text does not report %d rows unplaced over --max-shards:\n%s" %
             (t["unplaced_rows"], text))
    if "(%d rows unplaced)" % t["unplaced_rows"] not in text:
        fail("overflow: the executable line does not show its unplaced rows")
    # Uncapped, but with pages of more rows than a shard holds: placed up to the first.
    rows = dump_rows(path) or []
    per_page = {}
    for k in range(len(rows)):
        per_page[page(rows, k)] = per_page.get(page(rows, k), 0) + 1
    first_big = next((k for k in sorted(per_page) if per_page[k] > 1024), None)
    if first_big is None:
        fail("big page: libc has no page of more than 1024 rows")
        return
    doc = shards_json(["--shard-rows", "1024", path])
    check_layout(doc, "big page")
    x = doc["executables"][0]
    before = sum(n for k, n in per_page.items() if k < first_big)
    if doc["max_shards"] is not None or x["status"] != "partial" or x["rows"] - x["unplaced_rows"] != before:
        fail("big page: max_shards %r, status %s, %d rows placed: want null, partial, %d" %
             (doc["max_shards"], x["status"], x["rows"] - x["unplaced_rows"], before))
    text = run(["shards", "--shard-rows", "1024", path]).stdout
    if not re.search(r"^\s+rows unplaced\s+%d\s+pages of more rows than a shard holds" %
                     x["unplaced_rows"], text, re.M):
        fail("big page: the text does not say why %d rows are unplaced:\n%s" %
             (x["unplaced_rows"], text))


def start_sleepers(n):
    procs = [subprocess.Popen(["sleep", "60"]) for _ in range(n)]
    time.sleep(0.3)  # until each has exec'd
    for p in procs:
        try:
            os.readlink("/proc/%d/root" % p.pid)
        except OSError as e:
            for q in procs:
                q.kill()
            skip("cannot read /proc/%d/root: %s" % (p.pid, e))
    return procs


def case_dedup():
    procs = start_sleepers(2)
    try:
        pids = [str(p.pid) for p in procs]
        one = shards_json(["-p", pids[0]])
        two = shards_json(["-p", ",".join(pids)])
        again = shards_json(["-p", pids[0], "-p", pids[0]])
    finally:
        for p in procs:
            p.kill()
            p.wait()
    if not check_shape(one, "dedup") or not check_shape(two, "dedup"):
        return
    check_layout(two, "dedup")
    t1, t2 = one["totals"], two["totals"]
    if t1["dedup_saved_rows"] != 0 or again["totals"]["dedup_saved_rows"] != 0:
        fail("dedup: one process (given once or twice) saves %d / %d rows, want 0" %
             (t1["dedup_saved_rows"], again["totals"]["dedup_saved_rows"]))
    if t2["rows"] != t1["rows"] or t2["shards"] != t1["shards"]:
        fail("dedup: two processes load %d rows in %d shards, one loads %d in %d" %
             (t2["rows"], t2["shards"], t1["rows"], t1["shards"]))
    if t2["dedup_saved_rows"] <= 0 or t2["dedup_saved_rows"] != t1["rows"]:
        fail("dedup: dedup_saved_rows %d, want %d (all of the second process's rows)" %
             (t2["dedup_saved_rows"], t1["rows"]))
    for x in two["executables"]:
        if x["rows"] and len(x["pids"]) != 2:
            fail("dedup: %s mapped by %r, want both processes" % (x["path"], x["pids"]))
    if not any(x["path"].endswith("/libc.so.6") for x in two["executables"]):
        fail("dedup: libc.so.6 is not among the executables of sleep")


def case_record():
    if os.geteuid() != 0:
        skip("record needs root to load BPF programs")
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        skip("the kernel has no BTF (/sys/kernel/btf/vmlinux)")
    procs = start_sleepers(1)
    pid = str(procs[0].pid)
    try:
        doc = shards_json(["-p", pid])
        p = run(["record", "-p", pid, "-d", "0.5", "-o", os.devnull])
    finally:
        procs[0].kill()
        procs[0].wait()
    if p.returncode != 0:
        return
    m = re.search(r"unwind rows loaded\s+(\d+)", p.stderr)
    if not m:
        fail("record: no 'unwind rows loaded' in its summary:\n" + p.stderr)
        return
    if int(m.group(1)) != doc["totals"]["rows"]:
        fail("record loaded %s rows, shards says %d" % (m.group(1), doc["totals"]["rows"]))
    m = re.search(r"unwind rows left out\s+(\d+)", p.stderr)
    left_out = int(m.group(1)) if m else 0
    if left_out != doc["totals"]["unplaced_rows"]:
        fail("record left out %d rows, shards says %d" % (left_out,
                                                          doc["totals"]["unplaced_rows"]))


def usage_error(args, what):
    p = run(["shards"] + args, want=64)
    if p.returncode == 64 and not p.stderr.strip():
        fail("%s: exit 64 without a message" % what)


def case_usage():
    chain = os.path.join(BIN, "chain-pie")
    usage_error([], "no input")
    usage_error(["-p", str(os.getpid()), chain], "-p and FILE")
    for bad in ("0", "abc", "-1", "262145", "12x", ""):
        usage_error(["--shard-rows", bad, chain], "--shard-rows %r" % bad)
    for bad in ("0", "many"):
        usage_error(["--max-shards", bad, chain], "--max-shards %r" % bad)
    for bad in ("abc", "0", "1,,x", ","):
        usage_error(["-p", bad], "-p %r" % bad)
    p = run(["shards", "--help"])
    for word in ("EXAMPLES", "--shard-rows", "--max-shards", "--json", "Exit status"):
        if word not in p.stdout:
            fail("--help does not mention %s" % word)
    # A pid that does not exist: exit 1 and a message naming it.
    gone = subprocess.Popen(["true"])
    gone.wait()
    p = run(["shards", "-p", str(gone.pid)], want=1)
    if str(gone.pid) not in p.stderr or not p.stderr.startswith("unwprof: "):
        fail("missing pid: the message does not name pid %d: %r" % (gone.pid, p.stderr))
    # A file that is not ELF among good ones: reported, left out, exit 1.
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as f:
        f.write("not an ELF file\n")
        f.flush()
        p = run(["shards", "--json", chain, f.name], want=1)
        if f.name not in p.stderr:
            fail("not ELF: the message does not name %s: %r" % (f.name, p.stderr))
        doc = json.loads(p.stdout) if p.stdout else {}
        if [x["path"] for x in doc.get("executables", [])] != [chain] or \
           doc["totals"].get("skipped") != 1:
            fail("not ELF: the good file should be shown and one file skipped: %r" % doc)
        p = run(["shards", f.name], want=1)
        if p.stdout:
            fail("no readable input: output anyway:\n" + p.stdout)
        run(["shards", "/nonexistent/file"], want=1)
    # A failed write is an error, not a truncated report.
    if os.path.exists("/dev/full"):
        with open("/dev/full", "w") as full:
            p = subprocess.run([UNWPROF, "shards", chain], stdout=full, stderr=subprocess.PIPE,
                               timeout=TIMEOUT, text=True)
        if p.returncode != 1 or "unwprof: " not in p.stderr:
            fail("stdout on /dev/full: exit %d, stderr %r" % (p.returncode, p.stderr))
    # Same input, same bytes; the same file twice is one table.
    a = run(["shards", "--json", chain, os.path.join(BIN, "both")]).stdout
    b = run(["shards", "--json", chain, os.path.join(BIN, "both")]).stdout
    if a != b:
        fail("two runs on the same files differ")
    doc = shards_json([chain, chain])
    if len(doc["executables"]) != 1 or doc["totals"]["dedup_saved_rows"] != \
       doc["executables"][0]["rows"]:
        fail("the same file twice: %d executables, dedup_saved_rows %d" %
             (len(doc["executables"]), doc["totals"]["dedup_saved_rows"]))


# The BPF maps record loads (bpf/abi.h): struct unw_exec, struct unw_page, struct unw_proc.
EXEC = struct.Struct("<3IH2x")    # page, nr_pages, first_page, last_rule
PAGE = struct.Struct("<IHH")      # row, nr, rule
MAPPING = struct.Struct("<3QIB3x")  # start, end, bias, exec_id, type


def bpftool(*args):
    p = subprocess.run(["bpftool", "-j"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=TIMEOUT, text=True)
    if p.returncode != 0:
        fail("bpftool %s: %s" % (" ".join(args), p.stderr.strip()))
        return None
    return json.loads(p.stdout)


def value_bytes(v):
    return bytes(int(b, 16) for b in v)


def maps_of(pid):
    """The BPF maps unwprof PID holds open, by name (from the map_id of their fdinfo)."""
    ids = set()
    d = "/proc/%d/fdinfo" % pid
    for fd in os.listdir(d):
        try:
            with open(os.path.join(d, fd)) as f:
                m = re.search(r"^map_id:\s*(\d+)", f.read(), re.M)
        except OSError:
            continue
        if m:
            ids.add(int(m.group(1)))
    out = {}
    for i in ids:
        info = bpftool("map", "show", "id", str(i))
        if info:
            out.setdefault(info["name"], i)
    return out


def runs_of_pages(pages):
    """Where the rows of consecutive pages are, as (shard, low, high) runs."""
    runs = []
    for row, nr in pages:
        if not nr:
            continue
        shard, low = divmod(row, SHARD_ROWS)
        if runs and runs[-1][0] == shard and runs[-1][2] == low:
            runs[-1] = (shard, runs[-1][1], low + nr)
        else:
            runs.append((shard, low, low + nr))
    return runs


def loaded_by_record(pid, targets):
    """What unwprof PID loaded: {exec id: [(shard, low, high)]} where its pages'
    rows are, the number of shards in its outer map, and per target
    [(start, end, exec id)]."""
    maps = maps_of(pid)
    for name in ("execs", "pages", "shards", "procs"):
        if name not in maps:
            fail("record: no BPF map '%s' among %r" % (name, sorted(maps)))
            return None
    pages = {}
    for e in bpftool("map", "dump", "id", str(maps["pages"])) or []:
        val = PAGE.unpack(value_bytes(e["value"]))
        if val[1]:
            pages[struct.unpack("<I", value_bytes(e["key"]))[0]] = val
    execs = {}
    for e in bpftool("map", "dump", "id", str(maps["execs"])) or []:
        key = struct.unpack("<I", value_bytes(e["key"]))[0]
        first, nr = EXEC.unpack_from(value_bytes(e["value"]))[:2]
        if key and nr:
            execs[key] = runs_of_pages([pages.get(first + i, (0, 0, 0))[:2] for i in range(nr)])
    shards = len(bpftool("map", "dump", "id", str(maps["shards"])) or [])
    procs = {}
    for t in targets:
        key = ["0x%02x" % b for b in struct.pack("<I", t)]
        e = bpftool("map", "lookup", "id", str(maps["procs"]), "key", *key)
        if not e:
            continue
        val = value_bytes(e["value"])
        nr = struct.unpack_from("<I", val)[0]
        rows = [MAPPING.unpack_from(val, 8 + MAPPING.size * i) for i in range(nr)]
        procs[t] = [(m[0], m[1], m[3]) for m in rows]
    return execs, shards, procs


def exec_mappings(pid):
    """The executable mappings of pid, as /proc/PID/maps lists them: (start, path)."""
    out = []
    with open("/proc/%d/maps" % pid) as f:
        for line in f:
            fields = line.split(None, 5)
            if "x" in fields[1]:
                out.append((int(fields[0].split("-")[0], 16),
                            fields[5].strip() if len(fields) > 5 else ""))
    return out


def compare_layout(doc, loaded, pids, where):
    before = failures
    execs, nr_shards, procs = loaded
    check_layout(doc, where)
    t = doc["totals"]
    if nr_shards != t["shards"]:
        fail("%s: record created %d shards, shards shows %d" % (where, nr_shards, t["shards"]))
    by_id = {x["id"]: x for x in doc["executables"] if x["id"] is not None}
    want = {}
    for i, x in by_id.items():
        if x["chunk_index"]:
            want[i] = [(c["shard"], c["low"], c["high"]) for c in x["chunk_index"]]
    got = dict(execs)
    for i in set(want) | set(got):
        if want.get(i, []) != got.get(i, []):
            fail("%s: executable %d (%s): record's pages hold rows %r, shards shows %r" %
                 (where, i, by_id[i]["path"] if i in by_id else "?", got.get(i), want.get(i)))
    per_shard = {}
    for i, chunks in got.items():
        for c in chunks:
            per_shard.setdefault(c[0], []).append((c[1], c[2], i))
    for s in doc["shards"]:
        spans = sorted(per_shard.get(s["index"], []))
        if sum(h - lo for lo, h, _ in spans) != s["rows"]:
            fail("%s: shard %d: record holds %d rows there, shards shows %d" %
                 (where, s["index"], sum(h - lo for lo, h, _ in spans), s["rows"]))
        names = []
        for _, _, i in sorted(spans, key=lambda sp: sp[2]):
            name = os.path.basename(by_id[i]["path"]) if i in by_id else "?"
            if not names or names[-1] != name:
                names.append(name)
        if names != s["executables"]:
            fail("%s: shard %d holds %r in record, shards shows %r" %
                 (where, s["index"], names, s["executables"]))
    for pid in pids:
        maps = exec_mappings(pid)
        kept = maps if len(maps) <= 256 else maps[:128] + maps[-128:]
        info = procs.get(pid)
        if info is None:
            fail("%s: record has no process info for %d" % (where, pid))
            continue
        if [m[0] for m in info] != [k[0] for k in kept]:
            fail("%s: process %d: record keeps %d mappings, not the %d lowest and highest "
                 "of %d" % (where, pid, len(info), len(kept), len(maps)))
            continue
        paths = set()
        for (start, _, exec_id), (_, path) in zip(info, kept):
            if not exec_id:
                continue
            paths.add(path)
            x = by_id.get(exec_id)
            if not x or os.path.basename(x["path"]) != os.path.basename(path):
                fail("%s: process %d: %s at %#x has id %d in record, shards names it %r" %
                     (where, pid, path, start, exec_id, x and x["path"]))
        shown = set(os.path.basename(x["path"]) for x in doc["executables"]
                    if pid in x["pids"] and x["rows"])
        if shown != set(os.path.basename(p) for p in paths):
            fail("%s: process %d: shards shows tables of %r, record loaded %r" %
                 (where, pid, sorted(shown), sorted(os.path.basename(p) for p in paths)))
    if failures == before:
        print("%s: %d executables in %d shards agree" % (where, len(got), nr_shards),
              file=sys.stderr)


def build_dlm_libs(d, n):
    """n shared objects libdlm0.so .. libdlm<n-1>.so for dlmany, as maps_limit.sh builds them."""
    cc = os.environ.get("CC", "cc")
    for i in range(n):
        with open(os.path.join(d, "dlm%d.c" % i), "w") as f:
            f.write("unsigned long dlm%d(unsigned long x)\n{\n\treturn x * %d + 1;\n}\n" %
                    (i, i + 3))
    subprocess.run([cc, "-O1", "-fPIC", "-c"] + ["dlm%d.c" % i for i in range(n)], cwd=d,
                   check=True, timeout=300)
    for i in range(n):
        subprocess.run(["ld", "-shared", "-o", "libdlm%d.so" % i, "dlm%d.o" % i], cwd=d,
                       check=True, timeout=TIMEOUT)


def wait_line(proc, text, seconds=60):
    end = time.time() + seconds
    while time.time() < end:
        line = proc.stdout.readline()
        if text in line:
            return True
        if not line and proc.poll() is not None:
            return False
    return False


def record_and_read(pids, extra):
    """Runs record -p PIDS EXTRA and reads its maps once it samples."""
    args = [UNWPROF, "record", "-p", ",".join(map(str, pids)), "-d", "8", "-o", os.devnull]
    print("$ " + " ".join(args[1:] + extra), file=sys.stderr)
    rec = subprocess.Popen(args + extra, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    loaded = None
    try:
        # The tables of -p targets are in place before the perf events open.
        for _ in range(600):
            fds = "/proc/%d/fd" % rec.pid
            try:
                if any("perf_event" in os.readlink(os.path.join(fds, f))
                       for f in os.listdir(fds)):
                    break
            except OSError:
                pass
            if rec.poll() is not None:
                break
            time.sleep(0.1)
        if rec.poll() is None:
            loaded = loaded_by_record(rec.pid, pids)
    finally:
        rec.terminate()
        err = rec.communicate(timeout=TIMEOUT)[1]
    if loaded is None:
        fail("record %s: did not start sampling:\n%s" % (" ".join(extra), err))
    return loaded


def case_layout():
    if os.geteuid() != 0:
        skip("record needs root to load BPF programs")
    if not os.access("/sys/kernel/btf/vmlinux", os.R_OK):
        skip("the kernel has no BTF (/sys/kernel/btf/vmlinux)")
    if not shutil.which("bpftool"):
        skip("bpftool is not installed: record's maps cannot be read back")
    faults = os.environ.get("FAULTS")
    if not faults or not os.path.exists(os.path.join(faults, "dlmany")):
        skip("FAULTS does not name the build folder of tests/faults")
    procs = []
    with tempfile.TemporaryDirectory() as d:
        try:
            build_dlm_libs(d, 300)
            many = subprocess.Popen([os.path.join(faults, "dlmany"), d, "300", "60"],
                                    stdout=subprocess.PIPE, text=True)
            procs.append(many)
            if not wait_line(many, "loaded"):
                fail("dlmany did not load its libraries")
                return
            pids = [many.pid]
            if os.path.exists(LLVM):
                big = subprocess.Popen([os.path.join(faults, "llvm_user"), "60"],
                                       stdout=subprocess.PIPE, text=True)
                procs.append(big)
                if not wait_line(big, "loaded"):
                    fail("llvm_user did not load libLLVM")
                    return
                pids.append(big.pid)
            else:
                print("note: %s is not installed: no table over one shard" % LLVM,
                      file=sys.stderr)
            if len(exec_mappings(many.pid)) <= 256:
                fail("dlmany has %d executable mappings: not over 256" %
                     len(exec_mappings(many.pid)))
            p = ",".join(map(str, pids))
            for extra in ([], ["--max-shards", "2"]):
                doc = shards_json(["-p", p] + extra, want=0)
                loaded = record_and_read(pids, extra)
                if loaded:
                    compare_layout(doc, loaded, pids, "-p %s %s" % (p, " ".join(extra)))
                if extra and len(pids) > 1 and not doc["totals"]["unplaced_rows"]:
                    fail("--max-shards 2 left no rows unplaced: LLVM should not fit")
        finally:
            for q in procs:
                q.kill()
                q.wait()


CASES = {
    "split": case_split,
    "tiny": case_tiny,
    "overflow": case_overflow,
    "many": case_many,
    "dedup": case_dedup,
    "record": case_record,
    "usage": case_usage,
    "layout": case_layout,
}

if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in CASES:
        print("usage: shards_test.py {%s} UNWPROF FIXTURES_BIN_DIR" % ",".join(CASES),
              file=sys.stderr)
        sys.exit(2)
    UNWPROF, BIN = sys.argv[2], sys.argv[3]
    CASES[sys.argv[1]]()
    sys.exit(1 if failures else 0)
