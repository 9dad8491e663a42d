# Guest side of tests/guest/femu-gc.t: data integrity with GC running, for
# every victim policy and with hot/cold separation, plus trims.
# Devices vSSD0..vSSD5: nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,
# op_pcent=25 (25.6 MiB namespace, 32 lines of 1 MiB), NAND times 0 so the
# run is quick under TCG (page counts do not depend on timing).
names=(greedy fifo random cost-benefit d-choice greedy+hot_cold_sep)
for i in 0 1 2 3 4 5; do
    c=$(ctrl_of vSSD$i) || { bad "no controller vSSD$i"; continue; }
    dev=/dev/${c}n1
    bytes=$(( $(cat /sys/block/${c}n1/size) * 512 ))
    q=$(( bytes / 4 / 4096 * 4096 ))
    # age: random 4 KiB overwrites of 3x the namespace
    fio --name=age --filename=$dev --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=16 --size=100% --io_size=$((3 * bytes)) \
        --norandommap --randrepeat=0 --output=/dev/null
    set -- $(c0 $c)
    echo "${names[$i]}: after aging C0h = $*"
    check "${names[$i]}: GC moved pages while aging" [ "$3" -gt 0 ]
    check "${names[$i]}: WAF > 1" [ "$1" -gt 1000 ]
    check "${names[$i]}: programmed for host = host written" [ "$2" = "$4" ]
    # trim the first quarter
    check "${names[$i]}: trim" fio --name=trim --filename=$dev --rw=trim --bs=256k \
        --size=$q --output=/dev/null
    # overwrite the second half at random (GC keeps running) and verify
    check "${names[$i]}: crc32c verify with GC" fio --name=v --filename=$dev \
        --rw=randwrite --bs=4k --direct=1 --ioengine=libaio --iodepth=16 \
        --offset=$((2 * q)) --size=$((2 * q)) --verify=crc32c --output=/dev/null
    check "${names[$i]}: trimmed quarter reads zeroes" \
        cmp -n $q <(dd if=$dev bs=4096 count=$((q / 4096)) iflag=direct 2>/dev/null) /dev/zero
    # random overwrites of the third quarter must not disturb the fourth
    fio --name=a2 --filename=$dev --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
        --iodepth=16 --offset=$q --size=$q --io_size=$((4 * q)) --norandommap \
        --randrepeat=0 --output=/dev/null
    check "${names[$i]}: data still verifies after more GC" fio --name=v \
        --filename=$dev --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
        --iodepth=16 --offset=$((2 * q)) --size=$((2 * q)) --verify=crc32c \
        --verify_only --output=/dev/null
    echo "${names[$i]}: final C0h = $(c0 $c)"
done
