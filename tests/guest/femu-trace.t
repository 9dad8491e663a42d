#!/bin/bash
# I/O capture: a device with io_trace= runs a multi-job fio workload
# (writes, reads, deallocates, flushes; four jobs on two pollers, a counter
# reset; NAND times 20/50/200 us) with GC, the guest stops the
# trace with 0xEF code 11 and reads C0h; femu-sim --replay of the trace
# prints exactly those counters; the same with two BlackBox namespaces
# written at once, whose C0h read with each NSID gives femu-sim's split
# by namespace.  What the guest writes after the stop is
# not in the trace.  A trace to a full disk stops with one message while
# the guest's I/O goes on.
. "$(dirname "$0")/femu-lib.sh"
need_runner
SIM=${FEMU_SIM:-$ROOT/build/femu-sim}
[ -x "$SIM" ] || { echo "skip: $SIM not built (meson setup build && ninja -C build)"; exit 77; }

T=$(mktemp -d /tmp/femu-trace.XXXXXX)
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL - $*"; FAILED=1; }
G=nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25

femu_guest trace.sh --timeout 600 \
    -device femu,serial=tr0,$G,queues=4,pollers=2,pg_rd_lat=20000,pg_wr_lat=50000,blk_er_lat=200000,io_trace=$T/dev.ftr \
    >"$T/out" 2>"$T/err"
rc=$?
cat "$T/out"
[ $rc = 0 ] || fail "guest run exit $rc: $(tail -3 "$T/err")"
grep -q '^FAIL' "$T/out" && fail "a guest check failed"
dev=$(sed -n 's/^c0 at stop //p' "$T/out")
after=$(sed -n 's/^c0 after //p' "$T/out")
set -- $dev
[ -n "$dev" ] && [ "${3:-0}" -gt 0 ] || fail "no GC in the recorded workload: '$dev'"
[ "$dev" != "$after" ] || fail "the writes after the stop changed nothing: '$after'"
rep=$("$SIM" --replay="$T/dev.ftr") || fail "femu-sim --replay exit $?"
echo "$rep" | grep -E '^(replay|C0h)'
sim=$(echo "$rep" | sed -n 's/^C0h since start: waf_x1000=\([0-9]*\) host_pages_written=\([0-9]*\) gc_pages_moved=\([0-9]*\) host_pages_programmed=\([0-9]*\)$/\1 \2 \3 \4/p')
echo "device C0h at the stop: $dev; femu-sim --replay: $sim"
[ -n "$sim" ] && [ "$sim" = "$dev" ] || fail "replay C0h '$sim' vs device '$dev'"
echo "$rep" | grep -q '^replay: .*read [1-9].* write [1-9].* deallocate [1-9].* flush [1-9].* control [1-9]' ||
    fail "the trace lacks an op: $(echo "$rep" | grep '^replay:')"
# the same trace at its own pace: same counters; every completion as the
# device computed it (not 0: the NAND times were on)
pace=$("$SIM" --replay="$T/dev.ftr" --replay-pace=trace)
echo "$pace" | grep '^replay: completions'
[ "$(echo "$pace" | grep '^C0h')" = "$(echo "$rep" | grep '^C0h')" ] || fail "pace=trace counters"
echo "$pace" | grep -qE '^replay: completions equal to the trace.s: ([0-9]+) of \1$' ||
    fail "completions differ: $(echo "$pace" | grep '^replay: completions')"
echo "$pace" | grep -qE '^replay latency \(reads and writes, us\): count [0-9]+ mean [1-9]' ||
    fail "zero latencies: the NAND times were not on: $(echo "$pace" | grep '^replay latency')"

# two BlackBox namespaces on one FTL: the trace holds both (each record
# with its namespace id and an LBA in the FTL's logical space) and its
# replay gives the device's C0h
femu_guest trace-ns.sh --timeout 600 \
    -device femu,serial=trn,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,devsz_mb=24,namespaces=2,namespace_sizes=12M,,12M,io_trace=$T/ns.ftr \
    >"$T/out3" 2>"$T/err3"
rc=$?
cat "$T/out3"
[ $rc = 0 ] || fail "two namespaces: guest run exit $rc: $(tail -3 "$T/err3")"
grep -q '^FAIL' "$T/out3" && fail "a guest check failed with two namespaces"
dev=$(sed -n 's/^c0 at stop //p' "$T/out3")
set -- $dev
[ -n "$dev" ] && [ "${3:-0}" -gt 0 ] || fail "two namespaces: no GC in the recorded workload: '$dev'"
rep=$("$SIM" --replay="$T/ns.ftr") || fail "two namespaces: femu-sim --replay exit $?"
sim=$(echo "$rep" | sed -n 's/^C0h since start: waf_x1000=\([0-9]*\) host_pages_written=\([0-9]*\) gc_pages_moved=\([0-9]*\) host_pages_programmed=\([0-9]*\)$/\1 \2 \3 \4/p')
echo "two namespaces: device C0h at the stop: $dev; femu-sim --replay: $sim"
[ -n "$sim" ] && [ "$sim" = "$dev" ] || fail "two namespaces: replay C0h '$sim' vs device '$dev'"
# with the device's namespace properties femu-sim also splits the counters
# by namespace: the split adds up to the device's C0h, and namespace 1's
# host pages are what the guest wrote there (a 12 MiB fill + 16 MiB of
# 4 KiB random writes = 3072 + 4096 pages)
rep=$("$SIM" namespaces=2,namespace_sizes=12M,,12M --replay="$T/ns.ftr") || fail "two namespaces: femu-sim namespaces=2 --replay exit $?"
echo "$rep" | grep -E '^(namespaces|C0h)'
set -- $dev
split=$(echo "$rep" | sed -n 's/^namespaces since start: ns1 host_written=\([0-9]*\) gc_moved=\([0-9]*\) ns2 host_written=\([0-9]*\) gc_moved=\([0-9]*\)$/\1 \2 \3 \4/p')
read -r h1 g1 h2 g2 <<<"$split"
[ -n "$split" ] && [ $((h1 + h2)) = "$2" ] && [ $((g1 + g2)) = "$3" ] ||
    fail "two namespaces: split '$split' does not add up to the device's C0h '$dev'"
[ "$h1" = 7168 ] || fail "two namespaces: namespace 1's host pages $h1, expected 7168"
echo "two namespaces: femu-sim split ns1 $h1 host / $g1 GC, ns2 $h2 host / $g2 GC; device C0h $dev"
# the device splits them too (C0h read with each NSID): namespace by
# namespace what femu-sim's replay gives, the two differ, and with NSID
# FFFFFFFFh the device's totals, its whole-FTL fields
nsf() { sed -n "s/^c0ns $1 at stop ns_nsid=\([0-9]*\) ns_host_pages_written=\([0-9]*\) ns_gc_pages_moved=\([0-9]*\)\$/\1 \2 \3/p" "$T/out3"; }
d1=$(nsf 1) d2=$(nsf 2) dt=$(nsf 4294967295)
echo "two namespaces: device C0h per namespace: ns1 '$d1', ns2 '$d2', all '$dt'"
[ "$d1" = "1 $h1 $g1" ] || fail "namespace 1: device C0h '$d1', femu-sim '1 $h1 $g1'"
[ "$d2" = "2 $h2 $g2" ] || fail "namespace 2: device C0h '$d2', femu-sim '2 $h2 $g2'"
[ "$dt" = "4294967295 $2 $3" ] || fail "NSID FFFFFFFFh: device C0h '$dt', whole-FTL '$2 $3'"
[ "$h1" != "$h2" ] && [ "$g1" != "$g2" ] && [ "$g1" -gt 0 ] && [ "$g2" -gt 0 ] ||
    fail "the namespaces' host and GC pages should differ, with GC in both: ns1 $h1/$g1, ns2 $h2/$g2"

# a full disk: QEMU under a 512 KiB file size limit (SIGXFSZ ignored, so
# a write past it fails with EFBIG as one past a full disk's end fails
# with ENOSPC): the trace stops with one message, the guest's I/O is
# unaffected, QEMU exits 0
cat >"$T/qemu-fsize" <<EOQ
#!/bin/bash
trap '' XFSZ
ulimit -f 512
exec "$QEMU" "\$@"
EOQ
chmod +x "$T/qemu-fsize"
femu_guest trace-full.sh --timeout 600 --qemu "$T/qemu-fsize" \
    -device femu,serial=tr0,$G,io_trace=$T/full.ftr >"$T/out2" 2>"$T/err2"
rc=$?
cat "$T/out2"
[ $rc = 0 ] || fail "file size limit: guest run exit $rc: $(tail -3 "$T/err2")"
grep -q '^FAIL' "$T/out2" && fail "a guest check failed with the trace stopped"
n=$(grep -c "io_trace=$T/full.ftr: trace stopped after [0-9]* records: File too large; guest I/O continues" "$T/err2")
[ "$n" = 1 ] || fail "expected one message about the stopped trace, got $n: $(cat "$T/err2")"
err=$("$SIM" --replay="$T/full.ftr" 2>&1 >/dev/null)
echo "$err" | grep -qE 'record [0-9]+: (the trace ends without its END record|truncated)' ||
    fail "the cut trace is not refused as cut: $err"

[ "$FAILED" = 0 ] && echo "ok - femu-sim --replay of the device's trace gives its C0h; a failing trace leaves the guest's I/O alone"
exit $FAILED
