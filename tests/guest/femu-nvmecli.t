#!/bin/bash
# femu device as nvme-cli sees it, one boot: listing, Identify (JSON
# fields), log pages (SMART, error, firmware, effects with and without
# --csi, bad offsets, unknown pages), every Get Features FID with each
# select value, Set Features and read back, defaults after nvme reset,
# Invalid Command Opcode for what FEMU does not implement (self-test,
# sanitize, format, firmware, namespace management, reservations,
# Fabrics Property Get), show-regs, and the I/O
# commands on a 512 B and a 4096 B format.  docs/device.md lists the
# results.  iomem=relaxed lets nvme-cli map BAR0 (show-regs, effects-log
# without --csi), as on a host booted with it.
. "$(dirname "$0")/femu-lib.sh"
need_runner
G="nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25"
femu_guest nvmecli.sh --timeout 900 --append iomem=relaxed \
    -device femu,$G,uuid=6d8a8f27-3e0b-4c52-9a4e-f2a4c1d9b001 \
    -device femu,$G,secsz=4096
