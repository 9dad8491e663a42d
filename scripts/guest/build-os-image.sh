#!/bin/bash
# build-os-image.sh: build a small bootable Debian OS image for
# scripts/run-blackbox.sh (the "your own OS image" of docs/quick-start.md)
# and for tutorial 01's own QEMU command line (virtio-scsi, format=qcow2),
# from Debian's archive with debootstrap: a kernel, systemd, openssh-server,
# nvme-cli, fio, python3, sudo, DHCP on the virtio NIC (systemd-networkd),
# a serial console on ttyS0, and a user femu (password femu, passwordless
# sudo, and an SSH key made for this image).
#
#   scripts/guest/build-os-image.sh [--suite bookworm|trixie] [--size 4G]
#                                   [--force] [--print-env] [--cached]
#
# Result (cached; reused unless --force):
#   ~/.cache/femu/os-image/SUITE/disk.qcow2 qcow2 disk, MBR, one ext4
#                                           partition, extlinux boot loader;
#                                           the root file system is found by
#                                           its UUID (kernel command line and
#                                           fstab), so the image boots from a
#                                           virtio disk (/dev/vda) and from a
#                                           virtio-scsi one (/dev/sda) alike
#   ~/.cache/femu/os-image/SUITE/id_ed25519 the SSH key of user femu
#   ~/.cache/femu/os-image/SUITE/env        OSIMGF, OSIMGFMT, GUEST_USER and
#                                           SSH_OPTS for run-blackbox.sh,
#                                           run-guest-ssh.sh and tutorial
#                                           01's command line: ". .../env"
# --print-env prints that env file's path (building the image if needed).
# --cached exits 0 when a current image is cached, else says why and exits
# 1.  An image made by an older version of this script (a raw disk.raw
# whose root was /dev/vda1: it cannot boot from virtio-scsi) is not
# current: without --cached it is rebuilt (as root) or refused.
#
# Needs root (debootstrap, a loop mount to install the boot loader) and the
# host packages debootstrap, extlinux, syslinux-common, fdisk, qemu-utils
# (installed with apt-get when missing).  The mirror is this machine's own
# apt mirror (/etc/apt/sources.list.d/*.sources URIs:, else
# /etc/apt/sources.list),
# or FEMU_DEBIAN_MIRROR.  Takes a few minutes and about 1 GiB of disk (see
# docs/quick-start.md for the time measured here).
#
# The image's SSH host keys are made once, at build time: every boot of
# the image is the same host.  The password and key are for a throw-away
# test VM: do not expose its SSH port beyond 127.0.0.1 (run-blackbox.sh
# forwards it on 127.0.0.1 only).
set -euo pipefail
ME=build-os-image
CACHE=${FEMU_CACHE_DIR:-$HOME/.cache/femu}
SUITE=bookworm SIZE=4G FORCE=0 PRINT=0 CACHED=0
# the image layout this script makes; "complete" records it, and a cached
# image without it (or older) is rebuilt
LAYOUT=2
die() { echo "$ME: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
    case $1 in
    --suite) [ $# -ge 2 ] || die "--suite needs a value"; SUITE=$2; shift 2 ;;
    --size) [ $# -ge 2 ] || die "--size needs a value"; SIZE=$2; shift 2 ;;
    --force) FORCE=1; shift ;;
    --print-env) PRINT=1; shift ;;
    --cached) CACHED=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option $1 (--help)" ;;
    esac
done
case $SUITE in bookworm|trixie) ;; *) die "--suite must be bookworm or trixie" ;; esac
[[ $SIZE =~ ^[0-9]+[MG]$ ]] || die "--size must be like 4G or 3000M"
D=$CACHE/os-image/$SUITE
# why the cache cannot be used as it is ("" when it can)
stale() {
    if [ ! -f "$D/complete" ]; then
        echo "no $SUITE image in $D"
    elif ! grep -qx "layout $LAYOUT" "$D/complete" || [ ! -f "$D/disk.qcow2" ]; then
        echo "$D holds an image made by an older build-os-image.sh (raw, root=/dev/vda1: it cannot boot from virtio-scsi)"
    fi
}
why=$(stale)
if [ "$CACHED" = 1 ]; then
    [ -z "$why" ] || { echo "$ME: $why" >&2; exit 1; }
    exit 0
fi
if [ "$FORCE" = 0 ] && [ -z "$why" ]; then
    [ "$PRINT" = 1 ] && echo "$D/env" || echo "$ME: cached: $D/disk.qcow2 (--force rebuilds)" >&2
    exit 0
fi
[ "$(id -u)" = 0 ] || die "${why:+$why; }building needs root (debootstrap, loop mount)"
[ "$FORCE" = 1 ] || [ ! -f "$D/complete" ] || echo "$ME: $why: rebuilding it" >&2

# The mirror comes from this machine's apt configuration (configure's
# femu_mirror); the repository never names a host.
. "$(dirname "$0")/../graft/lib.sh"
# host tools (installed with apt-get when missing)
femu_need 'cmd:debootstrap|debootstrap' 'cmd:extlinux|extlinux' \
    'file:/usr/lib/syslinux/mbr/mbr.bin|syslinux-common' 'cmd:sfdisk|fdisk' \
    'cmd:ssh-keygen|openssh-client' 'cmd:mke2fs|e2fsprogs' 'cmd:mount|mount' \
    'cmd:qemu-img|qemu-utils'
MIRROR=$(femu_mirror)

mkdir -p "$D"
exec 9>"$D/.lock"
flock -n 9 || die "another build of $D is running"
rm -f "$D/complete"
W=$D/work
MNT=$D/mnt
cleanup() {
    mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
    for m in dev/pts dev proc sys; do mountpoint -q "$W/root/$m" 2>/dev/null && umount -l "$W/root/$m"; done
    return 0
}
trap cleanup EXIT
rm -rf "$W"
mkdir -p "$W/root" "$MNT"
t0=$SECONDS

echo "$ME: debootstrap $SUITE from $MIRROR (minutes)" >&2
PKGS=systemd-sysv,udev,kmod,linux-image-amd64,initramfs-tools,openssh-server,sudo
PKGS+=,dbus,nvme-cli,fio,python3,iproute2,procps,less,ca-certificates
debootstrap --variant=minbase --include="$PKGS" "$SUITE" "$W/root" "$MIRROR" \
    >"$D/debootstrap.log" 2>&1 || { tail -20 "$D/debootstrap.log" >&2; die "debootstrap failed (log: $D/debootstrap.log)"; }

R=$W/root
# the root file system by UUID, not by device name: /dev/vda1 on a virtio
# disk is /dev/sda1 on virtio-scsi
uuid=$(cat /proc/sys/kernel/random/uuid)
echo femu-guest >"$R/etc/hostname"
printf '127.0.0.1 localhost\n127.0.1.1 femu-guest\n' >"$R/etc/hosts"
echo "UUID=$uuid / ext4 defaults,errors=remount-ro 0 1" >"$R/etc/fstab"
# DHCP on whatever the virtio NIC is called (QEMU's user network answers)
mkdir -p "$R/etc/systemd/network"
printf '[Match]\nName=en* eth*\n\n[Network]\nDHCP=yes\n' >"$R/etc/systemd/network/20-dhcp.network"
echo "deb $MIRROR $SUITE main" >"$R/etc/apt/sources.list"
# user femu, password femu, sudo without password, the image's SSH key
rm -f "$D/id_ed25519" "$D/id_ed25519.pub"
ssh-keygen -q -t ed25519 -N '' -C femu-os-image -f "$D/id_ed25519"
chroot "$R" /bin/sh -e -c '
    systemctl enable systemd-networkd ssh serial-getty@ttyS0 >/dev/null 2>&1
    useradd -m -s /bin/bash femu
    echo femu:femu | chpasswd
    echo root:femu | chpasswd
    echo "femu ALL=(ALL) NOPASSWD:ALL" >/etc/sudoers.d/femu
    chmod 440 /etc/sudoers.d/femu
    install -d -m 700 -o femu -g femu /home/femu/.ssh'
install -m 600 "$D/id_ed25519.pub" "$R/home/femu/.ssh/authorized_keys"
chroot "$R" chown femu:femu /home/femu/.ssh/authorized_keys
chroot "$R" apt-get clean

kver=$(ls "$R/boot" | sed -n 's/^vmlinuz-//p' | sort -V | tail -1)
[ -n "$kver" ] && [ -f "$R/boot/initrd.img-$kver" ] || die "no kernel or initrd in the image's /boot"
# the initramfs must find the root disk on either bus (Debian's default
# MODULES=most takes the SCSI and virtio drivers; check, not assume: each
# must be in the initramfs or built into the kernel)
ko() { sed -En 's|.*/([-a-z0-9_]+)\.ko(\.[a-z]+)?$|\1|p'; }
mods=$( { chroot "$R" lsinitramfs "/boot/initrd.img-$kver"; cat "$R/lib/modules/$kver/modules.builtin"; } | ko)
for m in virtio_scsi sd_mod virtio_blk; do
    grep -qx "$m" <<<"$mods" || die "the initramfs of $kver has no $m module (the image could not find its root disk)"
done
mkdir -p "$R/boot/extlinux"
cat >"$R/boot/extlinux/extlinux.conf" <<EOF
DEFAULT debian
PROMPT 0
TIMEOUT 0
LABEL debian
    LINUX /boot/vmlinuz-$kver
    INITRD /boot/initrd.img-$kver
    APPEND root=UUID=$uuid rw console=tty0 console=ttyS0,115200 no_timer_check
EOF

echo "$ME: making $D/disk.qcow2 ($SIZE)" >&2
img=$D/disk.raw.tmp
# an older layout's files go
rm -f "$img" "$D/disk.raw" "$D/disk.qcow2"
truncate -s "$SIZE" "$img"
# one bootable Linux partition from 1 MiB to the end
echo 'start=2048, type=83, bootable' | sfdisk -q "$img" >/dev/null
bytes=$(stat -c %s "$img")
# the file system is made straight from the directory (mke2fs -d), at the
# partition's offset; no 64bit feature: extlinux does not boot from it
mke2fs -q -t ext4 -O ^64bit -L femu-root -U "$uuid" -E offset=1048576 -d "$R" "$img" \
    $(( (bytes - 1048576) / 1024 ))k
mount -o loop,offset=1048576 "$img" "$MNT" || die "cannot loop-mount the new image (needed for extlinux)"
extlinux --install "$MNT/boot/extlinux" >/dev/null 2>&1 || die "extlinux --install failed"
umount "$MNT"
dd if=/usr/lib/syslinux/mbr/mbr.bin of="$img" bs=440 count=1 conv=notrunc status=none
# qcow2 for tutorial 01's -drive ...,format=qcow2 (run-blackbox.sh takes
# it too); the raw file is only the loop-mountable stage
qemu-img convert -f raw -O qcow2 "$img" "$D/disk.qcow2.tmp"
rm -f "$img"
mv "$D/disk.qcow2.tmp" "$D/disk.qcow2"
rm -rf "$W"
cat >"$D/env" <<EOF
# source this for scripts/run-blackbox.sh, scripts/run-guest-ssh.sh and
# tutorial 01's QEMU command line
export OSIMGF=$D/disk.qcow2
export OSIMGFMT=qcow2
export GUEST_USER=femu
export SSH_OPTS="-i $D/id_ed25519 -o IdentitiesOnly=yes"
EOF
printf '%s kernel %s built in %s s, root UUID=%s\nlayout %s\n' \
    "$SUITE" "$kver" $(( SECONDS - t0 )) "$uuid" "$LAYOUT" >"$D/complete"
echo "$ME: done in $(( SECONDS - t0 )) s: $D/disk.qcow2 ($(du -h "$D/disk.qcow2" | cut -f1) of $SIZE); . $D/env" >&2
[ "$PRINT" = 1 ] && echo "$D/env"
exit 0
