#!/bin/bash
# femu_mode=3 with a Zone Random Write Area and zone descriptor
# extensions, driven by nvme-cli's zns commands: Identify's ZRWA fields
# and ZDES; open-zone --zrwaa and the ZRWA resource limit; writes and
# overwrites anywhere in the window read back, the write pointer stays;
# implicit commit by a write past the window; explicit commit with
# zrwa-flush-zone and zone-mgmt-send ZSA 11h; Close keeps the ZRWA,
# Finish and Reset give it back; every error status nvme-cli reports;
# C0h counts programs at commit only; set-zone-desc and report-zones -e.
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest zrwa.sh --timeout 300 --file "$ROOT/scripts/tutorials/zrwa-run.sh:zrwa-run.sh" \
    --file "$ROOT/scripts/tutorials/lib.sh:lib.sh" \
    -device femu,femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,zone_luns=2,zone_size_mb=2,zone_cap_mb=1,max_open=6,max_active=8,zns_zrwa_size=64,zns_zrwafg_size=16,zns_zrwa_num=2,zns_zd_ext_size=64
