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
CACHE=${FEMU_CACHE_DIR:-$HOME/.cache/femu}
IMG=$CACHE/os-image/trixie
if [ ! -f "$IMG/complete" ]; then
    if [ "${FEMU_OS_IMAGE_TESTS:-0}" != 1 ]; then
        echo "skip: no trixie OS image in $IMG (scripts/guest/build-os-image.sh --suite trixie, or FEMU_OS_IMAGE_TESTS=1)"
        exit 77
    fi
    "$FEMU_ROOT/scripts/guest/build-os-image.sh" --suite trixie || fail "building the trixie OS image failed"
fi
for t in ssh scp; do
    command -v $t >/dev/null || { echo "skip: no $t client (apt-get install openssh-client)"; exit 77; }
done
# shellcheck disable=SC1091
. "$IMG/env"       # OSIMGF, GUEST_USER, SSH_OPTS
d=$(scratch)
log=$d/console.log
port=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || fail "no free TCP port found"
# one vCPU: with SMP=2 one boot of this image (kernel 6.12, TCG, loaded
# host) hung with CPU 1 idle and its timer never firing ("rcu_preempt
# kthread timer wakeup didn't happen ... cpu=1") until the SSH wait ran out
export SSH_PORT=$port QEMU ACCEL=tcg MEM=${FEMU_OS_IMAGE_MEM:-1G} SMP=${FEMU_OS_IMAGE_SMP:-1}
# tutorial 04's device with 32-page blocks: 64 reclaim units of 1 MiB,
# a 51 MiB namespace (tests/guest/fdp-run.t's device)
export FEMU_SUBSYS=fdp=on,fdp.nruh=2
export FEMU_OPTS=nchs=2,luns_per_ch=4,blks_per_pl=64,pgs_per_blk=32,op_pcent=25,gc_thres_pcent=95

t0=$SECONDS
"$FEMU_ROOT/scripts/run-blackbox.sh" -snapshot </dev/null >"$log" 2>&1 &
qpid=$!
cleanup() { kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; }
trap 'cleanup; rm -rf "$_femu_scratch"' EXIT
SSH=$FEMU_ROOT/scripts/run-guest-ssh.sh
# a full Debian under TCG on a shared 2-core host: 59-87 s measured
# (docs/quick-start.md); 900 s leaves room for load
WAIT=900 "$SSH" true || { tail -40 "$log"; fail "no SSH login within 900 s"; }
echo "booted to an SSH login in $((SECONDS - t0)) s (TCG, MEM=$MEM, SMP=$SMP)"

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

res=$d/results
for f in 0 1; do
    s=$SECONDS
    out=$(g "sudo FDP=$f AGE=128m MEASURE=128m bash tutorials/fdp-run.sh") ||
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

WAIT=0 "$SSH" sudo systemctl poweroff >/dev/null 2>&1 || true
for _ in $(seq 1 300); do kill -0 "$qpid" 2>/dev/null || break; sleep 1; done
kill -0 "$qpid" 2>/dev/null && { tail -20 "$log"; fail "QEMU still runs 300 s after poweroff"; }
wait "$qpid"; qrc=$?
trap 'rm -rf "$_femu_scratch"' EXIT
[ $qrc = 0 ] || { tail -20 "$log"; fail "QEMU exited $qrc after the guest powered off"; }
echo "blackbox-fdp: all checks passed (total $((SECONDS - t0)) s)"
