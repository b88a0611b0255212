#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: php_frames.sh 8.2 | 8.4
#
# PHP frames in place: phchain.php run by Debian's php8.2 (stripped, the
# interpreter linked into /usr/bin/php8.2, a build without threads) or by
# Debian sid's php8.4 in the root of sid setup.sh builds, started there
# with chroot as in a container. Its chains run in pure PHP, two of them
# called back from C (usort, array_map). Checks (e2e.py php):
#  - at least 90% of the samples have PHP frames;
#  - at least 95% of each chain's samples have the whole chain, exactly, each
#    frame "NAME (FILE:LINE)" ("burn", "Sorter::cmp", "{closure}", "{main}");
#  - zend_call_function and execute_ex (C) stand between Sorter::run and
#    Sorter::cmp (usort's callback), and between mapper and its closure
#    (array_map's), in at least 95% of their samples;
#  - burn's line lies in its body in at least 95% of its samples;
#  - the native walk is as complete as without them (lib.sh's roots);
#  - excimer, PHP's sampling profiler, sampling the same run: the stacks of
#    95% of its samples are among unwprof's, their functions in the same
#    order, and the innermost functions' shares agree within 5 points
#    (e2e.py php-excimer);
#  - with opcache's JIT on (tracing, function): each chain whole in 95% of
#    its samples (e2e.py php-chains), walked to the root as often as
#    without it, the JIT's code one frame "[PHP JIT]";
#  - phevals.php's eval() and include: "{eval}" between via_eval and leaf,
#    "{include}" between via_include and leaf, each in at least 95% of its
#    samples (e2e.py php-chains);
#  - a process gone before the end has its function named (read when BPF
#    first saw it), none "<unknown>";
#  - attached with -p to one already running: the same chains;
#  - in pprof, the functions are functions with the file, each location's
#    line inside its function (go tool pprof -raw; skipped without go);
#  - 8.2: a php-fpm worker (php8.2-fpm, a pool of one worker) attached with
#    -p while it runs phchain.php for a request (cgi-fcgi, libfcgi-bin): the
#    same chains.
# In the root the program runs from a directory of its own under /tmp,
# removed at the end.
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

which=$1
src="$programs_src/phchain.php"
evals="$programs_src/phevals.php"
case "$which" in
8.2)
	php=/usr/bin/php8.2
	[ -x "$php" ] || e2e_skip "$php is not installed (package php8.2-cli; ./setup.sh installs it)"
	run=("$php")
	path=$src
	evals_path=$evals
	excimer=$tmp/excimer.txt
	excimer_out=$excimer
	elf=$php
	;;
8.4)
	need_sid_root usr/bin/php8.4
	root=$sid_root
	run=(chroot "$root" php8.4)
	inside=$(mktemp -d "$root/tmp/unwprof-ph.XXXXXX")
	trap 'rm -rf "$inside"; e2e_cleanup' EXIT
	cp "$src" "$evals" "$inside/"
	path=${inside#"$root"}/phchain.php
	evals_path=${inside#"$root"}/phevals.php
	excimer=$inside/excimer.txt
	excimer_out=${inside#"$root"}/excimer.txt
	elf=$root/usr/bin/php8.4
	;;
*)
	echo "usage: php_frames.sh 8.2 | 8.4" >&2
	exit 1
	;;
esac
comm=php$which

"$UNWPROF" dump-unwind --summary --json "$elf" > "$tmp/php.json" ||
	fail "dump-unwind $elf failed"
python3 -c 'import json, sys
ph = json.load(open(sys.argv[1]))["php"]
print("php:", ph["version"], "API", ph["api"], "execute_ex", ph["execute_ex"], file=sys.stderr)
sys.exit(not ph["version"].startswith(sys.argv[2] + "."))' "$tmp/php.json" "$which" ||
	fail "dump-unwind does not read $elf as PHP $which"

# Launched, with excimer sampling the same run from inside.
have_excimer=0
"${run[@]}" -r 'exit(class_exists("ExcimerProfiler") ? 0 : 1);' && have_excimer=1
args=("$path" 4)
[ "$have_excimer" = 1 ] && args+=("$excimer_out")
record ph -F 999 -o "$tmp/ph.folded" -- "${run[@]}" "${args[@]}"
# excimer can abort php as it ends (its timer thread locks a mutex its
# shutdown destroyed: "pthread_mutex_lock(): Invalid argument"), a race of
# its own: the run is made again once then.
if [ "$rc" -eq 134 ] && grep -q 'pthread_mutex_lock(): Invalid argument' "$tmp/ph.err"; then
	echo "php aborted in excimer's shutdown: recorded again" >&2
	record ph -F 999 -o "$tmp/ph.folded" -- "${run[@]}" "${args[@]}"
fi
expect_rc 0
check php "$tmp/ph.folded" --comm "$comm" --source "$src" --path "$path"
# The root's ld.so is stripped: its samples while it loads php have no root
# the check knows by name (a few, more on a busy machine).
check roots "$tmp/ph.folded" --min-ratio 0.97
if [ "$have_excimer" = 1 ]; then
	check php-excimer "$tmp/ph.folded" "$excimer" --comm "$comm" --source "$src" \
		--path "$path"
elif [ "${UNWPROF_REQUIRE_BPF:-0}" = 1 ]; then
	fail "excimer is not installed for php $which (package php-excimer)"
else
	echo "excimer is not installed for php $which: its check is skipped" >&2
fi

# opcache's JIT on, in both its modes: the code it compiled runs on
# execute_ex's frame, and walks as execute_ex's body does, to the root.
for jit in tracing function; do
	record "jit-$jit" -F 999 -o "$tmp/jit-$jit.folded" -- "${run[@]}" -d opcache.enable_cli=1 \
		-d opcache.jit=$jit -d opcache.jit_buffer_size=32M "$path" 3
	expect_rc 0
	check php-chains "$tmp/jit-$jit.folded" --comm "$comm" --chain "{main};c1;c2;burn" \
		--chain "{main};Sorter::run;Sorter::cmp;keyfn;burn" --chain "{main};mapper;{closure};burn"
	check roots "$tmp/jit-$jit.folded" --min-ratio 0.97
	if grep -qF "[zero (deleted)" "$tmp/jit-$jit.folded" ||
		! grep -qF ";[PHP JIT];" "$tmp/jit-$jit.folded"; then
		fail "the JIT's code is not one frame named [PHP JIT] ($jit)"
	fi
done

# The code an eval() and an include run, each a frame of its own.
record evals -F 999 -o "$tmp/evals.folded" -- "${run[@]}" "$evals_path" 3
expect_rc 0
check php-chains "$tmp/evals.folded" --comm "$comm" \
	--chain "{main};via_eval;{eval};leaf" --chain "{main};via_include;{include};leaf"

# A process that is gone before the end: its function named as BPF first
# saw it.
# shellcheck disable=SC2016 # PHP's $x and $i
record short -F 999 -o "$tmp/short.folded" -- "${run[@]}" -r \
	'function spin_named() { $x = 0; for ($i = 0; $i < 3000000; $i++) { $x += $i; } return $x; } spin_named();'
expect_rc 0
n=$(grep -cF ";spin_named (Command line code:1);" "$tmp/short.folded")
u=$(grep -c "<unknown>" "$tmp/short.folded")
echo "a process gone: $n stacks with spin_named (Command line code:1), $u with an unknown frame" >&2
if [ "$n" -eq 0 ] || [ "$u" -ne 0 ]; then
	fail "the frames of a process gone before the end are not named"
fi

# Attached: a process already running, recorded by pid.
"${run[@]}" "$path" 30 > /dev/null 2>&1 &
pid=$!
background+=("$pid")
sleep 1
record attach -p "$pid" -d 3 -F 999 -o "$tmp/attach.folded"
expect_rc 0
check php "$tmp/attach.folded" --comm "$comm" --source "$src" --path "$path"

if command -v go > /dev/null; then
	record pprof -p "$pid" -d 1 -F 999 -o "$tmp/ph.pb.gz"
	expect_rc 0
	check php-pprof "$tmp/ph.pb.gz" --source "$src" --path "$path"
else
	echo "go is not installed: the pprof check is skipped" >&2
fi
kill "$pid" 2> /dev/null

# A php-fpm worker, attached while it runs the script for a request.
fpm=/usr/sbin/php-fpm8.2
if [ "$which" = 8.2 ] && [ -x "$fpm" ] && command -v cgi-fcgi > /dev/null; then
	printf '[global]\nerror_log = %s\ndaemonize = no\n[work]\nlisten = %s\npm = static\npm.max_children = 1\n' \
		"$tmp/fpm.log" "$tmp/fpm.sock" > "$tmp/fpm.conf"
	"$fpm" -n -R -F -y "$tmp/fpm.conf" &
	master=$!
	background+=("$master")
	for _ in $(seq 50); do
		[ -S "$tmp/fpm.sock" ] && worker=$(pgrep -P "$master") && break
		sleep 0.1
	done
	[ -n "${worker:-}" ] || fail "php-fpm started no worker"
	SCRIPT_FILENAME=$src REQUEST_METHOD=GET QUERY_STRING='' \
		cgi-fcgi -bind -connect "$tmp/fpm.sock" > "$tmp/fpm.out" 2>&1 &
	background+=("$!")
	sleep 0.5
	record fpm -p "$worker" -d 2 -F 999 -o "$tmp/fpm.folded"
	expect_rc 0
	check php "$tmp/fpm.folded" --comm php-fpm8.2 --source "$src" --path "$src"
	kill "$master" 2> /dev/null
elif [ "$which" = 8.2 ] && [ "${UNWPROF_REQUIRE_BPF:-0}" = 1 ]; then
	fail "php-fpm8.2 or cgi-fcgi is not installed (packages php8.2-fpm, libfcgi-bin)"
elif [ "$which" = 8.2 ]; then
	echo "php-fpm8.2 or cgi-fcgi is not installed: the php-fpm check is skipped" >&2
fi
finish
