#!/bin/bash
# zrwa-run.sh: what a Zone Random Write Area costs on a FEMU zoned
# namespace (femu_mode=3 with zns_zrwa_size, zns_zrwafg_size and
# zns_zrwa_num), inside a guest (the embedded one of scripts/femu-run, or
# a real one with nvme-cli, blkzone and python3), next to lib.sh.
#
# cli: nvme-cli's zns commands on zone 0 (ZRWA of 64 blocks or more, 8
# blocks per 4 KiB): open with ZRWA, write out of order inside the window,
# see the write pointer stay; commit 16 blocks (zrwa-flush-zone), a write
# past the window (implicit commit), a write below the write pointer
# refused, Finish; report-zones and C0h after each step.
#
# timing: QD1 4 KiB commands as NVMe passthrough from one python3 loop (one host
# path for all of them), median and mean of N each:
#   plain     Write at the write pointer of a zone without ZRWA
#   window    Write into the ZRWA of a zone opened with ZRWAA (Zone
#             Management Send Open, ZSASO set), at a random 4 KiB place
#             of [WP, WP + ZRWASZ): out of order, overwrites included;
#             nothing is committed
#   implicit  sequential Writes through a ZRWA zone past the window:
#             those that moved the write pointer (implicit commit of a
#             granule), and those that did not (implicit-none: they end
#             inside the window once the previous one moved it);
#             implicit-in: the first ZRWASZ of writes, all inside
#   commit    Commit Zone (Zone Management Send ZSA 11h, nvme-cli's
#             zrwa-flush-zone) of one flush granule after it was written
#             into the window
#   commit-write  the Writes that filled those granules
#   commit-empty  Commit Zone of a granule nobody wrote
# and the write pointers and C0h's host pages / pages programmed before
# and after, so the commits' NAND programs show.
#
# WARNING: it resets every zone of the namespace.
#
# Settings (NAME=VALUE arguments): DEV=/dev/nvme0n1, N=50, PARTS=all
# (cli, timing).

# shared helpers (scripts/tutorials/lib.sh): beside this script, or in the
# current directory
. "$(dirname "$0")/lib.sh" 2>/dev/null || . ./lib.sh 2>/dev/null ||
    { echo "$(basename "$0" .sh): lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
tut_args "$@"
tut_defaults DEV=/dev/nvme0n1 N=50 PARTS=all
tut_dev
[ "$(cat /sys/block/$NAME/queue/zoned)" = host-managed ] || die "$DEV is not a host-managed zoned device"
idns=$(nvme zns id-ns "$DEV") || die "nvme zns id-ns $DEV failed"
field() { awk -v k="$1" '$1 == k { print $3 }' <<<"$idns"; }
ZRWASZ=$(field zrwasz) ZRWAFG=$(field zrwafg) NUMZRWA=$(( $(field numzrwa) + 1 ))
[ "${ZRWASZ:-0}" -gt 0 ] || die "$DEV has no ZRWA (zns_zrwa_size=0)"
echo "zrwa-run: zrwasz=$ZRWASZ zrwafg=$ZRWAFG numzrwa=$NUMZRWA (logical blocks of $(cat /sys/block/$NAME/queue/logical_block_size) B)"
blkzone reset "$DEV"
hp() { set -- $(c0 3); echo "host_pages=$2 programmed=$4"; }

if [ "$PARTS" != timing ]; then
    # the walk-through: each nvme-cli command and what it prints
    run() { echo "\$ $*" | sed "s|$DEV|\$DEV|g"; "$@" 2>&1 | sed 's/ *$//'; }
    rep() { run nvme zns report-zones "$DEV" -d 1; }
    head -c 4096 /dev/urandom >/tmp/zrwa-a; head -c 8192 /dev/urandom >/tmp/zrwa-b
    echo "C0h: $(hp)"
    run nvme zns open-zone "$DEV" -s 0 --zrwaa
    rep
    run nvme write "$DEV" -s 32 -c 7 -z 4096 -d /tmp/zrwa-a
    run nvme write "$DEV" -s 0 -c 15 -z 8192 -d /tmp/zrwa-b
    run nvme write "$DEV" -s 32 -c 7 -z 4096 -d /tmp/zrwa-a
    rep
    echo "C0h: $(hp)"
    run nvme zns zrwa-flush-zone "$DEV" --lba=15
    rep
    echo "C0h: $(hp)"
    run nvme write "$DEV" -s 72 -c 15 -z 8192 -d /tmp/zrwa-b
    rep
    echo "C0h: $(hp)"
    run nvme write "$DEV" -s 8 -c 7 -z 4096 -d /tmp/zrwa-a
    run nvme zns finish-zone "$DEV" -s 0
    rep
    echo "C0h: $(hp)"
    blkzone reset "$DEV"
    [ "$PARTS" = cli ] && exit 0
fi
echo "C0h before: $(hp)"

python3 - "$DEV" "$N" "$ZRWASZ" "$ZRWAFG" <<'PY'
import ctypes, fcntl, os, random, statistics, struct, sys, time
dev, n, zsz, zfg = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
fd = os.open(dev, os.O_RDWR)
NVME_IOCTL_ID = 0x4E40
NVME_IOCTL_IO_CMD = 0xC0484E43
nsid = fcntl.ioctl(fd, NVME_IOCTL_ID)
name = os.path.basename(dev)
lbs = int(open("/sys/block/%s/queue/logical_block_size" % name).read())
zlbas = int(open("/sys/block/%s/queue/chunk_sectors" % name).read()) * 512 // lbs
nlb = 4096 // lbs
buf = ctypes.create_string_buffer(os.urandom(4096), 4096)
def cmd(opc, slba, cdw13=0, data=True):
    """one I/O command: (latency in us, status)"""
    c = bytearray(struct.pack("<BBHIIIQQII6IIIxxxx", opc, 0, 0, nsid, 0, 0, 0,
        ctypes.addressof(buf) if data else 0, 0, 4096 if data else 0,
        slba & 0xffffffff, slba >> 32, nlb - 1 if data else 0, cdw13, 0, 0, 0, 0)[:72])
    t = time.perf_counter_ns()
    try:
        st = fcntl.ioctl(fd, NVME_IOCTL_IO_CMD, c)   # the NVMe status
    except OSError as e:
        st = -e.errno
    return (time.perf_counter_ns() - t) / 1000, st
def write(slba): return cmd(0x01, slba)
def zms(slba, zsa, zsaso=0): return cmd(0x79, slba, zsa | (zsaso << 9), data=False)
def wp(zone):
    rb = ctypes.create_string_buffer(64 + 64)
    c = bytearray(struct.pack("<BBHIIIQQII6IIIxxxx", 0x7a, 0, 0, nsid, 0, 0, 0,
        ctypes.addressof(rb), 0, 128, zone * zlbas & 0xffffffff, zone * zlbas >> 32,
        128 // 4 - 1, 0x10000 | 0, 0, 0, 0, 0)[:72])   # Report Zones, partial
    fcntl.ioctl(fd, NVME_IOCTL_IO_CMD, c)
    return struct.unpack_from("<Q", rb, 64 + 24)[0] - zone * zlbas
def line(what, lats):
    bad = [s for l, s in lats if s != 0]
    if bad:
        sys.exit("zrwa-run: %s: %d commands failed (status %s)" % (what, len(bad), bad[0]))
    us = [l for l, s in lats]
    print("%-13s median %7.0f us  mean %7.0f us  (n=%d)" % (what, statistics.median(us), statistics.mean(us), len(us)))
    sys.stdout.flush()
random.seed(1)
zone = 0
def next_zone():
    global zone
    zone += 1
    return zone
# plain: a zone without ZRWA, at its write pointer
z = next_zone()
line("plain", [write(z * zlbas + i * nlb) for i in range(n)])
# window: a ZRWA zone, random 4 KiB places inside [WP, WP + ZRWASZ)
z = next_zone()
assert zms(z * zlbas, 0x03, 1)[1] == 0, "open with ZRWAA failed"
slots = zsz // nlb
line("window", [write(z * zlbas + random.randrange(slots) * nlb) for i in range(n)])
print("              write pointer after %d window writes: %d" % (n, wp(z)))
zms(z * zlbas, 0x02)    # Finish: gives the ZRWA back
# implicit: sequential through a fresh ZRWA zone; the writes past the
# window move the write pointer
z = next_zone()
assert zms(z * zlbas, 0x03, 1)[1] == 0
inside = [write(z * zlbas + i * nlb) for i in range(slots)]
w0 = wp(z)
moved, stayed = [], []
for i in range(n):
    before = wp(z)
    r = write(z * zlbas + (slots + i) * nlb)
    (moved if wp(z) != before else stayed).append(r)
line("implicit-in", inside)
line("implicit", moved)
line("implicit-none", stayed)
print("              write pointer %d -> %d after %d writes past the window" % (w0, wp(z), n))
zms(z * zlbas, 0x02)
# commit: write one granule into the window, commit it (Commit Zone, SLBA
# = its last block); time the commit alone
z = next_zone()
assert zms(z * zlbas, 0x03, 1)[1] == 0
com, wr = [], []
for i in range(n):
    base = z * zlbas + i * zfg
    if (i + 1) * zfg > zlbas:
        break
    wr += [write(base + j * nlb) for j in range(zfg // nlb)]
    com.append(zms(base + zfg - 1, 0x11))
line("commit", com)
line("commit-write", wr)
print("              write pointer %d after %d commits of %d blocks" % (wp(z), len(com), zfg))
zms(z * zlbas, 0x02)
# commit-empty: commit granules nobody wrote
z = next_zone()
assert zms(z * zlbas, 0x03, 1)[1] == 0
line("commit-empty", [zms(z * zlbas + (i + 1) * zfg - 1, 0x11) for i in range(min(n, zlbas // zfg))])
print("              write pointer %d" % wp(z))
zms(z * zlbas, 0x02)
PY
[ $? = 0 ] || die "the passthrough part failed"
echo "C0h after:  $(hp)"
blkzone reset "$DEV"
