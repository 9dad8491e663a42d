# Guest side of femu-intc.t: Interrupt Coalescing (Set Features 08h) and
# Interrupt Vector Configuration (09h) change how many interrupts the
# I/O queues raise, counted in /proc/interrupts.  vSSD0 starts without
# coalescing, vSSD1 with intc_thresh=3,intc_time=10 (FEMU upstream's
# properties: the features' reset values).
A=$(ctrl_of vSSD0) B=$(ctrl_of vSSD1)
[ -n "$A" ] && [ -n "$B" ] || { bad "controllers vSSD0 and vSSD1 found"; finish; exit; }
echo "vSSD0 = $A, vSSD1 = $B"

# interrupts the I/O queues of controller $1 have raised (every CPU)
irqs() {
    awk -v c="$1" '$NF ~ "^" c "q[1-9][0-9]*$" {
        for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i }
        END { print s + 0 }' /proc/interrupts
}
# irq_per_io CTRL FIO-ARGS...: interrupts per completed I/O of one fio run
# of 4 KiB random reads (x1000, an integer)
irq_per_io() {
    local c=$1 i0 i1 ios; shift
    i0=$(irqs "$c")
    ios=$(fio --output-format=json --name=ic --filename=/dev/${c}n1 --rw=randread \
          --bs=4k --direct=1 --ioengine=libaio "$@" | python3 -c '
import sys, json
print(json.load(sys.stdin)["jobs"][0]["read"]["total_ios"])')
    i1=$(irqs "$c")
    echo $(( (i1 - i0) * 1000 / (ios > 0 ? ios : 1) ))
}
# clat_us CTRL FIO-ARGS...: mean completion latency of a run, us
clat_us() {
    local c=$1; shift
    fio --output-format=json --name=ic --filename=/dev/${c}n1 --rw=randread \
        --bs=4k --direct=1 --ioengine=libaio "$@" | python3 -c '
import sys, json
print(int(json.load(sys.stdin)["jobs"][0]["read"]["clat_ns"]["mean"] / 1000))'
}
# gf CTRL ARGS...: the value nvme get-feature prints, 8 hex digits (it
# writes 0 without the 0x, %#010x's way)
gf() { nvme get-feature /dev/$1 "${@:2}" 2>/dev/null | sed -n 's/.* value:\(0x\)\{0,1\}\([0-9a-f]*\).*/\2/p'; }
QD8="--iodepth=8 --size=16M"

check "vSSD0: Interrupt Coalescing 0 after reset" [ "$(gf $A -f 8)" = 00000000 ]
check "vSSD1: Interrupt Coalescing 0x0a03 (intc_time=10, intc_thresh=3)" [ "$(gf $B -f 8)" = 00000a03 ]
check "vSSD1: the default (SEL 001b) is the same" [ "$(gf $B -f 8 -s 1)" = 00000a03 ]
check "vSSD0: vector 1's Coalescing Disable is 0 (intc=0)" [ "$(gf $A -f 9 --cdw11=1)" = 00000001 ]

base=$(irq_per_io $A $QD8)
echo "vSSD0 QD8, no coalescing: $base interrupts per 1000 I/Os"
check "without coalescing about one interrupt per I/O ($base/1000)" [ "$base" -ge 600 ]

nvme set-feature /dev/$A -f 8 --value=0x0a07 >/dev/null
coal=$(irq_per_io $A $QD8)
echo "vSSD0 QD8, THR 7 (8 CQEs), TIME 10 (1 ms): $coal interrupts per 1000 I/Os"
check "THR 7: at most one interrupt per 3 I/Os at QD8 ($coal/1000)" [ "$coal" -le 333 ]

b1=$(irq_per_io $B $QD8)
echo "vSSD1 QD8, intc_thresh=3: $b1 interrupts per 1000 I/Os"
check "intc_thresh=3 coalesces from the start ($b1/1000)" [ "$b1" -le 500 ]

# Aggregation Time: at QD1 the threshold is never reached, each interrupt
# waits TIME (5 x 100 us) and no longer than it by much
nvme set-feature /dev/$A -f 8 --value=0x0507 >/dev/null
lat=$(clat_us $A --iodepth=1 --size=400k)
echo "vSSD0 QD1, TIME 5 (500 us): mean completion latency $lat us"
check "TIME 5: a lone completion waits 500 us for its interrupt ($lat us)" [ "$lat" -ge 500 ]
check "TIME 5: and not 10x longer ($lat us)" [ "$lat" -lt 5000 ]

# Coalescing Disable on every I/O vector: one interrupt per I/O again
nq=$(( (0x$(gf $A -f 7) & 0xffff) + 1 ))   # Number of Queues: NSQA, 0's based
for v in $(seq 1 "$nq"); do
    nvme set-feature /dev/$A -f 9 --value=$(( v | 0x10000 )) >/dev/null
done
check "vector 1 reads Coalescing Disable 1" [ "$(gf $A -f 9 --cdw11=1)" = 00010001 ]
nvme set-feature /dev/$A -f 8 --value=0x0a07 >/dev/null
cd1=$(irq_per_io $A $QD8)
echo "vSSD0 QD8, THR 7 but CD set on vectors 1..$nq: $cd1 interrupts per 1000 I/Os"
check "CD=1: coalescing does not apply ($cd1/1000)" [ "$cd1" -ge 600 ]

# a Controller Level Reset restores the reset values
nvme reset /dev/$A
check "vSSD0 after nvme reset: Interrupt Coalescing 0" [ "$(gf $A -f 8)" = 00000000 ]
check "vSSD0 after nvme reset: vector 1's CD is 0 again" [ "$(gf $A -f 9 --cdw11=1)" = 00000001 ]
check "vSSD0 after nvme reset: reads still work" \
    dd if=/dev/${A}n1 of=/dev/null bs=4k count=64 iflag=direct status=none
