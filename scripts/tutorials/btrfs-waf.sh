#!/bin/bash
# btrfs-waf.sh: write amplification of a btrfs file system on a FEMU
# device, inside a guest (the embedded one of scripts/femu-run, which has
# the btrfs module and mkfs.btrfs, or a real one with btrfs-progs and
# nvme-cli), next to lib.sh.  C0h is read with DEV's NSID (on a controller
# with several namespaces, the zoned namespace's own counters).  On a zoned namespace (femu_mode=3)
# mkfs.btrfs makes a zoned btrfs; on a BlackBox SSD (femu_mode=1) a
# regular one.
#
# Workload, the same on both: make the file system (-d single -m dup),
# mount it, write FILL files of FILE_MB MiB with random contents, then
# ROUNDS rounds of: delete a random CHURN of the files, sync, write as many
# new ones, sync.  Log page C0h is cleared after mkfs + mount (0xEF code 5)
# and read at the end; the application's bytes are the files' bytes.
#
# Prints one line:
#   RESULT mode=zoned|regular app_mib=A host_pages=. nand_pages=.
#          host_mib=H nand_mib=N fs_waf=H/A dev_waf=N/H total_waf=N/A
#          gc_pages=G zone_resets=R blocks_erased=E
#          secs=S app_mibs=A/S
# S = seconds from the first file written to the last sync (with
# DELAY=on, the throughput of the emulated drive under the host's load);
# host = pages the host wrote (C0h bytes 8-15), nand = pages programmed for
# the host (24-31) plus pages the device's GC moved (16-23: G), zone resets
# and erased blocks (32-47, femu_mode=3 only); A = MiB of file data written.
#
# WARNING: it makes a new file system on DEV.
#
# A btrfs error in the kernel log (ENOSPC at writeback: a zoned btrfs on a
# small device reclaims zones only once 75% of it is allocated, and can run
# out of space before, when FILL is large) stops it with status 1.
#
# Settings (NAME=VALUE arguments): DEV=/dev/nvme0n1 (or nsN: nvme0's
# namespace with NSID N), FILE_MB=1, FILL=40,
# CHURN=16, ROUNDS=20, SEED=1, DELAY=off (0xEF code 4: NAND delays off,
# the counts do not depend on them; DELAY=on keeps them).

# shared helpers (scripts/tutorials/lib.sh): beside this script, or in the
# current directory
. "$(dirname "$0")/lib.sh" 2>/dev/null || . ./lib.sh 2>/dev/null ||
    { echo "$(basename "$0" .sh): lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
tut_args "$@"
tut_defaults DEV=/dev/nvme0n1 FILE_MB=1 FILL=40 CHURN=16 ROUNDS=20 SEED=1 DELAY=off
DEV=$(tut_byns "$DEV") || exit 1
tut_dev
M=/mnt/btrfs-waf

modprobe crc32c_generic 2>/dev/null; modprobe btrfs 2>/dev/null
zoned=$(cat /sys/block/$NAME/queue/zoned)
[ "$zoned" = host-managed ] && blkzone reset "$DEV"
mkfs.btrfs -f -d single -m dup "$DEV" >/tmp/btrfs-waf.mkfs 2>&1 ||
    { cat /tmp/btrfs-waf.mkfs; die "mkfs.btrfs failed"; }
mkdir -p $M
mount -t btrfs "$DEV" $M || die "mount failed"
echo "btrfs-waf: $(grep " $M " /proc/mounts)"
sync
[ "$DELAY" = off ] && ctl 4
ctl 5
t0=$(date +%s.%N)

RANDOM=$SEED
app=0 next=0
declare -a live=()
wr() {  # one new file
    head -c $((FILE_MB << 20)) /dev/urandom >$M/f$next || die "write failed (file system full?)"
    live+=("$next"); next=$((next + 1)); app=$((app + FILE_MB))
}
fs_ok() {
    sync
    if dmesg | grep -q 'BTRFS error'; then
        dmesg | grep 'BTRFS error' | tail -3
        die "btrfs reported errors after $app MiB written (live files: ${#live[@]})"
    fi
}
for i in $(seq "$FILL"); do wr; done
fs_ok
for r in $(seq "$ROUNDS"); do
    for i in $(seq "$CHURN"); do
        k=$((RANDOM % ${#live[@]}))
        rm -f "$M/f${live[$k]}"
        live=("${live[@]:0:$k}" "${live[@]:$((k + 1))}")
    done
    sync
    for i in $(seq "$CHURN"); do wr; done
    fs_ok
done
secs=$(awk -v t0=$t0 -v t1=$(date +%s.%N) 'BEGIN { printf "%.1f", t1 - t0 }')
umount $M
v=$(c0ns "$DEV") || die "cannot read log page C0h of $DEV"
read -r host gc prog resets erased <<<"$v"
[ "$DELAY" = off ] && ctl 3
[ "$zoned" = host-managed ] && mode=zoned || mode=regular
awk -v mode=$mode -v a=$app -v h=$host -v p=$prog -v g=$gc -v r=$resets -v e=$erased -v s=$secs 'BEGIN {
    n = p + g; hm = h * 4096 / 1048576; nm = n * 4096 / 1048576
    printf "RESULT mode=%s app_mib=%d host_pages=%d nand_pages=%d host_mib=%.1f nand_mib=%.1f fs_waf=%.3f dev_waf=%.3f total_waf=%.3f gc_pages=%d zone_resets=%d blocks_erased=%d secs=%s app_mibs=%.2f\n",
        mode, a, h, n, hm, nm, hm / a, n / h, nm / a, g, r, e, s, a / s }'
