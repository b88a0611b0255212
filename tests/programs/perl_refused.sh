#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A perl whose frames unwprof does not read is refused loudly, and its native
# stacks are walked as any others. The interpreter is Debian's /usr/bin/perl
# (5.36), copied and patched into a version unwprof does not know, 5.44,
# which runs as the original does (PL_version is only said, never read by
# the interpreter). Recorded running a loop of Perl code:
#  - exactly one warning, naming the version and the file;
#  - at least 80% of the samples counted as perl-version-unsupported
#    (--stats-json), which are those in the run loop: the program runs Perl
#    code all along but while it starts; and no Perl frames;
#  - the native walk as complete as for any program (at least 99% walked to
#    the bottom, beginning at a root).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

perl=/usr/bin/perl
[ -x "$perl" ] || e2e_skip "$perl is not installed (package perl; ./setup.sh installs it)"

# A copy of perl whose one-byte PL_version is 44.
python3 - "$perl" "$tmp/perl5.44" << 'PY' || fail "patching $perl failed"
import shutil, subprocess, sys
src, dst = sys.argv[1], sys.argv[2]
sym = next(f for f in (l.split() for l in subprocess.run(
    ["readelf", "-W", "--dyn-syms", src], capture_output=True, text=True,
    check=True).stdout.splitlines()) if len(f) >= 8 and f[7] == "PL_version")
addr = int(sym[1], 16)
vaddr, foff = next((int(f[2], 16), int(f[1], 16)) for f in (l.split() for l in subprocess.run(
    ["readelf", "-lW", src], capture_output=True, text=True, check=True).stdout.splitlines())
    if f and f[0] == "LOAD" and int(f[2], 16) <= addr < int(f[2], 16) + int(f[4], 16))
shutil.copy(src, dst)
with open(dst, "r+b") as f:
    f.seek(foff + addr - vaddr)
    f.write(bytes([44]))
PY
# shellcheck disable=SC2016 # Perl's $t and $x
record refused -F 999 -o "$tmp/refused.folded" --stats-json "$tmp/refused.json" -- \
	"$tmp/perl5.44" -e 'my ($t, $x) = (time, 0); $x = ($x * 31 + 7) % 1000003 while time - $t < 3'
expect_rc 0
n=$(grep -cF "$tmp/perl5.44: Perl 5.44.0 is not supported" "$tmp/refused.err")
echo "$n warning(s) naming Perl 5.44.0 and the file" >&2
[ "$n" -eq 1 ] || fail "$n warnings naming Perl 5.44.0 and the file, expected one"
python3 -c 'import json, sys
st = json.load(open(sys.argv[1]))
n, user = st["errors"]["perl-version-unsupported"], st["user_samples"]
print(f"perl-version-unsupported: {n} of {user} samples; {st['"'"'perl'"'"']['"'"'count'"'"']} "
      "with Perl frames", file=sys.stderr)
sys.exit(not (user >= 200 and n >= 0.8 * user and st["perl"]["count"] == 0))' "$tmp/refused.json" ||
	fail "its samples are not counted as perl-version-unsupported"
check stats "$tmp/refused.json" --min-walked 0.99
check roots "$tmp/refused.folded" --min-ratio 0.99
finish
