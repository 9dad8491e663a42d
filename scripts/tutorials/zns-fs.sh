#!/bin/bash
# zns-fs.sh: throughput and write amplification of a file system on FEMU
# namespaces under an overwrite workload that makes someone collect
# garbage: the file system (f2fs segment cleaning, btrfs relocation) on a
# zoned namespace, the device's GC on a BlackBox one.  Inside a guest (the
# embedded one of scripts/femu-run, which has f2fs, btrfs, ext4 and fio,
# or a real one with their tools, fio and nvme-cli), next to lib.sh.
#
#   FS=f2fs  mkfs.f2fs on DEV, with DEV2 as a second device (-c DEV2);
#            -m (zoned block device mode) when either is zoned.  DEV is
#            the conventional one (f2fs keeps its super block and
#            checkpoints there)
#   FS=btrfs mkfs.btrfs -d single -m dup on DEV (zoned btrfs when DEV is)
#   FS=ext4  mkfs.ext4 on DEV (not on a zoned namespace)
#
# Workload: mount, clear C0h (0xEF code 5), fio writes one file of FILE_MB
# MiB (sequential, 1 MiB writes), then overwrites it at random, BS
# writes, OVER times its size, buffered, fsync every FSYNC writes and at
# the end (a database-like pattern; f2fs over two devices turns O_DIRECT
# into buffered I/O anyway, so every file system gets the same), fixed
# random seed.  NAND delays stay on (DELAY=on): the throughput is the
# emulated drive's, under whatever the host adds (TCG).
#
# Prints, for the fill and the overwrite phase:
#   RESULT fs=F phase=P app_mib=A mibs=T host_pages=H nand_pages=N gc_pages=G
#          zone_resets=R fs_waf=H/A dev_waf=N/H total_waf=N/A
# A = MiB fio wrote, T = fio's MiB/s (with the fsyncs), H = pages the host
# wrote to the namespaces (C0h bytes 8-15), N = pages programmed (24-31)
# plus pages the device's GC moved (16-23: G), R = zone resets that
# erased (32-39).  C0h is read per namespace (Get Log Page with its NSID):
# a zoned namespace's counters are its own; the BlackBox namespaces share
# one FTL, counted once.
#
# WARNING: it makes a new file system on DEV (and DEV2).
#
# Settings (NAME=VALUE arguments): FS=f2fs, DEV=/dev/nvme0n1, DEV2= (a
# device, or nsN: the namespace of nvme0 with NSID N),
# FILE_MB=200, OVER=4, BS=16k, FSYNC=64, SEED=1, DELAY=on.

# shared helpers (scripts/tutorials/lib.sh): beside this script, or in the
# current directory
. "$(dirname "$0")/lib.sh" 2>/dev/null || . ./lib.sh 2>/dev/null ||
    { echo "$(basename "$0" .sh): lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
tut_args "$@"
tut_defaults FS=f2fs DEV=/dev/nvme0n1 DEV2= FILE_MB=200 OVER=4 BS=16k FSYNC=64 SEED=1 DELAY=on
DEV=$(tut_byns "$DEV") || exit 1
[ -n "$DEV2" ] && { DEV2=$(tut_byns "$DEV2") || exit 1; }
tut_dev
M=/mnt/zns-fs

zoned() { [ "$(cat /sys/block/$(basename "$1")/queue/zoned)" = host-managed ]; }
devs=("$DEV")
[ -n "$DEV2" ] && devs+=("$DEV2")
for d in "${devs[@]}"; do
    [ -b "$d" ] || die "$d is not a block device"
    grep -q "^$d " /proc/mounts && die "$d is mounted"
    zoned "$d" && blkzone reset "$d"
done

# C0h of every namespace used, the FTL once: "host nand gc resets"
c0sum() {
    local d h=0 n=0 g=0 r=0 ftl=0 v
    for d in "${devs[@]}"; do
        if ! zoned "$d"; then
            [ $ftl = 1 ] && continue
            ftl=1
        fi
        v=($(c0ns "$d")) || die "cannot read log page C0h of $d"
        h=$((h + v[0])) g=$((g + v[1])) n=$((n + v[2] + v[1])) r=$((r + v[3]))
    done
    echo "$h $n $g $r"
}

case $FS in
f2fs)
    modprobe crc32_generic 2>/dev/null; modprobe f2fs 2>/dev/null
    opt=
    for d in "${devs[@]}"; do zoned "$d" && opt=-m; done
    zoned "$DEV" && die "FS=f2fs: DEV must be the conventional namespace (the zoned one is DEV2)"
    mkcmd=(mkfs.f2fs -f $opt)
    [ -n "$DEV2" ] && mkcmd+=(-c "$DEV2")
    mkcmd+=("$DEV") ;;
btrfs)
    modprobe crc32c_generic 2>/dev/null; modprobe btrfs 2>/dev/null
    mkcmd=(mkfs.btrfs -f -d single -m dup "$DEV") ;;
ext4)
    zoned "$DEV" && die "FS=ext4 needs a conventional namespace"
    mkcmd=(mkfs.ext4 -F -q "$DEV") ;;
*) die "FS=$FS: f2fs, btrfs or ext4" ;;
esac
"${mkcmd[@]}" >/tmp/zns-fs.mkfs 2>&1 || { cat /tmp/zns-fs.mkfs; die "${mkcmd[*]} failed"; }
echo "zns-fs: ${mkcmd[*]}"
mkdir -p $M
mount -t "$FS" "$DEV" $M || die "mount failed"
echo "zns-fs: $(grep " $M " /proc/mounts) ($(df -m $M | awk 'NR == 2 { print $2 " MiB, " $4 " free" }'))"
sync
[ "$DELAY" = off ] && ctl 4
ctl 5

prev=(0 0 0 0)
report() {  # report PHASE APP_MIB MIBS
    local c
    c=($(c0sum))
    [ ${#c[@]} = 4 ] || die "cannot read log page C0h"
    awk -v fs=$FS -v p=$1 -v a=$2 -v t=$3 -v h=$((c[0] - prev[0])) -v n=$((c[1] - prev[1])) \
        -v g=$((c[2] - prev[2])) -v r=$((c[3] - prev[3])) 'BEGIN {
        printf "RESULT fs=%s phase=%s app_mib=%d mibs=%.1f host_pages=%d nand_pages=%d gc_pages=%d zone_resets=%d fs_waf=%.3f dev_waf=%.3f total_waf=%.3f\n",
            fs, p, a, t, h, n, g, r, h * 4096 / (a * 1048576), h ? n / h : 0, n * 4096 / (a * 1048576) }'
    prev=("${c[@]}")
}
mibs() { python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["write"]; print("%.1f %d" % (j["bw_bytes"] / 1048576, j["io_bytes"] >> 20))'; }
fiojob() {  # fiojob NAME FIO-ARGS...: "MiB/s MiB"
    local out
    out=$(fio --eta=never --output-format=json --name="$1" --filename=$M/data \
        --size=${FILE_MB}m --ioengine=psync --end_fsync=1 "${@:2}") ||
        die "fio $1 failed (file system full?)"
    mibs <<<"$out"
}
# (fiojob runs in a subshell: its die ends only that, hence the checks)
read -r t a <<<"$(fiojob fill --rw=write --bs=1m)"
[ -n "$a" ] || die "the fill failed"
report fill "$a" "$t"
read -r t a <<<"$(fiojob over --rw=randwrite --bs=$BS --fsync=$FSYNC \
    --io_size=$((OVER * FILE_MB))m --randseed=$SEED)"
[ -n "$a" ] || die "the overwrite failed"
report overwrite "$a" "$t"
dmesg | grep -E 'F2FS-fs.*(error|ERROR)|BTRFS error|EXT4-fs error' | tail -3
umount $M
[ "$DELAY" = off ] && ctl 3
exit 0
