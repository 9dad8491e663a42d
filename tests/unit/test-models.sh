#!/bin/bash
# The NAND and cache models in femu-sim: QD1 random reads show one
# latency per page type at the configured times; the read cache's hit
# ratio under uniform random reads over the whole namespace is its size
# over the namespace's; trim_lat_ns costs each range; bad values are
# refused naming the property.
sim=${1:?usage: test-models.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
# 64 lines of 1 MiB (4 LUNs x 64 pages of 4 KiB), 51 MiB namespace
G=nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,op_pcent=25
phase() { echo "$1" | grep "\"name\": \"$2\""; }
# the distinct non-zero read latencies of phase rd, ascending
modes() {
    phase "$1" rd | sed -n 's/.*"modes": \[\(.*\)\], "other".*/\1/p' |
        tr -d '[] ' | tr ',' '\n' | paste -d' ' - - |
        awk '$1 > 0 && $2 > 0 { print $1 }' | tr '\n' ' ' | sed 's/ $//'
}

# uniform timing: one latency, pg_rd_lat
out=$("$sim" $G --json --phase fill:seqfill --phase rd:randread,size=16m) ||
    bad "uniform: exit $?"
[ "$(modes "$out")" = 40000 ] || bad "uniform: read latencies '$(modes "$out")'"

# each cell type: FEMU's per-type read times by default
want=([1]="40000" [2]="48000 64000" [3]="56500 77500 106000"
      [4]="59325 85250 127200 169600")
for ct in 1 2 3 4; do
    out=$("$sim" $G,nand_cell_type=$ct --json --phase fill:seqfill \
          --phase rd:randread,size=32m) || { bad "cell $ct: exit $?"; continue; }
    [ "$(modes "$out")" = "${want[$ct]}" ] ||
        bad "nand_cell_type=$ct: read latencies '$(modes "$out")', want '${want[$ct]}'"
done
# configured per-type times replace the defaults
out=$("$sim" $G,nand_cell_type=3,lsb_rd_lat=30000,csb_rd_lat=60000,msb_rd_lat=90000 \
      --json --phase fill:seqfill --phase rd:randread,size=32m) || bad "tlc times: exit $?"
[ "$(modes "$out")" = "30000 60000 90000" ] ||
    bad "TLC with lsb/csb/msb_rd_lat: read latencies '$(modes "$out")'"
# page types never change what is written or moved
a=$("$sim" $G --json --waf-run=age=64m,measure=64m | grep -o '"waf_x1000": [0-9]*' | tr '\n' ' ')
b=$("$sim" $G,nand_cell_type=4 --json --waf-run=age=64m,measure=64m | grep -o '"waf_x1000": [0-9]*' | tr '\n' ' ')
[ -n "$a" ] && [ "$a" = "$b" ] || bad "QLC changed the WAF: '$a' vs '$b'"

# read cache: hits / (hits + misses) = cache pages / namespace pages
for ev in clock random lru arc; do
    # every page of the namespace written (4 KiB fill), so every read is
    # of a mapped page
    out=$("$sim" $G,read_cache_mb=16,cache_evict=$ev --json --phase fill:seqfill,bs=4k \
          --phase warm:randread,size=64m --phase rd:randread,size=256m) ||
        { bad "cache $ev: exit $?"; continue; }
    nsb=$(echo "$out" | sed -n 's/.*"ns_blocks": \([0-9]*\).*/\1/p')
    rd=$(phase "$out" rd)
    h=$(echo "$rd" | sed -n 's/.*"cache_hits": \([0-9]*\).*/\1/p')
    m=$(echo "$rd" | sed -n 's/.*"cache_misses": \([0-9]*\).*/\1/p')
    awk -v h="$h" -v m="$m" -v nsb="$nsb" -v ev=$ev 'BEGIN {
        want = 16 * 1024 * 1024 / 4096 / (nsb * 512 / 4096)
        got = h / (h + m); d = got / want - 1; if (d < 0) d = -d
        printf "cache_evict=%s: hit ratio %.4f, cache/namespace %.4f\n", ev, got, want
        exit !(h + m > 0 && d <= 0.02) }' || bad "cache_evict=$ev: hit ratio off by more than 2%"
    # a hit costs a sixteenth of a page read and no NAND read
    phase "$out" rd | grep -q '\[2500, '"$h"'\]' || bad "cache_evict=$ev: $h hits not at 2500 ns"
done
# without a cache: no hits, every mapped page read from NAND
out=$("$sim" $G --json --phase fill:seqfill --phase rd:randread,size=16m)
phase "$out" rd | grep -q '"cache_hits": 0, "cache_misses": 0' || bad "hits without a cache"
# a write drops the cached copy: reading a page, rewriting it, reading it
# again is a miss
out=$("$sim" $G,read_cache_mb=1 --json --phase fill:seqfill,bs=4k,size=4k \
      --phase rd:randread,region=4k,size=8k)
phase "$out" rd | grep -q '"cache_hits": 1, "cache_misses": 1' ||
    bad "cache: a page read twice: $(phase "$out" rd)"
out=$("$sim" $G,read_cache_mb=1 --json --phase fill:seqfill,bs=4k,size=4k \
      --phase a:randread,region=4k,size=4k --phase b:seqfill,bs=4k,size=4k \
      --phase rd:randread,region=4k,size=8k)
phase "$out" rd | grep -q '"cache_hits": 1, "cache_misses": 1' ||
    bad "cache: a rewritten page was still a hit: $(phase "$out" rd)"

# trim_lat_ns: each deallocated range costs it (QD1: the phase takes
# ranges x trim_lat_ns); 0 costs nothing
out=$("$sim" $G,trim_lat_ns=5000 --json --phase fill:seqfill --phase t:randtrim,size=4m)
phase "$out" t | grep -q '"requests": 1024,.*"emul_ns": 5120000' ||
    bad "trim_lat_ns=5000: $(phase "$out" t)"
out=$("$sim" $G --json --phase fill:seqfill --phase t:randtrim,size=4m)
phase "$out" t | grep -q '"emul_ns": 0' || bad "trim without trim_lat_ns: $(phase "$out" t)"

# the host link and the firmware CPU after the NAND read: 40000 + 4096 B
# at 2000 MB/s (2048) + 500 + 1000 ns at QD1
# (every page written: an unwritten page's read pays the link and CPU only)
out=$("$sim" $G,pcie_bandwidth_mbps=2000,pcie_prop_delay_ns=500,fw_cpu_ns=1000 \
      --json --phase fill:seqfill,bs=4k --phase rd:randread,size=4m)
[ "$(modes "$out")" = 43548 ] || bad "link and CPU: read latencies '$(modes "$out")'"
# a 128 KiB write: 65536 ns on the link (2000 MB/s) + 500 + 1000 after
# its programs (32 pages over 4 LUNs: eight 200 us programs each)
out=$("$sim" $G,pcie_bandwidth_mbps=2000,pcie_prop_delay_ns=500,fw_cpu_ns=1000 \
      --json --phase fill:seqfill)
phase "$out" fill | grep -q '"requests": 409,.*"emul_ns": '$((409 * (8 * 200000 + 65536 + 1500)))'}' ||
    bad "link and CPU: fill $(phase "$out" fill)"

# mapping=dftl: under uniform random reads over the whole namespace the
# translation-page cache hits cached pages / translation pages (1 MiB =
# 256 of the 410 pages of a 1.6 GiB namespace); the WAF counts the
# translation-page programs; mapping=page is the default
T=nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25
out=$("$sim" $T,mapping=dftl,mapping_cache_mb=1 --json --phase fill:seqfill,bs=4k \
      --phase warm:randread,size=256m --phase rd:randread,size=1g \
      --phase w:randwrite,size=1g) || bad "dftl: exit $?"
rd=$(phase "$out" rd)
h=$(echo "$rd" | sed -n 's/.*"map_cache_hits": \([0-9]*\).*/\1/p')
m=$(echo "$rd" | sed -n 's/.*"map_cache_misses": \([0-9]*\).*/\1/p')
awk -v h="$h" -v m="$m" 'BEGIN {
    want = 256 / 410; got = h / (h + m); d = got / want - 1; if (d < 0) d = -d
    printf "dftl: translation cache hit ratio %.4f, cached/total %.4f\n", got, want
    exit !(h + m > 0 && d <= 0.02) }' || bad "dftl hit ratio off by more than 2%"
# each miss read its translation page first: two page reads
phase "$out" rd | grep -q '"modes": \[\[40000, '"$h"'\], \[80000, '"$m"'\]\]' ||
    bad "dftl: read latencies $(phase "$out" rd | grep -o '"modes": [^}]*')"
w=$(phase "$out" w)
echo "$w" | python3 -c '
import json, sys
s = sys.stdin.read().strip()
p = json.loads(s[:s.rindex("}") + 1])
t = p["host_pages_programmed"] + p["gc_pages_moved"] + p["trans_pages_programmed"]
assert p["trans_pages_programmed"] > 0, p
assert p["waf_x1000"] == t * 1000 // p["host_pages_written"], p' || bad "dftl WAF: $w"
a=$("$sim" $G --waf-run=age=64m,measure=64m)
b=$("$sim" $G,mapping=page --waf-run=age=64m,measure=64m)
[ "$a" = "$b" ] || bad "mapping=page is not the default"

# bad values: one line naming the property
refused() {
    local e
    e=$("$sim" $G,"$1" --phase f:seqfill,size=4k 2>&1 >/dev/null) && { bad "$1 accepted"; return; }
    echo "$e" | grep -q "$2" || bad "$1: message '$e' does not name $2"
    [ "$(echo "$e" | wc -l)" = 1 ] || bad "$1: more than one line: $e"
}
refused nand_cell_type=5 'nand_cell_type=5'
refused nand_cell_type=3,tsb_rd_lat=9 'tsb_rd_lat=9'
refused msb_wr_lat=9 'msb_wr_lat=9: needs nand_cell_type'
refused cell_pages=6 'cell_pages=6'
refused read_cache_mb=52 'read_cache_mb=52 exceeds the namespace'
refused cache_evict=mru 'cache_evict=mru: unknown'
refused mapping=nkftl 'mapping=nkftl: unknown'
refused mapping=dftl 'mapping_cache_mb=0: mapping=dftl caches at least one'
"$sim" $G,read_cache_mb=51 --phase f:seqfill,size=4k >/dev/null || bad "read_cache_mb=51 (the namespace) refused"
exit $fail
