#!/bin/bash
# GC settings that cannot work are refused (exit 1, message naming the
# property): thresholds, policy names, gc_strategy aliases.
. "$(dirname "$0")/lib.sh"
refuse 'gc_thres_pcent=0' femu,gc_thres_pcent=0
refuse 'gc_thres_pcent=101' femu,gc_thres_pcent=101,gc_thres_pcent_high=101
refuse 'gc_thres_pcent_high=101' femu,gc_thres_pcent_high=101
# background threshold above the forced one
refuse 'gc_thres_pcent_high=95.*gc_thres_pcent \(96\)' femu,gc_thres_pcent=96
refuse 'gc_thres_pcent_high=50' femu,gc_thres_pcent_high=50
# forced GC at 100 % of the lines leaves no free line to relocate into
refuse 'gc_thres_pcent_high=100' femu,gc_thres_pcent=90,gc_thres_pcent_high=100
refuse 'gc_policy' femu,gc_policy=lru
refuse 'gc_policy' femu,gc_policy=
refuse 'gc_policy' femu,gc_policy=1
refuse 'gc_strategy=5' femu,gc_strategy=5
refuse 'gc_strategy=-2' femu,gc_strategy=-2
refuse 'gc_strategy' femu,gc_strategy=greedy
for p in greedy fifo random cost-benefit d-choice; do
    accept femu,gc_policy=$p
done
for s in 0 1 2 3 4; do
    accept femu,gc_strategy=$s
done
accept femu,gc_thres_pcent=95,gc_thres_pcent_high=95
refuse "gc_thres_pcent_high=1 forced GC" femu,gc_thres_pcent=1,gc_thres_pcent_high=1,hot_cold_sep=on,gc_own_line=on
refuse "gc_thres_pcent_high=1" femu,gc_thres_pcent=1,gc_thres_pcent_high=1,hot_cold_sep=on
accept femu,gc_thres_pcent=5,gc_thres_pcent_high=5,hot_cold_sep=on,devsz_mb=128
finish
