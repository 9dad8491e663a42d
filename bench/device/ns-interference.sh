#!/bin/bash
# Cross-namespace interference: two BlackBox namespaces of one controller
# share one FTL and one NAND, so one's writes and GC show in the other's
# read latency.  Boots the embedded guest with
#   -device femu,nchs=2,luns_per_ch=2,blks_per_pl=64,devsz_mb=1600,
#           namespaces=2 (800 MiB each; NAND times: the defaults,
#           40 / 200 / 2000 us page read / program / block erase)
# fills both namespaces, then measures QD1 4 KiB random reads on
# namespace 1 for SECS seconds (fio, psync): alone, and while namespace 2
# takes 4 KiB random writes at QD16 (libaio) that keep GC busy.  Prints
# fio's mean, p50 and p99 completion latency for both runs.
#   bench/device/ns-interference.sh [SECS]   (default 20)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd -P)
secs=${1:-20}
job=$(mktemp /tmp/femu-nsi.XXXXXX)
trap 'rm -f "$job"' EXIT
cat >"$job" <<JOB
set -e
# the first namespace of controller A, and namespace 2 of A or
# namespace 1 of controller C
d1= d2=
for d in /sys/block/nvme*n*; do
    c=\$(ls -d /sys/class/nvme/*/\${d##*/} 2>/dev/null | cut -d/ -f5)
    s=\$(tr -d ' ' < /sys/class/nvme/\$c/serial)
    case \$s:\$(cat \$d/nsid) in A:1) d1=/dev/\${d##*/} ;; A:2|C:1) d2=/dev/\${d##*/} ;; esac
done
for d in \$d1 \$d2; do
    fio --name=fill --filename=\$d --rw=write --bs=128k --direct=1 \
        --ioengine=libaio --iodepth=8 --output=/dev/null --eta=never
done
lat() {
    python3 -c 'import sys, json; j = json.load(sys.stdin)["jobs"][0]["read"]["clat_ns"]; p = j["percentile"]; print("mean %.0f us, p50 %.0f us, p99 %.0f us" % (j["mean"] / 1e3, p["50.000000"] / 1e3, p["99.000000"] / 1e3))'
}
echo "\$WHAT: namespace 1 QD1 reads, alone: \$(fio --name=r --filename=\$d1 --rw=randread --bs=4k --direct=1 --ioengine=psync --time_based --runtime=$secs --output-format=json --eta=never | lat)"
fio --name=w --filename=\$d2 --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
    --iodepth=16 --time_based --runtime=$((secs + 10)) --output=/dev/null --eta=never &
sleep 5
echo "\$WHAT: namespace 1 QD1 reads, the other writing: \$(fio --name=r --filename=\$d1 --rw=randread --bs=4k --direct=1 --ioengine=psync --time_based --runtime=$secs --output-format=json --eta=never | lat)"
wait
JOB
g=nchs=2,luns_per_ch=2,blks_per_pl=256
{ echo "WHAT=shared"; cat "$job"; } > "$job.1"
"$root/scripts/femu-run" --timeout 900 \
    -device femu,serial=A,$g,devsz_mb=768,namespaces=2 --script "$job.1"
{ echo "WHAT=separate"; cat "$job"; } > "$job.1"
"$root/scripts/femu-run" --timeout 900 \
    -device femu,serial=A,$g,devsz_mb=384 -device femu,serial=C,$g,devsz_mb=384 \
    --script "$job.1"
rm -f "$job.1"
