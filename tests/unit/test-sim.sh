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

# --waf-run is tutorial 02's procedure: uniform writes keep fio's random
# map (every block once per pass) unless randommap=off
d=$("$sim" $geo --waf-run=age=256m,measure=256m)
r=$("$sim" $geo --waf-run=age=256m,measure=256m,randommap=on)
n=$("$sim" $geo --waf-run=age=256m,measure=256m,randommap=off)
[ "$d" = "$r" ] || bad "--waf-run default is not randommap=on"
[ "$d" != "$n" ] || bad "randommap=off changes nothing"

# the shape tutorial 02 teaches, on the scaled device: with one write
# pointer for host writes and GC the five policies are within 25% of each
# other under Zipf 1.2; hot_cold_sep=on (relocations in the cold line)
# cuts greedy's Zipf WAF by at least 40%; gc_own_line=on is accepted and
# moves fewer pages than the shared write pointer here
sg=nchs=2,luns_per_ch=2,blks_per_pl=128,op_pcent=25,gc_thres_pcent=95
wafm() { "$sim" "$@" | awk '$1 == "measure" {print $8}'; }
lo=999999 hi=0
for p in greedy fifo random cost-benefit d-choice; do
    w=$(wafm $sg,gc_policy=$p --waf-run=age=1g,measure=1g,zipf=1.2)
    [ -n "$w" ] || { bad "no WAF for $p"; continue; }
    [ "$w" -lt "$lo" ] && lo=$w
    [ "$w" -gt "$hi" ] && hi=$w
done
[ $((hi * 100)) -le $((lo * 125)) ] || bad "Zipf policies spread $lo..$hi"
g=$(wafm $sg --waf-run=age=1g,measure=1g,zipf=1.2)
h=$(wafm $sg,hot_cold_sep=on --waf-run=age=1g,measure=1g,zipf=1.2)
[ $((h * 100)) -le $((g * 60)) ] || bad "hot_cold_sep: Zipf WAF $g -> $h"
o=$(wafm $sg,gc_own_line=on --waf-run=age=1g,measure=1g,zipf=1.2)
[ -n "$o" ] && [ "$o" -lt "$g" ] || bad "gc_own_line: Zipf WAF $g -> $o"

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

# state files: fill + age saved, then loaded and measured, gives the same
# measure phase as one run (the same pages, GC moves and emulated time);
# a loaded state carries the counters since start
st=$(mktemp -d)
sg2=nchs=2,luns_per_ch=2,blks_per_pl=128,op_pcent=25
whole=$("$sim" $sg2,gc_policy=cost-benefit --waf-run=age=256m,measure=256m)
"$sim" $sg2,gc_policy=cost-benefit --waf-run=age=256m,measure=256m,part=precondition \
    --save-state "$st/aged" >/dev/null || bad "--save-state exit $?"
[ -e "$st/aged.tmp" ] && bad "temporary file left behind"
cont=$("$sim" $sg2,gc_policy=cost-benefit --load-state "$st/aged" \
    --waf-run=age=256m,measure=256m,part=measure) || bad "--load-state exit $?"
m1=$(echo "$whole" | grep '^measure'); m2=$(echo "$cont" | grep '^measure')
[ -n "$m1" ] && [ "$m1" = "$m2" ] || bad "measure after load: '$m2' vs '$m1'"
t1=$(echo "$whole" | grep '^C0h'); t2=$(echo "$cont" | grep '^C0h')
[ "$t1" = "$t2" ] || bad "C0h after load: '$t2' vs '$t1'"
err=$("$sim" $sg2,gc_policy=greedy --load-state "$st/aged" 2>&1 >/dev/null)
[ $? -eq 1 ] || bad "gc_policy mismatch not refused"
echo "$err" | grep -q 'gc_policy is cost-benefit in the state file but greedy here' ||
    bad "mismatch message: $err"
sz=$(stat -c %s "$st/aged")
head -c $((sz - 30)) "$st/aged" > "$st/cut"
err=$("$sim" $sg2,gc_policy=cost-benefit --load-state "$st/cut" 2>&1 >/dev/null)
[ $? -eq 1 ] && echo "$err" | grep -q 'truncated state file' || bad "truncated: $err"
cp "$st/aged" "$st/flip"
printf '\x5a' | dd of="$st/flip" bs=1 seek=5000 conv=notrunc status=none
err=$("$sim" $sg2,gc_policy=cost-benefit --load-state "$st/flip" 2>&1 >/dev/null)
[ $? -eq 1 ] && echo "$err" | grep -q 'corrupted state file (checksum of the FTL section' ||
    bad "flipped byte: $err"
err=$("$sim" $sg2 --load-state "$st/none" 2>&1 >/dev/null)
[ $? -eq 1 ] || bad "missing file: $err"

# a device's state: femu-sim --load-state P --save-state P keeps the
# device's sections (DEV as it was, DATA without the blocks this run
# wrote: they read as zeroes), and takes the device's lock on P.lock.
# sections.py adds a DEV and a DATA section (chunks 0, 1, 300 of 4 KiB,
# each filled with its index + 1) to a femu-sim state, or lists them.
cat > "$st/sections.py" <<'EOF'
import struct, sys
def crc32c(b, crc=0):
    crc ^= 0xffffffff
    for x in b:
        crc ^= x
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82f63b78 if crc & 1 else 0)
    return crc ^ 0xffffffff
def read(path):
    d = open(path, 'rb').read(); off = 16; out = []
    while off < len(d):
        tag, _, n = struct.unpack_from('<4sIQ', d, off)
        assert crc32c(d[off:off + 16 + n]) == struct.unpack_from('<I', d, off + 16 + n)[0]
        out.append((tag, d[off + 16:off + 16 + n])); off += 20 + n
    return d[:16], out
def sec(tag, p):
    h = struct.pack('<4sIQ', tag, 0, len(p))
    return h + p + struct.pack('<I', crc32c(h + p))
head, secs = read(sys.argv[1])
if sys.argv[2] == 'add':
    dev = struct.pack('<4Q', 11, 22, 33, 44)
    data = struct.pack('<II', 4096, 3) + b''.join(
        struct.pack('<Q', i) + bytes([i % 255 + 1]) * 4096 for i in (0, 1, 300))
    out = head + b''.join(sec(t, p) for t, p in secs if t != b'END ')
    open(sys.argv[1], 'wb').write(out + sec(b'DEV ', dev) + sec(b'DATA', data) + sec(b'END ', b''))
elif sys.argv[2] in ('gen', 'torn'):
    # an appended generation, as the device's incremental save writes it:
    # the FTL section again, DEV, chunk 7 written, chunk 300 trimmed, END
    # naming generation 1 and its length ('torn': cut in the middle)
    d = open(sys.argv[1], 'rb').read()
    ftl = [p for t, p in secs if t == b'FTL '][-1]
    g = (sec(b'FTL ', ftl) + sec(b'DEV ', struct.pack('<4Q', 55, 66, 77, 88)) +
         sec(b'DATA', struct.pack('<IIQ', 4096, 1, 7) + bytes([8]) * 4096) +
         sec(b'TRIM', struct.pack('<IIQQ', 1, 0, 300, 1)))
    g += sec(b'END ', struct.pack('<QQ', 1, len(g)))
    open(sys.argv[1], 'wb').write(d + (g if sys.argv[2] == 'gen' else g[:len(g) // 2]))
elif sys.argv[2] == 'ns':
    # a device with three namespaces (format 5): NS sections before each
    # one's DATA; 2 BlackBox from FTL block 8192 (4 MiB), 3 NoSSD
    def ns(i, mode, base):
        return sec(b'NS  ', struct.pack('<IIQIIQ4Q', i, 3, 2048, mode, 0, base, i, 0, 0, 0))
    def data(*ix):
        return sec(b'DATA', struct.pack('<II', 4096, len(ix)) + b''.join(
            struct.pack('<Q', i) + bytes([i % 255 + 1]) * 4096 for i in ix))
    out = head + b''.join(sec(t, p) for t, p in secs if t not in (b'END ', b'DEV ', b'DATA'))
    open(sys.argv[1], 'wb').write(out + sec(b'DEV ', struct.pack('<4Q', 11, 22, 33, 44)) +
        ns(1, 1, 0) + data(0, 1, 300) + ns(2, 1, 8192) + data(0, 2) +
        ns(3, 2, 0) + data(0) + sec(b'END ', b''))
else:
    for t, p in secs:
        if t == b'NS  ':
            print('NS', *struct.unpack_from('<II', p))
        if t == b'DEV ':
            print('DEV', *struct.unpack('<4Q', p))
        elif t == b'DATA':
            for k in range(struct.unpack_from('<I', p, 4)[0]):
                r = p[8 + k * 4104:8 + (k + 1) * 4104]
                i = struct.unpack_from('<Q', r)[0]
                z = [j for j in range(8) if r[8 + 512 * j:8 + 512 * (j + 1)] == bytes(512)]
                full = all(r[8 + 512 * j:8 + 512 * (j + 1)] == bytes([i % 255 + 1]) * 512 for j in range(8) if j not in z)
                print('DATA', i, 'zero', ','.join(map(str, z)) or '-', 'ok' if full else 'bad')
EOF
dg=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
"$sim" $dg --phase f:seqfill,size=8m --save-state "$st/dev" >/dev/null || bad "device-like state"
python3 "$st/sections.py" "$st/dev" add || bad "sections.py add"
"$sim" $dg --load-state "$st/dev" --phase a:seqfill,bs=4k,size=4k \
    --phase b:seqfill,bs=512,offset=4608,size=512 --save-state "$st/dev" >/dev/null ||
    bad "--load-state P --save-state P exit $?"
got=$(python3 "$st/sections.py" "$st/dev" list | tr '\n' ';')
[ "$got" = "DEV 11 22 33 44;DATA 1 zero 1 ok;DATA 300 zero - ok;" ] ||
    bad "device sections after saving over them: '$got'"
"$sim" $dg --load-state "$st/dev" >/dev/null || bad "the saved state does not load"
# generations (the device's incremental saves): femu-sim loads the last
# one and merges the data into one generation when it saves (chunk 7
# added, chunk 300 trimmed, the last DEV); a torn last generation (a save
# killed half way) is ignored
cp "$st/dev" "$st/gen"
python3 "$st/sections.py" "$st/gen" torn || bad "sections.py torn"
"$sim" $dg --load-state "$st/gen" --save-state "$st/gen2" >/dev/null || bad "torn generation: exit $?"
got=$(python3 "$st/sections.py" "$st/gen2" list | tr '\n' ';')
[ "$got" = "DEV 11 22 33 44;DATA 1 zero 1 ok;DATA 300 zero - ok;" ] ||
    bad "sections after a torn generation: '$got'"
cp "$st/dev" "$st/gen"
python3 "$st/sections.py" "$st/gen" gen || bad "sections.py gen"
"$sim" $dg --load-state "$st/gen" --save-state "$st/gen" >/dev/null || bad "generations: exit $?"
got=$(python3 "$st/sections.py" "$st/gen" list | tr '\n' ';')
[ "$got" = "DEV 55 66 77 88;DATA 1 zero 1 ok;DATA 7 zero - ok;" ] ||
    bad "sections after merging a generation: '$got'"
# several namespaces: each one's DATA stays after its NS section; the
# blocks this run wrote are dropped from namespace 1 (FTL blocks from 0)
# and from BlackBox namespace 2 (from its base, block 8192), not from
# NoSSD namespace 3, whose data is not in the FTL
python3 "$st/sections.py" "$st/gen" ns || bad "sections.py ns"
"$sim" $dg --load-state "$st/gen" --phase a:seqfill,bs=4k,size=4k \
    --phase b:seqfill,bs=512,offset=4608,size=512 \
    --phase c:seqfill,bs=4k,offset=4m,size=4k --save-state "$st/gen" >/dev/null ||
    bad "namespaces: exit $?"
got=$(python3 "$st/sections.py" "$st/gen" list | tr '\n' ';')
[ "$got" = "DEV 11 22 33 44;NS 1 3;DATA 1 zero 1 ok;DATA 300 zero - ok;NS 2 3;DATA 2 zero - ok;NS 3 3;DATA 0 zero - ok;" ] ||
    bad "sections of three namespaces after saving over them: '$got'"
# the lock: held by another process (as the device holds it), femu-sim
# neither loads nor saves P; the lock file of P's other name is the same
python3 -c 'import fcntl, sys, time
f = open(sys.argv[1] + ".lock", "a"); fcntl.lockf(f, fcntl.LOCK_EX)
open(sys.argv[1] + ".held", "w").close(); time.sleep(60)' "$st/dev" &
holder=$!
for _ in $(seq 100); do [ -e "$st/dev.held" ] && break; sleep 0.1; done
err=$("$sim" $dg --load-state "$st/dev" 2>&1 >/dev/null)
[ $? -eq 1 ] && echo "$err" | grep -q "femu-sim: --load-state $st/dev: in use by a femu device or another femu-sim ($st/dev.lock is locked)" ||
    bad "load of a locked state: $err"
err=$("$sim" $dg --phase f:seqfill,size=4k --save-state "$st/./dev" 2>&1 >/dev/null)
[ $? -eq 1 ] && echo "$err" | grep -q "in use by a femu device" || bad "save over a locked state: $err"
kill $holder; wait $holder 2>/dev/null
"$sim" $dg --load-state "$st/dev" --save-state "$st/./dev" >/dev/null ||
    bad "P and ./P: one lock"
rm -rf "$st"

# Zoned mode (femu_mode=3): the zone model of the device.  Times follow
# from the properties: W us per page program, E us per erase, a 2 MiB zone
# over 2 LUNs of 256 KiB blocks (K = 4 blocks per LUN).
W=10000 E=2000 K=4
zg=femu_mode=3,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,zone_luns=2,zone_size_mb=2,pg_wr_lat=${W}000,blk_er_lat=${E}000
zo=$("$sim" $zg --phase w1:zwrite,zones=1,size=1m --phase a1:zappend,first=1,zones=1,size=1m \
    --phase w32:zwrite,first=2,zones=1,qd=32,size=1m --phase a32:zappend,first=3,zones=1,qd=32,size=1m \
    --phase reset:zreset,zones=4 --phase empty:zreset,zones=4 \
    --phase one:zwrite,zones=1,bs=8k --phase apart:zwrite,first=2,zones=2,jobs=2,bs=8k \
    --phase same:zwrite,first=4,stride=2,zones=2,jobs=2,bs=8k) || bad "zoned exit $?"
echo "$zo"
# col PHASE N: field N of the phase's row (6 requests, 7 host pages,
# 8 programmed, 9 resets, 10 erased, 11 errors, 12 emul_s, 14 mean latency us)
col() { echo "$zo" | awk -v p="$1" -v n="$2" '$1 == p {print $n}'; }
us() { echo "$zo" | awk -v p="$1" '$1 == p {printf "%.0f", $12 * 1e6}'; }
# QD1: one page program per 4 KiB request, write and append alike
[ "$(col w1 14)" = "$W.0" ] && [ "$(col a1 14)" = "$W.0" ] || bad "QD1 latency: $(col w1 14) $(col a1 14)"
[ "$(us w1)" = $((256 * W)) ] || bad "QD1 1 MiB: $(us w1) us"
# QD32: the zone's two LUNs program at once: half the time
[ "$(us w32)" = $((128 * W)) ] && [ "$(us a32)" = $((128 * W)) ] ||
    bad "QD32 1 MiB: $(us w32) $(us a32) us"
# a reset of a written zone: K erases on each of its LUNs at once
[ "$(col reset 9) $(col reset 10)" = "4 32" ] || bad "reset counts: $(col reset 9) $(col reset 10)"
[ "$(col reset 14)" = "$((K * E)).0" ] || bad "reset latency: $(col reset 14) us"
[ "$(col empty 10) $(us empty)" = "0 0" ] || bad "empty reset: $(col empty 10) $(us empty)"
# two writers on zones of different groups take one writer's time; on
# the same group twice that
[ "$(us apart)" = "$(us one)" ] || bad "different groups: $(us apart) vs $(us one)"
[ "$(us same)" = $((2 * $(us one))) ] || bad "same group: $(us same) vs $(us one)"
echo "$zo" | grep -q '^C0h since start: waf_x1000=1000 host_pages_written=3584 gc_pages_moved=0 host_pages_programmed=3584 zone_resets=4 blocks_erased=32' ||
    bad "zoned C0h line"
# a writer beyond max_active gets errors (Too Many Active Zones), the
# other one writes its zone; a finished zone takes no writes
ze=$("$sim" $zg,max_open=1,max_active=1 --phase w:zwrite,zones=2,jobs=2,size=8k \
    --phase f:zfinish,zones=1 --phase w2:zwrite,zones=1)
[ "$(echo "$ze" | awk '$1 == "w" {print $6, $7, $11}')" = "3 2 1" ] || bad "max_active: $ze"
[ "$(echo "$ze" | awk '$1 == "w2" {print $6}')" = 0 ] || bad "write to a full zone: $ze"
# the device's refusals, exit 1; bad phases exit 2
err=$("$sim" $zg,zone_luns=3 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && echo "$err" | grep -q 'zone_luns=3' || bad "zone_luns=3: $rc $err"
"$sim" $zg --phase x:zwrite,first=32 >/dev/null 2>&1; [ $? = 2 ] || bad "first=32 accepted"
"$sim" $zg --phase x:randwrite >/dev/null 2>&1; [ $? = 2 ] || bad "randwrite in zoned mode"

# write_cache_mb: 0 is the default and changes nothing; a burst smaller
# than the cache completes in link transfer time only (4096 B at
# 3000 MB/s: 1365 ns) and never waits; a run larger than the cache waits
# for NAND; the end-of-phase flush puts every page that was not replaced
# in the cache on NAND, so the C0h line counts them
wg=nchs=2,luns_per_ch=2,blks_per_pl=64,devsz_mb=192,pcie_bandwidth_mbps=3000
[ "$("$sim" $wg --phase b:randwrite,bs=4k,size=4m)" = \
  "$("$sim" $wg,write_cache_mb=0 --phase b:randwrite,bs=4k,size=4m)" ] ||
    bad "write_cache_mb=0 changes the output"
wc=$("$sim" $wg,write_cache_mb=64 --phase burst:randwrite,bs=4k,size=4m \
    --phase big:randwrite,bs=4k,size=128m)
echo "$wc" | grep -q '^write cache burst: .* full_waits=0 write_lat_mean_ns=1365 ' ||
    bad "burst smaller than the cache: $wc"
lat=$(echo "$wc" | sed -n 's/^write cache big: .*write_lat_mean_ns=\([0-9]*\).*/\1/p')
waits=$(echo "$wc" | sed -n 's/^write cache big: .*full_waits=\([0-9]*\).*/\1/p')
[ "${lat:-0}" -gt $((5 * 1365)) ] && [ "${waits:-0}" -gt 0 ] ||
    bad "larger than the cache: no wait for NAND ($lat ns, $waits waits)"
sum=0
for ph in burst big; do
    set -- $(echo "$wc" | sed -n "s/^write cache $ph: host_pages=\([0-9]*\) write_hits=\([0-9]*\) read_hits=[0-9]* destaged=\([0-9]*\).*/\1 \2 \3/p")
    [ $# = 3 ] && [ $1 = $(($2 + $3)) ] || bad "$ph: host pages != hits + destaged: $*"
    sum=$((sum + ${3:-0}))
done
echo "$wc" | grep -q "^C0h since start: waf_x1000=1000 host_pages_written=$sum " ||
    bad "C0h after the flushes: want $sum pages written: $wc"

[ $fail = 0 ] && echo "test-sim: ok"
exit $fail
