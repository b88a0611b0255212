#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# A JVM whose own tables lack an entry the HotSpot walk needs is refused,
# never guessed: a copy of Debian's JDK 17 whose libjvm.so names
# CodeBlob::_code_begin "_code_bXgin" in gHotSpotVMStructs runs Spin.java.
# Checked: one warning naming the copy's libjvm.so and the entry; its
# samples in the code cache counted as hotspot-vmstructs-unsupported, none
# with Java frames; the stacks that never enter the code cache (the VM's
# own threads) begin at their roots (95%: a few dozen samples).
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$0")/lib.sh"

jdk=/usr/lib/jvm/java-17-openjdk-amd64
[ -x "$jdk/bin/java" ] || e2e_skip "$jdk is not installed (openjdk-17-jdk-headless)"
need_tool javac "Debian's openjdk-17-jdk-headless"

# The copy: its own bin/java (the launcher finds libjvm.so next to its own
# path), lib's files linked but libjvm.so, copied and patched.
mkdir -p "$tmp/jdk/bin" "$tmp/jdk/lib/server"
cp "$jdk/bin/java" "$tmp/jdk/bin/"
for f in "$jdk"/lib/* "$jdk/conf" "$jdk/release"; do
	[ "$(basename "$f")" = server ] || ln -s "$f" "$tmp/jdk/${f#"$jdk"/}"
done
for f in "$jdk"/lib/server/*; do
	[ "$(basename "$f")" = libjvm.so ] || ln -s "$f" "$tmp/jdk/lib/server/"
done
libjvm=$tmp/jdk/lib/server/libjvm.so
python3 - "$jdk/lib/server/libjvm.so" "$libjvm" << 'PY' || fail "patching libjvm.so failed"
import sys
data = open(sys.argv[1], "rb").read()
old = b"\0_code_begin\0"
if data.count(old) != 1:
    sys.exit(f"{sys.argv[1]}: {data.count(old)} strings _code_begin, expected one")
open(sys.argv[2], "wb").write(data.replace(old, b"\0_code_bXgin\0"))
PY
javac -d "$tmp" "$programs_src/Spin.java" || fail "javac failed"

record refused -F 999 --tid -o "$tmp/refused.folded" --stats-json "$tmp/refused.json" -- \
	"$tmp/jdk/bin/java" -cp "$tmp" Spin 4
expect_rc 0
n=$(grep -cF "$libjvm: a JVM whose tables lack CodeBlob::_code_begin" "$tmp/refused.err")
echo "$n warning(s) naming the JVM's file and CodeBlob::_code_begin" >&2
[ "$n" -eq 1 ] || fail "$n warnings naming the JVM's file and the entry, expected one"
python3 -c 'import json, sys
st = json.load(open(sys.argv[1]))
n, user = st["errors"]["hotspot-vmstructs-unsupported"], st["user_samples"]
print(f"hotspot-vmstructs-unsupported: {n} of {user} samples; {st['"'"'hotspot'"'"']['"'"'count'"'"']} "
      "with HotSpot frames", file=sys.stderr)
sys.exit(not (user >= 1000 and n >= 0.5 * user and st["hotspot"]["count"] == 0))' \
	"$tmp/refused.json" || fail "its samples are not counted as hotspot-vmstructs-unsupported"
grep -v '\[anon' "$tmp/refused.folded" > "$tmp/native.folded"
check roots "$tmp/native.folded" --min-ratio 0.95 --min-samples 20
finish
