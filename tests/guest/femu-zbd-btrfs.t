#!/bin/bash
# femu_mode=3: a zoned btrfs in the guest (btrfs module and mkfs.btrfs from
# the embedded guest): mkfs, mount, write, unmount, remount, read back and
# verify checksums; delete and rewrite files until btrfs resets zones, and
# verify again.  64 zones of 4 MiB (btrfs needs zones of at least 4 MiB and
# 8 or more active zones), max_open=max_active=14.
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest zbd-btrfs.sh --timeout 900 --mem 1G \
    -device femu,femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=256,zone_luns=4,zone_size_mb=4,max_open=14,max_active=14
