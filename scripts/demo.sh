#!/bin/bash
# FEMU demo (run by `make demo` after the build): boots the embedded guest
# with a BlackBox FEMU SSD (tutorial 01's geometry: 2 GiB of NAND in 128 lines
# of 16 MiB, 25% over-provisioning) and, inside the guest, shows the
# controller with nvme-cli, writes 64 MiB sequentially with fio and reads the
# SSD's own counters (vendor log page C0h) before and after.
# If this QEMU has no femu device yet, QEMU's own nvme device is used instead.
#
# Usage: scripts/demo.sh [extra scripts/femu-run options]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd -P)
qemu=${FEMU_QEMU:-$root/build-femu/qemu-system-x86_64}
[ -x "$qemu" ] || { echo "demo: $qemu not built; run: make build" >&2; exit 1; }

if "$qemu" -device help 2>/dev/null | grep -q '"femu"'; then
    dev=(-device femu,femu_mode=1,nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25)
    kind=femu
else
    img=$(mktemp /tmp/femu-demo.XXXXXX.raw)
    trap 'rm -f "$img"' EXIT
    truncate -s 256M "$img"
    dev=(-drive "file=$img,if=none,id=d0,format=raw" -device nvme,drive=d0,serial=demo0)
    kind=nvme
    echo "demo: this QEMU has no femu device yet; using QEMU's nvme device"
fi
echo "demo: $qemu ${dev[*]}"

job=$(mktemp /tmp/femu-demo.XXXXXX.sh)
trap 'rm -f "$job" ${img:+"$img"}' EXIT
# the job: scripts/femu-log.sh's decoder functions, then the steps
{ "$root/scripts/femu-log.sh" --emit; cat <<'EOF'; } > "$job"
set -e
kind=$1
c0() {   # vendor log page C0h (docs/log-pages.md): WAF x1000, host, GC, programmed
    local v
    v=$(femu_c0 /dev/nvme0) || return 1
    set -- $v
    echo "  C0h: WAF x1000 = $1, host pages = $2, GC pages = $3, programmed pages = $4"
}
echo "== nvme list"
nvme list
echo "== namespace size: $(cat /sys/block/nvme0n1/size) sectors of 512 B"
[ "$kind" = femu ] && { echo "== before any write"; c0; }
echo "== fio: 64 MiB sequential write, 128 KiB blocks, then verify"
fio --name=fill --filename=/dev/nvme0n1 --rw=write --bs=128k --size=64M \
    --ioengine=libaio --iodepth=8 --direct=1 --verify=crc32c > /tmp/fio.out
grep -E "WRITE: bw=|err=" /tmp/fio.out | sed 's/^ */  /'
[ "$kind" = femu ] && { echo "== after the fill (64 MiB = 16384 pages of 4 KiB, no GC yet)"; c0; }
echo "== done"
EOF
rc=0
"$root/scripts/femu-run" --timeout 600 "$@" "${dev[@]}" --script "$job" "$kind" || rc=$?
exit $rc
