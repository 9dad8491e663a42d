#!/bin/bash
# docs/quick-start.md section 2 end to end with a real OS image: boot the
# Debian image of scripts/guest/build-os-image.sh with
# scripts/run-blackbox.sh (the 12 GiB BlackBox SSD as shipped, TCG), log in
# with scripts/run-guest-ssh.sh, copy scripts/tutorials/ in and do tutorial
# 01's first steps there (nvme list, the namespace size, C0h before and
# after a small write, read through the tutorials' lib.sh), then power the
# guest off and check that QEMU exits 0.  The image is booted with
# -snapshot: the cached image is not changed.
#
# Skips (77) unless the image is already built (~/.cache/femu/os-image/)
# or FEMU_OS_IMAGE_TESTS=1, which builds it first (root, the Debian mirror
# and several minutes: see docs/quick-start.md for the time measured).
. "$(dirname "$0")/../guest/lib.sh"
require_qemu
SUITE=${FEMU_OS_IMAGE_SUITE:-bookworm}
CACHE=${FEMU_CACHE_DIR:-$HOME/.cache/femu}
IMG=$CACHE/os-image/$SUITE
if [ ! -f "$IMG/complete" ]; then
    if [ "${FEMU_OS_IMAGE_TESTS:-0}" != 1 ]; then
        echo "skip: no OS image in $IMG (scripts/guest/build-os-image.sh, or FEMU_OS_IMAGE_TESTS=1)"
        exit 77
    fi
    "$FEMU_ROOT/scripts/guest/build-os-image.sh" --suite "$SUITE" || fail "building the OS image failed"
fi
for t in ssh scp; do
    command -v $t >/dev/null || { echo "skip: no $t client (apt-get install openssh-client)"; exit 77; }
done
# shellcheck disable=SC1091
. "$IMG/env"       # OSIMGF, GUEST_USER, SSH_OPTS
d=$(scratch)
log=$d/console.log
# a free port: bind-test a few random ones
port=""
for _ in 1 2 3 4 5 6 7 8 9 10; do
    p=$((20000 + RANDOM % 30000))
    if ! (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; then port=$p; break; fi
done
[ -n "$port" ] || fail "no free TCP port found"
# one vCPU, as blackbox-fdp.t: a 2-vCPU TCG boot of the trixie image once
# hung with one CPU's timer never firing (docs/before-you-start.md)
export SSH_PORT=$port QEMU ACCEL=tcg MEM=${FEMU_OS_IMAGE_MEM:-1G} SMP=${FEMU_OS_IMAGE_SMP:-1}

t0=$SECONDS
"$FEMU_ROOT/scripts/run-blackbox.sh" -snapshot </dev/null >"$log" 2>&1 &
qpid=$!
cleanup() { kill "$qpid" 2>/dev/null; wait "$qpid" 2>/dev/null; }
trap 'cleanup; rm -rf "$_femu_scratch"' EXIT
SSH=$FEMU_ROOT/scripts/run-guest-ssh.sh
# boot: a full Debian with systemd under TCG on a shared 2-core host takes
# minutes (measured: docs/quick-start.md); 900 s leaves room for load
WAIT=900 "$SSH" true || { tail -40 "$log"; fail "no SSH login within 900 s"; }
boot=$((SECONDS - t0))
echo "booted to an SSH login in $boot s (TCG, MEM=$MEM, SMP=$SMP)"
kill -0 "$qpid" 2>/dev/null || fail "QEMU is gone"

out=$(WAIT=0 "$SSH" --copy "$FEMU_ROOT/scripts/tutorials" bash -s <<'GUEST' 2>&1
set -e
sudo nvme list
echo "sectors=$(cat /sys/block/nvme0n1/size) lbs=$(cat /sys/block/nvme0n1/queue/logical_block_size)"
ls /dev/ng0n1
sudo nvme id-ctrl /dev/nvme0 | grep -E '^(mn|sn|fr) '
# the tutorials' own C0h reader, from the copied directory
c0() { sudo bash -c 'ME=c0; . tutorials/lib.sh; tut_find_dev; c0'; }
echo "C0h before: $(c0)"
sudo fio --name=w --filename=/dev/nvme0n1 --direct=1 --ioengine=libaio --iodepth=8 \
    --rw=write --bs=128k --size=4m --output=/dev/null
echo "C0h after: $(c0)"
sudo bash tutorials/waf-run.sh DEV=/dev/sda 2>&1 || true
GUEST
)
rc=$?
echo "$out"
[ $rc = 0 ] || fail "the guest commands failed ($rc)"
grep -q 'vSSD0 .*FEMU BlackBox-SSD Controller' <<<"$out" || fail "nvme list: no FEMU controller vSSD0"
# run-blackbox.sh's namespace: devsz_mb=12288 -> 12288 x 2048 sectors
grep -qx 'sectors=25165824 lbs=512' <<<"$out" || fail "namespace is not 12 GiB of 512 B sectors"
grep -q '^fr *: 1.0' <<<"$out" || fail "firmware revision"
grep -qx 'C0h before: 1000 0 0 0' <<<"$out" || fail "C0h before any write"
# 4 MiB of 128 KiB sequential writes: 1024 pages, no GC, WAF 1.000
grep -qx 'C0h after: 1000 1024 0 1024' <<<"$out" || fail "C0h after 4 MiB of writes"
grep -q 'waf-run: /dev/sda is not a block device' <<<"$out" || fail "waf-run.sh (with lib.sh) in the real guest"

# power off from inside: QEMU must exit 0 (the device's threads stop)
WAIT=0 "$SSH" sudo systemctl poweroff >/dev/null 2>&1 || true
for _ in $(seq 1 300); do kill -0 "$qpid" 2>/dev/null || break; sleep 1; done
kill -0 "$qpid" 2>/dev/null && { tail -20 "$log"; fail "QEMU still runs 300 s after poweroff"; }
wait "$qpid"; qrc=$?
trap 'rm -rf "$_femu_scratch"' EXIT
[ $qrc = 0 ] || { tail -20 "$log"; fail "QEMU exited $qrc after the guest powered off"; }
echo "blackbox-os: all checks passed (boot to SSH $boot s, total $((SECONDS - t0)) s)"
