# Guest side of tests/guest/femu-zbd-btrfs.t: a zoned btrfs on the
# femu_mode=3 namespace (vSSD0): mkfs, mount, write files, unmount,
# remount, read back and verify, delete and rewrite until btrfs resets
# zones, verify again after a second remount.
C=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
B=${C}n1
D=/dev/$B
M=/mnt/zbtrfs
check "namespace is host-managed" [ "$(cat /sys/block/$B/queue/zoned)" = host-managed ]
modprobe crc32c_generic 2>/dev/null
check "modprobe btrfs" modprobe btrfs
mkfs.btrfs -f -d single -m dup $D > /tmp/mkfs 2>&1; rc=$?
cat /tmp/mkfs
check "mkfs.btrfs on the zoned namespace" [ $rc = 0 ]
check "mkfs.btrfs chose zoned mode" grep -qE 'Zoned device: *yes' /tmp/mkfs
mkdir -p $M
check "mount" mount -t btrfs $D $M
check "mounted zoned (sysfs features/zoned)" bash -c \
    "ls /sys/fs/btrfs/*/features/zoned >/dev/null 2>&1 || dmesg | grep -qi 'btrfs.*zoned mode enabled'"

# 40 files, 4 KiB .. 2 MiB, random contents
mkdir -p $M/d
for i in $(seq 1 40); do
    head -c $(( (i * 7919 % 512 + 1) * 4096 )) /dev/urandom > $M/d/f$i
done
(cd $M/d && sha256sum f* > /tmp/sums)
check "sync" sync
check "files hold data on zones: some zones written" bash -c \
    "[ \$(blkzone report $D | grep -cv 'zcond: *1(em)') -gt 0 ]"
check "umount" umount $M
check "remount" mount -t btrfs $D $M
check "read back, sha256 matches after remount" bash -c "cd $M/d && sha256sum -c /tmp/sums >/dev/null"

# churn: delete half the files and write new ones, several times; freed
# block groups go back to the device as zone resets
c0() { femu_c0 $C; }
read -r _ hw0 _ _ rs0 _ <<<"$(c0)"
for r in 1 2 3 4 5 6; do
    for i in $(seq $((r % 2 + 1)) 2 40); do rm -f $M/d/f$i; done
    sync
    for i in $(seq $((r % 2 + 1)) 2 40); do
        head -c $(( ((i + r) * 7919 % 512 + 1) * 4096 )) /dev/urandom > $M/d/f$i
    done
    sync
done
(cd $M/d && sha256sum f* > /tmp/sums2)
# btrfs's cleaner deletes emptied block groups (resetting their zones)
# after a transaction commit: give it up to a minute
for i in $(seq 30); do
    read -r waf hw1 gc hp1 rs1 er1 <<<"$(c0)"
    [ "$rs1" -gt "$rs0" ] && break
    sync; sleep 2
done
echo "C0h after churn: waf_x1000=$waf host_pages=$hw1 programmed=$hp1 zone_resets=$rs1 blocks_erased=$er1 (resets before churn: $rs0)"
check "btrfs reset zones while files were rewritten" [ "$rs1" -gt "$rs0" ]
check "device WAF 1000 (no device GC)" [ "$waf $hw1" = "1000 $hp1" ]
check "umount after churn" umount $M
check "remount after churn" mount -t btrfs $D $M
check "read back, sha256 matches after churn and remount" bash -c "cd $M/d && sha256sum -c /tmp/sums2 >/dev/null"
check "df: 40 files" [ "$(ls $M/d | wc -l)" = 40 ]
umount $M
dmesg | grep -iE 'btrfs.*(error|warn|corrupt)' && bad "btrfs logged errors" || ok "no btrfs errors in dmesg"
