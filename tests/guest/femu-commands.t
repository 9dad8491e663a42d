#!/bin/bash
# The optional NVM commands with nvme-cli in the guest, one boot: Compare
# (match, mismatch), Verify, Write Uncorrectable (reads fail, the error
# log names the LBA, a write clears it), Copy read back by checksum and
# its refusals, DULBE through set-feature -f 5, and the error log of an
# injected read error (a second controller, err_read_unc_ppm=1000000)
# (docs/commands.md).
. "$(dirname "$0")/femu-lib.sh"
need_runner
femu_guest commands.sh --timeout 600 \
    -device femu,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25 \
    -device femu,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,err_read_unc_ppm=1000000
