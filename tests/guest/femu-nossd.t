#!/bin/bash
# femu_mode=2 (NoSSD) next to a BlackBox SSD; a guest reboot keeps the data
# of both; QEMU exits 0 after the second boot powers off.
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest nossd-reboot.sh --timeout 600 -action reboot=reset \
    -device femu,femu_mode=2,devsz_mb=64 \
    -device femu,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
