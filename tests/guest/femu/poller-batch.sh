# Guest side of femu-poller-batch.t: what the host checks is the poller's
# trace (femu_poller_batch, femu_poller_sleep); this side runs the I/O.
# MODE depth: 4 jobs of 4 KiB random writes at QD8 on the 4 CPUs with NAND
# times 0 (commands gather), then the same with the built-in NAND times
# (EFh code 3: completions have a due time).  MODE qd1: one QD1 job of
# reads on controller pb1, 4 jobs at depth on pb2 (poller_batch=off).
# MODE chrt: 4 jobs at depth on pb3, QEMU started SCHED_BATCH.
job4() {   # DEV SECONDS
    fio --name=d --filename="$1" --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=8 --numjobs=4 --cpus_allowed=0-3 \
        --cpus_allowed_policy=split --size=32M --time_based \
        --runtime="$2" --randrepeat=0 --output=/dev/null
}
case $MODE in
depth)
    C=$(ctrl_of pb0) || { bad "controller pb0 found"; finish; exit; }
    check "4 jobs at QD8, NAND times 0" job4 /dev/${C}n1 4
    check "EFh code 3: the built-in NAND times" ctl "$C" 3
    # an interrupt held back is a due time too, and one the poller does
    # not spin towards on a loaded host, as it may for a short NAND time
    check "Interrupt Coalescing: 8 CQEs or 1 ms" \
        nvme set-feature "/dev/$C" -f 8 --value=0x0a07
    check "4 jobs at QD8, NAND times on" job4 /dev/${C}n1 3
    ;;
qd1)
    A=$(ctrl_of pb1) && B=$(ctrl_of pb2) ||
        { bad "controllers pb1 and pb2 found"; finish; exit; }
    check "QD1 reads" fio --name=q --filename=/dev/${A}n1 --rw=randread \
        --bs=4k --direct=1 --ioengine=psync --size=32M --time_based \
        --runtime=3 --output=/dev/null
    check "4 jobs at QD8, poller_batch=off" job4 /dev/${B}n1 3
    ;;
chrt)
    C=$(ctrl_of pb3) || { bad "controller pb3 found"; finish; exit; }
    check "4 jobs at QD8, QEMU started SCHED_BATCH" job4 /dev/${C}n1 3
    ;;
esac
