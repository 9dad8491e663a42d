#!/bin/bash
# Device benchmarks: FEMU (femu_mode=1, NAND times 0) against QEMU's own
# nvme device in the same QEMU binary, alternating A B A B (ROUNDS pairs),
# medians and ratios.  Also host CPU of an idle guest, completion lateness
# (log page C1h v2 percentiles, QD1 and QD32, NAND times 0 and built-in)
# and host RSS with a 16 GiB FEMU device after 1 GiB written (whole process
# and FEMU's share against the nvme run with the same guest).
#
# Usage: bench/device/run.sh [ROUNDS]   (default 2: A B A B)
# Env:   FEMU_RUN_ARGS  extra scripts/femu-run options (e.g. --accel kvm)
#        PHASES         "perf rss" (default), or one of them
#        RSS_MEM        guest memory of the RSS boots (default 1G; both
#                       devices get the same guest, so FEMU's share is the
#                       difference of the two RSS figures)
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
        --file "$ROOT/bench/device/c1h.py" ${MEMOPT:+--mem $MEMOPT} \
        -name "$name" "$@" --script "$ROOT/bench/device/guest-bench.sh" 2>&1 |
    while IFS= read -r line; do
        case $line in
        idle-start|rss-sample)
            # QEMU itself, not the runner (whose arguments may name the
            # binary too, e.g. FEMU_RUN_ARGS="--qemu .../qemu-system-x86_64")
            pid=$(pgrep -f -- "^[^ ]*qemu-system-x86_64 .*-name $name" | head -1)
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
PHASES=${PHASES:-perf rss}
RSS_MEM=${RSS_MEM:-1G}
for r in $(seq "$ROUNDS"); do
    [[ " $PHASES " == *" perf "* ]] || break
    run_one femu perf femu-$r "${FEMU_DEV[@]}"
    run_one nvme perf nvme-$r "${NVME_DEV[@]}"
done
if [[ " $PHASES " == *" rss "* ]]; then
MEMOPT=$RSS_MEM
run_one femu rss rssfemu-1 -device femu,serial=bench,nchs=8,luns_per_ch=8,blks_per_pl=320,devsz_mb=16384,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0
run_one nvme rss rssnvme-1 -blockdev null-co,node-name=nul0,size=17179869184,read-zeroes=on -device nvme,serial=bench,drive=nul0
MEMOPT=
fi

if [[ " $PHASES " == *" perf "* ]]; then
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{ if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
echo
printf '%-28s %14s %14s %8s\n' metric femu nvme femu/nvme
for m in randwrite_qd32_iops randread_qd1_lat_mean_ns randread_qd1_clat_p50_ns idle_cpu_pct; do
    f=$(get femu $m) q=$(get nvme $m)
    printf '%-28s %14s %14s %8s\n' $m "$f" "$q" "$(ratio "$f" "$q")"
done
echo
echo "completion lateness (log C1h, ns; 70/30 random read/write, 5 s each):"
echo "  cqe = emulated completion time -> CQE in guest memory; irq = -> interrupt step done"
printf '%-18s %-4s %10s %10s %10s %10s %10s %12s\n' nand_times what count p50 p90 p99 p99.9 max
for t in nand0 default; do
    for q in qd1 qd32; do
        for w in cqe irq; do
            printf '%-18s %-4s' "$t $q" $w
            for f in count p50_ns p90_ns p99_ns p999_ns; do
                printf ' %10s' "$(get femu late_${t}_${q}_${w}_$f)"
            done
            printf ' %12s\n' "$(get femu late_${t}_${q}_${w}_max_ns)"
        done
    done
done
fi
if [[ " $PHASES " == *" rss "* ]]; then
echo
rf=$(get rssfemu rss_kib) rn=$(get rssnvme rss_kib)
echo "host RSS, 16 GiB device, 1 GiB written, guest memory $RSS_MEM (KiB):"
printf '  %-34s %12s\n' "QEMU process with femu" "$rf" "QEMU process with nvme (null-co)" "$rn" \
    "FEMU's share (difference)" "$(awk -v a="$rf" -v b="$rn" 'BEGIN{ if (a != "" && b != "") print a - b; else print "n/a" }')"
fi
