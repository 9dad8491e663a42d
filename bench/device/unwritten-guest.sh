# Guest side of bench/device/unwritten.sh: QD1 4 KiB random reads of
# written, never-written and deallocated blocks, alternating, ROUNDS rounds
# of SECS seconds each.  Prints "result WHAT ROUND clat_mean_ns clat_p50_ns ios", then for KIND=femu
# the device's own C1h figures for that run: mean and p50 of arrival -> CQE
# (the read's emulated time is its arrival at NAND times 0), irq p50.
set -u
dev=/dev/nvme0n1
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-5}
fio() { command fio --eta=never "$@"; }
# written: [0, 256M); deallocated: [256M, 512M) written then trimmed;
# never written: [768M, 1G)
fio --name=w --filename=$dev --rw=write --bs=128k --direct=1 --ioengine=libaio \
    --iodepth=16 --size=512M --output=/dev/null
blkdiscard -o $((256 << 20)) -l $((256 << 20)) $dev
rd() {
    fio --name=r --filename=$dev --rw=randread --bs=4k --direct=1 \
        --ioengine=psync --offset=$1 --size=256M --time_based --runtime=$SECS \
        --output-format=json | python3 -c '
import sys, json
d = json.load(sys.stdin)["jobs"][0]["read"]
print(int(d["clat_ns"]["mean"]), int(d["clat_ns"]["percentile"]["50.000000"]), int(d["total_ios"]))'
}
for r in $(seq $ROUNDS); do
    for k in written:0 unwritten:$((768 << 20)) trimmed:$((256 << 20)); do
        [ "$KIND" = femu ] && nvme admin-passthru /dev/nvme0 --opcode=0xef --cdw10=5 >/dev/null
        x=$(rd ${k#*:})
        c1=
        if [ "$KIND" = femu ]; then
            c1=$(bash /root/femu-log.sh c1 /dev/nvme0 | tr ' ' '\n' |
                 awk -F= '{v[$1]=$2} END{printf "%d %d %d", v["cqe_sum_ns"]/(v["cqe_count"]?v["cqe_count"]:1), v["cqe_p50_ns"], v["irq_p50_ns"]}')
        fi
        echo "result ${k%%:*} $r $x $c1"
    done
done
