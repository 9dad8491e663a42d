#!/bin/bash
# The tutorial scripts (scripts/tutorials/*.sh) on scaled-down devices in
# the embedded guest, one boot, so they cannot rot: their output must parse
# and its invariants hold, and waf-run.sh must agree with femu-sim on the
# same configuration.
#   vSSD0  waf-run.sh, uniform random writes      (tutorial 02)
#   vSSD1  waf-run.sh, Zipf 1.2, cost-benefit,    (tutorial 02)
#          AGE=2.1x: not a whole number of 4 KiB writes
#   vSSD2  lat-run.sh, 2 ms NAND times            (tutorial 05)
#   vSSD3  first-ssd.sh                           (tutorial 01)
# Tiny geometry: 2 ch x 2 LUNs x 32 blocks x 64 pages = 32 MiB NAND, 32
# lines of 1 MiB, op_pcent=25 -> 26843136-byte namespace (6553 pages).
. "$(dirname "$0")/../guest/lib.sh"
require_qemu
SIM=${FEMU_SIM_DIR:-$FEMU_ROOT/build}/femu-sim
[ -x "$SIM" ] || { echo "skip: $SIM not built (make sim)"; exit 77; }
T=$FEMU_ROOT/scripts/tutorials
G=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
NS=26843136                 # bytes: 32 MiB / 1.25 in whole 512 B sectors
RUN=$((2 * NS))             # AGE = MEASURE = 2x the namespace
# waf1 ages with 2.1x = 56370585 bytes (size() truncates to whole bytes),
# 13762.35 writes of 4 KiB: waf-run.sh must round the phase down to whole
# writes (fio alone rounds it up and writes 13763, which the script's
# "fio wrote all it was asked" check refused: the scaled tutorial tables'
# 2x of a 13107.125-block namespace hit that)
# SPAN=whole: the namespace ends in half a 4 KiB block, which fio's Zipf
# generator may draw (the job then ends early); fio's random map stays on
# as in the published procedure, and femu-sim gets randommap=on to match.
AGE1=$(( $(awk -v n=$NS 'BEGIN { printf "%d", 2.1 * n }') / 4096 * 4096 ))
declare -A AGEB=([waf0]=$RUN [waf1]=$AGE1)

job=$(scratch)/job.sh
cat >"$job" <<'JOB'
ctrl() { for c in /sys/class/nvme/nvme*; do [ "$(tr -d ' ' <$c/serial)" = $1 ] && basename $c; done; }
for s in 0 1 2 3; do eval D$s=/dev/$(ctrl vSSD$s)n1; done
echo "### waf0"; bash tutorials/waf-run.sh DEV=$D0 AGE=2x MEASURE=2x SPAN=whole; echo "rc=$?"
echo "### waf1"; bash tutorials/waf-run.sh DEV=$D1 AGE=2.1x MEASURE=2x SPAN=whole --random_distribution=zipf:1.2; echo "rc=$?"
echo "### lat";  bash tutorials/lat-run.sh DEV=$D2 IOS=300 AGE=1x; echo "rc=$?"
echo "### first"; bash tutorials/first-ssd.sh DEV=$D3 IOS=50; echo "rc=$?"
echo "### badopt"; bash tutorials/waf-run.sh DEV=$D0 NOPE=1; echo "rc=$?"
JOB
# no_timer_check: under TCG on a loaded host the guest kernel's IO-APIC
# timer check can fail and panic the boot (seen here)
femu_run_expect 0 --timeout 1200 --append no_timer_check --file "$T:tutorials" \
    -device femu,$G,gc_thres_pcent=95 \
    -device femu,$G,gc_thres_pcent=95,gc_policy=cost-benefit \
    -device femu,$G,pg_rd_lat=2000000,pg_wr_lat=2000000,blk_er_lat=2000000 \
    -device femu,$G \
    --script "$job"
out=$FEMU_OUT
cat "$out"
section() { awk -v s="### $1" '$0 == s { on = 1; next } /^### / { on = 0 } on' "$out"; }
# field SECTION PHASE KEY -> value of KEY= on the phase's line
field() { section "$1" | grep -E "^(lat )?phase=$2 " | tr ' ' '\n' | sed -n "s/^$3=//p"; }

for s in waf0 waf1; do
    section $s | grep -qx 'rc=0' || fail "$s: waf-run.sh failed"
    # fill: whole 128 KiB blocks of the namespace, no GC, WAF exactly 1.000
    [ "$(field $s fill host_written)" = $((NS / 131072 * 32)) ] || fail "$s: fill host pages"
    [ "$(field $s fill gc_moved)" = 0 ] || fail "$s: GC during the first fill"
    [ "$(field $s fill waf_x1000)" = 1000 ] || fail "$s: fill WAF is not 1000"
    for p in age measure; do
        h=$(field $s $p host_written) g=$(field $s $p gc_moved)
        pr=$(field $s $p programmed) w=$(field $s $p waf_x1000)
        want=$((RUN / 4096)); [ $p = age ] && want=$(( ${AGEB[$s]} / 4096 ))
        [ "$h" = $want ] || fail "$s $p: host pages $h, want $want"
        [ "$pr" = "$h" ] || fail "$s $p: 4 KiB writes program one page each"
        [ "$g" -gt 0 ] || fail "$s $p: no GC on an aged device"
        [ "$w" = $(( (pr + g) * 1000 / h )) ] || fail "$s $p: WAF not (prog+gc)/host"
    done
    # the C0h totals are the sums of the phases on this fresh device
    set -- $(section $s | sed -n 's/^C0h: //p')
    [ "$2" = $(( $(field $s fill host_written) + (${AGEB[$s]} + RUN) / 4096 )) ] || fail "$s: C0h total host pages"
    section $s | grep -Eq "^WAF\(measure\)=[0-9]+\.[0-9]{3}$" || fail "$s: no WAF(measure) line"
done

# the guest agrees with the simulator on the same configuration: fio's and
# femu-sim's random streams differ, so allow 15% (seen: 3.987 vs 4.005)
simwaf() {
    "$SIM" "$2" --waf-run=age=${AGEB[$1]},measure=$RUN,randommap=on${3:+,$3} | awk '$1 == "measure" { print $8 }'
}
for c in "waf0 $G,gc_thres_pcent=95" "waf1 $G,gc_thres_pcent=95,gc_policy=cost-benefit zipf=1.2"; do
    set -- $c
    gw=$(field $1 measure waf_x1000) sw=$(simwaf "$1" "$2" "${3:-}")
    echo "$1: WAF x1000 guest $gw, femu-sim $sw"
    [ $(( gw * 100 )) -ge $(( sw * 85 )) ] && [ $(( gw * 100 )) -le $(( sw * 115 )) ] ||
        fail "$1: guest WAF $gw and femu-sim WAF $sw differ by more than 15%"
done

# lat-run.sh: QD1 latencies against the 2 ms NAND times
section lat | grep -qx 'rc=0' || fail "lat-run.sh failed"
us() { field lat "$1" "$2" | cut -d. -f1; }
for p in unwritten read write gc-write gc-free; do
    [ "$(field lat $p n)" = 300 ] || fail "lat $p: not 300 I/Os"
done
[ "$(us read p50_us)" -ge 2000 ] || fail "QD1 reads faster than pg_rd_lat"
[ "$(us write p50_us)" -ge 2000 ] || fail "QD1 writes faster than pg_wr_lat"
[ "$(us gc-write p50_us)" -ge 2000 ] || fail "QD1 writes (GC) faster than pg_wr_lat"
# GC in the tail: with 2 ms NAND times a collection of a line (up to 224
# valid pages of 256: read + program each on one of 4 LUNs, then erase)
# keeps LUNs busy for ~100 ms or more, and at this device's steady-state WAF
# about 1 in 30 QD1 writes triggers one, so p99 of 300 writes includes a
# wait for GC (seen: 493 ms twice; host noise can only add to it)
[ "$(us gc-write p99_us)" -ge 100000 ] || fail "no GC in the QD1 write tail (p99 < 100 ms)"
# never-written pages cost no NAND time (1 ms: room for TCG's overhead)
[ "$(us unwritten p50_us)" -lt 1000 ] || fail "reads of unwritten pages took NAND time"
section lat | grep -Eq '^C1h: count=[1-9][0-9]* mean_ns=[0-9]+ max_ns=[0-9]+ p50_ns<=[0-9]+ p99_ns<=[0-9]+ p999_ns<=[0-9]+$' ||
    fail "lat-run.sh: no C1h line"

# first-ssd.sh: tutorial 01's facts on the tiny device
section first | grep -qx 'rc=0' || fail "first-ssd.sh failed"
section first | grep -q 'FEMU BlackBox-SSD Controller' || fail "first: nvme list"
section first | grep -qx "sectors=$((NS / 512)) logical_block_size=512" || fail "first: sectors"
section first | grep -q 'C0h(waf_x1000 host_written gc_moved programmed): 1000 0 0 0$' ||
    fail "first: C0h before writes"
section first | grep -q "C0h(waf_x1000 host_written gc_moved programmed): 1000 $((NS / 131072 * 32)) 0 $((NS / 131072 * 32))$" ||
    fail "first: C0h after the fill"

# bad arguments are refused
section badopt | grep -q "unknown option 'NOPE=1'" || fail "waf-run.sh took a bad option"
section badopt | grep -qx 'rc=1' || fail "waf-run.sh: bad option did not exit 1"
echo "tutorial scripts: all checks passed"
