#!/bin/bash
# trace-run.sh: the workload of tutorial 07 (record the SSD's I/O, replay
# it in femu-sim), inside a guest whose femu device records with
# io_trace=PATH (the embedded one of scripts/femu-run, or a real one with
# fio, nvme-cli and btrfs-progs), next to lib.sh.
#
# Workload: NAND times off (0xEF code 4: the counts do not depend on them),
# a sequential fill of the namespace, then JOBS fio jobs at once of 4 KiB
# requests, 80% writes, Zipf(ZIPF) over the namespace, WRITE bytes in all,
# then a btrfs file system (mkfs discards the whole device) with files
# written, half of them deleted, fstrim, and as many written again.  Then
# the trace is closed (0xEF code 11) and log page C0h printed:
#   C0 waf_x1000 host_written gc_moved programmed
# femu-sim --replay of the trace prints the same counters.
#
# WARNING: it overwrites DEV and makes a new file system on it.
#
# Settings (NAME=VALUE arguments): DEV=/dev/nvme0n1, JOBS=4, WRITE=2x
# (bytes or a multiple of the namespace), ZIPF=1.2, FILES=64 (files of
# FILE_MB=1 MiB per round), SEED=1.
. "$(dirname "$0")/lib.sh" 2>/dev/null || . ./lib.sh 2>/dev/null ||
    { echo "$(basename "$0" .sh): lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
tut_args "$@"
tut_defaults DEV=/dev/nvme0n1 JOBS=4 WRITE=2x ZIPF=1.2 FILES=64 FILE_MB=1 SEED=1
tut_dev
M=/mnt/trace-run

ctl 4 || die "0xEF code 4 failed: is $CTRL a femu device?"
fio --name=fill --filename="$DEV" --rw=write --bs=128k --direct=1 \
    --ioengine=libaio --iodepth=8 --output=/dev/null --eta=never ||
    die "fill failed"
per=$(( $(size "$WRITE") / JOBS / 4096 * 4096 ))
fio --name=mix --filename="$DEV" --rw=randrw --rwmixwrite=80 --bs=4k \
    --direct=1 --ioengine=libaio --iodepth=8 --numjobs="$JOBS" \
    --io_size="$per" --random_distribution=zipf:"$ZIPF" --randseed="$SEED" \
    --output=/dev/null --eta=never || die "fio mix failed"
echo "trace-run: fill, then $JOBS jobs x $per bytes (80% writes, zipf:$ZIPF)"

modprobe crc32c_generic 2>/dev/null; modprobe btrfs 2>/dev/null
mkfs.btrfs -f -d single -m dup "$DEV" >/tmp/trace-run.mkfs 2>&1 ||
    { cat /tmp/trace-run.mkfs; die "mkfs.btrfs failed"; }
mkdir -p $M
mount -t btrfs "$DEV" $M || die "mount failed"
for r in 1 2; do
    for i in $(seq "$FILES"); do
        head -c $((FILE_MB << 20)) /dev/urandom >$M/r$r-$i || die "write failed"
    done
    sync
    rm -f $M/r$r-*[02468]
    sync
    fstrim $M || die "fstrim failed"
done
umount $M
echo "trace-run: btrfs: 2 x $FILES files of $FILE_MB MiB, half deleted and trimmed each time"
ctl 11 || die "0xEF code 11 failed: does the device have io_trace=?"
echo "C0 $(c0)"
ctl 3
