# Guest side of tests/guest/femu-sgl.t: Scatter Gather Lists from Linux
# (booted with nvme.sgl_threshold=1: every I/O uses an SGL).
# PHASE=verify: fio verify (crc32c, 4 KiB..1 MiB) on a BlackBox and a
# NoSSD FEMU and on QEMU's nvme; the same data and Compare answers on all.
# PHASE=perf: one NoSSD FEMU, the same fio jobs with SGLs (threshold 1)
# and with PRPs (threshold 0), alternated.
set -u
TH=/sys/module/nvme/parameters/sgl_threshold
sgls() { nvme id-ctrl "/dev/$1" -o json | python3 -c 'import sys, json; print(json.load(sys.stdin)["sgls"])'; }

if [ "$PHASE" = verify ]; then
    check "nvme.sgl_threshold=1 from the kernel command line" [ "$(cat $TH)" = 1 ]
    A=$(ctrl_of sgl0); N=$(ctrl_of sgl1); Q=$(ctrl_of qemu0)
    check "three controllers" [ -n "$A" -a -n "$N" -a -n "$Q" ]
    sa=$(sgls "$A"); sq=$(sgls "$Q")
    echo "SGLS: FEMU $sa, QEMU nvme $sq"
    check "FEMU SGLS = 0x10001 (byte aligned, bit bucket)" [ "$sa" = 65537 ]
    check "SGLS bits 1:0 (byte aligned SGLs) as QEMU's nvme" [ $((sa & 3)) = $((sq & 3)) ]
    for c in "$A" "$N" "$Q"; do
        d=/dev/${c}n1
        for job in "--rw=randwrite --bsrange=4k-1m --iodepth=4" \
                   "--rw=write --bs=1m --iodepth=2" \
                   "--rw=randwrite --bssplit=4k/30:64k/30:512k/20:1m/20 --iodepth=8"; do
            # shellcheck disable=SC2086
            if fio --name=v --filename="$d" --direct=1 --ioengine=libaio \
                   $job --size=16M --verify=crc32c --do_verify=1 \
                   --verify_fatal=1 --randrepeat=1 >/tmp/fio.out 2>&1; then
                ok "$c ($(cat /sys/class/nvme/$c/serial | tr -d ' ')): fio verify crc32c $job"
            else
                bad "$c: fio verify $job"; tail -5 /tmp/fio.out
            fi
        done
    done
    # the same data through all three, and the same Compare answers
    head -c 8388608 /dev/urandom >/tmp/pat
    want=$(sha256sum </tmp/pat | cut -d' ' -f1)
    head -c 131072 /tmp/pat >/tmp/pat128
    # one bit off in the 4001st byte
    python3 -c 'd = bytearray(open("/tmp/pat128", "rb").read()); d[4000] ^= 1; open("/tmp/bad128", "wb").write(d)'
    for c in "$A" "$N" "$Q"; do
        d=/dev/${c}n1
        dd if=/tmp/pat of="$d" bs=1M oflag=direct status=none
        got=$(dd if="$d" bs=1M count=8 iflag=direct status=none | sha256sum | cut -d' ' -f1)
        check "$c: 8 MiB written and read back with 1 MiB O_DIRECT" [ "$got" = "$want" ]
        nvme read "$d" -s 0 -c 255 -z 131072 -d /tmp/rd.$c >/dev/null 2>&1
        check "$c: nvme read of 128 KiB returns the data" cmp -s /tmp/rd.$c /tmp/pat128
        nvme compare "$d" -s 0 -c 255 -z 131072 -d /tmp/pat128 >/tmp/cmp.$c 2>&1
        echo "compare equal $?" >/tmp/ans.$c
        nvme compare "$d" -s 0 -c 255 -z 131072 -d /tmp/bad128 >>/tmp/cmp.$c 2>&1
        echo "compare differ $? $(grep -o 'COMPARE_FAILED\|Compare Failure\|0x285\|0x85' /tmp/cmp.$c | head -1)" >>/tmp/ans.$c
        sed "s/^/$c: /" /tmp/ans.$c
    done
    check "Compare answers of FEMU (BlackBox) equal QEMU nvme's" cmp -s /tmp/ans.$A /tmp/ans.$Q
    check "Compare answers of FEMU (NoSSD) equal QEMU nvme's" cmp -s /tmp/ans.$N /tmp/ans.$Q
    check "Compare of equal data succeeds" grep -q "compare equal 0" /tmp/ans.$A
    check "Compare of different data fails" bash -c "! grep -q 'compare differ 0' /tmp/ans.$A"
fi

if [ "$PHASE" = perf ]; then
    N=$(ctrl_of sgl1)
    d=/dev/${N}n1
    check "sgl_threshold writable at run time" sh -c "echo 0 >$TH && echo 1 >$TH"
    fio --name=fill --filename="$d" --direct=1 --rw=write --bs=1m --size=64M >/dev/null 2>&1
    for round in 1 2 3; do
        # SGLs first in rounds 1 and 3, PRPs first in round 2
        for th in $([ $round = 2 ] && echo 0 1 || echo 1 0); do
            echo $th >$TH
            for job in "--rw=read --bs=128k --iodepth=16" "--rw=randread --bs=4k --iodepth=16"; do
                # shellcheck disable=SC2086
                r=$(fio --name=p --filename="$d" --direct=1 --ioengine=libaio $job \
                        --size=64M --time_based --runtime=8 --output-format=json |
                    python3 -c 'import sys, json; r = json.load(sys.stdin)["jobs"][0]["read"]; print("%.1f MiB/s %.0f IOPS" % (r["bw_bytes"] / 1048576, r["iops"]))')
                echo "perf round $round threshold $th ($([ $th = 1 ] && echo SGL || echo PRP)) $job: $r"
            done
        done
    done
    echo 1 >$TH
fi
