# Guest side of tests/guest/femu-zbd.t: fio's zoned block device
# conformance script (t/zbd/test-zbd-support from fio's source, copied in
# by the host to /root/fio/t/zbd) against the femu_mode=3 namespace.
# Environment: ZBD_TESTS ("all" or test numbers), ZBD_OPTS (options of
# test-zbd-support, e.g. -w), ZBD_MUST_PASS (numbers that must report PASS;
# the others may fail), FIO_SRC_VERSION (fio-X.Y of the scripts).
C=$(ctrl_of vSSD0) || { bad "no controller vSSD0"; finish; exit; }
D=/dev/${C}n1
T=/root/fio/t/zbd/test-zbd-support
check "t/zbd scripts present" [ -f "$T" ]
# test-zbd-support runs $(dirname $0)/../../fio
ln -sf /usr/bin/fio /root/fio/fio
v=$(command fio --version)
echo "guest fio: $v, t/zbd of ${FIO_SRC_VERSION:-unknown}"
# a newer release's scripts run the same numbered tests (what later
# releases added needs null_blk or scsi_debug and skips here)
if [ -n "${FIO_SRC_VERSION:-}" ] && [ "$v" != "$FIO_SRC_VERSION" ]; then
    echo "note: t/zbd of $FIO_SRC_VERSION with the guest's $v"
fi
# the zone errors some tests provoke stay in dmesg, off the console
dmesg -n 1
read -r -a opts <<<"${ZBD_OPTS:-}"
if [ "${ZBD_TESTS:-all}" != all ]; then
    for t in $ZBD_TESTS; do opts+=(-t "$t"); done
fi
bash "$T" "${opts[@]}" "$D" 2>&1 | tee /tmp/zbd.out
# the script ends each test's log with PASS, SKIP or FAIL
declare -A res=()
for n in $(sed -n 's/^Running test \([0-9]*\) .*/\1/p' /tmp/zbd.out); do
    n=$((10#$n))
    res[$n]=$(tail -n 1 "$T.log.$n" 2>/dev/null)
done
echo "t/zbd results: $(for n in $(printf '%s\n' "${!res[@]}" | sort -n); do printf '%s:%s ' "$n" "${res[$n]}"; done)"
# a failed test's log says why (fio's command line and output)
for n in "${!res[@]}"; do
    [ "${res[$n]}" = FAIL ] || continue
    echo "---- t/zbd test $n log (last 25 lines) ----"
    tail -n 25 "$T.log.$n"
done
for n in ${ZBD_MUST_PASS:-}; do
    check "t/zbd test $n passes" [ "${res[$n]:-none}" = PASS ]
done
