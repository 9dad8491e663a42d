#!/bin/bash
# Scatter Gather Lists from Linux: the guest boots with nvme.sgl_threshold=1
# (every I/O uses an SGL once SGLS is advertised).  Boot 1: fio verify
# (crc32c, 4 KiB..1 MiB blocks) on a BlackBox and a NoSSD FEMU and on QEMU's
# nvme, the same 8 MiB read back from all three and the same Compare
# answers; the femu_sgl trace shows the I/O went through SGLs (reads and
# writes, segment lists) and no SGL was refused.  Boot 2 (untraced):
# the same fio jobs with SGLs and with PRPs (threshold 1 / 0, three rounds) on a NoSSD
# FEMU, printed for docs/commands.md.
. "$(dirname "$0")/femu-lib.sh"
need_runner
T=$(mktemp -d /tmp/femu-sgl.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
truncate -s 64M "$T/nvme.raw"

femu_guest sgl.sh --timeout 1500 --env PHASE=verify --append nvme.sgl_threshold=1 \
    -device femu,serial=sgl0,nchs=2,luns_per_ch=2,blks_per_pl=64,pgs_per_blk=64,op_pcent=25 \
    -device femu,serial=sgl1,femu_mode=2,devsz_mb=128 \
    -drive file="$T/nvme.raw",if=none,id=q0,format=raw -device nvme,drive=q0,serial=qemu0 \
    -trace femu_sgl -trace femu_sgl_bad -trace femu_sgl_xfer_failed -D "$T/trace" \
    >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out"
[ $rc = 0 ] || { fail "boot 1 exit $rc"; tail -5 "$T/err"; }
n=$(grep -c 'femu_sgl .*status 0x0$' "$T/trace")
nr=$(grep -c 'femu_sgl .*to_guest 1: .*status 0x0$' "$T/trace")
nw=$(grep -c 'femu_sgl .*to_guest 0: .*status 0x0$' "$T/trace")
nseg=$(grep 'femu_sgl .*status 0x0$' "$T/trace" | grep -vc ': 0 segments')
big=$(grep 'femu_sgl .*status 0x0$' "$T/trace" | awk '{ for (i = 1; i <= NF; i++) if ($i == "bytes") print $(i - 1) }' | sort -n | tail -1)
nbad=$(grep -c 'femu_sgl_bad\|femu_sgl_xfer_failed\|femu_sgl .*status 0x[1-9a-f]' "$T/trace")
echo "femu_sgl trace: $n transfers through SGLs ($nr reads, $nw writes, $nseg with segment lists, largest $big bytes), $nbad refused"
[ "$nr" -gt 100 ] && [ "$nw" -gt 100 ] || fail "too few SGL transfers: $nr reads, $nw writes"
[ "$nseg" -gt 100 ] || fail "too few SGLs with segment lists: $nseg"
[ "${big:-0}" -ge 524288 ] || fail "largest SGL transfer $big bytes, not 512 KiB (MDTS)"
[ "$nbad" = 0 ] || { fail "$nbad SGLs refused or failed"; grep 'femu_sgl_bad\|xfer_failed' "$T/trace" | head -5; }

femu_guest sgl.sh --timeout 900 --env PHASE=perf --append nvme.sgl_threshold=1 \
    -device femu,serial=sgl1,femu_mode=2,devsz_mb=128 >"$T/out2" 2>"$T/err2"
rc=$?
cat "$T/out2"
[ $rc = 0 ] || { fail "boot 2 exit $rc"; tail -5 "$T/err2"; }
[ "$(grep -c '^perf round' "$T/out2")" = 12 ] || fail "boot 2 printed $(grep -c '^perf round' "$T/out2") of 12 figures"
# the median of the three rounds of each job
grep '^perf round' "$T/out2" | sed 's/^perf round [0-9]* //' |
    awk -F': ' '{ v[$1] = v[$1] " " $2 } END { for (k in v) print k ":" v[k] }' |
    sort | while IFS=: read -r k v; do
        m=$(printf '%s\n' $v | paste - - - - | sort -n | sed -n 2p)
        echo "median of 3: $k: $m"
    done
[ "$FAILED" = 0 ] && echo "ok - SGLs from Linux: fio verify on FEMU and QEMU nvme, the same data and answers, every transfer through SGLs accepted"
exit $FAILED
