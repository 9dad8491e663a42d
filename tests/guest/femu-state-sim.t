#!/bin/bash
# A state made by femu-sim (tutorial 02's fill and age, scaled down) loads
# into the device: the guest's C0h shows the aged counters before any I/O,
# the simulator's pages read as zeroes, and the first writes already cost
# GC.  Then a save on demand (0xEF code 8) and a kill -9 of QEMU while the
# guest keeps writing: the file holds the state of the save (femu-sim
# loads it and prints the counters the guest read right after the save).
. "$(dirname "$0")/femu-lib.sh"
need_runner
SIM=${FEMU_SIM:-$ROOT/build/femu-sim}
[ -x "$SIM" ] || { echo "skip: $SIM not built (meson setup build && ninja -C build)"; exit 77; }

T=$(mktemp -d /tmp/femu-state-sim.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
G=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25

# C0h line of femu-sim -> "waf host gc programmed"
simc0() {
    sed -n 's/^C0h since start: waf_x1000=\([0-9]*\) host_pages_written=\([0-9]*\) gc_pages_moved=\([0-9]*\) host_pages_programmed=\([0-9]*\)$/\1 \2 \3 \4/p'
}
expect=$("$SIM" $G --waf-run=age=64m,part=precondition --save-state "$T/aged.femu" | simc0)
echo "femu-sim precondition: C0h $expect"
[ -n "$expect" ] || fail "femu-sim made no state"

femu_guest state-sim.sh --timeout 300 --env "EXPECT=$expect" -pidfile "$T/qemu.pid" \
    -device femu,serial=st0,$G,state=$T/aged.femu >"$T/out" 2>"$T/err" &
pid=$!
# 300 s: boot under a loaded TCG host
wait_line '^kill me now' "$T/out" $pid 3000 && kill -KILL "$(cat "$T/qemu.pid")"
wait $pid
cat "$T/out"
grep -q '^guest checks' "$T/out" && fail "the guest finished: QEMU was not killed during its writes"
grep -q '^FAIL' "$T/out" && fail "a guest check failed"
grep -q '^ok - C0h at boot is femu-sim' "$T/out" || fail "no C0h check at boot"
saved=$(sed -n 's/^saved c0 //p' "$T/out")
loaded=$("$SIM" $G --load-state "$T/aged.femu" | simc0)
echo "after kill -9: the file loads with C0h $loaded (saved: $saved)"
[ -n "$saved" ] && [ "$loaded" = "$saved" ] || fail "state file after kill -9: '$loaded', saved '$saved'"
[ "$FAILED" = 0 ] && echo "ok - femu-sim's aged state loads in the device; a kill -9 keeps the last save"
exit $FAILED
