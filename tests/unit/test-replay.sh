#!/bin/bash
# femu-sim --replay: each trace format applied to the FTL gives the
# counters it must; a recorded run replays to the same C0h counters; the
# geometry is checked, the rest may differ; offsets are mapped only when
# asked; every bad input is one line naming the record or line, exit 1.
sim=${1:?usage: test-replay.sh path/to/femu-sim}
fail=0
bad() { echo "FAIL: $*"; fail=1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
geo=nchs=2,luns_per_ch=2,blks_per_pl=64,op_pcent=25
# 419430 blocks of 512 B: 52428 pages of 4 KiB
json() { "$sim" "$@" --json; }
# the "total" object of the JSON output
total() { json "$@" | grep '"total"' | sed 's/}[},]*$/}/'; }
field() { sed -n "s/.*\"$1\": \\([0-9]*\\).*/\\1/p" | head -1; }

# --- the femu format: a recorded run replays to its counters ----------
"$sim" $geo,gc_policy=cost-benefit --seed=3 --phase fill:seqfill,bs=128k \
    --phase age:randwrite,bs=4k,size=128m --phase trim:randtrim,bs=64k,size=8m \
    --phase more:hotcold,size=64m --record="$t/run.ftr" > "$t/run.out" ||
    bad "--record exit $?"
want=$(grep '^C0h' "$t/run.out")
got=$("$sim" --replay="$t/run.ftr") || bad "replay exit $?"
[ "$(echo "$got" | grep '^C0h')" = "$want" ] || bad "replayed C0h '$(echo "$got" | grep '^C0h')' vs '$want'"
echo "$want" | grep -q 'gc_pages_moved=0 ' && bad "the recorded run did no GC: $want"
# the header's properties are the defaults: cost-benefit comes from it
echo "$got" | grep -q 'gc_policy=cost-benefit' || bad "header properties not used: $got"
a=$(total $geo,gc_policy=cost-benefit --seed=3 --phase fill:seqfill,bs=128k \
    --phase age:randwrite,bs=4k,size=128m --phase trim:randtrim,bs=64k,size=8m \
    --phase more:hotcold,size=64m)
b=$(total --replay="$t/run.ftr")
[ -n "$a" ] && [ "$a" = "$b" ] || bad "JSON totals: '$b' vs '$a'"
# at the trace's pace: the same counters and a latency histogram
p=$("$sim" --replay="$t/run.ftr" --replay-pace=trace)
[ "$(echo "$p" | grep '^C0h')" = "$want" ] || bad "pace=trace C0h"
echo "$p" | grep -q '^replay latency (reads and writes, us): count ' || bad "no latency line: $p"
echo "$p" | grep -qE '^  \[ +[0-9.]+, +[0-9.]+\) us +[0-9]+$' || bad "no histogram: $p"
# what if: another policy and spare on the same geometry
w=$("$sim" gc_policy=fifo --replay="$t/run.ftr")
echo "$w" | grep -q 'gc_policy=fifo' || bad "gc_policy=fifo not taken: $w"
[ "$(echo "$w" | grep '^C0h')" != "$want" ] || bad "fifo gives greedy's counters"
hw=$(echo "$w" | grep '^C0h' | sed 's/.*host_pages_written=\([0-9]*\).*/\1/')
hc=$(echo "$want" | sed 's/.*host_pages_written=\([0-9]*\).*/\1/')
[ "$hw" = "$hc" ] || bad "fifo host pages $hw vs $hc"
# a smaller namespace (more spare): records past it need an explicit map
err=$("$sim" op_pcent=50 --replay="$t/run.ftr" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && echo "$err" | grep -qE 'record [0-9]+: write of LBA [0-9]+\+[0-9]+ past the namespace \(349525 blocks\)' ||
    bad "op_pcent=50 exact: $rc $err"
"$sim" op_pcent=50 --replay="$t/run.ftr" --replay-offsets=wrap > /dev/null || bad "op_pcent=50 wrap: $?"
"$sim" op_pcent=50 --replay="$t/run.ftr" --replay-offsets=scale > /dev/null || bad "op_pcent=50 scale: $?"
# the geometry must match, and the message names the property
err=$("$sim" nchs=4 --replay="$t/run.ftr" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && echo "$err" | grep -q 'nchs=4 but the trace was recorded with nchs=2' ||
    bad "nchs mismatch: $rc $err"
err=$("$sim" secsz=4096 --replay="$t/run.ftr" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && echo "$err" | grep -q 'secsz=4096 but the trace was recorded with secsz=512' ||
    bad "secsz mismatch: $rc $err"
# a replay recorded is a trace that replays to itself, times included
"$sim" --replay="$t/run.ftr" --record="$t/again.ftr" > /dev/null || bad "re-record"
"$sim" --replay="$t/again.ftr" --record="$t/again2.ftr" > /dev/null || bad "re-record 2"
cmp -s "$t/again.ftr" "$t/again2.ftr" || bad "re-recorded trace differs"
[ "$(stat -c %s "$t/again.ftr")" = "$(stat -c %s "$t/run.ftr")" ] || bad "re-recorded size"

# a trace recorded from a loaded state is marked so, and replays to the
# same counters from that state
"$sim" $geo --phase fill:seqfill,bs=128k --phase age:randwrite,bs=4k,size=64m \
    --save-state "$t/aged" > /dev/null || bad "--save-state"
want=$("$sim" $geo --load-state "$t/aged" --phase m:randwrite,bs=4k,size=32m \
    --record="$t/mid.ftr" | grep '^C0h')
got=$("$sim" --load-state "$t/aged" --replay="$t/mid.ftr")
[ -n "$want" ] && [ "$(echo "$got" | grep '^C0h')" = "$want" ] || bad "midrun replay: '$got' vs '$want'"
echo "$got" | grep -q '^replay: note: recorded from a device that already held data' || bad "no midrun note: $got"

# --- each public format: N distinct 4 KiB writes are N host pages -------
N=3000
# (awk's %d stops at 2^31 in mawk: the 18-digit timestamps are built as
# text, 100 us apart)
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++)
    printf "1281663720%08d,hm,0,Write,%d,4096,120\n", i * 1000, i * 8192 }' > "$t/w.csv"
awk -v n=$N 'BEGIN { for (i = 0; i < n; i++)
    printf "  8,0    1 %8d %5d.%09d  4242  D  WS %d + 8 [fio]\n", i + 1, i / 1000, i % 1000 * 1000, i * 16
    print "CPU1 (8,0):"; print " Reads Queued:           0,        0KiB" }' > "$t/w.blk"
awk -v n=$N 'BEGIN { print "fio version 2 iolog"; print "/dev/nvme0n1 add"; print "/dev/nvme0n1 open"
    for (i = 0; i < n; i++) printf "/dev/nvme0n1 write %d 4096\n", i * 8192
    print "/dev/nvme0n1 close" }' > "$t/w2.log"
awk -v n=$N 'BEGIN { print "fio version 3 iolog"; print "0 /dev/nvme0n1 add"
    for (i = 0; i < n; i++) printf "%d /dev/nvme0n1 write %d 4096\n", i * 10, i * 8192 }' > "$t/w3.log"
for f in msr:w.csv blkparse:w.blk iolog:w2.log iolog:w3.log; do
    r=$(total $geo --replay="$t/${f#*:}" --replay-format=${f%%:*})
    [ "$(echo "$r" | field host_pages_written)" = $N ] || bad "$f: host pages: $r"
    [ "$(echo "$r" | field host_pages_programmed)" = $N ] || bad "$f: programmed: $r"
done
# blkparse: only the chosen event; Q events are not D events
r=$(total $geo --replay="$t/w.blk" --replay-format=blkparse --replay-event=Q)
[ "$(echo "$r" | field host_pages_written)" = 0 ] || bad "blkparse Q: $r"

# an iolog of sequential 4 KiB writes over the namespace is the seqfill
# phase: the same counters
awk 'BEGIN { print "fio version 2 iolog"
    for (o = 0; o + 4096 <= 419430 * 512; o += 4096) printf "f write %d 4096\n", o }' > "$t/seq.log"
a=$(total $geo --phase fill:seqfill,bs=4k)
b=$(total $geo --replay="$t/seq.log" --replay-format=iolog)
[ -n "$a" ] && [ "$a" = "$b" ] || bad "iolog seqfill: '$b' vs '$a'"

# reads, trims and flushes are honoured: a trim of the whole namespace
# before random overwrites leaves GC nothing to move
awk 'BEGIN { print "fio version 2 iolog"; srand(7)
    for (o = 0; o + 131072 <= 419430 * 512; o += 131072) printf "f write %d 131072\n", o
    print "f read 0 131072"; if (TRIM) print "f trim 0 214748160"; print "f sync 0 0"
    for (i = 0; i < 60000; i++) printf "f write %d 4096\n", int(rand() * 52428) * 4096 }' > "$t/notrim.log"
awk -v TRIM=1 'BEGIN { print "fio version 2 iolog"; srand(7)
    for (o = 0; o + 131072 <= 419430 * 512; o += 131072) printf "f write %d 131072\n", o
    print "f read 0 131072"; if (TRIM) print "f trim 0 214748160"; print "f sync 0 0"
    for (i = 0; i < 60000; i++) printf "f write %d 4096\n", int(rand() * 52428) * 4096 }' > "$t/trim.log"
g0=$(total $geo --replay="$t/notrim.log" --replay-format=iolog | field gc_pages_moved)
g1=$(total $geo --replay="$t/trim.log" --replay-format=iolog | field gc_pages_moved)
[ -n "$g0" ] && [ -n "$g1" ] && [ "$g1" -lt "$g0" ] || bad "trim: GC moved $g1 with, $g0 without"
o=$("$sim" $geo --replay="$t/trim.log" --replay-format=iolog)
echo "$o" | grep -q 'records: read 1 write 61638 deallocate 1 flush 1;' || bad "op counts: $o"

# MSR at the trace's pace: reads of written data take the NAND read time
printf '128166372003061629,hm,0,Write,0,4096,100\n128166372013061629,hm,0,Read,0,4096,100\n' > "$t/rw.csv"
o=$("$sim" $geo,pg_rd_lat=50000,pg_wr_lat=300000 --replay="$t/rw.csv" --replay-format=msr --replay-pace=trace)
echo "$o" | grep -q 'count 2 mean 175.000 .* max 300.000' || bad "msr latencies: $o"

# offsets: past the end is an error unless mapped; wrap splits a request
printf '0,h,0,Write,214745088,8192,1\n' > "$t/end.csv"
err=$("$sim" $geo --replay="$t/end.csv" --replay-format=msr 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && echo "$err" | grep -q 'line 1: write of LBA 419424+16 past the namespace (419430 blocks)' ||
    bad "past the end: $rc $err"
o=$(json $geo --replay="$t/end.csv" --replay-format=msr --replay-offsets=wrap)
echo "$o" | grep -q '"records": 2, .*"wrapped": 1' || bad "wrap: $o"
# blocks 419424-419429 (the namespace's last, partial page) and 0-9
echo "$o" | grep '"total"' | grep -q '"host_pages_written": 3,' || bad "wrap pages: $o"
printf '0,h,0,Write,0,4096,1\n0,h,0,Write,1073741824000,4096,1\n' > "$t/far.csv"
o=$(json $geo --replay="$t/far.csv" --replay-format=msr --replay-offsets=scale)
# the second lands at the end: 419429 scaled, moved back to 419422 so
# its 8 blocks fit, then to the page boundary 419416: page 52427 only
echo "$o" | grep '"total"' | grep -q '"host_pages_written": 2,' || bad "scale: $o"

# --- bad input: one line naming the record or line, exit 1 ------------
refuse() { # NAME FORMAT FILE PATTERN
    local err rc n
    err=$("$sim" $geo --replay="$3" --replay-format=$2 2>&1 >/dev/null); rc=$?
    n=$(echo "$err" | wc -l)
    [ $rc = 1 ] && [ "$n" = 1 ] && echo "$err" | grep -qE "$4" ||
        bad "$1: exit $rc, '$err' (want /$4/)"
}
sz=$(stat -c %s "$t/run.ftr")
nrec=$(( (sz - 256) / 40 ))
head -c $((sz - 20)) "$t/run.ftr" > "$t/cut.ftr"
refuse truncated femu "$t/cut.ftr" "record $nrec: truncated \\(20 of 40 bytes\\)"
head -c $((sz - 40)) "$t/run.ftr" > "$t/noend.ftr"
refuse no-END femu "$t/noend.ftr" "record $nrec: the trace ends without its END record"
cp "$t/run.ftr" "$t/extra.ftr"; head -c 40 "$t/run.ftr" >> "$t/extra.ftr"
refuse after-END femu "$t/extra.ftr" "record $((nrec + 1)): data after the END record"
cp "$t/run.ftr" "$t/ver.ftr"
printf '\x02' | dd of="$t/ver.ftr" bs=1 seek=8 conv=notrunc status=none
refuse version femu "$t/ver.ftr" "unknown version 2"
cp "$t/run.ftr" "$t/hdr.ftr"
printf '\x07' | dd of="$t/hdr.ftr" bs=1 seek=100 conv=notrunc status=none
refuse header-crc femu "$t/hdr.ftr" "header: CRC mismatch"
cp "$t/run.ftr" "$t/op.ftr"
printf '\x77' | dd of="$t/op.ftr" bs=1 seek=$((256 + 4 * 40)) conv=notrunc status=none
refuse bad-op femu "$t/op.ftr" "^femu-sim: --replay .*: record 5: unknown op 119$"
cp "$t/run.ftr" "$t/lba.ftr"
printf '\xff\xff\xff' | dd of="$t/lba.ftr" bs=1 seek=$((256 + 9 * 40 + 12)) conv=notrunc status=none
refuse past-ns femu "$t/lba.ftr" "record 10: write of LBA [0-9]+\\+[0-9]+ past the namespace"
: > "$t/empty"
refuse empty femu "$t/empty" "not a FEMU I/O trace"
refuse not-femu femu "$t/w.csv" "not a FEMU I/O trace"
printf '1,h,0,Write,0,4096,1\n2,h,0,Wrote,0,4096,1\n' > "$t/b.csv"
refuse msr-type msr "$t/b.csv" "line 2: Type 'Wrote' is not Read or Write"
printf '1,h,0,Write,0,4096,1\n2,h,0,Write,x,4096,1\n' > "$t/b2.csv"
refuse msr-number msr "$t/b2.csv" "line 2: DiskNumber, Offset, Size or ResponseTime is not a number"
printf '1,h,0,Write,0,4096\n' > "$t/b3.csv"
refuse msr-fields msr "$t/b3.csv" "line 1: expected 7 comma-separated fields"
head -c 4000 "$t/run.ftr" > "$t/bin"
refuse msr-binary msr "$t/bin" "line [0-9]+: "
printf '  8,0 1 1 0.000001 1 D W 12x + 8 [a]\n' > "$t/b.blk"
refuse blk-sector blkparse "$t/b.blk" "line 1: '12x \\+ 8' is not SECTOR \\+ COUNT"
printf '  8,0 1 1 0.000001 1 D WZ 12 + 8 [a]\n' > "$t/b2.blk"
refuse blk-rwbs blkparse "$t/b2.blk" "line 1: RWBS 'WZ' has an unknown flag 'Z'"
printf 'fio version 1 iolog\n' > "$t/b.log"
refuse iolog-version iolog "$t/b.log" "line 1: not 'fio version 2 iolog' or 'fio version 3 iolog'"
printf 'fio version 3 iolog\n0 f add\nx f write 0 4096\n' > "$t/b2.log"
refuse iolog-time iolog "$t/b2.log" "line 3: time 'x' is not a number"
printf 'fio version 2 iolog\nf write 0 4096\nf erase 0 4096\n' > "$t/b3.log"
refuse iolog-action iolog "$t/b3.log" "line 3: unknown action 'erase'"
err=$("$sim" --replay="$t/none" 2>&1 >/dev/null); rc=$?
[ $rc = 1 ] && echo "$err" | grep -q 'No such file' || bad "missing file: $rc $err"
"$sim" --replay="$t/run.ftr" --replay-format=xml >/dev/null 2>&1; [ $? = 2 ] || bad "unknown format accepted"
"$sim" --replay="$t/run.ftr" --replay-pace=trace --timing=off >/dev/null 2>&1; [ $? = 2 ] ||
    bad "pace=trace with timing off accepted"

[ $fail = 0 ] && echo "test-replay: ok"
exit $fail
