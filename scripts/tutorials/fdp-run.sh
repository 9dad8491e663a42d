#!/bin/bash
# fdp-run.sh: tutorial 04's workload of two lifetimes, with or without
# Flexible Data Placement.
# Usage: FDP=0 bash fdp-run.sh, or FDP=1 bash fdp-run.sh [NAME=VALUE...]
#
# Saved in a guest whose /dev/nvme0 is tutorial 04's device
#   -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4
#   -device femu,femu_mode=1,devsz_mb=384,nchs=2,luns_per_ch=4,blks_per_pl=64,subsys=fdp0
# and run as above, it runs the tutorial's published procedure, nothing
# more: 0xEF code 2 (GC takes no time) and code 4 (NAND times 0); prefill
# 384 MiB sequentially; read log page C0h into before.txt; one fio run of
# two jobs, a hot 64 MiB region at offset 0 rewritten at random and a cold
# 320 MiB region at 64 MiB rewritten sequentially, 1 GiB each; C0h into
# after.txt; then the counter differences and the FDP statistics:
#   host H  gc G  nand N  WAF x.xxx
#   (nvme fdp stats /dev/nvme0 -e 1)
# Every write goes through fio's io_uring_cmd engine on /dev/ng0n1 in 4 KiB
# blocks at queue depth 8. FDP=1 (environment or argument; unset means 0)
# adds --fdp=1: the hot job writes through placement identifier index 0,
# the prefill and the cold job through index 1. fio's random map stays on.
# It needs bash, fio, nvme-cli, od and awk (and sudo, or root), nothing
# else. WARNING: it overwrites the namespace.
#
# Options (NAME=VALUE arguments; none of them is needed for the tutorial):
#   FDP=0|1           as the environment variable
#   NG=/dev/ng0n1     the namespace's generic (char) device fio writes to;
#                     DEV=/dev/nvmeXnY names it by its block device. The
#                     controller (CTRL=/dev/nvmeX) follows from it.
#   SIZE=384M         prefill size and the span of the two regions: fio
#                     sizes (k/m/g/t, powers of 1024), Nx = N times the
#                     namespace, or ns = the whole namespace; whole BS
#                     blocks
#   HOT=64M           the hot region at offset 0 (a size, or N% of SIZE);
#                     the cold region is the rest of SIZE
#   MEASURE=2G        bytes of the measured run, half per job (1 GiB each)
#   AGE=0             bytes of one more run of the same two jobs before the
#                     measured one (half per job); 0: none
#   FILL_BS=4k        block size of the prefill
#   BS=4k IODEPTH=8   block size and queue depth of every job
#   NORANDOMMAP=1     fio --norandommap for the hot job
#   SEED=N            fio --randseed=N for the aging run, N+1 for the
#                     measured one
#   NODELAY=1         0: do not send 0xEF codes 2 and 4
#   COUNTERS=c0       c0: log page C0h; smart: the SMART log (02h) bytes
#                     200 (host pages) and 208 (GC pages), as FEMU
#                     upstream reports them (nand = host pages there)
#   PHASES=0|1        1: also one line per run
#                       phase=NAME bytes=B seconds=S host_written=H
#                       gc_moved=G programmed=P waf_x1000=W
#                     and, after the FDP statistics, one line of the
#                     measured run's differences
#                       RESULT FDP=F host_pages=H gc_pages=G programmed=P
#                       waf_x1000=W hbmw=B mbmw=M mbe=E
#                     (the last three from FDP statistics log 22h, bytes).
#                     Default: 1 when any other NAME=VALUE option is given.
# -h, --help prints this text.
# Exit status 0 on success, 1 on an error (message on stderr).

ME=fdp-run
die() { echo "$ME: $*" >&2; exit 1; }

FDP=${FDP:-0}
NG= DEV= SIZE= HOT= MEASURE= AGE=0 FILL_BS= BS=4k IODEPTH=8 NORANDOMMAP=0
SEED= NODELAY=1 COUNTERS=c0 PHASES=
EXTRAS=0
for a in "$@"; do
    case $a in
    -h|--help) sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    FDP=*) FDP=${a#*=} ;;
    [A-Z]*=*)
        n=${a%%=*} v=${a#*=}
        case $n in
        NG|DEV|SIZE|HOT|MEASURE|AGE|FILL_BS|BS|IODEPTH|NORANDOMMAP|SEED|NODELAY|COUNTERS|PHASES)
            printf -v "$n" '%s' "$v"; EXTRAS=1 ;;
        *) die "unknown option '$a' (see --help)" ;;
        esac ;;
    *) die "unknown argument '$a' (options are NAME=VALUE; see --help)" ;;
    esac
done
[ -n "$PHASES" ] || PHASES=$EXTRAS
case $FDP in 0|1) ;; *) die "FDP=$FDP: 0 or 1" ;; esac
case $COUNTERS in c0|smart) ;; *) die "COUNTERS=$COUNTERS: c0 or smart" ;; esac
if [ -z "$NG" ]; then
    if [ -n "$DEV" ]; then NG=/dev/ng${DEV#/dev/nvme}; else NG=/dev/ng0n1; fi
fi
[ -c "$NG" ] || die "$NG is not the namespace's generic device (fio's io_uring_cmd engine needs it)"
NAME=nvme${NG#/dev/ng}
CTRL=/dev/${NAME%n[0-9]*}
NS_BYTES=$(( $(cat "/sys/block/$NAME/size") * 512 ))

# size ARG: bytes of ARG (fio's binary suffixes, Nx = N times the namespace)
size() {
    local v=${1,,}
    case $v in
    ns) echo "$NS_BYTES"; return ;;
    *x) [[ ${v%x} =~ ^[0-9]*\.?[0-9]+$ ]] || die "size '$1': want N times the namespace, e.g. 2x"
        awk -v f="${v%x}" -v n="$NS_BYTES" 'BEGIN { printf "%d\n", f * n }'; return ;;
    esac
    v=${v%ib}; v=${v%b}
    [[ $v =~ ^[0-9]+[kmgt]?$ ]] || die "size '$1': want bytes, a k/m/g/t suffix, Nx or ns"
    case $v in
    *k) echo $(( ${v%k} << 10 )) ;;
    *m) echo $(( ${v%m} << 20 )) ;;
    *g) echo $(( ${v%g} << 30 )) ;;
    *t) echo $(( ${v%t} << 40 )) ;;
    *) echo $(( v )) ;;
    esac
}
# the page counters: "host_written gc_moved programmed"
c0() {
    if [ "$COUNTERS" = smart ]; then
        sudo nvme get-log "$CTRL" --log-id=0x02 --log-len=512 -b |
            od -An -t u8 -j 200 -N 16 -w16 | awk '{ print $1, $2, $1 }'
    else
        sudo nvme get-log "$CTRL" --log-id=0xc0 --log-len=512 -b |
            od -An -t u8 -j 8 -N 24 -w24
    fi
}
# FDP statistics (log 22h, endurance group 1): "HBMW MBMW MBE" (low 64 bits)
fdpstats() {
    sudo nvme get-log "$CTRL" --log-id=0x22 --lsi=1 --log-len=64 -b |
        od -An -t u8 -N 48 -w48 | awk '{ print $1, $3, $5 }'
}
ctl() {
    sudo nvme admin-passthru "$CTRL" --opcode=0xef --cdw10="$1" >/dev/null ||
        die "0xEF code $1 failed on $CTRL"
}

if [ "$NODELAY" = 1 ]; then ctl 2; ctl 4; fi
P= H= C=
if [ "$FDP" = 1 ]; then P=--fdp=1 H=--fdp_pli=0 C=--fdp_pli=1; fi
J="--filename=$NG --ioengine=io_uring_cmd --cmd_type=nvme --bs=$BS --iodepth=$IODEPTH $P"

# the published sizes, unless an option changes them
PRE=--size=384M HOTR="--offset=0 --size=64M" COLDR="--offset=64M --size=320M"
IO=--io_size=1G
bsb=$(size "$BS")
if [ -n "$SIZE" ] || [ -n "$HOT" ]; then
    units=$(( $(size "${SIZE:-384M}") / bsb ))
    case ${HOT:-64M} in
    *%) hu=$(( units * ${HOT%\%} / 100 )) ;;
    *) hu=$(( $(size "${HOT:-64M}") / bsb )) ;;
    esac
    [ "$hu" -gt 0 ] && [ "$hu" -lt "$units" ] || die "HOT=$HOT: the hot region must be inside SIZE"
    PRE=--size=$(( units * bsb ))
    HOTR="--offset=0 --size=$(( hu * bsb ))"
    COLDR="--offset=$(( hu * bsb )) --size=$(( (units - hu) * bsb ))"
fi
[ -n "$MEASURE" ] && IO=--io_size=$(( $(size "$MEASURE") / 2 / bsb * bsb ))
AIO=--io_size=$(( $(size "$AGE") / 2 / bsb * bsb ))
HRM=
[ "$NORANDOMMAP" = 1 ] && HRM=--norandommap
S1= S2=
[ -n "$SEED" ] && S1=--randseed=$SEED S2=--randseed=$(( SEED + 1 ))

# run NAME FIO-ARGS...: one fio run; with PHASES=1 also its phase line
run() {
    local nm=$1 b a t0 t1
    shift
    [ "$PHASES" = 1 ] && { b=($(c0)) || die "reading the counters failed"; t0=$(date +%s.%N); }
    sudo fio "$@" >/dev/null || die "fio failed in the $nm run"
    [ "$PHASES" = 1 ] || return 0
    t1=$(date +%s.%N)
    a=($(c0)) || die "reading the counters failed"
    awk -v nm="$nm" -v t0="$t0" -v t1="$t1" \
        -v h=$(( a[0] - b[0] )) -v g=$(( a[1] - b[1] )) -v p=$(( a[2] - b[2] )) 'BEGIN {
        w = h > 0 ? int((p + g) * 1000 / h) : 1000
        printf "phase=%s seconds=%.1f host_written=%d gc_moved=%d programmed=%d waf_x1000=%d\n",
            nm, t1 - t0, h, g, p, w }'
}
hotcold() { # NAME IO-SIZE-OPTION SEED-OPTION
    run "$1" $J --randrepeat=0 $3 \
        --name=hot $H --rw=randwrite $HOTR $2 $HRM \
        --name=cold $C --rw=write $COLDR $2
}

run prefill --name=prefill $J $C --rw=write $PRE ${FILL_BS:+--bs=$FILL_BS}
[ "$AIO" = --io_size=0 ] || hotcold age "$AIO" "$S1"
c0 > before.txt || die "reading the counters failed"
[ "$PHASES" = 1 ] && read -r hb0 mb0 me0 <<<"$(fdpstats)"
hotcold measure "$IO" "$S2"
c0 > after.txt || die "reading the counters failed"
paste before.txt after.txt | awk '{ h = $4 - $1; g = $5 - $2; n = $6 - $3;
    printf "host %d  gc %d  nand %d  WAF %.3f\n", h, g, n, (n + g) / h }'
sudo nvme fdp stats "$CTRL" -e 1
if [ "$PHASES" = 1 ]; then
    read -r hb1 mb1 me1 <<<"$(fdpstats)"
    paste before.txt after.txt | awk -v f="$FDP" -v hb=$(( hb1 - hb0 )) -v mb=$(( mb1 - mb0 )) \
        -v me=$(( me1 - me0 )) '{ h = $4 - $1; g = $5 - $2; n = $6 - $3
        w = h > 0 ? int((n + g) * 1000 / h) : 1000
        # bytes pass 2^31 (a 2 GiB run): %.0f, as awk %d stops there
        printf "RESULT FDP=%s host_pages=%d gc_pages=%d programmed=%d waf_x1000=%d hbmw=%.0f mbmw=%.0f mbe=%.0f\n",
            f, h, g, n, w, hb, mb, me }'
fi
