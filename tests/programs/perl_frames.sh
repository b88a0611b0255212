#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: perl_frames.sh 5.36 | 5.42
#
# Perl frames in place: plthreads.pl run by Debian's perl 5.36 (stripped,
# the interpreter linked into /usr/bin/perl, a threaded build) or by Debian
# sid's perl 5.42 in the root of sid setup.sh builds, started there with
# chroot as in a container; recorded with --tid. Its three threads (each an
# interpreter of its own) run known chains in pure Perl, and the main
# thread's sort calls its BLOCK back from C (pp_sort). Checks (e2e.py perl):
#  - at least 90% of the samples have Perl frames;
#  - at least 95% of each chain's samples have the whole chain, exactly, each
#    frame "NAME (FILE:LINE)" ("main::burn", "(sort)", "main::RUNTIME"),
#    each chain on a thread of its own: a thread shows its own
#    interpreter's frames;
#  - the run loop's native frames (Perl_pp_sort among them where it is
#    named) stand between sorter and the sort BLOCK in at least 95% of the
#    BLOCK's samples;
#  - burn's line lies in its body in at least 95% of its samples;
#  - the native walk is as complete as without them (lib.sh's roots);
#  - plcatch.pl's eval {} in a sort BLOCK, which runs what it calls in a run
#    loop of its own (Perl's docatch): its frames in their three
#    activations, one run loop before each (e2e.py perl-catch);
#  - plevals.pl's string eval, map and grep BLOCKs and require: "(eval)"
#    (its file "(eval N)") between via_eval and leaf, "(map)" and "(grep)"
#    at their sub's line between it and the sub the BLOCK calls, "(require)"
#    (in the file required) under via_require, each in at least 95% of its
#    samples (e2e.py perl-evals);
#  - 5.36: a program that embeds Perl (plembed.c, linked with libperl.so, whose
#    PL_current_context is in its TLS block): its chain whole in at least
#    95% of its samples (e2e.py perl-chain);
#  - a process gone before the end has its sub named (read when BPF first
#    saw it), none "<unknown>";
#  - attached with -p to one already running: the same chains;
#  - in pprof, the subs are functions with the file, each location's line
#    inside its sub (go tool pprof -raw; skipped without go);
#  - the subs' exclusive shares of time agree with Devel::NYTProf's, run on
#    the same program in the same test, within 5 points (e2e.py perl-shares).
# In the root the program runs from a directory of its own under /tmp,
# removed at the end.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

which=$1
src="$programs_src/plthreads.pl"
shares="$programs_src/plshares.pl"
catch="$programs_src/plcatch.pl"
evals="$programs_src/plevals.pl"
case "$which" in
5.36)
	perl=/usr/bin/perl
	[ -x "$perl" ] || e2e_skip "$perl is not installed (package perl; ./setup.sh installs it)"
	run=("$perl")
	path=$src
	shares_path=$shares
	catch_path=$catch
	evals_path=$evals
	elf=$perl
	;;
5.42)
	need_sid_root usr/bin/perl
	root=$sid_root
	run=(chroot "$root" perl)
	inside=$(mktemp -d "$root/tmp/unwprof-pl.XXXXXX")
	trap 'rm -rf "$inside"; e2e_cleanup' EXIT
	cp "$src" "$shares" "$catch" "$evals" "$inside/"
	path=${inside#"$root"}/plthreads.pl
	shares_path=${inside#"$root"}/plshares.pl
	catch_path=${inside#"$root"}/plcatch.pl
	evals_path=${inside#"$root"}/plevals.pl
	elf=$root/usr/bin/perl
	;;
*)
	echo "usage: perl_frames.sh 5.36 | 5.42" >&2
	exit 1
	;;
esac
"${run[@]}" -e 'use threads; exit 0' ||
	e2e_skip "this perl has no threads module (package libperl5.${which#5.}, a dependency of perl)"

"$UNWPROF" dump-unwind --summary --json "$elf" > "$tmp/perl.json" ||
	fail "dump-unwind $elf failed"
python3 -c 'import json, sys
pl = json.load(open(sys.argv[1]))["perl"]
print("perl:", pl["version"], "run loop", pl["runops"], "PL_current_context", pl["tls"], file=sys.stderr)
sys.exit(not pl["version"].startswith(sys.argv[2] + "."))' "$tmp/perl.json" "$which" ||
	fail "dump-unwind does not read $elf as Perl $which"

record pl -F 999 --tid -o "$tmp/pl.folded" --stats-json "$tmp/pl.json" -- \
	"${run[@]}" "$path" 3
expect_rc 0
check perl "$tmp/pl.folded" --comm perl --source "$src" --path "$path"
# The root's ld.so is stripped: its samples while it loads perl have no root
# the check knows by name (a few, more on a busy machine).
check roots "$tmp/pl.folded" --min-ratio 0.97

# An eval {} in the sort BLOCK: a third activation of the run loop (docatch).
record catch -F 999 -o "$tmp/catch.folded" -- "${run[@]}" "$catch_path" 2
expect_rc 0
check perl-catch "$tmp/catch.folded" --comm perl

# A string eval, map and grep BLOCKs and a require, each a frame of its own.
record evals -F 999 -o "$tmp/evals.folded" -- "${run[@]}" "$evals_path" 3
expect_rc 0
check perl-evals "$tmp/evals.folded" --comm perl

# A program that embeds Perl through libperl.so (5.36 only: it is built
# against the host's perl): PL_current_context in libperl's TLS block.
if [ "$which" = 5.36 ]; then
	if [ -x "$PROGRAMS/plembed" ]; then
		libperl=$(readlink -f "$(ldd "$PROGRAMS/plembed" | awk '/libperl/ { print $3 }')")
		"$UNWPROF" dump-unwind --summary --json "$libperl" > "$tmp/libperl.json" ||
			fail "dump-unwind $libperl failed"
		python3 -c 'import json, sys
sys.exit(json.load(open(sys.argv[1]))["perl"]["tls"] != "module")' "$tmp/libperl.json" ||
			fail "$libperl: PL_current_context not read as its TLS block's"
		# shellcheck disable=SC2016 # Perl's $x and $_
		record embed -F 999 -o "$tmp/embed.folded" -- "$PROGRAMS/plembed" -e \
			'sub burn { my $x = 0; $x = ($x * 31 + $_) % 1000003 for 1 .. 3000; $x }
			sub c2 { burn() } sub c1 { c2() }
			sub sorter { my @s = sort { c1() <=> c1() } 1 .. 16; scalar @s }
			my $end = time + 2; sorter() while time < $end;'
		expect_rc 0
		check perl-chain "$tmp/embed.folded" --comm plembed --chain \
			"RUNTIME;sorter;(sort);c1;c2;burn"
	elif [ "${UNWPROF_REQUIRE_BPF:-0}" = 1 ]; then
		fail "plembed was not built: perl's headers (libperl5.36) were not found"
	fi
fi

# A process that is gone before the end: its sub (a CV with a name and no GV,
# as perl makes a sub no glob refers to) named as BPF first saw it.
# shellcheck disable=SC2016 # Perl's $x and $_
record short -F 999 -o "$tmp/short.folded" -- "${run[@]}" -e \
	'sub spin_named { my $x = 0; $x += $_ for 1 .. 3_000_000; $x } spin_named()'
expect_rc 0
n=$(grep -cF ";main::spin_named (-e:1);" "$tmp/short.folded")
u=$(grep -c "<unknown>" "$tmp/short.folded")
echo "a process gone: $n stacks with main::spin_named (-e:1), $u with an unknown frame" >&2
if [ "$n" -eq 0 ] || [ "$u" -ne 0 ]; then
	fail "the frames of a process gone before the end are not named"
fi

# Attached: a process already running, recorded by pid.
"${run[@]}" "$path" 30 > /dev/null 2>&1 &
pid=$!
background+=("$pid")
sleep 1
record attach -p "$pid" -d 3 -F 999 --tid -o "$tmp/attach.folded"
expect_rc 0
check perl "$tmp/attach.folded" --comm perl --source "$src" --path "$path"

if command -v go > /dev/null; then
	record pprof -p "$pid" -d 1 -F 999 -o "$tmp/pl.pb.gz"
	expect_rc 0
	check perl-pprof "$tmp/pl.pb.gz" --source "$src" --path "$path"
else
	echo "go is not installed: the pprof check is skipped" >&2
fi
kill "$pid" 2> /dev/null

# Devel::NYTProf, the Perl profiler, on plshares.pl in the same run: its
# subs' exclusive times (its sub profiler only, whose cost per call is
# small against the milliseconds of each call) against unwprof's samples.
# Its clock is the process's CPU time (clock=2, CLOCK_PROCESS_CPUTIME_ID),
# as unwprof's cpu-clock samples are: its default, the monotonic clock,
# charges a sub for the time the machine ran other work.
if ! "${run[@]}" -MDevel::NYTProf::Data -e 1 2> /dev/null; then
	[ "$fails" -ne 0 ] && finish
	e2e_skip "Devel::NYTProf is not installed for perl $which (package libdevel-nytprof-perl)"
fi
record shares -F 999 -o "$tmp/shares.folded" -- "${run[@]}" "$shares_path" 3
expect_rc 0
out=$tmp/nytprof.out
[ "$which" = 5.42 ] && out=${inside#"$root"}/nytprof.out
NYTPROF="stmts=0:clock=2:file=$out" "${run[@]}" -d:NYTProf "$shares_path" 3 ||
	fail "perl -d:NYTProf $shares_path failed"
# shellcheck disable=SC2016 # Perl's $p, $_ and @ARGV
"${run[@]}" -MDevel::NYTProf::Data -e '
	my $p = Devel::NYTProf::Data->new({ filename => $ARGV[0], quiet => 1 });
	printf "%s %.6f\n", $_->subname, $_->excl_time for values %{ $p->subname_subinfo_map };
	' "$out" > "$tmp/nytprof.txt" || fail "reading $out failed"
check perl-shares "$tmp/shares.folded" "$tmp/nytprof.txt" --comm perl --subs heavy medium light
finish
