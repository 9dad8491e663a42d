#!/bin/bash
# WAF against theory: under uniform independent 4 KiB writes (fio's
# norandommap), greedy and FIFO victim selection converge to the LRW
# limit of Desnoyers ("Analytic modeling of SSD write performance",
# SYSTOR 2012):
#   A = 1 / (1 - u),  u = exp(-a (1 - u)),
#   a = lines outside the free reserve / lines the user data fills.
# The lines outside the reserve are the forced-GC threshold
# H = ceil(lines x gc_thres_pcent_high / 100) minus the one open write
# line; gc_thres_pcent = gc_thres_pcent_high keeps background GC from
# collecting earlier than forced GC would.  The geometry: 256 lines of
# 16 MiB (4096 pages), 4 GiB of NAND; 7% and 25% spare.  Every measured
# WAF must be within 1% of the theory value computed here.
sim=${1:?usage: test-theory.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
nchs=4 luns=4 blks=256 pgs=256 spp=8 high=95
ppl=$((nchs * luns * pgs))

for op in 7 25; do
    out=$("$sim" nchs=$nchs,luns_per_ch=$luns,blks_per_pl=$blks,pgs_per_blk=$pgs,secs_per_pg=$spp,op_pcent=$op,gc_thres_pcent=$high,gc_thres_pcent_high=$high,gc_policy=greedy --timing=off --json --waf-run=age=8g,measure=4g,randommap=off) ||
        { bad "op=$op: femu-sim exit $?"; continue; }
    nsb=$(echo "$out" | sed -n 's/.*"ns_blocks": \([0-9]*\).*/\1/p')
    # the user data's pages: the namespace's 512-byte blocks in pages
    theory=$(awk -v nsb="$nsb" -v spp=$spp -v ppl=$ppl -v blks=$blks \
                 -v high=$high 'BEGIN {
        user = int((nsb + spp - 1) / spp) / ppl
        H = int((blks * high + 99) / 100)
        a = (H - 1) / user
        # the root of u = exp(-a (1 - u)) in (0, 1): f < 0 at 0, f > 0
        # just below the trivial root 1 when a > 1
        lo = 0; hi = 1 - 1e-12
        for (i = 0; i < 200; i++) {
            m = (lo + hi) / 2
            if (m - exp(-a * (1 - m)) < 0) lo = m; else hi = m
        }
        printf "%.4f\n", 1 / (1 - lo) }')
    [ -n "$theory" ] || { bad "op=$op: no theory value (ns_blocks '$nsb')"; continue; }
    for p in greedy fifo; do
        if [ $p = fifo ]; then
            out=$("$sim" nchs=$nchs,luns_per_ch=$luns,blks_per_pl=$blks,pgs_per_blk=$pgs,secs_per_pg=$spp,op_pcent=$op,gc_thres_pcent=$high,gc_thres_pcent_high=$high,gc_policy=fifo --timing=off --json --waf-run=age=8g,measure=4g,randommap=off) ||
                { bad "op=$op fifo: femu-sim exit $?"; continue; }
        fi
        w=$(echo "$out" | grep '"name": "measure"' |
            sed -n 's/.*"waf_x1000": \([0-9]*\),.*/\1/p')
        [ -n "$w" ] || { bad "op=$op $p: no measure WAF"; continue; }
        if awk -v w="$w" -v t="$theory" 'BEGIN {
               d = w / 1000 - t; if (d < 0) d = -d; exit !(d <= 0.01 * t) }'
        then
            echo "ok: op_pcent=$op $p WAF $(awk -v w=$w 'BEGIN{printf "%.3f", w/1000}') vs LRW limit $theory"
        else
            bad "op_pcent=$op $p WAF $w/1000 vs LRW limit $theory: more than 1% apart"
        fi
    done
done
exit $fail
