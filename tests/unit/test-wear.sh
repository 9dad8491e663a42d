#!/bin/bash
# femu-sim reports wear and bad blocks: Percentage Used rises with the
# writes, worn-out lines take the spare, and at a small pe_cycles the
# device ends read-only (writes fail); wear leveling narrows the spread;
# bad values are refused naming the property.
sim=${1:?usage: test-wear.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# 32 lines of 256 KiB (2 x 2 blocks of 64 pages), 6.4 MiB namespace
geo=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
# KEY= of the "wear:" / "bad blocks:" lines
val() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p" | tr -d '%'; }

# the defaults: 3000 P/E cycles, no bad block, wear leveling off
out=$("$sim" $geo --waf-run=age=32m,measure=32m) || bad "default run exit $?"
grep -q '^wear: .* pe_cycles=3000 percentage_used=[0-9]* wear_leveling=off ' <<<"$out" ||
    bad "default wear line: $(grep '^wear' <<<"$out")"
grep -q '^bad blocks: factory=0 grown=0 retired_lines=0 .*available_spare=100% read_only=no$' <<<"$out" ||
    bad "default bad blocks line: $(grep '^bad' <<<"$out")"

# pe_cycles=30: Percentage Used rises with the amount written, then the
# worn-out lines use up the spare and writes fail
prev_pct=-1 prev_spare=101 ro=
for age in 16m 64m 128m 192m 256m 384m; do
    out=$("$sim" $geo,pe_cycles=30 --waf-run=age=$age,measure=4m)
    w=$(grep '^wear:' <<<"$out"); b=$(grep '^bad blocks:' <<<"$out")
    pct=$(val "$w" percentage_used); spare=$(val "$b" available_spare)
    echo "age=$age: percentage_used=$pct available_spare=$spare% $(val "$b" read_only)"
    [ "$pct" -ge "$prev_pct" ] || bad "age=$age: percentage used fell ($prev_pct -> $pct)"
    [ "$spare" -le "$prev_spare" ] || bad "age=$age: spare grew ($prev_spare -> $spare)"
    [ "$pct" -gt "$prev_pct" ] && rose=1
    prev_pct=$pct prev_spare=$spare
    if [ "$(val "$b" read_only)" = yes ]; then
        ro=$age
        errs=$(awk '$1 == "measure" {print $11}' <<<"$out")
        [ "$errs" -gt 0 ] || bad "read-only but the measure phase wrote: $out"
        [ "$spare" = 0 ] || bad "read-only with $spare% spare"
        [ "$(val "$b" grown)" -gt 0 ] || bad "read-only without grown bad blocks"
        break
    fi
done
[ -n "$rose" ] || bad "percentage used never rose"
[ -n "$ro" ] || bad "pe_cycles=30 never went read-only"
[ "$prev_pct" -ge 90 ] || bad "read-only at only $prev_pct% used"

# factory bad blocks take spare at once, deterministically from the seed
a=$("$sim" $geo,nand_bad_blocks=2 --waf-run=age=16m,measure=16m | grep '^bad')
b=$("$sim" $geo,nand_bad_blocks=2 --waf-run=age=16m,measure=16m | grep '^bad')
[ "$a" = "$b" ] || bad "factory bad blocks differ between runs"
grep -q 'factory=2 grown=0 retired_lines=[12] ' <<<"$a" || bad "factory: $a"
[ "$(val "$a" available_spare)" -lt 100 ] || bad "factory bad blocks left the spare full: $a"

# JSON carries the same
"$sim" $geo,pe_cycles=30 --json --waf-run=age=64m,measure=4m |
    grep -q '"wear": {"erase_min": [0-9]*, "erase_max": [0-9]*, .*"pe_cycles": 30, "percentage_used": [1-9][0-9]*,' ||
    bad "json wear object"

# wear leveling narrows the erase-count spread of a skewed workload
wl() { "$sim" $geo,pe_cycles=100000,wear_leveling=$1,wl_threshold=8 \
    --phase fill:seqfill --phase hot:randwrite,bs=4k,region=640k,size=192m | grep '^wear:'; }
off=$(wl off); on=$(wl on)
so=$(( $(val "$off" max) - $(val "$off" min) )); sn=$(( $(val "$on" max) - $(val "$on" min) ))
echo "spread off $so on $sn"
[ "$sn" -lt "$so" ] || bad "wear leveling: spread $sn, without $so"
[ "$(val "$on" wl_lines_moved)" -gt 0 ] || bad "wear leveling moved nothing: $on"

# refusals name the property
e=$("$sim" $geo,pe_cycles=0 2>&1) && bad "pe_cycles=0 accepted"
grep -q 'pe_cycles=0' <<<"$e" || bad "pe_cycles=0: $e"
e=$("$sim" $geo,nand_bad_blocks=1000 2>&1) && bad "nand_bad_blocks=1000 accepted"
grep -q 'nand_bad_blocks=1000 exceeds the spare' <<<"$e" || bad "nand_bad_blocks=1000: $e"
e=$("$sim" $geo,wl_threshold=0 2>&1) && bad "wl_threshold=0 accepted"
grep -q 'wl_threshold=0' <<<"$e" || bad "wl_threshold=0: $e"
exit $fail
