#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: run.sh [OPTIONS] BUILD_DIR -- PROGRAM [ARGS...]
#        run.sh [OPTIONS] BUILD_DIR --script SCRIPT --out DIR [FILE...]
#
# Boots an emulated arm64 machine (qemu-system-aarch64 in software emulation,
# -M virt -cpu max,pauth-impdef=on -smp 2 -m 2G) on Debian's arm64 cloud
# kernel, from an initramfs holding busybox, glibc, the libraries unwprof
# links, and the unwprof, workloads and tests/arm64 programs of BUILD_DIR, a
# cross build for aarch64 (tests/arm64/aarch64.ini). There it runs
#  - `unwprof record -F 99 -d N -- PROGRAM ARGS...`, printing the folded
#    profile on stdout and record's summary on stderr, and exiting with
#    record's status. PROGRAM is an arm64 file of this machine, copied into
#    the guest with the libraries beside it that it links, or a command of
#    the guest (busybox's: sh, ls, ...; the interpreters of the arm64 root:
#    python3.11 and ruby3.1, with their standard libraries);
#  - or, with --script, SCRIPT, run by busybox sh with UNWPROF, WORKLOADS
#    (the workloads and tests/arm64 programs) and OUT set; the files it
#    writes into $OUT come back into DIR (with run.log, its output, and
#    run.rc, its status), and FILEs are copied into the guest's /files.
#    The exit status is the script's.
#
# Options:
#   -d N          seconds of the recording (default 3)
#   --file PATH   copied into the guest's /files (a script for PROGRAM to run)
#   --no-pauth    -cpu cortex-a72: no pointer authentication
#   --timeout S   seconds the guest may take, boot included (default 600)
#   -v            the guest's console on stderr while it runs
#
# The kernel and libraries are those `setup.sh arm64` unpacks into
# UNWPROF_ARM64_ROOT (default /var/cache/unwprof-tests/arm64); run.sh runs it
# when they are missing. The initramfs part that does not depend on
# BUILD_DIR is cached there. Exits 77 (the reason on stderr) when the machine
# cannot be made, 1 when it did not finish.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=${UNWPROF_ARM64_ROOT:-/var/cache/unwprof-tests/arm64}
duration=3
cpu=max,pauth-impdef=on
timeout=600
verbose=0
script=
out=
files=()

usage() {
	sed -n '3,4s/^# \{0,1\}//p' "$0" >&2
	exit 64
}

unavailable() {
	echo "run.sh: $*" >&2
	exit 77
}

while [ $# -gt 0 ]; do
	case $1 in
	-d) duration=$2; shift 2 ;;
	--file) files+=("$2"); shift 2 ;;
	--no-pauth) cpu=cortex-a72; shift ;;
	--timeout) timeout=$2; shift 2 ;;
	-v) verbose=1; shift ;;
	-*) usage ;;
	*) break ;;
	esac
done
[ $# -ge 2 ] || usage
build=$(cd "$1" && pwd)
shift
if [ "$1" = --script ]; then
	[ $# -ge 4 ] && [ "$3" = --out ] || usage
	script=$2
	out=$4
	shift 4
elif [ "$1" = -- ] && [ $# -ge 2 ]; then
	shift
else
	usage
fi
[ -x "$build/cmd/unwprof" ] || { echo "run.sh: no $build/cmd/unwprof" >&2; exit 1; }
file -b "$build/cmd/unwprof" | grep -q aarch64 ||
	{ echo "run.sh: $build is no cross build for aarch64 (tests/arm64/aarch64.ini)" >&2; exit 1; }

machine_ready() {
	[ -f "$root/Image" ] && [ -f "$root/.unwprof-packages" ] &&
		command -v qemu-system-aarch64 > /dev/null && command -v cpio > /dev/null
}

if ! machine_ready && [ "$(id -u)" -eq 0 ]; then
	UNWPROF_ARM64_ROOT=$root "$here/../../setup.sh" arm64 >&2 || true
fi
command -v qemu-system-aarch64 > /dev/null ||
	unavailable "qemu-system-aarch64 is not installed (Debian: qemu-system-arm; ./setup.sh arm64)"
command -v cpio > /dev/null || unavailable "cpio is not installed (./setup.sh arm64)"
[ -f "$root/Image" ] && [ -f "$root/.unwprof-packages" ] ||
	unavailable "no arm64 kernel and libraries in $root: ./setup.sh arm64 makes them" \
		"$(tail -n 3 "$root.tmp.log" 2> /dev/null | tr '\n' ' ')"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# An archive of the directory $1's contents, in the kernel's initramfs format.
make_cpio() {
	(cd "$1" && find . -mindepth 1 | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0)
}

# busybox, glibc and the libraries of the arm64 root: the same for every build.
base_cpio() {
	local cpio=$root/base.cpio dir=$tmp/base
	if [ -f "$cpio" ] && [ "$cpio" -nt "$root/.unwprof-packages" ] &&
		[ "$cpio" -nt "$here/run.sh" ]; then
		echo "$cpio"
		return
	fi
	mkdir -p "$dir"/{bin,proc,sys,dev,tmp,usr/bin,usr/lib/aarch64-linux-gnu}
	cp -a "$root/sysroot/bin/busybox" "$dir/bin/"
	cp -a "$root/sysroot/lib" "$dir/"
	find "$root/sysroot/usr/lib/aarch64-linux-gnu" -maxdepth 1 -name 'lib*.so*' \
		-exec cp -a {} "$dir/usr/lib/aarch64-linux-gnu/" \;
	# The interpreters, with their standard libraries (Ruby's extensions too).
	cp -a "$root/sysroot/usr/bin/." "$dir/usr/bin/"
	find "$root/sysroot/usr/lib" -maxdepth 1 \( -name 'python3*' -o -name ruby \) \
		-exec cp -a {} "$dir/usr/lib/" \;
	find "$root/sysroot/usr/lib/aarch64-linux-gnu" -maxdepth 1 -name ruby \
		-exec cp -a {} "$dir/usr/lib/aarch64-linux-gnu/" \;
	if ! make_cpio "$dir" > "$cpio.$$" 2> /dev/null || ! mv "$cpio.$$" "$cpio" 2> /dev/null; then
		rm -f "$cpio.$$"
		cpio=$tmp/base.cpio # the root is not writable: made for this run only
		make_cpio "$dir" > "$cpio"
	fi
	echo "$cpio"
}

# Quotes $1 for the guest's sh.
sh_quote() {
	printf "'%s'" "${1//\'/\'\\\'\'}"
}

# Copies program $1 into $2/prog with the libraries beside it that it links.
add_program() {
	local prog=$1 dir=$2/prog lib
	mkdir -p "$dir"
	cp "$prog" "$dir/"
	for lib in $(readelf -d "$prog" 2> /dev/null | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		[ -f "$(dirname "$prog")/$lib" ] && cp "$(dirname "$prog")/$lib" "$dir/"
	done
	return 0
}

# The script of a single recording of PROGRAM ARGS...
record_script() {
	local prog=$1 arg
	shift
	if [ -f "$prog" ]; then
		add_program "$prog" "$tmp/run"
		prog=/prog/$(basename "$prog")
		echo 'export LD_LIBRARY_PATH=/prog'
	fi
	printf '"$UNWPROF" record -F 99 -d %s --' "$(sh_quote "$duration")"
	for arg in "$prog" "$@"; do
		printf ' %s' "$(sh_quote "$arg")"
	done
	echo ' > "$OUT/stdout" 2> "$OUT/stderr"'
}

# The part of this run: /init, /run.sh, unwprof, the workloads, the files.
mkdir -p "$tmp/run/unwprof/workloads" "$tmp/run/files"
cp "$here/init.sh" "$tmp/run/init"
cp "$build/cmd/unwprof" "$tmp/run/unwprof/"
find "$build/tests/workloads" "$build/tests/arm64" -maxdepth 1 -type f -perm -u+x \
	-exec cp {} "$tmp/run/unwprof/workloads/" \;
{
	echo 'export UNWPROF=/unwprof/unwprof WORKLOADS=/unwprof/workloads'
	if [ -n "$script" ]; then
		cat "$script"
	else
		record_script "$@"
	fi
} > "$tmp/run/run.sh"
[ -n "$script" ] && files+=("$@")
for f in "${files[@]}"; do
	cp -r "$f" "$tmp/run/files/"
done
cat "$(base_cpio)" > "$tmp/initrd.cpio"
make_cpio "$tmp/run" >> "$tmp/initrd.cpio"

# The guest's console, through the file, shown as it comes with -v.
console=$tmp/console.log
: > "$console"
if [ "$verbose" = 1 ]; then
	tail -f "$console" >&2 &
	tail_pid=$!
fi
start=$(date +%s)
status=0
timeout "$timeout" qemu-system-aarch64 -M virt -cpu "$cpu" -smp 2 -m 2G \
	-display none -monitor none -serial "file:$console" -nic none -no-reboot \
	-kernel "$root/Image" -initrd "$tmp/initrd.cpio" \
	-append "console=ttyAMA0 rdinit=/init quiet loglevel=1 panic=-1" < /dev/null || status=$?
[ "$verbose" = 1 ] && kill "$tail_pid"
echo "run.sh: the guest ran $(($(date +%s) - start)) s" \
	"($(sed -n 's/^@@unwprof-guest //p' "$console" | tr -d '\r'))" >&2

mkdir -p "$tmp/out"
python3 - "$console" "$tmp/out" << 'EOF'
import base64, re, sys
name, lines = None, []
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\r\n")
    if line.startswith("@@unwprof-file "):
        name, lines = line[15:], []
    elif line == "@@unwprof-end" and name:
        with open(f"{sys.argv[2]}/{name}", "wb") as f:
            f.write(base64.b64decode("".join(lines)))
        name = None
    elif name and re.fullmatch(r"[A-Za-z0-9+/=]+", line):
        lines.append(line)
EOF
if ! grep -q '^@@unwprof-done' "$console"; then
	echo "run.sh: the guest did not finish (qemu exited $status); the end of its console:" >&2
	grep -v '^[A-Za-z0-9+/=]*.$' "$console" | tail -n 30 >&2
	exit 1
fi
if [ -n "$script" ]; then
	mkdir -p "$out"
	cp -r "$tmp/out/." "$out/"
	exit "$(cat "$tmp/out/run.rc")"
fi
cat "$tmp/out/stdout"
cat "$tmp/out/stderr" >&2
if [ -s "$tmp/out/run.log" ]; then
	cat "$tmp/out/run.log" >&2
fi
exit "$(cat "$tmp/out/run.rc")"
