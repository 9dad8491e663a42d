#!/bin/bash
# Scaling of femu NoSSD (femu_mode=2) with queues and pollers: IOPS and
# host CPU per I/O (every QEMU thread but the vCPUs, as bench/device/cpu.sh
# counts it) of 4 KiB random reads at QD DEPTH per job from a guest with
# SMP vCPUs, fio numjobs = min(queues, SMP), for each queues x pollers
# cell (pollers > queues skipped: the extra pollers would serve nothing).
# Then the NoSSD rows with pollers=1 (the default) against QEMU's own nvme
# (null-co, max_ioqpairs = queues) and, when FEMU_PEER_QEMU names FEMU
# upstream's qemu-system-x86_64, its NoSSD (femu_mode=2,queues=N, its
# defaults otherwise: hiops_inline on, one poller), for NVME_QUEUES.  One
# boot per cell, same QEMU binary for femu and nvme.
#
# Usage: bench/device/scale.sh
# Env:   SECS         seconds of the measured run per cell (default 5)
#        SMP          guest CPUs (default 4)
#        DEPTH        fio iodepth per job (default 16)
#        QUEUES       queue counts (default "1 2 4 8 16")
#        POLLERS      poller counts (default "1 2 4")
#        NVME_QUEUES  queue counts of the comparison (default "1 2 4"; ""
#                     = none)
#        FEMU_EXTRA   extra femu properties of every femu cell (",k=v")
#        FEMU_PEER_QEMU  FEMU upstream's binary (absent: no peer column)
#        ACCEL        auto (default: KVM where a guest really runs under
#                     it, the probe of scripts/run-blackbox.sh), kvm, tcg
# The Linux driver makes at most one I/O queue per guest CPU: the "hwq"
# column says how many the guest used (queues above SMP add none).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNNER=$ROOT/scripts/femu-run
. "$ROOT/bench/device/cpu-lib.sh"
SECS=${SECS:-5} SMP=${SMP:-4} DEPTH=${DEPTH:-16}
QUEUES=${QUEUES:-1 2 4 8 16} POLLERS=${POLLERS:-1 2 4}
NVME_QUEUES=${NVME_QUEUES-1 2 4}
PEER=${FEMU_PEER_QEMU:-}
OUT=$(mktemp -d /tmp/femu-scale.XXXXXX)

ACCEL=${ACCEL:-auto}
if [ "$ACCEL" = auto ]; then
    ACCEL=$("$ROOT/scripts/run-blackbox.sh" --print-accel 2>/dev/null) || ACCEL=tcg
fi

run_cell() {    # TAG JOBS RUNNER-ARGS...: a boot, results in $OUT/TAG.log
    local tag=$1 jobs=$2 name=femu-scale-$$-$1
    shift 2
    "$RUNNER" --accel "$ACCEL" --smp "$SMP" --timeout 900 --env SECS="$SECS" \
        --env JOBS="$jobs" --env DEPTH="$DEPTH" \
        -name "$name,debug-threads=on" "$@" \
        --script "$ROOT/bench/device/scale-guest.sh" 2>&1 |
    cpu_phases "$name" "$tag"
    grep -q '^result rr_iops' "$OUT/$tag.log" ||
        echo "# no result from $tag: $(tail -2 "$OUT/$tag.log" | tr '\n' ' ')"
}
val() { awk -v m="$2" '$1 == "result" && $2 == m {print $3}' "$OUT/$1.log" 2>/dev/null | median; }
hwq() { awk '$1 == "hwq" {print $2; exit}' "$OUT/$1.log" 2>/dev/null; }
jobs_for() { echo $(( $1 < SMP ? $1 : SMP )); }
nossd() { echo "-device femu,serial=scale,femu_mode=2,devsz_mb=256,queues=$1,pollers=$2${FEMU_EXTRA:-}"; }

echo "# $(date -u +%FT%TZ) $(uname -n) accel=$ACCEL smp=$SMP secs=$SECS depth=$DEPTH load=$(cut -d' ' -f1-3 /proc/loadavg) extra='${FEMU_EXTRA:-}'; logs in $OUT"
if [ -n "$PEER" ] && [ -x "$PEER" ]; then
    echo "# FEMU upstream: $PEER"
else
    echo "# FEMU upstream: none (set FEMU_PEER_QEMU to its qemu-system-x86_64): no peer column"
    PEER=
fi
for q in $QUEUES; do
    for p in $POLLERS; do
        [ "$p" -le "$q" ] || continue
        # shellcheck disable=SC2046
        run_cell "q$q-p$p" "$(jobs_for "$q")" $(nossd "$q" "$p")
    done
done
for q in $NVME_QUEUES; do
    [ -f "$OUT/q$q-p1.log" ] || run_cell "q$q-p1" "$(jobs_for "$q")" $(nossd "$q" 1)
    run_cell "nvme-q$q" "$(jobs_for "$q")" \
        -blockdev null-co,node-name=nul0,size=268435456,read-zeroes=on \
        -device "nvme,serial=scale,drive=nul0,max_ioqpairs=$q"
    [ -z "$PEER" ] || run_cell "peer-q$q" "$(jobs_for "$q")" --qemu "$PEER" \
        -device "femu,devsz_mb=256,femu_mode=2,queues=$q"
done
# the accelerator each boot used, as the runner reports it
used=$(grep -ho 'accel=[a-z]*' "$OUT"/*.log | sort -u | tr '\n' ' ')
echo "# done $(date -u +%FT%TZ) accelerator used: ${used:-unknown} load=$(cut -d' ' -f1-3 /proc/loadavg)"
echo "## femu NoSSD: queues x pollers"
# cpu_ns/io: every thread but the vCPUs; all_ns/io: every thread (what
# doorbell_inline runs in a vCPU shows there)
printf '%-7s %-8s %-5s %-4s %10s %12s %12s\n' queues pollers jobs hwq iops cpu_ns/io all_ns/io
for q in $QUEUES; do
    for p in $POLLERS; do
        [ "$p" -le "$q" ] || continue
        printf '%-7s %-8s %-5s %-4s %10s %12s %12s\n' "$q" "$p" "$(jobs_for "$q")" \
            "$(hwq "q$q-p$p")" "$(val "q$q-p$p" rr_iops)" "$(val "q$q-p$p" rr_cpu_ns_per_io)" \
            "$(val "q$q-p$p" rr_all_ns_per_io)"
    done
done
[ -n "$NVME_QUEUES" ] || exit 0
echo "## NoSSD (pollers=1) against QEMU nvme${PEER:+ and FEMU upstream NoSSD}: ratios femu / peer"
printf '%-7s %10s %10s %8s %10s %8s %10s %10s %8s %10s %8s %10s %10s %8s %10s %8s\n' queues femu_iops nvme_iops vs_nvme \
    upst_iops vs_upst femu_cpu nvme_cpu vs_nvme upst_cpu vs_upst femu_all nvme_all vs_nvme upst_all vs_upst
for q in $NVME_QUEUES; do
    fi=$(val "q$q-p1" rr_iops) fc=$(val "q$q-p1" rr_cpu_ns_per_io) fa=$(val "q$q-p1" rr_all_ns_per_io)
    ni=$(val "nvme-q$q" rr_iops) nc=$(val "nvme-q$q" rr_cpu_ns_per_io) na=$(val "nvme-q$q" rr_all_ns_per_io)
    ui=$(val "peer-q$q" rr_iops) uc=$(val "peer-q$q" rr_cpu_ns_per_io) ua=$(val "peer-q$q" rr_all_ns_per_io)
    printf '%-7s %10s %10s %8s %10s %8s %10s %10s %8s %10s %8s %10s %10s %8s %10s %8s\n' "$q" "$fi" "$ni" \
        "$(ratio "$fi" "$ni")" "${ui:--}" "$(ratio "$fi" "$ui")" "$fc" "$nc" \
        "$(ratio "$fc" "$nc")" "${uc:--}" "$(ratio "$fc" "$uc")" "$fa" "$na" \
        "$(ratio "$fa" "$na")" "${ua:--}" "$(ratio "$fa" "$ua")"
done
