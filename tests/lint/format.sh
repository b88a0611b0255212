#!/usr/bin/env bash
# Every C source and header of the project follows .clang-format.
# Usage: format.sh SOURCE_ROOT
set -uo pipefail
cd "$1" || exit 1
if ! command -v clang-format >/dev/null; then
	echo "SKIP: clang-format is not installed" >&2
	exit 77
fi
# Fixtures are kept byte-for-byte as built; everything else is checked.
mapfile -t files < <(find cmd core bpf tests -name '*.[ch]' -not -path 'tests/fixtures/*' | sort)
clang-format --dry-run --Werror "${files[@]}"
