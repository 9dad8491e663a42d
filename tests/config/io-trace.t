#!/bin/bash
# The I/O trace (io_trace=PATH): a device that records quits with a trace
# femu-sim replays (header and END, no I/O); an empty path, a path that
# cannot be created and a mode without the BlackBox FTL are refused with
# one line naming the property.  See tests/config/lib.sh.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/femu-io-trace-cfg.XXXXXX)
trap 'rm -rf "$T"' EXIT
G=femu,serial=tr0,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
SIM=${FEMU_SIM:-$(cd "$(dirname "$0")/../.." && pwd -P)/build/femu-sim}

accept $G,io_trace=$T/a.ftr
cfg_rows=$((cfg_rows + 1))
# 256-byte header + the END record
if [ "$(stat -c %s "$T/a.ftr" 2>/dev/null)" = 296 ]; then
    echo "ok   io_trace written and closed at quit (296 bytes)"
else
    cfg_fail "io_trace file after quit: $(ls -l "$T/a.ftr" 2>&1)"
fi
if [ -x "$SIM" ]; then
    cfg_rows=$((cfg_rows + 1))
    if "$SIM" --replay="$T/a.ftr" | grep -q 'nchs=2 luns_per_ch=2 pls_per_lun=1 blks_per_pl=32 pgs_per_blk=64 .* op_pcent=25 '; then
        echo "ok   femu-sim --replay takes the device's properties from it"
    else
        cfg_fail "femu-sim --replay of the device's empty trace"
    fi
fi
refuse "^io_trace='': give the path of the trace file$" $G,io_trace=
refuse '^io_trace=.*/nodir/x.ftr: No such file or directory$' \
    $G,io_trace=$T/nodir/x.ftr
refuse '^io_trace=.*: I/O traces need femu_mode=1 \(the BlackBox SSD\)$' \
    femu,serial=tr0,femu_mode=2,io_trace=$T/b.ftr
refuse '^io_trace=.*: I/O traces need femu_mode=1 \(the BlackBox SSD\)$' \
    femu,serial=tr0,femu_mode=3,nchs=2,luns_per_ch=4,blks_per_pl=16,pgs_per_blk=64,io_trace=$T/c.ftr
finish
