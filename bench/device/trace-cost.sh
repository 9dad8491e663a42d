#!/bin/bash
# The cost of recording an I/O trace (io_trace=PATH, docs/trace.md) on
# IOPS, with all NAND times 0 (0xEF code 4) so that only the emulator's own
# work is measured:
#
#   bench/device/trace-cost.sh [ROUNDS]             (default 3: A B A B A B)
#   bench/device/trace-cost.sh --one-boot [ROUNDS]  (default 5)
#
# Each round boots the embedded guest twice with the default femu device
# (1 GiB namespace), once without and once with io_trace=, and runs in the
# guest 4 KiB random writes at QD32 (libaio, 10 s) then 4 KiB random reads
# at QD32 (10 s).  Prints each boot's IOPS, the medians and with/without;
# the trace of the last boot is replayed with femu-sim as a check.
# --one-boot takes boot-to-boot variance out: one boot with io_trace=, and
# in it each round measures with the trace stopped (0xEF code 11) and then
# recording (code 10, which restarts the file), 5 s per measurement.
# Env: FEMU_RUN_ARGS  extra scripts/femu-run options (e.g. --accel kvm)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ONE_BOOT=no
[ "${1:-}" = --one-boot ] && { ONE_BOOT=yes; shift; }
ROUNDS=${1:-3}
[ $ONE_BOOT = yes ] && ROUNDS=${1:-5}
RUNNER=$ROOT/scripts/femu-run
SIM=$ROOT/build/femu-sim
T=$(mktemp -d /tmp/femu-trace-cost.XXXXXX)
trap 'rm -rf "$T"' EXIT

cat >"$T/job.sh" <<'EOJ'
nvme admin-passthru /dev/nvme0 --opcode=0xef --cdw10=4 >/dev/null
iops() { # RW
    fio --name=b --filename=/dev/nvme0n1 --rw=$1 --bs=4k --iodepth=32 \
        --ioengine=libaio --direct=1 --time_based --runtime=${RUNTIME:-10} --size=512m \
        --randseed=1 --output-format=json |
        python3 -c 'import json, sys; j = json.load(sys.stdin)["jobs"][0]; print(int(j["write"]["iops"] + j["read"]["iops"]))'
}
if [ -n "${ONE_BOOT_ROUNDS:-}" ]; then
    RUNTIME=5
    for r in $(seq "$ONE_BOOT_ROUNDS"); do
        for mode in off on; do
            code=11; [ $mode = on ] && code=10
            nvme admin-passthru /dev/nvme0 --opcode=0xef --cdw10=$code >/dev/null
            echo "row $r $mode $(iops randwrite) $(iops randread)"
        done
    done
    exit 0
fi
echo "randwrite $(iops randwrite)"
echo "randread $(iops randread)"
EOJ

echo "# $(date -u +%Y-%m-%dT%H:%MZ) $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %-8s %10s %10s\n' round trace randwrite randread
if [ $ONE_BOOT = yes ]; then
    # shellcheck disable=SC2086
    "$RUNNER" ${FEMU_RUN_ARGS:-} --timeout $((120 + ROUNDS * 40)) \
        --env ONE_BOOT_ROUNDS="$ROUNDS" \
        -device femu,serial=tc0,io_trace=$T/t.ftr --script "$T/job.sh" >"$T/out" 2>"$T/err" ||
        { echo "boot failed:"; tail -5 "$T/err"; exit 1; }
    sed -n 's/^row //p' "$T/out" >"$T/rows"
    [ "$(wc -l <"$T/rows")" = $((2 * ROUNDS)) ] ||
        { echo "the guest printed $(wc -l <"$T/rows") of $((2 * ROUNDS)) rows:"; tail -5 "$T/out"; exit 1; }
    while read -r r mode w rd; do
        printf '%-6s %-8s %10s %10s\n' "$r" "$mode" "$w" "$rd"
        echo "$mode $w $rd" >>"$T/all"
    done <"$T/rows"
    ROUNDS=0
fi
for r in $(seq "$ROUNDS"); do
    for mode in off on; do
        extra=
        [ $mode = on ] && extra=",io_trace=$T/t.ftr"
        # shellcheck disable=SC2086
        "$RUNNER" ${FEMU_RUN_ARGS:-} --timeout 300 \
            -device femu,serial=tc0$extra --script "$T/job.sh" >"$T/out" 2>"$T/err" ||
            { echo "boot failed:"; tail -5 "$T/err"; exit 1; }
        w=$(sed -n 's/^randwrite //p' "$T/out"); rd=$(sed -n 's/^randread //p' "$T/out")
        printf '%-6s %-8s %10s %10s\n' "$r" $mode "$w" "$rd"
        echo "$mode $w $rd" >>"$T/all"
    done
done
med() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for col in 2 3; do
    off=$(awk -v c=$col '$1 == "off" { print $c }' "$T/all" | med)
    on=$(awk -v c=$col '$1 == "on" { print $c }' "$T/all" | med)
    name=randwrite; [ $col = 3 ] && name=randread
    printf 'median %-9s without %s, with %s: %s\n' $name "$off" "$on" \
        "$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }')"
done
if [ -x "$SIM" ]; then
    echo "last trace: $(stat -c %s "$T/t.ftr") bytes; femu-sim --replay:"
    "$SIM" --replay="$T/t.ftr" | grep '^replay:'
fi
