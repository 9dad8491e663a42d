# Guest side of tests/guest/femu-wear.t: a tiny device with pe_cycles=30
# (vSSD0) is written with fio until nvme smart-log shows Percentage Used
# rising and Available Spare falling, then the media goes read-only
# (Critical Warning bits 0, 2 and 3, each one's SMART / Health event seen
# once by Linux, writes fail, reads work); vSSD1 has
# FDP's endurance group, whose log page 09h agrees with SMART.
# Both: nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25
# (6.4 MiB namespace, 32 lines of 256 KiB), NAND times 0.
# smart CTRL -> "critical_warning avail_spare percent_used data_units_written"
smart() {
    nvme smart-log /dev/$1 -o json | python3 -c '
import sys, json
j = json.load(sys.stdin)
pu = [v for k, v in j.items() if k.startswith("percent")][0]
print(j["critical_warning"], j["avail_spare"], pu, j["data_units_written"])'
}
c=$(ctrl_of vSSD0) || bad "no controller vSSD0"
dev=/dev/${c}n1
read cw sp pu du < <(smart $c)
echo "new: critical_warning=$cw avail_spare=$sp percent_used=$pu"
check "new device: percentage used 0, spare 100%, no warning" [ "$pu/$sp/$cw" = "0/100/0" ]
# SMART / Health events for Critical Warning bits 0, 2 and 3 (keeping bit
# 8, the notice Linux enabled); Linux's trace event nvme_async_event
# shows each one the kernel receives
check "enable the wear's SMART / Health events (Set Features 0Bh)" \
    nvme set-feature /dev/$c -f 0x0b --value=0x10d
check "... Get Features 0Bh reads it back" \
    grep -qi "value:0*10d\|0x0*10d" <<<"$(nvme get-feature /dev/$c -f 0x0b 2>&1)"
T=/sys/kernel/tracing
[ -d $T/events ] || mount -t tracefs nodev $T 2>/dev/null
aen_trace=
if [ -d $T/events/nvme/nvme_async_event ]; then
    echo 1 > $T/events/nvme/nvme_async_event/enable && aen_trace=1
fi
fio --name=fill --filename=$dev --rw=write --bs=128k --direct=1 --size=100% --output=/dev/null
rises=0 falls=0 last_pu=$pu last_sp=$sp ro=
for round in $(seq 1 16); do
    fio --name=age$round --filename=$dev --rw=randwrite --bs=4k --direct=1 \
        --ioengine=libaio --iodepth=16 --size=100% --io_size=16m --norandommap \
        --randrepeat=0 --output=/dev/null >/dev/null 2>&1
    read cw sp pu du < <(smart $c)
    echo "round $round: critical_warning=$cw avail_spare=$sp percent_used=$pu c0w: $(femu_c0w $c)"
    [ "$pu" -gt "$last_pu" ] && rises=$((rises + 1))
    [ "$sp" -lt "$last_sp" ] && falls=$((falls + 1))
    [ "$pu" -ge "$last_pu" ] || bad "round $round: percentage used fell ($last_pu -> $pu)"
    [ "$sp" -le "$last_sp" ] || bad "round $round: available spare grew ($last_sp -> $sp)"
    last_pu=$pu last_sp=$sp
    if [ $((cw & 8)) != 0 ]; then ro=$round; break; fi
done
check "percentage used rose in at least 4 rounds ($rises)" [ "$rises" -ge 4 ]
check "available spare fell ($falls times, now $sp%)" [ "$falls" -ge 1 ] && [ "$sp" -lt 100 ]
check "the media went read-only (critical warning $cw, round $ro)" [ -n "$ro" ]
check "read-only: spare below the threshold, warning bit 0 ($cw)" [ $((cw & 1)) = 1 ]
check "read-only: available spare 0% ($sp)" [ "$sp" = 0 ]
check "read-only: percentage used >= 90 ($pu)" [ "$pu" -ge 90 ]
check "grown bad blocks: reliability degraded, warning bit 2 ($cw)" [ $((cw & 4)) = 4 ]
# each warning bit's event arrived once: Spare Below Threshold (info 02h)
# once, NVM Subsystem Reliability (00h) for bits 2 and 3, once or twice
# (once when they set together); nothing else
if [ -n "$aen_trace" ]; then
    sleep 1
    aens=$(grep -o "NVME_AEN=0x[0-9a-f]*" $T/trace | sed 's/.*=//' | sort | uniq -c | tr '\n' ' ')
    echo "AENs Linux received (count value): $aens"
    check "one Spare Below Threshold event (0x020201)" \
        [ "$(grep -c 'NVME_AEN=0x0*20201' $T/trace)" = 1 ]
    n00=$(grep -c 'NVME_AEN=0x0*20001' $T/trace)
    check "NVM Subsystem Reliability events: 1 or 2 ($n00)" [ "$n00" -ge 1 ] && [ "$n00" -le 2 ]
    check "no other event" [ "$(grep -c 'NVME_AEN=' $T/trace)" = $((1 + n00)) ]
    echo 0 > $T/events/nvme/nvme_async_event/enable
else
    echo "note: no nvme_async_event trace event in this kernel: events not checked"
fi
# C0h agrees with SMART
w=$(femu_c0w $c)
check "C0h: percentage_used=$pu available_spare=$sp read_only=1 ($w)" \
    grep -q "percentage_used=$pu available_spare=$sp read_only=1 " <<<"$w"
check "C0h: grown bad blocks > 0" [ "$(tr ' ' '\n' <<<"$w" | sed -n 's/^grown_bad_blocks=//p')" -gt 0 ]
# writes fail (Write Fault), reads go on
head -c 4096 /dev/urandom >/tmp/blk
out=$(nvme write $dev -s 0 -c 7 -z 4096 -d /tmp/blk 2>&1); rc=$?
echo "nvme write on read-only media: rc=$rc $out"
check "a write on read-only media fails" [ "$rc" != 0 ]
check "... with Write Fault" grep -qi "write.fault\|0x280\|0x4280" <<<"$out"
check "reads still work" dd if=$dev of=/dev/null bs=4096 count=64 iflag=direct status=none
read cw2 sp2 pu2 du2 < <(smart $c)
check "the failed write moved no data unit ($du -> $du2)" [ "$du" = "$du2" ]

# FDP: the endurance group's log page 09h, as SMART
c1=$(ctrl_of vSSD1) || bad "no controller vSSD1"
fio --name=fdp --filename=/dev/${c1}n1 --rw=randwrite --bs=4k --direct=1 \
    --ioengine=libaio --iodepth=16 --size=100% --io_size=32m --norandommap \
    --randrepeat=0 --output=/dev/null
read cw sp pu du < <(smart $c1)
e=$(nvme endurance-log /dev/$c1 --group-id=1 -o json)
echo "vSSD1 smart: $cw $sp $pu $du; endurance log: $e"
check "09h: percentage used as SMART ($pu) and above 0" python3 -c '
import sys, json
j = json.loads(sys.argv[1])
pu = [v for k, v in j.items() if k.startswith("percent")][0]
sys.exit(not (pu == int(sys.argv[2]) > 0 and j["avl_spare"] == int(sys.argv[3]) and
              j["avl_spare_threshold"] == 10 and j["data_units_written"] == int(sys.argv[4]) and
              j["media_units_written"] > j["data_units_written"]))' "$e" "$pu" "$sp" "$du"
check "09h: another endurance group is refused" bash -c "! nvme endurance-log /dev/$c1 --group-id=2 >/dev/null 2>&1"
check "09h: refused without FDP" bash -c "! nvme endurance-log /dev/$c --group-id=1 >/dev/null 2>&1"
