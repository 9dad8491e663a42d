#!/bin/bash
# Tutorial 07's scripts on a scaled-down device, so they cannot rot:
# trace-run.sh records a multi-job fio workload and a btrfs workload in the
# embedded guest (io_trace=), trace-whatif.sh replays the trace: its
# recorded row is the guest's C0h exactly, and it prints WAF for the five
# policies at three spare factors.  The tutorial's MSR example replays.
. "$(dirname "$0")/../guest/lib.sh"
require_qemu
SIM=${FEMU_SIM_DIR:-$FEMU_ROOT/build}/femu-sim
[ -x "$SIM" ] || { echo "skip: $SIM not built (make sim)"; exit 77; }
T=$FEMU_ROOT/scripts/tutorials
D=$(scratch)
G=nchs=2,luns_per_ch=2,blks_per_pl=64,op_pcent=15   # 256 MiB NAND: btrfs needs 114 MiB

femu_run_expect 0 --timeout 1200 --append no_timer_check --file "$T/lib.sh" \
    -device femu,$G,queues=4,pollers=2,io_trace=$D/run.ftr \
    --script "$T/trace-run.sh" WRITE=1x FILES=8
cat "$FEMU_OUT"
dev=$(sed -n 's/^C0 //p' "$FEMU_OUT")
[ -n "$dev" ] || fail "no C0 line from trace-run.sh"
FEMU_SIM=$SIM "$T/trace-whatif.sh" "$D/run.ftr" >"$D/whatif" || fail "trace-whatif.sh exit $?"
cat "$D/whatif"
sim=$(sed -n 's/^C0h since start: waf_x1000=\([0-9]*\) host_pages_written=\([0-9]*\) gc_pages_moved=\([0-9]*\) host_pages_programmed=\([0-9]*\)$/\1 \2 \3 \4/p' "$D/whatif")
[ "$sim" = "$dev" ] || fail "replay '$sim', guest C0h '$dev'"
set -- $dev
[ "$3" -gt 0 ] || fail "no GC in the recorded workload: $dev"
grep -q '^replay: .* read [1-9].* write [1-9].* deallocate [1-9].* flush [1-9]' "$D/whatif" ||
    fail "the trace lacks reads, writes, deallocates or flushes"
n=$(grep -cE '^\| (15|25|50) \|( [0-9]+\.[0-9]{3} \|){5}$' "$D/whatif")
[ "$n" = 3 ] || fail "expected 3 rows of 5 WAF values, got $n"
# with its own policy and spare the scaled replay is the exact one
w=$(awk -F'|' '$2 == " 15 " { print $3 }' "$D/whatif" | tr -d ' ')
[ "$w" = "$(($1 / 1000)).$(printf %03d $(($1 % 1000)))" ] || fail "greedy at op 15: $w, recorded $1"

# the tutorial's MSR example: scripts/tutorials/msr-example.sh
"$T/msr-example.sh" > "$D/src1_0.csv" || fail "msr-example.sh exit $?"
"$SIM" nchs=2,luns_per_ch=2,blks_per_pl=64,op_pcent=25 --replay="$D/src1_0.csv" \
    --replay-format=msr --replay-offsets=scale --replay-pace=trace >"$D/msr" || fail "MSR replay exit $?"
cat "$D/msr"
grep -q '^replay: .*(msr, offsets scale, pace trace): 200000 records:' "$D/msr" || fail "MSR records"
# 200000 requests about 9 ms apart: 30 minutes of trace
e=$(awk '$1 == "replay" && $2 == "msr" { print int($12) }' "$D/msr")
[ -n "$e" ] && [ "$e" -ge 1700 ] && [ "$e" -le 1900 ] || fail "MSR emulated time $e s, want about 1800"
grep -q '^replay latency (reads and writes, us): count 200000 ' "$D/msr" || fail "MSR latency line"
echo "PASS: trace-run.sh + trace-whatif.sh: replay = guest C0h ($dev); 15 what-if cells; MSR example"
