# Guest side of bench/device/run.sh.  Env: KIND (femu|nvme), PHASE
# (perf|rss).  Prints "result NAME VALUE" lines.
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
c1() {
    nvme get-log $ctrl --log-id=0xc1 --log-len=512 -b |
        python3 -c 'import sys,struct; d=sys.stdin.buffer.read(); print(*struct.unpack_from("<6Q", d))'
}
if [ "$PHASE" = perf ]; then
    # precondition the region the reads use
    fio --name=pre --filename=$dev --rw=write --bs=128k --direct=1 --ioengine=libaio \
        --iodepth=16 --size=256M --output=/dev/null
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
    if [ "$KIND" = femu ]; then
        # lateness of completions against their emulated time, with the
        # built-in NAND times (40/200/2000 us)
        nvme admin-passthru $ctrl --opcode=0xef --cdw10=3 >/dev/null
        nvme admin-passthru $ctrl --opcode=0xef --cdw10=5 >/dev/null
        fio --name=l1 --filename=$dev --rw=randread --bs=4k --direct=1 --ioengine=psync \
            --size=256M --time_based --runtime=5 --output=/dev/null
        set -- $(c1); res late_qd1_count $1; res late_qd1_p50_ns $4; res late_qd1_p99_ns $5; res late_qd1_max_ns $3
        nvme admin-passthru $ctrl --opcode=0xef --cdw10=5 >/dev/null
        fio --name=l32 --filename=$dev --rw=randread --bs=4k --direct=1 --ioengine=libaio \
            --iodepth=32 --size=256M --time_based --runtime=5 --output=/dev/null
        set -- $(c1); res late_qd32_count $1; res late_qd32_p50_ns $4; res late_qd32_p99_ns $5; res late_qd32_max_ns $3
    fi
else
    fio --name=fill1g --filename=$dev --rw=write --bs=1M --direct=1 --ioengine=libaio \
        --iodepth=8 --size=1G --output=/dev/null
    echo rss-sample
    sleep 5
    echo rss-done
fi
