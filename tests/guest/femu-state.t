#!/bin/bash
# The state file (state=PATH) keeps the SSD across QEMU runs: boot 1
# writes two regions with fio's verify headers on a fresh state file and
# powers off (QEMU saves); boot 2, a new QEMU on the same file, reads the
# same C0h counters and SMART data units before any I/O, and fio's
# verify-only pass finds every block of both regions intact.  The file
# holds the written data (16 MiB) plus metadata, not the namespace.
. "$(dirname "$0")/femu-lib.sh"
need_runner

T=$(mktemp -d /tmp/femu-state.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
DEV=femu,serial=st0,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,state=$T/ssd.femu

femu_guest state.sh --timeout 300 --env PHASE=1 -device "$DEV" >"$T/1.out" 2>"$T/1.err"
rc=$?
cat "$T/1.out"
[ $rc = 0 ] || { fail "boot 1 exit $rc"; tail -3 "$T/1.err"; }
[ -f "$T/ssd.femu" ] || fail "no state file after boot 1"
[ -e "$T/ssd.femu.tmp" ] && fail "temporary file left after boot 1"
size=$(stat -c %s "$T/ssd.femu" 2>/dev/null || echo 0)
echo "state file: $size bytes"
# 16 MiB of data (4104-byte records) plus the FTL's tables
[ "$size" -ge $((16 << 20)) ] && [ "$size" -le $((18 << 20)) ] ||
    fail "state file of $size bytes for 16 MiB written"

femu_guest state.sh --timeout 300 --env PHASE=2 -device "$DEV" >"$T/2.out" 2>"$T/2.err"
rc=$?
cat "$T/2.out"
[ $rc = 0 ] || { fail "boot 2 exit $rc"; tail -3 "$T/2.err"; }
c1=$(grep '^c0 ' "$T/1.out"); c2=$(grep '^c0 ' "$T/2.out")
[ -n "$c1" ] && [ "$c1" = "$c2" ] || fail "C0h after the restart: '$c2', before: '$c1'"
s1=$(sed -n 's/^smart-written \([0-9][0-9]*\)$/\1/p' "$T/1.out")
s2=$(sed -n 's/^smart-written \([0-9][0-9]*\)$/\1/p' "$T/2.out")
[ -n "$s1" ] && [ "$s1" -gt 0 ] && [ "$s1" = "$s2" ] ||
    fail "SMART data units written: '$s2', before: '$s1'"
[ "$FAILED" = 0 ] && echo "ok - data and counters survive a QEMU restart through state=$T/ssd.femu ($c2)"
exit $FAILED
