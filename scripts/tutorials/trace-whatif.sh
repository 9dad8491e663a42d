#!/bin/bash
# trace-whatif.sh: tutorial 07's "what if" table, on the host: femu-sim
# --replay of one I/O trace (io_trace= of the femu device, or femu-sim
# --record) with the five victim policies at several spare factors.
#
#   scripts/tutorials/trace-whatif.sh TRACE [PLOT.svg|PLOT.png]
#
# First the trace as recorded (its own properties: the device's C0h), then
# one femu-sim run per policy and op_pcent (OPS, default "15 25 50"), each
# with --replay-offsets=scale: the trace's address space is scaled onto
# that namespace, so the workload covers the same share of every one and
# only the spare differs.  Prints a Markdown table of WAF (x1000 / 1000)
# and the seconds it took; with PLOT.svg and gnuplot, also a plot of WAF
# against op_pcent, one line per policy (PLOT.png: a PNG instead).
# Env: FEMU_SIM (default build/femu-sim beside this repository), OPS.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
SIM=${FEMU_SIM:-$root/build/femu-sim}
OPS=${OPS:-15 25 50}
POLICIES="greedy fifo random cost-benefit d-choice"
trace=${1:?usage: trace-whatif.sh TRACE [PLOT.svg]}
plot=${2:-}
[ -x "$SIM" ] || { echo "trace-whatif: $SIM not built (make sim)" >&2; exit 1; }

t0=$(date +%s.%N)
rec=$("$SIM" --replay="$trace") || exit 1
echo "$rec" | grep '^femu-sim:' | sed 's/^femu-sim: /recorded with: /'
echo "$rec" | grep -E '^(replay:|C0h)'
echo
# waf of one run: the total's waf_x1000
waf() {
    "$SIM" "$@" --json | sed -n 's/.*"total": {"waf_x1000": \([0-9]*\),.*/\1/p'
}
printf '| op_pcent |'; for p in $POLICIES; do printf ' %s |' "$p"; done; echo
printf '|---|'; for p in $POLICIES; do printf -- '---|'; done; echo
data=$(mktemp)
trap 'rm -f "$data"' EXIT
for op in $OPS; do
    printf '| %s |' "$op"
    printf '%s' "$op" >>"$data"
    for p in $POLICIES; do
        w=$(waf "gc_policy=$p,op_pcent=$op" --replay="$trace" --replay-offsets=scale)
        [ -n "$w" ] || { echo; echo "trace-whatif: femu-sim failed for $p, op_pcent=$op" >&2; exit 1; }
        printf ' %d.%03d |' $((w / 1000)) $((w % 1000))
        printf ' %d.%03d' $((w / 1000)) $((w % 1000)) >>"$data"
    done
    echo
    echo >>"$data"
done
t1=$(date +%s.%N)
echo
echo "$(echo "$OPS" | wc -w) x 5 replays and the recorded one in $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
if [ -n "$plot" ]; then
    if ! command -v gnuplot >/dev/null; then
        echo "trace-whatif: no gnuplot: no plot" >&2
    else
        term='svg size 640,400 font "sans,11" noenhanced'
        case $plot in *.png) term='png size 640,400 noenhanced' ;; esac
        gnuplot <<EOF
set terminal $term
set output "$plot"
set title "Replay of one trace: WAF by victim policy and spare"
set xlabel "op_pcent (spare, % of the namespace)"
set ylabel "WAF"
set key top right
set grid
plot for [i=2:6] "$data" using 1:i with linespoints title word("$POLICIES", i-1)
EOF
        echo "plot: $plot"
    fi
fi
