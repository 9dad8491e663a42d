#!/bin/bash
# lat-run.sh: tutorial 05's latency run, inside a guest with a FEMU
# BlackBox SSD (a real guest or the embedded one of scripts/femu-run).
#
#   unwritten  QD1 4 KiB random reads of never-written pages (no NAND time)
#   fill       sequential fill of the namespace (128 KiB writes)
#   read       QD1 4 KiB random reads of written data   (~ pg_rd_lat)
#   write      QD1 4 KiB random writes, GC idle         (~ pg_wr_lat)
#   age        AGE bytes of random writes at IODEPTH (GC starts)
#   gc-write   QD1 4 KiB random writes with GC running, GC takes NAND time
#              (0xEF code 1): GC shows in the tail, not the median
#   gc-free    the same with GC taking no time (0xEF code 2)
#
# Latencies are fio's completion latencies (clat) in microseconds, from
# fio's JSON output.  At the end it prints log page C1h (how late the
# device posted completions against their emulated time).
#
# WARNING: it overwrites the whole namespace.
#
# Settings (environment variables, or NAME=VALUE arguments):
#   DEV=/dev/nvme0n1   namespace (default: the first FEMU BlackBox one)
#   IOS=2000           I/Os per QD1 phase
#   AGE=2x             bytes of aging writes (fio units, or Nx = N times
#                      the namespace; 0 skips age, gc-write and gc-free)
#   IODEPTH=32 ENGINE=libaio SEED=1
#   FORCE=0            1: run even if the namespace is mounted
#
# Output: one line per phase,
#   lat phase=NAME n=N mean_us=.. p50_us=.. p99_us=.. p999_us=.. max_us=..
# then "C1h: count=.. mean_ns=.. max_ns=.. p50_ns<=.. p99_ns<=.. p999_ns<=..".
set -u

# shared helpers (scripts/tutorials/lib.sh): beside this script, or in the
# current directory
. "$(dirname "$0")/lib.sh" 2>/dev/null || . ./lib.sh 2>/dev/null ||
    { echo "$(basename "$0" .sh): lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
tut_args "$@"
tut_defaults IOS=2000 AGE=2x IODEPTH=32 ENGINE=libaio SEED=1 FORCE=0

for t in fio nvme python3; do
    command -v $t >/dev/null || die "$t is not installed"
done
tut_find_dev
tut_mount_guard

# qd1 NAME FIO-ARGS...: a QD1 psync job of IOS I/Os, prints its clat summary
qd1() {
    local nm=$1 out
    shift
    out=$(fio --name="$nm" --filename="$DEV" --direct=1 --ioengine=psync \
        --bs=4k --size="$NS_BYTES" --number_ios="$IOS" --norandommap \
        --randseed="$SEED" --output-format=json "$@") || die "fio failed in phase $nm"
    python3 -c '
import json, sys
j = json.loads(sys.stdin.read())["jobs"][0]
d = j["read"] if j["read"]["total_ios"] else j["write"]
c = d["clat_ns"]; p = c.get("percentile", {})
us = lambda v: "%.1f" % (v / 1000.0)
print("lat phase=%s n=%d mean_us=%s p50_us=%s p99_us=%s p999_us=%s max_us=%s" % (
    sys.argv[1], d["total_ios"], us(c["mean"]), us(p.get("50.000000", 0)),
    us(p.get("99.000000", 0)), us(p.get("99.900000", 0)), us(c["max"])))
' "$nm" <<<"$out" || die "cannot parse fio output of phase $nm"
}

bulk() { # bulk NAME BYTES FIO-ARGS...
    local nm=$1 bytes=$2
    shift 2
    fio --name="$nm" --filename="$DEV" --direct=1 --ioengine="$ENGINE" \
        --iodepth="$IODEPTH" --size="$NS_BYTES" --io_size="$bytes" \
        --eta=never --output=/dev/null "$@" || die "fio failed in phase $nm"
}

echo "lat-run: dev=$DEV ns_bytes=$NS_BYTES ios=$IOS age=$AGE iodepth=$IODEPTH engine=$ENGINE seed=$SEED"
ctl 5                                   # counters and C1h start from zero
qd1 unwritten --rw=randread
bulk fill $(( NS_BYTES / 131072 * 131072 )) --rw=write --bs=128k
echo "fill done"
qd1 read --rw=randread
qd1 write --rw=randwrite
age=$(size "$AGE")
if [ "$age" -gt 0 ]; then
    bulk age "$age" --rw=randwrite --bs=4k --norandommap --randseed="$SEED"
    echo "age done"
    ctl 1
    qd1 gc-write --rw=randwrite --randseed=$(( SEED + 1 ))
    ctl 2
    qd1 gc-free --rw=randwrite --randseed=$(( SEED + 2 ))
    ctl 1                               # back to the default
fi
v=$(femu_c1 "$CTRL") || die "cannot read log page C1h"
# C1h's summary of the CQE histogram (docs/log-pages.md), ns
set -- $(tr ' ' '\n' <<<"$v" | awk -F= '/^cqe_(count|sum_ns|max_ns|p50_ns|p99_ns|p999_ns)=/ { print $2 }')
mean=0; [ "$1" -gt 0 ] && mean=$(( $2 / $1 ))
echo "C1h: count=$1 mean_ns=$mean max_ns=$3 p50_ns<=$4 p99_ns<=$5 p999_ns<=$6"
