# Guest side of tests/guest/femu-state-ns.t: one controller (serial st0)
# with namespaces 1 and 2 BlackBox SSD (one FTL) and 3 NoSSD, kept across
# QEMU restarts by state=PATH.  Each phase prints, per namespace, "ns I
# start|end NUSE W WC H G" (NUSE, SMART data units written and write
# commands, C0h's host pages written and GC pages moved of the namespace)
# and "c0 start|end H G" (C0h's device totals) at its start and its
# end, and "sum I start|end SHA" of the namespace's first 6 MiB; the host compares one phase's end with the
# next one's start.  PHASE=1 writes distinct random data to each;
# PHASE=2 changes namespace 2 alone (1 MiB rewritten, 512 KiB
# deallocated); PHASE=3 only reads.
C=$(ctrl_of st0) || { bad "no controller with serial st0"; finish; exit; }
nsdev() {
    local d
    for d in /sys/block/${C}n*; do
        [ "$(cat $d/nsid)" = "$1" ] && { echo /dev/$(basename $d); return; }
    done
}
N1=$(nsdev 1) N2=$(nsdev 2) N3=$(nsdev 3)
check "three namespaces" [ -n "$N1" ] && [ -n "$N2" ] && [ -n "$N3" ]
# put DEV OFFSET_KIB KIB: random data, direct I/O (offsets in 64 KiB)
put() {
    head -c $(($3 * 1024)) /dev/urandom > /tmp/put &&
        dd if=/tmp/put of=$1 bs=64k seek=$(($2 / 64)) oflag=direct \
           conv=notrunc status=none
}
# C0h's per-namespace host pages written and GC pages moved (NSID I, or
# the device's totals for FFFFFFFFh)
c0ns() { femu_c0ns /dev/$C $1 | sed 's/[a-z_]*=//g' | cut -d' ' -f2-; }
counters() { # counters start|end
    for i in 1 2 3; do
        nuse=$(nvme id-ns $(nsdev $i) -o json | python3 -c 'import sys,json; print(json.load(sys.stdin)["nuse"])')
        sm=$(nvme smart-log /dev/$C --namespace-id=$i -o json | python3 -c 'import sys,json; j=json.load(sys.stdin); print(j["data_units_written"], j["host_write_commands"])')
        echo "ns $i $1 $nuse $sm $(c0ns $i)"
    done
    echo "c0 $1 $(c0ns 4294967295)"
}
sums() { # sums start|end
    for i in 1 2 3; do
        echo "sum $i $1 $(dd if=$(nsdev $i) bs=1M count=6 iflag=direct status=none | sha256sum | cut -c1-16)"
    done
}
counters start
sums start
case $PHASE in
1)
    # distinct data: namespace 1 at 0-4 MiB, 2 at 1-4 MiB, 3 at 0-2 MiB
    check "write namespace 1" put $N1 0 4096
    check "write namespace 2" put $N2 1024 3072
    check "write namespace 3 (NoSSD)" put $N3 0 2048
    ;;
2)
    check "rewrite 1 MiB of namespace 2" put $N2 2048 1024
    # blocks 2048-3071 (512-byte blocks): 512 KiB from 1 MiB
    check "deallocate 512 KiB of namespace 2" nvme dsm $N2 --ad -s 2048 -b 1024
    ;;
esac
sums end
counters end
