#!/bin/bash
# bench/peer/run.sh: tutorial 02's WAF cells on FEMU upstream (the peer) and
# on this project's device, with the same guest script and the same options,
# one QEMU at a time, and a side-by-side table. See bench/peer/README.md
# (it also says how to build the peer; this script never builds it).
#
# Usage: bench/peer/run.sh [OPTIONS] [CELL...] [-- WAF-RUN ARGS...]
#   --peer PATH     FEMU upstream's qemu-system-x86_64 (default $FEMU_PEER_QEMU)
#   --ours PATH     this project's (default build-femu/qemu-system-x86_64)
#   --geom G        geometry of every cell (default the scaled device
#                   nchs=2,luns_per_ch=2,blks_per_pl=128: 128 lines of 4 MiB)
#   --only peer|ours  run one side only (the other column shows "-")
#   --out DIR       keep every run's output there (default a temporary folder)
#   --timeout SEC   per run (default 3600)
#   --nice N        niceness of each QEMU (default 5; runs are one at a time)
#   --list          print the cells and exit
# CELL: names from --list (default: all tutorial-02 cells; fdp0 and fdp1,
# tutorial 04's fdp-run.sh with FDP=0 and FDP=1 on its own 384 MiB device,
# run only when named). Everything after "--" goes to
# scripts/tutorials/waf-run.sh on both sides (default for the scaled
# geometry: AGE=1G MEASURE=1G SPAN=whole, i.e. the published 4 GiB scaled
# with the NAND, 2 GiB -> 512 MiB; the full geometry gets none: the
# published procedure). The peer side adds COUNTERS=smart (FEMU upstream has
# no log page C0h: its page counters are in the SMART log).
# Output: one line per cell as it finishes, then the table
#   cell | device properties | waf-run args | FEMU WAF | this WAF | ratio
# (ratio = this / FEMU). Exit status 1 if a run failed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ME=peer
die() { echo "$ME: $*" >&2; exit 1; }

PEER=${FEMU_PEER_QEMU:-} OURS=$ROOT/build-femu/qemu-system-x86_64
GEOM=nchs=2,luns_per_ch=2,blks_per_pl=128 ONLY="" OUT="" TIMEOUT=3600 LIST=0 NICE=5
CELLS=() WARGS=() WSET=0
while [ $# -gt 0 ]; do
    case $1 in
    --peer) PEER=$2; shift 2 ;;
    --ours) OURS=$2; shift 2 ;;
    --geom) GEOM=$2; shift 2 ;;
    --only) ONLY=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --nice) NICE=$2; shift 2 ;;
    --list) LIST=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    --) shift; WARGS=("$@"); WSET=1; break ;;
    -*) die "unknown option $1" ;;
    *) CELLS+=("$1"); shift ;;
    esac
done

# name|device properties|waf-run arguments (besides WARGS)
ALL=(
    "thr75|op_pcent=25|"
    "thr90|op_pcent=25,gc_thres_pcent=90|"
    "thr95|op_pcent=25,gc_thres_pcent=95|"
    "greedy-zipf|op_pcent=25,gc_thres_pcent=95,gc_policy=greedy|--random_distribution=zipf:1.2"
)
for p in fifo random cost-benefit d-choice; do
    ALL+=("$p|op_pcent=25,gc_thres_pcent=95,gc_policy=$p|"
          "$p-zipf|op_pcent=25,gc_thres_pcent=95,gc_policy=$p|--random_distribution=zipf:1.2")
done
for op in 7 15 50 100; do
    ALL+=("op$op|op_pcent=$op,gc_thres_pcent=90|")
done
# FEMU upstream has no hot_cold_sep: these run on this project only
ALL+=("greedy-hc-zipf|op_pcent=25,gc_thres_pcent=95,hot_cold_sep=on|--random_distribution=zipf:1.2"
      "cb-hc-zipf|op_pcent=25,gc_thres_pcent=95,gc_policy=cost-benefit,hot_cold_sep=on|--random_distribution=zipf:1.2")
# tutorial 04: the published fdp-run.sh on the tutorial's device
# (--geom and the waf-run options do not apply)
FDPDEV=(-device femu-subsys,id=fdp0,fdp=on,fdp.nruh=4
        -device femu,femu_mode=1,devsz_mb=384,nchs=2,luns_per_ch=4,blks_per_pl=64,subsys=fdp0)
ALL+=("fdp0|(tutorial 04 device)|FDP=0" "fdp1|(tutorial 04 device)|FDP=1")

if [ $LIST = 1 ]; then
    printf '%s\n' "${ALL[@]}" | awk -F'|' '{ printf "%-16s %-60s %s\n", $1, $2, $3 }'
    exit 0
fi
if [ $WSET = 0 ] && [ "$GEOM" = nchs=2,luns_per_ch=2,blks_per_pl=128 ]; then
    WARGS=(AGE=1G MEASURE=1G SPAN=whole)
fi
[ ${#CELLS[@]} -gt 0 ] || CELLS=($(printf '%s\n' "${ALL[@]}" | cut -d'|' -f1 | grep -v '^fdp'))
case $ONLY in ""|peer|ours) ;; *) die "--only peer or ours" ;; esac
if [ "$ONLY" != ours ]; then
    [ -n "$PEER" ] || die "no peer QEMU: --peer PATH or FEMU_PEER_QEMU (bench/peer/README.md says how to build it)"
    [ -x "$PEER" ] || die "$PEER is not executable"
fi
if [ "$ONLY" != peer ]; then
    [ -x "$OURS" ] || die "$OURS is not built (make qemu)"
fi
if [ -z "$OUT" ]; then OUT=$(mktemp -d); trap 'rm -rf "$OUT"' EXIT; fi
mkdir -p "$OUT" || die "cannot create $OUT"
RUNNER=$ROOT/scripts/femu-run
WAFRUN=$ROOT/scripts/tutorials/waf-run.sh FDPRUN=$ROOT/scripts/tutorials/fdp-run.sh

# one NAME QEMU EXTRA PROPS ARGS...: boots QEMU with the cell's device, runs
# waf-run.sh (fdp-run.sh for the fdp cells); prints the WAF of the measured
# run, or "fail"
one() {
    local name=$1 qemu=$2 extra=$3 props=$4 log dev script=$WAFRUN
    shift 4
    log=$OUT/$name.log
    dev=(-device "femu,femu_mode=1,$GEOM,$props")
    case $name in fdp*) dev=("${FDPDEV[@]}") script=$FDPRUN ;; esac
    echo "\$ scripts/femu-run --qemu $qemu ${dev[*]} --script scripts/tutorials/${script##*/} $extra $*" >"$log"
    # shellcheck disable=SC2086
    nice -n "$NICE" "$RUNNER" --qemu "$qemu" --timeout "$TIMEOUT" --append no_timer_check \
        "${dev[@]}" --script "$script" $extra "$@" >>"$log" 2>&1
    local w
    w=$(awk '/^host [0-9]+  gc [0-9]+  nand [0-9]+  WAF / { w = $8 } END { print w }' "$log")
    # FEMU upstream's FDP path counts no SMART page counters (host 0: no
    # host line); its FDP statistics do (HBMW: host bytes; MBMW: host and
    # GC bytes). They count since the device started, so the measured
    # run's WAF is (MBMW - P) / (HBMW - P), P the published 384 MiB
    # prefill, which moves nothing on an empty device (a fully valid
    # reclaim unit is no GC victim on either side)
    case $name in fdp*)
        [ -n "$w" ] || w=$(awk -v p=$((384 << 20)) '/^Host Bytes with Metadata Written/ { h = $NF }
            /^Media Bytes with Metadata Written/ { m = $NF }
            END { if (h > p) printf "%.3f\n", (m - p) / (h - p) }' "$log") ;;
    esac
    echo "${w:-fail}"
}

echo "# $(date -u +%FT%TZ) geometry $GEOM; waf-run.sh ${WARGS[*]:-(published defaults)}"
echo "# peer: ${PEER:--}"
echo "# ours: $OURS (built $(date -u -r "$OURS" +%FT%TZ 2>/dev/null || echo '?'); repository at $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?'))"
ROWS=() FAILED=0
for c in "${CELLS[@]}"; do
    line=$(printf '%s\n' "${ALL[@]}" | awk -F'|' -v c="$c" '$1 == c') || true
    [ -n "$line" ] || die "unknown cell '$c' (see --list)"
    IFS='|' read -r name props args <<<"$line"
    pw=- ow=- wa=("${WARGS[@]}")
    case $name in fdp*) wa=() ;; esac
    if [ "$ONLY" != ours ]; then
        case $props in
        *hot_cold_sep*) pw="n/a" ;;
        *) pw=$(one "$name.peer" "$PEER" COUNTERS=smart "$props" "${wa[@]}" $args) ;;
        esac
    fi
    [ "$ONLY" = peer ] || ow=$(one "$name.ours" "$OURS" "" "$props" "${wa[@]}" $args)
    [ "$pw" = fail ] || [ "$ow" = fail ] && FAILED=1
    ratio=$(awk -v a="$pw" -v b="$ow" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", b / a; else print "-" }')
    echo "$name: FEMU $pw, this $ow, ratio $ratio" >&2
    ROWS+=("| $name | \`$props\` | \`${args:--}\` | $pw | $ow | $ratio |")
done
echo
echo "| cell | device properties | waf-run args | FEMU WAF | this WAF | ratio |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${ROWS[@]}"
echo
# the command of each kind of cell that ran
if printf '%s\n' "${CELLS[@]}" | grep -qv '^fdp'; then
    echo "Each cell: scripts/femu-run --qemu QEMU -device femu,femu_mode=1,$GEOM,PROPS --script scripts/tutorials/waf-run.sh [COUNTERS=smart on the peer] ${WARGS[*]} ARGS"
fi
if printf '%s\n' "${CELLS[@]}" | grep -q '^fdp'; then
    echo "Cells fdp0, fdp1: scripts/femu-run --qemu QEMU ${FDPDEV[*]} --script scripts/tutorials/fdp-run.sh [COUNTERS=smart on the peer] ARGS (FEMU's WAF from its FDP statistics)"
fi
echo "Logs: $OUT"
exit $FAILED
