# Guest side of tests/guest/femu-upstream-cmdlines.t.  Controllers in
# command-line order: vSSD0 run-blackbox.sh, vSSD1 run-blackbox-fdp.sh,
# vSSD2 run-zns.sh, vSSD3 run-nossd.sh.
vfio() { # vfio DEV [FIO ARGS...]: write 8 MiB at QD16 and verify it
    local d=$1; shift
    fio --name=v --filename=/dev/$d --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=16 --size=8M --verify=crc32c \
        --output=/dev/null "$@"
}
for i in 0 1 2 3; do
    eval "C$i=\$(ctrl_of vSSD$i)" || bad "no controller vSSD$i"
done
check "run-blackbox.sh: 12 GiB namespace" \
    [ "$(cat /sys/block/${C0}n1/size)" = $((12288 * 2048)) ]
check "run-blackbox.sh: fio crc32c verify" vfio ${C0}n1
check "run-blackbox-fdp.sh: FDP in CTRATT (bit 19)" \
    bash -c "[ \$(( \$(nvme id-ctrl /dev/$C1 -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)[\"ctratt\"])') >> 19 & 1 )) = 1 ]"
check "run-blackbox-fdp.sh: SUBNQN from nqn=subsys0" \
    grep -qx 'nqn.2019-08.org.qemu:subsys0' /sys/class/nvme/$C1/subsysnqn
check "run-blackbox-fdp.sh: fio crc32c verify" vfio ${C1}n1
check "run-zns.sh: host-managed zoned namespace" \
    grep -qx host-managed /sys/block/${C2}n1/queue/zoned
# 4096 MiB over 8 x 4 x 2 x 32 blocks: 512 pages of 4 KiB a block; a zone
# is one block per plane of 4 LUNs: 16 MiB
check "run-zns.sh: 16 MiB zones" \
    [ "$(cat /sys/block/${C2}n1/queue/chunk_sectors)" = 32768 ]
check "run-zns.sh: fio zonemode=zbd crc32c verify" \
    fio --name=z --filename=/dev/${C2}n1 --zonemode=zbd --rw=write --bs=64k \
        --direct=1 --ioengine=psync --size=32M --verify=crc32c \
        --output=/dev/null
check "run-nossd.sh: 4 GiB namespace" \
    [ "$(cat /sys/block/${C3}n1/size)" = $((4096 * 2048)) ]
check "run-nossd.sh: fio crc32c verify" vfio ${C3}n1

# FEMU's controller knobs (vSSD K): Identify and PCI config show them
K=$(ctrl_of K) || bad "no controller K"
idk() { nvme id-ctrl /dev/$K -o json | python3 -c "import sys,json; print(json.load(sys.stdin)['$1'])"; }
check "vid=0x1b36: Identify VID and SSVID" [ "$(idk vid) $(idk ssvid)" = "6966 6966" ]
check "vid/did: PCI IDs" [ "$(cat /sys/class/nvme/$K/device/vendor) $(cat /sys/class/nvme/$K/device/device)" = "0x1b36 0x0010" ]
check "vwc=0: no volatile write cache" [ "$(idk vwc)" = 0 ]
check "oacs=0x100, oncs=0x4" [ "$(idk oacs) $(idk oncs)" = "256 4" ]
# zones of 2 LUNs x 1 plane x 64 pages x 4 KiB = 512 KiB = 1024 sectors
zs=$(cat /sys/block/${K}n1/queue/chunk_sectors)
check "zns_cross_zone_read=off: a read inside a zone works" \
    nvme read /dev/${K}n1 --start-block=$((zs - 8)) --block-count=7 --data-size=4096
check "zns_cross_zone_read=off: a read across a zone boundary fails" \
    bash -c "! nvme read /dev/${K}n1 --start-block=$((zs - 4)) --block-count=7 --data-size=4096"
check "zns_cross_zone_read default (on): run-zns.sh's namespace reads across" \
    nvme read /dev/${C2}n1 --start-block=$((32768 - 4)) --block-count=7 --data-size=4096
