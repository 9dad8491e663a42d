#!/bin/bash
# bench/device/cpu-lib.sh, which bench/device/cpu.sh and scale.sh count
# host CPU with: per-thread deltas between two snapshots summed per
# thread name and in all, past 2^31 ns (a spinning poller uses 5 s in a
# 5 s phase; awk's %d stops at 2147483647 in mawk), a thread that ended
# meanwhile left out, one that started counted whole; median and ratio.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd -P)
. "$root/bench/device/cpu-lib.sh"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fails=0 n=0
check() {    # DESCRIPTION GOT WANT
    n=$((n + 1))
    if [ "$2" = "$3" ]; then echo "ok $n - $1"
    else echo "not ok $n - $1: got '$2', want '$3'"; fails=$((fails + 1)); fi
}
# TID NS COMM: poller 1 s -> 6 s, main loop 1 -> 3 s, two CPU threads of
# one name 3 s each, a worker that ended, one that started with 0.5 s
printf '%s\n' "10 1000000000 femu-poller-0" "11 1000000000 qemu-system-x86" \
    "12 1000000000 CPU_0/TCG" "13 1000000000 CPU_0/TCG" "14 7000000000 worker" >"$t/s0"
printf '%s\n' "10 6000000000 femu-poller-0" "11 3000000000 qemu-system-x86" \
    "12 4000000000 CPU_0/TCG" "13 4000000000 CPU_0/TCG" "15 500000000 worker" >"$t/s1"
check "the sum past 2^31 ns" "$(cpu_delta "$t/s0" "$t/s1")" 13500000000
check "per name" "$(cpu_deltas "$t/s0" "$t/s1" | sort -k2 | tr '\n' ';')" \
    "6000000000 CPU_0/TCG;5000000000 femu-poller-0;2000000000 qemu-system-x86;500000000 worker;"
check "per name and I/O, largest first" "$(cpu_by_thread "$t/s0" "$t/s1" 1000)" \
    "CPU_0/TCG=6000000 femu-poller-0=5000000 qemu-system-x86=2000000 worker=500000"
check "median of an odd count" "$(printf '%s\n' 3 1 2 | median)" 2
check "median of an even count" "$(printf '%s\n' 4 1 3 2 | median)" 2.5
check "median past 2^31" "$(printf '%s\n' 5000000000 7000000000 | median)" 6000000000
check "ratio" "$(ratio 1 4)" 0.25
check "ratio without a value" "$(ratio '' 4)" n/a
echo "1..$n"
exit $((fails > 0))
