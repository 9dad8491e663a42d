#!/bin/bash
# The embedded guest with QEMU's own nvme device (the peer FEMU is compared
# with), backed by a raw file, in one boot: the guest's tools are there
# (fio >= 3.34 with io_uring/io_uring_cmd/libaio, nvme-cli with `nvme fdp`,
# python3 with the stdlib modules fio's test scripts import, the sudo shim),
# `nvme list` and `nvme id-ctrl` see the controller, fio writes and verifies
# (crc32c) through libaio, io_uring and io_uring_cmd on /dev/ng0n1, and what
# the guest wrote reaches the host's backing file. QEMU must exit 0.
. "$(dirname "$0")/lib.sh"
require_qemu
d=$(scratch)
img=$d/nvme.raw
truncate -s 256M "$img"

cat >"$d/job.sh" <<'EOF'
set -u
bad=0
check() {  # check WHAT COMMAND...: run it, report
    local what=$1; shift
    if "$@" >/tmp/check.out 2>&1; then echo "ok: $what"
    else echo "FAILED: $what"; sed 's/^/    /' /tmp/check.out; bad=1; fi
}

# -- the guest's tools
v=$(fio --version)
echo "fio: $v"
check "fio >= 3.34" awk -v v="${v#fio-}" 'BEGIN { split(v, a, "."); exit !(a[1] > 3 || (a[1] == 3 && a[2] >= 34)) }'
for e in libaio io_uring io_uring_cmd; do
    check "fio engine $e" sh -c "fio --enghelp=$e | grep -q ."
done
check "nvme-cli has 'nvme fdp'" sh -c 'nvme fdp help 2>&1 | grep -qw status'
check "python3 stdlib for fio's test scripts" python3 -c '
import argparse, json, logging, os, platform, random, re, shutil, signal, statistics
import struct, subprocess, sys, tempfile, time, traceback, multiprocessing, pathlib, ctypes
print(sys.version)'
check "sudo shim" sh -c '[ "$(sudo -E id -u)" = 0 ] && [ "$(sudo sh -c "echo \$0" )" = sh ]'
check "shell tools" sh -c 'echo 3 4 | awk "{print \$1*\$2}" | grep -qx 12 && echo "2^10" | bc | grep -qx 1024 && seq 3 | sed -n 2p | grep -qx 2 && dd if=/dev/zero of=/tmp/z bs=4k count=2 2>/dev/null && [ $(stat -c %s /tmp/z) = 8192 ]'

# -- the controller
check "/dev/nvme0n1 is a block device" test -b /dev/nvme0n1
check "/dev/ng0n1 is a char device" test -c /dev/ng0n1
check "nvme list shows the controller" sh -c 'nvme list | grep -E "/dev/nvme0n1 .*femusmoke"'
check "nvme id-ctrl" sh -c 'nvme id-ctrl /dev/nvme0 | grep -E "^sn +: femusmoke"'
check "nvme id-ns: 512 B format" sh -c 'nvme id-ns /dev/nvme0n1 | grep -E "lbaf +0 : ms:0 +lbads:9 .*in use"'
check "namespace is 256 MiB" sh -c '[ $(cat /sys/block/nvme0n1/size) = 524288 ]'

# -- data path: write + crc32c verify through three engines on separate ranges
f="--direct=1 --bs=4k --size=16M --iodepth=16 --rw=randwrite --verify=crc32c --do_verify=1 --verify_fatal=1 --randrepeat=0 --norandommap"
check "fio libaio write+verify" fio --name=la --filename=/dev/nvme0n1 --ioengine=libaio --offset=0 $f
check "fio io_uring write+verify" fio --name=iu --filename=/dev/nvme0n1 --ioengine=io_uring --offset=32M $f
# (passthrough bypasses the page cache anyway; fio refuses direct=1 on a char device)
check "fio io_uring_cmd write+verify on /dev/ng0n1" fio --name=iuc --filename=/dev/ng0n1 \
    --ioengine=io_uring_cmd --cmd_type=nvme --offset=64M $f --direct=0
# a marker the host looks for in its backing file after QEMU exits
check "marker write" sh -c 'printf "FEMU-SMOKE-MARKER-%s" 4711 | dd of=/dev/nvme0n1 bs=512 seek=200000 conv=sync,fsync 2>/dev/null'
exit $bad
EOF

femu_run_expect 0 --timeout 900 \
    -drive "file=$img,if=none,id=d0,format=raw,cache=unsafe" -device nvme,drive=d0,serial=femusmoke \
    --script "$d/job.sh"
cat "$FEMU_OUT"
expect_err 'status job=0 qemu=0 ' "QEMU did not exit 0 at guest power-off"
dd if="$img" bs=512 skip=200000 count=1 2>/dev/null | grep -q 'FEMU-SMOKE-MARKER-4711' ||
    fail "the guest's write did not reach the host's backing file"
echo "ok: the guest's write is in the backing file"
echo PASS
