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
. "$(dirname "$0")/os-image.sh"
os_image_require "${FEMU_OS_IMAGE_SUITE:-bookworm}"
os_image_boot

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
os_image_poweroff
echo "blackbox-os: all checks passed (boot to SSH $boot s, total $((SECONDS - t0)) s)"
