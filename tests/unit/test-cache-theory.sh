#!/bin/bash
# The DRAM models against what theory says of them, on femu-sim; every
# expectation is computed here from the properties the run uses.
#
# - DFTL's cached mapping table under uniform random reads over the whole
#   namespace (after a sequential fill): every translation page is equally
#   likely to be needed, so whatever set of cap pages the LRU holds, a
#   lookup hits with probability cache entries / map entries =
#   (mapping_cache_mb MiB / page size) x (page size / 4) / logical pages.
#   Checked within 2% on two geometries and two cache sizes (map_cache_hits
#   and map_cache_misses of the measured phase, --json); 2 MiB on the
#   tutorial-02 geometry holds the whole map (410 translation pages), so
#   every lookup hits there.
#
# - The read cache (read_cache_mb) under uniform random 4 KiB reads over
#   the whole namespace: under independent uniform references every page
#   has the same probability, so a full cache holds cache pages out of the
#   namespace's pages and hits with that ratio whatever it evicts: LRU,
#   CLOCK, random and FEMU's arc (a 2Q-like scan-resistant variant) all
#   give cache pages / namespace pages.  (Under skewed access they differ;
#   theory gives no such single figure there, so nothing else is asserted.)
#   A warm-up phase fills the cache first; checked within 2% for every
#   cache_evict policy at two sizes.
#
# - The write cache (write_cache_mb = C MiB), QD1 4 KiB sequential writes,
#   8 LUNs, pg_wr_lat 200 us, a pcie_bandwidth_mbps link:
#   a burst of C MiB fits: every write completes after its link transfer,
#   4096 B x 1000 / pcie_bandwidth_mbps ns plus pcie_prop_delay_ns (mean
#   write latency within 3%);
#   longer bursts (4C and 8C MiB) fill it, and then writes go at the NAND
#   program bandwidth, LUNs x page size / pg_wr_lat: the extra pages of the
#   longer burst cost (difference of the bursts' total write latency) /
#   (difference of their pages) = pg_wr_lat / LUNs each (within 3%), and
#   each long phase, its closing Flush included, moves data at that
#   bandwidth (within 3%: the NAND is busy from the first write on).
#
# (tests/unit/test-models.sh checks the first two at one size each; this
# one sweeps sizes and geometries and adds the write cache.)
sim=${1:?usage: test-cache-theory.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# field NAME of phase PHASE in femu-sim's JSON
get() { echo "$1" | grep "\"name\": \"$2\"" | sed -n "s/.*\"$3\": \([0-9]*\).*/\1/p"; }
cfg() { echo "$1" | sed -n "s/.*\"$2\": \([0-9]*\).*/\1/p" | head -1; }
# |got / want - 1| <= tol (a fraction)
near() {
    awk -v g="$1" -v w="$2" -v t="$3" 'BEGIN { if (w == 0) exit 1; d = g / w - 1; if (d < 0) d = -d; exit !(d <= t) }'
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", a / b }'; }

# --- DFTL mapping cache ----------------------------------------------------
for geo in nchs=4,luns_per_ch=4,blks_per_pl=128 nchs=8,luns_per_ch=8,blks_per_pl=64; do
    for mb in 1 2; do
        out=$("$sim" $geo,op_pcent=25,mapping=dftl,mapping_cache_mb=$mb --timing=off --json \
              --phase fill:seqfill --phase m:randread,bs=4k,size=1g) ||
            { bad "dftl $geo mb=$mb: femu-sim exit $?"; continue; }
        nsb=$(cfg "$out" ns_blocks) spp=$(cfg "$out" secs_per_pg) ssz=$(cfg "$out" secsz)
        # page bytes, logical pages (ceiling, as the FTL counts them),
        # translation pages, cached ones (at most all of them)
        want=$(awk -v nsb="$nsb" -v spp="$spp" -v ssz="$ssz" -v mb=$mb 'BEGIN {
            pb = spp * ssz; lp = int((nsb + spp - 1) / spp); epp = pb / 4
            ntp = int((lp + epp - 1) / epp); cap = int(mb * 1048576 / pb)
            w = cap * epp / lp; if (w > 1) w = 1
            printf "%.6f", w }')
        h=$(get "$out" m map_cache_hits) mi=$(get "$out" m map_cache_misses)
        if [ -n "$h" ] && [ -n "$mi" ] && [ $((h + mi)) -gt 0 ] &&
           near "$(ratio "$h" $((h + mi)))" "$want" 0.02; then
            echo "ok: dftl $geo mapping_cache_mb=$mb: hit ratio $(ratio "$h" $((h + mi))) vs cache/map entries $want"
        else
            bad "dftl $geo mapping_cache_mb=$mb: hits $h misses $mi, want ratio $want (within 2%)"
        fi
    done
done

# --- read cache --------------------------------------------------------------
geo=nchs=2,luns_per_ch=2,blks_per_pl=64,op_pcent=25
for mb in 16 128; do
    for p in clock random lru arc; do
        out=$("$sim" $geo,read_cache_mb=$mb,cache_evict=$p --timing=off --json \
              --phase fill:seqfill --phase warm:randread,bs=4k,size=1g \
              --phase m:randread,bs=4k,size=1g) ||
            { bad "read cache $mb $p: femu-sim exit $?"; continue; }
        nsb=$(cfg "$out" ns_blocks) spp=$(cfg "$out" secs_per_pg) ssz=$(cfg "$out" secsz)
        want=$(awk -v nsb="$nsb" -v spp="$spp" -v ssz="$ssz" -v mb=$mb 'BEGIN {
            pb = spp * ssz; printf "%.6f", (mb * 1048576 / pb) / (nsb * ssz / pb) }')
        h=$(get "$out" m cache_hits) mi=$(get "$out" m cache_misses)
        if [ -n "$h" ] && [ -n "$mi" ] && [ $((h + mi)) -gt 0 ] &&
           near "$(ratio "$h" $((h + mi)))" "$want" 0.02; then
            echo "ok: read cache $mb MiB $p: hit ratio $(ratio "$h" $((h + mi))) vs cache/namespace pages $want"
        else
            bad "read cache $mb MiB $p: hits $h misses $mi, want ratio $want (within 2%)"
        fi
    done
done

# --- write cache -------------------------------------------------------------
C=8 bw=2000 prop=500 wr=200000 nchs=2 lpc=4
out=$("$sim" nchs=$nchs,luns_per_ch=$lpc,blks_per_pl=64,op_pcent=25,pg_wr_lat=$wr,pcie_bandwidth_mbps=$bw,pcie_prop_delay_ns=$prop,write_cache_mb=$C \
      --json --phase burst:seqfill,bs=4k,size=${C}m \
      --phase l4:seqfill,bs=4k,size=$((4 * C))m,offset=${C}m \
      --phase l8:seqfill,bs=4k,size=$((8 * C))m,offset=$((5 * C))m) ||
    bad "write cache: femu-sim exit $?"
pb=$(( $(cfg "$out" secs_per_pg) * $(cfg "$out" secsz) ))
luns=$((nchs * lpc))
xfer=$((pb * 1000 / bw + prop))           # ns: one page over the link
tpage=$((wr / luns))                      # ns per page at NAND bandwidth
nandbw=$(awk -v l=$luns -v pb=$pb -v wr=$wr 'BEGIN { printf "%.3f", l * pb / (wr / 1e9) / 1048576 }')
n=$(get "$out" burst writes) s=$(get "$out" burst write_lat_sum_ns) fw=$(get "$out" burst full_waits)
if [ -n "$n" ] && [ "$n" = $((C * 1048576 / pb)) ] && [ "$fw" = 0 ] &&
   near "$(ratio "$s" "$n")" $xfer 0.03; then
    echo "ok: write cache $C MiB, burst of $C MiB: mean write latency $(ratio "$s" "$n") ns vs link transfer $xfer ns, no full waits"
else
    bad "write cache burst: $n writes, latency sum $s, full waits $fw; want mean $xfer ns"
fi
n4=$(get "$out" l4 writes) s4=$(get "$out" l4 write_lat_sum_ns)
n8=$(get "$out" l8 writes) s8=$(get "$out" l8 write_lat_sum_ns)
if [ -n "$n4" ] && [ -n "$n8" ] && [ "$n8" -gt "$n4" ] &&
   near "$(ratio $((s8 - s4)) $((n8 - n4)))" $tpage 0.03; then
    echo "ok: write cache past its size: $(ratio $((s8 - s4)) $((n8 - n4))) ns per extra page vs pg_wr_lat / LUNs $tpage ns ($nandbw MiB/s)"
else
    bad "write cache settle: l4 $n4 writes $s4 ns, l8 $n8 writes $s8 ns; want $tpage ns per extra page"
fi
for p in l4 l8; do
    e=$(get "$out" $p emul_ns) hp=$(get "$out" $p host_pages_written)
    got=$(awk -v hp="$hp" -v pb=$pb -v e="$e" 'BEGIN { if (e > 0) printf "%.3f", hp * pb / (e / 1e9) / 1048576 }')
    if [ -n "$got" ] && near "$got" "$nandbw" 0.03; then
        echo "ok: write cache phase $p with its Flush: $got MiB/s vs NAND program bandwidth $nandbw MiB/s"
    else
        bad "write cache phase $p: $hp pages in $e ns = '$got' MiB/s, want $nandbw"
    fi
done
exit $fail
