# Guest side of tests/guest/femu-state-sim.t: the SSD was filled and aged
# by femu-sim (EXPECT: its C0h counters "waf host gc programmed").
c=$(ctrl_of st0) || { bad "no controller with serial st0"; c=nvme0; }
ns=/dev/${c}n1
got=$(c0 "$c")
echo "c0 at boot $got"
check "C0h at boot is femu-sim's ($EXPECT)" [ "$got" = "$EXPECT" ]
# the simulator's pages hold no host data
check "a page femu-sim wrote reads zeroes" \
    sh -c "dd if=$ns bs=4k count=16 2>/dev/null | cmp -s - /dev/zero -n 65536"
fio --name=w --filename=$ns --rw=randwrite --bs=4k --size=4m --direct=1 \
    --ioengine=psync --randseed=3 --output=/dev/null
after=$(c0 "$c")
echo "c0 after 4 MiB $after"
set -- $got; gc0=$3
set -- $after; gc1=$3
check "the aged SSD collects garbage at once (gc_moved $gc0 -> $gc1)" [ "$gc1" -gt "$gc0" ]
check "0xEF code 8 (save the state file now) succeeds" ctl "$c" 8
echo "saved c0 $(c0 "$c")"
# keep writing until the host kills QEMU: nothing after the save may
# reach the file
echo "kill me now"
fio --name=more --filename=$ns --rw=randwrite --bs=4k --size=8m --direct=1 \
    --ioengine=psync --time_based --runtime=600 --output=/dev/null
