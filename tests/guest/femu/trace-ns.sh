# Guest side of tests/guest/femu-trace.t, two BlackBox namespaces sharing
# one FTL: writes to both at once with GC, deallocates on the second; the
# trace is stopped and C0h printed for the host's replay.
c=$(ctrl_of trn) || { bad "no controller with serial trn"; c=nvme0; }
for i in $(seq 100); do [ -b /dev/${c}n2 ] && break; sleep 0.1; done
check "two namespaces" [ -b /dev/${c}n1 ] && [ -b /dev/${c}n2 ]
# the block device of NSID $1: Linux numbers its namespace devices in the
# order it scans them, not by NSID
nsdev() {
    local d
    for d in /sys/block/${c}n*; do
        [ "$(cat $d/nsid)" = "$1" ] && { echo /dev/$(basename $d); return; }
    done
}
N1=$(nsdev 1) N2=$(nsdev 2)
for ns in 1 2; do
    fio --name=fill$ns --filename=$(nsdev $ns) --rw=write --bs=128k --direct=1 \
        --ioengine=libaio --iodepth=8 --output=/dev/null
done
fio --name=a --filename=$N1 --rw=randwrite --bs=4k --direct=1 \
    --ioengine=libaio --iodepth=8 --io_size=16m --randseed=3 --norandommap \
    --name=b --filename=$N2 --rw=randrw --rwmixwrite=75 --bs=8k \
    --direct=1 --ioengine=libaio --iodepth=8 --io_size=16m --randseed=4 \
    --norandommap --output=/dev/null
fio --name=trim --filename=$N2 --rw=randtrim --bs=64k --direct=1 \
    --ioengine=libaio --iodepth=4 --size=4m --io_size=2m --randseed=6 \
    --output=/dev/null
check "0xEF code 11 (stop the I/O trace) succeeds" ctl "$c" 11
echo "c0 at stop $(c0 "$c")"
# C0h's per-namespace fields, read with each NSID and with FFFFFFFFh
for ns in 1 2 4294967295; do
    echo "c0ns $ns at stop $(femu_c0ns "$c" $ns)"
done
