#!/bin/bash
# Data integrity with GC running: for every gc_policy and with
# hot_cold_sep, random overwrites of 3x the namespace, trims, crc32c verify.
. "$(dirname "$0")/femu-lib.sh"
need_runner
G=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0
femu_guest gc.sh --timeout 1200 \
    -device femu,$G,gc_policy=greedy \
    -device femu,$G,gc_policy=fifo \
    -device femu,$G,gc_policy=random \
    -device femu,$G,gc_policy=cost-benefit \
    -device femu,$G,gc_policy=d-choice \
    -device femu,$G,gc_policy=greedy,hot_cold_sep=on
