#!/bin/bash
# femu device: `-device femu,help`, start-up refusals of bad configurations
# (exit status 1, message naming the property) and clean quit (status 0).
# No guest boot: QEMU is started paused and told to quit.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
QEMU=${FEMU_QEMU:-$ROOT/build-femu/qemu-system-x86_64}
[ -x "$QEMU" ] || { echo "skip: $QEMU not built"; exit 77; }

# firmware for the q35 machine: the embedded guest's copy, else Debian's
FW=${FEMU_CACHE_DIR:-$HOME/.cache/femu}/guest/current/firmware
[ -f "$FW/bios-256k.bin" ] || FW=/usr/share/seabios
[ -f "$FW/bios-256k.bin" ] || { echo "skip: no SeaBIOS (build the guest: scripts/guest/build-guest.sh)"; exit 77; }

fail=0
ok() { echo "ok - $*"; }
bad() { echo "FAIL - $*"; fail=1; }

# run QEMU paused with the given -device options, quit at once
start() {
    echo quit | timeout 60 "$QEMU" -L "$FW" -M q35 -nodefaults -display none -S \
        -monitor stdio "$@" 2>&1
}

# 1. help lists every documented property with its default
help=$("$QEMU" -device femu,help 2>&1)
for p in "femu_mode=<uint32> .*(default: 1)" "nchs=<uint32> .*(default: 8)" \
         "luns_per_ch=<uint32> .*(default: 8)" "pls_per_lun=<uint32> .*(default: 1)" \
         "blks_per_pl=<uint32> .*(default: 256)" "pgs_per_blk=<uint32> .*(default: 256)" \
         "secsz=<uint32> .*(default: 512)" "secs_per_pg=<uint32> .*(default: 8)" \
         "devsz_mb=<uint64> .*(default: 1024)" "op_pcent=<int32> .*(default: -1)" \
         "pg_rd_lat=<uint64> .*(default: 40000)" "pg_wr_lat=<uint64> .*(default: 200000)" \
         "blk_er_lat=<uint64> .*(default: 2000000)" "ch_xfer_lat=<uint64> .*(default: 0)" \
         "gc_thres_pcent=<uint32> .*(default: 75)" "gc_thres_pcent_high=<uint32> .*(default: 95)" \
         "gc_policy=<FemuGcPolicy> .*(default: greedy)" "gc_strategy=<int32> .*(default: -1)" \
         "hot_cold_sep=<bool> .*(default: off)" "subsys=<str> .*femu-subsys" \
         "serial=<str>" "queues=<uint32>" "pollers=<uint32>" "mdts=<uint8>"; do
    if grep -Eq -- "^  $p" <<<"$help"; then ok "help: $p"; else bad "help lacks: $p"; fi
done
shelp=$("$QEMU" -device femu-subsys,help 2>&1)
for p in "fdp=<bool> .*(default: off)" "fdp.nruh=<uint32>" "fdp.nru=<uint32> .*(default: 128)"; do
    if grep -Eq -- "^  $p" <<<"$shelp"; then ok "subsys help: $p"; else bad "subsys help lacks: $p"; fi
done

# 2. refusals: exit status 1 and a message naming the property
refuse() {
    local prop=$1; shift
    local out rc
    out=$(start "$@"); rc=$?
    if [ $rc = 1 ] && grep -q -- "$prop" <<<"$out"; then
        ok "refused ($prop): $(grep -m1 -- "$prop" <<<"$out")"
    else
        bad "expected exit 1 naming $prop for $*: rc=$rc: $out"
    fi
}
refuse femu_mode -device femu,femu_mode=4
refuse femu_mode -device femu,femu_mode=0
refuse secsz -device femu,secsz=1024
refuse gc_policy -device femu,gc_policy=lru
refuse gc_strategy -device femu,gc_strategy=9
refuse queues -device femu,queues=0
refuse pollers -device femu,pollers=0
refuse mdts -device femu,mdts=0
# a 5% spare on the 2 GiB tutorial geometry leaves GC too few lines
refuse op_pcent -device femu,nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=5
# a namespace larger than the NAND
refuse devsz_mb -device femu,nchs=2,luns_per_ch=2,blks_per_pl=32,devsz_mb=4096
refuse nchs -device femu,nchs=0
# the subsystem must exist before the controller names it
refuse fdp0 -device femu,subsys=fdp0 -device femu-subsys,id=fdp0

# 3. good configurations start and quit with status 0
for dev in "femu" "femu,femu_mode=2" "femu,nchs=4,luns_per_ch=4,blks_per_pl=128,op_pcent=25" \
           "femu,secsz=4096,gc_policy=d-choice,hot_cold_sep=on,pollers=2" \
           "femu,nchs=2,luns_per_ch=2,blks_per_pl=32,pgs_per_blk=64,op_pcent=25,gc_strategy=1"; do
    out=$(start -device "$dev"); rc=$?
    if [ $rc = 0 ]; then ok "starts and quits: $dev"; else bad "$dev: rc=$rc: $out"; fi
done
out=$(start -device femu-subsys,id=s0 -device femu,subsys=s0); rc=$?
[ $rc = 0 ] && ok "femu-subsys then femu,subsys=s0" || bad "subsys: rc=$rc: $out"
# two instances in one QEMU
out=$(start -device femu,devsz_mb=64 -device femu,devsz_mb=64); rc=$?
[ $rc = 0 ] && ok "two instances" || bad "two instances: rc=$rc: $out"

exit $fail
