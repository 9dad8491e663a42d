#!/bin/bash
# models-run.sh: tutorial 08's run (mapping schemes, read cache, cell
# types), inside a guest with one FEMU BlackBox SSD, this project's or FEMU
# upstream's (bench/peer/models.sh runs it on both).
#
#   fill       the whole namespace once, 128 KiB sequential writes
#   warm       WARM bytes of 4 KiB uniform random reads at IODEPTH (fills
#              a read cache or a mapping cache)
#   read       QD1 4 KiB uniform random reads of written data
#   write      QD1 4 KiB uniform random writes
#   age        0xEF codes 2 and 4 (GC and NAND take no time), then WRITE
#              bytes of 4 KiB uniform random writes at IODEPTH; the WAF
#              is that phase's counter differences
#
# Counters: COUNTERS=c0 (this project: log page C0h) or COUNTERS=smart
# (FEMU upstream: the SMART log's host pages at byte 200 and GC pages at
# 208; it has no C0h).
#   c0:    WAF = (programmed + GC moved + translation pages programmed)
#          / host written, as C0h's own WAF (merge copies count as GC)
#   smart: WAF = (host + GC) / host, as FEMU's SMART WAF (byte 192)
#
# WARNING: it overwrites the whole namespace.
#
# Settings (NAME=VALUE arguments or environment variables):
#   DEV=/dev/nvme0n1  the namespace (default: the first NVMe namespace)
#   SERIAL=NAME       the namespace 1 of the controller with this serial
#                     number (-device femu,serial=NAME,...), for a guest
#                     with several
#   COUNTERS=c0       c0 or smart
#   IOS=1000          I/Os of each QD1 phase
#   WARM=1x           bytes of the warm phase (Nx = N times the namespace)
#   WRITE=2x          bytes of the age phase (0 skips it)
#   FILL_FAST=0       1: the fill with 0xEF code 4, then code 3 (the
#                     built-in 40/200/2000 us: only for uniform NAND times)
#   IODEPTH=32 SEED=1
#
# Output:
#   lat phase=NAME n=N mean_us=.. p50_us=.. p99_us=.. max_us=..
#   counters phase=NAME host=H gc=G trans=T programmed=P waf=W
#              W = (P + G + T) / H; T: C0h only; P = H on FEMU
#   c0 hits=.. misses=.. map_hits=.. map_misses=.. trans_read=..
#      trans_prog=.. switch=.. partial=.. full=..     (c0 only; totals)
#   smart waf_x1000=.. host=.. gc=..                  (smart only; totals)
set -u
. "$(dirname "$0")/lib.sh" 2>/dev/null || . ./lib.sh 2>/dev/null ||
    { echo "models-run: lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
tut_args "$@"
tut_defaults COUNTERS=c0 IOS=1000 WARM=1x WRITE=2x FILL_FAST=0 IODEPTH=32 SEED=1
for t in fio nvme python3 od awk; do
    command -v $t >/dev/null || die "$t is not installed"
done
if [ -n "${SERIAL:-}" ]; then
    for c in /sys/class/nvme/nvme*; do
        [ "$(tr -d ' ' <"$c/serial" 2>/dev/null)" = "$SERIAL" ] && { DEV=/dev/${c##*/}n1; break; }
    done
    [ -n "${DEV:-}" ] || die "no controller with serial $SERIAL"
fi
if [ -z "${DEV:-}" ]; then
    for d in /dev/nvme0n1 /dev/nvme1n1; do [ -b "$d" ] && { DEV=$d; break; }; done
fi
[ -n "${DEV:-}" ] || die "no NVMe namespace (set DEV=)"
tut_dev
case $COUNTERS in c0|smart) ;; *) die "COUNTERS=$COUNTERS: c0 or smart" ;; esac

# cnt: "host gc trans programmed" since the device started (smart:
# programmed = host, trans = 0: FEMU counts no other page)
cnt() {
    local f
    if [ "$COUNTERS" = smart ]; then
        f=$(femu_log_page "$CTRL" 0x02 512 216) || return 1
        set -- $(od -An -v -t u8 -j 200 -N 16 "$f")
        echo "$1 $2 0 $1"
    else
        f=$(femu_log_page "$CTRL" 0xc0 512 120) || return 1
        # host written (8), GC moved (16), programmed (24), translation
        # pages programmed (72)
        set -- $(od -An -v -t u8 -j 8 -N 112 "$f")
        echo "$1 $2 $9 $3"
    fi
    rm -f "$f"
}
# totals of the model counters, for the log
totals() {
    local f
    if [ "$COUNTERS" = smart ]; then
        f=$(femu_log_page "$CTRL" 0x02 512 216) || return 1
        echo "smart waf_x1000=$(od -An -t u4 -j 192 -N 4 "$f" | tr -d ' ')" \
            "host=$(od -An -t u8 -j 200 -N 8 "$f" | tr -d ' ')" \
            "gc=$(od -An -t u8 -j 208 -N 8 "$f" | tr -d ' ')"
    else
        f=$(femu_log_page "$CTRL" 0xc0 512 120) || return 1
        od -An -v -t u8 -j 48 -N 72 "$f" | awk '{ for (i = 1; i <= NF; i++) q[n++] = $i }
            END { printf "c0 hits=%s misses=%s trans_read=%s trans_prog=%s map_hits=%s map_misses=%s switch=%s partial=%s full=%s\n",
                  q[0], q[1], q[2], q[3], q[4], q[5], q[6], q[7], q[8] }'
    fi
    rm -f "$f"
}
ctl() {
    nvme admin-passthru "$CTRL" --opcode=0xef --cdw10="$1" >/dev/null 2>&1 ||
        die "0xEF code $1 failed on $CTRL"
}
phase_cnt() { # phase_cnt NAME BEFORE...: the counter line of a phase
    local nm=$1 a
    shift
    a=($(cnt)) || die "reading the counters failed"
    awk -v nm="$nm" -v h=$(( a[0] - $1 )) -v g=$(( a[1] - $2 )) -v t=$(( a[2] - $3 )) \
        -v p=$(( a[3] - $4 )) 'BEGIN {
        printf "counters phase=%s host=%d gc=%d trans=%d programmed=%d waf=%.3f\n", nm, h, g, t, p,
            (h > 0 ? (p + g + t) / h : 1) }'
}
qd1() { # qd1 NAME FIO-ARGS...: a QD1 job of IOS I/Os, its clat summary
    local nm=$1 out
    shift
    out=$(fio --name="$nm" --filename="$DEV" --direct=1 --ioengine=psync \
        --bs=4k --size=$(( NS_BYTES / 4096 * 4096 )) --number_ios="$IOS" --norandommap \
        --randseed="$SEED" --output-format=json "$@") || die "fio failed in phase $nm"
    python3 -c '
import json, sys
j = json.loads(sys.stdin.read())["jobs"][0]
d = j["read"] if j["read"]["total_ios"] else j["write"]
c = d["clat_ns"]; p = c.get("percentile", {})
us = lambda v: "%.1f" % (v / 1000.0)
print("lat phase=%s n=%d mean_us=%s p50_us=%s p99_us=%s max_us=%s" % (
    sys.argv[1], d["total_ios"], us(c["mean"]), us(p.get("50.000000", 0)),
    us(p.get("99.000000", 0)), us(c["max"])))
' "$nm" <<<"$out" || die "cannot parse fio output of phase $nm"
}
bulk() { # bulk NAME BYTES FIO-ARGS...
    local nm=$1 bytes=$2
    shift 2
    fio --name="$nm" --filename="$DEV" --direct=1 --ioengine=libaio \
        --iodepth="$IODEPTH" --size=$(( NS_BYTES / 4096 * 4096 )) --io_size="$bytes" \
        --eta=never --output=/dev/null "$@" || die "fio failed in phase $nm"
}

echo "models-run: serial=${SERIAL:--} dev=$DEV ns_bytes=$NS_BYTES counters=$COUNTERS ios=$IOS warm=$WARM write=$WRITE iodepth=$IODEPTH seed=$SEED"
t0=$(date +%s)
[ "$FILL_FAST" = 1 ] && ctl 4
b=($(cnt))
bulk fill $(( NS_BYTES / 131072 * 131072 )) --rw=write --bs=128k
phase_cnt fill "${b[@]}"
[ "$FILL_FAST" = 1 ] && ctl 3
w=$(size "$WARM")
[ "$w" -gt 0 ] && bulk warm $(( w / 4096 * 4096 )) --rw=randread --bs=4k --norandommap --randseed=$(( SEED + 7 ))
qd1 read --rw=randread
b=($(cnt))
qd1 write --rw=randwrite
phase_cnt write "${b[@]}"
w=$(size "$WRITE")
if [ "$w" -gt 0 ]; then
    ctl 2
    ctl 4
    b=($(cnt))
    bulk age $(( w / 4096 * 4096 )) --rw=randwrite --bs=4k --randrepeat=0 --randseed=$(( SEED + 1 ))
    phase_cnt age "${b[@]}"
fi
totals
echo "models-run: done in $(( $(date +%s) - t0 )) s"
