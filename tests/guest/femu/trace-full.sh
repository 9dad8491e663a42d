# Guest side of tests/guest/femu-trace.t, second run: the trace file hits
# QEMU's file size limit (as on a full disk) while the guest writes; the
# guest's I/O must go on unaffected.
c=$(ctrl_of tr0) || { bad "no controller with serial tr0"; c=nvme0; }
ns=/dev/${c}n1
check "0xEF code 4 (NAND times 0) succeeds" ctl "$c" 4
# 20480 writes: 800 KiB of trace, past the 512 KiB limit
check "fio writes succeed while the trace fails" \
    fio --name=w --filename=$ns --rw=randwrite --bs=4k --direct=1 \
    --ioengine=libaio --iodepth=8 --size=16m --io_size=80m --randseed=9 \
    --norandommap --output=/dev/null
head -c 1048576 /dev/urandom > /tmp/pattern
dd if=/tmp/pattern of=$ns bs=64k seek=7 oflag=direct 2>/dev/null
check "data written after the trace stopped reads back" \
    sh -c "dd if=$ns bs=64k skip=7 count=16 iflag=direct 2>/dev/null | cmp -s - /tmp/pattern"
# closing reports that the trace stopped early (Internal Error)
stop_fails() { ! ctl "$c" 11; }
check "0xEF code 11 (stop) reports the stopped trace" stop_fails
