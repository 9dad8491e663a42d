#!/bin/bash
# femu_mode=3 (Zoned Namespace SSD): zone properties that cannot work are
# refused at start-up with a message naming the property.
. "$(dirname "$0")/lib.sh"
Z=femu,femu_mode=3,nchs=2,luns_per_ch=4,blks_per_pl=16,pgs_per_blk=64
accept $Z,zone_luns=2,zone_size_mb=2,zone_cap_mb=1,max_open=2,max_active=3,zasl=2
accept $Z,zone_luns=8
refuse 'zone_luns=3' $Z,zone_luns=3
refuse 'zone_luns=0' $Z,zone_luns=0
refuse 'zone_luns=16' $Z,zone_luns=16
# 8 LUNs x 256 KiB blocks: a zone is a multiple of 2 MiB
refuse 'zone_size_mb=1' $Z,zone_luns=8,zone_size_mb=1
refuse 'zone_size_mb=3.*power of two' $Z,zone_luns=2,zone_size_mb=3
refuse 'zone_size_mb=64.*blks_per_pl=16' $Z,zone_luns=2,zone_size_mb=64
refuse 'zone_cap_mb=3' $Z,zone_luns=2,zone_size_mb=2,zone_cap_mb=3
refuse 'max_open=4' $Z,max_open=4,max_active=2
refuse 'max_open=0' $Z,max_active=2
refuse 'zasl=8' $Z,mdts=7,zasl=8
refuse 'secs_per_pg' $Z,secsz=4096,secs_per_pg=4
refuse 'femu_mode=3.*2\^32' femu,femu_mode=3,blks_per_pl=65536,pgs_per_blk=256
# Zone Random Write Area and descriptor extensions (FEMU upstream's names
# and limits; zones of 2048 blocks of 512 B here)
accept $Z,zns_zrwa_size=64,zns_zrwafg_size=16,zns_zrwa_num=2,zns_zd_ext_size=64
refuse '^zns_zrwafg_size=0: must be 1..65535' $Z,zns_zrwa_size=64
refuse '^zns_zrwafg_size=65536' $Z,zns_zrwa_size=64,zns_zrwafg_size=65536,zns_zrwa_num=1
refuse '^zns_zrwa_size=70000: must be 0..65535' $Z,zns_zrwa_size=70000,zns_zrwafg_size=8,zns_zrwa_num=1
refuse '^zns_zrwa_size=64: must be a multiple of zns_zrwafg_size=24' $Z,zns_zrwa_size=64,zns_zrwafg_size=24,zns_zrwa_num=1
refuse '^zns_zrwa_num=0: must be at least 1' $Z,zns_zrwa_size=64,zns_zrwafg_size=16
refuse '^zns_zrwafg_size=16: needs zns_zrwa_size' $Z,zns_zrwafg_size=16
refuse '^zns_zrwa_num=2: needs zns_zrwa_size' $Z,zns_zrwa_num=2
refuse '^zns_zrwa_size=4096: must be at most the zone capacity' $Z,zns_zrwa_size=4096,zns_zrwafg_size=8,zns_zrwa_num=1
refuse '^zns_zrwa_num=9: more ZRWA resources than zones can be open \(max_open=8\)' $Z,zns_max_open=8,zns_zrwa_size=64,zns_zrwafg_size=16,zns_zrwa_num=9
accept $Z,zns_max_open=8,zns_zrwa_size=64,zns_zrwafg_size=16,zns_zrwa_num=8
refuse '^zns_zd_ext_size=100: must be a multiple of 64' $Z,zns_zd_ext_size=100
refuse '^zns_zd_ext_size=16384: must be a multiple of 64 up to 16320' $Z,zns_zd_ext_size=16384
refuse 'femu_mode=1' femu-subsys,id=fdp0,fdp=on,fdp.nruh=4 $Z,subsys=fdp0
# the zoned write cache (write_cache_mb, docs/write-cache.md): at most
# the namespace (32 MiB here)
accept $Z,write_cache_mb=4,vwc=1
refuse '^write_cache_mb=64 exceeds the zoned namespace \(32 MiB\)' $Z,write_cache_mb=64,vwc=1
finish
