#!/bin/bash
# models.sh: tutorial 08's tables (mapping schemes and caches), from
# femu-sim (run here, seconds) and from the guest runs of
# bench/peer/models.sh on FEMU upstream and on this project's device (its
# committed raw results file):
#   08-mapping-caches.md  WAF and QD1 read latency against the cache size
#                         (DFTL's mapping cache, the read cache)
#   08-models.md          every cell of bench/peer/models.sh: WAF, QD1
#                         read and write latency, both devices, femu-sim
#
#   scripts/tables/models.sh [--raw FILE] [--out DIR] [--sim PATH]
#
# Defaults: --raw bench/peer/results/models.txt, --out docs/tables/full,
# --sim build/femu-sim.  Then scripts/tables/plots.sh draws
# docs/plots/08-mapping-caches.svg from the first.
# femu-sim runs the guest's phases (scripts/tutorials/models-run.sh): a
# 128 KiB sequential fill, WARM bytes of 4 KiB uniform random reads, IOS
# QD1 random reads and writes (independent draws), then WRITE bytes of
# 4 KiB random writes (each block once per pass); its read latency is the
# emulated one, the guest's fio's completion latency (it adds the guest's
# own path under TCG).  A guest cell the raw file lacks is "-".
# Exit status 0, 1 on an error (one line on stderr).
set -euo pipefail
ME=models
die() { echo "$ME: $*" >&2; exit 1; }
root=$(cd "$(dirname "$0")/../.." && pwd -P)
raw=$root/bench/peer/results/models.txt out=$root/docs/tables/full
sim=$root/build/femu-sim
while [ $# -gt 0 ]; do
    case $1 in
    --raw) raw=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --sim) sim=${2:?}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//p}' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (--help)" ;;
    esac
done
[ -f "$raw" ] || die "no raw results $raw (bench/peer/models.sh --raw FILE)"
[ -x "$sim" ] || die "$sim is not built (make sim)"

# the cells of bench/peer/models.sh that the table shows, and femu-sim's
# extra sizes (no guest run): name|geometry|properties|IOS|WARM|WRITE
SMALL=nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,op_pcent=25
LARGE=nchs=4,luns_per_ch=4,blks_per_pl=128,pgs_per_blk=256,op_pcent=25
ROWS=()
for mb in 1 2 3 4; do
    ROWS+=("dftl-large-$mb|$LARGE|mapping=dftl,mapping_cache_mb=$mb|500|64m|0.25")
done
for mb in 2 4 8 16 24 32 48; do
    ROWS+=("rc-clock-$mb|$SMALL|read_cache_mb=$mb,cache_evict=clock|300|0.5|0.25")
done

# the cells of bench/peer/models.sh (its groups map, rc, cell, dftl)
MA="500|1|2" OA="300|0.5|0.25" LA="500|64m|0.25"
CELLS=("page|$SMALL|mapping=page|$MA" "dftl|$SMALL|mapping=dftl,mapping_cache_mb=1|$MA"
       "hybrid|$SMALL|mapping=hybrid|$MA" "fast|$SMALL|mapping=fast|$MA")
for mb in 4 16 32; do CELLS+=("rc-clock-$mb|$SMALL|read_cache_mb=$mb,cache_evict=clock|$OA"); done
for p in random lru arc; do CELLS+=("rc-$p-16|$SMALL|read_cache_mb=16,cache_evict=$p|$OA"); done
for t in 1 2 3 4; do CELLS+=("cell$t|$SMALL|nand_cell_type=$t|$OA"); done
for mb in 1 4; do CELLS+=("dftl-large-$mb|$LARGE|mapping=dftl,mapping_cache_mb=$mb|$LA"); done

# guest NAME SIDE: "waf read_mean read_p50/p99 hits write_mean
# write_p50/p99" of a cell in the raw file
guest() {
    awk -v c="$1" -v s="$2" '
    function f(k,   i, n, a) { n = split($0, a, " ")
        for (i = 1; i <= n; i++) if (index(a[i], k "=") == 1) return substr(a[i], length(k) + 2)
        return "" }
    /^### cell=/ { on = (f("cell") == c && f("side") == s); next }
    /^### end cell=/ { on = 0; next }
    on && /^lat phase=read / { m = f("mean_us"); p = f("p50_us") "/" f("p99_us") }
    on && /^lat phase=write / { wm = f("mean_us"); wp = f("p50_us") "/" f("p99_us") }
    on && /^counters phase=age / { w = f("waf") }
    on && /^c0 / { h = f("hits") + f("map_hits"); x = f("misses") + f("map_misses")
        if (h + x > 0) r = sprintf("%.3f", h / (h + x)) }
    function d(v) { return v == "" ? "-" : v }
    END { printf "%s %s %s %s %s %s\n", d(w), d(m), d(p), d(r), d(wm), d(wp) }' "$raw"
}

# simrow GEOM PROPS IOS WARM WRITE: "waf read_mean_us read_p99_us hits
# write_mean_us" (the write phase's emulated time per write: QD1)
simrow() {
    local geom=$1 props=$2 ios=$3 warm=$4 write=$5 ns
    ns=$("$sim" "$geom" --phase x:seqfill,size=0 2>/dev/null | sed -n 's/^namespace: \([0-9]*\) blocks of 512 B.*/\1/p')
    [ -n "$ns" ] || die "femu-sim: no namespace size for $geom"
    ns=$(( ns * 512 ))
    case $warm in
    *m) warm=$(( ${warm%m} << 20 )) ;;
    *) warm=$(awk -v f="$warm" -v n="$ns" 'BEGIN { printf "%d", f * n }') ;;
    esac
    write=$(awk -v f="$write" -v n="$ns" 'BEGIN { printf "%d", f * n / 4096 }')
    "$sim" "$geom,$props" --json --phase fill:seqfill,size=$(( ns / 131072 * 131072 )) \
        --phase warm:randread,size=$(( warm / 4096 * 4096 )),randommap=off \
        --phase rd:randread,size=$(( ios * 4096 )),randommap=off \
        --phase wr:randwrite,size=$(( ios * 4096 )),randommap=off \
        --phase age:randwrite,size=$(( write * 4096 )) | python3 -c '
import json, sys
j = json.load(sys.stdin)
p = {x["name"]: x for x in j["phases"]}
rd, age = p["rd"], p["age"]
modes = sorted(rd["read_lat_ns"]["modes"])
n = sum(c for _, c in modes); acc = 0; p99 = 0
for v, c in modes:
    acc += c
    if acc >= 0.99 * n:
        p99 = v; break
h = rd["cache_hits"] + rd["map_cache_hits"]; m = rd["cache_misses"] + rd["map_cache_misses"]
waf = (age["host_pages_programmed"] + age["gc_pages_moved"] + age["trans_pages_programmed"]) / age["host_pages_written"]
print("%.3f %.1f %.1f %s %.1f" % (waf, rd["read_lat_ns"]["mean"] / 1000.0, p99 / 1000.0,
      "%.3f" % (h / (h + m)) if h + m else "-", p["wr"]["emul_ns"] / p["wr"]["requests"] / 1000.0))
' || die "femu-sim failed for $geom,$props"
}

mkdir -p "$out"
t1=$(mktemp) t2=$(mktemp)
trap 'rm -f "$t1" "$t2"' EXIT
SIMCMD="\`build/femu-sim GEOMETRY,PROPERTIES --json --phase fill:seqfill --phase warm:randread,size=WARM,randommap=off --phase rd:randread,size=IOS*4k,randommap=off --phase wr:randwrite,size=IOS*4k,randommap=off --phase age:randwrite,size=WRITE\`"
{
    echo "<!-- generated by scripts/tables/models.sh from ${raw#$root/} and femu-sim; do not edit -->"
    echo "**WAF and QD1 read latency against the cache size** (DFTL: \`$LARGE\`, a 1.6 GiB namespace; read cache: \`$SMALL\`, a 51.2 MiB namespace)"
    echo
    echo "| properties | cache MiB | WAF femu-sim | WAF guest | WAF FEMU guest | read mean us femu-sim | read mean us guest | read mean us FEMU guest | read p99 us femu-sim | read p50/p99 us guest | read p50/p99 us FEMU guest | hit ratio femu-sim (measured reads) | hit ratio guest (every read of the run) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for r in "${ROWS[@]}"; do
        IFS='|' read -r name geom props ios warm write <<<"$r"
        mb=$(tr ',' '\n' <<<"$props" | sed -n 's/^\(mapping_cache_mb\|read_cache_mb\)=//p')
        read -r sw sm sp sh _ <<<"$(simrow "$geom" "$props" "$ios" "$warm" "$write")"
        read -r ow om op oh _ <<<"$(guest "$name" ours)"
        read -r pw pm pp _ <<<"$(guest "$name" peer)"
        echo "| \`$props\` | $mb | $sw | $ow | $pw | $sm | $om | $pm | $sp | $op | $pp | $sh | $oh |"
    done
    echo
    echo "Commands: femu-sim $SIMCMD (as the guest's: DFTL IOS 500, WARM 64 MiB, WRITE a quarter of the namespace; the read cache IOS 300, WARM half the namespace, WRITE a quarter);"
    echo "guest \`bench/peer/models.sh\` (this project's device and FEMU upstream's, the raw results in \`${raw#$root/}\`); \"-\": no guest run at that size."
} >"$t1"
{
    echo "<!-- generated by scripts/tables/models.sh from ${raw#$root/} and femu-sim; do not edit -->"
    echo "**Mapping schemes, read cache, cell types: this project (femu-sim and guest) and FEMU upstream (guest)** (\`$SMALL\` but the dftl-large cells: \`$LARGE\`)"
    echo
    echo "| cell | properties | WAF femu-sim | WAF guest | WAF FEMU guest | FEMU / this (guest) | read mean us femu-sim | read mean / p50/p99 us guest | read mean / p50/p99 us FEMU guest | write mean us femu-sim | write mean / p50/p99 us guest | write mean / p50/p99 us FEMU guest | hit ratio femu-sim (measured reads) / guest (every read of the run) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    for r in "${CELLS[@]}"; do
        IFS='|' read -r name geom props ios warm write <<<"$r"
        read -r sw sm sp sh swm <<<"$(simrow "$geom" "$props" "$ios" "$warm" "$write")"
        read -r ow om op oh owm owp <<<"$(guest "$name" ours)"
        read -r pw pm pp _ pwm pwp <<<"$(guest "$name" peer)"
        ratio=$(awk -v a="$pw" -v b="$ow" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / b; else print "-" }')
        echo "| $name | \`$props\` | $sw | $ow | $pw | $ratio | $sm | $om / $op | $pm / $pp | $swm | $owm / $owp | $pwm / $pwp | $sh / $oh |"
    done
    echo
    echo "Commands: femu-sim $SIMCMD (IOS, WARM and WRITE as the guest's: 500, the namespace and twice it for page, dftl, hybrid and fast; 300, half and a quarter of it for the read cache and the cell types; 500, 64 MiB and a quarter for dftl-large);"
    echo "guest \`bench/peer/models.sh\` (the raw results in \`${raw#$root/}\`). Guest latencies are fio's completion latencies under TCG (they include the guest's and the emulator's own path); femu-sim's are the emulated device times."
} >"$t2"
mv "$t1" "$out/08-mapping-caches.md"
mv "$t2" "$out/08-models.md"
trap - EXIT
echo "$out/08-mapping-caches.md"
echo "$out/08-models.md"
