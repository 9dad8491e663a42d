# Guest side of tests/guest/femu-wcache.t.  Devices (in this order):
#  vSSD0: a 4 MiB write cache (1024 pages), 20 ms page programs on
#         4 LUNs, a 1000 MB/s link (4 KiB: 4.1 us)
#  vSSD1: the same without a write cache
A=$(ctrl_of vSSD0) || { bad "no controller with SN vSSD0"; finish; exit; }
B=$(ctrl_of vSSD1) || { bad "no controller with SN vSSD1"; finish; exit; }
AN=/dev/${A}n1 BN=/dev/${B}n1
MS=1000000

# elapsed COMMAND...: ns the command took (busybox date has no %N)
elapsed() {
    python3 -c '
import subprocess, sys, time
t = time.monotonic()
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL)
print(int((time.monotonic() - t) * 1e9) if r.returncode == 0 else -1)' "$@"
}
# wc NAME CTRL: one write-cache counter of C0h (femu-log.sh wc)
wc_ctr() { femu_wc "$2" | tr ' ' '\n' | sed -n "s/^wc_$1=//p"; }
# lt A B: A is a measured time (>= 0) below B
lt() { [ "$1" -ge 0 ] && [ "$1" -lt "$2" ]; }
# feat6 CTRL: Get Features 06h's value (nvme-cli prints 0x00000001, but
# 00000000 for 0)
feat6() {
    local v
    v=$(nvme get-feature "/dev/$1" -f 6 2>&1 |
        sed -n 's/.*Current value: *\(0x\)\{0,1\}\([0-9a-fA-F]\{1,\}\).*/\2/p')
    [ -n "$v" ] && echo $((16#$v))
}

# --- Identify and Get Features
vwc=$(nvme id-ctrl "/dev/$A" -o json | python3 -c 'import sys, json; print(json.load(sys.stdin)["vwc"])')
echo "vSSD0 Identify VWC: $vwc"
check "Identify VWC: a volatile write cache is present" [ $((vwc & 1)) = 1 ]
check "Linux sees a write-back cache" [ "$(cat /sys/block/${A}n1/queue/write_cache)" = "write back" ]
echo "get-feature -f 6: $(nvme get-feature /dev/$A -f 6 2>&1)"
check "Get Features 06h: enabled" [ "$(feat6 $A)" = 1 ]

# --- QD1 latency of a burst smaller than the cache: 64 x 4 KiB
burst() {
    fiolat --name=b --filename=$1 --rw=randwrite --bs=4k --direct=1 \
        --ioengine=psync --size=4M --number_ios=64 --randrepeat=0
}
read amin amean ap50 < <(burst $AN)
read bmin bmean bp50 < <(burst $BN)
echo "QD1 4k write burst, cache: min $amin mean $amean p50 $ap50 ns; no cache: min $bmin mean $bmean p50 $bp50 ns"
check "without the cache a write waits for its program (min >= 20 ms)" [ "$bmin" -ge $((20 * MS)) ]
check "with the cache it does not (p50 < 5 ms)" [ "$ap50" -lt $((5 * MS)) ]
check "with the cache the mean is a quarter of the no-cache one or less" [ $((amean * 4)) -le "$bmean" ]
check "C0h: no write waited for a full cache" [ "$(wc_ctr full_waits $A)" = 0 ]
check "C0h: the burst's pages went into the cache" [ "$(wc_ctr host_pages $A)" -ge 64 ]

# --- Flush: waits for the destages.  768 pages (3 MiB, less than the
# cache) on 4 LUNs at 20 ms a program take 3.8 s to destage; the writes
# themselves, 32 at a time into the cache, take a fraction of that, so
# most of it is left for the Flush.  nvme-cli alone takes tens of ms
# under TCG: the second Flush and the one without a cache show it.
fl0=$(wc_ctr flushes $A)
# fio, then at once the Flush, timed together: however slow the guest,
# the Flush cannot complete before the last of the 768 pages is on NAND,
# 3.84 s after the first one arrived
read fw f1 < <(python3 -c '
import subprocess, sys, time
t0 = time.monotonic()
subprocess.run(["fio", "--eta=never", "--name=f", "--filename=" + sys.argv[1],
                "--rw=write", "--bs=4k", "--direct=1", "--ioengine=libaio",
                "--iodepth=32", "--size=3m", "--output=/dev/null"], check=True)
t1 = time.monotonic()
subprocess.run(["nvme", "flush", sys.argv[2], "-n", "1"], check=True,
               stdout=subprocess.DEVNULL)
t2 = time.monotonic()
print(int((t1 - t0) * 1e9), int((t2 - t1) * 1e9))' $AN /dev/$A)
f2=$(elapsed nvme flush /dev/$A -n 1)
fb=$(elapsed nvme flush /dev/$B -n 1)
echo "768 x 4k writes at QD32 into the cache: $fw ns; flush right after: $f1 ns; again: $f2 ns; no cache: $fb ns"
check "they went into the cache without waiting" [ "$(wc_ctr full_waits $A)" = 0 ]
check "the Flush ends after all 768 destages (writes + flush >= 3.7 s)" \
    [ $((fw + f1)) -ge $((3700 * MS)) ]
check "the first Flush waits for them (>= 3 x a Flush with nothing to wait for)" \
    [ "$f1" -ge $((3 * f2)) ]
check "a Flush without a cache has nothing to wait for (< first / 3)" lt "$fb" $((f1 / 3))
hp=$(wc_ctr host_pages $A) wh=$(wc_ctr write_hits $A) ds=$(wc_ctr destaged $A)
echo "C0h write cache: $(femu_wc $A)"
check "after Flush every cached page is destaged or was replaced" [ "$hp" = $((wh + ds)) ]
check "C0h counts the two flushes" [ "$(wc_ctr flushes $A)" = $((fl0 + 2)) ]

# --- FUA: O_DSYNC writes go out with FUA (Linux uses it with a volatile
# write cache); each waits for its own page on NAND
fl0=$(wc_ctr flushes $A)
read umin umean up50 < <(fiolat --name=u --filename=$AN --rw=randwrite --bs=4k \
    --direct=1 --sync=dsync --ioengine=psync --size=4M --number_ios=16)
echo "QD1 4k FUA writes: min $umin mean $umean p50 $up50 ns; C0h flushes $fl0 -> $(wc_ctr flushes $A)"
check "a FUA write waits for its program (min >= 20 ms)" [ "$umin" -ge $((20 * MS)) ]
check "C0h counts each FUA write" [ "$(wc_ctr flushes $A)" -ge $((fl0 + 16)) ]
head -c 4096 /dev/urandom >/tmp/blk
nvme write $AN -s 8 -c 7 -z 4096 -d /tmp/blk --force-unit-access >/dev/null 2>&1
check "nvme write --force-unit-access: the data reads back" \
    cmp -s -n 4096 /tmp/blk <(dd if=$AN bs=512 skip=8 count=8 iflag=direct 2>/dev/null)

# --- Set Features 06h: off (writes wait for NAND), on again
echo "set-feature -f 6 -V 0: $(nvme set-feature /dev/$A -f 6 -V 0 2>&1)"
echo "get-feature -f 6: $(nvme get-feature /dev/$A -f 6 2>&1)"
check "Set Features 06h off: Get reports 0" [ "$(feat6 $A)" = 0 ]
read omin omean op50 < <(burst $AN)
echo "cache off: min $omin mean $omean p50 $op50 ns"
check "cache off: a write waits for its program (min >= 20 ms)" [ "$omin" -ge $((20 * MS)) ]
nvme set-feature /dev/$A -f 6 -V 1 >/dev/null 2>&1
check "Set Features 06h on: Get reports 1" [ "$(feat6 $A)" = 1 ]
read nmin nmean np50 < <(burst $AN)
echo "cache on again: min $nmin mean $nmean p50 $np50 ns"
check "cache on again: p50 < 5 ms" [ "$np50" -lt $((5 * MS)) ]
