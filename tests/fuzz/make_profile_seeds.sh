#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Writes the seeds of the profile readers' corpora: corpus-pprof/ gets the
# pprof files unwprof writes from the folded fixtures of tests/report (gzip
# and raw), the unit test's profile (pprof_writer), a Go runtime/pprof
# profile when go is installed, and cut and corrupted variants of them;
# corpus-folded/ gets the fixtures, the same stacks with pid and tid
# dropped, gzip-compressed, and files of odd lines. Inputs found by fuzzing
# (found-*, crash-*) are kept.
#
# usage: tests/fuzz/make_profile_seeds.sh BUILD   (a configured build dir)
set -eu

build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
fixtures=$here/../report/fixtures
pp=$here/corpus-pprof
fo=$here/corpus-folded
unwprof=$build/cmd/unwprof
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$pp" "$fo"

# cut FILE BYTES OUT: the first BYTES bytes of FILE
cut_to() {
	head -c "$2" "$1" >"$3"
}

# flip FILE OFFSET OUT: FILE with the byte at OFFSET inverted
flip() {
	python3 -c 'import sys
b = bytearray(open(sys.argv[1], "rb").read())
b[int(sys.argv[2]) % len(b)] ^= 0xff
open(sys.argv[3], "wb").write(b)' "$1" "$2" "$3"
}

for f in "$fixtures"/*.folded; do
	name=$(basename "$f" .folded)
	"$unwprof" report -i "$f" -o "$pp/$name.pb.gz"
	gzip -dc "$pp/$name.pb.gz" >"$pp/$name.pb"
done
"$build/tests/report/pprof_writer" --write "$pp/unit.pb.gz"
gzip -dc "$pp/unit.pb.gz" >"$pp/unit.pb"

if command -v go >/dev/null; then
	export HOME="$tmp" GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GOFLAGS=-mod=mod \
		GOPROXY=off GOTOOLCHAIN=local CGO_ENABLED=0
	go build -o "$tmp/cpuprof" "$here/../report/cpuprof.go"
	"$tmp/cpuprof" "$pp/go.pb.gz"
	gzip -dc "$pp/go.pb.gz" >"$pp/go.pb"
fi

for name in stacks unit; do
	size=$(wc -c <"$pp/$name.pb")
	cut_to "$pp/$name.pb.gz" 30 "$pp/$name-cut30.pb.gz"
	cut_to "$pp/$name.pb.gz" $(($(wc -c <"$pp/$name.pb.gz") - 4)) "$pp/$name-no-size.pb.gz"
	cut_to "$pp/$name.pb" $((size / 2)) "$pp/$name-half.pb"
	cut_to "$pp/$name.pb" $((size - 1)) "$pp/$name-minus1.pb"
	flip "$pp/$name.pb" 7 "$pp/$name-flip7.pb"
	flip "$pp/$name.pb" $((size / 3)) "$pp/$name-flip-third.pb"
	flip "$pp/$name.pb.gz" 20 "$pp/$name-flip20.pb.gz"
done
cat "$pp/stacks.pb.gz" "$pp/unit.pb.gz" >"$pp/two-members.pb.gz"
printf '\037\213' >"$pp/gzip-magic-only"
printf '\n\0' >"$pp/empty-string-table.pb"

cp "$fixtures"/*.folded "$fo/"
sed 's/-[0-9]*\/[0-9]*;/;/' "$fixtures/stacks.folded" >"$fo/no-pid.folded"
sed 's/\/[0-9]*;/;/' "$fixtures/stacks.folded" >"$fo/pid-only.folded"
gzip -9n <"$fixtures/stacks.folded" >"$fo/stacks.folded.gz"
printf 'a;b 1\r\n\r\n  \t\na;b;c_[k] 2\r\nx-1/2;y_[k];z 3\n' >"$fo/crlf-kernel.folded"
printf 'comm-1;f 18446744073709551615\ncomm-1;f 1\nmain 0\n;; 4\n' >"$fo/big-counts.folded"
printf 'p-12345678901/1;f 1\np-1/99999999999;g 2\n-1;h 3\nverylongcommandname-7;k 4\n' \
	>"$fo/odd-pids.folded"
printf 'a;b 1\nnot a stack\n' >"$fo/no-count.folded"
printf 'a;b\t5\t\na;b 12345678901234567890\n' >"$fo/tabs-overflow.folded"
printf 'x;a_[k];b_[k] 1\nx;a_[k];b 2\nx;_[k] 3\nx;[k] 4\n' >"$fo/kernel-runs.folded"
printf 'a 1' >"$fo/no-newline.folded"
