#!/bin/bash
# fdp-run.sh: tutorial 04's workload on an FDP-enabled FEMU SSD, run inside
# the guest (a real one, or `scripts/femu-run ... --script fdp-run.sh`).
#
# A hot region (the first HOT percent of the namespace) is rewritten at
# random, a cold region (the rest) is rewritten sequentially, each by half
# of the 4 KiB writes.  With FDP=1 the hot writes carry placement id 0 and
# the cold writes placement id 1 (fio --fdp=1 --fdp_pli=N); with FDP=0 the
# same writes carry no directive, so both lifetimes share reclaim units.
# Phases as in tutorial 02: sequential fill (128 KiB), age (AGE bytes),
# measure (MEASURE bytes); the counters (log C0h, and FDP statistics 22h)
# are read before and after the measure phase and their differences
# printed.
#
# WARNING: it overwrites the whole namespace.
#
# Settings (environment variables, or NAME=VALUE arguments): FDP=0|1 (1),
# DEV=/dev/nvme0n1 (default: the first FEMU BlackBox controller's namespace
# 1; or give NG=/dev/ng0n1, the namespace's char device that fio's
# io_uring_cmd engine uses, and DEV follows from it), HOT=20 (percent),
# AGE=2g, MEASURE=2g (bytes: k/m/g suffixes, or Nx = N times the
# namespace), BS=4k, IODEPTH=8, FORCE=0 (1: run even if mounted).
# Needs lib.sh beside it (copy the whole scripts/tutorials/ directory).
# The device needs a femu-subsys with fdp=on and at least 2 handles, e.g.
#   -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=2
#   -device femu,nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,gc_thres_pcent=95,subsys=fdp0
# The simulator runs the same workload in well under a second:
#   build/femu-sim nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,gc_thres_pcent=95,fdp.nruh=2 \
#       --phase fill:seqfill --phase age:hotcold,size=2g[,hot_pid=0,cold_pid=1] \
#       --phase measure:hotcold,size=2g[,hot_pid=0,cold_pid=1]
set -euo pipefail
ME=fdp-run
# shared helpers (scripts/tutorials/lib.sh): beside this script, or in the
# current directory
for _lib in "$(dirname "$0")/lib.sh" ./lib.sh; do [ -f "$_lib" ] && break; done
[ -f "$_lib" ] || { echo "$ME: lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
. "$_lib"
tut_args "$@"
FDP=${FDP:-1} HOT=${HOT:-20} AGE=${AGE:-2g} MEASURE=${MEASURE:-2g} BS=${BS:-4k}
IODEPTH=${IODEPTH:-8}
for t in fio nvme python3; do
    command -v $t >/dev/null || die "$t is not installed"
done
# NG=/dev/ngXnY names the namespace /dev/nvmeXnY (older callers give NG
# and CTRL)
if [ -z "${DEV:-}" ] && [ -n "${NG:-}" ]; then DEV=/dev/nvme${NG#/dev/ng}; fi
tut_find_dev
tut_mount_guard
[ -c "$NG" ] || die "$NG (the namespace's char device) is missing: fio's io_uring_cmd engine needs it"

# FDP statistics 22h: "hbmw mbmw mbe" (low 64 bits of each 128-bit count)
fdpstats() {
    nvme get-log "$CTRL" --log-id=0x22 --lsi=1 --log-len=64 -b |
        python3 -c 'import sys,struct; d=struct.unpack_from("<6Q", sys.stdin.buffer.read()); print(d[0], d[2], d[4])'
}

bs=$(size "$BS")
units=$(( NS_BYTES / bs ))
hot_units=$(( units * HOT / 100 ))
hot_bytes=$(( hot_units * bs ))
cold_bytes=$(( (units - hot_units) * bs ))
nsbytes=$NS_BYTES

hotcold() {    # one hot/cold phase of $1 bytes
    local half=$(( $(size "$1") / 2 / bs * bs )) hotp="" coldp=""
    if [ "$FDP" = 1 ]; then
        hotp="--fdp=1 --fdp_pli=0"; coldp="--fdp=1 --fdp_pli=1"
    fi
    fio --ioengine=io_uring_cmd --cmd_type=nvme --filename="$NG" --bs="$bs" \
        --iodepth="$IODEPTH" --output=/dev/null --eta=never \
        --name=hot --rw=randwrite --norandommap --randrepeat=0 --offset=0 \
        --size="$hot_bytes" --io_size="$half" $hotp \
        --name=cold --rw=write --offset="$hot_bytes" --size="$cold_bytes" \
        --io_size="$half" $coldp
}

echo "fdp-run: FDP=$FDP namespace $nsbytes B, hot region $hot_bytes B (${HOT}%), cold $cold_bytes B, bs $bs, age $AGE, measure $MEASURE"
t0=$(date +%s)
fio --name=fill --ioengine=io_uring_cmd --cmd_type=nvme --filename="$NG" --rw=write \
    --bs=128k --iodepth=16 --size=100% --output=/dev/null --eta=never
c=$(c0) || die "cannot read log page C0h of $CTRL"
echo "fill done ($(( $(date +%s) - t0 )) s): C0h $c"
hotcold "$AGE"
c=$(c0) || die "cannot read log page C0h of $CTRL"
echo "age done ($(( $(date +%s) - t0 )) s): C0h $c"
read -r _ h0 g0 p0 <<<"$c"
read -r hb0 mb0 me0 <<<"$(fdpstats)"
hotcold "$MEASURE"
c=$(c0) || die "cannot read log page C0h of $CTRL"
read -r _ h1 g1 p1 <<<"$c"
read -r hb1 mb1 me1 <<<"$(fdpstats)"
dh=$(( h1 - h0 )) dg=$(( g1 - g0 )) dp=$(( p1 - p0 ))
waf=$(( dh ? (dp + dg) * 1000 / dh : 1000 ))
echo "measure done ($(( $(date +%s) - t0 )) s)"
echo "RESULT FDP=$FDP host_pages=$dh gc_pages=$dg programmed=$dp waf_x1000=$waf hbmw=$(( hb1 - hb0 )) mbmw=$(( mb1 - mb0 )) mbe=$(( me1 - me0 ))"
