#!/bin/bash
# Namespace Management and Attachment (ns_mgmt=on), from the guest with
# nvme-cli: Identify (OACS bit 3, NN, TNVMCAP / UNVMCAP, NVMCAP), create-ns
# on the free capacity, attach-ns (Linux sees the new namespace: the
# Namespace Attribute Changed notice, its log page 04h read), fio crc32c
# write + verify on it, detach-ns, delete-ns (the capacity comes back and
# a namespace created again over it reads zeroes), every misuse with the
# NVMe status nvme-cli prints, and namespace 1's data untouched by all
# of it.
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest ns-mgmt.sh --timeout 900 \
    -device femu,serial=M,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=256,devsz_mb=192,namespace_sizes=64M,ns_mgmt=on
