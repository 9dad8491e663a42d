#!/bin/bash
# Device benchmarks: FEMU (femu_mode=1, NAND times 0) against QEMU's own
# nvme device in the same QEMU binary, alternating A B A B (ROUNDS pairs),
# medians and ratios.  Also host CPU of an idle guest, completion lateness
# (log page C1h, built-in NAND times) and host RSS with a 16 GiB FEMU
# device after 1 GiB written.
#
# Usage: bench/device/run.sh [ROUNDS]   (default 2: A B A B)
# Env:   FEMU_RUN_ARGS  extra scripts/femu-run options (e.g. --accel kvm)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNNER=$ROOT/scripts/femu-run
ROUNDS=${1:-2}
OUT=$(mktemp -d /tmp/femu-bench.XXXXXX)
HZ=$(getconf CLK_TCK)

FEMU_DEV=(-device femu,serial=bench,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,ch_xfer_lat=0)
NVME_DEV=(-blockdev null-co,node-name=nul0,size=1073741824,read-zeroes=on
          -device nvme,serial=bench,drive=nul0)

# cpu_ticks PID -> utime + stime of the whole process
cpu_ticks() { awk '{print $14 + $15}' /proc/$1/stat; }

run_one() {   # KIND PHASE TAG DEVICE-ARGS...
    local kind=$1 phase=$2 tag=$3; shift 3
    local name=femu-bench-$$-$tag pid t0 t1 w0 w1
    "$RUNNER" ${FEMU_RUN_ARGS:-} --timeout 900 --env KIND=$kind --env PHASE=$phase \
        -name "$name" "$@" --script "$ROOT/bench/device/guest-bench.sh" 2>&1 |
    while IFS= read -r line; do
        case $line in
        idle-start|rss-sample)
            pid=$(pgrep -f -- "qemu-system-x86_64 .*-name $name" | head -1)
            t0=$(cpu_ticks "$pid"); w0=$(date +%s.%N) ;;
        idle-end)
            t1=$(cpu_ticks "$pid"); w1=$(date +%s.%N)
            echo "result idle_cpu_pct $(awk -v a=$t0 -v b=$t1 -v x=$w0 -v y=$w1 -v hz=$HZ \
                'BEGIN{printf "%.2f", 100 * (b - a) / hz / (y - x)}')" ;;
        rss-done)
            echo "result rss_kib $(awk '/VmRSS/{print $2}' /proc/$pid/status)" ;;
        esac
        echo "$line"
    done | tee "$OUT/$tag.log" | grep '^result'
}

median() { sort -n | awk '{a[NR]=$1} END{if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'; }
get() { grep -h "^result $2 " "$OUT"/$1-*.log | awk '{print $3}' | median; }

echo "# $(date -u +%FT%TZ) $(uname -n) rounds=$ROUNDS; logs in $OUT"
for r in $(seq "$ROUNDS"); do
    run_one femu perf femu-$r "${FEMU_DEV[@]}"
    run_one nvme perf nvme-$r "${NVME_DEV[@]}"
done
run_one femu rss rssfemu-1 -device femu,serial=bench,nchs=8,luns_per_ch=8,blks_per_pl=320,devsz_mb=16384,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0
run_one nvme rss rssnvme-1 -blockdev null-co,node-name=nul0,size=17179869184,read-zeroes=on -device nvme,serial=bench,drive=nul0

ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
echo
printf '%-28s %14s %14s %8s\n' metric femu nvme femu/nvme
for m in randwrite_qd32_iops randread_qd1_lat_mean_ns randread_qd1_clat_p50_ns idle_cpu_pct; do
    f=$(get femu $m) q=$(get nvme $m)
    printf '%-28s %14s %14s %8s\n' $m "$f" "$q" "$(ratio "$f" "$q")"
done
for m in late_qd1_count late_qd1_p50_ns late_qd1_p99_ns late_qd1_max_ns \
         late_qd32_count late_qd32_p50_ns late_qd32_p99_ns late_qd32_max_ns; do
    printf '%-28s %14s\n' $m "$(get femu $m)"
done
printf '%-28s %14s %14s\n' "rss_kib (16G dev, 1G written)" "$(get rssfemu rss_kib)" "$(get rssnvme rss_kib)"
