#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Usage: python_frames.sh debian | musl | 3.X
#
# Python frames in place: pythreads.py run by Debian's /usr/bin/python3.11
# (stripped, libpython linked in), by Debian's python3.11 source built with
# musl-gcc as an Alpine image's (setup.sh: musl's libc has no CFI) or by
# pyenv's build of 3.X (a shared libpython), recorded with --tid. Its three
# threads run known chains in pure Python (alpha_main;Alpha.a1;a2;spin_alpha;
# burn through a method and a generator, beta_main;b1;spin_beta;burn
# and through a 7-deep recursion), and the main thread calls back into
# Python from C (sorted() with a key function). Checks (e2e.py python):
#  - at least 90% of the samples have Python frames;
#  - at least 95% of each chain's samples have the whole chain, in order,
#    each frame "QUALNAME (FILE:LINE)";
#  - each chain is on one thread in at least 95% of its samples, and the
#    three on three threads: a thread shows its own frames, not the GIL
#    holder's or the main thread's;
#  - native frames (sorted's) stand between sorter and keyfn in at least
#    95% of keyfn's samples: the interpreter's frames interleave with C's;
#  - the method is named with its class from 3.11 on (co_qualname), the
#    generator's frame stands between its caller and what it calls;
#  - the native walk is as complete as without them (lib.sh's roots);
#  - a recursion 130 deep keeps all of its 131 frames (e2e.py python-deep);
#  - a process of 20 ms (python -c) has its frames named, though it is gone
#    when the run ends;
#  - musl's: the main thread's samples begin at _start and its threads' at
#    musl's thread entry, __clone and start, below pythread_wrapper, 99% of
#    all walked to the bottom through musl's code by rows derived from it;
#  - Debian's: the eval loop's .cold part, which no symbol names, is found in
#    .eh_frame: one FDE's range, no function in it, its code jumping into the
#    loop (objdump).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

which=$1
roots=()
if [ "$which" = debian ]; then
	python=/usr/bin/python3.11
	[ -x "$python" ] || e2e_skip "$python is not installed (package python3.11; ./setup.sh installs it)"
elif [ "$which" = musl ]; then
	python=${UNWPROF_MUSL_PYTHON:-/var/cache/unwprof-tests/musl-python3.11}/bin/python3.11
	[ -x "$python" ] || e2e_skip "no CPython built with musl at $python (./setup.sh test builds it)"
	# A thread's root is musl's __clone and its start, which Debian's libc.so,
	# stripped to what it exports, names after the function before them or by
	# an offset; walked to them by rows, checked below.
	roots=(--root _start --root '[^;]+;[^;]+;pythread_wrapper')
else
	root=$(pyenv root 2> /dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")
	dir=$(find "$root/versions" -maxdepth 1 -name "$which.*" 2> /dev/null | sort -V | tail -n 1)
	python="$dir/bin/python$which"
	[ -x "$python" ] || e2e_skip "no pyenv build of CPython $which under $root/versions"
fi

# Debian's stripped python3.11 names no .cold part: it is found in .eh_frame.
if [ "$which" = debian ]; then
	"$UNWPROF" dump-unwind --summary --json "$python" > "$tmp/python.json" || fails=$((fails + 1))
	check python-cold "$tmp/python.json" "$python"
fi
qualname=
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' && qualname=--qualname
record py -F 999 --tid -o "$tmp/py.folded" --stats-json "$tmp/py.json" -- \
	"$python" "$programs_src/pythreads.py" 3
expect_rc 0
check python "$tmp/py.folded" --comm "$(basename "$python")" $qualname
check roots "$tmp/py.folded" --min-ratio 0.99 "${roots[@]}"
# musl's: walked to _start and __clone by rows, none of them by frame pointers.
if [ "$which" = musl ]; then
	python3 - "$tmp/py.json" << 'PY' || fail "fewer than 99% of the samples walked to the bottom by rows"
import json, sys
s = json.load(open(sys.argv[1]))
print(f"walked to the bottom by rows: {s['walked']['count']} of {s['samples']} samples",
      file=sys.stderr)
sys.exit(not s["walked"]["count"] >= 0.99 * s["samples"])
PY
fi
# A process of 20 ms, gone when the run ends, most of it importing modules whose code is
# freed once they have run: its code objects were copied when first seen.
# A recursion 130 deep in pure Python, all of it written: 3.8 to 3.10 put four or five
# native frames between two Python frames, 3.11 and later none.
record deep -F 999 -o "$tmp/deep.folded" -- "$python" -c \
	$'def down(d):\n    if d == 0:\n        x = 0\n        for i in range(6000000):\n            x += i\n        return x\n    return down(d - 1)\ndown(130)'
expect_rc 0
check python-deep "$tmp/deep.folded" --function down --frames 131
record short -F 999 -o "$tmp/short.folded" -- "$python" -c \
	$'import time\nt = time.time()\nwhile time.time() - t < 0.02: pass'
expect_rc 0
check python-short "$tmp/short.folded"
finish
