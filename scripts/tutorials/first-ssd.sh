#!/bin/bash
# first-ssd.sh: tutorial 01 in one script, inside a guest with a FEMU
# BlackBox SSD (a real guest or the embedded one of scripts/femu-run):
# what the guest sees, log page C0h before and after a sequential fill,
# reads before writes, QD1 latencies against the NAND times, and last,
# as FEMU's tutorial 01 ends: RUNTIME seconds of QD1 4 KiB random writes
# on the filled drive (fio's completion latency percentiles: GC shows in
# the tail, not the median) and C0h again (the pages GC moved).
#
# WARNING: it overwrites the whole namespace.
#
# Settings (environment variables, or NAME=VALUE arguments):
#   DEV=/dev/nvme0n1   namespace (default: the first FEMU BlackBox one)
#   IOS=500            I/Os of each QD1 latency measurement
#   RUNTIME=15         seconds of the closing QD1 random-write run (0: skip)
#   FORCE=0            1: run even if the namespace is mounted
set -u
# shared helpers (scripts/tutorials/lib.sh): beside this script, or in the
# current directory
. "$(dirname "$0")/lib.sh" 2>/dev/null || . ./lib.sh 2>/dev/null ||
    { echo "$(basename "$0" .sh): lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
tut_args "$@"
tut_defaults IOS=500 RUNTIME=15 FORCE=0
[[ $RUNTIME =~ ^[0-9]+$ ]] || die "RUNTIME=$RUNTIME: want whole seconds"
tut_find_dev
tut_mount_guard
name=$NAME

c0line() {
    local v
    v=$(c0) || die "cannot read log page C0h of $CTRL"
    echo "C0h(waf_x1000 host_written gc_moved programmed): $v"
}
# qd1 FIO-ARGS... -> "mean_us p50_us p99_us" of a QD1 4 KiB job
qd1() {
    fio --name=qd1 --filename="$DEV" --direct=1 --ioengine=psync --bs=4k \
        --number_ios="$IOS" --norandommap --output-format=json "$@" |
    python3 -c '
import json, sys
j = json.load(sys.stdin)["jobs"][0]
d = j["read"] if j["read"]["total_ios"] else j["write"]
c = d["clat_ns"]; p = c["percentile"]
print("%.1f %.1f %.1f" % (c["mean"] / 1e3, p["50.000000"] / 1e3, p["99.000000"] / 1e3))'
}

echo "== nvme list"
nvme list
echo "== geometry as the guest sees it"
echo "sectors=$(cat /sys/block/$name/size) logical_block_size=$(cat /sys/block/$name/queue/logical_block_size)"
nvme id-ctrl "$CTRL" | grep -E '^(mn|sn|fr|mdts) '
echo "== C0h before any write"
c0line
echo "== reads before writes (never-written pages cost no NAND time)"
echo "qd1 read unwritten (mean p50 p99 us): $(qd1 --rw=randread --size=64m)"
echo "== sequential fill with 128 KiB writes"
ns=$(( $(cat /sys/block/$name/size) * 512 ))
t0=$(date +%s)
fio --name=fill --filename="$DEV" --direct=1 --ioengine=libaio --iodepth=16 \
    --rw=write --bs=128k --size=100% --eta=never --output=/dev/null || die "fill failed"
echo "fill: $(( ns / 131072 )) whole 128 KiB blocks in $(( $(date +%s) - t0 )) s"
c0line
echo "== QD1 latencies on written data (mean p50 p99 us)"
echo "qd1 read written: $(qd1 --rw=randread --size=100%)"
echo "qd1 write: $(qd1 --rw=randwrite --size=100%)"
c0line
if [ "$RUNTIME" -gt 0 ]; then
    echo "== QD1 4 KiB random writes for $RUNTIME s on the filled drive (GC in the tail)"
    # fio's own summary: the write line and the completion latency
    # percentiles, as the tutorial shows them
    out=$(fio --name=rw --filename="$DEV" --direct=1 --ioengine=libaio --rw=randwrite \
        --bs=4k --iodepth=1 --runtime="$RUNTIME" --time_based --eta=never) || die "random writes failed"
    awk '/^ *write: IOPS=/ { print; next }
         /clat percentiles/ { on = 1; print; next }
         on && /^ *\|/ { print; next }
         { on = 0 }' <<<"$out"
    c0line
fi
