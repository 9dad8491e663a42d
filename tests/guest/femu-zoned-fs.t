#!/bin/bash
# File systems on a zoned + conventional pair on one controller
# (namespaces=2, namespace_modes=bbssd,znssd): f2fs across the pair
# (mkfs.f2fs -m -c ZONED CONV: metadata on the BlackBox namespace, data
# in the zones) and zonefs on the zoned namespace, each written, unmounted,
# remounted, read back with checksums and checked (fsck.f2fs; zonefs's
# file sizes from the write pointers).  Zones of 4 MiB on a 4-LUN row,
# max_open=max_active=14 (f2fs keeps six logs open, zonefs none).
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest zoned-fs.sh --timeout 900 --mem 1G --file "$ROOT/scripts/tutorials/zns-fs.sh:zns-fs.sh" \
    --file "$ROOT/scripts/tutorials/lib.sh:lib.sh" \
    -device femu,serial=ZF,nchs=2,luns_per_ch=2,blks_per_pl=256,pgs_per_blk=256,devsz_mb=768,namespaces=2,namespace_modes=bbssd,,znssd,namespace_sizes=128M,,256M,zone_luns=4,zone_size_mb=4,max_open=14,max_active=14
