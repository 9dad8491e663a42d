# Guest side of bench/device/run.sh.  Env: KIND (femu|nvme), PHASE
# (perf|late|rss; late: only the lateness runs that perf ends with for
# femu).  Prints "result NAME VALUE" lines.  Needs femu-log.sh in /root
# (run.sh copies it with --file).
set -u
fio() { command fio --eta=never "$@"; }
dev=$(ls /dev/nvme0n1)
ctrl=/dev/nvme0
res() { echo "result $1 $2"; }
fjson() {
    fio --output-format=json "$@" | python3 -c '
import sys, json
j = json.load(sys.stdin)["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print(int(d["iops"]), int(d["lat_ns"]["mean"]), int(d["clat_ns"]["percentile"]["50.000000"]))'
}
if [ "$PHASE" = perf ] || [ "$PHASE" = late ]; then
    # precondition the region the reads use
    fio --name=pre --filename=$dev --rw=write --bs=128k --direct=1 --ioengine=libaio \
        --iodepth=16 --size=256M --output=/dev/null
fi
if [ "$PHASE" = perf ]; then
    read iops lat p50 < <(fjson --name=w --filename=$dev --rw=randwrite --bs=4k \
        --direct=1 --ioengine=libaio --iodepth=32 --size=256M --time_based --runtime=10 \
        --randrepeat=0)
    res randwrite_qd32_iops $iops
    read iops lat p50 < <(fjson --name=r --filename=$dev --rw=randread --bs=4k \
        --direct=1 --ioengine=psync --size=256M --time_based --runtime=10)
    res randread_qd1_lat_mean_ns $lat
    res randread_qd1_clat_p50_ns $p50
    echo idle-start
    sleep 20
    echo idle-end
fi
if [ "$PHASE" = late ] || { [ "$PHASE" = perf ] && [ "$KIND" = femu ]; }; then
    # completion lateness against the emulated time (log page C1h,
    # decoded by scripts/femu-log.sh), 70/30 random reads/writes on the
    # preconditioned region, QD1 (psync) and QD32 (libaio), first
    # with all NAND times 0 (0xEF code 4), then with the built-in
    # 40/200/2000 us (code 3); code 5 resets C1h before each run
    for t in nand0:4 default:3; do
        nvme admin-passthru $ctrl --opcode=0xef --cdw10=${t#*:} >/dev/null
        for q in 1:psync 32:libaio; do
            nvme admin-passthru $ctrl --opcode=0xef --cdw10=5 >/dev/null
            fio --name=l --filename=$dev --rw=randrw --rwmixread=70 --bs=4k \
                --direct=1 --ioengine=${q#*:} --iodepth=${q%%:*} --size=256M \
                --time_based --runtime=5 --output=/dev/null
            bash /root/femu-log.sh c1 $ctrl | tr ' ' '\n' |
                awk -F= -v p="late_${t%%:*}_qd${q%%:*}_" '/^(cqe|irq)_/{print "result " p $1, $2}'
        done
    done
elif [ "$PHASE" = rss ]; then
    fio --name=fill1g --filename=$dev --rw=write --bs=1M --direct=1 --ioengine=libaio \
        --iodepth=8 --size=1G --output=/dev/null
    echo rss-sample
    sleep 5
    echo rss-done
    sleep 3     # QEMU must still run while the host reads its smaps
fi
