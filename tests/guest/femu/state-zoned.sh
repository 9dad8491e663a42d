# Guest side of tests/guest/femu-state-zoned.t: f2fs across a BlackBox
# namespace (NSID 1) and a zoned one (NSID 2) of one controller (serial
# ZS), kept across QEMU restarts by state=PATH.  PHASE=1 makes it
# (mkfs.f2fs -m -c ZONED CONV) and writes files; PHASE=2 (a new QEMU on
# the same state file) checks it with fsck.f2fs, prints the checksums,
# then rewrites, deletes and adds files; PHASE=3 checks and prints again.
# Each phase prints the zone table at its start and at its end ("zone
# START WPTR COND"), after unmounting; the host compares.
C=$(ctrl_of ZS) || { bad "no controller ZS"; finish; exit; }
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
# f2fs records its devices' paths in its super block and opens them by
# path at mount, and Linux may name the namespaces the other way round in
# the next boot: nodes of fixed names for each NSID
mknod /dev/femu-conv b $(tr : ' ' < /sys/block/$N1/dev)
mknod /dev/femu-zoned b $(tr : ' ' < /sys/block/$N2/dev)
CONV=/dev/femu-conv ZONED=/dev/femu-zoned
check "namespace 2 is host-managed" [ "$(cat /sys/block/$N2/queue/zoned)" = host-managed ]
# zone START WPTR COND (COND: 1(em), 2(oi), 3(oe), 4(cl), e(fu) ...)
zones() {
    blkzone report $ZONED | sed -n \
        's/.*start: *\(0x[0-9a-f]*\),.*wptr *\(0x[0-9a-f]*\).*zcond: *\([0-9a-f]*\)(.*/zone \1 \2 \3/p' |
        sed "s/^/$1 /"
}
M=/mnt/f2fs
mkdir -p $M
check "modprobe f2fs" modprobe f2fs
modprobe crc32_generic 2>/dev/null
# put FILE KIB: random contents, on disk (fsync) before it returns
put() {
    head -c $(($2 * 1024)) /dev/urandom > /tmp/put.$$ &&
        dd if=/tmp/put.$$ of="$1" bs=64k conv=fsync status=none
}
sums() { (cd $M/d && sha256sum f* | sed 's/^/sum /'); }
fsck_clean() {
    fsck.f2fs $CONV > /tmp/fsck 2>&1; local rc=$?
    tail -4 /tmp/fsck | sed 's/^/fsck: /'
    [ $rc = 0 ]
}
zones start
if [ "$PHASE" = 1 ]; then
    mkfs.f2fs -f -m -c $ZONED $CONV > /tmp/mkfs 2>&1; rc=$?
    check "mkfs.f2fs -m -c ZONED CONV" [ $rc = 0 ] || cat /tmp/mkfs
    check "mount f2fs" mount -t f2fs $CONV $M
    mkdir -p $M/d
    for i in $(seq 1 24); do
        put $M/d/f$i $(( (i * 37) % 400 * 4 + 4 )) || bad "writing f$i"
    done
    sync
    sums
else
    check "fsck.f2fs after the restart finds the file system clean" fsck_clean
    check "mount f2fs after the restart" mount -t f2fs $CONV $M
    echo "before"
    sums
    if [ "$PHASE" = 2 ]; then
        for i in 3 7 11; do put $M/d/f$i 1200 || bad "rewriting f$i"; done
        rm -f $M/d/f5 $M/d/f6
        for i in 30 31; do put $M/d/f$i 1000 || bad "writing f$i"; done
        sync
        echo "after"
        sums
    fi
fi
check "umount f2fs" umount $M
check "fsck.f2fs clean at the end of the boot" fsck_clean
zones end
check "f2fs data reached the zones (4 MiB or more)" bash -c \
    "[ \$(blkzone report $ZONED | sed -n 's/.*wptr *\(0x[0-9a-f]*\).*/\1/p' | while read w; do echo \$((w)); done | awk '{ s += \$1 } END { print s }') -ge 8192 ]"
dmesg | grep -iE 'f2fs.*(error|corrupt|inconsistent)' && bad "f2fs logged errors" || ok "no f2fs errors in dmesg"
