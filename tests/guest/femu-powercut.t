#!/bin/bash
# Power loss with the write cache, in a Linux guest that boots twice: the
# first boot writes, cuts the power (power_cut_after=N on two raw devices,
# 0xEF code 12 under a btrfs with fsync'd files) and crashes the guest
# (sysrq b); the second finds what survived.  With the cache, the blocks
# written but not on NAND read their previous data again (a suffix of the
# write order, as many as C0h says were lost); without it nothing
# acknowledged is lost; the btrfs mounts, every file reads back without a
# checksum error and the fsync'd files are intact (no btrfs check in the
# guest).  femu-powercut-ext4.t does the same with ext4 and fsck.ext4.
. "$(dirname "$0")/femu-lib.sh"
need_runner
R=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,devsz_mb=16,pg_wr_lat=20000000
F=nchs=2,luns_per_ch=2,blks_per_pl=128,pgs_per_blk=256,devsz_mb=256,pg_wr_lat=20000000
femu_guest powercut.sh --timeout 900 --mem 1G -action reboot=reset \
    -device femu,$F,write_cache_mb=16 \
    -device femu,$R,write_cache_mb=4,power_cut_after=125 \
    -device femu,$R,power_cut_after=125
