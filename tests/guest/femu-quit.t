#!/bin/bash
# QEMU told to quit in the middle of I/O exits with status 0, promptly
# (poller threads stopped and joined, no hang, no crash): two boots, each
# with a BlackBox SSD whose writes take 50 ms (so completions are waiting
# in the pollers when QEMU quits) and a femu_mode=2 device, both under
# fio QD32 random writes.  Boot 1 sends "quit" on the QEMU monitor (a unix
# socket), boot 2 sends SIGTERM to QEMU (QEMU treats it as quit).
#
# The guest never reports a job status (it is still running fio), so the
# runner exits 125; what counts is its status line "job=- qemu=0".
. "$(dirname "$0")/femu-lib.sh"
need_runner
command -v python3 >/dev/null || { echo "skip: python3 (host) needed for the monitor socket"; exit 77; }

T=$(mktemp -d /tmp/femu-quit.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }

# Quitting must take well under this: measured 0.5 s after SIGTERM and
# 4.7-7 s after the monitor's quit on a loaded 2-core host (about 2 s of
# that is QEMU's own exit after a monitor quit, the same with QEMU's nvme
# device); 60 s leaves room for a heavily loaded TCG host without letting
# a hang pass.
QUIT_LIMIT=60

# run_boot HOW: boot, wait for the guest's "quit now", quit QEMU by HOW
# (monitor|sigterm), check how QEMU exited
run_boot() {
    local how=$1 out=$T/$1.out err=$T/$1.err pid t0 t1
    femu_guest quit.sh --timeout 600 \
        -monitor unix:$T/mon.sock,server=on,wait=off -pidfile $T/qemu.pid \
        -device femu,serial=slow0,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,pg_wr_lat=50000000,pg_rd_lat=50000000 \
        -device femu,serial=fast0,femu_mode=2,devsz_mb=64 \
        >"$out" 2>"$err" &
    pid=$!
    # 540 s: boot under a loaded TCG host
    wait_line '^femu-quit: quit now' "$out" $pid 5400
    cat "$out"
    if ! grep -q '^femu-quit: quit now' "$out"; then
        fail "$how: the guest never started its I/O"
        wait $pid; cat "$err"; return
    fi
    sleep 2     # fio keeps going; completions are pending in the slow SSD
    t0=$(date +%s.%N)
    case $how in
    monitor)
        python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
s.sendall(b"quit\n")
time.sleep(0.5)' "$T/mon.sock" || fail "monitor: cannot send quit" ;;
    sigterm)
        kill -TERM "$(cat $T/qemu.pid)" || fail "sigterm: no QEMU process" ;;
    esac
    wait $pid
    t1=$(date +%s.%N)
    cat "$err"
    local secs
    secs=$(awk -v a=$t0 -v b=$t1 'BEGIN{printf "%.1f", b - a}')
    echo "$how: QEMU gone ${secs}s after the quit"
    grep -q 'status job=- qemu=0 ' "$err" ||
        fail "$how: QEMU did not exit with status 0 after quit (runner: $(grep 'status job' "$err"))"
    awk -v s=$secs -v l=$QUIT_LIMIT 'BEGIN{exit !(s < l)}' ||
        fail "$how: QEMU took ${secs}s to quit (limit $QUIT_LIMIT s)"
    grep -q 'in flight on nvme[0-9]*n1 (reads writes): *0 *[1-9]' "$out" ||
        fail "$how: no writes were in flight on the slow SSD"
    if grep -q 'QEMU did not quit' "$out"; then fail "$how: the guest outlived the quit"; fi
}

run_boot monitor
run_boot sigterm
[ "$FAILED" = 0 ] && echo "ok - QEMU quits with status 0 in the middle of I/O (monitor quit and SIGTERM)"
exit $FAILED
