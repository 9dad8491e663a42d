# Guest side of tests/guest/femu-powercut-ext4.t.  Devices (in this
# order), both 256 MiB, 20 ms programs on 4 LUNs, a 16 MiB write cache:
#  vSSD0: the cache on
#  vSSD1: the cache turned off (Set Features 06h) in the first boot
# The job runs once per boot; vSSD0's C0h power-cut count tells the second
# boot from the first.
A=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
B=$(ctrl_of vSSD1) || { bad "no controller vSSD1"; finish; exit; }
modprobe ext4 2>/dev/null
wc_of() { femu_wc $1 | tr ' ' '\n' | sed -n "s/^wc_$2=//p"; }
# feat6 CTRL: Get Features 06h's value
feat6() {
    local v
    v=$(nvme get-feature "/dev/$1" -f 6 2>&1 |
        sed -n 's/.*Current value: *\(0x\)\{0,1\}\([0-9a-fA-F]\{1,\}\).*/\2/p')
    [ -n "$v" ] && echo $((16#$v))
}
# synced DIR write|check: 8 files of 64 KiB to 1 MiB from fixed seeds;
# write: each fsync'd (and the directory), printing their sha256;
# check: exit with the number of files whose content differs
synced() {
    python3 - "$1" "$2" <<'PY'
import hashlib, os, random, sys
d, check = sys.argv[1], sys.argv[2] == "check"
bad = 0
for k in range(8):
    size = (64 << 10) * (1 + (k * 5) % 16)
    data = random.Random(k).randbytes(size)
    p = "%s/s%d" % (d, k)
    if check:
        try:
            got = open(p, "rb").read()
        except OSError:
            got = b""
        ok = got == data
        print("s%d %d bytes sha256 %s %s" % (k, len(got), hashlib.sha256(got).hexdigest()[:16],
                                            "ok" if ok else "DIFFERS"))
        bad += not ok
        continue
    fd = os.open(p, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
    os.write(fd, data)
    os.fsync(fd)
    os.close(fd)
    print("s%d %d bytes sha256 %s" % (k, size, hashlib.sha256(data).hexdigest()[:16]))
dfd = os.open(d, os.O_RDONLY)
if not check:
    os.fsync(dfd)
os.close(dfd)
sys.exit(bad)
PY
}
# unsynced DIR: 256 KiB files u0, u1, ... from seeds 1000+i, no fsync, one
# every 0.1 s (faster than the 4 LUNs program them), until killed
unsynced() {
    python3 - "$1" <<'PY'
import random, sys, time
d = sys.argv[1]
i = 0
while True:
    with open("%s/u%d" % (d, i), "wb") as f:
        f.write(random.Random(1000 + i).randbytes(256 << 10))
    i += 1
    time.sleep(0.1)
PY
}
# survey DIR: the unsynced files after the cut: how many are there, whole,
# or with zeroes in place of some 4 KiB blocks (or shorter: ext4 had not
# written or committed all of them), or with a block that is neither its
# data nor zeroes ("foreign": stale or misplaced data, which ext4's
# ordered mode never exposes on a drive that keeps its Flush and FUA
# promises); exit with the number of foreign files
survey() {
    python3 - "$1" <<'PY'
import glob, os, random, sys
n = {"whole": 0, "zeroes": 0, "empty": 0, "foreign": 0}
z = bytes(4096)
for p in glob.glob(sys.argv[1] + "/u*"):
    i = int(os.path.basename(p)[1:])
    want = random.Random(1000 + i).randbytes(256 << 10)
    got = open(p, "rb").read()
    if got == want:
        k = "whole"
    elif not got:
        k = "empty"
    elif len(got) <= len(want) and all(got[o:o + 4096] in (want[o:o + len(got[o:o + 4096])], z[:len(got[o:o + 4096])])
                                       for o in range(0, len(got), 4096)):
        k = "zeroes"
    else:
        k = "foreign"
    n[k] += 1
print("unsynced files found: %d (%s)" % (sum(n.values()),
      ", ".join("%s %d" % kv for kv in n.items())))
sys.exit(n["foreign"])
PY
}

# rewrite DIR once|loop|check|check-acked: 4 files o0-o3 of 16 blocks of
# 4 KiB and a record file; block b of file k in generation g is
# "o<k> b<b> g<g>" and bytes from that seed.  once: generation 0 and the
# record "acked 0", fsync'd; loop: generations 1, 2, ... in place with
# O_DIRECT writes (which the device acknowledges: no page cache), each
# generation of the 4 files followed by an O_DIRECT write of the record,
# until killed; check: exit with the number of files that have a block
# that is not one of its own generations (zeroes included: each block was
# durable before its rewrites, so a cut must leave a generation that was
# there); check-acked: also every block at least the recorded generation
# (the record is written after the device acknowledged that generation)
rewrite() {
    python3 - "$1" "$2" <<'PY'
import mmap, os, random, sys, time
d, what = sys.argv[1], sys.argv[2]
def blk(k, b, g):
    h = ("o%d b%03d g%05d" % (k, b, g)).encode().ljust(32)
    return h + random.Random(h).randbytes(4096 - 32)
def gen(k, g):
    return b"".join(blk(k, b, g) for b in range(16))
def rec(g):
    return ("acked %d\n" % g).encode().ljust(4096)
if what.startswith("check"):
    r = open(d + "/rec", "rb").read().split()
    # the record was durable from the start: it must read as one
    acked = int(r[1]) if len(r) == 2 and r[0] == b"acked" and r[1].isdigit() else None
    badfiles, gens = 0, []
    for k in range(4):
        data = open("%s/o%d" % (d, k), "rb").read()
        ok = len(data) == 16 * 4096
        got = set()
        for b in range(16 if ok else 0):
            x = data[b * 4096:(b + 1) * 4096]
            h = x[:32].split()
            if len(h) == 3 and h[:2] == [b"o%d" % k, b"b%03d" % b] and h[2][:1] == b"g" and \
                    h[2][1:].isdigit() and x == blk(k, b, int(h[2][1:])):
                got.add(int(h[2][1:]))
            else:
                ok = False
                # what each 512-byte sector holds: a generation's, zeroes or other
                runs = []
                for s in range(8):
                    y = x[s * 512:(s + 1) * 512]
                    w = "zeroes" if y == bytes(512) else next(
                        ("g%d" % g for g in range(400) if blk(k, b, g)[s * 512:(s + 1) * 512] == y), "other")
                    if runs and runs[-1][2] == w:
                        runs[-1][1] = s
                    else:
                        runs.append([s, s, w])
                print("o%d block %d is none of its generations: %s" % (k, b, ", ".join(
                    "sectors %d-%d %s" % tuple(r) for r in runs)))
        if what == "check-acked" and got and acked is not None and min(got) < acked:
            ok = False
        gens.append("o%d g%s" % (k, "-".join(map(str, sorted({min(got), max(got)}))) if got else "?"))
        badfiles += not ok
    print("rewritten files: %d of 4 good; record: acked %s; generations found: %s" %
          (4 - badfiles, acked if acked is not None else "unreadable", ", ".join(gens)))
    sys.exit(badfiles + (acked is None))
if what == "once":
    for k in range(4):
        with open("%s/o%d" % (d, k), "wb") as f:
            f.write(gen(k, 0))
            os.fsync(f.fileno())
    with open(d + "/rec", "wb") as f:
        f.write(rec(0))
        os.fsync(f.fileno())
    dfd = os.open(d, os.O_RDONLY)
    os.fsync(dfd)
    os.close(dfd)
    sys.exit(0)
buf, rbuf = mmap.mmap(-1, 16 * 4096), mmap.mmap(-1, 4096)
fds = [os.open("%s/o%d" % (d, k), os.O_WRONLY | os.O_DIRECT) for k in range(4)]
rfd = os.open(d + "/rec", os.O_WRONLY | os.O_DIRECT)
g = 1
while True:
    for k in range(4):
        buf[:] = gen(k, g)
        os.pwrite(fds[k], buf, 0)
    rbuf[:] = rec(g)
    os.pwrite(rfd, rbuf, 0)
    g += 1
    time.sleep(0.1)
PY
}

if [ "$(wc_of $A power_cuts)" = 0 ]; then
    echo "first boot"
    nvme set-feature /dev/$B -f 6 -V 0 >/dev/null 2>&1
    check "$B: Set Features 06h turned the write cache off" [ "$(feat6 $B)" = 0 ]
    check "$A: the write cache is on" [ "$(feat6 $A)" = 1 ]
    # writeback every 0.2 s of anything dirty for 0.5 s: the unsynced
    # files reach the device (its cache) while they are being written
    echo 20 > /proc/sys/vm/dirty_writeback_centisecs
    echo 50 > /proc/sys/vm/dirty_expire_centisecs
    for d in $A $B; do
        mkdir -p /mnt/$d
        # 4 KiB blocks (mke2fs picks 1 KiB for a device this small): a
        # file's 4 KiB block is then one NAND page, the unit the cache
        # destages or loses whole; with 1 KiB blocks a file's 4 KiB can
        # straddle two pages, one lost and one on NAND
        check "$d: mkfs.ext4" mkfs.ext4 -q -F -b 4096 /dev/${d}n1
        # noinit_itable: no background zeroing of the inode tables.  On
        # the cached device, no periodic journal commit (commit=60) in
        # this boot: a commit's Flush just before the cut would leave
        # nothing in the cache to lose
        opts=noinit_itable
        [ $d = $A ] && opts=$opts,commit=60
        check "$d: mount" mount -t ext4 -o $opts /dev/${d}n1 /mnt/$d
        check "$d: 8 files written and fsync'd" synced /mnt/$d write
        check "$d: 4 files to rewrite written and fsync'd" rewrite /mnt/$d once
        echo "$d after the fsync'd files: $(femu_wc $d)"
    done
    pids=
    for d in $A $B; do
        unsynced /mnt/$d & pids="$pids $!"
        rewrite /mnt/$d loop & pids="$pids $!"
    done
    sleep 10
    for d in $A $B; do
        echo "$d before the cut: $(ls /mnt/$d | grep -c '^u') unsynced files created; $(femu_wc $d)"
    done
    check "the writers are still writing at the cut" kill -0 $pids
    # 0xEF code 12 does not complete (no power): run it in the background
    for d in $A $B; do
        (nvme admin-passthru /dev/$d --opcode=0xef --cdw10=12 >/dev/null 2>&1 &)
    done
    sleep 3
    echo "first boot: $FAILS failed; crashing the guest"
    echo b > /proc/sysrq-trigger
    sleep 60
fi

echo "second boot"
for d in $A $B; do
    M=/mnt/$d
    mkdir -p $M
    echo "$d: $(femu_wc $d)"
    check "$d: power cut once" [ "$(wc_of $d power_cuts)" = 1 ]
    lost=$(wc_of $d lost_pages)
    if [ $d = $A ]; then
        check "$d (cache on): the cut lost cached pages ($lost)" [ "${lost:-0}" -gt 0 ]
    else
        check "$d (cache off): the cut lost nothing ($lost pages)" [ "$lost" = 0 ]
    fi
    echo "$d: $(dumpe2fs -h /dev/${d}n1 2>/dev/null | grep -i 'features')"
    fsck.ext4 -n /dev/${d}n1 2>&1 | sed "s/^/$d fsck before the replay: /" | head -5
    dmesg -c >/dev/null
    check "$d: mount after the cut (the journal replay)" mount -t ext4 -o noinit_itable /dev/${d}n1 $M
    dmesg | grep -i "${d}n1" | sed "s/^/$d dmesg: /"
    check "$d: every fsync'd file is intact" synced $M check
    check "$d: no unsynced file holds foreign data" survey $M
    if [ $d = $A ]; then
        check "$d: every block of the rewritten files is one of its generations" rewrite $M check
    else
        check "$d: every block of the rewritten files is the acknowledged generation or a later one" \
            rewrite $M check-acked
    fi
    check "$d: umount" umount $M
    fsck.ext4 -f -n /dev/${d}n1 > /tmp/fsck 2>&1; rc=$?
    sed "s/^/$d fsck -f -n: /" /tmp/fsck
    check "$d: fsck.ext4 -f -n after the replay is clean (exit $rc)" [ $rc = 0 ]
done
