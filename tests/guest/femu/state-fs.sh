# Guest side of tests/guest/femu-state-fs.t: an ext4 file system on the
# femu namespace across QEMU restarts (state=PATH).  PHASE=1 makes it and
# writes files with fsync; PHASE=2 (a new QEMU on the same state file)
# checks it with fsck.ext4 -n, prints the checksums, then rewrites, deletes
# and adds files; PHASE=3 checks and prints again.  Each phase unmounts at
# its end, as a shutdown does; the host compares the checksums.
C=$(ctrl_of st0) || { bad "no controller with serial st0"; finish; exit; }
D=/dev/${C}n1
M=/mnt/st
mkdir -p $M
modprobe ext4 2>/dev/null
# put FILE KIB: random contents, on disk (fsync) before it returns
put() {
    head -c $(($2 * 1024)) /dev/urandom > /tmp/put.$$ &&
        dd if=/tmp/put.$$ of="$1" bs=64k conv=fsync status=none
}
sums() { (cd $M/d && sha256sum f* | sed 's/^/sum /'); }
fsck_clean() {
    fsck.ext4 -n -f $D > /tmp/fsck 2>&1; local rc=$?
    sed 's/^/fsck: /' /tmp/fsck
    [ $rc = 0 ]
}
if [ "$PHASE" = 1 ]; then
    check "mkfs.ext4 on the femu namespace" mkfs.ext4 -q -F $D
    check "mount" mount -t ext4 $D $M
    mkdir -p $M/d
    for i in $(seq 1 24); do
        put $M/d/f$i $(( (i * 37) % 200 + 4 )) || bad "writing f$i"
    done
    sync
    sums
else
    check "fsck.ext4 -n after the restart finds the file system clean" fsck_clean
    check "mount after the restart" mount -t ext4 $D $M
    echo "before"
    sums
    if [ "$PHASE" = 2 ]; then
        # a second cycle that changes some files: rewritten, deleted, new
        for i in 3 7 11; do put $M/d/f$i 96 || bad "rewriting f$i"; done
        rm -f $M/d/f5 $M/d/f6
        for i in 30 31; do put $M/d/f$i 150 || bad "writing f$i"; done
        sync
        echo "after"
        sums
    fi
fi
check "umount" umount $M
