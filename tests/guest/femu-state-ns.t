#!/bin/bash
# A state file holds every namespace of a controller: namespaces 1 and 2
# BlackBox SSD (one FTL, end to end) and 3 NoSSD.  Boot 1 writes distinct
# random data to each, QEMU quits (the exit save writes the file); boot 2,
# a new QEMU on the same state=, reads each namespace's data back equal
# (SHA-256 of its first 6 MiB) with its NUSE, SMART data units and
# write commands and log page C0h's per-namespace counters as boot 1 left
# them, then changes namespace 2 alone (a
# rewrite and a deallocation); QEMU quits (an incremental save: "append",
# fewer data chunks than the first, a TRIM); boot 3 reads boot 2's data
# and counters back.
. "$(dirname "$0")/femu-lib.sh"
need_runner

T=$(mktemp -d /tmp/femu-state-ns.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
DEV=femu,serial=st0,nchs=2,luns_per_ch=2,blks_per_pl=64,devsz_mb=192,namespaces=3,namespace_modes=bbssd,,bbssd,,nossd,namespace_sizes=64M,,64M,,64M,state=$T/ssd.femu

for p in 1 2 3; do
    femu_guest state-ns.sh --timeout 400 --env PHASE=$p -device "$DEV" \
        -trace femu_state_save -trace femu_state_load -D "$T/trace.$p" \
        >"$T/$p.out" 2>"$T/$p.err"
    rc=$?
    cat "$T/$p.out" "$T/trace.$p" 2>/dev/null
    [ $rc = 0 ] || { fail "boot $p exit $rc"; tail -3 "$T/$p.err"; }
done
# lines "sum I WHEN SHA" and "ns I WHEN NUSE W WC" of boot P at WHEN
get() { grep "^$1 [123] $3 " "$T/$2.out" | cut -d' ' -f2,4-; }
for k in sum ns; do
    [ "$(get $k 1 end | wc -l)" = 3 ] || fail "boot 1 printed no $k lines"
    [ "$(get $k 1 end)" = "$(get $k 2 start)" ] ||
        fail "$k after the first restart: $(get $k 1 end | tr '\n' ';') became $(get $k 2 start | tr '\n' ';')"
    [ "$(get $k 2 end)" = "$(get $k 3 start)" ] ||
        fail "$k after the second restart: $(get $k 2 end | tr '\n' ';') became $(get $k 3 start | tr '\n' ';')"
done
# the data is each namespace's own: three distinct checksums, none of
# the empty namespace's
e=$(get sum 1 start | cut -d' ' -f2 | sort -u)
[ "$(get sum 1 end | cut -d' ' -f2 | sort -u | wc -l)" = 3 ] &&
    ! get sum 1 end | cut -d' ' -f2 | grep -qx "$e" ||
    fail "boot 1's namespaces do not hold three distinct data sets"
# boot 2 changed namespace 2 alone, its data and its counters
for i in 1 3; do
    [ "$(get sum 2 start | grep "^$i ")" = "$(get sum 2 end | grep "^$i ")" ] ||
        fail "boot 2 changed namespace $i's data"
done
[ "$(get sum 2 start | grep '^2 ')" != "$(get sum 2 end | grep '^2 ')" ] ||
    fail "boot 2 did not change namespace 2"
# counters that carried over are not zero: NUSE and writes of namespace
# 1, writes of 2 and 3
n1=$(get ns 2 start | grep '^1 ')
[ "$(echo $n1 | cut -d' ' -f2)" = 8192 ] || fail "namespace 1's NUSE after the restart: $n1 (8192 blocks written)"
for i in 1 2 3; do
    [ "$(get ns 2 start | grep "^$i " | cut -d' ' -f4)" -gt 0 ] ||
        fail "namespace $i's write commands were not kept"
done
# C0h's per-namespace pages written: kept for the BlackBox namespaces
# (same line as above), 0 for NoSSD, and after each restart still the
# device's total between them
for i in 1 2; do
    [ "$(get ns 2 start | grep "^$i " | cut -d' ' -f5)" -gt 0 ] ||
        fail "namespace $i's C0h pages written were not kept: $(get ns 2 start | grep "^$i ")"
done
[ "$(get ns 2 start | grep '^3 ' | cut -d' ' -f5-)" = "0 0" ] ||
    fail "NoSSD namespace 3 has C0h FTL counters: $(get ns 2 start | grep '^3 ')"
for b in 1 2 3; do
    for w in start end; do
        tot=$(grep "^c0 $w " "$T/$b.out" | cut -d' ' -f3)
        sum=$(get ns $b $w | awk '{ s += $5 } END { print s + 0 }')
        [ -n "$tot" ] && [ "$tot" = "$sum" ] ||
            fail "boot $b $w: C0h's namespaces add up to $sum host pages, the device's total is ${tot:-missing}"
    done
done
[ "$(grep '^c0 end ' "$T/1.out")" = "$(grep '^c0 start ' "$T/2.out" | sed 's/start/end/')" ] ||
    fail "C0h's totals changed across the first restart"
# boot 2's exit save appended namespace 2's changes alone
c1=$(sed -n 's/.*femu_state_save .* \([0-9][0-9]*\) data chunks.*/\1/p' "$T/trace.1" | tail -1)
k2=$(sed -n 's/.*femu_state_save .*: \([a-z]*\) save,.*/\1/p' "$T/trace.2" | tail -1)
c2=$(sed -n 's/.*femu_state_save .* \([0-9][0-9]*\) data chunks.*/\1/p' "$T/trace.2" | tail -1)
t2=$(sed -n 's/.*femu_state_save .*, \([0-9][0-9]*\) chunks trimmed.*/\1/p' "$T/trace.2" | tail -1)
echo "exit saves: boot 1 $c1 data chunks, boot 2 ($k2) $c2 data chunks, $t2 trimmed"
[ "$c1" = 2304 ] || fail "boot 1 saved $c1 chunks, not 2304 (4 + 3 + 2 MiB)"
[ "$k2" = append ] && [ "$c2" = 256 ] ||
    fail "boot 2's exit save was not an incremental one of namespace 2's 1 MiB ($k2, $c2 chunks)"
[ "$t2" = 128 ] || fail "boot 2's exit save trimmed $t2 chunks, not 128 (512 KiB)"
[ "$FAILED" = 0 ] && echo "ok - three namespaces' data, NUSE, SMART and C0h counters survive two QEMU restarts through state= (an incremental save of one namespace)"
exit $FAILED
