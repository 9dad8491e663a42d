# Guest side of tests/guest/femu-trace.t: a multi-job workload with GC on
# a device that records its I/O (io_trace=); the host replays the trace
# in femu-sim and compares with the C0h printed here.
c=$(ctrl_of tr0) || { bad "no controller with serial tr0"; c=nvme0; }
ns=/dev/${c}n1
# the configured NAND times (the host picks them small): completion
# times are part of what the replay must give
fio --name=fill --filename=$ns --rw=write --bs=128k --direct=1 \
    --ioengine=libaio --iodepth=8 --output=/dev/null
check "0xEF code 5 (reset counters) succeeds" ctl "$c" 5
# four jobs on the I/O queues at once: writes, reads, deallocates
fio --name=mix --filename=$ns --rw=randrw --rwmixwrite=80 --bs=4k \
    --direct=1 --ioengine=libaio --iodepth=8 --numjobs=4 --size=12m \
    --io_size=24m --randseed=5 --norandommap --output=/dev/null
fio --name=trim --filename=$ns --rw=randtrim --bs=64k --direct=1 \
    --ioengine=libaio --iodepth=4 --numjobs=2 --size=4m --io_size=2m \
    --randseed=6 --output=/dev/null
fio --name=more --filename=$ns --rw=randwrite --bs=16k --direct=1 \
    --ioengine=libaio --iodepth=16 --numjobs=3 --size=8m --io_size=16m \
    --randseed=7 --norandommap --fsync=64 --output=/dev/null
check "0xEF code 11 (stop the I/O trace) succeeds" ctl "$c" 11
echo "c0 at stop $(c0 "$c")"
# after the stop nothing is recorded
fio --name=after --filename=$ns --rw=randwrite --bs=4k --direct=1 \
    --ioengine=psync --size=2m --randseed=8 --output=/dev/null
echo "c0 after $(c0 "$c")"
