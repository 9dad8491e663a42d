#!/bin/bash
# Tutorial 04 in your own guest (docs/tutorials/04-fdp.md, "In your own
# guest"), end to end: boot the Debian 13 image of
# scripts/guest/build-os-image.sh --suite trixie (Debian 12's fio has no
# --fdp) with scripts/run-blackbox.sh, the FDP subsystem from FEMU_SUBSYS
# and a scaled-down tutorial-04 SSD (1 MiB reclaim units) from FEMU_OPTS;
# log in with scripts/run-guest-ssh.sh, check what `nvme fdp configs` and
# `nvme fdp status` print, run scripts/tutorials/fdp-run.sh with FDP=0,
# blkdiscard the namespace, run it with FDP=1, and check that placement
# cuts the measure phase's GC copies by more than half; then power off
# and check that QEMU exits 0.  Booted with -snapshot: the cached image is
# not changed.
#
# Skips (77) unless the trixie image is already built
# (~/.cache/femu/os-image/trixie/) or FEMU_OS_IMAGE_TESTS=1, which builds
# it first (root, the Debian mirror, about 5 minutes: docs/quick-start.md).
. "$(dirname "$0")/../guest/lib.sh"
require_qemu
. "$(dirname "$0")/os-image.sh"
os_image_require trixie
# tutorial 04's device with 32-page blocks: 64 reclaim units of 1 MiB,
# a 51 MiB namespace (tests/guest/fdp-run.t's device)
export FEMU_SUBSYS=fdp=on,fdp.nruh=2
export FEMU_OPTS=nchs=2,luns_per_ch=4,blks_per_pl=64,pgs_per_blk=32,op_pcent=25,gc_thres_pcent=95

os_image_boot

g() { WAIT=0 "$SSH" "$@" 2>&1; }
out=$(g --copy "$FEMU_ROOT/scripts/tutorials" sudo nvme fdp configs /dev/nvme0 -e 1) ||
    { echo "$out"; fail "nvme fdp configs failed"; }
echo "$out"
grep -qx 'Number of Reclaim Unit Handles: 2' <<<"$out" || fail "configs: not 2 handles"
# a reclaim unit is a line: 2 ch x 4 LUNs x 32 pages x 4 KiB
grep -qx 'Reclaim Unit Nominal Size: 1048576' <<<"$out" || fail "configs: RU size is not 1 MiB"
out=$(g sudo nvme fdp status /dev/nvme0n1) || { echo "$out"; fail "nvme fdp status failed"; }
echo "$out"
[ "$(grep -c 'RUAMW): 2048$' <<<"$out")" = 2 ] || fail "status: RUAMW of the fresh units is not 2048 blocks twice"

res=$(scratch)/results
for f in 0 1; do
    s=$SECONDS
    out=$(g "sudo FDP=$f bash tutorials/fdp-run.sh SIZE=ns HOT=20% FILL_BS=128k NORANDOMMAP=1 AGE=128m MEASURE=128m") ||
        { echo "$out"; fail "fdp-run.sh FDP=$f failed"; }
    echo "$out"
    echo "fdp-run.sh FDP=$f: $((SECONDS - s)) s"
    grep "^RESULT FDP=$f " <<<"$out" >>"$res" || fail "fdp-run.sh FDP=$f printed no RESULT line"
    # no valid page left: the FDP=1 run starts from an SSD whose lines GC
    # reclaims without copies (docs/tutorials/04-fdp.md)
    [ $f = 0 ] && { g sudo blkdiscard /dev/nvme0n1 || fail "blkdiscard failed"; }
done
field() { grep "^RESULT FDP=$1 " "$res" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
for f in 0 1; do
    [ "$(field $f host_pages)" = 32768 ] || fail "FDP=$f: measure phase host pages $(field $f host_pages), want 128 MiB / 4 KiB"
done
g0=$(field 0 gc_pages) g1=$(field 1 gc_pages)
echo "GC copies in the measure phase: FDP=0 $g0, FDP=1 $g1"
# measured: 69100 -> 11631 in the embedded guest (docs/fdp.md); half is
# far from both
[ "$g0" -gt 0 ] || fail "FDP=0: no GC copies on an aged device"
[ "$g1" -lt $((g0 / 2)) ] || fail "placement did not halve the GC copies ($g0 -> $g1)"

os_image_poweroff
echo "blackbox-fdp: all checks passed (total $((SECONDS - t0)) s)"
