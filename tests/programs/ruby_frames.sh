#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Ruby frames in place: rbthreads.rb run by Debian's ruby3.1 (a stripped
# libruby-3.1.so), recorded with --tid. Its three threads run known chains
# in pure Ruby (alpha_main;a1;a2;spin_alpha;burn, beta_main;b1;spin_beta;burn
# and through a 7-deep recursion), and the main thread calls a block from C
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
#    equals what readelf says;
#  - a forked child's Ruby frames are read as the parent's are.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

ruby=/usr/bin/ruby3.1
[ -x "$ruby" ] || e2e_skip "$ruby is not installed (package ruby3.1; ./setup.sh installs it)"
libruby=$(ldd "$ruby" | awk '/libruby/ { print $3 }')
"$UNWPROF" dump-unwind --summary --json "$libruby" > "$tmp/libruby.json" || fails=$((fails + 1))
check ruby-runtime "$tmp/libruby.json" "$libruby"
record rb -F 999 --tid -o "$tmp/rb.folded" --stats-json "$tmp/rb.json" -- \
	"$ruby" "$programs_src/rbthreads.rb" 3
expect_rc 0
check ruby "$tmp/rb.folded" --comm "$(basename "$ruby")" --source "$programs_src/rbthreads.rb"
check roots "$tmp/rb.folded" --min-ratio 0.99
# A forked child is a Ruby process of its own: its frames are read too.
record fork -F 999 --pid -o "$tmp/fork.folded" -- "$ruby" -e \
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
finish
