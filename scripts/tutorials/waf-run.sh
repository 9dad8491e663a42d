#!/bin/bash
# waf-run.sh: tutorial 02's write-amplification run.
# Usage: bash waf-run.sh [NAME=VALUE...] [extra fio options]
#
# Saved in a guest that has a FEMU BlackBox SSD as /dev/nvme0n1 and run as
# "bash waf-run.sh", it runs tutorial 02's published procedure, nothing
# more: 0xEF code 2 (GC takes no time) and code 4 (NAND times 0); fill the
# whole namespace with 128 KiB sequential writes; age it with 4 GiB of 4 KiB
# random writes; read log page C0h into before.txt; the same 4 GiB again;
# C0h into after.txt; then one line from the counter differences:
#   host H  gc G  nand N  WAF x.xxx
# Every argument that does not look like NAME=VALUE (an upper-case name)
# goes to both random fio runs as it is, e.g.
#   bash waf-run.sh --random_distribution=zipf:1.2
# fio's random map stays on (each pass writes every block once), and
# --randrepeat=0 gives each run fresh random offsets.
# It needs bash, fio, nvme-cli, od and awk (and sudo, or root), nothing
# else. WARNING: it overwrites the whole namespace.
#
# Options (NAME=VALUE arguments; none of them is needed for the tutorial):
#   DEV=/dev/nvme0n1  namespace; its controller is read and controlled
#   AGE=4G MEASURE=4G bytes of random writes of the aging and the measured
#                     run: fio sizes (k/m/g/t, powers of 1024) or Nx = N
#                     times the namespace (2x, 2.5x); rounded down to whole
#                     BS writes. Unset: fio gets --io_size=4G as published.
#   BS=4k             block size of the random writes
#   FILL_BS=128k      block size of the fill; 0 skips the fill
#   SPAN=whole        random writes over whole BS blocks only (--size=); a
#                     namespace that ends in a partial block otherwise lets
#                     fio's Zipf generator draw it and end the job early
#   ZIPF=THETA        --random_distribution=zipf:THETA:0 (a fixed center, so
#                     both runs overwrite the same hot pages; a bare
#                     --random_distribution=zipf:THETA draws a new center
#                     for each run); THETA:CENTER picks the center
#   NORANDOMMAP=1     fio --norandommap: independent draws instead of every
#                     block once per pass (a different WAF)
#   SEED=N            fio --randseed=N for the aging run, N+1 for the
#                     measured one (repeatable offsets)
#   IODEPTH=32 ENGINE=libaio   queue depth and engine of the random runs
#   NODELAY=1         0: do not send 0xEF codes 2 and 4 (keep GC and NAND
#                     time; page counts and so the WAF do not change)
#   RESET=1           send 0xEF code 5 (zero the counters) first
#   COUNTERS=c0       where the page counters come from: c0 = log page C0h
#                     (host pages at byte 8, GC pages at 16, pages
#                     programmed for the host at 24); smart = the SMART log
#                     (02h) bytes 200 (host pages) and 208 (GC pages), as
#                     FEMU upstream's BlackBox SSD reports them (nand =
#                     host pages there: it programs one page per page
#                     written)
#   PHASES=0|1        1: also one line per phase (fill, age, measure)
#                       phase=NAME bytes=B seconds=S host_written=H
#                       gc_moved=G programmed=P waf_x1000=W
#                     (W = (P + G) * 1000 / H, integer division), the
#                     totals after the run ("C0h: W H G P", W = the log's
#                     WAF x 1000; "SMART: W H G" with COUNTERS=smart) and
#                     "WAF(measure)=X.XXX"; it also checks that fio wrote
#                     all it was asked to. Default: 1 when any other
#                     NAME=VALUE option is given, else 0.
# -h, --help prints this text.
# Exit status 0 on success, 1 on an error (message on stderr).

ME=waf-run
die() { echo "$ME: $*" >&2; exit 1; }

DEV=/dev/nvme0n1 AGE= MEASURE= BS=4k FILL_BS=128k SPAN= ZIPF= NORANDOMMAP=0
SEED= IODEPTH=32 ENGINE=libaio NODELAY=1 RESET=0 COUNTERS=c0 PHASES=
EXTRAS=0
FIO=()
for a in "$@"; do
    case $a in
    -h|--help) sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    [A-Z]*=*)
        n=${a%%=*} v=${a#*=}
        case $n in
        DEV|AGE|MEASURE|BS|FILL_BS|SPAN|ZIPF|NORANDOMMAP|SEED|IODEPTH|ENGINE|NODELAY|RESET|COUNTERS|PHASES)
            printf -v "$n" '%s' "$v"; EXTRAS=1 ;;
        *) die "unknown option '$a' (see --help)" ;;
        esac ;;
    *) FIO+=("$a") ;;
    esac
done
[ -n "$PHASES" ] || PHASES=$EXTRAS
[ -b "$DEV" ] || die "$DEV is not a block device"
NAME=${DEV##*/}
CTRL=/dev/${NAME%n[0-9]*}
NS_BYTES=$(( $(cat "/sys/block/$NAME/size") * 512 ))
case $COUNTERS in c0|smart) ;; *) die "COUNTERS=$COUNTERS: c0 or smart" ;; esac

# size ARG: bytes of ARG (fio's binary suffixes, or Nx = N times the
# namespace, rounded down to whole bytes)
size() {
    local v=${1,,}
    case $v in
    *x) [[ ${v%x} =~ ^[0-9]*\.?[0-9]+$ ]] || die "size '$1': want N times the namespace, e.g. 2x"
        awk -v f="${v%x}" -v n="$NS_BYTES" 'BEGIN { printf "%d\n", f * n }'; return ;;
    esac
    v=${v%ib}; v=${v%b}
    [[ $v =~ ^[0-9]+[kmgt]?$ ]] || die "size '$1': want bytes, a k/m/g/t suffix, or Nx"
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
ctl() {
    sudo nvme admin-passthru "$CTRL" --opcode=0xef --cdw10="$1" >/dev/null ||
        die "0xEF code $1 failed on $CTRL"
}

if [ "$NODELAY" = 1 ]; then ctl 2; ctl 4; fi
[ "$RESET" = 1 ] && ctl 5

bsb=$(size "$BS")
io_opt() { # --io_size for the published 4G or the AGE/MEASURE given
    if [ -z "$1" ]; then echo --io_size=4G; else echo --io_size=$(( $(size "$1") / bsb * bsb )); fi
}
RAND=(--rw=randwrite --bs="$BS" --iodepth="$IODEPTH")
[ "$SPAN" = whole ] && RAND+=(--size=$(( NS_BYTES / bsb * bsb )))
[ -n "$SPAN" ] && [ "$SPAN" != whole ] && die "SPAN=$SPAN: only SPAN=whole"
if [ -n "$ZIPF" ]; then
    case $ZIPF in *:*) ;; *) ZIPF=$ZIPF:0 ;; esac
    RAND+=(--random_distribution=zipf:"$ZIPF")
fi
[ "$NORANDOMMAP" = 1 ] && RAND+=(--norandommap)
AGESEED=() RUNSEED=()
[ -n "$SEED" ] && AGESEED=(--randseed="$SEED") RUNSEED=(--randseed=$(( SEED + 1 )))

# run NAME FIO-ARGS...: one fio job on DEV; with PHASES=1 also its phase line
run() {
    local nm=$1 b a t0 t1 out want wrote
    shift
    if [ "$PHASES" != 1 ]; then
        sudo fio --name="$nm" --filename="$DEV" --direct=1 --ioengine="$ENGINE" "$@" >/dev/null ||
            die "fio failed in the $nm run"
        return
    fi
    b=($(c0)) || die "reading the counters failed"
    out=$(mktemp) || die "mktemp failed"
    t0=$(date +%s.%N)
    sudo fio --name="$nm" --filename="$DEV" --direct=1 --ioengine="$ENGINE" "$@" \
        --output-format=json --output="$out" --eta=never || { rm -f "$out"; die "fio failed in the $nm run"; }
    t1=$(date +%s.%N)
    wrote=$(awk '/"write" *:/ { w = 1 } w && /"io_bytes" *:/ { gsub(/[^0-9]/, "", $0); print; exit }' "$out")
    rm -f "$out"
    a=($(c0)) || die "reading the counters failed"
    # a phase is only meaningful if fio wrote all it was asked to
    want=$(printf '%s\n' "$@" | sed -n 's/^--io_size=//p' | tail -1)
    [ -z "$want" ] || [ "$wrote" = "$(size "$want")" ] ||
        die "fio wrote ${wrote:-?} of $want bytes in the $nm run"
    awk -v nm="$nm" -v by="$wrote" -v t0="$t0" -v t1="$t1" \
        -v h=$(( a[0] - b[0] )) -v g=$(( a[1] - b[1] )) -v p=$(( a[2] - b[2] )) 'BEGIN {
        w = h > 0 ? int((p + g) * 1000 / h) : 1000
        printf "phase=%s bytes=%s seconds=%.1f host_written=%d gc_moved=%d programmed=%d waf_x1000=%d\n",
            nm, by, t1 - t0, h, g, p, w }'
}

# 1. fill the whole namespace once
[ "$FILL_BS" = 0 ] || run fill --rw=write --bs="$FILL_BS" --iodepth=16
# 2. age: random overwrites until GC is in a steady state
run age "${RAND[@]}" $(io_opt "$AGE") --randrepeat=0 "${AGESEED[@]}" "${FIO[@]}"
# 3. measure one run as the difference of two counter reads
c0 > before.txt || die "reading the counters failed"
out=$(run run "${RAND[@]}" $(io_opt "$MEASURE") --randrepeat=0 "${RUNSEED[@]}" "${FIO[@]}") || exit 1
c0 > after.txt || die "reading the counters failed"
if [ "$PHASES" = 1 ]; then
    echo "${out/phase=run /phase=measure }"
    # the totals since the device started, as the log page has them
    if [ "$COUNTERS" = smart ]; then
        echo SMART: $(sudo nvme get-log "$CTRL" --log-id=0x02 --log-len=512 -b | od -An -t u4 -j 192 -N 4) $(c0 | awk "{ print \$1, \$2 }")
    else
        echo C0h: $(sudo nvme get-log "$CTRL" --log-id=0xc0 --log-len=512 -b | od -An -t u4 -N 4) $(c0)
    fi
    paste before.txt after.txt | awk '{ h = $4 - $1; w = h > 0 ? int(($6 - $3 + $5 - $2) * 1000 / h) : 1000
        printf "WAF(measure)=%d.%03d\n", w / 1000, w % 1000 }'
fi
paste before.txt after.txt | awk '{ h = $4 - $1; g = $5 - $2; n = $6 - $3;
    printf "host %d  gc %d  nand %d  WAF %.3f\n", h, g, n, (n + g) / h }'
