#!/bin/bash
# The simulator CLI: tutorial 02's fill gives the C0h facts, phases report
# counter differences, runs are deterministic, bad input is refused.
sim=${1:?usage: test-sim.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
geo=nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25

out=$("$sim" $geo --json --waf-run=age=1g,measure=256m) || bad "waf-run exit $?"
fill=$(echo "$out" | grep '"name": "fill"')
echo "$fill" | grep -q '"waf_x1000": 1000, "host_pages_written": 419424, "gc_pages_moved": 0, "host_pages_programmed": 419424' ||
    bad "fill phase: $fill"
echo "$out" | grep -q '"ns_blocks": 3355443' || bad "ns_blocks"
meas=$(echo "$out" | grep '"name": "measure"')
echo "$meas" | grep -q '"host_pages_written": 65536,' || bad "measure phase: $meas"
# the measured phase moved pages (the device is full, GC must run)
echo "$meas" | grep -q '"gc_pages_moved": 0,' && bad "no GC in measure: $meas"

# deterministic for a seed; another seed gives another run
a=$("$sim" $geo,gc_policy=random --seed=7 --waf-run=age=32m,measure=32m)
b=$("$sim" $geo,gc_policy=random --seed=7 --waf-run=age=32m,measure=32m)
c=$("$sim" $geo,gc_policy=random --seed=8 --waf-run=age=32m,measure=32m)
[ "$a" = "$b" ] || bad "same seed, different output"
[ "$a" != "$c" ] || bad "different seeds, same output"

# human output carries the C0h line
h=$("$sim" $geo --phase fill:seqfill,bs=128k)
echo "$h" | grep -q 'C0h since start: waf_x1000=1000 host_pages_written=419424 gc_pages_moved=0 host_pages_programmed=419424' ||
    bad "human output: $h"

# FDP: three 4 KiB writes through placement id 1
f=$("$sim" nchs=2,luns_per_ch=4,blks_per_pl=64,op_pcent=50,fdp.nruh=4 --json \
    --phase w:randwrite,bs=4k,size=12k,pid=1)
echo "$f" | grep -q '"fdp_hbmw": 12288, "fdp_mbmw": 12288, "fdp_mbe": 0' || bad "fdp: $f"

# refusals: exit 1 with the property named; usage errors exit 2
err=$("$sim" nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=5 2>&1 >/dev/null)
[ $? -eq 1 ] || bad "op_pcent=5 not refused"
echo "$err" | grep -q 'op_pcent=5' || bad "message: $err"
"$sim" bogus=1 >/dev/null 2>&1; [ $? -eq 2 ] || bad "unknown property accepted"
"$sim" $geo --phase x:nosuch >/dev/null 2>&1; [ $? -eq 2 ] || bad "unknown workload accepted"
"$sim" $geo,secsz=4096 --phase x:randwrite,bs=512 >/dev/null 2>&1
[ $? -eq 2 ] || bad "bs below secsz accepted"

[ $fail = 0 ] && echo "test-sim: ok"
exit $fail
