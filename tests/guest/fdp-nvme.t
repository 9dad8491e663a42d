#!/bin/bash
# FDP end to end in the embedded guest, one boot, two FDP controllers:
#  vSSD0: the tutorial-04 device (fdp.nruh=4, 8 MiB reclaim units, 512 B
#         blocks): every `nvme fdp` subcommand's output, placement through
#         nvme write -T 2 -S <pid>, invalid pid -> handle 0 + event, RUH
#         update, set-events, features 1Dh/1Eh, error statuses, short
#         reads, and fio's io_uring_cmd engine with --fdp=1 and verify;
#  vSSD1: secsz=4096 (RUAMW counts 4 KiB blocks).
# Host side first: start-up refusals of bad FDP settings (no boot).
. "$(dirname "$0")/femu-lib.sh"
need_runner

FW=${FEMU_CACHE_DIR:-$HOME/.cache/femu}/guest/current/firmware
[ -f "$FW/bios-256k.bin" ] || FW=/usr/share/seabios
hostfail=0
refuse() {
    local what=$1; shift
    local out rc
    out=$(echo quit | timeout 60 "$QEMU" -L "$FW" -M q35 -nodefaults -display none -S \
          -monitor stdio "$@" 2>&1); rc=$?
    if [ $rc = 1 ] && grep -q -- "$what" <<<"$out"; then
        echo "ok - refused: $(grep -m1 -- "$what" <<<"$out")"
    else
        echo "FAIL - expected exit 1 naming $what for $*: rc=$rc: $out"; hostfail=1
    fi
}
T4=nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25
refuse "fdp.nruh=0" -device femu-subsys,id=s,fdp=on -device femu,$T4,subsys=s
refuse "fdp.nruh=300" -device femu-subsys,id=s,fdp=on,fdp.nruh=300 -device femu,subsys=s
refuse "fdp.nru=0" -device femu-subsys,id=s,fdp=on,fdp.nruh=4,fdp.nru=0 -device femu,$T4,subsys=s
refuse "fdp.nru=2" -device femu-subsys,id=s,fdp=on,fdp.nruh=4,fdp.nru=2 -device femu,$T4,subsys=s
refuse "fdp.nruh=40" -device femu-subsys,id=s,fdp=on,fdp.nruh=40 -device femu,$T4,subsys=s
refuse "femu_mode=1" -device femu-subsys,id=s,fdp=on,fdp.nruh=4 -device femu,femu_mode=2,subsys=s
refuse "subsys=s" -device femu,$T4,subsys=s -device femu-subsys,id=s,fdp=on,fdp.nruh=4
# 128 handles on the default geometry start
out=$(echo quit | timeout 60 "$QEMU" -L "$FW" -M q35 -nodefaults -display none -S -monitor stdio \
      -device femu-subsys,id=s,fdp=on,fdp.nruh=128 -device femu,subsys=s 2>&1) &&
    echo "ok - fdp.nruh=128 on the default geometry starts" ||
    { echo "FAIL - fdp.nruh=128 refused: $out"; hostfail=1; }

job=$(mktemp /tmp/femu-fdp-job.XXXXXX)
trap 'rm -f "$job"' EXIT
cat "$GUEST_DIR/common.sh" - >"$job" <<'GUEST'
A=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
B=$(ctrl_of vSSD1) || { bad "no controller vSSD1"; finish; exit; }
AN=/dev/${A}n1 BN=/dev/${B}n1
has() { grep -Eq -- "$2" <<<"$1"; }
# ruamw DEV PID -> RUAMW of that placement id (nvme fdp status)
ruamw() {
    nvme fdp status "$1" | awk -v p="$2" '/^Placement Identifier/ {cur = $3 + 0}
        /RUAMW/ && cur == p {print $NF}'
}
dd if=/dev/urandom of=/tmp/blk bs=4096 count=1 2>/dev/null

# --- identify
idc=$(nvme id-ctrl /dev/$A)
check "id-ctrl: ctratt 0x80010" has "$idc" "^ctratt +: 0x80010$"
check "id-ctrl: endgidmax 1" has "$idc" "^endgidmax +: 1$"
check "id-ns: endgid 1" has "$(nvme id-ns $AN)" "^endgid +: 1$"

# --- configurations (log 20h)
cfg=$(nvme fdp configs /dev/$A -e 1); echo "$cfg"
check "configs: FDPA 0x80" has "$cfg" "^FDP Attributes: 0x80$"
check "configs: vss 0" has "$cfg" "^Vendor Specific Size: 0$"
check "configs: 1 reclaim group" has "$cfg" "^Number of Reclaim Groups: 1$"
check "configs: 4 handles" has "$cfg" "^Number of Reclaim Unit Handles: 4$"
check "configs: 256 namespaces" has "$cfg" "^Number of Namespaces Supported: 256$"
check "configs: RU nominal size 8388608" has "$cfg" "^Reclaim Unit Nominal Size: 8388608$"
check "configs: time limit 0" has "$cfg" "^Estimated Reclaim Unit Time Limit: 0$"
check "configs: 4 persistently isolated handles" \
    [ "$(grep -c 'Persistently Isolated' <<<"$cfg")" = 4 ]
check "configs: wrong endurance group refused" \
    bash -c "! nvme fdp configs /dev/$A -e 2 >/dev/null 2>&1"

# --- RUH status fresh, then three 4 KiB writes through pid 1
st=$(nvme fdp status $AN); echo "$st"
check "status: 4 placement ids" [ "$(grep -c '^Placement Identifier' <<<"$st")" = 4 ]
check "status: EARUTR 0" bash -c "! grep EARUTR <<<'$st' | grep -vq ': 0$'"
check "status: fresh RUAMW 16384 x4" [ "$(grep -c 'RUAMW): 16384$' <<<"$st")" = 4 ]
for l in 0 8 16; do nvme write $AN -s $l -c 7 -z 4096 -d /tmp/blk -T 2 -S 1 >/dev/null; done
check "pid 1 RUAMW 16360 after 3 x 4 KiB" [ "$(ruamw $AN 1)" = 16360 ]
check "pids 0,2,3 untouched" [ "$(ruamw $AN 0) $(ruamw $AN 2) $(ruamw $AN 3)" = "16384 16384 16384" ]
# short read of just the 16-byte header: NRUHSD (bytes 14-15) = 4
hdr=$(nvme io-passthru $AN --opcode=0x12 --namespace-id=1 --cdw10=1 --cdw11=3 --data-len=16 -r -b 2>/dev/null | od -An -tu2 -j14 -N2 | tr -d ' ')
check "status: header-only read gives nruhsd 4" [ "$hdr" = 4 ]
check "I/O Mgmt Receive MO 2 refused" \
    bash -c "! nvme io-passthru $AN --opcode=0x12 --namespace-id=1 --cdw10=2 --cdw11=3 --data-len=16 -r >/dev/null 2>&1"

# --- statistics (log 22h)
stats=$(nvme fdp stats /dev/$A -e 1); echo "$stats"
check "stats: HBMW 12288" has "$stats" "\(HBMW\): 12,?288$"
check "stats: MBMW 12288" has "$stats" "\(MBMW\): 12,?288$"
check "stats: MBE 0" has "$stats" "\(MBE\): 0$"
mbmw=$(nvme get-log /dev/$A --log-id=0x22 --lsi=1 --log-len=8 --lpo=16 -b | od -An -tu8 | tr -d ' ')
check "log 22h: 8 bytes at offset 16 = MBMW 12288" [ "$mbmw" = 12288 ]
check "log 22h: LSI 2 refused" bash -c "! nvme get-log /dev/$A --log-id=0x22 --lsi=2 --log-len=64 >/dev/null 2>&1"

# --- usage (log 21h)
use=$(nvme fdp usage /dev/$A -e 1); echo "$use"
check "usage: 4 handles host specified" [ "$(grep -c 'Attributes: 0x1 (Host Specified)' <<<"$use")" = 4 ]

# --- invalid placement id 9 -> handle 0 + host event
nvme write $AN -s 24 -c 7 -z 4096 -d /tmp/blk -T 2 -S 9 >/dev/null
check "pid 9 write lands on handle 0 (RUAMW 16376)" [ "$(ruamw $AN 0)" = 16376 ]
ev=$(nvme fdp events /dev/$A -e 1 -E); echo "$ev"
check "events -E: invalid placement identifier" has "$ev" "Event Type: 0x3 \(Invalid Placement Identifier\)"
check "events -E: PID 0x9" has "$ev" "Placement Identifier \(PID\): 0x9"
check "controller events: none" [ -z "$(nvme fdp events /dev/$A -e 1)" ]

# --- RUH update (I/O Management Send)
out=$(nvme fdp update $AN -p 1); echo "$out"
check "update: Success" has "$out" "update: Success"
check "pid 1 RUAMW back to 16384 after update" [ "$(ruamw $AN 1)" = 16384 ]
check "update: RU not fully written event" has "$(nvme fdp events /dev/$A -e 1 -E)" "Event Type: 0 \(Reclaim Unit Not Fully Written\)"
check "update of pid 7 refused" bash -c "! nvme fdp update $AN -p 7 >/dev/null 2>&1"

# --- features 1Dh / 1Eh, set-events
f1d=$(nvme get-feature /dev/$A -f 0x1d --cdw11=1 -H); echo "$f1d"
check "feature 1Dh: FDPE Yes" has "$f1d" "FDPE\) +: Yes"
check "feature 1Dh: configuration index 0" has "$f1d" "Configuration Index : 0"
check "fdp feature -e 1" has "$(nvme fdp feature /dev/$A -e 1)" "FDPE\) +: Yes"
f1e=$(nvme get-feature /dev/$A -f 0x1e --namespace-id=1 --cdw11=0x20000 -H); echo "$f1e"
check "feature 1Eh: both events enabled" [ "$(grep -c ': Enabled' <<<"$f1e")" = 2 ]
check "set-events: disable invalid pid on handle 0" has "$(nvme fdp set-events $AN -p 0 -t 3)" "set-events: Success"
f1e=$(nvme get-feature /dev/$A -f 0x1e --namespace-id=1 --cdw11=0x20000 -H); echo "$f1e"
check "feature 1Eh: invalid pid not enabled" has "$f1e" "Invalid Placement Identifier +: Not Enabled"
n0=$(nvme fdp events /dev/$A -e 1 -E | grep -c '^Event\[')
nvme write $AN -s 32 -c 7 -z 4096 -d /tmp/blk -T 2 -S 9 >/dev/null
check "disabled event is not logged" [ "$(nvme fdp events /dev/$A -e 1 -E | grep -c '^Event\[')" = "$n0" ]
nvme fdp set-events $AN -p 0 -t 3 -e >/dev/null
nvme write $AN -s 40 -c 7 -z 4096 -d /tmp/blk -T 2 -S 9 >/dev/null
check "re-enabled event is logged" [ "$(nvme fdp events /dev/$A -e 1 -E | grep -c '^Event\[')" = $((n0 + 1)) ]

# --- secsz=4096: RUAMW in 4 KiB blocks (1 MiB units = 256 blocks)
check "4K: fresh RUAMW 256" [ "$(ruamw $BN 1)" = 256 ]
for l in 0 1 2; do nvme write $BN -s $l -c 0 -z 4096 -d /tmp/blk -T 2 -S 1 >/dev/null; done
check "4K: RUAMW 253 after 3 blocks" [ "$(ruamw $BN 1)" = 253 ]
check "4K: pid 0 untouched" [ "$(ruamw $BN 0)" = 256 ]

# --- fio io_uring_cmd with FDP, placement ids 0 and 1, verify
before="$(ruamw $AN 2) $(ruamw $AN 3)"
fio --name=fdp --filename=/dev/ng${A#nvme}n1 --ioengine=io_uring_cmd --cmd_type=nvme \
    --fdp=1 --fdp_pli=0,1 --rw=randwrite --bs=4k --size=12M --offset=64M --iodepth=8 \
    --verify=crc32c --verify_fatal=1 --output=/tmp/fio.out
rc=$?; tail -3 /tmp/fio.out
check "fio io_uring_cmd --fdp=1 --fdp_pli=0,1 verify" [ $rc = 0 ]
check "fio: pids 2,3 untouched" [ "$(ruamw $AN 2) $(ruamw $AN 3)" = "$before" ]
check "fio: pid 0 and 1 written" bash -c "[ $(ruamw $AN 0) -lt 16376 ] && [ $(ruamw $AN 1) -lt 16384 ]"
GUEST
echo finish >>"$job"
"$RUNNER" --append no_timer_check --timeout 900 \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4 \
    -device femu,femu_mode=1,$T4,subsys=fdp0 \
    -device femu-subsys,id=fdp1,fdp=on,fdp.nruh=2 \
    -device femu,femu_mode=1,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,secsz=4096,subsys=fdp1 \
    --script "$job"
rc=$?
[ $hostfail = 0 ] && exit $rc
exit 1
