#!/bin/bash
# The optional NVM commands (Compare, Verify,
# Dataset Management, Write Zeroes, a bad Format) through nvme-cli on a
# BlackBox FEMU and on QEMU's own nvme device in one boot: the same NVMe
# status for each command and the same data read back (QEMU's nvme is the
# reference where both have the command; docs/commands.md).
. "$(dirname "$0")/femu-lib.sh"
need_runner
T=$(mktemp -d /tmp/femu-cmds-ref.XXXXXX)
trap 'rm -rf "$T"' EXIT
# the FEMU namespace of this geometry: 104857 blocks of 512 B (femu-sim
# with the same properties prints it)
truncate -s $((104857 * 512)) "$T/nvme.raw"
femu_guest cmds-ref.sh --timeout 600 \
    -device femu,serial=ref0,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,op_pcent=25 \
    -drive file="$T/nvme.raw",if=none,id=q0,format=raw -device nvme,drive=q0,serial=qemu0
