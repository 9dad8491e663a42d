#!/bin/bash
# plots.sh: draw the tutorials' plots (SVG, gnuplot) from the committed
# tables in docs/tables/SCALE/, so that a plot shows exactly the figures of
# its table.  `make tables` runs it after scripts/tables/regen.sh.
#
#   scripts/tables/plots.sh [--scale full|scaled] [--tables DIR] [--out DIR]
#
# Defaults: --scale full, --tables docs/tables/SCALE, --out docs/plots.
# Writes, each from the table of the same name:
#   02-op.svg         WAF against over-provisioning (op_pcent), femu-sim
#                     and guest, with the analytic LRW (FIFO) limit
#   02-threshold.svg  WAF against the GC threshold (gc_thres_pcent)
#   02-policy.svg     WAF of each victim policy, uniform and Zipf 1.2 writes
#   02-hotcold.svg    WAF with and without hot/cold separation, Zipf 1.2
#   04-fdp.svg        GC pages moved in the measured run, without and with
#                     placement (FDP=0 / FDP=1)
#   05-latency.svg    QD1 latency tail of each phase (fio's percentiles) and
#                     the completions' lateness (log page C1h's percentiles)
#   08-mapping-caches.svg  WAF and QD1 read latency against DFTL's
#                     mapping_cache_mb and read_cache_mb: femu-sim, this
#                     project's device and FEMU upstream's in the guest
#                     (the table: scripts/tables/models.sh)
# A guest cell that is not a number is drawn as missing.  Needs gnuplot
# (Debian's gnuplot-nox: installed with apt-get when run as root).
# Exit status 0, 1 on an error (one line on stderr).
set -euo pipefail
ME=plots
die() { echo "$ME: $*" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd -P)

scale=full tables= out=$root/docs/plots
while [ $# -gt 0 ]; do
    case $1 in
    --scale) scale=${2:?--scale needs full or scaled}; shift 2 ;;
    --tables) tables=${2:?--tables needs a directory}; shift 2 ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (--help)" ;;
    esac
done
case $scale in full|scaled) ;; *) die "--scale $scale: full or scaled" ;; esac
tables=${tables:-$root/docs/tables/$scale}
[ -d "$tables" ] || die "no table directory $tables"
. "$root/scripts/graft/lib.sh"
femu_need 'cmd:gnuplot|gnuplot-nox'
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# rows TABLE: the table's data rows, cells separated by tabs, backquotes
# and surrounding blanks removed; a cell that should be a number but is
# not (a guest column not measured) becomes NaN further down
rows() {
    local f=$tables/$1.md
    [ -f "$f" ] || die "no table $f"
    awk -F'|' '/^\| *`?[A-Za-z0-9]/ && !/^\| *(properties|placement|phase) *\|/ {
        line = ""
        for (i = 2; i < NF; i++) {
            c = $i; gsub(/`/, "", c); gsub(/^ +| +$/, "", c)
            line = line (i > 2 ? "\t" : "") c
        }
        print line
    }' "$f"
}
num() { awk -v v="$1" 'BEGIN { if (v ~ /^[0-9.]+$/) print v; else print "NaN" }'; }
prop() { # prop NAME PROPERTIES: the value of NAME= in a property list
    tr ',' '\n' <<<"$2" | sed -n "s/^$1=//p"
}

caption() { # caption TABLE: the table's bold title, for the plot's title
    sed -n 's/^\*\*\(.*\)\*\* (.*/\1/p' "$tables/$1.md" | head -1
}

plot() { # plot NAME: gnuplot script on stdin -> $out/NAME.svg
    { printf 'set terminal svg size 640,400 noenhanced font "sans,12" background "white"\n'
      printf 'set output "%s"\n' "$out/$1.svg"
      printf 'set key top right box opaque\nset grid ytics\n'
      cat; } >"$tmp/$1.gp"
    gnuplot "$tmp/$1.gp" 2>"$tmp/$1.err" ||
        die "gnuplot failed for $1: $(head -1 "$tmp/$1.err")"
    echo "$out/$1.svg"
}

# 02-op and 02-threshold: WAF against a property
xy() { # xy TABLE PROPERTY XLABEL [LOGSCALE [EXTRA-PLOT-CLAUSE]]
    local t=$1 p=$2
    rows "$t" | while IFS=$'\t' read -r props writes sim guest _; do
        echo "$(prop "$p" "$props") $(num "$sim") $(num "$guest")"
    done >"$tmp/$t.dat"
    [ -s "$tmp/$t.dat" ] || die "table $t has no rows"
    plot "$t" <<EOF
set title "$(caption "$t")"
set xlabel "$3"
set ylabel "write amplification"
$(if [ -n "${4:-}" ]; then echo 'set logscale y'; else echo 'set yrange [0:*]'; fi)
set style data linespoints
plot "$tmp/$t.dat" using 1:2 title "femu-sim" lw 2 pt 7, \\
     "" using 1:3 title "guest (C0h)" lw 2 dt 2 pt 6 ps 1.5${5:+, \\
     $5}
EOF
}

# lrw_curve TABLE: the analytic LRW (FIFO victim) limit under uniform
# writes (Desnoyers, "Analytic modeling of SSD write performance", SYSTOR
# 2012): A = 1 / (1 - u) with u = exp(-a (1 - u)), where a is the lines GC
# lets fill (the gc_thres_pcent share of the lines, less the open write
# line) over the lines the user data fills (lines / (1 + op_pcent/100), as
# the namespace is NAND / (1 + op_pcent/100)).  Drawn for each op_pcent
# from 1 to 100 where a > 1 (below it GC cannot keep the reserve and the
# model has no root); tests/unit/test-theory.sh checks femu-sim against the
# same formula.  Greedy victim selection lies at or below this curve.
lrw_curve() {
    local t=$1 geo lines thr
    geo=$(sed -n 's/^\*\*.*`\([^`]*\)`.*/\1/p' "$tables/$t.md" | head -1)
    lines=$(prop blks_per_pl "$geo")
    thr=$(rows "$t" | head -1 | cut -f1)
    thr=$(prop gc_thres_pcent "$thr")
    [ -n "$lines" ] && [ -n "$thr" ] || die "table $t: no blks_per_pl or gc_thres_pcent"
    awk -v lines="$lines" -v thr="$thr" 'BEGIN {
        H = int((lines * thr + 99) / 100)
        for (op = 1; op <= 100; op++) {
            a = (H - 1) * (1 + op / 100) / lines
            if (a <= 1.0001) continue
            lo = 0; hi = 1 - 1e-12
            for (i = 0; i < 200; i++) {
                m = (lo + hi) / 2
                if (m - exp(-a * (1 - m)) < 0) lo = m; else hi = m
            }
            printf "%d %.4f\n", op, 1 / (1 - lo)
        }
    }' >"$tmp/$t-lrw.dat"
}
lrw_curve 02-op
xy 02-op op_pcent "over-provisioning, op_pcent (%)" log \
    "\"$tmp/02-op-lrw.dat\" using 1:2 with lines title \"LRW (FIFO) limit, theory\" lw 1 lc rgb \"gray40\""
xy 02-threshold gc_thres_pcent "GC threshold, gc_thres_pcent (%)"

# 02-policy: a cluster per policy, uniform and Zipf, femu-sim and guest
rows 02-policy | awk -F'\t' '{
    split($1, kv, ","); pol = ""
    for (i in kv) if (kv[i] ~ /^gc_policy=/) pol = substr(kv[i], 11)
    w = ($2 ~ /^zipf/) ? "z" : "u"
    if (!(pol in seen)) { seen[pol] = 1; order[n++] = pol }
    sim[pol, w] = $3; guest[pol, w] = ($4 ~ /^[0-9.]+$/) ? $4 : "NaN"
} END {
    for (i = 0; i < n; i++) { p = order[i]
        printf "%s %s %s %s %s\n", p, sim[p, "u"], guest[p, "u"], sim[p, "z"], guest[p, "z"] }
}' >"$tmp/02-policy.dat"
[ -s "$tmp/02-policy.dat" ] || die "table 02-policy has no rows"
plot 02-policy <<EOF
set title "$(caption 02-policy)"
set ylabel "write amplification"
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set key below horizontal
plot "$tmp/02-policy.dat" using 2:xtic(1) title "uniform, femu-sim", \\
     "" using 3 title "uniform, guest", \\
     "" using 4 title "Zipf 1.2, femu-sim", \\
     "" using 5 title "Zipf 1.2, guest"
EOF

# 02-hotcold: greedy and cost-benefit, hot/cold separation off and on
rows 02-hotcold | while IFS=$'\t' read -r props writes sim guest _; do
    echo "$(prop gc_policy "$props")/$(prop hot_cold_sep "$props") $(num "$sim") $(num "$guest")"
done >"$tmp/02-hotcold.dat"
[ -s "$tmp/02-hotcold.dat" ] || die "table 02-hotcold has no rows"
plot 02-hotcold <<EOF
set title "$(caption 02-hotcold)" font "sans,11"
set xlabel "gc_policy / hot_cold_sep"
set ylabel "write amplification"
set yrange [0:*]
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
plot "$tmp/02-hotcold.dat" using 2:xtic(1) title "femu-sim", "" using 3 title "guest (C0h)"
EOF

# 04-fdp: GC pages moved, "sim / guest"
rows 04-fdp | while IFS=$'\t' read -r placement sim_waf guest_waf pages _; do
    echo "$placement $(num "${pages%% / *}") $(num "${pages##* / }")"
done >"$tmp/04-fdp.dat"
[ -s "$tmp/04-fdp.dat" ] || die "table 04-fdp has no rows"
plot 04-fdp <<EOF
set title "$(caption 04-fdp)" font "sans,11"
set ylabel "GC pages moved in the measured run"
set yrange [0:*]
set format y "%.1s%c"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
plot "$tmp/04-fdp.dat" using 2:xtic(1) title "femu-sim", "" using 3 title "guest (C0h)"
EOF

# 05-latency: the tail of each phase's QD1 latency (fio's p50, p99, p99.9
# and max: the share of I/Os slower than x is 1/2, 1/100, 1/1000 and
# 1/I/Os) and of the completions' lateness behind their emulated time
# (log page C1h's bucketed p50, p99 and p99.9, in us)
rows 05-latency | while IFS=$'\t' read -r phase ios mean p50 p99 p999 max _; do
    printf '%s\t%s 0.5\n%s\t%s 0.01\n%s\t%s 0.001\n%s\t%s %s\n' \
        "$phase" "$(num "$p50")" "$phase" "$(num "$p99")" \
        "$phase" "$(num "$p999")" "$phase" "$(num "$max")" \
        "$(awk -v n="$ios" 'BEGIN { printf "%.6g", (n > 0) ? 1 / n : 0 }')"
done >"$tmp/05-latency.rows"
[ -s "$tmp/05-latency.rows" ] || die "table 05-latency has no rows"
i=0 clause=
for ph in $(cut -f1 "$tmp/05-latency.rows" | awk '!seen[$0]++'); do
    awk -F'\t' -v p="$ph" '$1 == p { print $2 }' "$tmp/05-latency.rows" >"$tmp/05-latency-$i.dat"
    clause="$clause${clause:+, }\"$tmp/05-latency-$i.dat\" using 1:2 title \"$ph (fio)\" lw 2"
    i=$((i + 1))
done
sed -n 's/.*p50_ns<=\([0-9]*\) p99_ns<=\([0-9]*\) p999_ns<=\([0-9]*\).*/\1 \2 \3/p' \
    "$tables/05-latency.md" |
    awk '{ printf "%.3f 0.5\n%.3f 0.01\n%.3f 0.001\n", $1 / 1000, $2 / 1000, $3 / 1000 }' \
    >"$tmp/05-latency-c1h.dat"
[ -s "$tmp/05-latency-c1h.dat" ] &&
    clause="$clause, \"$tmp/05-latency-c1h.dat\" using 1:2 title \"completion lateness (C1h)\" lw 2 dt 2 lc rgb \"black\""
plot 05-latency <<EOF
set title "$(caption 05-latency)" font "sans,11"
set xlabel "latency (us)"
set ylabel "share of I/Os slower"
set logscale xy
set format y "%g"
set key bottom left box opaque
set style data linespoints
plot $clause
EOF

# 08-mapping-caches: WAF and QD1 read latency against the cache size,
# DFTL's mapping cache (mapping_cache_mb) and the read cache
# (read_cache_mb): femu-sim, this project's device and FEMU upstream's in
# the guest (bench/peer/models.sh)
rows 08-mapping-caches | while IFS=$'\t' read -r props mb ws wg wf ms mg mf _; do
    case $props in mapping=dftl*) k=dftl ;; read_cache_mb=*) k=rc ;; *) continue ;; esac
    echo "$k $mb $(num "$ws") $(num "$wg") $(num "$wf") $(num "$ms") $(num "$mg") $(num "$mf")"
done >"$tmp/08.rows"
[ -s "$tmp/08.rows" ] || die "table 08-mapping-caches has no rows"
grep '^dftl ' "$tmp/08.rows" | cut -d' ' -f2- >"$tmp/08-dftl.dat"
grep '^rc ' "$tmp/08.rows" | cut -d' ' -f2- >"$tmp/08-rc.dat"
plot 08-mapping-caches <<EOF
set terminal svg size 800,600 noenhanced font "sans,11" background "white"
set output "$out/08-mapping-caches.svg"
set multiplot layout 2,2 title "$(caption 08-mapping-caches | sed 's/"//g')" font "sans,11"
set style data linespoints
set key top right box opaque font "sans,9"
set yrange [0:*]
set xlabel "mapping_cache_mb (DFTL)"
set ylabel "WAF"
plot "$tmp/08-dftl.dat" using 1:2 title "femu-sim" lw 2 pt 7, "" using 1:3 title "this, guest" lw 2 dt 2 pt 6 ps 1.5, "" using 1:4 title "FEMU, guest" lw 2 dt 3 pt 4 ps 1.5
set ylabel "QD1 read mean (us)"
set logscale y
set yrange [*:*]
plot "$tmp/08-dftl.dat" using 1:5 title "femu-sim" lw 2 pt 7, "" using 1:6 title "this, guest" lw 2 dt 2 pt 6 ps 1.5, "" using 1:7 title "FEMU, guest" lw 2 dt 3 pt 4 ps 1.5
unset logscale y
set yrange [0:*]
set xlabel "read_cache_mb (clock)"
set ylabel "WAF"
plot "$tmp/08-rc.dat" using 1:2 title "femu-sim" lw 2 pt 7, "" using 1:3 title "this, guest" lw 2 dt 2 pt 6 ps 1.5, "" using 1:4 title "FEMU, guest" lw 2 dt 3 pt 4 ps 1.5
set ylabel "QD1 read mean (us)"
set logscale y
set yrange [*:*]
plot "$tmp/08-rc.dat" using 1:5 title "femu-sim" lw 2 pt 7, "" using 1:6 title "this, guest" lw 2 dt 2 pt 6 ps 1.5, "" using 1:7 title "FEMU, guest" lw 2 dt 3 pt 4 ps 1.5
unset multiplot
EOF
