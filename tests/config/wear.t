#!/bin/bash
# Wear and bad blocks (docs/reliability.md): bad values are refused
# (exit 1, one line naming the property), good ones start.
. "$(dirname "$0")/lib.sh"
refuse 'pe_cycles=0: must be 1..4294967295' femu,pe_cycles=0
refuse 'wl_threshold=0: must be 1..4294967295' femu,wear_leveling=on,wl_threshold=0
refuse 'wear_leveling=on: not with mapping=dftl' femu,wear_leveling=on,mapping=dftl,mapping_cache_mb=1
# the default device's spare is 226 lines of 64 blocks
refuse 'nand_bad_blocks=20000 exceeds the spare: 226 lines of 64 blocks' femu,nand_bad_blocks=20000
refuse 'nand_bad_blocks=1000 exceeds the spare: they fall in 252 lines' femu,nand_bad_blocks=1000
# at the smallest op_pcent the reserve rule accepts nothing may be retired
refuse 'nand_bad_blocks=1 exceeds the spare: 0 lines' femu,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=7,nand_bad_blocks=1
accept femu,pe_cycles=1
accept femu,pe_cycles=100000,nand_bad_blocks=100
accept femu,wear_leveling=on,wl_threshold=10
finish
