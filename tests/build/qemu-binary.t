#!/bin/bash
# The built build-femu/qemu-system-x86_64 is what FEMU's users need: QEMU
# 10.0 with the femu device, QEMU's nvme device, virtio and serial devices,
# the pc and q35 machines, the log trace backend with femu's trace events, and
# firmware found without -L (a Linux kernel boots on -M pc and on -M q35).
. "$(dirname "$0")/lib.sh"

[ -x "$FEMU_QEMU" ] || { echo "$FEMU_QEMU not built (make build)"; exit 1; }
Q=$FEMU_QEMU

"$Q" -version | grep -q "QEMU emulator version 10\.0\." && ok "version 10.0" || fail "version: $("$Q" -version | head -n 1)"

"$Q" -device help > "$T/devices" 2>&1 || fail "-device help failed"
for d in femu femu-subsys nvme virtio-net-pci virtio-blk-pci virtio-scsi-pci isa-serial; do
    grep -q "name \"$d\"" "$T/devices" && ok "-device help lists $d" || fail "-device help lacks $d"
done
"$Q" -device nvme,help > "$T/nvme" 2>&1 && grep -q "serial=" "$T/nvme" && ok "-device nvme,help" || fail "-device nvme,help: $(head -n 3 "$T/nvme")"
"$Q" -device femu,help > "$T/femu" 2>&1 && grep -q "femu_mode" "$T/femu" && ok "-device femu,help" || fail "-device femu,help: $(head -n 3 "$T/femu")"

"$Q" -M help > "$T/machines" 2>&1
for m in pc q35; do
    grep -q "^$m " "$T/machines" && ok "-M help lists $m" || fail "no machine $m"
done

# Every event in hw/femu/trace-events is known to -trace (the graft added
# hw/femu to QEMU's trace event directories), and so are nvme's.
"$Q" -trace help > "$T/trace" 2>&1 || fail "-trace help failed"
grep -q "^pci_nvme_" "$T/trace" && ok "-trace knows pci_nvme_* events" || fail "no pci_nvme_* trace events"
n=0 missing=0
for ev in $(sed -n 's/^\([a-z_][a-z0-9_]*\)(.*/\1/p' "$FEMU_ROOT/hw/femu/trace-events"); do
    n=$((n + 1))
    grep -qx "$ev" "$T/trace" || { missing=$((missing + 1)); echo "  not in -trace help: $ev"; }
done
[ "$missing" -eq 0 ] && ok "-trace knows all $n events of hw/femu/trace-events" || fail "$missing of $n femu trace events missing"

# Boot a kernel on both machines.  No root fs is given, so it panics and, with
# panic=-1 and -no-reboot, QEMU exits 0: that proves firmware (SeaBIOS and the
# linuxboot_dma option ROM) was found and the kernel ran.
# Any Linux kernel will do: take the embedded guest's latest complete build
# if there is one (build-guest.sh may wait for a rebuild), else build it.
kernel=
cur=${FEMU_CACHE_DIR:-$HOME/.cache/femu}/guest/current
if [ -f "$cur/complete" ] && [ -f "$cur/vmlinuz" ]; then
    kernel=$cur/vmlinuz
elif [ -x "$FEMU_ROOT/scripts/guest/build-guest.sh" ]; then
    kernel=$("$FEMU_ROOT/scripts/guest/build-guest.sh" --quiet 2>"$T/guest.err" | sed -n 's/^kernel=//p')
fi
if [ -z "$kernel" ] || [ ! -f "$kernel" ]; then
    fail "no guest kernel from scripts/guest/build-guest.sh: $(tail -n 2 "$T/guest.err" 2>/dev/null)"
else
    for m in pc q35; do
        # TCG boot to the panic takes ~5-10 s here; 300 s leaves room for a
        # loaded machine.
        timeout 300 "$Q" -M "$m" -accel tcg -m 512 -nographic -nodefaults -serial stdio -no-reboot \
            -kernel "$kernel" -append "console=ttyS0 panic=-1" > "$T/boot-$m" 2>&1 < /dev/null
        rc=$?
        if [ $rc -eq 0 ] && grep -q "Linux version" "$T/boot-$m"; then
            ok "-M $m boots a kernel (QEMU exit 0, $(grep -c . "$T/boot-$m") lines of console output)"
        else
            fail "-M $m: exit $rc"; tail -n 5 "$T/boot-$m"
        fi
    done
fi
finish
