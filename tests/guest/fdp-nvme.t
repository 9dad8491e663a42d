#!/bin/bash
# FDP end to end in the embedded guest, one boot, two FDP controllers:
#  vSSD0: the tutorial-04 device (fdp.nruh=4, 8 MiB reclaim units, 512 B
#         blocks): every `nvme fdp` subcommand's output, placement through
#         nvme write -T 2 -S <pid>, invalid pid -> handle 0 + event, RUH
#         update, set-events, features 1Dh/1Eh (with SV, saved values,
#         Command Sequence Error for a mode change), directives (Identify,
#         Data Placement), error statuses, short reads, and fio's
#         io_uring_cmd engine with --fdp=1 and verify;
#  vSSD1: secsz=4096 (RUAMW counts 4 KiB blocks; a unit fills and the
#         next one opens);
#  vSSD2: 128 handles (default geometry): ids 0, 64, 127 in their own
#         handles, 128-entry status/usage, RUH update of three ids;
#  vSSD3: a femu-subsys with fdp=off: no FDP anywhere;
#  vSSD4: 8 handles on a scaled tutorial-04 device (1 MiB units, 1 GC
#         unit): GC under random writes spread over all 8 handles.
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

job=$(mktemp /tmp/femu-fdp-job.XXXXXX)
trap 'rm -f "$job"' EXIT
{ "$ROOT/scripts/femu-log.sh" --emit; cat "$GUEST_DIR/common.sh" -; } >"$job" <<'GUEST'
A=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
B=$(ctrl_of vSSD1) || { bad "no controller vSSD1"; finish; exit; }
H=$(ctrl_of vSSD2) || { bad "no controller vSSD2"; finish; exit; }
O=$(ctrl_of vSSD3) || { bad "no controller vSSD3"; finish; exit; }
G=$(ctrl_of vSSD4) || { bad "no controller vSSD4"; finish; exit; }
AN=/dev/${A}n1 BN=/dev/${B}n1 HN=/dev/${H}n1 ON=/dev/${O}n1
has() { grep -Eq -- "$2" <<<"$1"; }
# failed RC OUT REGEX: the command failed and printed a status matching REGEX
failed() { [ "$1" != 0 ] && grep -Eq -- "$3" <<<"$2"; }
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
out=$(nvme get-log /dev/$A --log-id=0x20 --lsi=2 --log-len=64 2>&1); rc=$?
check "configs of endurance group 2 (none): Invalid Field" failed $rc "$out" "\(0x(400)?2\)$"

# --- RUH status fresh, then three 4 KiB writes through pid 1
st=$(nvme fdp status $AN); echo "$st"
check "status: 4 placement ids" [ "$(grep -c '^Placement Identifier' <<<"$st")" = 4 ]
check "status: EARUTR 0 x4" [ "$(grep -c 'EARUTR): 0$' <<<"$st")" = 4 ]
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
check "events -E: NSID 1, RG 0, handle 0" has "$(tr '\n' ' ' <<<"$ev")" \
    "Namespace Identifier \(NSID\): 1 +Reclaim Group Identifier: 0 +Reclaim Unit Handle Identifier 0"
# the event's timestamp is the controller's Timestamp feature, which Linux
# set to its wall clock when it enabled the controller: it must be within
# a minute of the guest's clock (both count on from there)
ets=$(awk '/Event Timestamp:/ {print $3; exit}' <<<"$ev")
now=$(python3 -c 'import time; print(int(time.time() * 1000))')
check "events -E: timestamp $ets within 60 s of the guest clock $now" \
    [ $(( ets > now ? ets - now : now - ets )) -lt 60000 ]
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
check "two host events so far (invalid pid, RU not fully written)" [ "$n0" = 2 ]
nvme write $AN -s 32 -c 7 -z 4096 -d /tmp/blk -T 2 -S 9 >/dev/null
check "disabled event is not logged" [ "$(nvme fdp events /dev/$A -e 1 -E | grep -c '^Event\[')" = "$n0" ]
nvme fdp set-events $AN -p 0 -t 3 -e >/dev/null
nvme write $AN -s 40 -c 7 -z 4096 -d /tmp/blk -T 2 -S 9 >/dev/null
check "re-enabled event is logged" [ "$(nvme fdp events /dev/$A -e 1 -E | grep -c '^Event\[')" = $((n0 + 1)) ]

# --- FDP mode (1Dh) with SV: nvme-cli's `fdp feature` always sets the
# save bit.  Setting what is in force succeeds; disabling or changing the
# configuration of an endurance group that holds a namespace is refused
# with Command Sequence Error (status 0Ch), and FDP stays on.
out=$(nvme fdp feature /dev/$A -e 1 -c 0 2>&1); rc=$?; echo "$out"
check "fdp feature -e 1 -c 0 (SV set): exit 0" [ $rc = 0 ]
check "fdp feature -e 1 -c 0: success message" has "$out" "^Success enabling Endurance Group: 1, FDP configuration index: 0$"
out=$(nvme fdp feature /dev/$A -e 1 --disable 2>&1); rc=$?; echo "$out"
check "fdp feature --disable: Command Sequence Error" \
    failed $rc "$out" "^NVMe status: .*(COMMAND_SEQ_ERROR|[Cc]ommand [Ss]equence [Ee]rror).*\(0x(400)?c\)$"
out=$(nvme fdp feature /dev/$A -e 1 -c 1 2>&1); rc=$?; echo "$out"
check "fdp feature -c 1: Command Sequence Error" failed $rc "$out" "\(0x(400)?c\)$"
check "fdp feature: FDP still enabled, configuration 0" \
    has "$(nvme fdp feature /dev/$A -e 1)" "FDPE\) +: Yes"
out=$(nvme get-feature /dev/$A -f 0x1d --cdw11=1 -s 3 2>&1); echo "$out"
check "feature 1Dh SEL=3: saveable and changeable (0x5)" has "$out" "Supported capabilities value: ?0x0+5$"
out=$(nvme get-feature /dev/$A -f 0x1e --namespace-id=1 --cdw11=0x20000 -s 3 2>&1); echo "$out"
check "feature 1Eh SEL=3: saveable, per namespace, changeable (0x7)" has "$out" "Supported capabilities value: ?0x0+7$"
out=$(nvme set-feature /dev/$A -f 0x0b -V 0 -s 2>&1); rc=$?; echo "$out"
check "Set Features SV on a feature that is not saveable: Feature Identifier Not Saveable" \
    failed $rc "$out" "\(0x(410)?d\)$"

# --- FDP events (1Eh) with SV: saved and current values, and a controller
# reset restores the saved one
out=$(nvme fdp set-events $AN -p 1 -t 3 -s 2>&1); echo "$out"
check "set-events -s (SV set): Success" has "$out" "^set-events: Success$"
sv=$(nvme get-feature /dev/$A -f 0x1e --namespace-id=1 --cdw11=0x20001 -s 2 -H); echo "$sv"
check "feature 1Eh saved: invalid pid not enabled on handle 1" has "$sv" "Invalid Placement Identifier +: Not Enabled"
check "set-events -e without -s: Success" has "$(nvme fdp set-events $AN -p 1 -t 3 -e)" "^set-events: Success$"
check "feature 1Eh current: invalid pid enabled on handle 1" \
    has "$(nvme get-feature /dev/$A -f 0x1e --namespace-id=1 --cdw11=0x20001 -H)" "Invalid Placement Identifier +: Enabled"
check "feature 1Eh saved: still not enabled" \
    has "$(nvme get-feature /dev/$A -f 0x1e --namespace-id=1 --cdw11=0x20001 -s 2 -H)" "Invalid Placement Identifier +: Not Enabled"
nvme reset /dev/$A
sleep 1
check "after a controller reset the current value is the saved one" \
    has "$(nvme get-feature /dev/$A -f 0x1e --namespace-id=1 --cdw11=0x20001 -H)" "Invalid Placement Identifier +: Not Enabled"
check "set-events -e -s: Success" has "$(nvme fdp set-events $AN -p 1 -t 3 -e -s)" "^set-events: Success$"

# --- directives (Directive Receive/Send, Identify directive)
dr=$(nvme dir-receive $AN -D 0 -O 1 -H 2>&1); echo "$dr"
check "dir-receive -D 0 -O 1: Identify supported" has "$dr" "Identify Directive +: supported"
check "dir-receive: Streams not supported" has "$dr" "Stream Directive +: not supported"
check "dir-receive: Data Placement supported" has "$dr" "Data Placement Directive : supported"
check "dir-receive: Identify and Data Placement enabled and persistent" \
    [ "$(grep -cE '(Identify|Data Placement) Directive +: enabled' <<<"$dr")" = 4 ]
check "dir-receive: Streams disabled and not persistent" \
    [ "$(grep -cE 'Stream Directive +: disabled' <<<"$dr")" = 2 ]
v=$(nvme dir-receive $AN -D 0 -O 1 -l 8 -b 2>/dev/null | od -An -tx1 -N1 | tr -d ' ')
check "dir-receive with an 8-byte buffer: supported = 0x05" [ "$v" = 05 ]
out=$(nvme dir-receive $AN -D 1 -O 1 2>&1); rc=$?; echo "$out"
check "dir-receive of Streams parameters: Invalid Field" failed $rc "$out" "\(0x(400)?2\)$"
out=$(nvme dir-send $AN -D 0 -O 1 -T 2 -e 1 2>&1); echo "$out"
check "dir-send enable Data Placement (in force): success" has "$out" "^dir-send: type 0, operation 0x1, spec_val 0, nsid 0x1, result 0$"
out=$(nvme dir-send $AN -D 0 -O 1 -T 2 -e 0 2>&1); rc=$?; echo "$out"
check "dir-send disable Data Placement: Invalid Field" failed $rc "$out" "\(0x(400)?2\)$"
out=$(nvme dir-send $AN -D 0 -O 1 -T 1 -e 1 2>&1); rc=$?; echo "$out"
check "dir-send enable Streams: Invalid Field" failed $rc "$out" "\(0x(400)?2\)$"
# raw Directive Receive: NUMD over MDTS (512 KiB), a bad DOPER, DTYPE 2
# (Data Placement has no Receive operations): Invalid Field, like Get Log Page
for dw in "0x3ffff 0x1" "0x3ff 0x2" "0x3ff 0x201"; do
    set -- $dw
    out=$(nvme admin-passthru /dev/$A --opcode=0x1a --namespace-id=1 --cdw10=$1 --cdw11=$2 --data-len=4096 -r 2>&1); rc=$?
    check "Directive Receive cdw10=$1 cdw11=$2: Invalid Field" failed $rc "$out" "\(0x(400)?2\)$|[Ii]nvalid [Ff]ield"
done
check "dir-receive on namespace 2: refused" \
    bash -c "! nvme dir-receive $AN -n 2 -D 0 -O 1 >/dev/null 2>&1"
# --csi=0: without it nvme-cli 2.13 first reads CAP (sysfs BAR mapping,
# else a Fabrics Property Get) and printed nothing in this guest
eff=$(nvme effects-log /dev/$A --csi=0 2>&1); echo "$eff" | grep -E "^ACS2[56] "
check "effects log: Directive Send supported" has "$eff" "^ACS25 +\[Directive Send +\] 00000001$"
check "effects log: Directive Receive supported" has "$eff" "^ACS26 +\[Directive Receive +\] 00000001$"

# --- secsz=4096: RUAMW in 4 KiB blocks (1 MiB units = 256 blocks)
check "4K: fresh RUAMW 256" [ "$(ruamw $BN 1)" = 256 ]
for l in 0 1 2; do nvme write $BN -s $l -c 0 -z 4096 -d /tmp/blk -T 2 -S 1 >/dev/null; done
check "4K: RUAMW 253 after 3 blocks" [ "$(ruamw $BN 1)" = 253 ]
check "4K: pid 0 untouched" [ "$(ruamw $BN 0)" = 256 ]
# the unit (1 MiB = 256 blocks) fills with 253 more blocks: RUAMW then
# shows the next, empty unit; one more block is taken from that one
dd if=/dev/urandom of=/tmp/blk512k bs=4096 count=128 2>/dev/null
nvme write $BN -s 3 -c 127 -z 524288 -d /tmp/blk512k -T 2 -S 1 >/dev/null
check "4K: RUAMW 125 after 128 more blocks" [ "$(ruamw $BN 1)" = 125 ]
nvme write $BN -s 131 -c 124 -z 512000 -d /tmp/blk512k -T 2 -S 1 >/dev/null
check "4K: unit full -> RUAMW 256 (the next unit)" [ "$(ruamw $BN 1)" = 256 ]
nvme write $BN -s 256 -c 0 -z 4096 -d /tmp/blk -T 2 -S 1 >/dev/null
check "4K: RUAMW 255 in the next unit" [ "$(ruamw $BN 1)" = 255 ]
check "4K: pid 0 still untouched" [ "$(ruamw $BN 0)" = 256 ]

# --- 128 handles: 64 MiB units of 131072 blocks
cfg=$(nvme fdp configs /dev/$H -e 1)
check "128: configs lists 128 handles" has "$cfg" "^Number of Reclaim Unit Handles: 128$"
check "128: 128 persistently isolated handles" \
    [ "$(grep -c 'Persistently Isolated' <<<"$cfg")" = 128 ]
check "128: RU nominal size 67108864" has "$cfg" "^Reclaim Unit Nominal Size: 67108864$"
st=$(nvme fdp status $HN)
check "128: status has 128 placement ids" [ "$(grep -c '^Placement Identifier' <<<"$st")" = 128 ]
check "128: fresh RUAMW 131072 x128" [ "$(grep -c 'RUAMW): 131072$' <<<"$st")" = 128 ]
nvme write $HN -s 0 -c 7 -z 4096 -d /tmp/blk -T 2 -S 0 >/dev/null
nvme write $HN -s 8 -c 7 -z 4096 -d /tmp/blk -T 2 -S 64 >/dev/null
nvme write $HN -s 16 -c 7 -z 4096 -d /tmp/blk -T 2 -S 64 >/dev/null
nvme write $HN -s 24 -c 7 -z 4096 -d /tmp/blk -T 2 -S 127 >/dev/null
check "128: ids 0, 64, 127 in their own handles" \
    [ "$(ruamw $HN 0) $(ruamw $HN 64) $(ruamw $HN 127)" = "131064 131056 131064" ]
check "128: the other 125 untouched" \
    [ "$(nvme fdp status $HN | grep -c 'RUAMW): 131072$')" = 125 ]
check "128: usage lists 128 host-specified handles" \
    [ "$(nvme fdp usage /dev/$H -e 1 | grep -c 'Attributes: 0x1 (Host Specified)')" = 128 ]
check "128: update -p 0,64,127" has "$(nvme fdp update $HN -p 0,64,127)" "update: Success"
check "128: all 128 fresh again" [ "$(nvme fdp status $HN | grep -c 'RUAMW): 131072$')" = 128 ]
# fio spreads 2 MiB of 4 KiB writes round robin over all 128 ids: 4 each
fio --name=fdp128 --filename=/dev/ng${H#nvme}n1 --ioengine=io_uring_cmd --cmd_type=nvme \
    --fdp=1 --fdp_pli=0-127 --rw=randwrite --bs=4k --size=2M --iodepth=8 \
    --verify=crc32c --verify_fatal=1 --output=/tmp/fio128.out
check "128: fio --fdp_pli=0-127 with verify" [ $? = 0 ]
check "128: fio wrote 32 blocks through each of the 128 handles" \
    [ "$(nvme fdp status $HN | grep -c 'RUAMW): 131040$')" = 128 ]
ev=$(nvme fdp events /dev/$H -e 1 -E)
check "128: three RU-not-fully-written events, pids 0, 0x40, 0x7f" \
    [ "$(grep -A3 'Event Type: 0 ' <<<"$ev" | awk '/\(PID\)/ {print $NF}' | tr '\n' ' ')" = "0 0x40 0x7f " ]

# --- fdp=off subsystem: no FDP at all
check "off: ctratt 0" has "$(nvme id-ctrl /dev/$O)" "^ctratt +: 0$"
# (nvme-cli 2.13's `fdp configs` prints any failure as "Internal Error
# (0x6)"; get-log shows the status the controller returned)
for lid in 0x20 0x21 0x22 0x23; do
    out=$(nvme get-log /dev/$O --log-id=$lid --lsi=1 --log-len=64 2>&1); rc=$?
    check "off: log $lid: Invalid Log Page" failed $rc "$out" "\(0x4?109\)$"
done
check "off: fdp configs fails" bash -c "! nvme fdp configs /dev/$O -e 1 >/dev/null 2>&1"
out=$(nvme get-feature /dev/$O -f 0x1d --cdw11=1 2>&1); rc=$?
check "off: feature 1Dh: Invalid Field" failed $rc "$out" "\(0x(400)?2\)$"
out=$(nvme fdp status $ON 2>&1); rc=$?
check "off: RUH status: Invalid Opcode" failed $rc "$out" "\(0x(400)?1\)$"
out=$(nvme write $ON -s 0 -c 7 -z 4096 -d /tmp/blk -T 2 -S 1 2>&1); rc=$?
check "off: write with DTYPE 2: Invalid Field" failed $rc "$out" "\(0x(400)?2\)$"
check "off: plain write works" bash -c "nvme write $ON -s 0 -c 7 -z 4096 -d /tmp/blk >/dev/null"

# --- GC with 8 handles active: fill through ids 0-7, then 64 MiB of 4 KiB
# random writes through all 8 (the 51 MiB namespace is full, so GC runs
# throughout; only 1 GC unit may be open, the other handles relocate into
# their own host unit): no write fails, and the FDP statistics agree
# with C0h (MBMW - HBMW = GC pages x 4096, MBE whole 1 MiB lines)
c0p() { c0 $G | awk '{print $2, $3}'; }
s22() { nvme get-log /dev/$G --log-id=0x22 --lsi=1 --log-len=48 -b | od -An -tu8 -w48 | awk '{print $1, $3, $5}'; }
fio --name=fill8 --filename=/dev/ng${G#nvme}n1 --ioengine=io_uring_cmd --cmd_type=nvme \
    --fdp=1 --fdp_pli=0-7 --rw=write --bs=128k --iodepth=8 --output=/dev/null
check "8 handles: fill through ids 0-7" [ $? = 0 ]
read -r hp0 gc0 <<<"$(c0p)"; read -r hb0 mb0 me0 <<<"$(s22)"
fio --name=rand8 --filename=/dev/ng${G#nvme}n1 --ioengine=io_uring_cmd --cmd_type=nvme \
    --fdp=1 --fdp_pli=0-7 --rw=randwrite --bs=4k --io_size=64M --norandommap \
    --randrepeat=0 --iodepth=16 --output=/tmp/fio8.out
check "8 handles: 64 MiB random writes through ids 0-7 without an error" [ $? = 0 ]
read -r hp1 gc1 <<<"$(c0p)"; read -r hb1 mb1 me1 <<<"$(s22)"
dgc=$(( ${gc1:-0} - ${gc0:-0} )) dhb=$(( ${hb1:-0} - ${hb0:-0} ))
dmb=$(( ${mb1:-0} - ${mb0:-0} )) dme=$(( ${me1:-0} - ${me0:-0} ))
echo "8 handles: host pages $(( ${hp1:-0} - ${hp0:-0} )) GC pages $dgc HBMW $dhb MBMW $dmb MBE $dme"
check "8 handles: GC ran" [ "$dgc" -gt 0 ]
check "8 handles: HBMW up by 64 MiB" [ "$dhb" = 67108864 ]
check "8 handles: MBMW - HBMW = GC pages x 4096" [ $(( dmb - dhb )) = $(( dgc * 4096 )) ]
check "8 handles: MBE whole 1 MiB lines" [ "$(( dme > 0 && dme % 1048576 == 0 ))" = 1 ]

# --- fio io_uring_cmd with FDP, placement ids 0 and 1, verify
before="16384 16384"
r0=$(ruamw $AN 0) r1=$(ruamw $AN 1)
# hbmw mbmw: the low 64 bits of the first two 128-bit counters of log 22h
stats22() { nvme get-log /dev/$A --log-id=0x22 --lsi=1 --log-len=32 -b | od -An -tu8 -w32 | awk '{print $1, $3}'; }
s0=$(stats22)
fio --name=fdp --filename=/dev/ng${A#nvme}n1 --ioengine=io_uring_cmd --cmd_type=nvme \
    --fdp=1 --fdp_pli=0,1 --rw=randwrite --bs=4k --size=12M --offset=64M --iodepth=8 \
    --verify=crc32c --verify_fatal=1 --output=/tmp/fio.out
rc=$?; tail -3 /tmp/fio.out
check "fio io_uring_cmd --fdp=1 --fdp_pli=0,1 verify" [ $rc = 0 ]
check "fio: pids 2,3 untouched" [ "$(ruamw $AN 2) $(ruamw $AN 3)" = "$before" ]
# 12 MiB of 4 KiB writes = 24576 blocks, split between ids 0 and 1 (fio
# alternates them), all within the handles' open units (no unit fills)
d0=$(( r0 - $(ruamw $AN 0) )) d1=$(( r1 - $(ruamw $AN 1) ))
echo "fio: RUAMW drop pid 0 $d0, pid 1 $d1"
split=no
[ "$d0" -gt 0 ] && [ "$d1" -gt 0 ] && [ $((d0 + d1)) = 24576 ] && split=yes
check "fio: pids 0 and 1 both written, 24576 blocks in all" [ $split = yes ]
s1=$(stats22)
read -r h0 m0 <<<"$s0"; read -r h1 m1 <<<"$s1"
echo "fio: log 22h before: $s0, after: $s1"
check "fio: HBMW and MBMW up by 12582912 each (no GC)" \
    [ "$(( ${h1:-0} - ${h0:-0} )) $(( ${m1:-0} - ${m0:-0} ))" = "12582912 12582912" ]
GUEST
echo finish >>"$job"
"$RUNNER" --append no_timer_check --timeout 900 \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4 \
    -device femu,femu_mode=1,$T4,subsys=fdp0 \
    -device femu-subsys,id=fdp1,fdp=on,fdp.nruh=2 \
    -device femu,femu_mode=1,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,secsz=4096,subsys=fdp1 \
    -device femu-subsys,id=fdp2,fdp=on,fdp.nruh=128 \
    -device femu,femu_mode=1,subsys=fdp2 \
    -device femu-subsys,id=off3 \
    -device femu,femu_mode=1,nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,subsys=off3 \
    -device femu-subsys,id=fdp4,fdp=on,fdp.nruh=8 \
    -device femu,femu_mode=1,nchs=2,luns_per_ch=4,blks_per_pl=64,pgs_per_blk=32,op_pcent=25,subsys=fdp4 \
    --script "$job"
rc=$?
[ $hostfail = 0 ] && exit $rc
exit 1
