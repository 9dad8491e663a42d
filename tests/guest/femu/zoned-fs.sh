# Guest side of tests/guest/femu-zoned-fs.t: one controller (serial ZF)
# with a BlackBox namespace (NSID 1) and a zoned one (NSID 2).  f2fs across the
# pair (metadata on the conventional namespace, data on the zones), then
# zonefs on the zoned namespace: mkfs, mount, write files, unmount,
# remount, read back and compare checksums, fsck.
C=$(ctrl_of ZF) || { bad "no controller ZF"; finish; exit; }
# Linux numbers the namespaces' block devices in the order it scans them
# (in parallel), not by NSID: find each by its nsid
nsdev() {
    local d
    for d in /sys/block/${C}n*; do
        [ "$(cat $d/nsid 2>/dev/null)" = "$1" ] && { basename $d; return; }
    done
}
for i in $(seq 100); do
    [ -n "$(nsdev 1)" ] && [ -n "$(nsdev 2)" ] &&
        [ -e /sys/block/$(nsdev 2)/queue/zoned ] && break
    sleep 0.1
done
N1=$(nsdev 1) N2=$(nsdev 2)
CONV=/dev/$N1 ZONED=/dev/$N2
check "namespace 1 is a conventional block device" [ "$(cat /sys/block/$N1/queue/zoned)" = none ]
check "namespace 2 is host-managed" [ "$(cat /sys/block/$N2/queue/zoned)" = host-managed ]

# files of 4 KiB .. 2 MiB, random contents; their sha256 sums in $2
mkfiles() { # DIR SUMS SEED
    mkdir -p "$1"
    for i in $(seq 1 24); do
        head -c $(( ((i + $3) * 7919 % 512 + 1) * 4096 )) /dev/urandom > "$1/f$i"
    done
    (cd "$1" && sha256sum f* > "$2")
}
sums_ok() { (cd "$1" && sha256sum -c "$2" >/dev/null); }

# --- f2fs over the pair
check "modprobe f2fs" modprobe f2fs
# f2fs asks the crypto API for "crc32" when it mounts
modprobe crc32_generic 2>/dev/null
mkfs.f2fs -f -m -c $ZONED $CONV > /tmp/mkfs 2>&1; rc=$?
cat /tmp/mkfs
check "mkfs.f2fs -m -c ZONED CONV" [ $rc = 0 ]
check "mkfs.f2fs saw the zoned device (host-managed)" grep -qi 'host-managed\|zoned' /tmp/mkfs
M=/mnt/f2fs
mkdir -p $M
if ! mount -t f2fs $CONV $M; then
    dmesg | tail -8
    bad "mount f2fs"; finish; exit
fi
ok "mount f2fs"
mkfiles $M/d /tmp/f2fs.sums 0
check "sync" sync
check "f2fs wrote data into zones (some zone not empty)" bash -c \
    "[ \$(blkzone report $ZONED | grep -cv 'zcond: *1(em)') -gt 0 ]"
check "umount f2fs" umount $M
fsck.f2fs $CONV > /tmp/fsck 2>&1; rc=$?
tail -5 /tmp/fsck
check "fsck.f2fs clean" [ $rc = 0 ]
check "remount f2fs" mount -t f2fs $CONV $M
check "f2fs: sha256 matches after remount" sums_ok $M/d /tmp/f2fs.sums
# rewrite half the files, so f2fs invalidates and cleans
for i in $(seq 1 2 24); do
    head -c $(( (i * 104729 % 512 + 1) * 4096 )) /dev/urandom > $M/d/f$i
done
(cd $M/d && sha256sum f* > /tmp/f2fs.sums)
sync
check "umount f2fs after rewrites" umount $M
check "remount f2fs after rewrites" mount -t f2fs $CONV $M
check "f2fs: sha256 matches after rewrites and remount" sums_ok $M/d /tmp/f2fs.sums
umount $M
dmesg | grep -iE 'f2fs.*(error|corrupt|inconsistent)' && bad "f2fs logged errors" || ok "no f2fs errors in dmesg"

# --- zonefs on the zoned namespace (after resetting its zones)
check "blkzone reset" blkzone reset $ZONED
check "modprobe zonefs" modprobe zonefs
mkzonefs -f $ZONED > /tmp/mkzonefs 2>&1; rc=$?
cat /tmp/mkzonefs
check "mkzonefs" [ $rc = 0 ]
Z=/mnt/zonefs
mkdir -p $Z
check "mount zonefs" mount -t zonefs $ZONED $Z
nseq=$(ls $Z/seq | wc -l)
nzones=$(blkzone report $ZONED | wc -l)
check "zonefs: one seq file per zone ($nseq of $nzones)" [ "$nseq" -ge 1 ] && [ "$nseq" -le "$nzones" ]
# append to three sequential files with direct I/O: 1 MiB, 256 KiB, 2 MiB
head -c 4194304 /dev/urandom > /tmp/z
ok_app=yes
for f in 0:1024 1:256 2:2048; do
    z=${f%%:*} k=${f##*:}
    dd if=/tmp/z of=$Z/seq/$z bs=64k count=$((k / 64)) oflag=direct,append conv=notrunc status=none || ok_app=no
done
check "zonefs: direct appends succeed" [ $ok_app = yes ]
check "zonefs: a write that is not at the end of a seq file is refused" \
    bash -c "! dd if=/tmp/z of=$Z/seq/0 bs=4k count=1 seek=0 oflag=direct conv=notrunc status=none 2>/dev/null"
check "zonefs: seq file sizes are the written bytes" \
    [ "$(stat -c %s $Z/seq/0) $(stat -c %s $Z/seq/1) $(stat -c %s $Z/seq/2)" = "1048576 262144 2097152" ]
check "umount zonefs" umount $Z
check "remount zonefs" mount -t zonefs $ZONED $Z
check "zonefs: sizes kept across remount (from the write pointers)" \
    [ "$(stat -c %s $Z/seq/0) $(stat -c %s $Z/seq/1) $(stat -c %s $Z/seq/2)" = "1048576 262144 2097152" ]
check "zonefs: seq/0 reads back" cmp -n 1048576 $Z/seq/0 /tmp/z
check "zonefs: seq/2 reads back" cmp -n 2097152 $Z/seq/2 /tmp/z
check "zonefs: truncate to 0 resets the zone" truncate -s 0 $Z/seq/1
# zone 0 holds zonefs's super block: seq/1 is zone 2
zsec=$(( $(blockdev --getsz $ZONED) / nzones ))
check "zonefs: the zone is empty again, and seq/0's is not" bash -c \
    "blkzone report -c 1 -o $((2 * zsec)) $ZONED | grep -q 'zcond: *1(em)' &&
     ! blkzone report -c 1 -o $zsec $ZONED | grep -q 'zcond: *1(em)'"
umount $Z

# tutorial 06's zns-fs.sh on the pair (so it cannot rot), small: f2fs over
# both namespaces, a 16 MiB file written and overwritten once.  The zoned
# namespace programs what the host wrote (no device GC); f2fs writes at
# least what fio wrote; NAND pages = host pages + GC pages.
bash zns-fs.sh FS=f2fs DEV=ns1 DEV2=ns2 FILE_MB=16 OVER=1 > /tmp/zf 2>&1; echo "zns-fs.sh rc=$?"; cat /tmp/zf
check "zns-fs.sh: f2fs on the pair, fill and overwrite" python3 -c '
import re; t = open("/tmp/zf").read()
assert "mkfs.f2fs -f -m -c" in t, t
r = [dict(kv.split("=") for kv in l.split()[1:]) for l in t.splitlines() if l.startswith("RESULT ")]
assert [x["phase"] for x in r] == ["fill", "overwrite"], r
for x in r:
    assert x["fs"] == "f2fs" and int(x["app_mib"]) == 16, x
    h, n, g = int(x["host_pages"]), int(x["nand_pages"]), int(x["gc_pages"])
    assert h >= 16 * 256 and n == h + g and float(x["fs_waf"]) >= 1.0 and float(x["mibs"]) > 0, x'
