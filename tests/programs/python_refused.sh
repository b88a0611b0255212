#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A CPython whose frames unwprof does not read is refused loudly, and its
# native stacks are walked as any others. The interpreter is sid's
# python3.14 (in the root setup.sh builds, as python_sid.sh), copied and
# patched into builds unwprof does not know, which run as the original
# does: one whose Py_Version and _Py_DebugOffsets say 3.16.0, a minor
# version whose layout is not known, and one whose _Py_DebugOffsets says it
# is free-threaded. For each, recorded with chroot:
#  - exactly one warning, naming the version (and the build) and the file;
#  - at least 80% of the samples counted as python-version-unsupported
#    (--stats-json), which are those in the eval loop: the program runs
#    Python code all along but while it starts; and no Python frames;
#  - the native walk as complete as for any program (at least 99% walked to
#    the bottom; lib.sh's roots, but for the few in the root's stripped
#    ld.so, which has no name the check knows).
# Skipped (a failure under UNWPROF_REQUIRE_BPF=1) without the root.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

root=${UNWPROF_SID_ROOT:-/var/cache/unwprof-tests/sid}
[ -x "$root/usr/bin/python3.14" ] || e2e_skip "no python3.14 in the sid root $root" \
	"(./setup.sh test builds it with debootstrap)"
inside=$(mktemp -d "$root/tmp/unwprof-py.XXXXXX")
trap 'rm -rf "$inside"; e2e_cleanup' EXIT

# patch SRC DST WORD=VALUE...: a copy of SRC whose words (u64) at symbol+offset are set.
patch() {
	python3 - "$@" << 'PY'
import shutil, struct, subprocess, sys
src, dst, edits = sys.argv[1], sys.argv[2], sys.argv[3:]
syms = {f[7]: int(f[1], 16) for f in (l.split() for l in subprocess.run(
    ["readelf", "-W", "--dyn-syms", src], capture_output=True, text=True,
    check=True).stdout.splitlines()) if len(f) >= 8 and f[0][:-1].isdigit()}
segs = [(int(f[2], 16), int(f[1], 16), int(f[4], 16)) for f in (l.split() for l in subprocess.run(
    ["readelf", "-lW", src], capture_output=True, text=True, check=True).stdout.splitlines())
    if f and f[0] == "LOAD"]
shutil.copy(src, dst)
with open(dst, "r+b") as f:
    for e in edits:
        where, value = e.split("=")
        sym, off = where.split("+")
        addr = syms[sym] + int(off)
        vaddr, foff, size = next(s for s in segs if s[0] <= addr < s[0] + s[2])
        f.seek(foff + addr - vaddr)
        f.write(struct.pack("<Q", int(value, 0)))
PY
}

busy=$'import time\nt = time.time()\nwhile time.time() - t < 3:\n    sum(i * i for i in range(1000))'
while IFS='|' read -r name what edits; do
	# shellcheck disable=SC2086 # edits are words
	patch "$root/usr/bin/python3.14" "$inside/$name" $edits || fail "$name: patching failed"
	record "$name" -F 999 -o "$tmp/$name.folded" --stats-json "$tmp/$name.json" -- \
		chroot "$root" "${inside#"$root"}/$name" -c "$busy"
	expect_rc 0
	n=$(grep -cF "/$name: CPython $what is not supported" "$tmp/$name.err")
	echo "$name: $n warning(s) naming $what and the file" >&2
	[ "$n" -eq 1 ] || fail "$name: $n warnings naming CPython $what and the file, expected one"
	python3 -c 'import json, sys
st = json.load(open(sys.argv[1]))
n, user = st["errors"]["python-version-unsupported"], st["user_samples"]
print(f"python-version-unsupported: {n} of {user} samples; "
      f"{st['"'"'python'"'"']['"'"'count'"'"']} with Python frames", file=sys.stderr)
sys.exit(not (user >= 200 and n >= 0.8 * user and st["python"]["count"] == 0))' "$tmp/$name.json" ||
		fail "$name: its samples are not counted as python-version-unsupported"
	check stats "$tmp/$name.json" --min-walked 0.99
	# the root's ld.so is stripped: its samples have no root the check knows by name
	check roots "$tmp/$name.folded" --min-ratio 0.97
done << 'EOF_CASES'
python-next|3.16.0|Py_Version+0=0x031000f0 _PyRuntime+8=0x031000f0
python-ft|3.14.10 (free-threaded)|_PyRuntime+16=1
EOF_CASES
finish
