#!/bin/bash
# doorbell_inline: while a poller sleeps with nothing pending, the vCPU
# that rings an I/O SQ doorbell runs the Read or Write (up to 32 blocks)
# itself.  QD1 I/O (tests/guest/femu/doorbell-inline.sh) on NoSSD runs in
# the vCPUs, with the data written that way read back intact; never with
# doorbell_inline=off; on a BlackBox SSD with a 300 us page read no read
# completes sooner (the vCPU runs the command, the poller posts its
# completion when due); I/O of 64 blocks is left to the poller.  The
# pollers' exit counters (trace femu_poller_doorbell_stats, one poller
# per controller) say who ran what.
. "$(dirname "$0")/femu-lib.sh"
need_runner
T=$(mktemp -d /tmp/femu-di.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
femu_guest doorbell-inline.sh --smp 2 --timeout 600 \
    -device femu,serial=di0,femu_mode=2,devsz_mb=64,pollers=1 \
    -device femu,serial=di1,femu_mode=2,devsz_mb=64,pollers=1,doorbell_inline=off \
    -device femu,serial=di2,devsz_mb=64,pollers=1,pg_rd_lat=300000 \
    -device femu,serial=di3,femu_mode=2,devsz_mb=64,pollers=1 \
    -trace femu_poller_doorbell_stats \
    >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out"
[ $rc = 0 ] || fail "guest run exit $rc: $(tail -3 "$T/err")"
grep -q '^FAIL' "$T/out" && fail "a guest step failed"
# per controller: "SERIAL runs commands"
sed -n 's/.*femu_poller_doorbell_stats \([a-z0-9]*\) poller 0 at exit: of \([0-9]*\) commands, \([0-9]*\) commands run .*/\1 \3 \2/p' \
    "$T/err" | sort >"$T/runs"
cat "$T/runs"
[ "$(cut -d' ' -f1 "$T/runs" | tr '\n' ' ')" = "di0 di1 di2 di3 " ] ||
    fail "doorbell stats lines for $(cut -d' ' -f1 "$T/runs" | tr '\n' ' '), not di0..di3"
{ read -r _ r0 c0; read -r _ r1 c1; read -r _ r2 c2; read -r _ r3 c3; } <"$T/runs"
# di0: QD1 reads and writes, nearly all run in the vCPUs (a doorbell that
# finds the poller awake, or the boot's concurrent reads, wakes it)
[ "${r0:-0}" -gt 0 ] && [ $(( ${r0:-0} * 2 )) -gt "${c0:-0}" ] ||
    fail "di0: ${r0:-?} of ${c0:-?} commands run by the vCPUs, not most"
[ "${r1:-x}" = 0 ] || fail "di1 (doorbell_inline=off): ${r1:-?} commands run by the vCPUs"
[ "${c1:-0}" -gt 1000 ] || fail "di1: only ${c1:-?} commands: the I/O did not run"
[ "${r2:-0}" -gt 0 ] || fail "di2 (BlackBox, NAND times): no command run by a vCPU"
# di3: only the boot's small reads may run in the vCPUs
[ $(( ${r3:-1} * 20 )) -lt "${c3:-0}" ] ||
    fail "di3: ${r3:-?} of ${c3:-?} commands run by the vCPUs with I/O of 64 blocks"
[ $FAILED = 0 ] && echo "PASS femu-doorbell-inline"
exit $FAILED
