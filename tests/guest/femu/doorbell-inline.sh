# Guest side of femu-doorbell-inline.t: QD1 I/O on four controllers, the
# host reads the pollers' exit counters (femu_poller_doorbell_stats).
# di0: NoSSD, doorbell_inline on (the default); di1: the same with
# doorbell_inline=off; di2: BlackBox with a 300 us page read time; di3:
# NoSSD, I/O of 64 blocks only (beyond what a vCPU runs).
qd1() {    # DEV RW BS SECONDS [FIO-ARGS...]
    local dev=$1 rw=$2 bs=$3 secs=$4; shift 4
    fio --name=q --filename="$dev" --rw="$rw" --bs="$bs" --direct=1 \
        --ioengine=psync --size=16M --time_based --runtime="$secs" \
        --randrepeat=0 --output=/dev/null "$@"
}
# written by QD1 writes, read back and checked by QD1 reads
verify() {    # DEV
    fio --name=v --filename="$1" --rw=randwrite --bs=4k --direct=1 \
        --ioengine=psync --size=8M --verify=crc32c --do_verify=1 \
        --output=/dev/null
}
D0=$(ctrl_of di0) && D1=$(ctrl_of di1) && D2=$(ctrl_of di2) &&
    D3=$(ctrl_of di3) || { bad "controllers di0..di3 found"; finish; exit; }
check "di0: QD1 writes verified by QD1 reads" verify /dev/${D0}n1
check "di0: QD1 reads" qd1 /dev/${D0}n1 randread 4k 2
check "di1 (doorbell_inline=off): QD1 writes verified" verify /dev/${D1}n1
check "di1: QD1 reads" qd1 /dev/${D1}n1 randread 4k 2
check "di2: QD1 writes verified (BlackBox)" verify /dev/${D2}n1
# no completion before its emulated time, whoever ran the command
lat=$(fiolat --name=l --filename=/dev/${D2}n1 --rw=randread --bs=4k \
    --direct=1 --ioengine=psync --size=8M --time_based --runtime=2) ||
    bad "di2: QD1 reads"
set -- $lat
echo "di2: QD1 read latency min ${1:-?} ns, mean ${2:-?} ns (page read 300000 ns)"
[ "${1:-0}" -ge 300000 ] && ok "di2: no read completed before its 300 us" ||
    bad "di2: a read completed in ${1:-?} ns, before its 300 us page read"
check "di3: QD1 reads of 256 KiB" qd1 /dev/${D3}n1 randread 256k 2
check "di3: QD1 writes of 256 KiB" qd1 /dev/${D3}n1 randwrite 256k 1
