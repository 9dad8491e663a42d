# Guest side of bench/device/cpu.sh.  For each workload it prints
# "phase-start NAME", runs fio, prints "phase-end NAME IOS" and then
# "result NAME_iops IOPS" and "result NAME_lat_ns MEAN_COMPLETION_LATENCY";
# the host samples the QEMU threads' CPU time between the two markers.
# Workloads (4 KiB, NAND times 0, SECS seconds each): qd1 random reads
# (psync), qd32 random writes (libaio), 4j: 4 jobs of random writes at
# QD8, one per guest CPU and so one per NVMe queue.
set -u
dev=/dev/nvme0n1
SECS=${SECS:-5}
ncpu=$(nproc)
fio() { command fio --eta=never "$@"; }
fio --name=pre --filename=$dev --rw=write --bs=128k --direct=1 --ioengine=libaio \
    --iodepth=16 --size=256M --output=/dev/null
run() {    # NAME FIO-ARGS...
    local name=$1 out; shift
    echo "phase-start $name"
    out=$(fio --output-format=json --filename=$dev --bs=4k --direct=1 --size=256M \
          --time_based --runtime=$SECS --group_reporting "$@" | python3 -c '
import sys, json
j = json.load(sys.stdin)["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print(d["total_ios"], int(d["iops"]), int(d["clat_ns"]["mean"]))')
    set -- $out
    echo "phase-end $name $1"
    echo "result ${name}_iops $2"
    echo "result ${name}_lat_ns $3"
}
for r in $(seq ${PASSES:-1}); do
    run qd1 --name=qd1 --rw=randread --ioengine=psync --cpus_allowed=0
    run qd32 --name=qd32 --rw=randwrite --ioengine=libaio --iodepth=32 --cpus_allowed=0 --randrepeat=0
    if [ "$ncpu" -ge 4 ]; then
        run 4j --name=4j --rw=randwrite --ioengine=libaio --iodepth=8 --numjobs=4 \
            --cpus_allowed=0-3 --cpus_allowed_policy=split --randrepeat=0
    fi
done
