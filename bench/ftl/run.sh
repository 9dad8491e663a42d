#!/bin/bash
# FTL benchmark and the tutorial-02 WAF table from the simulator.
#   bench/ftl/run.sh            everything (about 4 minutes on 2 cores: the replay part took 1 min 49 s)
#   bench/ftl/run.sh bench      only the throughput / metadata / model part
#   bench/ftl/run.sh waf        only the WAF table
#   bench/ftl/run.sh replay     only the trace replay speed (femu-replay-bench)
# Builds the standalone tree in build/ if needed.  Every table line comes
# with the command that produced it.
set -euo pipefail
cd "$(dirname "$0")/../.."
what=${1:-all}
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build femu-sim femu-ftl-bench femu-replay-bench >/dev/null

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(uname -m), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "# compiler: $(cc --version | head -1)"

if [ "$what" = all ] || [ "$what" = bench ]; then
    echo
    echo "\$ build/femu-ftl-bench"
    build/femu-ftl-bench
fi

if [ "$what" = all ] || [ "$what" = replay ]; then
    echo
    echo "\$ build/femu-replay-bench"
    build/femu-replay-bench
fi

if [ "$what" = all ] || [ "$what" = waf ]; then
    geo=nchs=4,luns_per_ch=4,blks_per_pl=128
    run() { # label props waf-run-args
        local out
        out=$(build/femu-sim "$2" --json --waf-run="$3")
        local m=${out#*\"name\": \"measure\"}
        local waf=${m#*\"waf_x1000\": }; waf=${waf%%,*}
        local hw=${m#*\"host_pages_written\": }; hw=${hw%%,*}
        local gm=${m#*\"gc_pages_moved\": }; gm=${gm%%,*}
        printf '%-46s %6s.%03d %9s %10s   build/femu-sim %s --waf-run=%s\n' \
            "$1" $((waf / 1000)) $((waf % 1000)) "$hw" "$gm" "$2" "$3"
    }
    echo
    echo "# tutorial-02 waf-run: fill (128 KiB sequential), age (4 GiB of 4 KiB"
    echo "# random writes), measure (another 4 GiB): WAF of the measured phase"
    printf '%-46s %10s %9s %10s   %s\n' "configuration" "WAF" "host_pg" "gc_moved" "command"
    for t in 75 90 95; do
        run "op 25, gc_thres_pcent=$t" "$geo,op_pcent=25,gc_thres_pcent=$t" "age=4g,measure=4g"
    done
    for op in 7 15 25 50 100; do
        run "op $op, gc_thres_pcent=90" "$geo,op_pcent=$op,gc_thres_pcent=90" "age=4g,measure=4g"
    done
    for dist in 0 1.2; do
        for p in greedy fifo random cost-benefit d-choice; do
            name=uniform; [ "$dist" = 0 ] || name="zipf $dist"
            run "op 25, thres 95, $p, $name" \
                "$geo,op_pcent=25,gc_thres_pcent=95,gc_policy=$p" "age=4g,measure=4g,zipf=$dist"
        done
    done
    for p in greedy cost-benefit; do
        for hc in off on; do
            run "op 25, thres 95, $p, zipf 1.2, hc=$hc" \
                "$geo,op_pcent=25,gc_thres_pcent=95,gc_policy=$p,hot_cold_sep=$hc" "age=4g,measure=4g,zipf=1.2"
        done
    done
fi
