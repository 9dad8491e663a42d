#!/bin/bash
# FEMU's tutorial 01, step 2, as published: from build-femu/, its own QEMU
# command line (the default pc machine, 4 vCPUs, 4 GiB, the guest image as
# qcow2 on a virtio-scsi disk, -net user/-net nic, the 2 GiB BlackBox SSD
# with op_pcent=25, -nographic) boots the Debian image of
# scripts/guest/build-os-image.sh; log in over the forwarded SSH port, the
# guest sees the FEMU BlackBox SSD with 3355443 sectors (2 GiB / 1.25),
# power off, QEMU exits 0.
#
# Changed from the tutorial's text only where a test must: -enable-kvm
# -cpu host becomes -cpu max where KVM does not work here (run-blackbox.sh
# --print-accel probes it), $OSIMGF is a qcow2 overlay backed by the
# cached image (which is not changed), $SSH_PORT a free port, stdin
# /dev/null.
#
# Skips (77) unless the image is already built (~/.cache/femu/os-image/)
# or FEMU_OS_IMAGE_TESTS=1, which builds it first.
. "$(dirname "$0")/../guest/lib.sh"
require_qemu
. "$(dirname "$0")/os-image.sh"
os_image_require "${FEMU_OS_IMAGE_SUITE:-bookworm}"
command -v qemu-img >/dev/null ||
    { echo "skip: no qemu-img (apt-get install qemu-utils)"; exit 77; }

# the guest's disk: written by the guest, so an overlay on the cached image
base=$OSIMGF
OSIMGF=$(scratch)/tut01.qcow2
qemu-img create -q -f qcow2 -b "$base" -F "$OSIMGFMT" "$OSIMGF" ||
    fail "qemu-img create of the overlay failed"

accel=$(QEMU=$QEMU "$FEMU_ROOT/scripts/run-blackbox.sh" --print-accel) ||
    fail "run-blackbox.sh --print-accel failed"
case $accel in
kvm) KVM=(-enable-kvm -cpu host) ;;
*) KVM=(-cpu max) ;;
esac

# the tutorial's step 2, from build-femu/ (SSH_PORT: os_image_boot's)
tut01_qemu() {
    cd "$(dirname "$QEMU")" || exit 1
    exec ./qemu-system-x86_64 -name femu-tut01,debug-threads=on \
        "${KVM[@]}" -smp 4 -m 4G \
        -device virtio-scsi-pci,id=scsi0 -device scsi-hd,drive=hd0 \
        -drive file=$OSIMGF,if=none,cache=none,format=qcow2,id=hd0 \
        -net user,hostfwd=tcp::$SSH_PORT-:22 -net nic,model=virtio \
        -device femu,femu_mode=1,nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25 \
        -nographic
}
BOOT_WHAT="tutorial 01's command line, ${KVM[*]}, -smp 4 -m 4G"
os_image_boot tut01_qemu

out=$(WAIT=0 "$SSH" bash -s <<'GUEST' 2>&1
set -e
sudo nvme list
echo "sectors=$(cat /sys/block/nvme0n1/size)"
# the root disk is the virtio-scsi one
echo "root=$(findmnt -n -o SOURCE /)"
GUEST
)
rc=$?
echo "$out"
[ $rc = 0 ] || fail "the guest commands failed ($rc)"
grep -q '^/dev/nvme0n1 .* vSSD0 .*FEMU BlackBox-SSD Controller' <<<"$out" ||
    fail "nvme list: no FEMU BlackBox SSD at /dev/nvme0n1"
# op_pcent=25: 2 GiB of NAND / 1.25 = 1717986918 bytes = 3355443 sectors
grep -qx 'sectors=3355443' <<<"$out" || fail "the namespace is not 3355443 sectors"
grep -qx 'root=/dev/sda1' <<<"$out" || fail "the root file system is not on the virtio-scsi disk"

os_image_poweroff
echo "tut01-cmdline: all checks passed (boot to SSH $boot s, total $((SECONDS - t0)) s)"
