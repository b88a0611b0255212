#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: containers.sh node | python | ruby
#
# Runtimes as a container runs them: pid 1 of a pid namespace of their own,
# in a root of their own (in_container.sh: unshare --pid --fork --mount-proc,
# chroot into the root of Debian sid that setup.sh builds; node from the
# host, in a root of the test's with the host's /usr, when sid has none),
# launched, then
# attached with -p. What they write for perf is in their root, under their
# pid there (ROOT/tmp/perf-1.map), which is neither unwprof's /tmp nor
# their pid here:
#  node    --perf-basic-prof, a JavaScript loop: at most 1% of the main
#          thread's samples have an unnamed JIT frame ([anon+0x...]), and
#          most have a frame named, from its map or, a JavaScript function's,
#          by V8's own metadata (the V8 runtime);
#  python  CPython 3.14 with -X perf, which puts a trampoline named in its
#          map below each Python call, running pythreads.py: the same of
#          its trampolines, and its Python frames as outside
#          (python_sid.sh's checks: each chain whole in 95% of its samples,
#          on a thread of its own);
#  ruby    Ruby 3.3 running rbthreads.rb: its Ruby frames as outside
#          (ruby_frames.sh's checks, 95%).
# Skipped (a failure under UNWPROF_REQUIRE_BPF=1) without the runtime.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

which=$1
need_tool unshare "util-linux"
case "$which" in
node)
	sid_root=${UNWPROF_SID_ROOT:-/var/cache/unwprof-tests/sid}
	if [ -x "$sid_root/usr/bin/node" ]; then
		root=$sid_root
	else
		need_tool node "nodejs"
		root=$tmp/croot
		container_root "$root"
	fi
	# node 22 on names its main thread, and so its process, MainThread
	comm=$("$in_container" "$root" node -p \
		'require("fs").readFileSync("/proc/self/comm", "utf8").trim()')
	[ -n "$comm" ] || fail "node does not run in the root"
	inside=$(mktemp -d "$root/tmp/unwprof-node.XXXXXX")
	cat > "$inside/app.js" << 'EOF'
// Work that V8 compiles: a recursion and a loop, for the seconds given.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function work(s) { let x = 0; for (let i = 0; i < s.length; i++) x = (x * 31 + s.charCodeAt(i)) | 0; return x; }
const end = Date.now() + 1000 * Number(process.argv[2] || 3);
let sink = 0;
while (Date.now() < end) { sink += fib(22); sink += work("unwprof" + sink); }
console.log(sink > 0 ? "done" : "none");
EOF
	prog=(node --perf-basic-prof "${inside#"$root"}/app.js")
	;;
python)
	need_sid_root usr/bin/python3.14
	root=$sid_root
	comm=python3.14
	inside=$(mktemp -d "$root/tmp/unwprof-py.XXXXXX")
	cp "$programs_src/pythreads.py" "$inside/"
	prog=(python3.14 -X perf "${inside#"$root"}/pythreads.py")
	;;
ruby)
	need_sid_root usr/bin/ruby3.3
	root=$sid_root
	comm=ruby3.3
	inside=$(mktemp -d "$root/tmp/unwprof-rb.XXXXXX")
	cp "$programs_src/rbthreads.rb" "$inside/"
	prog=(ruby3.3 "${inside#"$root"}/rbthreads.rb")
	;;
*)
	echo "usage: containers.sh node | python | ruby" >&2
	exit 1
	;;
esac
# pid 1 of a pid namespace, chrooted (unshare --pid --fork --mount-proc chroot ROOT)
run=("$in_container" "$root")
map=$root/tmp/perf-1.map
trap 'rm -rf "$inside" "$map"; e2e_cleanup' EXIT
rm -f "$map"

# The checks of a profile of the runtime, named NAME.
check_runtime() {
	local name=$1

	case "$which" in
	node)
		check jit-unnamed "$tmp/$name.folded" "$map" --comm "$comm" --max-ratio 0.01 \
			--min-named 300 --named-re '(fib|work) \(.*/app\.js:[0-9]+\)(_\[i\])?'
		;;
	python)
		check python "$tmp/$name.folded" --comm "$comm" --qualname \
			--source "$programs_src/pythreads.py"
		check jit-unnamed "$tmp/$name.folded" "$map" --comm "$comm" --max-ratio 0.01 \
			--min-named 100
		;;
	ruby)
		check ruby "$tmp/$name.folded" --comm "$comm" --source "$programs_src/rbthreads.rb" \
			--path "${inside#"$root"}/rbthreads.rb"
		;;
	esac
}

record launched -F 999 --tid -o "$tmp/launched.folded" -- "${run[@]}" "${prog[@]}" 4
expect_rc 0
[ "$which" = ruby ] || [ -s "$map" ] || fail "$comm wrote no /tmp/perf-1.map in its root"
check_runtime launched

# Attached: started the same way, recorded by pid once its code runs.
rm -f "$map"
"${run[@]}" "${prog[@]}" 20 > "$tmp/attached.out" 2>&1 &
background+=("$!")
sleep 3
pid=$(container_pid "$comm") || fail "no process $comm is pid 1 of a pid namespace"
record attached -F 999 --tid -p "$pid" -d 3 -o "$tmp/attached.folded"
expect_rc 0
check_runtime attached
finish
