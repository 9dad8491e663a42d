#!/bin/bash
# femu device end to end in the embedded guest, one boot: tutorial 01 facts
# (nvme list, 3355443 sectors, C0h before/after a 128 KiB sequential fill),
# QD1 latency >= NAND times, unwritten reads free, 0xEF controls, C1h,
# fio libaio / io_uring / io_uring_cmd verify, nvme reset, error statuses,
# and QEMU's exit status 0 at guest power-off.
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest basic.sh --timeout 900 \
    -device femu,nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25 \
    -device femu,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,pg_rd_lat=20000000,pg_wr_lat=20000000,blk_er_lat=0
