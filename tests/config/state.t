#!/bin/bash
# The state file (state=PATH): a file made by one QEMU run is loaded by the
# next only with the same SSD-shaping properties (a mismatch names the
# property and both values); a damaged, truncated or foreign file, a path
# that cannot be written and femu_mode=2 are refused with one line; a
# leftover PATH.tmp (a save cut short) does not matter; a second user of
# the same file is refused (PATH.lock); migration and
# savevm are refused naming the device; femu-sim is refused the file
# while QEMU uses it; qom-set save-state saves it while QEMU runs.  See
# tests/config/lib.sh.
. "$(dirname "$0")/lib.sh"
T=$(mktemp -d /tmp/femu-state-cfg.XXXXXX)
trap 'rm -rf "$T"' EXIT
G=femu,serial=st0,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25

# a fresh file is created when QEMU quits, and loads again
accept $G,state=$T/a.femu
cfg_rows=$((cfg_rows + 1))
if [ -s "$T/a.femu" ] && [ ! -e "$T/a.femu.tmp" ]; then
    echo "ok   state file written at quit ($(stat -c %s "$T/a.femu") bytes)"
else
    cfg_fail "no state file $T/a.femu after quit"
fi
accept $G,state=$T/a.femu
# the NAND latencies are not part of the state
accept $G,pg_wr_lat=100000,state=$T/a.femu

refuse '^state=.*: configuration mismatch: gc_policy is greedy in the state file but fifo here$' \
    $G,gc_policy=fifo,state=$T/a.femu
refuse '^state=.*: configuration mismatch: op_pcent is 25 in the state file but 30 here$' \
    femu,serial=st0,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=30,state=$T/a.femu
refuse '^state=.*: configuration mismatch: blks_per_pl is 32 in the state file but 64 here$' \
    femu,serial=st0,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,op_pcent=25,state=$T/a.femu
refuse '^state=.*: configuration mismatch: secsz is 512 in the state file but 4096 here$' \
    $G,secsz=4096,state=$T/a.femu
refuse '^state=.*: configuration mismatch: gc_thres_pcent is 75 in the state file but 60 here$' \
    $G,gc_thres_pcent=60,state=$T/a.femu

size=$(stat -c %s "$T/a.femu")
cp "$T/a.femu" "$T/flip.femu"
printf '\x5a' | dd of="$T/flip.femu" bs=1 seek=4000 conv=notrunc status=none
refuse '^state=.*: corrupted state file \(checksum of the FTL section: stored [0-9a-f]{8}, computed [0-9a-f]{8}\)$' \
    $G,state=$T/flip.femu
head -c $((size - 10)) "$T/a.femu" > "$T/cut.femu"
refuse '^state=.*: truncated state file' $G,state=$T/cut.femu
head -c 100 "$T/a.femu" > "$T/short.femu"
refuse '^state=.*: truncated state file \(it ends inside the FTL section\)$' $G,state=$T/short.femu
head -c 4096 /bin/sh > "$T/foreign.femu"
refuse '^state=.*: not a FEMU state file \(no FEMUSTAT magic\)$' $G,state=$T/foreign.femu
: > "$T/empty.femu"
refuse '^state=.*: not a FEMU state file' $G,state=$T/empty.femu
refuse '^state=.*/nodir/x.femu: cannot create .*: No such file or directory$' \
    $G,state=$T/nodir/x.femu
refuse '^state=.*: state files need femu_mode=1' \
    femu,femu_mode=2,devsz_mb=16,state=$T/n.femu
refuse '^state='"''"': give the path of a state file$' $G,state=

# one device and one QEMU per state file (PATH.lock)
refuse '^state=.*/a.femu: in use by another femu device or QEMU process \(.*/a.femu.lock is locked\)$' \
    $G,state=$T/a.femu femu,serial=st1,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,state=$T/a.femu

# femu-sim takes the device's lock: refused while a QEMU uses the file
SIM=${FEMU_SIM:-$(cd "$(dirname "$0")/../.." && pwd -P)/build/femu-sim}
if [ -x "$SIM" ]; then
    cfg_rows=$((cfg_rows + 1))
    mkfifo "$T/qmp"
    timeout -k 5 60 "$FEMU_QEMU" -M q35 -nodefaults -display none \
        -machine accel=qtest -qtest null -S -qmp stdio \
        -device $G,state=$T/a.femu <"$T/qmp" >"$T/qmp.out" 2>&1 &
    qpid=$!
    exec 9>"$T/qmp"
    printf '{"execute":"qmp_capabilities"}' >&9
    for _ in $(seq 200); do grep -q '"return"' "$T/qmp.out" && break; sleep 0.1; done
    cfg_out=$("$SIM" nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25 \
              --load-state "$T/a.femu" 2>&1 >/dev/null)
    rc=$?
    printf '{"execute":"quit"}' >&9
    exec 9>&-
    wait $qpid
    if [ $rc -eq 1 ] && printf '%s\n' "$cfg_out" |
        grep -q "^femu-sim: --load-state $T/a.femu: in use by a femu device or another femu-sim ($T/a.femu.lock is locked)$"; then
        echo "ok   refused  femu-sim --load-state while QEMU uses the file: $cfg_out"
    else
        cfg_fail "femu-sim --load-state while QEMU uses the file: exit $rc"
    fi
fi

# a checkpoint from the host: qom-set DEVICE save-state true writes the
# file while QEMU runs (checked before QEMU quits, then killed with
# SIGKILL so that no exit save follows); refused without state= and on
# the command line
cfg_rows=$((cfg_rows + 1))
rm -f "$T/qmp"
mkfifo "$T/qmp"
timeout -k 5 60 "$FEMU_QEMU" -M q35 -nodefaults -display none \
    -machine accel=qtest -qtest null -S -qmp stdio \
    -pidfile "$T/q.pid" -device $G,id=d0,state=$T/h.femu \
    <"$T/qmp" >"$T/qmp.out" 2>&1 &
qpid=$!
exec 9>"$T/qmp"
printf '%s' '{"execute":"qmp_capabilities"}' '{"execute":"qom-set","arguments":{"path":"/machine/peripheral/d0","property":"save-state","value":true}}' >&9
for _ in $(seq 200); do [ "$(grep -c '"return"' "$T/qmp.out")" -ge 2 ] && break; sleep 0.1; done
saved=$(stat -c %s "$T/h.femu" 2>/dev/null)
kill -KILL "$(cat "$T/q.pid")" 2>/dev/null
exec 9>&-
wait $qpid 2>/dev/null
cfg_out=$(cat "$T/qmp.out")
if [ -n "$saved" ] && [ "$(grep -c '"return": {}' "$T/qmp.out")" -ge 2 ]; then
    echo "ok   qom-set save-state true wrote the state file ($saved bytes) before QEMU quit"
else
    cfg_fail "qom-set save-state: no state file while QEMU ran"
fi
accept $G,state=$T/h.femu
# h.femu has two generations now (the qom-set save wrote the file, the
# exit save of that start appended the second): a file cut inside its
# last generation (a save killed half way) loads the first; femu-sim
# reads both
hsize=$(stat -c %s "$T/h.femu")
head -c $((hsize - 100)) "$T/h.femu" > "$T/torn.femu"
accept $G,state=$T/torn.femu
if [ -x "$SIM" ]; then
    cfg_rows=$((cfg_rows + 1))
    if "$SIM" nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25 \
        --load-state "$T/h.femu" >/dev/null 2>"$T/sim.err"; then
        echo "ok   femu-sim --load-state reads a state of two generations"
    else
        cfg_fail "femu-sim --load-state of two generations: $(cat "$T/sim.err")"
    fi
fi
cfg_rows=$((cfg_rows + 1))
cfg_run '{"execute":"qmp_capabilities"}{"execute":"qom-set","arguments":{"path":"/machine/peripheral/d1","property":"save-state","value":true}}{"execute":"quit"}' \
    femu,id=d1,serial=st0,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
if printf '%s\n' "$cfg_out" | grep -q "save-state: femu device 'd1' has no state file (state=PATH, femu_mode=1)"; then
    echo "ok   refused  qom-set save-state without state="
else
    cfg_fail "qom-set save-state without state=: no error"
fi
refuse "^save-state: saves a running device's state file; set it with qom-set, not on the command line$" \
    $G,save-state=on,state=$T/h.femu

# a save cut short leaves PATH.tmp behind: the next start ignores it
head -c 777 /bin/sh > "$T/a.femu.tmp"
accept $G,state=$T/a.femu

# migration and savevm: refused with the device named
qmp_err() { # qmp_err REGEX QMP-COMMAND
    cfg_rows=$((cfg_rows + 1))
    cfg_run "{\"execute\":\"qmp_capabilities\"}$2{\"execute\":\"quit\"}" \
        $G,state=$T/a.femu
    if [ "$cfg_rc" = 0 ] && printf '%s\n' "$cfg_out" | grep -Eq -- "$1"; then
        echo "ok   refused  $2"
    else
        cfg_fail "$2: no error matching /$1/ (exit $cfg_rc)"
    fi
}
qmp_err "femu device 'st0' \(state=$T/a.femu\) does not support migration or savevm" \
    '{"execute":"migrate","arguments":{"uri":"exec:cat >/dev/null"}}'
qmp_err "femu device 'st0' \(state=$T/a.femu\) does not support migration or savevm" \
    '{"execute":"human-monitor-command","arguments":{"command-line":"savevm s1"}}'
finish
