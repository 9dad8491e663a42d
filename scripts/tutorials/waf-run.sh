#!/bin/bash
# waf-run.sh: tutorial 02's write-amplification run, inside a guest with a
# FEMU BlackBox SSD (a real guest or the embedded one of scripts/femu-run).
#
#   1. fill    the whole namespace with FILL_BS sequential writes
#   2. age     AGE bytes of BS random writes (the SSD reaches steady state)
#   3. measure MEASURE bytes of the same random writes
#
# It reads log page C0h (FEMU's FTL counters) before and after every phase
# and prints the differences, so the WAF of "measure" is the steady-state
# WAF of the workload, whatever the device did before.  WAF x1000 of a
# phase = (host pages programmed + GC pages moved) * 1000 / host pages
# written, integer division, like C0h's own WAF field.
#
# WARNING: it overwrites the whole namespace.
#
# Settings (environment variables, or NAME=VALUE arguments):
#   DEV=/dev/nvme0n1   namespace (default: the first FEMU BlackBox
#                      controller's namespace 1)
#   FILL_BS=128k       block size of the sequential fill ("0": no fill)
#   AGE=4g MEASURE=4g  bytes of random writes of the two phases (fio units:
#                      k, m, g; or "Nx": N times the namespace, e.g. 2.5x),
#                      rounded down to whole BS writes
#   BS=4k              block size of the random writes
#   ZIPF=              empty: uniform; a theta such as 1.2: fio's
#                      random_distribution=zipf:THETA:0 (THETA:CENTER to
#                      choose another fixed center; see below)
#   RANDOMMAP=off      off: independent uniform draws (fio --norandommap,
#                      like femu-sim's default); on: fio's random map (every
#                      block once per pass); the two give different WAFs
#   IODEPTH=32 ENGINE=libaio SEED=1   fio queue depth, engine, random seed
#   NODELAY=0          1: send 0xEF code 4 first (NAND times 0; page counts
#                      and so the WAF do not depend on timing, but the run
#                      is much faster); delays stay off afterwards
#   RESET=0            1: send 0xEF code 5 (reset the C0h counters) first
#   FORCE=0            1: run even if the namespace is mounted
#
# Output: one line per phase,
#   phase=NAME bytes=B seconds=S host_written=H gc_moved=G programmed=P waf_x1000=W
# then "C0h: ..." (totals since start) and "WAF(measure)=X.XXX".
# Exit status 0 on success, 1 on an error (message on stderr).
set -u

ME=waf-run
# shared helpers (scripts/tutorials/lib.sh): beside this script, or in the
# current directory
for _lib in "$(dirname "$0")/lib.sh" ./lib.sh; do [ -f "$_lib" ] && break; done
[ -f "$_lib" ] || { echo "$ME: lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
. "$_lib"
tut_args "$@"
FILL_BS=${FILL_BS:-128k} AGE=${AGE:-4g} MEASURE=${MEASURE:-4g} BS=${BS:-4k}
ZIPF=${ZIPF:-} RANDOMMAP=${RANDOMMAP:-off} IODEPTH=${IODEPTH:-32}
ENGINE=${ENGINE:-libaio} SEED=${SEED:-1} NODELAY=${NODELAY:-0}
RESET=${RESET:-0} FORCE=${FORCE:-0}

command -v fio >/dev/null || die "fio is not installed"
command -v nvme >/dev/null || die "nvme-cli is not installed"
tut_find_dev
tut_mount_guard
c0 >/dev/null || die "cannot read log page C0h of $CTRL (is it a FEMU BlackBox SSD?)"
[ "$NODELAY" = 1 ] && ctl 4
[ "$RESET" = 1 ] && ctl 5

dist=uniform
fio_rand=(--rw=randwrite --bs="$BS")
if [ -n "$ZIPF" ]; then
    # A fixed center (0), so the hot pages are the same in the age and the
    # measure phase. Without one fio draws the Zipf base at random from its
    # seed (the file name and --randseed): the measure phase (SEED+1) then
    # rewrites a shifted hot set, which the age phase did not prepare, and
    # the "steady-state" WAF depended on the device's path (scaled
    # tutorial device, fifo: 1.802 on one path, 4.812 on another).
    case $ZIPF in *:*) ;; *) ZIPF=$ZIPF:0 ;; esac
    dist=zipf:$ZIPF
    fio_rand+=(--random_distribution=zipf:"$ZIPF")
elif [ "$RANDOMMAP" = off ]; then
    fio_rand+=(--norandommap)
fi
echo "waf-run: dev=$DEV ns_bytes=$NS_BYTES fill_bs=$FILL_BS age=$AGE measure=$MEASURE bs=$BS dist=$dist randommap=$RANDOMMAP iodepth=$IODEPTH engine=$ENGINE seed=$SEED nodelay=$NODELAY"

LAST_WAF=""
phase() { # phase NAME BYTES SPAN FIO-ARGS...: BYTES of I/O over the first SPAN
    local nm=$1 bytes=$2 span=$3 b a t0 t1 dh dg dp w out wrote
    shift 3
    b=($(c0)) || die "reading C0h failed"
    out=$(mktemp) || die "mktemp failed"
    t0=$(date +%s.%N)
    fio --name="$nm" --filename="$DEV" --direct=1 --ioengine="$ENGINE" \
        --iodepth="$IODEPTH" --size="$span" --io_size="$bytes" \
        --group_reporting --eta=never --output-format=json --output="$out" "$@" ||
        { rm -f "$out"; die "fio failed in phase $nm"; }
    t1=$(date +%s.%N)
    # a phase is only meaningful if fio wrote all it was asked to
    wrote=$(awk '/"write" *:/ { w = 1 } w && /"io_bytes" *:/ { gsub(/[^0-9]/, "", $0); print; exit }' "$out")
    rm -f "$out"
    [ "$wrote" = "$bytes" ] || die "fio wrote ${wrote:-?} of $bytes bytes in phase $nm"
    a=($(c0)) || die "reading C0h failed"
    dh=$(( a[1] - b[1] )) dg=$(( a[2] - b[2] )) dp=$(( a[3] - b[3] ))
    w=1000
    [ "$dh" -gt 0 ] && w=$(( (dp + dg) * 1000 / dh ))
    printf 'phase=%s bytes=%s seconds=%.1f host_written=%s gc_moved=%s programmed=%s waf_x1000=%s\n' \
        "$nm" "$bytes" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" \
        "$dh" "$dg" "$dp" "$w"
    LAST_WAF=$w
}

if [ "$FILL_BS" != 0 ]; then
    # fio writes whole blocks only: a last partial FILL_BS is not written
    fb=$(size "$FILL_BS")
    phase fill $(( NS_BYTES / fb * fb )) "$NS_BYTES" --rw=write --bs="$FILL_BS"
fi
# The random phases span whole BS blocks only. fio sizes its Zipf generator
# in blocks rounded up, so a namespace that ends in a partial block (the
# scaled tutorial device: 13107.125 4 KiB blocks) lets a Zipf draw land on
# it; fio then ends the job early with status 0. Whether and when that
# happens depends on the device's path and on --randseed: fio seeds its
# Zipf generator from both (fio 3.39, scaled device, SEED=1: the age phase
# on /dev/nvme3n1 stopped after 1906 writes; nvme0n1-nvme9n1 otherwise ran
# whole).
bsb=$(size "$BS")
span=$(( NS_BYTES / bsb * bsb ))
[ "$span" -gt 0 ] || die "BS=$BS is larger than the namespace"
# Phase sizes in whole BS blocks, rounded down: fio rounds an io_size that
# is not a multiple of bs up (2x the scaled namespace: 107373568 bytes
# asked, 107376640 written), which the "wrote all" check would refuse, and
# femu-sim (scripts/tables/regen.sh) rounds down.
age=$(( $(size "$AGE") / bsb * bsb ))
# different seeds: the measured run is not a replay of the aging run
[ "$age" -gt 0 ] && phase age "$age" "$span" "${fio_rand[@]}" --randseed="$SEED"
meas=$(( $(size "$MEASURE") / bsb * bsb ))
[ "$meas" -gt 0 ] || die "MEASURE must be more than 0"
phase measure "$meas" "$span" "${fio_rand[@]}" --randseed=$(( SEED + 1 ))
echo "C0h: $(c0)"
printf 'WAF(measure)=%d.%03d\n' $(( LAST_WAF / 1000 )) $(( LAST_WAF % 1000 ))
