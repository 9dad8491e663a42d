#!/bin/bash
# Namespace sizing that cannot work is refused (exit 1, message naming the
# property): larger than the NAND, empty, or too little spare for GC.
. "$(dirname "$0")/lib.sh"
ex=femu,nchs=4,luns_per_ch=4,blks_per_pl=128   # 2 GiB NAND, 128 lines of 16 MiB
# larger than the NAND (default geometry: 16 GiB)
refuse 'devsz_mb=20000 exceeds the NAND' femu,devsz_mb=20000
refuse 'devsz_mb=2049' $ex,devsz_mb=2049
refuse 'devsz_mb' femu,devsz_mb=18446744073709551615
refuse 'devsz_mb=0' femu,devsz_mb=0
# the whole NAND as namespace leaves GC nothing
refuse 'devsz_mb=2048 leaves too little spare' $ex,devsz_mb=2048
refuse 'op_pcent=0 leaves too little spare' $ex,op_pcent=0
# on that geometry 5 % spare is refused, 7 % (near the smallest) accepted
refuse 'op_pcent=5 leaves too little spare' $ex,op_pcent=5
accept $ex,op_pcent=7
accept $ex,op_pcent=25
accept $ex,devsz_mb=1536
refuse 'op_pcent=-2' femu,op_pcent=-2
refuse 'op_pcent' femu,op_pcent=2147483648
refuse 'op_pcent=-2' femu,femu_mode=2,op_pcent=-2
# a huge op_pcent leaves an empty namespace
refuse 'namespace is empty|op_pcent' femu,nchs=1,luns_per_ch=1,blks_per_pl=8,pgs_per_blk=1,op_pcent=2147483647
# NoSSD mode: no NAND, but a namespace must exist and fit its limit
refuse 'devsz_mb=0' femu,femu_mode=2,devsz_mb=0
refuse 'devsz_mb' femu,femu_mode=2,devsz_mb=999999999999
accept femu,femu_mode=2,devsz_mb=65536
finish
