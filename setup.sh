#!/usr/bin/env bash
# Sets up a Debian 12 machine for unwprof, builds it, and runs it.
#
#   ./setup.sh demo    install what is missing, build, profile the bundled demo workload
#   ./setup.sh test    install what is missing, build, run the whole test suite
#   ./setup.sh build   install what is missing and build
#
# Environment: BUILD_DIR (default: build), MESON_ARGS (extra `meson setup` arguments,
# e.g. "-Dwerror=true" or "-Db_sanitize=address,undefined"), PYENV_VERSIONS (CPython
# versions to build with pyenv, with a shared libpython and debug info, for the tests
# of tests/oracle/python_runtime.py; .ci/run sets it).
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
	lld mold linux-perf python3.11 ruby3.1 perl xz-utils
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

build() {
	if [ ! -f "$BUILD_DIR/build.ninja" ]; then
		# shellcheck disable=SC2086
		meson setup "$BUILD_DIR" $MESON_ARGS >&2
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
	build
	run_tests
	;;
build)
	install_missing
	build
	;;
*)
	sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 64
	;;
esac
