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
nvme get-log /dev/$C --log-id=0xc0 --log-len=512 -b > /tmp/c0
python3 -c 'import struct; d=open("/tmp/c0","rb").read(); print("C0h", *struct.unpack_from("<I4xQQQQQ", d))'
check "C0h: WAF 1000, resets counted" python3 -c '
import struct; d=open("/tmp/c0","rb").read()
w, hw, gc, hp, rs, er = struct.unpack_from("<I4xQQQQQ", d)
assert w == 1000 and hw == hp and hw > 0 and gc == 0 and rs > 0 and er == rs * 8, (w, hw, hp, rs, er)'
