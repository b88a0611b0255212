#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: ruby_frames.sh 3.1 | 3.3 | yjit
#
# Ruby frames in place: rbthreads.rb run by Debian's ruby3.1 (a stripped
# libruby-3.1.so), by Debian sid's ruby3.3 (a stripped libruby-3.3.so
# that exports neither rb_vm_exec nor ruby_current_ec) in the root of sid
# setup.sh builds, started there with chroot as in a container, or by the
# same Ruby 3.3 built with YJIT (setup.sh builds it; Debian's has none), run
# with --yjit --yjit-perf=fp; recorded with --tid. Its three threads run known chains in pure Ruby
# (alpha_main;a1;a2;spin_alpha;burn, beta_main;b1;spin_beta;burn and
# through a 7-deep recursion), and the main thread calls a block from C
# (Array#sort_by). Checks (e2e.py ruby):
#  - at least 90% of the samples have Ruby frames;
#  - at least 95% of each chain's samples have the whole chain, exactly, each
#    frame "LABEL (FILE:LINE)", the C methods (sort_by, each) by their names,
#    read from Ruby's symbol table, which stripped libruby does not export;
#  - each chain is on one thread in at least 95% of its samples, and the
#    three on three threads: a thread shows its own execution context's
#    frames, not the main thread's;
#  - native frames (each's) stand between "each" and the block in at
#    least 95% of the block's samples;
#  - burn's line is one of its loop's in at least 95% of its samples;
#  - the native walk is as complete as without them (lib.sh's roots);
#  - what the walk reads of libruby (dump-unwind: rb_vm_exec, where
#    ruby_current_ec is in its TLS block, the GOT slot of its module id)
#    equals what readelf says, or for 3.3 what objdump shows of the code
#    of rb_iseq_eval, rb_iseq_eval_main and rb_thread_current;
#  - each thread's execution context, reached as the walk reaches it, read
#    by gdb, leads to the Thread the thread itself prints (e2e.py ruby-tls):
#    glibc's TLS (sid's too) is laid out as the walk expects;
#  - a forked child's Ruby frames are read as the parent's are.
# YJIT: 3.3's JIT code keeps a frame pointer only with --yjit-perf=fp (plain
# --yjit leaves rbp to the code: nothing finds the JIT code's caller). The
# walk goes through the JIT code by it, at least half of burn's samples
# have JIT code between the VM and burn's C callees, and the Ruby frames are
# the control frames' as without YJIT. Their lines are not checked: JIT code
# saves a frame's pc only before what may need it (a call, a side exit).
# 3.3 also, as a process in a container is met (e2e.py ruby on each):
#  - a process already running in the root, recorded with -p;
#  - the same while `record -a` profiles every process (a quarter of the
#    samples with Ruby frames: those before the process's tables are built
#    have none);
#  - its pprof has the chains' Ruby functions with the file and the line of
#    their def, each location's line inside its function (go tool pprof -raw).
# In the root the program runs from -e, so that nothing is written there:
# its frames' file is "-e", their lines the file's.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

which=$1
src="$programs_src/rbthreads.rb"
prog=("$src")
path=$src
comm=ruby$which
extra=()
case "$which" in
3.1)
	ruby=/usr/bin/ruby3.1
	[ -x "$ruby" ] || e2e_skip "$ruby is not installed (package ruby3.1; ./setup.sh installs it)"
	run=("$ruby")
	libruby=$(ldd "$ruby" | awk '/libruby/ { print $3 }')
	;;
3.3)
	need_sid_root usr/bin/ruby3.3
	run=(chroot "$sid_root" ruby3.3)
	libruby=$sid_root$(chroot "$sid_root" ldd /usr/bin/ruby3.3 | awk '/libruby/ { print $3 }')
	prog=(-e "$(cat "$src")")
	path=-e
	;;
yjit)
	ruby=${UNWPROF_RUBY_YJIT:-/var/cache/unwprof-tests/ruby-3.3-yjit}/bin/ruby
	[ -x "$ruby" ] || e2e_skip "$ruby is not there: Ruby 3.3 with YJIT was not built" \
		"(./setup.sh test builds it, or says why it could not)"
	"$ruby" --yjit -e 'exit RubyVM::YJIT.enabled?' || fail "$ruby --yjit runs without YJIT"
	run=("$ruby" --yjit --yjit-perf=fp)
	libruby=$(ldd "$ruby" | awk '/libruby/ { print $3 }')
	comm=ruby
	extra=(--min-line-ratio 0 --min-jit 0.5)
	;;
*)
	echo "usage: ruby_frames.sh 3.1 | 3.3 | yjit" >&2
	exit 1
	;;
esac
libruby=$(readlink -f "$libruby")
"$UNWPROF" dump-unwind --summary --json "$libruby" > "$tmp/libruby.json" || fails=$((fails + 1))
check ruby-runtime "$tmp/libruby.json" "$libruby"

# Each thread prints its Thread, then spins.
# shellcheck disable=SC2016 # Ruby's $stdout
"${run[@]}" -e 'def spin = loop { }
	puts Thread.current.inspect
	2.times { Thread.new { puts Thread.current.inspect; $stdout.flush; spin } }
	$stdout.flush
	spin' > "$tmp/threads.out" 2>&1 &
pid=$!
background+=("$pid")
for _ in $(seq 50); do
	[ "$(grep -c '#<Thread:' "$tmp/threads.out")" -ge 3 ] && break
	sleep 0.1
done
check ruby-tls "$tmp/libruby.json" "$libruby" --pid "$pid" --printed "$tmp/threads.out"
kill "$pid"

record rb -F 999 --tid -o "$tmp/rb.folded" --stats-json "$tmp/rb.json" -- \
	"${run[@]}" "${prog[@]}" 3
expect_rc 0
check ruby "$tmp/rb.folded" --comm "$comm" --source "$src" --path="$path" "${extra[@]}"
roots=()
if [ "$which" = 3.3 ]; then
	# sid's stripped ld.so names no _start: its first call, from its entry point, is a root
	ldso=$sid_root$(chroot "$sid_root" readlink -f /lib64/ld-linux-x86-64.so.2)
	entry=$(($(readelf -h "$ldso" | awk '/Entry point/ { print $4 }')))
	near=$(for i in $(seq 1 32); do printf '%x|' $((entry + i)); done)
	roots=(--comm "$comm" --root _start --root '[^;]+;__libc_start_main' --root '{THREAD}'
		--root "\[ld-linux-x86-64\.so\.2\+0x(${near%|})\]")
fi
check roots "$tmp/rb.folded" --min-ratio 0.99 "${roots[@]}"
# A forked child is a Ruby process of its own: its frames are read too.
record fork -F 999 --pid -o "$tmp/fork.folded" -- "${run[@]}" -e \
	'def spin_parent = 6_000_000.times { }
	def spin_child = 6_000_000.times { }
	pid = fork { spin_child }
	spin_parent
	Process.wait(pid)'
expect_rc 0
for fn in spin_parent spin_child; do
	n=$(grep -F "$fn (-e:" "$tmp/fork.folded" | awk '{ s += $NF } END { print s + 0 }')
	echo "$fn: $n samples" >&2
	[ "$n" -ge 20 ] || fail "$fn: $n samples with its Ruby frame, expected 20 or more"
done
[ "$which" != 3.3 ] && finish

# A process already running in the root (until the test ends): by -p, by -a,
# and its pprof.
"${run[@]}" "${prog[@]}" 120 > /dev/null 2>&1 &
pid=$!
background+=("$pid")
sleep 1
record attach -p "$pid" -d 2 -F 999 --tid -o "$tmp/attach.folded"
expect_rc 0
check ruby "$tmp/attach.folded" --comm "$comm" --source "$src" --path="$path"
# With -a, a process's samples before its tables are built are walked by frame
# pointers, without Ruby frames, and its tables wait behind those of larger
# processes (see tests/e2e/system.sh): a quarter of them need frames.
record all -a -d 5 -F 999 --tid -o "$tmp/all.folded"
expect_rc 0
check ruby "$tmp/all.folded" --comm "$comm" --source "$src" --path="$path" \
	--min-with-frames 0.25
need_tool go "golang-go, whose go tool pprof reads the profile"
record pprof -p "$pid" -d 1 -F 999 -o "$tmp/rb.pb.gz"
expect_rc 0
check ruby-pprof "$tmp/rb.pb.gz" --source "$src" --path="$path"
finish
