#!/bin/bash
# QMP while the guest saves: how long QMP query-status takes while a guest
# sends admin 0xEF code 8 (save the state file) in a loop.
#   the guest writes SIZE of random data (fio, 1 MiB blocks, NAND delays
#   off), then sends code 8 SAVES times back to back; meanwhile the host
#   sends query-status over a QMP socket every 10 ms and records the
#   slowest answer.  The trace event femu_state_save gives each save's
#   chunks and time.
# Usage: bench/state/qmp-during-save.sh [SIZE [SAVES]]   (default 512m 4)
# Env:   FEMU_RUN_ARGS  extra scripts/femu-run options
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNNER=$ROOT/scripts/femu-run
SIZE=${1:-512m}
SAVES=${2:-4}
T=$(mktemp -d /tmp/femu-qmp-save.XXXXXX)
trap 'rm -rf "$T"' EXIT
DEV=femu,serial=qs0,devsz_mb=2048,state=$T/ssd.femu

cat >"$T/guest.sh" <<'GEOF'
c=nvme0; for x in /sys/class/nvme/nvme*; do [ "$(tr -d ' ' <$x/serial)" = qs0 ] && c=$(basename $x); done
nvme admin-passthru /dev/$c --opcode=0xef --cdw10=4 >/dev/null
fio --eta=never --name=w --filename=/dev/${c}n1 --rw=write --bs=1m --size=$SIZE \
    --direct=1 --ioengine=libaio --iodepth=8 --output=/dev/null
echo "saves start"
for i in $(seq $SAVES); do
    nvme admin-passthru /dev/$c --opcode=0xef --cdw10=8 >/dev/null || echo "save $i failed"
done
echo "saves done"
GEOF

cat >"$T/qmp.py" <<'PEOF'
import json, socket, sys, time
path, out, stop = sys.argv[1:4]
for _ in range(600):
    try:
        s = socket.socket(socket.AF_UNIX); s.connect(path); break
    except OSError:
        time.sleep(0.1)
f = s.makefile("rw")
def cmd(c):
    f.write(json.dumps({"execute": c}) + "\n"); f.flush()
    while True:
        m = json.loads(f.readline())
        if "return" in m or "error" in m:
            return m
json.loads(f.readline()); cmd("qmp_capabilities")
worst, n, during = 0.0, 0, False
while True:
    text = open(out).read()
    if "saves start" in text:
        during = True
    if "saves done" in text or open(stop).read():
        break
    t = time.monotonic(); cmd("query-status"); dt = time.monotonic() - t
    if during:
        worst, n = max(worst, dt), n + 1
    time.sleep(0.01)
print("query-status during the saves: %d answers, slowest %.1f ms" % (n, worst * 1e3))
PEOF

: >"$T/out"; : >"$T/stop"
"$RUNNER" ${FEMU_RUN_ARGS:-} --timeout 900 --env SIZE=$SIZE --env SAVES=$SAVES \
    -qmp unix:$T/qmp.sock,server=on,wait=off -trace femu_state_save -D "$T/trace" \
    -device "$DEV" --script "$T/guest.sh" >"$T/out" 2>"$T/err" &
pid=$!
python3 "$T/qmp.py" "$T/qmp.sock" "$T/out" "$T/stop" &
qpid=$!
wait $pid || { echo "femu-run failed"; tail -5 "$T/err"; }
echo stop >"$T/stop"
wait $qpid
grep -E '^save .* failed' "$T/out"
sed 's/^/trace: /' "$T/trace"
