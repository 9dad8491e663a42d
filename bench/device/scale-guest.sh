# Guest side of bench/device/scale.sh: 4 KiB random reads on the one NVMe
# namespace, JOBS fio jobs (one per guest CPU, so one per NVMe queue) at
# QD DEPTH each, SECS seconds.  Prints "hwq N" (the I/O queues the guest's
# driver made), then "phase-start rr", "phase-end rr IOS" around the
# measured run (the host samples the QEMU threads' CPU time between the
# two) and "result rr_iops IOPS".
set -u
dev=/dev/nvme0n1
SECS=${SECS:-5} JOBS=${JOBS:-1} DEPTH=${DEPTH:-16}
echo "hwq $(ls -d /sys/block/nvme0n1/mq/* 2>/dev/null | wc -l)"
fio --eta=never --name=pre --filename=$dev --rw=write --bs=128k --direct=1 \
    --ioengine=libaio --iodepth=16 --size=64M --output=/dev/null
echo "phase-start rr"
out=$(fio --eta=never --output-format=json --name=rr --filename=$dev --rw=randread \
      --bs=4k --direct=1 --size=64M --ioengine=libaio --iodepth="$DEPTH" \
      --numjobs="$JOBS" --cpus_allowed=0-$((JOBS - 1)) --cpus_allowed_policy=split \
      --time_based --runtime="$SECS" --group_reporting --randrepeat=0 | python3 -c '
import sys, json
d = json.load(sys.stdin)["jobs"][0]["read"]
print(d["total_ios"], int(d["iops"]))')
set -- $out
echo "phase-end rr $1"
echo "result rr_iops $2"
