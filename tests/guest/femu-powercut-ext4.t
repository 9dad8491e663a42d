#!/bin/bash
# Power loss under ext4, in a Linux guest that boots twice (as
# femu-powercut.t: -action reboot=reset keeps QEMU, and so the devices,
# across a guest crash).  Two 256 MiB devices with 20 ms programs and a
# 16 MiB write cache; the guest turns the second one's cache off with Set
# Features 06h.  The first boot makes ext4 (4 KiB blocks, one NAND page
# each) on both, writes files and fsyncs them, then keeps writing files
# nobody syncs (with writeback every 0.2 s, so they reach the device; no
# periodic journal commit on the cached device, whose Flush would empty
# the cache just before the cut) and rewriting four fsync'd files in
# place with O_DIRECT (a record file says which generation the device
# acknowledged) while 0xEF code 12 cuts the power on both, and crashes the
# guest.  The second boot finds: the cached device lost pages, the
# uncached one none; each file system mounts (the journal replay is the
# normal recovery), and after its umount a forced fsck.ext4 -f -n is
# clean; every fsync'd file is intact, no surviving file holds data other
# than its own or zeroes, every rewritten block is one of its generations
# and, without the cache, none older than the acknowledged one.
. "$(dirname "$0")/femu-lib.sh"
need_runner
F=nchs=2,luns_per_ch=2,blks_per_pl=128,pgs_per_blk=256,devsz_mb=256,pg_wr_lat=20000000
femu_guest powercut-ext4.sh --timeout 900 --mem 1G -action reboot=reset \
    -device femu,$F,write_cache_mb=16 \
    -device femu,$F,write_cache_mb=16
