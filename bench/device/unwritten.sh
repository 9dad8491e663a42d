#!/bin/bash
# QD1 4 KiB random reads of written, never-written and deallocated blocks
# of a femu BlackBox SSD with all NAND times 0, alternating in one boot
# (unwritten-guest.sh), ROUNDS rounds of SECS s each; with BASE_QEMU the
# same again with that binary in a second boot, booted first.  Prints per
# binary and kind the medians over the rounds of fio's completion latency
# (mean, p50) and of the device's own time from a command's arrival to
# its CQE (log page C1h: mean, p50), and each kind's ratio to written.
#
# Usage: bench/device/unwritten.sh [ROUNDS]     (default 5)
# Env:   FEMU_RUN_ARGS (e.g. --qemu PATH), SECS (default 4), BASE_QEMU
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ROUNDS=${1:-5}
SECS=${SECS:-4}
OUT=$(mktemp -d /tmp/femu-unwritten.XXXXXX)
DEV=-device\ femu,serial=bench,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,ch_xfer_lat=0
echo "# $(date -u +%FT%TZ) rounds=$ROUNDS secs=$SECS load=$(cut -d' ' -f1-3 /proc/loadavg); logs in $OUT"
boot() {    # TAG [--qemu PATH]
    local tag=$1; shift
    # shellcheck disable=SC2086
    "$ROOT/scripts/femu-run" ${FEMU_RUN_ARGS:-} "$@" --timeout 900 \
        --env KIND=femu --env ROUNDS="$ROUNDS" --env SECS="$SECS" \
        --file "$ROOT/scripts/femu-log.sh" $DEV \
        --script "$ROOT/bench/device/unwritten-guest.sh" > "$OUT/$tag.log" 2>&1
}
tags=new
if [ -n "${BASE_QEMU:-}" ]; then
    boot base --qemu "$BASE_QEMU"
    tags="base new"
fi
boot new
echo "# done $(date -u +%FT%TZ) $(grep -ho 'accel=[a-z]*' "$OUT"/*.log | sort -u | tr '\n' ' ')load=$(cut -d' ' -f1-3 /proc/loadavg)"
median() { sort -n | awk '{a[NR]=$1} END{if (!NR) print ""; else if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'; }
col() { awk -v k="$2" -v c="$3" '$1 == "result" && $2 == k {print $c}' "$OUT/$1.log" | median; }
printf '%-5s %-10s %12s %12s %8s %12s %12s %8s\n' qemu blocks fio_mean_ns fio_p50_ns p50/wr dev_mean_ns dev_p50_ns mean/wr
for t in $tags; do
    wp=$(col $t written 5) wd=$(col $t written 7)
    for k in written unwritten trimmed; do
        p=$(col $t $k 5) d=$(col $t $k 7)
        printf '%-5s %-10s %12s %12s %8s %12s %12s %8s\n' $t $k "$(col $t $k 4)" "$p" \
            "$(awk -v a="$p" -v b="$wp" 'BEGIN{printf "%.2f", b ? a / b : 0}')" "$d" "$(col $t $k 8)" \
            "$(awk -v a="$d" -v b="$wd" 'BEGIN{printf "%.2f", b ? a / b : 0}')"
    done
done
