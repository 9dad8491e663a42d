#!/bin/bash
# Device benchmarks: FEMU (femu_mode=1, NAND times 0) against QEMU's own
# nvme device in the same QEMU binary, alternating A B A B (ROUNDS pairs),
# medians and ratios.  Also host CPU of an idle guest, completion lateness
# (log page C1h v2 percentiles, QD1 and QD32, NAND times 0 and built-in),
# the same lateness with the pollers under SCHED_FIFO (phase rt), the
# host's own cost of copying a cold 4 KiB page (memtouch.c, phase host),
# the host's stalls of a spinning thread (stalls.c, phase host),
# and host RSS with a 16 GiB FEMU device after 1 GiB written (whole process,
# FEMU's share against the nvme run with the same guest, and what the
# biggest mappings hold).
#
# Usage: bench/device/run.sh [ROUNDS]   (default 2: A B A B)
# Env:   FEMU_RUN_ARGS  extra scripts/femu-run options (e.g. --accel kvm)
#        PHASES         "perf rt host rss" (default), or a subset
#        RSS_MEM        guest memory of the RSS boots (default 1G; both
#                       devices get the same guest, so FEMU's share is the
#                       difference of the two RSS figures)
#        RSS_TB_MIB     if set, both RSS boots run with
#                       -accel tcg,tb-size=RSS_TB_MIB (TCG's translation
#                       buffer, 1 GiB by default, is part of the RSS)
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNNER=$ROOT/scripts/femu-run
ROUNDS=${1:-2}
OUT=$(mktemp -d /tmp/femu-bench.XXXXXX)
HZ=$(getconf CLK_TCK)

FEMU_DEV=(-device femu,serial=bench,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,ch_xfer_lat=0)
# the same with SCHED_FIFO pollers (docs/measuring.md, "Real-time pollers")
FEMU_DEV_RT=(-device femu,serial=bench,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,ch_xfer_lat=0,poller_rt=10)
NVME_DEV=(-blockdev null-co,node-name=nul0,size=1073741824,read-zeroes=on
          -device nvme,serial=bench,drive=nul0)

# cpu_ticks PID -> utime + stime of the whole process
cpu_ticks() { awk '{print $14 + $15}' /proc/$1/stat; }

# smaps_split PID: RSS (KiB) of FEMU's store (the anonymous mapping of the
# 16 GiB namespace), guest RAM (the mapping of RSS_MEM), file mappings
# (e.g. the runner's initrd) and everything else
smaps_split() {
    python3 - "$1" "$RSS_MEM" <<'PY'
import re, sys
units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
m = re.match(r"(\d+)([KMG]?)", sys.argv[2])
guest = int(m.group(1)) * units.get(m.group(2), 1 << 20)
out = {"store": 0, "guestram": 0, "file": 0, "other": 0}
kind = "other"
for line in open("/proc/%s/smaps" % sys.argv[1]):
    h = re.match(r"([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(\S*)", line)
    if h:
        size = int(h.group(2), 16) - int(h.group(1), 16)
        kind = ("store" if size >= 16 << 30 else
                "guestram" if size == guest else
                "file" if h.group(3).startswith("/") else "other")
    elif line.startswith("Rss:"):
        out[kind] += int(line.split()[1])
for k, v in out.items():
    print("result rss_%s_kib %d" % (k, v))
PY
}


run_one() {   # KIND PHASE TAG DEVICE-ARGS...
    local kind=$1 phase=$2 tag=$3; shift 3
    local name=femu-bench-$$-$tag pid t0 t1 w0 w1
    "$RUNNER" ${FEMU_RUN_ARGS:-} ${QEMUOPT:+--qemu $QEMUOPT} --timeout 900 \
        --env KIND=$kind --env PHASE=$phase \
        --file "$ROOT/scripts/femu-log.sh" ${MEMOPT:+--mem $MEMOPT} \
        -name "$name,debug-threads=on" "$@" --script "$ROOT/bench/device/guest-bench.sh" 2>&1 |
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
            echo "result rss_kib $(awk '/VmRSS/{print $2}' /proc/$pid/status)"
            smaps_split "$pid" ;;
        esac
        echo "$line"
    done | tee "$OUT/$tag.log" | grep '^result'
}

median() { sort -n | awk '{a[NR]=$1} END{if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2] + a[NR/2+1]) / 2}'; }
get() { grep -h "^result $2 " "$OUT"/$1-*.log | awk '{print $3}' | median; }

PHASES=${PHASES:-perf rt host rss}
RSS_MEM=${RSS_MEM:-1G}
echo "# $(date -u +%FT%TZ) $(uname -n) rounds=$ROUNDS phases='$PHASES' load=$(cut -d' ' -f1-3 /proc/loadavg); logs in $OUT"
for r in $(seq "$ROUNDS"); do
    [[ " $PHASES " == *" perf "* ]] || break
    run_one femu perf femu-$r "${FEMU_DEV[@]}"
    run_one nvme perf nvme-$r "${NVME_DEV[@]}"
done
if [[ " $PHASES " == *" rt "* ]]; then
    # lateness only, pollers SCHED_FIFO (QEMU refuses to start where the
    # host forbids it: the table then says so)
    run_one femu late femurt-1 "${FEMU_DEV_RT[@]}"
fi
if [[ " $PHASES " == *" host "* ]]; then
    # the host's copy of a random 4 KiB page: of a 256 MiB mapping (the
    # lateness runs' working set in FEMU's store) and of 8 MiB (cache and
    # TLB friendly), 4000 copies per second, about what the guest drives;
    # SCHED_FIFO where allowed, to leave the host's scheduling out
    if cc -O2 -o "$OUT/memtouch" "$ROOT/bench/device/memtouch.c"; then
        for ws in 256 8; do
            { chrt -f 10 "$OUT/memtouch" $ws 20000 4000 2>/dev/null ||
              "$OUT/memtouch" $ws 20000 4000; } |
                awk '{print "result memtouch_" $1 "m_p50_ns", $4
                      print "result memtouch_" $1 "m_p99_ns", $6
                      print "result memtouch_" $1 "m_p999_ns", $7}'
        done > "$OUT/host-1.log"
    fi
    # the host's stalls of a thread that spins on the clock (stalls.c):
    # a floor under any completion lateness, at normal priority like a
    # default poller
    if cc -O2 -o "$OUT/stalls" "$ROOT/bench/device/stalls.c"; then
        "$OUT/stalls" 5 | awk '{print "result stalls_per_s", $2
                                print "result stalls_lost_pct", $3
                                print "result stalls_median_ns", $4
                                print "result stalls_max_ns", $5
                                print "result stalls_late_p99_floor_ns", $6
                                print "result stalls_late_p999_floor_ns", $7}' \
            >> "$OUT/host-1.log"
    fi
fi
if [[ " $PHASES " == *" rss "* ]]; then
MEMOPT=$RSS_MEM
if [ -n "${RSS_TB_MIB:-}" ]; then
    # the runner passes "-accel tcg": a wrapper caps TCG's buffer
    real=$(sed -n 's/.*--qemu \([^ ]*\).*/\1/p' <<< "${FEMU_RUN_ARGS:-}")
    real=${real:-$ROOT/build-femu/qemu-system-x86_64}
    {
        echo '#!/bin/bash'
        echo 'a=(); for x in "$@"; do [ "$x" = tcg ] && x=tcg,tb-size='"$RSS_TB_MIB"'; a+=("$x"); done'
        echo "exec $real"' "${a[@]}"'
    } > "$OUT/qemu-system-x86_64"
    chmod +x "$OUT/qemu-system-x86_64"
    QEMUOPT=$OUT/qemu-system-x86_64
fi
run_one femu rss rssfemu-1 -device femu,serial=bench,nchs=8,luns_per_ch=8,blks_per_pl=320,devsz_mb=16384,pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0
run_one nvme rss rssnvme-1 -blockdev null-co,node-name=nul0,size=17179869184,read-zeroes=on -device nvme,serial=bench,drive=nul0
MEMOPT= QEMUOPT=
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
if [[ " $PHASES " == *" rt "* ]]; then
echo
if grep -q '^result late_' "$OUT"/femurt-*.log 2>/dev/null; then
    echo "completion lateness (cqe) with poller_rt=10 (SCHED_FIFO pollers), one run, ns:"
    printf '%-18s %-4s %10s %10s %10s %10s %10s %12s\n' nand_times what count p50 p90 p99 p99.9 max
    for t in nand0 default; do
        for q in qd1 qd32; do
            printf '%-18s %-4s' "$t $q" cqe
            for f in count p50_ns p90_ns p99_ns p999_ns; do
                printf ' %10s' "$(get femurt late_${t}_${q}_cqe_$f)"
            done
            printf ' %12s\n' "$(get femurt late_${t}_${q}_cqe_max_ns)"
        done
    done
else
    echo "lateness with poller_rt=10: not measured ($(grep -m1 -o 'poller_rt=10: .*' "$OUT"/femurt-*.log || echo 'no result'))"
fi
fi
if [[ " $PHASES " == *" host "* ]]; then
echo
echo "host: copy of a random 4 KiB page of a mapping written once (memtouch.c, 4000/s, ns):"
for ws in 256 8; do
    printf '  %4s MiB mapping: p50 %s p99 %s p99.9 %s\n' $ws "$(get host memtouch_${ws}m_p50_ns)" \
        "$(get host memtouch_${ws}m_p99_ns)" "$(get host memtouch_${ws}m_p999_ns)"
done
echo "host: stalls of a thread spinning on the clock for 5 s (stalls.c):"
echo "  $(get host stalls_per_s) stalls/s over 20 us, $(get host stalls_lost_pct) % of the time lost," \
     "median stall $(get host stalls_median_ns) ns, max $(get host stalls_max_ns) ns"
echo "  lateness floor for a completion due at a random instant: p99 $(get host stalls_late_p99_floor_ns) ns," \
     "p99.9 $(get host stalls_late_p999_floor_ns) ns"
fi
if [[ " $PHASES " == *" rss "* ]]; then
echo
rf=$(get rssfemu rss_kib) rn=$(get rssnvme rss_kib)
echo "host RSS, 16 GiB device, 1 GiB written, guest memory $RSS_MEM${RSS_TB_MIB:+, -accel tcg,tb-size=$RSS_TB_MIB} (KiB):"
printf '  %-34s %12s\n' "QEMU process with femu" "$rf" "QEMU process with nvme (null-co)" "$rn" \
    "FEMU's share (difference)" "$(awk -v a="$rf" -v b="$rn" 'BEGIN{ if (a != "" && b != "") print a - b; else print "n/a" }')"
printf '  %-34s %12s %12s\n' "of which (femu, nvme):" "" ""
for k in store guestram file other; do
    printf '  %-34s %12s %12s\n' "  $k" "$(get rssfemu rss_${k}_kib)" "$(get rssnvme rss_${k}_kib)"
done
echo "  (store: FEMU's data store; guestram: the guest's RAM; file: mapped files such as"
echo "   the runner's initrd; other: TCG's translation buffer, heap, FTL tables, ...)"
fi
