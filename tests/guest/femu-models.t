#!/bin/bash
# Cell-type timing, the read cache and the trim cost in a Linux guest:
# QD1 reads of a TLC take their page type's time, a second pass over
# cached pages hits (C0h bytes 48-63) without NAND time, a Dataset
# Management range costs trim_lat_ns; the host link and the firmware CPU
# add their time to every read and write; mapping=dftl counts its
# translation-page accesses in C0h; mapping=hybrid (BAST) counts its
# merges in C0h: switch merges only for sequential overwrites, full
# merges copying whole blocks for random ones.
. "$(dirname "$0")/femu-lib.sh"
need_runner
G=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,devsz_mb=16
femu_guest models.sh --timeout 600 \
    -device femu,$G,nand_cell_type=3,lsb_rd_lat=10000000,csb_rd_lat=40000000,msb_rd_lat=70000000,lsb_wr_lat=1000,csb_wr_lat=1000,msb_wr_lat=1000 \
    -device femu,$G,pg_rd_lat=20000000,pg_wr_lat=1000,read_cache_mb=4,trim_lat_ns=200000000 \
    -device femu,$G,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,pcie_bandwidth_mbps=1,pcie_prop_delay_ns=5000000,fw_cpu_ns=10000000 \
    -device femu,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=1024,secs_per_pg=1,devsz_mb=16,mapping=dftl,mapping_cache_mb=1 \
    -device femu,$G,mapping=hybrid,log_blocks=4
