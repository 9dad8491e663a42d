#!/bin/bash
# WAF of a short waf-run in the guest (tutorial 02's script: fill, age,
# measure with 4 KiB uniform random writes) agrees with femu-sim, which runs
# the same FTL code on the same configuration, within 5% (the guest's fio
# and the simulator draw different random LBAs).
. "$(dirname "$0")/femu-lib.sh"
need_runner
SIM=${FEMU_SIM:-${FEMU_SIM_DIR:-$ROOT/build}/femu-sim}
[ -x "$SIM" ] || { echo "skip: $SIM not built (make check builds it)"; exit 77; }
CFG=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
sim=$("$SIM" $CFG --waf-run=fill_bs=128k,age=80m,measure=80m,bs=4k | awk '$1 == "measure" {print $8}')
echo "femu-sim: measure waf_x1000=$sim"
out=$("$RUNNER" --append no_timer_check --timeout 900 --file "$ROOT/scripts/tutorials/waf-run.sh:/root/waf-run.sh" --file "$ROOT/scripts/tutorials/lib.sh:/root/lib.sh" \
    -device femu,$CFG \
    -c 'bash /root/waf-run.sh AGE=80m MEASURE=80m BS=4k NODELAY=1' 2>&1)
rc=$?
echo "$out" | tail -8
[ $rc = 0 ] || { echo "FAIL: guest run failed (rc=$rc)"; exit 1; }
dev=$(sed -n 's/^phase=measure .*waf_x1000=\([0-9]*\).*/\1/p' <<<"$out")
[ -n "$dev" ] && [ -n "$sim" ] || { echo "FAIL: no measure WAF (device '$dev', simulator '$sim')"; exit 1; }
if awk -v a="$dev" -v b="$sim" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d * 100 <= 5 * b) }'; then
    echo "ok - device WAF x1000 $dev vs simulator $sim (within 5%)"
else
    echo "FAIL - device WAF x1000 $dev vs simulator $sim differ by more than 5%"
    exit 1
fi
