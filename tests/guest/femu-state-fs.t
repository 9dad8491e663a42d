#!/bin/bash
# A file system survives QEMU restarts through the state file: boot 1
# makes ext4 on the femu namespace and writes files with fsync, QEMU
# quits (the exit save writes the file); boot 2, a new QEMU on the same
# state=, finds fsck.ext4 -n clean and every checksum equal, then
# rewrites, deletes and adds files; QEMU quits (an incremental save:
# femu_state_save says "append" and fewer data chunks than the first);
# boot 3 finds it clean with boot 2's checksums.
. "$(dirname "$0")/femu-lib.sh"
need_runner

T=$(mktemp -d /tmp/femu-state-fs.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
DEV=femu,serial=st0,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,op_pcent=25,state=$T/ssd.femu

for p in 1 2 3; do
    femu_guest state-fs.sh --timeout 400 --env PHASE=$p -device "$DEV" \
        -trace femu_state_save -trace femu_state_load -D "$T/trace.$p" \
        >"$T/$p.out" 2>"$T/$p.err"
    rc=$?
    grep -v '^sum ' "$T/$p.out"
    cat "$T/trace.$p" 2>/dev/null
    [ $rc = 0 ] || { fail "boot $p exit $rc"; tail -3 "$T/$p.err"; }
done
# checksums: boot 1's files in boot 2 before the changes, boot 2's after
# the changes in boot 3
s1=$(grep '^sum ' "$T/1.out")
s2b=$(sed -n '/^before$/,/^after$/p' "$T/2.out" | grep '^sum ')
s2a=$(sed -n '/^after$/,$p' "$T/2.out" | grep '^sum ')
s3=$(grep '^sum ' "$T/3.out")
[ "$(printf '%s\n' "$s1" | wc -l)" = 24 ] || fail "boot 1 printed $(printf '%s\n' "$s1" | wc -l) checksums, not 24"
[ "$s1" = "$s2b" ] || fail "checksums after the first restart differ: $(diff <(echo "$s1") <(echo "$s2b") | head -5)"
[ "$(printf '%s\n' "$s2a" | wc -l)" = 24 ] || fail "boot 2 left $(printf '%s\n' "$s2a" | wc -l) files, not 24"
[ "$s1" != "$s2a" ] || fail "boot 2 changed no file"
[ "$s2a" = "$s3" ] || fail "checksums after the second restart differ: $(diff <(echo "$s2a") <(echo "$s3") | head -5)"
# boot 1's exit save wrote the file; boot 2's appended only what changed
c1=$(sed -n 's/.*femu_state_save .* \([0-9][0-9]*\) data chunks.*/\1/p' "$T/trace.1" | tail -1)
k2=$(sed -n 's/.*femu_state_save .*: \([a-z]*\) save,.*/\1/p' "$T/trace.2" | tail -1)
c2=$(sed -n 's/.*femu_state_save .* \([0-9][0-9]*\) data chunks.*/\1/p' "$T/trace.2" | tail -1)
echo "exit saves: boot 1 $c1 data chunks, boot 2 ($k2) $c2 data chunks"
[ -n "$c1" ] && [ -n "$c2" ] && [ "$k2" = append ] && [ "$c2" -lt "$c1" ] ||
    fail "boot 2's exit save was not an incremental one ($k2, $c2 chunks against $c1)"
[ "$FAILED" = 0 ] && echo "ok - ext4 survives two QEMU restarts through state= (fsck clean, 24 checksums equal each time)"
exit $FAILED
