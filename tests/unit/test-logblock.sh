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
#     partial-merge the previous one, copying its block's other P - 1
#     pages (all of them, wherever they are); the others (a share
#     R = 1 - 1/P) go to the shared random log of L = nlog * P pages.
#     Per logical block, counted in random-log writes, which hit it at
#     rate 1/N: a cycle starts with its first random-log page after its
#     last merge; that page is reclaimed W = L - (P - 1)/2 writes later on
#     average, and the full merge then takes every page the block got
#     meanwhile.  A partial merge of the block (rate rs = 1/((P - 1) N))
#     ends the cycle sooner, so a cycle ends in a full merge with
#     probability q = exp(-rs W) after A0 = (1 - q) / rs on average; when
#     the first page itself was overwritten (probability
#     po = 1 - exp(-W / (N (P - 1)))) the block's next page starts the
#     reclaim wait, on average N (1 - (1 - exp(-W/N)) / (W/N)) later.
#     With A = A0 + q po N (1 - (1 - exp(-W/N)) / (W/N)):
#     full merges per host page  F = R q N / (N + A),
#     WAF = 1 + F P + (P - 1) / P.
#
# The geometry: 2 x 2 LUNs x 256 blocks of 64 pages (4 KiB), op_pcent 25:
# 52429 logical pages, N = 52429 / 64 logical blocks (writes choose a
# block in proportion to its pages); for random writes also 128 blocks
# of 128 pages and 512 of 32, the same NAND.  Each measurement follows a warm-up
# of the same workload; the measured WAF and full merges per host page
# must be within 1% of the BAST figures, within 2% of the FAST ones, and
# FAST's WAF below half of BAST's where theory says so, below it always.
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

# blocks_per_pl pgs_per_blk log_blocks: the same 256 MiB of NAND
declare -A waf theo
for geo in "256 64 16" "256 64 64" "128 128 16" "512 32 32"; do
    set -- $geo
    B=$1 PP=$2 nlog=$3 key="P=$2 log_blocks=$3"
    for m in hybrid fast; do
        out=$("$sim" nchs=2,luns_per_ch=2,blks_per_pl=$B,pgs_per_blk=$PP,op_pcent=25,mapping=$m,log_blocks=$nlog \
              --timing=off --json --phase fill:seqfill,bs=4k \
              --phase warm:randwrite,bs=4k,randommap=off,size=128m \
              --phase rnd:randwrite,bs=4k,randommap=off,size=256m) ||
            { bad "$m $key: exit $?"; continue; }
        nsb=$(echo "$out" | sed -n 's/.*"ns_blocks": \([0-9]*\).*/\1/p')
        host=$(get "$out" rnd host_pages_written)
        full=$(get "$out" rnd merges_full)
        w=$(get "$out" rnd waf_x1000)
        [ -n "$w" ] && [ -n "$nsb" ] && [ -n "$full" ] || { bad "$m $key: no figures"; continue; }
        read -r theory fullx < <(awk -v nsb="$nsb" -v P=$PP -v nlog=$nlog -v m=$m 'BEGIN {
            N = int((nsb + 7) / 8) / P
            if (m == "hybrid") {
                printf "%.4f %.5f\n", 1 + (1 - nlog / N) * (P - 1 / P), (1 - nlog / N) * (1 - 1 / P)
            } else {
                R = 1 - 1 / P; W = nlog * P - (P - 1) / 2
                rs = 1 / ((P - 1) * N); q = exp(-rs * W); lw = W / N
                po = 1 - exp(-lw / (P - 1))
                A = (1 - q) / rs + q * po * N * (1 - (1 - exp(-lw)) / lw)
                F = R * q * N / (N + A)
                printf "%.4f %.5f\n", 1 + F * P + (P - 1) / P, F
            }}')
        waf[$m]=$w theo[$m]=$theory
        tol=0.01
        [ $m = fast ] && tol=0.02
        got=$(awk -v w="$w" 'BEGIN { printf "%.3f", w / 1000 }')
        if near "$got" "$theory" $tol; then
            echo "ok: $m $key: random WAF $got vs $theory (within $tol)"
        else
            bad "$m $key: random WAF $got vs theory $theory: more than $tol apart"
        fi
        fr=$(awk -v f="$full" -v h="$host" 'BEGIN { printf "%.5f", f / h }')
        if near "$fr" "$fullx" $tol; then
            echo "ok: $m $key: full merges per host page $fr vs $fullx"
        else
            bad "$m $key: full merges per host page $fr vs theory $fullx"
        fi
    done
    [ -n "${waf[fast]}" ] && [ -n "${waf[hybrid]}" ] || continue
    # FAST below half of BAST where theory says so, below it anyway
    if awk -v f="${theo[fast]}" -v b="${theo[hybrid]}" 'BEGIN { exit !(2 * f < b) }'; then
        [ $((2 * ${waf[fast]})) -lt ${waf[hybrid]} ] &&
            echo "ok: $key: FAST's random WAF ${waf[fast]} is below half of BAST's ${waf[hybrid]}" ||
            bad "$key: FAST ${waf[fast]} not below half of BAST ${waf[hybrid]}"
    else
        [ ${waf[fast]} -lt ${waf[hybrid]} ] &&
            echo "ok: $key: FAST's random WAF ${waf[fast]} is below BAST's ${waf[hybrid]}" ||
            bad "$key: FAST ${waf[fast]} not below BAST ${waf[hybrid]}"
    fi
    unset 'waf[fast]' 'waf[hybrid]'
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
