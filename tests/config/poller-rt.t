#!/bin/bash
# poller_rt=PRIO runs the poller threads SCHED_FIFO (docs/measuring.md):
# out-of-range priorities and hosts that forbid real-time scheduling are
# refused at start with a message naming the property; where it is
# allowed, the named poller thread really has that policy and priority,
# and QEMU still quits cleanly.
. "$(dirname "$0")/lib.sh"

refuse 'poller_rt=100: must be 0 \(off\) or a SCHED_FIFO priority 1\.\.99' \
    femu,poller_rt=100
accept femu,poller_rt=0
# the idle spin window's ceiling (poller.c): 0 (sleep at once) .. 1000 us
refuse 'poller_spin_us=1001: must be 0\.\.1000' femu,poller_spin_us=1001
accept femu,poller_spin_us=0
accept femu,poller_spin_us=1000

rt_allowed() { chrt -f 1 true 2>/dev/null; }

if rt_allowed && [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    # the same host without CAP_SYS_NICE (and RLIMIT_RTPRIO 0): refused
    cfg_rows=$((cfg_rows + 1))
    out=$(echo '{"execute":"qmp_capabilities"}{"execute":"quit"}' |
          timeout -k 5 60 prlimit --rtprio=0 setpriv --bounding-set -sys_nice \
          "$FEMU_QEMU" -M q35 -nodefaults -display none -machine accel=qtest \
          -qtest null -S -qmp stdio -device femu,poller_rt=10 2>&1)
    rc=$?
    if [ $rc = 1 ] && grep -q 'poller_rt=10: cannot make poller thread 0 SCHED_FIFO: .*CAP_SYS_NICE' <<<"$out"; then
        echo "ok   poller_rt=10 without CAP_SYS_NICE: refused (status 1)"
    else
        cfg_out=$out; cfg_fail "poller_rt=10 without CAP_SYS_NICE: status $rc"
    fi
fi

if rt_allowed; then
    # allowed: the poller threads run SCHED_FIFO 10 while QEMU runs
    cfg_rows=$((cfg_rows + 1))
    name=femu-rt-$$
    log=$cfg_tmp/poller-rt.log
    { echo '{"execute":"qmp_capabilities"}'; sleep 3; echo '{"execute":"quit"}'; } |
        timeout -k 5 60 "$FEMU_QEMU" -M q35 -nodefaults -display none \
            -machine accel=qtest -qtest null -S -qmp stdio \
            -name "$name,debug-threads=on" \
            -device femu,poller_rt=10,pollers=2 >"$log" 2>&1 &
    qpid=$!
    sleep 1.5
    pid=$(pgrep -P "$qpid" | head -1)     # QEMU, child of timeout
    pol=
    for t in /proc/$pid/task/*; do
        grep -q '^femu-poller' "$t/comm" 2>/dev/null || continue
        pol+="$(cat "$t/comm"): $(chrt -p "${t##*/}" | tr '\n' ' ')"$'\n'
    done
    wait $qpid
    rc=$?
    n=$(grep -c "SCHED_FIFO.*priority: 10" <<<"$pol")
    if [ $rc = 0 ] && [ "$n" = 2 ]; then
        echo "ok   poller_rt=10,pollers=2: both pollers SCHED_FIFO 10, QEMU quit with status 0"
    else
        cfg_out="status $rc; policies: $pol $(cat "$log")"
        cfg_fail "poller_rt=10,pollers=2: $n of 2 pollers SCHED_FIFO 10, status $rc"
    fi
else
    # real-time scheduling is forbidden here: the property is refused
    refuse 'poller_rt=10: cannot make poller thread 0 SCHED_FIFO' \
        femu,poller_rt=10
fi
finish
