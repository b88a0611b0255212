#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A php whose frames unwprof does not read is refused loudly, and its native
# stacks are walked as any others. The interpreter is Debian's
# /usr/bin/php8.2, copied and patched into a version unwprof does not know,
# 8.9 (its "X-Powered-By: PHP/8.2.N" string, which it only says), run
# without its php.ini (-n: no extension, whose build id it would check).
# Recorded running a loop of PHP code:
#  - exactly one warning, naming the version and the file;
#  - at least 80% of the samples counted as php-version-unsupported
#    (--stats-json), which are those in its executor: the program runs PHP
#    code all along but while it starts; and no PHP frames;
#  - the native walk as complete as for any program (at least 99% walked to
#    the bottom, beginning at a root).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

php=/usr/bin/php8.2
[ -x "$php" ] || e2e_skip "$php is not installed (package php8.2-cli; ./setup.sh installs it)"

# A copy of php that says it is 8.9.
python3 - "$php" "$tmp/php8.9" << 'PY' || fail "patching $php failed"
import sys
data = open(sys.argv[1], "rb").read()
old = b"X-Powered-By: PHP/8.2."
if data.count(old) != 1:
    sys.exit(f"{sys.argv[1]}: {data.count(old)} strings {old!r}")
open(sys.argv[2], "wb").write(data.replace(old, b"X-Powered-By: PHP/8.9."))
PY
chmod +x "$tmp/php8.9"
version=$("$php" -n -r 'echo PHP_RELEASE_VERSION;')
# shellcheck disable=SC2016 # PHP's $t and $x
record refused -F 999 -o "$tmp/refused.folded" --stats-json "$tmp/refused.json" -- \
	"$tmp/php8.9" -n -r '$t = microtime(true); $x = 0; while (microtime(true) - $t < 3) { $x = ($x * 31 + 7) % 1000003; }'
expect_rc 0
n=$(grep -cF "$tmp/php8.9: PHP 8.9.$version is not supported" "$tmp/refused.err")
echo "$n warning(s) naming PHP 8.9.$version and the file" >&2
[ "$n" -eq 1 ] || fail "$n warnings naming PHP 8.9.$version and the file, expected one"
python3 -c 'import json, sys
st = json.load(open(sys.argv[1]))
n, user = st["errors"]["php-version-unsupported"], st["user_samples"]
print(f"php-version-unsupported: {n} of {user} samples; {st['"'"'php'"'"']['"'"'count'"'"']} "
      "with PHP frames", file=sys.stderr)
sys.exit(not (user >= 200 and n >= 0.8 * user and st["php"]["count"] == 0))' "$tmp/refused.json" ||
	fail "its samples are not counted as php-version-unsupported"
check stats "$tmp/refused.json" --min-walked 0.99
check roots "$tmp/refused.folded" --min-ratio 0.99
finish
