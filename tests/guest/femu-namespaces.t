#!/bin/bash
# Several namespaces on one controller (namespaces, namespace_modes,
# namespace_sizes): FEMU upstream's README example (a zoned namespace and
# a BlackBox one), and four BlackBox + NoSSD namespaces sharing one FTL.
# Linux binds every namespace with its size and command set; nvme-cli's
# list-ns, id-ns (NSZE, NUSE), ns-descs (distinct identifiers) and the
# per-namespace SMART log say what each is; fio writes and verifies
# (crc32c) on each without touching the others' data.
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest namespaces.sh --timeout 900 \
    -device femu,serial=Z,devsz_mb=8192,namespaces=2,namespace_modes=znssd,,bbssd \
    -device femu,serial=B,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=256,devsz_mb=192,namespaces=4,namespace_modes=bbssd,,bbssd,,nossd,,bbssd,namespace_sizes=64M,,,,32M,,
