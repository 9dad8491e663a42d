# Guest side of tests/guest/femu-nossd.t.  Devices: vSSD0 femu_mode=2
# (NoSSD), vSSD1 femu_mode=1, vSSD2 femu_mode=2 with hiops_inline=on and
# two pollers (one fio job per guest CPU, so both serve a queue).  The job runs twice: the first run writes a
# pattern and reboots the guest; the second finds it (data kept across a
# guest reboot) and exits, powering the guest off.
N=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
S=$(ctrl_of vSSD1) || { bad "no controller vSSD1"; finish; exit; }
H=$(ctrl_of vSSD2) || { bad "no controller vSSD2"; finish; exit; }
ncpu=$(nproc)
marker() { dd if=/dev/${S}n1 bs=4096 count=1 skip=100 iflag=direct 2>/dev/null | head -c 16 | tr -d '\0'; }
if [ "$(marker)" != "femu-reboot-mark" ]; then
    echo "first boot"
    check "NoSSD model" bash -c "nvme id-ctrl /dev/$N | grep -q '^mn *: FEMU NoSSD Controller'"
    check "NoSSD fio crc32c verify" fio --name=v --filename=/dev/${N}n1 --rw=randwrite \
        --bs=4k --direct=1 --ioengine=libaio --iodepth=16 --size=8M --verify=crc32c \
        --output=/dev/null
    check "NoSSD C0h = 1000 0 0 0" [ "$(c0 $N)" = "1000 0 0 0" ]
    check "NoSSD 0xEF code 2 succeeds" ctl $N 2
    check "NoSSD trim reads zeroes" bash -c "fio --name=t --filename=/dev/${N}n1 --rw=trim --bs=1M --size=4M --output=/dev/null && cmp -n 4194304 <(dd if=/dev/${N}n1 bs=1M count=4 iflag=direct 2>/dev/null) /dev/zero"
    check "NoSSD hiops_inline fio crc32c verify, $ncpu jobs" fio --name=v \
        --filename=/dev/${H}n1 --rw=randwrite --bs=4k --direct=1 --ioengine=libaio \
        --iodepth=16 --size=8M --numjobs=$ncpu --cpus_allowed=0-$((ncpu - 1)) \
        --cpus_allowed_policy=split --offset_increment=8M --verify=crc32c \
        --output=/dev/null
    check "NoSSD hiops_inline trim reads zeroes" bash -c "fio --name=t --filename=/dev/${H}n1 --rw=trim --bs=1M --size=4M --output=/dev/null && cmp -n 4194304 <(dd if=/dev/${H}n1 bs=1M count=4 iflag=direct 2>/dev/null) /dev/zero"
    fio --name=p --filename=/dev/${H}n1 --rw=write --bs=64k --direct=1 --ioengine=libaio \
        --iodepth=8 --size=8M --offset=1M --verify=crc32c --do_verify=0 \
        --verify_state_save=0 --output=/dev/null
    fio --name=p --filename=/dev/${S}n1 --rw=write --bs=64k --direct=1 --ioengine=libaio \
        --iodepth=8 --size=8M --offset=1M --verify=crc32c --do_verify=0 \
        --verify_state_save=0 --output=/dev/null
    fio --name=p --filename=/dev/${N}n1 --rw=write --bs=64k --direct=1 --ioengine=libaio \
        --iodepth=8 --size=8M --offset=1M --verify=crc32c --do_verify=0 \
        --verify_state_save=0 --output=/dev/null
    printf 'femu-reboot-mark' | dd of=/dev/${S}n1 bs=4096 seek=100 conv=sync oflag=direct 2>/dev/null
    [ "$FAILS" = 0 ] && echo "first boot checks passed" || echo "first boot: $FAILS failed"
    echo "$FAILS" | dd of=/dev/${S}n1 bs=4096 seek=101 conv=sync oflag=direct 2>/dev/null
    sync
    reboot -f
    sleep 60
fi
echo "second boot"
FAILS=$(dd if=/dev/${S}n1 bs=4096 count=1 skip=101 iflag=direct 2>/dev/null | tr -dc 0-9)
check "BBSSD data survives guest reboot" fio --name=p --filename=/dev/${S}n1 --rw=write \
    --bs=64k --direct=1 --ioengine=libaio --iodepth=8 --size=8M --offset=1M \
    --verify=crc32c --verify_only --output=/dev/null
check "NoSSD data survives guest reboot" fio --name=p --filename=/dev/${N}n1 --rw=write \
    --bs=64k --direct=1 --ioengine=libaio --iodepth=8 --size=8M --offset=1M \
    --verify=crc32c --verify_only --output=/dev/null
check "NoSSD hiops_inline data survives guest reboot" fio --name=p --filename=/dev/${H}n1 \
    --rw=write --bs=64k --direct=1 --ioengine=libaio --iodepth=8 --size=8M --offset=1M \
    --verify=crc32c --verify_only --output=/dev/null
# Identify Namespace NUSE: NoSSD has no mapping (NUSE = NSZE, no thin
# provisioning); the BlackBox SSD's counts the pages written before the
# reboot: 8 MiB (2048 pages) + the two marker pages = 16400 blocks
idns() { nvme id-ns /dev/${1}n1 -o json | python3 -c 'import sys, json; j = json.load(sys.stdin); print(j["nsfeat"], j["nuse"] == j["nsze"], j["nuse"])'; }
v=$(idns $N)
check "NoSSD: NSFEAT 14h, NUSE = NSZE ($v)" [ "${v% *}" = "20 True" ]
check "BBSSD: NSFEAT 15h, NUSE 16400 after the reboot ($(idns $S))" [ "$(idns $S)" = "21 False 16400" ]
