#!/bin/bash
# Host CPU per completed I/O and IOPS: femu BlackBox (femu_mode=1), femu
# NoSSD (femu_mode=2), both with all NAND times 0, and QEMU's own nvme on
# a null-co node, same QEMU binary, one boot each per round, the order
# rotating from round to round; medians over the rounds and ratios
# against nvme, both of the medians and, paired, the median of each
# round's ratio (the host's speed drifts in phases minutes long).  CPU
# is that of every QEMU thread but the vCPU threads (reported apart)
# ("CPU n/TCG" or "CPU n/KVM" with -name ...,debug-threads=on), from
# /proc/PID/task/*/schedstat (ns on a CPU) between the guest's phase
# markers (cpu-guest.sh), divided by the I/Os fio completed.  Workloads:
# QD1 random reads (psync), QD32 random writes (libaio), 4 jobs of random
# writes at QD8 on 4 guest CPUs (so 4 NVMe queues), 4 KiB, SECS s each.
#
# Usage: bench/device/cpu.sh [ROUNDS]      (default 3)
# Env:   FEMU_RUN_ARGS  extra scripts/femu-run options (--qemu PATH, --accel)
#        SMP            guest CPUs (default 4)
#        SECS           seconds per workload (default 5)
#        FEMU_EXTRA     extra femu properties for both femu rows (",k=v")
#        DEVICES        subset of "bb nossd nvme" (default all three)
#        BASE_QEMU      another QEMU binary (e.g. a copy of the one before a
#                       change): adds a row bb0 / nossd0 booted with it for
#                       each femu row, for an A/B comparison in one run
#        BASE_EXTRA     FEMU_EXTRA for the bb0 / nossd0 rows (default:
#                       FEMU_EXTRA): with BASE_QEMU the same binary, an
#                       A/B of properties, e.g. ",intc_thresh=7,intc_time=1"
#        FEMU_PEER_QEMU FEMU upstream's qemu-system-x86_64 (built outside
#                       this repository, bench/peer/README.md): adds a row
#                       "upstream", its NoSSD (femu_mode=2, its defaults
#                       otherwise: 8 queues, one poller, hiops_inline),
#                       and "vs upstream" lines for the NoSSD row
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNNER=$ROOT/scripts/femu-run
ROUNDS=${1:-3}
SMP=${SMP:-4}
SECS=${SECS:-5}
DEVICES=${DEVICES:-bb nossd nvme}
if [ -n "${BASE_QEMU:-}" ]; then
    for d in $DEVICES; do [ "$d" = nvme ] || DEVICES="$DEVICES ${d}0"; done
fi
[ -z "${FEMU_PEER_QEMU:-}" ] || DEVICES="$DEVICES upstream"
OUT=$(mktemp -d /tmp/femu-cpu.XXXXXX)
NAND0=pg_rd_lat=0,pg_wr_lat=0,blk_er_lat=0,ch_xfer_lat=0

dev_args() {
    case $1 in
    *0)    echo "--qemu $BASE_QEMU $(FEMU_EXTRA=${BASE_EXTRA-${FEMU_EXTRA:-}} dev_args "${1%0}")" ;;
    bb)    echo "-device femu,serial=bench,femu_mode=1,$NAND0${FEMU_EXTRA:-}" ;;
    nossd) echo "-device femu,serial=bench,femu_mode=2${FEMU_EXTRA:-}" ;;
    upstream) echo "--qemu $FEMU_PEER_QEMU -device femu,serial=bench,femu_mode=2" ;;
    nvme)  echo "-blockdev null-co,node-name=nul0,size=1073741824,read-zeroes=on -device nvme,serial=bench,drive=nul0" ;;
    esac
}

. "$ROOT/bench/device/cpu-lib.sh"

run_one() {    # DEV TAG
    local d=$1 tag=$2 name=femu-cpu-$$-$2
    # shellcheck disable=SC2046
    "$RUNNER" ${FEMU_RUN_ARGS:-} --smp "$SMP" --timeout 600 --env SECS="$SECS" \
        -name "$name,debug-threads=on" $(dev_args "$d") \
        --script "$ROOT/bench/device/cpu-guest.sh" 2>&1 |
    cpu_phases "$name" "$tag"
    grep -q '^result' "$OUT/$tag.log" || { echo "no result from $tag:"; tail -5 "$OUT/$tag.log"; }
}

get() { cat "$OUT"/$1-*.log 2>/dev/null | awk -v m="$2" '$1 == "result" && $2 == m {print $3}' | median; }
# one round's value of a metric
val() { awk -v m="$2" '$1 == "result" && $2 == m {print $3}' "$OUT/$1.log" 2>/dev/null; }
# median over the rounds of DEV's value against REF's in the same round:
# the host's speed drifts in phases minutes long, and a round's boots
# follow each other, so a ratio within a round cancels more of it than
# the ratio of two medians over the whole run
paired() {    # DEV REF METRIC
    local r
    for r in $(seq "$ROUNDS"); do
        echo "$(ratio "$(val "$1-$r" "$3")" "$(val "$2-$r" "$3")")"
    done | grep -v n/a | median
}

echo "# $(date -u +%FT%TZ) $(uname -n) smp=$SMP rounds=$ROUNDS secs=$SECS load=$(cut -d' ' -f1-3 /proc/loadavg) extra='${FEMU_EXTRA:-}'${BASE_QEMU:+ base=$BASE_QEMU base_extra='${BASE_EXTRA-${FEMU_EXTRA:-}}'}${FEMU_PEER_QEMU:+ upstream=$FEMU_PEER_QEMU}; logs in $OUT"
set -- $DEVICES
for r in $(seq "$ROUNDS"); do
    # rotate the order: each device goes first once in three rounds
    for k in $(seq 0 $(($# - 1))); do
        i=$(( (k + r - 1) % $# + 1 ))
        run_one "${!i}" "${!i}-$r"
    done
done
# the runner says which accelerator it used (auto: KVM where it works)
accel=$(grep -ho 'accel=[a-z]*' "$OUT"/*.log | sort -u | tr '\n' ' ')
echo "# done $(date -u +%FT%TZ) ${accel:-accel=unknown} load=$(cut -d' ' -f1-3 /proc/loadavg)"
# vs_nvme: ratio of the medians; paired: median of the rounds' ratios;
# vcpu_ns/io: the vCPU threads' CPU per I/O (not in cpu_ns/io); all_ns/io:
# every thread's, and its paired ratio; lat_ns: fio's mean completion
# latency, and its paired ratio
printf '%-6s %-10s %12s %10s %10s %12s %10s %10s %8s %12s %12s %8s\n' load device cpu_ns/io vs_nvme paired iops vs_nvme lat_ns paired vcpu_ns/io all_ns/io paired
for w in qd1 qd32 4j; do
    nc=$(get nvme ${w}_cpu_ns_per_io) ni=$(get nvme ${w}_iops)
    for d in $DEVICES; do
        c=$(get $d ${w}_cpu_ns_per_io) i=$(get $d ${w}_iops) l=$(get $d ${w}_lat_ns)
        v=$(get $d ${w}_vcpu_ns_per_io) a=$(get $d ${w}_all_ns_per_io)
        [ -n "$c" ] || continue
        pc=$(paired $d nvme ${w}_cpu_ns_per_io) pl=$(paired $d nvme ${w}_lat_ns)
        pa=$(paired $d nvme ${w}_all_ns_per_io)
        printf '%-6s %-10s %12s %10s %10s %12s %10s %10s %8s %12s %12s %8s\n' $w $d "$c" "$(ratio "$c" "$nc")" "${pc:-n/a}" "$i" "$(ratio "$i" "$ni")" "$l" "${pl:-n/a}" "${v:-n/a}" "${a:-n/a}" "${pa:-n/a}"
    done
done
# with BASE_QEMU: each femu row against its base row, round by round
for d in $DEVICES; do
    case $d in *0) ;; *) continue ;; esac
    for w in qd1 qd32 4j; do
        pc=$(paired "${d%0}" "$d" ${w}_cpu_ns_per_io) pi=$(paired "${d%0}" "$d" ${w}_iops)
        pv=$(paired "${d%0}" "$d" ${w}_vcpu_ns_per_io)
        pa=$(paired "${d%0}" "$d" ${w}_all_ns_per_io) pl=$(paired "${d%0}" "$d" ${w}_lat_ns)
        [ -n "$pc" ] && echo "a/b ${d%0} against $d $w: cpu_ns/io ${pc}x, iops ${pi:-n/a}x, vcpu_ns/io ${pv:-n/a}x, all_ns/io ${pa:-n/a}x, lat_ns ${pl:-n/a}x (medians of the rounds' ratios)"
    done
done
# with FEMU_PEER_QEMU: this project's NoSSD against FEMU upstream's
# (nothing without a nossd row: paired has no ratio then)
for w in ${FEMU_PEER_QEMU:+qd1 qd32 4j}; do
    pc=$(paired nossd upstream ${w}_cpu_ns_per_io) pi=$(paired nossd upstream ${w}_iops)
    pa=$(paired nossd upstream ${w}_all_ns_per_io) pl=$(paired nossd upstream ${w}_lat_ns)
    [ -n "$pc" ] && echo "vs upstream: nossd against upstream $w: cpu_ns/io ${pc}x, iops ${pi:-n/a}x, all_ns/io ${pa:-n/a}x, lat_ns ${pl:-n/a}x (medians of the rounds' ratios)"
done
