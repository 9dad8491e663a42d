#!/bin/bash
# The log-block mappings (mapping=hybrid: BAST, mapping=fast: FAST)
# against what theory says of them, on femu-sim:
#
# - sequential overwrites: every logical block is rewritten in order, so
#   each log block is full and in order when it is merged: switch merges
#   only, one per logical block per pass, one erase each, no copy: WAF 1
#   exactly, in both schemes.
#
# - uniform independent 4 KiB overwrites (fio's norandommap) of a full
#   namespace of N logical blocks of P pages:
#   BAST: a write finds a log block for its logical block with
#     probability nlog / N (the log blocks serve the last nlog distinct
#     blocks written); otherwise the oldest log block is merged, almost
#     always holding one page: a full merge copying all P pages, or a
#     partial merge copying P - 1 when that page is offset 0 (1 in P).
#     Full merges per host page (1 - nlog/N)(1 - 1/P): nearly one per
#     log-block page; WAF = 1 + (1 - nlog/N)(P - 1/P), about P.
#   FAST: writes of offset 0 (1 in P) open the sequential log block and
#     partial-merge the previous one (P - 1 copies); the others go to the
#     shared random log of L = nlog * P pages.  A page written there is
#     reclaimed W = L - (P - 1) / 2 random-log writes later on average,
#     and the full merge then cleans every page its block got meanwhile
#     (W / N of them), so a full merge (P copies) comes once every
#     1 + W / N random-log writes of a block:
#     WAF = 1 + (P - 1) / P + (1 - 1/P) P / (1 + W / N).
#     That first-order figure leaves out cycles that last longer because
#     their first page was itself overwritten before its block was
#     reclaimed, or shorter because the sequential log block's partial
#     merge took the block: measured WAF is a few percent below it.
#
# The geometry: 2 x 2 LUNs x 256 blocks of 64 pages (4 KiB), op_pcent 25:
# 52429 logical pages, N = 52429 / 64 logical blocks (writes choose a
# block in proportion to its pages).  Each measurement follows a warm-up
# of the same workload; the measured WAF must be within 1% of the BAST
# figure, within 8% of the FAST one, and FAST's below half of BAST's.
sim=${1:?usage: test-logblock.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
P=64
G=nchs=2,luns_per_ch=2,blks_per_pl=256,pgs_per_blk=$P,op_pcent=25

# field NAME of phase PHASE in femu-sim's JSON
get() { echo "$1" | grep "\"name\": \"$2\"" | sed -n "s/.*\"$3\": \([0-9]*\).*/\1/p"; }
# |got / want - 1| <= tol (a fraction)
near() {
    awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { d = g / w - 1; if (d < 0) d = -d; exit !(d <= t) }'
}

for m in hybrid fast; do
    out=$("$sim" $G,mapping=$m --timing=off --json --phase fill:seqfill \
          --phase s1:seqfill --phase s2:seqfill) || { bad "$m sequential: exit $?"; continue; }
    for p in s1 s2; do
        host=$(get "$out" $p host_pages_written)
        sw=$(get "$out" $p merges_switch)
        want=$((host / P))
        line="$(get "$out" $p merges_partial) $(get "$out" $p merges_full) $(get "$out" $p gc_pages_moved) $(get "$out" $p blocks_erased) $(get "$out" $p waf_x1000)"
        if [ -n "$host" ] && [ $((host % P)) = 0 ] && [ "$sw" = $want ] &&
           [ "$line" = "0 0 0 $want 1000" ]; then
            echo "ok: $m sequential pass $p: $sw switch merges ($host pages / $P), $want erases, no copy, WAF 1.000"
        else
            bad "$m sequential $p: host $host switch $sw (want $want), partial full moved erased waf: $line"
        fi
    done
done

declare -A waf
for nlog in 16 64; do
    for m in hybrid fast; do
        out=$("$sim" $G,mapping=$m,log_blocks=$nlog --timing=off --json \
              --phase fill:seqfill,bs=4k \
              --phase warm:randwrite,bs=4k,randommap=off,size=128m \
              --phase rnd:randwrite,bs=4k,randommap=off,size=256m) ||
            { bad "$m log_blocks=$nlog: exit $?"; continue; }
        nsb=$(echo "$out" | sed -n 's/.*"ns_blocks": \([0-9]*\).*/\1/p')
        host=$(get "$out" rnd host_pages_written)
        full=$(get "$out" rnd merges_full)
        w=$(get "$out" rnd waf_x1000)
        waf[$m$nlog]=$w
        [ -n "$w" ] && [ -n "$nsb" ] || { bad "$m log_blocks=$nlog: no figures"; continue; }
        read -r theory fullx < <(awk -v nsb="$nsb" -v P=$P -v nlog=$nlog -v m=$m 'BEGIN {
            N = int((nsb + 7) / 8) / P
            if (m == "hybrid") {
                printf "%.4f %.5f\n", 1 + (1 - nlog / N) * (P - 1 / P), (1 - nlog / N) * (1 - 1 / P)
            } else {
                W = nlog * P - (P - 1) / 2
                printf "%.4f %.5f\n", 1 + (P - 1) / P + (1 - 1 / P) * P / (1 + W / N), (1 - 1 / P) / (1 + W / N)
            }}')
        tol=0.01
        [ $m = fast ] && tol=0.08
        got=$(awk -v w="$w" 'BEGIN { printf "%.3f", w / 1000 }')
        if near "$got" "$theory" $tol; then
            echo "ok: $m log_blocks=$nlog random WAF $got vs $theory (within $tol)"
        else
            bad "$m log_blocks=$nlog random WAF $got vs theory $theory: more than $tol apart"
        fi
        fr=$(awk -v f="$full" -v h="$host" 'BEGIN { printf "%.5f", f / h }')
        if near "$fr" "$fullx" $tol; then
            echo "ok: $m log_blocks=$nlog full merges per host page $fr vs $fullx"
        else
            bad "$m log_blocks=$nlog full merges per host page $fr vs theory $fullx"
        fi
    done
    if [ -n "${waf[fast$nlog]}" ] && [ -n "${waf[hybrid$nlog]}" ] &&
       [ $((2 * ${waf[fast$nlog]})) -lt ${waf[hybrid$nlog]} ]; then
        echo "ok: log_blocks=$nlog: FAST's random WAF ${waf[fast$nlog]} is below half of BAST's ${waf[hybrid$nlog]}"
    else
        bad "log_blocks=$nlog: FAST ${waf[fast$nlog]} vs BAST ${waf[hybrid$nlog]}"
    fi
done

# bad values: one line naming the property
e=$("$sim" $G,mapping=hybrid,log_blocks=300 --phase f:seqfill,size=4k 2>&1 >/dev/null) &&
    bad "log_blocks=300 accepted"
{ echo "$e" | grep -q 'log_blocks=300: mapping=hybrid needs' && [ "$(echo "$e" | wc -l)" = 1 ]; } ||
    bad "log_blocks=300: '$e'"
e=$("$sim" $G,mapping=fast,log_blocks=0 --phase f:seqfill,size=4k 2>&1 >/dev/null) &&
    bad "log_blocks=0 accepted"
{ echo "$e" | grep -q 'log_blocks=0' && [ "$(echo "$e" | wc -l)" = 1 ]; } || bad "log_blocks=0: '$e'"
exit $fail
