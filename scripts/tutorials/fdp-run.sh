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
# Environment: FDP=0|1 (1), CTRL=/dev/nvme0, NG=/dev/ng0n1 (the namespace's
# char device, used by fio's io_uring_cmd engine), HOT=20 (percent),
# AGE=2g, MEASURE=2g, BS=4k, IODEPTH=8.
# The device needs a femu-subsys with fdp=on and at least 2 handles, e.g.
#   -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=2
#   -device femu,nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,gc_thres_pcent=95,subsys=fdp0
# The simulator runs the same workload in well under a second:
#   build/femu-sim nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=25,gc_thres_pcent=95,fdp.nruh=2 \
#       --phase fill:seqfill --phase age:hotcold,size=2g[,hot_pid=0,cold_pid=1] \
#       --phase measure:hotcold,size=2g[,hot_pid=0,cold_pid=1]
set -euo pipefail
FDP=${FDP:-1} CTRL=${CTRL:-/dev/nvme0} NG=${NG:-/dev/ng0n1}
HOT=${HOT:-20} AGE=${AGE:-2g} MEASURE=${MEASURE:-2g} BS=${BS:-4k}
IODEPTH=${IODEPTH:-8}

bytes() {   # 2g / 128m / 4k / plain bytes -> bytes
    local v=${1,,}
    case $v in
    *g) echo $(( ${v%g} << 30 )) ;; *m) echo $(( ${v%m} << 20 )) ;;
    *k) echo $(( ${v%k} << 10 )) ;; *) echo "$v" ;;
    esac
}
# C0h: "waf_x1000 host_pages gc_pages programmed"
c0() {
    nvme get-log "$CTRL" --log-id=0xc0 --log-len=512 -b |
        python3 -c 'import sys,struct; print(*struct.unpack_from("<I4xQQQ", sys.stdin.buffer.read()))'
}
# FDP statistics 22h: "hbmw mbmw mbe" (low 64 bits of each 128-bit count)
fdpstats() {
    nvme get-log "$CTRL" --log-id=0x22 --lsi=1 --log-len=64 -b |
        python3 -c 'import sys,struct; d=struct.unpack_from("<6Q", sys.stdin.buffer.read()); print(d[0], d[2], d[4])'
}

bs=$(bytes "$BS")
blk=${NG#/dev/ng}; blk=/dev/nvme${blk}
nsbytes=$(( $(cat /sys/block/${blk#/dev/}/size) * 512 ))
units=$(( nsbytes / bs ))
hot_units=$(( units * HOT / 100 ))
hot_bytes=$(( hot_units * bs ))
cold_bytes=$(( (units - hot_units) * bs ))

hotcold() {    # one hot/cold phase of $1 bytes
    local half=$(( $(bytes "$1") / 2 / bs * bs )) hotp="" coldp=""
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
echo "fill done ($(( $(date +%s) - t0 )) s): C0h $(c0)"
hotcold "$AGE"
echo "age done ($(( $(date +%s) - t0 )) s): C0h $(c0)"
read -r _ h0 g0 p0 <<<"$(c0)"
read -r hb0 mb0 me0 <<<"$(fdpstats)"
hotcold "$MEASURE"
read -r _ h1 g1 p1 <<<"$(c0)"
read -r hb1 mb1 me1 <<<"$(fdpstats)"
dh=$(( h1 - h0 )) dg=$(( g1 - g0 )) dp=$(( p1 - p0 ))
waf=$(( dh ? (dp + dg) * 1000 / dh : 1000 ))
echo "measure done ($(( $(date +%s) - t0 )) s)"
echo "RESULT FDP=$FDP host_pages=$dh gc_pages=$dg programmed=$dp waf_x1000=$waf hbmw=$(( hb1 - hb0 )) mbmw=$(( mb1 - mb0 )) mbe=$(( me1 - me0 ))"
