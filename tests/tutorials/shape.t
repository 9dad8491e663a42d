#!/bin/bash
# The shape tutorial 02 teaches, measured in the embedded guest with the
# published waf-run.sh under Zipf 1.2 (fio's --random_distribution=zipf:1.2,
# its random map on) on six scaled devices in one boot:
#   - without hot/cold separation the five victim policies (greedy, fifo,
#     cost-benefit, random, d-choice) give WAFs within 25% of each other:
#     under skew hot and cold pages share lines, and no choice of victim
#     undoes that;
#   - hot_cold_sep=on cuts greedy's WAF by at least 40%.
# (FDP's cut of GC copies is asserted by tests/guest/fdp-run.t.)
# Tiny geometry as tests/tutorials/tutorials.t: 32 lines of 1 MiB,
# op_pcent=25, threshold 95; aging and measured runs of twice the namespace.
# femu-sim on the same configuration (seeds 1-5): policies within 11%,
# hot/cold cut 45-46%.
. "$(dirname "$0")/../guest/lib.sh"
require_qemu
T=$FEMU_ROOT/scripts/tutorials
G=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,gc_thres_pcent=95
NAMES=(greedy fifo cost-benefit random d-choice greedy-hc)

job=$(scratch)/job.sh
cat >"$job" <<'JOB'
ctrl() { for c in /sys/class/nvme/nvme*; do [ "$(tr -d ' ' <$c/serial)" = $1 ] && basename $c; done; }
for s in 0 1 2 3 4 5; do
    d=/dev/$(ctrl vSSD$s)n1
    echo "### $s"
    bash tutorials/waf-run.sh DEV=$d AGE=2x MEASURE=2x SPAN=whole --random_distribution=zipf:1.2
    echo "rc=$?"
done
JOB
devs=()
for p in greedy fifo cost-benefit random d-choice; do
    devs+=(-device "femu,$G,gc_policy=$p")
done
devs+=(-device "femu,$G,gc_policy=greedy,hot_cold_sep=on")
femu_run_expect 0 --timeout 1500 --append no_timer_check --file "$T:tutorials" \
    "${devs[@]}" --script "$job"
out=$FEMU_OUT
section() { awk -v s="### $1" '$0 == s { on = 1; next } /^### / { on = 0 } on' "$out"; }
declare -a W
for s in 0 1 2 3 4 5; do
    section $s | grep -qx 'rc=0' || { cat "$out"; fail "${NAMES[$s]}: waf-run.sh failed"; }
    W[$s]=$(section $s | grep '^phase=measure ' | tr ' ' '\n' | sed -n 's/^waf_x1000=//p')
    [ -n "${W[$s]}" ] || { cat "$out"; fail "${NAMES[$s]}: no measured WAF"; }
    echo "${NAMES[$s]}: measured WAF x1000 ${W[$s]}"
done
min=${W[0]} max=${W[0]}
for s in 1 2 3 4; do
    [ "${W[$s]}" -lt "$min" ] && min=${W[$s]}
    [ "${W[$s]}" -gt "$max" ] && max=${W[$s]}
done
[ $((max * 100)) -le $((min * 125)) ] ||
    fail "under Zipf the five policies span $min-$max, more than 25%"
echo "ok - five policies within 25% under Zipf ($min-$max)"
[ $((W[5] * 100)) -le $((W[0] * 60)) ] ||
    fail "hot_cold_sep=on: greedy ${W[0]} -> ${W[5]}, not cut by 40%"
echo "ok - hot_cold_sep=on cuts greedy's WAF by $(( 100 - W[5] * 100 / W[0] ))% (${W[0]} -> ${W[5]})"
