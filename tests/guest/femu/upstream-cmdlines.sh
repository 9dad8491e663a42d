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
