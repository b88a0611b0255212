#!/usr/bin/env bash
# Sets up a Debian 12 machine for unwprof, builds it, and runs it.
#
#   ./setup.sh demo    install what is missing, build, profile the bundled demo workload
#   ./setup.sh test    install what is missing, build, run the whole test suite
#   ./setup.sh build   install what is missing and build
#   ./setup.sh arm64   install what the emulated arm64 machine of tests/arm64 needs
#
# Environment: BUILD_DIR (default: build), MESON_ARGS (extra `meson setup` arguments,
# e.g. "-Dwerror=true" or "-Db_sanitize=address,undefined"), PYENV_VERSIONS (CPython
# versions to build with pyenv, with a shared libpython and debug info, for the tests
# of tests/oracle/python_runtime.py; .ci/run sets it), UNWPROF_SID_ROOT (where the root
# of Debian sid's newer interpreters is built for the tests, default
# /var/cache/unwprof-tests/sid; the DWARF of its CPythons is kept in the same path
# with -dwarf appended), UNWPROF_ARM64_ROOT (where Debian's arm64 kernel and libraries
# are unpacked for tests/arm64, default /var/cache/unwprof-tests/arm64),
# UNWPROF_RUBY_YJIT (where Ruby 3.3 with YJIT is built for the tests, default
# /var/cache/unwprof-tests/ruby-3.3-yjit), UNWPROF_MUSL_CFI (where Debian's musl is
# built with unwind tables for the tests, default /var/cache/unwprof-tests/musl-cfi),
# UNWPROF_MUSL_PYTHON (where Debian's CPython 3.11 is built with musl-gcc for the
# tests, default /var/cache/unwprof-tests/musl-python3.11).
# The test run ends with a line "N passed, N failed, N skipped".
set -euo pipefail

cd "$(dirname "$0")"
BUILD_DIR=${BUILD_DIR:-build}
MESON_ARGS=${MESON_ARGS:-}

# Build and test dependencies, as Debian 12 package names.
PACKAGES=(
	gcc g++ make pkg-config meson ninja-build
	clang llvm clang-format libclang-rt-14-dev bpftool
	libbpf-dev libelf-dev libdwarf-dev zlib1g-dev libc6-dev
	binutils python3 gdb
	libprotobuf-c-dev protobuf-c-compiler golang-go
	scdoc bash-completion zsh fish chromium valgrind
	lld mold linux-perf python3.11 ruby3.1 perl libdevel-nytprof-perl xz-utils bpftrace
	php8.2-cli php8.2-dev php-excimer php8.2-fpm libfcgi-bin
	stress-ng
	openjdk-17-jdk-headless sqlite3 libdebuginfod-dev debuginfod strace
	musl musl-dev musl-tools
)
# The program tests (tests/programs) build Rust with the rustc on PATH or
# rustup's; without either, Debian's.
if ! command -v rustc >/dev/null && [ ! -x "${HOME:-/root}/.cargo/bin/rustc" ]; then
	PACKAGES+=(rustc)
fi

install_missing() {
	local missing=()
	for p in "${PACKAGES[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" ||
			missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup.sh: missing packages: ${missing[*]}; run as root to install them" >&2
		exit 1
	fi
	echo "setup.sh: installing ${missing[*]}" >&2
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >&2
}

# What pyenv needs to build CPython (python-build refuses a build without ssl).
PYENV_PACKAGES=(git libssl-dev libffi-dev libbz2-dev libreadline-dev libsqlite3-dev
	liblzma-dev libncurses-dev uuid-dev)

# Builds the CPython versions of PYENV_VERSIONS that pyenv does not have yet (minutes each).
install_pythons() {
	[ -n "${PYENV_VERSIONS:-}" ] || return 0
	export PYENV_ROOT=${PYENV_ROOT:-${HOME:-/root}/.pyenv}
	local v missing=0
	for v in $PYENV_VERSIONS; do
		[ -d "$PYENV_ROOT/versions/$v" ] || missing=1
	done
	[ "$missing" = 1 ] || return 0
	local -a PACKAGES=("${PYENV_PACKAGES[@]}") # install_missing reads it
	install_missing
	if [ ! -x "$PYENV_ROOT/bin/pyenv" ]; then
		echo "setup.sh: installing pyenv into $PYENV_ROOT" >&2
		git clone -q --depth 1 https://github.com/pyenv/pyenv.git "$PYENV_ROOT" >&2
	fi
	for v in $PYENV_VERSIONS; do
		[ -d "$PYENV_ROOT/versions/$v" ] && continue
		echo "setup.sh: building CPython $v with pyenv" >&2
		PYTHON_CONFIGURE_OPTS=--enable-shared "$PYENV_ROOT/bin/pyenv" install -s "$v" >&2
	done
}

# Newer interpreters than bookworm's (CPython 3.14 and 3.15, Ruby 3.3, Perl 5.42 with
# NYTProf, PHP 8.4 with excimer, node 24) need sid's glibc, so they live in a root of
# their own, as they would in a container: built once with
# debootstrap from the machine's own Debian mirror and reused while it holds
# SID_PACKAGES. Tests that need it skip with the reason when it could not be built (or
# fail in CI), so a failure here is reported, not fatal.
SID_ROOT=${UNWPROF_SID_ROOT:-/var/cache/unwprof-tests/sid}
SID_PACKAGES=python3.14,python3.15,ruby3.3,nodejs,php8.4-cli,php8.4-excimer,libdevel-nytprof-perl

apt_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -r "$f" ] || continue
		sed -nE -e 's|^URIs:[[:space:]]*(http[^[:space:]]*debian)/?([[:space:]].*)?$|\1|p' \
			-e 's|^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?(http[^[:space:]]*/debian)/?[[:space:]].*|\2|p' "$f"
	done | grep -v -- '-security' | head -n 1
}

install_sid_root() {
	local stamp="$SID_ROOT/.unwprof-packages" mirror
	[ "$(cat "$stamp" 2>/dev/null)" = "$SID_PACKAGES" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup.sh: not building the sid root $SID_ROOT: needs root" >&2
		return 0
	fi
	local -a PACKAGES=(debootstrap) # install_missing reads it
	install_missing
	mirror=$(apt_mirror)
	if [ -z "$mirror" ]; then
		echo "setup.sh: not building the sid root: no Debian mirror in /etc/apt/sources*" >&2
		return 0
	fi
	echo "setup.sh: building a sid root with $SID_PACKAGES in $SID_ROOT (from $mirror)" >&2
	rm -rf "$SID_ROOT.tmp"
	mkdir -p "$(dirname "$SID_ROOT")"
	if ! debootstrap --variant=minbase --include="$SID_PACKAGES" sid "$SID_ROOT.tmp" "$mirror" \
		> "$SID_ROOT.log" 2>&1; then
		echo "setup.sh: debootstrap failed (the sid root's tests will say so); its log:" \
			"$SID_ROOT.log" >&2
		tail -n 5 "$SID_ROOT.log" >&2
		rm -rf "$SID_ROOT.tmp"
		return 0
	fi
	echo "$SID_PACKAGES" > "$SID_ROOT.tmp/.unwprof-packages"
	rm -rf "$SID_ROOT"
	mv "$SID_ROOT.tmp" "$SID_ROOT"
}

# The DWARF of sid's python3.14 and python3.15, which their -dbg packages hold under the
# build ID: the reference of tests/oracle/python_runtime.py. Only those two files are
# kept, next to the root and not in it, so that the interpreters there stay as stripped
# as their users have them. Fetched with this machine's apt from a list of sid alone.
SID_DWARF=$SID_ROOT-dwarf
SID_DWARF_PYTHONS="3.14 3.15"

install_sid_dwarf() {
	local stamp="$SID_DWARF/.unwprof-pythons" mirror work v id apt
	[ "$(cat "$stamp" 2>/dev/null)" = "$SID_DWARF_PYTHONS" ] && return 0
	[ -x "$SID_ROOT/usr/bin/python3.14" ] && [ "$(id -u)" -eq 0 ] || return 0
	mirror=$(apt_mirror)
	[ -n "$mirror" ] || return 0
	echo "setup.sh: fetching the DWARF of sid's python $SID_DWARF_PYTHONS into $SID_DWARF" >&2
	work=$SID_DWARF.tmp
	rm -rf "$work"
	mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
	echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror sid main" \
		> "$work/sources.list"
	apt=(apt-get -q -o "Dir::Etc::sourcelist=$work/sources.list" -o Dir::Etc::sourceparts=-
		-o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
		-o Acquire::Check-Valid-Until=false -o APT::Architectures::=amd64)
	if ! "${apt[@]}" update > "$work/apt.log" 2>&1; then
		echo "setup.sh: apt-get update of sid failed: no DWARF of its CPythons; see" \
			"$work/apt.log" >&2
		return 0
	fi
	for v in $SID_DWARF_PYTHONS; do
		id=$(readelf -n "$SID_ROOT/usr/bin/python$v" | sed -n 's/.*Build ID: //p')
		if ! (cd "$work/debs" && "${apt[@]}" download "python$v-dbg" >> "$work/apt.log" 2>&1) ||
			! dpkg-deb --fsys-tarfile "$work"/debs/python"$v"-dbg_*.deb |
			tar -xO "./usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" \
				> "$work/python$v.debug"; then
			echo "setup.sh: the DWARF of python$v could not be fetched (the oracle tests" \
				"will say so); see $work/apt.log" >&2
			return 0
		fi
	done
	rm -rf "$work/debs" "$work/lists" "$work/cache" "$work/sources.list"
	echo "$SID_DWARF_PYTHONS" > "$work/.unwprof-pythons"
	rm -rf "$SID_DWARF"
	mv "$work" "$SID_DWARF"
}

# The emulated arm64 machine of tests/arm64: QEMU and a cross compiler on this machine,
# and in ARM64_ROOT what Debian builds for arm64, downloaded with apt-get and unpacked,
# not installed: the cloud kernel (a plain Image with BTF, the BPF JIT and perf events
# built in; its BTF extracted for the cross build's vmlinux.h), busybox, and the
# libraries that unwprof and the workloads link (the sysroot of the cross build, and
# the guest's /usr/lib). Reused while it holds ARM64_PACKAGES; a failure is reported,
# not fatal: the arm64 tests say why they cannot run (and fail in CI).
ARM64_ROOT=${UNWPROF_ARM64_ROOT:-/var/cache/unwprof-tests/arm64}
# The cross compilers' C library and C++ headers and libraries are only recommended.
ARM64_HOST_PACKAGES=(qemu-system-arm gcc-aarch64-linux-gnu g++-aarch64-linux-gnu
	libc6-dev-arm64-cross cpio)
# The guest's interpreters too (Debian's python3.11, its minimal standard library, and
# ruby3.1, with the libraries libruby links), and
# in dwarf/, not the guest's root, the DWARF of the same source built for debugging
# (python3.11-dbg's python3.11d), the reference of the offsets read of them.
ARM64_PACKAGES=(busybox-static libc6 libgcc-s1 libstdc++6 libbpf1 libbpf-dev libelf1 libelf-dev zlib1g
	zlib1g-dev libprotobuf-c1 libprotobuf-c-dev libdwarf1 libdwarf-dev
	python3.11-minimal libpython3.11-minimal libexpat1 ruby3.1 libruby3.1 libgmp10 libcrypt1)
ARM64_DWARF_PACKAGES=(python3.11-dbg)

install_arm64_root() {
	local stamp="$ARM64_ROOT/.unwprof-packages" tmp
	local -a PACKAGES=("${ARM64_HOST_PACKAGES[@]}") # install_missing reads it
	if [ "$(id -u)" -ne 0 ]; then
		[ "$(cat "$stamp" 2>/dev/null)" = "${ARM64_PACKAGES[*]} ${ARM64_DWARF_PACKAGES[*]}" ] ||
			echo "setup.sh: not making the arm64 root $ARM64_ROOT: needs root" >&2
		return 0
	fi
	install_missing
	[ "$(cat "$stamp" 2>/dev/null)" = "${ARM64_PACKAGES[*]} ${ARM64_DWARF_PACKAGES[*]}" ] && return 0
	echo "setup.sh: downloading Debian's arm64 kernel and libraries into $ARM64_ROOT" >&2
	tmp="$ARM64_ROOT.tmp"
	rm -rf "$tmp"
	mkdir -p "$tmp/debs"
	if ! arm64_download "$tmp" > "$tmp.log" 2>&1; then
		echo "setup.sh: the arm64 root could not be made (the arm64 tests will say so);" \
			"its log: $tmp.log" >&2
		tail -n 5 "$tmp.log" >&2
		rm -rf "$tmp"
		return 0
	fi
	echo "${ARM64_PACKAGES[*]} ${ARM64_DWARF_PACKAGES[*]}" > "$tmp/.unwprof-packages"
	rm -rf "$ARM64_ROOT" "$tmp.log"
	mv "$tmp" "$ARM64_ROOT"
}

# Into $1: debs/, sysroot/ (the packages unpacked), Image, config and vmlinux.btf.
arm64_download() {
	local dir=$1 kernel deb
	if ! dpkg --print-foreign-architectures | grep -qx arm64; then
		dpkg --add-architecture arm64
	fi
	apt-get update -qq
	# The versioned package the metapackage points at, unsigned: a plain Image.
	kernel=$(apt-cache depends linux-image-cloud-arm64:arm64 |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^:]*-cloud-arm64\).*/\1/p' | head -n 1)
	[ -n "$kernel" ] || { echo "no linux-image-cloud-arm64:arm64 in the mirror"; return 1; }
	(cd "$dir/debs" && apt-get download "$kernel-unsigned:arm64" \
		"${ARM64_PACKAGES[@]/%/:arm64}" "${ARM64_DWARF_PACKAGES[@]/%/:arm64}") || return 1
	for deb in "$dir"/debs/*.deb; do
		case "$deb" in
		*/linux-image-*) dpkg-deb -x "$deb" "$dir/kernel" ;;
		*/python3.11-dbg_*) dpkg-deb -x "$deb" "$dir/dwarf" ;;
		*) dpkg-deb -x "$deb" "$dir/sysroot" ;;
		esac
	done
	# Absolute links (libz.so) point into the root, not at this machine's files.
	find "$dir/sysroot" -type l -lname '/*' | while read -r link; do
		ln -sfr "$dir/sysroot$(readlink "$link")" "$link"
	done
	# A plain Image, though named vmlinuz (gzip-compressed in some packages).
	gzip -dcf "$dir"/kernel/boot/vmlinuz-* > "$dir/Image" || return 1
	cp "$dir"/kernel/boot/config-* "$dir/config"
	rm -rf "$dir/kernel"
	python3 tests/arm64/image_btf.py "$dir/Image" "$dir/vmlinux.btf"
}

# Ruby 3.3 with YJIT, which Debian builds without (--disable-yjit), for the tests of
# YJIT's frames: built once (minutes) from Debian sid's source of ruby3.3, the same
# as the root's, fetched from the machine's own mirror, with the rustc setup.sh
# provides; reused while it is there. Tests that need it skip with the reason when
# it could not be built (or fail in CI), so a failure here is reported, not fatal.
RUBY_YJIT=${UNWPROF_RUBY_YJIT:-/var/cache/unwprof-tests/ruby-3.3-yjit}
RUBY_YJIT_PACKAGES=(dpkg-dev xz-utils libssl-dev libyaml-dev libffi-dev zlib1g-dev)

install_ruby_yjit() {
	[ -x "$RUBY_YJIT/bin/ruby" ] && return 0
	build_from_source "Ruby 3.3 with YJIT" "$RUBY_YJIT" build_ruby_yjit "${RUBY_YJIT_PACKAGES[@]}"
}

# sid's source, configure, make, install: 0 or 1 (set -e does not hold in a function
# whose status is tested).
build_ruby_yjit() {
	local src=$1 mirror=$2
	# A mirror may lack the .dsc (apt-get then fails): the upstream tarball is what is built.
	apt_source "$src" "$mirror" sid ruby3.3 --download-only
	tar -C "$src" -xf "$src"/ruby3.3_*.orig.tar.xz && cd "$src"/ruby-3.3*/ || return 1
	PATH=$PATH:${HOME:-/root}/.cargo/bin ./configure --prefix="$RUBY_YJIT" --enable-yjit \
		--enable-shared --disable-install-doc || return 1
	grep -q '^YJIT_SUPPORT=yes' Makefile && make -j"$(nproc)" &&
		make install HAVE_BASERUBY=no # no download of the bundled gems: the tarball has them
}

# Debian's musl is built without unwind tables; the test of the rows unwprof derives
# from its code (tests/oracle/code_x64_oracle.py) compares them with the CFI of the
# same sources built with them, in MUSL_CFI, from the machine's own mirror, reused
# while it is there. A failure is reported, not fatal: the test skips (fails in CI).
MUSL_CFI=${UNWPROF_MUSL_CFI:-/var/cache/unwprof-tests/musl-cfi}

install_musl_cfi() {
	[ -r "$MUSL_CFI/lib/libc.so" ] && return 0
	build_from_source "musl with unwind tables" "$MUSL_CFI" build_musl_cfi dpkg-dev
}

# What is built from source for the tests, once (minutes), into dest ($2), with a
# build function ($3: it gets a scratch directory and the machine's Debian mirror) and
# the packages it needs (the rest): reused while it is there. Tests that need it skip
# with the reason when it could not be built (or fail in CI), so a failure here is
# reported, not fatal.
build_from_source() {
	local what=$1 dest=$2 fn=$3 src mirror
	if [ "$(id -u)" -ne 0 ] || ! mirror=$(apt_mirror) || [ -z "$mirror" ]; then
		echo "setup.sh: not building $what: needs root and a Debian mirror" >&2
		return 0
	fi
	local -a PACKAGES=("${@:4}") # install_missing reads it
	[ ${#PACKAGES[@]} -eq 0 ] || install_missing
	src=$(mktemp -d)
	echo "setup.sh: building $what in $dest (log: $src/build.log)" >&2
	if ! ("$fn" "$src" "$mirror" > "$src/build.log" 2>&1); then
		echo "setup.sh: the build of $what failed (its tests will say so)" >&2
		tail -n 5 "$src/build.log" >&2
		rm -rf "$dest"
		return 0
	fi
	rm -rf "$src"
}

# apt-get source of the package $4 of Debian suite $3 into directory $1, from mirror
# $2, by a list of its own (the machine's lists may have no deb-src line); the rest of
# the arguments go to apt-get.
apt_source() {
	local src=$1 mirror=$2 suite=$3 package=$4
	local -a apt=(-o "Dir::Etc::SourceList=$src/sources.list" -o "Dir::Etc::SourceParts=$src/none"
		-o "Dir::State::Lists=$src/lists")
	mkdir -p "$src/lists/partial" || return 1
	echo "deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $suite main" \
		> "$src/sources.list"
	apt-get "${apt[@]}" update || return 1
	(cd "$src" && apt-get "${apt[@]}" source "${@:5}" "$package")
}

# bookworm's source of musl, with Debian's patches, built with
# -fasynchronous-unwind-tables (after musl's own -fno-asynchronous-unwind-tables).
build_musl_cfi() {
	local src=$1 mirror=$2
	apt_source "$src" "$mirror" bookworm musl || return 1
	cd "$src"/musl-*/ || return 1
	# syslibdir: musl installs its dynamic loader there, /lib's by default: Debian's stays.
	./configure --prefix="$MUSL_CFI" --syslibdir="$MUSL_CFI/lib" --disable-static \
		CFLAGS="-O2 -fasynchronous-unwind-tables" &&
		make -j"$(nproc)" && make install
}

# An Alpine-style CPython: Debian's python3.11 source built with musl-gcc, whose libc has
# no CFI, for tests/programs/python_frames.sh musl, in MUSL_PYTHON, reused while it is
# there. Its configure asks the compiler for its multiarch triplet, which musl-gcc (gcc
# with musl's specs) answers as glibc's: a wrapper answers musl's. Upstream's tarball
# of the package, without Debian's patches, which are for its own glibc build.
MUSL_PYTHON=${UNWPROF_MUSL_PYTHON:-/var/cache/unwprof-tests/musl-python3.11}

install_musl_python() {
	[ -x "$MUSL_PYTHON/bin/python3.11" ] && return 0
	build_from_source "CPython 3.11 with musl-gcc" "$MUSL_PYTHON" build_musl_python
}

build_musl_python() {
	local src=$1 mirror=$2
	apt_source "$src" "$mirror" bookworm python3.11 --download-only || return 1
	tar -C "$src" -xzf "$src"/python3.11_*.orig.tar.gz || return 1
	# shellcheck disable=SC2016 # the wrapper's own "$1" and "$@"
	printf '#!/bin/sh\n[ "$1" = --print-multiarch ] && exec echo x86_64-linux-musl\nexec musl-gcc "$@"\n' \
		> "$src/musl-cc" && chmod +x "$src/musl-cc" || return 1
	cd "$src"/Python-3.11.*/ || return 1
	CC="$src/musl-cc" ./configure --prefix="$MUSL_PYTHON" --without-ensurepip \
		--disable-test-modules && make -j"$(nproc)" && make install
}

# bpftrace, the off-CPU test's reference, reads the tracepoints' formats in
# tracefs, which a container or a minimal machine may not have mounted.
mount_tracefs() {
	if [ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
		[ "$(id -u)" -ne 0 ]; then
		return 0
	fi
	mount -t tracefs nodev /sys/kernel/tracing ||
		echo "setup.sh: tracefs could not be mounted on /sys/kernel/tracing" >&2
}

# build [MESON_OPTION...]: configures BUILD_DIR once (with MESON_ARGS), sets the
# options given on it as it is, and builds.
build() {
	if [ ! -f "$BUILD_DIR/build.ninja" ]; then
		# shellcheck disable=SC2086
		meson setup "$BUILD_DIR" $MESON_ARGS "$@" >&2
	elif [ $# -gt 0 ]; then
		meson configure "$BUILD_DIR" "$@" >&2
	fi
	ninja -C "$BUILD_DIR" >&2
}

# Prints "N passed, N failed, N skipped" from meson's test log.
summarize() {
	python3 - "$BUILD_DIR/meson-logs/testlog.json" <<'PY'
import json, sys
passed = failed = skipped = 0
with open(sys.argv[1]) as f:
    for line in f:
        result = json.loads(line)["result"]
        if result in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif result == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed, {skipped} skipped")
PY
}

run_tests() {
	local status=0
	meson test -C "$BUILD_DIR" --print-errorlogs --num-processes 2 || status=$?
	summarize
	return $status
}

run_demo() {
	local unwprof="$BUILD_DIR/cmd/unwprof"
	local demo="$BUILD_DIR/tests/workloads/demo"
	local profile="$BUILD_DIR/demo.pb.gz"
	if [ "$(id -u)" -ne 0 ]; then
		echo "setup.sh: the demo records with BPF: run it as root" >&2
		exit 1
	fi
	echo "\$ unwprof record -F 499 -o $profile -- $demo 20" >&2
	"$unwprof" record -F 499 -o "$profile" -- "$demo" 20
	echo "\$ unwprof report -i $profile --top 15" >&2
	"$unwprof" report -i "$profile" --top 15
}

case "${1:-}" in
demo)
	install_missing
	build
	run_demo
	;;
test)
	install_missing
	install_pythons
	install_sid_root
	install_sid_dwarf
	install_arm64_root
	install_ruby_yjit
	install_musl_cfi
	[ "$(uname -m)" = x86_64 ] && install_musl_python
	mount_tracefs
	# the test suite's build reads its hooks (faults, forced tail calls) from the environment
	build -Dtest_hooks=true
	run_tests
	;;
build)
	install_missing
	build
	;;
arm64)
	install_missing
	install_arm64_root
	;;
*)
	sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 64
	;;
esac
