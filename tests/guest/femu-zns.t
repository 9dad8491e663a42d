#!/bin/bash
# femu_mode=3 (Zoned Namespace SSD): Linux binds a host-managed zoned
# namespace; blkzone, nvme zns (id-ctrl, id-ns, report-zones,
# zone-mgmt-send, open/close/finish/reset, zone-append) and fio's
# zonemode=zbd with verify work; zone errors reach the tools; tutorial
# 06's zns-run.sh (QD part) runs; the Changed Zone List log page and its
# asynchronous event (0xEF code 9 fails zones).
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest zns.sh --timeout 300 --file "$ROOT/scripts/tutorials/zns-run.sh:zns-run.sh" \
    --file "$ROOT/scripts/tutorials/lib.sh:lib.sh" \
    -device femu,femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,zone_luns=2,zone_size_mb=2,zone_cap_mb=1,max_open=6,max_active=8,zasl=4
