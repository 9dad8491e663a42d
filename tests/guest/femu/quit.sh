# Guest side of femu-quit.t: keep QD32 random writes running on every
# NVMe namespace (fio, time based, far longer than the test), show that
# the slow BlackBox SSD (serial slow0) has commands in flight, then tell
# the host to quit QEMU now and wait for it.
for ns in /dev/nvme*n1; do
    fio --name=q-${ns##*/} --filename=$ns --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=32 --size=16M --time_based --runtime=600 \
        --output=/dev/null &
done
slow=$(ctrl_of slow0)n1
for i in $(seq 200); do
    set -- $(cat /sys/block/$slow/inflight)
    [ "$2" -ge 8 ] && break
    sleep 0.1
done
# the sample the loop stopped on: a second read could come after the
# queue drained for a moment and show 0 though writes were in flight
echo "in flight on $slow (reads writes): $1 $2"
for ns in /dev/nvme*n1; do
    b=${ns##*/}
    echo "$b: $(awk '{print $5}' /sys/block/$b/stat) writes completed"
done
echo "femu-quit: quit now"
sleep 600
echo "femu-quit: QEMU did not quit"
