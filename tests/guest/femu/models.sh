# Guest side of tests/guest/femu-models.t.  Devices (in this order):
#  vSSD0: TLC with LSB/CSB/MSB reads of 10/40/70 ms (30 ms apart: a
#         loaded TCG host was seen adding 11 ms to a read)
#  vSSD1: a 4 MiB read cache, 20 ms page reads, 200 ms per trim range
#  vSSD2: no NAND time; a 1 MB/s link (4 KiB: 4.096 ms), 5 ms
#         propagation, 10 ms of firmware per command
#  vSSD3: mapping=dftl with 512-byte pages: 128 mapping entries per
#         translation page
#  vSSD4: mapping=hybrid, 4 log blocks, blocks of 64 pages (256 KiB)
A=$(ctrl_of vSSD0) || { bad "no controller with SN vSSD0"; finish; exit; }
B=$(ctrl_of vSSD1) || { bad "no controller with SN vSSD1"; finish; exit; }
C=$(ctrl_of vSSD2) || { bad "no controller with SN vSSD2"; finish; exit; }
D=$(ctrl_of vSSD3) || { bad "no controller with SN vSSD3"; finish; exit; }
E=$(ctrl_of vSSD4) || { bad "no controller with SN vSSD4"; finish; exit; }
AN=/dev/${A}n1 BN=/dev/${B}n1 CN=/dev/${C}n1 DN=/dev/${D}n1 EN=/dev/${E}n1
MS=1000000

# --- cell types: QD1 random reads of written pages take their page
# type's time.  4 MiB = 4 lines of 64-page blocks on 4 LUNs, so every
# page index of a block is written: LSB 26, CSB 20, MSB 18 of 64.
fio --name=wa --filename=$AN --rw=write --bs=128k --direct=1 --ioengine=libaio \
    --iodepth=4 --size=4M --output=/dev/null
pct=$(fio --output-format=json --name=ra --filename=$AN --rw=randread --bs=4k \
      --direct=1 --ioengine=psync --size=4M --number_ios=80 \
      --percentile_list=10:50:90 | python3 -c '
import sys, json
p = json.load(sys.stdin)["jobs"][0]["read"]["clat_ns"]["percentile"]
print(*(int(p[k]) for k in ("10.000000", "50.000000", "90.000000")))')
echo "TLC QD1 read latency p10 p50 p90 (ns): $pct"
set -- $pct
in_ms() { [ "$1" -ge $(($2 * MS)) ] && [ "$1" -lt $(($3 * MS)) ]; }
check "p10 is an LSB read (10..39 ms)" in_ms "$1" 10 39
check "p50 is a CSB read (40..69 ms)" in_ms "$2" 40 69
check "p90 is an MSB read (70..99 ms)" in_ms "$3" 70 99

# --- read cache: the second sequential pass over 2 MiB is all hits
fio --name=wb --filename=$BN --rw=write --bs=128k --direct=1 --ioengine=libaio \
    --iodepth=4 --size=2M --output=/dev/null
cache() {
    nvme get-log "/dev/$1" --log-id=0xc0 --log-len=512 -b |
        python3 -c 'import sys,struct; d=sys.stdin.buffer.read(); print(*struct.unpack_from("<QQ", d, 48))'
}
check "C0h cache counters start at 0 0" [ "$(cache $B)" = "0 0" ]
read mn mean p50 < <(fiolat --name=r1 --filename=$BN --rw=read --bs=4k --direct=1 \
    --ioengine=psync --size=2M)
echo "first pass: min $mn mean $mean ns; C0h hits misses: $(cache $B)"
check "first pass: 512 misses" [ "$(cache $B)" = "0 512" ]
check "first pass reads NAND (min >= pg_rd_lat)" [ "$mn" -ge $((20 * MS)) ]
read mn mean p50 < <(fiolat --name=r2 --filename=$BN --rw=read --bs=4k --direct=1 \
    --ioengine=psync --size=2M)
echo "second pass: min $mn mean $mean p50 $p50 ns; C0h hits misses: $(cache $B)"
check "second pass: 512 hits" [ "$(cache $B)" = "512 512" ]
check "hits skip NAND (median < pg_rd_lat/2)" [ "$p50" -lt $((10 * MS)) ]
# a rewritten page is read from NAND again
fio --name=wc --filename=$BN --rw=write --bs=4k --direct=1 --ioengine=psync \
    --size=4k --output=/dev/null
fio --name=r3 --filename=$BN --rw=read --bs=4k --direct=1 --ioengine=psync \
    --size=4k --output=/dev/null
check "a rewritten page misses" [ "$(cache $B)" = "512 513" ]

# --- trim cost: one range costs trim_lat_ns, two ranges twice that
# (busybox date has no %N: python times the commands)
dsm_ns() {
    python3 -c 'import subprocess, sys, time
t = time.monotonic_ns()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(time.monotonic_ns() - t if r.returncode == 0 else -1)' nvme dsm $BN "$@"
}
one=$(dsm_ns --ad -s 0 -b 8)
two=$(dsm_ns --ad -s 0,100 -b 8,8)
echo "dsm 1 range: $one ns, 2 ranges: $two ns"
check "1 range takes >= trim_lat_ns" [ "$one" -ge $((200 * MS)) ]
check "2 ranges take >= 2 x trim_lat_ns" [ "$two" -ge $((400 * MS)) ]

# --- host link and firmware CPU: every 4 KiB read or write takes at least
# 4.096 + 5 + 10 ms with no NAND time at all
read mn mean p50 < <(fiolat --name=lw --filename=$CN --rw=randwrite --bs=4k \
    --direct=1 --ioengine=psync --size=1M --number_ios=20 --randrepeat=0)
echo "QD1 4k writes over the link: min $mn mean $mean ns"
check "writes pay link + propagation + CPU" [ "$mn" -ge 19096000 ]
read mn mean p50 < <(fiolat --name=lr --filename=$CN --rw=randread --bs=4k \
    --direct=1 --ioengine=psync --size=1M --number_ios=20)
echo "QD1 4k reads over the link: min $mn mean $mean ns"
check "reads pay link + propagation + CPU" [ "$mn" -ge 19096000 ]

# --- mapping=dftl: C0h bytes 64-95 count translation reads, programs,
# hits and misses; 4 MiB written from LBA 0 = 8192 mapping accesses over
# 64 translation pages (the boot's partition scan may have touched the
# first one already); reading them again hits every time
dftl() {
    nvme get-log "/dev/$1" --log-id=0xc0 --log-len=512 -b |
        python3 -c 'import sys,struct; d=sys.stdin.buffer.read(); print(*struct.unpack_from("<QQQQ", d, 64))'
}
set -- $(dftl $D); h0=$3 m0=$4
fio --name=dw --filename=$DN --rw=write --bs=128k --direct=1 --ioengine=psync \
    --size=4M --output=/dev/null
set -- $(dftl $D); h1=$3 m1=$4
echo "dftl write: $((h1 - h0)) hits, $((m1 - m0)) misses (C0h: $(dftl $D))"
check "dftl: 8192 mapping accesses for 4 MiB" [ $((h1 - h0 + m1 - m0)) = 8192 ]
check "dftl: one miss per translation page" [ $((m1 - m0)) -ge 63 ] && [ $((m1 - m0)) -le 64 ]
fio --name=dr --filename=$DN --rw=read --bs=128k --direct=1 --ioengine=psync \
    --size=4M --output=/dev/null
set -- $(dftl $D); h2=$3 m2=$4
check "dftl: reading them again hits" [ $((h2 - h1)) = 8192 ] && [ $m2 = $m1 ]

# --- mapping=hybrid: C0h bytes 96-119 count switch, partial and full
# merges, their copies are GC pages moved (bytes 16-23).  Filling 4 MiB
# writes the data blocks in place; writing it again in order fills each
# log block in order: 16 switch merges (4 MiB / 256 KiB), no copy.
# Random 4 KiB overwrites of the 16 blocks with 4 log blocks: most find
# no log block for theirs and merge the oldest, a full merge of 64 pages.
merges() {
    nvme get-log "/dev/$1" --log-id=0xc0 --log-len=512 -b |
        python3 -c 'import sys,struct; d=sys.stdin.buffer.read(); print(*struct.unpack_from("<QQQ", d, 96), struct.unpack_from("<Q", d, 16)[0])'
}
fio --name=hf --filename=$EN --rw=write --bs=128k --direct=1 --ioengine=psync \
    --size=4M --output=/dev/null
set -- $(merges $E); s0=$1 p0=$2 f0=$3 g0=$4
fio --name=hs --filename=$EN --rw=write --bs=128k --direct=1 --ioengine=psync \
    --size=4M --output=/dev/null
set -- $(merges $E); s1=$1 p1=$2 f1=$3 g1=$4
echo "hybrid sequential pass: switch partial full moved: $((s1 - s0)) $((p1 - p0)) $((f1 - f0)) $((g1 - g0))"
check "hybrid: a sequential pass is 16 switch merges, no copy" \
    [ "$((s1 - s0)) $((p1 - p0)) $((f1 - f0)) $((g1 - g0))" = "16 0 0 0" ]
fio --name=hr --filename=$EN --rw=randwrite --bs=4k --direct=1 --ioengine=psync \
    --size=4M --number_ios=200 --randrepeat=0 --norandommap --output=/dev/null
set -- $(merges $E); s2=$1 p2=$2 f2=$3 g2=$4
echo "hybrid random 4k x200: switch partial full moved: $((s2 - s1)) $((p2 - p1)) $((f2 - f1)) $((g2 - g1))"
check "hybrid: random overwrites make full merges" [ $((f2 - f1)) -ge 100 ]
check "hybrid: a full merge copies the whole 64-page block" \
    [ $((g2 - g1)) -ge $((64 * (f2 - f1))) ]
