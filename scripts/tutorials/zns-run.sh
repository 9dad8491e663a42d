#!/bin/bash
# zns-run.sh: timing of a FEMU Zoned Namespace SSD (femu_mode=3), inside a
# guest (the embedded one of scripts/femu-run, or a real one with fio,
# nvme-cli, blkzone and python3), next to lib.sh.
#
#   write/append  QD1 4 KiB Write at the write pointer and 4 KiB Zone
#                 Append, both as NVMe passthrough commands from one
#                 python3 loop (the same host path; median of N)
#   reset         Zone Management Send reset of a written zone and of an
#                 empty one (median of N each)
#   qd            4 KiB Zone Appends to one zone from QD python threads
#                 (passthrough: nothing serialises them, the device has
#                 QD at once) against one thread (QD1); fio 4 KiB writes
#                 to one zone at iodepth QD (libaio, zonemode=zbd) against
#                 psync QD1: Linux's zone write plugging sends a zone's
#                 writes to the device one at a time, merging the queued
#                 ones; "device writes" counts the write requests that
#                 reached the device (NQ commands each)
#   parallel      two fio jobs writing two zones at QD1 (8 KiB writes):
#                 zones on different LUN groups, then zones on the same
#                 LUN group
#
# WARNING: it resets every zone of the namespace.
#
# Settings (NAME=VALUE arguments): DEV=/dev/nvme0n1, N=200 (commands per
# timing), QD=32 and NQ=256 (queue depth and commands of the qd part;
# PARTS=qd runs only that part), ZONES_APART=1 (zone index distance of "different groups"; 1
# when zones alternate over 2 LUN groups), ZONES_SAME=2 (distance of "same
# group").

# shared helpers (scripts/tutorials/lib.sh): beside this script, or in the
# current directory
. "$(dirname "$0")/lib.sh" 2>/dev/null || . ./lib.sh 2>/dev/null ||
    { echo "$(basename "$0" .sh): lib.sh not found beside $0 or in $PWD: copy the whole scripts/tutorials/ directory" >&2; exit 1; }
tut_args "$@"
tut_defaults DEV=/dev/nvme0n1 N=200 ZONES_APART=1 ZONES_SAME=2 QD=32 NQ=256 PARTS=all
tut_dev
[ "$(cat /sys/block/$NAME/queue/zoned)" = host-managed ] || die "$DEV is not a host-managed zoned device"
ZSECT=$(cat /sys/block/$NAME/queue/chunk_sectors)
ZBYTES=$((ZSECT * 512))
blkzone reset "$DEV"

# the passthrough parts, one python program: "qd NQ QD" or "timing N"
ZPY=$(cat <<'PY'
import fcntl, os, struct, sys, time, ctypes, statistics, threading
dev, part = sys.argv[1], sys.argv[2]
fd = os.open(dev, os.O_RDWR)
NVME_IOCTL_ID = 0x4E40
NVME_IOCTL_IO_CMD = 0xC0484E43
nsid = fcntl.ioctl(fd, NVME_IOCTL_ID)
lbs = int(open("/sys/block/%s/queue/logical_block_size" % os.path.basename(dev)).read())
zsect = int(open("/sys/block/%s/queue/chunk_sectors" % os.path.basename(dev)).read())
zlbas = zsect * 512 // lbs
nlb = 4096 // lbs
buf = ctypes.create_string_buffer(4096)
def cmd(opc, slba, nlb, cdw13=0, data=True):
    """one I/O command, its latency in ns"""
    c = bytearray(struct.pack("<BBHIIIQQII6IIIxxxx", opc, 0, 0, nsid, 0, 0, 0,
        ctypes.addressof(buf) if data else 0, 0, 4096 if data else 0,
        slba & 0xffffffff, slba >> 32, nlb - 1 if data else 0, cdw13, 0, 0, 0, 0)[:72])
    t = time.perf_counter_ns()
    fcntl.ioctl(fd, NVME_IOCTL_IO_CMD, c)
    return time.perf_counter_ns() - t
def med(xs): return int(statistics.median(xs)) // 1000
if part == "qd":
    n, qd = int(sys.argv[3]), int(sys.argv[4])
    def append(zone, count, lat):
        for i in range(count):
            lat.append(cmd(0x7d, zone * zlbas, nlb))
    def run(zone, threads):
        lat = []
        ts = [threading.Thread(target=append, args=(zone, n // threads, lat))
              for i in range(threads)]
        t = time.perf_counter_ns()
        for x in ts: x.start()
        for x in ts: x.join()
        wall = (time.perf_counter_ns() - t) / 1e9
        return len(lat) / wall, med(lat), len(lat)
    for name, zone, threads in (("qd1", 0, 1), ("qd%d" % qd, 1, qd)):
        iops, m, cnt = run(zone, threads)
        print("append %-4s 4k, one zone (passthrough): %.0f IOPS, median %d us (n=%d)" % (name, iops, m, cnt))
else:
    n = int(sys.argv[3])
    # writes at the write pointer of zone 0, appends to zone 1
    w = [cmd(0x01, i * nlb, nlb) for i in range(n)]
    a = [cmd(0x7d, zlbas, nlb) for i in range(n)]
    print("write  qd1 4k: median %d us (n=%d)" % (med(w), n))
    print("append qd1 4k: median %d us (n=%d)" % (med(a), n))
    # resets: zones 0 and 1 were written; then zone 2.. written one page each
    r_w = []
    for z in range(2, 2 + n // 10):
        cmd(0x01, z * zlbas, nlb)
    for z in [0, 1] + list(range(2, 2 + n // 10)):
        r_w.append(cmd(0x79, z * zlbas, 0, 0x04, data=False))
    r_e = [cmd(0x79, 0, 0, 0x04, data=False) for i in range(n // 10)]
    print("reset written zone: median %d us (n=%d)" % (med(r_w), len(r_w)))
    print("reset empty zone:   median %d us (n=%d)" % (med(r_e), len(r_e)))
PY
)

python3 -c "$ZPY" "$DEV" qd "$NQ" "$QD"
blkzone reset "$DEV"
fiops() { python3 -c 'import json,sys; j=json.load(sys.stdin)["jobs"][0]["write"]; print("%.0f IOPS, median %d us" % (j["iops"], j["clat_ns"]["percentile"]["50.000000"] // 1000))'; }
# write requests the block layer completed (after merging): /sys/.../stat
wreqs() { awk '{print $5}' /sys/block/$NAME/stat; }
w0=$(wreqs)
echo "write  qd1  4k, one zone (fio psync): $(fio --eta=never --output-format=json \
    --name=w1 --filename="$DEV" --zonemode=zbd --direct=1 --ioengine=psync \
    --rw=write --bs=4k --offset=0 --size=$ZBYTES --io_size=$((NQ * 4096)) | fiops), $(($(wreqs) - w0)) device writes"
w0=$(wreqs)
echo "write  qd$QD 4k, one zone (fio libaio iodepth=$QD): $(fio --eta=never --output-format=json \
    --name=w32 --filename="$DEV" --zonemode=zbd --direct=1 --ioengine=libaio \
    --iodepth=$QD --rw=write --bs=4k --offset=$ZBYTES --size=$ZBYTES \
    --io_size=$((NQ * 4096)) | fiops), $(($(wreqs) - w0)) device writes"
blkzone reset "$DEV"
[ "$PARTS" = qd ] && exit 0

python3 -c "$ZPY" "$DEV" timing "$N"
blkzone reset "$DEV"

bw() { python3 -c 'import json,sys; j=json.load(sys.stdin); print("%d KiB/s" % sum(x["write"]["bw"] for x in j["jobs"]))'; }
par() {  # par DISTANCE: two QD1 writers, zone 0 and zone DISTANCE
    fio --eta=never --output-format=json \
        --name=a --filename="$DEV" --zonemode=zbd --direct=1 --ioengine=psync \
        --rw=write --bs=8k --offset=0 --size=$ZBYTES \
        --name=b --filename="$DEV" --zonemode=zbd --direct=1 --ioengine=psync \
        --rw=write --bs=8k --offset=$(($1 * ZBYTES)) --size=$ZBYTES \
        | bw
    blkzone reset "$DEV"
}
echo "one zone, one writer QD1 8k: $(fio --eta=never --output-format=json \
    --name=o --filename="$DEV" --zonemode=zbd --direct=1 --ioengine=psync --rw=write \
    --bs=8k --offset=0 --size=$ZBYTES | bw)"
blkzone reset "$DEV"
echo "two zones, different LUN groups: $(par "$ZONES_APART")"
echo "two zones, same LUN group:       $(par "$ZONES_SAME")"
v=$(c0 5) || die "cannot read log page C0h of $CTRL"
read -r waf host gc prog resets erased <<<"$v"
echo "C0h waf_x1000=$waf host_pages=$host gc=$gc programmed=$prog zone_resets=$resets blocks_erased=$erased"
