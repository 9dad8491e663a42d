#!/bin/bash
# FEMU upstream's own device strings, as its scripts write them, in one
# guest: run-blackbox.sh (a 12 GiB BlackBox SSD), run-blackbox-fdp.sh
# (femu-subsys with nqn, fdp.nrg, and the same SSD with subsys=),
# run-zns.sh (zns_num_* geometry, zns_flash_type, femu_mode=3) and
# run-nossd.sh (-device femu,devsz_mb=4096,id=nvme0).  Linux binds every
# controller; fio writes and verifies (crc32c) on each namespace, with
# zonemode=zbd on the zoned one.  A fifth controller sets FEMU's
# controller knobs (vid, did, vwc, oacs, oncs) and zns_cross_zone_read=off:
# Identify and PCI show them, and a read across a zone boundary fails.
. "$(dirname "$0")/femu-lib.sh"
need_runner
bb=devsz_mb=12288,namespaces=1,femu_mode=1,secsz=512,secs_per_pg=8,pgs_per_blk=256,blks_per_pl=256,pls_per_lun=1,luns_per_ch=8,nchs=8,pg_rd_lat=40000,pg_wr_lat=200000,blk_er_lat=2000000,ch_xfer_lat=0,gc_thres_pcent=75,gc_thres_pcent_high=95
femu_guest upstream-cmdlines.sh --timeout 900 \
    -device "femu,$bb" \
    -device femu-subsys,id=femu-subsys-0,nqn=subsys0,fdp=on,fdp.nruh=4,fdp.nrg=1,fdp.nru=256 \
    -device "femu,$bb,subsys=femu-subsys-0" \
    -device femu,devsz_mb=4096,namespaces=1,zns_num_ch=8,zns_num_lun=4,zns_num_plane=2,zns_num_blk=32,zns_flash_type=4,femu_mode=3 \
    -device femu,devsz_mb=4096,id=nvme0 \
    -device femu,serial=K,femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=16,pgs_per_blk=64,zone_luns=2,zns_cross_zone_read=off,vid=0x1b36,did=0x10,vwc=0,oacs=0x100,oncs=0x4
