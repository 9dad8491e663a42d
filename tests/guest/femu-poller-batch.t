#!/bin/bash
# poller_batch: an idle poller sleeps as SCHED_BATCH where commands
# gather (4 jobs at depth with NAND times 0 in a 4-vCPU guest, which on
# this project's 2-core TCG machine finds several commands per sleep),
# never while a completion is due (every timed sleep of the trace comes
# after it went back to SCHED_OTHER: with NAND times on, the timed
# wake-up must preempt), not after QD1 reads (one command per sleep), never
# with poller_batch=off, and a policy QEMU was started with (chrt -b) is
# kept (tests/guest/femu/poller-batch.sh).
. "$(dirname "$0")/femu-lib.sh"
need_runner
T=$(mktemp -d /tmp/femu-pb.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
N0=pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,ch_xfer_lat=0,devsz_mb=64
# boot MODE QEMU-ARGS...: poller-batch.sh with MODE in a 4-vCPU guest;
# the guest's output in $T/MODE.out (shown), QEMU's trace in $T/MODE.err
boot() {
    local mode=$1 rc; shift
    femu_guest poller-batch.sh --smp 4 --timeout 600 --env MODE="$mode" "$@" \
        >"$T/$mode.out" 2>"$T/$mode.err"
    rc=$?
    cat "$T/$mode.out"
    [ $rc = 0 ] || fail "$mode: guest run exit $rc: $(tail -3 "$T/$mode.err")"
    grep -q '^FAIL' "$T/$mode.out" && fail "a guest step failed ($mode)"
}

boot depth -device femu,serial=pb0,$N0 \
    -trace femu_poller_batch -trace femu_poller_sleep
# walk the trace in order: the policy each sleep was taken in
read -r on timed bad_sleeps < <(awk '
    /femu_poller_batch .*SCHED_BATCH 1/ { b = 1; on++ }
    /femu_poller_batch .*SCHED_BATCH 0/ { b = 0 }
    /femu_poller_sleep .*timeout [0-9]+ ns/ { timed++; if (b) bad++ }
    END { print on + 0, timed + 0, bad + 0 }' "$T/depth.err")
echo "depth: SCHED_BATCH taken $on times, $timed timed sleeps, $bad_sleeps of them in SCHED_BATCH"
[ "$on" -gt 0 ] || fail "4 jobs at depth with NAND times 0 never made the poller SCHED_BATCH"
[ "$timed" -gt 0 ] || fail "no timed sleep with NAND times on: the check did not run"
[ "$bad_sleeps" = 0 ] || fail "$bad_sleeps timed sleeps in SCHED_BATCH"
grep -q 'SCHED_BATCH refused' "$T/depth.err" && fail "the kernel refused SCHED_BATCH: $(grep -m1 'SCHED_BATCH refused' "$T/depth.err")"

boot qd1 -device femu,serial=pb1,$N0 -device femu,serial=pb2,$N0,poller_batch=off \
    -trace femu_poller_batch
# pb2 (off) prints nothing; pb1 may turn SCHED_BATCH on the boot's
# concurrent reads (partition scan), but its QD1 run, the last I/O it
# gets, must leave it SCHED_OTHER
last=$(grep 'femu_poller_batch ' "$T/qd1.err" | tail -1)
echo "QD1 and poller_batch=off: $(grep -c 'femu_poller_batch ' "$T/qd1.err") policy changes, the last: ${last:-none}"
case $last in
''|*'SCHED_BATCH 0 '*) ;;
*) fail "SCHED_BATCH after QD1 reads or with poller_batch=off: $last" ;;
esac

# a policy QEMU was started with is the user's: the poller keeps it
chrt -b -p 0 $$ || fail "chrt -b on the test shell"
boot chrt -device femu,serial=pb3,$N0 -trace femu_poller_batch
chrt -o -p 0 $$
n=$(grep -c 'femu_poller_batch ' "$T/chrt.err")
echo "QEMU started SCHED_BATCH: $n policy changes"
[ "$n" = 0 ] || fail "the poller changed the policy QEMU was started with: $(grep -m1 'femu_poller_batch ' "$T/chrt.err")"

[ $FAILED = 0 ] && echo "PASS femu-poller-batch"
exit $FAILED
