#!/bin/bash
# Geometry properties that cannot work are refused at start-up (exit 1,
# message naming the property); see tests/config/lib.sh for the row format.
. "$(dirname "$0")/lib.sh"
# zeros: each geometry property on its own
for p in nchs luns_per_ch pls_per_lun blks_per_pl pgs_per_blk secs_per_pg; do
    refuse "$p=0" femu,$p=0
done
# zeros in NoSSD mode too (the namespace size comes from the geometry)
refuse 'nchs' femu,femu_mode=2,nchs=0,op_pcent=25
# overflow: more NAND pages than 32-bit page numbers can address
refuse 'nchs x luns_per_ch x pls_per_lun x blks_per_pl x pgs_per_blk' \
    femu,nchs=65536,luns_per_ch=65536
refuse 'nchs x luns_per_ch' femu,nchs=4096,luns_per_ch=4096,blks_per_pl=4096,pgs_per_blk=4096
refuse 'nchs x luns_per_ch x pls_per_lun' femu,femu_mode=2,nchs=65536,luns_per_ch=65536,blks_per_pl=65536,pgs_per_blk=65536,op_pcent=25
refuse 'secs_per_pg=2048' femu,secs_per_pg=2048
# values a uint32 property cannot hold
refuse 'nchs' femu,nchs=4294967296
refuse 'blks_per_pl' femu,blks_per_pl=-1
# logical block size
refuse 'secsz=1000' femu,secsz=1000
refuse 'secsz=8192' femu,secsz=8192
refuse 'secsz=0' femu,secsz=0
refuse 'secsz=4096.*secs_per_pg=4' femu,secsz=4096,secs_per_pg=4
refuse 'secsz=8192' femu,femu_mode=2,secsz=8192
# and what works
accept femu
accept femu,secsz=4096
# one-page lines (the FTL fuzzer's first crash)
accept femu,nchs=1,luns_per_ch=1,pgs_per_blk=1,blks_per_pl=64,op_pcent=25
finish
