#!/bin/bash
# State files: save and load time and throughput, file size and host RSS
# for a 16 GiB-NAND femu device (12 GiB namespace) with SIZE written.
#   boot 1: empty SSD, RSS sampled, fio writes SIZE sequentially (1 MiB
#           blocks, random data, NAND delays off), RSS sampled, power-off
#           (QEMU saves: trace event femu_state_save gives chunks and ns)
#   boot 2: the same state=: loaded (femu_state_load), RSS sampled, fio
#           rewrites CHANGE of it (1 MiB blocks of new random data at
#           offset 256 MiB), the guest reads C0h, power-off: an incremental
#           save, a generation with the chunks changed since boot 1's save
#   boot 3: loaded (two generations), C0h, power-off (nothing changed: a
#           generation with the FTL section alone)
# Usage: bench/state/run.sh [SIZE [CHANGE]]   (default 1g 64m)
# Env:   FEMU_RUN_ARGS  extra scripts/femu-run options
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUNNER=$ROOT/scripts/femu-run
SIZE=${1:-1g}
CHANGE=${2:-64m}
T=$(mktemp -d /tmp/femu-state-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT
DEV=femu,serial=sb0,devsz_mb=12288,state=$T/ssd.femu

{ "$ROOT/scripts/femu-log.sh" --emit; cat; } >"$T/guest.sh" <<'GEOF'
c=nvme0; for x in /sys/class/nvme/nvme*; do [ "$(tr -d ' ' <$x/serial)" = sb0 ] && c=$(basename $x); done
echo "rss-sample start"; sleep 4
if [ "$PHASE" = 1 ]; then
    nvme admin-passthru /dev/$c --opcode=0xef --cdw10=4 >/dev/null
    fio --eta=never --name=w --filename=/dev/${c}n1 --rw=write --bs=1m --size=$SIZE \
        --direct=1 --ioengine=libaio --iodepth=8 --output=/dev/null
    echo "rss-sample written"; sleep 4
elif [ "$PHASE" = 2 ]; then
    nvme admin-passthru /dev/$c --opcode=0xef --cdw10=4 >/dev/null
    fio --eta=never --name=c --filename=/dev/${c}n1 --rw=write --bs=1m --offset=256m \
        --size=$CHANGE --direct=1 --ioengine=libaio --iodepth=8 --output=/dev/null
fi
echo "c0 $(femu_c0 $c | awk '{ print $1, $2, $3, $4 }')"
GEOF

rss_of() { awk '/^VmRSS/ {print $2}' /proc/"$(cat "$T/qemu.pid")"/status; }

boot() { # boot PHASE
    : >"$T/out"
    "$RUNNER" ${FEMU_RUN_ARGS:-} --timeout 900 --env PHASE=$1 --env SIZE=$SIZE --env CHANGE=$CHANGE \
        -pidfile "$T/qemu.pid" -trace femu_state_save -trace femu_state_load \
        -D "$T/trace.$1" -device "$DEV" --script "$T/guest.sh" >"$T/out" 2>"$T/err" &
    local pid=$! seen=""
    while kill -0 $pid 2>/dev/null; do
        for tag in $(sed -n 's/^rss-sample //p' "$T/out"); do
            case " $seen " in *" $tag "*) continue ;; esac
            seen="$seen $tag"
            echo "boot $1: QEMU RSS at $tag: $(rss_of) KiB"
        done
        sleep 0.5
    done
    wait $pid || { echo "boot $1 failed"; tail -5 "$T/err"; }
    grep '^c0' "$T/out" | sed "s/^/boot $1: /"
    sed "s/^/boot $1: trace: /" "$T/trace.$1"
    echo "boot $1: state file $(stat -c %s "$T/ssd.femu") bytes"
}
boot 1
boot 2
boot 3
