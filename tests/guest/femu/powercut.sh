# Guest side of tests/guest/femu-powercut.t.  Devices (in this order):
#  vSSD0: 256 MiB, 20 ms programs on 4 LUNs, a 16 MiB write cache: a
#         btrfs
#  vSSD1: 16 MiB, 20 ms programs on 4 LUNs, a 4 MiB write cache,
#         power_cut_after=125
#  vSSD2: the same without a write cache
# On each raw device the first boot writes blocks 0-199 (4 KiB) with
# pattern A in 25 writes of 32 KiB and flushes, then pattern B block by
# block at QD1: write 126 (block 100) cuts the power.  The job runs once
# per boot; vSSD1's C0h power-cut count tells the second from the first.
A=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
B=$(ctrl_of vSSD1) || { bad "no controller vSSD1"; finish; exit; }
C=$(ctrl_of vSSD2) || { bad "no controller vSSD2"; finish; exit; }
M=/mnt/pc
mkdir -p $M
modprobe btrfs

# pat DEV TAG FIRST END BLOCKS_PER_WRITE: O_DIRECT writes of 4 KiB blocks
# "TAG%07d" x 512, block i at offset i x 4096
pat() {
    python3 - "$@" <<'PY'
import mmap, os, sys
dev, tag, first, end, per = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096 * per)
for i in range(first, end, per):
    buf.seek(0)
    for b in range(i, i + per):
        buf.write(("%s%07d" % (tag, b)).encode() * 512)
    os.pwrite(fd, buf, i * 4096)
os.close(fd)
PY
}
# layout DEV: one letter per block 0-199 (A, B, or ? for anything else)
layout() {
    python3 - "$1" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096 * 200)
os.preadv(fd, [buf], 0)
out = ""
for i in range(200):
    blk = buf[i * 4096:(i + 1) * 4096]
    out += next((t for t in "AB" if blk == ("%s%07d" % (t, i)).encode() * 512), "?")
print(out)
PY
}
# files: 4 files of 1 MiB and one of 300 KiB, from a fixed seed
mkfiles() {
    python3 - "$1" "$2" <<'PY'
import os, random, sys
d, check = sys.argv[1], sys.argv[2] == "check"
bad = 0
for k, size in enumerate([1 << 20] * 4 + [300 * 1024]):
    data = random.Random(k).randbytes(size)
    p = "%s/f%d" % (d, k)
    if check:
        try:
            ok = open(p, "rb").read() == data
        except OSError:
            ok = False
        bad += not ok
        continue
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
if not check:
    dfd = os.open(d, os.O_RDONLY)
    os.fsync(dfd)
    os.close(dfd)
sys.exit(bad)
PY
}

# C0h's counters live as long as QEMU: the second boot finds the cut
cuts() { femu_wc $1 | tr ' ' '\n' | sed -n 's/^wc_power_cuts=//p'; }
if [ "$(cuts $B)" = 0 ]; then
    echo "first boot"
    # the raw devices: A, durable (Flush), then B until the cut
    for d in $B $C; do
        pat /dev/${d}n1 A 0 200 8
        nvme flush /dev/$d -n 1 >/dev/null
    done
    echo "before the cut: $B $(femu_wc $B)"
    (pat /dev/${B}n1 B 0 200 1 &) ; (pat /dev/${C}n1 B 0 200 1 &)
    # the btrfs: fsync'd files, then writes nobody syncs
    mkfs.btrfs -f /dev/${A}n1 >/dev/null 2>&1
    check "mount the new btrfs" mount -t btrfs /dev/${A}n1 $M
    check "fsync'd files written" mkfiles $M write
    # 4 MiB at QD32 into the cache, much faster than it destages
    fio --name=u --filename=$M/unsynced --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=32 --size=4m --output=/dev/null
    echo "before the cut: $A $(femu_wc $A)"
    # 0xEF code 12 does not complete (no power): run it in the background
    (nvme admin-passthru /dev/$A --opcode=0xef --cdw10=12 >/dev/null 2>&1 &)
    sleep 8
    echo "first boot: $FAILS failed; crashing the guest"
    echo b > /proc/sysrq-trigger
    sleep 60
fi

echo "second boot"
for d in $B $C; do
    echo "$d: $(femu_wc $d)"
    echo "$d blocks: $(layout /dev/${d}n1)"
done
lb=$(layout /dev/${B}n1) lc=$(layout /dev/${C}n1)
lost=$(femu_wc $B | tr ' ' '\n' | sed -n 's/^wc_lost_pages=//p')
check "cache: power cut once" [ "$(cuts $B)" = 1 ]
check "cache: the cut lost pages ($lost)" [ "${lost:-0}" -gt 0 ]
as() { printf "$1%.0s" $(seq "$2"); }
# the blocks of the cached device: B up to the first lost one, then A
bthena() { [[ ${lb:0:100} =~ ^B*A*$ ]] && [ "${lb:100}" = "$(as A 100)" ]; }
check "cache: blocks 0-99 are B then A (the lost ones read their durable data), 100-199 A" bthena
check "cache: as many A blocks among 0-99 as pages lost" \
    [ "$(tr -cd A <<<"${lb:0:100}" | wc -c)" = "${lost:-x}" ]
check "no cache: every acknowledged write is there (0-99 B, 100-199 A)" \
    [ "$lc" = "$(as B 100)$(as A 100)" ]
check "no cache: power cut once" [ "$(cuts $C)" = 1 ]
check "no cache: nothing lost" [ "$(femu_wc $C | tr ' ' '\n' | sed -n 's/^wc_lost_pages=//p')" = 0 ]

echo "$A: $(femu_wc $A)"
check "btrfs device: power cut once" [ "$(cuts $A)" = 1 ]
alost=$(femu_wc $A | tr ' ' '\n' | sed -n 's/^wc_lost_pages=//p')
check "btrfs device: the cut lost cached pages ($alost)" [ "${alost:-0}" -gt 0 ]
check "mount after the cut" mount -t btrfs /dev/${A}n1 $M
check "the fsync'd files are intact" mkfiles $M check
# no fsck in the guest: btrfs checks every data and metadata block it
# reads against its checksums, so read everything
dmesg -c >/dev/null
check "every file reads back" bash -c "find $M -type f -exec cat {} + >/dev/null"
dmesg | grep -iE 'btrfs.*(csum|corrupt|error|fail)' | head -5
check "btrfs reports no checksum error or corruption" \
    bash -c "! dmesg | grep -qiE 'btrfs.*(csum|corrupt|error|fail)'"
umount $M
