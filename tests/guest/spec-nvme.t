#!/bin/bash
# Acceptance checks of the NVMe controller, FDP and the scripts and runner,
# written from the product specification, not from the other tests.
# Two guest boots: (1) a tutorial-01 SSD (vSSD0) next to an FDP SSD
# (vSSD1, fdp.nruh=4, 8 MiB reclaim units) with ~90 checks, then a guest
# reboot that must keep the data; (2) a fresh QEMU: the data is gone and
# the runner passes the job's exit status through.  Plus start-up
# refusals, clean exit on quit/SIGTERM, RSS of an unwritten 12 GiB SSD
# and run-blackbox.sh, all without a guest.  Prints ok/FAIL per check.
. "$(dirname "$0")/lib.sh"
require_qemu
D=$(scratch)
FAILS=0
ok() { echo "ok - $*"; }
no() { echo "FAIL - $*"; FAILS=$((FAILS + 1)); }

# ---- start-up refusals: the property and the limit named (2, 3) ---------
refuse() {      # refuse WHAT REGEX QEMU-ARGS...
    local what=$1 re=$2 out rc
    shift 2
    out=$("$QEMU" -nodefaults -display none -S "$@" </dev/null 2>&1); rc=$?
    if [ $rc = 1 ] && grep -Eq -- "$re" <<<"$out"; then ok "$what: $out"
    else no "$what: exit $rc, /$re/ not in: $out"; fi
}
refuse "3: femu-subsys after the controller is refused" 'subsys=fdp0.*before the femu controller' \
    -device femu,subsys=fdp0 -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4
refuse "3: fdp.nruh=0 refused" 'fdp\.nruh=0: must be 1\.\.256' \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=0 -device femu,subsys=fdp0
refuse "3: fdp.nruh=257 refused" 'fdp\.nruh=257: must be 1\.\.256' \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=257 -device femu,subsys=fdp0
refuse "3: fdp.nru below fdp.nruh refused" 'fdp\.nru=2: .*fdp\.nruh' \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4,fdp.nru=2 -device femu,subsys=fdp0
refuse "3: a subsys id that does not exist is refused" 'subsys=nosuch' -device femu,subsys=nosuch
refuse "2: femu_mode=4 (not implemented) refused" 'femu_mode=4' -device femu,femu_mode=4
refuse "3: FDP needs the BlackBox FTL: femu_mode=2 with an FDP subsystem refused" 'femu_mode=1' \
    -device femu-subsys,id=s0,fdp=on,fdp.nruh=2 -device femu,femu_mode=2,subsys=s0
refuse "3: a second controller on the same femu-subsys refused" 'subsys=s0' \
    -device femu-subsys,id=s0,fdp=on,fdp.nruh=2 -device femu,subsys=s0 -device femu,subsys=s0

# ---- help: defaults of femu-subsys (3) ---------------------------------------
h=$("$QEMU" -device femu-subsys,help 2>&1)
for re in '^  fdp=<bool> .*\(default: off\)' '^  fdp\.nru=<uint32> .*\(default: 128\)' '^  fdp\.nruh=<uint32>'; do
    grep -Eq "$re" <<<"$h" && ok "3: femu-subsys,help lists /$re/" || no "3: femu-subsys,help lacks /$re/: $h"
done

# ---- QEMU without a guest: quit and SIGTERM exit 0, RSS (2.6) -----------------
# start QEMU with a monitor on a FIFO; wait (up to 60 s) for its prompt
qstart() {
    rm -f "$D/mon" "$D/qout"; mkfifo "$D/mon"
    "$QEMU" -nodefaults -display none -monitor stdio "$@" <"$D/mon" >"$D/qout" 2>&1 &
    QPID=$!
    exec 9>"$D/mon"
    for _ in $(seq 600); do
        grep -q '(qemu)' "$D/qout" 2>/dev/null && return 0
        kill -0 $QPID 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}
qwait() { exec 9>&-; wait $QPID; }
# the 12 GiB SSD of run-blackbox.sh
if qstart -device femu,femu_mode=1,devsz_mb=12288; then
    rss=$(awk '/^VmRSS/ {print $2}' /proc/$QPID/status)
    # Unwritten pages take no host memory: the whole 12 GiB namespace
    # allocated would be 12582912 KiB; QEMU itself plus FEMU's mapping
    # tables (4 B per page) stay far below the generous 1 GiB bound.
    [ "$rss" -lt 1048576 ] && ok "2.6: RSS of QEMU with an unwritten 12 GiB SSD: $rss KiB < 1 GiB" ||
        no "2.6: RSS of QEMU with an unwritten 12 GiB SSD: $rss KiB"
    echo quit >&9; qwait; rc=$?
    [ $rc = 0 ] && ok "2.6: QEMU exits 0 on the monitor's quit" ||
        no "2.6: QEMU exited $rc on quit: $(cat "$D/qout")"
else
    no "2.6: QEMU did not start: $(cat "$D/qout")"; kill $QPID 2>/dev/null; qwait
fi
# 128 handles (up to 128 must work) on the default geometry
if qstart -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=128 -device femu,subsys=fdp0; then
    kill -TERM $QPID; qwait; rc=$?
    [ $rc = 0 ] && ok "2.6/3: QEMU with fdp.nruh=128 starts, and exits 0 on SIGTERM" ||
        no "2.6: QEMU exited $rc on SIGTERM: $(cat "$D/qout")"
else
    no "2.6: QEMU did not start: $(cat "$D/qout")"; kill $QPID 2>/dev/null; qwait
fi

# ---- scripts/run-blackbox.sh (4) -------------------------------------------------
RB=$FEMU_ROOT/scripts/run-blackbox.sh
out=$(env -u OSIMGF "$RB" --dry-run 2>&1); rc=$?
[ $rc != 0 ] && grep -q OSIMGF <<<"$out" && ok "4: run-blackbox.sh without OSIMGF refuses, naming it" ||
    no "4: run-blackbox.sh without OSIMGF: exit $rc: $out"
truncate -s 64M "$D/os.raw"
out=$(OSIMGF="$D/os.raw" SSH_PORT=10022 ACCEL=tcg QEMU=$QEMU "$RB" --dry-run 2>&1); rc=$?
if [ $rc = 0 ] && grep -Eq -- '-device femu,[^ ]*femu_mode=1' <<<"$out" &&
   grep -q 'devsz_mb=12288' <<<"$out" && grep -q 'hostfwd=tcp:[^ ]*:10022-:22' <<<"$out" &&
   grep -q "$D/os.raw" <<<"$out"; then
    ok "4: run-blackbox.sh --dry-run: femu_mode=1, 12 GiB (devsz_mb=12288), \$OSIMGF, SSH on \$SSH_PORT"
else
    no "4: run-blackbox.sh --dry-run: exit $rc: $out"
fi
out=$(OSIMGF="$D/os.raw" ACCEL=tcg QEMU=$QEMU FEMU_SUBSYS=fdp=on,fdp.nruh=2 "$RB" --check 2>&1); rc=$?
[ $rc = 0 ] && ok "4: run-blackbox.sh --check with FEMU_SUBSYS (FDP): QEMU accepts the command line" ||
    no "4: run-blackbox.sh --check: exit $rc: $out"
[ -x "$FEMU_ROOT/scripts/run-guest-ssh.sh" ] && ok "4: scripts/run-guest-ssh.sh exists" || no "4: no scripts/run-guest-ssh.sh"

# ---- boot 1: controller, FDP, reboot ------------------------------------------------
# (after scripts/femu-log.sh's decoder functions)
{ "$FEMU_ROOT/scripts/femu-log.sh" --emit; cat; } >"$D/guest.sh" <<'GEOF'
FAILS=0
ok() { echo "ok - $*"; }
no() { echo "FAIL - $*"; FAILS=$((FAILS + 1)); }
t() { local what=$1; shift; if "$@" >/tmp/t.out 2>&1; then ok "$what"; else no "$what"; sed 's/^/    /' /tmp/t.out | head -20; fi; }
eq() { if [ "$2" = "$3" ]; then ok "$1 ($2)"; else no "$1: got '$2', want '$3'"; fi; }
ctrl_of() { local c; for c in /sys/class/nvme/nvme*; do [ "$(tr -d ' ' <$c/serial)" = "$1" ] && { basename $c; return 0; }; done; return 1; }
P=$(ctrl_of vSSD0) || { no "no controller with SN vSSD0"; exit 1; }
F=$(ctrl_of vSSD1) || { no "no controller with SN vSSD1"; exit 1; }
PN=/dev/${P}n1 FN=/dev/${F}n1
mark() { dd if=$PN bs=4096 count=1 skip=200 iflag=direct 2>/dev/null | head -c 12 | tr -d '\0'; }
ruamw() { nvme fdp status $FN -o json | python3 -c 'import sys, json; print(" ".join(str(r["ruamw"]) for r in json.load(sys.stdin)["ruhss"]))'; }
stats() { nvme fdp stats /dev/$F -e 1 | awk -F': ' '{printf "%s ", $2}' | sed 's/ $//'; }
if [ "$(mark)" = "spec-nvme-rb" ]; then
    echo "# second boot (after a guest reboot)"
    t "2.6: data written before a guest reboot reads back (fio crc32c verify)" \
        fio --name=p --filename=$PN --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
        --iodepth=32 --size=8M --offset=16M --verify=crc32c --verify_only --randseed=7 --output=/dev/null
    F1=$(dd if=$PN bs=4096 count=1 skip=201 iflag=direct 2>/dev/null | tr -dc 0-9)
    [ -n "$F1" ] || { no "first boot's failure count lost"; F1=1; }
    exit $((FAILS + F1 > 0))
fi
echo "# first boot"
# ---- 2.6: Linux binds; nvme list, Identify ----
nvme list >/tmp/list
t "2.6: nvme list: vSSD0, model, 1.72 GB, 512 B + 0 B, FW 1.0" \
    grep -Eq "^$PN +/dev/ng${P#nvme}n1 +vSSD0 +FEMU BlackBox-SSD Controller +0x1 +.* / +1\.72 +GB +512 +B \+ +0 B +1\.0 *$" /tmp/list
t "2.6: nvme list: the second instance is SN vSSD1" grep -Eq "^$FN +/dev/ng${F#nvme}n1 +vSSD1 +FEMU BlackBox-SSD Controller " /tmp/list
grep "^$PN " /tmp/list | sed 's/^/#   /'
t "2.6: /dev/ng${P#nvme}n1 is a character device" test -c /dev/ng${P#nvme}n1
idc() { nvme id-ctrl /dev/$1 | sed -n "s/^$2 *: *//p" | sed 's/ *$//'; }
eq "2.6: id-ctrl mn" "$(idc $P mn)" "FEMU BlackBox-SSD Controller"
eq "2.6: id-ctrl sn" "$(idc $P sn)" "vSSD0"
eq "2.6: id-ctrl fr" "$(idc $P fr)" "1.0"
eq "2.6: OACS bit 8, Doorbell Buffer Config (shadow doorbells)" "$(( $(idc $P oacs) >> 8 & 1 ))" 1
eq "2.2: /sys/block/${P}n1/size" "$(cat /sys/block/${P}n1/size)" 3355443
eq "2.6: Identify active namespace list: NSID 1 only" "$(nvme list-ns /dev/$P | grep -c '\]:0x')/$(nvme list-ns /dev/$P | sed -n 's/.*\]:\(0x[0-9a-f]*\)/\1/p')" "1/0x1"
eq "2.6: Identify Namespace NSZE" "$(nvme id-ns $PN | sed -n 's/^nsze *: *//p')" 0x333333
t "2.6: namespace identification descriptors: CSI 0 (NVM)" bash -c "nvme ns-descs $PN | grep -Eq '^csi +: 0$'"
t "2.6: Identify I/O command set structures (nvme id-iocs)" nvme id-iocs /dev/$P
t "2.6: Identify NVM command set controller (nvme nvm-id-ctrl)" nvme nvm-id-ctrl /dev/$P
# ---- Features ----
gf() { nvme get-feature /dev/$P "$@" 2>&1 | sed -n 's/.*Current value: *\(0x\)*\([0-9a-fA-F]*\).*/\2/p'; }
eq "2.6: Get Features Arbitration" "$(gf -f 1)" 00000007
eq "2.6: Get Features Power Management" "$(gf -f 2)" 00000000
eq "2.6: Get Features Number of Queues (queues=8 by default: 7/7, 0's based)" "$(gf -f 7)" 00070007
eq "2.6: Get Features Volatile Write Cache" "$(gf -f 6)" 00000001
eq "2.6: Get Features Error Recovery (namespace 1)" "$(gf -f 5 -n 1)" 00000000
t "2.6: Set Features Temperature Threshold 0x150" nvme set-feature /dev/$P -f 4 --value=0x150
eq "2.6: Get Features Temperature Threshold reads it back" "$(gf -f 4)" 00000150
t "2.6: Set Features Interrupt Coalescing 0x0102" nvme set-feature /dev/$P -f 8 --value=0x0102
eq "2.6: Get Features Interrupt Coalescing reads it back" "$(gf -f 8)" 00000102
nvme set-feature /dev/$P -f 8 --value=0 >/dev/null
eq "2.6: Linux enabled the notices OAES reports (Async Event Configuration 100h)" "$(gf -f 0xb)" 00000100
t "2.6: Set Features Async Event Configuration (all SMART warnings)" nvme set-feature /dev/$P -f 0xb --value=0x1ff
eq "2.6: Get Features Async Event Configuration reads it back" "$(gf -f 0xb)" 000001ff
# ---- Asynchronous Event Request: Linux must have one outstanding, and an
# over-temperature completes it (SMART/Health, temperature threshold, log 02h)
T=/sys/kernel/debug/tracing
if [ -d $T/events/nvme/nvme_async_event ]; then
    echo 1 >$T/events/nvme/nvme_async_event/enable
    temp=$(nvme smart-log /dev/$P -o json | python3 -c 'import sys, json; print(json.load(sys.stdin)["temperature"])')
    nvme set-feature /dev/$P -f 4 --value=$((temp - 10)) >/dev/null
    for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q nvme_async_event $T/trace && break; sleep 0.5; done
    t "2.6: Async Event Request completes on over-temperature (NVME_AEN=0x020101, $temp K)" \
        grep -Eq "nvme${P#nvme}: NVME_AEN=0x0*20101\\b" $T/trace
    nvme set-feature /dev/$P -f 4 --value=343 >/dev/null
    nvme smart-log /dev/$P >/dev/null
    echo 0 >$T/events/nvme/nvme_async_event/enable
else
    no "the guest kernel has no nvme trace events"
fi
# ---- Log pages ----
t "2.6: SMART / Health log" bash -c "nvme smart-log /dev/$P | grep -q '^temperature'"
t "2.6: error information log" nvme error-log /dev/$P
t "2.6: firmware slot log: slot 1 = 1.0" bash -c "nvme fw-log /dev/$P | grep -q 'frs1 .*(1\.0'"
t "2.6: commands supported and effects log lists Identify and 0xEF" \
    bash -c "nvme effects-log /dev/$P >/tmp/eff && grep -q 'ACS6 .*Identify' /tmp/eff && grep -q '^ACS239 ' /tmp/eff"
t "2.6: changed namespace list log (OAES bit 8 goes with it)" nvme changed-ns-list-log /dev/$P
eq "2.5: log page C0h before any write: WAF 1000, counters 0" \
    "$(femu_c0 $P | awk '{print $1, $2, $3, $4}')" "1000 0 0 0"
# ---- Abort, vendor 0xEF, Invalid Opcode ----
t "2.6: Abort of a command not outstanding: success, DW0 bit 0 = 1 (not aborted)" \
    bash -c "nvme admin-passthru /dev/$P --opcode=0x08 --cdw10=0xbeef0000 2>&1 | grep -q 'Success and result: 0x00000001'"
t "2.5: nvme admin-passthru --opcode=0xef --cdw10=2 succeeds (no data buffer)" nvme admin-passthru /dev/$P --opcode=0xef --cdw10=2
nvme admin-passthru /dev/$P --opcode=0xef --cdw10=1 >/dev/null 2>&1
for code in 0 8 99; do
    t "2.5: 0xEF unknown code $code: an error status" \
        bash -c "nvme admin-passthru /dev/$P --opcode=0xef --cdw10=$code 2>&1 | grep -q 'NVMe status: Invalid Field in Command'"
done
# (80h Format NVM, I/O 05h Compare, 0Ch Verify, 19h Copy are implemented:
# docs/commands.md, tests/guest/femu-commands.t)
for op in 0x84 0x0d 0x11 0x7e; do
    t "2.6: admin opcode $op: Invalid Command Opcode" bash -c "nvme admin-passthru /dev/$P --opcode=$op 2>&1 | grep -q 'Invalid Command Opcode'"
done
for op in 0x0d 0x0e 0x11 0x7f; do
    t "2.6: I/O opcode $op: Invalid Command Opcode" bash -c "nvme io-passthru $PN --namespace-id=1 --opcode=$op 2>&1 | grep -q 'Invalid Command Opcode'"
done
# ---- I/O commands ----
head -c 4096 /dev/urandom >/tmp/pat
head -c 4096 /dev/zero >/tmp/zero
nuse() { nvme id-ns $PN -o json | python3 -c 'import sys, json; print(json.load(sys.stdin)["nuse"])'; }
t "2.6: Write 8 blocks at LBA 64" nvme write $PN -s 64 -c 7 -z 4096 -d /tmp/pat
t "2.6: Read returns them" bash -c "nvme read $PN -s 64 -c 7 -z 4096 -d /tmp/back && cmp /tmp/pat /tmp/back"
t "2.6: Flush" nvme flush /dev/$P -n 1
eq "2.3: NUSE after one 4 KiB write" "$(nuse)" 8
t "2.6: Write Zeroes" nvme write-zeroes $PN -s 64 -c 7
t "2.3: after Write Zeroes the blocks read zeroes" bash -c "nvme read $PN -s 64 -c 7 -z 4096 -d /tmp/back && cmp /tmp/back /tmp/zero"
eq "2.3: Write Zeroes unmapped the page (NUSE)" "$(nuse)" 0
nvme write $PN -s 64 -c 7 -z 4096 -d /tmp/pat >/dev/null 2>&1
t "2.6: Dataset Management, deallocate" nvme dsm $PN --ad --slbs=64 --blocks=8
t "2.3: deallocated blocks read zeroes" bash -c "nvme read $PN -s 64 -c 7 -z 4096 -d /tmp/back && cmp /tmp/back /tmp/zero"
eq "2.3: deallocate unmapped the page (NUSE)" "$(nuse)" 0
t "2.6: a read past the end of the namespace gets an error" bash -c "! nvme read $PN -s 3355440 -c 7 -z 4096 -d /tmp/back"
# Linux uses shadow doorbells (OACS bit 8): QD32 drives their event indexes
t "2.6: fio QD32 random 4 KiB writes with crc32c verify" \
    fio --name=p --filename=$PN --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
    --iodepth=32 --size=8M --offset=16M --verify=crc32c --randseed=7 --output=/dev/null
t "2.6: fio io_uring 128 KiB reads (PRP lists)" \
    fio --name=r --filename=$PN --rw=read --bs=128k --direct=1 --ioengine=io_uring \
    --iodepth=8 --size=8M --offset=16M --output=/dev/null
# An invalid doorbell write (SQ 20 does not exist) is reported by an Error
# event: type 0, info 00h Write to Invalid Doorbell Register, log 01h
# (the runner's iomem=relaxed lets devmem reach BAR0)
bar=$(awk 'NR == 1 {print $1}' /sys/class/nvme/$P/device/resource)
echo 1 >$T/events/nvme/nvme_async_event/enable
devmem $((bar + 0x1000 + 2 * 20 * 4)) 32 1
for _ in 1 2 3 4 5 6 7 8 9 10; do grep -q 'NVME_AEN=0x0*10000\b' $T/trace && break; sleep 0.5; done
t "2.6: write to a doorbell of a queue that does not exist: Error event (NVME_AEN=0x010000)" \
    grep -Eq "nvme${P#nvme}: NVME_AEN=0x0*10000\b" $T/trace
echo 0 >$T/events/nvme/nvme_async_event/enable
nvme error-log /dev/$P >/dev/null
t "2.6: controller reset (nvme reset)" nvme reset /dev/$P
t "2.6: after the reset: I/O works, the data is still there (fio verify)" \
    fio --name=p --filename=$PN --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
    --iodepth=32 --size=8M --offset=16M --verify=crc32c --verify_only --randseed=7 --output=/dev/null
# ---- 3: FDP ----
eq "3: CTRATT of the FDP controller" "$(idc $F ctratt)" 0x80010
eq "3: fdp configs: count fdpa vss nrg nruh nnss runs erutl" \
    "$(nvme fdp configs /dev/$F -e 1 -o json | python3 -c 'import sys, json; j = json.load(sys.stdin)["configs"]; print(len(j), *(j[0][k] for k in ("fdpa", "vss", "nrg", "nruh", "nnss", "runs", "erutl")))')" \
    "1 128 0 1 4 256 8388608 0"
eq "3: fdp configs: every handle Persistently Isolated" "$(nvme fdp configs /dev/$F -e 1 | grep -c '^  \[[0-3]\]: Persistently Isolated$')" 4
eq "3: fdp status: pid/handle/EARUTR" \
    "$(nvme fdp status $FN -o json | python3 -c 'import sys, json; print(" ".join("%d/%d/%d" % (r["pid"], r["ruhid"], r["earutr"]) for r in json.load(sys.stdin)["ruhss"]))')" "0/0/0 1/1/0 2/2/0 3/3/0"
eq "3: fdp status: RUAMW of empty 8 MiB units" "$(ruamw)" "16384 16384 16384 16384"
eq "3: RUH status, header-only read (16 bytes): NRUHSD" \
    "$(nvme io-passthru $FN --namespace-id=1 --opcode=0x12 --cdw10=1 --cdw11=3 --data-len=16 --read -b 2>/dev/null | od -An -tu2 -j14 -N2 | tr -d ' ')" 4
eq "3: Get Features FDP mode (1Dh), endurance group 1" "$(nvme get-feature /dev/$F -f 0x1d --cdw11=1 | sed -n 's/.*Current value:\(0x[0-9a-f]*\).*/\1/p')" 0x00000001
t "3: nvme fdp feature -e 1: FDPE Yes, configuration 0" \
    bash -c "nvme fdp feature /dev/$F -e 1 >/tmp/ff && grep -Eq 'FDPE\\) +: Yes' /tmp/ff && grep -Eq 'Configuration Index +: 0' /tmp/ff"
t "3: Set Features FDP mode: enabling configuration 0 (in force) succeeds" nvme fdp feature /dev/$F -e 1 -c 0
eq "3: fdp usage: 4 host-specified handles" "$(nvme fdp usage /dev/$F -e 1 | grep -c 'Attributes: 0x1 (Host Specified)')" 4
eq "3: fdp stats at start: HBMW MBMW MBE" "$(stats)" "0 0 0"
t "3: endurance group 2 does not exist: fdp configs -e 2 fails" bash -c "! nvme fdp configs /dev/$F -e 2"
t "3: a controller without a subsystem has no FDP: fdp configs fails" bash -c "! nvme fdp configs /dev/$P -e 1"
t "3: ... and fdp status (I/O Management Receive) fails" bash -c "! nvme fdp status $PN"
for i in 0 1 2; do nvme write $FN -s $((i * 8)) -c 7 -z 4096 -d /tmp/pat -T 2 -S 1 >/dev/null 2>&1 || no "FDP write $i through pid 1"; done
eq "3: three 4 KiB writes through pid 1: RUAMW of handle 1 drops by 24" "$(ruamw)" "16384 16360 16384 16384"
eq "3: fdp stats after them" "$(stats)" "12288 12288 0"
t "3: the data written through pid 1 reads back" bash -c "nvme read $FN -s 16 -c 7 -z 4096 -d /tmp/back && cmp /tmp/pat /tmp/back"
nvme write $FN -s 104 -c 7 -z 4096 -d /tmp/pat >/dev/null 2>&1 || no "write without a directive"
eq "3: a write without a directive goes to handle 0" "$(ruamw)" "16376 16360 16384 16384"
eq "3: no FDP event yet" "$(nvme fdp events /dev/$F -e 1 -E | grep -c 'Event Type')" 0
nvme write $FN -s 112 -c 7 -z 4096 -d /tmp/pat -T 2 -S 9 >/dev/null 2>&1 || no "write with pid 9"
eq "3: a write with pid 9 (namespace has 0-3) goes to handle 0" "$(ruamw)" "16368 16360 16384 16384"
nvme fdp events /dev/$F -e 1 -E >/tmp/ev
t "3: fdp events -E: one Invalid Placement Identifier event, PID 9" \
    bash -c "[ \$(grep -c 'Event Type' /tmp/ev) = 1 ] && grep -q 'Event Type: 0x3 (Invalid Placement Identifier)' /tmp/ev && grep -q 'Placement Identifier (PID): 0x9' /tmp/ev"
t "3: fio io_uring_cmd --fdp=1 --fdp_pli=2 on /dev/ng${F#nvme}n1 with verify" \
    fio --name=f --filename=/dev/ng${F#nvme}n1 --ioengine=io_uring_cmd --cmd_type=nvme \
    --fdp=1 --fdp_pli=2 --rw=write --bs=4k --size=64k --offset=1M --iodepth=4 --verify=crc32c --output=/dev/null
eq "3: fio's 16 writes through pid 2: RUAMW of handle 2 drops by 128" "$(ruamw)" "16368 16360 16256 16384"
eq "3: fdp stats: HBMW = MBMW = all host bytes so far, MBE 0" "$(stats)" "86016 86016 0"
# log 22h read directly: LSI = endurance group, an offset, a short length
eq "3: Get Log Page 22h, LSI 1, offset 16, 8 bytes: MBMW" \
    "$(nvme get-log /dev/$F --log-id=0x22 --lsi=1 --lpo=16 --log-len=8 -b 2>/dev/null | od -An -tu8 | tr -d ' ')" 86016
t "3: Get Log Page 22h for endurance group 2 fails" bash -c "! nvme get-log /dev/$F --log-id=0x22 --lsi=2 --log-len=64 -b >/dev/null"
t "3: fdp update --pids=1" nvme fdp update $FN --pids=1
eq "3: RUH update starts a fresh unit on handle 1 only" "$(ruamw)" "16368 16384 16256 16384"
nvme fdp events /dev/$F -e 1 -E >/tmp/ev
t "3: the update of a partly written unit logs Reclaim Unit Not Fully Written (PID 1)" \
    bash -c "[ \$(grep -c 'Event Type' /tmp/ev) = 2 ] && grep -A2 'Event Type: 0 (Reclaim Unit Not Fully Written)' /tmp/ev | grep -q 'Placement Identifier (PID): 0x1'"
sed 's/^/#   /' /tmp/ev
t "3: fdp set-events: disable type 03h on handle 0" nvme fdp set-events $FN --placement-handle=0 --event-types=3
eq "3: Get Features FDP events (1Eh), handle 0: 00h enabled, 03h disabled" \
    "$(nvme get-feature /dev/$F -f 0x1e --cdw11=0 -n 1 --data-len=512 -b 2>/dev/null | od -An -tx1 -N4 | tr -d ' ')" 00010300
t "3: fdp set-events: enable it again" nvme fdp set-events $FN --placement-handle=0 --event-types=3 --enable
# ---- reboot ----
echo "# first boot: $FAILS failed"
printf 'spec-nvme-rb' | dd of=$PN bs=4096 seek=200 conv=sync oflag=direct 2>/dev/null
echo "$FAILS" | dd of=$PN bs=4096 seek=201 conv=sync oflag=direct 2>/dev/null
sync
reboot -f
sleep 60
GEOF
femu_run --append no_timer_check --timeout 600 -action reboot=reset \
    -device femu,nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25 \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4 \
    -device femu,nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,subsys=fdp0 \
    -trace femu_dbbuf_config --script "$D/guest.sh" >"$D/b1.out" 2>"$D/b1.err"
rc=$?
grep -E '^(ok|FAIL|#)' "$D/b1.out"
FAILS=$((FAILS + $(grep -c '^FAIL' "$D/b1.out")))
[ $rc = 0 ] && ok "2.6: boot 1: every guest check passed, guest rebooted, QEMU exited 0 at power-off" ||
    { no "boot 1: femu-run exited $rc"; tail -5 "$D/b1.err"; }
grep -q '^# second boot' "$D/b1.out" || no "2.6: the guest did not come back after its reboot"
# 2 controllers x 2 boots + the nvme reset: Linux configured shadow
# doorbells each time
n=$(grep -c 'femu_dbbuf_config dbs 0x[1-9a-f]' "$D/b1.err")
[ "$n" = 5 ] && ok "2.6: Linux set up shadow doorbells at every controller start (5 Doorbell Buffer Config)" ||
    no "2.6: $n Doorbell Buffer Config commands, want 5"

# ---- boot 2: a new QEMU has none of that data; the runner returns the job's status
femu_run --append no_timer_check --timeout 300 \
    -device femu,nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25 \
    -c 'cmp <(dd if=/dev/nvme0n1 bs=1M count=24 iflag=direct 2>/dev/null) <(head -c 25165824 /dev/zero) && exit 42; exit 3' \
    >"$D/b2.out" 2>"$D/b2.err"
rc=$?
[ $rc = 42 ] && ok "2.6/4: after quitting QEMU the data is gone (zeroes), and femu-run exits with the job's status 42" ||
    { no "boot 2: femu-run exited $rc (42: zeroes; 3: old data found)"; tail -5 "$D/b2.err"; }
grep -q 'status job=42 qemu=0' "$D/b2.err" && ok "4: femu-run's status line: job=42 qemu=0" ||
    no "4: femu-run status line: $(tail -1 "$D/b2.err")"

if [ ! -e /dev/kvm ]; then
    grep -q 'accel=tcg' "$D/b2.err" && ok "4: without /dev/kvm the runner used TCG" || no "4: $(tail -1 "$D/b2.err")"
fi
# the reference pages section 4 names
miss=
for f in before-you-start quick-start ftl fdp log-pages controls measuring runner \
         tutorials/01-first-ssd tutorials/02-gc-waf tutorials/04-fdp tutorials/05-latency; do
    [ -s "$FEMU_ROOT/docs/$f.md" ] || miss="$miss $f"
done
[ -z "$miss" ] && ok "4: reference pages and tutorials 01, 02, 04, 05 exist" || no "4: missing docs:$miss"
for f in waf-run.sh fdp-run.sh; do
    [ -x "$FEMU_ROOT/scripts/tutorials/$f" ] || [ -f "$FEMU_ROOT/scripts/tutorials/$f" ] &&
        ok "4: scripts/tutorials/$f exists" || no "4: no scripts/tutorials/$f"
done

echo "# spec-nvme: $FAILS failed"
[ $FAILS = 0 ]
