#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: python_sid.sh 3.14 | 3.15
#
# CPython 3.14 and 3.15 as Debian ships them (python3.X stripped, libpython
# linked in), in the root of Debian sid that setup.sh builds
# ($UNWPROF_SID_ROOT, default /var/cache/unwprof-tests/sid): a process
# whose root is not unwprof's, as in a container, whose files unwprof reads
# through /proc/PID/root. pythreads.py runs there. Checks:
#  - dump-unwind reads its offsets from _Py_DebugOffsets and finds the eval
#    loop's .cold part, which no symbol names, in .eh_frame (e2e.py
#    python-cold: one FDE, no function in it, its code jumping into the loop);
#  - started in the root with chroot and recorded with --tid, the checks of
#    3.11's (e2e.py python, see python_frames.sh): each chain whole in at
#    least 95% of its samples, on its own thread, native frames between
#    sorter and keyfn; burn's line in its body (as Python's ast reads the
#    file) in at least 95% of its samples; the native walk complete;
#  - in pprof, burn is a function with its file and lines of its body only
#    (go tool pprof -lines; skipped without go);
#  - attached with -p to one started in the root: the same chains;
#  - with -a, while it and the root's ruby3.3 run: the same chains, and the
#    Ruby process sampled too.
# Skipped (a failure under UNWPROF_REQUIRE_BPF=1) without the root.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

version=$1
root=${UNWPROF_SID_ROOT:-/var/cache/unwprof-tests/sid}
python=python$version
[ -x "$root/usr/bin/$python" ] || e2e_skip "no $python in the sid root $root" \
	"(./setup.sh test builds it with debootstrap)"

# The script inside the root, where the interpreter finds it; removed at the end.
inside=$(mktemp -d "$root/tmp/unwprof-py.XXXXXX")
trap 'rm -rf "$inside"; e2e_cleanup' EXIT
cp "$programs_src/pythreads.py" "$inside/"
script=${inside#"$root"}/pythreads.py

"$UNWPROF" dump-unwind --summary --json "$root/usr/bin/$python" > "$tmp/python.json" ||
	fail "dump-unwind $root/usr/bin/$python failed"
check python-cold "$tmp/python.json" "$root/usr/bin/$python"
python3 -c 'import json, sys
py = json.load(open(sys.argv[1]))["python"]
sys.exit(py["offsets_source"] != "_Py_DebugOffsets")' "$tmp/python.json" ||
	fail "$python: offsets not read from _Py_DebugOffsets"

record py -F 999 --tid -o "$tmp/py.folded" --stats-json "$tmp/py.json" -- \
	chroot "$root" "$python" "$script" 3
expect_rc 0
check python "$tmp/py.folded" --comm "$python" --qualname --source "$programs_src/pythreads.py"
# The root's ld.so is stripped: its samples while it loads the interpreter have no
# root the check knows by name (a few, more on a busy machine).
check roots "$tmp/py.folded" --min-ratio 0.97

if command -v go > /dev/null; then
	record pprof -F 499 -o "$tmp/py.pb.gz" -- chroot "$root" "$python" "$script" 2
	expect_rc 0
	go tool pprof -lines -top "$tmp/py.pb.gz" > "$tmp/lines.txt" 2>&1 ||
		fail "go tool pprof -lines -top failed"
	read -r first last < <(python3 -c 'import ast, sys
f = next(n for n in ast.walk(ast.parse(open(sys.argv[1]).read()))
         if isinstance(n, ast.FunctionDef) and n.name == "burn")
print(f.body[0].lineno, f.end_lineno)' "$programs_src/pythreads.py")
	n=$(grep -Ec " burn /tmp/unwprof-py\.[^ ]+/pythreads\.py:($(seq -s '|' "$first" "$last"))$" \
		"$tmp/lines.txt")
	echo "pprof: burn at $n lines of pythreads.py:$first..$last" >&2
	[ "$n" -ge 1 ] || fail "go tool pprof -lines shows no burn with a line of its body"
	grep -E " burn " "$tmp/lines.txt" | grep -Ev "pythreads\.py:($(seq -s '|' "$first" "$last"))$" &&
		fail "go tool pprof -lines shows burn at a line outside its body"
else
	echo "go is not installed: the pprof check is skipped" >&2
fi

# Attached: a process started in the root, then recorded by pid.
chroot "$root" "$python" "$script" 12 > "$tmp/attached.out" 2>&1 &
pid=$!
background+=("$pid")
sleep 1
record attach -F 999 --tid -p "$pid" -d 3 -o "$tmp/attach.folded"
expect_rc 0
check python "$tmp/attach.folded" --comm "$python" --qualname

# The whole machine (-a) while it and a Ruby of the root run: its chains as before,
# and the Ruby process sampled too (its frames are ruby_frames.sh's to check).
# The attached one first ends: one process of these threads.
kill "$pid" 2> /dev/null
wait "$pid" 2> /dev/null
# (-a reads every process of the machine first: they run long enough for it, then end)
chroot "$root" "$python" "$script" 40 > "$tmp/all-py.out" 2>&1 &
background+=("$!")
ruby=
if [ -x "$root/usr/bin/ruby3.3" ]; then
	ruby=ruby3.3
	chroot "$root" ruby3.3 -e 't = Time.now; x = 0; x += 1 while Time.now - t < 40' \
		> "$tmp/all-rb.out" 2>&1 &
	background+=("$!")
fi
# started, its modules imported, before the run begins: its samples are of its chains
sleep 3
record all -F 999 --tid -a -d 4 -o "$tmp/all.folded"
expect_rc 0
# -a loads the tables of the machine's processes while it samples them: a busy
# machine's first samples of this one are walked with frame pointers, no Python
# frames. The chains, whole on their threads, are checked as before.
check python "$tmp/all.folded" --comm "$python" --qualname --min-python 0.3 --min-samples 100
if [ -n "$ruby" ]; then
	n=$(grep -c "^$ruby-" "$tmp/all.folded")
	echo "$ruby: $n stacks" >&2
	[ "$n" -ge 1 ] || fail "-a: no stack of the root's $ruby"
fi
finish
