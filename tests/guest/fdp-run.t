#!/bin/bash
# Tutorial 04 scaled down: scripts/tutorials/fdp-run.sh in the guest with
# FDP=0 and FDP=1 (two identical FDP devices in one boot, 1 MiB reclaim
# units, 51 MiB namespace, 128 MiB age + 128 MiB measure of 4 KiB writes),
# checks that placement cuts the GC copies of the measure phase by more
# than half, that the FDP statistics agree with C0h (HBMW = host pages x
# 4096, MBMW - HBMW = GC copies x 4096, MBE whole lines and within the
# NAND size of MBMW), and that femu-sim on the same configuration and
# workload gives a WAF within 25% of the guest's for both runs. The
# options make fdp-run.sh's regions those of femu-sim's hotcold phase: the
# whole namespace, hot 20%, a 128 KiB fill, independent hot draws.
. "$(dirname "$0")/femu-lib.sh"
need_runner
GEO=nchs=2,luns_per_ch=4,blks_per_pl=64,pgs_per_blk=32,op_pcent=25,gc_thres_pcent=95
SIM=$ROOT/build/femu-sim
job=$(mktemp /tmp/femu-fdprun.XXXXXX); out=$(mktemp /tmp/femu-fdprun-out.XXXXXX)
trap 'rm -f "$job" "$out"' EXIT
cat >"$job" <<'GUEST'
set -e
for c in /sys/class/nvme/nvme*; do
    n=$(basename $c)
    case $(tr -d ' ' <$c/serial) in vSSD0) C0=$n ;; vSSD1) C1=$n ;; esac
done
FDP=0 bash /root/fdp-run.sh NG=/dev/ng${C0#nvme}n1 SIZE=ns HOT=20% FILL_BS=128k NORANDOMMAP=1 AGE=128m MEASURE=128m
FDP=1 bash /root/fdp-run.sh NG=/dev/ng${C1#nvme}n1 SIZE=ns HOT=20% FILL_BS=128k NORANDOMMAP=1 AGE=128m MEASURE=128m
GUEST
"$RUNNER" --append no_timer_check --timeout 1200 --file "$ROOT/scripts/tutorials/fdp-run.sh:/root/fdp-run.sh" \
    -device femu-subsys,id=fdp0,fdp=on,fdp.nruh=2 -device femu,$GEO,subsys=fdp0 \
    -device femu-subsys,id=fdp1,fdp=on,fdp.nruh=2 -device femu,$GEO,subsys=fdp1 \
    --script "$job" | tee "$out"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || { echo "FAIL: guest run exited $rc"; exit 1; }

fail=0
ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; fail=1; }
field() { grep "^RESULT FDP=$1 " "$out" | tr ' ' '\n' | sed -n "s/^$2=//p"; }
g0=$(field 0 gc_pages) g1=$(field 1 gc_pages)
[ -n "$g0" ] && [ -n "$g1" ] || { echo "FAIL: no RESULT lines"; exit 1; }
echo "GC copies in the measure phase: FDP=0 $g0, FDP=1 $g1"
[ "$g1" -lt $((g0 / 2)) ] && ok "placement cuts GC copies by more than half ($g0 -> $g1)" ||
    bad "FDP=1 GC copies $g1 not below half of FDP=0's $g0"
# MBE counts whole reclaim units (1 MiB lines here) as GC erases them; in
# the measure phase (no RUH updates, every erased line fully programmed)
# bytes programmed and bytes erased differ by at most the NAND's 64 MiB
LINE=$((2 * 4 * 32 * 4096)) NAND=$((64 * 2 * 4 * 32 * 4096))
for f in 0 1; do
    h=$(field $f host_pages) g=$(field $f gc_pages)
    hb=$(field $f hbmw) mb=$(field $f mbmw) me=$(field $f mbe)
    [ "$hb" = $((h * 4096)) ] && ok "FDP=$f: HBMW = host pages x 4096" || bad "FDP=$f: HBMW $hb != $h x 4096"
    [ $((mb - hb)) = $((g * 4096)) ] && ok "FDP=$f: MBMW - HBMW = GC copies x 4096" ||
        bad "FDP=$f: MBMW $mb - HBMW $hb != $g x 4096"
    [ "$me" -gt 0 ] && [ $((me % LINE)) = 0 ] && ok "FDP=$f: MBE $me = $((me / LINE)) whole lines" ||
        bad "FDP=$f: MBE $me is not a positive multiple of the $LINE-byte line"
    d=$(( mb > me ? mb - me : me - mb ))
    [ "$d" -le "$NAND" ] && ok "FDP=$f: |MBMW - MBE| = $d <= NAND bytes" ||
        bad "FDP=$f: MBMW $mb and MBE $me differ by more than the NAND ($NAND)"
done

# the simulator on the same configuration and workload
if [ -x "$SIM" ]; then
    for f in 0 1; do
        pids=""; [ $f = 1 ] && pids=",hot_pid=0,cold_pid=1"
        sim=$("$SIM" $GEO,fdp.nruh=2 --phase fill:seqfill,bs=128k --phase age:hotcold,size=128m$pids \
              --phase measure:hotcold,size=128m$pids | awk '$1 == "measure" {print $8}')
        gw=$(field $f waf_x1000)
        echo "FDP=$f: WAF x1000 guest $gw, femu-sim $sim"
        # fio's random stream and the two jobs' interleaving differ from
        # the simulator's generator, so the WAFs agree only statistically.
        # Without placement the interleaving of the hot and the cold job
        # in the one write stream follows the host's scheduling: FDP=0
        # read 2923 to 3390 against femu-sim's 3461 on loaded 2-core hosts
        # (FDP=1 stays within 2%), hence 25%.
        d=$(( gw > sim ? gw - sim : sim - gw ))
        [ $((d * 100)) -le $((sim * 25)) ] && ok "FDP=$f: guest WAF within 25% of femu-sim" ||
            bad "FDP=$f: guest WAF $gw vs femu-sim $sim differ by more than 25%"
    done
else
    echo "note: $SIM not built; simulator comparison skipped"
fi
exit $fail
