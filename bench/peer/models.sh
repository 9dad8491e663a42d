#!/bin/bash
# bench/peer/models.sh: the FTL models (mapping schemes, DFTL's mapping
# cache, the read cache and its eviction policies, the NAND cell types) on
# FEMU upstream (the peer) and on this project's device, one QEMU at a
# time, with the same guest script (scripts/tutorials/models-run.sh) and
# the same properties; see bench/peer/README.md (also how to build the
# peer; this script never builds it).
#
# Usage: bench/peer/models.sh [OPTIONS] [CELL...]
#   --peer PATH     FEMU upstream's qemu-system-x86_64 (default $FEMU_PEER_QEMU)
#   --ours PATH     this project's (default build-femu/qemu-system-x86_64)
#   --only peer|ours  run one side only
#   --raw FILE      append every run's output there (the raw results the
#                   tables are made from; default a temporary file)
#   --timeout SEC   per run (default 1800)
#   --nice N        niceness of each QEMU (default 5)
#   --extra ARGS    models-run.sh arguments added after each cell's (e.g.
#                   "WARM=0": the reads do not change a page counter, so
#                   the WAF of a cell without a cache stays comparable)
#   --list          print the cells and exit
#   --table FILE    print the Markdown table of a raw results file and exit
# CELL: names from --list (default all).
# Exit status 1 if a run failed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ME=models
die() { echo "$ME: $*" >&2; exit 1; }

PEER=${FEMU_PEER_QEMU:-} OURS=$ROOT/build-femu/qemu-system-x86_64
ONLY="" RAW="" TIMEOUT=1800 LIST=0 NICE=5 TABLE="" EXTRA=""
CELLS=()
while [ $# -gt 0 ]; do
    case $1 in
    --peer) PEER=$2; shift 2 ;;
    --ours) OURS=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --raw) RAW=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --nice) NICE=$2; shift 2 ;;
    --extra) EXTRA=$2; shift 2 ;;
    --list) LIST=1; shift ;;
    --table) TABLE=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option $1" ;;
    *) CELLS+=("$1"); shift ;;
    esac
done

# small: 64 MiB of NAND, 64 lines of 1 MiB, 256 blocks of 64 pages, a
# namespace of 51.2 MiB (13107 pages, 205 logical blocks of 64 pages);
# large: tutorial 02's device (2 GiB of NAND, a 1.6 GiB namespace), where
# a 1 MiB mapping cache holds part of the map on both sides
SMALL=nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,op_pcent=25
LARGE=nchs=4,luns_per_ch=4,blks_per_pl=128,pgs_per_blk=256,op_pcent=25
MARGS="IOS=500 WARM=1x WRITE=2x"        # mapping schemes: the WAF matters
OARGS="IOS=300 WARM=0.5x WRITE=0.25x"  # caches and cell types: latency
LARGS="IOS=500 WARM=64m WRITE=0.25x FILL_FAST=1"
# Cells run in groups: one boot per group and side, one device per cell,
# so a group costs one guest boot instead of one per cell. Both devices
# name their controllers vSSD0, vSSD1, ... in the order of the -device
# options (FEMU upstream ignores the serial property), and
# models-run.sh SERIAL=vSSDi finds cell i of the group.
# name|group|geometry|properties|models-run.sh arguments
ALL=(
    "page|map|$SMALL|mapping=page|$MARGS"
    "dftl|map|$SMALL|mapping=dftl,mapping_cache_mb=1|$MARGS"
    "hybrid|map|$SMALL|mapping=hybrid|$MARGS"
    "fast|map|$SMALL|mapping=fast|$MARGS"
)
for mb in 4 16 32; do
    ALL+=("rc-clock-$mb|rc|$SMALL|read_cache_mb=$mb,cache_evict=clock|$OARGS")
done
for p in random lru arc; do
    ALL+=("rc-$p-16|rc|$SMALL|read_cache_mb=16,cache_evict=$p|$OARGS")
done
for t in 1 2 3 4; do
    ALL+=("cell$t|cell|$SMALL|nand_cell_type=$t|$OARGS")
done
for mb in 1 4; do
    ALL+=("dftl-large-$mb|dftl|$LARGE|mapping=dftl,mapping_cache_mb=$mb|$LARGS")
done

# table RAW: one row per cell from the raw results
table() {
    awk '
    function f(k,   i, n, a) { n = split(line, a, " ")
        for (i = 1; i <= n; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2)
        return "" }
    /^### cell=/ { line = $0; cell = f("cell"); side = f("side"); props[cell] = f("props")
        if (!(cell in seen)) { seen[cell] = 1; order[n++] = cell } next }
    /^### end cell=/ { line = $0; rc[cell, side] = f("rc"); next }
    /^lat phase=(read|write) / { line = $0; ph = f("phase")
        lat[cell, side, ph] = f("mean_us") " / " f("p50_us") " / " f("p99_us"); next }
    /^counters phase=age / { line = $0; waf[cell, side] = f("waf"); next }
    /^c0 / { line = $0; h = f("hits"); m = f("misses"); mh = f("map_hits"); mm = f("map_misses")
        x = ""
        if (h + m > 0) x = sprintf("read cache hits %.3f", h / (h + m))
        if (mh + mm > 0) x = sprintf("map hits %.3f, trans read %s prog %s", mh / (mh + mm), f("trans_read"), f("trans_prog"))
        if (f("switch") + f("partial") + f("full") > 0) x = sprintf("merges %s/%s/%s", f("switch"), f("partial"), f("full"))
        extra[cell] = x; next }
    function v(c, s, k) { return ((c, s, k) in lat) ? lat[c, s, k] : ((rc[c, s] == "" ) ? "-" : "fail") }
    function w(c, s) { return ((c, s) in waf) ? waf[c, s] : ((rc[c, s] == "") ? "-" : "fail") }
    function r(a, b) { return (a + 0 > 0 && b + 0 > 0) ? sprintf("%.3f", b / a) : "-" }
    END {
        print "| cell | properties | WAF FEMU | WAF this | ratio | QD1 read mean / p50 / p99 us, FEMU | this | QD1 write mean / p50 / p99 us, FEMU | this | this project'"'"'s model counters |"
        print "|---|---|---|---|---|---|---|---|---|---|"
        for (i = 0; i < n; i++) { c = order[i]
            printf "| %s | `%s` | %s | %s | %s | %s | %s | %s | %s | %s |\n", c, props[c],
                w(c, "peer"), w(c, "ours"), r(w(c, "peer"), w(c, "ours")),
                v(c, "peer", "read"), v(c, "ours", "read"), v(c, "peer", "write"), v(c, "ours", "write"), extra[c] }
    }' "$1"
}
if [ -n "$TABLE" ]; then
    [ -f "$TABLE" ] || die "no file $TABLE"
    table "$TABLE"
    exit 0
fi
if [ $LIST = 1 ]; then
    printf '%s\n' "${ALL[@]}" | awk -F'|' '{ printf "%-13s %-5s %-64s %-36s %s\n", $1, $2, $3, $4, $5 }'
    exit 0
fi
[ ${#CELLS[@]} -gt 0 ] || CELLS=($(printf '%s\n' "${ALL[@]}" | cut -d'|' -f1))
case $ONLY in ""|peer|ours) ;; *) die "--only peer or ours" ;; esac
if [ "$ONLY" != ours ]; then
    [ -n "$PEER" ] || die "no peer QEMU: --peer PATH or FEMU_PEER_QEMU (bench/peer/README.md says how to build it)"
    [ -x "$PEER" ] || die "$PEER is not executable"
fi
if [ "$ONLY" != peer ]; then
    [ -x "$OURS" ] || die "$OURS is not built (make qemu)"
fi
if [ -z "$RAW" ]; then RAW=$(mktemp); trap 'rm -f "$RAW"' EXIT; fi
touch "$RAW" || die "cannot write $RAW"
RUNNER=$ROOT/scripts/femu-run
SCRIPT=$ROOT/scripts/tutorials/models-run.sh LIB=$ROOT/scripts/tutorials/lib.sh

# group SIDE QEMU CELL...: one boot with a device per cell; models-run.sh
# on each in turn; the output appended to RAW
group() {
    local side=$1 qemu=$2 counters=c0 log t0 rc c line name grp geom props args cmd
    shift 2
    [ "$side" = peer ] && counters=smart
    local dev=() shown=()
    local i=0
    cmd="rc=0"
    for c in "$@"; do
        line=$(printf '%s\n' "${ALL[@]}" | awk -F'|' -v c="$c" '$1 == c')
        IFS='|' read -r name grp geom props args <<<"$line"
        args="$args${EXTRA:+ $EXTRA}"
        dev+=(-device "femu,femu_mode=1,$geom,$props")
        cmd+="; echo '### cell=$name side=$side props=$props geometry=$geom args=$args'"
        cmd+="; bash models-run.sh SERIAL=vSSD$i COUNTERS=$counters $args; echo \"### end cell=$name side=$side rc=\$?\""
        i=$((i + 1))
    done
    log=$(mktemp)
    t0=$(date +%s)
    nice -n "$NICE" "$RUNNER" --qemu "$qemu" --timeout "$TIMEOUT" --append no_timer_check \
        "${dev[@]}" --file "$LIB" --file "$SCRIPT" -c "$cmd" >"$log" 2>&1
    rc=$?
    {
        echo "### boot side=$side cells=$* start=$(date -u -d @"$t0" +%FT%TZ)"
        echo "\$ scripts/femu-run --qemu ${qemu/#$ROOT\//} ${dev[*]} --file scripts/tutorials/lib.sh --file scripts/tutorials/models-run.sh -c \"$cmd\""
        cat "$log"
        echo "### boot end side=$side rc=$rc wall=$(( $(date +%s) - t0 ))"
    } >>"$RAW"
    rm -f "$log"
    return $rc
}

{
    echo "# $(date -u +%FT%TZ) bench/peer/models.sh ${CELLS[*]}"
    echo "# peer: ${PEER:--}"
    echo "# ours: $OURS (built $(date -u -r "$OURS" +%FT%TZ 2>/dev/null || echo '?'); repository at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
    echo "# host: $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
} >>"$RAW"
FAILED=0
for c in "${CELLS[@]}"; do
    printf '%s\n' "${ALL[@]}" | awk -F'|' -v c="$c" '$1 == c' | grep -q . || die "unknown cell '$c' (see --list)"
done
# the groups of the cells asked for, in order
for g in $(printf '%s\n' "${ALL[@]}" | cut -d'|' -f2 | awk '!s[$0]++'); do
    gc=()
    for c in "${CELLS[@]}"; do
        [ "$(printf '%s\n' "${ALL[@]}" | awk -F'|' -v c="$c" '$1 == c { print $2 }')" = "$g" ] && gc+=("$c")
    done
    [ ${#gc[@]} -gt 0 ] || continue
    if [ "$ONLY" != ours ]; then group peer "$PEER" "${gc[@]}" || FAILED=1; fi
    if [ "$ONLY" != peer ]; then group ours "$OURS" "${gc[@]}" || FAILED=1; fi
    echo "group $g (${gc[*]}): done" >&2
done
echo "# $(date -u +%FT%TZ) done, load $(cut -d' ' -f1-3 /proc/loadavg)" >>"$RAW"
table "$RAW"
echo
echo "Raw results: $RAW"
exit $FAILED
