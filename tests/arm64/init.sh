#!/bin/busybox sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The /init of the emulated arm64 machine (tests/arm64/run.sh puts it in the
# initramfs): mounts what unwprof needs, runs /run.sh with its output in
# /out, prints every file of /out on the serial console, base64-encoded
# between markers (the console mixes in kernel messages and ends lines with
# CR LF), and powers off. run.sh reads them back.
/bin/busybox --install -s /bin
export PATH=/bin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
# The kernel gave init no console: the initramfs has no /dev/console before this.
exec < /dev/console > /dev/console 2>&1
mount -t tmpfs tmp /tmp
mount -t debugfs debugfs /sys/kernel/debug
mount -t tracefs tracefs /sys/kernel/tracing
mount -t bpf bpf /sys/fs/bpf
mkdir -p /out
echo "@@unwprof-guest $(uname -r) $(grep -c ^processor /proc/cpuinfo) cpus" \
	"$(grep -m 1 '^Features' /proc/cpuinfo | grep -ow paca)"
cd /tmp && OUT=/out sh /run.sh > /out/run.log 2>&1
echo $? > /out/run.rc
for f in /out/*; do
	echo "@@unwprof-file ${f#/out/}"
	base64 "$f"
	echo "@@unwprof-end"
done
echo "@@unwprof-done"
poweroff -f
