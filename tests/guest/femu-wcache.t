#!/bin/bash
# The DRAM write cache (write_cache_mb) in a Linux guest: Identify reports
# the volatile write cache, Get/Set Features 06h read it and turn it off
# and on, QD1 writes of a burst smaller than the cache take transfer time
# instead of the program time, Flush waits for the destages and then has
# nothing to wait for, a FUA write waits for NAND, C0h counts it all.
. "$(dirname "$0")/femu-lib.sh"
need_runner
G=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,devsz_mb=16,pg_wr_lat=20000000,pcie_bandwidth_mbps=1000
femu_guest wcache.sh --timeout 600 \
    -device femu,$G,write_cache_mb=4 \
    -device femu,$G
