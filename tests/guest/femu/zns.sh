# Guest side of tests/guest/femu-zns.t.  One femu_mode=3 controller
# (vSSD0): 32 zones of 2 MiB (4096 sectors), capacity 1 MiB (2048),
# max_open=6, max_active=8, zasl=4 (64 KiB appends).
C=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
B=${C}n1
D=/dev/$B
Q=/sys/block/$B/queue
check "model FEMU ZNS-SSD Controller" bash -c "nvme id-ctrl /dev/$C | grep -q '^mn *: FEMU ZNS-SSD Controller'"
check "queue/zoned = host-managed" [ "$(cat $Q/zoned)" = host-managed ]
check "32 zones of 4096 sectors" [ "$(cat $Q/nr_zones) $(cat $Q/chunk_sectors)" = "32 4096" ]
check "max_open_zones 6, max_active_zones 8" [ "$(cat $Q/max_open_zones) $(cat $Q/max_active_zones)" = "6 8" ]
check "zone_append_max_bytes = ZASL 64 KiB" [ "$(cat $Q/zone_append_max_bytes)" = 65536 ]
check "nvme zns id-ctrl: zasl 4" bash -c "nvme zns id-ctrl /dev/$C | grep -q '^zasl *: 4'"
nvme zns id-ns $D > /tmp/idns
cat /tmp/idns
check "nvme zns id-ns: mor 5 mar 7, zone size 0x1000" bash -c \
    "grep -qE '^mor *: (0x)?5\$' /tmp/idns && grep -qE '^mar *: (0x)?7\$' /tmp/idns && grep -qiE 'zone size: *0x1000|zsze *: *0x1000' /tmp/idns"

# blkzone sees every zone empty, capacity 2048 sectors
blkzone report $D > /tmp/rep
check "blkzone report: 32 empty zones" [ "$(grep -c 'zcond: *1(em)' /tmp/rep)" = 32 ]
check "blkzone report: cap 0x000800" bash -c "head -1 /tmp/rep | grep -q 'cap 0x000800'"

# writes at the write pointer; anywhere else is refused
head -c 16384 /dev/urandom > /tmp/d16k
check "write at the write pointer" nvme write $D -s 0 -c 31 -z 16384 -d /tmp/d16k
check "write off the write pointer: Zone Invalid Write" bash -c \
    "nvme write $D -s 64 -c 7 -z 4096 -d /tmp/d16k 2>&1 | grep -qiE 'invalid.?write'"
nvme zns report-zones $D -d 2 > /tmp/rz
cat /tmp/rz
# nvme-cli prints the raw state byte: 0x20 implicitly opened
check "report-zones: zone 0 implicitly opened, wp 0x20" bash -c \
    "grep -E '^SLBA: 0 ' /tmp/rz | grep -qE 'WP: 0x20 .*State: 0x20'"
# zone append to zone 0 lands at its write pointer (32)
head -c 8192 /dev/urandom > /tmp/d8k
nvme zns zone-append $D -s 0 -z 8192 -d /tmp/d8k > /tmp/za 2>&1; cat /tmp/za
# nvme-cli prints the LBA in hex without 0x
check "zone-append lands at LBA 32" grep -qx 'Success appended data to LBA 20' /tmp/za
check "read back the write and the append" bash -c \
    "nvme read $D -s 0 -c 47 -z 24576 -d /tmp/rd >/dev/null && cmp /tmp/rd <(cat /tmp/d16k /tmp/d8k)"
check "append beyond ZASL refused" bash -c "head -c 131072 /dev/zero > /tmp/d128k; ! nvme zns zone-append $D -s 0 -z 131072 -d /tmp/d128k"
check "read past the write pointer returns zeroes" bash -c \
    "nvme read $D -s 1024 -c 7 -z 4096 -d /tmp/rz0 >/dev/null && cmp /tmp/rz0 <(head -c 4096 /dev/zero)"
check "write zeroes across the zone capacity: Zone Boundary Error" bash -c \
    "nvme write-zeroes $D -s 48 -c 2000 2>&1 | grep -qi 'boundary'"
check "write zeroes up to the capacity: zone full" bash -c \
    "nvme write-zeroes $D -s 48 -c 1999 && blkzone report -c 1 $D | grep -q 'zcond:14(fu)'"

# zone management: open (zsa 3), close, finish, reset
check "zone-mgmt-send open zone 1" nvme zns zone-mgmt-send $D -s 4096 -z 3
check "zone 1 explicitly opened" bash -c "nvme zns report-zones $D -s 4096 -d 1 | grep -q 'State: 0x30'"
check "close-zone zone 1 (nothing written: back to empty)" nvme zns close-zone $D -s 4096
check "finish-zone zone 2 (empty to full)" nvme zns finish-zone $D -s 8192
check "zone 2 full" bash -c "blkzone report -o 8192 -c 1 $D | grep -q 'zcond:14(fu)'"
check "write to a full zone: Zone Is Full" bash -c "nvme write $D -s 2048 -c 7 -z 4096 -d /tmp/d16k 2>&1 | grep -qi 'full'"
check "zone-mgmt-send reset zone 0" nvme zns zone-mgmt-send $D -s 0 -z 4
check "reset zone reads zeroes" bash -c \
    "nvme read $D -s 0 -c 7 -z 4096 -d /tmp/rz1 >/dev/null && cmp /tmp/rz1 <(head -c 4096 /dev/zero)"
# max open: explicitly open 6, a 7th is refused
for z in 8 9 10 11 12 13; do nvme zns open-zone $D -s $((z * 4096)) >/dev/null; done
check "7th explicit open: Too Many Open Zones" bash -c "nvme zns open-zone $D -s $((14 * 4096)) 2>&1 | grep -qiE 'too.?many'"
check "report-zones state filter: 6 explicitly opened" bash -c \
    "[ \$(nvme zns report-zones $D -S 3 | grep -c 'State: 0x30') = 6 ]"
check "reset-zone -a" nvme zns reset-zone $D -a
check "blkzone reset + report: all empty" bash -c "blkzone reset $D && [ \$(blkzone report $D | grep -c '1(em)') = 32 ]"

# fio zoned mode: sequential writes over 8 zones with verify, then
# random-zone writes, both libaio at depth (zone append is not used)
check "fio zonemode=zbd write + verify" fio --name=zw --filename=$D --zonemode=zbd \
    --direct=1 --ioengine=libaio --iodepth=4 --rw=write --bs=64k --size=16M \
    --verify=crc32c --output=/dev/null
check "fio zonemode=zbd randwrite, max_open_zones=4, verify" fio --name=zr \
    --filename=$D --zonemode=zbd --max_open_zones=4 --direct=1 \
    --ioengine=psync --rw=randwrite --bs=16k --size=32M --io_size=4M \
    --verify=crc32c --output=/dev/null
read -r w hw gc hp rs er <<<"$(femu_c0 $C)"
echo "C0h $w $hw $gc $hp $rs $er"
c0_ok() {
    [ "$w" = 1000 ] && [ "$hw" = "$hp" ] && [ "$hw" -gt 0 ] && [ "$gc" = 0 ] &&
        [ "$rs" -gt 0 ] && [ "$er" = $((rs * 8)) ]
}
check "C0h: WAF 1000, resets counted" c0_ok

# tutorial 06's zns-run.sh, its QD part (so it cannot rot): four lines
# that parse; each psync 4 KiB write is one device write, libaio's QD8
# writes reach the device as at most as many (zone write plugging merges)
bash zns-run.sh DEV=$D PARTS=qd NQ=32 QD=8 > /tmp/zr 2>&1; echo "zns-run.sh rc=$?"; cat /tmp/zr
check "zns-run.sh PARTS=qd: appends and writes at QD1 and QD8" python3 -c '
import re; t = open("/tmp/zr").read()
iops = [float(x) for x in re.findall(r": (\d+) IOPS", t)]
dev = [int(x) for x in re.findall(r", (\d+) device writes", t)]
assert len(iops) == 4 and min(iops) > 0 and dev[0] == 32 and 0 < dev[1] <= 32, (iops, dev)'

# Changed Zone List (log BFh) and the Zone Descriptor Changed notice.
# 0xEF code 9 fails a zone as worn-out media would (CDW11 zone, CDW12 0
# read only, 1 offline); nothing else changes a zone behind the host.
# bf RAE -> "count zslba..." of log BFh (CSI 02h), RAE 0 or 1
bf() {
    nvme get-log /dev/$C --log-id=0xbf --log-len=4096 --csi=2 \
        --namespace-id=1 $([ "$1" = 1 ] && echo --rae) -b |
        python3 -c 'import sys,struct; d=sys.stdin.buffer.read(); n=struct.unpack_from("<H",d)[0]; print(n, *struct.unpack_from("<%dQ" % min(n,511), d, 8))'
}
aens() { dmesg | grep -c 'async event result 00bfef02'; }
check "OAES bit 27: zone descriptor changed notices" bash -c \
    "[ \$((\$(nvme id-ctrl /dev/$C | awk '/^oaes/ {print \$3}') >> 27 & 1)) = 1 ]"
check "changed zone list empty" [ "$(bf 1)" = 0 ]
check "log BFh for CSI 00h: Invalid Log Page" bash -c \
    "! nvme get-log /dev/$C --log-id=0xbf --log-len=4096 --namespace-id=1 -b >/dev/null 2>&1"
AEC=$(nvme get-feature /dev/$C -f 0x0b 2>/dev/null | sed -n 's/.*Current value: *\(0x[0-9a-f]*\).*/\1/p')
check "enable zone descriptor changed notices (AEC bit 27)" \
    nvme set-feature /dev/$C -f 0x0b --value=$(( ${AEC:-0} | 1 << 27 ))
check "0xEF code 9: zone 3 fails read only" nvme admin-passthru /dev/$C --opcode=0xef --cdw10=9 --cdw11=3 --cdw12=0
for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(aens)" -ge 1 ] && break; sleep 1; done
dmesg | grep -i 'async event' | tail -2
check "AEN notice EFh for log BFh reached the host" [ "$(aens)" = 1 ]
check "0xEF code 9: zone 5 fails offline" nvme admin-passthru /dev/$C --opcode=0xef --cdw10=9 --cdw11=5 --cdw12=1
check "0xEF code 9: zone 32 does not exist" bash -c \
    "! nvme admin-passthru /dev/$C --opcode=0xef --cdw10=9 --cdw11=32 >/dev/null 2>&1"
L1=$(bf 1); L2=$(bf 1); echo "BFh with RAE: $L1 / $L2"
check "list: zones 3 and 5 by ZSLBA, in order" [ "$L1" = "2 12288 20480" ]
check "RAE set: the list is retained" [ "$L2" = "$L1" ]
sleep 2
check "no second AEN before the log is read" [ "$(aens)" = 1 ]
check "zone 3 read only, zone 5 offline (report filters)" bash -c \
    "nvme zns report-zones $D -S 6 | grep -q '^SLBA: 0x3000 .*State: 0xd0' && nvme zns report-zones $D -S 7 | grep -q '^SLBA: 0x5000 .*State: 0xf0'"
check "write to the read only zone: Zone Is Read Only" bash -c \
    "nvme write $D -s 12288 -c 7 -z 4096 -d /tmp/d16k 2>&1 | grep -qiE 'read.?only'"
check "read of the offline zone: Zone Is Offline" bash -c \
    "nvme read $D -s 20480 -c 7 -z 4096 -d /tmp/rzo 2>&1 | grep -qi 'offline'"
L3=$(bf 0); L4=$(bf 1); echo "BFh without RAE: $L3, then $L4"
check "read with RAE cleared returns the list, then it is empty" \
    [ "$L3 / $L4" = "$L1 / 0" ]
check "0xEF code 9: zone 6 fails read only" nvme admin-passthru /dev/$C --opcode=0xef --cdw10=9 --cdw11=6 --cdw12=0
for i in 1 2 3 4 5 6 7 8 9 10; do [ "$(aens)" -ge 2 ] && break; sleep 1; done
check "after the read a new change raises a new AEN" [ "$(aens)" = 2 ]
check "list: zone 6" [ "$(bf 0)" = "1 24576" ]
