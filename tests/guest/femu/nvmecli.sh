# Guest side of tests/guest/femu-nvmecli.t: what nvme-cli (2.13) prints
# for every command a user tries on a FEMU controller.  Devices:
#  vSSD0: nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
#         (52428 blocks of 512 B), the full sweep;
#  vSSD1: the same geometry with secsz=4096 (6553 blocks), I/O commands.
# The kernel is booted with iomem=relaxed so that nvme-cli can map BAR0
# (show-regs, effects-log without --csi; see docs/device.md).
A=$(ctrl_of vSSD0) || { bad "no controller with SN vSSD0"; finish; exit; }
B=$(ctrl_of vSSD1) || { bad "no controller with SN vSSD1"; finish; exit; }
C=/dev/$A N=/dev/${A}n1 G=/dev/ng${A#nvme}n1

# has TEXT CMD...: the command succeeds and prints a line containing TEXT
has() {
    local t=$1 out; shift
    if out=$("$@" 2>&1) && grep -qF -- "$t" <<<"$out"; then
        ok "$* -> $t"
    else
        bad "$* -> want '$t', got: $(head -c 400 <<<"$out")"
    fi
}
# st CODE CMD...: the command fails and nvme-cli prints the NVMe status
# CODE (hex, with DNR, as nvme-cli shows it: "...(0x4002)")
st() {
    local c=$1 out; shift
    if ! out=$("$@" 2>&1) && grep -qF -- "($c)" <<<"$out"; then
        ok "$* -> status $c"
    else
        bad "$* -> want status $c, got: $(head -c 400 <<<"$out")"
    fi
}
# js EXPR CMD...: the command prints JSON j for which the Python
# expression EXPR is true
js() {
    local e=$1 out; shift
    if out=$("$@" 2>&1) &&
       python3 -c 'import sys, json; j = json.loads(sys.argv[2]); sys.exit(0 if eval(sys.argv[1]) else 1)' "$e" "$out"; then
        ok "$* : $e"
    else
        bad "$* : $e; got: $(head -c 600 <<<"$out")"
    fi
}
# feat FID VALUE [ARGS]: get-feature prints "Current value:VALUE"
feat() {
    local f=$1 v=$2; shift 2
    has "Current value:$v" nvme get-feature $C -f $f "$@"
}

# --- listing
js 'sorted((d["SerialNumber"], d["ModelNumber"], d["Firmware"], d["SectorSize"], d["MaximumLBA"]) for d in j["Devices"]) == [("vSSD0", "FEMU BlackBox-SSD Controller", "1.0", 512, 52428), ("vSSD1", "FEMU BlackBox-SSD Controller", "1.0", 4096, 6553)]' \
    nvme list -o json
has "nqn.2026-01.io.femu:vSSD0" nvme list-subsys
has "$A pcie" nvme list-subsys
check "nvme list -v: controller row" bash -c "nvme list -v | grep -Eq \"^$A +0 +vSSD0 +FEMU BlackBox-SSD Controller +1\\.0 +pcie\""

# --- Identify
js 'j["vid"] == 0x1d1d and j["sn"].strip() == "vSSD0" and j["fr"].strip() == "1.0" and j["mdts"] == 7 and j["ver"] == 0x10400 and j["cntrltype"] == 1 and j["oacs"] == 0x122 and j["fna"] == 0 and j["lpa"] == 7 and j["elpe"] == 3 and j["aerl"] == 3 and j["frmw"] == 3 and j["sqes"] == 0x66 and j["cqes"] == 0x44 and j["maxcmd"] == 1024 and j["nn"] == 1 and j["oncs"] == 0x1df and j["ocfs"] == 1 and j["vwc"] == 7 and j["sgls"] == 0x10001 and j["subnqn"] == "nqn.2026-01.io.femu:vSSD0"' \
    nvme id-ctrl $C -o json
has "[0:0] : 0x1	SMART/Health Log Page per NS Supported" nvme id-ctrl $C -H
has "[2:2] : 0x1	Data Set Management Supported" nvme id-ctrl $C -H
has "[6:6] : 0x1	Timestamp Supported" nvme id-ctrl $C -H
for dev in $N $G "$C -n 1"; do
    js 'j["nsze"] == 52428 and j["ncap"] == 52428 and j["nuse"] == 0 and j["nsfeat"] == 0x15 and j["nlbaf"] == 1 and j["flbas"] == 0 and j["dlfeat"] == 9 and j["npwg"] == 7 and [(l["ms"], l["ds"]) for l in j["lbafs"]] == [(0, 9), (0, 12)]' \
        nvme id-ns $dev -o json
done
js 'j["nsze"] == 6553 and j["flbas"] == 1 and j["npwg"] == 0' nvme id-ns /dev/${B}n1 -o json
has "LBA Format  0 : Metadata Size: 0   bytes - Data Size: 512 bytes - Relative Performance: 0 Best (in use)" nvme id-ns $N -H
has "LBA Format  1 : Metadata Size: 0   bytes - Data Size: 4096 bytes - Relative Performance: 0 Best (in use)" nvme id-ns /dev/${B}n1 -H
check "nvme list: vSSD1 shows 4 KiB + 0 B, FW 1.0" bash -c "nvme list | grep -Eq 'vSSD1 .*FEMU BlackBox-SSD Controller .* 4 KiB \+ +0 B +1\.0'"
# no Namespace Management: NSID FFFFFFFFh and inactive NSIDs are invalid
st 0x400b nvme id-ns $C -n 0xffffffff
st 0x400b nvme id-ns $C -n 2
has "[   0]:0x1" nvme list-ns $C
has "[   0]:0x1" nvme list-ns $C --csi=0
st 0x4002 nvme list-ns $C -a
has "eui64   : 1d1d1d0000000000" nvme ns-descs $N
has "nguid   : 1d1d0000000000000000000000000000" nvme ns-descs $N
# vSSD0 has uuid=... on its command line, vSSD1 a random one ("auto")
has "uuid    : 6d8a8f27-3e0b-4c52-9a4e-f2a4c1d9b001" nvme ns-descs $N
has "csi     : 0" nvme ns-descs $N
u1=$(nvme ns-descs /dev/${B}n1 | sed -n 's/^uuid *: //p')
check "vSSD1: a random UUID of its own ($u1)" bash -c "[[ '$u1' =~ ^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}\$ ]]"
has "[0:0] : 0x1	Thin Provisioning Supported" nvme id-ns $N -H
has "I/O Command Set Combination[0]:1" nvme id-iocs $C
has "dmrl   : 255" nvme nvm-id-ctrl $C
has "elbaf  0 : qpif:0 pif:0 sts:0  (in use)" nvme nvm-id-ns $N
has "nstat   : 0x1" nvme cmdset-ind-id-ns $N
for cmd in id-domain id-nvmset id-uuid list-ctrl primary-ctrl-caps list-secondary; do
    st 0x4002 nvme $cmd $C
done

# --- log pages
js 'j["avail_spare"] == 100 and j["spare_thresh"] == 10 and j["temperature"] == 310 and j["power_cycles"] == 1' nvme smart-log $C -o json
has "namespace-id:1" nvme smart-log $C -n 1
st 0x400b nvme smart-log $C -n 2
js 'j["errors"][0]["status_field"] == 0x400b and j["errors"][0]["nsid"] == 2 and j["errors"][0]["parm_error_location"] == 0xffff' nvme error-log $C -o json
has "frs1 : 0x2020202020302e31 (1.0.....)" nvme fw-log $C
for csi in "" --csi=0; do
    has "ACS6     [Identify                        ] 00000001" nvme effects-log $C $csi
    has "IOCS1    [Write                           ] 00000003" nvme effects-log $C $csi
    has "IOCS9    [Dataset Management              ] 00000003" nvme effects-log $C $csi
done
if out=$(nvme effects-log $C) && ! grep -q "IOCS14 \|ACS16 \|ACS132 " <<<"$out" &&
   grep -q "ACS128 .* 00000007" <<<"$out"; then
    ok "effects-log lists no unsupported opcode (Reservation Report, FW Commit, Sanitize), Format with LBCC and NCC"
else
    bad "effects-log: $out"
fi
st 0x4002 nvme get-log $C --log-id=2 --log-len=8 --lpo=3
st 0x4002 nvme get-log $C --log-id=2 --log-len=8 --lpo=516
has "Device:$A log-id:2" nvme get-log $C --log-id=2 --log-len=8 --lpo=4
st 0x4109 nvme get-log $C --log-id=0x7f --log-len=512
for cmd in supported-log-pages self-test-log sanitize-log fid-support-effects-log; do
    st 0x4109 nvme $cmd $C
done

# --- features: defaults, current = default after start, capabilities
feat 1 0x00000007
has "Default value:0x00000007" nvme get-feature $C -f 1 -s 1
feat 4 0x00000157
feat 6 0x00000001
feat 7 0x00070007
feat 9 0x00000001 --cdw11=1      # CD 0: coalescing applies (intc=0)
for f in 1 2 4 6 7 8 9 0xa 0xb 0xe 0x16; do
    has "Supported capabilities value:0x00000004" nvme get-feature $C -f $f -s 3
done
has "Supported capabilities value:0x00000006" nvme get-feature $C -f 5 -s 3 -n 1
for f in 3 0xc 0xd 0x10 0x11 0x1d 0x1e 0x80; do
    st 0x4002 nvme get-feature $C -f $f
done
# set and read back
for fv in "1 0x03020103" "4 0x00000150" "6 00000000" "8 0x00000101" "0xa 0x00000001" "0xb 0x00000002"; do
    set -- $fv
    has "set-feature:" nvme set-feature $C -f $1 --value=$2
    feat $1 $2
done
# Error Recovery is namespace specific: Set for NSID FFFFFFFFh (what
# nvme-cli sends on /dev/nvme0) applies to namespace 1; Get needs NSID 1
# (-n 1, or the namespace's device); NSID 0 and FFFFFFFFh get 400Bh
has "set-feature:" nvme set-feature $C -f 5 --value=0x10
feat 5 0x00000010 -n 1
has "Current value:0x00000010" nvme get-feature $N -f 5
st 0x400b nvme get-feature $C -f 5
st 0x400b nvme admin-passthru $C --opcode=0x0a --cdw10=5 --namespace-id=0
st 0x400b nvme admin-passthru $C --opcode=0x09 --cdw10=5 --cdw11=0 --namespace-id=0
has "set-feature:" nvme set-feature $C -f 9 --value=0x10001
feat 9 0x00010001 --cdw11=1
# reserved bits are not kept (Arbitration 7:3, Error Recovery 31:17)
has "set-feature:" nvme set-feature $C -f 1 --value=0xfffffff9
feat 1 0xffffff01
st 0x4002 nvme set-feature $C -f 2 --value=1          # power state 1: NPSS = 0
# DULBE (NSFEAT bit 2) is kept; cleared again at once (femu-commands.t
# reads with it set)
has "set-feature:" nvme set-feature $C -f 5 --value=0x10010
feat 5 0x00010010 -n 1
has "set-feature:" nvme set-feature $C -f 5 --value=0x10
st 0x4002 nvme set-feature $C -f 4 --value=0x200150   # THSEL reserved
st 0x410d nvme set-feature $C -f 1 --value=7 --save
has "Coalescing Disable (CD): True" nvme get-feature $C -f 9 --cdw11=1 -H

# --- Timestamp (FID 0Eh): Linux sets it at start-up (ONCS bit 6), a
# Set Features with the 8-byte data structure replaces it, it counts on
# in ms; the default (-s 1) is what a Controller Level Reset sets.
# ts -> the timestamp in ms that get-feature -H prints
ts() { nvme get-feature $C -f 0xe -H | sed -n 's/.*The timestamp is : \([0-9]*\) .*/\1/p'; }
has "initialized with a Timestamp value using a Set Features command" nvme get-feature $C -f 0xe -H
# generous: the guest's clock and QEMU's virtual clock may drift apart
# by a little under a loaded TCG host; 60 s is far from any wrong origin
t0=$(ts); now=$(date +%s)
check "timestamp set by Linux at boot is the guest's time ($t0 ms vs $now s)" \
    bash -c "[ -n '$t0' ] && [ \$(( $t0 / 1000 - $now )) -le 60 ] && [ \$(( $now - $t0 / 1000 )) -le 60 ]"
has "The timestamp is : 0 (Thu Jan  1 00:00:00 1970 UTC)" nvme get-feature $C -f 0xe -s 1 -H
has "initialized to ‘0’ by a Controller Level Reset" nvme get-feature $C -f 0xe -s 1 -H
# 1000000 ms, bytes 6-7 (attributes, reserved) set: the device ignores them
printf '\x40\x42\x0f\x00\x00\x00\xff\xff' >/tmp/ts.bin
has "set-feature:0x0e (Timestamp)" nvme set-feature $C -f 0xe --data=/tmp/ts.bin
t1=$(ts); sleep 1; t2=$(ts)
check "timestamp counts from the value set: $t1 then $t2 ms, 1 s apart" \
    bash -c "[ -n '$t1' ] && [ -n '$t2' ] && [ $t1 -ge 1000000 ] && [ $t1 -lt 1060000 ] && [ \$(( $t2 - $t1 )) -ge 900 ] && [ \$(( $t2 - $t1 )) -lt 60000 ]"
if out=$(nvme get-feature $C -f 0xe -b | od -An -tx1 | tr -d ' \n') &&
   [ "${out:12:4}" = 0200 ]; then
    ok "timestamp byte 6 = 02h (origin 001b, Synch 0), byte 7 = 0: $out"
else
    bad "timestamp attributes: want bytes 6-7 0200, got $out"
fi
st 0x410d nvme set-feature $C -f 0xe --data=/tmp/ts.bin --save
# --- Host Behavior Support (FID 16h): 512 bytes, all zero after start;
# Linux refuses Set Features 16h from user space (it owns ACRE), the
# qtest group features sets it
has "Advanced Command Retry Enable (ACRE): False" nvme get-feature $C -f 0x16 -H
if out=$(nvme get-feature $C -f 0x16 -b | od -An -tx1 -v | tr -d ' \n') &&
   [ ${#out} = 1024 ] && [ -z "${out//0/}" ]; then
    ok "host behavior support: 512 zero bytes"
else
    bad "host behavior support: want 512 zero bytes, got ${#out} hex digits: ${out:0:64}"
fi
# a controller reset restores the defaults
check "nvme reset" nvme reset $C
# generous: a reset under a loaded TCG host can take seconds
for i in $(seq 300); do [ "$(cat /sys/class/nvme/$A/state)" = live ] && break; sleep 0.1; done
check "controller live after nvme reset" [ "$(cat /sys/class/nvme/$A/state)" = live ]
feat 1 0x00000007
feat 4 0x00000157
feat 6 0x00000001
feat 8 00000000
feat 9 0x00000001 --cdw11=1
# the reset started the timestamp again and Linux set it to the time
t3=$(ts); now=$(date +%s)
check "after nvme reset the timestamp is the guest's time again ($t3 ms vs $now s)" \
    bash -c "[ -n '$t3' ] && [ \$(( $t3 / 1000 - $now )) -le 60 ] && [ \$(( $now - $t3 / 1000 )) -le 60 ]"

# --- admin commands FEMU does not implement: Invalid Command Opcode
dd if=/dev/zero of=/tmp/fw.bin bs=4096 count=1 2>/dev/null
st 0x4001 nvme device-self-test $C -s 1
st 0x4001 nvme sanitize $C -a 2
# Format NVM erases: tests/guest/femu-commands.t formats; here a bad
# LBA format index only (Invalid Format, nothing erased)
st 0x410a nvme admin-passthru $C --opcode=0x80 --namespace-id=1 --cdw10=2
st 0x4001 nvme fw-download $C --fw=/tmp/fw.bin
st 0x4001 nvme fw-commit $C -s 1 -a 1
st 0x4001 nvme create-ns $C --nsze=1000 --ncap=1000 --flbas=0
st 0x4001 nvme attach-ns $C -n 1 -c 0
st 0x4001 nvme detach-ns $C -n 1 -c 0
st 0x4001 nvme delete-ns $C -n 1
st 0x4001 nvme security-recv $C --size=16
st 0x4001 nvme lockdown $C --ofi=0 --ifc=0 --prhbt=0 --scp=0
st 0x4001 nvme get-property $C -O 0          # a Fabrics command (7Fh)
st 0x4001 nvme admin-passthru $C --opcode=0xc5
st 0x4001 nvme admin-passthru $C --opcode=0xc5 --data-len=512 --read
has "is Success" nvme admin-passthru $C --opcode=0xef --cdw10=2
has "is Success" nvme admin-passthru $C --opcode=0xef --cdw10=1
st 0x4002 nvme admin-passthru $C --opcode=0xef --cdw10=9
# Set Features and EFh change no capability (no CCC in the effects log):
# Linux must not ask for a reset after the set-feature commands above
has "ACS9     [Set Features                    ] 00000001" nvme effects-log $C --csi=0
has "ACS239   [Unknown                         ] 00000001" nvme effects-log $C --csi=0
check "no 'controller capabilities changed' from the kernel for $A" \
    bash -c "! dmesg | grep -q '$A: controller capabilities changed'"
# CAP.NSSRS = 0: the kernel refuses NSSR, nvme-cli says so and fails
if out=$(nvme subsystem-reset $C 2>&1); then
    bad "subsystem-reset succeeded: $out"
else
    check "subsystem-reset: not supported" grep -qF "NVM Subsystem Reset not supported" <<<"$out"
fi
has "(NSSRS): No" nvme show-regs $C -H
has "(MPSMIN): 4096 bytes" nvme show-regs $C -H
has "(MQES): 1024" nvme show-regs $C -H
has "(CSS): NVM command set is Supported" nvme show-regs $C -H
has "NVMe specification 1.4.0" nvme show-regs $C -H
js 'j["cap"] == 0x200f0103ff and j["vs"] == 0x10400' nvme show-regs $C -o json

# --- SMART / Health counters after a known amount of I/O (NVMe 2.0
# 5.16.1.3): 1000 writes and 500 reads of 4 KiB by fio with direct=1 are
# 8000 and 4000 units of 512 B, i.e. exactly 8 and 4 more data units
# (thousands, rounded up: the deltas are exact whatever came before),
# and exactly 1000 / 500 more host commands.  NUSE follows the mapped
# pages: 1000 pages = 8000 blocks on this never-written namespace.
# smart CTRL -> "duw dur hwc hrc" from the SMART log
smart() {
    nvme smart-log /dev/$1 -o json | python3 -c 'import sys, json; j = json.load(sys.stdin); print(j["data_units_written"], j["data_units_read"], j["host_write_commands"], j["host_read_commands"])'
}
nuse() { nvme id-ns /dev/${1}n1 -o json | python3 -c 'import sys, json; print(json.load(sys.stdin)["nuse"])'; }
read w0 r0 hw0 hr0 < <(smart $A)
fio --name=smw --filename=$N --rw=write --bs=4k --size=4000k --direct=1 \
    --ioengine=psync --output=/dev/null
fio --name=smr --filename=$N --rw=read --bs=4k --size=2000k --direct=1 \
    --ioengine=psync --output=/dev/null
read w1 r1 hw1 hr1 < <(smart $A)
check "SMART: +8 data units written, +4 read ($w0->$w1, $r0->$r1)" \
    [ $((w1 - w0)) = 8 -a $((r1 - r0)) = 4 ]
check "SMART: +1000 host write commands, +500 read ($hw0->$hw1, $hr0->$hr1)" \
    [ $((hw1 - hw0)) = 1000 -a $((hr1 - hr0)) = 500 ]
js 'j["critical_warning"] == 0 and j["temperature"] == 310 and j["avail_spare"] == 100 and j["percent_used"] == 0 and j["power_on_hours"] == 0 and j["unsafe_shutdowns"] == 0 and j["media_errors"] == 0 and j["controller_busy_time"] == 0' \
    nvme smart-log $C -o json
check "NUSE = 8000 blocks after 1000 4 KiB pages written ($(nuse $A))" [ "$(nuse $A)" = 8000 ]
# deallocating blocks 0-11 unmaps page 0 only (page 1 keeps blocks 12-15)
nvme dsm $N --ad -s 0 -b 12 >/dev/null
check "NUSE = 7992 after a deallocate of 1.5 pages ($(nuse $A))" [ "$(nuse $A)" = 7992 ]
# one 512 B block maps its whole 4 KiB page
head -c 512 /dev/urandom >/tmp/w512
nvme write $N -s 9000 -c 0 -z 512 -d /tmp/w512 >/dev/null 2>&1
check "NUSE = 8000 after a 512 B write into a fresh page ($(nuse $A))" [ "$(nuse $A)" = 8000 ]
# vSSD1 (4096 B blocks) was never written: counters start at 0
read w0 r0 hw0 hr0 < <(smart $B)
check "vSSD1: 0 data units written, 0 write commands before any write ($w0 $hw0)" \
    [ "$w0" = 0 -a "$hw0" = 0 ]

# --- I/O commands, on both formats
for ctl in $A $B; do
    n=/dev/${ctl}n1
    bs=$(cat /sys/block/${ctl}n1/queue/logical_block_size)
    nsze=$(( $(cat /sys/block/${ctl}n1/size) * 512 / bs ))
    dd if=/dev/urandom of=/tmp/w bs=16k count=1 2>/dev/null
    has "write: Success" nvme write $n -s 8 -c 3 -z $((4 * bs)) -d /tmp/w
    if [ $ctl = $B ]; then
        # 4 blocks of 4 KiB = 32 units of 512 B: one data unit, rounded up
        read w1 r1 hw1 hr1 < <(smart $B)
        check "vSSD1: 16 KiB written = 1 data unit, 1 write command ($w1 $hw1)" \
            [ "$w1" = 1 -a "$hw1" = 1 ]
        check "vSSD1: NUSE = 4 after writing blocks 8-11 ($(nuse $B))" [ "$(nuse $B)" = 4 ]
    fi
    rm -f /tmp/r
    has "read: Success" nvme read $n -s 8 -c 3 -z $((4 * bs)) -d /tmp/r
    check "$ctl: nvme read returns what nvme write wrote ($bs B blocks)" cmp -n $((4 * bs)) /tmp/w /tmp/r
    has "NVME Write Zeroes Success" nvme write-zeroes $n -s 8 -c 1
    if [ $ctl = $B ]; then
        check "vSSD1: NUSE = 2 after write-zeroes of blocks 8-9 ($(nuse $B))" [ "$(nuse $B)" = 2 ]
    fi
    rm -f /tmp/r
    nvme read $n -s 8 -c 3 -z $((4 * bs)) -d /tmp/r >/dev/null 2>&1
    check "$ctl: write-zeroes zeroes blocks 8-9, leaves 10-11" \
        bash -c "cmp -n $((2 * bs)) /tmp/r /dev/zero && cmp -n $((2 * bs)) /tmp/r /tmp/w $((2 * bs)) $((2 * bs))"
    has "NVMe DSM: success" nvme dsm $n --ad -s 10 -b 2
    if [ $ctl = $B ]; then
        check "vSSD1: NUSE = 0 after deallocating blocks 10-11 too ($(nuse $B))" [ "$(nuse $B)" = 0 ]
    fi
    rm -f /tmp/r
    nvme read $n -s 8 -c 3 -z $((4 * bs)) -d /tmp/r >/dev/null 2>&1
    check "$ctl: deallocated blocks read as zeroes" cmp -n $((4 * bs)) /tmp/r /dev/zero
    has "NVMe DSM: success" nvme dsm $n --idr -s 0 -b 8
    has "NVMe Flush: success" nvme flush $n
    has "NVMe Flush: success" nvme flush /dev/$ctl -n 1
    nerr=$(nvme smart-log /dev/$ctl -o json | python3 -c 'import sys, json; print(json.load(sys.stdin)["num_err_log_entries"])')
    st 0x4080 nvme read $n -s $nsze -c 0 -z $bs -d /tmp/r
    # the newest entry is this command's, numbered one past the count
    # before it; the phase tag is the CQE's (qtest group features checks
    # its value against the CQE); SQID an I/O queue (1..queues = 8)
    js "j['errors'][0]['error_count'] == $nerr + 1 and j['errors'][0]['status_field'] == 0x4080 and j['errors'][0]['phase_tag'] in (0, 1) and j['errors'][0]['lba'] == $nsze and 1 <= j['errors'][0]['sqid'] <= 8 and j['errors'][0]['nsid'] == 1 and j['errors'][0]['parm_error_location'] == 0xffff" \
        nvme error-log /dev/$ctl -o json
    js "j['num_err_log_entries'] == $nerr + 1" nvme smart-log /dev/$ctl -o json
    st 0x4080 nvme write-zeroes $n -s $((nsze - 1)) -c 1
    # Compare, Verify, Write Uncorrectable, Copy: tests/guest/femu-commands.t
    st 0x4001 nvme resv-report $n
    st 0x4001 nvme resv-acquire $n --crkey=0 --rtype=1 --racqa=0
    st 0x4001 nvme io-passthru $n --opcode=0x7f --namespace-id=1
    has "IO Command Read is Success" nvme io-passthru $n --opcode=0x02 --namespace-id=1 --data-len=$bs --read
done
js 'j["host_write_commands"] >= 2 and j["num_err_log_entries"] >= 1' nvme smart-log $C -o json
