#!/bin/bash
# NAND times (ns) beyond 10 s are refused at start-up (exit 1, message
# naming the property): emulated clocks are signed 64-bit nanoseconds,
# and a time near 2^63 would wrap them so that commands never complete.
# See tests/config/lib.sh for the row format.
. "$(dirname "$0")/lib.sh"
for p in pg_rd_lat pg_wr_lat blk_er_lat ch_xfer_lat; do
    # the largest value a uint64 property holds, 2^63 and just past 10 s
    for v in 18446744073709551615 9223372036854775808 10000000001; do
        refuse "^$p=$v: must be at most 10000000000 ns" femu,$p=$v
    done
    # in NoSSD mode too: the same property means the same thing
    refuse "^$p=9223372036854775807: must be at most" \
        femu,femu_mode=2,$p=9223372036854775807
    # 10 s itself and 0 (no delay) are accepted
    accept femu,$p=10000000000
    accept femu,$p=0
done
# all four at the bound together
accept femu,pg_rd_lat=10000000000,pg_wr_lat=10000000000,blk_er_lat=10000000000,ch_xfer_lat=10000000000
finish
