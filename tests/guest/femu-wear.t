#!/bin/bash
# Wear in the guest (docs/reliability.md): with a tiny device and
# pe_cycles=30, fio writes until nvme smart-log shows Percentage Used
# rising and Available Spare falling, then read-only media (Critical
# Warning bits 0, 2 and 3, their SMART / Health events once each, Write
# Fault); with FDP, log page 09h agrees.
. "$(dirname "$0")/femu-lib.sh"
need_runner
G=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,pe_cycles=30
femu_guest wear.sh --timeout 1200 \
    -device femu,$G,serial=vSSD0 \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=2 \
    -device femu,$G,serial=vSSD1,subsys=fdp0
