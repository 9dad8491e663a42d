# Guest side of tests/guest/femu-state.t: PHASE=1 writes two regions with
# fio's verify headers and prints the counters; PHASE=2 (a new QEMU on the
# same state file) prints the counters first and verifies both regions.
c=$(ctrl_of st0) || { bad "no controller with serial st0"; c=nvme0; }
ns=/dev/${c}n1
# A: 4 KiB random writes over 8 MiB; B: 128 KiB sequential at 12 MiB
A="--name=a --filename=$ns --rw=randwrite --bs=4k --offset=0 --size=8m
   --randseed=7 --verify=crc32c --verify_fatal=1 --direct=1 --ioengine=psync"
B="--name=b --filename=$ns --rw=write --bs=128k --offset=12m --size=8m
   --verify=md5 --verify_fatal=1 --direct=1 --ioengine=psync"
smart_written() {
    nvme smart-log "/dev/$c" -o json |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["data_units_written"])'
}
if [ "$PHASE" = 1 ]; then
    check "fio writes and verifies region A" fio $A --do_verify=1 --output=/dev/null
    check "fio writes and verifies region B" fio $B --do_verify=1 --output=/dev/null
    check "0xEF code 8 (save the state file now) succeeds" ctl "$c" 8
    echo "c0 $(c0 "$c")"
    echo "smart-written $(smart_written)"
else
    echo "c0 $(c0 "$c")"
    echo "smart-written $(smart_written)"
    check "region A written before the restart verifies" \
        fio $A --verify_only --output=/dev/null
    check "region B written before the restart verifies" \
        fio $B --verify_only --output=/dev/null
    # 64 KiB at 21 MiB was never written: zeroes
    check "a never-written range reads zeroes" \
        sh -c "dd if=$ns bs=4k skip=5376 count=16 2>/dev/null | cmp -s - /dev/zero -n 65536"
fi
