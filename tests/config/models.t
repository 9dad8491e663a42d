#!/bin/bash
# NAND cell types, the trim cost and the read cache: bad values are
# refused (exit 1, one line naming the property), good ones start.
. "$(dirname "$0")/lib.sh"
refuse 'nand_cell_type=5: must be 1..4' femu,nand_cell_type=5
refuse 'nand_cell_type' femu,nand_cell_type=-1
refuse 'tsb_rd_lat=50000: nand_cell_type=3 \(TLC\) has no tsb pages' femu,nand_cell_type=3,tsb_rd_lat=50000
refuse 'csb_wr_lat=1: nand_cell_type=2 \(MLC\) has no csb pages' femu,nand_cell_type=2,csb_wr_lat=1
refuse 'msb_rd_lat=1: needs nand_cell_type' femu,msb_rd_lat=1
refuse 'lsb_rd_lat=20000000000: must be at most' femu,nand_cell_type=1,lsb_rd_lat=20000000000
refuse 'cell_pages=6: must be 1..5' femu,pgtype_lat=1,cell_pages=6
refuse 'pgtype_lat=1: only with nand_cell_type=0' femu,nand_cell_type=4,pgtype_lat=1
refuse 'trim_lat_ns=20000000000: must be at most' femu,trim_lat_ns=20000000000
refuse 'fw_cpu_ns=20000000000: must be at most' femu,fw_cpu_ns=20000000000
refuse 'pcie_bandwidth_mbps' femu,pcie_bandwidth_mbps=-1
refuse 'pcie_prop_delay_ns' femu,pcie_prop_delay_ns=x
# the default namespace is 1024 MiB
refuse 'read_cache_mb=1025 exceeds the namespace \(1024 MiB\)' femu,read_cache_mb=1025
refuse 'cache_evict' femu,read_cache_mb=64,cache_evict=mru
refuse 'cache_evict' femu,cache_evict=
for t in 0 1 2 3 4; do
    accept femu,nand_cell_type=$t
done
accept femu,nand_cell_type=4,lsb_rd_lat=50000,csb_rd_lat=60000,msb_rd_lat=70000,tsb_rd_lat=80000,tsb_wr_lat=9000000
accept femu,pgtype_lat=1,cell_pages=5
accept femu,trim_lat_ns=10000
accept femu,pcie_bandwidth_mbps=3938,pcie_prop_delay_ns=1000,fw_cpu_ns=2000
# mapping schemes
refuse 'mapping' femu,mapping=nkftl
refuse 'mapping_cache_mb=0: mapping=dftl caches at least one translation page' femu,mapping=dftl
refuse 'mapping_cache_mb=2048 exceeds the namespace \(1024 MiB\)' femu,mapping=dftl,mapping_cache_mb=2048
refuse 'state=.*: mapping=dftl: state files hold page-mapped FTLs only' femu,mapping=dftl,mapping_cache_mb=1,state=/nonexistent/x.femu
accept femu,mapping=dftl,mapping_cache_mb=1
accept femu,mapping=page
# log-block mappings: the default NAND has 16384 blocks of 256 pages, the
# 1 GiB namespace 1024 logical blocks
accept femu,mapping=hybrid
accept femu,mapping=fast,log_blocks=64
accept femu,mapping=hybrid,log_blocks=15359
refuse 'log_blocks=15360: mapping=hybrid needs 16385 blocks \(1024 data blocks \+ 15361\), the NAND has 16384' femu,mapping=hybrid,log_blocks=15360
refuse 'log_blocks=15359: mapping=fast needs 16385 blocks' femu,mapping=fast,log_blocks=15359
refuse 'log_blocks' femu,mapping=fast,log_blocks=0
refuse 'state=.*: mapping=fast: state files hold page-mapped FTLs only' femu,mapping=fast,state=/nonexistent/x.femu
for e in clock random lru arc; do
    accept femu,read_cache_mb=1024,cache_evict=$e
done
finish
