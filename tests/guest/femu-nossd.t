#!/bin/bash
# femu_mode=2 (NoSSD) next to a BlackBox SSD; a guest reboot keeps the data
# of both; QEMU exits 0 after the second boot powers off.  A second NoSSD
# controller (vSSD2) has hiops_inline=on and two pollers: the same data
# checks pass with its completions posted in the fetch sweep, and the
# pollers' exit counters (trace femu_poller_stats) show inline completions
# for its pollers only (hiops_inline is off by default).
. "$(dirname "$0")/femu-lib.sh"
need_runner
T=$(mktemp -d /tmp/femu-nossd.XXXXXX)
trap 'rm -rf "$T"' EXIT
femu_guest nossd-reboot.sh --timeout 900 --smp 2 -action reboot=reset \
    -trace femu_poller_stats \
    -device femu,femu_mode=2,devsz_mb=64 \
    -device femu,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25 \
    -device femu,femu_mode=2,devsz_mb=64,hiops_inline=on,queues=4,pollers=2 \
    2>"$T/err"
rc=$?
stats=$(grep -o 'femu_poller_stats.*' "$T/err")
echo "$stats"
[ $rc = 0 ] || { echo "FAIL - guest run exit $rc: $(tail -3 "$T/err")"; exit 1; }
# 4 pollers in all (1 + 1 + 2); two of them (vSSD2's) completed inline,
# and an inline completion is a completion: inline <= completions
n=$(grep -c 'at exit' <<<"$stats")
inl=$(grep -cE 'completions \([1-9][0-9]* inline\)' <<<"$stats")
[ "$n" = 4 ] || { echo "FAIL - $n poller stats lines, not 4"; exit 1; }
[ "$inl" = 2 ] || { echo "FAIL - $inl pollers completed inline, not 2 (vSSD2's)"; exit 1; }
awk '/at exit/ { c = i = cmd = -1
     for (k = 2; k <= NF; k++) {
         if ($k == "commands,") cmd = $(k - 1)
         if ($k == "completions") c = $(k - 1)
         if ($k == "inline),") i = substr($(k - 1), 2) + 0
     }
     if (i < 0 || i > c || c < 1 || cmd < 1) { print "FAIL - " $0; bad = 1 } }
     END { exit bad }' <<<"$stats" || exit 1
echo "ok - hiops_inline: vSSD2's two pollers completed inline, the others did not"
