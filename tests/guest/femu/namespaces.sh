# Guest side of tests/guest/femu-namespaces.t.  Controller Z: namespace 1
# zoned, 2 BlackBox (devsz_mb=8192 split evenly: 4 GiB each).  Controller
# B: namespaces 1, 2 and 4 BlackBox on one FTL, 3 NoSSD; sizes 64 MiB,
# 48 MiB, 32 MiB, 48 MiB (192 MiB less 64 and 32, in two).
Z=$(ctrl_of Z) || { bad "no controller Z"; finish; exit; }
B=$(ctrl_of B) || { bad "no controller B"; finish; exit; }
# the block device of namespace NSID of controller C: Linux numbers its
# namespace devices in the order it scans them, not by NSID
nsdev() {
    local d
    for d in /sys/block/${1}n*; do
        [ "$(cat $d/nsid)" = "$2" ] && { basename $d; return; }
    done
}
sz() { cat /sys/block/$(nsdev $1 $2)/size; }
check "Z: nvme list-ns shows 1 and 2" \
    [ "$(nvme list-ns /dev/$Z | grep -o '0x[0-9a-f]*' | tr '\n' ' ')" = "0x1 0x2 " ]
check "Z: nvme list-ns --csi=2 shows the zoned one, 1" \
    [ "$(nvme list-ns /dev/$Z --csi=2 | grep -o '0x[0-9a-f]*' | tr '\n' ' ')" = "0x1 " ]
Z1=$(nsdev $Z 1) Z2=$(nsdev $Z 2)
B1=$(nsdev $B 1) B2=$(nsdev $B 2) B3=$(nsdev $B 3) B4=$(nsdev $B 4)
check "Z: namespace 1 is zoned" grep -qx host-managed /sys/block/$Z1/queue/zoned
check "Z: namespace 2 is not zoned" grep -qx none /sys/block/$Z2/queue/zoned
check "Z: namespace 2 is 4 GiB" [ "$(sz $Z 2)" = $((4096 * 2048)) ]
check "Z: namespace 1 holds at least 4 GiB of zones" [ "$(sz $Z 1)" -ge $((4096 * 2048)) ]
check "B: four namespaces" [ "$(ls -d /sys/block/${B}n* | wc -l)" = 4 ]
check "B: sizes 64, 48, 32, 48 MiB" \
    [ "$(sz $B 1) $(sz $B 2) $(sz $B 3) $(sz $B 4)" = "131072 98304 65536 98304" ]
check "B: namespace 3 is the NoSSD one (no thin provisioning)" \
    bash -c "[ \$(nvme id-ns /dev/$B3 -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)[\"nsfeat\"] & 1)') = 0 ] && [ \$(nvme id-ns /dev/$B1 -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)[\"nsfeat\"] & 1)') = 1 ]"
# distinct identifiers (Linux refuses duplicates, so binding proves most)
ids=$(for i in 1 2 3 4; do nvme ns-descs /dev/$(nsdev $B $i) -o json | python3 -c 'import sys,json; d=json.load(sys.stdin)["ns-descs"]; print(*[x.get("nguid", x.get("eui64", "")) for x in d if x["Type"] in ("nguid", "eui64")])'; done | sort -u | wc -l)
check "B: four distinct NGUID/EUI64 pairs" [ "$ids" = 4 ]
check "Z: fio zonemode=zbd crc32c verify on namespace 1" \
    fio --name=z --filename=/dev/$Z1 --zonemode=zbd --rw=write --bs=64k \
        --direct=1 --ioengine=psync --size=16M --verify=crc32c --output=/dev/null
for i in 1 2 3 4; do
    check "B: fio crc32c verify on namespace $i" \
        fio --name=v$i --filename=/dev/$(nsdev $B $i) --rw=randwrite --bs=4k --direct=1 \
            --ioengine=libaio --iodepth=16 --size=8M --verify=crc32c \
            --verify_state_save=0 --output=/dev/null
done
check "Z: fio crc32c verify on namespace 2" \
    fio --name=w --filename=/dev/$Z2 --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=16 --size=8M --verify=crc32c --output=/dev/null
# each namespace's data is its own: verify again after all were written
for i in 1 2 3 4; do
    check "B: namespace $i still verifies after the others were written" \
        fio --name=v$i --filename=/dev/$(nsdev $B $i) --rw=randwrite --bs=4k --direct=1 \
            --ioengine=libaio --iodepth=16 --size=8M --verify=crc32c \
            --verify_only --verify_state_save=0 --output=/dev/null
done
# NUSE per namespace: 8 MiB written on each BlackBox namespace
check "B: NUSE of namespace 1 = 8 MiB written" \
    [ "$(nvme id-ns /dev/$B1 -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)["nuse"])')" = 16384 ]
# SMART per namespace: namespace 2's data units written count its 8 MiB
# (16384 sectors = 17 units of 1000), the controller's all four
smart_w() { nvme smart-log /dev/$B --namespace-id=$1 -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)["data_units_written"])'; }
check "B: SMART of namespace 2 counts its own writes" [ "$(smart_w 2)" = 17 ]
check "B: the controller's SMART counts every namespace" [ "$(smart_w 0xffffffff)" -ge 66 ]
check "B: a read of NSID 5 fails (Invalid Namespace)" \
    bash -c "! nvme read /dev/$B --namespace-id=5 --start-block=0 --block-count=0 --data-size=512 2>/dev/null"
