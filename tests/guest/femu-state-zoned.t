#!/bin/bash
# A zoned namespace survives QEMU restarts through the state file: f2fs
# across a BlackBox namespace and a zoned one of one controller
# (mkfs.f2fs -m -c ZONED CONV).  Boot 1 makes it and writes files with
# fsync; QEMU quits (the exit save writes the file, zone table too); boot
# 2, a new QEMU on the same state=, finds fsck.f2fs clean, every checksum
# equal and every zone's write pointer where boot 1 left it (a zone boot
# 1 left open comes back Closed, or Empty when nothing was written in it,
# as after a drive's shutdown), then rewrites, deletes and adds files;
# QEMU quits (an incremental save: femu_state_save says "append"); boot 3
# finds it clean with boot 2's checksums and zones.
. "$(dirname "$0")/femu-lib.sh"
need_runner

T=$(mktemp -d /tmp/femu-state-zoned.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
DEV=femu,serial=ZS,nchs=2,luns_per_ch=2,blks_per_pl=256,pgs_per_blk=256,devsz_mb=768,namespaces=2,namespace_modes=bbssd,,znssd,namespace_sizes=32M,,256M,zone_luns=4,zone_size_mb=4,max_open=14,max_active=14,state=$T/ssd.femu

for p in 1 2 3; do
    femu_guest state-zoned.sh --timeout 900 --mem 1G --env PHASE=$p \
        -device "$DEV" -trace femu_state_save -trace femu_state_load \
        -D "$T/trace.$p" >"$T/$p.out" 2>"$T/$p.err"
    rc=$?
    grep -v '^sum \|^start zone\|^end zone' "$T/$p.out"
    cat "$T/trace.$p" 2>/dev/null
    [ $rc = 0 ] || { fail "boot $p exit $rc"; tail -3 "$T/$p.err"; }
done
s1=$(grep '^sum ' "$T/1.out")
s2b=$(sed -n '/^before$/,/^after$/p' "$T/2.out" | grep '^sum ')
s2a=$(sed -n '/^after$/,$p' "$T/2.out" | grep '^sum ')
s3=$(grep '^sum ' "$T/3.out")
[ "$(printf '%s\n' "$s1" | wc -l)" = 24 ] || fail "boot 1 printed $(printf '%s\n' "$s1" | wc -l) checksums, not 24"
[ "$s1" = "$s2b" ] || fail "checksums after the first restart differ: $(diff <(echo "$s1") <(echo "$s2b") | head -5)"
[ "$(printf '%s\n' "$s2a" | wc -l)" = 24 ] || fail "boot 2 left $(printf '%s\n' "$s2a" | wc -l) files, not 24"
[ "$s1" != "$s2a" ] || fail "boot 2 changed no file"
[ "$s2a" = "$s3" ] || fail "checksums after the second restart differ: $(diff <(echo "$s2a") <(echo "$s3") | head -5)"
# zones: a boot's start is the boot before's end, the open ones closed
# (Empty when the write pointer is at the zone start)
restart() { # the zone table a restart makes of boot $1's end
    grep '^end zone ' "$T/$1.out" | awk '{
        c = $5
        # blkzone prints the write pointer from the zone start
        if (c == "2" || c == "3") c = ($4 ~ /^0x0*$/) ? "1" : "4"
        print "zone", $3, $4, c }'
}
for b in 1 2; do
    want=$(restart $b)
    got=$(grep '^start zone ' "$T/$((b + 1)).out" | cut -d' ' -f2-)
    [ "$(printf '%s\n' "$want" | wc -l)" -ge 64 ] || fail "boot $b printed $(printf '%s\n' "$want" | wc -l) zones"
    [ "$want" = "$got" ] || fail "zones after restart $b differ: $(diff <(echo "$want") <(echo "$got") | head -6)"
    nz() { grep "^$1 zone " "$T/$2.out" | awk '$5 != "1" { printf " %s@%s:%s", $3, $4, $5 }'; }
    echo "zones not empty (START@WPTR:COND) at the end of boot $b:$(nz end $b)"
    echo "... at the start of boot $((b + 1)):$(nz start $((b + 1)))"
    echo "boot $b ended with $(grep '^end zone ' "$T/$b.out" | awk '$5 != "1"' | wc -l) zones not empty, $(grep '^end zone ' "$T/$b.out" | awk '$5 == "2" || $5 == "3"' | wc -l) open"
done
[ "$(grep '^end zone ' "$T/1.out" | awk '$5 != "1"' | wc -l)" -gt 0 ] || fail "boot 1 wrote no zone"
c1=$(sed -n 's/.*femu_state_save .* \([0-9][0-9]*\) data chunks.*/\1/p' "$T/trace.1" | tail -1)
k2=$(sed -n 's/.*femu_state_save .*: \([a-z]*\) save,.*/\1/p' "$T/trace.2" | tail -1)
c2=$(sed -n 's/.*femu_state_save .* \([0-9][0-9]*\) data chunks.*/\1/p' "$T/trace.2" | tail -1)
echo "exit saves: boot 1 $c1 data chunks, boot 2 ($k2) $c2 data chunks"
[ -n "$c1" ] && [ -n "$c2" ] && [ "$k2" = append ] && [ "$c2" -lt "$c1" ] ||
    fail "boot 2's exit save was not an incremental one ($k2, $c2 chunks against $c1)"
[ "$FAILED" = 0 ] && echo "ok - f2fs on a BlackBox + zoned pair survives two QEMU restarts through state= (fsck clean, checksums and zones equal)"
exit $FAILED
